//! Kernel entry points as the host and the device both see them.
//!
//! A kernel crate declares each entry point once, as an [`Entry`]: its name in the PTX module and
//! its parameter list, a tuple of [`KernelParam`] types. The entry point itself (compiled for the
//! GPU) takes those types by value; the host (the crate `const-layout-launch`, or any launcher
//! that moves parameters as bytes) builds each one with its checks and launches by the same
//! declaration, so the two sides cannot disagree on the order, the types or the bytes.
//!
//! Tensors cross as [`In`] (read by the kernel) and [`Out`] (written by it), each a
//! [`TensorParam`]: the allocation's address and length and the layout's runtime integers,
//! checked on the host by [`TensorParam::new`]. Scalars cross as themselves.
//!
//! ```
//! use const_layout::C;
//! use const_layout_device::abi::{Entry, In, Out, ParamAbi};
//! use const_layout_device::TensorParam;
//!
//! /// A row-major `f32` matrix with runtime extents and leading dimension.
//! pub type RowMajor = TensorParam<f32, (u32, u32), (u32, C<1>)>;
//! /// `softmax_f32(x, y, rows)`: the entry point's declaration, shared by both sides.
//! pub const SOFTMAX: Entry<(In<RowMajor>, Out<RowMajor>, u32)> = Entry::new("softmax_f32");
//!
//! assert_eq!(SOFTMAX.name(), "softmax_f32");
//! assert_eq!(SOFTMAX.params(), [ParamAbi::Bytes { size: 64, align: 8 }, ParamAbi::Bytes { size: 64, align: 8 }, ParamAbi::U32]);
//! assert_eq!(SOFTMAX.params()[0].to_string(), ".param .align 8 .b8 [64]");
//! ```

use crate::param::TensorParam;
use crate::{GlobalTensor, Gmem, GmemMut, Word};
use const_layout::Layout;
use const_layout::int_tuple::IntTuple;
use const_layout::layout::LayoutShape;
use core::fmt;
use core::marker::PhantomData;

/// How a parameter is passed to a PTX entry point: its `.param` declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamAbi {
    /// `.param .u32` (`u32`, and `bool`-like flags).
    U32,
    /// `.param .u32` for a signed 32-bit integer (PTX declares `i32` parameters `.u32` too).
    S32,
    /// `.param .u64` (`u64`, device addresses).
    U64,
    /// `.param .u64` for a signed 64-bit integer.
    S64,
    /// `.param .f32`.
    F32,
    /// `.param .f64`.
    F64,
    /// An aggregate passed by value as bytes: `.param .align ALIGN .b8 name[SIZE]`.
    Bytes {
        /// Its size in bytes.
        size: u32,
        /// Its alignment in bytes.
        align: u32,
    },
}

impl ParamAbi {
    /// The size in bytes.
    pub const fn size(self) -> u32 {
        match self {
            ParamAbi::U32 | ParamAbi::S32 | ParamAbi::F32 => 4,
            ParamAbi::U64 | ParamAbi::S64 | ParamAbi::F64 => 8,
            ParamAbi::Bytes { size, .. } => size,
        }
    }

    /// The alignment in bytes.
    pub const fn align(self) -> u32 {
        match self {
            ParamAbi::Bytes { align, .. } => align,
            other => other.size(),
        }
    }
}

/// The declaration as PTX writes it, without the parameter's name: `.param .u32`,
/// `.param .align 8 .b8 [64]`.
impl fmt::Display for ParamAbi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamAbi::U32 | ParamAbi::S32 => f.write_str(".param .u32"),
            ParamAbi::U64 | ParamAbi::S64 => f.write_str(".param .u64"),
            ParamAbi::F32 => f.write_str(".param .f32"),
            ParamAbi::F64 => f.write_str(".param .f64"),
            ParamAbi::Bytes { size, align } => write!(f, ".param .align {align} .b8 [{size}]"),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A type an entry point takes by value: a scalar, or a tensor as [`In`] or [`Out`]. Sealed: a
