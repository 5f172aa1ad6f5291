//! `right_inverse`, `left_inverse`, `max_common_layout`, `max_common_vector` and `nullspace`.

use super::coalesce::coalesce;
use super::composition::{BY_VALUE_LIMIT, composition, flagged};
use super::inverse_search::{
    EFFORT_LIMIT, Flat, Offsets, Preimages, QUASI_EFFORT_LIMIT, largest_right_inverse, left_inverse_by_value,
    quasi_inverse_by_value,
};
use super::leaves::Leaves;
use super::{R, is_const, mul, scalar};
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::Inadmissible;
use crate::error::{LayoutError, tri};

/// The coalesced modes of a layout with their exclusive prefix products (CuTe's `preprod_shape`).
const fn prepared(layout: &DynLayout) -> R<(Leaves, [DynInt; MAX_NODES])> {
    let c = Leaves::of(&tri!(coalesce(layout)));
    let mut pre = [DynInt::new_static(1); MAX_NODES];
    let mut k = 1;
    while k < c.len() {
        pre[k] = tri!(mul(pre[k - 1], c.shape(k - 1)));
        k += 1;
    }
    Ok((c, pre))
}

/// The indices of `c`'s modes sorted by stride value as CuTe sorts them (only those with static
/// strides if `only_static`).
const fn sorted(c: &Leaves, only_static: bool) -> ([usize; MAX_NODES], usize) {
    let mut order = [0usize; MAX_NODES];
    let mut n = 0;
    let mut k = 0;
    while k < c.len() {
        if !only_static || c.stride(k).is_static {
            order[n] = k;
            n += 1;
        }
        k += 1;
    }
    // CuTe's exchange sort, whose order for equal strides decides which mode the inverse follows.
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n {
            if c.stride(order[j]).value < c.stride(order[i]).value {
                let t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            j += 1;
        }
        i += 1;
    }
    (order, n)
}

/// `right_inverse(layout)`: a layout `R` with `layout(R(i)) == i` for every `i` below `size(R)`
/// (and `0 <= R(i) < size(layout)`), of the largest size any layout `R` can have.
///
/// CuTe follows the static strides 1, s0, s0*s1, ... that continue one another; runtime strides
/// end its chain (CuTe's `right_inverse(4:1)` is `_1:_0`). Here the chain is followed by value,
/// so runtime strides give runtime answers. For an injective layout with non-negative strides
/// the chain is the largest right inverse: no right inverse is larger than `n`, the first offset
/// the layout does not reach, and the chain reaches it (an offset `c` reached past a chain that
/// ends at `c` needs a stride of exactly `c`, or two indices would share an offset below `c`).
/// Otherwise (stride-0 or overlapping modes, negative strides) a larger one may exist:
/// `(_3,_2):(_1,_2)` has CuTe's `_3:_1` and the right inverse `(_2,_2):(_1,_3)`, of size 4; for
/// layouts of at most [`BY_VALUE_LIMIT`](super::BY_VALUE_LIMIT) elements every layout `R` is
/// searched for, mode by mode (a bounded search; past its step bound, or for larger layouts,
/// the chain, which is still a right inverse). Where CuTe's answer is the largest it is the
/// answer, with CuTe's text for static layouts; a result found by value is static exactly when
/// the layout is.
///
/// ```
/// use const_layout::algebra::right_inverse;
/// let l = "(_4,_2):(_2,_1)".parse().unwrap();
/// assert_eq!(right_inverse(&l).unwrap().to_string(), "(_2,_4):(_4,_1)");
/// let l = "(2,4):(1,2)".parse().unwrap(); // CuTe: _1:_0
/// assert_eq!(right_inverse(&l).unwrap().to_string(), "(2,4):(1,2)");
/// let l = "(_3,_2):(_1,_2)".parse().unwrap(); // CuTe: _3:_1
/// assert_eq!(right_inverse(&l).unwrap().to_string(), "(_2,_2):(_1,_3)");
/// ```
pub const fn right_inverse(layout: &DynLayout) -> R<DynLayout> {
    tri!(super::identity::integer_strides("right_inverse", &[layout]));
    let (c, pre) = tri!(prepared(layout));
    let cute = tri!(chain(&c, &pre, true));
    let by_value = tri!(chain(&c, &pre, false));
    // On static layouts the two chains agree; one that goes further followed a runtime stride.
    let best = if by_value.size().value > cute.size().value { tri!(flagged(&by_value, false)) } else { cute };
    // A right inverse has at most size(layout) elements: one that long is the largest.
    if best.size().value >= layout.size().value {
        return Ok(best);
    }
    match largest_right_inverse(&Flat::of(&c), best.size().value, EFFORT_LIMIT) {
        Some(f) => coalesce(&tri!(tri!(f.leaves(is_static(layout))).layout(false))),
        None => Ok(best),
    }
}

