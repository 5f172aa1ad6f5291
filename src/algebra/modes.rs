//! Mode operations (`select`, `take`, `group`, `append`, `prepend`, `replace`), the casts
//! (`upcast`, `downcast`, `recast_layout`) and `make_layout_like`.

use super::admissible::Inadmissible;
use super::{ModeBuilder, R, is_const, modes_of};
use crate::dynamic::{DynInt, DynIntTuple, DynLayout};
use crate::error::{LayoutError, tri};

fn out_of_range(op: &'static str, index: usize, rank: usize) -> LayoutError {
    LayoutError::ModeOutOfRange { op, index, rank }
}

fn mode(layout: &DynLayout, op: &'static str, i: usize) -> R<DynLayout> {
    layout.mode(i).ok_or(out_of_range(op, i, layout.rank()))
}

/// CuTe's `select<I...>(layout)`: the layout of the chosen modes, in the given order.
///
/// ```
/// use const_layout::algebra::select;
/// let l = "(_2,_3,_4):(_1,_2,_6)".parse().unwrap();
/// assert_eq!(select(&l, &[2, 0]).unwrap().to_string(), "(_4,_2):(_6,_1)");
/// ```
pub fn select(layout: &DynLayout, indices: &[usize]) -> R<DynLayout> {
    let mut out = ModeBuilder::new()?;
    for &i in indices {
        out.push(&mode(layout, "select", i)?)?;
    }
    out.finish()
}

/// CuTe's `take<B,E>(layout)`: modes `B..E`.
///
/// ```
/// use const_layout::algebra::take;
/// let l = "(_2,_3,_4):(_1,_2,_6)".parse().unwrap();
/// assert_eq!(take(&l, 1, 3).unwrap().to_string(), "(_3,_4):(_2,_6)");
/// ```
pub fn take(layout: &DynLayout, begin: usize, end: usize) -> R<DynLayout> {
    // CuTe: "take: empty range error" for `begin == end`.
    if begin >= end || end > layout.rank() {
        return Err(out_of_range("take", end.max(begin), layout.rank()));
    }
    let mut out = ModeBuilder::new()?;
    for m in modes_of(layout).take(end).skip(begin) {
        out.push(&m)?;
    }
    out.finish()
}

/// CuTe's `group<B,E>(layout)`: modes `B..E` gathered into one mode.
///
/// ```
/// use const_layout::algebra::group;
/// let l = "(_2,_3,_4):(_1,_2,_6)".parse().unwrap();
/// assert_eq!(group(&l, 1, 3).unwrap().to_string(), "(_2,(_3,_4)):(_1,(_2,_6))");
/// ```
pub fn group(layout: &DynLayout, begin: usize, end: usize) -> R<DynLayout> {
    let n = layout.rank();
    if begin > end || end > n {
        return Err(out_of_range("group", end.max(begin), n));
    }
    let mut out = ModeBuilder::new()?;
    for m in modes_of(layout).take(begin) {
        out.push(&m)?;
    }
    if begin < end {
        out.push(&take(layout, begin, end)?)?;
    }
    for m in modes_of(layout).skip(end) {
        out.push(&m)?;
    }
    out.finish()
}

/// CuTe's `append(layout, x)`: `x` as a new last mode.
///
/// ```
/// use const_layout::algebra::append;
/// let l = "(_2,_3):(_1,_2)".parse().unwrap();
/// assert_eq!(append(&l, &"_4:_6".parse().unwrap()).unwrap().to_string(), "(_2,_3,_4):(_1,_2,_6)");
/// ```
pub fn append(layout: &DynLayout, x: &DynLayout) -> R<DynLayout> {
    let mut out = ModeBuilder::new()?;
    for m in modes_of(layout) {
        out.push(&m)?;
    }
    out.push(x)?;
    out.finish()
}

