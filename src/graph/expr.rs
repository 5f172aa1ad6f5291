//! Index values for graph traversal: integers, or symbolic expressions over runtime values
//! (rocRoller's `Expression` trees), built in a fixed arena and folded as they are built, so that
//! a traversal yields an index expression to emit into a kernel, printable as Rust or as C.

use core::cell::RefCell;
use core::fmt;

/// What a traversal computes with: `isize` (translate-time integers) or [`Sym`] (expressions).
pub trait IndexValue: Copy + fmt::Debug {
    /// A constant.
    fn constant(&self, v: isize) -> Self;
    /// `self + o`.
    fn add(self, o: Self) -> Self;
    /// `self * o`.
    fn mul(self, o: Self) -> Self;
    /// `self / o` (both non-negative in an index computation).
    fn div(self, o: Self) -> Self;
    /// `self % o`.
    fn rem(self, o: Self) -> Self;
    /// The value, if it is known now (a constant).
    fn as_const(&self) -> Option<isize>;
    /// A runtime value by name, if this kind of value can hold one (expressions can, integers
    /// cannot).
    fn runtime(&self, name: &'static str) -> Option<Self>;
}

impl IndexValue for isize {
    fn constant(&self, v: isize) -> Self {
        v
    }
    fn add(self, o: Self) -> Self {
        self + o
    }
    fn mul(self, o: Self) -> Self {
        self * o
    }
    fn div(self, o: Self) -> Self {
        self.div_euclid(o)
    }
    fn rem(self, o: Self) -> Self {
        self.rem_euclid(o)
    }
    fn as_const(&self) -> Option<isize> {
        Some(*self)
    }
    fn runtime(&self, _: &'static str) -> Option<Self> {
        None
    }
}

/// The most nodes an [`Arena`] holds.
pub const MAX_EXPR_NODES: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Const(isize),
    Var(&'static str),
    Add(u16, u16),
    Mul(u16, u16),
    Div(u16, u16),
    Rem(u16, u16),
}

/// Storage for symbolic index expressions (no heap). Expressions are [`Sym`] handles into it.
///
/// ```
/// use const_layout::graph::{Arena, IndexValue};
/// let a = Arena::new();
/// let wg = a.var("wg");
/// let e = wg.mul(a.constant(64)).add(a.constant(33)).mul(a.constant(2));
/// assert_eq!(e.rust().to_string(), "(wg * 64 + 33) * 2");
/// let t = wg.div(a.constant(4)).add(wg.rem(a.constant(4)));
/// assert_eq!(t.rust().to_string(), "wg.div_euclid(4) + wg.rem_euclid(4)");
/// assert_eq!(t.c().to_string(), "wg / 4 + wg % 4");
/// assert_eq!(a.constant(3).mul(a.constant(4)).add(a.constant(0)).as_const(), Some(12));
/// ```
pub struct Arena {
    nodes: RefCell<([Node; MAX_EXPR_NODES], usize)>,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    /// An empty arena.
    pub fn new() -> Self {
        Arena { nodes: RefCell::new(([Node::Const(0); MAX_EXPR_NODES], 0)) }
    }

    fn push(&self, n: Node) -> Sym<'_> {
        let mut nodes = self.nodes.borrow_mut();
        let (store, len) = &mut *nodes;
        // Reuse an equal node (constants and variables recur), and stop growing when full: the
        // last node slot then holds every further result, which `overflowed` reports.
        if let Some(k) = store[..*len].iter().position(|m| *m == n) {
            return Sym { arena: self, id: k as u16 };
        }
        let id = (*len).min(MAX_EXPR_NODES - 1);
        store[id] = n;
        if *len < MAX_EXPR_NODES {
            *len += 1;
        }
        Sym { arena: self, id: id as u16 }
    }

    /// Whether the arena ran out of nodes (its expressions are then not to be trusted).
    pub fn overflowed(&self) -> bool {
        self.nodes.borrow().1 >= MAX_EXPR_NODES
    }

    /// A constant.
    pub fn constant(&self, v: isize) -> Sym<'_> {
        self.push(Node::Const(v))
    }

    /// A runtime value named `name` (a register, a kernel argument).
    pub fn var(&self, name: &'static str) -> Sym<'_> {
        self.push(Node::Var(name))
    }

    fn node(&self, id: u16) -> Node {
        self.nodes.borrow().0[id as usize]
    }
}

/// A symbolic index expression in an [`Arena`].
#[derive(Clone, Copy)]
pub struct Sym<'a> {
    arena: &'a Arena,
    id: u16,
}

impl fmt::Debug for Sym<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rust())
    }
}

impl PartialEq for Sym<'_> {
    fn eq(&self, o: &Self) -> bool {
        core::ptr::eq(self.arena, o.arena) && self.id == o.id
    }
}

impl<'a> Sym<'a> {
    fn binary(self, o: Self, make: fn(u16, u16) -> Node) -> Self {
        self.arena.push(make(self.id, o.id))
    }

