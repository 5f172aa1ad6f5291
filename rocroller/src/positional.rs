//! Expressions of an edge's inputs by position (rocRoller's `PositionalArgument` expressions):
//! the condition of a `PiecewiseAffineJoin`. Stored inline (a fixed postfix program, no heap) so
//! that an edge stays a plain value, and evaluated with any [`IndexValue`]: integers decide it,
//! symbolic inputs turn it into an expression (a `Conditional` in the emitted index).

use super::expr::{BinaryOp, IndexValue, comparisons, impl_operators};
use core::fmt;

/// The most steps (arguments, constants, operations) a [`Positional`] holds.
pub const MAX_POSITIONAL_STEPS: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    Arg(u8),
    Const(isize),
    Bin(BinaryOp),
}

/// An expression of an edge's inputs by position: `Positional::arg(0).lt(4).and(Positional::arg(1).ge(2))`.
/// The operators `+ - * / % << >> & | ^` take another `Positional` or an `isize`. It prints as C
/// with inputs `$0`, `$1`, ..., and reads back from that text (`FromStr`) to the same steps.
///
/// ```
/// use const_layout::rocroller::{Arena, Positional};
/// let p = (Positional::arg(0) % 8).lt(4).and(Positional::arg(1).not_equal(0));
/// assert_eq!(p.to_string(), "$0 % 8 < 4 && $1 != 0");
/// assert_eq!(p.to_string().parse::<Positional>(), Ok(p));
/// assert_eq!(p.eval(&[3isize, 1]), Ok(1));
/// assert_eq!(p.eval(&[5isize, 1]), Ok(0));
/// let a = Arena::new();
/// let e = p.eval(&[a.var("wg"), a.constant(1)]).unwrap();
/// assert_eq!(e.c().to_string(), "wg % 8 < 4");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Positional {
    steps: [Step; MAX_POSITIONAL_STEPS],
    len: u8,
    /// Set when a combination did not fit: the expression is then refused where it is used.
    too_long: bool,
}

impl Positional {
    /// Input `k` of the edge.
    pub const fn arg(k: u8) -> Self {
        Self::one(Step::Arg(k))
    }

    /// A constant.
    pub const fn constant(v: isize) -> Self {
        Self::one(Step::Const(v))
    }

    const fn one(s: Step) -> Self {
        let mut steps = [Step::Const(0); MAX_POSITIONAL_STEPS];
        steps[0] = s;
        Positional { steps, len: 1, too_long: false }
    }

    /// The expression of a postfix program (the text parser's), if it is one: one value left,
    /// every operation after its two operands, at most [`MAX_POSITIONAL_STEPS`] steps.
    pub(super) fn from_steps(program: &[Step]) -> Option<Self> {
        let mut steps = [Step::Const(0); MAX_POSITIONAL_STEPS];
        steps.get_mut(..program.len())?.copy_from_slice(program);
        let p = Positional { steps, len: program.len() as u8, too_long: false };
        p.starts().map(|_| p)
    }

    /// For each step, where the subexpression it ends starts; `None` if the program is malformed.
    fn starts(&self) -> Option<[u8; MAX_POSITIONAL_STEPS]> {
        let mut start = [0u8; MAX_POSITIONAL_STEPS];
        let steps = self.steps.get(..self.len as usize)?;
        // Subexpressions on the stack, as the index of their last step.
        let mut stack = [0usize; MAX_POSITIONAL_STEPS];
        let mut top = 0usize;
        for (i, s) in steps.iter().enumerate() {
            start[i] = match s {
                Step::Arg(_) | Step::Const(_) => i as u8,
                Step::Bin(_) => {
                    top = top.checked_sub(2)?;
                    start[stack[top]]
                }
            };
            stack[top] = i;
            top += 1;
        }
        (top == 1).then_some(start)
    }

