//! [`DynIntTuple`]: an int tuple whose structure is data, in a fixed-capacity array.

pub use super::basis::Basis;
use crate::error::{LayoutError, tri};
use core::fmt;

pub use crate::MAX_NODES;

/// An integer with CuTe's static flag: `_8` is `{ value: 8, is_static: true }`.
///
/// Arithmetic follows CuTe's rules for static-ness: the result of two static integers is static,
/// and so are `x * _0`, `_0 * x`, `_0 / x`, `_0 % x` and `x % _1` (all `_0`), whatever `x` is.
///
/// ```
/// use const_layout::dyn_layout::DynInt;
/// let (s4, d3) = (DynInt::new_static(4), DynInt::new_runtime(3));
/// assert_eq!(s4.mul(d3).to_string(), "12");
/// assert_eq!(d3.mul(DynInt::new_static(0)).to_string(), "_0");
/// assert_eq!(d3.rem(DynInt::new_static(1)).to_string(), "_0");
/// assert_eq!(s4.add(DynInt::new_static(1)).to_string(), "_5");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DynInt {
    /// The value.
    pub value: isize,
    /// Whether CuTe would know it at compile time.
    pub is_static: bool,
    /// The basis element this integer scales ([`Basis::NONE`] for a plain integer): a stride
    /// `_1@0` is `{ value: 1, is_static: true, basis: E<0> }`.
    pub basis: Basis,
}

impl DynInt {
    /// A static integer (`_v`).
    pub const fn new_static(value: isize) -> Self {
        DynInt { value, is_static: true, basis: Basis::NONE }
    }

    /// A runtime integer (`v`).
    pub const fn new_runtime(value: isize) -> Self {
        DynInt { value, is_static: false, basis: Basis::NONE }
    }

    /// An integer of the given value and static-ness.
    pub const fn new(value: isize, is_static: bool) -> Self {
        DynInt { value, is_static, basis: Basis::NONE }
    }

    /// This integer times the basis element `b` (CuTe's `ScaledBasis`, printed `v@i`).
    pub const fn scaled(self, b: Basis) -> Self {
        DynInt { basis: b, ..self }
    }

    /// Whether this integer scales a basis element.
    pub const fn has_basis(self) -> bool {
        !self.basis.is_none()
    }

    const fn is_static_value(self, v: isize) -> bool {
        self.is_static && self.value == v
    }

    /// `self * rhs` (wrapping), static per CuTe's rules.
    pub const fn mul(self, rhs: Self) -> Self {
        if self.is_static_value(0) || rhs.is_static_value(0) {
            return DynInt::new_static(0);
        }
        DynInt {
            value: self.value.wrapping_mul(rhs.value),
            is_static: self.is_static && rhs.is_static,
            basis: self.basis.join(rhs.basis),
        }
    }

    /// `self + rhs` (wrapping).
    pub const fn add(self, rhs: Self) -> Self {
        DynInt {
            value: self.value.wrapping_add(rhs.value),
            is_static: self.is_static && rhs.is_static,
            basis: self.basis.join(rhs.basis),
        }
    }

    /// `self - rhs` (wrapping).
    pub const fn sub(self, rhs: Self) -> Self {
        DynInt {
            value: self.value.wrapping_sub(rhs.value),
            is_static: self.is_static && rhs.is_static,
            basis: self.basis.join(rhs.basis),
        }
    }

    /// Truncating `self / rhs`; division by zero gives 0.
    pub const fn div(self, rhs: Self) -> Self {
        if self.is_static_value(0) {
            return DynInt::new_static(0);
        }
        let value = if rhs.value == 0 { 0 } else { self.value.wrapping_div(rhs.value) };
        DynInt { value, is_static: self.is_static && rhs.is_static, basis: self.basis }
    }

    /// `self % rhs` with the sign of `self` (as in C++); remainder by zero gives 0.
    pub const fn rem(self, rhs: Self) -> Self {
        if self.is_static_value(0) || rhs.is_static_value(1) || rhs.is_static_value(-1) {
            return DynInt::new_static(0);
        }
        let value = if rhs.value == 0 { 0 } else { self.value.wrapping_rem(rhs.value) };
        DynInt { value, is_static: self.is_static && rhs.is_static, basis: self.basis }
    }

