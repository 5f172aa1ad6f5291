//! Index values for graph traversal: integers, or symbolic expressions over runtime values
//! (rocRoller's `Expression` trees), built in a fixed arena and folded as they are built, so that
//! a traversal yields an index expression to emit into a kernel, printable as Rust or as C.
//!
//! Arithmetic is checked: an integer result that does not fit in `isize`, a division by zero or a
//! shift past the width is `None` from [`IndexValue::apply`] (the traversal reports it as an
//! error naming the edge), never a wrapped value.

use super::Name;
use core::cell::RefCell;
use core::fmt;

/// The comparison and logical methods (`lt`, `le`, `gt`, `ge`, `equal`, `not_equal`, `and`,
/// `or`) of an expression type, through `self.$method(op, o)` with `o: $rhs`.
macro_rules! comparisons {
    ($rhs:ty, $method:ident) => {
        comparisons!(@each $rhs, $method,
            lt Lt "`self < o` (1 or 0).", le Le "`self <= o`.", gt Gt "`self > o`.", ge Ge "`self >= o`.",
            equal Eq "`self == o`.", not_equal Ne "`self != o`.", and And "`self && o`.", or Or "`self || o`.");
    };
    (@each $rhs:ty, $method:ident, $($f:ident $op:ident $doc:literal),*) => {$(
        #[doc = $doc]
        pub fn $f(self, o: $rhs) -> Self {
            self.$method(BinaryOp::$op, o)
        }
    )*};
}
pub(crate) use comparisons;

/// The operations of index expressions (rocRoller's `Expression` operators that index math
/// uses). Division and remainder are Euclidean (floor for positive divisors), so `x / 2^k` is
/// `x >> k` and `x % 2^k` is `x & (2^k - 1)` for every `x`. Comparisons and the logical
/// operations give 1 or 0.
///
/// ```
/// use const_layout::rocroller::BinaryOp;
/// assert_eq!(BinaryOp::Div.apply(-7, 2), Some(-4));
/// assert_eq!(BinaryOp::Lt.apply(3, 4), Some(1));
/// assert_eq!(BinaryOp::Mul.apply(isize::MAX, 2), None); // overflow is no value
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// Euclidean `/`.
    Div,
    /// Euclidean `%`.
    Rem,
    /// `<<`
    Shl,
    /// `>>` (arithmetic)
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinaryOp {
    /// Every operation, in declaration order.
    ///
    /// ```
    /// use const_layout::rocroller::BinaryOp;
    /// assert_eq!(BinaryOp::ALL.len(), 18);
    /// assert!(BinaryOp::ALL.iter().all(|op| op.apply(6, 3).is_some()));
    /// ```
    pub const ALL: [BinaryOp; 18] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::And,
        BinaryOp::Or,
    ];

    /// The operation on integers; `None` on overflow, division by zero or a shift outside
    /// `0..isize::BITS`.
    pub const fn apply(self, a: isize, b: isize) -> Option<isize> {
        let shift_ok = b >= 0 && b < isize::BITS as isize;
        match self {
            BinaryOp::Add => a.checked_add(b),
            BinaryOp::Sub => a.checked_sub(b),
            BinaryOp::Mul => a.checked_mul(b),
            BinaryOp::Div => a.checked_div_euclid(b),
            BinaryOp::Rem => a.checked_rem_euclid(b),
            // `<<` that loses bits is an overflow like `*`.
            BinaryOp::Shl if shift_ok && (a << b) >> b == a => Some(a << b),
            BinaryOp::Shr if shift_ok => Some(a >> b),
            BinaryOp::Shl | BinaryOp::Shr => None,
            BinaryOp::BitAnd => Some(a & b),
            BinaryOp::BitOr => Some(a | b),
            BinaryOp::BitXor => Some(a ^ b),
            BinaryOp::Lt => Some((a < b) as isize),
            BinaryOp::Le => Some((a <= b) as isize),
            BinaryOp::Gt => Some((a > b) as isize),
            BinaryOp::Ge => Some((a >= b) as isize),
            BinaryOp::Eq => Some((a == b) as isize),
            BinaryOp::Ne => Some((a != b) as isize),
            BinaryOp::And => Some((a != 0 && b != 0) as isize),
            BinaryOp::Or => Some((a != 0 || b != 0) as isize),
        }
    }

    /// Whether the result is a truth value (a comparison or a logical operation).
    pub const fn is_boolean(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::And
                | BinaryOp::Or
        )
    }

    pub(crate) const fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => " + ",
            BinaryOp::Sub => " - ",
            BinaryOp::Mul => " * ",
            BinaryOp::Div => " / ",
            BinaryOp::Rem => " % ",
            BinaryOp::Shl => " << ",
            BinaryOp::Shr => " >> ",
            BinaryOp::BitAnd => " & ",
            BinaryOp::BitOr => " | ",
            BinaryOp::BitXor => " ^ ",
            BinaryOp::Lt => " < ",
            BinaryOp::Le => " <= ",
            BinaryOp::Gt => " > ",
            BinaryOp::Ge => " >= ",
            BinaryOp::Eq => " == ",
            BinaryOp::Ne => " != ",
            BinaryOp::And => " && ",
            BinaryOp::Or => " || ",
        }
    }

    /// Binding strength in C (higher binds tighter) and in Rust, where the bit operations bind
    /// tighter than comparisons and comparisons do not chain.
    pub(crate) const fn precedence(self, c: bool) -> u8 {
        match self {
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 11,
            BinaryOp::Add | BinaryOp::Sub => 10,
            BinaryOp::Shl | BinaryOp::Shr => 9,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge if c => 8,
            BinaryOp::Eq | BinaryOp::Ne if c => 7,
            BinaryOp::BitAnd if c => 6,
            BinaryOp::BitXor if c => 5,
            BinaryOp::BitOr if c => 4,
            BinaryOp::BitAnd => 8,
            BinaryOp::BitXor => 7,
            BinaryOp::BitOr => 6,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne => 5,
            BinaryOp::And => 3,
            BinaryOp::Or => 2,
        }
    }

    /// `a op (b op c) == (a op b) op c`, so the right operand needs no parentheses for itself.
    const fn associative(self) -> bool {
        matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::And
                | BinaryOp::Or
        )
    }
}

