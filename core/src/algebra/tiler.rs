//! Tilers: what `composition`, the divides and the products take as their right operand.
//!
//! CuTe accepts a layout, an integer `n` (the layout `n:_1`), or a by-mode tuple whose items are
//! again tilers (`make_tile(...)`), where `_` keeps the mode. In text a by-mode tiler is written
//! `<3:3, (2,4):(1,8)>`, or as CuTe prints a `Tile`, a tuple with a layout among its modes,
//! `(3:3,(2,4):(1,8))`; a plain shape `(2,4)` means `<2:_1, 4:_1>`.

use super::R;
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::{LayoutError, tri};
use crate::text::{ParseError, Parser};
use core::fmt;
use core::str::FromStr;

/// The most items a by-mode tiler has.
pub const MAX_TILE_MODES: usize = 16;

/// A right operand of `composition`, the divides and the products.
// Both variants hold one layout; the size difference is the kinds array.
///
/// ```
/// use const_layout::algebra::Tiler;
/// let t: Tiler = "<_3:_3, (_2,_4):(_1,_8), _>".parse().unwrap();
/// assert_eq!(t.to_string(), "<_3:_3, (_2,_4):(_1,_8), _>");
/// let s: Tiler = "(_2,_4)".parse().unwrap();
/// assert_eq!(s.to_string(), "<_2, _4>");
/// let l: Tiler = "_4:_2".parse().unwrap();
/// assert!(matches!(l, Tiler::Layout(_)));
/// // A tuple of layouts, as CuTe prints a `Tile`, is the same by-mode tiler.
/// let c: Tiler = "(_3:_3,(_2,_4):(_1,_8),_)".parse().unwrap();
/// assert_eq!(c, t);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiler {
    /// One layout, applied to the whole left operand.
    Layout(DynLayout),
    /// One item per mode of the left operand.
    Modes(TileModes),
}

/// One item of a by-mode tiler.
///
/// ```
/// use const_layout::algebra::{TileMode, Tiler};
/// let Tiler::Modes(items) = "<_, _4:_2, (_2,_2)>".parse().unwrap() else { unreachable!() };
/// assert!(matches!(items.get(0), TileMode::Keep));
/// assert!(matches!(items.get(1), TileMode::Layout(_)));
/// assert!(matches!(items.get(2), TileMode::Shape(_)));
/// ```
// No heap in the library, so a layout item is held inline; tilers are built once per call.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileMode {
    /// `_`: leave the mode as it is.
    Keep,
    /// A layout for this mode.
    Layout(DynLayout),
    /// An int tuple: an integer `n` means `n:_1`, a tuple is again by-mode.
    Shape(DynIntTuple),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Keep,
    Layout,
    Shape,
}

/// The items of a by-mode tiler, stored as the modes of one layout (no heap).
///
/// ```
/// use const_layout::algebra::Tiler;
/// let Tiler::Modes(items) = "<_2:_1, _3:_1>".parse().unwrap() else { unreachable!() };
/// assert_eq!((items.len(), items.is_empty()), (2, false));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileModes {
    modes: DynLayout,
    kinds: [Kind; MAX_TILE_MODES],
    n: usize,
}

impl TileModes {
    /// The number of items.
    ///
    /// ```
    /// use const_layout::algebra::Tiler;
    /// let Tiler::Modes(items) = "<_2:_1, _3:_1>".parse().unwrap() else { unreachable!() };
    /// assert_eq!(items.len(), 2);
    /// ```
    pub const fn len(&self) -> usize {
        self.n
    }

    /// Whether there are none.
    ///
    /// ```
    /// use const_layout::algebra::Tiler;
    /// let Tiler::Modes(items) = "<_2:_1, _3:_1>".parse().unwrap() else { unreachable!() };
    /// assert!(!items.is_empty());
    /// ```
    pub const fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Item `i` (`Keep` past the end).
    ///
    /// ```
    /// use const_layout::algebra::Tiler;
    /// let Tiler::Modes(items) = "<_2:_1, _3:_1>".parse().unwrap() else { unreachable!() };
    /// assert!(matches!(items.get(5), const_layout::algebra::TileMode::Keep)); // past the end
    /// ```
    pub const fn get(&self, i: usize) -> TileMode {
        if i >= self.n {
            return TileMode::Keep;
        }
        let m = match self.modes.mode(i) {
            Some(m) => m,
            None => DynLayout::UNIT,
        };
        match self.kinds[i] {
            Kind::Keep => TileMode::Keep,
            Kind::Layout => TileMode::Layout(m),
            Kind::Shape => TileMode::Shape(*m.shape()),
        }
    }
}