/// launcher moves a parameter as its bytes, so only types whose bytes mean the same on both sides
/// (and whose values the host checked) are parameters.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    note = "kernel parameters are u32, i32, u64, i64, f32, f64, tensors as In<TensorParam<..>> or Out<TensorParam<..>>, and TensorMapRef"
)]
pub trait KernelParam: Copy + sealed::Sealed + 'static {
    /// How PTX declares it.
    const ABI: ParamAbi;
    /// What a [`kernel!`](crate::kernel) body receives for it: the scalar itself, the tensor of a
    /// tensor parameter.
    type Device<'a>;
    /// The device form.
    ///
    /// # Safety
    /// The launch's contract (the crate's [`abi`](self) module): the parameter was built by the
    /// host with its checks, for memory that stays alive for the launch, inputs unwritten,
    /// outputs overlapping nothing else. The emulator checks the memory part.
    #[doc(hidden)]
    unsafe fn into_device<'a>(self) -> Self::Device<'a>;
}

macro_rules! scalar_params {
    ($($t:ty => $abi:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl KernelParam for $t {
            const ABI: ParamAbi = ParamAbi::$abi;
            type Device<'a> = $t;
            #[inline(always)]
            unsafe fn into_device<'a>(self) -> Self::Device<'a> {
                self
            }
        }
    )*};
}
scalar_params!(u32 => U32, i32 => S32, u64 => U64, i64 => S64, f32 => F32, f64 => F64);

macro_rules! tensor_param {
    ($(#[$doc:meta])* $name:ident, $mem:ident) => {
        $(#[$doc])*
        #[repr(transparent)]
        pub struct $name<P>(P);

        impl<P: Copy> Clone for $name<P> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<P: Copy> Copy for $name<P> {}

        impl<T, S, D> $name<TensorParam<T, S, D>> {
            /// The parameter of a tensor that [`TensorParam::new`] checked. Which tensors of one
            /// launch may share memory is the launcher's to keep (no [`Out`] overlaps another
            /// tensor of the launch).
            #[inline(always)]
            pub const fn new(param: TensorParam<T, S, D>) -> Self {
                $name(param)
            }

            /// The tensor parameter.
            #[inline(always)]
            pub const fn param(&self) -> &TensorParam<T, S, D> {
                &self.0
            }
        }

        impl<T: Word, S: IntTuple + LayoutShape<D> + 'static, D: IntTuple + 'static> sealed::Sealed
            for $name<TensorParam<T, S, D>>
        {
        }
        impl<T: Word, S: IntTuple + LayoutShape<D> + 'static, D: IntTuple + 'static> KernelParam
            for $name<TensorParam<T, S, D>>
        {
            const ABI: ParamAbi = ParamAbi::Bytes {
                size: core::mem::size_of::<TensorParam<T, S, D>>() as u32,
                align: core::mem::align_of::<TensorParam<T, S, D>>() as u32,
            };
            type Device<'a> = GlobalTensor<$mem<'a, T>, Layout<S, D>>;
            #[inline(always)]
            unsafe fn into_device<'a>(self) -> Self::Device<'a> {
                // SAFETY: the caller's contract is `tensor`'s.
                unsafe { self.tensor() }
            }
        }

        impl<T, S, D> fmt::Debug for $name<TensorParam<T, S, D>>
        where
            TensorParam<T, S, D>: fmt::Debug,
        {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:?})"), self.0)
            }
        }
    };
}

/// The device side of tensor parameters: the views and tensors an entry point makes of them. Each
/// is `unsafe`: it trusts the parameter's checks and the launch's contract (the allocation stays
/// alive for the launch; an [`In`] is written by no thread of the launch; an [`Out`] overlaps no
/// other tensor of the launch), which a typed launcher keeps and the device cannot check.
mod device_side {
    use super::{In, Out};
    use crate::param::TensorParam;
    use crate::{GlobalTensor, Gmem, GmemMut, Word};
    use const_layout::Layout;
    use const_layout::int_tuple::IntTuple;
    use const_layout::layout::LayoutShape;

    impl<T: Word, S, D> In<TensorParam<T, S, D>> {
        /// The allocation as a read-only view of its `len` elements.
        ///
        /// # Safety
        /// The parameter was built by `TensorParam::new` for an allocation that stays alive for the
        /// launch and that no thread of the launch writes.
        #[inline(always)]
        pub unsafe fn memory<'a>(self) -> Gmem<'a, T> {
            // SAFETY: `TensorParam::new` checked the 16-byte alignment; the caller, the rest.
            unsafe { Gmem::from_raw(self.0.address(), self.0.len()) }
        }
    }

