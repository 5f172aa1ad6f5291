//! The graph's symbolic expressions printed as C and as Rust, read back by a small parser that
//! knows each language's precedences and, for Rust, its types (a truth value is a `bool`, an
//! index an `isize`): what the printer writes must mean what the expression means. Random
//! expressions over every operation, conditionals included, and their fast-arithmetic rewrites.

use const_layout::rocroller::{Arena, BinaryOp, IndexValue, Positional, Sym};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// An expression tree to build as a `Sym` (and as a `Positional`).
#[derive(Clone, Debug)]
enum Tree {
    Var(usize),
    Const(isize),
    Bin(BinaryOp, Box<Tree>, Box<Tree>),
    Select(Box<Tree>, Box<Tree>, Box<Tree>),
}

const NAMES: [&str; 3] = ["i", "j", "k"];

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![(0usize..3).prop_map(Tree::Var), (-3isize..9).prop_map(Tree::Const)];
    leaf.prop_recursive(5, 24, 3, |inner| {
        prop_oneof![
            4 => (0usize..BinaryOp::ALL.len(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| Tree::Bin(BinaryOp::ALL[o], Box::new(a), Box::new(b))),
            1 => (inner.clone(), inner.clone(), inner).prop_map(|(c, t, f)| Tree::Select(Box::new(c), Box::new(t), Box::new(f))),
        ]
    })
}

fn build<'a>(t: &Tree, a: &'a Arena) -> Sym<'a> {
    match t {
        Tree::Var(k) => a.var(NAMES[*k]),
        Tree::Const(v) => a.constant(*v),
        // Folding may refuse (a constant division by zero): keep the operation unfolded then, as
        // the operators do.
        Tree::Bin(op, x, y) => {
            let (x, y) = (build(x, a), build(y, a));
            x.apply(*op, y).unwrap_or_else(|| match op {
                BinaryOp::Div => x / y,
                _ => x % y,
            })
        }
        Tree::Select(c, x, y) => build(c, a).select(build(x, a), build(y, a)),
    }
}

/// The value at the variables, with the library's semantics (Euclidean division, 1/0 truth).
fn value(t: &Tree, vars: &[isize; 3]) -> Option<isize> {
    match t {
        Tree::Var(k) => Some(vars[*k]),
        Tree::Const(v) => Some(*v),
        Tree::Bin(op, x, y) => op.apply(value(x, vars)?, value(y, vars)?),
        Tree::Select(c, x, y) => {
            if value(c, vars)? != 0 {
                value(x, vars)
            } else {
                value(y, vars)
            }
        }
    }
}

/// A value read back from printed source: an integer, or (in Rust) a `bool`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    Int(isize),
    Bool(bool),
}

struct Parser<'s> {
    s: &'s str,
    rust: bool,
    vars: [isize; 3],
}

type R = Result<Option<V>, String>;

