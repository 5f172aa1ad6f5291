//! `complement(A, M)`: the layout of the offsets below `M` that `A` does not reach, ordered.

use super::admissible::Inadmissible;
use super::coalesce::{coalesce, coalesce_shape, filter};
use super::leaves::Leaves;
use super::{R, is_const, min, mul};
use crate::dynamic::ops::{self, Division};
use crate::dynamic::{DynInt, DynIntTuple, DynLayout};
use crate::error::{LayoutError, tri};

/// CuTe's `complement(layout, cotarget)`: a layout `R`, with increasing offsets, such that
/// `(layout, R)` is injective and covers `cotarget` (an integer or a shape). The layout's modes,
/// sorted by stride, must nest: each stride a multiple of the span of the modes below it. Runtime
/// strides are fine at any rank (CuTe allows them only at rank 1).
///
/// ```
/// use const_layout::algebra::complement_to;
/// let a = "(_2,_2):(_1,_6)".parse().unwrap();
/// assert_eq!(complement_to(&a, &"_24".parse().unwrap()).unwrap().to_string(), "(_3,_2):(_2,_12)");
/// let a = "(2,2):(1,6)".parse().unwrap(); // CuTe refuses runtime strides at rank 2
/// assert_eq!(complement_to(&a, &"24".parse().unwrap()).unwrap().offsets().collect::<Vec<_>>(), [0, 2, 4, 12, 14, 16]);
/// ```
pub const fn complement_to(layout: &DynLayout, cotarget: &DynIntTuple) -> R<DynLayout> {
    tri!(super::identity::integer_strides("complement", &[layout]));
    complement_filtered(&tri!(filter(layout)), cotarget)
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
    let f = tri!(filter(layout));
    complement_filtered(&f, &DynIntTuple::int(f.cosize()))
}

const fn complement_filtered(f: &DynLayout, cotarget: &DynIntTuple) -> R<DynLayout> {
    let all = Leaves::of(f);
    // Modes that do not move (runtime extent 1 or stride 0; filter removed the static ones) add
    // nothing to the image: leave them out, which is what the mathematics asks for.
    let mut modes = Leaves::new();
    let mut k = 0;
    while k < all.len() {
        let (s, d) = (all.shape(k), all.stride(k));
        k += 1;
        if !(is_const(d, 0) && all.len() == 1) && (d.value == 0 || s.value == 1) {
            continue;
        }
        if d.value < 0 {
            return Err(inadmissible(Inadmissible::NegativeStride { mode: k - 1, stride: d.value }));
        }
        tri!(modes.push(s, d));
    }
    if modes.is_empty() || (modes.len() == 1 && is_const(modes.stride(0), 0)) {
        // The irreducible stride-0 layout: the complement is the whole cotarget.
        let shape = tri!(coalesce_shape(cotarget));
        return DynLayout::compact(shape, true);
    }
    tri!(check_nested(&modes));
    // CuTe's fold: repeatedly take the smallest stride.
    let mut result = Leaves::new();
    let mut last_stride = DynInt::fixed(1);
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
        let new_stride = tri!(mul(min_stride, modes.shape(idx)));
        tri!(result.push(new_shape, last_stride));
        last_stride = new_stride;
        modes.remove(idx);
    }
    let new_shape = modes.stride(0).div(last_stride);
    tri!(result.push(new_shape, last_stride));
    let new_stride = tri!(mul(modes.stride(0), modes.shape(0)));
    // CuTe divides a tuple cotarget mode by mode, which can cover less or more than the cotarget's
    // size (`complement(7:1, (6,2))` covers 7 of 12). Its shape is kept when it covers exactly
    // `ceil(size / new_stride)`; otherwise the rest is that single extent.
    let by_mode =
        tri!(coalesce_shape(&tri!(ops::divide(cotarget, &DynIntTuple::int(new_stride), Division::Ceil))));
    let total = tri!(cotarget.size());
    let want = total.ceil_div(new_stride);
    let rest_shape = if cotarget.is_int() || tri!(by_mode.size()).value == want.value {
        by_mode
    } else {
        DynIntTuple::int(want)
    };
    let rest_stride = tri!(ops::compact(&rest_shape, new_stride, true)).0;
    let head = tri!(result.layout(false));
    let whole = tri!(DynLayout::new(
        tri!(DynIntTuple::tuple(&[*head.shape(), rest_shape])),
        tri!(DynIntTuple::tuple(&[*head.stride(), rest_stride])),
    ));
    coalesce(&whole)
}

/// The modes, sorted by stride, must nest: each stride at least, and a multiple of, the span of
/// the one below it.
const fn check_nested(modes: &Leaves) -> R<()> {
    let mut order = [0usize; crate::dynamic::MAX_NODES];
    let n = modes.len();
    // Insertion sort by (stride, position), stable like the sort it replaces.
    let mut k = 0;
    while k < n {
        let mut j = k;
        while j > 0 && modes.stride(order[j - 1]).value > modes.stride(k).value {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = k;
        k += 1;
    }
    let mut w = 0;
    while w + 1 < n {
        let (lo, hi) = (order[w], order[w + 1]);
        w += 1;
        let Some(span) = modes.shape(lo).value.checked_mul(modes.stride(lo).value) else {
            return Err(LayoutError::CosizeOverflow);
        };
        let d = modes.stride(hi).value;
        if d == modes.stride(lo).value {
            return Err(inadmissible(Inadmissible::NotInjective { stride: d }));
        }
        if d < span || d % span != 0 {
            return Err(inadmissible(Inadmissible::NotNested { stride: d, span }));
        }
    }
    Ok(())
}

const fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "complement", why }
}
