//! `complement(A, M)`: a layout of offsets that `A` does not reach, ordered, that with `A`
//! covers `M`.
//!
//! # The decision
//!
//! CuTe documents `complement` by postconditions (its unit test checks them), and those are what
//! this crate promises, for every layout with non-negative integer strides:
//!
//! - P1, ordered: `R(i-1) < R(i)`;
//! - P2, disjoint: `R(i)` is not in `A`'s image for `i >= 1`; moreover `(A, R)` is injective
//!   whenever `A` is, so a divide built on it tiles without overlap, and so does a product that
//!   reads the complement inside its domain;
//! - P3, covering: `cosize((A, R)) >= size(M)`.
//!
//! CuTe's fourth condition, `cosize(R) <= round_up(size(M), cosize(A))`, is not promised: CuTe
//! breaks it itself (`complement(_2:_4, _10)` is `(_4,_2):(_1,_8)`, cosize 12). Wherever CuTe's
//! answer satisfies P1-P3 this one is the same function, and the same text when every operand is
//! static. Refused: negative strides (CuTe leaves them undefined), basis strides, a cotarget with
//! an extent below 1, and results whose offsets would not fit in `isize`.

use super::coalesce::{bw_coalesce, coalesce, coalesce_shape, filtered};
use super::leaves::{Leaves, SMALL};
use super::{R, is_const, min, mul, rules, scalar};
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::ops::{self, Division};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::Inadmissible;
use crate::error::{LayoutError, tri};

/// CuTe's `complement(layout, cotarget)`: a layout `R` with increasing offsets, none of them
/// (but `R(0) = 0`) an offset of `layout`, such that `(layout, R)` reaches at least
/// `size(cotarget)` (an integer or a shape), and is injective if `layout` is. Any non-negative
/// strides are fine: modes that leave gaps (`(_4,_2):(_1,_10)`) or overlap (`(_2,_2):(_2,_3)`),
/// and runtime strides at any rank (CuTe allows them only at rank 1). See the
/// module documentation of `complement` for the postconditions.
///
/// ```
/// use const_layout::algebra::complement_to;
/// let a = "(_2,_2):(_1,_6)".parse().unwrap();
/// assert_eq!(complement_to(&a, &"_24".parse().unwrap()).unwrap().to_string(), "(_3,_2):(_2,_12)");
/// let a = "(2,2):(1,6)".parse().unwrap(); // CuTe refuses runtime strides at rank 2
/// assert_eq!(complement_to(&a, &"24".parse().unwrap()).unwrap().offsets().collect::<Vec<_>>(), [0, 2, 4, 12, 14, 16]);
/// // Gaps that are no multiple of the span below: CuTe's `_2:_4` leaves 18 and 19 uncovered.
/// let a = "(_4,_2):(_1,_10)".parse().unwrap();
/// assert_eq!(complement_to(&a, &"_20".parse().unwrap()).unwrap().to_string(), "(_2,_2):(_4,_20)");
/// // Overlapping modes: whole copies of the layout's span.
/// let a = "(_2,_2):(_2,_3)".parse().unwrap();
/// assert_eq!(complement_to(&a, &"_19".parse().unwrap()).unwrap().to_string(), "_4:_6");
/// ```
pub const fn complement_to(layout: &DynLayout, cotarget: &DynIntTuple) -> R<DynLayout> {
    tri!(super::identity::integer_strides("complement", &[layout]));
    // A cotarget is a shape: each extent at least 1 (CuTe's would give empty or negative modes).
    let (mut k, mut leaf) = (0, 0);
    while let Some((node_k, next_k)) = cotarget.read(k) {
        k = next_k;
        if let Node::Int(v) = node_k {
            if v.value < 1 {
                return Err(LayoutError::NonPositiveExtent { leaf, value: v.value });
            }
            leaf += 1;
        }
    }
    complement_filtered(layout, Some(cotarget))
}

/// CuTe's `complement(layout)`: the complement within the layout's own cosize.
///
/// ```
/// use const_layout::algebra::complement;
/// let a = "(_2,_2):(_1,_6)".parse().unwrap();
/// assert_eq!(complement(&a).unwrap().to_string(), "_3:_2");
/// ```
pub const fn complement(layout: &DynLayout) -> R<DynLayout> {
    tri!(super::identity::integer_strides("complement", &[layout]));
    complement_filtered(layout, None)
}