    /// CuTe's `ceil_div`: `(self + rhs - 1) / rhs`.
    pub const fn ceil_div(self, rhs: Self) -> Self {
        self.add(rhs).sub(DynInt::new_static(1)).div(rhs)
    }

    /// `|self|`.
    pub const fn abs(self) -> Self {
        DynInt { value: self.value.wrapping_abs(), ..self }
    }
}

impl fmt::Display for DynInt {
    /// CuTe notation: `_8` if static, `8` if not.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_static { write!(f, "_{}", self.value) } else { write!(f, "{}", self.value) }?;
        // CuTe prints the path innermost first.
        for i in self.basis.path_slice().iter().rev() {
            write!(f, "@{i}")?;
        }
        Ok(())
    }
}

/// The filler of unused nodes: all-zero bytes.
const FILL: Node = Node::Int(DynInt::new_runtime(0));

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub enum Node {
    Int(DynInt),
    /// A tuple of this many modes; its modes follow in preorder.
    Tuple(u8),
}

/// An int tuple with run-time structure: an integer or a tuple of int tuples, stored in preorder in
/// a fixed array of [`MAX_NODES`] nodes. `Copy`, no heap.
///
/// ```
/// use const_layout::dyn_layout::{DynInt, DynIntTuple};
/// let t = DynIntTuple::tuple(&[
///     DynIntTuple::int(DynInt::new_static(8)),
///     "(4,_2)".parse().unwrap(),
/// ]).unwrap();
/// assert_eq!(t.to_string(), "(_8,(4,_2))");
/// assert_eq!(t.mode(1).unwrap().to_string(), "(4,_2)");
/// ```
#[derive(Clone, Copy)]
pub struct DynIntTuple {
    len: u8,
    nodes: [Node; MAX_NODES],
}

impl PartialEq for DynIntTuple {
    fn eq(&self, other: &Self) -> bool {
        self.nodes() == other.nodes()
    }
}
impl Eq for DynIntTuple {}

impl core::hash::Hash for DynIntTuple {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.nodes().hash(state)
    }
}

impl fmt::Debug for DynIntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl DynIntTuple {
    /// The empty tuple `()`.
    pub const EMPTY: DynIntTuple = DynIntTuple::blank(1);

    /// `len` nodes, the first the empty tuple: the start of every constructor. The unused nodes
    /// are all-zero bytes (a runtime 0), so filling them is one `memset`, not a loop per node.
    const fn blank(len: u8) -> DynIntTuple {
        let mut t = DynIntTuple { len, nodes: [FILL; MAX_NODES] };
        t.nodes[0] = Node::Tuple(0);
        t
    }

    /// A single integer.
    ///
    /// ```
    /// use const_layout::dyn_layout::{DynInt, DynIntTuple};
    /// assert_eq!(DynIntTuple::int(DynInt::new_static(3)).to_string(), "_3");
    /// ```
    pub const fn int(v: DynInt) -> Self {
        let mut t = DynIntTuple::blank(1);
        t.nodes[0] = Node::Int(v);
        t
    }

    /// A tuple of the given modes.
    ///
    /// ```
    /// use const_layout::dyn_layout::{DynInt, DynIntTuple};
    /// let one = DynIntTuple::int(DynInt::new_runtime(1));
    /// assert_eq!(DynIntTuple::tuple(&[one, one]).unwrap().to_string(), "(1,1)");
    /// ```
    pub const fn tuple(modes: &[DynIntTuple]) -> Result<Self, LayoutError> {
        if modes.len() > u8::MAX as usize {
            return Err(LayoutError::TooLarge);
        }
        let mut t = DynIntTuple::blank(1);
        t.nodes[0] = Node::Tuple(modes.len() as u8);
        let mut m = 0;
        while m < modes.len() {
            let child = &modes[m];
            if t.len as usize + child.len as usize > MAX_NODES {
                return Err(LayoutError::TooLarge);
            }
            let mut k = 0;
            while k < child.len as usize {
                t.nodes[t.len as usize + k] = child.nodes[k];
                k += 1;
            }
            t.len += child.len;
            m += 1;
        }
        Ok(t)
    }