impl Tiler {
    /// A by-mode tiler from its items.
    ///
    /// ```
    /// use const_layout::algebra::{TileMode, Tiler};
    /// let t = Tiler::by_mode(&[TileMode::Keep, TileMode::Layout("_2:_1".parse().unwrap())]).unwrap();
    /// assert_eq!(t.to_string(), "<_, _2:_1>");
    /// ```
    pub const fn by_mode(items: &[TileMode]) -> R<Tiler> {
        let mut b = tri!(TilerBuilder::new());
        let mut k = 0;
        while k < items.len() {
            // Each item pushed from where it is (a layout is not copied on the way).
            tri!(b.push(&items[k]));
            k += 1;
        }
        b.finish()
    }

    /// A shape used as a tiler: an integer `n` is the layout `make_layout(n)` (`n:_1`, or `_1:_0`
    /// for a static 1), a tuple is by-mode.
    ///
    /// ```
    /// use const_layout::algebra::Tiler;
    /// assert_eq!(Tiler::from_shape(&"(_2,(_2,4))".parse().unwrap()).unwrap().to_string(), "<_2, (_2,4)>");
    /// ```
    pub const fn from_shape(shape: &DynIntTuple) -> R<Tiler> {
        match shape.as_int() {
            // CuTe's `make_layout(n)`: compact, so a static `_1` gets stride `_0`.
            Some(n) => Ok(Tiler::Layout(tri!(DynLayout::compact(DynIntTuple::int(n), true)))),
            None => {
                let mut items = [TileMode::Keep; MAX_TILE_MODES];
                let n = shape.rank();
                if n > MAX_TILE_MODES {
                    return Err(LayoutError::TooLarge);
                }
                let mut k = 0;
                while k < n {
                    let Some(m) = shape.mode(k) else { return Err(LayoutError::TooLarge) };
                    items[k] = TileMode::Shape(m);
                    k += 1;
                }
                Tiler::by_mode(items.split_at(n).0)
            }
        }
    }
}

/// A by-mode tiler built one item at a time ([`Tiler::by_mode`], and the expression parser's
/// tuples of layouts): the items go straight into the one layout that holds them.
pub(crate) struct TilerBuilder {
    kinds: [Kind; MAX_TILE_MODES],
    modes: super::ModeBuilder,
    n: usize,
}

impl TilerBuilder {
    pub(crate) const fn new() -> R<Self> {
        Ok(TilerBuilder { kinds: [Kind::Keep; MAX_TILE_MODES], modes: tri!(super::ModeBuilder::new()), n: 0 })
    }

    /// Append `item`; `TooLarge` past [`MAX_TILE_MODES`] items.
    pub(crate) const fn push(&mut self, item: &TileMode) -> R<()> {
        if self.n == MAX_TILE_MODES {
            return Err(LayoutError::TooLarge);
        }
        match item {
            TileMode::Keep => {
                self.kinds[self.n] = Kind::Keep;
                tri!(self.modes.push(&DynLayout::UNIT));
            }
            TileMode::Layout(l) => {
                self.kinds[self.n] = Kind::Layout;
                tri!(self.modes.push(l));
            }
            TileMode::Shape(s) => {
                self.kinds[self.n] = Kind::Shape;
                tri!(self.modes.push(&tri!(DynLayout::new(*s, DynIntTuple::int(DynInt::new_static(0))))));
            }
        }
        self.n += 1;
        Ok(())
    }

    pub(crate) const fn finish(self) -> R<Tiler> {
        Ok(Tiler::Modes(TileModes { modes: tri!(self.modes.finish()), kinds: self.kinds, n: self.n }))
    }
}

