//! GPU kernels written with const-layout: ports of CuTe's tutorial kernels, each an ordinary Rust
//! function that compiles to PTX for the GPU (`gpu/ptx` wraps them in entry points) and runs on
//! the CPU under `const_layout_device::emu` for the tests.
//!
//! - [`copy`]: CuTe's `tiled_copy.cu` with `tiled_copy_if.cu`'s predicates: a tiled, 128-bit
//!   vectorized copy between any two layouts of one shape.
//!
//! Every kernel takes its tensors as [`DeviceTensor`](const_layout_device::DeviceTensor)s with
//! runtime extents and static tiles, uses const-layout's static layouts for its tiles, thread and
//! value layouts (`make_layout_tv`, `local_tile`, `local_partition`, swizzles, identity layouts),
//! and is correct for every size: the residue of a shape that is not a multiple of the tile is
//! predicated, as in CuTe's `copy_if`. No `unsafe` here: memory is reached only through the device
//! layer's checked and proven accesses.
#![no_std]

pub mod copy;
