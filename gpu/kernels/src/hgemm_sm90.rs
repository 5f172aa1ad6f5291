//! A Hopper tensor-core GEMM, TN, with CuTe's `hopper/wgmma_tma_sm90.cu` structure: `C = alpha A
//! B^T + beta C` for `A` (m x k) and `B` (n x k) halves, k-contiguous rows.
//!
//! The kernel is generic over its configuration, a type ([`Sm90Config`], written by
//! [`sm90_config!`](crate::sm90_config), which checks it where it is defined): the tile `BM x BN`,
//! the stages, the consumer warpgroups, the raster and whether blocks are persistent.
//! [`hgemm_sm90_tn_with`] runs any of them; the names without a configuration ([`hgemm_sm90_tn`],
//! [`grid`], [`SMEM_BYTES`], ...) are the default, [`C128x256S4`], described below.
//!
//! - **Tiles.** A block of two consumer warpgroups computes a 128 x 256 tile of `C` over k tiles
//!   of 64, each warpgroup 64 rows of it (CUTLASS's "cooperative" split; CuTe's tutorial has one
//!   warpgroup on 128 x 128). A configuration's warpgroup owns `BM / consumers` rows (64 or 128:
//!   one or two `wgmma.m64nBNk16` a k block) of a `BM x BN` tile, `BN` 64, 128 or 256.
//! - **Shared memory.** [`STAGES`] stages of `A` and of `B`, CuTe's `tile_to_shape(
//!   GMMA::Layout_K_SW128_Atom<half_t>, (128, 64))` and `(256, 64)`
//!   ([`k_sw128_stage!`](const_layout_device::k_sw128_stage)), 1024-byte aligned: 192 KiB.
//! - **Global to shared: TMA.** One `cp.async.bulk.tensor.2d` a stage and operand, by tensor maps
//!   the host encoded with the boxes and swizzle mode the stages' layouts give ([`a_box`],
//!   [`b_box`], `make_tma_box`: 64 x 128 and 64 x 256 halves, 128-byte swizzle). TMA fills zeros
//!   outside the tensors, so residues in m, n and k need no predicate on the loads.
//! - **Pipeline: mbarriers, a producer warp.** A `full` mbarrier a stage (one arrival with the
//!   stage's bytes expected: the producer's) and an `empty` one (an arrival a consumer thread,
//!   after their `wgmma`s read the stage). A producer warpgroup (CUTLASS's warp specialization,
//!   with its `setmaxnreg` register split; CuTe's tutorial has thread 0 of its one warpgroup)
//!   refills a stage once it is empty, [`STAGES`] k tiles ahead. Unlike CuTe's tutorial, which
//!   waits for each k tile's `wgmma`s before the next, one batch stays in flight
//!   (`wgmma.wait_group 1`): a stage is released when the next k tile's batch is issued.
//! - **Persistent blocks** (configurations with `persistent: true`): a grid of at most one block
//!   a multiprocessor ([`grid_for`]), each walking the tiles `blockIdx.x, blockIdx.x + gridDim.x,
//!   ...` of the grouped order below; the producer and the consumers walk the same sequence and
//!   the stages' mbarrier phases run on across tiles (a running k-tile count), so the producer
//!   loads the next tile's first stages while the consumers finish a tile.
//! - **Shared to tensor cores: `wgmma`.** Four `wgmma.m64n256k16` a k tile and warpgroup (one
//!   atom, four k blocks), both operands by descriptor ([`wgmma`]), accumulators in registers:
//!   `f32` ([`F32Accum`], every configuration) or `f16` (CuTe's types, [`F16Accum`], the default
//!   configuration only). An `N` of 256 reads 80 bytes of shared memory a cycle at the tensor
//!   cores' rate, against 96 for 128 and 128 (the limit) for CuTe's 64.
//! - **Epilogue.** Each value from the atom's `C` layout (`CLayout_64xN<BN>`) to `C` through the
//!   warpgroup's tile of it, predicated where the tile is cut.

use crate::hgemm::{Accumulate, F16Accum, F32Accum, Output};
use const_layout::C;
use const_layout::algebra::computed::{swizzle, tile_to_shape};
use const_layout::atom::gmma::CLayout_64xN;
use const_layout_device::tma::{Mbarrier, TmaTensor2d};
use const_layout_device::wgmma::{self, STAGE_256_WORDS, STAGE_WORDS, SmemDesc};
use const_layout_device::{
    DeviceTensor, Dim3, Full, HalfKind, MemoryMut, Partial, Residue, SmemArray, SmemRegion, block_dim,
    block_idx, fault, grid_dim, pack_half2, thread_idx, unpack_half2, unroll,
};

/// The most stages a configuration may have: the main loop unrolls over this many, so that each
/// stage's mbarriers and addresses are constants.
pub const MAX_STAGES: usize = 8;

/// Shared memory an SM90 block can have: 227 KiB (`cudaDevAttrMaxSharedMemoryPerBlockOptin`).
pub const MAX_SMEM_BYTES: u32 = 232448;

/// A configuration of the Hopper GEMM: its tile, stages, consumer warpgroups, raster and
/// scheduling. Written by [`sm90_config!`](crate::sm90_config), which checks it where it is
/// defined ([`check_config`]); [`hgemm_sm90_tn_with`] checks it again where it is used.
///
/// ```
/// use const_layout_kernels::hgemm_sm90::{C128x128S6P, Sm90Config};
/// assert_eq!((C128x128S6P::BM, C128x128S6P::BN, C128x128S6P::STAGES), (128, 128, 6));
/// assert_eq!((C128x128S6P::THREADS, C128x128S6P::SMEM_BYTES), (384, 197728));
/// assert!(C128x128S6P::PERSISTENT);
/// ```
pub trait Sm90Config: Copy + Default + core::fmt::Debug + 'static {
    /// The configuration's name, for messages.
    const NAME: &'static str;
    /// The block's tile of `C`: `BM` rows (along m) ...
    const BM: usize;
    /// ... by `BN` columns (along n): the `N` of the `wgmma`s, 64, 128 or 256.
    const BN: usize;
    /// The k tile, in halves: one 128-byte swizzled row of a stage.
    const BK: usize = 64;
    /// Shared-memory stages of each operand (CuTe's `bP`): 2 to [`MAX_STAGES`].
    const STAGES: usize;
    /// Consumer warpgroups, 1 or 2, each `BM / CONSUMERS` rows of the tile (64 or 128).
    const CONSUMERS: usize;
    /// Tile rows (along m) of a group of tiles: the tiles go in groups of `RASTER` tile rows,
    /// every tile column of a group before the next group (Triton's grouped order).
    const RASTER: u32;
    /// Whether a block loops over tiles (a grid of at most one block a multiprocessor) rather
    /// than computing one.
    const PERSISTENT: bool;
    /// Threads a block: the consumer warpgroups, then the producer warpgroup.
    const THREADS: u32 = 128 * (Self::CONSUMERS as u32 + 1);
    /// Rows of `C` a consumer warpgroup owns.
    const WARPGROUP_ROWS: usize = Self::BM / Self::CONSUMERS;
    /// Bytes of one stage of `A`: `BM` rows of 64 halves.
    const STAGE_A_BYTES: u32 = 128 * Self::BM as u32;
    /// Bytes of one stage of `B`: `BN` rows of 64 halves.
    const STAGE_B_BYTES: u32 = 128 * Self::BN as u32;
    /// Dynamic shared memory a block: the stages of `A` and of `B`, room to align them to 1024
    /// bytes, and two mbarriers a stage.
    const SMEM_BYTES: u32 =
        Self::STAGES as u32 * (Self::STAGE_A_BYTES + Self::STAGE_B_BYTES) + 1024 + 16 * Self::STAGES as u32;
    /// The array lengths the kernel needs as constants (stable Rust has no generic constant
    /// expressions): the macro writes them, and [`hgemm_sm90_tn_with`] checks them against the
    /// constants above.
    #[doc(hidden)]
    type Tiles: Tiles;
    /// The TMA box of a stage of `A`, from its layout (`make_tma_box`, at compile time): 64
    /// halves a row, `BM` rows, the 128-byte swizzle. The host encodes `A`'s tensor map with it.
    fn a_box() -> TmaBox;
    /// The TMA box of a stage of `B` (`BN` rows), as [`a_box`](Sm90Config::a_box).
    fn b_box() -> TmaBox;
}