/// What a traversal computes with: `isize` (translate-time integers) or [`Sym`] (expressions).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value a coordinate-graph traversal computes with",
    note = "use `isize` (numbers) or `Sym` (index expressions)"
)]
pub trait IndexValue: Copy + fmt::Debug {
    /// A constant.
    fn constant(&self, v: isize) -> Self;
    /// `self op o`; `None` where an integer result does not exist (overflow, division by zero).
    fn apply(self, op: BinaryOp, o: Self) -> Option<Self>;
    /// `t` where `self` is non-zero, else `f` (rocRoller's `Conditional`).
    fn select(self, t: Self, f: Self) -> Self;
    /// The value, if it is known now (a constant).
    fn as_const(&self) -> Option<isize>;
    /// A runtime value by name, if this kind of value can hold one (expressions can, integers
    /// cannot).
    fn runtime(&self, name: Name) -> Option<Self>;
}

impl IndexValue for isize {
    fn constant(&self, v: isize) -> Self {
        v
    }
    fn apply(self, op: BinaryOp, o: Self) -> Option<Self> {
        op.apply(self, o)
    }
    fn select(self, t: Self, f: Self) -> Self {
        if self != 0 { t } else { f }
    }
    fn as_const(&self) -> Option<isize> {
        Some(*self)
    }
    fn runtime(&self, _: Name) -> Option<Self> {
        None
    }
}

/// How many nodes an [`Arena`] holds unless told otherwise.
pub const MAX_EXPR_NODES: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Const(isize),
    Var(Name),
    Bin(BinaryOp, u16, u16),
    Select(u16, u16, u16),
}

/// Storage for symbolic index expressions (no heap), `N` nodes (512 unless given). Expressions
/// are [`Sym`] handles into it; equal nodes are stored once.
///
/// ```
/// use const_layout::rocroller::Arena;
/// let a = Arena::new();
/// let wg = a.var("wg");
/// let e = (wg * 64 + 33) * 2;
/// assert_eq!(e.rust().to_string(), "(wg * 64 + 33) * 2");
/// let t = wg / 4 + wg % 4;
/// assert_eq!(t.rust().to_string(), "wg.div_euclid(4) + wg.rem_euclid(4)");
/// assert_eq!(t.c().to_string(), "wg / 4 + wg % 4");
/// assert_eq!((a.constant(3) * 4 + 0).as_const_value(), Some(12));
/// // rocRoller's fast arithmetic: multiplications and divisions by powers of two become shifts.
/// assert_eq!(e.fast_arithmetic().c().to_string(), "((wg << 6) + 33) << 1");
/// let big: Arena<4096> = Arena::with_capacity();
/// assert_eq!(big.var("x").c().to_string(), "x");
/// ```
pub struct Arena<const N: usize = MAX_EXPR_NODES> {
    nodes: RefCell<([Node; N], usize)>,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    /// An empty arena of [`MAX_EXPR_NODES`] nodes.
    pub fn new() -> Self {
        Self::with_capacity()
    }
}

