//! [`DynLayout`]: a layout whose structure is known only at run time.

use super::int_tuple::{DynInt, DynIntTuple, MAX_NODES, Node};
use super::{basis, ops};
use crate::error::{LayoutError, tri};
use core::fmt;

/// A layout with run-time structure: a [`DynIntTuple`] shape and a congruent stride.
///
/// Built by [`DynLayout::new`] (which applies the scalar-stride rule and checks every integer) or
/// parsed from CuTe notation. Results keep CuTe's static flags, so they print as CuTe prints them.
///
/// ```
/// use const_layout::dyn_layout::{DynIntTuple, DynLayout};
/// let l: DynLayout = "(4,(2,3)):(3,(1,8))".parse().unwrap();
/// let c: DynIntTuple = "(1,(1,2))".parse().unwrap();
/// assert_eq!(l.crd2idx(&c).unwrap().value, 20);
/// assert_eq!(l.size().to_string(), "24");
/// assert_eq!(l.offsets().take(4).collect::<Vec<_>>(), [0, 3, 6, 9]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DynLayout {
    shape: DynIntTuple,
    stride: DynIntTuple,
    size: DynInt,
    cosize: DynInt,
}

impl DynLayout {
    /// A checked layout: the stride is expanded by the scalar-stride rule (`(8,(4,2)):(1,8)` is
    /// `(8,(4,2)):(1,(8,32))`), every extent must be positive, and size and cosize must fit in `isize`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// use const_layout::LayoutError;
    /// let l = DynLayout::new("(8,(4,2))".parse().unwrap(), "(1,8)".parse().unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(8,(4,2)):(1,(8,32))");
    /// let bad = DynLayout::new("(8,0)".parse().unwrap(), "(1,8)".parse().unwrap());
    /// assert_eq!(bad.unwrap_err(), LayoutError::NonPositiveExtent { leaf: 1, value: 0 });
    /// ```
    pub const fn new(shape: DynIntTuple, stride: DynIntTuple) -> Result<Self, LayoutError> {
        // The common case (congruent, integer strides) in one walk over both tuples.
        if let Some(checked) = one_pass(&shape, &stride) {
            let (size, cosize) = tri!(checked);
            return Ok(DynLayout { shape, stride, size, cosize });
        }
        let size = tri!(checked_size(&shape));
        // Results of the algebra are built congruent; only a scalar stride against a tuple mode
        // needs the expansion walk. The layout is assembled once and finished in place.
        let mut l = if shape.same_structure(&stride) {
            DynLayout { shape, stride, size, cosize: size }
        } else {
            DynLayout { shape, stride: tri!(ops::expand_stride(&shape, &stride)), size, cosize: size }
        };
        l.cosize = tri!(l.checked_cosize());
        Ok(l)
    }

    /// The flat layout `(s_0,...,s_n-1):(d_0,...,d_n-1)` of the first `n` entries, checked as
    /// [`DynLayout::new`] checks, built in place (the algebra's flat mode lists become layouts
    /// here).
    pub(crate) const fn flat(s: &[DynInt], d: &[DynInt], n: usize) -> Result<Self, LayoutError> {
        if n >= MAX_NODES {
            return Err(LayoutError::TooLarge);
        }
        let mut l = DynLayout::assembly();
        l.shape = DynIntTuple::builder();
        l.stride = DynIntTuple::builder();
        tri!(l.shape.push_node(Node::Tuple(n as u8)));
        tri!(l.stride.push_node(Node::Tuple(n as u8)));
        // Checked from the values as they are pushed (no walk over the nodes afterwards), unless a
        // stride is a basis element, which the general check handles; a value's error comes after
        // the encoding's, as in the check of the assembled layout.
        let mut sizes = ops::Sizes::new();
        let mut k = 0;
        while k < n {
            tri!(l.shape.push_node(Node::Int(s[k])));
            tri!(l.stride.push_node(Node::Int(d[k])));
            sizes.add_later(s[k], d[k]);
            k += 1;
        }
        if sizes.has_basis() {
            tri!(l.check_assembled());
        } else {
            (l.size, l.cosize) = tri!(sizes.finish());
        }
        Ok(l)
    }

