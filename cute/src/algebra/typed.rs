//! CuTe's `composition` and `complement` on typed layouts whose modes are integers, with runtime
//! values: the structure of the result is in its type, so only the values are computed, in a few
//! loops over at most twelve integers, with no runtime-structured intermediate.
//!
//! The results are the same functions as those of [`crate::algebra`] (the runtime-structured
//! algebra, tested against CuTe), with the same admissibility: an error where no layout is the
//! mathematical result (DECISIONS.md, decision 2). The common case is computed here directly:
//! for `composition`, a right stride that is positive and reaches the left modes (merged by value)
//! where the divisibility conditions hold; for `complement`, non-negative strides whose positive
//! ones nest, ordered by stride alone (so static strides are ordered at compile time, as CuTe
//! orders them). Any other input is handed to [`crate::algebra`] (its by-value fits of a
//! composition, its complements of layouts that do not nest) and its answer put into the same
//! typed structure (slow, but the same answer or the same error).
//!
//! The structure is fixed by the operands' ranks, as CuTe's is by their types (decision 3 of the
//! reference allows any structure for runtime results with the same function, size and rank):
//! `composition(A, B)` has one mode per mode of `B`, each with one integer per mode of `A` (the
//! integers a result does not need are `1:0`; an answer of `algebra` whose mode has more
//! integers, such as extent-1 ones, goes in as that mode's canonical form, the same function);
//! `complement(A, M)` has one more integer than `A`, in stride order, the last the rest mode
//! `ceil(M / top):top` (CuTe's order before its final coalesce; unused integers `1:0`). Every
//! integer is an `isize`: which of the result's integers are constants depends on the order of
//! the strides, a value, which a Rust type cannot follow on stable Rust, so the result's type
//! cannot carry CuTe's static modes; once inlined, the compiler folds those integers to the same
//! constants. Fully static expressions belong to `layout!` or
//! [`crate::algebra::computed`], which keep CuTe's static structure.
//!
//! ```
//! use const_layout::algebra::typed::{complement, composition};
//! use const_layout::make_layout;
//! let (m, n) = (8usize, 4usize);
//! let a = make_layout((m * 4, n * 4), (1isize, m as isize * 4)).unwrap();
//! let b = make_layout((4usize, 2usize), (2isize, 8isize)).unwrap();
//! let c = composition(&a, &b).unwrap();
//! assert_eq!(c.to_string(), "((4,1),(2,1)):((2,0),(8,0))");
//! assert_eq!((c.crd2idx(3usize), c.size()), (6, 8));
//! let k = complement(&make_layout((4usize, m), (1isize, 16isize)).unwrap(), 4096usize).unwrap();
//! assert_eq!(k.to_string(), "(1,4,32):(1,4,128)");
//! ```

use crate::LayoutError;
use crate::algebra;
use crate::algebra::leaves::Leaves;
use crate::algebra::rules;
use crate::dyn_layout::DynLayout;
use crate::int::Int;
use crate::int_tuple::IntTuple;
use crate::layout::{Layout, LayoutShape};

/// The most integers a flat operand has (the largest tuple).
const N: usize = crate::MAX_RANK;

/// A flat int tuple: an integer, or a tuple of integers. Supplies the all-`isize` tuple of the
/// same rank that typed runtime results are made of.
///
/// ```
/// use const_layout::algebra::typed::FlatTuple;
/// use const_layout::C;
/// let r: <(usize, C<4>) as FlatTuple>::Runtime = <(usize, C<4>)>::runtime(&[3, 5]);
/// assert_eq!(r, (3isize, 5isize));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a flat int tuple",
    label = "the typed runtime algebra takes layouts whose modes are integers",
    note = "nested modes go through `const_layout::algebra` (runtime structure) or `algebra::computed` (static)"
)]
pub trait FlatTuple: IntTuple {
    /// The same rank with `isize` integers: an `isize` for an integer, `(isize, ..)` for a tuple.
    type Runtime: FlatTuple + LayoutShape<Self::Runtime>;
    /// [`Self::Runtime`] from the first `RANK` values (one per mode).
    fn runtime(values: &[isize]) -> Self::Runtime;
}