impl<const N: usize> Arena<N> {
    /// An empty arena of `N` nodes (at most 65,536: nodes are numbered by `u16`).
    pub fn with_capacity() -> Self {
        const { assert!(N > 0 && N <= 1 << 16, "an Arena holds 1 to 65536 nodes") };
        Arena { nodes: RefCell::new(([Node::Const(0); N], 0)) }
    }

    fn push(&self, n: Node) -> Sym<'_, N> {
        let mut nodes = self.nodes.borrow_mut();
        let (store, len) = &mut *nodes;
        // Reuse an equal node (constants and variables recur), and stop growing when full: the
        // last node slot then holds every further result, which `overflowed` reports.
        if let Some(k) = store[..*len].iter().position(|m| *m == n) {
            return Sym { arena: self, id: k as u16 };
        }
        let id = (*len).min(N - 1);
        store[id] = n;
        if *len < N {
            *len += 1;
        }
        Sym { arena: self, id: id as u16 }
    }

    /// Whether the arena ran out of nodes (its expressions are then not to be trusted).
    pub fn overflowed(&self) -> bool {
        self.nodes.borrow().1 >= N
    }

    /// A constant.
    pub fn constant(&self, v: isize) -> Sym<'_, N> {
        self.push(Node::Const(v))
    }

    /// A runtime value named `name` (a register, a kernel argument): a `&'static str` or a
    /// [`Name`] (one read from text).
    ///
    /// ```
    /// use const_layout::rocroller::{Arena, Name};
    /// let a = Arena::new();
    /// let n = Name::new(&String::from("lda")).unwrap();
    /// assert_eq!((a.var(n) * a.var("i")).c().to_string(), "lda * i");
    /// assert!(a.var(n) == a.var("lda")); // one variable: names are equal by content
    /// ```
    pub fn var(&self, name: impl Into<Name>) -> Sym<'_, N> {
        self.push(Node::Var(name.into()))
    }

    fn node(&self, id: u16) -> Node {
        self.nodes.borrow().0[id as usize]
    }
}

/// A symbolic index expression in an [`Arena`]. The operators (`+ - * / % << >> & | ^`, with a
/// `Sym` or an `isize` on the right) fold constants and the identities (`x+0`, `x*1`, `x*0`,
/// `x/1`, `x%1`, shifts by 0) as they build; a constant result that overflows stays unfolded
/// (and [`Sym::eval`] reports it).
#[derive(Clone, Copy)]
pub struct Sym<'a, const N: usize = MAX_EXPR_NODES> {
    arena: &'a Arena<N>,
    id: u16,
}

impl<const N: usize> fmt::Debug for Sym<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rust())
    }
}

impl<const N: usize> PartialEq for Sym<'_, N> {
    fn eq(&self, o: &Self) -> bool {
        core::ptr::eq(self.arena, o.arena) && self.id == o.id
    }
}

