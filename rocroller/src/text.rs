//! rocRoller's coordinate graphs as text: [`CoordinateGraph`]'s `Display` writes a graph, its
//! `FromStr` (and [`CoordinateGraph::parse`], for any capacity) reads one back, equal to it, and
//! with feature `serde` a graph serializes as this text in every format.
//!
//! A graph is its elements in tag order inside `graph{...}`, separated by `;`, each written
//! `TAG: ITEM` where TAG is its position (rocRoller's tags: dimensions and edges are numbered
//! together). Whitespace between tokens is free; `{:#}` writes one element a line.
//!
//! | item | text | notes |
//! |---|---|---|
//! | a dimension | `SubDimension[0](64, 1)`, `User(?, ?)`, `Linear(M, lda)` | rocRoller's kind name; `[dim]` for the kinds that carry one; `(size, stride)`, each an integer, a runtime name or `?` (unknown) |
//! | a runtime name | `lda`, `_K2` | an ASCII identifier of at most [`MAX_NAME_LEN`] bytes ([`Name`]) |
//! | an edge | `Flatten(0, 1 -> 2)`, `Split(0 -> 1, 2)`, `Forget(3 -> )` | its name ([`Edge::name`]), then `(SOURCES -> DESTINATIONS)`, tags of earlier dimensions, either side possibly empty |
//! | `PairSwap`, `Index` | `PairSwap<4>(0 -> 1, 2)`, `Index<-1>(0 -> 1)` | rows per group; the index |
//! | `Rotate` | `Rotate<8, 2>(...)`, `Rotate<8, 2, inverse>(...)` | positions, rows per group, the direction |
//! | `PiecewiseAffineJoin` | `PiecewiseAffineJoin<$0 < 4 ? (10, 1) + 0 : (20, 1) + -40>(0, 1 -> 2)` | `COND ? (T0, T1, ...) + T : (F0, F1, ...) + F`: the strides and initial value of each outcome (integers or runtime names), inline |
//! | a condition ([`Positional`]) | `$0 % 8 < 4 && $1 != 0` | C's operators and precedences (those of [`BinaryOp`]), inputs `$0` to `$7`, integers, parentheses |
//!
//! A `PiecewiseAffineJoin`'s parameters are kept in the graph by [`AffineId`]; the text writes
//! them in each edge, and reading adds them again in order of first appearance, once each, so
//! edges that shared parameters share them again (graphs are equal when their parameters are,
//! whatever their ids: `CoordinateGraph`'s `PartialEq`).
//!
//! ```
//! use const_layout::rocroller::{CoordinateGraph, Dimension, Edge, Transformer};
//! // rocRoller's "Basic" test: x(64), y(64) flattened into m.
//! let text = "graph{0: SubDimension[0](64, 1); 1: SubDimension[1](64, 1); 2: Linear(4096, 1); 3: Flatten(0, 1 -> 2)}";
//! let g: CoordinateGraph = text.parse().unwrap();
//! assert_eq!(g.to_string(), text);
//! let mut t = Transformer::new(&g);
//! t.set_coordinate(0, 5);
//! t.set_coordinate(1, 3);
//! assert_eq!(t.forward(&[2]).unwrap(), [323]);
//! // Errors say what was expected, and where.
//! let e = "graph{0: Linear(4, 1); 2: Linear(4, 1)}".parse::<CoordinateGraph>().unwrap_err();
//! assert_eq!(e.to_string(), "column 24: expected tag 1 (elements are written in tag order), found 2");
//! let e = "graph{0: Linear(4, 1); 1: Tile(0 -> 2)}".parse::<CoordinateGraph>().unwrap_err();
//! assert_eq!(e.to_string(), "column 37: coordinate graph: an edge end is not a dimension (tag 2)");
//! ```
//!
//! Reading takes time linear in the text and no memory beyond the graph: a condition holds at
//! most [`MAX_POSITIONAL_STEPS`] steps and [`MAX_CONDITION_NESTING`] open parentheses, and the
//! parser does not recurse.

use super::positional::Step;
use super::{
    AffineId, BinaryOp, CoordinateGraph, Dimension, DimensionKind, Edge, Element, Extent, GraphError,
    MAX_AFFINES, MAX_ENDS, MAX_NAME_LEN, MAX_POSITIONAL_STEPS, Name, PiecewiseAffine, Positional, Tag,
};
use const_layout_core::error::LayoutError;
use core::fmt;
use core::str::FromStr;

/// The most parentheses open at once in a condition ([`Positional`]'s text): more than its
/// [`MAX_POSITIONAL_STEPS`] steps can use.
///
/// ```
/// use const_layout::rocroller::Positional;
/// use const_layout::rocroller::text::MAX_CONDITION_NESTING;
/// let deep = format!("{}$0{}", "(".repeat(MAX_CONDITION_NESTING), ")".repeat(MAX_CONDITION_NESTING));
/// assert_eq!(deep.parse::<Positional>(), Ok(Positional::arg(0)));
/// let e = format!("({deep})").parse::<Positional>().unwrap_err();
/// assert_eq!(e.to_string(), "column 17: more than 16 nested parentheses in a condition");
/// ```
pub const MAX_CONDITION_NESTING: usize = 16;

