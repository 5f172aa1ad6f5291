//! Evaluating CuTe expressions written as text: `crd2idx((1,(1,2)), (4,(2,3)):(3,(1,8)))`.
//!
//! This is what the `layout eval` command runs. An expression is a literal (an integer, an int tuple
//! or a layout `shape:stride`) or a call of a CuTe function by its name; calls nest. Results keep
//! CuTe's static flags, so they print as CuTe prints them.

use crate::algebra::tiler::TilerBuilder;
use crate::algebra::{LayoutPartition, Slicer, TileMode, Tiler};
use crate::dyn_layout::DynLayout;
use crate::dyn_layout::int_tuple::{DynInt, DynIntTuple};
use crate::dyn_layout::ops::{self, Division};
use crate::f2::linear::LinearLayout;
use crate::swizzle::{ComposedLayout, Outer, Swizzle};

mod algebra;
mod linear;
mod table;
use crate::error::LayoutError;
use crate::text::{ParseError, Parser};
use core::fmt;
pub use table::{Arg, OPERATIONS, Op, Operation, apply_layout_op};

/// The value of an expression.
///
/// ```
/// use const_layout::eval::{eval, Value};
/// assert!(matches!(eval("size((4,(2,3)))").unwrap(), Value::Int(v) if v.value == 24));
/// assert_eq!(eval("idx2crd(13, (4,(2,3)))").unwrap().to_string(), "(1,(1,1))");
/// ```
// A `Layout` is hundreds of bytes and an `Int` 16; without a heap (`no_std`) boxing is not an option,
// and a value is made once per call of an expression, so the size is harmless.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// An integer.
    Int(DynInt),
    /// A tuple (an int tuple that is not a single integer).
    Tuple(DynIntTuple),
    /// A layout.
    Layout(DynLayout),
    /// A truth value (`congruent`, `compatible`, ...).
    Bool(bool),
    /// `LayoutLeft` (`true`) or `LayoutRight` (`false`), as an argument of `make_layout`.
    Major(bool),
    /// A by-mode tiler, `<3:3, (2,4):(1,8)>` (or `(3:3,(2,4):(1,8))`, as CuTe prints a `Tile`).
    Tiler(Tiler),
    /// A swizzle, `Sw<3,4,3>`.
    Swizzle(Swizzle),
    /// A composed layout, `Sw<3,4,3> o _0 o (8,8):(8,1)`.
    Composed(ComposedLayout),
    /// A slice of a layout (`local_tile`, `local_partition`): its layout and the offset of its
    /// origin, printed `offset + layout`.
    Partition(LayoutPartition),
    /// A slice of a composed layout that stays composed: the offset taken out and the composed
    /// layout, printed `offset + composed`.
    ComposedPartition(ComposedLayout, DynInt),
    /// `make_layout_tv`'s result: the tile shape and the `(thread, value)` layout, printed
    /// `tiler, layout`.
    LayoutTv(DynIntTuple, DynLayout),
    /// A coordinate with `_` in it, `(_,2)`: the first argument of `slice`.
    Slicer(Slicer),
    /// A linear layout over F2, printed `linear((b0,b1,...),out_bits)`: input bit `i` to `b_i`
    /// (eight bases a tuple: `linear((b0,..,b7),(b8,..),out_bits)`).
    Linear(LinearLayout),
}

impl fmt::Display for Value {
    /// CuTe notation (`_1`/`_0` for truth values, as CuTe prints `true_type`/`false_type`... but
    /// here as `true`/`false` for readability).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Tuple(t) => write!(f, "{t}"),
            Value::Layout(l) => write!(f, "{l}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Major(true) => f.write_str("LayoutLeft"),
            Value::Major(false) => f.write_str("LayoutRight"),
            Value::Tiler(t) => write!(f, "{t}"),
            Value::Swizzle(s) => write!(f, "{s}"),
            Value::Composed(c) => write!(f, "{c}"),
            Value::Partition(p) => write!(f, "{} + {}", p.origin_value(), p.layout),
            Value::LayoutTv(t, l) => write!(f, "{t}, {l}"),
            Value::ComposedPartition(k, o) => write!(f, "{o} + {k}"),
            Value::Slicer(s) => write!(f, "{s}"),
            Value::Linear(l) => write!(f, "{l}"),
        }
    }
}

const NAME_CAP: usize = 32;

/// Why an expression could not be evaluated. Every variant says where (1-based column).
///
/// ```
/// use const_layout::eval::eval;
/// assert_eq!(eval("size()").unwrap_err().to_string(), "column 1: `size` takes 1 argument, got 0");
/// assert_eq!(
///     eval("crd2idx((1,2,3), (4,(2,3)):(3,(1,8)))").unwrap_err().to_string(),
///     "column 1: the coordinate has rank 3 but the shape has rank 2"
/// );
/// assert_eq!(eval("frobnicate(1)").unwrap_err().to_string(), "column 1: unknown function `frobnicate`");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// The text is not a well-formed expression.
    Parse(ParseError),
    /// A function name that is not known.
    UnknownFunction {
        /// Column of the name.
        column: usize,
        /// The name (truncated to 32 bytes).
        name: [u8; NAME_CAP],
        /// Its length in `name`.
        len: usize,
    },
    /// A call with the wrong number of arguments.
    Arity {
        /// Column of the call.
        column: usize,
        /// The function.
        function: &'static str,
        /// What it takes, in words ("1", "2 or 3").
        expected: &'static str,
        /// What it got.
        got: usize,
    },
    /// An argument of the wrong kind.
    Argument {
        /// Column of the argument.
        column: usize,
        /// The function.
        function: &'static str,
        /// Which argument (1-based).
        index: usize,
        /// What it must be.
        expected: &'static str,
    },
    /// A value where it cannot stand (a layout as a mode of a tuple).
    Misplaced {
        /// Column of the value.
        column: usize,
        /// Why, in words.
        what: &'static str,
    },
    /// The arguments are well-formed but the operation fails (for example a coordinate whose rank
    /// does not match the layout).
    Layout {
        /// Column of the call.
        column: usize,
        /// Why.
        error: LayoutError,
    },
    /// The text is longer than [`MAX_EXPRESSION_LEN`] bytes.
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
}