impl<'a, const N: usize> Sym<'a, N> {
    /// The expression as Rust source (`isize` arithmetic; truth values are `bool`s, converted
    /// where an integer is needed).
    pub fn rust(self) -> Printed<'a, N> {
        Printed { sym: self, c: false }
    }

    /// The expression as C source.
    pub fn c(self) -> Printed<'a, N> {
        Printed { sym: self, c: true }
    }

    /// The value with every variable given by `value`; `None` where an operation has no
    /// integer result (overflow, division by zero).
    pub fn eval(self, value: &dyn Fn(&str) -> isize) -> Option<isize> {
        match self.arena.node(self.id) {
            Node::Const(v) => Some(v),
            Node::Var(n) => Some(value(n.as_str())),
            Node::Bin(op, a, b) => op.apply(self.at(a).eval(value)?, self.at(b).eval(value)?),
            Node::Select(c, t, f) => {
                if self.at(c).eval(value)? != 0 {
                    self.at(t).eval(value)
                } else {
                    self.at(f).eval(value)
                }
            }
        }
    }

    /// The value, if the expression folded to a constant.
    pub fn as_const_value(self) -> Option<isize> {
        match self.arena.node(self.id) {
            Node::Const(v) => Some(v),
            _ => None,
        }
    }

    /// `self op o`, folded where the operands allow; `None` only where constants have no result.
    fn fold(self, op: BinaryOp, o: Self) -> Option<Self> {
        let (a, b) = (self.as_const_value(), o.as_const_value());
        if let (Some(a), Some(b)) = (a, b) {
            return op.apply(a, b).map(|v| self.arena.constant(v));
        }
        let boolean = |s: Self| matches!(s.arena.node(s.id), Node::Bin(op, ..) if op.is_boolean());
        let zero = self.arena.constant(0);
        Some(match (op, a, b) {
            (BinaryOp::Add | BinaryOp::BitOr | BinaryOp::BitXor, Some(0), _) => o,
            (
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Shl
                | BinaryOp::Shr,
                _,
                Some(0),
            ) => self,
            (BinaryOp::Mul | BinaryOp::BitAnd, Some(0), _)
            | (BinaryOp::Mul | BinaryOp::BitAnd, _, Some(0)) => zero,
            (BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Div | BinaryOp::Rem, Some(0), _) => zero,
            (BinaryOp::Div | BinaryOp::Rem, _, Some(0)) => return None,
            (BinaryOp::Mul, Some(1), _) => o,
            (BinaryOp::Mul | BinaryOp::Div, _, Some(1)) => self,
            (BinaryOp::Rem, _, Some(1)) => zero,
            (BinaryOp::And, Some(0), _) | (BinaryOp::And, _, Some(0)) => zero,
            (BinaryOp::And, Some(_), _) if boolean(o) => o,
            (BinaryOp::And, _, Some(_)) if boolean(self) => self,
            (BinaryOp::Or, Some(0), _) if boolean(o) => o,
            (BinaryOp::Or, _, Some(0)) if boolean(self) => self,
            _ => self.arena.push(Node::Bin(op, self.id, o.id)),
        })
    }

    /// `self op o` as an operator builds it: folded, or the node itself.
    fn build(self, op: BinaryOp, o: Self) -> Self {
        self.fold(op, o).unwrap_or_else(|| self.arena.push(Node::Bin(op, self.id, o.id)))
    }

    comparisons!(impl IntoSym<'a, N>, operator);

    /// rocRoller's `Conditional`: `t` where `self` holds, else `f` (folded when `self` is a
    /// constant or both branches are equal).
    ///
    /// ```
    /// use const_layout::rocroller::Arena;
    /// let a = Arena::new();
    /// let (i, j) = (a.var("i"), a.var("j"));
    /// let e = i.lt(4).select(i * 10 + j, i * 20 + j - 40);
    /// assert_eq!(e.c().to_string(), "i < 4 ? i * 10 + j : i * 20 + j - 40");
    /// assert_eq!(e.rust().to_string(), "if i < 4 { i * 10 + j } else { i * 20 + j - 40 }");
    /// assert_eq!(e.eval(&|v| if v == "i" { 5 } else { 1 }), Some(61));
    /// ```
    pub fn select(self, t: Self, f: Self) -> Self {
        match self.as_const_value() {
            Some(0) => f,
            Some(_) => t,
            None if t == f => t,
            None => self.arena.push(Node::Select(self.id, t.id, f.id)),
        }
    }

    /// rocRoller's fast-arithmetic rewrite: multiplication by a power of two becomes `<<`,
    /// division by one `>>`, remainder by one `&` (exact for every value: division and remainder
    /// are Euclidean).
    ///
    /// ```
    /// use const_layout::rocroller::Arena;
    /// let a = Arena::new();
    /// let x = a.var("x");
    /// let e = (x / 16 * 64 + x % 16).fast_arithmetic();
    /// assert_eq!(e.c().to_string(), "((x >> 4) << 6) + (x & 15)");
    /// assert_eq!(e.eval(&|_| 100), (x / 16 * 64 + x % 16).eval(&|_| 100));
    /// ```
    pub fn fast_arithmetic(self) -> Self {
        let pow2 = |s: Self| {
            s.as_const_value().filter(|&v| v > 1 && v.count_ones() == 1).map(|v| v.trailing_zeros())
        };
        match self.arena.node(self.id) {
            Node::Const(_) | Node::Var(_) => self,
            Node::Select(c, t, f) => self
                .at(c)
                .fast_arithmetic()
                .select(self.at(t).fast_arithmetic(), self.at(f).fast_arithmetic()),
            Node::Bin(op, a, b) => {
                let (a, b) = (self.at(a).fast_arithmetic(), self.at(b).fast_arithmetic());
                let k = |s| self.arena.constant(s as isize);
                match (op, pow2(a), pow2(b)) {
                    (BinaryOp::Mul, _, Some(s)) => a.build(BinaryOp::Shl, k(s)),
                    (BinaryOp::Mul, Some(s), _) => b.build(BinaryOp::Shl, k(s)),
                    (BinaryOp::Div, _, Some(s)) => a.build(BinaryOp::Shr, k(s)),
                    (BinaryOp::Rem, _, Some(_)) => {
                        a.build(BinaryOp::BitAnd, b.build(BinaryOp::Sub, self.arena.constant(1)))
                    }
                    _ => a.build(op, b),
                }
            }
        }
    }

    fn at(self, id: u16) -> Sym<'a, N> {
        Sym { arena: self.arena, id }
    }
}

