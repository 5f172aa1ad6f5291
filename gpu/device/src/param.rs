//! Kernel parameters: a tensor in device memory, checked on the host and passed by value.

use crate::types::Word;
use const_layout::int_tuple::IntTuple;
use const_layout::layout::LayoutShape;
use const_layout::layout::param::{LayoutParam, LayoutWords};
use const_layout::{AnyLayout, Layout, LayoutError};
use core::fmt;
use core::marker::PhantomData;

/// A rank-2 tensor of `T` in device memory as a kernel parameter: the allocation's address and
/// length and the layout's [`LayoutParam`], `#[repr(C)]`. The host builds it with
/// [`TensorParam::new`], which makes every check a kernel would need; the kernel's entry point
/// turns it into a [`GlobalTensor`](crate::GlobalTensor) with none.
///
/// ```
/// use const_layout::{make_layout, C};
/// use const_layout_device::{ParamError, TensorParam};
/// let a = make_layout((100u32, 64u32), (C::<1>, 100u32)).unwrap();
/// let p = TensorParam::<f32, _, _>::new(0x7f00_0000_0000, 6400, &a).unwrap();
/// assert_eq!(p.len(), 6400);
/// assert_eq!(TensorParam::<f32, _, _>::new(0x7f00_0000_0000, 6399, &a).unwrap_err(),
///            ParamError::TooSmall { cosize: 6400, len: 6399 });
/// assert_eq!(TensorParam::<f32, _, _>::new(0x7f00_0000_0004, 6400, &a).unwrap_err(),
///            ParamError::Misaligned { addr: 0x7f00_0000_0004 });
/// ```
#[repr(C)]
pub struct TensorParam<T, S, D> {
    addr: u64,
    len: u64,
    layout: LayoutParam<S, D>,
    elem: PhantomData<fn() -> T>,
}

impl<T, S, D> Clone for TensorParam<T, S, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, S, D> Copy for TensorParam<T, S, D> {}

impl<T, S: const_layout::int_tuple::IntTuple + LayoutShape<D>, D: const_layout::int_tuple::IntTuple>
    fmt::Debug for TensorParam<T, S, D>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorParam({:#x}, {} elements, {})", self.addr, self.len, self.layout.layout())
    }
}

/// A [`TensorParam`]'s data without its types, `#[repr(C)]` with no padding: what a launcher that
/// moves kernel parameters as bytes holds (with feature `bytemuck`, `Pod` and `Zeroable`).
///
/// `TensorParam` itself is deliberately not `Pod`: a kernel reads through it with no check, so
/// its values must be the ones [`TensorParam::new`] checked. Any bytes are a `TensorWords`; a
/// `TensorParam` comes back only through [`TensorParam::from_words`], which checks them again.
///
/// ```
/// use const_layout::{make_layout, C};
/// use const_layout_device::{TensorParam, TensorWords};
/// let a = make_layout((100u32, 64u32), (C::<1>, 100u32)).unwrap();
/// let p = TensorParam::<f32, _, _>::new(0x7f00_0000_0000, 6400, &a).unwrap();
/// let w: TensorWords = p.to_words();
/// assert_eq!(core::mem::size_of::<TensorWords>(), 64);
/// assert_eq!(TensorParam::<f32, (u32, u32), (C<1>, u32)>::from_words(w).unwrap().to_words(), w);
/// let short = TensorWords { len: 6399, ..w };
/// assert!(TensorParam::<f32, (u32, u32), (C<1>, u32)>::from_words(short).is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(C)]
pub struct TensorWords {
    /// The allocation's device address.
    pub addr: u64,
    /// The allocation's length in elements.
    pub len: u64,
    /// The layout's words.
    pub layout: LayoutWords,
}

