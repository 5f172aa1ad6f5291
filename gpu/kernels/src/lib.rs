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
//! - [`hgemm_sm90`]: the Hopper GEMM, CuTe's `wgmma_tma_sm90.cu` structure: TMA loads by tensor
//!   maps whose box comes from the stage's layout, an mbarrier pipeline and `wgmma` by descriptors.
//! - [`attention_sm90`]: FlashAttention's forward on Hopper with CUTLASS's structure: TMA on rank-4
//!   tensors, `wgmma` from shared memory for `Q K^T` and from registers for `P V` (the register
//!   permutation from `atom::fragment::AccToOperand`), the online softmax by the accumulator
//!   layout's reduction plan, masks from its coordinates, GQA as a layout.
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

pub mod attention_sm90;
pub mod copy;
pub mod hgemm;
pub mod hgemm_sm90;
pub mod hgemm_sm90_choice;
pub mod sgemm;
pub mod transpose;

use const_layout_device::{SmemArray, SmemRegion, Word, fault};

/// Whether the `bm x bn` tile at block coordinate `coord` lies wholly inside an `m x n` result
/// (the GEMMs' test for a block that runs without predicates).
#[inline(always)]
pub(crate) fn whole_block(m: usize, n: usize, coord: (u32, u32), (bm, bn): (usize, usize)) -> bool {
    m as isize - coord.0 as isize * bm as isize >= bm as isize
        && n as isize - coord.1 as isize * bn as isize >= bn as isize
}

/// The GEMMs' shared memory: the stages of `A`, then those of `B`, `N` elements each; faults
/// with `message` if the block has less.
#[inline(always)]
pub(crate) fn operand_stages<T: Word, const N: usize>(
    smem: SmemRegion,
    message: &'static str,
) -> (SmemArray<T, N>, SmemArray<T, N>) {
    let (Some(sa), Some(sb)) = (smem.array::<T, N>(0), smem.array::<T, N>((N * 4) as u32)) else {
        fault(message);
    };
    (sa, sb)
}