/// CuTe's `right_inverse`, which follows only static strides (what `max_common_layout` and
/// `max_common_vector` are defined by).
const fn right_inverse_cute(layout: &DynLayout) -> R<DynLayout> {
    let (c, pre) = tri!(prepared(layout));
    chain(&c, &pre, true)
}

/// CuTe's chain: the modes whose strides are 1, s0, s0*s1, ... in stride order, each as its extent
/// and its prefix product; with `only_static` only static strides after a static product, as in
/// CuTe, otherwise every stride by value.
const fn chain(c: &Leaves, pre: &[DynInt; MAX_NODES], only_static: bool) -> R<DynLayout> {
    let (order, n) = sorted(c, only_static);
    let mut result = <Leaves>::new();
    tri!(result.push(DynInt::new_static(1), DynInt::new_static(0)));
    let mut curr = DynInt::new_static(1);
    let mut k = 0;
    while k < n {
        let i = order[k];
        k += 1;
        let d = c.stride(i);
        if (curr.is_static || !only_static) && curr.value == d.value {
            tri!(result.push(c.shape(i), pre[i]));
            curr = tri!(mul(c.shape(i), d));
        }
    }
    coalesce(&tri!(result.layout(false)))
}

const fn is_static(l: &DynLayout) -> bool {
    l.shape().is_static() && l.stride().is_static()
}

/// `left_inverse(layout)`: a layout `L` with `L(layout(i)) == i` for every `i` in its domain and
/// `size(L) >= cosize(layout)`; for a layout that is not injective, CuTe's quasi-inverse:
/// `layout(L(layout(i))) == layout(i)` with `L(layout(i))` in the domain (CuTe's documented
/// postcondition; for stride-0 modes, `i` is read with their coordinates at 0). Runtime strides
/// are fine (CuTe requires static ones).
///
/// Where CuTe's answer is such a layout it is the answer (checked point by point up to
/// [`BY_VALUE_LIMIT`](super::BY_VALUE_LIMIT) elements), and so is CuTe's fold where the sorted
/// strides nest (each a multiple of, and at least, the span below it). Where they do not nest a
/// left inverse may still exist (`(4,2):(1,10)` has `(10,2):(1,4)`, `(2,2):(2,3)` has
/// `(2,3):(1,1)`): it is searched for by value over every layout, mode by mode, for layouts whose
/// moving modes span at most `BY_VALUE_LIMIT` offsets, in a bounded number of steps. Where
/// moving modes collide (`(_3,_2):(_1,_2)`: indices 2 and 3 both reach 2) and CuTe's answer is
/// no quasi-inverse, every layout `L` that maps each offset to one of the indices reaching it is
/// searched for (mode by mode, each offset's indices tried in turn; up to `BY_VALUE_LIMIT`
/// offsets and indices and 2^18 steps). The errors say why there is none: a negative stride, two
/// indices at one offset with no quasi-inverse, or no layout found by the exhaustive search;
/// past the bounds, the bound and its number. In a
/// constant (the generic static path, `algebra::computed`) rustc stops an evaluation after about
/// two million steps (`long_running_const_eval`), which a long search can reach: that is then a
/// compile error there, while `layout!` (evaluated natively) answers.
///
/// ```
/// use const_layout::algebra::left_inverse;
/// let l = "(_2,_3):(_3,_1)".parse().unwrap();
/// assert_eq!(left_inverse(&l).unwrap().to_string(), "(_3,_2):(_2,_1)");
/// let l = "(2,2):(2,3)".parse().unwrap();
/// assert_eq!(left_inverse(&l).unwrap().to_string(), "(2,3):(1,1)");
/// // Not injective: L maps 2 to index 3, which reaches 2 too (CuTe's (_2,_2):(_1,_3) has 4
/// // elements, short of offset 4).
/// let l = "(_3,_2):(_1,_2)".parse().unwrap();
/// assert_eq!(left_inverse(&l).unwrap().to_string(), "(_2,_2,_2):(_1,_3,_5)");
/// let bad = "(5,3):(2,3)".parse().unwrap();
/// assert_eq!(
///     left_inverse(&bad).unwrap_err().to_string(),
///     "left_inverse: indices 3 and 10 both map to offset 6, and no layout maps each offset to an index \
///      that reaches it"
/// );
/// ```
pub const fn left_inverse(layout: &DynLayout) -> R<DynLayout> {
    tri!(super::identity::integer_strides("left_inverse", &[layout]));
    // CuTe's fold also takes runtime extent-1 modes for moving ones; its answer is kept where it
    // is a (quasi-)inverse, which is checked point by point for small layouts.
    if layout.size().value <= BY_VALUE_LIMIT
        && let Ok(r) = left_inverse_with(layout, false)
        && is_quasi_inverse(layout, &r)
    {
        return Ok(r);
    }
    match left_inverse_with(layout, true) {
        Err(LayoutError::Inadmissible { why: Inadmissible::NotNested { .. }, .. }) => {
            match Offsets::of(&Leaves::of(layout)) {
                Ok(offsets) => {
                    let found = tri!(left_inverse_by_value(&offsets, EFFORT_LIMIT));
                    coalesce(&tri!(tri!(found.leaves(is_static(layout))).layout(false)))
                }
                Err(e) => quasi_inverse(layout, e),
            }
        }
        Err(e @ LayoutError::Inadmissible { why: Inadmissible::NotInjective { .. }, .. }) => {
            match Offsets::of(&Leaves::of(layout)) {
                Err(e) => quasi_inverse(layout, e),
                // Two modes that move by one stride collide: unreachable.
                Ok(_) => Err(e),
            }
        }
        r => r,
    }
}

