//! [`DynIntTuple`]: an int tuple whose structure is data, in a fixed-capacity array.

pub use super::basis::Basis;
use crate::error::{LayoutError, tri};
use core::fmt;

pub use crate::{MAX_BYTES, MAX_NODES};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub enum Node {
    Int(DynInt),
    /// A tuple of this many modes; its modes follow in preorder.
    Tuple(u8),
}

/// The bytes one [`DynIntTuple`] holds its nodes in (see [`MAX_BYTES`](crate::MAX_BYTES)).
const CAP: usize = crate::MAX_BYTES;

// The encoding of one node, in preorder (DECISIONS.md 12).
// It is canonical, so two tuples are equal exactly when their bytes are.
//
// - `0b11nn_nnnn`: a tuple of `n` modes (at most 63: a tuple of 64 modes has 65 nodes).
// - `0b0sbc_cccc`: an integer, static if `s`, followed by a basis path if `b`. A code `c` below
//   `SMALL_CODES` is the value `c + SMALL_MIN` itself; `c = SMALL_CODES + k - 1` is followed by `k`
//   (1..=8) bytes of two's complement, little-endian, the fewest that hold the value.
// - a basis path: its length (1..=`MAX_BASIS_DEPTH`), then one byte per mode index.
const TUPLE_TAG: u8 = 0b1100_0000;
const STATIC_BIT: u8 = 0b0100_0000;
const BASIS_BIT: u8 = 0b0010_0000;
const CODE_MASK: u8 = 0b0001_1111;
const SMALL_CODES: u8 = 24;
const SMALL_MIN: isize = -4;
/// The longest encoding of one node: tag, eight value bytes, a basis path of four.
const MAX_NODE_BYTES: usize = 1 + 8 + 1 + super::basis::MAX_BASIS_DEPTH;

/// The bytes of one node, before they are appended.
struct Encoded {
    bytes: [u8; MAX_NODE_BYTES],
    len: usize,
}

/// The whole encoding of an integer that takes one byte (no basis, -4..=19), if it does.
#[inline(always)]
const fn small_tag(v: DynInt) -> Option<u8> {
    if !v.basis.is_none() || v.value < SMALL_MIN || v.value >= SMALL_MIN + SMALL_CODES as isize {
        return None;
    }
    Some((v.value - SMALL_MIN) as u8 | if v.is_static { STATIC_BIT } else { 0 })
}

#[inline]
const fn encode(n: Node) -> Encoded {
    let mut e = Encoded { bytes: [0; MAX_NODE_BYTES], len: 1 };
    let v = match n {
        Node::Tuple(arity) => {
            e.bytes[0] = TUPLE_TAG | (arity & !TUPLE_TAG);
            return e;
        }
        Node::Int(v) => v,
    };
    if let Some(tag) = small_tag(v) {
        e.bytes[0] = tag;
        return e;
    }
    let mut tag = if v.is_static { STATIC_BIT } else { 0 };
    if !v.basis.is_none() {
        tag |= BASIS_BIT;
    }
    if v.value >= SMALL_MIN && v.value < SMALL_MIN + SMALL_CODES as isize {
        // A small value with a basis path: the value in the tag, the path after it.
        tag |= (v.value - SMALL_MIN) as u8;
    } else {
        // The fewest bytes whose sign extension gives the value back.
        let x = v.value as i64;
        let mut k = 1;
        while k < 8 && (x << (64 - 8 * k)) >> (64 - 8 * k) != x {
            k += 1;
        }
        tag |= SMALL_CODES + k as u8 - 1;
        let mut j = 0;
        while j < k {
            e.bytes[e.len] = (x >> (8 * j)) as u8;
            e.len += 1;
            j += 1;
        }
    }
    e.bytes[0] = tag;
    if !v.basis.is_none() {
        let depth = v.basis.depth();
        e.bytes[e.len] = depth as u8;
        e.len += 1;
        let mut j = 0;
        while j < depth {
            e.bytes[e.len] = v.basis.index(j) as u8;
            e.len += 1;
            j += 1;
        }
    }
    e
}