/// Why a graph's (or a condition's) text did not read: what went wrong, at a 1-based column (of
/// characters; one past the end for a text cut short). Its `Display` is one line.
///
/// ```
/// use const_layout::rocroller::{CoordinateGraph, TextProblem};
/// let e = "graph{0: Linear(4, 1}".parse::<CoordinateGraph>().unwrap_err();
/// assert_eq!(e.column, 21);
/// assert_eq!(e.problem, TextProblem::Expected { what: "`)`", found: Some('}') });
/// assert_eq!(e.to_string(), "column 21: expected `)`, found `}`");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GraphTextError {
    /// 1-based column (in characters) of the offending text, or one past the end.
    pub column: usize,
    /// What went wrong there.
    pub problem: TextProblem,
}

/// What went wrong in a [`GraphTextError`].
///
/// ```
/// use const_layout::rocroller::{CoordinateGraph, TextProblem};
/// let e = "graph{0: Lane(?, ?); 1: Lane(?, ?); 2: Flatten(0, 1, 0, 1, 0, 1, 0, 1, 0 -> )}";
/// let e = e.parse::<CoordinateGraph>().unwrap_err();
/// assert_eq!(e.problem, TextProblem::TooMany { what: "ends on one side of an edge", most: 8 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TextProblem {
    /// Something else was expected: `what`, where `found` was (`None`: the end of the text).
    Expected {
        /// What the notation needs there.
        what: &'static str,
        /// The character found, or `None` at the end of the text.
        found: Option<char>,
    },
    /// An element's tag is not its position.
    Tag {
        /// The element's position, the tag it must have.
        expected: usize,
        /// The tag written.
        found: usize,
    },
    /// More of something than fits.
    TooMany {
        /// What (elements, ends of an edge, steps of a condition, ...).
        what: &'static str,
        /// The most there may be.
        most: usize,
    },
    /// The text is well formed but the graph refuses it (an edge end that is not a dimension, a
    /// condition that reads an input the edge does not have).
    Graph(GraphError),
}

impl fmt::Display for GraphTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: ", self.column)?;
        match self.problem {
            TextProblem::Expected { what, found } => {
                write!(f, "expected {what}, found ")?;
                match found {
                    // A control character would break the one-line error: written escaped.
                    Some(c) if c.is_control() => write!(f, "`{}`", c.escape_debug()),
                    Some(c) => write!(f, "`{c}`"),
                    None => f.write_str("the end of the input"),
                }
            }
            TextProblem::Tag { expected, found } => {
                write!(f, "expected tag {expected} (elements are written in tag order), found {found}")
            }
            TextProblem::TooMany { what, most } => write!(f, "more than {most} {what}"),
            TextProblem::Graph(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for GraphTextError {}

/// A position in the text. It only ever moves over ASCII bytes, so it is always on a character
/// boundary.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// `tok` (ASCII) after optional whitespace, consumed if there.
    fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        let there = self.rest().starts_with(tok);
        if there {
            self.pos += tok.len();
        }
        there
    }

    fn expect(&mut self, tok: &str, what: &'static str) -> Result<(), GraphTextError> {
        if self.eat(tok) { Ok(()) } else { Err(self.error(what)) }
    }

    fn column(&self, at: usize) -> usize {
        self.text.get(..at).map_or(at, |s| s.chars().count()) + 1
    }

    fn fail(&self, at: usize, problem: TextProblem) -> GraphTextError {
        GraphTextError { column: self.column(at), problem }
    }

    /// `what` expected at the cursor.
    fn error(&self, what: &'static str) -> GraphTextError {
        self.error_at(self.pos, what)
    }

    fn error_at(&self, at: usize, what: &'static str) -> GraphTextError {
        let found = self.text.get(at..).and_then(|r| r.chars().next());
        self.fail(at, TextProblem::Expected { what, found })
    }

    /// An identifier, if one starts here (after whitespace).
    fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let start = self.pos;
        if !self.peek().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
            return None;
        }
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.pos += 1;
        }
        self.text.get(start..self.pos)
    }

    /// An `isize` written in decimal, with an optional `-` sign.
    fn int(&mut self) -> Result<isize, GraphTextError> {
        self.skip_ws();
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return Err(self.error("an integer"));
        }
        // Accumulated as a negative number: isize::MIN has no positive counterpart.
        let mut neg: isize = 0;
        let overflow = |c: &Self| c.error_at(start, "an integer within isize");
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            neg = neg
                .checked_mul(10)
                .and_then(|v| v.checked_sub((b - b'0') as isize))
                .ok_or_else(|| overflow(self))?;
            self.pos += 1;
        }
        if negative { Ok(neg) } else { neg.checked_neg().ok_or_else(|| overflow(self)) }
    }

    /// A non-negative integer of at most `max`, else an error saying `what`.
    fn uint(&mut self, max: usize, what: &'static str) -> Result<usize, GraphTextError> {
        self.skip_ws();
        let start = self.pos;
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return Err(self.error(what));
        }
        self.int()
            .ok()
            .and_then(|v| usize::try_from(v).ok())
            .filter(|&v| v <= max)
            .ok_or_else(|| self.error_at(start, what))
    }

    /// A size, stride or initial value: an integer, a runtime name, or (`unknown`) `?`.
    fn extent(&mut self, unknown: bool) -> Result<Option<Extent>, GraphTextError> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            Some(b'?') if unknown => {
                self.pos += 1;
                Ok(None)
            }
            Some(b'-' | b'0'..=b'9') => Ok(Some(Extent::Known(self.int()?))),
            _ => match self.ident() {
                Some(id) => match Name::new(id) {
                    Some(n) => Ok(Some(Extent::Runtime(n))),
                    None => Err(self.error_at(start, "a runtime name of at most 22 bytes")),
                },
                None if unknown => Err(self.error("an integer, a runtime name or `?`")),
                None => Err(self.error("an integer or a runtime name")),
            },
        }
    }
}

