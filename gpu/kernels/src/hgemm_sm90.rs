//! A Hopper tensor-core GEMM, TN, with CuTe's `hopper/wgmma_tma_sm90.cu` structure: `C = alpha A
//! B^T + beta C` for `A` (m x k) and `B` (n x k) halves, k-contiguous rows.
//!
//! - **Tiles.** A block of two warpgroups (256 threads) computes a 128 x 256 tile of `C` over k
//!   tiles of 64, each warpgroup 64 rows of it (CUTLASS's "cooperative" split; CuTe's tutorial has
//!   one warpgroup on 128 x 128).
//! - **Shared memory.** [`STAGES`] stages of `A` and of `B`, CuTe's `tile_to_shape(
//!   GMMA::Layout_K_SW128_Atom<half_t>, (128, 64))` and `(256, 64)`
//!   ([`k_sw128_stage!`](const_layout_device::k_sw128_stage)), 1024-byte aligned: 192 KiB.
//! - **Global to shared: TMA.** One `cp.async.bulk.tensor.2d` a stage and operand, by tensor maps
//!   the host encoded with the boxes and swizzle mode the stages' layouts give ([`a_box`],
//!   [`b_box`], `make_tma_box`: 64 x 128 and 64 x 256 halves, 128-byte swizzle). TMA fills zeros
//!   outside the tensors, so residues in m, n and k need no predicate on the loads.
//! - **Pipeline: mbarriers, a producer warp.** A `full` mbarrier a stage (one arrival with the
//!   stage's bytes expected: the producer's) and an `empty` one (256 arrivals: the consumers', after
//!   their `wgmma`s read the stage). A producer warpgroup (CUTLASS's warp specialization, with its
//!   `setmaxnreg` register split; CuTe's tutorial has thread 0 of its one warpgroup) refills a stage
//!   once it is empty, [`STAGES`] k tiles ahead.
//!   Unlike CuTe's tutorial, which waits for each k tile's `wgmma`s before the next, one batch stays
//!   in flight (`wgmma.wait_group 1`): a stage is released when the next k tile's batch is issued.
//! - **Shared to tensor cores: `wgmma`.** Four `wgmma.m64n256k16` a k tile and warpgroup (one
//!   atom, four k blocks), both operands by descriptor ([`wgmma`]), accumulators in registers: `f32`
//!   ([`F32Accum`]) or `f16` (CuTe's types, [`F16Accum`]). An `N` of 256 reads 80 bytes of shared
//!   memory a cycle at the tensor cores' rate, against 96 for 128 and 128 (the limit) for CuTe's 64.
//! - **Epilogue.** Each value from the atom's `C` layout (`CLayout_64xN<256>`) to `C` through the
//!   block's tile of it, predicated where the tile is cut.

use crate::hgemm::{Accumulate, F16Accum, F32Accum, Output};
use const_layout::C;
use const_layout::atom::gmma::CLayout_64xN;
use const_layout::atom::tma::TmaBox;
use const_layout_device::tma::{Mbarrier, TmaTensor2d};
use const_layout_device::wgmma::{self, STAGE_256_WORDS, STAGE_WORDS};
use const_layout_device::{
    DeviceTensor, Dim3, Full, HalfKind, MemoryMut, Partial, Residue, SmemArray, SmemRegion, block_dim,
    block_idx, fault, k_sw128_stage, pack_half2, thread_idx, unpack_half2, unroll,
};

/// Threads per block: two consumer warpgroups, each computing 64 rows of the tile, then a
/// producer warpgroup whose first thread issues the TMA loads (a whole warpgroup, so that it can
/// give its registers to the consumers: 40 a thread for it, 232 for them).
pub const THREADS: u32 = CONSUMERS + 128;
/// The consumer threads: two warpgroups.
const CONSUMERS: u32 = 256;
/// The block's tile of `C`.
pub const BM: usize = 128;
/// See [`BM`].
pub const BN: usize = 256;
/// The `k` tile, in halves.
pub const BK: usize = 64;
/// Shared-memory stages of each operand (CuTe's `bP`): 192 KiB, one block a multiprocessor.
pub const STAGES: usize = 4;
// The main loop unrolls over the stages (`unroll!(s in 0..4)`) so that each stage's mbarriers and
// addresses are constants.
const _: () = assert!(STAGES == 4);
/// Bytes of one stage of `A` (128 rows).
const STAGE_A_BYTES: u32 = 4 * STAGE_WORDS as u32;
/// Bytes of one stage of `B` (256 rows).
const STAGE_B_BYTES: u32 = 4 * STAGE_256_WORDS as u32;
/// Shared memory per block: the stages of `A` and of `B`, room to align them to 1024 bytes, and
/// the mbarriers.
pub const SMEM_BYTES: u32 = STAGES as u32 * (STAGE_A_BYTES + STAGE_B_BYTES) + 1024 + 16 * STAGES as u32;