/// The longest expression [`eval`] reads, in bytes. Everything the evaluator prints is far
/// shorter (a layout holds at most 2 x 64 integers); the bound keeps the time of one call
/// bounded, since every call in the text is evaluated.
///
/// ```
/// use const_layout::eval::{eval, MAX_EXPRESSION_LEN};
/// let long = "1".repeat(MAX_EXPRESSION_LEN + 1);
/// assert_eq!(eval(&long).unwrap_err().to_string(), "the expression is 16385 bytes long; at most 16384 are read");
/// ```
pub const MAX_EXPRESSION_LEN: usize = 16 * 1024;

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Parse(e) => write!(f, "{e}"),
            EvalError::UnknownFunction { column, name, len } => {
                let name = core::str::from_utf8(&name[..*len]).unwrap_or("?");
                write!(f, "column {column}: unknown function `{name}`")
            }
            EvalError::Arity { column, function, expected, got } => {
                let s = if *expected == "1" { "" } else { "s" };
                write!(f, "column {column}: `{function}` takes {expected} argument{s}, got {got}")
            }
            EvalError::Argument { column, function, index, expected } => {
                write!(f, "column {column}: argument {index} of `{function}` must be {expected}")
            }
            EvalError::Misplaced { column, what } => write!(f, "column {column}: {what}"),
            EvalError::Layout { column, error } => write!(f, "column {column}: {error}"),
            EvalError::TooLong { len } => {
                write!(f, "the expression is {len} bytes long; at most {MAX_EXPRESSION_LEN} are read")
            }
        }
    }
}

impl core::error::Error for EvalError {}

impl From<ParseError> for EvalError {
    fn from(e: ParseError) -> Self {
        EvalError::Parse(e)
    }
}

/// Evaluate an expression; see [`dyn_layout`](crate::dyn_layout) and [`OPERATIONS`] for what is known.
///
/// Values live on the stack (no heap). Calls, and tuples holding expressions, nest at most
/// [`MAX_NESTING`](crate::text::MAX_NESTING) (16) deep (deeper text is an error naming the
/// limit); at that depth, with the functions of the deepest frames innermost, a build optimized or
/// not uses less than 512 KiB of stack (measured; `tests/fuzz_parser.rs` runs it on a 512 KiB
/// thread): a thread's default 2 MiB is four times enough. Text is at most
/// [`MAX_EXPRESSION_LEN`] bytes.
///
/// ```
/// use const_layout::eval::eval;
/// assert_eq!(eval("crd2idx((1,(1,2)), (4,(2,3)):(3,(1,8)))").unwrap().to_string(), "20");
/// assert_eq!(eval("(8,(4,2)):(1,8)").unwrap().to_string(), "(8,(4,2)):(1,(8,32))");
/// assert_eq!(eval("cosize((_4,_2):(_2,_1))").unwrap().to_string(), "_8");
/// assert_eq!(eval("make_layout((_4,_8), LayoutRight)").unwrap().to_string(), "(_4,_8):(_8,_1)");
/// ```
pub fn eval(text: &str) -> Result<Value, EvalError> {
    if text.len() > MAX_EXPRESSION_LEN {
        return Err(EvalError::TooLong { len: text.len() });
    }
    let mut p = Parser::new(text);
    let mut v = Located::PLACEHOLDER;
    expr(&mut p, &mut v)?;
    // `tile, layout`: how a TV layout (`make_layout_tv`) prints, read back at the top level.
    if p.peek() == Some(',') {
        return layout_tv_tail(&mut p, &v);
    }
    if !p.at_end() {
        return Err(p.error("the end of the expression").into());
    }
    Ok(v.value)
}

/// `tile, layout`, after `tile`.
#[inline(never)]
fn layout_tv_tail(p: &mut Parser<'_>, v: &Located) -> Result<Value, EvalError> {
    p.eat(',');
    let tile = int_tuple_of(v).ok_or(EvalError::Misplaced {
        column: v.column,
        what: "`tile, layout` (a TV layout) needs an int tuple before the comma",
    })?;
    let mut l = Located::PLACEHOLDER;
    expr(p, &mut l)?;
    let Value::Layout(layout) = l.value else {
        return Err(EvalError::Misplaced {
            column: l.column,
            what: "`tile, layout` (a TV layout) needs a layout after the comma",
        });
    };
    if !p.at_end() {
        return Err(p.error("the end of the expression").into());
    }
    Ok(Value::LayoutTv(tile, layout))
}

/// The functions [`eval`] knows, with their argument lists: a view of [`OPERATIONS`], in its
/// order.
///
/// ```
/// use const_layout::eval::{FUNCTIONS, OPERATIONS};
/// assert_eq!(FUNCTIONS.len(), OPERATIONS.len());
/// assert_eq!(FUNCTIONS[0], (OPERATIONS[0].name, OPERATIONS[0].args));
/// ```
pub const FUNCTIONS: &[(&str, &str)] = &{
    let mut view = [("", ""); OPERATIONS.len()];
    let mut i = 0;
    while i < OPERATIONS.len() {
        view[i] = (OPERATIONS[i].name, OPERATIONS[i].args);
        i += 1;
    }
    view
};

