//! CuTe's basis elements `E<i,j,...>` and scaled-basis strides (`_1@0`): the strides of
//! `make_identity_layout`, whose layouts map coordinates to coordinates.
//!
//! A stride integer may scale a basis element ([`DynInt::basis`]); such a layout's value at a
//! coordinate is a coordinate (CuTe's `ArithmeticTuple`), assembled here from the per-basis sums.
//! Integers and bases are not mixed in one layout (but for zero strides), as CuTe does not mix them.

use super::int_tuple::{DynInt, DynIntTuple};
use super::ops;
use crate::error::LayoutError;

/// The deepest basis path: `E<i,j,k,l>`.
pub const MAX_BASIS_DEPTH: usize = 4;

/// CuTe's unit basis element `E<i,j,...>`: the coordinate that is 1 at mode path `i, j, ...` and
/// 0 elsewhere. A stride `v@i` (CuTe's `ScaledBasis`) is `v` times `E<i>`; the strides of
/// `make_identity_layout` are such basis elements, so the layout maps a coordinate to itself.
/// CuTe prints the path innermost first: `E<1,0>` scaled by `_1` is `_1@0@1`.
///
/// ```
/// use const_layout::dynamic::{Basis, DynInt};
/// let e10 = Basis::new(&[1, 0]).unwrap();
/// assert_eq!(e10.path().collect::<Vec<_>>(), [1, 0]);
/// assert_eq!(DynInt::fixed(1).scaled(e10).to_string(), "_1@0@1");
/// assert!(Basis::NONE.is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Basis {
    len: u8,
    path: [u8; MAX_BASIS_DEPTH],
}

impl Basis {
    /// No basis: a plain integer.
    pub const NONE: Basis = Basis { len: 0, path: [0; MAX_BASIS_DEPTH] };

    /// `E<path...>`; `None` if the path is empty, deeper than [`MAX_BASIS_DEPTH`] or has an index
    /// above 255.
    pub const fn new(path: &[usize]) -> Option<Basis> {
        if path.is_empty() || path.len() > MAX_BASIS_DEPTH {
            return None;
        }
        let mut b = Basis { len: path.len() as u8, path: [0; MAX_BASIS_DEPTH] };
        let mut k = 0;
        while k < path.len() {
            if path[k] > u8::MAX as usize {
                return None;
            }
            b.path[k] = path[k] as u8;
            k += 1;
        }
        Some(b)
    }

    pub(crate) fn path_slice(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }

    /// Whether `self` is a proper prefix of `other` (`E<1>` of `E<1,0>`).
    fn is_prefix_of(&self, other: &Basis) -> bool {
        self.len < other.len && self.path_slice() == &other.path[..self.len as usize]
    }

    /// Whether this is [`Basis::NONE`].
    pub const fn is_none(&self) -> bool {
        self.len == 0
    }

    /// The mode path, outermost first (`E<1,0>` is `[1, 0]`).
    pub fn path(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.path[..self.len as usize].iter().map(|&i| i as usize)
    }

    /// `E<path..., i>`: mode `i` of the tuple this basis points at. `None` if too deep.
    ///
    /// ```
    /// use const_layout::dynamic::Basis;
    /// let e1 = Basis::new(&[1]).unwrap();
    /// assert_eq!(e1.child(0).unwrap().path().collect::<Vec<_>>(), [1, 0]);
    /// ```
    pub const fn child(self, i: usize) -> Option<Basis> {
        if self.len as usize >= MAX_BASIS_DEPTH || i > u8::MAX as usize {
            return None;
        }
        let mut b = self;
        b.path[self.len as usize] = i as u8;
        b.len += 1;
        Some(b)
    }

    /// The basis of a product or sum: a plain integer takes the other operand's basis.
    pub(crate) const fn join(self, other: Basis) -> Basis {
        if self.len == 0 { other } else { self }
    }
}

/// The distinct bases of a stride's integers, in order of first appearance, with the stride's
/// integers kept only where they scale that basis (the others become `_0`).
fn split_by_basis(stride: &DynIntTuple) -> impl Iterator<Item = (Basis, DynIntTuple)> + '_ {
    let leaves = || stride.leaves().map(|d| d.basis);
    leaves().enumerate().filter(move |&(k, b)| leaves().position(|c| c == b) == Some(k)).map(move |(_, b)| {
        let part = stride
            .map_leaves(|d| if d.basis == b { DynInt::new(d.value, d.is_static) } else { DynInt::fixed(0) });
        (b, part)
    })
}