/// A right operand of a [`Sym`] operator: another `Sym` or an `isize` constant.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an operand of a `Sym` expression",
    note = "use another `Sym` of the same arena or an `isize` constant"
)]
pub trait IntoSym<'a, const N: usize> {
    /// The operand in `arena`.
    fn into_sym(self, arena: &'a Arena<N>) -> Sym<'a, N>;
}

impl<'a, const N: usize> IntoSym<'a, N> for Sym<'a, N> {
    fn into_sym(self, _: &'a Arena<N>) -> Sym<'a, N> {
        self
    }
}

impl<'a, const N: usize> IntoSym<'a, N> for isize {
    fn into_sym(self, arena: &'a Arena<N>) -> Sym<'a, N> {
        arena.constant(self)
    }
}

/// `impl core::ops::$Trait<R> for $ty` for every arithmetic operator, through `$ty::$method(op, r)`.
macro_rules! impl_operators {
    ($gen:tt $ty:ty, $rhs:ty, $method:ident) => {
        impl_operators!(@each $gen $ty, $rhs, $method,
            Add add Add, Sub sub Sub, Mul mul Mul, Div div Div, Rem rem Rem, Shl shl Shl,
            Shr shr Shr, BitAnd bitand BitAnd, BitOr bitor BitOr, BitXor bitxor BitXor);
    };
    (@each $gen:tt $ty:ty, $rhs:ty, $method:ident, $($tr:ident $f:ident $op:ident),*) => {
        $(impl_operators!(@one $gen $ty, $rhs, $method, $tr $f $op);)*
    };
    (@one [$($g:tt)*] $ty:ty, $rhs:ty, $method:ident, $tr:ident $f:ident $op:ident) => {
        impl<$($g)*> core::ops::$tr<$rhs> for $ty {
            type Output = $ty;
            fn $f(self, o: $rhs) -> $ty {
                self.$method(BinaryOp::$op, o)
            }
        }
    };
}
pub(crate) use impl_operators;

impl<'a, const N: usize> Sym<'a, N> {
    fn operator(self, op: BinaryOp, o: impl IntoSym<'a, N>) -> Self {
        self.build(op, o.into_sym(self.arena))
    }
}

impl_operators!(['a, const N: usize] Sym<'a, N>, Sym<'a, N>, operator);
impl_operators!(['a, const N: usize] Sym<'a, N>, isize, operator);

impl<const N: usize> IndexValue for Sym<'_, N> {
    fn constant(&self, v: isize) -> Self {
        self.arena.constant(v)
    }
    fn apply(self, op: BinaryOp, o: Self) -> Option<Self> {
        self.fold(op, o)
    }
    fn select(self, t: Self, f: Self) -> Self {
        Sym::select(self, t, f)
    }
    fn as_const(&self) -> Option<isize> {
        self.as_const_value()
    }
    fn runtime(&self, name: Name) -> Option<Self> {
        Some(self.arena.var(name))
    }
}

/// An expression printed as Rust or C (see [`Sym::rust`], [`Sym::c`]).
pub struct Printed<'a, const N: usize = MAX_EXPR_NODES> {
    sym: Sym<'a, N>,
    c: bool,
}

impl<const N: usize> fmt::Display for Printed<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, self.sym, 0, self.boolean(self.sym))
    }
}