impl Parser<'_> {
    fn skip(&mut self) {
        self.s = self.s.trim_start();
    }
    fn eat(&mut self, tok: &str) -> bool {
        self.skip();
        if self.s.starts_with(tok) {
            self.s = &self.s[tok.len()..];
            true
        } else {
            false
        }
    }
    fn expect(&mut self, tok: &str) -> Result<(), String> {
        if self.eat(tok) { Ok(()) } else { Err(format!("expected `{tok}` at `{}`", self.s)) }
    }
    fn int(&self, v: Option<V>) -> Result<Option<isize>, String> {
        match v {
            None => Ok(None),
            Some(V::Int(i)) => Ok(Some(i)),
            Some(V::Bool(b)) if !self.rust => Ok(Some(b as isize)),
            Some(V::Bool(_)) => Err("a bool where Rust needs an integer".into()),
        }
    }
    fn truth(&self, v: Option<V>) -> Result<Option<bool>, String> {
        match v {
            None => Ok(None),
            Some(V::Bool(b)) => Ok(Some(b)),
            Some(V::Int(i)) if !self.rust => Ok(Some(i != 0)),
            Some(V::Int(_)) => Err("an integer where Rust needs a bool".into()),
        }
    }
    fn bool(&self, b: bool) -> V {
        if self.rust { V::Bool(b) } else { V::Int(b as isize) }
    }

    /// The binary operators, longest first, with their precedence in this language.
    fn infix(&self) -> Vec<(&'static str, BinaryOp, u8)> {
        let (cmp, eq, band, bxor, bor) = if self.rust { (5, 5, 8, 7, 6) } else { (8, 7, 6, 5, 4) };
        vec![
            ("<<", BinaryOp::Shl, 9),
            (">>", BinaryOp::Shr, 9),
            ("<=", BinaryOp::Le, cmp),
            (">=", BinaryOp::Ge, cmp),
            ("==", BinaryOp::Eq, eq),
            ("!=", BinaryOp::Ne, eq),
            ("&&", BinaryOp::And, 3),
            ("||", BinaryOp::Or, 2),
            ("*", BinaryOp::Mul, 11),
            ("/", BinaryOp::Div, 11),
            ("%", BinaryOp::Rem, 11),
            ("+", BinaryOp::Add, 10),
            ("-", BinaryOp::Sub, 10),
            ("<", BinaryOp::Lt, cmp),
            (">", BinaryOp::Gt, cmp),
            ("&", BinaryOp::BitAnd, band),
            ("^", BinaryOp::BitXor, bxor),
            ("|", BinaryOp::BitOr, bor),
        ]
    }

    fn expr(&mut self, min: u8) -> R {
        let mut left = self.prefix()?;
        loop {
            self.skip();
            if self.rust && (self.s.starts_with(".div_euclid(") || self.s.starts_with(".rem_euclid(")) {
                let op = if self.eat(".div_euclid(") {
                    BinaryOp::Div
                } else {
                    self.expect(".rem_euclid(")?;
                    BinaryOp::Rem
                };
                let r = self.expr(0)?;
                self.expect(")")?;
                left = self.arith(op, left, r)?;
                continue;
            }
            if !self.rust && min <= 1 && self.s.starts_with('?') {
                self.expect("?")?;
                let t = self.expr(0)?;
                self.expect(":")?;
                let f = self.expr(1)?;
                left = match self.truth(left)? {
                    None => None,
                    Some(c) => {
                        if c {
                            t
                        } else {
                            f
                        }
                    }
                };
                continue;
            }
            let Some((tok, op, p)) = self.infix().into_iter().find(|(t, ..)| self.s.starts_with(t)) else {
                break;
            };
            if p < min {
                break;
            }
            self.s = &self.s[tok.len()..];
            let right = self.expr(p + 1)?;
            left = self.arith(op, left, right)?;
        }
        Ok(left)
    }

    fn arith(&self, op: BinaryOp, a: Option<V>, b: Option<V>) -> R {
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            let (a, b) = (self.truth(a)?, self.truth(b)?);
            return Ok(a.zip(b).map(|(a, b)| self.bool(if op == BinaryOp::And { a && b } else { a || b })));
        }
        let (a, b) = (self.int(a)?, self.int(b)?);
        Ok(a.zip(b)
            .and_then(|(a, b)| op.apply(a, b))
            .map(|v| if op.is_boolean() { self.bool(v != 0) } else { V::Int(v) }))
    }

    fn prefix(&mut self) -> R {
        self.skip();
        if self.eat("(") {
            let v = self.expr(0)?;
            self.expect(")")?;
            return Ok(v);
        }
        if self.eat("-") {
            let v = self.prefix()?;
            let v = self.int(v)?;
            return Ok(v.and_then(|v| v.checked_neg()).map(V::Int));
        }
        if self.rust && self.eat("isize::from(") {
            let v = self.expr(0)?;
            let v = self.truth(v)?;
            self.expect(")")?;
            return Ok(v.map(|b| V::Int(b as isize)));
        }
        if self.rust && self.eat("if ") {
            let c = self.expr(0)?;
            let c = self.truth(c)?;
            self.expect("{")?;
            let t = self.expr(0)?;
            self.expect("}")?;
            self.expect("else")?;
            self.expect("{")?;
            let f = self.expr(0)?;
            self.expect("}")?;
            // Both branches must have one type.
            if matches!((t, f), (Some(V::Int(_)), Some(V::Bool(_))) | (Some(V::Bool(_)), Some(V::Int(_)))) {
                return Err("if branches of different types".into());
            }
            return Ok(c.and_then(|c| if c { t } else { f }));
        }
        let digits = self.s.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 {
            let v = self.s[..digits].parse().map_err(|e| format!("{e}"))?;
            self.s = &self.s[digits..];
            return Ok(Some(V::Int(v)));
        }
        for (k, n) in NAMES.iter().enumerate() {
            if self.eat(n) {
                return Ok(Some(V::Int(self.vars[k])));
            }
        }
        Err(format!("unexpected `{}`", self.s))
    }
}