    impl<T: Word, S, D> Out<TensorParam<T, S, D>> {
        /// The allocation as a writable view of its `len` elements.
        ///
        /// # Safety
        /// The parameter was built by `TensorParam::new` for an allocation that stays alive for the
        /// launch and that no other tensor of the launch overlaps.
        #[inline(always)]
        pub unsafe fn memory<'a>(self) -> GmemMut<'a, T> {
            // SAFETY: as in `In::memory`.
            unsafe { GmemMut::from_raw(self.0.address(), self.0.len()) }
        }
    }

    impl<T: Word, S: IntTuple + LayoutShape<D>, D: IntTuple> In<TensorParam<T, S, D>> {
        /// The tensor, read-only, with no check (the host made them).
        ///
        /// # Safety
        /// As [`In::memory`].
        #[inline(always)]
        pub unsafe fn tensor<'a>(self) -> GlobalTensor<Gmem<'a, T>, Layout<S, D>> {
            // SAFETY: the caller's contract is `read_only`'s.
            unsafe { self.0.read_only() }
        }
    }

    impl<T: Word, S: IntTuple + LayoutShape<D>, D: IntTuple> Out<TensorParam<T, S, D>> {
        /// The tensor, writable, with no check (the host made them).
        ///
        /// # Safety
        /// As [`Out::memory`].
        #[inline(always)]
        pub unsafe fn tensor<'a>(self) -> GlobalTensor<GmemMut<'a, T>, Layout<S, D>> {
            // SAFETY: the caller's contract is `writable`'s.
            unsafe { self.0.writable() }
        }
    }
}

tensor_param! {
    /// A tensor the kernel only reads: no thread of the launch writes it, so loads may take the
    /// read-only path (`ld.global.nc`). Inputs of one launch may share memory.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{abi::In, TensorParam};
    /// let l = make_layout((4u32, 5u32), (5u32, C::<1>)).unwrap();
    /// let x = In::new(TensorParam::<f32, _, _>::new(0x7f00_0000_0000, 20, &l).unwrap());
    /// assert_eq!(x.param().layout(), l);
    /// ```
    In, Gmem
}

tensor_param! {
    /// A tensor the kernel writes (and may read): it overlaps no other tensor of the launch.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout_device::{abi::Out, TensorParam};
    /// let l = make_layout((4u32, 5u32), (C::<1>, 4u32)).unwrap();
    /// let y = Out::new(TensorParam::<f32, _, _>::new(0x7f00_0000_0100, 20, &l).unwrap());
    /// assert_eq!(y.param().len(), 20);
    /// ```
    Out, GmemMut
}

/// The global address of a TMA tensor map (a 128-byte `CUtensorMap`, 64-byte aligned, in device
/// memory) that the host encoded with the driver's `cuTensorMapEncodeTiled` for one of the launch's
/// [`In`] tensors, before the launch. Passed as `.param .u64`. The device cannot check a map, so
/// which tensor and box it was encoded for is the launcher's promise, kept by the crate
/// `const-layout-launch` (a map is encoded from the tensor's parameter and the box the kernel
/// reports) and relied on by [`TmaTensor2d::new`](crate::tma::TmaTensor2d::new).
///
/// ```
/// use const_layout_device::abi::{KernelParam, ParamAbi, TensorMapRef};
/// assert_eq!(<TensorMapRef as KernelParam>::ABI, ParamAbi::U64);
/// assert_eq!(TensorMapRef::new(0x7f00_0000_0040).address(), 0x7f00_0000_0040);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct TensorMapRef(u64);

impl TensorMapRef {
    /// The map at global address `addr`.
    #[inline(always)]
    pub const fn new(addr: u64) -> Self {
        TensorMapRef(addr)
    }

    /// The map's global address.
    #[inline(always)]
    pub const fn address(&self) -> u64 {
        self.0
    }
}

impl sealed::Sealed for TensorMapRef {}
impl KernelParam for TensorMapRef {
    const ABI: ParamAbi = ParamAbi::U64;
    type Device<'a> = TensorMapRef;
    #[inline(always)]
    unsafe fn into_device<'a>(self) -> Self::Device<'a> {
        self
    }
}

/// A parameter list: `()` or a tuple of up to 12 [`KernelParam`]s, in the entry point's order.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel parameter list",
    note = "an entry point's parameters are a tuple of up to 12 kernel parameters (u32, f32, In<..>, Out<..>, ...)"
)]
pub trait ParamList: 'static {
    /// Each parameter's declaration, in order.
    const ABI: &'static [ParamAbi];
}