    #[doc(hidden)]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes[..self.len as usize]
    }

    /// The integer, if this is one.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// assert_eq!("_4".parse::<DynIntTuple>().unwrap().as_int().unwrap().value, 4);
    /// assert!("(4)".parse::<DynIntTuple>().unwrap().as_int().is_none());
    /// ```
    pub const fn as_int(&self) -> Option<DynInt> {
        match self.nodes[0] {
            Node::Int(v) => Some(v),
            Node::Tuple(_) => None,
        }
    }

    /// Whether this is an integer rather than a tuple.
    pub const fn is_int(&self) -> bool {
        matches!(self.nodes[0], Node::Int(_))
    }

    /// CuTe's `rank`: modes of a tuple, 1 for an integer.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// assert_eq!("(1,(2,3),4)".parse::<DynIntTuple>().unwrap().rank(), 3);
    /// ```
    pub const fn rank(&self) -> usize {
        match self.nodes[0] {
            Node::Int(_) => 1,
            Node::Tuple(n) => n as usize,
        }
    }

    /// CuTe's `depth`: 0 for an integer, 1 + the deepest mode for a tuple.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// assert_eq!("(1,(2,(3)))".parse::<DynIntTuple>().unwrap().depth(), 3);
    /// ```
    pub fn depth(&self) -> usize {
        match self.as_int() {
            Some(_) => 0,
            None => 1 + self.modes().map(|m| m.depth()).max().unwrap_or(0),
        }
    }

    /// Position just past the subtree starting at `pos`.
    pub(crate) const fn subtree_end(&self, pos: usize) -> usize {
        let mut pending = 1usize;
        let mut p = pos;
        while pending > 0 {
            match self.nodes[p] {
                Node::Int(_) => pending -= 1,
                Node::Tuple(n) => pending += n as usize,
            }
            if matches!(self.nodes[p], Node::Tuple(_)) {
                pending -= 1;
            }
            p += 1;
        }
        p
    }

    const fn slice(&self, start: usize, end: usize) -> DynIntTuple {
        let mut t = DynIntTuple::blank((end - start) as u8);
        let mut k = 0;
        while k < end - start {
            t.nodes[k] = self.nodes[start + k];
            k += 1;
        }
        t
    }

    /// Mode `i` of a tuple (`get<i>`); for an integer, mode 0 is itself (as in CuTe).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// let t: DynIntTuple = "(8,(4,2))".parse().unwrap();
    /// assert_eq!(t.mode(1).unwrap().to_string(), "(4,2)");
    /// assert!(t.mode(2).is_none());
    /// ```
    pub const fn mode(&self, i: usize) -> Option<DynIntTuple> {
        match self.nodes[0] {
            Node::Int(_) => {
                if i == 0 {
                    Some(*self)
                } else {
                    None
                }
            }
            Node::Tuple(n) => {
                if i >= n as usize {
                    return None;
                }
                let mut start = 1;
                let mut m = 0;
                while m < i {
                    start = self.subtree_end(start);
                    m += 1;
                }
                Some(self.slice(start, self.subtree_end(start)))
            }
        }
    }

    /// The modes of a tuple, in order (none for an integer).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// let t: DynIntTuple = "(8,(4,2))".parse().unwrap();
    /// assert_eq!(t.modes().count(), 2);
    /// ```
    pub fn modes(&self) -> impl Iterator<Item = DynIntTuple> + '_ {
        let n = if self.is_int() { 0 } else { self.rank() };
        let mut start = 1;
        (0..n).map(move |_| {
            let end = self.subtree_end(start);
            let m = self.slice(start, end);
            start = end;
            m
        })
    }

    /// The integers, left to right.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// let t: DynIntTuple = "(8,(4,_2))".parse().unwrap();
    /// assert_eq!(t.leaves().map(|x| x.value).collect::<Vec<_>>(), [8, 4, 2]);
    /// ```
    pub fn leaves(&self) -> impl Iterator<Item = DynInt> + '_ {
        self.nodes().iter().filter_map(|n| match n {
            Node::Int(v) => Some(*v),
            Node::Tuple(_) => None,
        })
    }

    /// The same structure with every integer replaced by `f(integer)`.
    pub fn map_leaves(&self, mut f: impl FnMut(DynInt) -> DynInt) -> DynIntTuple {
        let mut t = *self;
        for n in t.nodes[..t.len as usize].iter_mut() {
            if let Node::Int(v) = n {
                *v = f(*v);
            }
        }
        t
    }

    /// Whether any integer scales a basis element (a stride such as `_1@0`).
    pub const fn has_basis(&self) -> bool {
        let mut k = 0;
        while k < self.len as usize {
            if let Node::Int(v) = self.nodes[k]
                && v.has_basis()
            {
                return true;
            }
            k += 1;
        }
        false
    }

    /// Whether every integer is static.
    pub const fn is_static(&self) -> bool {
        let mut k = 0;
        while k < self.len as usize {
            if let Node::Int(v) = self.nodes[k]
                && !v.is_static
            {
                return false;
            }
            k += 1;
        }
        true
    }

    /// The same structure with every integer a static 0.
    #[doc(hidden)]
    pub const fn map_zero(&self) -> DynIntTuple {
        let mut t = *self;
        let mut k = 0;
        while k < t.len as usize {
            if let Node::Int(_) = t.nodes[k] {
                t.nodes[k] = Node::Int(DynInt::new_static(0));
            }
            k += 1;
        }
        t
    }

    /// Node `k` in preorder (`k` below the node count).
    #[doc(hidden)]
    pub const fn node(&self, k: usize) -> Node {
        self.nodes[k]
    }

    /// Replace node `k` (an integer by an integer keeps the structure).
    #[doc(hidden)]
    pub const fn set_node(&mut self, k: usize, n: Node) {
        self.nodes[k] = n;
    }

    /// Set the number of nodes (the nodes below `len` set by `set_node`).
    pub(crate) const fn set_len(&mut self, len: usize) {
        self.len = len as u8;
    }

    /// The number of nodes (integers and tuples).
    #[doc(hidden)]
    pub const fn node_count(&self) -> usize {
        self.len as usize
    }

    /// Same nesting (CuTe's `congruent`).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// let a: DynIntTuple = "(8,(4,2))".parse().unwrap();
    /// assert!(a.congruent(&"(1,(_8,32))".parse().unwrap()));
    /// ```
    pub const fn congruent(&self, other: &DynIntTuple) -> bool {
        if self.len != other.len {
            return false;
        }
        let mut k = 0;
        while k < self.len as usize {
            match (self.nodes[k], other.nodes[k]) {
                (Node::Int(_), Node::Int(_)) => {}
                (Node::Tuple(x), Node::Tuple(y)) if x == y => {}
                _ => return false,
            }
            k += 1;
        }
        true
    }

    /// Equality of values, ignoring static-ness.
    pub fn same_values(&self, other: &DynIntTuple) -> bool {
        self.congruent(other) && self.leaves().zip(other.leaves()).all(|(a, b)| a.value == b.value)
    }

    /// Whether `other` has the same nesting (tuple arities at the same places).
    #[doc(hidden)]
    pub const fn same_structure(&self, other: &DynIntTuple) -> bool {
        self.congruent(other)
    }

    #[doc(hidden)]
    pub const fn push_node(&mut self, n: Node) -> Result<(), LayoutError> {
        if self.len as usize >= MAX_NODES {
            return Err(LayoutError::TooLarge);
        }
        self.nodes[self.len as usize] = n;
        self.len += 1;
        Ok(())
    }

    /// Set the arity of the root tuple of a builder.
    #[doc(hidden)]
    pub const fn set_root_arity(&mut self, n: u8) {
        self.nodes[0] = Node::Tuple(n);
    }

    /// An empty buffer to build into with `push_node`; the caller fixes the root.
    #[doc(hidden)]
    pub const fn builder() -> DynIntTuple {
        DynIntTuple::blank(0)
    }

    /// Append a whole tuple (as one mode) to a builder.
    #[doc(hidden)]
    pub const fn push_tuple(&mut self, t: &DynIntTuple) -> Result<(), LayoutError> {
        let mut k = 0;
        while k < t.len as usize {
            tri!(self.push_node(t.nodes[k]));
            k += 1;
        }
        Ok(())
    }

    /// A tuple of the given modes, from an iterator.
    ///
    /// ```
    /// use const_layout::dyn_layout::{DynInt, DynIntTuple};
    /// let t = DynIntTuple::from_modes((1..=3).map(|v| DynIntTuple::int(DynInt::new_runtime(v)))).unwrap();
    /// assert_eq!(t.to_string(), "(1,2,3)");
    /// ```
    pub fn from_modes(modes: impl IntoIterator<Item = DynIntTuple>) -> Result<Self, LayoutError> {
        DynIntTuple::try_from_modes(modes.into_iter().map(Ok))
    }

    /// A tuple of the given modes, from an iterator of results (the first `Err` is returned).
    pub fn try_from_modes(
        modes: impl IntoIterator<Item = Result<DynIntTuple, LayoutError>>,
    ) -> Result<Self, LayoutError> {
        let mut t = DynIntTuple::builder();
        t.push_node(Node::Tuple(0))?;
        let mut n = 0usize;
        for m in modes {
            t.push_tuple(&m?)?;
            n += 1;
        }
        if n > u8::MAX as usize {
            return Err(LayoutError::TooLarge);
        }
        t.nodes[0] = Node::Tuple(n as u8);
        Ok(t)
    }

    /// CuTe's `size`: the product of all integers (static if all are). `Err` on overflow.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// assert_eq!("(_8,(_4,_2))".parse::<DynIntTuple>().unwrap().size().unwrap().to_string(), "_64");
    /// assert_eq!("()".parse::<DynIntTuple>().unwrap().size().unwrap().to_string(), "_1");
    /// ```
    pub const fn size(&self) -> Result<DynInt, LayoutError> {
        let mut acc = DynInt::new_static(1);
        let mut k = 0;
        while k < self.len as usize {
            if let Node::Int(v) = self.nodes[k] {
                let Some(value) = acc.value.checked_mul(v.value) else {
                    return Err(LayoutError::SizeOverflow);
                };
                acc = DynInt::new(value, acc.is_static && v.is_static);
            }
            k += 1;
        }
        Ok(acc)
    }

    /// CuTe's `flatten`: an integer stays an integer; a tuple becomes the tuple of its integers.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// let t: DynIntTuple = "(8,((4),_2))".parse().unwrap();
    /// assert_eq!(t.flatten().unwrap().to_string(), "(8,4,_2)");
    /// ```
    pub const fn flatten(&self) -> Result<DynIntTuple, LayoutError> {
        if self.is_int() {
            return Ok(*self);
        }
        let mut t = DynIntTuple::builder();
        tri!(t.push_node(Node::Tuple(0)));
        let mut n = 0usize;
        let mut k = 0;
        while k < self.len as usize {
            if let Node::Int(_) = self.nodes[k] {
                tri!(t.push_node(self.nodes[k]));
                n += 1;
            }
            k += 1;
        }
        if n > u8::MAX as usize {
            return Err(LayoutError::TooLarge);
        }
        t.set_root_arity(n as u8);
        Ok(t)
    }

    /// The leaf at a path of mode indices from the root (an empty path is the root itself).
    pub const fn leaf_at(&self, path: &[usize]) -> Option<DynInt> {
        let mut t = *self;
        let mut k = 0;
        while k < path.len() {
            t = match t.mode(path[k]) {
                Some(m) => m,
                None => return None,
            };
            k += 1;
        }
        t.as_int()
    }
}

