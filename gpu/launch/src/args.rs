//! Host arguments: what a launch takes for each parameter of an [`Entry`](const_layout_device::abi::Entry).
//!
//! | parameter (`KernelParam`) | host argument (`LaunchParam::Arg<'a>`) |
//! |---|---|
//! | `In<TensorParam<T, S, D>>` | [`InArg<'a, T, S, D>`]: a `&'a CudaSlice<T>` and a `Layout<S, D>`, checked |
//! | `Out<TensorParam<T, S, D>>` | [`OutArg<'a, T, S, D>`]: a `&'a mut CudaSlice<T>` and a layout, checked |
//! | `TensorMapRef` | `&'a` [`TensorMap`] |
//! | `u32`, `i32`, `u64`, `i64`, `f32`, `f64` | the value itself |
//!
//! A parameter list `P` (a tuple) takes the tuple of its parameters' arguments,
//! [`LaunchParams::Args`]. The borrows make a launch safe: a buffer cannot be freed while an
//! argument of it exists, and an output is borrowed exclusively, so no input of the same launch can
//! be the same buffer (the launch also checks that no output overlaps another tensor, for arguments
//! made from raw addresses).

use crate::error::LaunchError;
use crate::tensor_map::TensorMap;
use const_layout::Layout;
use const_layout::int_tuple::IntTuple;
use const_layout::layout::LayoutShape;
use const_layout_device::abi::{In, KernelParam, Out, ParamList, TensorMapRef};
use const_layout_device::{TensorParam, TensorWords, Word};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, SyncOnDrop};
use std::ffi::c_void;
use std::sync::Arc;

/// An input tensor of a launch ([`In`]): a device buffer borrowed for `'a` and a layout, checked by
/// [`TensorParam::new`] (16-byte aligned, non-negative strides, within the buffer, at most 2^32
/// elements, runtime integers of 32 bits). `Copy`: inputs of one launch may share a buffer.
///
/// ```no_run
/// use const_layout::{make_layout, C};
/// use const_layout_launch::InArg;
/// let ctx = cudarc::driver::CudaContext::new(0)?;
/// let x = ctx.default_stream().clone_htod(&vec![1.0f32; 4096])?;
/// let a = InArg::new(&x, &make_layout((64u32, 64u32), (C::<1>, 64u32))?)?;
/// assert_eq!(a.param().len(), 4096);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct InArg<'a, T, S, D> {
    param: TensorParam<T, S, D>,
    buf: Option<&'a CudaSlice<T>>,
}

impl<T, S, D> Clone for InArg<'_, T, S, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, S, D> Copy for InArg<'_, T, S, D> {}

/// An output tensor of a launch ([`Out`]): a device buffer borrowed exclusively for `'a` and a
/// layout, checked as for [`InArg`]. Another launch with the same output takes
/// [`reborrow`](OutArg::reborrow).
///
/// ```no_run
/// use const_layout::{make_layout, C};
/// use const_layout_launch::OutArg;
/// let ctx = cudarc::driver::CudaContext::new(0)?;
/// let mut y = ctx.default_stream().alloc_zeros::<f32>(4096)?;
/// let mut out = OutArg::new(&mut y, &make_layout((64u32, 64u32), (C::<1>, 64u32))?)?;
/// let again = out.reborrow(); // for a second launch
/// # let _ = again;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OutArg<'a, T, S, D> {
    param: TensorParam<T, S, D>,
    buf: Option<&'a mut CudaSlice<T>>,
}

/// The buffer's device address, read without queuing work: cudarc hands it out with a guard that
/// would record a read on the buffer's stream when dropped, which reading an address is not.
fn address<T>(buf: &CudaSlice<T>) -> u64 {
    let (addr, guard) = buf.device_ptr(buf.stream());
    std::mem::forget::<SyncOnDrop<'_>>(guard);
    addr
}

