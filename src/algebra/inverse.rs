//! `right_inverse`, `left_inverse`, `max_common_layout`, `max_common_vector` and `nullspace`.

use super::admissible::Inadmissible;
use super::coalesce::coalesce;
use super::composition::composition;
use super::leaves::Leaves;
use super::{R, is_const, mul, scalar};
use crate::dynamic::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::LayoutError;

/// The coalesced modes of a layout with their exclusive prefix products (CuTe's `preprod_shape`).
fn prepared(layout: &DynLayout) -> R<(Leaves, [DynInt; MAX_NODES])> {
    let c = Leaves::of(&coalesce(layout)?);
    let mut pre = [DynInt::fixed(1); MAX_NODES];
    for k in 1..c.len() {
        pre[k] = mul(pre[k - 1], c.shape(k - 1))?;
    }
    Ok((c, pre))
}

/// The indices of `c`'s modes sorted by stride value as CuTe sorts them, keeping those `keep`
/// accepts.
fn sorted(c: &Leaves, keep: impl Fn(DynInt) -> bool) -> ([usize; MAX_NODES], usize) {
    let mut order = [0usize; MAX_NODES];
    let mut n = 0;
    for k in 0..c.len() {
        if keep(c.stride(k)) {
            order[n] = k;
            n += 1;
        }
    }
    // CuTe's exchange sort, whose order for equal strides decides which mode the inverse follows.
    for i in 0..n {
        for j in i + 1..n {
            if c.stride(order[j]).value < c.stride(order[i]).value {
                order.swap(i, j);
            }
        }
    }
    (order, n)
}

/// CuTe's `right_inverse(layout)`: a layout `R` with `layout(R(i)) == i` for every `i` below
/// `size(R)`, as large as CuTe finds it: it follows the static strides 1, s0, s0*s1, ... that
/// continue one another (runtime strides are not followed, as in CuTe).
///
/// ```
/// use const_layout::algebra::right_inverse;
/// let l = "(_4,_2):(_2,_1)".parse().unwrap();
/// assert_eq!(right_inverse(&l).unwrap().to_string(), "(_2,_4):(_4,_1)");
/// ```
pub fn right_inverse(layout: &DynLayout) -> R<DynLayout> {
    super::identity::integer_strides("right_inverse", &[layout])?;
    let (c, pre) = prepared(layout)?;
    let (order, n) = sorted(&c, |d| d.is_static);
    let mut result = Leaves::new();
    result.push(DynInt::fixed(1), DynInt::fixed(0))?;
    let mut curr = DynInt::fixed(1);
    for &i in &order[..n] {
        let d = c.stride(i);
        if curr.is_static && curr.value == d.value {
            result.push(c.shape(i), pre[i])?;
            curr = mul(c.shape(i), d)?;
        }
    }
    coalesce(&result.layout(false)?)
}

/// CuTe's `left_inverse(layout)`: for an injective layout, `R(layout(i)) == i` for every `i` in
/// its domain (for one with stride-0 modes, `layout(R(layout(i))) == layout(i)`). The strides,
/// sorted, must nest (each a multiple of the one below and at least the span below it), and be
/// non-negative. Runtime strides are fine (CuTe requires static ones).
///
/// ```
/// use const_layout::algebra::left_inverse;
/// let l = "(_2,_3):(_3,_1)".parse().unwrap();
/// assert_eq!(left_inverse(&l).unwrap().to_string(), "(_3,_2):(_2,_1)");
/// let bad = "(_3,_2):(_1,_2)".parse().unwrap();
/// assert_eq!(
///     left_inverse(&bad).unwrap_err().to_string(),
///     "left_inverse: the modes do not nest: stride 2 is not a multiple of 3, the span of the mode below it"
/// );
/// ```
pub fn left_inverse(layout: &DynLayout) -> R<DynLayout> {
    super::identity::integer_strides("left_inverse", &[layout])?;
    // CuTe's fold also takes runtime extent-1 modes for moving ones; its answer is kept where it
    // is a (quasi-)inverse, which is checked point by point for small layouts.
    if layout.size().value <= BY_VALUE_LIMIT
        && let Ok(r) = left_inverse_with(layout, false)
        && is_quasi_inverse(layout, &r)
    {
        return Ok(r);
    }
    left_inverse_with(layout, true)
}

/// Layouts up to this size have CuTe's answer checked point by point.
const BY_VALUE_LIMIT: isize = 1 << 14;

/// `layout(r(layout(i))) == layout(i)` for every `i`, and `r(layout(i))` in the domain.
fn is_quasi_inverse(layout: &DynLayout, r: &DynLayout) -> bool {
    (0..layout.size().value).all(|i| {
        let back = r.offset(layout.offset(i));
        (0..layout.size().value).contains(&back) && layout.offset(back) == layout.offset(i)
    })
}

