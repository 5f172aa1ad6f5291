//! SIMT single-precision GEMM, CuTe's `sgemm_2.cu` algorithm: `C = alpha A B^T + beta C` with
//! `A` an `m x k` tensor, `B` an `n x k` tensor and `C` an `m x n` tensor (CuTe's `(M,K)`,
//! `(N,K)`, `(M,N)` convention), any layouts with a unit stride: NT (`A`, `B` column-major) and
//! TN (`A`, `B` row-major, k contiguous), `C` column-major.
//!
//! Each block computes a 128x128 tile of `C` with 256 threads, walking `k` in tiles of 8:
//! - **Copy.** The 128x8 tiles of `A` and `B` go from global to shared memory with `cp.async`
//!   (two stages: the next tile's copy overlaps this tile's arithmetic), zero-filled outside the
//!   tensors.
//!   A thread copies 4 elements: along the unit-stride mode when that is the tile's first mode
//!   (NT: one 16-byte `cp.async`), else one element of each of four 32x8 blocks, `k` contiguous
//!   across the warp, into their transposed places (TN). Shared tiles are m-major, padded
//!   (`(_128,_8):(_1,_132)`, one per stage) so the transposed writes meet no bank conflict.
//! - **Compute.** CuTe's `TiledMMA` of 16x16 threads, each thread a 4x4 value block
//!   (`make_layout_tv(threads, (4,4))`, a 64x64 tile), repeated 2x2 over the 128x128 tile: a
//!   thread owns 8x8 values of `C` in registers and per `k` reads 8 values of `A` and 8 of `B`
//!   as four 128-bit shared loads (CuTe's `sgemm_2` reads them as 16 single ones) for 64 fused
//!   multiply-adds. The thread layout puts each warp on an 8x4 block of threads
//!   ([`MmaThreads`]), which halves the distinct shared addresses a warp reads.
//! - **Epilogue.** `alpha * acc + beta * C`, stored 4 elements along `m` at a time (128-bit
//!   where `C` allows it); `C` is not read when `beta` is 0 (BLAS's rule).
//!
//! A block wholly inside `C` with `k` a multiple of 8 runs without predicates; the others with
//! them (the same code, compiled for both).
//!
//! ```
//! use const_layout::{make_layout, C};
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::{GlobalTensor, Gmem, GmemMut, SmemRegion};
//! use const_layout_kernels::sgemm;
//! use std::sync::atomic::{AtomicU32, Ordering};
//! let (m, n, k) = (5u32, 3u32, 2u32);
//! let f = |v: f32| AtomicU32::new(v.to_bits());
//! let a: Vec<AtomicU32> = (0..m * k).map(|i| f(i as f32)).collect(); // A(i, p) = i + 5 p
//! let b: Vec<AtomicU32> = (0..n * k).map(|_| f(1.0)).collect();
//! let c: Vec<AtomicU32> = (0..m * n).map(|_| f(0.0)).collect();
//! let ta = GlobalTensor::new(Gmem::<f32>::from_cells(&a), make_layout((m, k), (C::<1>, m)).unwrap()).unwrap();
//! let tb = GlobalTensor::new(Gmem::<f32>::from_cells(&b), make_layout((n, k), (C::<1>, n)).unwrap()).unwrap();
//! let tc = GlobalTensor::new(GmemMut::<f32>::from_cells(&c), make_layout((m, n), (C::<1>, m)).unwrap()).unwrap();
//! let cfg = LaunchConfig { grid: sgemm::grid(m, n), block: sgemm::block(), dynamic_smem_bytes: sgemm::SMEM_BYTES };
//! launch(&cfg, || sgemm::sgemm(ta, tb, tc, 1.0, 0.0, SmemRegion::dynamic())).unwrap();
//! // C(4, 2) = A(4, 0) + A(4, 1) = 4 + 9.
//! assert_eq!(f32::from_bits(c[4 + 2 * 5].load(Ordering::Relaxed)), 13.0);
//! ```

use const_layout::algebra::computed::{composition, make_layout_tv};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, Full, Memory, MemoryMut, Partial, Residue, SmemArray, SmemRegion, Thread, TileSeq,
    block_idx, cp_async_commit, cp_async_wait, fault, fma, sync_threads, unroll,
};

