//! Tensor-core half-precision GEMM with the structure of CuTe's `sgemm_sm80.cu`:
//! `C = alpha A B^T + beta C` with `A` (m x k) and `B` (n x k) in `f16` or `bf16`, either both
//! `k`-contiguous ([`hgemm_tn`], CuTe's `TN`) or both column-major ([`hgemm_nt`], `NT`), with
//! [`F32Accum`] (`f32` accumulators, an `f32` column-major `C`) or [`F16Accum`] (`f16`
//! accumulators and `C`, the types of CuTe's kernel).
//!
//! Each block of 4 warps computes a 128x128 tile of `C`, walking `k` in tiles of 64, with CuTe's
//! layouts, each built by const-layout from the same atoms and tilers as in `sgemm_sm80.cu` (the
//! MN-major ones as CUTLASS's SM80 collectives pick them):
//! - **Shared memory.** Three stages of `A` and of `B`, each `tile_to_shape(Sw<3,3,3> o
//!   (8,(8,8)):(8,(1,64)), (128,64))` halves for `TN` (the 16-byte chunk `c` of row `r` lands in
//!   chunk `c ^ (r % 8)`), `tile_to_shape(Sw<3,3,3> o (64,8):(1,64), (128,64))` for `NT` (chunk
//!   `c` of column `k` in `c ^ (k % 8)`): the 8 rows one `ldmatrix` reads and the 8 chunks one
//!   quarter-warp writes fall in 8 distinct bank groups.
//! - **Copy.** `make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<u128>, F16>, ...)` with
//!   threads `(16,8):(8,1)` and values `(1,8)` (`TN`) or `(16,8):(1,16)` and `(8,1)` (`NT`):
//!   16-byte `cp.async.ca`, 8 a thread for each operand, zero-filled outside the tensors; two
//!   tiles in flight while one is computed.
//! - **Compute.** `make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2), <32,32,16>)`, 4x4 times
//!   over the tile: per 16 of `k` a thread loads 4 fragments of `A` and 4 of `B` with `ldmatrix.x4`
//!   (`.trans` for `NT`) at the rows `make_tiled_copy_A`/`_B` of `SM75_U32x4_LDSM_N` (or
//!   `SM75_U16x8_LDSM_T`) give it, and the warp issues 32 `mma.sync`. Each batch of `ldmatrix` or
//!   `mma.sync` checks once that the warp is converged. With `f16` accumulators the fragments are
//!   double-buffered in registers (CuTe's register pipeline); the 128 `f32` accumulators leave no
//!   room for it.
//! - **Epilogue.** `alpha * acc + beta * C` through the tiled MMA's `C` layout, predicated.
//!
//! Blocks wholly inside `C` with `k` a multiple of 64 run without predicates; the others predicate
//! every access (CuTe's tutorial kernel assumes divisible sizes). The contiguous extent must be a
//! multiple of 8 (16-byte vectors): `k` for `TN`, `m` and `n` for `NT`. On an H100 it runs at
//! 1.04-1.1x CuTe's kernel with `f16` accumulators, 0.92-0.98x with `f32` (PERFORMANCE.md).