impl<'a, T: Word, S: IntTuple + LayoutShape<D>, D: IntTuple> InArg<'a, T, S, D> {
    /// The tensor laid out as `layout` in `buf`.
    ///
    /// ```no_run
    /// # use const_layout::{make_layout, C};
    /// # use const_layout_launch::{InArg, LaunchError};
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// let x = ctx.default_stream().alloc_zeros::<f32>(100)?;
    /// let too_big = make_layout((11u32, 10u32), (C::<1>, 11u32))?;
    /// assert!(matches!(InArg::new(&x, &too_big), Err(LaunchError::Tensor(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(buf: &'a CudaSlice<T>, layout: &Layout<S, D>) -> Result<Self, LaunchError> {
        let param = TensorParam::new(address(buf), buf.len(), layout)?;
        Ok(InArg { param, buf: Some(buf) })
    }

    /// The tensor laid out as `layout` in the allocation of `len` elements at device address
    /// `addr` (memory cudarc did not allocate: another library's, PyTorch's); the same checks as
    /// [`InArg::new`].
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::ParamError;
    /// use const_layout_launch::{InArg, LaunchError};
    /// let l = make_layout((64u32, 64u32), (C::<1>, 64u32)).unwrap();
    /// // SAFETY: the argument is not launched with.
    /// let e = unsafe { InArg::<f32, _, _>::from_raw(0x7f00_0000_0008, 4096, &l) }.err();
    /// assert_eq!(e, Some(LaunchError::Tensor(ParamError::Misaligned { addr: 0x7f00_0000_0008 })));
    /// ```
    ///
    /// # Safety
    /// A launch with this argument reads `len` elements of `T` at `addr`: device memory of the
    /// launch's context that stays allocated, and is not written by anything but the launch's
    /// outputs' other tensors, while the argument exists and until the launches made with it end.
    pub unsafe fn from_raw(addr: u64, len: usize, layout: &Layout<S, D>) -> Result<Self, LaunchError> {
        Ok(InArg { param: TensorParam::new(addr, len, layout)?, buf: None })
    }
}

impl<'a, T: Word, S: IntTuple + LayoutShape<D>, D: IntTuple> OutArg<'a, T, S, D> {
    /// The tensor laid out as `layout` in `buf`, which the launch writes.
    ///
    /// ```no_run
    /// # use const_layout::{make_layout, C};
    /// # use const_layout_launch::OutArg;
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// let mut y = ctx.default_stream().alloc_zeros::<u32>(64 * 32)?;
    /// // 64 x 64 halves, two to a word, rows contiguous.
    /// let c = OutArg::new(&mut y, &make_layout((64u32, 32u32), (32u32, C::<1>))?)?;
    /// # let _ = c;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(buf: &'a mut CudaSlice<T>, layout: &Layout<S, D>) -> Result<Self, LaunchError> {
        let param = TensorParam::new(address(buf), buf.len(), layout)?;
        Ok(OutArg { param, buf: Some(buf) })
    }

    /// The tensor laid out as `layout` in the allocation of `len` elements at device address
    /// `addr`, which the launch writes; the same checks as [`OutArg::new`].
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::ParamError;
    /// use const_layout_launch::{OutArg, LaunchError};
    /// let l = make_layout((64u32, 64u32), (C::<1>, 64u32)).unwrap();
    /// // SAFETY: the argument is not launched with.
    /// let e = unsafe { OutArg::<f32, _, _>::from_raw(0x7f00_0000_0000, 4000, &l) }.err();
    /// assert_eq!(e, Some(LaunchError::Tensor(ParamError::TooSmall { cosize: 4096, len: 4000 })));
    /// ```
    ///
    /// # Safety
    /// A launch with this argument reads and writes `len` elements of `T` at `addr`: device memory
    /// of the launch's context that stays allocated, and that nothing else reads or writes, while
    /// the argument exists and until the launches made with it end.
    pub unsafe fn from_raw(addr: u64, len: usize, layout: &Layout<S, D>) -> Result<Self, LaunchError> {
        Ok(OutArg { param: TensorParam::new(addr, len, layout)?, buf: None })
    }
}