/// Why a [`TensorParam`] was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// The allocation's address is not 16-byte aligned.
    Misaligned {
        /// The address.
        addr: u64,
    },
    /// A stride is negative (device tensors start at their allocation, and tiles rely on
    /// offsets growing with each coordinate).
    NegativeStride {
        /// The stride's integer, counting the stride's integers left to right (the mode, for a
        /// flat layout).
        mode: usize,
        /// The stride.
        stride: isize,
    },
    /// The layout reaches past the allocation.
    TooSmall {
        /// The layout's cosize.
        cosize: u64,
        /// The allocation's length in elements.
        len: u64,
    },
    /// The layout reaches past 2^32 elements: offsets in device tiles are 32-bit.
    TooLarge {
        /// The layout's cosize.
        cosize: u64,
    },
    /// The layout's runtime integers do not fit the parameter form.
    Layout(LayoutError),
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Misaligned { addr } => write!(f, "device address {addr:#x} is not 16-byte aligned"),
            ParamError::NegativeStride { mode, stride } => {
                write!(
                    f,
                    "mode {mode} has the negative stride {stride}; device tensors need non-negative strides"
                )
            }
            ParamError::TooSmall { cosize, len } => {
                write!(f, "the layout reaches element {} but the allocation has {len}", cosize)
            }
            ParamError::TooLarge { cosize } => {
                write!(f, "the layout reaches element {cosize}, past the 2^32 elements of a device tensor")
            }
            ParamError::Layout(e) => write!(f, "{e}"),
        }
    }
}

impl<T, S, D> TensorParam<T, S, D> {
    /// The allocation's device address.
    pub fn address(&self) -> u64 {
        self.addr
    }

    /// The allocation's length in elements.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the allocation is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: Word, S: IntTuple + LayoutShape<D>, D: IntTuple> TensorParam<T, S, D> {
    /// The parameter for the tensor laid out as `layout` (of any rank and nesting) in the
    /// allocation of `len` elements at device address `addr`: checks that the address is 16-byte
    /// aligned, the strides are non-negative, the layout's cosize is at most `len` and at most
    /// 2^32, and its runtime integers fit 32 bits.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{ParamError, TensorParam};
    /// // A batch of 3 row-major 4 x 5 matrices, 20 elements apart.
    /// let l = make_layout((3u32, 4u32, 5u32), (20u32, 5u32, C::<1>)).unwrap();
    /// assert!(TensorParam::<f32, _, _>::new(0x7f00_0000_0000, 60, &l).is_ok());
    /// let neg = make_layout((3i32, 4i32), (C::<1>, -3i32)).unwrap();
    /// assert_eq!(TensorParam::<f32, _, _>::new(0x7f00_0000_0000, 60, &neg).unwrap_err(),
    ///            ParamError::NegativeStride { mode: 1, stride: -3 });
    /// ```
    pub fn new(addr: u64, len: usize, layout: &Layout<S, D>) -> Result<Self, ParamError> {
        if !addr.is_multiple_of(16) {
            return Err(ParamError::Misaligned { addr });
        }
        // Strides are non-negative, so an offset grows with each coordinate: a coordinate inside
        // the shape has an offset below the cosize (what tiles rely on, with no check).
        let mut negative = None;
        let mut mode = 0;
        layout.stride().for_each_leaf(&mut |leaf| {
            if negative.is_none() && leaf.value.is_some_and(|v| v < 0) {
                negative = Some(ParamError::NegativeStride { mode, stride: leaf.value.unwrap_or(0) });
            }
            mode += 1;
        });
        if let Some(e) = negative {
            return Err(e);
        }
        let cosize = AnyLayout::cosize(layout) as u64;
        if cosize > len as u64 {
            return Err(ParamError::TooSmall { cosize, len: len as u64 });
        }
        if cosize > crate::tensor::MAX_COSIZE {
            return Err(ParamError::TooLarge { cosize });
        }
        let layout = LayoutParam::new(layout).map_err(ParamError::Layout)?;
        Ok(TensorParam { addr, len: len as u64, layout, elem: PhantomData })
    }