use const_layout::algebra::computed::{swizzle, tile_to_shape};
use const_layout::atom::{
    Copy_Atom, CopyAtom, F16, KMajor, MnMajor, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N,
    SM80_16x8x16_F32F16F16F32_TN, SM80_CP_ASYNC_CACHEALWAYS, TiledMma, make_tiled_copy, make_tiled_copy_A,
    make_tiled_copy_B, make_tiled_mma,
};
use const_layout::{C, layout_type};
use const_layout_device::{
    DeviceTensor, Dim3, Full, GlobalTile, HalfKind, Memory, MemoryMut, Partial, Residue, SmemArray,
    SmemRegion, Thread, TileSeq, Vector4, Word, block_idx, cp_async_commit, cp_async_wait, fault,
    mma_m16n8k16_f16_grid, mma_m16n8k16_f32_grid, pack_half2, sync_threads, unpack_half2, unroll,
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

/// CuTe's `gemm_tn`: `a` (m x k/2 words) and `b` (n x k/2 words), `k`-contiguous (unit stride
/// along the words), `c` as the accumulator choice says ([`Accumulate`]); faults if the shapes do
/// not match or `k` is not a multiple of 8.
#[inline(always)]
pub fn hgemm_tn<Acc, A, B, Cm>(acc: Acc, a: A, b: B, c: Cm, alpha: f32, beta: f32, smem: SmemRegion)
where
    Acc: Accumulate,
    A: OperandTensor,
    B: OperandTensor,
    Cm: Output<Acc>,
{
    hgemm::<KMajor, _, _, _, _>(acc, a, b, c, alpha, beta, smem)
}

/// CuTe's `gemm_nt`: `a` (m/2 words x k) and `b` (n/2 words x k), `m`- and `n`-contiguous (unit
/// stride along the words: column-major `A` and `B`), `c` as for [`hgemm_tn`]; faults if the
/// shapes do not match or `m` or `n` is not a multiple of 8.
#[inline(always)]
pub fn hgemm_nt<Acc, A, B, Cm>(acc: Acc, a: A, b: B, c: Cm, alpha: f32, beta: f32, smem: SmemRegion)
where
    Acc: Accumulate,
    A: OperandTensor,
    B: OperandTensor,
    Cm: Output<Acc>,
{
    hgemm::<MnMajor, _, _, _, _>(acc, a, b, c, alpha, beta, smem)
}

/// An operand tensor of the kernel: halves two to a 32-bit word. (A name for the bound; every
/// such tensor is one.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an HGEMM operand",
    note = "an operand is a tensor of 32-bit words, two halves each (`Gmem<u32>`)"
)]
pub trait OperandTensor: DeviceTensor<Mem: Memory<Elem = u32>> {}
impl<T: DeviceTensor<Mem: Memory<Elem = u32>>> OperandTensor for T {}

/// `C`'s tensor for the accumulator choice `Acc`: elements of `Acc::Out`, writable. (A name for
/// the bound; every such tensor is one.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the HGEMM's C for `{Acc}`",
    note = "C is writable (`GmemMut`), of `f32` for `F32Accum` and of 32-bit words of two halves for `F16Accum`"
)]
pub trait Output<Acc: Accumulate>: DeviceTensor<Mem: MemoryMut<Elem = Acc::Out>> {}
impl<Acc: Accumulate, T: DeviceTensor<Mem: MemoryMut<Elem = Acc::Out>>> Output<Acc> for T {}

/// An operand the kernel copies with 16-byte vectors ([`DeviceTensor::vectorized`]).
#[doc(hidden)]
pub trait Staged: DeviceTensor<Mem: Memory<Elem = u32>, Access = Vector4> {}
impl<T: DeviceTensor<Mem: Memory<Elem = u32>, Access = Vector4>> Staged for T {}