    /// An empty tuple as shape and stride, to assemble a layout in place (`parts_mut`), then
    /// `check_assembled`.
    pub(crate) const fn assembly() -> Self {
        DynLayout {
            shape: DynIntTuple::EMPTY,
            stride: DynIntTuple::EMPTY,
            size: DynInt::new_static(1),
            cosize: DynInt::new_static(1),
        }
    }

    /// The shape and the stride of a layout being assembled.
    pub(crate) const fn parts_mut(&mut self) -> (&mut DynIntTuple, &mut DynIntTuple) {
        (&mut self.shape, &mut self.stride)
    }

    /// The size and cosize of a layout assembled in place whose checks its assembler made.
    pub(crate) const fn set_sizes(&mut self, size: DynInt, cosize: DynInt) {
        (self.size, self.cosize) = (size, cosize);
    }

    /// What [`DynLayout::new`] does with an assembled shape and stride, in place.
    pub(crate) const fn check_assembled(&mut self) -> Result<(), LayoutError> {
        if let Some(checked) = one_pass(&self.shape, &self.stride) {
            (self.size, self.cosize) = tri!(checked);
            return Ok(());
        }
        self.size = tri!(checked_size(&self.shape));
        if !self.shape.same_structure(&self.stride) {
            self.stride = tri!(ops::expand_stride(&self.shape, &self.stride));
        }
        self.cosize = tri!(self.checked_cosize());
        Ok(())
    }

    /// The cosize of a layout whose shape is checked and whose stride is congruent with it,
    /// after checking a basis stride.
    const fn checked_cosize(&self) -> Result<DynInt, LayoutError> {
        if self.stride.has_basis() {
            tri!(basis::check_stride(&self.stride));
            basis::cosize(&self.shape, &self.stride)
        } else {
            ops::cosize(&self.shape, &self.stride)
        }
    }

    /// CuTe's `make_layout(shape)`: the compact column-major layout (`LayoutLeft`), or with
    /// `left = false` the row-major one (`LayoutRight`).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let s = "(_4,(2,_3))".parse().unwrap();
    /// assert_eq!(DynLayout::compact(s, true).unwrap().to_string(), "(_4,(2,_3)):(_1,(_4,8))");
    /// assert_eq!(DynLayout::compact(s, false).unwrap().to_string(), "(_4,(2,_3)):(6,(_3,_1))");
    /// ```
    pub const fn compact(shape: DynIntTuple, left: bool) -> Result<Self, LayoutError> {
        tri!(DynLayout::new(shape, DynIntTuple::int(DynInt::new_static(0))));
        let stride = tri!(ops::compact(&shape, DynInt::new_static(1), left)).0;
        DynLayout::new(shape, stride)
    }

    /// CuTe's `make_ordered_layout(shape, order)`: compact, with modes ordered from fastest
    /// (smallest order) to slowest.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let l = DynLayout::ordered("(_4,_8,_2)".parse().unwrap(), &"(_2,_0,_1)".parse().unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(_4,_8,_2):(_16,_1,_8)");
    /// ```
    pub const fn ordered(shape: DynIntTuple, order: &DynIntTuple) -> Result<Self, LayoutError> {
        tri!(DynLayout::new(shape, DynIntTuple::int(DynInt::new_static(0))));
        let stride = tri!(ops::compact_order(&shape, order));
        DynLayout::new(shape, stride)
    }

    /// `_1:_0`, the layout of one element (CuTe's `Layout<_1,_0>`).
    pub const UNIT: DynLayout = DynLayout {
        shape: DynIntTuple::int(DynInt::new_static(1)),
        stride: DynIntTuple::int(DynInt::new_static(0)),
        size: DynInt::new_static(1),
        cosize: DynInt::new_static(1),
    };

    /// The shape.
    pub const fn shape(&self) -> &DynIntTuple {
        &self.shape
    }