const _: () = assert!(MAX_NAME_LEN == 22, "keep the messages' number in step");

/// The binary operators, longest first where one is a prefix of another.
const OPERATORS: [(&str, BinaryOp); 18] = [
    ("<<", BinaryOp::Shl),
    ("<=", BinaryOp::Le),
    ("<", BinaryOp::Lt),
    (">>", BinaryOp::Shr),
    (">=", BinaryOp::Ge),
    (">", BinaryOp::Gt),
    ("==", BinaryOp::Eq),
    ("!=", BinaryOp::Ne),
    ("&&", BinaryOp::And),
    ("&", BinaryOp::BitAnd),
    ("||", BinaryOp::Or),
    ("|", BinaryOp::BitOr),
    ("^", BinaryOp::BitXor),
    ("*", BinaryOp::Mul),
    ("/", BinaryOp::Div),
    ("%", BinaryOp::Rem),
    ("+", BinaryOp::Add),
    ("-", BinaryOp::Sub),
];

/// An operator, or an open parenthesis, waiting on the parser's stack.
#[derive(Clone, Copy)]
enum Pending {
    Open,
    BinaryOp(BinaryOp),
}

/// A condition, read by shunting-yard into its postfix steps (no recursion, so no input can
/// exhaust the stack); it ends before the first text that cannot continue it.
fn condition(c: &mut Cursor<'_>) -> Result<Positional, GraphTextError> {
    let mut out = [Step::Const(0); MAX_POSITIONAL_STEPS];
    let mut len = 0;
    // Operators wait for fewer operands than there are steps; parentheses are bounded apart.
    let mut stack = [Pending::Open; MAX_POSITIONAL_STEPS + MAX_CONDITION_NESTING];
    let mut top = 0;
    let mut opens = 0;
    let too_many = |c: &Cursor<'_>, at| {
        c.fail(at, TextProblem::TooMany { what: "steps in a condition", most: MAX_POSITIONAL_STEPS })
    };
    let mut emit = |c: &Cursor<'_>, s: Step, at: usize| -> Result<(), GraphTextError> {
        *out.get_mut(len).ok_or_else(|| too_many(c, at))? = s;
        len += 1;
        Ok(())
    };
    loop {
        // An operand, after any open parentheses.
        c.skip_ws();
        let at = c.pos;
        let step = match c.peek() {
            Some(b'(') => {
                if opens == MAX_CONDITION_NESTING {
                    let what = "nested parentheses in a condition";
                    return Err(c.fail(at, TextProblem::TooMany { what, most: MAX_CONDITION_NESTING }));
                }
                *stack.get_mut(top).ok_or_else(|| too_many(c, at))? = Pending::Open;
                top += 1;
                opens += 1;
                c.pos += 1;
                continue;
            }
            Some(b'$') => {
                c.pos += 1;
                if !c.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(c.error("an input number from 0 to 7 after `$`"));
                }
                Step::Arg(c.uint(MAX_ENDS - 1, "an input number from 0 to 7 after `$`")? as u8)
            }
            // `-` where an operand is due is a literal's sign: `$0 * -5`.
            Some(b'-' | b'0'..=b'9') => Step::Const(c.int()?),
            _ => return Err(c.error("an input `$0` to `$7`, an integer or `(`")),
        };
        emit(c, step, at)?;
        // Closing parentheses, then an operator or the end.
        loop {
            c.skip_ws();
            if c.peek() != Some(b')') || opens == 0 {
                break;
            }
            while let Some(k) = top.checked_sub(1) {
                top = k;
                match stack[k] {
                    Pending::BinaryOp(op) => emit(c, Step::Bin(op), c.pos)?,
                    Pending::Open => break,
                }
            }
            opens -= 1;
            c.pos += 1;
        }
        let Some(&(tok, op)) = OPERATORS.iter().find(|(tok, _)| c.rest().starts_with(tok)) else {
            break;
        };
        let at = c.pos;
        c.pos += tok.len();
        while let Some(k) = top.checked_sub(1) {
            match stack[k] {
                // Operators group to the left: an equal one waiting is applied first.
                Pending::BinaryOp(o) if o.precedence(true) >= op.precedence(true) => {
                    emit(c, Step::Bin(o), at)?;
                    top = k;
                }
                _ => break,
            }
        }
        *stack.get_mut(top).ok_or_else(|| too_many(c, at))? = Pending::BinaryOp(op);
        top += 1;
    }
    while let Some(k) = top.checked_sub(1) {
        top = k;
        match stack[k] {
            Pending::BinaryOp(op) => emit(c, Step::Bin(op), c.pos)?,
            Pending::Open => return Err(c.error("an operator or `)`")),
        }
    }
    Positional::from_steps(&out[..len]).ok_or_else(|| c.error("a condition"))
}