impl fmt::Display for DynIntTuple {
    /// CuTe notation: `(_8,(4,_2))`; a one-mode tuple prints as `(8)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn go(t: &DynIntTuple, pos: usize, f: &mut fmt::Formatter<'_>) -> Result<usize, fmt::Error> {
            match t.nodes[pos] {
                Node::Int(v) => {
                    write!(f, "{v}")?;
                    Ok(pos + 1)
                }
                Node::Tuple(n) => {
                    f.write_str("(")?;
                    let mut p = pos + 1;
                    for m in 0..n {
                        if m > 0 {
                            f.write_str(",")?;
                        }
                        p = go(t, p, f)?;
                    }
                    f.write_str(")")?;
                    Ok(p)
                }
            }
        }
        go(self, 0, f).map(|_| ())
    }
}

impl DynIntTuple {}

// Compile-time helpers: the static values of typed results that depend on a whole int tuple are
// computed by these `const fn`s from `IntTuple::TREE`.
impl DynIntTuple {
    /// Position of the node reached by following `path[..len]` (mode indices) from the root.
    const fn node_at(&self, path: &[usize], len: usize) -> usize {
        let mut pos = 0;
        let mut k = 0;
        while k < len {
            let mut child = pos + 1;
            let mut m = 0;
            while m < path[k] {
                child = self.subtree_end(child);
                m += 1;
            }
            pos = child;
            k += 1;
        }
        pos
    }

