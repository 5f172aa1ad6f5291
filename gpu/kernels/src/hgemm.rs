//! Tensor-core half-precision GEMM with the structure of CuTe's `sgemm_sm80.cu` (its `gemm_tn`):
//! `C = alpha A B^T + beta C` with `A` (m x k) and `B` (n x k) in `f16` or `bf16`, both
//! `k`-contiguous (CuTe's `TN`), accumulated in `f32` into a column-major `f32` `C`.
//!
//! Each block of 4 warps computes a 128x128 tile of `C`, walking `k` in tiles of 64, with CuTe's
//! layouts, each built by const-layout from the same atoms and tilers as in `sgemm_sm80.cu`:
//! - **Shared memory.** Three stages of `A` and of `B`, each `tile_to_shape(Sw<3,3,3> o
//!   (8,(8,8)):(8,(1,64)), (128,64))` halves: the 16-byte chunk `c` of row `r` lands in chunk
//!   `c ^ (r % 8)`, so the 8 rows one `ldmatrix` reads and the 8 chunks of a row one warp writes
//!   fall in 8 distinct bank groups (no conflicts either way).
//! - **Copy.** `make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<u128>, F16>, (16,8):(8,1),
//!   (1,8))`: 16-byte `cp.async`, 8 down the 128 rows of each operand, zero-filled outside the
//!   tensors; two tiles in flight while one is computed.
//! - **Compute.** `make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2), <32,32,16>)`, 4x4 times
//!   over the tile: per 16 of `k` a thread loads 4 fragments of `A` and 4 of `B` with `ldmatrix.x4`
//!   at the rows `make_tiled_copy_A`/`_B` of `SM75_U32x4_LDSM_N` give it, and the warp issues 32
//!   `mma.sync` into 128 accumulators. Fragments are double-buffered in registers (those for the
//!   next 16 of `k` load while these multiply), and each batch of `ldmatrix` or `mma.sync` checks
//!   once that the warp is converged.
//! - **Epilogue.** `alpha * acc + beta * C` through the tiled MMA's `C` layout, predicated.
//!
//! Blocks wholly inside `C` with `k` a multiple of 64 run without predicates; the others predicate
//! every access (CuTe's tutorial kernel assumes divisible sizes). `k` must be a multiple of 8
//! (16-byte rows).

use const_layout::atom::{
    Copy_Atom, F16, SM75_U32x4_LDSM_N, SM80_16x8x16_F32F16F16F32_TN, SM80_CP_ASYNC_CACHEALWAYS, TiledMma,
    make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma,
};
use const_layout::layout::computed::{swizzle, tile_to_shape};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, Full, HalfKind, Memory, MemoryMut, Partial, Residue, SmemArray, SmemRegion, Thread,
    TileSeq, Vector4, Word, block_idx, cp_async_commit, cp_async_wait, fault, mma_m16n8k16_f16_grid,
    mma_m16n8k16_f32_grid, pack_half2, sync_threads, unpack_half2, unroll,
};

/// Threads per block: 4 warps, 2x2 over the tile.
pub const THREADS: usize = 128;
/// The block's tile of `C`.
pub const BM: usize = 128;
/// See [`BM`].
pub const BN: usize = 128;
/// The `k` tile, in halves.
pub const BK: usize = 64;
/// Shared-memory stages of each operand.
pub const STAGES: usize = 3;
/// 32-bit words (two halves) in one stage of one operand.
const STAGE: usize = BM * BK / 2;
/// Shared memory per block: the stages of `A` and of `B`.
pub const SMEM_BYTES: u32 = (2 * STAGES * STAGE * 4) as u32;

/// The global-to-shared copy atom: through L1, as CuTe's kernel (the two blocks on a
/// multiprocessor often read the same tile of `B`; bypassing L1 halves the kernel's speed).
type CpAsync = SM80_CP_ASYNC_CACHEALWAYS<u128>;

