//! The PTX module: one `extern "ptx-kernel"` entry point per kernel of `const-layout-kernels`,
//! built for `nvptx64-nvidia-cuda` by `tools/gpu/build-ptx.sh` into one `.ptx` file.
//!
//! An entry point is where a kernel's raw parameters (device addresses the host passed) become
//! the safe tensors the kernel body takes, so it is part of the device layer and the only other
//! place with `unsafe` code. Each parameter is a [`TensorParam`] that the launcher built with
//! `TensorParam::new` (alignment, strides, cosize within the allocation), for allocations that
//! stay alive until the launch completes; inputs are never written by the kernel and outputs
//! overlap nothing else. That is the contract every `SAFETY` comment below relies on, and the
//! launcher (`gpu/launcher`) keeps it.
#![no_std]
#![feature(abi_ptx)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

use const_layout::C;
use const_layout_device::TensorParam;
use const_layout_kernels::copy;

/// An `f32` matrix with runtime extents and leading dimension, column-major: `(m,n):(_1,ld)`.
pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    const_layout_device::fault("panic")
}

/// [`copy::copy`] between two column-major `f32` matrices of the same shape.
///
/// # Safety
/// `src` and `dst` come from `TensorParam::new` for live, distinct allocations (see the crate).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn copy_f32(src: ColMajor, dst: ColMajor) {
    // SAFETY: the crate's contract: checked parameters, live allocations, `src` only read, `dst`
    // overlapping nothing.
    let (s, d) = unsafe { (src.read_only(), dst.writable()) };
    copy::copy(s, d)
}