/// The fold, with the admissibility checks and non-moving runtime modes skipped (`exact`), or as
/// CuTe does it.
fn left_inverse_with(layout: &DynLayout, exact: bool) -> R<DynLayout> {
    let (c, pre) = prepared(layout)?;
    // Modes that do not move (stride 0, or a runtime extent 1 that coalesce keeps) do not matter
    // to the inverse.
    let moves = |k: usize| c.stride(k).value != 0 && (!exact || c.shape(k).value != 1);
    for k in 0..c.len() {
        if moves(k) && c.stride(k).value < 0 {
            return Err(inadmissible(Inadmissible::NegativeStride { mode: k, stride: c.stride(k).value }));
        }
    }
    let (order, n) = sorted(&c, |_| true);
    let mut shapes = Leaves::new(); // (result shape, result stride) pairs after the leading `_0`
    let mut size = DynInt::fixed(1);
    let mut prev: Option<usize> = None;
    for &i in &order[..n] {
        let d = c.stride(i);
        if !moves(i) {
            continue;
        }
        if let Some(p) = prev.filter(|_| exact) {
            if d.value == c.stride(p).value {
                return Err(inadmissible(Inadmissible::NotInjective { stride: d.value }));
            }
            let span = c.shape(p).value.checked_mul(c.stride(p).value).ok_or(LayoutError::CosizeOverflow)?;
            if d.value < span {
                return Err(inadmissible(Inadmissible::NotNested { stride: d.value, span }));
            }
        }
        if d.value % size.value != 0 {
            return Err(inadmissible(Inadmissible::NotNested { stride: d.value, span: size.value }));
        }
        let step = d.div(size);
        shapes.push(step, pre[i])?;
        size = mul(size, step)?;
        prev = Some(i);
    }
    // Result: shape (steps..., last shape), stride (_0, prefix products...).
    // The largest-stride mode's extent (of a moving mode if there is one).
    let last = match prev {
        Some(p) => c.shape(p),
        None if n > 0 => c.shape(order[n - 1]),
        None => DynInt::fixed(1),
    };
    let k = shapes.len();
    let shape = DynIntTuple::from_modes(
        (0..=k).map(|j| DynIntTuple::int(if j < k { shapes.shape(j) } else { last })),
    )?;
    let stride = DynIntTuple::from_modes(
        (0..=k).map(|j| DynIntTuple::int(if j == 0 { DynInt::fixed(0) } else { shapes.stride(j - 1) })),
    )?;
    coalesce(&DynLayout::new(shape, stride)?)
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
pub fn max_common_layout(a: &DynLayout, b: &DynLayout) -> R<DynLayout> {
    super::identity::integer_strides("max_common_layout", &[a, b])?;
    let inv_b = right_inverse(b)?;
    let common = coalesce(&composition(a, &inv_b)?)?;
    let first = common.mode(0).ok_or(LayoutError::TooLarge)?;
    let (s, d) = (first.shape().as_int(), first.stride().as_int());
    match (s, d) {
        (Some(s), Some(d)) if s.is_static && is_const(d, 1) => composition(&inv_b, &first),
        _ => scalar(DynInt::fixed(1), DynInt::fixed(0)),
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
pub fn max_common_vector(a: &DynLayout, b: &DynLayout) -> R<DynInt> {
    super::identity::integer_strides("max_common_vector", &[a, b])?;
    let common = coalesce(&composition(a, &right_inverse(b)?)?)?;
    let first = common.mode(0).ok_or(LayoutError::TooLarge)?;
    match (first.shape().as_int(), first.stride().as_int()) {
        (Some(s), Some(d)) if s.is_static && is_const(d, 1) => Ok(s),
        _ => Ok(DynInt::fixed(1)),
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
pub fn nullspace(layout: &DynLayout) -> R<DynLayout> {
    super::identity::integer_strides("nullspace", &[layout])?;
    let flat = Leaves::of(layout);
    let flat_shape = layout.shape().flatten()?;
    let rstride = crate::dynamic::ops::compact(&flat_shape, DynInt::fixed(1), true)?.0;
    let strides: Leaves = Leaves::of(&DynLayout::new(flat_shape, rstride)?);
    let mut out = Leaves::new();
    for k in 0..flat.len() {
        if flat.stride(k).value == 0 {
            out.push(flat.shape(k), strides.stride(k))?;
        }
    }
    if out.is_empty() {
        return scalar(DynInt::fixed(1), DynInt::fixed(0));
    }
    out.layout(true)
}

fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "left_inverse", why }
}