/// The operands' stages as 32-bit words.
type Stages = SmemArray<u32, { STAGES * STAGE }>;
/// One stage.
type Stage = SmemArray<u32, STAGE>;
/// A thread's fragments for 16 of `k`: 4 of `A` down `m`, 8 of `B` (4 `ldmatrix.x4`) across `n`.
type Frags = ([[u32; 4]; 4], [[u32; 2]; 8]);

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
pub fn hgemm_tn<Acc, A, B, Cm>(acc: Acc, a: A, b: B, c: Cm, alpha: f32, beta: f32, smem: SmemRegion)
where
    Acc: Accumulate,
    A: DeviceTensor<Mem: Memory<Elem = u32>>,
    B: DeviceTensor<Mem: Memory<Elem = u32>>,
    Cm: DeviceTensor<Mem: MemoryMut<Elem = Acc::Out>>,
{
    let kind = acc.kind();
    let ((m, kw), (n, kwb)) = (a.extents(), b.extents());
    if kw != kwb || Acc::c_extents(m, n) != Some(c.extents()) {
        fault("hgemm: the shapes of A (m,k), B (n,k) and C (m,n) do not match");
    }
    let (Some(a), Some(b)) = (a.vectorized(), b.vectorized()) else {
        fault("hgemm: A and B need k-contiguous rows of a multiple of 8 halves");
    };
    let (Some(sa), Some(sb)) = (
        smem.array::<u32, { STAGES * STAGE }>(0),
        smem.array::<u32, { STAGES * STAGE }>((STAGES * STAGE * 4) as u32),
    ) else {
        fault("hgemm: the block has less shared memory than SMEM_BYTES");
    };
    let blk = block_idx();
    let coord = (blk.x, blk.y);
    // Wholly inside C, and k tiles all whole: no predicate anywhere.
    let full = m as isize - (coord.0 as isize * BM as isize) >= BM as isize
        && n as isize - (coord.1 as isize * BN as isize) >= BN as isize
        && kw % (BK / 2) == 0;
    let args = Args { kind, alpha, beta, sa, sb, coord, t: Thread::index() };
    if full {
        block_tile::<Acc, Full, _, _, _>(a, b, c, args)
    } else {
        block_tile::<Acc, Partial, _, _, _>(a, b, c, args)
    }
}

/// What every part of a block's work needs.
#[derive(Clone, Copy)]
pub struct Args {
    kind: HalfKind,
    alpha: f32,
    beta: f32,
    sa: Stages,
    sb: Stages,
    coord: (u32, u32),
    t: Thread<THREADS>,
}