/// An int tuple with run-time structure: an integer or a tuple of int tuples, its nodes stored in
/// preorder as a compact byte encoding (a small integer or a tuple takes one byte), at most
/// [`MAX_NODES`] nodes in [`MAX_BYTES`](crate::MAX_BYTES) bytes. `Copy`, no heap, 128 bytes.
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
    /// Nodes.
    count: u8,
    /// Bytes of `bytes` in use.
    used: u8,
    bytes: [u8; CAP],
}

impl PartialEq for DynIntTuple {
    fn eq(&self, other: &Self) -> bool {
        self.encoding() == other.encoding()
    }
}
impl Eq for DynIntTuple {}

impl core::hash::Hash for DynIntTuple {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.encoding().hash(state)
    }
}

impl fmt::Debug for DynIntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl DynIntTuple {
    /// The empty tuple `()`.
    pub const EMPTY: DynIntTuple = {
        let mut t = DynIntTuple::builder();
        t.bytes[0] = TUPLE_TAG;
        t.count = 1;
        t.used = 1;
        t
    };

    /// A single integer.
    ///
    /// ```
    /// use const_layout::dyn_layout::{DynInt, DynIntTuple};
    /// assert_eq!(DynIntTuple::int(DynInt::new_static(3)).to_string(), "_3");
    /// ```
    #[inline]
    pub const fn int(v: DynInt) -> Self {
        let mut t = DynIntTuple::builder();
        // One node always fits.
        let _ = t.push_node(Node::Int(v));
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
        if modes.len() >= MAX_NODES {
            return Err(LayoutError::TooLarge);
        }
        let mut t = DynIntTuple::builder();
        // The root: one byte (fewer than `MAX_NODES` modes).
        t.bytes[0] = TUPLE_TAG | modes.len() as u8;
        (t.count, t.used) = (1, 1);
        let mut m = 0;
        while m < modes.len() {
            tri!(t.push_tuple(&modes[m]));
            m += 1;
        }
        Ok(t)
    }

    /// The encoded nodes (canonical: equal tuples have equal bytes).
    #[doc(hidden)]
    pub fn encoding(&self) -> &[u8] {
        &self.bytes[..self.used as usize]
    }

    /// The node at byte position `at` and the position after it; `None` at the end. With
    /// [`DynIntTuple::node_count`], the way to walk the nodes in preorder:
    /// `let mut at = 0; while let Some((node, next)) = t.read(at) { ...; at = next; }`.
    #[doc(hidden)]
    #[inline]
    pub const fn read(&self, at: usize) -> Option<(Node, usize)> {
        if at >= self.used as usize {
            return None;
        }
        Some(self.decode(at))
    }

    /// The node at byte position `at` (below `used`) and the position after it. Tuples and
    /// integers of up to two value bytes without a basis are decoded inline; others out of line.
    #[inline(always)]
    pub(crate) const fn decode(&self, at: usize) -> (Node, usize) {
        let tag = self.bytes[at];
        if tag >= TUPLE_TAG {
            return (Node::Tuple(tag & !TUPLE_TAG), at + 1);
        }
        if let Some((value, is_static, next)) = self.plain(at) {
            return (Node::Int(DynInt { value, is_static, basis: Basis::NONE }), next);
        }
        self.decode_long(at)
    }

    /// The bytes of the encoding in use (walks end at this position).
    #[inline(always)]
    pub(crate) const fn encoding_len(&self) -> usize {
        self.used as usize
    }

    /// Whether the node at byte position `at` (below `used`) is a tuple.
    #[inline(always)]
    pub(crate) const fn is_tuple_at(&self, at: usize) -> bool {
        self.bytes[at] >= TUPLE_TAG
    }

