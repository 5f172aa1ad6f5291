//! Warp-level communication (CUDA's `__shfl_*_sync`, `__ballot_sync`, `__all_sync`, `__any_sync`)
//! and reductions over lanes and blocks whose lane groups a TV layout decides.
//!
//! Every function here is collective over the warp: all 32 lanes must call it together. That is
//! checked, not assumed: on the GPU each call (or each batch, for a reduction) is one `asm!` block
//! that checks the warp is converged before its `.sync` instructions, so a lane of a diverged warp
//! traps (three instructions a call); the emulator reports a partial warp or lanes calling from
//! different places. Blocks whose thread count is not a multiple of 32 cannot use them.
//!
//! ```
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::warp::{self, Max, Sum};
//! use const_layout_device::{thread_idx, Dim3};
//! launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(64), dynamic_smem_bytes: 0 }, || {
//!     let lane = thread_idx().x % 32;
//!     assert_eq!(warp::shfl_xor(lane, 1), lane ^ 1);
//!     assert_eq!(warp::allreduce::<Sum, u32>(lane), 496); // 0 + 1 + ... + 31
//!     assert_eq!(warp::allreduce::<Max, f32>(lane as f32), 31.0);
//!     // Lanes in groups of 4 (lane bits 0 and 1): the sum of each group.
//!     assert_eq!(warp::allreduce_lanes::<0b11, Sum, u32>(1), 4);
//!     assert_eq!(warp::ballot(lane < 3), 0b111);
//! })
//! .unwrap();
//! ```

use crate::backend::{self, ReduceOp};
use crate::smem::SmemArray;
use crate::thread::{Thread, sync_threads};
use crate::types::Word;
use const_layout::algebra::computed::StaticLayout;
use const_layout::dyn_layout::DynLayout;

/// Lane `lane ^ lane_mask`'s `v` (`shfl.sync.bfly`).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_xor<T: Word>(v: T, lane_mask: u32) -> T {
    T::from_bits(backend::shfl_bfly(v.to_bits(), lane_mask, backend::site()))
}

/// Lane `lane + delta % 32`'s `v`, this lane's own past lane 31 (`shfl.sync.down`, which reads
/// the low 5 bits of `delta`, as CUDA's `__shfl_down_sync` does).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_down<T: Word>(v: T, delta: u32) -> T {
    T::from_bits(backend::shfl_down(v.to_bits(), delta, backend::site()))
}

/// Lane `lane - delta % 32`'s `v`, this lane's own below lane 0 (`shfl.sync.up`, which reads the
/// low 5 bits of `delta`).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_up<T: Word>(v: T, delta: u32) -> T {
    T::from_bits(backend::shfl_up(v.to_bits(), delta, backend::site()))
}

/// Lane `src_lane % 32`'s `v` (`shfl.sync.idx`): a broadcast when every lane names the same one.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn shfl_idx<T: Word>(v: T, src_lane: u32) -> T {
    T::from_bits(backend::shfl_idx(v.to_bits(), src_lane, backend::site()))
}

/// The lanes whose `p` is true, as bits (`vote.sync.ballot`).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn ballot(p: bool) -> u32 {
    backend::vote_ballot(p, backend::site())
}

/// Whether `p` is true in every lane (`__all_sync`).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn all(p: bool) -> bool {
    ballot(p) == u32::MAX
}

/// Whether `p` is true in some lane (`__any_sync`).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn any(p: bool) -> bool {
    ballot(p) != 0
}

/// The lanes executing this call together (`activemask`): not collective, never traps.
#[inline(always)]
pub fn active_mask() -> u32 {
    backend::active_mask()
}

mod sealed {
    pub trait Sealed {}
}

/// A reduction's operation: [`Sum`], [`Max`] or [`Min`]. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a reduction operation",
    note = "use const_layout_device::warp::Sum, Max or Min"
)]
pub trait Reduction: sealed::Sealed {
    #[doc(hidden)]
    const OP: ReduceKind;
}

