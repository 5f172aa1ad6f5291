//! CuTe's `copy(src, dst)` between tensors of the same shape and different layouts.
//!
//! Both layouts are flattened to their integers and refined to one common list of modes (a mode
//! `s:d` splits into `(a, s/a):(d, a*d)` where the other layout has a mode boundary), so that
//! every mode carries one extent and two strides. Modes whose strides are the running run length
//! in *both* tensors (1, then the product so far) are contiguous together: they are merged into
//! one run copied with `copy_from_slice`, and the other modes are walked by an odometer (adds,
//! no divisions). This is CuTe's `max_common_vector` computed on values, so runtime extents and
//! strides vectorize too (CuTe's follows static strides only, so a static layout gets at least
//! CuTe's vector). The plan of two static layouts is a compile-time constant.

use super::{Tensor, TensorError, TensorMut, extent, is_static, position};
use crate::dyn_layout::DynLayout;
use crate::int::Int;
use crate::int_tuple::{IntTuple, Profile};
use crate::layout::{AnyLayout, DynAnyLayout, FlatPairs, Layout, LayoutShape};
use core::marker::PhantomData;

/// The most modes a copy plan holds after refinement; more falls back to index-by-index copying.
const MAX_MODES: usize = 24;
/// The most integers a layout may have for a plan.
const MAX_IN: usize = 32;
/// The size from which [`copy_any`] plans its copy.
const PLAN_FROM: usize = 32;

/// How to copy between two layouts: a contiguous run of `run` elements at every point of the
/// odometer over `extent` with strides `src` and `dst`.
#[derive(Clone, Copy, Debug)]
struct Plan {
    valid: bool,
    run: usize,
    n: usize,
    extent: [usize; MAX_MODES],
    src: [isize; MAX_MODES],
    dst: [isize; MAX_MODES],
}

impl Plan {
    const INVALID: Plan =
        Plan { valid: false, run: 1, n: 0, extent: [1; MAX_MODES], src: [0; MAX_MODES], dst: [0; MAX_MODES] };

    /// The plan for source integers `(se, sd)` and destination integers `(de, dd)` (extents and
    /// strides, colexicographic), or [`Plan::INVALID`] if they have no common refinement or too
    /// many modes.
    const fn new(
        se: &[isize; MAX_IN],
        sd: &[isize; MAX_IN],
        ns: usize,
        de: &[isize; MAX_IN],
        dd: &[isize; MAX_IN],
        nd: usize,
    ) -> Plan {
        let mut p = Plan::INVALID;
        let (mut i, mut j) = (0usize, 0usize);
        // The unconsumed part of the current source and destination integer.
        let (mut a, mut sa, mut b, mut sb) = (1isize, 0isize, 1isize, 0isize);
        loop {
            while a == 1 && i < ns {
                a = se[i];
                sa = sd[i];
                i += 1;
            }
            while b == 1 && j < nd {
                b = de[j];
                sb = dd[j];
                j += 1;
            }
            if a <= 1 || b <= 1 {
                break;
            }
            let e = if a <= b { a } else { b };
            if a % e != 0 || b % e != 0 || p.n == MAX_MODES {
                return Plan::INVALID;
            }
            p.extent[p.n] = e as usize;
            p.src[p.n] = sa;
            p.dst[p.n] = sb;
            p.n += 1;
            a /= e;
            b /= e;
            sa = sa.wrapping_mul(e);
            sb = sb.wrapping_mul(e);
        }
        if a != 1 || b != 1 {
            return Plan::INVALID; // the sizes differ
        }
        // Grow the run: a mode whose strides are both the run length continues it in both.
        let mut run = 1isize;
        loop {
            let mut k = 0;
            while k < p.n && !(p.extent[k] > 1 && p.src[k] == run && p.dst[k] == run) {
                k += 1;
            }
            if k == p.n {
                break;
            }
            run *= p.extent[k] as isize;
            p.extent[k] = 1;
        }
        // Drop the merged modes.
        let mut out = Plan::INVALID;
        let mut k = 0;
        while k < p.n {
            if p.extent[k] > 1 {
                out.extent[out.n] = p.extent[k];
                out.src[out.n] = p.src[k];
                out.dst[out.n] = p.dst[k];
                out.n += 1;
            }
            k += 1;
        }
        out.valid = true;
        out.run = run as usize;
        out
    }