/// Defines a configuration of the Hopper GEMM: a unit struct implementing [`Sm90Config`], checked
/// at compile time where it is defined ([`check_config`](crate::hgemm_sm90::check_config): shared
/// memory, the `wgmma` shapes, the TMA boxes, the accumulator registers).
///
/// ```
/// const_layout_kernels::sm90_config! {
///     /// 128 x 64 tiles, two consumers of 64 x 64.
///     pub Narrow { bm: 128, bn: 64, stages: 8, consumers: 2, raster: 8, persistent: true }
/// }
/// use const_layout_kernels::hgemm_sm90::Sm90Config;
/// assert_eq!(Narrow::SMEM_BYTES, 8 * 192 * 128 + 1024 + 128);
/// ```
///
/// A configuration that does not fit is a compile error naming it and what is wrong:
///
/// ```compile_fail
/// const_layout_kernels::sm90_config! {
///     /// Too large: shared memory 328784 bytes over the 232448 an SM90 block can have, and
///     /// 256 accumulators a thread.
///     pub C256x256S5 { bm: 256, bn: 256, stages: 5, consumers: 2, raster: 16, persistent: false }
/// }
/// ```
#[macro_export]
macro_rules! sm90_config {
    // The default shape (128 x 256, two consumers): the device layer's one-block batch.
    ($(#[$attr:meta])* $vis:vis $name:ident {
        bm: 128, bn: 256, stages: $stages:literal, consumers: 2,
        raster: $raster:literal, persistent: $persistent:literal $(,)?
    }) => {
        $crate::sm90_config!(@define [$(#[$attr])*] $vis $name, 128, 256, $stages, 2, $raster, $persistent,
            $crate::hgemm_sm90::Tiles128x256<{ 2 * $stages }, { 4 * $stages }>);
    };
    ($(#[$attr:meta])* $vis:vis $name:ident {
        bm: $bm:literal, bn: $bn:literal, stages: $stages:literal, consumers: $consumers:literal,
        raster: $raster:literal, persistent: $persistent:literal $(,)?
    }) => {
        // The divisions are guarded so that a refused configuration reports `check_config`'s
        // message rather than a division by zero.
        $crate::sm90_config!(@define [$(#[$attr])*] $vis $name, $bm, $bn, $stages, $consumers, $raster, $persistent,
            $crate::hgemm_sm90::TileShape<
                { ($bm / $crate::hgemm_sm90::nonzero($consumers)) as isize },
                $bn,
                { 32 * $bm },
                { 32 * $bn },
                { $bn / 2 },
                { $bm / $crate::hgemm_sm90::nonzero($consumers) / 64 },
                { 2 * $stages },
                { 4 * $stages },
            >);
    };
    (@define [$(#[$attr:meta])*] $vis:vis $name:ident, $bm:literal, $bn:literal, $stages:literal,
        $consumers:literal, $raster:literal, $persistent:literal, $tiles:ty) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $name;

        const _: () = $crate::hgemm_sm90::check_config(
            ::core::stringify!($name), $bm, $bn, $stages, $consumers, $raster,
        );

        impl $crate::hgemm_sm90::Sm90Config for $name {
            const NAME: &'static str = ::core::stringify!($name);
            const BM: usize = $bm;
            const BN: usize = $bn;
            const STAGES: usize = $stages;
            const CONSUMERS: usize = $consumers;
            const RASTER: u32 = $raster;
            const PERSISTENT: bool = $persistent;
            type Tiles = $tiles;
            #[inline(always)]
            fn a_box() -> $crate::hgemm_sm90::TmaBox {
                $crate::hgemm_sm90::stage_box::<$bm>()
            }
            #[inline(always)]
            fn b_box() -> $crate::hgemm_sm90::TmaBox {
                $crate::hgemm_sm90::stage_box::<$bn>()
            }
        }
    };
}

/// The TMA box type, for [`sm90_config!`](crate::sm90_config)'s expansion.
#[doc(hidden)]
pub use const_layout::atom::tma::TmaBox;

/// `x`, or 1 for 0 (the macro's guard against a division by zero before [`check_config`]).
#[doc(hidden)]
pub const fn nonzero(x: usize) -> usize {
    if x == 0 { 1 } else { x }
}

/// The TMA box of a K-major stage of `ROWS` rows of 64 halves, 128-byte swizzled
/// ([`k_sw128_stage!`](const_layout_device::k_sw128_stage)`(ROWS)`), from its layout at compile
/// time.
///
/// ```
/// let b = const_layout_kernels::hgemm_sm90::stage_box::<64>();
/// assert_eq!((b.inner, b.outer, b.bytes()), (64, 64, 8192));
/// ```
#[inline(always)]
pub fn stage_box<const ROWS: isize>() -> TmaBox {
    swizzle::<3, 3, 3, _>(tile_to_shape(
        <const_layout::layout_type!((8, 64):(64, 1))>::default(),
        (C::<ROWS>, C::<64>),
    ))
    .tma_box::<16>()
}

/// A compile-time message: the configuration's name and what is wrong with it.
struct Message {
    buf: [u8; 512],
    len: usize,
    problems: usize,
}

impl Message {
    const fn new(name: &str) -> Message {
        let mut m = Message { buf: [0; 512], len: 0, problems: 0 };
        m.push(name);
        m.push(":");
        m
    }

    const fn push(&mut self, s: &str) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < self.buf.len() {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
    }

    const fn number(&mut self, x: usize) {
        let mut digits = [0u8; 20];
        let (mut n, mut k) = (x, 0);
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            n /= 10;
            k += 1;
            if n == 0 {
                break;
            }
        }
        while k > 0 && self.len < self.buf.len() {
            k -= 1;
            self.buf[self.len] = digits[k];
            self.len += 1;
        }
    }

    /// Starts the next problem.
    const fn problem(&mut self) {
        self.push(if self.problems == 0 { " " } else { "; " });
        self.problems += 1;
    }
}

/// The checks [`sm90_config!`](crate::sm90_config) runs where a configuration is defined, and
/// [`hgemm_sm90_tn_with`] where it is used: a compile error naming the configuration and every
/// problem, e.g. `C256x256S5: shared memory 328784 bytes over the 232448 an SM90 block can have;
/// 256 f32 accumulators a consumer thread, over 128 (the rest of its 232 registers hold
/// addresses and the epilogue)`.
///
/// - shared memory (the stages of `A` and `B`, 1024 bytes of alignment, two mbarriers a stage)
///   at most [`MAX_SMEM_BYTES`];
/// - 1 or 2 consumer warpgroups, each `BM / consumers` rows, 64 or 128 (one or two `m64`
///   `wgmma`s a k block);
/// - `BN` an `N` of the kernel's `wgmma`s: 64, 128 or 256;
/// - TMA boxes of at most 256 rows (`make_tma_box` on `k_sw128_stage!(rows)`);
/// - at most 128 `f32` accumulators a consumer thread (`BN / 2` an `m64` `wgmma`): the
///   consumers' `setmaxnreg` budget is 232 registers (the producer's 40, CUTLASS's split; one
///   consumer warpgroup runs without a split, at up to 255);
/// - 2 to [`MAX_STAGES`] stages, and a `RASTER` of at least 1.
///
/// ```
/// const_layout_kernels::hgemm_sm90::check_config("C128x256S4", 128, 256, 4, 2, 16);
/// ```
pub const fn check_config(name: &str, bm: usize, bn: usize, stages: usize, consumers: usize, raster: u32) {
    let mut m = Message::new(name);
    let smem = stages * (bm + bn) * 128 + 1024 + 16 * stages;
    if smem > MAX_SMEM_BYTES as usize {
        m.problem();
        m.push("shared memory ");
        m.number(smem);
        m.push(" bytes over the 232448 an SM90 block can have");
    }
    if bn != 64 && bn != 128 && bn != 256 {
        m.problem();
        m.push("BN ");
        m.number(bn);
        m.push(" is not an N of the kernel's wgmma (64, 128 or 256)");
    }
    let rows = match bm.checked_div(consumers) {
        Some(rows) => rows,
        None => 0,
    };
    if consumers != 1 && consumers != 2 {
        m.problem();
        m.push("1 or 2 consumer warpgroups, not ");
        m.number(consumers);
    } else if bm == 0 || !bm.is_multiple_of(consumers) || !rows.is_multiple_of(64) || rows > 128 {
        m.problem();
        m.push("BM ");
        m.number(bm);
        m.push(" over ");
        m.number(consumers);
        m.push(" consumer warpgroups is not 64 or 128 rows each (one or two m64 wgmmas a k block)");
    }
    if bm > 256 || bn > 256 {
        m.problem();
        m.push("a TMA box of ");
        m.number(if bm > bn { bm } else { bn });
        m.push(" rows (make_tma_box: at most 256)");
    }
    let accumulators = bn / 2 * (rows / 64);
    if accumulators > 128 {
        m.problem();
        m.number(accumulators);
        m.push(" f32 accumulators a consumer thread, over 128 (the rest of its 232 registers hold addresses and the epilogue)");
    }
    if stages < 2 || stages > MAX_STAGES {
        m.problem();
        m.number(stages);
        m.push(" stages, not 2 to 8 (the main loop unrolls over 8)");
    }
    if raster == 0 {
        m.problem();
        m.push("a RASTER of 0 tile rows");
    }
    if m.problems > 0 {
        let (text, _) = m.buf.split_at(m.len);
        match core::str::from_utf8(text) {
            Ok(text) => panic!("{}", text),
            Err(_) => panic!("hgemm_sm90: a configuration does not fit"),
        }
    }
}

/// What a configuration's kernel needs as constants, as const parameters (the macro writes them
/// from the configuration's numbers; [`hgemm_sm90_tn_with`] checks that they agree): a consumer
/// warpgroup's tile `WM x WN` of `C`, the words of a stage of `A` (`AW`) and `B` (`BW`), the
/// `f32` accumulators of one `m64` `wgmma` (`R`, `N / 2`), the `m64` `wgmma`s a k block (`MW`),
/// the mbarriers (`NB`, two a stage) and their words (`NW`).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TileShape<
    const WM: isize,
    const WN: isize,
    const AW: usize,
    const BW: usize,
    const R: usize,
    const MW: usize,
    const NB: usize,
    const NW: usize,
>;

/// [`TileShape`]'s work, generic over its constants (implemented for `TileShape` only).
#[doc(hidden)]
pub trait Tiles {
    /// Words of a stage of `A`.
    const A_WORDS: usize;
    /// Words of a stage of `B`.
    const B_WORDS: usize;
    /// Rows of a consumer warpgroup's tile.
    const WARPGROUP_ROWS: usize;
    /// Columns of the tile (`N`).
    const N: usize;
    /// `m64` `wgmma`s a k block and warpgroup.
    const ATOMS: usize;
    /// Mbarriers: two a stage.
    const BARRIERS: usize;
    /// A consumer thread's `f32` accumulators.
    type F32Regs: Copy;
    /// Zero accumulators.
    fn f32_zero() -> Self::F32Regs;
    /// The `full` and `empty` mbarriers of each stage in the words at `at` (stages past the
    /// configuration's repeat the first), `consumers` arrivals expected on each `empty`.
    fn barriers(
        smem: SmemRegion,
        at: u32,
        consumers: u32,
    ) -> ([Mbarrier; MAX_STAGES], [Mbarrier; MAX_STAGES]);
    /// TMA loads a stage of `A` (at `at`) from `(row, col)`, completing on `bar`.
    fn load_a(t: &TmaTensor2d<'_>, smem: SmemRegion, at: u32, row: u32, col: u32, bar: Mbarrier);
    /// TMA loads a stage of `B`, as [`load_a`](Tiles::load_a).
    fn load_b(t: &TmaTensor2d<'_>, smem: SmemRegion, at: u32, row: u32, col: u32, bar: Mbarrier);
    /// A k tile's batch for the warpgroup's rows `first_row..` of the stage of `A` at `a_at`, and
    /// the stage of `B` at `b_at`, pipelined: every earlier batch is done on return.
    fn mma_f32(
        kind: HalfKind,
        smem: SmemRegion,
        a_at: u32,
        first_row: usize,
        b_at: u32,
        d: &mut Self::F32Regs,
    );
    /// Every batch done.
    fn wait_all_f32(d: &mut Self::F32Regs);
    /// `C = alpha D + beta C` on the warpgroup's tile at `coord` (in tiles of `WM x WN`).
    fn store_f32<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
        c: Cm,
        d: &Self::F32Regs,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    );
}

/// The array of `W` words at `at` of the block's shared memory.
#[inline(always)]
fn stage<const W: usize>(smem: SmemRegion, at: u32) -> SmemArray<u32, W> {
    let Some(x) = smem.array::<u32, W>(at) else {
        fault("hgemm_sm90: the block has less shared memory than SMEM_BYTES");
    };
    x
}

impl<
    const WM: isize,
    const WN: isize,
    const AW: usize,
    const BW: usize,
    const R: usize,
    const MW: usize,
    const NB: usize,
    const NW: usize,
> Tiles for TileShape<WM, WN, AW, BW, R, MW, NB, NW>
where
    (): wgmma::Accumulators<R>,
{
    const A_WORDS: usize = AW;
    const B_WORDS: usize = BW;
    const WARPGROUP_ROWS: usize = WM as usize;
    const N: usize = WN as usize;
    const ATOMS: usize = MW;
    const BARRIERS: usize = NB;
    type F32Regs = [[f32; R]; MW];

    #[inline(always)]
    fn f32_zero() -> Self::F32Regs {
        [[0.0; R]; MW]
    }

    #[inline(always)]
    fn barriers(
        smem: SmemRegion,
        at: u32,
        consumers: u32,
    ) -> ([Mbarrier; MAX_STAGES], [Mbarrier; MAX_STAGES]) {
        let Some(words) = smem.array::<u32, NW>(at) else {
            fault("hgemm_sm90: the block has less shared memory than SMEM_BYTES");
        };
        // full[s]: the stage's bytes landed (one arrival, the producer's, with the bytes);
        // empty[s]: the consumers' wgmmas read it (an arrival a consumer thread).
        let stages = NB / 2;
        let bars: [Mbarrier; NB] =
            Mbarrier::init_block(words, core::array::from_fn(|i| if i < stages { 1 } else { consumers }));
        let pick = |i: usize| if i < NB { bars[i] } else { bars[0] };
        (
            core::array::from_fn(|s| pick(if s < stages { s } else { 0 })),
            core::array::from_fn(|s| pick(if s < stages { stages + s } else { stages })),
        )
    }

    #[inline(always)]
    fn load_a(t: &TmaTensor2d<'_>, smem: SmemRegion, at: u32, row: u32, col: u32, bar: Mbarrier) {
        t.load(stage::<AW>(smem, at), row, col, bar);
    }

    #[inline(always)]
    fn load_b(t: &TmaTensor2d<'_>, smem: SmemRegion, at: u32, row: u32, col: u32, bar: Mbarrier) {
        t.load(stage::<BW>(smem, at), row, col, bar);
    }

    #[inline(always)]
    fn mma_f32(
        kind: HalfKind,
        smem: SmemRegion,
        a_at: u32,
        first_row: usize,
        b_at: u32,
        d: &mut Self::F32Regs,
    ) {
        let (a, b) = (stage::<AW>(smem, a_at), stage::<BW>(smem, b_at));
        // The descriptors first (as `SmemDesc`'s checked constructors give them: the stages'
        // blocks of 64 rows by 16 halves), then the batch: one chain of the k tile's four k
        // blocks an `m64` `wgmma`, committed as one group.
        let db: [SmemDesc; 4] = core::array::from_fn(|kb| SmemDesc::k_sw128(b, BW / 32, 0, kb));
        let da: [[SmemDesc; 4]; MW] = core::array::from_fn(|i| {
            core::array::from_fn(|kb| SmemDesc::k_sw128(a, AW / 32, first_row + 64 * i, kb))
        });
        // Constant indices only (unrolled to two atoms, the rest folded away): an iterator or a
        // slice over the accumulators keeps them in local memory.
        let mut batch = wgmma::begin();
        unroll!(i in 0..2 => {
            if i < MW {
                batch.ss_f32_chain(kind, da[i], db, true, &mut d[i]);
            }
        });
        batch.commit();
        // The batch before is done: its stage is free. (A second atom's wait is a second
        // `wgmma.wait_group 1`, which returns at once; it ties that atom's accumulators.)
        unroll!(i in 0..2 => {
            if i < MW {
                wgmma::wait::<1, R>(&mut d[i]);
            }
        });
    }

    #[inline(always)]
    fn wait_all_f32(d: &mut Self::F32Regs) {
        unroll!(i in 0..2 => {
            if i < MW {
                wgmma::wait::<0, R>(&mut d[i]);
            }
        });
    }

    /// `C = alpha D + beta C`, `C` column-major `f32`.
    #[inline(always)]
    fn store_f32<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
        c: Cm,
        d: &Self::F32Regs,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    ) {
        let Some(tile) = c.local_tile_as::<P, WM, WN>((C, C), coord) else {
            fault("hgemm_sm90: a tile the block expected whole is cut");
        };
        // Unrolled to the largest shapes (two atoms of 128 accumulators), the rest folded away:
        // an accumulator indexed at run time would live in local memory.
        unroll!(i in 0..2 => {
            if i < MW {
                unroll!(h in 0..2 => {
                    unroll!(w in 0..64 => {
                        let v = 64 * h + w;
                        if v < R {
                            let (m, n) = at(t, v);
                            let crd = (m + 64 * i as u32, n);
                            let old = if beta == 0.0 { 0.0 } else { tile.load(crd).unwrap_or(0.0) };
                            tile.store(crd, alpha * d[i][v] + beta * old);
                        }
                    });
                });
            }
        });
    }
}

/// The default shape's [`Tiles`] (128 x 256 tiles, two consumer warpgroups of 64 x 256): those
/// of [`TileShape`], but each k tile's batch is the device layer's
/// [`mma_64x256x64_f32_pipelined`](wgmma::mma_64x256x64_f32_pipelined), its fence, four
/// `wgmma`s, commit and `wait_group 1` in one `asm!` block (the kernel's before configurations;
/// a `wgmma::Batch`, several blocks each with its check, ran 2.7% slower on the H200).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Tiles128x256<const NB: usize, const NW: usize>;

/// The generic [`Tiles`] of the default shape.
type Generic128x256<const NB: usize, const NW: usize> = TileShape<64, 256, 4096, 8192, 128, 1, NB, NW>;

impl<const NB: usize, const NW: usize> Tiles for Tiles128x256<NB, NW> {
    const A_WORDS: usize = STAGE_WORDS;
    const B_WORDS: usize = STAGE_256_WORDS;
    const WARPGROUP_ROWS: usize = 64;
    const N: usize = 256;
    const ATOMS: usize = 1;
    const BARRIERS: usize = NB;
    type F32Regs = [[f32; 128]; 1];

    #[inline(always)]
    fn f32_zero() -> Self::F32Regs {
        [[0.0; 128]; 1]
    }

    #[inline(always)]
    fn barriers(
        smem: SmemRegion,
        at: u32,
        consumers: u32,
    ) -> ([Mbarrier; MAX_STAGES], [Mbarrier; MAX_STAGES]) {
        <Generic128x256<NB, NW> as Tiles>::barriers(smem, at, consumers)
    }

    #[inline(always)]
    fn load_a(t: &TmaTensor2d<'_>, smem: SmemRegion, at: u32, row: u32, col: u32, bar: Mbarrier) {
        <Generic128x256<NB, NW> as Tiles>::load_a(t, smem, at, row, col, bar)
    }

    #[inline(always)]
    fn load_b(t: &TmaTensor2d<'_>, smem: SmemRegion, at: u32, row: u32, col: u32, bar: Mbarrier) {
        <Generic128x256<NB, NW> as Tiles>::load_b(t, smem, at, row, col, bar)
    }

    #[inline(always)]
    fn mma_f32(
        kind: HalfKind,
        smem: SmemRegion,
        a_at: u32,
        first_row: usize,
        b_at: u32,
        d: &mut Self::F32Regs,
    ) {
        let (a, b) = (stage::<STAGE_WORDS>(smem, a_at), stage::<STAGE_256_WORDS>(smem, b_at));
        wgmma::mma_64x256x64_f32_pipelined(kind, a, first_row / 64, b, d);
    }

    #[inline(always)]
    fn wait_all_f32(d: &mut Self::F32Regs) {
        wgmma::wait_all_f32(d);
    }

    #[inline(always)]
    fn store_f32<P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
        c: Cm,
        d: &Self::F32Regs,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    ) {
        <Generic128x256<NB, NW> as Tiles>::store_f32::<P, Cm>(c, d, coord, t, alpha, beta)
    }
}

/// Where value `v` of thread `t` lies in its `m64` atom's `64 x N` tile: `(m, n)`. The value
/// modes of `CLayout_64xN<N>` are `(2,2,N/8)`, so its first `N / 2` values are those of
/// `CLayout_64xN<256>` for every `N`.
#[inline(always)]
fn at(t: usize, v: usize) -> (u32, u32) {
    let c = CLayout_64xN::<256>::default().crd2idx((t % 128, v)) as usize;
    ((c % 64) as u32, (c / 64) as u32)
}

crate::sm90_config! {
    /// The default configuration (today's kernel): 128 x 256 tiles, 4 stages (192 KiB), two
    /// consumer warpgroups of 64 x 256 (`wgmma.m64n256k16`), raster groups of 16 tile rows, one
    /// tile a block.
    pub C128x256S4 { bm: 128, bn: 256, stages: 4, consumers: 2, raster: 16, persistent: false }
}
crate::sm90_config! {
    /// [`C128x256S4`] with persistent blocks.
    pub C128x256S4P { bm: 128, bn: 256, stages: 4, consumers: 2, raster: 16, persistent: true }
}
crate::sm90_config! {
    /// 128 x 128 tiles, 6 stages (192 KiB), two consumer warpgroups of 64 x 128
    /// (`wgmma.m64n128k16`): CuTe's tutorial tile, split as CUTLASS's cooperative kernel.
    pub C128x128S6 { bm: 128, bn: 128, stages: 6, consumers: 2, raster: 16, persistent: false }
}
crate::sm90_config! {
    /// [`C128x128S6`] with persistent blocks.
    pub C128x128S6P { bm: 128, bn: 128, stages: 6, consumers: 2, raster: 16, persistent: true }
}
crate::sm90_config! {
    /// 64 x 256 tiles, 4 stages (160 KiB), one consumer warpgroup (`wgmma.m64n256k16`).
    pub C64x256S4 { bm: 64, bn: 256, stages: 4, consumers: 1, raster: 16, persistent: false }
}
crate::sm90_config! {
    /// 64 x 128 tiles, 8 stages (192 KiB), one consumer warpgroup (`wgmma.m64n128k16`).
    pub C64x128S8 { bm: 64, bn: 128, stages: 8, consumers: 1, raster: 16, persistent: false }
}
crate::sm90_config! {
    /// 256 x 128 tiles, 4 stages (192 KiB), two consumer warpgroups of 128 x 128: two
    /// `wgmma.m64n128k16` a k block each (CUTLASS's 256 x 128 cooperative tile).
    pub C256x128S4 { bm: 256, bn: 128, stages: 4, consumers: 2, raster: 16, persistent: false }
}

/// Threads per block of the default configuration: two consumer warpgroups, each computing 64
/// rows of the tile, then a producer warpgroup whose first thread issues the TMA loads (a whole
/// warpgroup, so that it can give its registers to the consumers: 40 a thread for it, 232 for
/// them).
pub const THREADS: u32 = C128x256S4::THREADS;
/// The default configuration's tile of `C`.
pub const BM: usize = C128x256S4::BM;
/// See [`BM`].
pub const BN: usize = C128x256S4::BN;
/// The `k` tile, in halves.
pub const BK: usize = C128x256S4::BK;
/// Shared-memory stages of each operand of the default configuration (CuTe's `bP`): 192 KiB, one
/// block a multiprocessor.
pub const STAGES: usize = C128x256S4::STAGES;
/// Shared memory per block of the default configuration: the stages of `A` and of `B`, room to
/// align them to 1024 bytes, and the mbarriers.
pub const SMEM_BYTES: u32 = C128x256S4::SMEM_BYTES;
/// Tile rows (along m) of a group of blocks of the default configuration: the blocks run in
/// groups of `RASTER` tile rows, every tile column of a group before the next group (Triton's
/// grouped order), so the blocks running at once (132 on an H100) read about 16 tiles of `A` and
/// 8 of `B` instead of all of `A`'s, and the L2 cache holds them.
pub const RASTER: u32 = C128x256S4::RASTER;

/// The grid for an `m x n` result, one block a 128 x 256 tile: `x` the tile row within its group
/// of [`RASTER`], `y` the tile column, `z` the group (the hardware launches `x` fastest).
///
/// ```
/// use const_layout_device::Dim3;
/// assert_eq!(const_layout_kernels::hgemm_sm90::grid(300, 128), Dim3 { x: 3, y: 1, z: 1 });
/// assert_eq!(const_layout_kernels::hgemm_sm90::grid(5120, 512), Dim3 { x: 16, y: 2, z: 3 });
/// ```
pub fn grid(m: u32, n: u32) -> Dim3 {
    grid_for::<C128x256S4>(m, n, 0)
}

/// The grid of configuration `Cfg` for an `m x n` result on a GPU of `sms` multiprocessors: one
/// block a tile as [`grid`] (`sms` unused), or for a persistent configuration one dimension of
/// at most `sms` blocks (and at least one), each looping over tiles.
///
/// ```
/// use const_layout_device::Dim3;
/// use const_layout_kernels::hgemm_sm90::{grid_for, C128x128S6, C128x128S6P};
/// assert_eq!(grid_for::<C128x128S6>(300, 300, 132), Dim3 { x: 3, y: 3, z: 1 });
/// assert_eq!(grid_for::<C128x128S6P>(300, 300, 4), Dim3::x(4)); // 9 tiles on 4 blocks
/// assert_eq!(grid_for::<C128x128S6P>(300, 300, 132), Dim3::x(9));
/// ```
pub fn grid_for<Cfg: Sm90Config>(m: u32, n: u32, sms: u32) -> Dim3 {
    let rows = m.div_ceil(Cfg::BM as u32);
    let cols = n.div_ceil(Cfg::BN as u32);
    if Cfg::PERSISTENT {
        Dim3::x(rows.saturating_mul(cols).min(sms).max(1))
    } else {
        Dim3 { x: rows.min(Cfg::RASTER), y: cols, z: rows.div_ceil(Cfg::RASTER) }
    }
}

/// The block: [`THREADS`] threads.
pub fn block() -> Dim3 {
    block_for::<C128x256S4>()
}

/// The block of configuration `Cfg`: its [`THREADS`](Sm90Config::THREADS) threads.
pub fn block_for<Cfg: Sm90Config>() -> Dim3 {
    Dim3::x(Cfg::THREADS)
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
    C128x256S4::a_box()
}

/// The TMA box of a stage of `B` (256 rows), as [`a_box`].
///
/// ```
/// let b = const_layout_kernels::hgemm_sm90::b_box();
/// assert_eq!((b.inner, b.outer, b.bytes()), (64, 256, 32768));
/// ```
#[inline(always)]
pub fn b_box() -> TmaBox {
    C128x256S4::b_box()
}

/// What a warpgroup accumulates in: [`F32Accum`] (every configuration) or [`F16Accum`] (the
/// default configuration, [`C128x256S4`]: a compile error elsewhere), their `C` conventions as in
/// [`crate::hgemm`]. Sealed (through [`Accumulate`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an accumulator choice of the Hopper GEMM",
    note = "use `F32Accum(kind)` (f32 accumulators and C) or `F16Accum` (f16 accumulators and C)"
)]
pub trait WarpgroupAccumulate: Accumulate {
    /// The warpgroup's accumulators of a thread, for configuration `Cfg`.
    #[doc(hidden)]
    type Regs<Cfg: Sm90Config>: Copy;
    #[doc(hidden)]
    fn zero<Cfg: Sm90Config>() -> Self::Regs<Cfg>;
    /// A k tile's batch for the warpgroup's rows `first_row..` of the stage of `A` at `a_at` and
    /// the stage of `B` at `b_at`, pipelined: every earlier batch is done on return.
    #[doc(hidden)]
    fn warpgroup_mma<Cfg: Sm90Config>(
        &self,
        smem: SmemRegion,
        a_at: u32,
        first_row: usize,
        b_at: u32,
        d: &mut Self::Regs<Cfg>,
    );
    /// Every batch done: the accumulators are the thread's.
    #[doc(hidden)]
    fn wait_all<Cfg: Sm90Config>(d: &mut Self::Regs<Cfg>);
    /// `C = alpha D + beta C` on the block's tile at `coord`.
    #[doc(hidden)]
    fn store_c<Cfg: Sm90Config, P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = Self::Out>>>(
        c: Cm,
        d: &Self::Regs<Cfg>,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    );
}

impl WarpgroupAccumulate for F32Accum {
    type Regs<Cfg: Sm90Config> = <Cfg::Tiles as Tiles>::F32Regs;
    #[inline(always)]
    fn zero<Cfg: Sm90Config>() -> Self::Regs<Cfg> {
        <Cfg::Tiles as Tiles>::f32_zero()
    }
    #[inline(always)]
    fn warpgroup_mma<Cfg: Sm90Config>(
        &self,
        smem: SmemRegion,
        a_at: u32,
        first_row: usize,
        b_at: u32,
        d: &mut Self::Regs<Cfg>,
    ) {
        <Cfg::Tiles as Tiles>::mma_f32(self.0, smem, a_at, first_row, b_at, d)
    }
    #[inline(always)]
    fn wait_all<Cfg: Sm90Config>(d: &mut Self::Regs<Cfg>) {
        <Cfg::Tiles as Tiles>::wait_all_f32(d)
    }
    /// `C = alpha D + beta C`, `C` column-major `f32`, each warpgroup its own tile.
    #[inline(always)]
    fn store_c<Cfg: Sm90Config, P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = f32>>>(
        c: Cm,
        d: &Self::Regs<Cfg>,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    ) {
        let wg = (t / 128) as u32;
        let coord = (coord.0 * Cfg::CONSUMERS as u32 + wg, coord.1);
        <Cfg::Tiles as Tiles>::store_f32::<P, Cm>(c, d, coord, t, alpha, beta)
    }
}

/// Whether `Cfg` is the default configuration's shape, the one [`F16Accum`] has instructions for.
const fn f16_shape<Cfg: Sm90Config>() -> bool {
    Cfg::BM == 128 && Cfg::BN == 256 && Cfg::CONSUMERS == 2
}

impl WarpgroupAccumulate for F16Accum {
    type Regs<Cfg: Sm90Config> = [[u32; 64]; 1];
    fn zero<Cfg: Sm90Config>() -> Self::Regs<Cfg> {
        [[0; 64]; 1]
    }
    #[inline(always)]
    fn warpgroup_mma<Cfg: Sm90Config>(
        &self,
        smem: SmemRegion,
        a_at: u32,
        first_row: usize,
        b_at: u32,
        d: &mut Self::Regs<Cfg>,
    ) {
        const {
            assert!(
                f16_shape::<Cfg>(),
                "hgemm_sm90: F16Accum runs 128 x 256 tiles of two consumer warpgroups (C128x256S4's) only"
            )
        };
        let (a, b) = (stage::<STAGE_WORDS>(smem, a_at), stage::<STAGE_256_WORDS>(smem, b_at));
        wgmma::mma_64x256x64_f16_pipelined(a, first_row / 64, b, d);
    }
    #[inline(always)]
    fn wait_all<Cfg: Sm90Config>(d: &mut Self::Regs<Cfg>) {
        wgmma::wait_all_f16(d);
    }
    /// `C = alpha D + beta C` in `f32`, rounded to `f16`; `C` row-major words of two halves, a
    /// register (two neighbours along `n`) a word.
    #[inline(always)]
    fn store_c<Cfg: Sm90Config, P: Residue, Cm: DeviceTensor<Mem: MemoryMut<Elem = u32>>>(
        c: Cm,
        d: &Self::Regs<Cfg>,
        coord: (u32, u32),
        t: usize,
        alpha: f32,
        beta: f32,
    ) {
        const { assert!(f16_shape::<Cfg>(), "hgemm_sm90: F16Accum runs C128x256S4's shape only") };
        let Some(tile) = c.local_tile_as::<P, 128, 128>((C, C), coord) else {
            fault("hgemm_sm90: a tile the block expected whole is cut");
        };
        unroll!(j in 0..64 => {
            let (m, n) = at(t, 2 * j);
            let crd = (m + 64 * (t / 128) as u32, n / 2);
            let x = unpack_half2(HalfKind::F16, d[0][j]);
            let old = if beta == 0.0 { [0.0; 2] } else { unpack_half2(HalfKind::F16, tile.load(crd).unwrap_or(0)) };
            tile.store(crd, pack_half2(HalfKind::F16, alpha * x[0] + beta * old[0], alpha * x[1] + beta * old[1]));
        });
    }
}

/// A block's walk over the tiles of `C` in the grouped order: groups of `RASTER` tile rows (the
/// last one shorter), within a group row by row down each column, column by column. One tile a
/// block (from the block's coordinates in [`grid_for`]'s grid), or for a persistent
/// configuration tiles `blockIdx.x`, `blockIdx.x + gridDim.x`, ... of that order, each step
/// found by subtraction (no division by a runtime extent: a tile costs about `gridDim.x / RASTER`
/// steps of a loop).
#[derive(Clone, Copy, Debug)]
struct Schedule {
    /// Tile rows and columns of `C`.
    rows: u32,
    cols: u32,
    raster: u32,
    /// The first tile row of the current group, and its tile rows.
    group: u32,
    group_rows: u32,
    /// The current tile within its group.
    row: u32,
    col: u32,
    /// Tiles from one of the block's tiles to its next; 0: one tile a block.
    step: u32,
    live: bool,
}

impl Schedule {
    /// The block's first tile, if any.
    #[inline(always)]
    fn new<Cfg: Sm90Config>(m: usize, n: usize) -> Schedule {
        let rows = m.div_ceil(Cfg::BM) as u32;
        let cols = n.div_ceil(Cfg::BN) as u32;
        let blk = block_idx();
        let raster = Cfg::RASTER;
        if Cfg::PERSISTENT {
            let g = grid_dim();
            if g.y != 1 || g.z != 1 {
                fault("hgemm_sm90: a persistent configuration's grid is one-dimensional (grid_for)");
            }
            let group_rows = rows.min(raster);
            let mut s = Schedule {
                rows,
                cols,
                raster,
                group: 0,
                group_rows,
                row: 0,
                col: 0,
                step: g.x,
                live: rows > 0 && cols > 0,
            };
            if s.live {
                s.advance(blk.x);
            }
            s
        } else {
            let row = blk.z * raster + blk.x;
            Schedule {
                rows,
                cols,
                raster,
                group: row,
                group_rows: 1,
                row: 0,
                col: blk.y,
                step: 0,
                live: row < rows && blk.y < cols,
            }
        }
    }

    /// The current tile: `(tile row, tile column)`.
    #[inline(always)]
    fn tile(&self) -> Option<(u32, u32)> {
        self.live.then_some((self.group + self.row, self.col))
    }

    /// On to the block's next tile.
    #[inline(always)]
    fn next(&mut self) {
        if self.step == 0 {
            self.live = false;
        } else {
            self.advance(self.step);
        }
    }

    /// `by` tiles on in the grouped order.
    #[inline(always)]
    fn advance(&mut self, by: u32) {
        let mut r = self.row as u64 + by as u64;
        while r >= self.group_rows as u64 {
            r -= self.group_rows as u64;
            self.col += 1;
            if self.col == self.cols {
                self.col = 0;
                self.group += self.raster;
                if self.group >= self.rows {
                    self.live = false;
                    return;
                }
                self.group_rows = (self.rows - self.group).min(self.raster);
            }
        }
        self.row = r as u32;
    }
}

/// The default configuration's kernel: [`hgemm_sm90_tn_with`]`::<`[`C128x256S4`]`, _, _>`.
/// `C = alpha A B^T + beta C` on the block's 128 x 256 tile of `C` (see the module). `a` and `b`
/// are TMA tensors of `m x k` and `n x k` halves whose boxes are [`a_box`] and [`b_box`]; `c` is
/// `acc`'s `C`; the launch is [`grid`] x [`block`] with [`SMEM_BYTES`] of shared memory.
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
    hgemm_sm90_tn_with::<C128x256S4, Acc, Cm>(acc, a, b, c, alpha, beta, smem)
}