/// Reads a condition in C (as `Display` writes it): inputs `$0` to `$7`, integers, the
/// operators of [`BinaryOp`] with C's precedences, grouping to the left, and parentheses. The steps
/// are those written: `$0 + 0` stays an addition.
///
/// ```
/// use const_layout::rocroller::Positional;
/// let p: Positional = "$0 % 8 < 4 && $1 != 0".parse().unwrap();
/// assert_eq!(p, (Positional::arg(0) % 8).lt(4).and(Positional::arg(1).not_equal(0)));
/// assert_eq!("$0 - $1 - 1".parse(), Ok(Positional::arg(0) - Positional::arg(1) - 1));
/// let e = "$0 < $8".parse::<Positional>().unwrap_err();
/// assert_eq!(e.to_string(), "column 7: expected an input number from 0 to 7 after `$`, found `8`");
/// ```
impl FromStr for Positional {
    type Err = GraphTextError;

    fn from_str(s: &str) -> Result<Self, GraphTextError> {
        let mut c = Cursor { text: s, pos: 0 };
        let p = condition(&mut c)?;
        c.skip_ws();
        match c.peek() {
            None => Ok(p),
            Some(_) => Err(c.error("an operator or the end of the input")),
        }
    }
}

/// rocRoller's name of a kind, and its `dim` if it has one.
fn kind_text(k: DimensionKind) -> (&'static str, Option<u8>) {
    use DimensionKind as K;
    match k {
        K::ForLoop => ("ForLoop", None),
        K::Adhoc => ("Adhoc", None),
        K::ElementNumber(d) => ("ElementNumber", Some(d)),
        K::Lane => ("Lane", None),
        K::Lds => ("LDS", None),
        K::Linear => ("Linear", None),
        K::MacroTile => ("MacroTile", None),
        K::MacroTileIndex(d) => ("MacroTileIndex", Some(d)),
        K::MacroTileNumber(d) => ("MacroTileNumber", Some(d)),
        K::SubDimension(d) => ("SubDimension", Some(d)),
        K::ThreadTile => ("ThreadTile", None),
        K::ThreadTileIndex(d) => ("ThreadTileIndex", Some(d)),
        K::ThreadTileNumber(d) => ("ThreadTileNumber", Some(d)),
        K::Unroll => ("Unroll", None),
        K::User => ("User", None),
        K::Vgpr => ("VGPR", None),
        K::VgprBlockNumber => ("VGPRBlockNumber", None),
        K::VgprBlockIndex => ("VGPRBlockIndex", None),
        K::WaveTile => ("WaveTile", None),
        K::WaveTileIndex(d) => ("WaveTileIndex", Some(d)),
        K::WaveTileNumber(d) => ("WaveTileNumber", Some(d)),
        K::Wavefront(d) => ("Wavefront", Some(d)),
        K::Workgroup(d) => ("Workgroup", Some(d)),
        K::Workitem(d) => ("Workitem", Some(d)),
    }
}

/// A kind from its `dim` (ignored by the kinds without one).
type MakeKind = fn(u8) -> DimensionKind;

/// The kind of a rocRoller name: its constructor from `dim`, and whether it takes one.
fn kind_named(name: &str) -> Option<(MakeKind, bool)> {
    use DimensionKind as K;
    let plain = |k: MakeKind| Some((k, false));
    let with_dim = |k: MakeKind| Some((k, true));
    match name {
        "ForLoop" => plain(|_| K::ForLoop),
        "Adhoc" => plain(|_| K::Adhoc),
        "ElementNumber" => with_dim(K::ElementNumber),
        "Lane" => plain(|_| K::Lane),
        "LDS" => plain(|_| K::Lds),
        "Linear" => plain(|_| K::Linear),
        "MacroTile" => plain(|_| K::MacroTile),
        "MacroTileIndex" => with_dim(K::MacroTileIndex),
        "MacroTileNumber" => with_dim(K::MacroTileNumber),
        "SubDimension" => with_dim(K::SubDimension),
        "ThreadTile" => plain(|_| K::ThreadTile),
        "ThreadTileIndex" => with_dim(K::ThreadTileIndex),
        "ThreadTileNumber" => with_dim(K::ThreadTileNumber),
        "Unroll" => plain(|_| K::Unroll),
        "User" => plain(|_| K::User),
        "VGPR" => plain(|_| K::Vgpr),
        "VGPRBlockNumber" => plain(|_| K::VgprBlockNumber),
        "VGPRBlockIndex" => plain(|_| K::VgprBlockIndex),
        "WaveTile" => plain(|_| K::WaveTile),
        "WaveTileIndex" => with_dim(K::WaveTileIndex),
        "WaveTileNumber" => with_dim(K::WaveTileNumber),
        "Wavefront" => with_dim(K::Wavefront),
        "Workgroup" => with_dim(K::Workgroup),
        "Workitem" => with_dim(K::Workitem),
        _ => None,
    }
}