    /// The first byte of the node at byte position `at`: equal for two tuples exactly when their
    /// arities are, and never a tuple's for an integer.
    #[inline(always)]
    pub(crate) const fn tag_at(&self, at: usize) -> u8 {
        self.bytes[at]
    }

    /// The integer at byte position `at` (below `used`) if it has no basis path: its value,
    /// whether it is static, and the position after it; `None` for a tuple or an integer with a
    /// basis. The walks over extents and integer strides read nodes by this (no basis to carry).
    /// Integers of up to two value bytes are read inline, longer ones out of line.
    #[inline(always)]
    pub(crate) const fn plain(&self, at: usize) -> Option<(isize, bool, usize)> {
        let tag = self.bytes[at];
        if tag >= TUPLE_TAG || tag & BASIS_BIT != 0 {
            return None;
        }
        let is_static = tag & STATIC_BIT != 0;
        let code = tag & CODE_MASK;
        if code < SMALL_CODES {
            return Some((code as isize + SMALL_MIN, is_static, at + 1));
        }
        if code == SMALL_CODES {
            return Some((self.bytes[at + 1] as i8 as isize, is_static, at + 2));
        }
        if code == SMALL_CODES + 1 {
            let value = i16::from_le_bytes([self.bytes[at + 1], self.bytes[at + 2]]) as isize;
            return Some((value, is_static, at + 3));
        }
        match self.decode_long(at) {
            (Node::Int(v), next) => Some((v.value, is_static, next)),
            (Node::Tuple(_), _) => None,
        }
    }

    /// [`DynIntTuple::decode`] of an integer with value bytes or a basis path.
    #[inline(never)]
    const fn decode_long(&self, at: usize) -> (Node, usize) {
        let tag = self.bytes[at];
        let code = tag & CODE_MASK;
        let mut p = at + 1;
        let value = if code < SMALL_CODES {
            code as isize + SMALL_MIN
        } else {
            let k = (code - SMALL_CODES + 1) as usize;
            let mut x = 0u64;
            let mut j = 0;
            while j < k {
                x |= (self.bytes[p + j] as u64) << (8 * j);
                j += 1;
            }
            p += k;
            (((x << (64 - 8 * k)) as i64) >> (64 - 8 * k)) as isize
        };
        let mut basis = Basis::NONE;
        if tag & BASIS_BIT != 0 {
            let depth = self.bytes[p] as usize;
            let mut path = [0usize; super::basis::MAX_BASIS_DEPTH];
            let mut j = 0;
            while j < depth {
                path[j] = self.bytes[p + 1 + j] as usize;
                j += 1;
            }
            p += 1 + depth;
            basis = match Basis::new(path.split_at(depth).0) {
                Some(b) => b,
                None => Basis::NONE,
            };
        }
        (Node::Int(DynInt { value, is_static: tag & STATIC_BIT != 0, basis }), p)
    }

    /// The byte position just past the node at byte position `at` (below `used`), from its tag
    /// alone: the walks that only look at tags (or skip subtrees) decode nothing.
    #[inline(always)]
    const fn next_node(&self, at: usize) -> usize {
        let tag = self.bytes[at];
        if tag >= TUPLE_TAG {
            return at + 1;
        }
        let code = tag & CODE_MASK;
        let mut p = at + 1;
        if code >= SMALL_CODES {
            p += (code - SMALL_CODES + 1) as usize;
        }
        if tag & BASIS_BIT != 0 {
            p += 1 + self.bytes[p] as usize;
        }
        p
    }

    /// The byte position just past the subtree starting at byte position `at`.
    #[doc(hidden)]
    pub const fn skip(&self, at: usize) -> usize {
        let mut pending = 1usize;
        let mut p = at;
        while pending > 0 {
            let tag = self.bytes[p];
            if tag >= TUPLE_TAG {
                pending += (tag & !TUPLE_TAG) as usize;
            }
            p = self.next_node(p);
            pending -= 1;
        }
        p
    }