/// The shape and stride type of `composition(A, B)`: `B`'s structure with every integer replaced
/// by `A`'s structure in `isize`s.
///
/// ```
/// use const_layout::algebra::typed::Composed;
/// let _: <(usize, usize) as Composed<(usize, usize, usize)>>::Out = ((1, 2, 3), (4, 5, 6));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a flat shape that composes with `{A}`",
    note = "the typed runtime algebra takes layouts whose modes are integers"
)]
pub trait Composed<A: FlatTuple>: FlatTuple {
    /// The result's shape (and stride) type.
    type Out: IntTuple + LayoutShape<Self::Out>;
    /// The result's shape and stride, mode `j` of each from `rows.row(j)`, called in order.
    fn build<R: Rows<A>>(rows: &mut R) -> (Self::Out, Self::Out);
}

/// The shape and stride type of `complement(A, M)`: one `isize` more than `A` has.
///
/// ```
/// use const_layout::algebra::typed::Complemented;
/// let _: <usize as Complemented>::Out = (1, 2);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a flat shape of at most 11 modes",
    note = "the complement has one mode more than the layout, and tuples have at most 12"
)]
pub trait Complemented: FlatTuple {
    /// The result's shape (and stride) type.
    type Out: IntTuple + LayoutShape<Self::Out>;
    /// The result from its values.
    fn out(values: &[isize]) -> Self::Out;
}

/// The modes of a composition's result, one per right mode, each as the left layout's structure
/// (a trait rather than a closure so that it inlines).
#[doc(hidden)]
pub trait Rows<A: FlatTuple> {
    /// Mode `j`'s shape and stride.
    fn row(&mut self, j: usize) -> (A::Runtime, A::Runtime);
}

/// Names one type per position of a macro repetition.
#[doc(hidden)]
pub trait Each<X> {
    /// `X`.
    type Out;
}
impl<B: ?Sized, X> Each<X> for B {
    type Out = X;
}

impl<T: Int> FlatTuple for T {
    type Runtime = isize;
    #[inline(always)]
    fn runtime(values: &[isize]) -> isize {
        values[0]
    }
}

impl<T: Int, A: FlatTuple> Composed<A> for T {
    type Out = A::Runtime;
    #[inline(always)]
    fn build<R: Rows<A>>(rows: &mut R) -> (Self::Out, Self::Out) {
        rows.row(0)
    }
}

impl<T: Int> Complemented for T {
    type Out = (isize, isize);
    #[inline(always)]
    fn out(v: &[isize]) -> Self::Out {
        (v[0], v[1])
    }
}

macro_rules! impl_flat {
    ($([$i:tt $A:ident $B:ident $C:ident])+) => {
        impl<$($A: Int),+> FlatTuple for ($($A,)+) {
            type Runtime = ($(<$A as Each<isize>>::Out,)+);
            #[inline(always)]
            fn runtime(values: &[isize]) -> Self::Runtime {
                ($(values[$i],)+)
            }
        }
        impl<$($A: Int,)+ X: FlatTuple> Composed<X> for ($($A,)+) {
            type Out = ($(<$A as Each<X::Runtime>>::Out,)+);
            #[inline(always)]
            fn build<R: Rows<X>>(rows: &mut R) -> (Self::Out, Self::Out) {
                let modes = ($(rows.row($i),)+);
                (($(modes.$i.0,)+), ($(modes.$i.1,)+))
            }
        }
    };
}
crate::arity::for_tuples!(impl_flat);

macro_rules! impl_complemented {
    ($([$i:tt $A:ident])+; $last:tt) => {
        impl<$($A: Int),+> Complemented for ($($A,)+) {
            type Out = ($(<$A as Each<isize>>::Out,)+ isize);
            #[inline(always)]
            fn out(v: &[isize]) -> Self::Out {
                ($(v[$i],)+ v[$last])
            }
        }
    };
}
impl_complemented!([0 A0]; 1);
impl_complemented!([0 A0] [1 A1]; 2);
impl_complemented!([0 A0] [1 A1] [2 A2]; 3);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3]; 4);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3] [4 A4]; 5);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5]; 6);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6]; 7);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7]; 8);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8]; 9);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9]; 10);
impl_complemented!([0 A0] [1 A1] [2 A2] [3 A3] [4 A4] [5 A5] [6 A6] [7 A7] [8 A8] [9 A9] [10 A10]; 11);

