//! CuTe's `copy(src, dst)` between tensors of the same shape over any layouts.
//!
//! Where both layouts are plain (strides, no swizzle), their integers are refined to one common
//! list of modes (a mode `s:d` splits into `(a, s/a):(d, a*d)` where the other layout has a mode
//! boundary), so that every mode carries one extent and two strides. Modes whose strides are the
//! running run length in *both* tensors (1, then the product so far) are contiguous together:
//! they are merged into one run copied with `copy_from_slice`, and the other modes are walked by
//! an odometer (adds, no divisions). This is CuTe's `max_common_vector` computed on values, so
//! runtime extents and strides vectorize too (CuTe's follows static strides only, so a static
//! layout gets at least CuTe's vector). The plan of two static layouts is a compile-time
//! constant, and so is the check of their shapes. Other layouts (swizzled, composed) are copied
//! element by element in index order.

use super::{Tensor, TensorError, TensorMut, position};
use crate::dyn_layout::DynIntTuple;
use crate::dyn_layout::ops::compatible;
use crate::layout::{AnyLayout, DynAnyLayout, FLAT_CAP, Flat};
use core::marker::PhantomData;

/// The most modes a copy plan holds after refinement; more falls back to index-by-index copying.
const MAX_MODES: usize = 24;

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

    /// The plan for the source's and the destination's integers, or [`Plan::INVALID`] if either
    /// is not plain, they have no common refinement or too many modes.
    const fn new(s: &Flat, d: &Flat) -> Plan {
        if !s.plain || !d.plain {
            return Plan::INVALID;
        }
        let mut p = Plan::INVALID;
        let (mut i, mut j) = (0usize, 0usize);
        // The unconsumed part of the current source and destination integer.
        let (mut a, mut sa, mut b, mut sb) = (1isize, 0isize, 1isize, 0isize);
        loop {
            while a == 1 && i < s.len {
                a = s.extent[i];
                sa = s.stride[i];
                i += 1;
            }
            while b == 1 && j < d.len {
                b = d.extent[j];
                sb = d.stride[j];
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

    /// The plan of two layouts' values (both plain, within the capacity), else
    /// [`Plan::INVALID`].
    #[inline(always)]
    fn of(src: Option<&Flat>, dst: Option<&Flat>) -> Plan {
        match (src, dst) {
            (Some(a), Some(b)) => Plan::new(a, b),
            _ => Plan::INVALID,
        }
    }
}

/// The compile-time plan of two static plain layouts ([`Plan::INVALID`] otherwise).
struct StaticPlan<A, B>(PhantomData<(A, B)>);

impl<A: AnyLayout, B: AnyLayout> StaticPlan<A, B> {
    const PLAN: Plan = match (A::STATIC_FLAT, B::STATIC_FLAT) {
        (Some(a), Some(b)) => Plan::new(&a, &b),
        _ => Plan::INVALID,
    };
}

/// Which integers of one shape must equal the product of which integers of another for the
/// first to be compatible with the second (CuTe's `compatible(a, b)`: every coordinate of `a` is
/// one of `b`): an integer of `a` against a whole mode of `b`, found from the structures alone.
#[derive(Clone, Copy)]
struct Groups {
    /// Whether the structures allow it at all (a tuple against an integer, or tuples of
    /// different ranks, do not).
    ok: bool,
    n: usize,
    /// Integer `leaf[k]` of `a` is the product of integers `from[k]..to[k]` of `b`.
    leaf: [u8; FLAT_CAP],
    from: [u8; FLAT_CAP],
    to: [u8; FLAT_CAP],
}

impl Groups {
    const NONE: Groups =
        Groups { ok: false, n: 0, leaf: [0; FLAT_CAP], from: [0; FLAT_CAP], to: [0; FLAT_CAP] };

    /// The groups of `a` against `b`.
    const fn new(a: &DynIntTuple, b: &DynIntTuple) -> Groups {
        let mut g = Groups { ok: true, ..Groups::NONE };
        g.ok = g.walk(a, b, &mut 0, &mut 0);
        g
    }

    /// The number of integers of a tuple (`usize::MAX` past the encoding's capacity).
    const fn leaves(t: &DynIntTuple) -> usize {
        match t.flatten() {
            Ok(f) if f.is_int() => 1,
            Ok(f) => f.rank(),
            Err(_) => usize::MAX,
        }
    }

    /// `a` against `b`, their first integers numbered `at_a` and `at_b`.
    const fn walk(&mut self, a: &DynIntTuple, b: &DynIntTuple, at_a: &mut usize, at_b: &mut usize) -> bool {
        let nb = Self::leaves(b);
        if a.is_int() {
            let to = at_b.saturating_add(nb);
            if self.n == FLAT_CAP || to > FLAT_CAP {
                return false; // past the plan's capacity: never used (`flat` is `None` there)
            }
            (self.leaf[self.n], self.from[self.n], self.to[self.n]) = (*at_a as u8, *at_b as u8, to as u8);
            self.n += 1;
            *at_a += 1;
            *at_b = to;
            return true;
        }
        if b.is_int() || a.rank() != b.rank() {
            return false;
        }
        let mut k = 0;
        while k < a.rank() {
            match (a.mode(k), b.mode(k)) {
                (Some(x), Some(y)) => {
                    if !self.walk(&x, &y, at_a, at_b) {
                        return false;
                    }
                }
                _ => return false,
            }
            k += 1;
        }
        true
    }

    /// Whether the values satisfy the groups.
    #[inline(always)]
    fn hold(&self, a: &Flat, b: &Flat) -> bool {
        if !self.ok {
            return false;
        }
        let mut k = 0;
        while k < self.n {
            let (from, to) = (self.from[k] as usize, self.to[k] as usize);
            let product = b.extent[from..to].iter().fold(1isize, |p, &e| p.wrapping_mul(e));
            if a.extent[self.leaf[k] as usize] != product {
                return false;
            }
            k += 1;
        }
        true
    }
}

/// The compatibility groups of two typed kinds' shapes, both ways, computed once per pair.
struct ShapeCheck<A, B>(PhantomData<(A, B)>);

impl<A: AnyLayout, B: AnyLayout> ShapeCheck<A, B> {
    const GROUPS: (Groups, Groups) = match (A::FORM, B::FORM) {
        (Some(a), Some(b)) => (Groups::new(&a, &b), Groups::new(&b, &a)),
        _ => (Groups::NONE, Groups::NONE),
    };
}

/// The shape of a runtime-structured layout of either kind.
fn dyn_shape(l: &DynAnyLayout) -> DynIntTuple {
    match l {
        DynAnyLayout::Layout(l) => *l.shape(),
        DynAnyLayout::Composed(c) => *c.inner().shape(),
    }
}

/// `Ok` if the two layouts' shapes are compatible one way or the other (their sizes equal, and
/// every coordinate of one is a coordinate of the other: `(32,32)` and `((4,8),32)`), else
/// [`TensorError::ShapeMismatch`]. Where both kinds are typed the structure is compared at
/// compile time and only the integers at run time (nothing at all for static ones).
#[inline(always)]
fn same_shape<A: AnyLayout, B: AnyLayout>(
    a: &A,
    b: &B,
    fa: Option<&Flat>,
    fb: Option<&Flat>,
) -> Result<(), TensorError> {
    let (na, nb) = (a.size(), b.size());
    let ok = na == nb
        && match (fa, fb) {
            (Some(fa), Some(fb)) if A::FORM.is_some() && B::FORM.is_some() => {
                let (ab, ba) = const { &ShapeCheck::<A, B>::GROUPS };
                ab.hold(fa, fb) || ba.hold(fb, fa)
            }
            _ => match (a.to_dyn(), b.to_dyn()) {
                (Ok(x), Ok(y)) => {
                    let (x, y) = (dyn_shape(&x), dyn_shape(&y));
                    compatible(&x, &y) || compatible(&y, &x)
                }
                _ => false,
            },
        };
    if ok { Ok(()) } else { Err(TensorError::ShapeMismatch { src: na, dst: nb }) }
}

/// The number of contiguous elements [`copy`] moves at once between tensors with these layouts
/// (CuTe's `max_common_vector`, on values): 1 when they are never contiguous together, or when
/// either is not a plain layout (a swizzled one).
///
/// ```
/// use const_layout::tensor::copy_vector;
/// use const_layout::{C, LayoutLeft, LayoutRight, layout, make_layout};
/// let col = make_layout((C::<32>, C::<32>), LayoutLeft).unwrap();
/// let padded = make_layout((C::<32>, C::<32>), (C::<1>, 40isize)).unwrap();
/// let row = make_layout((C::<32>, C::<32>), LayoutRight).unwrap();
/// assert_eq!(copy_vector(&col, &col), 1024);
/// assert_eq!(copy_vector(&col, &padded), 32); // one column at a time
/// assert_eq!(copy_vector(&col, &row), 1); // a transpose
/// let (m, ld) = (100usize, 128isize); // runtime values vectorize too
/// assert_eq!(copy_vector(&make_layout((m, 8usize), (1isize, ld)).unwrap(), &make_layout((m, 8usize), LayoutLeft).unwrap()), 100);
/// // Any layout kinds: a runtime-structured one against a typed one.
/// let d: const_layout::dyn_layout::DynLayout = "(32,32):(1,32)".parse().unwrap();
/// assert_eq!(copy_vector(&d, &col), 1024);
/// assert_eq!(copy_vector(&layout!(composition(Sw<3,3,3>, (32,32):(1,32))), &col), 1);
/// ```
pub fn copy_vector<A: AnyLayout, B: AnyLayout>(src: &A, dst: &B) -> usize {
    let plan = if A::IS_STATIC && B::IS_STATIC {
        const { &StaticPlan::<A, B>::PLAN }
    } else {
        &Plan::of(src.flat().as_ref(), dst.flat().as_ref())
    };
    if plan.valid { plan.run } else { 1 }
}

/// CuTe's `copy(src, dst)`: `dst(i) = src(i)` for every index `i`, for tensors of the same shape
/// (equal sizes, and one shape's coordinates are the other's: `(32,32)` and `((4,8),32)` match,
/// `(2,3)` and `(3,2)` do not: [`TensorError::ShapeMismatch`]; CuTe checks the sizes only) over
/// any layouts ([`AnyLayout`]: typed, static algebra results, swizzled, runtime-structured).
///
/// Where both layouts are plain and contiguous together (see [`copy_vector`]) whole runs are
/// copied with `copy_from_slice`; a row-major to column-major copy, or one through a swizzle,
/// goes element by element. For two static layouts the plan and the shape check are constants.
///
/// ```
/// use const_layout::tensor::{copy, make_tensor, make_tensor_mut};
/// use const_layout::{C, LayoutLeft, LayoutRight, layout, make_layout};
/// let src: Vec<i32> = (0..6).collect();
/// let mut dst = vec![0; 6];
/// let a = make_tensor(&src, make_layout((2usize, C::<3>), LayoutRight).unwrap()).unwrap();
/// let mut b = make_tensor_mut(&mut dst, make_layout((2usize, C::<3>), LayoutLeft).unwrap()).unwrap();
/// copy(&a, &mut b).unwrap();
/// assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
///
/// // Into a swizzled layout: Sw<1,1,1> flips bit 1 where bit 2 is set.
/// let src: Vec<i32> = (0..8).collect();
/// let mut dst = vec![0; 8];
/// let a = make_tensor(&src, layout!((4,2):(1,4))).unwrap();
/// let mut b = make_tensor_mut(&mut dst, layout!(composition(Sw<1,1,1>, (4,2):(1,4)))).unwrap();
/// copy(&a, &mut b).unwrap();
/// assert_eq!(dst, [0, 1, 2, 3, 6, 7, 4, 5]);
/// ```
#[inline]
pub fn copy<T: Copy, A: AnyLayout, B: AnyLayout>(
    src: &Tensor<'_, T, A>,
    dst: &mut TensorMut<'_, T, B>,
) -> Result<(), TensorError> {
    let (ls, ld) = (src.layout, dst.layout);
    let all_static = A::IS_STATIC && B::IS_STATIC;
    let (fs, fd) = (ls.flat(), ld.flat());
    same_shape(&ls, &ld, fs.as_ref(), fd.as_ref())?;
    let plan =
        if all_static { const { &StaticPlan::<A, B>::PLAN } } else { &Plan::of(fs.as_ref(), fd.as_ref()) };
    let (slen, dlen) = (src.data.len(), dst.data.len());
    if plan.valid {
        if all_static {
            // Cut both slices to their constant lengths, so that with the plan's constant
            // extents and strides the optimizer proves every index in range.
            let ((sb, sl), (db, dl)) = (position(&ls, src.base, slen, 0), position(&ld, dst.base, dlen, 0));
            if let (Some(s), Some(d)) = (src.data.get(..sl), dst.data.get_mut(..dl)) {
                run(plan, s, sb, d, db);
            }
        } else {
            run(plan, src.data, src.base, dst.data, dst.base);
        }
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
        let flat = |v: &[(isize, isize)]| {
            let mut f = Flat { len: v.len(), plain: true, extent: [1; FLAT_CAP], stride: [0; FLAT_CAP] };
            for (k, &(e, x)) in v.iter().enumerate() {
                (f.extent[k], f.stride[k]) = (e, x);
            }
            f
        };
        Plan::new(&flat(s), &flat(d))
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
