//! CuTe notation as text: parsing int tuples and layouts, with errors that say what was expected
//! at which column.
//!
//! Both of CuTe's spellings are accepted: `_8` is a static integer, `8` a runtime one. Spaces are
//! allowed anywhere between tokens. Printing (`Display`) always uses CuTe's spelling.
//!
//! ```
//! use const_layout::dyn_layout::DynLayout;
//! let l: DynLayout = " ( _8 , (4, _2) ) : (_1, 8) ".parse().unwrap();
//! assert_eq!(l.to_string(), "(_8,(4,_2)):(_1,(8,32))");
//! let err = "(8,(4,2):(1,8)".parse::<DynLayout>().unwrap_err();
//! assert_eq!(err.to_string(), "column 9: expected `,` or `)`, found `:`");
//! ```

use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::{Basis, DynInt, DynIntTuple, DynLayout, MAX_BASIS_DEPTH, MAX_NODES};
use crate::error::LayoutError;
use core::fmt;
use core::str::FromStr;

/// A text parsing error: what was expected, what was found, and where (1-based column, counted in
/// characters).
///
/// ```
/// use const_layout::dyn_layout::DynIntTuple;
/// let err = "(1,,2)".parse::<DynIntTuple>().unwrap_err();
/// assert_eq!(err.column, 4);
/// assert_eq!(err.to_string(), "column 4: expected an integer or `(`, found `,`");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based column of the offending character (or one past the end).
    pub column: usize,
    /// What the parser expected there.
    pub expected: &'static str,
    /// What it found: a character, or `None` at the end of the input.
    pub found: Option<char>,
    /// Set when the text parsed but the value is invalid (for example a zero extent).
    pub invalid: Option<LayoutError>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = self.invalid {
            return write!(f, "column {}: {e}", self.column);
        }
        write!(f, "column {}: expected {}, found ", self.column, self.expected)?;
        match self.found {
            // A control character would break the one-line error: written escaped.
            Some(c) if c.is_control() => write!(f, "`{}`", c.escape_debug()),
            Some(c) => write!(f, "`{c}`"),
            None => f.write_str("the end of the input"),
        }
    }
}

impl core::error::Error for ParseError {}

/// The most parentheses that may be open at once where parsing recurses: calls, and tuples
/// holding expressions, in [`eval`](crate::eval::eval). Deeper text is an error naming this
/// limit, never a stack overflow (each level holds values on the stack: about 50 KiB in a debug
/// build, see [`eval`](crate::eval::eval)). Literals of integers and `_` (int tuples,
/// layouts, tilers, slicing coordinates) are parsed without recursion, here and by every
/// `FromStr`; their depth is bounded by the [`MAX_NODES`] nodes a
/// tuple holds (tested at 100,000 levels on a 256 KiB thread).
///
/// ```
/// use const_layout::dyn_layout::DynIntTuple;
/// use const_layout::eval::eval;
/// let calls = format!("{}4:1{}", "coalesce(".repeat(17), ")".repeat(17));
/// let err = eval(&calls).unwrap_err().to_string();
/// assert_eq!(err, "column 153: expected at most 16 nested parentheses (the parser's limit), found `(`");
/// let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
/// let err = deep.parse::<DynIntTuple>().unwrap_err().to_string();
/// assert_eq!(err, "column 65: more than 64 nodes or 126 bytes of encoding in one int tuple");
/// ```
pub const MAX_NESTING: usize = 16;

const TOO_DEEP: &str = "at most 16 nested parentheses (the parser's limit)";
const _: () = assert!(MAX_NESTING == 16, "keep TOO_DEEP's number in step");