/// A layout's integers, flat: extents, strides, count.
#[inline(always)]
fn values<S: IntTuple, D: IntTuple>(s: &S, d: &D) -> ([isize; N], [isize; N], usize) {
    let (mut sv, mut dv) = ([0isize; N], [0isize; N]);
    s.store_values(&mut sv, 0);
    d.store_values(&mut dv, 0);
    // The count as a constant (not the one `store_values` returns), so that loops over it unroll.
    (sv, dv, S::LEAVES.min(N))
}

/// A typed layout as a runtime-structured one, for the general algorithms.
fn to_dyn<S: IntTuple + LayoutShape<D>, D: IntTuple>(l: &Layout<S, D>) -> Result<DynLayout, LayoutError> {
    DynLayout::new(l.shape().to_dyn()?, l.stride().to_dyn()?)
}

/// The integers of a runtime-structured result into a row of `width` (the rest `1:0`).
fn row_of(
    l: &DynLayout,
    width: usize,
    shape: &mut [isize; N],
    stride: &mut [isize; N],
) -> Result<(), LayoutError> {
    let mut leaves = Leaves::of(l);
    if leaves.len() > width {
        // The same function in fewer integers: extent-1 leaves dropped, neighbours merged.
        leaves = leaves.canonical();
    }
    if leaves.len() > width {
        return Err(LayoutError::TooLarge);
    }
    for k in 0..width {
        (shape[k], stride[k]) =
            if k < leaves.len() { (leaves.shape(k).value, leaves.stride(k).value) } else { (1, 0) };
    }
    Ok(())
}

/// The layout [`composition`] returns for a left shape `SA` and a right shape `SB`.
pub type CompositionOf<SA, SB> = Layout<<SB as Composed<SA>>::Out, <SB as Composed<SA>>::Out>;

/// CuTe's `composition(A, B)` (`c -> A(B(c))`) of typed layouts whose modes are integers, with
/// runtime values. The result has `B`'s rank (a mode per mode of `B`), each mode `A`'s rank of
/// `isize` integers; see the [module](self).
///
/// ```
/// use const_layout::algebra::typed::composition;
/// use const_layout::{C, make_layout};
/// let a = make_layout((6usize, 4usize), (C::<1>, 8isize)).unwrap(); // columns of 6, padded to 8
/// let b = make_layout(12usize, 2isize).unwrap(); // every other element
/// let c = composition(&a, &b).unwrap();
/// assert_eq!(c.to_string(), "(3,4):(2,8)");
/// assert_eq!(c.crd2idx(5usize), a.crd2idx(10usize));
/// // No layout is `A o B` here: the right stride 4 neither divides 6 nor is divided by it.
/// let bad = make_layout(3usize, 4isize).unwrap();
/// assert!(composition(&a, &bad).is_err());
/// ```
#[inline(always)]
pub fn composition<SA, DA, SB, DB>(
    a: &Layout<SA, DA>,
    b: &Layout<SB, DB>,
) -> Result<CompositionOf<SA, SB>, LayoutError>
where
    SA: FlatTuple + LayoutShape<DA>,
    DA: IntTuple,
    SB: Composed<SA> + LayoutShape<DB>,
    DB: IntTuple,
{
    let mut walk = Walk::new(a, b);
    let (shape, stride) = SB::build(&mut walk);
    if walk.ok {
        return Layout::try_new(shape, stride);
    }
    composition_general::<SA, SB>(to_dyn(a), to_dyn(b))
}

/// [`composition`] where the common case does not hold: the runtime-structured algebra's answer
/// in the typed structure. Out of line, so that the common case inlines small.
#[cold]
#[inline(never)]
fn composition_general<SA: FlatTuple, SB: Composed<SA>>(
    a: Result<DynLayout, LayoutError>,
    b: Result<DynLayout, LayoutError>,
) -> Result<CompositionOf<SA, SB>, LayoutError> {
    let mut general = General { whole: algebra::composition(&a?, &b?)?, int: SB::IS_INT, failed: None };
    let (shape, stride) = SB::build(&mut general);
    match general.failed {
        Some(e) => Err(e),
        None => Layout::try_new(shape, stride),
    }
}

/// The rows of a runtime-structured composition.
struct General {
    whole: DynLayout,
    /// Whether the right layout is an integer (the result is one mode, not a tuple of them).
    int: bool,
    failed: Option<LayoutError>,
}