    /// The byte position of node `k` (at most the node count).
    const fn position(&self, k: usize) -> usize {
        let (mut p, mut j) = (0, 0);
        while j < k {
            p = self.next_node(p);
            j += 1;
        }
        p
    }

    /// The integer, if this is one.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// assert_eq!("_4".parse::<DynIntTuple>().unwrap().as_int().unwrap().value, 4);
    /// assert!("(4)".parse::<DynIntTuple>().unwrap().as_int().is_none());
    /// ```
    #[inline]
    pub const fn as_int(&self) -> Option<DynInt> {
        match self.decode(0).0 {
            Node::Int(v) => Some(v),
            Node::Tuple(_) => None,
        }
    }

    /// Whether this is an integer rather than a tuple.
    #[inline]
    pub const fn is_int(&self) -> bool {
        self.bytes[0] < TUPLE_TAG
    }

    /// CuTe's `rank`: modes of a tuple, 1 for an integer.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// assert_eq!("(1,(2,3),4)".parse::<DynIntTuple>().unwrap().rank(), 3);
    /// ```
    #[inline]
    pub const fn rank(&self) -> usize {
        if self.is_int() { 1 } else { (self.bytes[0] & !TUPLE_TAG) as usize }
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

    /// The subtree between byte positions `start` and `end`, of `count` nodes.
    pub(crate) const fn slice(&self, start: usize, end: usize, count: usize) -> DynIntTuple {
        let mut t = DynIntTuple::builder();
        t.write_bytes(0, self.bytes.split_at(end).0.split_at(start).1);
        t.used = (end - start) as u8;
        t.count = count as u8;
        t
    }

    /// The number of nodes between byte positions `start` and `end`.
    const fn count_between(&self, start: usize, end: usize) -> usize {
        let (mut p, mut n) = (start, 0);
        while p < end {
            p = self.next_node(p);
            n += 1;
        }
        n
    }

    /// The byte range of mode `i` of a tuple (below its rank).
    #[doc(hidden)]
    pub const fn mode_range(&self, i: usize) -> (usize, usize) {
        let mut start = 1;
        let mut m = 0;
        while m < i {
            start = self.skip(start);
            m += 1;
        }
        (start, self.skip(start))
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
        if self.is_int() {
            return if i == 0 { Some(*self) } else { None };
        }
        if i >= self.rank() {
            return None;
        }
        let (start, end) = self.mode_range(i);
        Some(self.slice(start, end, self.count_between(start, end)))
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
            let end = self.skip(start);
            let m = self.slice(start, end, self.count_between(start, end));
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
        let mut at = 0;
        core::iter::from_fn(move || {
            while let Some((n, next)) = self.read(at) {
                at = next;
                if let Node::Int(v) = n {
                    return Some(v);
                }
            }
            None
        })
    }

    /// The same structure with every integer replaced by `f(integer)`. The result takes as many
    /// bytes as the new integers need; if they no longer fit, the integers that do not fit are
    /// left as they were (use [`DynIntTuple::try_map_leaves`] to see the error).
    pub fn map_leaves(&self, mut f: impl FnMut(DynInt) -> DynInt) -> DynIntTuple {
        self.try_map_leaves(|v| Ok(f(v))).unwrap_or(*self)
    }

    /// The same structure with every integer replaced by `f(integer)`, or the first error (of
    /// `f`, or [`LayoutError::TooLarge`] if the new integers do not fit).
    pub fn try_map_leaves(
        &self,
        mut f: impl FnMut(DynInt) -> Result<DynInt, LayoutError>,
    ) -> Result<DynIntTuple, LayoutError> {
        let mut t = DynIntTuple::builder();
        let mut at = 0;
        while let Some((n, next)) = self.read(at) {
            t.push_node(match n {
                Node::Int(v) => Node::Int(f(v)?),
                tuple => tuple,
            })?;
            at = next;
        }
        Ok(t)
    }

    /// Whether any integer scales a basis element (a stride such as `_1@0`).
    pub const fn has_basis(&self) -> bool {
        let mut at = 0;
        while at < self.used as usize {
            let tag = self.bytes[at];
            if tag < TUPLE_TAG && tag & BASIS_BIT != 0 {
                return true;
            }
            at = self.next_node(at);
        }
        false
    }

    /// Whether every integer is static.
    pub const fn is_static(&self) -> bool {
        let mut at = 0;
        while at < self.used as usize {
            let tag = self.bytes[at];
            if tag < TUPLE_TAG && tag & STATIC_BIT == 0 {
                return false;
            }
            at = self.next_node(at);
        }
        true
    }

    /// The same structure with every integer a static 0.
    #[doc(hidden)]
    pub const fn map_zero(&self) -> DynIntTuple {
        let mut t = DynIntTuple::builder();
        let mut at = 0;
        while let Some((n, next)) = self.read(at) {
            // Each node takes one byte now, so this always fits.
            let _ = t.push_node(match n {
                Node::Int(_) => Node::Int(DynInt::new_static(0)),
                tuple => tuple,
            });
            at = next;
        }
        t
    }

    /// Node `k` in preorder (`k` below the node count). Walks from the start: loops over every
    /// node use [`DynIntTuple::read`].
    #[doc(hidden)]
    pub const fn node(&self, k: usize) -> Node {
        self.decode(self.position(k)).0
    }

    /// Replace node `k` (an integer by an integer keeps the structure). `Err` if the new node's
    /// bytes do not fit.
    #[doc(hidden)]
    pub const fn set_node(&mut self, k: usize, n: Node) -> Result<(), LayoutError> {
        let at = self.position(k);
        match self.replace_at(at, n) {
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Replace the node at byte position `at`, returning the position after the new node.
    #[doc(hidden)]
    pub const fn replace_at(&mut self, at: usize, n: Node) -> Result<usize, LayoutError> {
        let old_end = self.next_node(at);
        let e = encode(n);
        let new_end = at + e.len;
        let used = self.used as usize;
        if used - (old_end - at) + e.len > CAP {
            return Err(LayoutError::TooLarge);
        }
        // Move the tail to its new place, then write the node.
        if new_end > old_end {
            let mut k = used;
            while k > old_end {
                k -= 1;
                self.bytes[k + (new_end - old_end)] = self.bytes[k];
            }
        } else if new_end < old_end {
            let mut k = old_end;
            while k < used {
                self.bytes[k - (old_end - new_end)] = self.bytes[k];
                k += 1;
            }
            // Keep the unused bytes zero, as every constructor leaves them.
            let mut z = used - (old_end - new_end);
            while z < used {
                self.bytes[z] = 0;
                z += 1;
            }
        }
        let mut j = 0;
        while j < e.len {
            self.bytes[at + j] = e.bytes[j];
            j += 1;
        }
        self.used = (used - (old_end - at) + e.len) as u8;
        Ok(new_end)
    }

    /// The number of nodes (integers and tuples).
    #[doc(hidden)]
    pub const fn node_count(&self) -> usize {
        self.count as usize
    }

    /// Same nesting (CuTe's `congruent`).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynIntTuple;
    /// let a: DynIntTuple = "(8,(4,2))".parse().unwrap();
    /// assert!(a.congruent(&"(1,(_8,32))".parse().unwrap()));
    /// ```
    pub const fn congruent(&self, other: &DynIntTuple) -> bool {
        if self.count != other.count {
            return false;
        }
        let (mut a, mut b) = (0, 0);
        while a < self.used as usize && b < other.used as usize {
            let (x, y) = (self.bytes[a], other.bytes[b]);
            // Tuples of the same arity, or two integers.
            if (x >= TUPLE_TAG || y >= TUPLE_TAG) && x != y {
                return false;
            }
            a = self.next_node(a);
            b = other.next_node(b);
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

    /// Append one node. `Err(TooLarge)` past [`MAX_NODES`] nodes or
    /// [`MAX_BYTES`](crate::MAX_BYTES) bytes.
    #[doc(hidden)]
    #[inline]
    pub const fn push_node(&mut self, n: Node) -> Result<(), LayoutError> {
        // The common nodes inline: a tuple, a small integer (one byte), an integer of one or two
        // value bytes without a basis path. The rest out of line.
        let (tag, k, value) = match n {
            Node::Tuple(a) if (a as usize) < MAX_NODES => (TUPLE_TAG | a, 0, 0),
            Node::Int(v) => match small_tag(v) {
                Some(tag) => (tag, 0, 0),
                None if v.basis.is_none() && v.value >= i16::MIN as isize && v.value <= i16::MAX as isize => {
                    let k = if v.value >= i8::MIN as isize && v.value <= i8::MAX as isize { 1 } else { 2 };
                    let tag = if v.is_static { STATIC_BIT } else { 0 } | (SMALL_CODES + k as u8 - 1);
                    (tag, k, v.value as i16)
                }
                None => return self.push_encoded(n),
            },
            Node::Tuple(_) => return self.push_encoded(n),
        };
        let used = self.used as usize;
        if self.count as usize >= MAX_NODES || used + 1 + k > CAP {
            return Err(LayoutError::TooLarge);
        }
        self.bytes[used] = tag;
        let [lo, hi] = value.to_le_bytes();
        if k > 0 {
            self.bytes[used + 1] = lo;
        }
        if k > 1 {
            self.bytes[used + 2] = hi;
        }
        self.used += 1 + k as u8;
        self.count += 1;
        Ok(())
    }

    /// [`DynIntTuple::push_node`] of any node.
    const fn push_encoded(&mut self, n: Node) -> Result<(), LayoutError> {
        if let Node::Tuple(a) = n
            && a as usize >= MAX_NODES
        {
            return Err(LayoutError::TooLarge);
        }
        let e = encode(n);
        let used = self.used as usize;
        if self.count as usize >= MAX_NODES || used + e.len > CAP {
            return Err(LayoutError::TooLarge);
        }
        let mut j = 0;
        while j < e.len {
            self.bytes[used + j] = e.bytes[j];
            j += 1;
        }
        self.used = (used + e.len) as u8;
        self.count += 1;
        Ok(())
    }

    /// Copy `src` into the bytes from position `at` (`used` and `count` are the caller's).
    #[inline(always)]
    const fn write_bytes(&mut self, at: usize, src: &[u8]) {
        if src.len() <= 8 {
            // A few bytes (the common case: a mode or two): a call to copy them would cost more.
            let mut k = 0;
            while k < src.len() {
                self.bytes[at + k] = src[k];
                k += 1;
            }
        } else {
            self.bytes.split_at_mut(at).1.split_at_mut(src.len()).0.copy_from_slice(src);
        }
    }

    /// Set the arity of the root tuple of a builder.
    #[doc(hidden)]
    pub const fn set_root_arity(&mut self, n: u8) {
        self.bytes[0] = TUPLE_TAG | (n & !TUPLE_TAG);
    }

    /// An empty buffer to build into with `push_node`; the caller fixes the root.
    #[doc(hidden)]
    #[inline]
    pub const fn builder() -> DynIntTuple {
        DynIntTuple { count: 0, used: 0, bytes: [0; CAP] }
    }

    /// Append a whole tuple (as one mode) to a builder.
    #[doc(hidden)]
    pub const fn push_tuple(&mut self, t: &DynIntTuple) -> Result<(), LayoutError> {
        let used = self.used as usize;
        if self.count as usize + t.count as usize > MAX_NODES || used + t.used as usize > CAP {
            return Err(LayoutError::TooLarge);
        }
        self.write_bytes(used, t.bytes.split_at(t.used as usize).0);
        self.used += t.used;
        self.count += t.count;
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
        if n >= MAX_NODES {
            return Err(LayoutError::TooLarge);
        }
        t.set_root_arity(n as u8);
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
        let mut at = 0;
        while let Some((n, next)) = self.read(at) {
            if let Node::Int(v) = n {
                let Some(value) = acc.value.checked_mul(v.value) else {
                    return Err(LayoutError::SizeOverflow);
                };
                acc = DynInt::new(value, acc.is_static && v.is_static);
            }
            at = next;
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
        let mut at = 0;
        while let Some((node, next)) = self.read(at) {
            if let Node::Int(_) = node {
                tri!(t.push_node(node));
                n += 1;
            }
            at = next;
        }
        if n >= MAX_NODES {
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
            let (node, next) = t.decode(pos);
            match node {
                Node::Int(v) => {
                    write!(f, "{v}")?;
                    Ok(next)
                }
                Node::Tuple(n) => {
                    f.write_str("(")?;
                    let mut p = next;
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

// Compile-time helpers: the static values of typed results that depend on a whole int tuple are
// computed by these `const fn`s from `IntTuple::TREE`.
impl DynIntTuple {
    /// Byte position of the node reached by following `path[..len]` (mode indices) from the root.
    const fn node_at(&self, path: &[usize], len: usize) -> usize {
        let mut pos = 0;
        let mut k = 0;
        while k < len {
            let mut child = pos + 1;
            let mut m = 0;
            while m < path[k] {
                child = self.skip(child);
                m += 1;
            }
            pos = child;
            k += 1;
        }
        pos
    }

    /// The product of the integers between byte positions `start` and `end`.
    const fn product_range(&self, start: usize, end: usize) -> isize {
        let mut p: isize = 1;
        let mut at = start;
        while at < end {
            let (n, next) = self.decode(at);
            if let Node::Int(v) = n {
                p = match p.checked_mul(v.value) {
                    Some(x) => x,
                    None => panic!("a static size overflows isize"),
                };
            }
            at = next;
        }
        p
    }

    /// The product of the sizes of the subtrees of `shape` whose order (an int tuple weakly
    /// congruent with `shape`) is below `v`: the start stride of order `v` in `compact_order`.
    const fn lesser_product(shape: &DynIntTuple, order: &DynIntTuple, v: isize) -> isize {
        match order.decode(0).0 {
            Node::Int(o) => {
                if o.value < v {
                    shape.product_range(0, shape.used as usize)
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
        if let Node::Int(leaf) = s.decode(target).0
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::dyn_layout::DynLayout;
    use std::string::ToString;
    use std::vec::Vec;

    /// Values at every boundary of the encoding: the one-byte range, and each byte count.
    fn edge_values() -> Vec<isize> {
        let mut v = std::vec![
            0,
            1,
            -1,
            SMALL_MIN,
            SMALL_MIN - 1,
            SMALL_MIN + 23,
            SMALL_MIN + 24,
            isize::MIN,
            isize::MAX
        ];
        for k in 1..8u32 {
            let top = (1i64 << (8 * k - 1)) as isize;
            v.extend([top - 1, top, -top, -top - 1]);
        }
        v
    }

    fn bases() -> Vec<Basis> {
        std::vec![Basis::NONE, Basis::new(&[0]).unwrap(), Basis::new(&[255, 3, 0, 7]).unwrap()]
    }

    #[test]
    fn every_integer_reads_back_as_written() {
        for &value in &edge_values() {
            for is_static in [false, true] {
                for basis in bases() {
                    let v = DynInt { value, is_static, basis };
                    let t = DynIntTuple::int(v);
                    assert_eq!(t.as_int(), Some(v), "{v}");
                    assert_eq!(t.read(0), Some((Node::Int(v), t.encoding().len())), "{v}");
                    assert_eq!(t.skip(0), t.encoding().len(), "{v}");
                    // The fewest bytes: one more value byte would not be needed.
                    let bytes = t.encoding().len() - if basis.is_none() { 0 } else { 1 + basis.depth() };
                    let fits = |k: u32| {
                        let x = value as i64;
                        k == 8 || ((x << (64 - 8 * k)) >> (64 - 8 * k)) == x
                    };
                    let want = if (SMALL_MIN..SMALL_MIN + 24).contains(&value) {
                        1
                    } else {
                        1 + (1..=8).find(|&k| fits(k)).unwrap() as usize
                    };
                    assert_eq!(bytes, want, "{v}");
                }
            }
        }
    }

    #[test]
    fn equal_tuples_have_equal_bytes_and_unequal_ones_differ() {
        let vals = edge_values();
        for &a in &vals {
            for &b in &vals {
                let t = |x| DynIntTuple::tuple(&[DynIntTuple::int(DynInt::new_runtime(x))]).unwrap();
                assert_eq!(t(a) == t(b), a == b, "{a} {b}");
            }
        }
        let s: DynIntTuple = "(_8,(4,_2))".parse().unwrap();
        assert_ne!(s, "(8,(4,_2))".parse().unwrap());
        assert_ne!(s, "(_8,(4,_2),())".parse().unwrap());
    }

    #[test]
    fn replacing_a_node_moves_the_rest() {
        let mut t: DynIntTuple = "(1,(2,3),4)".parse().unwrap();
        // Grow node 3 (the integer 2) to nine bytes, then shrink it back.
        t.set_node(3, Node::Int(DynInt::new_runtime(isize::MAX))).unwrap();
        assert_eq!(t.to_string(), std::format!("(1,({},3),4)", isize::MAX));
        t.set_node(3, Node::Int(DynInt::new_static(2))).unwrap();
        assert_eq!(t.to_string(), "(1,(_2,3),4)");
        assert_eq!(t, "(1,(_2,3),4)".parse().unwrap());
        assert_eq!(t.node_count(), 6);
    }

    #[test]
    fn capacity_is_nodes_and_bytes() {
        let small = DynIntTuple::int(DynInt::new_static(1));
        // 63 one-byte modes and the root: 64 nodes in 64 bytes.
        assert!(DynIntTuple::tuple(&[small; MAX_NODES - 1]).is_ok());
        assert_eq!(DynIntTuple::tuple(&[small; MAX_NODES]), Err(LayoutError::TooLarge));
        // Nine bytes an integer: 14 fit in 126 bytes with the root, 15 do not.
        let big = DynIntTuple::int(DynInt::new_runtime(isize::MAX));
        let fit = (CAP - 1) / 9;
        assert!(DynIntTuple::tuple(&std::vec![big; fit]).is_ok());
        assert_eq!(DynIntTuple::tuple(&std::vec![big; fit + 1]), Err(LayoutError::TooLarge));
        // Full to the last byte with one-byte integers after the large ones: growing one fails.
        let mut modes = std::vec![big; fit];
        modes.extend(std::vec![small; CAP - 1 - 9 * fit]);
        let full = DynIntTuple::tuple(&modes).unwrap();
        assert_eq!(full.encoding().len(), CAP);
        let mut t = full;
        assert_eq!(
            t.set_node(modes.len(), Node::Int(DynInt::new_runtime(isize::MAX))),
            Err(LayoutError::TooLarge)
        );
        assert_eq!(t, full, "a failed replace changes nothing");
        assert_eq!(t.push_node(Node::Int(DynInt::new_static(1))), Err(LayoutError::TooLarge));
    }

    #[test]
    fn values_are_small() {
        // The point of the encoding: a layout is copied by value everywhere in the algebra.
        assert_eq!(core::mem::size_of::<DynIntTuple>(), 128);
        assert!(core::mem::size_of::<DynLayout>() <= 2 * 128 + 2 * core::mem::size_of::<DynInt>());
    }
}