    /// The product of the integers in `start..end` of the node array.
    const fn product_range(&self, start: usize, end: usize) -> isize {
        let mut p: isize = 1;
        let mut k = start;
        while k < end {
            if let Node::Int(v) = self.nodes[k] {
                p = match p.checked_mul(v.value) {
                    Some(x) => x,
                    None => panic!("a static size overflows isize"),
                };
            }
            k += 1;
        }
        p
    }

    /// The product of the sizes of the subtrees of `shape` whose order (an int tuple weakly
    /// congruent with `shape`) is below `v`: the start stride of order `v` in `compact_order`.
    const fn lesser_product(shape: &DynIntTuple, order: &DynIntTuple, v: isize) -> isize {
        match order.nodes[0] {
            Node::Int(o) => {
                if o.value < v {
                    shape.product_range(0, shape.len as usize)
                } else {
                    1
                }
            }
            Node::Tuple(n) => {
                let mut p: isize = 1;
                let mut i = 0;
                while i < n as usize {
                    let (Some(s), Some(o)) = (shape.mode(i), order.mode(i)) else {
                        panic!("the order is not weakly congruent with the shape");
                    };
                    p = match p.checked_mul(DynIntTuple::lesser_product(&s, &o, v)) {
                        Some(x) => x,
                        None => panic!("a static stride overflows isize"),
                    };
                    i += 1;
                }
                p
            }
        }
    }