    /// The stride, congruent with the shape.
    pub const fn stride(&self) -> &DynIntTuple {
        &self.stride
    }

    /// CuTe's `size`.
    pub const fn size(&self) -> DynInt {
        self.size
    }

    /// CuTe's `cosize` as the span, `sum((s - 1) * |d|) + 1`: CuTe's `L(size - 1) + 1` for
    /// non-negative strides, the extent of the offsets with negative ones (where CuTe's can be
    /// zero or negative; DECISIONS.md, decision 14). With basis strides (`_1@0`), CuTe's too: the
    /// product over the bases of that sum taken over the integers scaling each.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let id: DynLayout = "(_4,_8):(_1@0,_1@1)".parse().unwrap();
    /// assert_eq!(id.cosize().to_string(), "_32");
    /// let neg: DynLayout = "(4,2):(-1,4)".parse().unwrap();
    /// assert_eq!(neg.cosize().value, 8); // the span of offsets -3..=4
    /// ```
    pub const fn cosize(&self) -> DynInt {
        self.cosize
    }

    /// CuTe's `rank`.
    pub const fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// CuTe's `depth`.
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// CuTe's `crd2idx(coord, layout)`: the coordinate may be an integer index, flat, hierarchical
    /// or mixed. `Err` if it does not match the shape's structure, or if the strides are basis
    /// elements (the value is then a coordinate: see [`DynLayout::apply`]).
    pub fn crd2idx(&self, coord: &DynIntTuple) -> Result<DynInt, LayoutError> {
        if self.has_basis() {
            return Err(LayoutError::BasisStride { op: "crd2idx" });
        }
        ops::crd2idx(coord, &self.shape, &self.stride)
    }

    /// CuTe's `layout(coord)`: the offset as an integer, or for basis strides (`_1@0`, as in
    /// [`make_identity_layout`](crate::algebra::make_identity_layout)) the coordinate they build.
    ///
    /// ```
    /// use const_layout::dyn_layout::{DynIntTuple, DynLayout};
    /// let id: DynLayout = "((_2,_2),_4):((_1@0@0,_1@1@0),_1@1)".parse().unwrap();
    /// let at = |c: &str| id.apply(&c.parse().unwrap()).unwrap().to_string();
    /// assert_eq!(at("7"), "((1,1),1)");
    /// assert_eq!(at("((1,0),3)"), "((1,0),3)");
    /// let l: DynLayout = "(4,2):(2,1)".parse().unwrap();
    /// assert_eq!(l.apply(&"5".parse().unwrap()).unwrap().to_string(), "3");
    /// ```
    pub fn apply(&self, coord: &DynIntTuple) -> Result<DynIntTuple, LayoutError> {
        if self.has_basis() {
            return basis::evaluate(coord, &self.shape, &self.stride);
        }
        ops::crd2idx(coord, &self.shape, &self.stride).map(DynIntTuple::int)
    }

    /// Whether the strides are basis elements (`_1@0`) rather than integers.
    pub const fn has_basis(&self) -> bool {
        self.stride.has_basis()
    }

    /// The offset of integer index `i` (a runtime index), as a plain number (0 for basis strides,
    /// whose values are coordinates: see [`DynLayout::apply`]).
    pub const fn offset(&self, i: isize) -> isize {
        // CuTe's `crd2idx` of an integer, walked over the node arrays in place: the recursive
        // form builds a tuple per mode, which made reading one offset cost more than the algebra.
        offset_walk(&self.shape, &self.stride, i)
    }

    /// CuTe's `idx2crd(idx, shape)` on this layout's shape.
    pub fn idx2crd(&self, idx: &DynIntTuple) -> Result<DynIntTuple, LayoutError> {
        ops::idx2crd(idx, &self.shape)
    }

    /// CuTe's `get_hier_coord(offset)`.
    pub fn get_hier_coord(&self, offset: DynInt) -> Result<DynIntTuple, LayoutError> {
        ops::idx2crd_strided(offset, &self.shape, &self.stride)
    }