/// A block's whole tile of `C`, predicated (`Partial`) or not (`Full`).
#[inline(always)]
fn block_tile<Acc, P, A, B, Cm>(a: A, b: B, c: Cm, args: Args)
where
    Acc: Accumulate,
    P: Residue,
    A: DeviceTensor<Mem: Memory<Elem = u32>, Access = Vector4>,
    B: DeviceTensor<Mem: Memory<Elem = u32>, Access = Vector4>,
    Cm: DeviceTensor<Mem: MemoryMut<Elem = Acc::Out>>,
{
    let Args { kind, sa, sb, coord, t, .. } = args;
    let t = t.get();
    let a_tiles = a.local_tile_seq::<P, 128, { BK as isize / 2 }>((C, C), coord.0);
    let b_tiles = b.local_tile_seq::<P, 128, { BK as isize / 2 }>((C, C), coord.1);
    let k_tiles = a_tiles.count().min(b_tiles.count());

    let ((crow, ck), (am, ak), (bn, bk)) = thread_coords(t);
    // Macros, not closures: a closure called three times is not inlined (its captures would go
    // through local memory).
    macro_rules! issue {
        ($kt:expr, $stage:expr) => {
            issue(&a_tiles, &b_tiles, $kt, (sa, sb), $stage, (crow, ck))
        };
    }

    let (a0, b0) = (thread_base(am, ak), thread_base(bn, bk));
    // The fragments of one 16 of k: 4 of A down m, 4 of B (2 n-atoms each) across n.
    macro_rules! load {
        ($stages:expr, $kk:expr) => {
            load($stages, $kk, (a0, b0))
        };
    }

    const { assert!(STAGES == 3 && BK == 64, "the loops below are unrolled for 3 stages and 4 k steps") };
    // Prologue: the first STAGES - 1 tiles in flight (empty groups past the end keep the count).
    unroll!(p in 0..2 => {
        if (p as u32) < k_tiles {
            issue!(p as u32, p);
        }
        cp_async_commit();
    });
    let mut acc = [[Acc::Frag::default(); 8]; 4];
    // Stage of tile kt, and of the tile STAGES - 1 ahead (the stage read before kt).
    let (mut read, mut write) = (0usize, STAGES - 1);
    let mut kt = 0;
    if Acc::PIPELINED {
        // CuTe's register pipeline: the fragments of the next 16 of k load while these multiply
        // (the next tile's first ones at the last step, after the barrier that lands it).
        cp_async_wait::<{ STAGES as u32 - 2 }>();
        sync_threads();
        let mut cur = (sa.part::<STAGE>(0), sb.part::<STAGE>(0));
        let mut frag = [load!(cur, 0), Frags::default()];
        while kt < k_tiles {
            unroll!(kk in 0..4 => {
                if kk == 3 {
                    read = if read == STAGES - 1 { 0 } else { read + 1 };
                    cp_async_wait::<{ STAGES as u32 - 2 }>();
                    sync_threads();
                    cur = (sa.part::<STAGE>(read * STAGE), sb.part::<STAGE>(read * STAGE));
                }
                if kk < 3 || kt + 1 < k_tiles {
                    frag[(kk + 1) % 2] = load!(cur, (kk + 1) % 4);
                }
                if kk == 0 {
                    // The stage read before this tile is free (every thread passed the barrier
                    // after its last read): the tile STAGES - 1 ahead goes there.
                    if kt + (STAGES as u32 - 1) < k_tiles {
                        issue!(kt + STAGES as u32 - 1, write);
                    }
                    cp_async_commit();
                    write = if write == STAGES - 1 { 0 } else { write + 1 };
                }
                let (fa, fb) = &frag[kk % 2];
                Acc::mma(kind, fa, fb, &mut acc);
            });
            kt += 1;
        }
    } else {
        while kt < k_tiles {
            // Tile kt has landed (at most STAGES - 2 younger groups pending) for every thread
            // once past the barrier, and every thread is done with the stage read before it: the
            // tile STAGES - 1 ahead goes there.
            cp_async_wait::<{ STAGES as u32 - 2 }>();
            sync_threads();
            if kt + (STAGES as u32 - 1) < k_tiles {
                issue!(kt + STAGES as u32 - 1, write);
            }
            cp_async_commit();
            let cur = (sa.part::<STAGE>(read * STAGE), sb.part::<STAGE>(read * STAGE));
            unroll!(kk in 0..4 => {
                let (fa, fb) = load!(cur, kk);
                Acc::mma(kind, &fa, &fb, &mut acc);
            });
            (read, write) = (if read == STAGES - 1 { 0 } else { read + 1 }, read);
            kt += 1;
        }
    }
    // Where each of the thread's 8 values of the tiled MMA's C lies in its 32x32 tile.
    let c_tv = tiled_mma().layout_c_tv();
    let at = core::array::from_fn(|v| {
        let idx = c_tv.crd2idx((t, v)) as usize; // m + 32 n
        (idx % 32, idx / 32)
    });
    Acc::epilogue::<P, Cm>(c, &acc, at, args);
}

/// The tiled MMA: 2x2 warps of `mma.sync.m16n8k16`, each warp twice along `n`.
type Mma = TiledMma<SM80_16x8x16_F32F16F16F32_TN, layout_type!((2, 2):(1, 2)), (C<32>, C<32>, C<16>)>;

/// CuTe's `make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{},
/// Tile<_32,_32,_16>{})`.
#[inline(always)]
fn tiled_mma() -> Mma {
    make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        <layout_type!((2, 2):(1, 2))>::default(),
        (C::<32>, C::<32>, C::<16>),
    )
}