    /// The plan of two static layouts' integers.
    const fn from_flat(s: &FlatPairs, d: &FlatPairs) -> Plan {
        if s.len > MAX_IN || d.len > MAX_IN {
            return Plan::INVALID;
        }
        let (mut se, mut sd, mut de, mut dd) = ([0; MAX_IN], [0; MAX_IN], [0; MAX_IN], [0; MAX_IN]);
        let mut k = 0;
        while k < s.len {
            match (s.shape[k], s.stride[k]) {
                (Some(e), Some(x)) => (se[k], sd[k]) = (e, x),
                _ => return Plan::INVALID,
            }
            k += 1;
        }
        k = 0;
        while k < d.len {
            match (d.shape[k], d.stride[k]) {
                (Some(e), Some(x)) => (de[k], dd[k]) = (e, x),
                _ => return Plan::INVALID,
            }
            k += 1;
        }
        Plan::new(&se, &sd, s.len, &de, &dd, d.len)
    }

    /// The plan of two runtime-structured layouts' integers ([`Plan::INVALID`] past the
    /// capacity).
    fn of_dyn(src: &DynLayout, dst: &DynLayout) -> Plan {
        fn flat(l: &DynLayout, e: &mut [isize; MAX_IN], d: &mut [isize; MAX_IN]) -> Option<usize> {
            let mut n = 0;
            for (s, x) in l.shape().leaves().zip(l.stride().leaves()) {
                (*e.get_mut(n)?, *d.get_mut(n)?) = (s.value, x.value);
                n += 1;
            }
            Some(n)
        }
        let (mut se, mut sd, mut de, mut dd) = ([0; MAX_IN], [0; MAX_IN], [0; MAX_IN], [0; MAX_IN]);
        match (flat(src, &mut se, &mut sd), flat(dst, &mut de, &mut dd)) {
            (Some(ns), Some(nd)) => Plan::new(&se, &sd, ns, &de, &dd, nd),
            _ => Plan::INVALID,
        }
    }

    /// The plan of two layouts' runtime values.
    #[inline]
    fn of<S1, D1, S2, D2>(src: &Layout<S1, D1>, dst: &Layout<S2, D2>) -> Plan
    where
        S1: IntTuple + LayoutShape<D1>,
        D1: IntTuple,
        S2: IntTuple + LayoutShape<D2>,
        D2: IntTuple,
    {
        if S1::LEAVES > MAX_IN || S2::LEAVES > MAX_IN {
            return Plan::INVALID;
        }
        let (mut se, mut sd, mut de, mut dd) = ([0; MAX_IN], [0; MAX_IN], [0; MAX_IN], [0; MAX_IN]);
        src.shape().store_values(&mut se, 0);
        src.stride().store_values(&mut sd, 0);
        dst.shape().store_values(&mut de, 0);
        dst.stride().store_values(&mut dd, 0);
        Plan::new(&se, &sd, S1::LEAVES, &de, &dd, S2::LEAVES)
    }
}

/// The compile-time plan of two static layouts ([`Plan::INVALID`] if either is not static).
struct StaticPlan<S1, D1, S2, D2>(PhantomData<(S1, D1, S2, D2)>);

impl<S1, D1, S2, D2> StaticPlan<S1, D1, S2, D2>
where
    S1: IntTuple + LayoutShape<D1>,
    D1: IntTuple,
    S2: IntTuple + LayoutShape<D2>,
    D2: IntTuple,
{
    const PLAN: Plan = if is_static::<S1, D1>() && is_static::<S2, D2>() {
        Plan::from_flat(&S1::FLAT, &S2::FLAT)
    } else {
        Plan::INVALID
    };
}