/// The kernel body for operands of either major-ness.
#[inline(always)]
fn hgemm<M, Acc, A, B, Cm>(acc: Acc, a: A, b: B, c: Cm, alpha: f32, beta: f32, smem: SmemRegion)
where
    M: StageMajor,
    Acc: Accumulate,
    A: OperandTensor,
    B: OperandTensor,
    Cm: Output<Acc>,
{
    let kind = acc.kind();
    let ((m, k), (n, kb)) = (M::rows_k(a.extents()), M::rows_k(b.extents()));
    if k != kb || Acc::c_extents(m, n) != Some(c.extents()) {
        fault("hgemm: the shapes of A (m,k), B (n,k) and C (m,n) do not match");
    }
    let (Some(a), Some(b)) = (a.vectorized(), b.vectorized()) else {
        fault("hgemm: A and B need contiguous runs of a multiple of 8 halves");
    };
    let (sa, sb) = crate::operand_stages(smem, "hgemm: the block has less shared memory than SMEM_BYTES");
    let blk = block_idx();
    let coord = (blk.x, blk.y);
    // Wholly inside C, and k tiles all whole: no predicate anywhere.
    let full = crate::whole_block(m, n, coord, (BM, BN)) && k % BK == 0;
    let args = Args { kind, alpha, beta, sa, sb, coord, t: Thread::index() };
    if full {
        block_tile::<M, Acc, Full, _, _, _>(a, b, c, args)
    } else {
        block_tile::<M, Acc, Partial, _, _, _>(a, b, c, args)
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
fn block_tile<M, Acc, P, A, B, Cm>(a: A, b: B, c: Cm, args: Args)
where
    M: StageMajor,
    Acc: Accumulate,
    P: Residue,
    A: Staged,
    B: Staged,
    Cm: Output<Acc>,
{
    let Args { kind, sa, sb, coord, t, .. } = args;
    let t = t.get();
    let a_tiles = M::tiles::<A, P>(a, coord.0);
    let b_tiles = M::tiles::<B, P>(b, coord.1);
    let k_tiles = M::count(&a_tiles).min(M::count(&b_tiles));

    let ((crow, ck), (am, ak), (bn, bk)) = M::coords(t);
    // Macros, not closures: a closure called three times is not inlined (its captures would go
    // through local memory).
    macro_rules! issue {
        ($kt:expr, $stage:expr) => {
            M::issue(&a_tiles, &b_tiles, $kt, (sa, sb), $stage, (crow, ck))
        };
    }

    let (a0, b0) = (M::thread_base(am, ak), M::thread_base(bn, bk));
    // The fragments of one 16 of k: 4 of A down m, 4 of B (2 n-atoms each) across n.
    macro_rules! load {
        ($stages:expr, $kk:expr) => {
            load::<M>($stages, $kk, (a0, b0))
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

/// How the operands lie in memory, and so how the block stages and reads them: [`KMajor`]
/// (`k`-contiguous rows of `A` and `B`, CuTe's `TN`) or [`MnMajor`] (`m`- and `n`-contiguous
/// columns, `NT`). Each has CuTe's shared-memory atom, copy and `ldmatrix` for its major-ness (as
/// CUTLASS's SM80 collective builders pick them). Sealed.
pub trait StageMajor: Copy + sealed::Sealed {
    /// An operand's `k` tiles: `128 x 64` halves as 32-bit words.
    #[doc(hidden)]
    type Tiles<T: DeviceTensor, P: Residue>;
    /// `(rows, k)` in halves of an operand given as a tensor of words of these extents (`rows`
    /// being `m` or `n`).
    fn rows_k(extents: (usize, usize)) -> (usize, usize);
    #[doc(hidden)]
    fn tiles<T: DeviceTensor, P: Residue>(t: T, row: u32) -> Self::Tiles<T, P>;
    #[doc(hidden)]
    fn count<T: DeviceTensor, P: Residue>(tiles: &Self::Tiles<T, P>) -> u32;
    /// The step between a thread's 8 copy vectors, `(rows, k)` in halves.
    #[doc(hidden)]
    const COPY_STEP: (usize, usize);
    /// The word coordinate in an operand's tile of half coordinate `(row, k)`.
    #[doc(hidden)]
    fn to_words(row: usize, k: usize) -> (u32, u32);
    /// Start the asynchronous copy of k tile `kt` of both operands into `stage`: this thread's 8
    /// vectors of each, from `(row, k)` (half coordinates, [`StageMajor::coords`]) of the tile.
    #[doc(hidden)]
    fn issue<P, A, B>(
        a: &Self::Tiles<A, P>,
        b: &Self::Tiles<B, P>,
        kt: u32,
        stages: (Stages, Stages),
        stage: usize,
        at: (usize, usize),
    ) where
        P: Residue,
        A: Staged,
        B: Staged;
    /// A thread's offset in a stage before the swizzle: the inner layout at `(row, k)`.
    #[doc(hidden)]
    fn thread_base(r: usize, k: usize) -> isize;
    /// The 32-bit word of a stage at a thread's coordinate (`base`, from
    /// [`StageMajor::thread_base`]) plus the constant coordinate `(r, k)` of one of its values: CuTe's
    /// partition of the swizzled stage (exact where the offset of the summed coordinates is the
    /// sum of their offsets, as for every thread and value here: the tests check them all).
    #[doc(hidden)]
    fn word(base: isize, r: usize, k: usize) -> usize;
    /// A thread's base coordinates, `(row, half)`: its first 16-byte vector in the copy's tile,
    /// and the row and first `k` of the 16-byte row it points `ldmatrix` at in the 32x16 tiles of
    /// `A` and of `B`.
    #[doc(hidden)]
    fn coords(t: usize) -> ((usize, usize), (usize, usize), (usize, usize));
    /// Whether `ldmatrix` transposes (`.trans`: MN-major operands).
    #[doc(hidden)]
    const TRANS: bool;
}

/// A word from a swizzled stage's offset in halves, masked to the stage: the identity for every
/// word the kernel forms (the tests check them all), and it tells the compiler the word is an
/// aligned 16-byte access inside the stage, so no bounds check follows. (Checking instead once
/// per thread and adding rows as constants after the swizzle takes fewer instructions but more
/// branches, and ran 5-10% slower.)
#[inline(always)]
fn stage_word(halves: isize) -> usize {
    const { assert!(STAGE.is_power_of_two()) };
    (halves as usize / 2) & (STAGE - 1) & !3
}

/// The `ldmatrix` rows of a thread in `A` and `B` for an `ldmatrix` atom.
#[inline(always)]
fn ldsm_coords<Op: CopyAtom>(ldsm: Copy_Atom<Op, F16>, t: usize) -> ((usize, usize), (usize, usize)) {
    let mma = tiled_mma();
    let (copy_a, copy_b) = (make_tiled_copy_A(ldsm, mma), make_tiled_copy_B(ldsm, mma));
    let ia = copy_a.layout_s_tv().crd2idx((t, 0usize)) as usize;
    let ib = copy_b.layout_s_tv().crd2idx((t, 0usize)) as usize;
    ((ia % 32, ia / 32), (ib % 32, ib / 32))
}

/// A `k`-major stage, in halves: CuTe's `tile_to_shape(composition(Swizzle<3,3,3>{},
/// Layout<Shape<_8,Shape<_8,_8>>, Stride<_8,Stride<_1,_64>>>{}), make_shape(bM,bK))`: 16-byte
/// chunk `c` of row `r` in chunk `c ^ (r % 8)`.
macro_rules! k_major_stage {
    () => {
        swizzle::<3, 3, 3, _>(tile_to_shape(
            <layout_type!((8, (8, 8)):(8, (1, 64)))>::default(),
            (C::<{ BM as isize }>, C::<{ BK as isize }>),
        ))
    };
}

/// An MN-major stage, in halves: `tile_to_shape(composition(Swizzle<3,3,3>{},
/// Layout<Shape<_64,_8>, Stride<_1,_64>>{}), make_shape(bM,bK))` (CUTLASS's SM80 atom for
/// MN-major half operands): 16-byte chunk `c` of column `k` in chunk `c ^ (k % 8)`.
macro_rules! mn_major_stage {
    () => {
        swizzle::<3, 3, 3, _>(tile_to_shape(
            <layout_type!((64, 8):(1, 64))>::default(),
            (C::<{ BM as isize }>, C::<{ BK as isize }>),
        ))
    };
}

/// [`StageMajor::issue`], the same for both: the k tiles, then [`copy_tiles`].
macro_rules! issue_fn {
    () => {
        #[inline(always)]
        fn issue<P, A, B>(
            a: &Self::Tiles<A, P>,
            b: &Self::Tiles<B, P>,
            kt: u32,
            stages: (Stages, Stages),
            stage: usize,
            at: (usize, usize),
        ) where
            P: Residue,
            A: Staged,
            B: Staged,
        {
            let (Some(ta), Some(tb)) = (a.tile(kt), b.tile(kt)) else {
                fault("hgemm: a k tile is missing");
            };
            copy_tiles::<Self, _, _, _, _, _>(ta, tb, stages, stage, at);
        }
    };
}

impl sealed::Sealed for KMajor {}
impl sealed::Sealed for MnMajor {}

/// [`StageMajor`] for one major-ness, from what differs between the two: the tile of words, the
/// copy's step and word coordinates, the stage layout, the copy's thread and value layouts and the
/// `ldmatrix` atom.
macro_rules! major {
    ($(#[$doc:meta])* $major:ty {
        tile: ($b0:expr, $b1:expr), trans: $trans:expr, step: $step:expr,
        to_words: |$row:ident, $k:ident| $words:expr, rows_k: |$e0:ident, $e1:ident| $rows_k:expr,
        stage: $stage:ident, copy: ($thr:ty, $val:ty), copy_rows: $copy_rows:expr, ldsm: $ldsm:ty $(,)?
    }) => {
        impl StageMajor for $major {
            type Tiles<T: DeviceTensor, P: Residue> = TileSeq<T, { $b0 }, { $b1 }, P>;
            const TRANS: bool = $trans;
            const COPY_STEP: (usize, usize) = $step;
            #[inline(always)]
            fn to_words($row: usize, $k: usize) -> (u32, u32) {
                $words
            }
            fn rows_k(($e0, $e1): (usize, usize)) -> (usize, usize) {
                $rows_k
            }
            #[inline(always)]
            fn tiles<T: DeviceTensor, P: Residue>(t: T, row: u32) -> Self::Tiles<T, P> {
                t.local_tile_seq::<P, { $b0 }, { $b1 }>((C, C), row)
            }
            #[inline(always)]
            fn count<T: DeviceTensor, P: Residue>(tiles: &Self::Tiles<T, P>) -> u32 {
                tiles.count()
            }
            issue_fn!();
            #[inline(always)]
            fn thread_base(r: usize, k: usize) -> isize {
                $stage!().unswizzled_crd2idx((r, k))
            }
            #[inline(always)]
            fn word(base: isize, r: usize, k: usize) -> usize {
                let s = $stage!();
                stage_word(s.offset_sum(base, s.unswizzled_crd2idx((r, k))))
            }
            $(#[$doc])*
            #[inline(always)]
            fn coords(t: usize) -> ((usize, usize), (usize, usize), (usize, usize)) {
                let copy = make_tiled_copy(Copy_Atom::<CpAsync, F16>::default(), <$thr>::default(), <$val>::default());
                let v0 = copy.layout_s_tv().crd2idx((t, 0usize)) as usize; // row + copy_rows k
                let (a, b) = ldsm_coords(Copy_Atom::<$ldsm, F16>::default(), t);
                ((v0 % $copy_rows, v0 / $copy_rows), a, b)
            }
        }
    };
}

major! {
    /// The copy `make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>,
    /// (16,8):(8,1), (1,8))` (8 threads a row of 64 halves; 8 vectors 16 rows apart), `ldmatrix` by
    /// `SM75_U32x4_LDSM_N`.
    KMajor {
        tile: (128, BK as isize / 2), trans: false, step: (16, 0),
        to_words: |row, k| (row as u32, (k / 2) as u32), rows_k: |rows, kw| (rows, 2 * kw),
        stage: k_major_stage, copy: (layout_type!((16, 8):(8, 1)), layout_type!((1, 8))), copy_rows: 16,
        ldsm: SM75_U32x4_LDSM_N,
    }
}

major! {
    /// The copy `make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>,
    /// (16,8):(1,16), (8,1))` (16 threads a column of 128 halves; 8 vectors 8 columns of `k`
    /// apart), `ldmatrix` by `SM75_U16x8_LDSM_T`.
    MnMajor {
        tile: (64, BK as isize), trans: true, step: (0, 8),
        to_words: |row, k| ((row / 2) as u32, k as u32), rows_k: |rows_w, k| (2 * rows_w, k),
        stage: mn_major_stage, copy: (layout_type!((16, 8):(1, 16)), layout_type!((8, 1))), copy_rows: 128,
        ldsm: SM75_U16x8_LDSM_T,
    }
}

/// [`StageMajor::issue`] on the two operands' k tiles: the thread's 8 vectors from `(crow, ck)`,
/// [`StageMajor::COPY_STEP`] apart, each to its word of the swizzled stage.
#[inline(always)]
fn copy_tiles<M, P, A, B, const B0: isize, const B1: isize>(
    ta: GlobalTile<A, B0, B1, P>,
    tb: GlobalTile<B, B0, B1, P>,
    (sa, sb): (Stages, Stages),
    stage: usize,
    (crow, ck): (usize, usize),
) where
    M: StageMajor,
    P: Residue,
    A: Staged,
    B: Staged,
{
    let (da, db) = (sa.part::<STAGE>(stage * STAGE), sb.part::<STAGE>(stage * STAGE));
    let base = M::thread_base(crow, ck);
    let (dr, dk) = M::COPY_STEP;
    unroll!(r in 0..8 => {
        let crd = M::to_words(crow + dr * r, ck + dk * r);
        let di = M::word(base, dr * r, dk * r);
        ta.copy_async4_as(CpAsync::default(), crd, da, di);
        tb.copy_async4_as(CpAsync::default(), crd, db, di);
    });
}

/// The thread's fragments for the `kk`-th 16 of `k` of a stage: 4 `ldmatrix.x4` of `A` at rows
/// `32 i` from its row, 4 of `B` at rows `32 j` (2 fragments each), each batch checked once;
/// `a0`, `b0` are the thread's [`StageMajor::thread_base`] in the two.
#[inline(always)]
fn load<M: StageMajor>((sa, sb): (Stage, Stage), kk: usize, (a0, b0): (isize, isize)) -> Frags {
    let fa = sa.ldmatrix_x4_batch([0, 1, 2, 3].map(|i| M::word(a0, 32 * i, 16 * kk)), M::TRANS);
    let fb4 = sb.ldmatrix_x4_batch([0, 1, 2, 3].map(|j| M::word(b0, 32 * j, 16 * kk)), M::TRANS);
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

    /// The kernel's partition of a swizzled stage is exact for both major-nesses: for every
    /// thread's base coordinate (its first `cp.async` vector, its `ldmatrix` rows in `A` and `B`)
    /// and every constant offset the kernel adds to it, [`StageMajor::word`] from the thread's base is
    /// the swizzled layout's word at the summed coordinate; and the copy writes every 16-byte
    /// chunk of a stage once.
    fn partition_is_exact<M: StageMajor>(whole: impl Fn(usize, usize) -> usize, copy_step: (usize, usize)) {
        let mut seen = [0u8; STAGE / 4];
        for t in 0..THREADS {
            let ((crow, ck), (am, ak), (bn, bk)) = M::coords(t);
            for r in 0..8 {
                let (dr, dk) = (copy_step.0 * r, copy_step.1 * r);
                let w = M::word(M::thread_base(crow, ck), dr, dk);
                assert_eq!(w, whole(crow + dr, ck + dk), "copy t={t} r={r}");
                seen[w / 4] += 1;
            }
            for i in 0..4 {
                for kk in 0..4 {
                    let (ra, ka) = (am + 32 * i, ak + 16 * kk);
                    let (rb, kb) = (bn + 32 * i, bk + 16 * kk);
                    assert_eq!(
                        M::word(M::thread_base(am, ak), 32 * i, 16 * kk),
                        whole(ra, ka),
                        "A t={t} i={i} kk={kk}"
                    );
                    assert_eq!(
                        M::word(M::thread_base(bn, bk), 32 * i, 16 * kk),
                        whole(rb, kb),
                        "B t={t} j={i} kk={kk}"
                    );
                }
            }
        }
        assert!(seen.iter().all(|&x| x == 1));
    }

    /// Bank conflicts on NVIDIA's model (32 banks of 4 bytes; a 16-byte access per thread is
    /// served 8 threads at a time): every `ldmatrix` phase (8 lanes, one 8x8 matrix: 8 rows of 16
    /// bytes) and every quarter-warp of `cp.async` vectors touches 8 distinct 16-byte bank groups,
    /// so no access of the main loop needs a second wavefront.
    fn conflict_free<M: StageMajor>(copy_step: (usize, usize)) {
        let group = |w: usize| (w * 4 / 16) % 8; // a word's 16-byte bank group
        let distinct = |words: &[usize]| {
            let mut seen = [false; 8];
            words.iter().all(|&w| !core::mem::replace(&mut seen[group(w)], true))
        };
        for warp in 0..THREADS / 32 {
            let lanes =
                |f: &dyn Fn(usize) -> usize| -> [usize; 32] { core::array::from_fn(|l| f(32 * warp + l)) };
            for r in 0..8 {
                let w = lanes(&|t| {
                    let ((crow, ck), _, _) = M::coords(t);
                    M::word(M::thread_base(crow, ck), copy_step.0 * r, copy_step.1 * r)
                });
                assert!(w.chunks(8).all(distinct), "copy: warp {warp}, vector {r}: {w:?}");
            }
            for i in 0..4 {
                for kk in 0..4 {
                    for (name, pick) in [("A", 0), ("B", 1)] {
                        let w = lanes(&|t| {
                            let (_, a, b) = M::coords(t);
                            let (r, k) = if pick == 0 { a } else { b };
                            M::word(M::thread_base(r, k), 32 * i, 16 * kk)
                        });
                        assert!(
                            w.chunks(8).all(distinct),
                            "ldmatrix {name}: warp {warp}, i {i}, kk {kk}: {w:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn k_major_accesses_are_conflict_free() {
        conflict_free::<KMajor>((16, 0));
    }

    #[test]
    fn mn_major_accesses_are_conflict_free() {
        conflict_free::<MnMajor>((0, 8));
    }

    #[test]
    fn k_major_partition_is_exact() {
        let s = k_major_stage!();
        partition_is_exact::<KMajor>(|r, k| s.crd2idx((r, k)) as usize / 2, (16, 0));
    }

    #[test]
    fn mn_major_partition_is_exact() {
        let s = mn_major_stage!();
        partition_is_exact::<MnMajor>(|r, k| s.crd2idx((r, k)) as usize / 2, (0, 8));
    }
}
