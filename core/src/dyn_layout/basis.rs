//! CuTe's basis elements `E<i,j,...>` and scaled-basis strides (`_1@0`): the strides of
//! `make_identity_layout`, whose layouts map coordinates to coordinates.
//!
//! A stride integer may scale a basis element ([`DynInt::basis`]); such a layout's value at a
//! coordinate is a coordinate (CuTe's `ArithmeticTuple`), assembled here from the per-basis sums.
//! Integers and bases are not mixed in one layout (but for zero strides), as CuTe does not mix them.

use super::int_tuple::{DynInt, DynIntTuple, Node};
use super::ops;
use crate::error::{LayoutError, tri};

/// The deepest basis path: `E<i,j,k,l>`.
pub const MAX_BASIS_DEPTH: usize = 4;

/// CuTe's unit basis element `E<i,j,...>`: the coordinate that is 1 at mode path `i, j, ...` and
/// 0 elsewhere. A stride `v@i` (CuTe's `ScaledBasis`) is `v` times `E<i>`; the strides of
/// `make_identity_layout` are such basis elements, so the layout maps a coordinate to itself.
/// CuTe prints the path innermost first: `E<1,0>` scaled by `_1` is `_1@0@1`.
///
/// ```
/// use const_layout::dyn_layout::{Basis, DynInt};
/// let e10 = Basis::new(&[1, 0]).unwrap();
/// assert_eq!(e10.path().collect::<Vec<_>>(), [1, 0]);
/// assert_eq!(DynInt::new_static(1).scaled(e10).to_string(), "_1@0@1");
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

    /// Whether this basis is `E<path...>` for the first `len` entries of `path`.
    pub const fn is_path(&self, path: &[u8; MAX_BASIS_DEPTH], len: usize) -> bool {
        if self.len as usize != len {
            return false;
        }
        let mut k = 0;
        while k < len {
            if self.path[k] != path[k] {
                return false;
            }
            k += 1;
        }
        true
    }

    /// The length of the mode path (0 for [`Basis::NONE`]).
    pub const fn depth(&self) -> usize {
        self.len as usize
    }

    /// Entry `k` of the mode path, outermost first.
    pub const fn index(&self, k: usize) -> usize {
        self.path[k] as usize
    }

    pub fn path_slice(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }

    /// Whether `self` is a proper prefix of `other` (`E<1>` of `E<1,0>`).
    const fn is_prefix_of(&self, other: &Basis) -> bool {
        if self.len >= other.len {
            return false;
        }
        let mut k = 0;
        while k < self.len as usize {
            if self.path[k] != other.path[k] {
                return false;
            }
            k += 1;
        }
        true
    }

    /// `==` in a `const fn`.
    pub const fn same(&self, other: &Basis) -> bool {
        self.is_path(&other.path, other.len as usize)
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
    /// use const_layout::dyn_layout::Basis;
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
    pub const fn join(self, other: Basis) -> Basis {
        if self.len == 0 { other } else { self }
    }
}

/// The stride with only the integers scaling `b` kept, as plain integers (the others `_0`).
const fn only_basis(stride: &DynIntTuple, b: &Basis) -> DynIntTuple {
    let mut t = *stride;
    let mut at = 0;
    while let Some((node, next)) = t.read(at) {
        at = match node {
            Node::Int(d) => {
                let kept =
                    if d.basis.same(b) { DynInt::new(d.value, d.is_static) } else { DynInt::new_static(0) };
                // Dropping the basis path only shortens the encoding.
                match t.replace_at(at, Node::Int(kept)) {
                    Ok(end) => end,
                    Err(_) => next,
                }
            }
            Node::Tuple(_) => next,
        };
    }
    t
}

/// Whether node `k` of `stride` is the first integer scaling its basis (one per distinct basis).
const fn first_of_its_basis(stride: &DynIntTuple, k: usize) -> Option<Basis> {
    let Node::Int(d) = stride.node(k) else { return None };
    let mut j = 0;
    while j < k {
        if let Node::Int(e) = stride.node(j)
            && e.basis.same(&d.basis)
        {
            return None;
        }
        j += 1;
    }
    Some(d.basis)
}