impl<A: FlatTuple> Rows<A> for General {
    fn row(&mut self, j: usize) -> (A::Runtime, A::Runtime) {
        let (mut s, mut d) = ([1isize; N], [0isize; N]);
        let mode = if self.int { Some(self.whole) } else { self.whole.mode(j) };
        if let Err(e) = mode.ok_or(LayoutError::TooLarge).and_then(|m| row_of(&m, A::RANK, &mut s, &mut d)) {
            self.failed = Some(e);
        }
        (A::runtime(&s), A::runtime(&d))
    }
}

/// The common case of [`composition`], one right mode at a time: positive right strides that
/// reach the left layout (merged by value, as the exact computation in `algebra::composition`
/// merges it) where every divisibility holds, and right modes that do not carry into each other.
/// `ok` turns `false` where anything else is needed.
struct Walk {
    /// The merged left layout: extents, strides, count.
    ms: [isize; N],
    md: [isize; N],
    m: usize,
    /// How far the right modes so far reach into each merged left mode (but the last).
    reach: [isize; N],
    /// The right layout's modes.
    bs: [isize; N],
    bd: [isize; N],
    ok: bool,
}

impl<A: FlatTuple> Rows<A> for Walk {
    #[inline(always)]
    fn row(&mut self, j: usize) -> (A::Runtime, A::Runtime) {
        let (mut s, mut d) = ([1isize; N], [0isize; N]);
        self.ok = self.ok && self.mode(self.bs[j], self.bd[j], &mut s, &mut d);
        (A::runtime(&s), A::runtime(&d))
    }
}

impl Walk {
    #[inline(always)]
    fn new<S, D, SB, DB>(a: &Layout<S, D>, b: &Layout<SB, DB>) -> Walk
    where
        S: IntTuple + LayoutShape<D>,
        D: IntTuple,
        SB: IntTuple + LayoutShape<DB>,
        DB: IntTuple,
    {
        let (sv, dv, n) = values(&a.shape(), &a.stride());
        let (bs, bd, _) = values(&b.shape(), &b.stride());
        // Extent-1 modes dropped but the last (which carries the function past the end), and
        // `s0:d0, s1:s0*d0` joined.
        let mut w = Walk { ms: [0; N], md: [0; N], m: 0, reach: [0; N], bs, bd, ok: true };
        for k in 0..n {
            let (s, d) = (sv[k], dv[k]);
            if s == 1 && k + 1 != n {
                continue;
            }
            if w.m > 0 && rules::joins(w.ms[w.m - 1], w.md[w.m - 1], d) {
                w.ms[w.m - 1] *= s; // within the checked size of A
                continue;
            }
            (w.ms[w.m], w.md[w.m]) = (s, d);
            w.m += 1;
        }
        w
    }

    /// The right mode `n:r` into `shape`, `stride` (one integer per left mode, unused ones left
    /// `1:0`); `false` if this is not the common case.
    #[inline(always)]
    fn mode(&mut self, n: isize, r: isize, shape: &mut [isize; N], stride: &mut [isize; N]) -> bool {
        let (mut rest_n, mut rest_r) = (n, r);
        if rest_n == 1 || rest_r == 0 {
            (shape[0], stride[0]) = (rest_n, 0);
            return true;
        }
        if rest_r < 0 {
            return false;
        }
        let mut out = 0;
        for k in 0..self.m - 1 {
            if rest_n == 1 {
                break;
            }
            let (s, d) = (self.ms[k], self.md[k]);
            // The rule is the runtime-structured algebra's: one implementation.
            let Ok(step) = rules::compose_step(s, rest_n, rest_r, k) else { return false };
            if let Some(extent) = step.extent {
                let Some(stride_k) = rest_r.checked_mul(d) else { return false };
                (shape[out], stride[out]) = (extent, stride_k);
                out += 1;
                if step.used > 0 {
                    let Ok(reach) = rules::spend(self.reach[k], step.used, s, k) else { return false };
                    self.reach[k] = reach;
                }
            }
            (rest_n, rest_r) = (step.size, step.stride);
        }
        if rest_n > 1 {
            let Some(step) = rest_r.checked_mul(self.md[self.m - 1]) else { return false };
            (shape[out], stride[out]) = (rest_n, step);
        }
        true
    }
}