#[derive(Clone, Copy)]
struct Located {
    value: Value,
    column: usize,
}

impl Located {
    /// What a slot holds before an expression is evaluated into it.
    const PLACEHOLDER: Located = Located { value: Value::Bool(false), column: 0 };
}

const MAX_ARGS: usize = 8;
const MAX_TARGS: usize = 8;

// The functions of the recursive descent (`expr` down to `call_expr`, which calls `expr` again)
// write their result into `out` rather than return it: a returned `Result<Located, _>` (a
// `Value` and more) and its copies are each a slot of the frame in an unoptimized build, paid at every nesting
// level. What needs values of its own (a tail after `+`, `o` or `:`, a finished call) is a
// separate function, so the frames on the recursive path hold only the values still needed.

/// An expression: a term, a composed layout `outer o offset o inner`, or a partition
/// `offset + layout` (how `slice_and_offset`, `local_tile` and `local_partition` print).
fn expr(p: &mut Parser<'_>, out: &mut Located) -> Result<(), EvalError> {
    composed_expr(p, out)?;
    if p.peek() != Some('+') {
        return Ok(());
    }
    partition_tail(p, out)
}

/// `offset + x`, after the offset (in `out`).
#[inline(never)]
fn partition_tail(p: &mut Parser<'_>, out: &mut Located) -> Result<(), EvalError> {
    p.eat('+');
    let mut second = Located::PLACEHOLDER;
    composed_expr(p, &mut second)?;
    partition_of(out, &second)
}

/// `first + second` into `first`.
#[inline(never)]
fn partition_of(first: &mut Located, second: &Located) -> Result<(), EvalError> {
    let value = match (&first.value, &second.value) {
        (Value::Int(o), Value::Composed(k)) => Value::ComposedPartition(*k, *o),
        (Value::Int(_) | Value::Tuple(_), Value::Layout(l)) => {
            // The origin is an offset, or a coordinate where the layout has basis strides.
            let origin = int_tuple_of(first).unwrap_or(DynIntTuple::EMPTY);
            Value::Partition(LayoutPartition::new(*l, origin))
        }
        (Value::Int(_) | Value::Tuple(_), _) => {
            return Err(EvalError::Misplaced {
                column: second.column,
                what: "`offset + x` needs a layout or a composed layout after `+`",
            });
        }
        _ => {
            return Err(EvalError::Misplaced {
                column: first.column,
                what: "`offset + x` needs an integer or int tuple offset before `+`",
            });
        }
    };
    first.value = value;
    Ok(())
}

/// `outer o offset o inner` (CuTe's `ComposedLayout`, as it prints), or a term.
fn composed_expr(p: &mut Parser<'_>, out: &mut Located) -> Result<(), EvalError> {
    term(p, out)?;
    if !eat_word(p, "o") {
        return Ok(());
    }
    composed_tail(p, out)
}

/// `outer o offset o inner`, after `outer o` (the outer in `out`).
#[inline(never)]
fn composed_tail(p: &mut Parser<'_>, out: &mut Located) -> Result<(), EvalError> {
    let outer_ok = match &out.value {
        Value::Swizzle(_) => true,
        Value::Layout(l) => !l.has_basis(),
        _ => false,
    };
    if !outer_ok {
        return Err(EvalError::Misplaced {
            column: out.column,
            what: "`outer o offset o inner` needs a swizzle `Sw<B,M,S>` or a layout (integer strides) as outer",
        });
    }
    let mut offset = Located::PLACEHOLDER;
    term(p, &mut offset)?;
    if !matches!(offset.value, Value::Int(v) if !v.has_basis()) {
        return Err(EvalError::Misplaced {
            column: offset.column,
            what: "`outer o offset o inner` needs an integer offset",
        });
    }
    if !eat_word(p, "o") {
        return Err(p.error("`o` and the inner layout (`outer o offset o inner`)").into());
    }
    let mut inner = Located::PLACEHOLDER;
    term(p, &mut inner)?;
    composed_of(out, &offset, &inner)
}

/// `outer o offset o inner` into `outer`, whose outer and offset are checked.
#[inline(never)]
fn composed_of(outer: &mut Located, offset: &Located, inner: &Located) -> Result<(), EvalError> {
    let outer_fn = match &outer.value {
        Value::Swizzle(s) => Outer::Swizzle(*s),
        Value::Layout(l) => Outer::Layout(*l),
        _ => return Err(EvalError::Misplaced { column: outer.column, what: "a composed layout's outer" }),
    };
    let Value::Int(offset_value) = offset.value else {
        return Err(EvalError::Misplaced { column: offset.column, what: "a composed layout's offset" });
    };
    let Value::Layout(inner_layout) = &inner.value else {
        return Err(EvalError::Misplaced {
            column: inner.column,
            what: "`outer o offset o inner` needs a layout as inner",
        });
    };
    if inner_layout.has_basis() {
        return Err(EvalError::Layout {
            column: inner.column,
            error: LayoutError::BasisStride { op: "a composed layout" },
        });
    }
    check_reach(offset_value, inner_layout)
        .map_err(|error| EvalError::Layout { column: offset.column, error })?;
    outer.value = Value::Composed(ComposedLayout::with_offset(outer_fn, offset_value, *inner_layout));
    Ok(())
}

