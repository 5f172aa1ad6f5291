//! A layout as a kernel parameter: checked once on the host, passed by value, rebuilt on the device
//! without a check.
//!
//! A GPU kernel receives its runtime problem sizes as parameters. Building a [`Layout`] inside the
//! kernel with [`make_layout`](crate::make_layout) would check every runtime integer in every
//! thread (the checks, `Result`s and 64-bit arithmetic cost about 195 SASS instructions per thread
//! on an H100). [`LayoutParam`] moves the checks to the host: [`LayoutParam::new`] takes a layout
//! that already passed [`make_layout`](crate::make_layout)'s checks and stores its runtime integers as 32-bit words in
//! a `#[repr(C)]` array, refusing any value that does not survive the round trip; the kernel calls
//! [`LayoutParam::layout`], which reads the words back into the same typed layout with no check
//! and no branch. Static integers are not stored: their values are the type.
//!
//! The host and the device agree on the bytes because the struct is `#[repr(C)]` over `u32`s, the
//! same on every target; the layout's *type* (`S`, `D`) must be the same on both sides, which a
//! kernel crate shared by the launcher and the device code gives for free.
//!
//! ```
//! use const_layout::layout::param::LayoutParam;
//! use const_layout::{make_layout, C};
//! // A (M, K) column-major matrix: static unit stride, runtime extents and leading dimension.
//! let a = make_layout((5120u32, 4096u32), (C::<1>, 5120u32)).unwrap();
//! let p = LayoutParam::new(&a).unwrap();
//! assert_eq!(core::mem::size_of_val(&p), 4 * const_layout::layout::param::PARAM_WORDS);
//! assert_eq!(p.words()[..3], [5120, 4096, 5120]);
//! // On the device: the same layout, no check.
//! assert_eq!(p.layout(), a);
//! assert_eq!(p.layout().crd2idx((3u32, 2u32)), 3 + 2 * 5120);
//! ```

use super::{Layout, LayoutShape};
use crate::LayoutError;
use crate::int_tuple::IntTuple;
use core::fmt;
use core::marker::PhantomData;

/// The number of 32-bit words in a [`LayoutParam`]: the most runtime integers a layout passed to
/// a kernel may have (shape and stride together).
pub const PARAM_WORDS: usize = 12;

/// A layout parameter's words without its type: plain data (with feature `bytemuck`, `Pod` and
/// `Zeroable`), for buffers, files and launchers that move kernel parameters as bytes. Any bit
/// pattern is a `LayoutWords`; a typed [`LayoutParam`] comes back only through the checked
/// [`LayoutParam::from_words`].
///
/// ```
/// use const_layout::layout::param::{LayoutParam, LayoutWords};
/// use const_layout::{make_layout, C, Layout};
/// type L = Layout<(u32, u32), (C<1>, u32)>;
/// let a: L = make_layout((100u32, 64u32), (C::<1>, 100u32)).unwrap();
/// let words: LayoutWords = LayoutParam::new(&a).unwrap().to_words();
/// assert_eq!(LayoutParam::<(u32, u32), (C<1>, u32)>::from_words(words).unwrap().layout(), a);
/// // A zero extent does not come back.
/// let mut bad = words;
/// bad.0[0] = 0;
/// assert!(LayoutParam::<(u32, u32), (C<1>, u32)>::from_words(bad).is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "bytemuck", derive(bytemuck::Pod, bytemuck::Zeroable))]
#[repr(transparent)]
pub struct LayoutWords(pub [u32; PARAM_WORDS]);

/// A checked layout's runtime integers as 32-bit words, `#[repr(C)]`: the form in which a layout
/// with runtime integers is passed to a GPU kernel by value. See the [module](self).
///
/// Unused words are zero. Build it on the host with [`LayoutParam::new`]; read it in the kernel
/// with [`LayoutParam::layout`].
#[repr(C)]
pub struct LayoutParam<S, D> {
    words: [u32; PARAM_WORDS],
    layout: PhantomData<fn() -> Layout<S, D>>,
}

impl<S, D> Clone for LayoutParam<S, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, D> Copy for LayoutParam<S, D> {}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> LayoutParam<S, D> {
    /// At most [`PARAM_WORDS`] runtime integers, checked when a parameter type is used.
    const FITS: () = assert!(
        S::RUNTIME_LEAVES + D::RUNTIME_LEAVES <= PARAM_WORDS,
        "a layout passed to a kernel has more runtime integers than LayoutParam's 12 words"
    );