/// A [`Reduction`]'s operation, as the backend takes it.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Add,
    Max,
    Min,
}

/// A [`Reducible`]'s type, as the backend takes it.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceTy {
    F32,
    U32,
    S32,
}

/// Addition (wrapping for integers).
#[derive(Clone, Copy, Debug)]
pub struct Sum;
/// The maximum (for `f32`, PTX's `max`: a NaN operand gives the other).
#[derive(Clone, Copy, Debug)]
pub struct Max;
/// The minimum.
#[derive(Clone, Copy, Debug)]
pub struct Min;

macro_rules! reductions {
    ($($t:ident => $op:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Reduction for $t {
            const OP: ReduceKind = ReduceKind::$op;
        }
    )*};
}
reductions!(Sum => Add, Max => Max, Min => Min);

/// A type a warp reduction combines: `f32`, `u32` or `i32`. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be reduced across lanes",
    note = "warp reductions take f32, u32 or i32"
)]
pub trait Reducible: Word + sealed::Sealed {
    #[doc(hidden)]
    const TY: ReduceTy;
    /// The value that leaves others unchanged under `R` (0 for a sum, the lowest value for a
    /// maximum, the highest for a minimum).
    fn identity<R: Reduction>() -> Self;
    /// `a` and `b` combined by `R` (one instruction).
    fn combine<R: Reduction>(a: Self, b: Self) -> Self;
}

macro_rules! reducible {
    ($($t:ty => $ty:ident, $lo:expr, $hi:expr, $add:expr);*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const TY: ReduceTy = ReduceTy::$ty;
            #[inline(always)]
            fn identity<R: Reduction>() -> Self {
                match R::OP {
                    ReduceKind::Add => 0 as $t,
                    ReduceKind::Max => $lo,
                    ReduceKind::Min => $hi,
                }
            }
            #[inline(always)]
            fn combine<R: Reduction>(a: Self, b: Self) -> Self {
                match R::OP {
                    ReduceKind::Add => $add(a, b),
                    ReduceKind::Max => a.max(b),
                    ReduceKind::Min => a.min(b),
                }
            }
        }
    )*};
}
reducible!(
    f32 => F32, f32::NEG_INFINITY, f32::INFINITY, |a: f32, b: f32| a + b;
    u32 => U32, 0, u32::MAX, u32::wrapping_add;
    i32 => S32, i32::MIN, i32::MAX, i32::wrapping_add
);

/// The backend's butterfly over `masks` for `R` and `T`: one block, one converged-warp check.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub(crate) fn butterfly<R: Reduction, T: Reducible, const K: usize>(v: T, masks: [u32; K]) -> T {
    butterfly_at::<R, T, K>(v, masks, backend::site())
}

/// [`butterfly`] of two `f32`s over the same masks: one block, one converged-warp check.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub(crate) fn butterfly2<R: Reduction, const K: usize>(v: [f32; 2], masks: [u32; K]) -> [f32; 2] {
    backend::allreduce2_f32(reduce_op::<R>(), v.map(f32::to_bits), masks, backend::site()).map(f32::from_bits)
}

/// The backend's operation of `R`.
#[inline(always)]
fn reduce_op<R: Reduction>() -> ReduceOp {
    match R::OP {
        ReduceKind::Add => ReduceOp::Add,
        ReduceKind::Max => ReduceOp::Max,
        ReduceKind::Min => ReduceOp::Min,
    }
}

/// [`butterfly`] with the caller's site.
#[inline(always)]
fn butterfly_at<R: Reduction, T: Reducible, const K: usize>(v: T, masks: [u32; K], site: backend::Site) -> T {
    let op = reduce_op::<R>();
    let bits = v.to_bits();
    T::from_bits(match T::TY {
        ReduceTy::F32 => backend::allreduce_f32(op, bits, masks, site),
        ReduceTy::U32 => backend::allreduce_u32(op, bits, masks, site),
        ReduceTy::S32 => backend::allreduce_s32(op, bits, masks, site),
    })
}