/// Tile rows (along m) of a group of blocks: the blocks run in groups of `RASTER` tile rows, every
/// tile column of a group before the next group (Triton's grouped order), so the blocks running at
/// once (132 on an H100) read about 16 tiles of `A` and 8 of `B` instead of all of `A`'s, and the
/// L2 cache holds them.
pub const RASTER: u32 = 16;

/// The grid for an `m x n` result, one block a 128 x 256 tile: `x` the tile row within its group
/// of [`RASTER`], `y` the tile column, `z` the group (the hardware launches `x` fastest).
///
/// ```
/// use const_layout_device::Dim3;
/// assert_eq!(const_layout_kernels::hgemm_sm90::grid(300, 128), Dim3 { x: 3, y: 1, z: 1 });
/// assert_eq!(const_layout_kernels::hgemm_sm90::grid(5120, 512), Dim3 { x: 16, y: 2, z: 3 });
/// ```
pub fn grid(m: u32, n: u32) -> Dim3 {
    let rows = m.div_ceil(BM as u32);
    Dim3 { x: rows.min(RASTER), y: n.div_ceil(BN as u32), z: rows.div_ceil(RASTER) }
}

/// The block: [`THREADS`] threads.
pub fn block() -> Dim3 {
    Dim3::x(THREADS)
}

/// The TMA box of a stage of `A`, from its layout (`make_tma_box`, at compile time): 64 halves a
/// row, 128 rows, the 128-byte swizzle. The host encodes `A`'s tensor map with it.
///
/// ```
/// use const_layout::atom::tma::TmaSwizzle;
/// let b = const_layout_kernels::hgemm_sm90::a_box();
/// assert_eq!((b.inner, b.outer, b.swizzle, b.bytes()), (64, 128, TmaSwizzle::B128, 16384));
/// ```
#[inline(always)]
pub fn a_box() -> TmaBox {
    k_sw128_stage!(128).tma_box::<16>()
}

/// The TMA box of a stage of `B` (256 rows), as [`a_box`].
///
/// ```
/// let b = const_layout_kernels::hgemm_sm90::b_box();
/// assert_eq!((b.inner, b.outer, b.bytes()), (64, 256, 32768));
/// ```
#[inline(always)]
pub fn b_box() -> TmaBox {
    k_sw128_stage!(256).tma_box::<16>()
}

/// What a warpgroup accumulates in: [`F32Accum`] or [`F16Accum`] (their `C` conventions as in
/// [`crate::hgemm`]). Sealed (through [`Accumulate`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an accumulator choice of the Hopper GEMM",
    note = "use `F32Accum(kind)` (f32 accumulators and C) or `F16Accum` (f16 accumulators and C)"
)]
pub trait WarpgroupAccumulate: Accumulate {
    /// The warpgroup's accumulators of a thread.
    #[doc(hidden)]
    type Regs: Copy;
    #[doc(hidden)]
    fn zero() -> Self::Regs;
    /// A k tile's batch for the warpgroup's rows `64 half..`, pipelined: every earlier batch is
    /// done on return.
    #[doc(hidden)]
    fn warpgroup_mma(
        &self,
        a: SmemArray<u32, STAGE_WORDS>,
        half: usize,
        b: SmemArray<u32, STAGE_256_WORDS>,
        d: &mut Self::Regs,
    );
    /// Every batch done: the accumulators are the thread's.
    #[doc(hidden)]
    fn wait_all(d: &mut Self::Regs);
    #[doc(hidden)]
    fn store_c<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = Self::Out>>>(
        c: Cm,
        d: &Self::Regs,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    );
}

/// Where value `v` of thread `t` lies in the block's tile: `(m, n)`, its warpgroup's 64 rows.
#[inline(always)]
fn at(t: usize, v: usize) -> (u32, u32) {
    let c = CLayout_64xN::<256>::default().crd2idx((t % 128, v)) as usize;
    ((c % 64 + 64 * (t / 128)) as u32, (c / 64) as u32)
}