impl<T, S, D> InArg<'_, T, S, D> {
    /// The checked parameter.
    ///
    /// ```
    /// # use const_layout::{make_layout, C};
    /// # use const_layout_launch::InArg;
    /// let l = make_layout((64u32, 64u32), (C::<1>, 64u32)).unwrap();
    /// // SAFETY: the argument is not launched with.
    /// let a = unsafe { InArg::<f32, _, _>::from_raw(0x7f00_0000_0000, 4096, &l) }.unwrap();
    /// assert_eq!(a.param().layout(), l);
    /// ```
    pub fn param(&self) -> &TensorParam<T, S, D> {
        &self.param
    }

    /// The context of the buffer, when cudarc allocated it.
    pub(crate) fn context(&self) -> Option<&Arc<CudaContext>> {
        self.buf.map(|b| b.context())
    }
}

impl<T, S, D> OutArg<'_, T, S, D> {
    /// The checked parameter.
    ///
    /// ```
    /// # use const_layout::{make_layout, C};
    /// # use const_layout_launch::OutArg;
    /// let l = make_layout((64u32, 64u32), (C::<1>, 64u32)).unwrap();
    /// // SAFETY: the argument is not launched with.
    /// let c = unsafe { OutArg::<f32, _, _>::from_raw(0x7f00_0000_0000, 4096, &l) }.unwrap();
    /// assert_eq!(c.param().len(), 4096);
    /// ```
    pub fn param(&self) -> &TensorParam<T, S, D> {
        &self.param
    }

    /// The same output for a shorter borrow: one argument a launch, for launches one after another.
    ///
    /// ```
    /// # use const_layout::{make_layout, C};
    /// # use const_layout_launch::OutArg;
    /// let l = make_layout((64u32, 64u32), (C::<1>, 64u32)).unwrap();
    /// // SAFETY: the argument is not launched with.
    /// let mut c = unsafe { OutArg::<f32, _, _>::from_raw(0x7f00_0000_0000, 4096, &l) }.unwrap();
    /// for _ in 0..3 {
    ///     let once = c.reborrow();
    ///     assert_eq!(once.param().len(), 4096);
    /// }
    /// ```
    pub fn reborrow(&mut self) -> OutArg<'_, T, S, D> {
        OutArg { param: self.param, buf: self.buf.as_deref_mut() }
    }
}

/// What a launch checks of one argument before it launches.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct ArgInfo {
    /// A tensor: its allocation and whether the kernel writes it.
    pub tensor: Option<TensorUse>,
    /// A tensor map: the tensor it was encoded for.
    pub map_of: Option<TensorWords>,
    /// The context of the argument's buffer, when cudarc allocated it.
    pub context: Option<Arc<CudaContext>>,
}

/// A tensor argument's memory.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorUse {
    /// The parameter's data.
    pub words: TensorWords,
    /// The allocation's bytes.
    pub bytes: u64,
    /// Whether the kernel writes it.
    pub out: bool,
}