    /// CuTe's `get_flat_coord(offset)`: the 1-D coordinate within each top-level mode.
    pub fn get_flat_coord(&self, offset: DynInt) -> Result<DynIntTuple, LayoutError> {
        let hier = self.get_hier_coord(offset)?;
        // CuTe's target profile is `repeat<rank>(_1)`, which for rank 1 is the integer `_1`: a
        // one-mode layout gets a single integer.
        if self.shape.is_int() || self.shape.rank() == 1 {
            return ops::crd2idx_colex(&hier, &self.shape).map(DynIntTuple::int);
        }
        DynIntTuple::try_from_modes(
            hier.modes()
                .zip(self.shape.modes())
                .map(|(c, s)| Ok(DynIntTuple::int(ops::crd2idx_colex(&c, &s)?))),
        )
    }

    /// CuTe's `get_1d_coord(offset)`.
    pub fn get_1d_coord(&self, offset: DynInt) -> Result<DynInt, LayoutError> {
        ops::crd2idx_colex(&self.get_hier_coord(offset)?, &self.shape)
    }

    /// CuTe's `flatten(layout)`.
    pub fn flatten(&self) -> Result<DynLayout, LayoutError> {
        DynLayout::new(self.shape.flatten()?, self.stride.flatten()?)
    }

    /// Mode `i` as a layout (`layout<i>(L)`).
    pub const fn mode(&self, i: usize) -> Option<DynLayout> {
        if self.shape.is_int() {
            return if i == 0 { Some(*self) } else { None };
        }
        if i >= self.rank() {
            return None;
        }
        // The mode's bytes, and its node count, size and cosize in one walk over both (the
        // stride is congruent); basis strides have their own cosize.
        let ((s0, s1), (d0, d1)) = (self.shape.mode_range(i), self.stride.mode_range(i));
        let (mut a, mut b, mut count) = (s0, d0, 0);
        let mut sizes = ops::Sizes::new();
        while a < s1 {
            let ((sn, next_a), (dn, next_b)) = (self.shape.decode(a), self.stride.decode(b));
            (a, b, count) = (next_a, next_b, count + 1);
            if let (Node::Int(sv), Node::Int(dv)) = (sn, dn) {
                if dv.has_basis() {
                    return self.mode_with_basis(i);
                }
                if sizes.add(sv, dv).is_err() {
                    return None;
                }
            }
        }
        let (size, cosize) = match sizes.finish() {
            Ok(x) => x,
            Err(_) => return None,
        };
        Some(DynLayout {
            shape: self.shape.slice(s0, s1, count),
            stride: self.stride.slice(d0, d1, count),
            size,
            cosize,
        })
    }

    /// [`DynLayout::mode`] of a layout with basis strides.
    const fn mode_with_basis(&self, i: usize) -> Option<DynLayout> {
        let (Some(shape), Some(stride)) = (self.shape.mode(i), self.stride.mode(i)) else { return None };
        // Checked in place, as `new` checks (a mode of a layout passes): no move of the tuples.
        let mut l = DynLayout { shape, stride, size: DynInt::new_static(1), cosize: DynInt::new_static(1) };
        match l.check_assembled() {
            Ok(()) => Some(l),
            Err(_) => None,
        }
    }

    /// The offsets `L(0), ..., L(size - 1)`.
    pub fn offsets(&self) -> impl ExactSizeIterator<Item = isize> + '_ {
        (0..self.size.value).map(move |i| self.offset(i))
    }
}