/// Every value `offset + inner(i)` of a composed layout fits in `isize`, so its function never
/// wraps (whatever the signs of the strides).
pub(super) fn check_reach(offset: DynInt, inner: &DynLayout) -> Result<(), LayoutError> {
    let reach = inner.cosize().value;
    match offset.value.checked_add(reach).and(offset.value.checked_sub(reach)) {
        Some(_) => Ok(()),
        None => Err(LayoutError::CosizeOverflow),
    }
}

/// Consume the word `w` if it is next and stands alone (not the start of a longer name).
fn eat_word(p: &mut Parser<'_>, w: &str) -> bool {
    p.skip_ws();
    let rest = &p.text[p.pos..];
    let alone = rest
        .strip_prefix(w)
        .is_some_and(|after| !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '<'));
    if alone {
        p.pos += w.len();
    }
    alone
}

/// A primary, or a layout `shape:stride`.
fn term(p: &mut Parser<'_>, out: &mut Located) -> Result<(), EvalError> {
    p.skip_ws();
    let column = p.column();
    primary(p, out)?;
    if !p.eat(':') {
        return Ok(());
    }
    layout_tail(p, out, column)
}

/// `shape:stride`, after `shape:` (the shape in `out`).
#[inline(never)]
fn layout_tail(p: &mut Parser<'_>, out: &mut Located, column: usize) -> Result<(), EvalError> {
    if !matches!(out.value, Value::Int(_) | Value::Tuple(_)) {
        return Err(
            ParseError { column, expected: "an int tuple before `:`", found: None, invalid: None }.into()
        );
    }
    p.skip_ws();
    let mut second = Located::PLACEHOLDER;
    primary(p, &mut second)?;
    layout_of(p, out, &second, column)
}

/// `shape:stride` into `shape`.
#[inline(never)]
fn layout_of(
    p: &mut Parser<'_>,
    shape: &mut Located,
    stride: &Located,
    column: usize,
) -> Result<(), EvalError> {
    let stride = int_tuple_of(stride).ok_or(p.error("an int tuple after `:`"))?;
    let Some(shape_tuple) = int_tuple_of(shape) else {
        return Err(
            ParseError { column, expected: "an int tuple before `:`", found: None, invalid: None }.into()
        );
    };
    let layout = DynLayout::new(shape_tuple, stride).map_err(|error| EvalError::Layout { column, error })?;
    *shape = Located { value: Value::Layout(layout), column };
    Ok(())
}

fn int_tuple_of(v: &Located) -> Option<DynIntTuple> {
    match v.value {
        Value::Int(i) => Some(DynIntTuple::int(i)),
        Value::Tuple(t) => Some(t),
        _ => None,
    }
}

fn tuple_value(t: DynIntTuple) -> Value {
    match t.as_int() {
        Some(i) => Value::Int(i),
        None => Value::Tuple(t),
    }
}

fn primary(p: &mut Parser<'_>, out: &mut Located) -> Result<(), EvalError> {
    p.skip_ws();
    let column = p.column();
    match p.peek() {
        // Each form in its own function: a frame here is paid once per nesting level of the
        // expression, so it must stay small (a call holds its arguments, a tuple its modes).
        Some('(') => tuple_or_literal(p, column, out),
        Some(c) if c.is_ascii_alphabetic() => call_expr(p, column, out),
        _ => leaf(p, column, out),
    }
}

/// `_`, a tiler `<...>` or an integer: no recursion.
#[inline(never)]
fn leaf(p: &mut Parser<'_>, column: usize, out: &mut Located) -> Result<(), EvalError> {
    let value = match p.peek() {
        Some('_') if p.is_underscore() => {
            p.pos += 1;
            Value::Slicer(Slicer::all())
        }
        Some('<') => Value::Tiler(p.tiler()?),
        Some(c) if c == '_' || c == '-' || c.is_ascii_digit() => Value::Int(p.int()?),
        _ => return Err(p.error("an integer, `(` or a function name").into()),
    };
    *out = Located { value, column };
    Ok(())
}

/// A tuple: a literal of integers and `_` needs no recursion (and no nesting limit); a tuple
/// holding expressions is parsed recursively.
#[inline(never)]
fn tuple_or_literal(p: &mut Parser<'_>, column: usize, out: &mut Located) -> Result<(), EvalError> {
    let start = p.pos;
    if literal(p, column, out)? {
        return Ok(());
    }
    p.pos = start;
    tuple_literal(p, column, out)
}

/// A tuple of integers and `_` into `out`; `false` if the text is not one.
#[inline(never)]
fn literal(p: &mut Parser<'_>, column: usize, out: &mut Located) -> Result<bool, EvalError> {
    let value = match p.tuple_nodes(true) {
        Ok((t, keep)) if keep.leaves().all(|k| k.value == 0) => Value::Tuple(t),
        Ok((t, keep)) => {
            Value::Slicer(Slicer::new(t, keep).map_err(|error| EvalError::Layout { column, error })?)
        }
        Err(_) => return Ok(false),
    };
    *out = Located { value, column };
    Ok(true)
}