impl TensorUse {
    /// Whether the two allocations share a byte.
    pub fn overlaps(&self, other: &TensorUse) -> bool {
        let (a, b) = (self.words.addr, other.words.addr);
        a < b.saturating_add(other.bytes)
            && b < a.saturating_add(self.bytes)
            && self.bytes > 0
            && other.bytes > 0
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A kernel parameter's host argument. Implemented for every [`KernelParam`]; sealed.
///
/// | parameter | host argument (`Arg<'a>`) |
/// |---|---|
/// | `In<TensorParam<T, S, D>>` | [`InArg<'a, T, S, D>`]: a `&'a CudaSlice<T>` and a `Layout<S, D>`, checked |
/// | `Out<TensorParam<T, S, D>>` | [`OutArg<'a, T, S, D>`]: a `&'a mut CudaSlice<T>` and a layout, checked |
/// | `TensorMapRef` | `&'a` [`TensorMap`] |
/// | `u32`, `i32`, `u64`, `i64`, `f32`, `f64` | the value itself |
///
/// ```
/// use const_layout_device::abi::TensorMapRef;
/// use const_layout_launch::{LaunchParam, TensorMap};
/// fn takes<P: LaunchParam>(_: P::Arg<'_>) {}
/// takes::<f32>(0.5);
/// let _ = takes::<TensorMapRef> as fn(&TensorMap<'_>);
/// ```
pub trait LaunchParam: KernelParam + sealed::Sealed {
    /// The host argument, borrowing what it refers to for `'a`.
    type Arg<'a>;
    /// The parameter's value.
    #[doc(hidden)]
    fn value(arg: &Self::Arg<'_>) -> Self;
    /// What the launch checks.
    #[doc(hidden)]
    fn info(arg: &Self::Arg<'_>) -> ArgInfo;
    /// cudarc's stream ordering for the buffer: the stream waits for earlier writes (and, for an
    /// output, reads) of it; the guard records this use when dropped after the launch.
    #[doc(hidden)]
    fn sync<'s>(arg: &'s mut Self::Arg<'_>, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>>;
}

const NO_INFO: ArgInfo = ArgInfo { tensor: None, map_of: None, context: None };

macro_rules! scalar_args {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl LaunchParam for $t {
            type Arg<'a> = $t;
            fn value(arg: &$t) -> $t {
                *arg
            }
            fn info(_: &$t) -> ArgInfo {
                NO_INFO
            }
            fn sync<'s>(_: &'s mut $t, _: &'s CudaStream) -> Option<SyncOnDrop<'s>> {
                None
            }
        }
    )*};
}
scalar_args!(u32, i32, u64, i64, f32, f64);

impl<T: Word, S: IntTuple + LayoutShape<D> + 'static, D: IntTuple + 'static> sealed::Sealed
    for In<TensorParam<T, S, D>>
{
}
impl<T: Word, S: IntTuple + LayoutShape<D> + 'static, D: IntTuple + 'static> LaunchParam
    for In<TensorParam<T, S, D>>
{
    type Arg<'a> = InArg<'a, T, S, D>;
    fn value(arg: &Self::Arg<'_>) -> Self {
        In::new(arg.param)
    }
    fn info(arg: &Self::Arg<'_>) -> ArgInfo {
        let bytes = arg.param.to_words().len.saturating_mul(size_of::<T>() as u64);
        ArgInfo {
            tensor: Some(TensorUse { words: arg.param.to_words(), bytes, out: false }),
            map_of: None,
            context: arg.buf.map(|b| b.context().clone()),
        }
    }
    fn sync<'s>(arg: &'s mut Self::Arg<'_>, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>> {
        arg.buf.map(|b| b.device_ptr(stream).1)
    }
}

impl<T: Word, S: IntTuple + LayoutShape<D> + 'static, D: IntTuple + 'static> sealed::Sealed
    for Out<TensorParam<T, S, D>>
{
}
impl<T: Word, S: IntTuple + LayoutShape<D> + 'static, D: IntTuple + 'static> LaunchParam
    for Out<TensorParam<T, S, D>>
{
    type Arg<'a> = OutArg<'a, T, S, D>;
    fn value(arg: &Self::Arg<'_>) -> Self {
        Out::new(arg.param)
    }
    fn info(arg: &Self::Arg<'_>) -> ArgInfo {
        let bytes = arg.param.to_words().len.saturating_mul(size_of::<T>() as u64);
        ArgInfo {
            tensor: Some(TensorUse { words: arg.param.to_words(), bytes, out: true }),
            map_of: None,
            context: arg.buf.as_ref().map(|b| b.context().clone()),
        }
    }
    fn sync<'s>(arg: &'s mut Self::Arg<'_>, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>> {
        arg.buf.as_deref_mut().map(|b| b.device_ptr_mut(stream).1)
    }
}

impl sealed::Sealed for TensorMapRef {}
impl LaunchParam for TensorMapRef {
    type Arg<'a> = &'a TensorMap<'a>;
    fn value(arg: &Self::Arg<'_>) -> Self {
        arg.as_ref()
    }
    fn info(arg: &Self::Arg<'_>) -> ArgInfo {
        ArgInfo { tensor: None, map_of: Some(arg.tensor()), context: arg.context().cloned() }
    }
    fn sync<'s>(arg: &'s mut Self::Arg<'_>, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>> {
        arg.sync(stream)
    }
}