/// `crd2idx(i, shape, stride)` of an integer index on a congruent shape and stride (extents
/// positive, sizes fitting `isize`, as [`DynLayout::new`] ensures): the offset, wrapping as
/// [`DynInt`]'s arithmetic does.
///
/// CuTe's rule ([`ops::crd2idx`]) gives each mode of a tuple but the last `i % size(mode)` and
/// passes `i / size(mode)` on, recursively. Taken leaf by leaf, that is one walk: each integer
/// takes `i % s` and passes `i / s` on, except the last node of the shape, which takes what is
/// left (it is the last mode at every level; an empty tuple there takes it and adds nothing).
/// Truncating division composes as the recursion needs for any sign of `i`: `(i % (a*b)) % a ==
/// i % a` and `(i % (a*b)) / a == (i / a) % b` for positive `a`, `b`.
const fn offset_walk(shape: &DynIntTuple, stride: &DynIntTuple, mut i: isize) -> isize {
    let (mut ps, mut pd, mut total) = (0, 0, 0isize);
    let end = shape.encoding_len();
    while ps < end {
        // The stride is congruent: a tuple's tag in both.
        if shape.is_tuple_at(ps) {
            (ps, pd) = (ps + 1, pd + 1);
            continue;
        }
        // Extents have no basis; a basis stride makes the value a coordinate: no offset.
        let (Some((s, _, s_next)), Some((d, _, d_next))) = (shape.plain(ps), stride.plain(pd)) else {
            return 0;
        };
        let part = if s_next >= end { i } else { i % s };
        i /= s;
        total = total.wrapping_add(part.wrapping_mul(d));
        (ps, pd) = (s_next, d_next);
    }
    total
}

/// [`DynLayout::new`]'s checks and its size and cosize in one walk over a congruent shape and
/// stride with integer strides, with its errors in its order (the shape's, then the cosize's);
/// `None` for anything else (a scalar stride to expand, a basis stride), which the general walk
/// handles.
const fn one_pass(
    shape: &DynIntTuple,
    stride: &DynIntTuple,
) -> Option<Result<(DynInt, DynInt), LayoutError>> {
    if shape.node_count() != stride.node_count() {
        return None;
    }
    let (mut a, mut b) = (0, 0);
    let (end_a, end_b) = (shape.encoding_len(), stride.encoding_len());
    let mut sizes = ops::Sizes::new();
    while a < end_a && b < end_b {
        if shape.is_tuple_at(a) || stride.is_tuple_at(b) {
            // Tuples of the same arity, or not congruent.
            if shape.tag_at(a) != stride.tag_at(b) {
                return None;
            }
            (a, b) = (a + 1, b + 1);
            continue;
        }
        // A basis stride: the general walk.
        let Some((d, d_static, next_b)) = stride.plain(b) else { return None };
        let (s, next_a) = match shape.decode(a) {
            (Node::Int(s), next) => (s, next),
            (Node::Tuple(_), _) => return None,
        };
        if let Err(e) = sizes.add(s, DynInt::new(d, d_static)) {
            return Some(Err(e));
        }
        (a, b) = (next_a, next_b);
    }
    Some(sizes.finish())
}

/// The size of a shape whose extents are all positive integers (no basis), or the error.
const fn checked_size(shape: &DynIntTuple) -> Result<DynInt, LayoutError> {
    let (mut k, mut leaf) = (0, 0);
    while let Some((node_k, next_k)) = shape.read(k) {
        k = next_k;
        if let Node::Int(v) = node_k {
            if v.value <= 0 {
                return Err(LayoutError::NonPositiveExtent { leaf, value: v.value });
            }
            if v.has_basis() {
                return Err(LayoutError::BasisExtent { leaf });
            }
            leaf += 1;
        }
    }
    shape.size()
}

impl Default for DynLayout {
    /// `_1:_0`, the layout of one element (CuTe's `Layout<_1,_0>`).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// assert_eq!(DynLayout::default().to_string(), "_1:_0");
    /// ```
    fn default() -> Self {
        DynLayout::UNIT
    }
}