/// A thread's base coordinates, `(row, half)`: its first 16-byte vector in the 16x64 tile of the
/// global-to-shared copy (8 of them down the 128 rows), and the row and first `k` it points
/// `ldmatrix` at in the 32x16 tiles of `A` and of `B`.
#[inline(always)]
fn thread_coords(t: usize) -> ((usize, usize), (usize, usize), (usize, usize)) {
    let copy = make_tiled_copy(
        Copy_Atom::<CpAsync, F16>::default(),
        <layout_type!((16, 8):(8, 1))>::default(),
        <layout_type!((1, 8))>::default(),
    );
    let v0 = copy.layout_s_tv().crd2idx((t, 0usize)) as usize;
    let ldsm = Copy_Atom::<SM75_U32x4_LDSM_N, F16>::default();
    let mma = tiled_mma();
    let (copy_a, copy_b) = (make_tiled_copy_A(ldsm, mma), make_tiled_copy_B(ldsm, mma));
    let ia = copy_a.layout_s_tv().crd2idx((t, 0usize)) as usize;
    let ib = copy_b.layout_s_tv().crd2idx((t, 0usize)) as usize;
    ((v0 % 16, v0 / 16), (ia % 32, ia / 32), (ib % 32, ib / 32))
}

/// One stage of an operand, in halves: CuTe's `tile_to_shape(composition(Swizzle<3,3,3>{},
/// Layout<Shape<_8,Shape<_8,_8>>, Stride<_8,Stride<_1,_64>>>{}), make_shape(bM,bK))`.
macro_rules! smem_layout {
    () => {
        swizzle::<3, 3, 3, _>(tile_to_shape(
            <layout_type!((8, (8, 8)):(8, (1, 64)))>::default(),
            (C::<{ BM as isize }>, C::<{ BK as isize }>),
        ))
    };
}

/// A thread's offset in a stage before the swizzle: the inner layout at its coordinate.
#[inline(always)]
fn thread_base(r: usize, k: usize) -> isize {
    smem_layout!().unswizzled_crd2idx((r, k))
}

/// The 32-bit word of a stage at a thread's coordinate (`base`, from [`thread_base`]) plus the
/// constant coordinate `(r, k)` of one of its values (`k` even): CuTe's partition of the swizzled
/// stage, so that rows (multiples of 512 halves, above the swizzle's bits) add after the swizzle.
/// Exact where the sum of the coordinates is the sum of their offsets, as for every thread and
/// value here (checked exhaustively by the kernel's tests).
#[inline(always)]
fn word(base: isize, r: usize, k: usize) -> usize {
    let s = smem_layout!();
    let w = s.offset_sum(base, s.unswizzled_crd2idx((r, k))) as usize / 2;
    // The identity for every word the kernel forms (the tests check them all), and it tells the
    // compiler the word is an aligned 16-byte access inside the stage: no bounds check follows.
    // (Checking instead once per thread and adding rows as constants after the swizzle takes
    // fewer instructions but more branches, and ran 5-10% slower.)
    const { assert!(STAGE.is_power_of_two()) };
    w & (STAGE - 1) & !3
}

/// Start the asynchronous copy of k tile `kt` of both operands into `stage`: this thread's 8
/// vectors of each, from row `crow` and half `ck` of the copy tile down the 128 rows.
#[inline(always)]
fn issue<P, A, B>(
    a_tiles: &TileSeq<A, 128, { BK as isize / 2 }, P>,
    b_tiles: &TileSeq<B, 128, { BK as isize / 2 }, P>,
    kt: u32,
    (sa, sb): (Stages, Stages),
    stage: usize,
    (crow, ck): (usize, usize),
) where
    P: Residue,
    A: DeviceTensor<Mem: Memory<Elem = u32>, Access = Vector4>,
    B: DeviceTensor<Mem: Memory<Elem = u32>, Access = Vector4>,
{
    let (Some(ta), Some(tb)) = (a_tiles.tile(kt), b_tiles.tile(kt)) else {
        fault("hgemm: a k tile is missing");
    };
    let (da, db) = (sa.part::<STAGE>(stage * STAGE), sb.part::<STAGE>(stage * STAGE));
    let base = thread_base(crow, ck);
    unroll!(r in 0..8 => {
        let crd = ((crow + 16 * r) as u32, (ck / 2) as u32);
        let di = word(base, 16 * r, 0);
        ta.copy_async4_as(CpAsync::default(), crd, da, di);
        tb.copy_async4_as(CpAsync::default(), crd, db, di);
    });
}