/// A parameter list's host arguments: for a tuple of [`LaunchParam`]s (up to 12), the tuple of
/// their [`LaunchParam::Arg`]s. Implemented for every [`ParamList`] of launchable parameters.
///
/// ```
/// use const_layout::C;
/// use const_layout_device::{abi::{In, Out}, TensorParam};
/// use const_layout_launch::{InArg, LaunchParams, OutArg};
/// type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
/// type Args<'a> = <(In<ColMajor>, Out<ColMajor>, f32) as LaunchParams>::Args<'a>;
/// fn same<'a>(a: Args<'a>) -> (InArg<'a, f32, (u32, u32), (C<1>, u32)>, OutArg<'a, f32, (u32, u32), (C<1>, u32)>, f32) {
///     a
/// }
/// # let _ = same;
/// ```
pub trait LaunchParams: ParamList + Sized {
    /// The host arguments, borrowing their buffers for `'a`.
    type Args<'a>;
    /// The parameters' values.
    #[doc(hidden)]
    fn values(args: &Self::Args<'_>) -> Self;
    /// Each argument's checks.
    #[doc(hidden)]
    fn infos(args: &Self::Args<'_>) -> Vec<ArgInfo>;
    /// A pointer to each parameter's value, for `cuLaunchKernel`.
    #[doc(hidden)]
    fn pointers(values: &Self) -> Vec<*mut c_void>;
    /// Each buffer's stream ordering, held over the launch.
    #[doc(hidden)]
    fn sync<'s>(args: &'s mut Self::Args<'_>, stream: &'s CudaStream) -> Vec<SyncOnDrop<'s>>;
}

macro_rules! launch_params {
    ($($($p:ident $i:tt)*;)*) => {$(
        impl<$($p: LaunchParam),*> LaunchParams for ($($p,)*) {
            type Args<'a> = ($($p::Arg<'a>,)*);
            #[allow(clippy::unused_unit)]
            fn values(_args: &Self::Args<'_>) -> Self {
                ($($p::value(&_args.$i),)*)
            }
            fn infos(_args: &Self::Args<'_>) -> Vec<ArgInfo> {
                vec![$($p::info(&_args.$i)),*]
            }
            fn pointers(_values: &Self) -> Vec<*mut c_void> {
                vec![$((&raw const _values.$i).cast_mut().cast::<c_void>()),*]
            }
            #[allow(unused_mut)]
            fn sync<'s>(_args: &'s mut Self::Args<'_>, _stream: &'s CudaStream) -> Vec<SyncOnDrop<'s>> {
                let mut guards = Vec::new();
                $(guards.extend($p::sync(&mut _args.$i, _stream));)*
                guards
            }
        }
    )*};
}
launch_params! {
    ;
    A 0;
    A 0 B 1;
    A 0 B 1 C2 2;
    A 0 B 1 C2 2 D 3;
    A 0 B 1 C2 2 D 3 E 4;
    A 0 B 1 C2 2 D 3 E 4 F 5;
    A 0 B 1 C2 2 D 3 E 4 F 5 G 6;
    A 0 B 1 C2 2 D 3 E 4 F 5 G 6 H 7;
    A 0 B 1 C2 2 D 3 E 4 F 5 G 6 H 7 I 8;
    A 0 B 1 C2 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9;
    A 0 B 1 C2 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10;
    A 0 B 1 C2 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10 L 11;
}