/// The complement of `filter(layout)` to `cotarget` (`None`: its cosize), on small working lists
/// first (see `Leaves`): the same code, so the same answer.
const fn complement_filtered(layout: &DynLayout, cotarget: Option<&DynIntTuple>) -> R<DynLayout> {
    match complement_of::<SMALL>(layout, cotarget) {
        Err(LayoutError::TooLarge) => complement_of::<MAX_NODES>(layout, cotarget),
        r => r,
    }
}

/// [`complement_filtered`] on working lists of `N` modes; the filtered layout is its mode list,
/// checked as that layout, never built.
const fn complement_of<const N: usize>(layout: &DynLayout, cotarget: Option<&DynIntTuple>) -> R<DynLayout> {
    let f = tri!(filtered::<N>(layout)).0;
    let cosize = tri!(f.sizes()).1;
    let cotarget = match cotarget {
        Some(c) => *c,
        None => DynIntTuple::int(cosize),
    };
    complement_by::<N>(&f, cosize, &cotarget, true)
}

/// The complement of the filtered layout `f` (a layout's filtered modes, checked, by
/// [`filtered`]) to `cotarget`, on lists of `N` modes (for the tests of those lists).
#[cfg(test)]
pub(crate) const fn complement_in<const N: usize>(f: &DynLayout, cotarget: &DynIntTuple) -> R<DynLayout> {
    let modes = tri!(Leaves::<N>::try_of(f));
    complement_by::<N>(&modes, f.cosize(), cotarget, true)
}

/// The complement of filtered modes `f` of cosize `cosize`, with the nesting rule first if
/// `by_rule` (`false`: the fold alone, which the tests compare the rule with).
pub(crate) const fn complement_by<const N: usize>(
    f: &Leaves<N>,
    cosize: DynInt,
    cotarget: &DynIntTuple,
    by_rule: bool,
) -> R<DynLayout> {
    let mut modes = tri!(gather::<N>(f));
    if modes.is_empty() || (modes.len() == 1 && is_const(modes.stride(0), 0)) {
        // The irreducible stride-0 layout: the complement is the whole cotarget.
        let shape = tri!(coalesce_shape(cotarget));
        return DynLayout::compact(shape, true);
    }
    if by_rule && let Some(r) = nested(&modes, cotarget) {
        return r;
    }
    if !drop_overlapping_pins(&mut modes) {
        return copies(cosize, cotarget);
    }
    fold(&modes, cotarget)
}

/// Whether the nesting rule answers `complement(f, cotarget)` (for the tests of the rule).
#[cfg(test)]
pub(crate) fn answers_by_rule(f: &DynLayout, cotarget: &DynIntTuple) -> bool {
    matches!(gather::<MAX_NODES>(&Leaves::of(f)), Ok(modes) if nested(&modes, cotarget).is_some())
}

/// The common case, by the nesting rule that the typed algebra applies too
/// ([`rules::nested_complement`]): moving modes whose strides nest, and an integer cotarget.
/// Then the fold has no holes, its modes are the rule's gaps and rest (with the static flags the
/// fold gives them, CuTe's `min` over the strides left included), and the answer is theirs
/// coalesced, as the fold's is. `None` where the rule does not apply (pins, modes that
/// do not nest, a tuple cotarget, values at the end of `isize`): the fold answers then.
const fn nested<const N: usize>(modes: &Leaves<N>, cotarget: &DynIntTuple) -> Option<R<DynLayout>> {
    let Some(m) = cotarget.as_int() else { return None };
    let n = modes.len();
    // The fold's list of `n + 1` modes must also leave room for the rest's nodes.
    if n + 3 > MAX_NODES {
        return None;
    }
    let (mut sv, mut dv) = ([0isize; N], [0isize; N]);
    let mut k = 0;
    while k < n {
        // A pin (extent 1) is measured differently by the fold: leave it to the fold.
        if modes.shape(k).value < 2 {
            return None;
        }
        (sv[k], dv[k]) = (modes.shape(k).value, modes.stride(k).value);
        k += 1;
    }
    let mut out = rules::NestedComplement::<N>::new();
    if !rules::nested_complement(&sv, &dv, n, m.value, &mut out) {
        return None;
    }
    // The fold's static flags: each step's smallest stride is CuTe's `min` over the strides
    // left (static if all of them are), the gap is it over the last span, and the next span is
    // it times the extent.
    let count = out.count;
    let mut rest_static = [true; N];
    let mut p = count;
    while p > 0 {
        p -= 1;
        rest_static[p] = modes.stride(out.source[p]).is_static && (p + 1 == count || rest_static[p + 1]);
    }
    let mut result = Leaves::<N>::new();
    let mut span_static = true;
    while p < count {
        let extent = DynInt::new(out.shape[p], rest_static[p] && span_static);
        if let Err(e) = result.push(extent, DynInt::new(out.stride[p], span_static)) {
            return Some(Err(e));
        }
        span_static = rest_static[p] && modes.shape(out.source[p]).is_static;
        p += 1;
    }
    // The rest: ceil(M / top), `top` the span of the largest stride, compact from it (a static 1
    // has stride `_0`).
    let top = out.source[count - 1];
    let top_static = modes.shape(top).is_static && modes.stride(top).is_static;
    let rest = DynInt::new(out.shape[count], m.is_static && top_static);
    let rest_stride =
        if is_const(rest, 1) { DynInt::new_static(0) } else { DynInt::new(out.stride[count], top_static) };
    if let Err(e) = result.push(rest, rest_stride) {
        return Some(Err(e));
    }
    Some(bw_coalesce(&result, false))
}