/// The edges without parameters, by rocRoller's name.
fn plain_edge(name: &str) -> Option<Edge> {
    Some(match name {
        "Flatten" => Edge::Flatten,
        "Tile" => Edge::Tile,
        "Join" => Edge::Join,
        "Split" => Edge::Split,
        "Sunder" => Edge::Sunder,
        "PassThrough" => Edge::PassThrough,
        "Inherit" => Edge::Inherit,
        "MakeOutput" => Edge::MakeOutput,
        "Forget" => Edge::Forget,
        "ConstructMacroTile" => Edge::ConstructMacroTile,
        "DestructMacroTile" => Edge::DestructMacroTile,
        "DataFlow" => Edge::DataFlow,
        "Alias" => Edge::Alias,
        "Buffer" => Edge::Buffer,
        "Duplicate" => Edge::Duplicate,
        "Offset" => Edge::Offset,
        "Stride" => Edge::Stride,
        "View" => Edge::View,
        _ => return None,
    })
}

fn write_extent(f: &mut fmt::Formatter<'_>, e: Option<Extent>) -> fmt::Result {
    match e {
        Some(Extent::Known(v)) => write!(f, "{v}"),
        Some(Extent::Runtime(n)) => f.write_str(n.as_str()),
        None => f.write_str("?"),
    }
}

fn write_list<T: Copy>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
    each: impl Fn(&mut fmt::Formatter<'_>, T) -> fmt::Result,
) -> fmt::Result {
    for (k, &x) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        each(f, x)?;
    }
    Ok(())
}

/// The graph in the text notation (the [module's](self) table): elements in tag order in
/// `graph{...}`; `{:#}` writes one element a line. A runtime name that is not an identifier (one
/// given in code, such as `blockIdx.x`) is written as it is, and the text then does not read back.
///
/// ```
/// use const_layout::rocroller::{CoordinateGraph, Dimension, DimensionKind, Edge};
/// let mut g = CoordinateGraph::new();
/// let u = g.add_dimension(Dimension::new(DimensionKind::User)).unwrap();
/// let a = g.add_dimension(Dimension::new(DimensionKind::SubDimension(0)).with_runtime_size("M").with_runtime_stride("N")).unwrap();
/// let b = g.add_dimension(Dimension::new(DimensionKind::SubDimension(1)).with_runtime_size("N").with_stride(1)).unwrap();
/// g.add_edge(Edge::Split, &[u], &[a, b]).unwrap();
/// let text = "graph{0: User(?, ?); 1: SubDimension[0](M, N); 2: SubDimension[1](N, 1); 3: Split(0 -> 1, 2)}";
/// assert_eq!(g.to_string(), text);
/// assert_eq!(format!("{g:#}").lines().nth(4), Some("    3: Split(0 -> 1, 2)"));
/// assert_eq!(format!("{g:#}").parse::<CoordinateGraph>(), Ok(g));
/// ```
impl<const N: usize> fmt::Display for CoordinateGraph<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = f.alternate();
        f.write_str("graph{")?;
        for (tag, e) in self.elements[..self.count].iter().enumerate() {
            match (tag, lines) {
                (_, true) => f.write_str(if tag == 0 { "\n    " } else { ";\n    " })?,
                (0, false) => {}
                (_, false) => f.write_str("; ")?,
            }
            write!(f, "{tag}: ")?;
            match e {
                Element::Empty => {}
                Element::Dimension(d) => {
                    let (name, dim) = kind_text(d.kind());
                    f.write_str(name)?;
                    if let Some(dim) = dim {
                        write!(f, "[{dim}]")?;
                    }
                    f.write_str("(")?;
                    write_extent(f, d.size_extent())?;
                    f.write_str(", ")?;
                    write_extent(f, d.stride_extent())?;
                    f.write_str(")")?;
                }
                Element::Edge { edge, srcs, dsts } => {
                    f.write_str(edge.name())?;
                    self.write_parameters(f, *edge)?;
                    f.write_str("(")?;
                    write_list(f, srcs.as_slice(), |f, t| write!(f, "{t}"))?;
                    f.write_str(" -> ")?;
                    write_list(f, dsts.as_slice(), |f, t| write!(f, "{t}"))?;
                    f.write_str(")")?;
                }
            }
        }
        f.write_str(if lines && self.count > 0 { "\n}" } else { "}" })
    }
}