    /// The parameter form of `layout`: every runtime integer as 32 bits. `Err` names the first
    /// integer (counting the shape's integers, then the stride's) whose value does not fit in 32
    /// bits of its type: unsigned types take `0..2^32`, signed ones `-2^31..2^31`.
    ///
    /// ```
    /// use const_layout::layout::param::LayoutParam;
    /// use const_layout::{make_layout, C, LayoutError};
    /// let big = make_layout((1usize << 33, C::<2>), (C::<1>, 1usize << 33)).unwrap();
    /// assert_eq!(
    ///     LayoutParam::new(&big).unwrap_err(),
    ///     LayoutError::ValueOutOfRange { part: "kernel parameter (32 bits)", leaf: 0 }
    /// );
    /// ```
    #[inline]
    pub fn new(layout: &Layout<S, D>) -> Result<Self, LayoutError> {
        let () = Self::FITS;
        let mut words = [0u32; PARAM_WORDS];
        let out_of_range = |leaf| LayoutError::ValueOutOfRange { part: "kernel parameter (32 bits)", leaf };
        let (at, leaf) = layout.shape.store_runtime_u32(&mut words, 0, 0).map_err(out_of_range)?;
        layout.stride.store_runtime_u32(&mut words, at, leaf).map_err(out_of_range)?;
        Ok(LayoutParam { words, layout: PhantomData })
    }

    /// The layout, rebuilt from the words with no check: the values passed [`LayoutParam::new`]
    /// and [`make_layout`](crate::make_layout) on the host. In a kernel this is a few parameter
    /// loads.
    #[inline(always)]
    pub fn layout(&self) -> Layout<S, D> {
        let mut at = 0;
        let shape = S::load_runtime_u32(&self.words, &mut at);
        let stride = D::load_runtime_u32(&self.words, &mut at);
        Layout { shape, stride }
    }

    /// The words, in the order of the layout's runtime integers (shape first), then zeros.
    #[inline]
    pub fn words(&self) -> [u32; PARAM_WORDS] {
        self.words
    }

    /// The words as plain data ([`LayoutWords`]).
    #[inline]
    pub fn to_words(&self) -> LayoutWords {
        LayoutWords(self.words)
    }

    /// The checked conversion back from plain data: the words read as this parameter's layout
    /// must make a valid layout (positive extents, an offset range that fits, as
    /// [`Layout::try_new`] checks) and be exactly the words [`LayoutParam::new`] writes for it
    /// (unused words zero, every value surviving the round trip); else the layout's error, or
    /// `ValueOutOfRange` naming the first word that differs.
    pub fn from_words(words: LayoutWords) -> Result<Self, LayoutError> {
        let () = Self::FITS;
        let unchecked = LayoutParam::<S, D> { words: words.0, layout: PhantomData }.layout();
        let checked = Layout::try_new(unchecked.shape, unchecked.stride)?;
        let back = LayoutParam::new(&checked)?;
        match (0..PARAM_WORDS).find(|&i| back.words[i] != words.0[i]) {
            None => Ok(back),
            Some(leaf) => Err(LayoutError::ValueOutOfRange { part: "kernel parameter word", leaf }),
        }
    }
}

impl<S: IntTuple + LayoutShape<D>, D: IntTuple> fmt::Debug for LayoutParam<S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LayoutParam({})", self.layout())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{C, make_layout};

    #[test]
    fn round_trips_every_integer_type() {
        let l = make_layout((7u32, (C::<4>, 3usize)), (C::<1>, (-7i32, 28i64))).unwrap();
        let p = LayoutParam::new(&l).unwrap();
        assert_eq!(p.words()[..5], [7, 3, -7i32 as u32, 28, 0]);
        assert_eq!(p.layout(), l);
        assert_eq!(p.layout().stride().1.0, -7);
    }

    #[test]
    fn refuses_values_beyond_32_bits() {
        let l = make_layout((C::<2>, 3usize), (C::<1>, -(1isize << 31) - 1)).unwrap();
        assert_eq!(
            LayoutParam::new(&l).unwrap_err(),
            LayoutError::ValueOutOfRange { part: "kernel parameter (32 bits)", leaf: 3 }
        );
        // The most negative signed value and the largest unsigned one fit.
        let l = make_layout((u32::MAX, C::<1>), (C::<1>, i32::MIN)).unwrap();
        assert_eq!(LayoutParam::new(&l).unwrap().layout(), l);
        let s = make_layout((C::<8>, C::<4>), (C::<1>, C::<8>)).unwrap();
        assert_eq!(LayoutParam::new(&s).unwrap().words(), [0; PARAM_WORDS]);
    }
}