/// Checks that a stride does not mix integers with basis elements (zeros aside), and that no
/// basis is a prefix of another (`E<1>` next to `E<1,0>`): either would make the layout's values
/// neither offsets nor coordinates.
pub const fn check_stride(stride: &DynIntTuple) -> Result<(), LayoutError> {
    if !stride.has_basis() {
        return Ok(());
    }
    let (mut k, mut leaf) = (0, 0);
    while k < stride.node_count() {
        // A zero stride is zero in every basis.
        if let Node::Int(d) = stride.node(k)
            && d.value != 0
        {
            let mut clash = d.basis.is_none();
            let mut j = 0;
            while j < stride.node_count() {
                if let Node::Int(e) = stride.node(j)
                    && e.value != 0
                    && (d.basis.is_prefix_of(&e.basis) || e.basis.is_prefix_of(&d.basis))
                {
                    clash = true;
                }
                j += 1;
            }
            if clash {
                return Err(LayoutError::MixedBasis { leaf });
            }
        }
        if let Node::Int(_) = stride.node(k) {
            leaf += 1;
        }
        k += 1;
    }
    Ok(())
}

/// CuTe's `cosize` of a layout with basis strides: the size of its `coshape`, one extent per basis
/// (`1 + sum((s - 1) * |d|)` over the integers that scale it).
pub const fn cosize(shape: &DynIntTuple, stride: &DynIntTuple) -> Result<DynInt, LayoutError> {
    let mut total = DynInt::new_static(1);
    let mut k = 0;
    while k < stride.node_count() {
        if let Some(b) = first_of_its_basis(stride, k) {
            let c = tri!(ops::cosize(shape, &only_basis(stride, &b)));
            let Some(value) = total.value.checked_mul(c.value) else {
                return Err(LayoutError::CosizeOverflow);
            };
            total = DynInt::new(value, total.is_static && c.is_static);
        }
        k += 1;
    }
    Ok(total)
}

/// The value of a layout with basis strides at a coordinate: the coordinate whose component at
/// each basis path is the sum of `c * d` over the integers `d` scaling that basis; components
/// no stride reaches are `_0`, as in CuTe's `ArithmeticTuple`.
pub fn evaluate(
    coord: &DynIntTuple,
    shape: &DynIntTuple,
    stride: &DynIntTuple,
) -> Result<DynIntTuple, LayoutError> {
    let mut parts = [(Basis::NONE, DynInt::new_static(0)); super::MAX_NODES];
    let mut n = 0;
    for k in 0..stride.node_count() {
        if let Some(b) = first_of_its_basis(stride, k)
            && !b.is_none()
        {
            parts[n] = (b, ops::crd2idx(coord, shape, &only_basis(stride, &b))?);
            n += 1;
        }
    }
    // One integer in the shape is one term: CuTe's value is then a single `ScaledBasis`, printed
    // `v@i`, not an `ArithmeticTuple`.
    if n == 1 && (shape.is_int() || shape.flatten()?.rank() == 1) {
        let (b, v) = parts[0];
        return Ok(DynIntTuple::int(v.scaled(b)));
    }
    assemble(&parts[..n], &Basis::NONE)
}

/// A value as a coordinate: a scaled basis `v@i` becomes the tuple with `v` at path `i`.
fn as_coordinate(t: &DynIntTuple) -> Result<DynIntTuple, LayoutError> {
    match t.as_int() {
        Some(v) if v.has_basis() => assemble(&[(v.basis, DynInt::new(v.value, v.is_static))], &Basis::NONE),
        _ => Ok(*t),
    }
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
            Ok(DynIntTuple::int(DynInt::new_static(0)))
        }
    }))
}

/// The sum of two layout values (offsets or coordinates; CuTe's `ArithmeticTuple` addition):
/// integers add, tuples add mode by mode, a missing mode counts as `_0`. `Err` on overflow.
pub fn add_values(a: &DynIntTuple, b: &DynIntTuple) -> Result<DynIntTuple, LayoutError> {
    let (a, b) = (&as_coordinate(a)?, &as_coordinate(b)?);
    let is_zero = |t: &DynIntTuple| t.as_int().is_some_and(|v| v.value == 0);
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => {
            let value = x.value.checked_add(y.value).ok_or(LayoutError::CosizeOverflow)?;
            Ok(DynIntTuple::int(DynInt::new(value, x.is_static && y.is_static)))
        }
        _ if is_zero(a) => Ok(*b),
        _ if is_zero(b) => Ok(*a),
        (None, None) => {
            let zero = DynIntTuple::int(DynInt::new_static(0));
            DynIntTuple::try_from_modes(
                (0..a.rank().max(b.rank()))
                    .map(|i| add_values(&a.mode(i).unwrap_or(zero), &b.mode(i).unwrap_or(zero))),
            )
        }
        _ => Err(LayoutError::MixedBasis { leaf: 0 }),
    }
}