/// The modes the fold reads, in the layout's order: those that move, and runtime extent-1 modes
/// of positive stride ("pins"). A pin moves nothing, but CuTe's fold counts it as a mode of span
/// `d`, and where CuTe's answer is right this one must be the same function. Filtering removed
/// the zero strides (by value) and the static extent-1 modes; `_1:_0` alone is kept.
const fn gather<const N: usize>(all: &Leaves<N>) -> R<Leaves<N>> {
    let mut modes = Leaves::<N>::new();
    let mut k = 0;
    while k < all.len() {
        let (s, d) = (all.shape(k), all.stride(k));
        k += 1;
        let zero_layout = is_const(d, 0) && all.len() == 1;
        if !zero_layout && (d.value == 0 || (s.value == 1 && d.value < 0)) {
            continue;
        }
        if d.value < 0 {
            return Err(inadmissible(Inadmissible::NegativeStride { mode: k - 1, stride: d.value }));
        }
        tri!(modes.push(s, d));
    }
    Ok(modes)
}

/// The positions of `modes` sorted by stride, ties in position order: the order in which CuTe's
/// fold takes them (`find` of the minimum gives the first position).
const fn stride_order<const N: usize>(modes: &Leaves<N>) -> [usize; N] {
    let mut order = [0usize; N];
    let mut k = 0;
    while k < modes.len() {
        let mut j = k;
        while j > 0 && modes.stride(order[j - 1]).value > modes.stride(k).value {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = k;
        k += 1;
    }
    order
}

/// Whether the moving modes, sorted by stride, do not overlap: each stride at least the span
/// `s * d` of the moving mode below (equal strides overlap, since a moving extent is >= 2). If
/// so, remove the pins whose stride lies inside the span below them (CuTe's fold would give them
/// an empty mode; they move nothing, so leaving them out changes no offset of `A`), after which
/// no two modes overlap and CuTe's fold applies.
const fn drop_overlapping_pins<const N: usize>(modes: &mut Leaves<N>) -> bool {
    let order = stride_order(modes);
    let n = modes.len();
    let mut keep = [true; N];
    // The span of the last moving mode, and of the last kept mode of either kind.
    let (mut moving_span, mut kept_span) = (0isize, 0isize);
    let mut w = 0;
    while w < n {
        let k = order[w];
        w += 1;
        let (s, d) = (modes.shape(k).value, modes.stride(k).value);
        // A span past `isize::MAX` is larger than any stride: saturating compares the same.
        let span = s.saturating_mul(d);
        if s == 1 {
            if d < kept_span {
                keep[k] = false;
            } else {
                kept_span = span;
            }
            continue;
        }
        if d < moving_span {
            return false;
        }
        (moving_span, kept_span) = (span, span);
    }
    let mut k = n;
    while k > 0 {
        k -= 1;
        if !keep[k] {
            modes.remove(k);
        }
    }
    true
}

/// Modes that overlap: whole copies of `A`'s range, `ceil(M / c) : c` with `c = cosize(A)`.
/// P1: the stride `c` is positive. P2: `R(i) = i * c >= c` for `i >= 1`, past every offset of
/// `A` (all in `0..c`, the strides being non-negative); and `A(j) + i * c` determines `i` and
/// then `A(j)`, so `(A, R)` is injective when `A` is. P3: `cosize((A, R)) = c + (ceil(M/c) - 1) *
/// c >= M`. CuTe's own fold has no answer here (an empty mode, or a static assertion).
const fn copies(c: DynInt, cotarget: &DynIntTuple) -> R<DynLayout> {
    coalesce(&tri!(scalar(ceil_quotient(tri!(cotarget.size()), c), c)))
}

/// CuTe's fold over modes that do not overlap (sorted, each stride at least the span below),
/// with its integer division rounding down, then the rest mode, grown where CuTe's leaves the
/// cotarget uncovered.
///
/// Sorted by stride, write the modes `s_k : d_k` and their spans `S_k = s_k * d_k`, `S_-1 = 1`.
/// The fold gives `q_k = floor(d_k / S_(k-1))` at stride `S_(k-1)` for each `k`, then the rest,
/// `E` elements at stride `S = S_(n-1)` (compact, so a tuple rest is the function of `E:S`). Interleaved, `(A, R)` sorted by stride is `q_0:S_-1, s_0:d_0,
/// q_1:S_0, s_1:d_1, ..., E:S`, and each of its strides is at least the span of the one before
/// (`q_k * S_(k-1) <= d_k`, `s_k * d_k = S_k`). Such a layout is strictly increasing in its
/// index: a step that carries into mode `j` adds `d_j` and takes back the top offsets of the
/// modes below, which sum to less than `d_j` (by induction, below `S_(j-1) <= d_j`). So:
/// P1: `R`, a sub-sequence of those modes, is increasing. P2: `(A, R)` is injective, hence
/// `R(i) = (A, R)(0, i)` differs from every `A(j) = (A, R)(j, 0)` for `i >= 1`. P3: the top
/// offset of `(A, R)` telescopes to `E * S - 1 - H`, with `H = sum_k (d_k - q_k * S_(k-1))`
/// the holes that rounding down leaves, so `(A, R)` covers `M` exactly when `E * S - H >= M`.
/// CuTe's `E = ceil(M / S)` does when the modes nest (`H = 0`); otherwise `E` grows to
/// `ceil((M + H) / S)`, which is at most one more, because `H < S`: `q_k >= 1` gives
/// `d_k - q_k * S_(k-1) <= d_k - S_(k-1) <= S_k - S_(k-1)`, and these telescope to `S - 1`.
/// (CuTe's by-mode rest for a tuple cotarget may cover less than its size to begin with; see
/// [`rest`].)
const fn fold<const N: usize>(modes: &Leaves<N>, cotarget: &DynIntTuple) -> R<DynLayout> {
    let mut modes = *modes;
    let mut result = Leaves::<N>::new();
    let mut last_stride = DynInt::new_static(1);
    // The holes `H`, static when every integer they come from is, and the top offset of the
    // head `sum (q_k - 1) * S_(k-1)` (below `S`, so it fits).
    let mut holes = DynInt::new_static(0);
    let mut head_top = 0isize;
    while modes.len() > 1 {
        let mut min_stride = modes.stride(0);
        let mut k = 1;
        while k < modes.len() {
            min_stride = min(min_stride, modes.stride(k));
            k += 1;
        }
        let mut idx = 0;
        while idx < modes.len() && modes.stride(idx).value != min_stride.value {
            idx += 1;
        }
        if idx == modes.len() {
            idx = 0;
        }
        let new_shape = min_stride.div(last_stride);
        holes = holes.add(min_stride.sub(new_shape.mul(last_stride)));
        head_top += (new_shape.value - 1) * last_stride.value;
        let new_stride = tri!(mul(min_stride, modes.shape(idx)));
        tri!(result.push(new_shape, last_stride));
        last_stride = new_stride;
        modes.remove(idx);
    }
    let new_shape = modes.stride(0).div(last_stride);
    holes = holes.add(modes.stride(0).sub(new_shape.mul(last_stride)));
    head_top += (new_shape.value - 1) * last_stride.value;
    tri!(result.push(new_shape, last_stride));
    let top = (modes.shape(0).value, modes.stride(0).value);
    // The top span may pass `isize::MAX` where the cosize does not (`2:2^62`); the spans below
    // are at most the stride above them.
    if top.0.checked_mul(top.1).is_none() {
        let m = tri!(cotarget.size()).value;
        return Err(inadmissible(Inadmissible::ComplementOverflow {
            cotarget: m,
            extent: top.0,
            stride: top.1,
        }));
    }
    let span = modes.stride(0).mul(modes.shape(0));
    let rest_shape = tri!(rest(cotarget, span, holes, head_top, top));
    let rest_stride = tri!(ops::compact(&rest_shape, span, true)).0;
    // `coalesce((head, rest))`, on the mode list: the head's checks (as its layout's), the node
    // count of `(head, rest)`, the whole's checks, then the coalesced layout, with no layout
    // built on the way.
    if result.len() >= MAX_NODES {
        return Err(LayoutError::TooLarge);
    }
    tri!(result.check_values());
    if 2 + result.len() + rest_shape.node_count() > MAX_NODES {
        return Err(LayoutError::TooLarge);
    }
    let mut k = 0;
    let mut kd = 0;
    while let (Some((sk, sn)), Some((dk, dn))) = (rest_shape.read(k), rest_stride.read(kd)) {
        (k, kd) = (sn, dn);
        if let (Node::Int(s), Node::Int(d)) = (sk, dk) {
            tri!(result.push(s, d));
        }
    }
    tri!(result.check_values());
    bw_coalesce(&result, false)
}

/// The rest mode's shape: CuTe's `coalesce(ceil_div(cotarget, span))` (a tuple cotarget is
/// divided mode by mode, which can cover less or more than its size: `complement(7:1, (6,2))`
/// covers 7 of 12) where it covers `M` (see [`fold`]: `n * span - holes >= M` for `n` elements),
/// otherwise the same with its last extent grown by the least amount that covers (for an integer
/// cotarget, `ceil((M + holes) / span)`, one more than CuTe's at most). The rest is compact from
/// `span`, so growing its slowest extent `L` by one adds `n / L * span` to what it covers, and
/// keeps it aligned with the modes of a tuple cotarget (a divide's `shape(coalesce(A))`), which
/// is what lets the divide's composition exist. `head_top` is the top offset of the modes below
/// the rest, `top` the mode whose span `span` is (for the error).
const fn rest(
    cotarget: &DynIntTuple,
    span: DynInt,
    holes: DynInt,
    head_top: isize,
    top: (isize, isize),
) -> R<DynIntTuple> {
    let m = tri!(cotarget.size());
    let mut shape = match cotarget.as_int() {
        Some(mi) => DynIntTuple::int(ceil_quotient(mi, span)),
        None => tri!(coalesce_shape(&tri!(ops::divide(cotarget, &DynIntTuple::int(span), Division::Ceil)))),
    };
    // In 128 bits nothing here overflows: every factor fits in `isize`.
    let (m128, s128, h128) = (m.value as i128, span.value as i128, holes.value as i128);
    let mut n = tri!(shape.size()).value as i128;
    // The slowest extent: the last integer of the (flat) shape.
    let (mut k, mut at, mut last) = (0, 0, DynInt::new_static(1));
    while let Some((node, next)) = shape.read(at) {
        if let Node::Int(v) = node {
            (k, last) = (at, v);
        }
        at = next;
    }
    if n * s128 - h128 < m128 {
        let others = n / last.value as i128;
        let step = others * s128;
        let grown = last.value as i128 + (m128 + h128 - n * s128 + step - 1) / step;
        n = others * grown;
        let is_static =
            last.is_static && m.is_static && span.is_static && holes.is_static && shape.is_static();
        tri!(shape.replace_at(k, Node::Int(DynInt::new(grown as isize, is_static))));
    }
    // The complement's top offset: the head's, plus `n - 1` steps of `span` (the rest is compact).
    if head_top as i128 + (n - 1) * s128 > isize::MAX as i128 - 1 {
        return Err(inadmissible(Inadmissible::ComplementOverflow {
            cotarget: m.value,
            extent: top.0,
            stride: top.1,
        }));
    }
    Ok(shape)
}

/// CuTe's `ceil_div` of two positive integers (static if both are), without overflowing where
/// `a` is near `isize::MAX`.
const fn ceil_quotient(a: DynInt, b: DynInt) -> DynInt {
    DynInt::new(a.value / b.value + (a.value % b.value != 0) as isize, a.is_static && b.is_static)
}

const fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "complement", why }
}