/// The block's work under configuration `Cfg`: `C = alpha A B^T + beta C` on its tile of `C`, or
/// on each of its tiles for a persistent configuration (see the module). `a` and `b` are TMA
/// tensors of `m x k` and `n x k` halves whose boxes are `Cfg::a_box()` and `Cfg::b_box()`; `c`
/// is `acc`'s `C`; the launch is [`grid_for`]`::<Cfg>` x [`block_for`]`::<Cfg>` with
/// `Cfg::SMEM_BYTES` of dynamic shared memory.
///
/// ```
/// use const_layout::make_layout;
/// use const_layout::C;
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::tma::TmaTensor2d;
/// use const_layout_device::{Gmem, GmemMut, GlobalTensor, SmemRegion};
/// use const_layout_kernels::hgemm::F32Accum;
/// use const_layout_kernels::hgemm_sm90::{block_for, grid_for, hgemm_sm90_tn_with, C64x128S8, Sm90Config};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// let (m, n, k) = (70u32, 8u32, 72u32);
/// let one = 0x3c00_3c00u32; // two halves of 1.0
/// let a: Vec<AtomicU32> = (0..m * k / 2).map(|_| one.into()).collect();
/// let b: Vec<AtomicU32> = (0..n * k / 2).map(|_| one.into()).collect();
/// let c: Vec<AtomicU32> = (0..m * n).map(|_| 0.into()).collect();
/// type Cfg = C64x128S8;
/// let cfg = LaunchConfig { grid: grid_for::<Cfg>(m, n, 132), block: block_for::<Cfg>(), dynamic_smem_bytes: Cfg::SMEM_BYTES };
/// launch(&cfg, || {
///     let ta = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&a), m, k, k, Cfg::a_box()).unwrap();
///     let tb = TmaTensor2d::emulated(Gmem::<u32>::from_cells(&b), n, k, k, Cfg::b_box()).unwrap();
///     let tc = GlobalTensor::new(GmemMut::<f32>::from_cells(&c), make_layout((m, n), (C::<1>, m)).unwrap()).unwrap();
///     let kind = const_layout_device::HalfKind::F16;
///     hgemm_sm90_tn_with::<Cfg, _, _>(F32Accum(kind), ta, tb, tc, 1.0, 0.0, SmemRegion::dynamic());
/// })
/// .unwrap();
/// assert!(c.iter().all(|x| f32::from_bits(x.load(Ordering::Relaxed)) == 72.0));
/// ```
#[inline(always)]
pub fn hgemm_sm90_tn_with<Cfg, Acc, Cm>(
    acc: Acc,
    a: TmaTensor2d<'_>,
    b: TmaTensor2d<'_>,
    c: Cm,
    alpha: f32,
    beta: f32,
    smem: SmemRegion,
) where
    Cfg: Sm90Config,
    Acc: WarpgroupAccumulate,
    Cm: Output<Acc>,
{
    // The configuration's checks, again where it is used (for one not written by the macro), and
    // its array lengths against its numbers.
    const {
        check_config(Cfg::NAME, Cfg::BM, Cfg::BN, Cfg::STAGES, Cfg::CONSUMERS, Cfg::RASTER);
        type T<Cfg> = <Cfg as Sm90Config>::Tiles;
        assert!(
            <T<Cfg> as Tiles>::A_WORDS == 32 * Cfg::BM
                && <T<Cfg> as Tiles>::B_WORDS == 32 * Cfg::BN
                && <T<Cfg> as Tiles>::N == Cfg::BN
                && <T<Cfg> as Tiles>::WARPGROUP_ROWS == Cfg::WARPGROUP_ROWS
                && <T<Cfg> as Tiles>::ATOMS * 64 == Cfg::WARPGROUP_ROWS
                && <T<Cfg> as Tiles>::BARRIERS == 2 * Cfg::STAGES
                && Cfg::BK == 64,
            "hgemm_sm90: a configuration's Tiles disagree with its BM, BN, BK, STAGES or CONSUMERS"
        );
    };
    let (m, n, k) = (a.rows() as usize, b.rows() as usize, a.cols() as usize);
    if b.cols() as usize != k {
        fault("hgemm_sm90: A and B have different k");
    }
    if a.box_dims() != Cfg::a_box() || b.box_dims() != Cfg::b_box() {
        fault("hgemm_sm90: a tensor map's box is not the stage's");
    }
    if Acc::c_extents(m, n) != Some(c.extents()) {
        fault("hgemm_sm90: C's extents are not m x n");
    }
    let dim = block_dim();
    if dim.x != Cfg::THREADS || dim.y != 1 || dim.z != 1 {
        fault("hgemm_sm90: blocks of THREADS threads");
    }
    let mut tiles = Schedule::new::<Cfg>(m, n);
    if tiles.tile().is_none() {
        return;
    }
    let Some(first) = smem.array::<u32, 4>(0) else {
        fault("hgemm_sm90: no shared memory");
    };
    let base = (1024 - first.address(0) % 1024) % 1024;
    let stages = Cfg::STAGES as u32;
    let a_at = |base: u32, s: usize| base + s as u32 * Cfg::STAGE_A_BYTES;
    let b_at = |base: u32, s: usize| base + stages * Cfg::STAGE_A_BYTES + s as u32 * Cfg::STAGE_B_BYTES;
    let n_c = 128 * Cfg::CONSUMERS as u32;
    let (full, empty) =
        <Cfg::Tiles as Tiles>::barriers(smem, base + stages * (Cfg::STAGE_A_BYTES + Cfg::STAGE_B_BYTES), n_c);
    let t = thread_idx().x as usize;
    // k tiles of the block's tiles so far, counted on across tiles: k tile `g` of the block is in
    // stage `g % STAGES`, in its `g / STAGES`-th use, whose mbarrier phases have that parity.
    let k_tiles = k.div_ceil(Cfg::BK) as u32;
    // Round `round` of a tile's k tiles `g..end`: k tiles `STAGES round + s`, stage `s`, those
    // of them in `g..end`.
    let in_tile = |g: u32, end: u32, gi: u32| gi >= g && gi < end;
    if t >= n_c as usize {
        // The producer. One consumer warpgroup keeps the whole register file's share (255 a
        // thread at 256 threads); two take the producer's (CUTLASS's 40 / 232).
        if Cfg::CONSUMERS == 2 {
            wgmma::set_max_registers::<40, false>();
        }
        if t == n_c as usize {
            let bytes = Cfg::a_box().bytes() + Cfg::b_box().bytes();
            let mut g = 0u32;
            while let Some(coord) = tiles.tile() {
                let (row_a, row_b) = (coord.0 * Cfg::BM as u32, coord.1 * Cfg::BN as u32);
                let end = g + k_tiles;
                let mut round = g / stages;
                while round * stages < end {
                    unroll!(s in 0..8 => {
                        let gi = round * stages + s as u32;
                        if s < Cfg::STAGES && in_tile(g, end, gi) {
                            // Each k tile into its stage once the consumers released the stage's
                            // use before (phase `round - 1`).
                            if round > 0 {
                                empty[s].wait((round & 1) ^ 1);
                            }
                            full[s].arrive_expect_tx(bytes);
                            let col = (gi - g) * Cfg::BK as u32;
                            <Cfg::Tiles as Tiles>::load_a(&a, smem, a_at(base, s), row_a, col, full[s]);
                            <Cfg::Tiles as Tiles>::load_b(&b, smem, b_at(base, s), row_b, col, full[s]);
                        }
                    });
                    round += 1;
                }
                g = end;
                tiles.next();
            }
        }
        return;
    }
    if Cfg::CONSUMERS == 2 {
        wgmma::set_max_registers::<232, true>();
    }
    let first_row = (t / 128) * Cfg::WARPGROUP_ROWS;
    let mut g = 0u32;
    while let Some(coord) = tiles.tile() {
        let mut d = Acc::zero::<Cfg>();
        let end = g + k_tiles;
        let mut round = g / stages;
        while round * stages < end {
            unroll!(s in 0..8 => {
                let gi = round * stages + s as u32;
                if s < Cfg::STAGES && in_tile(g, end, gi) {
                    full[s].wait(round & 1);
                    // Returns once the batch of k tile gi - 1 is done: its stage is free (the
                    // tile's first k tile has none: the tile before released its last below).
                    acc.warpgroup_mma::<Cfg>(smem, a_at(base, s), first_row, b_at(base, s), &mut d);
                    if gi > g {
                        empty[(s + Cfg::STAGES - 1) % Cfg::STAGES].arrive();
                    }
                }
            });
            round += 1;
        }
        Acc::wait_all::<Cfg>(&mut d);
        // The tile's last stage is free too: the producer may refill it for the next tile while
        // this one's epilogue runs.
        if k_tiles > 0 {
            let last = (end - 1) % stages;
            unroll!(s in 0..8 => {
                if s < Cfg::STAGES && s as u32 == last {
                    empty[s].arrive();
                }
            });
        }
        if crate::whole_block(m, n, coord, (Cfg::BM, Cfg::BN)) {
            Acc::store_c::<Cfg, Full, _>(c, &d, coord, t, alpha, beta)
        } else {
            Acc::store_c::<Cfg, Partial, _>(c, &d, coord, t, alpha, beta)
        }
        g = end;
        tiles.next();
    }
}