/// Threads per block.
pub const THREADS: usize = 256;
/// The block's tile of `C` (`BLK_M`, `BLK_N`) and the `k` tile (`BLK_K`).
pub const BM: usize = 128;
/// See [`BM`].
pub const BN: usize = 128;
/// See [`BM`].
pub const BK: usize = 8;
/// Shared-memory stages: the tile being computed and the one being copied (measured on an H100:
/// two stages at least as fast as three or four here, with fewer registers).
pub const STAGES: usize = 2;
/// Shared memory per block: `STAGES` tiles of `A` and of `B`.
pub const SMEM_BYTES: u32 = (STAGES * 2 * STAGE * 4) as u32;

/// One stage of an operand's shared tile, m-major (n-major for `B`) with 4 elements of padding
/// between its columns: `(_128,_8):(_1,_132)` (`BK` columns). The padding makes the TN copy's writes (8
/// consecutive `k` of 4 rows from one warp) fall in 32 distinct banks; 132 keeps every column
/// 16-byte aligned for the 128-bit reads. The stages follow one another (`STAGES` of them).
pub type SmemOperand = layout_type!((128, 8):(1, 132));
/// Elements of one stage of one operand.
const STAGE: usize = 132 * BK;
/// The compute threads: 16x16 in tiles of 8x4 per warp, `((_8,_2),(_4,_4)):((_1,_32),(_8,_64))`:
/// lane `l` is thread `(l % 8, l / 8)` of its warp's 8x4 tile and the 8 warps are 2x4 of those
/// tiles. A warp then reads 8 distinct 128-bit values of `A` and 4 of `B` for each `k` (one
/// shared-memory wavefront each), where CuTe's `Layout<Shape<_16,_16>>` (a warp as 16x2
/// threads) reads 16 and 2 (three wavefronts): 46.1 against 43.4 TFLOP/s on an H100.
pub type MmaThreads = layout_type!(((8, 2), (4, 4)):((1, 32), (8, 64)));
/// A thread's values in one 64x64 repetition: a 4x4 block.
pub type MmaValues = layout_type!((4, 4));
/// Copying an operand whose unit stride is along the tile's first mode (NT): 32x8 threads,
/// each 4 consecutive elements of the first mode.
pub type CopyThreadsMajor = layout_type!((32, 8));
/// See [`CopyThreadsMajor`].
pub type CopyValuesMajor = layout_type!((4, 1));
/// Copying an operand whose unit stride is along `k` (TN): 32x8 threads, `k` fastest (a warp
/// reads 4 rows of 8 consecutive `k`: whole 32-byte sectors), one element each, 4 times down the
/// tile (CuTe's TN `Layout<Shape<_32,_8>,Stride<_8,_1>>`).
pub type CopyThreadsK = layout_type!((32, 8):(8, 1));
/// See [`CopyThreadsK`].
pub type CopyValuesK = layout_type!((1, 1));

/// The grid for an `m x n` result: one block per 128x128 tile.
pub fn grid(m: u32, n: u32) -> Dim3 {
    Dim3::xy(m.div_ceil(BM as u32), n.div_ceil(BN as u32))
}

/// The block: [`THREADS`] threads.
pub fn block() -> Dim3 {
    Dim3::x(THREADS as u32)
}

/// One operand's stages.
type Stages = SmemArray<f32, { STAGE * STAGES }>;
/// One stage of one operand.
type Stage = SmemArray<f32, STAGE>;