#[inline(never)]
fn tuple_literal(p: &mut Parser<'_>, column: usize, out: &mut Located) -> Result<(), EvalError> {
    if !p.eat('(') {
        // Refused for depth: the error names the limit.
        return Err(p.error("`(`").into());
    }
    // Coordinates and, congruent with them, where `_` stands (a slicing coordinate).
    let mut coords = DynIntTuple::EMPTY;
    let mut keeps = DynIntTuple::EMPTY;
    let mut modes = 0usize;
    let mut sliced = false;
    // A tuple with a layout among its modes is a by-mode tiler, as CuTe prints a `Tile`:
    // `(_2:_1,_2:_1)` is `<_2:_1, _2:_1>` (its other modes: `_` keeps a mode, a shape `n` is `n:_1`).
    let err = |error| EvalError::Layout { column, error };
    let mut tiles = TilerBuilder::new().map_err(err)?;
    let (mut tiled, mut not_tile) = (false, None);
    if !p.eat(')') {
        loop {
            // The mode is evaluated into `out`, which is written last.
            expr(p, out)?;
            if let Value::Layout(l) = &out.value {
                tiled = true;
                tiles.push(&TileMode::Layout(*l)).map_err(err)?;
            } else {
                sliced |= append_item(&mut coords, &mut keeps, modes, out, column)?;
                match tile_mode_of(&out.value) {
                    Some(m) => tiles.push(&m).map_err(err)?,
                    // Not a tiler's mode: the tuple is a tuple or a slicing coordinate, unless a
                    // layout is among its modes.
                    None => not_tile = not_tile.or(Some(out.column)),
                }
            }
            modes += 1;
            if p.eat(')') {
                break;
            }
            p.expect(',', "`,` or `)`")?;
        }
    }
    if tiled {
        if let Some(bad) = not_tile {
            return Err(not_a_tile_mode(bad));
        }
        *out = Located { value: Value::Tiler(tiles.finish().map_err(err)?), column };
        return Ok(());
    }
    tuple_of(&coords, &keeps, sliced, column, out)
}

/// A tuple's mode as a by-mode tiler's item: `_` keeps the mode, an integer or a tuple of them is
/// a shape; `None` for anything else (a partial slicing coordinate, a tiler).
fn tile_mode_of(v: &Value) -> Option<TileMode> {
    match v {
        Value::Slicer(s) if *s == Slicer::all() => Some(TileMode::Keep),
        Value::Int(n) => Some(TileMode::Shape(DynIntTuple::int(*n))),
        Value::Tuple(t) => Some(TileMode::Shape(*t)),
        _ => None,
    }
}

/// The error of a tuple of layouts (a by-mode tiler) with a mode that is not a tiler's.
fn not_a_tile_mode(column: usize) -> EvalError {
    EvalError::Misplaced {
        column,
        what: "a tuple with a layout among its modes is a by-mode tiler: its modes are layouts, shapes or `_`",
    }
}

/// The tuple, or the slicing coordinate if a mode holds `_`, into `out`.
#[inline(never)]
fn tuple_of(
    coords: &DynIntTuple,
    keeps: &DynIntTuple,
    sliced: bool,
    column: usize,
    out: &mut Located,
) -> Result<(), EvalError> {
    let value = if sliced {
        Value::Slicer(Slicer::new(*coords, *keeps).map_err(|error| EvalError::Layout { column, error })?)
    } else {
        Value::Tuple(*coords)
    };
    *out = Located { value, column };
    Ok(())
}

/// Append `item` as one more mode of the coordinates and keeps; `true` if it is a slicer.
#[inline(never)]
fn append_item(
    coords: &mut DynIntTuple,
    keeps: &mut DynIntTuple,
    modes: usize,
    item: &Located,
    column: usize,
) -> Result<bool, EvalError> {
    let (c, k, sliced) = match &item.value {
        Value::Slicer(s) => {
            let (c, k) = s.parts();
            (c, k, true)
        }
        _ => {
            let m = int_tuple_of(item).ok_or(EvalError::Misplaced {
                column: item.column,
                what: "only integers, int tuples and `_` can be modes of a tuple",
            })?;
            (m, m.map_leaves(|_| DynInt::new_static(0)), false)
        }
    };
    let err = |error| EvalError::Layout { column, error };
    *coords = append_mode(coords, modes, &c).map_err(err)?;
    *keeps = append_mode(keeps, modes, &k).map_err(err)?;
    Ok(sliced)
}

#[inline(never)]
fn call_expr(p: &mut Parser<'_>, column: usize, out: &mut Located) -> Result<(), EvalError> {
    let start = p.pos;
    while matches!(p.text[p.pos..].chars().next(), Some(c) if c.is_ascii_alphanumeric() || c == '_') {
        p.pos += 1;
    }
    let name = &p.text[start..p.pos];
    if keyword(name, column, out) {
        return Ok(());
    }
    let mut targs = [0isize; MAX_TARGS];
    let mut nt = None;
    if p.peek() == Some('<') {
        p.eat('<');
        let mut k = 0usize;
        loop {
            let v = p.int()?;
            let Some(slot) = targs.get_mut(k) else {
                return Err(EvalError::Misplaced {
                    column,
                    what: "a call takes at most 8 template arguments",
                });
            };
            *slot = v.value;
            k += 1;
            if p.eat('>') {
                break;
            }
            p.expect(',', "`,` or `>`")?;
        }
        nt = Some(k.min(MAX_TARGS));
    }
    if name == "Sw" && p.peek() != Some('(') {
        return swizzle_of(&targs[..nt.unwrap_or(0)], column, out);
    }
    if p.peek() != Some('(') {
        // A bare name that is not a keyword: report it where it starts.
        let found = name.chars().next();
        return Err(ParseError {
            column,
            expected: "an integer, `(` or a function call",
            found,
            invalid: None,
        }
        .into());
    }
    p.expect('(', "`(` after a function name")?;
    // The one array of values on the recursive path: the arguments are evaluated in place.
    let mut args = no_args();
    let mut n = 0usize;
    if !p.eat(')') {
        loop {
            // A ninth argument is evaluated into the eighth slot: the call fails either way.
            let slot = fresh(&mut args[n.min(MAX_ARGS - 1)]);
            expr(p, slot)?;
            if n >= MAX_ARGS {
                return Err(EvalError::Misplaced { column, what: "a call takes at most 8 arguments" });
            }
            n += 1;
            if p.eat(')') {
                break;
            }
            p.expect(',', "`,` or `)`")?;
        }
    }
    call_into(name, column, &args, n, (&targs, nt), out)
}