/// The `k`-th set bit of `mask` (as a one-bit mask), 0 past the last.
const fn nth_bit(mask: u32, k: u32) -> u32 {
    let mut m = mask;
    let mut i = 0;
    while m != 0 {
        let low = m & m.wrapping_neg();
        if i == k {
            return low;
        }
        m &= m - 1;
        i += 1;
    }
    0
}

/// Every lane's `v` combined by `R` over the lanes `lane ^ s` for `s` in the span of the lane bits
/// `LANES` (bits 0 to 4): a butterfly of one shuffle and one operation a bit, checked once. With
/// `LANES = 0x1f` the whole warp; with the mask a TV layout gives ([`LaneGroups`]), the lanes that
/// hold one row (or column) of a tile. A compile error if `LANES` has a bit past 4.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn allreduce_lanes<const LANES: u32, R: Reduction, T: Reducible>(v: T) -> T {
    const { assert!(LANES < 32, "a warp reduction's lane mask has bits 0 to 4 only") };
    let bits: [u32; 5] = const {
        [nth_bit(LANES, 0), nth_bit(LANES, 1), nth_bit(LANES, 2), nth_bit(LANES, 3), nth_bit(LANES, 4)]
    };
    let b = |k: usize| bits[k];
    let site = backend::site();
    match const { LANES.count_ones() } {
        0 => v,
        1 => butterfly_at::<R, T, 1>(v, [b(0)], site),
        2 => butterfly_at::<R, T, 2>(v, [b(0), b(1)], site),
        3 => butterfly_at::<R, T, 3>(v, [b(0), b(1), b(2)], site),
        4 => butterfly_at::<R, T, 4>(v, [b(0), b(1), b(2), b(3)], site),
        _ => butterfly_at::<R, T, 5>(v, [b(0), b(1), b(2), b(3), b(4)], site),
    }
}

/// Every lane's `v` combined by `R` over the whole warp (CUDA's butterfly of
/// `__shfl_xor_sync`): [`allreduce_lanes`] with all five lane bits.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn allreduce<R: Reduction, T: Reducible>(v: T) -> T {
    allreduce_lanes::<0x1f, R, T>(v)
}

/// Every thread's `v` combined by `R` over the whole block of `N` threads (the [`Thread`] proof
/// that the block is `N` threads along `x`): each warp reduces ([`allreduce`]), its lane 0
/// writes the warp's result to `scratch[warp]`, and after one barrier every thread combines the
/// `N / 32` results itself (broadcast reads of shared memory, 128 bits at a time). One barrier
/// and one checked butterfly a call.
///
/// `scratch` is read after the call's barrier, so a second reduction must not write the same
/// array before a barrier that follows this one: back-to-back reductions alternate two arrays
/// (the emulator reports the race otherwise). A compile error unless `N` is a multiple of 32.
///
/// ```
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::warp::{block_allreduce, Max, Sum};
/// use const_layout_device::{Dim3, SmemAllocator, SmemRegion, Thread};
/// launch(&LaunchConfig { grid: Dim3::x(2), block: Dim3::x(256), dynamic_smem_bytes: 256 }, || {
///     let mut smem = SmemAllocator::new(SmemRegion::dynamic());
///     let (s0, s1) = (smem.array::<f32, 32>(), smem.array::<f32, 32>());
///     let t = Thread::<256>::index();
///     let total = block_allreduce::<Sum, f32, 256>(t, t.get() as f32, s0);
///     assert_eq!(total, (0..256).sum::<u32>() as f32);
///     assert_eq!(block_allreduce::<Max, f32, 256>(t, t.get() as f32, s1), 255.0);
/// })
/// .unwrap();
/// ```
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn block_allreduce<R: Reduction, T: Reducible, const N: usize>(
    t: Thread<N>,
    v: T,
    scratch: SmemArray<T, 32>,
) -> T {
    const {
        assert!(
            N >= 32 && N <= 1024 && N.is_multiple_of(32),
            "a block reduction takes whole warps, at most 1024 threads"
        )
    };
    let warps = N / 32;
    let mine = allreduce::<R, T>(v);
    if t.lane() == 0 {
        scratch.store(t.warp(), mine);
    }
    sync_threads();
    // The first result (or group of four) starts the combination: no identity element to add.
    let (mut acc, mut w) = if warps >= 4 {
        let q = scratch.load4(0);
        (T::combine::<R>(T::combine::<R>(q[0], q[1]), T::combine::<R>(q[2], q[3])), 4)
    } else {
        (scratch.load(0), 1)
    };
    while w + 4 <= warps {
        let q = scratch.load4(w);
        acc = T::combine::<R>(acc, T::combine::<R>(T::combine::<R>(q[0], q[1]), T::combine::<R>(q[2], q[3])));
        w += 4;
    }
    while w < warps {
        acc = T::combine::<R>(acc, scratch.load(w));
        w += 1;
    }
    acc
}

