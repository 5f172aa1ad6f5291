//! GPU kernels written with const-layout: ports of CuTe's tutorial kernels, each an ordinary Rust
//! function that compiles to PTX for the GPU (`gpu/ptx` wraps them in entry points) and runs on
//! the CPU under `const_layout_device::emu` for the tests.
//!
//! - [`copy`]: CuTe's `tiled_copy.cu` with `tiled_copy_if.cu`'s predicates: a tiled, 128-bit
//!   vectorized copy between any two layouts of one shape.
//! - [`transpose`]: a row-major tensor into a column-major one through a shared-memory tile
//!   swizzled with `Sw<3,2,6>`, 128-bit accesses on both sides.
//! - [`hgemm`]: a tensor-core GEMM (f16/bf16 in, f32 out, TN), CuTe's `sgemm_sm80.cu` structure:
//!   `cp.async` into `Sw<3,3,3>`-swizzled stages, `ldmatrix` and `mma.sync`, every index from
//!   `const_layout::atom`'s tiled MMA and tiled copies.
//! - [`sgemm`]: CuTe's `sgemm_2.cu` (SIMT fp32 GEMM, NT and TN): `cp.async` into shared tiles
//!   (three stages), 16x16 threads of 8x8 register tiles, 128-bit shared loads.
//!
//! Every kernel takes its tensors as [`DeviceTensor`](const_layout_device::DeviceTensor)s with
//! runtime extents and static tiles, uses const-layout's static layouts for its tiles, thread and
//! value layouts (`make_layout_tv`, `local_tile`, `local_partition`, swizzles, identity layouts),
//! and is correct for every size: the residue of a shape that is not a multiple of the tile is
//! predicated, as in CuTe's `copy_if`. No `unsafe` here: memory is reached only through the device
//! layer's checked and proven accesses.
#![no_std]

pub mod copy;
pub mod hgemm;
pub mod sgemm;
pub mod transpose;