macro_rules! param_lists {
    ($($($p:ident)*;)*) => {$(
        impl<$($p: KernelParam),*> ParamList for ($($p,)*) {
            const ABI: &'static [ParamAbi] = &[$($p::ABI),*];
        }
    )*};
}
param_lists! {
    ;
    A;
    A B;
    A B C2;
    A B C2 D;
    A B C2 D E;
    A B C2 D E F;
    A B C2 D E F G;
    A B C2 D E F G H;
    A B C2 D E F G H I;
    A B C2 D E F G H I J;
    A B C2 D E F G H I J K;
    A B C2 D E F G H I J K L;
}

/// An entry point of a PTX module: its name and its parameters `P` (a [`ParamList`]). Declared
/// once in the kernel crate, next to the entry point, and launched by it on the host.
///
/// ```
/// use const_layout_device::abi::{Entry, ParamAbi};
/// const SCALE: Entry<(u64, f32, u32)> = Entry::new("scale");
/// assert_eq!(SCALE.params(), [ParamAbi::U64, ParamAbi::F32, ParamAbi::U32]);
/// ```
pub struct Entry<P> {
    name: &'static str,
    params: PhantomData<fn() -> P>,
}

impl<P> Clone for Entry<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for Entry<P> {}

impl<P> fmt::Debug for Entry<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Entry({})", self.name)
    }
}

impl<P: ParamList> Entry<P> {
    /// The entry point named `name` (its `#[unsafe(no_mangle)]` name), taking `P`.
    pub const fn new(name: &'static str) -> Self {
        Entry { name, params: PhantomData }
    }

    /// The entry point's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Its parameters' declarations, in order.
    pub const fn params(&self) -> &'static [ParamAbi] {
        P::ABI
    }
}

/// CUDA's `__launch_bounds__(MAX_THREADS, MIN_BLOCKS)` for the entry point `name`: at most
/// `MAX_THREADS` threads a block, and registers limited so that `MIN_BLOCKS` blocks fit on a
/// multiprocessor. Written at item level in the kernel crate, next to the entry point.
///
/// rustc has no attribute for it, so on the GPU the macro writes a marker into the PTX module
/// (a comment, `// const-layout: launch_bounds NAME MAX_THREADS MIN_BLOCKS`), and the PTX builder
/// (`const-layout-builder`) turns it into the entry's `.maxntid` and `.minnctapersm` directives,
/// what nvcc emits for `__launch_bounds__`. A marker naming no entry point is a build error there.
/// On the host the macro only checks its numbers: `MAX_THREADS` in 1 to 1024, `MIN_BLOCKS` at
/// least 1 (both constant expressions).
///
/// ```
/// const THREADS: u32 = 256;
/// const_layout_device::launch_bounds!(softmax_f32, THREADS, 2);
/// ```
///
/// ```compile_fail
/// const_layout_device::launch_bounds!(too_big, 2048, 1); // more than 1024 threads
/// ```
#[macro_export]
macro_rules! launch_bounds {
    ($name:ident, $threads:expr, $blocks:expr) => {
        const _: () = ::core::assert!(
            ($threads) as u64 >= 1 && ($threads) as u64 <= 1024 && ($blocks) as u64 >= 1,
            "launch bounds: at most 1024 threads a block (at least 1), and at least 1 block a multiprocessor"
        );
        #[cfg(target_arch = "nvptx64")]
        ::core::arch::global_asm!(
            ::core::concat!("// const-layout: launch_bounds ", ::core::stringify!($name), " {threads} {blocks}"),
            threads = const ($threads) as u32,
            blocks = const ($blocks) as u32,
        );
    };
}