/// The number of contiguous elements [`copy`] moves at once between tensors with these layouts
/// (CuTe's `max_common_vector`, on values): 1 when they are never contiguous together.
///
/// ```
/// use const_layout::tensor::copy_vector;
/// use const_layout::{C, LayoutLeft, LayoutRight, make_layout};
/// let col = make_layout((C::<32>, C::<32>), LayoutLeft).unwrap();
/// let padded = make_layout((C::<32>, C::<32>), (C::<1>, 40isize)).unwrap();
/// let row = make_layout((C::<32>, C::<32>), LayoutRight).unwrap();
/// assert_eq!(copy_vector(&col, &col), 1024);
/// assert_eq!(copy_vector(&col, &padded), 32); // one column at a time
/// assert_eq!(copy_vector(&col, &row), 1); // a transpose
/// let (m, ld) = (100usize, 128isize); // runtime values vectorize too
/// assert_eq!(copy_vector(&make_layout((m, 8usize), (1isize, ld)).unwrap(), &make_layout((m, 8usize), LayoutLeft).unwrap()), 100);
/// ```
pub fn copy_vector<S1, D1, S2, D2>(src: &Layout<S1, D1>, dst: &Layout<S2, D2>) -> usize
where
    S1: IntTuple + LayoutShape<D1>,
    D1: IntTuple,
    S2: IntTuple + LayoutShape<D2>,
    D2: IntTuple,
{
    let plan = if is_static::<S1, D1>() && is_static::<S2, D2>() {
        const { &StaticPlan::<S1, D1, S2, D2>::PLAN }
    } else {
        &Plan::of(src, dst)
    };
    if plan.valid { plan.run } else { 1 }
}

/// CuTe's `copy(src, dst)`: `dst(i) = src(i)` for every index `i`, for tensors of the same shape
/// (equal sizes, and one shape's coordinates are the other's: `(32,32)` and `((4,8),32)` match)
/// and any layouts. Where the layouts are contiguous together (see [`copy_vector`]) whole runs
/// are copied with `copy_from_slice`; a row-major to column-major copy goes element by element.
///
/// ```
/// use const_layout::tensor::{copy, make_tensor, make_tensor_mut};
/// use const_layout::{C, LayoutLeft, LayoutRight, make_layout};
/// let src: Vec<i32> = (0..6).collect();
/// let mut dst = vec![0; 6];
/// let a = make_tensor(&src, make_layout((2usize, C::<3>), LayoutRight).unwrap()).unwrap();
/// let mut b = make_tensor_mut(&mut dst, make_layout((2usize, C::<3>), LayoutLeft).unwrap()).unwrap();
/// copy(&a, &mut b).unwrap();
/// assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
/// ```
#[inline]
pub fn copy<T, S1, D1, S2, D2>(
    src: &Tensor<'_, T, Layout<S1, D1>>,
    dst: &mut TensorMut<'_, T, Layout<S2, D2>>,
) -> Result<(), TensorError>
where
    T: Copy,
    S1: IntTuple + LayoutShape<D1> + Profile<S2>,
    D1: IntTuple,
    S2: IntTuple + LayoutShape<D2> + Profile<S1>,
    D2: IntTuple,
{
    let (ls, ld) = (src.layout, dst.layout);
    let (ns, nd) = (ls.size().value(), ld.size().value());
    if ns != nd || !(ls.shape().compatible(&ld.shape()) || ld.shape().compatible(&ls.shape())) {
        return Err(TensorError::ShapeMismatch { src: ns as usize, dst: nd as usize });
    }
    let all_static = is_static::<S1, D1>() && is_static::<S2, D2>();
    let plan = if all_static { const { &StaticPlan::<S1, D1, S2, D2>::PLAN } } else { &Plan::of(&ls, &ld) };
    if !plan.valid {
        // No common refinement within the plan's capacity: index by index.
        for i in 0..ns {
            let s = src.base.wrapping_add(ls.shape().offset_of_index(&ls.stride(), i) as usize);
            let d = dst.base.wrapping_add(ld.shape().offset_of_index(&ld.stride(), i) as usize);
            dst.data[d] = src.data[s];
        }
    } else if all_static {
        // Cut both slices to their constant lengths, so that with the plan's constant extents
        // and strides the optimizer proves every index in range.
        let ((sb, sspan), (db, dspan)) = (extent(&ls), extent(&ld));
        if let (Some(s), Some(d)) = (src.data.get(..=sspan), dst.data.get_mut(..=dspan)) {
            run(plan, s, sb, d, db);
        }
    } else {
        run(plan, src.data, src.base, dst.data, dst.base);
    }
    Ok(())
}