/// The thread's fragments for the `kk`-th 16 of `k` of a stage: 4 `ldmatrix.x4` of `A` at rows
/// `32 i` from its row, 4 of `B` at rows `32 j` (2 fragments each), each batch checked once;
/// `a0`, `b0` are the thread's [`thread_base`] in the two.
#[inline(always)]
fn load((sa, sb): (Stage, Stage), kk: usize, (a0, b0): (isize, isize)) -> Frags {
    let fa = sa.ldmatrix_x4_batch([0, 1, 2, 3].map(|i| word(a0, 32 * i, 16 * kk)), false);
    let fb4 = sb.ldmatrix_x4_batch([0, 1, 2, 3].map(|j| word(b0, 32 * j, 16 * kk)), false);
    let fb = core::array::from_fn(|j| [fb4[j / 2][2 * (j % 2)], fb4[j / 2][2 * (j % 2) + 1]]);
    (fa, fb)
}

/// What a block accumulates in, and how it writes `C`: [`F32Accum`] or [`F16Accum`]. Sealed.
pub trait Accumulate: Copy + sealed::Sealed {
    /// One `mma.sync` atom's accumulators of a thread.
    type Frag: Copy + Default;
    /// The element of `C`'s tensor.
    type Out: Word;
    /// The extents of `C`'s tensor for an `m x n` result, if it can hold one.
    fn c_extents(m: usize, n: usize) -> Option<(usize, usize)>;
    /// The inputs' kind.
    fn kind(&self) -> HalfKind;
    /// Whether the fragments are double-buffered in registers (CuTe's register pipeline), where
    /// the accumulators leave room for it.
    #[doc(hidden)]
    const PIPELINED: bool;
    #[doc(hidden)]
    fn mma(kind: HalfKind, fa: &[[u32; 4]; 4], fb: &[[u32; 2]; 8], acc: &mut [[Self::Frag; 8]; 4]);
    #[doc(hidden)]
    fn epilogue<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = Self::Out>>>(
        c: Cm,
        acc: &[[Self::Frag; 8]; 4],
        at: [(usize, usize); 8],
        args: Args,
    );
}

mod sealed {
    pub trait Sealed {}
}

/// `f32` accumulators (`SM80_16x8x16_F32F16F16F32_TN`, or its `bf16` twin) of inputs of the
/// given kind, and an `f32` `C`, column-major: `(m, n)`.
#[derive(Clone, Copy, Debug)]
pub struct F32Accum(pub HalfKind);

/// `f16` accumulators (`SM80_16x8x16_F16F16F16F16_TN`, as CuTe's `sgemm_sm80.cu`; `f16` inputs)
/// and an `f16` `C`, row-major as words of two halves: `(m, n / 2)`, `n` even (the two values of
/// an accumulator register are neighbours along `n`).
#[derive(Clone, Copy, Debug, Default)]
pub struct F16Accum;

impl sealed::Sealed for F32Accum {}
impl sealed::Sealed for F16Accum {}

impl Accumulate for F32Accum {
    type Frag = [f32; 4];
    type Out = f32;
    // 128 accumulators: a second set of fragments spills (230 TFLOP/s against 321).
    const PIPELINED: bool = false;
    fn c_extents(m: usize, n: usize) -> Option<(usize, usize)> {
        Some((m, n))
    }
    fn kind(&self) -> HalfKind {
        self.0
    }
    #[inline(always)]
    fn mma(kind: HalfKind, fa: &[[u32; 4]; 4], fb: &[[u32; 2]; 8], acc: &mut [[[f32; 4]; 8]; 4]) {
        mma_m16n8k16_f32_grid(kind, fa, fb, acc);
    }
    /// `C = alpha * acc + beta * C` for the thread's values: value `v` of the tiled MMA's `C`
    /// layout, repeated 4x4 over the tile (`acc[i][2 j + v / 4][v % 4]` at `(m + 32 i, n + 32 j)`).
    #[inline(always)]
    fn epilogue<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
        c: Cm,
        acc: &[[[f32; 4]; 8]; 4],
        at: [(usize, usize); 8],
        args: Args,
    ) {
        let Some(tile) = c.local_tile_as::<P, 128, 128>((C, C), args.coord) else {
            fault("hgemm: a tile the block expected whole is cut");
        };
        let (alpha, beta) = (args.alpha, args.beta);
        unroll!(v in 0..8 => {
            let (m0, n0) = at[v];
            unroll!(i in 0..4 => {
                unroll!(j in 0..4 => {
                    let crd = ((m0 + 32 * i) as u32, (n0 + 32 * j) as u32);
                    let old = if beta == 0.0 { 0.0 } else { tile.load(crd).unwrap_or(0.0) };
                    tile.store(crd, alpha * acc[i][2 * j + v / 4][v % 4] + beta * old);
                });
            });
        });
    }
}