/// CuTe's quasi-inverse of a layout whose moving modes collide, searched for by value: `L` maps
/// each offset to one of the indices that reach it. `why` is the error of the search for a left
/// inverse (`Offsets::of`): a `Collision` is what a quasi-inverse is searched for, and stays the
/// error where there is none; other errors (bounds, negative strides) stand.
const fn quasi_inverse(layout: &DynLayout, why: LayoutError) -> R<DynLayout> {
    if !matches!(why, LayoutError::Inadmissible { why: Inadmissible::Collision { .. }, .. }) {
        return Err(why);
    }
    let pre = tri!(Preimages::of(&Leaves::of(layout)));
    if let Some(found) = tri!(quasi_inverse_by_value(&pre, QUASI_EFFORT_LIMIT)) {
        let r = tri!(coalesce(&tri!(tri!(found.leaves(is_static(layout))).layout(false))));
        // The search's equations are the definition; the check (one pass over the layout) keeps
        // a slip in it a refusal, never a wrong answer.
        if is_quasi_inverse(layout, &r) {
            return Ok(r);
        }
    }
    Err(why)
}

/// `layout(r(layout(i))) == layout(i)` for every `i`, with `layout(i)` in `r`'s domain and
/// `r(layout(i))` in `layout`'s.
const fn is_quasi_inverse(layout: &DynLayout, r: &DynLayout) -> bool {
    let (size, r_size) = (layout.size().value, r.size().value);
    let mut i = 0;
    while i < size {
        let o = layout.offset(i);
        if o < 0 || o >= r_size {
            return false;
        }
        let back = r.offset(o);
        if back < 0 || back >= size || layout.offset(back) != o {
            return false;
        }
        i += 1;
    }
    true
}

/// The fold, with the admissibility checks and non-moving runtime modes skipped (`exact`), or as
/// CuTe does it.
const fn left_inverse_with(layout: &DynLayout, exact: bool) -> R<DynLayout> {
    let (c, pre) = tri!(prepared(layout));
    // Modes that do not move (stride 0, or a runtime extent 1 that coalesce keeps) do not matter
    // to the inverse.
    const fn moves(c: &Leaves, k: usize, exact: bool) -> bool {
        c.stride(k).value != 0 && (!exact || c.shape(k).value != 1)
    }
    let mut k = 0;
    while k < c.len() {
        if moves(&c, k, exact) && c.stride(k).value < 0 {
            return Err(inadmissible(Inadmissible::NegativeStride { mode: k, stride: c.stride(k).value }));
        }
        k += 1;
    }
    let (order, n) = sorted(&c, false);
    let mut shapes = <Leaves>::new(); // (result shape, result stride) pairs after the leading `_0`
    let mut size = DynInt::new_static(1);
    let mut prev: Option<usize> = None;
    let mut k = 0;
    while k < n {
        let i = order[k];
        k += 1;
        let d = c.stride(i);
        if !moves(&c, i, exact) {
            continue;
        }
        if exact && let Some(p) = prev {
            if d.value == c.stride(p).value {
                return Err(inadmissible(Inadmissible::NotInjective { stride: d.value }));
            }
            let Some(span) = c.shape(p).value.checked_mul(c.stride(p).value) else {
                return Err(LayoutError::CosizeOverflow);
            };
            if d.value < span {
                return Err(inadmissible(Inadmissible::NotNested { stride: d.value, span }));
            }
        }
        if d.value % size.value != 0 {
            return Err(inadmissible(Inadmissible::NotNested { stride: d.value, span: size.value }));
        }
        let step = d.div(size);
        tri!(shapes.push(step, pre[i]));
        size = tri!(mul(size, step));
        prev = Some(i);
    }
    // Result: shape (steps..., last shape), stride (_0, prefix products...).
    // The largest-stride mode's extent (of a moving mode if there is one).
    let last = match prev {
        Some(p) => c.shape(p),
        None if n > 0 => c.shape(order[n - 1]),
        None => DynInt::new_static(1),
    };
    let k = shapes.len();
    let mut shape = DynIntTuple::builder();
    let mut stride = DynIntTuple::builder();
    tri!(shape.push_node(Node::Tuple((k + 1) as u8)));
    tri!(stride.push_node(Node::Tuple((k + 1) as u8)));
    let mut j = 0;
    while j <= k {
        tri!(shape.push_node(Node::Int(if j < k { shapes.shape(j) } else { last })));
        tri!(stride.push_node(Node::Int(if j == 0 { DynInt::new_static(0) } else { shapes.stride(j - 1) })));
        j += 1;
    }
    coalesce(&tri!(DynLayout::new(shape, stride)))
}