    /// Write step `i`'s subexpression, parenthesized where it binds looser than `min`.
    fn write_step(
        &self,
        f: &mut fmt::Formatter<'_>,
        start: &[u8; MAX_POSITIONAL_STEPS],
        i: usize,
    ) -> fmt::Result {
        let Step::Bin(op) = self.steps[i] else {
            return match self.steps[i] {
                Step::Arg(k) => write!(f, "${k}"),
                // A negative literal reads back as one (`$0 * -5`): the parser takes `-` before
                // a digit where an operand is due as the literal's sign.
                Step::Const(v) => write!(f, "{v}"),
                Step::Bin(_) => Ok(()),
            };
        };
        let right = i - 1;
        let left = start[right] as usize - 1;
        let p = op.precedence(true);
        let binds = |k: usize| match self.steps[k] {
            Step::Bin(o) => o.precedence(true),
            _ => u8::MAX,
        };
        // Parentheses a C reader expects though precedence does not need them (what compilers'
        // -Wparentheses asks for): a bit operation's operand that is another operation, and
        // `&&` inside `||`.
        let clarify = |k: usize| match self.steps[k] {
            Step::Bin(o) => {
                let bitwise = matches!(
                    op,
                    BinaryOp::Shl | BinaryOp::Shr | BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor
                );
                (bitwise && o != op) || (op == BinaryOp::Or && o == BinaryOp::And)
            }
            _ => false,
        };
        // Operations group to the left: a right operand of the same precedence needs parentheses.
        for (k, open) in
            [(left, binds(left) < p || clarify(left)), (right, binds(right) <= p || clarify(right))]
        {
            if open {
                f.write_str("(")?;
            }
            self.write_step(f, start, k)?;
            if open {
                f.write_str(")")?;
            }
            if k == left {
                f.write_str(op.symbol())?;
            }
        }
        Ok(())
    }

    /// `self op o`.
    pub fn combine(self, op: BinaryOp, o: impl Into<Positional>) -> Self {
        let o = o.into();
        let (a, b) = (self.len as usize, o.len as usize);
        let mut r = self;
        if self.too_long || o.too_long || a + b + 1 > MAX_POSITIONAL_STEPS {
            r.too_long = true;
            return r;
        }
        r.steps[a..a + b].copy_from_slice(&o.steps[..b]);
        r.steps[a + b] = Step::Bin(op);
        r.len = (a + b + 1) as u8;
        r
    }

    comparisons!(impl Into<Positional>, combine);

    /// Whether it fits in [`MAX_POSITIONAL_STEPS`] steps.
    pub const fn is_complete(&self) -> bool {
        !self.too_long
    }

    /// The highest input position it reads.
    pub fn max_arg(&self) -> Option<u8> {
        self.steps[..self.len as usize]
            .iter()
            .filter_map(|s| match s {
                Step::Arg(k) => Some(*k),
                _ => None,
            })
            .max()
    }

    /// Its value at `args` (integers, or symbolic expressions); an error saying why there is none
    /// (an input it reads is missing, an operation overflows, it did not fit).
    pub fn eval<V: IndexValue>(&self, args: &[V]) -> Result<V, &'static str> {
        if self.too_long {
            return Err("its condition has more than 16 steps");
        }
        let mut stack: [Option<V>; MAX_POSITIONAL_STEPS] = [None; MAX_POSITIONAL_STEPS];
        let mut top = 0;
        for s in &self.steps[..self.len as usize] {
            let v = match *s {
                Step::Arg(k) => {
                    *args.get(k as usize).ok_or("its condition reads an input the edge does not have")?
                }
                Step::Const(c) => match args.first() {
                    Some(a) => a.constant(c),
                    None => return Err("its condition reads an input the edge does not have"),
                },
                Step::Bin(op) => {
                    // Well formed by construction: every operation follows its two operands.
                    let (Some(a), Some(b)) = (stack[top - 2], stack[top - 1]) else {
                        return Err("its condition is malformed");
                    };
                    top -= 2;
                    a.apply(op, b)
                        .ok_or("its condition has no integer value (overflow or division by zero)")?
                }
            };
            stack[top] = Some(v);
            top += 1;
        }
        stack[0].filter(|_| top == 1).ok_or("its condition is malformed")
    }
}

impl From<isize> for Positional {
    fn from(v: isize) -> Self {
        Positional::constant(v)
    }
}

impl_operators!([] Positional, Positional, combine);
impl_operators!([] Positional, isize, combine);

/// Printed as C, inputs as `$0`, `$1`, ..., step by step (nothing folded: `$0 + 0` stays), so
/// that the text reads back to the same steps; parentheses where C's precedence needs them and
/// where a C reader expects them (`($0 & 1) << 2`). One that did not fit prints as
/// `<its condition has more than 16 steps>`.
///
/// ```
/// use const_layout::rocroller::Positional;
/// let p = (Positional::arg(0) - (Positional::arg(1) - 1)) * -5;
/// assert_eq!(p.to_string(), "($0 - ($1 - 1)) * -5");
/// assert_eq!(((Positional::arg(0) + 1) & 3).to_string(), "($0 + 1) & 3");
/// ```
impl fmt::Display for Positional {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.too_long {
            return f.write_str("<its condition has more than 16 steps>");
        }
        match self.starts() {
            Some(start) => self.write_step(f, &start, self.len as usize - 1),
            None => f.write_str("<its condition is malformed>"),
        }
    }
}