/// CuTe's `prepend(layout, x)`: `x` as a new first mode.
///
/// ```
/// use const_layout::algebra::prepend;
/// let l = "(_2,_3):(_1,_2)".parse().unwrap();
/// assert_eq!(prepend(&l, &"_4:_6".parse().unwrap()).unwrap().to_string(), "(_4,_2,_3):(_6,_1,_2)");
/// ```
pub fn prepend(layout: &DynLayout, x: &DynLayout) -> R<DynLayout> {
    let mut out = ModeBuilder::new()?;
    out.push(x)?;
    for m in modes_of(layout) {
        out.push(&m)?;
    }
    out.finish()
}

/// CuTe's `replace<I>(layout, x)`: mode `I` replaced by `x` (an integer layout's mode 0 is itself).
///
/// ```
/// use const_layout::algebra::replace;
/// let l = "(_2,_3):(_1,_2)".parse().unwrap();
/// assert_eq!(replace(&l, 1, &"_4:_6".parse().unwrap()).unwrap().to_string(), "(_2,_4):(_1,_6)");
/// ```
pub fn replace(layout: &DynLayout, index: usize, x: &DynLayout) -> R<DynLayout> {
    if layout.shape().is_int() {
        return if index == 0 { Ok(*x) } else { Err(out_of_range("replace", index, 1)) };
    }
    if index >= layout.rank() {
        return Err(out_of_range("replace", index, layout.rank()));
    }
    let mut out = ModeBuilder::new()?;
    for (i, m) in modes_of(layout).enumerate() {
        out.push(if i == index { x } else { &m })?;
    }
    out.finish()
}

/// CuTe's `append<N>(layout)`: padded with `_1:_0` modes to rank `n` (an integer layout stays one
/// for `n == 1`).
///
/// ```
/// use const_layout::algebra::append_to;
/// let l = "_4:_1".parse().unwrap();
/// assert_eq!(append_to(&l, 3).unwrap().to_string(), "(_4,_1,_1):(_1,_0,_0)");
/// ```
pub const fn append_to(layout: &DynLayout, n: usize) -> R<DynLayout> {
    let r = layout.rank();
    if n < r {
        return Err(LayoutError::RankMismatch { what: "layout", got: r, expected: n });
    }
    if n == r {
        return Ok(*layout);
    }
    let mut out = tri!(ModeBuilder::new());
    let mut i = 0;
    while i < n {
        tri!(out.push(&if i < r { tri!(super::mode_of(layout, i)) } else { DynLayout::UNIT }));
        i += 1;
    }
    out.finish()
}

/// Apply `f` to every (extent, stride) leaf, keeping the structure.
fn map_modes(layout: &DynLayout, f: &dyn Fn(DynInt, DynInt) -> R<(DynInt, DynInt)>) -> R<DynLayout> {
    let mut pairs = [(DynInt::fixed(0), DynInt::fixed(0)); crate::dynamic::MAX_NODES];
    for (k, (s, d)) in layout.shape().leaves().zip(layout.stride().leaves()).enumerate() {
        pairs[k] = f(s, d)?;
    }
    let mut i = 0;
    let shape = layout.shape().map_leaves(|_| {
        i += 1;
        pairs[i - 1].0
    });
    let mut j = 0;
    let stride = layout.stride().map_leaves(|_| {
        j += 1;
        pairs[j - 1].1
    });
    DynLayout::new(shape, stride)
}

/// CuTe's `upcast<N>(layout)`: the layout over elements `n` times as wide. A mode with stride
/// below `n` (which must divide `n`) shrinks its extent; other strides are divided by `n` (and
/// must be multiples of it; CuTe assumes so for runtime strides, this checks).
///
/// ```
/// use const_layout::algebra::upcast;
/// let l = "(_4,_8):(_1,_4)".parse().unwrap();
/// assert_eq!(upcast(&l, 2).unwrap().to_string(), "(_2,_8):(_1,_2)");
/// ```
pub fn upcast(layout: &DynLayout, n: isize) -> R<DynLayout> {
    super::identity::integer_strides("upcast", &[layout])?;
    let big = DynInt::fixed(n);
    map_modes(layout, &|s, d| {
        if d.value == 0 {
            return Ok((s, d));
        }
        let a = d.value.unsigned_abs() as isize;
        if a % n != 0 && n % a != 0 {
            return Err(LayoutError::Inadmissible {
                op: "upcast",
                why: Inadmissible::CastDivisibility { stride: d.value, n },
            });
        }
        if !d.is_static && a % n == 0 {
            // CuTe's dynamic branch: shape kept, stride divided.
            return Ok((s, d.div(big)));
        }
        let shrink = big.ceil_div(d.abs());
        Ok((s.ceil_div(shrink), super::signum(d).mul(d.abs().ceil_div(big))))
    })
}

