//! const-layout's GPU device layer: the Rust counterpart of CuTe's `cute::arch`.
//!
//! Kernels written with [const-layout](const_layout) call this crate for everything that touches
//! the hardware: thread and block indices ([`thread_idx`], [`block_idx`], [`Thread`]), barriers
//! ([`sync_threads`]), shared memory by 32-bit address ([`SmemRegion`], [`SmemArray`],
//! [`static_shared!`] on the GPU), global memory ([`Gmem`], [`GmemMut`]) and tensors on it with
//! CuTe's residue predication ([`GlobalTensor`], [`GlobalTile`]), 128-bit vector accesses,
//! `cp.async` with commit and wait, `ldmatrix` and tensor-core `mma.sync`
//! ([`mma_m16n8k16_f32`], fragments in the layouts of `const_layout::atom`). Kernel parameters
//! are checked on the host ([`TensorParam`], [`const_layout::layout::param::LayoutParam`]).
//! [`mma_probe`] is the layer's own check of its warp-collective instructions and the atom
//! layouts against the hardware (`tools/gpu/mma_probe.py`); [`wgmma_probe`] that of Hopper's
//! `wgmma`, the gmma shared-memory atoms and their descriptors (`tools/gpu/wgmma_probe.py`);
//! [`bank_probe`] that of `const_layout::bank`'s model of shared-memory wavefronts
//! (`tools/gpu/bank_probe.py`, under Nsight Compute); [`layer_probe`] that of the shuffles,
//! votes, reductions, fast math, atomics, named barriers, slices and swizzled shared tensors
//! (`tools/gpu/layer_probe.py`).
//!
//! The same source compiles for two targets:
//! - **`nvptx64-nvidia-cuda`**: every operation is one or two instructions of inline PTX or a
//!   `core::arch::nvptx` intrinsic (the `arch` module, the only `unsafe` code of the GPU
//!   kernels: each block states why it is sound).
//! - **the host**: the [`emu`] module runs a kernel on an emulated grid (threads as OS threads,
//!   barriers honoured, shared-memory races and out-of-bounds accesses reported), so `cargo test`
//!   checks every kernel without a GPU.
//!
//! Safety is by construction, as in the rest of const-layout: an array access is checked
//! against a static length (the check folds for indices the compiler can bound), a tile access
//! is made only inside the tensor's shape (CuTe's predicate, which bounds the offset by the
//! checked cosize), and the raw parameters of a kernel become safe values in one place, its entry
//! point, whose safety comment states what the host promised.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch, stdarch_nvptx))]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

// The one choice of backend: inline PTX on the GPU, the CPU emulator elsewhere. Both define the
// same crate-private functions and types (the backend contract, in the crate's documentation
// below), and everything else is written once, above them.
#[cfg(target_arch = "nvptx64")]
#[path = "backend/ptx/mod.rs"]
mod backend;
#[cfg(not(target_arch = "nvptx64"))]
#[path = "backend/emu/mod.rs"]
pub mod emu;
#[cfg(not(target_arch = "nvptx64"))]
use emu as backend;

pub mod abi;
mod atomic;
pub mod bank_probe;
mod gmem;
pub mod layer_probe;
pub mod math;
mod mma;
pub mod mma_probe;
mod param;
mod smem;
mod tensor;
mod thread;
pub mod tma;
mod types;
mod unroll;
pub mod warp;
pub mod wgmma;
pub mod wgmma_probe;

pub use atomic::{AtomicAdd, AtomicMinMax};
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
pub use backend::static_region as __static_region;
pub use gmem::{Gmem, GmemMut, Memory, MemoryMut};
pub use math::fma;
pub use mma::{
    f32_to_half, half_to_f32, mma_m16n8k16_f16, mma_m16n8k16_f16_grid, mma_m16n8k16_f32,
    mma_m16n8k16_f32_grid, pack_half2, unpack_half2,
};
pub use param::{ParamError, TensorParam, TensorWords};
pub use smem::{SmemAllocator, SmemArray, SmemIndex, SmemLayout, SmemPlan, SmemRegion, SmemTensor};
pub use tensor::{
    Access, CpAsync16, DeviceTensor, Full, GlobalMatrix, GlobalTensor, GlobalTensor3, GlobalTile, MAX_COSIZE,
    Partial, Residue, Scalar, Shifted, TileSeq, Tiled, Vector4, cp_async_commit, cp_async_wait,
};
pub use thread::{NamedBarrier, Thread, block_dim, block_idx, fault, grid_dim, sync_threads, thread_idx};
pub use types::{Dim3, HalfKind, LaunchConfig, Word};