/// A cursor over text in CuTe notation; shared by [`FromStr`] and the expression evaluator.
pub(crate) struct Parser<'a> {
    pub(crate) text: &'a str,
    pub(crate) pos: usize,
    /// Parentheses open through `eat`/`expect` (the recursive parsers).
    depth: usize,
    /// Set when a `(` was refused for depth: the next error reports the limit.
    too_deep: bool,
    /// The last position whose column was counted, and that column: columns are counted from
    /// there, so a long input costs linear time, not quadratic.
    counted: core::cell::Cell<(usize, usize)>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Parser { text, pos: 0, depth: 0, too_deep: false, counted: core::cell::Cell::new((0, 1)) }
    }

    pub(crate) fn skip_ws(&mut self) {
        while let Some(c) = self.peek_raw() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn peek_raw(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    /// Where the parser stands (its position and open parentheses), to come back to with
    /// [`Parser::reset`] after an attempt that failed.
    pub(crate) fn mark(&self) -> (usize, usize, bool) {
        (self.pos, self.depth, self.too_deep)
    }

    /// Back to a [`Parser::mark`].
    pub(crate) fn reset(&mut self, (pos, depth, too_deep): (usize, usize, bool)) {
        (self.pos, self.depth, self.too_deep) = (pos, depth, too_deep);
    }

    /// The next non-space character, without consuming it.
    pub(crate) fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.peek_raw()
    }

    pub(crate) fn column(&self) -> usize {
        let (at, col) = self.counted.get();
        let pos = self.pos.min(self.text.len());
        let col = match (self.text.get(at.min(pos)..at.max(pos)), pos >= at) {
            (Some(between), true) => col + between.chars().count(),
            (Some(between), false) => col - between.chars().count(),
            (None, _) => self.text.get(..pos).map_or(0, |t| t.chars().count()) + 1,
        };
        self.counted.set((pos, col));
        col
    }

    pub(crate) fn error(&mut self, expected: &'static str) -> ParseError {
        self.skip_ws();
        self.error_raw(expected)
    }

    pub(crate) fn invalid(&self, column: usize, e: LayoutError) -> ParseError {
        ParseError { column, expected: "", found: None, invalid: Some(e) }
    }

    /// Consume `c` (after spaces) or fail expecting `expected`.
    pub(crate) fn expect(&mut self, c: char, expected: &'static str) -> Result<(), ParseError> {
        if self.eat(c) { Ok(()) } else { Err(self.error(expected)) }
    }

    /// Consume `c` if it is next. Parentheses are counted: a `(` beyond [`MAX_NESTING`] is not
    /// consumed, and the error that follows names the limit.
    pub(crate) fn eat(&mut self, c: char) -> bool {
        if self.peek() != Some(c) {
            return false;
        }
        match c {
            '(' if self.depth >= MAX_NESTING => {
                self.too_deep = true;
                return false;
            }
            '(' => self.depth += 1,
            ')' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        self.pos += c.len_utf8();
        true
    }

    pub(crate) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// An integer: `_8` (static), `8` or `-3` (runtime), `_-3` (static).
    pub(crate) fn int(&mut self) -> Result<DynInt, ParseError> {
        let start_col = {
            self.skip_ws();
            self.column()
        };
        let is_static = self.eat_raw('_');
        let negative = self.eat_raw('-');
        let digits_start = self.pos;
        while matches!(self.peek_raw(), Some('0'..='9')) {
            self.pos += 1;
        }
        if self.pos == digits_start {
            return Err(self.error_raw(if is_static { "digits after `_`" } else { "an integer or `(`" }));
        }
        let digits = &self.text[digits_start..self.pos];
        // Accumulate as a negative number: isize::MIN has no positive counterpart.
        let mut neg: isize = 0;
        for b in digits.bytes() {
            neg = neg.checked_mul(10).and_then(|v| v.checked_sub((b - b'0') as isize)).ok_or(ParseError {
                column: start_col,
                expected: "an integer within isize",
                found: digits.chars().next(),
                invalid: None,
            })?;
        }
        let value = if negative {
            neg
        } else {
            neg.checked_neg().ok_or(ParseError {
                column: start_col,
                expected: "an integer within isize",
                found: digits.chars().next(),
                invalid: None,
            })?
        };
        let mut v = DynInt::new(value, is_static);
        // `_1@0@1` scales CuTe's `E<1,0>`: the indices are printed innermost first.
        let mut inner_first = [0usize; MAX_BASIS_DEPTH];
        let mut depth = 0;
        while self.eat_raw('@') {
            let start = self.pos;
            while matches!(self.peek_raw(), Some('0'..='9')) {
                self.pos += 1;
            }
            let index = self.text[start..self.pos].parse::<usize>().ok().filter(|&i| i <= u8::MAX as usize);
            let (Some(index), true) = (index, depth < MAX_BASIS_DEPTH) else {
                self.pos = start;
                return Err(self.error_raw("a basis mode index (0 to 255, at most 4 deep) after `@`"));
            };
            inner_first[depth] = index;
            depth += 1;
        }
        if depth > 0 {
            let mut path = [0usize; MAX_BASIS_DEPTH];
            for k in 0..depth {
                path[k] = inner_first[depth - 1 - k];
            }
            // Depth and indices were checked above.
            v = v.scaled(Basis::new(&path[..depth]).unwrap_or(Basis::NONE));
        }
        Ok(v)
    }

    fn eat_raw(&mut self, c: char) -> bool {
        if self.peek_raw() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn error_raw(&self, expected: &'static str) -> ParseError {
        let expected = if self.too_deep { TOO_DEEP } else { expected };
        ParseError { column: self.column(), expected, found: self.peek_raw(), invalid: None }
    }

    /// An int tuple: an integer or `( int_tuple, ... )`. Parsed without recursion (an explicit
    /// list of open tuples), so no text can exhaust the stack: nesting is bounded by the
    /// [`MAX_NODES`] nodes a tuple holds, and an error says so.
    pub(crate) fn int_tuple(&mut self) -> Result<DynIntTuple, ParseError> {
        if self.peek() != Some('(') {
            return Ok(DynIntTuple::int(self.int()?));
        }
        Ok(self.tuple_nodes(false)?.0)
    }

    /// A tuple whose leaves are integers or, if `underscores`, CuTe's `_`: the coordinate (`_0`
    /// where `_` stands) and the congruent mask (`_1` where `_` stands), without recursion.
    /// The next character must be `(`.
    pub(crate) fn tuple_nodes(
        &mut self,
        underscores: bool,
    ) -> Result<(DynIntTuple, DynIntTuple), ParseError> {
        // The nodes in preorder (coordinate and mask); each open tuple's node index, column and
        // modes so far.
        let mut nodes = [Node::Tuple(0); MAX_NODES];
        let mut keeps = [Node::Tuple(0); MAX_NODES];
        let mut len = 0usize;
        let mut open = [(0usize, 0usize, 0usize); MAX_NODES];
        let mut depth = 0usize;
        'mode: loop {
            // A mode starts here: a tuple, an integer or `_`.
            self.skip_ws();
            let col = self.column();
            if len == MAX_NODES {
                return Err(self.invalid(col, LayoutError::TooLarge));
            }
            if self.peek_raw() == Some('(') {
                self.pos += 1;
                nodes[len] = Node::Tuple(0);
                open[depth] = (len, col, 0);
                len += 1;
                depth += 1;
                if self.peek() != Some(')') {
                    continue 'mode;
                }
                // `()`: closed below with no modes.
            } else {
                if underscores && self.is_underscore() {
                    self.pos += 1;
                    nodes[len] = Node::Int(DynInt::new_static(0));
                    keeps[len] = Node::Int(DynInt::new_static(1));
                } else {
                    nodes[len] = Node::Int(self.int()?);
                    keeps[len] = Node::Int(DynInt::new_static(0));
                }
                len += 1;
                if depth == 0 {
                    break 'mode;
                }
                open[depth - 1].2 += 1;
            }
            // A mode ended: close tuples or go on after a comma.
            loop {
                match self.peek() {
                    Some(')') => {
                        self.pos += 1;
                        depth -= 1;
                        let (at, col, n) = open[depth];
                        let n = u8::try_from(n).map_err(|_| self.invalid(col, LayoutError::TooLarge))?;
                        nodes[at] = Node::Tuple(n);
                        keeps[at] = Node::Tuple(n);
                        if depth == 0 {
                            break 'mode;
                        }
                        open[depth - 1].2 += 1;
                    }
                    Some(',') => {
                        self.pos += 1;
                        continue 'mode;
                    }
                    _ => return Err(self.error("`,` or `)`")),
                }
            }
        }
        let (mut t, mut k) = (DynIntTuple::builder(), DynIntTuple::builder());
        for (n, m) in nodes[..len].iter().zip(&keeps[..len]) {
            t.push_node(*n).map_err(|e| self.invalid(1, e))?;
            k.push_node(*m).map_err(|e| self.invalid(1, e))?;
        }
        Ok((t, k))
    }
}

impl FromStr for DynIntTuple {
    type Err = ParseError;
    /// Parse CuTe notation, `(_8,(4,_2))`.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let mut p = Parser::new(s);
        let t = p.int_tuple()?;
        if !p.at_end() {
            return Err(p.error("the end of the input"));
        }
        Ok(t)
    }
}