impl TileMode {
    /// This item as a tiler of its own (for the recursion into a mode).
    pub(crate) const fn as_tiler(&self) -> R<Option<Tiler>> {
        Ok(match self {
            TileMode::Keep => None,
            TileMode::Layout(l) => Some(Tiler::Layout(*l)),
            TileMode::Shape(s) => Some(tri!(Tiler::from_shape(s))),
        })
    }
}

impl fmt::Display for Tiler {
    /// `<item, ...>` for a by-mode tiler; a layout prints as itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::Modes(m) => {
                f.write_str("<")?;
                for i in 0..m.n {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match m.get(i) {
                        TileMode::Keep => f.write_str("_")?,
                        TileMode::Layout(l) => write!(f, "{l}")?,
                        TileMode::Shape(s) => write!(f, "{s}")?,
                    }
                }
                f.write_str(">")
            }
        }
    }
}

impl Parser<'_> {
    /// A tiler: `<item, ...>`, a layout `shape:stride`, or a shape.
    pub(crate) fn tiler(&mut self) -> Result<Tiler, ParseError> {
        let col = {
            self.skip_ws();
            self.column()
        };
        if self.eat('<') {
            let mut items = [TileMode::Keep; MAX_TILE_MODES];
            let mut n = 0;
            loop {
                if n == MAX_TILE_MODES {
                    return Err(self.invalid(col, LayoutError::TooLarge));
                }
                items[n] = self.tile_mode()?;
                n += 1;
                if self.eat('>') {
                    break;
                }
                self.expect(',', "`,` or `>`")?;
            }
            return Tiler::by_mode(&items[..n]).map_err(|e| self.invalid(col, e));
        }
        let start = self.mark();
        let first = match self.tile_mode() {
            Ok(m) => m,
            // A tuple of layouts, as CuTe prints a `Tile`: `(_2:_1,_2:_1)` is `<_2:_1, _2:_1>`.
            // (A tuple that is neither a shape nor a layout: the error is the first reading's.)
            Err(e) => {
                self.reset(start);
                if !self.eat('(') {
                    return Err(e);
                }
                return self.tile_tuple(col).map_err(|_| e);
            }
        };
        match first {
            TileMode::Layout(l) => Ok(Tiler::Layout(l)),
            TileMode::Shape(s) => Tiler::from_shape(&s).map_err(|e| self.invalid(col, e)),
            TileMode::Keep => {
                Err(ParseError { column: col, expected: "a tiler", found: Some('_'), invalid: None })
            }
        }
    }

    /// The items of a by-mode tiler written as a tuple, after its `(`, through its `)`.
    fn tile_tuple(&mut self, col: usize) -> Result<Tiler, ParseError> {
        let mut b = TilerBuilder::new().map_err(|e| self.invalid(col, e))?;
        loop {
            let item = self.tile_mode()?;
            b.push(&item).map_err(|e| self.invalid(col, e))?;
            if self.eat(')') {
                break;
            }
            self.expect(',', "`,` or `)`")?;
        }
        b.finish().map_err(|e| self.invalid(col, e))
    }

    /// One tiler item: `_`, a layout, or a shape.
    pub(crate) fn tile_mode(&mut self) -> Result<TileMode, ParseError> {
        self.skip_ws();
        if self.is_underscore() {
            self.pos += 1;
            return Ok(TileMode::Keep);
        }
        let col = self.column();
        let shape = self.int_tuple()?;
        if self.eat(':') {
            let stride = self.int_tuple()?;
            return DynLayout::new(shape, stride).map(TileMode::Layout).map_err(|e| self.invalid(col, e));
        }
        Ok(TileMode::Shape(shape))
    }

    /// Whether the next token is a lone `_` (CuTe's `Underscore`), not the start of `_8`.
    pub(crate) fn is_underscore(&mut self) -> bool {
        let rest = &self.text[self.pos..];
        rest.starts_with('_') && !rest[1..].starts_with(|c: char| c.is_ascii_digit() || c == '-')
    }
}

impl FromStr for Tiler {
    type Err = ParseError;
    /// Parse `<3:3, (2,4):(1,8)>`, a layout, or a shape.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let mut p = Parser::new(s);
        let t = p.tiler()?;
        if !p.at_end() {
            return Err(p.error("the end of the input"));
        }
        Ok(t)
    }
}
