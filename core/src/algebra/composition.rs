//! `composition(A, B)`: the layout `c -> A(B(c))`.
//!
//! Two computations run side by side. CuTe's algorithm (on CuTe's coalesced `A`, with CuTe's
//! static rules) gives CuTe's result and structure. An exact one on the merged form of `A` checks
//! the conditions under which a layout result exists at all (divisibility at every mode the
//! right layout's strides reach, and no carries between the right layout's modes) and gives the
//! correct result. CuTe's is returned when it is the same function, the exact one otherwise.
//!
//! The conditions are sufficient, not necessary. Where they fail on a right layout of at most
//! [`BY_VALUE_LIMIT`] elements, `A(B(i))` is evaluated and fitted, leaf by leaf of `B`
//! ([`super::fit`]), and the fit checked at every `i`; only if that fails too (no layout
//! compatible with `B`, each leaf of `B` a leaf or a tuple of its size, is `A o B`) is the answer
//! an [`Inadmissible`] error. Fitting `B`'s leaves keeps CuTe's contract that every coordinate
//! of `B` is a coordinate of the result, which reads `A(B(c))` there.
//!
//! A right layout with basis strides (CuTe's `E<i>`, written `k@i`) maps a coordinate to a
//! coordinate of `A`: each of its modes `n:k@p` composes with mode `p` of `A` alone (CuTe's
//! `basis_get`), with the conditions checked per mode of `A`.

