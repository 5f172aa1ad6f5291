//! Typed, checked launches of const-layout's GPU kernels, from Rust through
//! [cudarc](https://docs.rs/cudarc) and from Python (`python/const_layout_launch.py`).
//!
//! A kernel crate declares each entry point once, as an
//! [`Entry`](const_layout_device::abi::Entry): its name and its parameter types. This crate
//! launches it by that declaration:
//!
//! 1. [`Module::load`] (or [`Module::load_embedded`] for the PTX a build script embedded) loads
//!    the PTX into a CUDA context;
//! 2. [`Module::kernel`] gets a [`Kernel<P>`] by its `Entry<P>`, comparing `P` with the
//!    parameters the PTX declares (count, sizes, offsets) where the driver can say them;
//! 3. the host arguments are typed per parameter ([`LaunchParams::Args`]): an
//!    `In<TensorParam<T, S, D>>` takes an [`InArg`] (a `&CudaSlice<T>` and a `Layout<S, D>`,
//!    checked by `TensorParam::new`), an `Out<..>` an [`OutArg`] (a `&mut CudaSlice<T>`), a
//!    `TensorMapRef` a `&`[`TensorMap`] (encoded from Rust for a box the kernel reports), a scalar
//!    itself;
//! 4. [`Kernel::launch`], a safe function, checks the geometry against the device and the kernel,
//!    the buffers' contexts and overlaps, and launches.
//!
//! ```no_run
//! use const_layout::{make_layout, C};
//! use const_layout_device::{abi::{Entry, In, Out}, Dim3, LaunchConfig, TensorParam};
//! use const_layout_launch::{InArg, Module, OutArg};
//!
//! // Declared once, next to the entry point (the crate const-layout-ptx does this).
//! type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
//! const COPY_F32: Entry<(In<ColMajor>, Out<ColMajor>)> = Entry::new("copy_f32");
//!
//! let ctx = const_layout_launch::context(0)?;
//! let module = Module::load(&ctx, &std::fs::read_to_string("target/ptx/const_layout_kernels.ptx")?)?;
//! let copy = module.kernel(COPY_F32)?;
//! let stream = ctx.default_stream();
//! let (m, n) = (1000u32, 300u32);
//! let x = stream.clone_htod(&vec![2.0f32; 300_000])?;
//! let mut y = stream.alloc_zeros::<f32>(300_000)?;
//! let layout = make_layout((m, n), (C::<1>, m))?;
//! let cfg = LaunchConfig { grid: Dim3::xy(m.div_ceil(128), n.div_ceil(64)), block: Dim3::x(256), dynamic_smem_bytes: 0 };
//! copy.launch(&stream, &cfg, (InArg::new(&x, &layout)?, OutArg::new(&mut y, &layout)?))?;
//! assert_eq!(stream.clone_dtoh(&y)?, vec![2.0f32; 300_000]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A tensor parameter's bytes
//!
//! What `In<TensorParam<T, S, D>>` and `Out<..>` are in the PTX, `.param .align 8 .b8 [64]`, and
//! what Python's `const_layout_launch.tensor_param` writes (little-endian):
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 8 | the allocation's device address (`u64`, 16-byte aligned) |
//! | 8 | 8 | the allocation's length in elements of `T` (`u64`) |
//! | 16 | 4 x 12 | the layout's runtime integers as 32-bit words (`LayoutParam`): the shape's, then the stride's, left to right, depth first, each as its low 32 bits (unsigned types in `0..2^32`, signed in `-2^31..2^31`); static integers (`C<N>`, CuTe's `_N`) are not stored; unused words are 0 |
//!
//! The values are the ones `TensorParam::new` accepts: the address 16-byte aligned, every stride
//! non-negative, the layout's cosize (`1 + sum((s - 1) d)`) at most the length and at most 2^32,
//! at most 12 runtime integers. A kernel reads the tensor through them with no further check.
//!
//! # Safety
//!
//! `unsafe` is only where the driver is called (`cuLaunchKernel`, `cuFuncGetParamInfo`,
//! `cuTensorMapEncodeTiled`, `cuDriverGetVersion`), each block with its reason, and in
//! [`InArg::from_raw`]/[`OutArg::from_raw`] for memory cudarc did not allocate. What the device
//! cannot check about a TMA map, its box, is the caller's: encode it with the box the kernel
//! reports (`const_layout_kernels::hgemm_sm90::{a_box, b_box}`, or its `hgemm_sm90_config`).

mod args;
mod error;
mod module;
mod tensor_map;

pub use args::{InArg, LaunchParam, LaunchParams, OutArg};
pub use error::{LaunchError, TensorMapError};
pub use module::{Kernel, KernelLimits, Module, check_param_info, context, driver_present, param_offsets};
pub use tensor_map::{HalfRows, TensorMap, TensorMapSpec, TensorMapSpecNd};

pub use const_layout_device::LaunchConfig;
#[doc(no_inline)]
pub use cudarc;

/// The README's example, compiled as a doctest (it needs a GPU to run).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