/// The printed expression's value as the language reads it.
fn read(src: &str, rust: bool, vars: [isize; 3]) -> Result<Option<isize>, String> {
    let mut p = Parser { s: src, rust, vars };
    let v = p.expr(0)?;
    p.skip();
    if !p.s.is_empty() {
        return Err(format!("left over: `{}`", p.s));
    }
    Ok(v.map(|v| match v {
        V::Int(i) => i,
        V::Bool(b) => b as isize,
    }))
}

proptest! {
    #![proptest_config(Config { cases: 2000, rng_seed: RngSeed::Fixed(0xe4), failure_persistence: None, ..Config::default() })]

    #[test]
    fn printed_c_and_rust_mean_the_expression(t in tree(), i in 0isize..12, j in -4isize..12, k in 1isize..40) {
        let vars = [i, j, k];
        let arena = Arena::new();
        let e = build(&t, &arena);
        prop_assume!(!arena.overflowed());
        let expected = value(&t, &vars);
        let at = |n: &str| vars[NAMES.iter().position(|m| *m == n).unwrap()];
        // Folding while building changes no value (it may drop an undefined operand: `0 * (x / 0)`).
        if expected.is_some() {
            prop_assert_eq!(e.eval(&at), expected);
        }
        for f in [e, e.fast_arithmetic()] {
            // Where the value exists, fast arithmetic keeps it (division by zero may fold away).
            if let (Some(x), Some(y)) = (f.eval(&at), expected) {
                prop_assert_eq!(x, y, "{}", f.c());
            }
            let (c, r) = (f.c().to_string(), f.rust().to_string());
            let (vc, vr) = (read(&c, false, vars), read(&r, true, vars));
            prop_assert!(vc.is_ok(), "C `{}`: {:?}", c, vc);
            prop_assert!(vr.is_ok(), "Rust `{}`: {:?}", r, vr);
            prop_assert_eq!(vc.unwrap(), f.eval(&at), "C `{}`", c);
            // Rust's truth values are bools: a top-level comparison reads as 1 or 0.
            prop_assert_eq!(vr.unwrap(), f.eval(&at), "Rust `{}`", r);
        }
    }

    /// A condition by position (a `PiecewiseAffineJoin`'s) gives the same value on integers and,
    /// symbolically, on variables then evaluated.
    #[test]
    fn positional_conditions(t in tree(), i in 0isize..12, j in -4isize..12, k in 1isize..40) {
        fn positional(t: &Tree) -> Option<Positional> {
            Some(match t {
                Tree::Var(k) => Positional::arg(*k as u8),
                Tree::Const(v) => Positional::constant(*v),
                Tree::Bin(op, x, y) => positional(x)?.combine(*op, positional(y)?),
                Tree::Select(..) => return None,
            })
        }
        let Some(p) = positional(&t) else { return Ok(()) };
        prop_assume!(p.is_complete());
        let vars = [i, j, k];
        let ints = p.eval(&vars).ok();
        prop_assert_eq!(ints, value(&t, &vars));
        let arena = Arena::new();
        let syms = [arena.var("i"), arena.var("j"), arena.var("k")];
        if let Ok(e) = p.eval(&syms) {
            let at = |n: &str| vars[NAMES.iter().position(|m| *m == n).unwrap()];
            if let (Some(x), Some(y)) = (e.eval(&at), ints) {
                prop_assert_eq!(x, y);
            }
        }
    }
}
