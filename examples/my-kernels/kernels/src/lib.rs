//! `my-kernels`: a kernel crate written the way the guide's chapter "Writing a kernel" tells,
//! against the public API of `const-layout` and `const-layout-device` alone, as a crate outside
//! the repository would be. Three kernels:
//!
//! - [`softmax`]: row softmax over rows of 4096 `f32`;
//! - [`layernorm`]: LayerNorm forward over the same rows;
//! - [`transpose`]: a batched (rank-3) transpose through a swizzled shared-memory tile.
//!
//! Each kernel is a body (an ordinary generic function over device tensors) and an entry point
//! written with [`kernel!`](const_layout_device::kernel): on the GPU a PTX entry point, on the host
//! a function the emulator runs, and on both an `Entry` constant the host launches it by. The
//! crate builds for `nvptx64-nvidia-cuda` (by `const-layout-builder`, from the host crate's
//! `build.rs`) and for the host (its tests run every kernel on the CPU emulator).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]
#![deny(unsafe_code)]

pub mod layernorm;
pub mod softmax;
pub mod transpose;

use const_layout::C;
use const_layout_device::abi::{In, Out};
use const_layout_device::{SmemRegion, TensorParam, static_shared};

/// Rows of [`softmax::COLS`] `f32`: a runtime number of rows, static columns, a runtime row
/// stride, `(rows, 4096):(ld, _1)`.
pub type Rows = TensorParam<f32, (u32, C<{ softmax::COLS as isize }>), (u32, C<1>)>;
/// One row of [`softmax::COLS`] `f32` (LayerNorm's `gamma` and `beta`): `(_1, _4096):(_0, _1)`.
pub type Row = TensorParam<f32, (C<1>, C<{ softmax::COLS as isize }>), (C<0>, C<1>)>;
/// A batch of row-major matrices: `(batch, m, n):(sb, ld, _1)`.
pub type Batch = TensorParam<f32, (u32, u32, u32), (u32, u32, C<1>)>;
/// A batch of column-major matrices in row-major coordinates: `(batch, m, n):(sb, _1, ld)`.
pub type BatchT = TensorParam<f32, (u32, u32, u32), (u32, C<1>, u32)>;

// On the GPU a panic (a failed check the device layer could not prove away) ends the kernel.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    const_layout_device::fault("panic")
}

const_layout_device::kernel! {
    /// `softmax_f32(x, y)`: [`softmax::softmax`] of each row of `x` into `y`.
    #[entry(SOFTMAX_F32)]
    #[launch_bounds(softmax::THREADS, softmax::BLOCKS_PER_SM)]
    pub fn softmax_f32(x: In<Rows>, y: Out<Rows>) {
        let smem: SmemRegion = static_shared!(softmax_scratch, softmax::SMEM_BYTES);
        softmax::softmax(x, y, smem)
    }

    /// `layernorm_f32(x, gamma, beta, y, eps)`: [`layernorm::layernorm`] of each row of `x` into
    /// `y`.
    #[entry(LAYERNORM_F32)]
    #[launch_bounds(softmax::THREADS, softmax::BLOCKS_PER_SM)]
    pub fn layernorm_f32(x: In<Rows>, gamma: In<Row>, beta: In<Row>, y: Out<Rows>, eps: f32) {
        let smem: SmemRegion = static_shared!(layernorm_scratch, layernorm::SMEM_BYTES);
        layernorm::layernorm(x, gamma, beta, y, eps, smem)
    }

    /// `transpose_batched_f32(src, dst)`: [`transpose::transpose`], `dst[b, j, i] = src[b, i, j]`.
    #[entry(TRANSPOSE_BATCHED_F32)]
    #[launch_bounds(transpose::THREADS, transpose::BLOCKS_PER_SM)]
    pub fn transpose_batched_f32(src: In<Batch>, dst: Out<BatchT>) {
        let smem: SmemRegion = static_shared!(transpose_tile, transpose::SMEM_BYTES);
        transpose::transpose(src, dst, smem)
    }
}