/// An empty argument list, built in place (an array expression in `call_expr` would be a second
/// copy of it in that frame, unoptimized).
#[inline(never)]
fn no_args() -> [Option<Located>; MAX_ARGS] {
    [const { None }; MAX_ARGS]
}

/// `slot`, emptied, to evaluate an argument into (the placeholder is built in this frame, not
/// in the caller's).
#[inline(never)]
fn fresh(slot: &mut Option<Located>) -> &mut Located {
    slot.insert(Located::PLACEHOLDER)
}

/// `LayoutLeft`, `true` and the other names of values into `out`; `false` for other names.
#[inline(never)]
fn keyword(name: &str, column: usize, out: &mut Located) -> bool {
    let value = match name {
        "LayoutLeft" | "GenColMajor" => Value::Major(true),
        "LayoutRight" | "GenRowMajor" => Value::Major(false),
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => return false,
    };
    *out = Located { value, column };
    true
}

/// `Sw<B,M,S>` into `out`.
#[inline(never)]
fn swizzle_of(t: &[isize], column: usize, out: &mut Located) -> Result<(), EvalError> {
    let [b, m, s] = t else {
        return Err(EvalError::Misplaced { column, what: "a swizzle is written `Sw<B,M,S>`" });
    };
    let (b, m, s) = (u32::try_from(*b), u32::try_from(*m), i32::try_from(*s));
    let (Ok(b), Ok(m), Ok(s)) = (b, m, s) else {
        return Err(EvalError::Misplaced { column, what: "a swizzle's B and M must not be negative" });
    };
    let sw = Swizzle::new(b, m, s).map_err(|error| EvalError::Layout { column, error })?;
    *out = Located { value: Value::Swizzle(sw), column };
    Ok(())
}

/// The call's value into `out`.
#[inline(never)]
fn call_into(
    name: &str,
    column: usize,
    args: &[Option<Located>; MAX_ARGS],
    n: usize,
    targs: Targs<'_>,
    out: &mut Located,
) -> Result<(), EvalError> {
    out.value = call(name, column, args, n, targs)?;
    out.column = column;
    Ok(())
}

/// `buf` (a tuple of `modes` modes so far) with `m` appended as one more mode.
fn append_mode(buf: &DynIntTuple, modes: usize, m: &DynIntTuple) -> Result<DynIntTuple, LayoutError> {
    DynIntTuple::from_modes(buf.modes().take(modes).chain(core::iter::once(*m)))
}

/// Template arguments (`select<0,2>`): the values and, if any were written, how many.
type Targs<'a> = (&'a [isize; MAX_TARGS], Option<usize>);

// Out of line: `call_expr`'s frame is paid at every nesting level, this one only once.
#[inline(never)]
fn call(
    name: &str,
    column: usize,
    args: &[Option<Located>; MAX_ARGS],
    n: usize,
    targs: Targs<'_>,
) -> Result<Value, EvalError> {
    let Some(op) = Op::from_name(name) else {
        let mut buf = [0u8; NAME_CAP];
        let len = name.len().min(NAME_CAP);
        buf[..len].copy_from_slice(&name.as_bytes()[..len]);
        return Err(EvalError::UnknownFunction { column, name: buf, len });
    };
    let v = dispatch(&Call { op, function: op.name(), column, args, n, targs })?;
    // What is printed must read back: a composed layout's values fit in `isize`.
    if let Value::Composed(k) | Value::ComposedPartition(k, _) = &v {
        check_reach(k.offset_value(), k.inner()).map_err(|error| EvalError::Layout { column, error })?;
    }
    Ok(v)
}