/// The kernel body: `c = alpha * a * b^T + beta * c` for `a` (m x k), `b` (n x k), `c` (m x n);
/// faults if the shapes do not match. `smem` holds at least [`SMEM_BYTES`].
#[inline(always)]
pub fn sgemm<A, B, Cm>(a: A, b: B, c: Cm, alpha: f32, beta: f32, smem: SmemRegion)
where
    A: DeviceTensor<Mem: Memory<Elem = f32>>,
    B: DeviceTensor<Mem: Memory<Elem = f32>>,
    Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    const {
        assert!(
            !matches!(Cm::UNIT_MODE, Some(1)),
            "sgemm stores C 4 rows at a time: C is column-major or strided"
        );
    }
    let t = Thread::<THREADS>::index();
    let ((m, k), (n, kb), (mc, nc)) = (a.extents(), b.extents(), c.extents());
    if k != kb || m != mc || n != nc {
        fault("sgemm: the shapes of A (m,k), B (n,k) and C (m,n) do not match");
    }
    let (sa, sb) = crate::operand_stages(smem, "sgemm: the block has less shared memory than SMEM_BYTES");
    let blk = block_idx();
    let coord = (blk.x, blk.y);
    // Wholly inside C, and k tiles all full: no predicate anywhere.
    let full = crate::whole_block(m, n, coord, (BM, BN)) && k % BK == 0;
    let args = Args { alpha, beta, sa, sb, coord, t };
    match (a.vectorized(), b.vectorized(), c.vectorized()) {
        (Some(a), Some(b), Some(c)) if full => block_tile::<Full, _, _, _>(a, b, c, args),
        (Some(a), Some(b), Some(c)) => block_tile::<Partial, _, _, _>(a, b, c, args),
        // Tensors that forbid 128-bit access are rare (a leading dimension that is not a multiple
        // of 4): one predicated path serves all their blocks, which keeps the kernel's code (and
        // its registers) to three variants.
        _ => block_tile::<Partial, _, _, _>(a, b, c, args),
    }
}

/// What every part of a block's work needs.
#[derive(Clone, Copy)]
struct Args {
    alpha: f32,
    beta: f32,
    sa: Stages,
    sb: Stages,
    coord: (u32, u32),
    t: Thread<THREADS>,
}

/// An operand's k tiles (`BM x BK` of `A` or `BN x BK` of `B`) for the block's row.
type Ktiles<T, P> = TileSeq<T, 128, { BK as isize }, P>;

/// Issue the asynchronous copy of an operand's k tile into its shared stage.
#[inline(always)]
fn copy_operand<P: Residue, T: DeviceTensor<Mem: Memory<Elem = f32>>>(
    tiles: &Ktiles<T, P>,
    kt: u32,
    dst: Stage,
    t: Thread<THREADS>,
) {
    let Some(tile) = tiles.tile(kt) else {
        fault("sgemm: a tile the block expected whole is cut");
    };
    let s = SmemOperand::default();
    if T::UNIT_MODE == Some(0) {
        // 4 consecutive rows of one k: contiguous in global and in shared memory.
        let (tile_layout, tv) = make_layout_tv(CopyThreadsMajor::default(), CopyValuesMajor::default());
        let (i, p): (u32, u32) = composition(tile_layout, tv).coord((t.get(), 0usize));
        for r in 0..BK as u32 / 8 {
            let crd = (i, p + 8 * r);
            tile.copy_async_vec4(crd, dst, s.crd2idx(crd) as usize);
        }
    } else {
        // One element of each 32x8 block: k contiguous across the warp in global memory, each
        // element to its transposed place in the m-major shared tile.
        let (tile_layout, tv) = make_layout_tv(CopyThreadsK::default(), CopyValuesK::default());
        let (i, p): (u32, u32) = composition(tile_layout, tv).coord((t.get(), 0usize));
        for r in 0..BK as u32 / 8 {
            unroll!(q in 0..4 => {
                let crd = (i + 32 * q as u32, p + 8 * r);
                tile.copy_async(crd, dst, s.crd2idx(crd) as usize);
            });
        }
    }
}

