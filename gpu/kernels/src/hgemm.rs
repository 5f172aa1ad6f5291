//! Tensor-core half-precision GEMM, the structure of CuTe's `sgemm_sm80.cu` (a first version):
//! `C = alpha A B^T + beta C` with `A` (m x k) and `B` (n x k) in `f16` or `bf16`, both
//! `k`-contiguous (CuTe's `TN`), accumulated in `f32` into a column-major `f32` `C`.
//!
//! Each block computes a 128x128 tile of `C` with 8 warps, walking `k` in tiles of 32:
//! - **Copy.** The 128x32 tiles of `A` and `B` go from global to shared memory with 16-byte
//!   `cp.async` (two stages), zero-filled outside the tensors: the tiled copy
//!   `make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<u128>, u32>, (64,4):(4,1), (1,4))`
//!   over the tiles as 32-bit words (two halves each). Shared tiles are row-major with rows of 20
//!   words (`(128,16):(20,1)`), so the 8 rows an `ldmatrix` reads fall in 8 distinct 16-byte
//!   bank groups.
//! - **Compute.** The tiled MMA `make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,4), <32,64,16>)`,
//!   repeated 4x2 over the tile: per 16 of `k` a thread loads its fragments with `ldmatrix.x4` at
//!   the rows `make_tiled_copy_A`/`_B` of `SM75_U32x4_LDSM_N` give it (4 for `A`, 2 for `B`) and
//!   issues 16 `mma.sync`, into 64 accumulators (a 2x2 warp layout with 128 accumulators spilled
//!   registers). The entry point makes the f16/bf16 choice once and asks for two blocks a
//!   multiprocessor (128 registers).
//! - **Epilogue.** `alpha * acc + beta * C` through the tiled MMA's `C` layout, predicated.
//!
//! `k` must be a multiple of 8 (16-byte rows); other sizes of `m` and `n` are predicated. This
//! version is a first step, correct but not yet tuned: 182 TFLOP/s against CuTe's 341 on an H100
//! (PERFORMANCE.md has the run and what was tried).

use const_layout::atom::{
    Copy_Atom, F16, SM75_U32x4_LDSM_N, SM80_16x8x16_F32F16F16F32_TN, SM80_CP_ASYNC_CACHEALWAYS,
    make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma,
};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, HalfKind, Memory, MemoryMut, Partial, SmemArray, SmemRegion, block_idx,
    cp_async_commit, cp_async_wait, fault, mma_m16n8k16_f32, sync_threads, thread_idx, unroll,
};

/// Threads per block: 8 warps, 2x4 over the tile.
pub const THREADS: usize = 256;
/// The block's tile of `C`.
pub const BM: usize = 128;
/// See [`BM`].
pub const BN: usize = 128;
/// The `k` tile, in halves.
pub const BK: usize = 32;
/// Words (two halves) in one shared-memory stage of one operand: 128 rows of 20 words.
const STAGE: usize = 128 * 20;
/// Shared memory per block: two stages of `A` and of `B`.
pub const SMEM_BYTES: u32 = (2 * 2 * STAGE * 4) as u32;

/// A stage in shared memory, in words: row `r`, word `w` (halves `2w`, `2w + 1` of `k`).
type SmemTile = layout_type!((128, 16):(20, 1));

/// The grid for an `m x n` result.
pub fn grid(m: u32, n: u32) -> Dim3 {
    Dim3::xy(m.div_ceil(BM as u32), n.div_ceil(BN as u32))
}

/// The block.
pub fn block() -> Dim3 {
    Dim3::x(THREADS as u32)
}