/// Which lanes of a warp hold the same coordinate of a tile, under a TV layout: the lane bits a
/// reduction along one mode goes over ([`allreduce_lanes`]), and whether a coordinate's
/// elements also lie in other warps (then the block reduces them through shared memory).
///
/// The TV layout maps `(thread, value)` (index `t + threads * v`) to the index of an `m x n`
/// tile (column-major, `i + m j`), as `make_layout_tv` gives it. A reduction *along mode 1*
/// combines the elements of one row (`i`); along mode 0, of one column. The lanes that share a
/// row must be an xor group of the lane bits, the same for every value, which [`LaneGroups::of`]
/// checks: then a thread first combines its own values of one row, and the butterfly over
/// [`lanes`](Self::lanes) the lanes'.
///
/// ```
/// use const_layout::algebra::computed::{make_layout_tv, StaticLayout};
/// use const_layout::layout_type;
/// use const_layout_device::warp::LaneGroups;
/// // 4 x 8 threads (row-major: 8 along a row), each a 1 x 4 vector: a 4 x 32 tile.
/// type Thr = layout_type!((4, 8):(8, 1));
/// type Val = layout_type!((1, 4));
/// let (_, tv) = make_layout_tv(Thr::default(), Val::default());
/// let g = LaneGroups::of_tv(&tv, (4, 32), 32, 1).unwrap();
/// assert_eq!(g.lanes, 0b111); // a row's 8 threads: lane bits 0 to 2
/// assert!(!g.spans_warps);
/// // Along mode 0 (a column): 4 threads, lane bits 3 and 4.
/// assert_eq!(LaneGroups::of_tv(&tv, (4, 32), 32, 0).unwrap().lanes, 0b11000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneGroups {
    /// The lane bits of the butterfly.
    pub lanes: u32,
    /// Whether some coordinate's elements lie in more than one warp.
    pub spans_warps: bool,
}

/// Why a TV layout's lanes do not reduce by a butterfly: two lanes holding one coordinate that no
/// xor of the group's lane bits relates, or a thread count that is not whole warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneGroupError {
    /// The thread count is not a positive multiple of 32, or the layout's size is not
    /// `threads * values` within the tile.
    Shape,
    /// `lane` and `other` of one warp hold the same coordinate (for some values), but `lane ^
    /// other` is outside the group's lane bits `lanes`.
    NotXorGroup {
        /// A lane.
        lane: u32,
        /// Another lane of the same warp with an element of the same coordinate.
        other: u32,
        /// The lane bits that keep every value's coordinate.
        lanes: u32,
    },
}