/// The value of call `c`: swizzles and composed layouts first (they read through or map the
/// inner layout), then the operation's case.
fn dispatch(c: &Call<'_>) -> Result<Value, EvalError> {
    if let Some(v) = linear::with_linear(c)? {
        return Ok(v);
    }
    if let Some(v) = algebra::composed(c)? {
        return Ok(v);
    }
    // Exhaustive: an operation added to the table without a case here does not compile. One call
    // site for every case: in an unoptimized build each arm's call would hold its own result in
    // this frame, and this frame lies under every call of an expression.
    let case: fn(&Call<'_>) -> Result<Value, EvalError> = match c.op {
        Op::Crd2idx => eval_crd2idx,
        Op::Idx2crd => eval_idx2crd,
        Op::Size => eval_size,
        Op::Cosize => eval_cosize,
        Op::Rank | Op::Depth => eval_rank_depth,
        Op::Shape => eval_shape,
        Op::Stride => eval_stride,
        Op::Get => eval_get,
        Op::Flatten => eval_flatten,
        Op::Product => eval_product,
        Op::ProductEach => eval_product_each,
        Op::PrefixProduct | Op::SuffixProduct => eval_prefix_suffix_product,
        Op::CompactColMajor | Op::CompactRowMajor => eval_compact_major,
        Op::ShapeDiv | Op::CeilDiv => eval_shape_div_ceil_div,
        Op::Congruent | Op::WeaklyCongruent | Op::Compatible => eval_congruence,
        Op::MakeLayout if c.n >= 1 && matches!(c.arg(1).value, Value::Layout(_)) => algebra::make_layout_of,
        Op::MakeLayout => eval_make_layout,
        Op::MakeOrderedLayout => eval_make_ordered_layout,
        Op::GetHierCoord | Op::GetFlatCoord | Op::Get1dCoord => eval_coord_forms,
        Op::Coalesce | Op::FilterZeros | Op::Filter => algebra::coalesce_or_filter,
        Op::Composition => algebra::composition,
        Op::Complement => algebra::complement,
        Op::RightInverse | Op::LeftInverse | Op::Nullspace | Op::MakeLayoutLike => algebra::of_layout,
        Op::MaxCommonLayout | Op::BlockedProduct | Op::RakedProduct | Op::Prepend => algebra::of_two_layouts,
        Op::Append if c.targs.1.is_some() => algebra::append_to,
        Op::Append => algebra::of_two_layouts,
        Op::MaxCommonVector => algebra::max_common_vector,
        Op::LogicalDivide
        | Op::ZippedDivide
        | Op::TiledDivide
        | Op::FlatDivide
        | Op::LogicalProduct
        | Op::ZippedProduct
        | Op::TiledProduct
        | Op::FlatProduct => algebra::by_tiler,
        Op::TileToShape => algebra::tile_to_shape,
        Op::Select => algebra::select,
        Op::Take | Op::Group => algebra::mode_range,
        Op::Replace => algebra::replace,
        Op::Upcast | Op::Downcast => algebra::cast,
        Op::RecastLayout => algebra::recast_layout,
        Op::MakeIdentityLayout => algebra::make_identity_layout,
        Op::LocalTile => algebra::local_tile,
        Op::MakeLayoutTv => algebra::make_layout_tv,
        Op::LocalPartition => algebra::local_partition,
        // The composed cases answer every call with two arguments; what reaches here has the
        // wrong number.
        Op::Slice | Op::SliceAndOffset => slice_arity,
        Op::Linear
        | Op::Invert
        | Op::PseudoInvert
        | Op::InvertAndCompose
        | Op::DirectSum
        | Op::DivideLeft
        | Op::FreeMask
        | Op::IsInjective
        | Op::IsSurjective
        | Op::Contiguous
        | Op::ToLayout => linear::case,
    };
    case(c)
}

/// `slice` and `slice_and_offset` with the wrong number of arguments (the algebra's cases
/// take every call with two).
fn slice_arity(c: &Call<'_>) -> Result<Value, EvalError> {
    c.arity(&[], "2").map(|_| Value::Bool(false))
}

struct Call<'a> {
    op: Op,
    function: &'static str,
    column: usize,
    args: &'a [Option<Located>; MAX_ARGS],
    n: usize,
    targs: Targs<'a>,
}

impl Call<'_> {
    fn arity(&self, allowed: &[usize], expected: &'static str) -> Result<usize, EvalError> {
        if allowed.contains(&self.n) {
            Ok(self.n)
        } else {
            Err(EvalError::Arity { column: self.column, function: self.function, expected, got: self.n })
        }
    }

    /// Argument `i` (1-based); called after `arity` accepted the count. A missing one reads as
    /// a truth value, which every function refuses with an argument error (never a panic).
    fn arg(&self, i: usize) -> &Located {
        static MISSING: Located = Located { value: Value::Bool(false), column: 0 };
        self.args.get(i.wrapping_sub(1)).and_then(Option::as_ref).unwrap_or(&MISSING)
    }

    fn argument(&self, i: usize, expected: &'static str) -> EvalError {
        let column =
            self.args.get(i.wrapping_sub(1)).and_then(|a| a.as_ref()).map_or(self.column, |a| a.column);
        EvalError::Argument { column, function: self.function, index: i, expected }
    }

    fn tuple(&self, i: usize) -> Result<DynIntTuple, EvalError> {
        if i > self.n {
            return Err(EvalError::Arity {
                column: self.column,
                function: self.function,
                expected: "more",
                got: self.n,
            });
        }
        int_tuple_of(self.arg(i)).ok_or_else(|| self.argument(i, "an integer or an int tuple"))
    }

    fn int(&self, i: usize) -> Result<DynInt, EvalError> {
        match self.arg(i).value {
            Value::Int(v) => Ok(v),
            _ => Err(self.argument(i, "an integer")),
        }
    }

    fn layout(&self, i: usize) -> Result<DynLayout, EvalError> {
        match self.arg(i).value {
            Value::Layout(l) => Ok(l),
            _ => Err(self.argument(i, "a layout `shape:stride`")),
        }
    }
}

// One function per case: in a debug build each keeps its own temporaries, so one frame
// holding every case's layouts would be paid at each nesting level of an expression.
#[inline(never)]
fn eval_crd2idx(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    let layout = match c.arity(&[2, 3], "2 or 3")? {
        2 => c.layout(2)?,
        _ => DynLayout::new(c.tuple(2)?, c.tuple(3)?).map_err(lay)?,
    };
    // Basis strides (an identity layout) give a coordinate.
    let v = layout.apply(&c.tuple(1)?).map_err(lay)?;
    Ok(v.as_int().map_or(Value::Tuple(v), Value::Int))
}

#[inline(never)]
fn eval_idx2crd(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok(match c.arity(&[2, 3], "2 or 3")? {
        2 => {
            let shape = match c.arg(2).value {
                Value::Layout(l) => *l.shape(),
                _ => c.tuple(2)?,
            };
            tuple_value(ops::idx2crd(&c.tuple(1)?, &shape).map_err(lay)?)
        }
        _ => tuple_value(ops::idx2crd_strided(c.int(1)?, &c.tuple(2)?, &c.tuple(3)?).map_err(lay)?),
    })
}

