//! Mode operations (`select`, `take`, `group`, `append`, `prepend`, `replace`), the casts
//! (`upcast`, `downcast`, `recast_layout`) and `make_layout_like`.

use super::{ModeBuilder, R, is_const};
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{DynInt, DynLayout};
use crate::error::Inadmissible;
use crate::error::{LayoutError, tri};

const fn out_of_range(op: &'static str, index: usize, rank: usize) -> LayoutError {
    LayoutError::ModeOutOfRange { op, index, rank }
}

const fn mode(layout: &DynLayout, op: &'static str, i: usize) -> R<DynLayout> {
    match layout.mode(i) {
        Some(m) => Ok(m),
        None => Err(out_of_range(op, i, layout.rank())),
    }
}

/// Push modes `begin..end` of `layout` onto `out`.
const fn push_range(out: &mut ModeBuilder, layout: &DynLayout, begin: usize, end: usize) -> R<()> {
    let mut i = begin;
    while i < end {
        tri!(out.push(&tri!(super::mode_of(layout, i))));
        i += 1;
    }
    Ok(())
}

/// CuTe's `select<I...>(layout)`: the layout of the chosen modes, in the given order.
///
/// ```
/// use const_layout::algebra::select;
/// let l = "(_2,_3,_4):(_1,_2,_6)".parse().unwrap();
/// assert_eq!(select(&l, &[2, 0]).unwrap().to_string(), "(_4,_2):(_6,_1)");
/// ```
pub const fn select(layout: &DynLayout, indices: &[usize]) -> R<DynLayout> {
    let mut out = tri!(ModeBuilder::new());
    let mut k = 0;
    while k < indices.len() {
        tri!(out.push(&tri!(mode(layout, "select", indices[k]))));
        k += 1;
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
pub const fn take(layout: &DynLayout, begin: usize, end: usize) -> R<DynLayout> {
    // CuTe: "take: empty range error" for `begin == end`.
    if begin >= end || end > layout.rank() {
        return Err(out_of_range("take", if end > begin { end } else { begin }, layout.rank()));
    }
    let mut out = tri!(ModeBuilder::new());
    tri!(push_range(&mut out, layout, begin, end));
    out.finish()
}

/// CuTe's `group<B,E>(layout)`: modes `B..E` gathered into one mode.
///
/// ```
/// use const_layout::algebra::group;
/// let l = "(_2,_3,_4):(_1,_2,_6)".parse().unwrap();
/// assert_eq!(group(&l, 1, 3).unwrap().to_string(), "(_2,(_3,_4)):(_1,(_2,_6))");
/// ```
pub const fn group(layout: &DynLayout, begin: usize, end: usize) -> R<DynLayout> {
    let n = layout.rank();
    if begin > end || end > n {
        return Err(out_of_range("group", if end > begin { end } else { begin }, n));
    }
    let mut out = tri!(ModeBuilder::new());
    tri!(push_range(&mut out, layout, 0, begin));
    if begin < end {
        tri!(out.push(&tri!(take(layout, begin, end))));
    }
    tri!(push_range(&mut out, layout, end, n));
    out.finish()
}

/// CuTe's `append(layout, x)`: `x` as a new last mode.
///
/// ```
/// use const_layout::algebra::append;
/// let l = "(_2,_3):(_1,_2)".parse().unwrap();
/// assert_eq!(append(&l, &"_4:_6".parse().unwrap()).unwrap().to_string(), "(_2,_3,_4):(_1,_2,_6)");
/// ```
pub const fn append(layout: &DynLayout, x: &DynLayout) -> R<DynLayout> {
    let mut out = tri!(ModeBuilder::new());
    tri!(push_range(&mut out, layout, 0, layout.rank()));
    tri!(out.push(x));
    out.finish()
}

/// CuTe's `prepend(layout, x)`: `x` as a new first mode.
///
/// ```
/// use const_layout::algebra::prepend;
/// let l = "(_2,_3):(_1,_2)".parse().unwrap();
/// assert_eq!(prepend(&l, &"_4:_6".parse().unwrap()).unwrap().to_string(), "(_4,_2,_3):(_6,_1,_2)");
/// ```
pub const fn prepend(layout: &DynLayout, x: &DynLayout) -> R<DynLayout> {
    let mut out = tri!(ModeBuilder::new());
    tri!(out.push(x));
    tri!(push_range(&mut out, layout, 0, layout.rank()));
    out.finish()
}

/// CuTe's `replace<I>(layout, x)`: mode `I` replaced by `x` (an integer layout's mode 0 is itself).
///
/// ```
/// use const_layout::algebra::replace;
/// let l = "(_2,_3):(_1,_2)".parse().unwrap();
/// assert_eq!(replace(&l, 1, &"_4:_6".parse().unwrap()).unwrap().to_string(), "(_2,_4):(_1,_6)");
/// ```
pub const fn replace(layout: &DynLayout, index: usize, x: &DynLayout) -> R<DynLayout> {
    if layout.shape().is_int() {
        return if index == 0 { Ok(*x) } else { Err(out_of_range("replace", index, 1)) };
    }
    if index >= layout.rank() {
        return Err(out_of_range("replace", index, layout.rank()));
    }
    let mut out = tri!(ModeBuilder::new());
    tri!(push_range(&mut out, layout, 0, index));
    tri!(out.push(x));
    tri!(push_range(&mut out, layout, index + 1, layout.rank()));
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
    tri!(push_range(&mut out, layout, 0, r));
    let mut i = r;
    while i < n {
        tri!(out.push(&DynLayout::UNIT));
        i += 1;
    }
    out.finish()
}

/// Apply `f` to every (extent, stride) leaf, keeping the structure.
/// The casts [`map_modes`] applies to every (extent, stride) leaf (a `const fn` takes no closure).
#[derive(Clone, Copy)]
enum Cast {
    Up(isize),
    Down(isize),
}

const fn cast_leaf(how: Cast, s: DynInt, d: DynInt) -> R<(DynInt, DynInt)> {
    match how {
        Cast::Up(n) => {
            let big = DynInt::new_static(n);
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
        }
        Cast::Down(n) => {
            let big = DynInt::new_static(n);
            if is_const(d, 1) || is_const(d, -1) {
                Ok((tri!(super::mul(s, big)), d))
            } else {
                Ok((s, tri!(super::mul(d, big))))
            }
        }
    }
}

/// Apply a cast to every (extent, stride) leaf, keeping the structure.
const fn map_modes(layout: &DynLayout, how: Cast) -> R<DynLayout> {
    let (mut shape, mut stride) = (*layout.shape(), *layout.stride());
    let (mut a, mut b) = (0, 0);
    while let (Some((sn, sa)), Some((dn, db))) = (shape.read(a), stride.read(b)) {
        (a, b) = match (sn, dn) {
            (Node::Int(s), Node::Int(d)) => {
                let (s, d) = tri!(cast_leaf(how, s, d));
                (tri!(shape.replace_at(a, Node::Int(s))), tri!(stride.replace_at(b, Node::Int(d))))
            }
            _ => (sa, db),
        };
    }
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
pub const fn upcast(layout: &DynLayout, n: isize) -> R<DynLayout> {
    tri!(super::identity::integer_strides("upcast", &[layout]));
    if n <= 0 {
        return Err(LayoutError::NonPositiveExtent { leaf: 0, value: n });
    }
    map_modes(layout, Cast::Up(n))
}

/// CuTe's `downcast<N>(layout)`: the layout over elements `n` times as narrow: stride-±1 modes
/// grow `n` times, other strides are multiplied by `n`. Some mode must have stride 1.
///
/// ```
/// use const_layout::algebra::downcast;
/// let l = "(_4,_8):(_1,_4)".parse().unwrap();
/// assert_eq!(downcast(&l, 2).unwrap().to_string(), "(_8,_8):(_1,_8)");
/// ```
pub const fn downcast(layout: &DynLayout, n: isize) -> R<DynLayout> {
    tri!(super::identity::integer_strides("downcast", &[layout]));
    if n <= 0 {
        return Err(LayoutError::NonPositiveExtent { leaf: 0, value: n });
    }
    let stride = layout.stride();
    let mut unit = false;
    let mut k = 0;
    while let Some((node_k, next_k)) = stride.read(k) {
        k = next_k;
        if let Node::Int(d) = node_k
            && d.value == 1
        {
            unit = true;
        }
    }
    if !unit {
        return Err(LayoutError::Inadmissible { op: "downcast", why: Inadmissible::NoUnitStride });
    }
    map_modes(layout, Cast::Down(n))
}

/// CuTe's `recast_layout<Old, New>(layout)` for element widths in bits: `upcast` by the ratio
/// when the new type is wider, `downcast` when narrower, both for a ratio like 3/2.
///
/// ```
/// use const_layout::algebra::recast_layout;
/// let l = "(_4,_8):(_1,_4)".parse().unwrap();
/// assert_eq!(recast_layout(&l, 16, 32).unwrap().to_string(), "(_2,_8):(_1,_2)");
/// ```
pub const fn recast_layout(layout: &DynLayout, old_bits: isize, new_bits: isize) -> R<DynLayout> {
    tri!(super::identity::integer_strides("recast_layout", &[layout]));
    if old_bits <= 0 || new_bits <= 0 {
        let value = if old_bits < new_bits { old_bits } else { new_bits };
        return Err(LayoutError::NonPositiveExtent { leaf: 0, value });
    }
    let g = gcd(old_bits, new_bits);
    let (num, den) = (new_bits / g, old_bits / g);
    match (num, den) {
        (1, 1) => Ok(*layout),
        (1, d) => downcast(layout, d),
        (u, 1) => upcast(layout, u),
        (u, d) => downcast(&tri!(upcast(layout, u)), d),
    }
}

const fn gcd(mut a: isize, mut b: isize) -> isize {
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
pub const fn make_layout_like(layout: &DynLayout) -> R<DynLayout> {
    let (mut filtered, stride) = (*layout.shape(), layout.stride());
    let (mut a, mut b) = (0, 0);
    while let (Some(_), Some((d, next))) = (filtered.read(a), stride.read(b)) {
        a = match d {
            Node::Int(d) if is_const(d, 0) => tri!(filtered.replace_at(a, Node::Int(DynInt::new_static(1)))),
            _ => filtered.decode(a).1,
        };
        b = next;
    }
    let stride = tri!(crate::dyn_layout::ops::compact_order(&filtered, layout.stride()));
    DynLayout::new(*layout.shape(), stride)
}