impl<const N: usize> CoordinateGraph<N> {
    /// An edge's parameters in `<...>`, if it has any.
    fn write_parameters(&self, f: &mut fmt::Formatter<'_>, edge: Edge) -> fmt::Result {
        match edge {
            Edge::PairSwap { rows_per_group } => write!(f, "<{rows_per_group}>"),
            Edge::Rotate { num_positions, rows_per_group, inverse } => {
                write!(f, "<{num_positions}, {rows_per_group}{}>", if inverse { ", inverse" } else { "" })
            }
            Edge::Index(i) => write!(f, "<{i}>"),
            Edge::PiecewiseAffineJoin(id) => match self.piecewise_affine(id) {
                Some(p) => {
                    write!(f, "<{} ? ", p.condition())?;
                    for holds in [true, false] {
                        let (strides, init) = p.strides(holds);
                        f.write_str("(")?;
                        write_list(f, strides, |f, e| write_extent(f, Some(e)))?;
                        f.write_str(") + ")?;
                        write_extent(f, Some(init))?;
                        f.write_str(if holds { " : " } else { ">" })?;
                    }
                    Ok(())
                }
                // `add_edge` keeps only ids the graph has.
                None => f.write_str("<?>"),
            },
            _ => Ok(()),
        }
    }

    /// Reads a graph of capacity `N` from the text notation (the [module's](self) table); for
    /// the default capacity, `str::parse` does the same. An error says what was expected and
    /// where, in one line: malformed text, a tag out of order, a graph the text does not fit
    /// (more than `N` elements), or one the graph refuses (an edge end that is not a dimension).
    ///
    /// ```
    /// use const_layout::rocroller::CoordinateGraph;
    /// let text = "graph{0: Linear(64, 1); 1: Lane(?, ?); 2: Unroll(4, ?); 3: Tile(0 -> 1, 2)}";
    /// let g = CoordinateGraph::<4>::parse(text).unwrap();
    /// assert_eq!((g.len(), g.to_string()), (4, text.to_string()));
    /// let e = CoordinateGraph::<3>::parse(text).unwrap_err();
    /// assert_eq!(e.to_string(), "column 57: more than 3 elements (the graph's capacity)");
    /// ```
    pub fn parse(text: &str) -> Result<Self, GraphTextError> {
        let mut g = Self::with_capacity();
        let mut c = Cursor { text, pos: 0 };
        c.expect("graph", "`graph{`")?;
        c.expect("{", "`{`")?;
        if !c.eat("}") {
            loop {
                g.element(&mut c)?;
                if c.eat("}") {
                    break;
                }
                c.expect(";", "`;` or `}`")?;
            }
        }
        c.skip_ws();
        match c.peek() {
            None => Ok(g),
            Some(_) => Err(c.error("the end of the input")),
        }
    }