/// CuTe's `downcast<N>(layout)`: the layout over elements `n` times as narrow: stride-±1 modes
/// grow `n` times, other strides are multiplied by `n`. Some mode must have stride 1.
///
/// ```
/// use const_layout::algebra::downcast;
/// let l = "(_4,_8):(_1,_4)".parse().unwrap();
/// assert_eq!(downcast(&l, 2).unwrap().to_string(), "(_8,_8):(_1,_8)");
/// ```
pub fn downcast(layout: &DynLayout, n: isize) -> R<DynLayout> {
    super::identity::integer_strides("downcast", &[layout])?;
    if !layout.stride().leaves().any(|d| d.value == 1) {
        return Err(LayoutError::Inadmissible { op: "downcast", why: Inadmissible::NoUnitStride });
    }
    let big = DynInt::fixed(n);
    map_modes(layout, &|s, d| {
        if is_const(d, 1) || is_const(d, -1) {
            Ok((super::mul(s, big)?, d))
        } else {
            Ok((s, super::mul(d, big)?))
        }
    })
}

/// CuTe's `recast_layout<Old, New>(layout)` for element widths in bits: `upcast` by the ratio
/// when the new type is wider, `downcast` when narrower, both for a ratio like 3/2.
///
/// ```
/// use const_layout::algebra::recast_layout;
/// let l = "(_4,_8):(_1,_4)".parse().unwrap();
/// assert_eq!(recast_layout(&l, 16, 32).unwrap().to_string(), "(_2,_8):(_1,_2)");
/// ```
pub fn recast_layout(layout: &DynLayout, old_bits: isize, new_bits: isize) -> R<DynLayout> {
    super::identity::integer_strides("recast_layout", &[layout])?;
    if old_bits <= 0 || new_bits <= 0 {
        return Err(LayoutError::NonPositiveExtent { leaf: 0, value: old_bits.min(new_bits) });
    }
    let g = gcd(old_bits, new_bits);
    let (num, den) = (new_bits / g, old_bits / g);
    match (num, den) {
        (1, 1) => Ok(*layout),
        (1, d) => downcast(layout, d),
        (u, 1) => upcast(layout, u),
        (u, d) => downcast(&upcast(layout, u)?, d),
    }
}

fn gcd(mut a: isize, mut b: isize) -> isize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// CuTe's `make_layout_like(layout)`: a compact layout of the same shape whose modes are ordered
/// as `layout`'s strides order them; static zero strides stay zero.
///
/// ```
/// use const_layout::algebra::make_layout_like;
/// let l = "(_2,_2,_2,_2):(_0,_2,_4,_1)".parse().unwrap();
/// assert_eq!(make_layout_like(&l).unwrap().to_string(), "(_2,_2,_2,_2):(_0,_2,_4,_1)");
/// ```
pub fn make_layout_like(layout: &DynLayout) -> R<DynLayout> {
    let mut strides = layout.stride().leaves();
    let filtered: DynIntTuple = layout.shape().map_leaves(|s| match strides.next() {
        Some(d) if is_const(d, 0) => DynInt::fixed(1),
        _ => s,
    });
    let stride = crate::dynamic::ops::compact_order(&filtered, layout.stride())?;
    DynLayout::new(*layout.shape(), stride)
}