/// The kernel body: `a` (m x k/2 words), `b` (n x k/2 words), both with unit stride along the
/// words, `c` (m x n) `f32`; faults if the shapes do not match or `k/2` is not a multiple of 4.
#[inline(always)]
pub fn hgemm_tn<A, B, Cm>(kind: HalfKind, a: A, b: B, c: Cm, alpha: f32, beta: f32, smem: SmemRegion)
where
    A: DeviceTensor<Mem: Memory<Elem = u32>>,
    B: DeviceTensor<Mem: Memory<Elem = u32>>,
    Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let ((m, kw), (n, kwb), (mc, nc)) = (a.extents(), b.extents(), c.extents());
    if kw != kwb || m != mc || n != nc {
        fault("hgemm: the shapes of A (m,k), B (n,k) and C (m,n) do not match");
    }
    let (Some(a), Some(b)) = (a.vectorized(), b.vectorized()) else {
        fault("hgemm: A and B need k-contiguous rows of a multiple of 8 halves");
    };
    let (Some(sa), Some(sb)) =
        (smem.array::<u32, { 2 * STAGE }>(0), smem.array::<u32, { 2 * STAGE }>((2 * STAGE * 4) as u32))
    else {
        fault("hgemm: the block has less shared memory than SMEM_BYTES");
    };
    let t = thread_idx().x as usize;
    let blk = block_idx();
    let a_tiles = a.local_tile_seq::<Partial, 128, 16>((C, C), blk.x);
    let b_tiles = b.local_tile_seq::<Partial, 128, 16>((C, C), blk.y);
    let k_tiles = a_tiles.count().min(b_tiles.count());

    let s = SmemTile::default();
    let copy = make_tiled_copy(
        Copy_Atom::<SM80_CP_ASYNC_CACHEALWAYS<u128>, u32>::default(),
        <layout_type!((64, 4):(4, 1))>::default(),
        <layout_type!((1, 4))>::default(),
    );
    // This thread's first vector in the 64x16-word copy tile; 2 of them down the 128 rows.
    let v0 = copy.layout_s_tv().crd2idx((t, 0usize)) as usize;
    let (crow, cword) = (v0 % 64, v0 / 64);
    let issue = |kt: u32, stage: usize| {
        let (Some(ta), Some(tb)) = (a_tiles.tile(kt), b_tiles.tile(kt)) else {
            fault("hgemm: a k tile is missing");
        };
        unroll!(r in 0..2 => {
            let crd = ((crow + 64 * r) as u32, cword as u32);
            let di = stage * STAGE + s.crd2idx((crd.0 as usize, crd.1 as usize)) as usize;
            ta.copy_async_vec4(crd, sa, di);
            tb.copy_async_vec4(crd, sb, di);
        });
    };

    let mma = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        <layout_type!((2, 4):(1, 2))>::default(),
        (C::<32>, C::<64>, C::<16>),
    );
    let ldsm = Copy_Atom::<SM75_U32x4_LDSM_N, F16>::default();
    let (copy_a, copy_b) = (make_tiled_copy_A(ldsm, mma), make_tiled_copy_B(ldsm, mma));
    // The row (and the first k) each lane points ldmatrix at, in the 32x16 tile of A and the
    // 64x16 tile of B.
    let ia = copy_a.layout_s_tv().crd2idx((t, 0usize)) as usize;
    let ib = copy_b.layout_s_tv().crd2idx((t, 0usize)) as usize;
    let (am, ak, bn, bk) = (ia % 32, ia / 32, ib % 64, ib / 64);

    let mut acc = [[[0f32; 8]; 2]; 4];
    if k_tiles > 0 {
        issue(0, 0);
    }
    cp_async_commit();
    let mut kt = 0;
    while kt < k_tiles {
        let read = (kt % 2) as usize;
        cp_async_wait::<0>();
        sync_threads();
        if kt + 1 < k_tiles {
            issue(kt + 1, 1 - read);
        }
        cp_async_commit();
        let (ra, rb): (SmemArray<u32, { 2 * STAGE }>, _) = (sa, sb);
        unroll!(kk in 0..2 => {
            let mut fa = [[0u32; 4]; 4];
            let mut fb = [[0u32; 4]; 2];
            unroll!(i in 0..4 => {
                let wa = read * STAGE + s.crd2idx((am + 32 * i, (ak + 16 * kk) / 2)) as usize;
                fa[i] = ra.ldmatrix_x4(wa, false);
            });
            unroll!(i in 0..2 => {
                let wb = read * STAGE + s.crd2idx((bn + 64 * i, (bk + 16 * kk) / 2)) as usize;
                fb[i] = rb.ldmatrix_x4(wb, false);
            });
            unroll!(mi in 0..4 => {
                unroll!(ni in 0..2 => {
                    let x = &mut acc[mi][ni];
                    let lo = mma_m16n8k16_f32(kind, fa[mi], [fb[ni][0], fb[ni][1]], [x[0], x[1], x[2], x[3]]);
                    let hi = mma_m16n8k16_f32(kind, fa[mi], [fb[ni][2], fb[ni][3]], [x[4], x[5], x[6], x[7]]);
                    *x = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
                });
            });
        });
        kt += 1;
    }

    let Some(tile) = c.local_tile_as::<Partial, 128, 128>((C, C), (blk.x, blk.y)) else {
        fault("hgemm: no C tile");
    };
    let c_tv = mma.layout_c_tv();
    unroll!(v in 0..8 => {
        let idx = c_tv.crd2idx((t, v)) as usize; // m + 32 n in the 32x64 tile
        let (m0, n0) = (idx % 32, idx / 32);
        unroll!(mi in 0..4 => {
            unroll!(ni in 0..2 => {
                let crd = ((m0 + 32 * mi) as u32, (n0 + 64 * ni) as u32);
                let old = if beta == 0.0 { 0.0 } else { tile.load(crd).unwrap_or(0.0) };
                tile.store(crd, alpha * acc[mi][ni][v] + beta * old);
            });
        });
    });
}