use super::coalesce::{bw_coalesce_into, checked_modes};
use super::fit::ModeFit;
use super::leaves::{Leaves, SMALL};
use super::rules;
use super::tiler::{TileMode, Tiler};
use super::{R, is_const, min, mul, scalar, signum};
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{Basis, DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::Inadmissible;
use crate::error::{LayoutError, tri};

/// CuTe's `composition(lhs, rhs)` for two layouts: `R(c) == lhs(rhs(c))` for every coordinate `c`
/// of `rhs`, with `rhs`'s shape refined where needed. `lhs` is read past its end as CuTe does (its
/// last mode goes on). Strides of `rhs` may be basis elements: `k@p` reads mode `p` of `lhs`.
///
/// ```
/// use const_layout::algebra::composition;
/// let a = "(_6,_2):(_8,_2)".parse().unwrap();
/// let b = "(_4,_3):(_3,_1)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "((_2,_2),_3):((_24,_2),_8)");
/// // A transpose by basis strides (CuTe's composition tests).
/// let a = "(_4,_4):(_4,_1)".parse().unwrap();
/// let b = "(_4,_4):(_1@1,_1@0)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "(_4,_4):(_1,_4)");
/// // 9 is not a multiple of 6, yet A o B is a layout: found by value.
/// let a = "(_6,_5):(_7,_31)".parse().unwrap();
/// let b = "(8,_1):(9,_3)".parse().unwrap();
/// assert_eq!(composition(&a, &b).unwrap().to_string(), "((2,4),1):((52,93),0)");
/// ```
pub const fn composition(lhs: &DynLayout, rhs: &DynLayout) -> R<DynLayout> {
    // On small working lists first (see `Leaves`): the same code, so the same answer.
    let composed = match compose_in::<SMALL>(lhs, rhs) {
        Err(LayoutError::TooLarge) => compose_in::<MAX_NODES>(lhs, rhs),
        r => r,
    };
    match composed {
        Err(e @ LayoutError::Inadmissible { .. }) => checked_by_value(lhs, rhs, e),
        r => r,
    }
}

/// The structural composition on working lists of `N` modes (`Err(TooLarge)` past them).
pub(crate) const fn compose_in<const N: usize>(lhs: &DynLayout, rhs: &DynLayout) -> R<DynLayout> {
    // Prepared and composed in place: a `Composer` is not moved step by step.
    let mut composer = Composer::<N>::new(lhs, rhs.has_basis());
    if !rhs.has_basis() {
        tri!(composer.prepare());
    }
    composer.compose(rhs)
}

/// The largest right layout (in elements) whose composition is evaluated point by point where
/// the structural conditions fail. Larger ones are refused with [`Inadmissible::Unchecked`].
pub const BY_VALUE_LIMIT: isize = 1 << 14;

/// Where the structural conditions fail: CuTe's answer if it is `lhs o rhs` everywhere, else the
/// layout compatible with `rhs` fitted to `lhs(rhs(i))` leaf by leaf, if it is `lhs o rhs`
/// everywhere; else `err`, the condition that failed, or, where a leaf inside one of `rhs`'s
/// tuple modes has no layout, [`Inadmissible::NoCompatibleLayout`] naming it.
const fn checked_by_value(lhs: &DynLayout, rhs: &DynLayout, err: LayoutError) -> R<DynLayout> {
    if lhs.has_basis() {
        return Err(err);
    }
    let size = rhs.size().value;
    if size > BY_VALUE_LIMIT {
        return Err(inadmissible(Inadmissible::Unchecked { size, limit: BY_VALUE_LIMIT }));
    }
    let a = Leaves::of(lhs);
    let Ok(b) = Right::of(lhs, rhs) else { return Err(err) };
    let mut composer = Composer::<MAX_NODES>::new(lhs, rhs.has_basis());
    let ready = rhs.has_basis() || composer.prepare().is_ok();
    if ready
        && let Ok(cute) = composer.map_leaves(rhs)
        && agrees(&cute, &a, &b, size)
    {
        return Ok(cute);
    }
    // The fitted values depend on every integer of both operands (the left layout's extents
    // decide where its modes wrap), so they are static only if all of them are.
    let all_static = lhs.shape().is_static()
        && lhs.stride().is_static()
        && rhs.shape().is_static()
        && rhs.stride().is_static();
    match fitted(lhs, &a, rhs, all_static) {
        Ok(Fit::Found(r)) if agrees(&r, &a, &b, size) => Ok(r),
        // A leaf inside a tuple mode: the reason is that leaf (its mode as a whole may have a
        // layout, but no layout with the right layout's shape does). A top-level leaf keeps the
        // condition that failed, which names the left layout's mode.
        Ok(Fit::NoLayout { leaf, extent, stride, nested: true }) => {
            Err(inadmissible(Inadmissible::NoCompatibleLayout { leaf, extent, stride }))
        }
        _ => Err(err),
    }
}

/// The right layout as the evaluation reads it: its flat modes, each with the range of the left
/// layout's flat modes its stride moves in (all of them for an integer stride; for a basis
/// stride `k@p`, those of mode `p`, which its coordinate indexes as a 1-D index).
struct Right {
    n: usize,
    extent: [isize; MAX_NODES],
    stride: [isize; MAX_NODES],
    lo: [usize; MAX_NODES],
    hi: [usize; MAX_NODES],
}

impl Right {
    const fn of(lhs: &DynLayout, rhs: &DynLayout) -> R<Right> {
        let mut r = Right {
            n: 0,
            extent: [0; MAX_NODES],
            stride: [0; MAX_NODES],
            lo: [0; MAX_NODES],
            hi: [0; MAX_NODES],
        };
        let all = leaf_count(lhs.shape());
        let (s, d) = (rhs.shape(), rhs.stride());
        let mut k = 0;
        let mut kd = 0;
        while let (Some((sk, sn)), Some((dk, dn))) = (s.read(k), d.read(kd)) {
            (k, kd) = (sn, dn);
            if let (Node::Int(e), Node::Int(v)) = (sk, dk) {
                let (lo, hi) = if v.basis.is_none() {
                    (0, all)
                } else {
                    let (sub, base) = tri!(at_path(lhs, v.basis));
                    (base, base + leaf_count(sub.shape()))
                };
                if r.n == MAX_NODES {
                    return Err(LayoutError::TooLarge);
                }
                r.extent[r.n] = e.value;
                r.stride[r.n] = v.value;
                r.lo[r.n] = lo;
                r.hi[r.n] = hi;
                r.n += 1;
            }
        }
        Ok(r)
    }

    /// `a(self(i))`: each mode's coordinate times its stride, summed per range of `a`, each range
    /// read as a 1-D index (its last mode extending). `None` on overflow or outside `a`'s domain.
    const fn composed_at(&self, a: &Leaves, i: isize) -> Option<isize> {
        let mut at = [0isize; MAX_NODES];
        let mut used = [false; MAX_NODES];
        let (mut rest, mut k) = (i, 0);
        while k < self.n {
            let c = if k + 1 == self.n {
                rest
            } else {
                let c = rest % self.extent[k];
                rest /= self.extent[k];
                c
            };
            let Some(step) = c.checked_mul(self.stride[k]) else { return None };
            let Some(x) = at[self.lo[k]].checked_add(step) else { return None };
            at[self.lo[k]] = x;
            used[self.lo[k]] = true;
            k += 1;
        }
        let (mut total, mut k) = (0isize, 0);
        while k < self.n {
            let lo = self.lo[k];
            if used[lo] {
                used[lo] = false;
                let Some(v) = value_at(a, lo, self.hi[k], at[lo]) else { return None };
                let Some(t) = total.checked_add(v) else { return None };
                total = t;
            }
            k += 1;
        }
        Some(total)
    }
}

/// `l(x)` for the flat modes `lo..hi` of `l` (the last one extending), or `None` on overflow or
/// for `x < 0` (outside the left layout's domain).
const fn value_at(l: &Leaves, lo: usize, hi: usize, x: isize) -> Option<isize> {
    if x < 0 {
        return None;
    }
    let (mut rest, mut total, mut k) = (x, 0isize, lo);
    while k < hi {
        let (s, d) = (l.shape(k).value, l.stride(k).value);
        let c = if k + 1 == hi {
            rest
        } else {
            let c = rest % s;
            rest /= s;
            c
        };
        total = match c.checked_mul(d) {
            Some(v) => match total.checked_add(v) {
                Some(t) => t,
                None => return None,
            },
            None => return None,
        };
        k += 1;
    }
    Some(total)
}

/// Whether `r` is `a o b` on the `size` elements of `b`'s domain.
const fn agrees(r: &DynLayout, a: &Leaves, b: &Right, size: isize) -> bool {
    if r.size().value != size || r.has_basis() {
        return false;
    }
    let r = Leaves::of(r);
    let mut i = 0;
    while i < size {
        match (value_at(&r, 0, r.len(), i), b.composed_at(a, i)) {
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

/// What fitting a composition by value to the right layout's leaves found.
// No heap: the layout is held inline, and a fit is made once per composition.
#[allow(clippy::large_enum_variant)]
enum Fit {
    /// The layout compatible with the right layout whose leaves take the fitted values.
    Found(DynLayout),
    /// The values along this leaf of the right layout (numbered in order), `extent:stride`, are
    /// no layout's; `nested` if it lies inside a tuple mode of the right layout.
    NoLayout { leaf: usize, extent: isize, stride: isize, nested: bool },
    /// A value outside the left layout's domain (or an overflow).
    Undefined,
}

/// The layout compatible with `rhs` (its shape, each leaf kept or refined into a flat tuple of
/// the leaf's size: CuTe's contract that every coordinate of `rhs` is one of the result) whose
/// leaf `k` is fitted to `x -> a(rhs_k(x))`: the only candidate, since such a layout is the sum
/// of its leaves' values with the other coordinates at 0, and the fit is complete for a flat
/// layout (see [`super::fit`]). Fitting each of `rhs`'s top-level modes instead could answer a
/// layout whose shape is not `rhs`'s (`(2,20):(1,3) o ((5,8)):((1,5))` is `(2,20):(1,3)` as a
/// function, but no layout of shape `((5,x))` is: a coordinate `(c,0)` of `rhs` must read it).
const fn fitted(lhs: &DynLayout, a: &Leaves, rhs: &DynLayout, all_static: bool) -> R<Fit> {
    let mut leaf = 0;
    fit_tree(lhs, a, rhs, all_static, &mut leaf, 0)
}

/// [`fitted`] of the subtree `rhs` at `depth` (0 for the whole right layout), its first leaf
/// numbered `*leaf`.
const fn fit_tree(
    lhs: &DynLayout,
    a: &Leaves,
    rhs: &DynLayout,
    all_static: bool,
    leaf: &mut usize,
    depth: usize,
) -> R<Fit> {
    if let (Some(n), Some(r)) = (rhs.shape().as_int(), rhs.stride().as_int()) {
        let b = tri!(Right::of(lhs, rhs));
        let mut fit = ModeFit::new(n.value);
        while let Some(k) = fit.next() {
            match b.composed_at(a, k) {
                Some(v) => fit.feed(v),
                None => return Ok(Fit::Undefined),
            }
        }
        let no_layout = Fit::NoLayout { leaf: *leaf, extent: n.value, stride: r.value, nested: depth >= 2 };
        let Some(mut l) = tri!(fit.layout()) else { return Ok(no_layout) };
        // The fit reads the values at its periods only: the leaf's values are checked here, so
        // that a leaf that has no layout is named (the whole result is checked afterwards).
        let mut k = 0;
        while k < n.value {
            match b.composed_at(a, k) {
                Some(v) if v == l.offset(k) => {}
                Some(_) => return Ok(no_layout),
                None => return Ok(Fit::Undefined),
            }
            k += 1;
        }
        if all_static {
            l = tri!(flagged(&l, true));
        }
        *leaf += 1;
        return Ok(Fit::Found(l));
    }
    let mut out = tri!(super::ModeBuilder::new());
    let mut m = 0;
    while m < rhs.rank() {
        let Some(mode) = rhs.mode(m) else { return Err(LayoutError::TooLarge) };
        match tri!(fit_tree(lhs, a, &mode, all_static, leaf, depth + 1)) {
            Fit::Found(l) => tri!(out.push(&l)),
            other => return Ok(other),
        }
        m += 1;
    }
    match out.finish() {
        Ok(l) => Ok(Fit::Found(l)),
        Err(e) => Err(e),
    }
}

/// CuTe's `composition(lhs, tiler)`: a by-mode tiler composes mode `i` of `lhs` with item `i`
/// and drops the modes of `lhs` past the tiler; a layout tiler is [`composition`].
///
/// ```
/// use const_layout::algebra::{Tiler, composition_tiler};
/// let a = "(_12,(_4,_8)):(_59,(_13,_1))".parse().unwrap();
/// let t: Tiler = "<_3:_4, _8:_2>".parse().unwrap();
/// assert_eq!(composition_tiler(&a, &t).unwrap().to_string(), "(_3,(_2,_4)):(_236,(_26,_1))");
/// ```
pub const fn composition_tiler(lhs: &DynLayout, tiler: &Tiler) -> R<DynLayout> {
    match tiler {
        Tiler::Layout(b) => composition(lhs, b),
        Tiler::Modes(items) => {
            let n = items.len();
            if n > lhs.rank() {
                return Err(LayoutError::ModeOutOfRange {
                    op: "composition",
                    index: n - 1,
                    rank: lhs.rank(),
                });
            }
            let mut out = tri!(super::ModeBuilder::new());
            let mut i = 0;
            while i < n {
                let Some(m) = lhs.mode(i) else { return Err(LayoutError::TooLarge) };
                tri!(out.push(&tri!(compose_item(&m, &items.get(i)))));
                i += 1;
            }
            out.finish()
        }
    }
}

/// One by-mode tiler item against one mode of the left layout.
const fn compose_item(lhs: &DynLayout, item: &TileMode) -> R<DynLayout> {
    match item {
        TileMode::Keep => Ok(*lhs),
        TileMode::Layout(b) => composition(lhs, b),
        // CuTe composes with an integer `n` as with `n:_1` (not `make_layout(n)`).
        TileMode::Shape(s) => match s.as_int() {
            Some(n) => composition(lhs, &tri!(scalar(n, DynInt::new_static(1)))),
            None => composition_tiler(lhs, &tri!(Tiler::from_shape(s))),
        },
    }
}

/// `l` with every integer flagged static (`is_static`) or runtime: a result computed by value is
/// static exactly when every integer it was computed from is.
pub(crate) const fn flagged(l: &DynLayout, is_static: bool) -> R<DynLayout> {
    const fn each(t: &DynIntTuple, is_static: bool) -> R<DynIntTuple> {
        let mut t = *t;
        let mut at = 0;
        while let Some((node, next)) = t.read(at) {
            // The flag is a bit of the tag byte: the length stays.
            at = match node {
                Node::Int(v) => tri!(t.replace_at(at, Node::Int(DynInt { is_static, ..v }))),
                Node::Tuple(_) => next,
            };
        }
        Ok(t)
    }
    DynLayout::new(tri!(each(l.shape(), is_static)), tri!(each(l.stride(), is_static)))
}

/// The left operand (or, for a basis stride, the mode of it the basis names) prepared for
/// composition: CuTe's coalesced form and the merged form the exact computation reads. `base`
/// is the index of its first leaf among the whole left layout's, so that the offset budgets of
/// disjoint modes never share a slot.
#[derive(Clone, Copy)]
struct Part<const N: usize> {
    cute: Leaves<N>,
    cute_is_scalar: bool,
    exact: Leaves<N>,
    base: usize,
}

impl<const N: usize> Part<N> {
    const fn new(lhs: &DynLayout, base: usize) -> R<Self> {
        let all = tri!(Leaves::<N>::try_of(lhs));
        let mut part = Part { cute: Leaves::<N>::new(), cute_is_scalar: false, exact: all.merged(), base };
        // CuTe's `coalesce_x(lhs)`, checked as its layout, read as its mode list.
        let unwrap = tri!(bw_coalesce_into(&all, true, &mut part.cute));
        tri!(checked_modes(&part.cute, unwrap));
        part.cute_is_scalar = unwrap && part.cute.len() == 1;
        Ok(part)
    }

    /// Mode `b` of `lhs` (`basis_get`), prepared.
    const fn at_basis(lhs: &DynLayout, b: Basis) -> R<Self> {
        let (sub, base) = tri!(at_path(lhs, b));
        Part::new(&sub, base)
    }
}

/// Mode `b` of `lhs` (the whole layout for no basis; a scalar's mode 0 is itself), with the index
/// of its first leaf among `lhs`'s.
const fn at_path(lhs: &DynLayout, b: Basis) -> R<(DynLayout, usize)> {
    let (mut sub, mut base, mut k) = (*lhs, 0, 0);
    while k < b.depth() {
        let i = b.index(k);
        let rank = if sub.shape().is_int() { 1 } else { sub.rank() };
        if i >= rank {
            return Err(LayoutError::ModeOutOfRange { op: "composition (basis stride)", index: i, rank });
        }
        if !sub.shape().is_int() {
            let mut j = 0;
            while j < i {
                let Some(m) = sub.shape().mode(j) else { return Err(LayoutError::TooLarge) };
                base += leaf_count(&m);
                j += 1;
            }
            let Some(m) = sub.mode(i) else { return Err(LayoutError::TooLarge) };
            sub = m;
        }
        k += 1;
    }
    Ok((sub, base))
}

const fn leaf_count(t: &DynIntTuple) -> usize {
    let (mut n, mut k) = (0, 0);
    while let Some((node_k, next_k)) = t.read(k) {
        k = next_k;
        if let Node::Int(_) = node_k {
            n += 1;
        }
    }
    n
}

/// How far the right layout's modes reach into each (merged) left mode, per sign, and which
/// signs occur: the state of the no-carry and mixed-sign checks. Slots are indexed by
/// `Part::base + k`; the parts a basis-strided right layout reads are disjoint modes of the left
/// layout, each checked on its own.
struct Budget<const N: usize> {
    /// Largest offset (in units of the mode's stride) the right modes reach in each left mode.
    reach: [[isize; 2]; N],
    /// Per part (by `base`): the signs of the right strides that reach it, and whether any
    /// right mode spreads over it.
    signs: [[bool; 2]; N],
    spread: [bool; N],
}

/// The left operand, prepared once, and the checks' state.
struct Composer<'a, const N: usize> {
    lhs: &'a DynLayout,
    /// Whether the right layout's strides are basis elements (each leaf then reads its own part).
    by_basis: bool,
    whole: Option<Part<N>>,
    budget: Budget<N>,
}

impl<'a, const N: usize> Composer<'a, N> {
    const fn new(lhs: &'a DynLayout, by_basis: bool) -> Self {
        Composer {
            lhs,
            by_basis,
            whole: None,
            budget: Budget { reach: [[0; 2]; N], signs: [[false; 2]; N], spread: [false; N] },
        }
    }

    /// Prepare the whole left layout (integer right strides).
    const fn prepare(&mut self) -> R<()> {
        self.whole = Some(tri!(Part::new(self.lhs, 0)));
        Ok(())
    }

    const fn compose(&mut self, rhs: &DynLayout) -> R<DynLayout> {
        let out = tri!(self.compose_tree(rhs));
        let mut k = 0;
        while k < N {
            if self.budget.signs[k][0] && self.budget.signs[k][1] && self.budget.spread[k] {
                return Err(inadmissible(Inadmissible::MixedSigns));
            }
            k += 1;
        }
        Ok(out)
    }

    /// The part a basis stride reads (`None` when the whole prepared left layout is read), and
    /// the stride as a plain integer. The whole part is not returned: it is read in place (a
    /// `Part` is two mode lists).
    const fn part_of(&self, r: DynInt) -> R<(Option<Part<N>>, DynInt)> {
        match self.whole {
            Some(_) if !self.by_basis => Ok((None, r)),
            _ => Ok((Some(tri!(Part::at_basis(self.lhs, r.basis))), DynInt::new(r.value, r.is_static))),
        }
    }

    /// Right-distributivity: each mode of `rhs` composes separately.
    const fn compose_tree(&mut self, rhs: &DynLayout) -> R<DynLayout> {
        let (mut cute, mut exact) = (Flat::<N>::empty(), Flat::<N>::empty());
        if let (Some(n), Some(r)) = (rhs.shape().as_int(), rhs.stride().as_int()) {
            let use_cute = tri!(self.compose_leaf(n, r, &mut cute, &mut exact));
            return if use_cute { cute.layout() } else { exact.layout() };
        }
        self.compose_modes(rhs.shape(), rhs.stride(), (0, 0), &mut cute, &mut exact)
    }

    /// The modes of the tuple at byte positions `ps` of `rhs`'s shape `s` and `pd` of its stride
    /// `d`, composed and
    /// assembled. The modes are read in place and an integral mode's result goes into the
    /// assembly as its mode list: neither becomes a layout of its own, and
    /// the two mode lists of [`Composer::compose_leaf`] are reused from mode to mode.
    const fn compose_modes(
        &mut self,
        s: &DynIntTuple,
        d: &DynIntTuple,
        (ps, pd): (usize, usize),
        cute: &mut Flat<N>,
        exact: &mut Flat<N>,
    ) -> R<DynLayout> {
        let (Node::Tuple(rank), mut ps) = s.decode(ps) else { return Err(LayoutError::TooLarge) };
        let mut pd = d.decode(pd).1;
        let mut out = tri!(super::ModeBuilder::new());
        let mut i = 0;
        while i < rank as usize {
            match (s.decode(ps).0, d.decode(pd).0) {
                (Node::Int(n), Node::Int(r)) => {
                    let flat = if tri!(self.compose_leaf(n, r, cute, exact)) { &*cute } else { &*exact };
                    tri!(flat.check());
                    tri!(out.push_modes(&flat.modes, flat.unwrap));
                }
                (Node::Tuple(_), Node::Tuple(_)) => {
                    tri!(out.push(&tri!(self.compose_modes(s, d, (ps, pd), cute, exact))))
                }
                _ => return Err(LayoutError::TooLarge),
            }
            (ps, pd) = (s.skip(ps), d.skip(pd));
            i += 1;
        }
        out.finish()
    }

    /// The composition with the integral right mode `n:r`, CuTe's into `cute` and the exact one
    /// into `exact`: whether CuTe's is the one to take (the same function as the exact one).
    const fn compose_leaf(
        &mut self,
        n: DynInt,
        r: DynInt,
        cute: &mut Flat<N>,
        exact: &mut Flat<N>,
    ) -> R<bool> {
        let (own, r) = tri!(self.part_of(r));
        let part = match (&own, &self.whole) {
            (Some(p), _) | (None, Some(p)) => p,
            (None, None) => return Err(LayoutError::TooLarge),
        };
        // Compared as flat mode lists; only the one returned becomes a layout.
        tri!(compose_exact(part, &mut self.budget, n.value, r.value, exact));
        Ok(match compose_cute_into(part, n, r, cute) {
            Ok(()) => cute.same_function(exact),
            // Out of room in a small list: retry on full ones (see `Leaves`), not the exact answer.
            Err(LayoutError::TooLarge) if N < MAX_NODES => return Err(LayoutError::TooLarge),
            Err(_) => false,
        })
    }

    /// `rhs`'s structure with each integral mode replaced by CuTe's `composition_impl` of it.
    const fn map_leaves(&self, rhs: &DynLayout) -> R<DynLayout> {
        if let (Some(n), Some(r)) = (rhs.shape().as_int(), rhs.stride().as_int()) {
            let (own, r) = tri!(self.part_of(r));
            let part = match (&own, &self.whole) {
                (Some(p), _) | (None, Some(p)) => p,
                (None, None) => return Err(LayoutError::TooLarge),
            };
            return tri!(compose_cute(part, n, r)).layout();
        }
        let mut out = tri!(super::ModeBuilder::new());
        let mut i = 0;
        while i < rhs.rank() {
            let Some(m) = rhs.mode(i) else { return Err(LayoutError::TooLarge) };
            tri!(out.push(&tri!(self.map_leaves(&m))));
            i += 1;
        }
        out.finish()
    }
}

/// CuTe's `composition_impl` for an integral right layout `n:r`.
const fn compose_cute<const N: usize>(part: &Part<N>, n: DynInt, r: DynInt) -> R<Flat<N>> {
    let mut out = Flat::<N>::empty();
    tri!(compose_cute_into(part, n, r, &mut out));
    Ok(out)
}

/// [`compose_cute`] into `out` (no mode list is moved).
const fn compose_cute_into<const N: usize>(part: &Part<N>, n: DynInt, r: DynInt, out: &mut Flat<N>) -> R<()> {
    out.modes.clear();
    if is_const(r, 0) {
        return out.set_scalar(n, r);
    }
    let lhs = &part.cute;
    if part.cute_is_scalar {
        return out.set_scalar(n, tri!(mul(r, lhs.stride(0))));
    }
    let count = lhs.len();
    let (mut rest_shape, mut rest_stride) = (n, r);
    let mut k = 0;
    while k + 1 < count {
        let (curr_shape, curr_stride) = (lhs.shape(k), lhs.stride(k));
        k += 1;
        let abs = rest_stride.abs();
        if abs.value == 0 {
            return Err(LayoutError::DivisionByZero);
        }
        let next_shape = curr_shape.ceil_div(abs);
        let next_stride = abs.ceil_div(curr_shape).mul(signum(rest_stride));
        if is_const(next_shape, 1) || is_const(rest_shape, 1) {
            rest_stride = next_stride;
        } else {
            let new_shape = min(next_shape, rest_shape);
            tri!(out.modes.push(new_shape, tri!(mul(rest_stride, curr_stride))));
            rest_shape = rest_shape.div(new_shape);
            rest_stride = next_stride;
        }
    }
    let last = tri!(mul(rest_stride, lhs.stride(count - 1)));
    if out.modes.is_empty() {
        return out.set_scalar(rest_shape, last);
    }
    if is_const(rest_shape, 1) {
        out.unwrap = true;
        return Ok(());
    }
    tri!(out.modes.push(rest_shape, last));
    out.unwrap = false;
    Ok(())
}

/// The exact composition of the merged left part with `n:r`, checking every condition, and
/// recording in `budget` how far into each left mode this right mode reaches; into `flat` (no
/// mode list is moved).
const fn compose_exact<const N: usize>(
    part: &Part<N>,
    budget: &mut Budget<N>,
    n: isize,
    r: isize,
    flat: &mut Flat<N>,
) -> R<()> {
    flat.modes.clear();
    if n == 1 || r == 0 {
        return flat.set_scalar(DynInt::new_runtime(n), DynInt::new_runtime(0));
    }
    let sign = r.signum();
    let side = (sign < 0) as usize;
    budget.signs[part.base][side] = true;
    let exact = &part.exact;
    let out = &mut flat.modes;
    let (mut rest_n, mut rest_r) = (n, r.unsigned_abs() as isize);
    let count = exact.len();
    let mut k = 0;
    while k + 1 < count {
        if rest_n == 1 {
            break;
        }
        let (s, d) = (exact.shape(k).value, exact.stride(k).value);
        let step = match rules::compose_step(s, rest_n, rest_r, k) {
            Ok(step) => step,
            Err(why) => return Err(inadmissible(why)),
        };
        if let Some(extent) = step.extent {
            tri!(out.push(DynInt::new_runtime(extent), stride_of(exact, k, tri!(checked(sign * rest_r, d)))));
            tri!(spend(budget, part.base, k, s, step.used, side));
        }
        (rest_n, rest_r) = (step.size, step.stride);
        k += 1;
    }
    if rest_n > 1 {
        let last = tri!(checked(sign * rest_r, exact.stride(count - 1).value));
        tri!(out.push(DynInt::new_runtime(rest_n), stride_of(exact, count - 1, last)));
    }
    flat.unwrap = true;
    Ok(())
}

/// A runtime stride of `value` in the basis of left mode `k` (none for integer strides).
const fn stride_of<const N: usize>(exact: &Leaves<N>, k: usize, value: isize) -> DynInt {
    DynInt::new_runtime(value).scaled(exact.stride(k).basis)
}

/// Record that a right mode reaches offset `used` of left mode `k` (extent `s`) of the part at
/// `base`; two right modes whose offsets there add up to `s` or more carry into the next mode.
const fn spend<const N: usize>(
    budget: &mut Budget<N>,
    base: usize,
    k: usize,
    s: isize,
    used: isize,
    side: usize,
) -> R<()> {
    if used == 0 {
        return Ok(());
    }
    budget.spread[base] = true;
    let slot = base + k;
    if slot >= N {
        return Err(LayoutError::TooLarge);
    }
    budget.reach[slot][side] = match rules::spend(budget.reach[slot][side], used, s, k) {
        Ok(reach) => reach,
        Err(why) => return Err(inadmissible(why)),
    };
    Ok(())
}

/// A right mode's composition as a flat list of modes (a scalar layout if `unwrap` and one mode).
struct Flat<const N: usize> {
    modes: Leaves<N>,
    unwrap: bool,
}

impl<const N: usize> Flat<N> {
    const fn empty() -> Flat<N> {
        Flat { modes: Leaves::<N>::new(), unwrap: true }
    }

    /// Make this the scalar `n:d`.
    const fn set_scalar(&mut self, n: DynInt, d: DynInt) -> R<()> {
        self.modes.clear();
        tri!(self.modes.push(n, d));
        self.unwrap = true;
        Ok(())
    }

    const fn layout(&self) -> R<DynLayout> {
        self.modes.layout(self.unwrap)
    }

    /// The checks [`Flat::layout`] makes, in its order, without building the layout.
    const fn check(&self) -> R<()> {
        let m = &self.modes;
        if m.len() >= MAX_NODES {
            return Err(LayoutError::TooLarge);
        }
        let mut k = 0;
        while k < m.len() {
            if m.stride(k).has_basis() {
                // Basis strides have their own checks; rare enough to build the layout for them.
                return match self.layout() {
                    Ok(_) => Ok(()),
                    Err(e) => Err(e),
                };
            }
            k += 1;
        }
        m.check_values()
    }

    /// The same function on the same domain (equal size, equal canonical form).
    const fn same_function(&self, other: &Flat<N>) -> bool {
        const fn size<const N: usize>(m: &Leaves<N>) -> Option<isize> {
            let (mut acc, mut k) = (1isize, 0);
            while k < m.len() {
                acc = match acc.checked_mul(m.shape(k).value) {
                    Some(v) => v,
                    None => return None,
                };
                k += 1;
            }
            Some(acc)
        }
        // Mode by mode the same values: the same function, without building canonical forms.
        if self.modes.same_values(&other.modes) {
            return true;
        }
        let same_size = match (size(&self.modes), size(&other.modes)) {
            (Some(a), Some(b)) => a == b,
            (None, None) => true,
            _ => false,
        };
        same_size && self.modes.same_canonical(&other.modes)
    }
}

const fn checked(a: isize, b: isize) -> R<isize> {
    match a.checked_mul(b) {
        Some(v) => Ok(v),
        None => Err(LayoutError::SizeOverflow),
    }
}

const fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "composition", why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> DynLayout {
        s.parse().unwrap()
    }

    #[test]
    fn reference_examples_are_rejected() {
        // DECISIONS.md decision 2's two examples, where CuTe is silently wrong.
        assert!(composition(&l("(_6,_2):(_1,_7)"), &l("(_3,_2):(_2,_3)")).is_err());
        assert!(composition(&l("(_6,_6):(_6,_1)"), &l("_12:_4")).is_err());
    }

    #[test]
    fn small_right_modes_are_checked_by_value() {
        // 6 is not a multiple of 4, but two points always form a layout: a(6) = 2 + 10.
        let r = composition(&l("(4,3):(1,10)"), &l("2:6")).unwrap();
        assert_eq!((r.size().value, r.offset(1)), (2, 12));
    }

    #[test]
    fn a_fitted_composition_keeps_the_right_layouts_shape() {
        // `(2,20):(1,3) o ((5,8)):((1,5))` is `(2,20):(1,3)` as a function, but the coordinate
        // (c, 0) of the right layout must read it: along its leaf 5 the values 0,1,3,4,6 are no
        // layout's, so no result compatible with it exists.
        for a in ["(2,20):(1,3)", "(4,10):(2,9)", "(8,5):(5,1)"] {
            let e = composition(&l(a), &l("((5,8)):((1,5))")).unwrap_err();
            assert!(
                matches!(
                    e,
                    LayoutError::Inadmissible {
                        op: "composition",
                        why: Inadmissible::NoCompatibleLayout { .. }
                    }
                ),
                "{a}: {e:?}"
            );
        }
        let e = composition(&l("(2,20):(1,3)"), &l("((5,8)):((1,5))")).unwrap_err();
        assert_eq!(e, inadmissible(Inadmissible::NoCompatibleLayout { leaf: 0, extent: 5, stride: 1 }));
        // A leaf refined into a tuple of its size is compatible.
        let r = composition(&l("(6,7):(1,6)"), &l("((5,8)):((1,5))")).unwrap();
        assert_eq!(r, l("(((5,1),8)):(((1,6),5))"));
        // A top-level leaf keeps the condition that failed.
        let e = composition(&l("(6,6):(6,1)"), &l("12:4")).unwrap_err();
        assert!(matches!(e, LayoutError::Inadmissible { why: Inadmissible::ExtentDivisibility { .. }, .. }));
    }

    #[test]
    fn runtime_values_get_the_correct_answer_where_cute_rounds() {
        // CuTe on (2,3):(1,2) with runtime values: 2:3 becomes (1,2):(3,4), wrong at 1.
        let r = composition(&l("(2,3):(1,2)"), &l("2:3")).unwrap();
        assert_eq!((r.size().value, r.offset(0), r.offset(1)), (2, 0, 3));
    }
}
