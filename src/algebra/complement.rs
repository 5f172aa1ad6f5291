//! `complement(A, M)`: the layout of the offsets below `M` that `A` does not reach, ordered.

use super::admissible::Inadmissible;
use super::coalesce::{coalesce, coalesce_shape, filter};
use super::leaves::Leaves;
use super::{R, is_const, min, mul};
use crate::dynamic::ops::{self, Division};
use crate::dynamic::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;

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
pub fn complement_to(layout: &DynLayout, cotarget: &DynIntTuple) -> R<DynLayout> {
    super::identity::integer_strides("complement", &[layout])?;
    complement_filtered(&filter(layout)?, cotarget)
}

/// CuTe's `complement(layout)`: the complement within the layout's own cosize.
///
/// ```
/// use const_layout::algebra::complement;
/// let a = "(_2,_2):(_1,_6)".parse().unwrap();
/// assert_eq!(complement(&a).unwrap().to_string(), "_3:_2");
/// ```
pub fn complement(layout: &DynLayout) -> R<DynLayout> {
    super::identity::integer_strides("complement", &[layout])?;
    let f = filter(layout)?;
    complement_filtered(&f, &DynIntTuple::int(f.cosize()))
}

fn complement_filtered(f: &DynLayout, cotarget: &DynIntTuple) -> R<DynLayout> {
    let all = Leaves::of(f);
    // Modes that do not move (runtime extent 1 or stride 0; filter removed the static ones) add
    // nothing to the image: leave them out, which is what the mathematics asks for.
    let mut modes = Leaves::new();
    for k in 0..all.len() {
        let (s, d) = (all.shape(k), all.stride(k));
        if !(is_const(d, 0) && all.len() == 1) && (d.value == 0 || s.value == 1) {
            continue;
        }
        if d.value < 0 {
            return Err(inadmissible(Inadmissible::NegativeStride { mode: k, stride: d.value }));
        }
        modes.push(s, d)?;
    }
    if modes.is_empty() || (modes.len() == 1 && is_const(modes.stride(0), 0)) {
        // The irreducible stride-0 layout: the complement is the whole cotarget.
        let shape = coalesce_shape(cotarget)?;
        return DynLayout::compact(shape, true);
    }
    check_nested(&modes)?;
    // CuTe's fold: repeatedly take the smallest stride.
    let mut result = Leaves::new();
    let mut last_stride = DynInt::fixed(1);
    while modes.len() > 1 {
        let mut min_stride = modes.stride(0);
        for k in 1..modes.len() {
            min_stride = min(min_stride, modes.stride(k));
        }
        let idx = (0..modes.len()).find(|&k| modes.stride(k).value == min_stride.value).unwrap_or(0);
        let new_shape = min_stride.div(last_stride);
        let new_stride = mul(min_stride, modes.shape(idx))?;
        result.push(new_shape, last_stride)?;
        last_stride = new_stride;
        modes.remove(idx);
    }
    let new_shape = modes.stride(0).div(last_stride);
    result.push(new_shape, last_stride)?;
    let new_stride = mul(modes.stride(0), modes.shape(0))?;
    // CuTe divides a tuple cotarget mode by mode, which can cover less or more than the cotarget's
    // size (`complement(7:1, (6,2))` covers 7 of 12). Its shape is kept when it covers exactly
    // `ceil(size / new_stride)`; otherwise the rest is that single extent.
    let by_mode = coalesce_shape(&ops::divide(cotarget, &DynIntTuple::int(new_stride), Division::Ceil)?)?;
    let total = cotarget.size()?;
    let want = total.ceil_div(new_stride);
    let rest_shape = if cotarget.is_int() || by_mode.size()?.value == want.value {
        by_mode
    } else {
        DynIntTuple::int(want)
    };
    let rest_stride = ops::compact(&rest_shape, new_stride, true)?.0;
    let head = result.layout(false)?;
    let whole = DynLayout::new(
        DynIntTuple::from_modes([*head.shape(), rest_shape])?,
        DynIntTuple::from_modes([*head.stride(), rest_stride])?,
    )?;
    coalesce(&whole)
}

/// The modes, sorted by stride, must nest: each stride at least, and a multiple of, the span of
/// the one below it.
fn check_nested(modes: &Leaves) -> R<()> {
    let mut order = [0usize; crate::dynamic::MAX_NODES];
    let n = modes.len();
    for (k, o) in order.iter_mut().enumerate().take(n) {
        *o = k;
    }
    order[..n].sort_unstable_by_key(|&k| (modes.stride(k).value, k));
    for w in order[..n].windows(2) {
        let (lo, hi) = (w[0], w[1]);
        let span =
            modes.shape(lo).value.checked_mul(modes.stride(lo).value).ok_or(LayoutError::CosizeOverflow)?;
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

fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "complement", why }
}