impl core::fmt::Display for LaneGroupError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LaneGroupError::Shape => f.write_str("the TV layout is not whole warps over the tile"),
            LaneGroupError::NotXorGroup { lane, other, lanes } => write!(
                f,
                "lanes {lane} and {other} hold the same coordinate, but {lane} ^ {other} is outside the lane bits {lanes:#07b} that keep every coordinate"
            ),
        }
    }
}

impl LaneGroups {
    /// [`LaneGroups::of`] for a static TV layout (what `make_layout_tv` returns), at compile
    /// time when called in a constant.
    pub const fn of_tv<TV: StaticLayout>(
        tv: &TV,
        tile: (usize, usize),
        threads: usize,
        mode: usize,
    ) -> Result<LaneGroups, LaneGroupError> {
        let _ = tv;
        LaneGroups::of(&TV::LAYOUT, tile, threads, mode)
    }

    /// The most `threads * values` [`LaneGroups::of`] analyzes, and the most rows or columns.
    pub const CAPACITY: usize = 1 << 14;

    /// The lane groups of TV layout `tv` over an `m x n` tile, `threads` threads, for a reduction
    /// along `mode` (1: the elements of a row, 0: of a column). `const`: a kernel computes it
    /// from its static layouts at compile time. At most [`CAPACITY`](Self::CAPACITY) elements
    /// and rows (or columns): past that, [`LaneGroupError::Shape`].
    pub const fn of(
        tv: &DynLayout,
        (m, n): (usize, usize),
        threads: usize,
        mode: usize,
    ) -> Result<LaneGroups, LaneGroupError> {
        const CAP: usize = LaneGroups::CAPACITY;
        let size = tv.size().value;
        if threads == 0
            || !threads.is_multiple_of(32)
            || m == 0
            || n == 0
            || size <= 0
            || size as usize > CAP
            || !(size as usize).is_multiple_of(threads)
            || (if mode == 1 { m } else { n }) > CAP
        {
            return Err(LaneGroupError::Shape);
        }
        let values = size as usize / threads;
        // The coordinate a reduction along `mode` keeps: the row (mode 1) or the column (mode 0),
        // for element `t + threads v`.
        let mut keys = [0u32; CAP];
        let mut e = 0;
        while e < size as usize {
            let idx = tv.offset(e as isize);
            let k = if mode == 1 { idx.rem_euclid(m as isize) } else { idx.div_euclid(m as isize) };
            if k < 0 || k as usize >= CAP {
                return Err(LaneGroupError::Shape);
            }
            keys[e] = k as u32;
            e += 1;
        }
        // Lane bits that keep every value's coordinate.
        let mut lanes = 0u32;
        let mut b = 0;
        while b < 5 {
            let mut keeps = true;
            let mut e = 0;
            while e < size as usize && keeps {
                let (t, v) = (e % threads, e / threads);
                keeps = keys[e] == keys[(t ^ (1 << b)) + threads * v];
                e += 1;
            }
            if keeps {
                lanes |= 1 << b;
            }
            b += 1;
        }
        // Completeness: within a warp, the lanes holding a coordinate have one representative
        // (the lane with the group's bits cleared); a coordinate seen in two warps spans them.
        let mut seen_warp = [0u16; CAP];
        let mut rep = [0u8; CAP];
        let mut spans_warps = false;
        let mut t = 0;
        while t < threads {
            let (w, r) = ((t / 32) as u16 + 1, ((t % 32) as u32 & !lanes) as u8);
            let mut v = 0;
            while v < values {
                let k = keys[t + threads * v] as usize;
                if seen_warp[k] == w {
                    if rep[k] != r {
                        return Err(LaneGroupError::NotXorGroup {
                            lane: (t % 32) as u32,
                            other: rep[k] as u32,
                            lanes,
                        });
                    }
                } else {
                    spans_warps |= seen_warp[k] != 0;
                    seen_warp[k] = w;
                    rep[k] = r;
                }
                v += 1;
            }
            t += 1;
        }
        Ok(LaneGroups { lanes, spans_warps })
    }
}