/// CuTe's `max_common_layout(a, b)`: a layout `R` of the most contiguous elements on which `a`
/// and `b` agree: `a(R(i)) == i` and `b(R(i)) == i`.
///
/// ```
/// use const_layout::algebra::max_common_layout;
/// let a = "(_4,_8):(_1,_4)".parse().unwrap();
/// let b = "(_4,_8):(_1,_8)".parse().unwrap();
/// assert_eq!(max_common_layout(&a, &b).unwrap().to_string(), "_4:_1");
/// ```
pub const fn max_common_layout(a: &DynLayout, b: &DynLayout) -> R<DynLayout> {
    tri!(super::identity::integer_strides("max_common_layout", &[a, b]));
    let inv_b = tri!(right_inverse_cute(b));
    let common = tri!(coalesce(&tri!(composition(a, &inv_b))));
    let first = tri!(super::mode_of(&common, 0));
    match (first.shape().as_int(), first.stride().as_int()) {
        (Some(s), Some(d)) if s.is_static && is_const(d, 1) => composition(&inv_b, &first),
        _ => scalar(DynInt::new_static(1), DynInt::new_static(0)),
    }
}

/// CuTe's `max_common_vector(a, b)`: the number of contiguous elements on which `a` and `b`
/// agree (at least `_1`).
///
/// ```
/// use const_layout::algebra::max_common_vector;
/// let a = "(_4,_8):(_1,_4)".parse().unwrap();
/// let b = "(_4,_8):(_1,_4)".parse().unwrap();
/// assert_eq!(max_common_vector(&a, &b).unwrap().to_string(), "_32");
/// ```
pub const fn max_common_vector(a: &DynLayout, b: &DynLayout) -> R<DynInt> {
    tri!(super::identity::integer_strides("max_common_vector", &[a, b]));
    let common = tri!(coalesce(&tri!(composition(a, &tri!(right_inverse_cute(b))))));
    let first = tri!(super::mode_of(&common, 0));
    match (first.shape().as_int(), first.stride().as_int()) {
        (Some(s), Some(d)) if s.is_static && is_const(d, 1) => Ok(s),
        _ => Ok(DynInt::new_static(1)),
    }
}

/// CuTe's `nullspace(layout)`: the layout of the coordinates (as indices) that `layout` maps to 0,
/// from its stride-0 modes (runtime zeros included, which CuTe misses); `_1:_0` if there are none.
///
/// ```
/// use const_layout::algebra::nullspace;
/// let l = "(_2,_3,_4):(_0,_1,_0)".parse().unwrap();
/// assert_eq!(nullspace(&l).unwrap().to_string(), "(_2,_4):(_1,_6)");
/// ```
pub const fn nullspace(layout: &DynLayout) -> R<DynLayout> {
    tri!(super::identity::integer_strides("nullspace", &[layout]));
    let flat = Leaves::of(layout);
    let flat_shape = tri!(layout.shape().flatten());
    let rstride = tri!(crate::dyn_layout::ops::compact(&flat_shape, DynInt::new_static(1), true)).0;
    let strides: Leaves = Leaves::of(&tri!(DynLayout::new(flat_shape, rstride)));
    let mut out = <Leaves>::new();
    let mut k = 0;
    while k < flat.len() {
        if flat.stride(k).value == 0 {
            tri!(out.push(flat.shape(k), strides.stride(k)));
        }
        k += 1;
    }
    if out.is_empty() {
        return scalar(DynInt::new_static(1), DynInt::new_static(0));
    }
    out.layout(true)
}

const fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "left_inverse", why }
}