/// Binding strength of what is always safe as an operand (atoms, method calls in Rust).
const ATOM: u8 = 13;

impl<const N: usize> Printed<'_, N> {
    fn boolean(&self, s: Sym<'_, N>) -> bool {
        matches!(s.arena.node(s.id), Node::Bin(op, ..) if op.is_boolean())
    }

    /// How tightly `s` binds as printed.
    fn precedence(&self, s: Sym<'_, N>) -> u8 {
        match s.arena.node(s.id) {
            Node::Const(v) if v < 0 => 12,
            Node::Const(_) | Node::Var(_) => ATOM,
            Node::Bin(BinaryOp::Div | BinaryOp::Rem, ..) if !self.c => ATOM,
            Node::Bin(op, ..) => op.precedence(self.c),
            // C's `?:` binds loosest of all; Rust's `if` is parenthesized inside any operator.
            Node::Select(..) => u8::from(self.c),
        }
    }

    /// Write `s` in parentheses if it binds less tightly than `min`; `want_bool`: the context
    /// needs a truth value (Rust converts between `bool` and `isize` explicitly).
    fn write(&self, f: &mut fmt::Formatter<'_>, s: Sym<'_, N>, min: u8, want_bool: bool) -> fmt::Result {
        let is_bool = self.boolean(s);
        if !self.c && is_bool != want_bool {
            return if want_bool {
                f.write_str("(")?;
                self.write(f, s, BinaryOp::Ne.precedence(false) + 1, false)?;
                f.write_str(" != 0)")
            } else {
                f.write_str("isize::from(")?;
                self.write(f, s, 0, true)?;
                f.write_str(")")
            };
        }
        let open = self.precedence(s) < min;
        if open {
            f.write_str("(")?;
        }
        match s.arena.node(s.id) {
            Node::Const(v) => write!(f, "{v}")?,
            Node::Var(n) => f.write_str(n.as_str())?,
            Node::Bin(op @ (BinaryOp::Div | BinaryOp::Rem), a, b) if !self.c => {
                self.write(f, s.at(a), ATOM, false)?;
                f.write_str(if op == BinaryOp::Div { ".div_euclid(" } else { ".rem_euclid(" })?;
                self.write(f, s.at(b), 0, false)?;
                f.write_str(")")?;
            }
            Node::Bin(op, a, b) => {
                let p = op.precedence(self.c);
                // Operands of `&&`, `||` are truth values; of the others, integers (C compares
                // anything; Rust compares integers).
                let logical = matches!(op, BinaryOp::And | BinaryOp::Or);
                // Shifts and bit operations take parenthesized operands unless chained (what C
                // compilers' -Wparentheses asks for: `(a + b) << 1`, not `a + b << 1`).
                let bitwise = matches!(
                    op,
                    BinaryOp::Shl | BinaryOp::Shr | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor
                );
                let chained = |x: u16| matches!(s.arena.node(x), Node::Bin(child, ..) if child == op && op.associative());
                let operand = |x: u16, min: u8| {
                    if bitwise && !chained(x) && matches!(s.arena.node(x), Node::Bin(..)) {
                        ATOM
                    } else {
                        min
                    }
                };
                let right_min = operand(b, if chained(b) { p } else { p + 1 });
                // Rust's comparisons do not chain: both sides bind tighter.
                let left_min = operand(a, if !self.c && op.is_boolean() && !logical { p + 1 } else { p });
                self.write(f, s.at(a), left_min, logical)?;
                f.write_str(op.symbol())?;
                self.write(f, s.at(b), right_min, logical)?;
            }
            Node::Select(c, t, e) if self.c => {
                self.write(f, s.at(c), 2, true)?;
                f.write_str(" ? ")?;
                self.write(f, s.at(t), 1, false)?;
                f.write_str(" : ")?;
                self.write(f, s.at(e), 1, false)?;
            }
            Node::Select(c, t, e) => {
                f.write_str("if ")?;
                self.write(f, s.at(c), 0, true)?;
                f.write_str(" { ")?;
                self.write(f, s.at(t), 0, false)?;
                f.write_str(" } else { ")?;
                self.write(f, s.at(e), 0, false)?;
                f.write_str(" }")?;
            }
        }
        if open {
            f.write_str(")")?;
        }
        Ok(())
    }
}
