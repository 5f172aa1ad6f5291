//! Reductions over register fragments: a thread's registers of one row (or column) combined, then
//! the lanes that share it combined by a butterfly of shuffles, as a
//! [`ReductionPlan`] of `const_layout::atom::fragment`
//! says (FlashAttention's row maximum and row sum of the score tile).
//!
//! ```
//! use const_layout::atom::fragment::{FragmentC, ReductionPlan, RowReduction};
//! use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::fragment::reduce_rows;
//! use const_layout_device::warp::Sum;
//! use const_layout_device::{thread_idx, Dim3};
//! // One warp's 16 x 8 accumulator of ones: each row sums to 8.
//! const PLAN: ReductionPlan = RowReduction::<FragmentC<Mma, 16, 8>>::PLAN;
//! launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(32), dynamic_smem_bytes: 0 }, || {
//!     assert_eq!(reduce_rows::<Sum, 4, 2>(&PLAN, &[1.0; 4]), [8.0, 8.0]);
//! })
//! .unwrap();
//! ```

use crate::warp::{self, Reducible, Reduction};
use const_layout::atom::fragment::ReductionPlan;

/// The independent partial results of a group's registers in [`reduce_rows`].
const PARTIALS: usize = 4;

/// Each of the `G` groups of `plan` (a row, or a column, of the fragment `vals` holds) combined by
/// `R` over the thread's registers and then over the lanes that share it: every lane of the group
/// gets the whole row's result. The thread combines its group's `per_group` registers (register
/// `k` into partial result `k % 4`, then the four pairwise: a sum's rounding is that order's), then one
/// `shfl.sync.bfly` and one operation a mask, a group's masks in one block with one converged-warp
/// check (as [`warp::allreduce_lanes`]). Collective over the warp, like every shuffle.
///
/// `plan` should be a constant (`RowReduction::<F>::PLAN` in a `const` item, as below): then every
/// loop here has constant bounds and unrolls, each register index is a constant, and the check
/// that `V` and `G` are the plan's folds away. Panics unless `G` is the plan's groups and `V` its
/// `groups * per_group` registers.
///
/// ```
/// use const_layout::atom::fragment::{FragmentC, ReductionPlan, RowReduction};
/// use const_layout::atom::SM90_64xNx16_F32F16F16_SS;
/// use const_layout_device::emu::{launch, LaunchConfig};
/// use const_layout_device::fragment::reduce_rows;
/// use const_layout_device::warp::{Max, Sum};
/// use const_layout_device::{thread_idx, Dim3};
/// // A warp group's 64 x 64 wgmma accumulator: each thread holds 2 rows of 16 registers.
/// type S = FragmentC<SM90_64xNx16_F32F16F16_SS<64>, 64, 64>;
/// const PLAN: ReductionPlan = RowReduction::<S>::PLAN;
/// let f = |m: usize, n: usize| ((7 * m + 13 * n) % 32) as f32;
/// launch(&LaunchConfig { grid: Dim3::x(1), block: Dim3::x(128), dynamic_smem_bytes: 0 }, || {
///     let t = thread_idx().x as usize;
///     let s: [f32; 32] = core::array::from_fn(|r| {
///         let (m, n) = S::coord(t, r);
///         f(m, n)
///     });
///     let max = reduce_rows::<Max, 32, 2>(&PLAN, &s);
///     let sum = reduce_rows::<Sum, 32, 2>(&PLAN, &s);
///     for g in 0..2 {
///         let m = RowReduction::<S>::key(t, g);
///         assert_eq!(m, 16 * (t / 32) + (t % 32) / 4 + 8 * g);
///         assert_eq!(max[g], (0..64).map(|n| f(m, n)).fold(f32::MIN, f32::max));
///         assert_eq!(sum[g], (0..64).map(|n| f(m, n)).sum::<f32>());
///     }
/// })
/// .unwrap();
/// ```
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn reduce_rows<R: Reduction, const V: usize, const G: usize>(
    plan: &ReductionPlan,
    vals: &[f32; V],
) -> [f32; G] {
    assert!(
        plan.groups() == G && plan.groups() * plan.per_group() == V,
        "reduce_rows: the fragment's registers or groups are not the plan's"
    );
    let per_group = plan.per_group();
    let mut out = [<f32 as Reducible>::identity::<R>(); G];
    // Four partial results a group, register k into partial k % 4, then combined pairwise: four
    // independent chains of dependent operations a quarter as long as one (the softmax waits on
    // this chain while the other warpgroup's GEMM runs).
    let mut g = 0;
    while g < G {
        let mut part = [0f32; PARTIALS];
        let mut k = 0;
        while k < per_group {
            let x = vals[plan.register(g, k)];
            part[k % PARTIALS] = if k < PARTIALS { x } else { f32::combine::<R>(part[k % PARTIALS], x) };
            k += 1;
        }
        out[g] = match per_group {
            0 => out[g],
            1 => part[0],
            2 => f32::combine::<R>(part[0], part[1]),
            3 => f32::combine::<R>(f32::combine::<R>(part[0], part[1]), part[2]),
            _ => f32::combine::<R>(f32::combine::<R>(part[0], part[1]), f32::combine::<R>(part[2], part[3])),
        };
        g += 1;
    }
    // Each pair of groups' butterflies over the plan's masks in one checked block (a shuffle and
    // an operation a mask and group): one converged-warp check a pair instead of one a shuffle,
    // and no branch between the shuffles for ptxas to schedule around (the row maxima are on the
    // softmax's critical path).
    let m = |k: usize| if k < plan.masks() { plan.mask(k) } else { 0 };
    let mut g = 0;
    while g + 1 < G {
        let pair = [out[g], out[g + 1]];
        [out[g], out[g + 1]] = match plan.masks() {
            0 => pair,
            1 => warp::butterfly2::<R, 1>(pair, [m(0)]),
            2 => warp::butterfly2::<R, 2>(pair, [m(0), m(1)]),
            3 => warp::butterfly2::<R, 3>(pair, [m(0), m(1), m(2)]),
            4 => warp::butterfly2::<R, 4>(pair, [m(0), m(1), m(2), m(3)]),
            _ => warp::butterfly2::<R, 5>(pair, [m(0), m(1), m(2), m(3), m(4)]),
        };
        g += 2;
    }
    while g < G {
        out[g] = match plan.masks() {
            0 => out[g],
            1 => warp::butterfly::<R, f32, 1>(out[g], [m(0)]),
            2 => warp::butterfly::<R, f32, 2>(out[g], [m(0), m(1)]),
            3 => warp::butterfly::<R, f32, 3>(out[g], [m(0), m(1), m(2)]),
            4 => warp::butterfly::<R, f32, 4>(out[g], [m(0), m(1), m(2), m(3)]),
            _ => warp::butterfly::<R, f32, 5>(out[g], [m(0), m(1), m(2), m(3), m(4)]),
        };
        g += 1;
    }
    out
}