/// CuTe's `copy(src, dst)` for tensors over any layouts ([`AnyLayout`]: swizzled, composed,
/// static algebra results, runtime-structured): `dst(i) = src(i)` for every index `i`. The sizes
/// must be equal ([`TensorError::ShapeMismatch`]). Where both layouts are plain layouts (strides,
/// no swizzle) and the copy is not tiny, it is planned as [`copy`]'s is (runs of the common
/// contiguous vector, an odometer over the rest); otherwise it goes one element at a time, in
/// index order. Where both layouts are typed [`Layout`]s, [`copy`] also checks the shapes and
/// plans at compile time.
///
/// ```
/// use const_layout::tensor::{copy_any, make_tensor, make_tensor_mut};
/// use const_layout::{layout, LayoutLeft, C, make_static_layout};
/// let src: Vec<i32> = (0..8).collect();
/// let mut dst = vec![0; 8];
/// let a = make_tensor(&src, make_static_layout((C::<4>, C::<2>), LayoutLeft)).unwrap();
/// // Sw<1,1,1> flips bit 1 where bit 2 is set: offsets 4, 5 go to 6, 7 and back.
/// let mut b = make_tensor_mut(&mut dst, layout!(composition(Sw<1,1,1>, (4,2):(1,4)))).unwrap();
/// copy_any(&a, &mut b).unwrap();
/// assert_eq!(dst, [0, 1, 2, 3, 6, 7, 4, 5]);
/// ```
#[inline]
pub fn copy_any<T: Copy, A: AnyLayout, B: AnyLayout>(
    src: &Tensor<'_, T, A>,
    dst: &mut TensorMut<'_, T, B>,
) -> Result<(), TensorError> {
    let (ls, ld) = (src.layout, dst.layout);
    let (ns, nd) = (ls.size(), ld.size());
    if ns != nd {
        return Err(TensorError::ShapeMismatch { src: ns, dst: nd });
    }
    let (slen, dlen) = (src.data.len(), dst.data.len());
    // Planning reads both layouts as runtime-structured ones (hundreds of instructions): worth it
    // from a few dozen elements on.
    if ns >= PLAN_FROM
        && let (Ok(DynAnyLayout::Layout(a)), Ok(DynAnyLayout::Layout(b))) = (ls.to_dyn(), ld.to_dyn())
        && let plan = Plan::of_dyn(&a, &b)
        && plan.valid
    {
        // Where offset 0 of each layout is in its slice (the views were checked when made).
        let (sb, db) = (position(&ls, src.base, slen, 0).0, position(&ld, dst.base, dlen, 0).0);
        run(&plan, src.data, sb, dst.data, db);
        return Ok(());
    }
    for (s, d) in ls.offsets().zip(ld.offsets()) {
        let (sp, sl) = position(&ls, src.base, slen, s);
        let (dp, dl) = position(&ld, dst.base, dlen, d);
        // Every offset was checked against its slice when the view was made.
        if let (Some(x), Some(y)) = (src.data.get(..sl).and_then(|v| v.get(sp)), dst.data.get_mut(..dl))
            && let Some(y) = y.get_mut(dp)
        {
            *y = *x;
        }
    }
    Ok(())
}