/// CuTe's `complement(A, M)` of a typed layout whose modes are integers, with runtime values: the
/// offsets below `M` that `A` does not reach, in order, as a layout with one mode more than `A`
/// (strides may be runtime at any rank; CuTe's own code accepts runtime strides only at rank 1).
/// See the [module](self).
///
/// ```
/// use const_layout::algebra::typed::complement;
/// use const_layout::{C, make_layout};
/// let a = make_layout((C::<4>, 2usize), (C::<1>, 16isize)).unwrap();
/// let k = complement(&a, 128usize).unwrap();
/// assert_eq!(k.to_string(), "(1,4,4):(1,4,32)");
/// // Negative strides have no complement: an error.
/// let bad = make_layout((C::<4>, 2usize), (C::<1>, -6isize)).unwrap();
/// assert!(complement(&bad, 64usize).is_err());
/// ```
#[inline(always)]
pub fn complement<S, D, M>(a: &Layout<S, D>, cotarget: M) -> Result<Layout<S::Out, S::Out>, LayoutError>
where
    S: Complemented + LayoutShape<D>,
    D: IntTuple,
    M: Int,
{
    let mut shape = [1isize; N];
    let mut stride = [0isize; N];
    if complement_direct(a, cotarget.value(), &mut shape, &mut stride) {
        // Valid by construction (see `complement_direct`): no check to repeat.
        return Ok(Layout::valid_unchecked(S::out(&shape), S::out(&stride)));
    }
    complement_general(a, cotarget)
}

/// [`complement`] where the common case does not hold (see [`composition_general`]).
#[cold]
#[inline(never)]
fn complement_general<S, D, M>(a: &Layout<S, D>, cotarget: M) -> Result<Layout<S::Out, S::Out>, LayoutError>
where
    S: Complemented + LayoutShape<D>,
    D: IntTuple,
    M: Int,
{
    let cotarget = crate::dyn_layout::DynIntTuple::int(crate::dyn_layout::DynInt::new(
        cotarget.try_value().ok_or(LayoutError::ValueOutOfRange { part: "cotarget", leaf: 0 })?,
        M::STATIC.is_some(),
    ));
    let whole = algebra::complement_to(&to_dyn(a)?, &cotarget)?;
    let (mut shape, mut stride) = ([1isize; N], [0isize; N]);
    row_of(&whole, <S as IntTuple>::RANK + 1, &mut shape, &mut stride)?;
    Layout::try_new(S::out(&shape), S::out(&stride))
}