impl WarpgroupAccumulate for F32Accum {
    type Regs = [[f32; 128]; 1];
    fn zero() -> Self::Regs {
        [[0.0; 128]; 1]
    }
    #[inline(always)]
    fn warpgroup_mma(
        &self,
        a: SmemArray<u32, STAGE_WORDS>,
        half: usize,
        b: SmemArray<u32, STAGE_256_WORDS>,
        d: &mut Self::Regs,
    ) {
        wgmma::mma_64x256x64_f32_pipelined(self.0, a, half, b, d);
    }
    #[inline(always)]
    fn wait_all(d: &mut Self::Regs) {
        wgmma::wait_all_f32(d);
    }
    /// `C = alpha D + beta C`, `C` column-major `f32`.
    #[inline(always)]
    fn store_c<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
        c: Cm,
        d: &Self::Regs,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    ) {
        let Some(tile) = c.local_tile_as::<P, 128, 256>((C, C), coord) else {
            fault("hgemm_sm90: a tile the block expected whole is cut");
        };
        unroll!(h in 0..2 => {
            unroll!(w in 0..64 => {
                let v = 64 * h + w;
                let crd = at(t, v);
                let old = if beta == 0.0 { 0.0 } else { tile.load(crd).unwrap_or(0.0) };
                tile.store(crd, alpha * d[0][v] + beta * old);
            });
        });
    }
}

impl WarpgroupAccumulate for F16Accum {
    type Regs = [[u32; 64]; 1];
    fn zero() -> Self::Regs {
        [[0; 64]; 1]
    }
    #[inline(always)]
    fn warpgroup_mma(
        &self,
        a: SmemArray<u32, STAGE_WORDS>,
        half: usize,
        b: SmemArray<u32, STAGE_256_WORDS>,
        d: &mut Self::Regs,
    ) {
        wgmma::mma_64x256x64_f16_pipelined(a, half, b, d);
    }
    #[inline(always)]
    fn wait_all(d: &mut Self::Regs) {
        wgmma::wait_all_f16(d);
    }
    /// `C = alpha D + beta C` in `f32`, rounded to `f16`; `C` row-major words of two halves, a
    /// register (two neighbours along `n`) a word.
    #[inline(always)]
    fn store_c<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = u32>>>(
        c: Cm,
        d: &Self::Regs,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    ) {
        let Some(tile) = c.local_tile_as::<P, 128, 128>((C, C), coord) else {
            fault("hgemm_sm90: a tile the block expected whole is cut");
        };
        unroll!(j in 0..64 => {
            let (m, n) = at(t, 2 * j);
            let crd = (m, n / 2);
            let x = unpack_half2(HalfKind::F16, d[0][j]);
            let old = if beta == 0.0 { [0.0; 2] } else { unpack_half2(HalfKind::F16, tile.load(crd).unwrap_or(0)) };
            tile.store(crd, pack_half2(HalfKind::F16, alpha * x[0] + beta * old[0], alpha * x[1] + beta * old[1]));
        });
    }
}

/// Stage `s` of `A` in the aligned region at `base`.
#[inline(always)]
fn stage_a(smem: SmemRegion, base: u32, s: usize) -> SmemArray<u32, STAGE_WORDS> {
    let Some(x) = smem.array::<u32, STAGE_WORDS>(base + s as u32 * STAGE_A_BYTES) else {
        fault("hgemm_sm90: the block has less shared memory than SMEM_BYTES");
    };
    x
}

/// Stage `s` of `B`, after those of `A`.
#[inline(always)]
fn stage_b(smem: SmemRegion, base: u32, s: usize) -> SmemArray<u32, STAGE_256_WORDS> {
    let at = base + STAGES as u32 * STAGE_A_BYTES + s as u32 * STAGE_B_BYTES;
    let Some(x) = smem.array::<u32, STAGE_256_WORDS>(at) else {
        fault("hgemm_sm90: the block has less shared memory than SMEM_BYTES");
    };
    x
}