impl Accumulate for F16Accum {
    type Frag = [u32; 2];
    type Out = u32;
    const PIPELINED: bool = true;
    fn c_extents(m: usize, n: usize) -> Option<(usize, usize)> {
        n.is_multiple_of(2).then_some((m, n / 2))
    }
    fn kind(&self) -> HalfKind {
        HalfKind::F16
    }
    #[inline(always)]
    fn mma(_: HalfKind, fa: &[[u32; 4]; 4], fb: &[[u32; 2]; 8], acc: &mut [[[u32; 2]; 8]; 4]) {
        mma_m16n8k16_f16_grid(fa, fb, acc);
    }
    /// `C = alpha * acc + beta * C` in `f32`, rounded to `f16`, a word (two neighbours along `n`:
    /// values `2 w` and `2 w + 1` of the tiled MMA's `C` layout) at a time.
    #[inline(always)]
    fn epilogue<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = u32>>>(
        c: Cm,
        acc: &[[[u32; 2]; 8]; 4],
        at: [(usize, usize); 8],
        args: Args,
    ) {
        let Some(tile) = c.local_tile_as::<P, 128, 64>((C, C), args.coord) else {
            fault("hgemm: a tile the block expected whole is cut");
        };
        let (alpha, beta) = (args.alpha, args.beta);
        unroll!(w in 0..4 => {
            let (m0, n0) = at[2 * w];
            unroll!(i in 0..4 => {
                unroll!(j in 0..4 => {
                    let crd = ((m0 + 32 * i) as u32, ((n0 + 32 * j) / 2) as u32);
                    let x = unpack_half2(HalfKind::F16, acc[i][2 * j + w / 2][w % 2]);
                    let old = if beta == 0.0 { [0.0; 2] } else { unpack_half2(HalfKind::F16, tile.load(crd).unwrap_or(0)) };
                    tile.store(crd, pack_half2(HalfKind::F16, alpha * x[0] + beta * old[0], alpha * x[1] + beta * old[1]));
                });
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's partition of a swizzled stage is exact: for every thread's base coordinate
    /// (its first `cp.async` vector, its `ldmatrix` rows in `A` and `B`) and every constant offset
    /// the kernel adds to it, [`word`] from the thread's base is the swizzled layout's word at the
    /// summed coordinate.
    #[test]
    fn swizzled_partition_is_exact() {
        let s = smem_layout!();
        let whole = |r: usize, k: usize| s.crd2idx((r, k)) as usize / 2;
        let mut seen = [false; STAGE / 4];
        for t in 0..THREADS {
            let ((crow, ck), (am, ak), (bn, bk)) = thread_coords(t);
            for r in 0..8 {
                assert_eq!(
                    word(thread_base(crow, ck), 16 * r, 0),
                    whole(crow + 16 * r, ck),
                    "copy t={t} r={r}"
                );
                seen[whole(crow + 16 * r, ck) / 4] = true;
            }
            for i in 0..4 {
                for kk in 0..4 {
                    let (ra, ka) = (am + 32 * i, ak + 16 * kk);
                    let (rb, kb) = (bn + 32 * i, bk + 16 * kk);
                    assert_eq!(
                        word(thread_base(am, ak), 32 * i, 16 * kk),
                        whole(ra, ka),
                        "A t={t} i={i} kk={kk}"
                    );
                    assert_eq!(
                        word(thread_base(bn, bk), 32 * i, 16 * kk),
                        whole(rb, kb),
                        "B t={t} j={i} kk={kk}"
                    );
                }
            }
        }
        // The copy writes every 16-byte chunk of a stage (128 threads x 8 = 1024 chunks: once).
        assert!(seen.iter().all(|&x| x));
    }
}