/// The common case of [`complement`]: a positive cotarget and non-negative strides whose
/// positive ones, sorted, nest: the core's rule [`rules::nested_complement`], which the
/// runtime-structured `complement` applies too. `false` where anything else is needed.
///
/// Where the strides are static (CuTe's case: CuTe requires static strides above rank 1) every
/// comparison, every place in the result and every gap between two static spans is a constant
/// once inlined; only what depends on a runtime extent is computed, and nothing branches on a
/// runtime extent that the answer does not depend on (a branch to the general path would merge
/// its answer with this one, and what the caller computes from the result would no longer fold).
#[inline(always)]
fn complement_direct<S, D>(
    a: &Layout<S, D>,
    cotarget: isize,
    shape: &mut [isize; N],
    stride: &mut [isize; N],
) -> bool
where
    S: IntTuple + LayoutShape<D>,
    D: IntTuple,
{
    let (sv, dv, n) = values(&a.shape(), &a.stride());
    let mut out = rules::NestedComplement::<N>::new();
    if !rules::nested_complement(&sv, &dv, n, cotarget, &mut out) {
        return false;
    }
    (*shape, *stride) = (out.shape, out.stride);
    true
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::make_layout;
    use std::vec::Vec;

    /// A fixed pseudo-random sequence.
    struct Gen(u64);
    impl Gen {
        fn next(&mut self, lo: isize, hi: isize) -> isize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            lo + (self.0 % (hi - lo + 1) as u64) as isize
        }
    }

    fn offsets<S: IntTuple + LayoutShape<D>, D: IntTuple>(l: &Layout<S, D>) -> Vec<isize> {
        l.iter().collect()
    }

    /// One typed answer against the runtime algebra's: both the same function, or the same error
    /// (and then not from the direct path). Counts admissible cases and direct answers.
    fn tally<S: IntTuple + LayoutShape<D>, D: IntTuple>(
        counts: &mut [usize; 2],
        what: &str,
        took: bool,
        ours: Result<Layout<S, D>, LayoutError>,
        theirs: Result<DynLayout, LayoutError>,
    ) {
        match (ours, theirs) {
            (Ok(o), Ok(t)) => {
                counts[0] += 1;
                counts[1] += took as usize;
                assert_eq!(offsets(&o), t.offsets().collect::<Vec<_>>(), "{what}: ours {o}, theirs {t}");
            }
            (Err(o), Err(t)) => {
                assert!(!took, "{what}: the direct path answered where there is no layout");
                assert_eq!(o, t, "{what}");
            }
            (o, t) => panic!("{what}: ours {o:?}, theirs {t:?}"),
        }
    }

    /// Typed `composition` against `algebra::composition` on generated flat layouts: the same
    /// answer (Ok with the same function and rank, or the same error), and the direct path taken
    /// in most admissible cases (so that its own results are what is compared).
    #[test]
    fn composition_is_the_runtime_algebras() {
        let mut g = Gen(0x5eed_1234);
        let (mut counts, mut cases) = ([0usize; 2], 0);
        for _ in 0..6000 {
            let s = [g.next(1, 8) as usize, g.next(1, 6) as usize, g.next(1, 5) as usize];
            let pad = g.next(0, 3);
            let d0: isize = [1, 1, 2, 3, 0, -1][g.next(0, 5) as usize];
            let d1 = s[0] as isize * d0.abs().max(1) + pad;
            let d = [d0, d1, d1 * s[1] as isize + [0, 0, 1, 5][g.next(0, 3) as usize]];
            let a = make_layout((s[0], s[1], s[2]), (d[0], d[1], d[2])).unwrap();
            let b =
                make_layout((g.next(1, 6) as usize, g.next(1, 4) as usize), (g.next(-2, 12), g.next(0, 40)))
                    .unwrap();
            // Integers on either side: `A` of one mode, `B` of one mode.
            let (a1, b1) = (make_layout(s[0] * s[1], d[0]).unwrap(), make_layout(s[2], d[1]).unwrap());
            let mut side = [0usize; 2];
            let t1 = algebra::composition(&to_dyn(&a).unwrap(), &to_dyn(&b1).unwrap());
            tally(&mut side, &std::format!("{a} o {b1}"), false, composition(&a, &b1), t1);
            let t2 = algebra::composition(&to_dyn(&a1).unwrap(), &to_dyn(&b).unwrap());
            tally(&mut side, &std::format!("{a1} o {b}"), false, composition(&a1, &b), t2);
            cases += 1;
            check_composition(&mut counts, &a, &b);
        }
        let [ok, direct] = counts;
        assert!(ok * 3 > cases, "{ok} of {cases} admissible: the generator misses the common case");
        assert!(direct * 2 > ok, "the direct path took {direct} of {ok} admissible cases");
    }

    /// One typed composition against `algebra::composition` (see [`tally`]). Whether the direct
    /// path answered.
    fn check_composition<SA, DA, SB, DB>(
        counts: &mut [usize; 2],
        a: &Layout<SA, DA>,
        b: &Layout<SB, DB>,
    ) -> bool
    where
        SA: FlatTuple + LayoutShape<DA>,
        DA: IntTuple,
        SB: Composed<SA> + LayoutShape<DB>,
        DB: IntTuple,
    {
        let took = {
            let mut walk = Walk::new(a, b);
            let (bs, bd, bn) = values(&b.shape(), &b.stride());
            (0..bn).all(|j| walk.mode(bs[j], bd[j], &mut [1; N], &mut [0; N]))
        };
        let ours = composition(a, b);
        let theirs = algebra::composition(&to_dyn(a).unwrap(), &to_dyn(b).unwrap());
        if let (Ok(o), Ok(t)) = (&ours, &theirs)
            && !SB::IS_INT
        {
            // The rank of a tuple `B` (an integer `B` gives one mode, as `A`'s structure).
            assert_eq!((o.rank(), SB::RANK), (t.rank(), t.rank()), "{a} o {b}: ours {o}, theirs {t}");
        }
        tally(counts, &std::format!("{a} o {b}"), took, ours, theirs);
        took
    }

    /// Compositions that only the by-value fit answers (a right stride `r = q*s0 + s0/p` that
    /// neither divides nor is divided by the first left extent `s0`, yet `A o B` is a layout:
    /// `(p, n/p):(A(r), A(p*r))`), with left layouts of two and three modes and right layouts of
    /// one and two: the typed composition answers wherever `algebra` does, with its function, size
    /// and rank (the general path). CuTe's own example first, static where it is.
    #[test]
    fn composition_answers_where_algebra_fits() {
        let a = make_layout((crate::C::<6>, crate::C::<5>), (crate::C::<7>, crate::C::<31>)).unwrap();
        let b = make_layout((8usize, crate::C::<1>), (9isize, crate::C::<3>)).unwrap();
        let theirs = algebra::composition(&to_dyn(&a).unwrap(), &to_dyn(&b).unwrap()).unwrap();
        assert_eq!(std::format!("{theirs}"), "((2,4),1):((52,93),0)");
        let ours = composition(&a, &b).unwrap();
        assert_eq!(std::format!("{ours}"), "((2,4),(1,1)):((52,93),(0,0))");
        assert_eq!(offsets(&ours), theirs.offsets().collect::<Vec<_>>());
        // An answer whose mode has more integers than `A` (here extent-1 and mergeable ones)
        // goes into the typed structure as its canonical form, the same function.
        let (mut s, mut d) = ([1isize; N], [0isize; N]);
        row_of(&"(2,1,4):(1,7,2)".parse().unwrap(), 2, &mut s, &mut d).unwrap();
        assert_eq!((&s[..2], &d[..2]), (&[8, 1][..], &[1, 0][..]));
        let mut g = Gen(0xf177_ed00);
        let (mut counts, mut fitted, mut cases) = ([0usize; 2], 0, 0);
        for _ in 0..3000 {
            let (p, u) = (g.next(2, 4), g.next(1, 4));
            let s0 = p * u;
            let r = s0 * g.next(1, 3) + u * [1, 1, 1, p - 1][g.next(0, 3) as usize];
            let (s1, s2) = (g.next(2, 6) as usize, g.next(1, 4) as usize);
            let d = [g.next(1, 9), g.next(1, 60), g.next(0, 400)];
            let n = (p * g.next(1, 4)) as usize;
            let a2 = make_layout((s0 as usize, s1), (d[0], d[1])).unwrap();
            let a3 = make_layout((s0 as usize, s1, s2), (d[0], d[1], d[2])).unwrap();
            let b1 = make_layout(n, r).unwrap();
            let b2 = make_layout(
                (n, g.next(1, 3) as usize),
                (r, [0, r * n as isize, g.next(1, 30)][g.next(0, 2) as usize]),
            )
            .unwrap();
            for took in [
                check_composition(&mut counts, &a2, &b1),
                check_composition(&mut counts, &a2, &b2),
                check_composition(&mut counts, &a3, &b1),
                check_composition(&mut counts, &a3, &b2),
            ] {
                cases += 1;
                fitted += !took as usize;
            }
        }
        let [ok, direct] = counts;
        assert!(ok * 2 > cases, "{ok} of {cases} admissible");
        assert!(ok - direct > ok / 2 && fitted > cases / 2, "{} of {ok} answers by the fit", ok - direct);
    }

    /// One typed complement against `algebra::complement_to` (see [`tally`]); a direct answer,
    /// built without `Layout::try_new`, must pass it. Whether the direct path answered.
    fn check_complement<S, D>(counts: &mut [usize; 2], a: &Layout<S, D>, m: usize) -> bool
    where
        S: Complemented + LayoutShape<D>,
        D: IntTuple,
    {
        let took = complement_direct(a, m as isize, &mut [1; N], &mut [0; N]);
        let ours = complement(a, m);
        let cotarget =
            crate::dyn_layout::DynIntTuple::int(crate::dyn_layout::DynInt::new_runtime(m as isize));
        let theirs = algebra::complement_to(&to_dyn(a).unwrap(), &cotarget);
        if let Ok(o) = &ours {
            assert!(Layout::try_new(o.shape(), o.stride()).is_ok(), "complement({a}, {m}) = {o}");
        }
        tally(counts, &std::format!("complement({a}, {m})"), took, ours, theirs);
        took
    }

    /// Modes that do not move, which `algebra` leaves out and the direct path keeps in the
    /// stride order: extent-1 modes anywhere (also at the largest stride, where the rest mode is
    /// measured from another span), stride-0 modes; three modes, runtime and static strides.
    #[test]
    fn complement_keeps_modes_that_do_not_move() {
        let mut g = Gen(0x0dd_5eed);
        let (mut counts, mut cases) = ([0usize; 2], 0);
        for _ in 0..6000 {
            let s = [1, 2, 3].map(|_| [1, 1, 2, 3, 4, 5][g.next(0, 5) as usize] as usize);
            // Nested strides in a random order, one of them 0 now and then.
            let mut d = [1isize; 3];
            d[1] = d[0] * s[0] as isize * [1, 1, 2, 4][g.next(0, 3) as usize];
            d[2] = d[1] * s[1] as isize * [1, 1, 2, 3][g.next(0, 3) as usize];
            if g.next(0, 4) == 0 {
                d[g.next(0, 2) as usize] = 0;
            }
            let order = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0]][g.next(0, 3) as usize];
            let [s0, s1, s2] = order.map(|k| s[k]);
            let [d0, d1, d2] = order.map(|k| d[k]);
            let a = make_layout((s0, s1, s2), (d0, d1, d2)).unwrap();
            let m = g.next(1, 400) as usize;
            cases += 1;
            check_complement(&mut counts, &a, m);
        }
        let [ok, direct] = counts;
        assert!(ok * 2 > cases, "{ok} of {cases} admissible");
        assert!(direct * 2 > ok, "the direct path took {direct} of {ok} admissible cases");
        // CuTe's anchor, strides static: with m = 1 the largest stride is on an extent-1 mode, and
        // the direct path still answers wherever measuring from either span agrees (all M that
        // are multiples of 16 among them).
        let mut agreed = 0;
        for m in 1..=20usize {
            for cotarget in (1..=700).step_by(3).chain([4096]) {
                let a = make_layout((crate::C::<4>, m), (crate::C::<1>, crate::C::<16>)).unwrap();
                let took = check_complement(&mut counts, &a, cotarget);
                assert!(took || m == 1, "complement({a}, {cotarget}) not direct");
                agreed += (m == 1 && took) as usize;
                assert!(took || cotarget % 16 != 0, "complement({a}, {cotarget}) not direct");
            }
        }
        assert!(agreed > 20, "{agreed}");
    }

    /// Typed `complement` against `algebra::complement_to`, likewise.
    #[test]
    fn complement_is_the_runtime_algebras() {
        let mut g = Gen(0xc0ff_ee00);
        let (mut counts, mut cases) = ([0usize; 2], 0);
        for _ in 0..6000 {
            let s = [g.next(1, 6) as usize, g.next(1, 5) as usize];
            let d0: isize = [1, 1, 2, 3, 0, -1][g.next(0, 5) as usize];
            let d1 = s[0] as isize * d0.abs().max(1) * [1, 1, 2, 3][g.next(0, 3) as usize]
                + [0, 0, 0, 1][g.next(0, 3) as usize];
            let (d0, d1) = if g.next(0, 1) == 0 { (d0, d1) } else { (d1, d0) };
            let a = make_layout((s[0], s[1]), (d0, d1)).unwrap();
            let m = g.next(1, 300) as usize;
            cases += 1;
            check_complement(&mut counts, &a, m);
        }
        let [ok, direct] = counts;
        // Cotargets at the end of `isize`: the direct path declines, the answer is the general one.
        let a = make_layout((3usize, 2usize), (1isize, 3isize)).unwrap();
        for m in [isize::MAX as usize, isize::MAX as usize - 5, isize::MAX as usize / 2 + 1] {
            let cotarget =
                crate::dyn_layout::DynIntTuple::int(crate::dyn_layout::DynInt::new_runtime(m as isize));
            let theirs = algebra::complement_to(&to_dyn(&a).unwrap(), &cotarget);
            let took = complement_direct(&a, m as isize, &mut [1; N], &mut [0; N]);
            let mut side = [0usize; 2];
            let ours = complement(&a, m);
            if let Ok(o) = &ours {
                assert!(Layout::try_new(o.shape(), o.stride()).is_ok(), "complement({a}, {m}) = {o}");
            }
            match (ours, theirs) {
                // Too large to enumerate: the size and offsets at both ends.
                (Ok(o), Ok(t)) => {
                    let size = t.size().value;
                    assert_eq!(o.size(), size, "complement({a}, {m})");
                    for i in [0, 1, 2, 5, 6, 7, size / 2, size - 1] {
                        assert_eq!(o.crd2idx(i), t.offset(i), "complement({a}, {m}) at {i}");
                    }
                }
                (ours, theirs) => tally(&mut side, "huge cotarget", took, ours, theirs),
            }
        }
        assert!(ok * 3 > cases, "{ok} of {cases} admissible");
        assert!(direct * 2 > ok, "the direct path took {direct} of {ok} admissible cases");
    }
}