/// The block's work: `C = alpha A B^T + beta C` on its 128 x 128 tile of `C` (see the module).
/// `a` and `b` are TMA tensors of `m x k` and `n x k` halves whose boxes are [`a_box`] and
/// [`b_box`]; `c`
/// is `acc`'s `C`; the launch is [`grid`] x [`block`] with [`SMEM_BYTES`] of shared memory.
///
/// ```
/// use const_layout::make_layout;
/// use const_layout::C;
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::tma::TmaTensor2d;
/// use const_layout_device::{Gmem, GmemMut, GlobalTensor, SmemRegion};
/// use const_layout_kernels::hgemm::F32Accum;
/// use const_layout_kernels::hgemm_sm90::{block, grid, hgemm_sm90_tn, a_box, b_box, SMEM_BYTES};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// let (m, n, k) = (130u32, 8u32, 72u32);
/// let one = 0x3c00_3c00u32; // two halves of 1.0
/// let a: Vec<AtomicU32> = (0..m * k / 2).map(|_| one.into()).collect();
/// let b: Vec<AtomicU32> = (0..n * k / 2).map(|_| one.into()).collect();
/// let c: Vec<AtomicU32> = (0..m * n).map(|_| 0.into()).collect();
/// let cfg = LaunchConfig { grid: grid(m, n), block: block(), dynamic_smem_bytes: SMEM_BYTES };
/// launch(&cfg, || {
///     let ta = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&a), m, k, k, a_box()).unwrap();
///     let tb = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&b), n, k, k, b_box()).unwrap();
///     let tc = GlobalTensor::new(GmemMut::<f32>::from_cells(&c), make_layout((m, n), (C::<1>, m)).unwrap()).unwrap();
///     hgemm_sm90_tn(F32Accum(const_layout_device::HalfKind::F16), ta, tb, tc, 1.0, 0.0, SmemRegion::dynamic());
/// })
/// .unwrap();
/// assert!(c.iter().all(|x| f32::from_bits(x.load(Ordering::Relaxed)) == 72.0));
/// ```
#[inline(always)]
pub fn hgemm_sm90_tn<Acc, Cm>(
    acc: Acc,
    a: TmaTensor2d<'_>,
    b: TmaTensor2d<'_>,
    c: Cm,
    alpha: f32,
    beta: f32,
    smem: SmemRegion,
) where
    Acc: WarpgroupAccumulate,
    Cm: Output<Acc>,
{
    let (m, n, k) = (a.rows() as usize, b.rows() as usize, a.cols() as usize);
    if b.cols() as usize != k {
        fault("hgemm_sm90: A and B have different k");
    }
    if a.box_dims() != a_box() || b.box_dims() != b_box() {
        fault("hgemm_sm90: a tensor map's box is not the stage's");
    }
    if Acc::c_extents(m, n) != Some(c.extents()) {
        fault("hgemm_sm90: C's extents are not m x n");
    }
    let dim = block_dim();
    if dim.x != THREADS || dim.y != 1 || dim.z != 1 {
        fault("hgemm_sm90: blocks of THREADS threads");
    }
    let blk = block_idx();
    let coord = (blk.z * RASTER + blk.x, blk.y);
    let (row_a, row_b) = (coord.0 * BM as u32, coord.1 * BN as u32);
    if row_a as usize >= m || row_b as usize >= n {
        return;
    }
    let Some(first) = smem.array::<u32, 4>(0) else {
        fault("hgemm_sm90: no shared memory");
    };
    let base = (1024 - first.address(0) % 1024) % 1024;
    let Some(words) =
        smem.array::<u32, { 4 * STAGES }>(base + STAGES as u32 * (STAGE_A_BYTES + STAGE_B_BYTES))
    else {
        fault("hgemm_sm90: the block has less shared memory than SMEM_BYTES");
    };
    // full[s]: the stage's bytes landed (one arrival, the producer's, with the bytes); empty[s]:
    // the consumers' wgmmas read it (256 arrivals).
    let n_c = CONSUMERS;
    let bars: [Mbarrier; 2 * STAGES] = Mbarrier::init_block(words, [1, 1, 1, 1, n_c, n_c, n_c, n_c]);
    let (full, empty) = (&bars[..STAGES], &bars[STAGES..]);
    let t = thread_idx().x as usize;
    let k_tiles = k.div_ceil(BK);
    let bytes = a_box().bytes() + b_box().bytes();
    let fill = |s: usize, kt: usize| {
        full[s].arrive_expect_tx(bytes);
        a.load(stage_a(smem, base, s), row_a, (kt * BK) as u32, full[s]);
        b.load(stage_b(smem, base, s), row_b, (kt * BK) as u32, full[s]);
    };
    if t >= CONSUMERS as usize {
        wgmma::set_max_registers::<40, false>();
        // The producer: each k tile into its stage once the consumers released the tile before.
        if t == CONSUMERS as usize {
            let mut k0 = 0;
            while k0 < k_tiles {
                unroll!(s in 0..4 => {
                    let kt = k0 + s;
                    if kt < k_tiles {
                        if kt >= STAGES {
                            empty[s].wait(((kt - STAGES) / STAGES) as u32 & 1);
                        }
                        fill(s, kt);
                    }
                });
                k0 += STAGES;
            }
        }
        return;
    }
    wgmma::set_max_registers::<232, true>();
    let mut d = Acc::zero();
    let mut k0 = 0;
    while k0 < k_tiles {
        unroll!(s in 0..4 => {
            let kt = k0 + s;
            if kt < k_tiles {
                full[s].wait((kt / STAGES) as u32 & 1);
                // Returns once the batch of k tile kt - 1 is done: its stage is free.
                acc.warpgroup_mma(stage_a(smem, base, s), t / 128, stage_b(smem, base, s), &mut d);
                if kt > 0 {
                    empty[(s + STAGES - 1) % STAGES].arrive();
                }
            }
        });
        k0 += STAGES;
    }
    Acc::wait_all(&mut d);
    if crate::whole_block(m, n, coord, (BM, BN)) {
        Acc::store_c::<Full, _>(c, &d, coord, t, alpha, beta)
    } else {
        Acc::store_c::<Partial, _>(c, &d, coord, t, alpha, beta)
    }
}