/// A block's whole tile of `C`, predicated or not.
#[inline(always)]
fn block_tile<P, A, B, Cm>(a: A, b: B, c: Cm, args: Args)
where
    P: Residue,
    A: DeviceTensor<Mem: Memory<Elem = f32>>,
    B: DeviceTensor<Mem: Memory<Elem = f32>>,
    Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>,
{
    let Args { sa, sb, coord, t, .. } = args;
    let (a_tiles, b_tiles) = (
        a.local_tile_seq::<P, 128, { BK as isize }>((C, C), coord.0),
        b.local_tile_seq::<P, 128, { BK as isize }>((C, C), coord.1),
    );
    // Both sequences have ceil(k / BK) tiles (k tiles all whole in a `Full` block): bounding the
    // loop by their counts lets the optimizer drop the check in `tile`.
    let k_tiles = a_tiles.count().min(b_tiles.count());
    let issue = |kt: u32, stage: u32| {
        let at = stage as usize * STAGE;
        copy_operand::<P, A>(&a_tiles, kt, sa.part::<STAGE>(at), t);
        copy_operand::<P, B>(&b_tiles, kt, sb.part::<STAGE>(at), t);
    };
    // Prologue: the first STAGES - 1 tiles in flight (empty groups past the end keep the count).
    for s in 0..STAGES as u32 - 1 {
        if s < k_tiles {
            issue(s, s);
        }
        cp_async_commit();
    }
    // This thread's 8x8 values of C: rows 4 tx + 64 h + i, columns 4 ty + 64 g + j.
    let (tile_layout, tv) = make_layout_tv(MmaThreads::default(), MmaValues::default());
    let (row, col): (u32, u32) = composition(tile_layout, tv).coord((t.get(), 0usize));
    let mut acc = [[0f32; 8]; 8];
    let s = SmemOperand::default();
    // One k tile: wait for it, start the copy of the tile STAGES - 1 ahead, compute. `read` and
    // `write` are its stages; the loop below passes them as constants. A macro, not a closure:
    // the body is large, and a closure called three times is not inlined (the accumulators would
    // go to local memory).
    macro_rules! step {
        ($kt:expr, $read:expr, $write:expr) => {{
        let (kt, read, write): (u32, usize, usize) = ($kt, $read, $write);
        // Tile kt has landed (at most STAGES - 2 younger groups pending), for every thread, and
        // every thread is done with the stage the next copy overwrites.
        cp_async_wait::<{ (STAGES - 2) as u32 }>();
        sync_threads();
        if kt + (STAGES as u32 - 1) < k_tiles {
            issue(kt + STAGES as u32 - 1, write as u32);
        }
        cp_async_commit();
        let at = read * STAGE;
        let (ra, rb) = (sa.part::<STAGE>(at), sb.part::<STAGE>(at));
        for k8 in 0..BK as u32 / 8 {
            unroll!(p8 in 0..8 => {
                let p = 8 * k8 + p8 as u32;
                let mut fa = [0f32; 8];
                let mut fb = [0f32; 8];
                unroll!(h in 0..2 => {
                    let x = ra.load4(s.crd2idx((row + 64 * h as u32, p)) as usize);
                    let y = rb.load4(s.crd2idx((col + 64 * h as u32, p)) as usize);
                    unroll!(q in 0..4 => {
                        fa[4 * h + q] = x[q];
                        fb[4 * h + q] = y[q];
                    });
                });
                // CuTe's serpentine order: two rows at a time, the columns forward then back, so
                // consecutive FFMAs share both operands (the register reuse caches hold them).
                unroll!(i2 in 0..4 => {
                    unroll!(jj in 0..8 => {
                        let j = if i2.is_multiple_of(2) { jj } else { 7 - jj };
                        unroll!(ii in 0..2 => {
                            let i = 2 * i2 + ii;
                            acc[i][j] = fma(fa[i], fb[j], acc[i][j]);
                        });
                    });
                });
            });
        }
        }};
    }
    // The k loop unrolled by the stage count, so that every stage's shared addresses are constants
    // (a rotating stage index costs integer instructions every k tile).
    const { assert!(STAGES == 2, "the k loop is unrolled for two stages") };
    let mut kt = 0;
    while kt + 1 < k_tiles {
        step!(kt, 0, 1);
        step!(kt + 1, 1, 0);
        kt += 2;
    }
    if kt < k_tiles {
        step!(kt, 0, 1);
    }
    epilogue::<P, Cm>(c, &acc, (row, col), args);
}

/// `C = alpha * acc + beta * C` for the thread's values, 4 rows at a time.
#[inline(always)]
fn epilogue<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
    c: Cm,
    acc: &[[f32; 8]; 8],
    (row, col): (u32, u32),
    args: Args,
) {
    let tile = match c.local_tile_as::<P, 128, 128>((C, C), args.coord) {
        Some(tile) => tile,
        None => fault("sgemm: a tile the block expected whole is cut"),
    };
    let (alpha, beta) = (args.alpha, args.beta);
    unroll!(h in 0..2 => {
        unroll!(j in 0..8 => {
            let crd = (row + 64 * h as u32, col + (64 * (j / 4) + j % 4) as u32);
            let old = if beta == 0.0 { [0.0; 4] } else { tile.load_vec4(crd) };
            let mut out = [0f32; 4];
            unroll!(i in 0..4 => {
                out[i] = fma(beta, old[i], alpha * acc[4 * h + i][j]);
            });
            tile.store_vec4(crd, out);
        });
    });
}