    /// One `TAG: ITEM`, added.
    fn element(&mut self, c: &mut Cursor<'_>) -> Result<(), GraphTextError> {
        c.skip_ws();
        let at = c.pos;
        let tag = c.uint(usize::MAX, "an element's tag (an integer)")?;
        if tag != self.count {
            return Err(c.fail(at, TextProblem::Tag { expected: self.count, found: tag }));
        }
        c.expect(":", "`:`")?;
        c.skip_ws();
        let name_at = c.pos;
        let name = c.ident().unwrap_or("");
        let full = |c: &Cursor<'_>| {
            c.fail(at, TextProblem::TooMany { what: "elements (the graph's capacity)", most: N })
        };
        if let Some((kind, has_dim)) = kind_named(name) {
            let dim = if has_dim {
                c.expect("[", "`[`")?;
                let d = c.uint(u8::MAX as usize, "a dimension number from 0 to 255")?;
                c.expect("]", "`]`")?;
                d as u8
            } else {
                0
            };
            c.expect("(", "`(`")?;
            let size = c.extent(true)?;
            c.expect(",", "`,`")?;
            let stride = c.extent(true)?;
            c.expect(")", "`)`")?;
            self.add_dimension(Dimension::new(kind(dim)).with_extents(size, stride)).map_err(|_| full(c))?;
            return Ok(());
        }
        let edge = match name {
            "PairSwap" => {
                c.expect("<", "`<`")?;
                let rows_per_group = c.uint(u32::MAX as usize, "rows per group (a u32)")? as u32;
                c.expect(">", "`>`")?;
                Edge::PairSwap { rows_per_group }
            }
            "Rotate" => {
                c.expect("<", "`<`")?;
                let num_positions = c.uint(u32::MAX as usize, "a number of positions (a u32)")? as u32;
                c.expect(",", "`,`")?;
                let rows_per_group = c.uint(u32::MAX as usize, "rows per group (a u32)")? as u32;
                let inverse = c.eat(",");
                if inverse && c.ident() != Some("inverse") {
                    return Err(c.error("`inverse`"));
                }
                c.expect(">", if inverse { "`>`" } else { "`,` or `>`" })?;
                Edge::Rotate { num_positions, rows_per_group, inverse }
            }
            "Index" => {
                c.expect("<", "`<`")?;
                c.skip_ws();
                let start = c.pos;
                let i = c
                    .int()
                    .and_then(|v| i32::try_from(v).map_err(|_| c.error_at(start, "an index within i32")))?;
                c.expect(">", "`>`")?;
                Edge::Index(i)
            }
            "PiecewiseAffineJoin" => Edge::PiecewiseAffineJoin(self.affine(c)?),
            _ => match plain_edge(name) {
                Some(e) => e,
                None => return Err(c.error_at(name_at, "a dimension kind or an edge name (rocRoller's)")),
            },
        };
        c.expect("(", "`(`")?;
        let (srcs, ns) = self.ends(c, "->", "`,` or `->`")?;
        let (dsts, nd) = self.ends(c, ")", "`,` or `)`")?;
        self.add_edge(edge, &srcs[..ns], &dsts[..nd]).map_err(|e| match e {
            GraphError::Layout(LayoutError::TooLarge) => full(c),
            e => c.fail(at, TextProblem::Graph(e)),
        })?;
        Ok(())
    }

    /// One side of an edge's ends, up to `stop` (consumed).
    fn ends(
        &self,
        c: &mut Cursor<'_>,
        stop: &str,
        what: &'static str,
    ) -> Result<([Tag; MAX_ENDS], usize), GraphTextError> {
        let mut tags = [0; MAX_ENDS];
        let mut n = 0;
        if c.eat(stop) {
            return Ok((tags, 0));
        }
        loop {
            c.skip_ws();
            let at = c.pos;
            let t = c.uint(usize::MAX, "a dimension's tag")?;
            if self.dimension(t).is_none() {
                let e = GraphError::Graph { what: "an edge end is not a dimension", tag: t };
                return Err(c.fail(at, TextProblem::Graph(e)));
            }
            let most = MAX_ENDS;
            *tags.get_mut(n).ok_or_else(|| {
                c.fail(at, TextProblem::TooMany { what: "ends on one side of an edge", most })
            })? = t;
            n += 1;
            if !c.eat(",") {
                break;
            }
        }
        c.expect(stop, what)?;
        Ok((tags, n))
    }

    /// A `PiecewiseAffineJoin`'s `<COND ? (T...) + T : (F...) + F>`, kept in the graph (once: equal
    /// parameters already kept are shared).
    fn affine(&mut self, c: &mut Cursor<'_>) -> Result<AffineId, GraphTextError> {
        c.expect("<", "`<`")?;
        let at = c.pos;
        let cond = condition(c)?;
        c.expect("?", "an operator or `?`")?;
        let (t, count, t0) = strides(c)?;
        c.expect(":", "`:`")?;
        c.skip_ws();
        let false_at = c.pos;
        let (f, false_count, f0) = strides(c)?;
        if false_count != count {
            return Err(c.error_at(false_at, "as many strides after `:` as before it"));
        }
        c.expect(">", "`>`")?;
        let p = PiecewiseAffine::checked(cond, count, t, t0, f, f0).map_err(|e| match e {
            GraphError::EdgeFunction { edge, why, .. } => {
                c.fail(at, TextProblem::Graph(GraphError::EdgeFunction { edge, tag: self.count, why }))
            }
            e => c.fail(at, TextProblem::Graph(e)),
        })?;
        if let Some(k) = self.affines[..self.affine_count].iter().position(|q| *q == p) {
            return Ok(AffineId(k as u8));
        }
        self.add_piecewise_affine(p).map_err(|_| {
            let what = "distinct PiecewiseAffineJoin parameters";
            c.fail(at, TextProblem::TooMany { what, most: MAX_AFFINES })
        })
    }

    /// The first runtime name the text cannot write so that it reads back (not an identifier
    /// of at most [`MAX_NAME_LEN`] bytes), if any.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    fn unwritable_name(&self) -> Option<Name> {
        let bad = |e: &Extent| match e {
            Extent::Runtime(n) if !n.is_identifier() => Some(*n),
            _ => None,
        };
        self.elements[..self.count].iter().find_map(|e| match e {
            Element::Dimension(d) => [d.size_extent(), d.stride_extent()].iter().flatten().find_map(bad),
            Element::Edge { edge: Edge::PiecewiseAffineJoin(id), .. } => {
                let p = self.piecewise_affine(*id)?;
                let ((t, t0), (f, f0)) = (p.strides(true), p.strides(false));
                t.iter().chain(f).chain([&t0, &f0]).find_map(bad)
            }
            _ => None,
        })
    }
}