/// The checks of a launch's arguments that need no driver: every output overlaps no other
/// tensor, every tensor map was encoded for an input of the launch, and every buffer cudarc
/// allocated belongs to `context`.
pub(crate) fn check_args(
    kernel: &str,
    infos: &[ArgInfo],
    context: Option<&Arc<CudaContext>>,
) -> Result<(), LaunchError> {
    for (i, info) in infos.iter().enumerate() {
        if let (Some(ctx), Some(own)) = (context, &info.context)
            && !Arc::ptr_eq(ctx, own)
        {
            let what = format!("parameter {i}'s buffer");
            return Err(LaunchError::WrongContext { kernel: kernel.into(), what });
        }
        if let Some(t) = info.tensor.filter(|t| t.out) {
            let other =
                infos.iter().enumerate().find(|(j, o)| *j != i && o.tensor.is_some_and(|u| t.overlaps(&u)));
            if let Some((other, _)) = other {
                return Err(LaunchError::Overlap { kernel: kernel.into(), out: i, other });
            }
        }
        if let Some(map) = info.map_of {
            let input = |o: &ArgInfo| o.tensor.is_some_and(|t| !t.out && t.words == map);
            if !infos.iter().any(input) {
                return Err(LaunchError::MapNotOfLaunch { kernel: kernel.into(), param: i });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use const_layout::{C, make_layout};

    type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
    type Words = TensorParam<u32, (u32, u32), (u32, C<1>)>;
    const BASE: u64 = 0x7f00_0000_0000;
    type ColArg = InArg<'static, f32, (u32, u32), (C<1>, u32)>;

    fn col(addr: u64, len: usize, m: u32, n: u32) -> Result<ColArg, LaunchError> {
        // SAFETY: never launched with.
        unsafe { InArg::from_raw(addr, len, &make_layout((m, n), (C::<1>, m)).unwrap()) }
    }

    fn out(addr: u64, len: usize, m: u32, n: u32) -> OutArg<'static, f32, (u32, u32), (C<1>, u32)> {
        // SAFETY: never launched with.
        unsafe { OutArg::from_raw(addr, len, &make_layout((m, n), (C::<1>, m)).unwrap()) }.unwrap()
    }

    #[test]
    fn arguments_are_checked_by_tensor_param() {
        use const_layout_device::ParamError;
        let a = col(BASE, 12, 3, 4).unwrap();
        assert_eq!(a.param().layout().shape(), (3, 4));
        assert_eq!(
            col(BASE, 11, 3, 4).err(),
            Some(LaunchError::Tensor(ParamError::TooSmall { cosize: 12, len: 11 }))
        );
        assert_eq!(
            col(BASE + 8, 12, 3, 4).err(),
            Some(LaunchError::Tensor(ParamError::Misaligned { addr: BASE + 8 }))
        );
        let huge = make_layout((65537usize, 65536usize), (C::<1>, 65537usize)).unwrap();
        // SAFETY: never launched with.
        let e = unsafe { InArg::<f32, _, _>::from_raw(BASE, usize::MAX, &huge) }.err();
        assert_eq!(e, Some(LaunchError::Tensor(ParamError::TooLarge { cosize: 65537 * 65536 })));
        let neg = make_layout((4i32, 4i32), (C::<1>, -4i32)).unwrap();
        // SAFETY: never launched with.
        let e = unsafe { InArg::<f32, _, _>::from_raw(BASE, 64, &neg) }.err();
        assert_eq!(e, Some(LaunchError::Tensor(ParamError::NegativeStride { mode: 1, stride: -4 })));
        assert_eq!(
            e.unwrap().to_string(),
            "a tensor argument was refused: mode 1 has the negative stride -4; device tensors need non-negative strides"
        );
    }

    #[test]
    fn values_and_pointers_are_the_parameters_in_order() {
        type P = (In<ColMajor>, Out<ColMajor>, f32, u32);
        let (a, c) = (col(BASE, 12, 3, 4).unwrap(), out(BASE + 256, 12, 3, 4));
        let args: <P as LaunchParams>::Args<'_> = (a, c, 2.5, 7);
        let values = P::values(&args);
        assert_eq!(values.0.param().to_words(), a.param().to_words());
        assert_eq!(values.1.param().to_words().addr, BASE + 256);
        let ptrs = P::pointers(&values);
        assert_eq!(ptrs.len(), 4);
        // SAFETY: the pointers point into `values`, alive here, at the parameters' types.
        let (alpha, flag) = unsafe { (*ptrs[2].cast::<f32>(), *ptrs[3].cast::<u32>()) };
        assert_eq!((alpha, flag), (2.5, 7));
        // SAFETY: as above; an `In<TensorParam>` is 64 bytes starting with the address.
        let addr = unsafe { *ptrs[0].cast::<u64>() };
        assert_eq!(addr, BASE);
        let infos = P::infos(&args);
        assert_eq!(infos.iter().filter(|i| i.tensor.is_some()).count(), 2);
        assert!(infos[1].tensor.unwrap().out && infos[1].tensor.unwrap().bytes == 48);
    }

    #[test]
    fn an_output_overlapping_another_tensor_is_refused() {
        type P = (In<ColMajor>, In<ColMajor>, Out<ColMajor>);
        let (a, b) = (col(BASE, 64, 8, 8).unwrap(), col(BASE + 256, 64, 8, 8).unwrap());
        // Inputs may share memory; a disjoint output is fine.
        let ok: <P as LaunchParams>::Args<'_> = (a, a, out(BASE + 512, 64, 8, 8));
        assert!(check_args("k", &P::infos(&ok), None).is_ok());
        let bad: <P as LaunchParams>::Args<'_> = (a, b, out(BASE + 256 + 240, 64, 8, 8));
        let e = check_args("sgemm_nt_f32", &P::infos(&bad), None).unwrap_err();
        assert_eq!(e, LaunchError::Overlap { kernel: "sgemm_nt_f32".into(), out: 2, other: 1 });
        assert_eq!(
            e.to_string(),
            "sgemm_nt_f32: the output (parameter 2) overlaps parameter 1; an output must overlap no other tensor of its launch"
        );
        // Touching is not overlapping.
        let edge: <P as LaunchParams>::Args<'_> = (a, b, out(BASE + 512, 64, 8, 8));
        assert!(check_args("k", &P::infos(&edge), None).is_ok());
    }

    #[test]
    fn tensor_maps_must_be_of_an_input_of_the_launch() {
        use const_layout::atom::tma::{TmaBox, TmaSwizzle};
        type P = (In<Words>, Out<ColMajor>, TensorMapRef);
        let l = make_layout((128u32, 32u32), (32u32, C::<1>)).unwrap();
        // SAFETY: never launched with.
        let a = unsafe { InArg::<u32, _, _>::from_raw(BASE, 4096, &l) }.unwrap();
        // SAFETY: never launched with.
        let other = unsafe { InArg::<u32, _, _>::from_raw(BASE + 65536, 4096, &l) }.unwrap();
        let tma_box = TmaBox { inner: 64, outer: 128, element_bits: 16, swizzle: TmaSwizzle::B128 };
        let map = TensorMap::unencoded(&a, tma_box).unwrap();
        let c = out(BASE + 32768, 64, 8, 8);
        let args: <P as LaunchParams>::Args<'_> = (a, c, &map);
        assert!(check_args("k", &P::infos(&args), None).is_ok());
        let c = out(BASE + 32768, 64, 8, 8);
        let args: <P as LaunchParams>::Args<'_> = (other, c, &map);
        let e = check_args("hgemm_sm90_tn_f32", &P::infos(&args), None).unwrap_err();
        assert_eq!(e, LaunchError::MapNotOfLaunch { kernel: "hgemm_sm90_tn_f32".into(), param: 2 });
    }

    /// The host arguments of every arity, as types (a compile test).
    #[test]
    fn host_arguments_of_every_arity() {
        fn args<P: LaunchParams>(_: P::Args<'_>) -> usize {
            P::ABI.len()
        }
        assert_eq!(args::<()>(()), 0);
        assert_eq!(args::<(u32,)>((1,)), 1);
        assert_eq!(
            args::<(In<ColMajor>, Out<ColMajor>)>((col(BASE, 12, 3, 4).unwrap(), out(BASE + 64, 12, 3, 4))),
            2
        );
        assert_eq!(args::<(u32, i32, u64, i64, f32, f64)>((1, -1, 2, -2, 0.5, 0.25)), 6);
        type Twelve = (u32, u32, u32, u32, u32, u32, u32, u32, u32, u32, u32, f32);
        assert_eq!(args::<Twelve>((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0.5)), 12);
        let v = Twelve::values(&(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0.5));
        assert_eq!((v.10, v.11), (10, 0.5));
    }
}