#[inline(never)]
fn eval_size(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[1], "1")?;
        Value::Int(match c.arg(1).value {
            Value::Layout(l) => l.size(),
            _ => c.tuple(1)?.size().map_err(lay)?,
        })
    })
}

#[inline(never)]
fn eval_cosize(c: &Call<'_>) -> Result<Value, EvalError> {
    Ok({
        c.arity(&[1], "1")?;
        Value::Int(c.layout(1)?.cosize())
    })
}

#[inline(never)]
fn eval_rank_depth(c: &Call<'_>) -> Result<Value, EvalError> {
    Ok({
        c.arity(&[1], "1")?;
        let t = match c.arg(1).value {
            Value::Layout(l) => *l.shape(),
            _ => c.tuple(1)?,
        };
        let v = if c.op == Op::Rank { t.rank() } else { t.depth() };
        Value::Int(DynInt::new_static(v as isize))
    })
}

#[inline(never)]
fn eval_shape(c: &Call<'_>) -> Result<Value, EvalError> {
    Ok({
        c.arity(&[1], "1")?;
        tuple_value(*c.layout(1)?.shape())
    })
}

#[inline(never)]
fn eval_stride(c: &Call<'_>) -> Result<Value, EvalError> {
    Ok({
        c.arity(&[1], "1")?;
        tuple_value(*c.layout(1)?.stride())
    })
}

#[inline(never)]
fn eval_get(c: &Call<'_>) -> Result<Value, EvalError> {
    Ok({
        c.arity(&[2], "2")?;
        let i = c.int(2)?.value;
        let bad = || c.argument(2, "a mode index within the rank");
        let i = usize::try_from(i).map_err(|_| bad())?;
        match c.arg(1).value {
            Value::Layout(l) => {
                Value::Layout(apply_layout_op(Op::Get, &[Arg::Layout(&l), Arg::Index(i)]).map_err(|_| bad())?)
            }
            _ => tuple_value(c.tuple(1)?.mode(i).ok_or_else(bad)?),
        }
    })
}

#[inline(never)]
fn eval_flatten(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[1], "1")?;
        match c.arg(1).value {
            Value::Layout(l) => Value::Layout(l.flatten().map_err(lay)?),
            _ => tuple_value(c.tuple(1)?.flatten().map_err(lay)?),
        }
    })
}

#[inline(never)]
fn eval_product(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[1], "1")?;
        Value::Int(c.tuple(1)?.size().map_err(lay)?)
    })
}

#[inline(never)]
fn eval_product_each(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[1], "1")?;
        tuple_value(ops::product_each(&c.tuple(1)?).map_err(lay)?)
    })
}

#[inline(never)]
fn eval_prefix_suffix_product(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[1], "1")?;
        let left = c.op == Op::PrefixProduct;
        tuple_value(ops::exclusive_product(&c.tuple(1)?, DynInt::new_static(1), left).map_err(lay)?.0)
    })
}

#[inline(never)]
fn eval_compact_major(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        let cur = if c.arity(&[1, 2], "1 or 2")? == 2 { c.int(2)? } else { DynInt::new_static(1) };
        let left = c.op == Op::CompactColMajor;
        tuple_value(ops::compact(&c.tuple(1)?, cur, left).map_err(lay)?.0)
    })
}

#[inline(never)]
fn eval_shape_div_ceil_div(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[2], "2")?;
        let how = if c.op == Op::ShapeDiv { Division::Shape } else { Division::Ceil };
        tuple_value(ops::divide(&c.tuple(1)?, &c.tuple(2)?, how).map_err(lay)?)
    })
}

#[inline(never)]
fn eval_congruence(c: &Call<'_>) -> Result<Value, EvalError> {
    Ok({
        c.arity(&[2], "2")?;
        let (a, b) = (c.tuple(1)?, c.tuple(2)?);
        Value::Bool(match c.op {
            Op::Congruent => a.congruent(&b),
            Op::WeaklyCongruent => ops::weakly_congruent(&a, &b),
            _ => ops::compatible(&a, &b),
        })
    })
}

#[inline(never)]
fn eval_make_layout(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        let k = c.arity(&[1, 2], "1 or 2")?;
        let shape = c.tuple(1)?;
        if k == 1 {
            Value::Layout(DynLayout::compact(shape, true).map_err(lay)?)
        } else {
            match c.arg(2).value {
                Value::Major(left) => Value::Layout(DynLayout::compact(shape, left).map_err(lay)?),
                _ => Value::Layout(DynLayout::new(shape, c.tuple(2)?).map_err(lay)?),
            }
        }
    })
}

#[inline(never)]
fn eval_make_ordered_layout(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[2], "2")?;
        Value::Layout(DynLayout::ordered(c.tuple(1)?, &c.tuple(2)?).map_err(lay)?)
    })
}

#[inline(never)]
fn eval_coord_forms(c: &Call<'_>) -> Result<Value, EvalError> {
    let lay = |error: LayoutError| EvalError::Layout { column: c.column, error };
    Ok({
        c.arity(&[2], "2")?;
        let (l, i) = (c.layout(1)?, c.int(2)?);
        match c.op {
            Op::GetHierCoord => tuple_value(l.get_hier_coord(i).map_err(lay)?),
            Op::GetFlatCoord => tuple_value(l.get_flat_coord(i).map_err(lay)?),
            _ => Value::Int(l.get_1d_coord(i).map_err(lay)?),
        }
    })
}
