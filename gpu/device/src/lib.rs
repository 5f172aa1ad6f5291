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
//! (`tools/gpu/layer_probe.py`); [`tma_probe`] that of TMA loads of rank 3 and 4 through tensor
//! maps the host encoded (`tools/gpu/tma_probe.py`).
//!
//! The same source compiles for two targets, chosen by one `cfg` in this file:
//! - **`nvptx64-nvidia-cuda`**: the PTX backend (`src/backend/ptx`), where every operation is one
//!   or two instructions of inline PTX or a `core::arch::nvptx` intrinsic;
//! - **the host**: the CPU emulator (`src/backend/emu`, public as [`emu`]), which runs a kernel on
//!   an emulated grid (threads as OS threads, barriers honoured, shared-memory races, out-of-bounds
//!   accesses and divergent warp collectives reported), so `cargo test` checks every kernel without
//!   a GPU, and docs.rs documents this form.
//!
//! The guide's chapter "Writing a kernel" (`const_layout::guide::writing_a_kernel`) takes a
//! kernel crate of one's own from an empty directory to a launch on the GPU.
//!
//! # The backend contract
//!
//! Both backends define the same crate-private items, and everything public is written once above
//! them (so the emulator runs the code the GPU runs):
//!
//! | group | items |
//! |---|---|
//! | indices and control | `thread_idx`, `block_idx`, `block_dim`, `grid_dim`, `globaltimer`, `smid`, `sync_threads`, `named_barrier`, `named_barrier_arrive`, `fault`, `site` / `Site` (a call site, for the emulator's reports) |
//! | shared memory | `dynamic_smem`, `static_region` (behind [`static_shared!`]), `ld_shared`, `ld_shared2`, `ld_shared4`, `st_shared`, `st_shared4` |
//! | global memory | `GlobalPtr` (`from_address`, `load`, `load_nc`, `load4`, `load4_nc`, `store`, `store4`, `advance`, `advance_mul`, `same`, `copy_async4`, `copy_async16`, `is_aligned16`), `cp_async_commit`, `cp_async_wait` |
//! | tensor cores | `ldmatrix_x4_batch`, `mma_m16n8k16_f32_grid`, `mma_m16n8k16_f16_grid`, `pack_half2`, `unpack_half2`, the `wgmma_*` functions, `fence_proxy_async_shared`, `setmaxnreg` |
//! | Hopper's asynchronous copies | `mbarrier_init`, `mbarrier_arrive`, `mbarrier_arrive_expect_tx`, `mbarrier_wait`, `tma_load_2d`, `tma_load_nd` |
//! | warp collectives | `shfl_bfly`, `shfl_down`, `shfl_up`, `shfl_idx`, `vote_ballot`, `active_mask`, `allreduce_{f32,u32,s32}` |
//! | arithmetic | `fma`, `ex2_approx`, `lg2_approx`, `rcp_approx`, `rcp_rn`, `rsqrt_approx`, `sqrt_approx`, `sqrt_rn`, `tanh_approx`, `div_approx` |
//! | atomics | `atom_global_*`, `red_global_*`, `atom_shared_*`, `red_shared_*` (add, min, max, exchange), `atom_global_cas`, `atom_shared_cas` |
//!
//! The leaf types both use ([`Dim3`], [`LaunchConfig`], [`HalfKind`], [`Word`]) are in one module,
//! `types`. The memory operations are `unsafe fn`s in both backends: their contracts (an address
//! inside an allocation, aligned, not written concurrently) are what make the PTX instruction
//! sound, and the emulator checks each one at run time.
//!
//! # Where `unsafe` lives
//!
//! - **The PTX backend** (`src/backend/ptx`): the inline `asm!` and intrinsics, each block with a
//!   `// SAFETY:` comment.
//! - **The safe layer's proof points** (`gmem`, `smem`, `tensor`, `atomic`, `tma`, `wgmma`,
//!   `param`, `abi`): each `unsafe` block calls a backend `unsafe fn` right after the check that
//!   meets its contract (an index below a length, an offset below a cosize the host checked
//!   against the allocation, a 16-byte alignment tested once) and says so in its `// SAFETY:`
//!   comment. The emulator's backend checks every access again, so the tests exercise each proof.
//! - **The entry points** [`kernel!`] writes (`unsafe extern "ptx-kernel"`): their raw parameters
//!   become safe values in one place, trusting the launch contract that the host crate
//!   `const-layout-launch` checks (and, on the emulator, [`emu::DeviceBuffer`]).
//!
//! `clippy::undocumented_unsafe_blocks` is denied. A kernel crate written against this API needs
//! no `unsafe` (`#![deny(unsafe_code)]` holds in the repository's example crate).
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
// above), and everything else is written once, above them.
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
pub mod fragment;
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
pub mod tma_probe;
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
pub use smem::{SmemAllocator, SmemArray, SmemFrom, SmemIndex, SmemLayout, SmemPlan, SmemRegion, SmemTensor};
pub use tensor::{
    AccessWidth, CpAsync16, DeviceTensor, Full, GlobalMatrix, GlobalTensor, GlobalTensor3, GlobalTile,
    MAX_COSIZE, Partial, Residue, Scalar, Shifted, SliceTiles, Slices, TileSeq, Tiled, Vector4,
    cp_async_commit, cp_async_wait,
};
pub use thread::{
    DynNamedBarrier, NamedBarrier, Thread, block_dim, block_idx, fault, globaltimer, grid_dim, smid,
    sync_threads, thread_idx,
};
pub use types::{Dim3, HalfKind, LaunchConfig, Word};

/// The README's example, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