    /// The parameter as plain data ([`TensorWords`]).
    pub fn to_words(&self) -> TensorWords {
        TensorWords { addr: self.addr, len: self.len, layout: self.layout.to_words() }
    }

    /// The checked way back from plain data: the layout's words must be a valid layout of this
    /// type ([`LayoutParam::from_words`]) and the whole must pass [`TensorParam::new`]'s checks.
    pub fn from_words(w: TensorWords) -> Result<Self, ParamError> {
        let layout = LayoutParam::<S, D>::from_words(w.layout).map_err(ParamError::Layout)?;
        // A length past `usize` (a 32-bit host) is taken as the most it can say: checks against it
        // stay sound, since the layout must still fit.
        let len = usize::try_from(w.len).unwrap_or(usize::MAX);
        Self::new(w.addr, len, &layout.layout())
    }

    /// The layout.
    #[inline(always)]
    pub fn layout(&self) -> Layout<S, D> {
        self.layout.layout()
    }
}

impl<T: Word, S: IntTuple + LayoutShape<D>, D: IntTuple> TensorParam<T, S, D> {
    /// The tensor, read-only.
    ///
    /// # Safety
    /// The parameter was made by [`TensorParam::new`] for an allocation that stays allocated for
    /// the kernel, and no thread writes it during the kernel.
    #[inline(always)]
    pub unsafe fn read_only<'a>(&self) -> crate::GlobalTensor<crate::Gmem<'a, T>, Layout<S, D>> {
        // SAFETY: `new` checked the alignment, and the caller the allocation and its use; `new`
        // checked the strides and the cosize against `len`.
        unsafe {
            crate::GlobalTensor::new_unchecked(
                crate::Gmem::from_raw(self.addr, self.len as usize),
                self.layout(),
            )
        }
    }

    /// The tensor, writable.
    ///
    /// # Safety
    /// The parameter was made by [`TensorParam::new`] for an allocation that stays allocated for
    /// the kernel, and no other tensor of the kernel overlaps it.
    #[inline(always)]
    pub unsafe fn writable<'a>(&self) -> crate::GlobalTensor<crate::GmemMut<'a, T>, Layout<S, D>> {
        // SAFETY: as in `read_only`.
        unsafe {
            crate::GlobalTensor::new_unchecked(
                crate::GmemMut::from_raw(self.addr, self.len as usize),
                self.layout(),
            )
        }
    }
}

#[cfg(all(test, feature = "bytemuck"))]
mod pod_tests {
    use super::{TensorParam, TensorWords};
    use const_layout::{C, make_layout};

    type P = TensorParam<f32, (u32, u32), (C<1>, u32)>;

    /// Any 64 bytes are a `TensorWords`; they come back as a `TensorParam` only when they are
    /// exactly what `TensorParam::new` writes for a valid tensor.
    #[test]
    fn any_bytes_come_back_checked_or_not_at_all() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut ok, mut refused) = (0, 0);
        for _ in 0..20000 {
            let (m, n) = (1 + next() % 300, 1 + next() % 40);
            let a = make_layout((m as u32, n as u32), (C::<1>, (m + next() % 4) as u32)).unwrap();
            let mut w = P::new(0x7f00_0000_0000 + 16 * (next() % 8), 20000, &a).unwrap().to_words();
            // Perturb one byte half the time.
            let mut bytes: [u8; 64] = bytemuck::cast(w);
            if next() % 2 == 0 {
                bytes[(next() % 64) as usize] ^= 1 << (next() % 8);
            }
            w = bytemuck::pod_read_unaligned(&bytes);
            match P::from_words(w) {
                Ok(p) => {
                    assert_eq!(p.to_words(), w);
                    ok += 1;
                }
                Err(_) => refused += 1,
            }
        }
        assert!(ok > 9000 && refused > 1000, "{ok} accepted, {refused} refused");
        let zero: TensorWords = bytemuck::Zeroable::zeroed();
        assert!(P::from_words(zero).is_err()); // zero extents
    }
}