/// `(E, E, ...) + E`: a branch's strides (padded with `Known(0)`), their count, and its initial value.
fn strides(c: &mut Cursor<'_>) -> Result<([Extent; MAX_ENDS], usize, Extent), GraphTextError> {
    c.expect("(", "`(`")?;
    let mut s = [Extent::Known(0); MAX_ENDS];
    let mut n = 0;
    loop {
        c.skip_ws();
        let at = c.pos;
        let e = c.extent(false)?.unwrap_or(Extent::Known(0));
        let most = MAX_ENDS;
        *s.get_mut(n).ok_or_else(|| {
            c.fail(at, TextProblem::TooMany { what: "strides in a PiecewiseAffineJoin", most })
        })? = e;
        n += 1;
        if !c.eat(",") {
            break;
        }
    }
    c.expect(")", "`,` or `)`")?;
    c.expect("+", "`+`")?;
    let init = c.extent(false)?.unwrap_or(Extent::Known(0));
    Ok((s, n, init))
}

/// [`CoordinateGraph::parse`].
///
/// ```
/// use const_layout::rocroller::CoordinateGraph;
/// let g: CoordinateGraph = "graph{0: VGPR(?, ?); 1: LDS(?, ?); 2: DataFlow(0 -> 1)}".parse().unwrap();
/// assert_eq!(g.edge(2).map(|(e, s, d)| (e.name(), s.len(), d.len())), Some(("DataFlow", 1, 1)));
/// let e = "graph{0: VGPR(?, ?); 1: Vgpr(?, ?)}".parse::<CoordinateGraph>().unwrap_err();
/// assert_eq!(e.to_string(), "column 25: expected a dimension kind or an edge name (rocRoller's), found `V`");
/// ```
impl<const N: usize> FromStr for CoordinateGraph<N> {
    type Err = GraphTextError;

    fn from_str(s: &str) -> Result<Self, GraphTextError> {
        Self::parse(s)
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::CoordinateGraph;
    use core::fmt;
    use core::marker::PhantomData;
    use serde::de::{self, Deserialize, Deserializer, Visitor};
    use serde::ser::{self, Serialize, Serializer};

    /// The graph's text (its `Display`, the [module's](super) notation), in every format: a
    /// string in JSON, a length-prefixed string in a binary format. A runtime name the text
    /// cannot read back (not an identifier of at most 22 bytes, such as `blockIdx.x` given in
    /// code) is an error naming it.
    ///
    /// ```
    /// use const_layout::rocroller::{CoordinateGraph, Dimension, DimensionKind};
    /// let mut g = CoordinateGraph::new();
    /// g.add_dimension(Dimension::linear(64, 1).with_runtime_stride("lda")).unwrap();
    /// assert_eq!(serde_json::to_string(&g).unwrap(), r#""graph{0: Linear(64, lda)}""#);
    /// g.add_dimension(Dimension::new(DimensionKind::Workgroup(0)).with_runtime_size("gridDim.x")).unwrap();
    /// let e = serde_json::to_string(&g).unwrap_err().to_string();
    /// assert!(e.contains("`gridDim.x`"), "{e}");
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<const N: usize> Serialize for CoordinateGraph<N> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if let Some(n) = self.unwritable_name() {
                return Err(ser::Error::custom(format_args!(
                    "runtime name `{n}` is not an identifier of at most 22 bytes, so the graph's text cannot hold it"
                )));
            }
            s.collect_str(self)
        }
    }

    /// Reads the graph's text from a string (or UTF-8 bytes); malformed text is an error carrying
    /// the parser's one-line message with its column.
    ///
    /// A graph is a fixed-capacity value (about 52 KB at the default capacity), and serde moves
    /// the value it builds through a few layers (more in a debug build): a struct that holds a
    /// graph should hold it in a `Box<CoordinateGraph>`, which deserializes the same.
    ///
    /// ```
    /// use const_layout::rocroller::CoordinateGraph;
    /// let g: CoordinateGraph = serde_json::from_str(r#""graph{0: Lane(64, 1); 1: Linear(64, 1); 2: PassThrough(0 -> 1)}""#).unwrap();
    /// assert_eq!(g.len(), 3);
    /// let e = serde_json::from_str::<CoordinateGraph>(r#""graph{0: Lane(64, 1)""#).unwrap_err().to_string();
    /// assert!(e.starts_with("column 21: expected `;` or `}`, found the end of the input"), "{e}");
    /// assert!(serde_json::from_str::<CoordinateGraph>("17").is_err());
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de, const N: usize> Deserialize<'de> for CoordinateGraph<N> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_str(Text(PhantomData))
        }
    }

    /// Reads a graph from a string.
    struct Text<const N: usize>(PhantomData<fn() -> CoordinateGraph<N>>);

    impl<const N: usize> Visitor<'_> for Text<N> {
        type Value = CoordinateGraph<N>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a rocRoller coordinate graph as text, such as \"graph{0: Linear(64, 1)}\"")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            CoordinateGraph::parse(s).map_err(E::custom)
        }

        fn visit_borrowed_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            self.visit_str(s)
        }

        fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Self::Value, E> {
            match core::str::from_utf8(b) {
                Ok(s) => self.visit_str(s),
                Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(b), &self)),
            }
        }
    }
}