impl FromStr for DynLayout {
    type Err = ParseError;
    /// Parse CuTe notation, `shape:stride`; the layout is checked as by [`DynLayout::new`].
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let mut p = Parser::new(s);
        let col = {
            p.skip_ws();
            p.column()
        };
        let shape = p.int_tuple()?;
        p.expect(':', "`:` between shape and stride")?;
        let stride = p.int_tuple()?;
        if !p.at_end() {
            return Err(p.error("the end of the input"));
        }
        DynLayout::new(shape, stride).map_err(|e| p.invalid(col, e))
    }
}

/// A cursor over text that holds CuTe notation among other things: notations built on this one
/// (CK Tile descriptors) read their int tuples and layouts through it, with the
/// same errors and limits as [`FromStr`]. Spaces are skipped before every token.
///
/// ```
/// use const_layout::text::Cursor;
/// let mut c = Cursor::new("embed((_3,4), (8,_1)) ;");
/// assert_eq!(c.word(), Some("embed"));
/// c.expect('(', "`(`").unwrap();
/// assert_eq!(c.int_tuple().unwrap().to_string(), "(_3,4)");
/// assert!(c.eat(','));
/// assert_eq!(c.int_tuple().unwrap().to_string(), "(8,_1)");
/// c.expect(')', "`)`").unwrap();
/// assert_eq!(c.column(), 23);
/// assert_eq!(c.expect(',', "`,`").unwrap_err().to_string(), "column 23: expected `,`, found `;`");
/// ```
pub struct Cursor<'a>(Parser<'a>);

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Cursor(Parser::new(text))
    }

    /// The next non-space character, not consumed.
    pub fn peek(&mut self) -> Option<char> {
        self.0.peek()
    }

    /// Consume `c` if it is next (after spaces).
    pub fn eat(&mut self, c: char) -> bool {
        self.0.eat(c)
    }

    /// Consume `c`, or an error expecting `expected`.
    pub fn expect(&mut self, c: char, expected: &'static str) -> Result<(), ParseError> {
        self.0.expect(c, expected)
    }

    /// Consume `s` if it is next (after spaces).
    pub fn eat_str(&mut self, s: &str) -> bool {
        self.0.skip_ws();
        if self.0.text[self.0.pos..].starts_with(s) {
            self.0.pos += s.len();
            true
        } else {
            false
        }
    }

    /// A word: `[A-Za-z_][A-Za-z0-9_]*`, consumed, or `None` (nothing consumed) if none is next.
    /// `_8` is not a word: an underscore must be followed by a letter or `_` to start one, so
    /// that CuTe's static integers stay integers.
    pub fn word(&mut self) -> Option<&'a str> {
        self.0.skip_ws();
        let text: &'a str = self.0.text;
        let rest = &text[self.0.pos..];
        let mut chars = rest.char_indices();
        let starts = match chars.next() {
            Some((_, c)) if c.is_ascii_alphabetic() => true,
            Some((_, '_')) => {
                matches!(rest[1..].chars().next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
            }
            _ => false,
        };
        if !starts {
            return None;
        }
        let end =
            chars.find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_')).map_or(rest.len(), |(k, _)| k);
        self.0.pos += end;
        Some(&rest[..end])
    }

    /// An integer in CuTe's notation: `_8` (static), `8`, `-3`.
    pub fn int(&mut self) -> Result<DynInt, ParseError> {
        self.0.skip_ws();
        self.0.int()
    }

    /// An int tuple in CuTe's notation, `(_8,(4,_2))`.
    pub fn int_tuple(&mut self) -> Result<DynIntTuple, ParseError> {
        self.0.int_tuple()
    }

    /// A layout in CuTe's notation, `shape:stride`, checked as by [`DynLayout::new`].
    pub fn layout(&mut self) -> Result<DynLayout, ParseError> {
        let col = self.column();
        let shape = self.0.int_tuple()?;
        self.0.expect(':', "`:` between shape and stride")?;
        let stride = self.0.int_tuple()?;
        DynLayout::new(shape, stride).map_err(|e| self.0.invalid(col, e))
    }

    /// The 1-based column (in characters) of the next token.
    pub fn column(&mut self) -> usize {
        self.0.skip_ws();
        self.0.column()
    }

    /// Whether only spaces are left.
    pub fn at_end(&mut self) -> bool {
        self.0.at_end()
    }

    /// An error at the next token: `expected` was expected, and the next character was found.
    pub fn error(&mut self, expected: &'static str) -> ParseError {
        self.0.error(expected)
    }

    /// The byte position of the next token, for [`Cursor::error_at`].
    pub fn position(&mut self) -> usize {
        self.0.skip_ws();
        self.0.pos
    }

    /// An error at the byte position `at` (from [`Cursor::position`]): `expected` was expected,
    /// and the character there was found.
    pub fn error_at(&mut self, at: usize, expected: &'static str) -> ParseError {
        let here = self.0.pos;
        self.0.pos = at.min(self.0.text.len());
        let e = self.0.error_raw(expected);
        self.0.pos = here;
        e
    }

    /// An error for text that parsed but whose value is invalid, at `column`.
    pub fn invalid(&self, column: usize, e: LayoutError) -> ParseError {
        self.0.invalid(column, e)
    }
}