/// Kernel entry points, written once for the GPU and the emulator: CUDA's `__global__`.
///
/// Each item is a function whose parameters are [`KernelParam`]s, marked with the name of the
/// [`Entry`] constant to declare for it and, optionally, its launch bounds:
///
/// - on the GPU it becomes the PTX entry point: `#[unsafe(no_mangle)] pub unsafe extern
///   "ptx-kernel" fn name(...)` (the kernel crate enables `feature(abi_ptx)` there), with its
///   [`launch_bounds!`];
/// - on the host it is an ordinary function of the same name and parameters, which the emulator
///   runs ([`emu::launch`](crate::emu::launch)) on parameters made from
///   [`emu::DeviceBuffer`](crate::emu::DeviceBuffer)s, exactly as the GPU runs the entry point;
/// - on both, `pub const ENTRY: Entry<(params...)>` declares it for launchers.
///
/// Inside the body each parameter is already in its device form ([`KernelParam::Device`]): an
/// [`In`] is a read-only [`GlobalTensor`], an [`Out`] a writable one, a scalar itself. The
/// conversion trusts the launch's contract, which a typed launch keeps (the host crate
/// `const-layout-launch` on the GPU, [`emu::DeviceBuffer::input`](crate::emu::DeviceBuffer::input)
/// and [`output`](crate::emu::DeviceBuffer::output) on the emulator, which also checks it): the
/// kernel crate writes no `unsafe`.
///
/// ```
/// use const_layout::{make_layout, C};
/// use const_layout_device::abi::{In, Out};
/// use const_layout_device::emu::{launch, DeviceBuffer};
/// use const_layout_device::{block_idx, thread_idx, Dim3, LaunchConfig, TensorParam};
///
/// /// A row-major `f32` matrix with runtime extents.
/// pub type Rows = TensorParam<f32, (u32, u32), (u32, C<1>)>;
///
/// const_layout_device::kernel! {
///     /// `y = a x`, one thread an element, one block a row.
///     #[entry(SCALE_F32)]
///     #[launch_bounds(256, 4)]
///     pub fn scale_f32(x: In<Rows>, y: Out<Rows>, a: f32) {
///         let (i, j) = (block_idx().x, thread_idx().x);
///         if let Some(v) = x.load([i, j]) {
///             y.store([i, j], a * v);
///         }
///     }
/// }
///
/// assert_eq!(SCALE_F32.name(), "scale_f32");
/// let l = make_layout((3u32, 200u32), (200u32, C::<1>)).unwrap();
/// let x = DeviceBuffer::from_slice(&(0..600).map(|v| v as f32).collect::<Vec<_>>());
/// let mut y = DeviceBuffer::<f32>::zeros(600);
/// let (xp, yp) = (x.input(&l).unwrap(), y.output(&l).unwrap());
/// let cfg = LaunchConfig { grid: Dim3::x(3), block: Dim3::x(256), dynamic_smem_bytes: 0 };
/// launch(&cfg, || scale_f32(xp, yp, 2.0)).unwrap();
/// assert_eq!(y.to_vec()[401], 802.0);
/// ```
#[macro_export]
macro_rules! kernel {
    ($(
        $(#[doc = $doc:expr])*
        #[entry($entry:ident)]
        $(#[launch_bounds($threads:expr, $blocks:expr)])?
        $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $body:block
    )*) => {$(
        $(#[doc = $doc])*
        #[doc = ""]
        #[doc = ::core::concat!("Declared for launchers as [`", ::core::stringify!($entry), "`].")]
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #[allow(unsafe_code, clippy::too_many_arguments)]
        $vis unsafe extern "ptx-kernel" fn $name($($arg: $ty),*) {
            // SAFETY: the launch contract of the entry point's `Entry`: parameters the host built
            // with their checks, for memory alive until the launch completes, inputs unwritten,
            // outputs overlapping nothing else.
            $(let $arg = unsafe { <$ty as $crate::abi::KernelParam>::into_device($arg) };)*
            $body
        }

        $(#[doc = $doc])*
        #[doc = ""]
        #[doc = ::core::concat!(
            "The emulator's form of the entry point (declared for launchers as [`",
            ::core::stringify!($entry),
            "`]): call it inside `emu::launch` with parameters made from `emu::DeviceBuffer`s."
        )]
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(unsafe_code, clippy::too_many_arguments)]
        $vis fn $name($($arg: $ty),*) {
            // SAFETY: on the emulator the conversion is checked: a parameter that is not a live
            // `DeviceBuffer` of its length fails the launch.
            $(let $arg = unsafe { <$ty as $crate::abi::KernelParam>::into_device($arg) };)*
            $body
        }

        #[doc = ::core::concat!("The entry point [`", ::core::stringify!($name), "`] as launchers see it.")]
        $vis const $entry: $crate::abi::Entry<($($ty,)*)> = $crate::abi::Entry::new(::core::stringify!($name));

        $($crate::launch_bounds!($name, $threads, $blocks);)?
    )*};
}