impl fmt::Display for DynLayout {
    /// CuTe notation: `shape:stride`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl fmt::Debug for DynLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl DynLayout {
    /// CuTe's `print_layout`: for a rank-2 layout, the layout followed by a table of offsets with
    /// mode 0 down the rows and mode 1 across the columns (each mode indexed 1-D, so nested modes
    /// are enumerated colexicographically). `None` for other ranks and for basis strides.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let l: DynLayout = "(2,3):(3,1)".parse().unwrap();
    /// let table = l.print_layout().unwrap().to_string();
    /// assert_eq!(table.lines().nth(3).unwrap(), " 0  | 0 | 1 | 2 |");
    /// ```
    pub fn print_layout(&self) -> Option<PrintLayout<'_>> {
        (self.rank() == 2 && !self.has_basis()).then_some(PrintLayout(self))
    }
}

/// Display adapter for [`DynLayout::print_layout`].
pub struct PrintLayout<'a>(&'a DynLayout);

/// CuTe's `num_digits`: 1 for anything below 10 (negative numbers included), at most 10.
#[doc(hidden)]
pub const fn num_digits(x: isize) -> usize {
    let mut d = 1;
    let mut bound = 10isize;
    while d < 10 && x >= bound {
        d += 1;
        bound = bound.saturating_mul(10);
    }
    d
}

/// CuTe's `print_layout` table under `header`: `rows x cols` cells, the cell `(m, n)` showing
/// `at(m, n)`, each `width` wide (`num_digits(cosize) + 2`). The one drawing of the table, for
/// [`DynLayout::print_layout`] and the library's `picture::print_layout` over any layout.
#[doc(hidden)]
pub fn write_offset_table(
    f: &mut fmt::Formatter<'_>,
    header: &dyn fmt::Display,
    (rows, cols, width): (isize, isize, usize),
    at: &dyn Fn(isize, isize) -> Result<isize, fmt::Error>,
) -> fmt::Result {
    let delim = "+-----------------------";
    let rule = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
        f.write_str("    ")?;
        for _ in 0..cols {
            f.write_str(&delim[..(width + 1).min(delim.len())])?;
        }
        f.write_str("+\n")
    };
    writeln!(f, "{header}")?;
    f.write_str("    ")?;
    for n in 0..cols {
        write!(f, "  {n:>w$} ", w = width - 2)?;
    }
    f.write_str("\n")?;
    for m in 0..rows {
        rule(f)?;
        write!(f, "{m:>2}  ")?;
        for n in 0..cols {
            write!(f, "| {:>w$} ", at(m, n)?, w = width - 2)?;
        }
        f.write_str("|\n")?;
    }
    rule(f)
}

impl fmt::Display for PrintLayout<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.0;
        let (rows, cols) =
            (l.shape().mode(0).and_then(|m| m.size().ok()), l.shape().mode(1).and_then(|m| m.size().ok()));
        let (Some(rows), Some(cols)) = (rows, cols) else { return Err(fmt::Error) };
        let width = num_digits(l.cosize().value) + 2;
        // Cell (m, n) is index m + n*rows: each mode indexed 1-D, colexicographically, as CuTe
        // does; the in-place walk (`offset`) rather than a coordinate tuple per cell.
        write_offset_table(f, l, (rows.value, cols.value, width), &|m, n| Ok(l.offset(m + n * rows.value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one walk of `offset` is CuTe's recursive `crd2idx` of an integer (`ops::crd2idx`), past
    /// both ends of the domain too, with empty tuples anywhere (the last node of the shape is the
    /// one that takes the rest).
    #[test]
    fn offset_is_crd2idx_of_an_integer() {
        let layouts = [
            "_1:_0",
            "7:3",
            "(4,3):(3,1)",
            "((2,2),3):((1,8),2)",
            "((3,()),5):((2,()),7)",
            "(2,()):(5,())",
            "(((2,3),()),((),4)):(((1,2),()),((),-6))",
            "((2,(3,(2,2))),(5,1)):((40,(1,(3,7))),(100,9))",
        ];
        for text in layouts {
            let l: DynLayout = text.parse().unwrap();
            for i in -60..120 {
                let index = DynIntTuple::int(DynInt::new_runtime(i));
                let expected = ops::crd2idx(&index, l.shape(), l.stride()).unwrap().value;
                assert_eq!(l.offset(i), expected, "{l} at {i}");
            }
        }
    }
}