/// Checks that a stride does not mix integers with basis elements (zeros aside), and that no
/// basis is a prefix of another (`E<1>` next to `E<1,0>`): either would make the layout's values
/// neither offsets nor coordinates.
pub(crate) fn check_stride(stride: &DynIntTuple) -> Result<(), LayoutError> {
    if !stride.has_basis() {
        return Ok(());
    }
    // A zero stride is zero in every basis.
    let moving = || stride.leaves().filter(|d| d.value != 0);
    for (leaf, d) in stride.leaves().enumerate().filter(|(_, d)| d.value != 0) {
        let clash = d.basis.is_none()
            || moving().any(|e| d.basis.is_prefix_of(&e.basis) || e.basis.is_prefix_of(&d.basis));
        if clash {
            return Err(LayoutError::MixedBasis { leaf });
        }
    }
    Ok(())
}

/// CuTe's `cosize` of a layout with basis strides: the size of its `coshape`, one extent per basis
/// (`1 + sum((s - 1) * |d|)` over the integers that scale it).
pub(crate) fn cosize(shape: &DynIntTuple, stride: &DynIntTuple) -> Result<DynInt, LayoutError> {
    let mut total = DynInt::fixed(1);
    for (_, part) in split_by_basis(stride) {
        let c = ops::cosize(shape, &part)?;
        total = DynInt::new(
            total.value.checked_mul(c.value).ok_or(LayoutError::CosizeOverflow)?,
            total.is_static && c.is_static,
        );
    }
    Ok(total)
}

/// The value of a layout with basis strides at a coordinate: the coordinate whose component at
/// each basis path is the sum of `c * d` over the integers `d` scaling that basis; components
/// no stride reaches are `_0`, as in CuTe's `ArithmeticTuple`.
pub(crate) fn evaluate(
    coord: &DynIntTuple,
    shape: &DynIntTuple,
    stride: &DynIntTuple,
) -> Result<DynIntTuple, LayoutError> {
    let mut parts = [(Basis::NONE, DynInt::fixed(0)); super::MAX_NODES];
    let mut n = 0;
    for (b, part) in split_by_basis(stride) {
        if !b.is_none() {
            parts[n] = (b, ops::crd2idx(coord, shape, &part)?);
            n += 1;
        }
    }
    assemble(&parts[..n], &Basis::NONE)
}

/// The int tuple below `prefix` of the (basis, value) components.
fn assemble(parts: &[(Basis, DynInt)], prefix: &Basis) -> Result<DynIntTuple, LayoutError> {
    if let Some(&(_, v)) = parts.iter().find(|(b, _)| b == prefix) {
        return Ok(DynIntTuple::int(v));
    }
    let depth = prefix.len as usize;
    let below = || parts.iter().filter(|(b, _)| prefix.is_prefix_of(b));
    let rank = below().map(|(b, _)| b.path[depth] as usize + 1).max().unwrap_or(0);
    DynIntTuple::try_from_modes((0..rank).map(|i| {
        let mut child = *prefix;
        child.path[depth] = i as u8;
        child.len += 1;
        if below().any(|(b, _)| child == *b || child.is_prefix_of(b)) {
            assemble(parts, &child)
        } else {
            Ok(DynIntTuple::int(DynInt::fixed(0)))
        }
    }))
}

/// The sum of two layout values (offsets or coordinates; CuTe's `ArithmeticTuple` addition):
/// integers add, tuples add mode by mode, a missing mode counts as `_0`. `Err` on overflow.
pub(crate) fn add_values(a: &DynIntTuple, b: &DynIntTuple) -> Result<DynIntTuple, LayoutError> {
    let is_zero = |t: &DynIntTuple| t.as_int().is_some_and(|v| v.value == 0);
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => {
            let value = x.value.checked_add(y.value).ok_or(LayoutError::CosizeOverflow)?;
            Ok(DynIntTuple::int(DynInt::new(value, x.is_static && y.is_static)))
        }
        _ if is_zero(a) => Ok(*b),
        _ if is_zero(b) => Ok(*a),
        (None, None) => {
            let zero = DynIntTuple::int(DynInt::fixed(0));
            DynIntTuple::try_from_modes(
                (0..a.rank().max(b.rank()))
                    .map(|i| add_values(&a.mode(i).unwrap_or(zero), &b.mode(i).unwrap_or(zero))),
            )
        }
        _ => Err(LayoutError::MixedBasis { leaf: 0 }),
    }
}