/// Walk the plan: its first two modes as two plain loops (which the optimizer unrolls and
/// vectorizes when they are constants), the others as an odometer. Its offsets are the layouts'
/// own, checked against the slices when the views were made, so the indexing cannot fail.
#[inline(always)]
fn run<T: Copy>(plan: &Plan, src: &[T], src_base: usize, dst: &mut [T], dst_base: usize) {
    let len = plan.run;
    let mode = |k: usize| if k < plan.n { (plan.extent[k], plan.src[k], plan.dst[k]) } else { (1, 0, 0) };
    let ((e0, s0, d0), (e1, s1, d1)) = (mode(0), mode(1));
    let mut count = [0usize; MAX_MODES];
    let (mut s, mut d) = (src_base as isize, dst_base as isize);
    loop {
        for b in 0..e1 as isize {
            for a in 0..e0 as isize {
                let so = s.wrapping_add(a.wrapping_mul(s0)).wrapping_add(b.wrapping_mul(s1)) as usize;
                let dof = d.wrapping_add(a.wrapping_mul(d0)).wrapping_add(b.wrapping_mul(d1)) as usize;
                if len == 1 {
                    dst[dof] = src[so];
                } else {
                    dst[dof..dof + len].copy_from_slice(&src[so..so + len]);
                }
            }
        }
        let mut k = 2;
        loop {
            if k >= plan.n {
                return;
            }
            count[k] += 1;
            s = s.wrapping_add(plan.src[k]);
            d = d.wrapping_add(plan.dst[k]);
            if count[k] < plan.extent[k] {
                break;
            }
            count[k] = 0;
            s = s.wrapping_sub((plan.extent[k] as isize).wrapping_mul(plan.src[k]));
            d = d.wrapping_sub((plan.extent[k] as isize).wrapping_mul(plan.dst[k]));
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(s: &[(isize, isize)], d: &[(isize, isize)]) -> Plan {
        let (mut se, mut sd, mut de, mut dd) = ([0; MAX_IN], [0; MAX_IN], [0; MAX_IN], [0; MAX_IN]);
        for (k, &(e, x)) in s.iter().enumerate() {
            (se[k], sd[k]) = (e, x);
        }
        for (k, &(e, x)) in d.iter().enumerate() {
            (de[k], dd[k]) = (e, x);
        }
        Plan::new(&se, &sd, s.len(), &de, &dd, d.len())
    }

    #[test]
    fn refines_and_merges_runs() {
        // Row-major to row-major with different leading dimensions: rows are the runs.
        let p = plan(&[(4, 40), (8, 1)], &[(4, 8), (8, 1)]);
        assert!(p.valid);
        assert_eq!((p.run, p.n, p.extent[0], p.src[0], p.dst[0]), (8, 1, 4, 40, 8));
        // A flat source against a nested destination: split, then all contiguous.
        let p = plan(&[(32, 1)], &[(4, 1), (8, 4)]);
        assert_eq!((p.valid, p.run, p.n), (true, 32, 0));
        // Transpose: nothing contiguous together.
        let p = plan(&[(4, 1), (4, 4)], &[(4, 4), (4, 1)]);
        assert_eq!((p.valid, p.run, p.n), (true, 1, 2));
        // No common refinement.
        assert!(!plan(&[(6, 1), (4, 6)], &[(4, 1), (6, 4)]).valid);
        // Extent-1 integers are skipped.
        let p = plan(&[(1, 7), (8, 1)], &[(8, 1), (1, 0)]);
        assert_eq!((p.valid, p.run, p.n), (true, 8, 0));
    }
}