    /// CuTe's `compact_order(shape, order)` at one integer of `shape` (found by `path[..len]`), for a
    /// static shape and a static order: the stride `make_ordered_layout` gives it.
    #[doc(hidden)]
    pub const fn ordered_stride_at(
        shape: &DynIntTuple,
        order: &DynIntTuple,
        path: &[usize],
        len: usize,
    ) -> isize {
        // Descend until the order is an integer: that order value covers a whole shape subtree.
        let mut s = *shape;
        let mut o = *order;
        let mut k = 0;
        while o.as_int().is_none() {
            if k >= len {
                panic!("the order is not weakly congruent with the shape");
            }
            let (Some(sm), Some(om)) = (s.mode(path[k]), o.mode(path[k])) else {
                panic!("the order is not weakly congruent with the shape");
            };
            s = sm;
            o = om;
            k += 1;
        }
        let Some(ov) = o.as_int() else { panic!("unreachable") };
        let start = DynIntTuple::lesser_product(shape, order, ov.value);
        // Within the subtree: compact column-major from `start` (a static 1 gets stride 0).
        let rel = path.split_at(k).1;
        let target = s.node_at(rel, len - k);
        if let Node::Int(leaf) = s.nodes[target]
            && leaf.value == 1
        {
            return 0;
        }
        match start.checked_mul(s.product_range(0, target)) {
            Some(x) => x,
            None => panic!("a static stride overflows isize"),
        }
    }
}