    /// The expression as Rust source (`isize` arithmetic).
    pub fn rust(self) -> Printed<'a> {
        Printed { sym: self, c: false }
    }

    /// The expression as C source.
    pub fn c(self) -> Printed<'a> {
        Printed { sym: self, c: true }
    }

    /// The value with every variable given by `value` (for checking an expression).
    pub fn eval(self, value: &dyn Fn(&str) -> isize) -> isize {
        match self.arena.node(self.id) {
            Node::Const(v) => v,
            Node::Var(n) => value(n),
            Node::Add(a, b) => self.at(a).eval(value) + self.at(b).eval(value),
            Node::Mul(a, b) => self.at(a).eval(value) * self.at(b).eval(value),
            Node::Div(a, b) => self.at(a).eval(value).div_euclid(self.at(b).eval(value)),
            Node::Rem(a, b) => self.at(a).eval(value).rem_euclid(self.at(b).eval(value)),
        }
    }

    /// The value, if the expression folded to a constant.
    pub fn as_const_value(self) -> Option<isize> {
        self.as_const()
    }

    fn at(self, id: u16) -> Sym<'a> {
        Sym { arena: self.arena, id }
    }
}

impl IndexValue for Sym<'_> {
    fn constant(&self, v: isize) -> Self {
        self.arena.constant(v)
    }
    // Constant folding and the identities x+0, x*1, x*0, x/1, x%1, as rocRoller's simplifier.
    fn add(self, o: Self) -> Self {
        match (self.as_const(), o.as_const()) {
            (Some(a), Some(b)) => self.constant(a + b),
            (Some(0), _) => o,
            (_, Some(0)) => self,
            _ => self.binary(o, Node::Add),
        }
    }
    fn mul(self, o: Self) -> Self {
        match (self.as_const(), o.as_const()) {
            (Some(a), Some(b)) => self.constant(a * b),
            (Some(0), _) | (_, Some(0)) => self.constant(0),
            (Some(1), _) => o,
            (_, Some(1)) => self,
            _ => self.binary(o, Node::Mul),
        }
    }
    fn div(self, o: Self) -> Self {
        match (self.as_const(), o.as_const()) {
            (Some(a), Some(b)) if b != 0 => self.constant(a.div_euclid(b)),
            (_, Some(1)) => self,
            _ => self.binary(o, Node::Div),
        }
    }
    fn rem(self, o: Self) -> Self {
        match (self.as_const(), o.as_const()) {
            (Some(a), Some(b)) if b != 0 => self.constant(a.rem_euclid(b)),
            (_, Some(1)) => self.constant(0),
            _ => self.binary(o, Node::Rem),
        }
    }
    fn as_const(&self) -> Option<isize> {
        match self.arena.node(self.id) {
            Node::Const(v) => Some(v),
            _ => None,
        }
    }
    fn runtime(&self, name: &'static str) -> Option<Self> {
        Some(self.arena.var(name))
    }
}

/// An expression printed as Rust or C (see [`Sym::rust`], [`Sym::c`]).
pub struct Printed<'a> {
    sym: Sym<'a>,
    c: bool,
}

impl fmt::Display for Printed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, self.sym, 0)
    }
}

impl Printed<'_> {
    /// Write `s`, in parentheses if it binds less tightly than `min` (1: sum, 2: product, 3: an
    /// operand of a method call).
    fn write(&self, f: &mut fmt::Formatter<'_>, s: Sym<'_>, min: u8) -> fmt::Result {
        let open = match s.arena.node(s.id) {
            Node::Const(v) => v < 0 && min > 2,
            Node::Var(_) => false,
            Node::Add(..) => min > 1,
            Node::Div(..) | Node::Rem(..) if !self.c => false,
            _ => min > 2,
        };
        if open {
            f.write_str("(")?;
        }
        match s.arena.node(s.id) {
            Node::Const(v) => write!(f, "{v}")?,
            Node::Var(n) => f.write_str(n)?,
            Node::Add(a, b) => {
                // Addition is associative: neither side needs parentheses for a sum.
                self.write(f, s.at(a), 1)?;
                f.write_str(" + ")?;
                self.write(f, s.at(b), 1)?;
            }
            Node::Mul(a, b) => self.infix(f, s.at(a), " * ", s.at(b))?,
            Node::Div(a, b) if self.c => self.infix(f, s.at(a), " / ", s.at(b))?,
            Node::Rem(a, b) if self.c => self.infix(f, s.at(a), " % ", s.at(b))?,
            Node::Div(a, b) => self.method(f, s.at(a), ".div_euclid(", s.at(b))?,
            Node::Rem(a, b) => self.method(f, s.at(a), ".rem_euclid(", s.at(b))?,
        }
        if open {
            f.write_str(")")?;
        }
        Ok(())
    }

    fn infix(&self, f: &mut fmt::Formatter<'_>, a: Sym<'_>, op: &str, b: Sym<'_>) -> fmt::Result {
        self.write(f, a, 2)?;
        f.write_str(op)?;
        self.write(f, b, 3)
    }

    fn method(&self, f: &mut fmt::Formatter<'_>, a: Sym<'_>, name: &str, b: Sym<'_>) -> fmt::Result {
        self.write(f, a, 3)?;
        f.write_str(name)?;
        self.write(f, b, 0)?;
        f.write_str(")")
    }
}
