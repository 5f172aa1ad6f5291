//! Slicing: `layout(2, _)`, CuTe's `slice` and `slice_and_offset`.

use super::divide::LayoutPartition;
use super::{ModeBuilder, R};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use crate::error::{LayoutError, tri};
use core::fmt;

/// A coordinate in which some leaves are CuTe's `_` (keep this mode): `(_, 2)`, `(1, (_, 0))`.
///
/// A `_` may stand for a whole nested mode, which is then kept as one mode.
///
/// ```
/// use const_layout::algebra::Slicer;
/// let s: Slicer = "(_,(1,_))".parse().unwrap();
/// assert_eq!(s.to_string(), "(_,(1,_))");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slicer {
    /// The coordinate, with `0` where `keep` says `_`.
    coord: DynIntTuple,
    /// Congruent with `coord`: `1` for `_`, `0` for a fixed coordinate.
    keep: DynIntTuple,
}

impl Slicer {
    /// From a coordinate and a congruent mask (`1` where the coordinate is `_`).
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// let s = Slicer::new("(0,2)".parse().unwrap(), "(1,0)".parse().unwrap()).unwrap();
    /// assert_eq!(s.to_string(), "(_,2)");
    /// ```
    pub const fn new(coord: DynIntTuple, keep: DynIntTuple) -> R<Self> {
        if !coord.congruent(&keep) {
            return Err(LayoutError::NotCongruent { what: "slice mask" });
        }
        Ok(Slicer { coord, keep })
    }

    /// The coordinate, with `0` where the slicer has `_`.
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// let s: Slicer = "(_,2)".parse().unwrap();
    /// assert_eq!(s.coord().to_string(), "(_0,2)"); // `_` reads as a static 0
    /// ```
    pub const fn coord(&self) -> &DynIntTuple {
        &self.coord
    }

    /// `_` alone: keep everything.
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// assert_eq!(Slicer::all().to_string(), "_");
    /// ```
    pub fn all() -> Self {
        let one = DynIntTuple::int(DynInt::new_static(1));
        Slicer { coord: DynIntTuple::int(DynInt::new_static(0)), keep: one }
    }

    /// A coordinate with no `_`.
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// let s = Slicer::fixed("(1,2)".parse().unwrap());
    /// assert!(!s.has_underscore());
    /// ```
    pub fn fixed(coord: DynIntTuple) -> Self {
        Slicer { keep: coord.map_leaves(|_| DynInt::new_static(0)), coord }
    }

    /// The coordinate and the mask (`1` where `_`).
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// let (c, k) = "(_,2)".parse::<Slicer>().unwrap().parts();
    /// assert_eq!((c.to_string(), k.to_string()), ("(_0,2)".to_string(), "(_1,_0)".to_string()));
    /// ```
    pub fn parts(&self) -> (DynIntTuple, DynIntTuple) {
        (self.coord, self.keep)
    }

    /// Mode `i` of a tuple slicer.
    pub(crate) fn mode(&self, i: usize) -> Option<Slicer> {
        Some(Slicer { coord: self.coord.mode(i)?, keep: self.keep.mode(i)? })
    }

    /// The leaf, if this slicer is one: `None` for `_`, `Some(c)` for a coordinate.
    fn leaf(&self) -> Option<Option<DynInt>> {
        let k = self.keep.as_int()?;
        Some(if k.value == 1 { None } else { self.coord.as_int() })
    }

    /// The modes of a tuple slicer.
    pub(crate) fn rank(&self) -> usize {
        self.coord.rank()
    }

    /// Whether any leaf is `_`.
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// assert!("(_,2)".parse::<Slicer>().unwrap().has_underscore());
    /// ```
    pub fn has_underscore(&self) -> bool {
        self.keep.leaves().any(|k| k.value == 1)
    }
}

impl fmt::Display for Slicer {
    /// CuTe notation with `_` for kept modes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.leaf() {
            Some(None) => f.write_str("_"),
            Some(Some(c)) => write!(f, "{c}"),
            None => {
                f.write_str("(")?;
                for i in 0..self.rank() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    if let Some(m) = self.mode(i) {
                        write!(f, "{m}")?;
                    }
                }
                f.write_str(")")
            }
        }
    }
}

impl core::str::FromStr for Slicer {
    type Err = crate::text::ParseError;
    /// `(_,2)`, `_`, `(1,(_,0))`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut p = crate::text::Parser::new(s);
        let t = p.slicer()?;
        if !p.at_end() {
            return Err(p.error("the end of the input"));
        }
        Ok(t)
    }
}

impl crate::text::Parser<'_> {
    /// A slicing coordinate: an integer, `_`, or a tuple of them.
    pub(crate) fn slicer(&mut self) -> Result<Slicer, crate::text::ParseError> {
        self.skip_ws();
        let col = self.column();
        if self.is_underscore() {
            self.pos += 1;
            return Ok(Slicer::all());
        }
        if self.peek() == Some('(') {
            // Without recursion (`text.rs`): no text can exhaust the stack.
            let (coord, keep) = self.tuple_nodes(true)?;
            return Slicer::new(coord, keep).map_err(|e| self.invalid(col, e));
        }
        if !self.eat('(') {
            return Ok(Slicer::fixed(DynIntTuple::int(self.int()?)));
        }
        let mut coords = DynIntTuple::EMPTY;
        let mut keeps = DynIntTuple::EMPTY;
        let mut n = 0;
        if !self.eat(')') {
            loop {
                let m = self.slicer()?;
                let err = |e| self.invalid(col, e);
                coords = push_mode(&coords, n, &m.coord).map_err(err)?;
                keeps = push_mode(&keeps, n, &m.keep).map_err(err)?;
                n += 1;
                if self.eat(')') {
                    break;
                }
                self.expect(',', "`,` or `)`")?;
            }
        }
        Ok(Slicer { coord: coords, keep: keeps })
    }
}

fn push_mode(t: &DynIntTuple, n: usize, m: &DynIntTuple) -> R<DynIntTuple> {
    DynIntTuple::from_modes(t.modes().take(n).chain(core::iter::once(*m)))
}

/// Collect the kept modes of `layout` under the keep mask `keep` (congruent with the slicer) into
/// `out` (CuTe's `lift_slice`: kept modes of nested tuples are concatenated).
const fn keep_modes(keep: &DynIntTuple, layout: &DynLayout, out: &mut ModeBuilder) -> R<()> {
    if let Some(k) = keep.as_int() {
        return if k.value == 1 { out.push(layout) } else { Ok(()) };
    }
    let rank = if layout.shape().is_int() { 1 } else { layout.rank() };
    if layout.shape().is_int() || keep.rank() != rank {
        return Err(LayoutError::RankMismatch { what: "slice coordinate", got: keep.rank(), expected: rank });
    }
    let mut i = 0;
    while i < rank {
        let (Some(k), Some(m)) = (keep.mode(i), layout.mode(i)) else { return Err(LayoutError::TooLarge) };
        tri!(keep_modes(&k, &m, out));
        i += 1;
    }
    Ok(())
}

/// CuTe's `slice_and_offset(coord, layout)`: the layout of the modes where `coord` is `_`, and the
/// offset of the fixed coordinates.
///
/// ```
/// use const_layout::algebra::slice_and_offset;
/// let l = "(_4,(_2,_3)):(_1,(_4,_8))".parse().unwrap();
/// let p = slice_and_offset(&"(2,(_,1))".parse().unwrap(), &l).unwrap();
/// assert_eq!((p.layout.to_string(), p.offset), ("(_2):(_4)".to_string(), 10));
/// ```
pub fn slice_and_offset(coord: &Slicer, layout: &DynLayout) -> R<LayoutPartition> {
    // The offset is the layout at the coordinate with `_` at 0 (for basis strides, a coordinate
    // with a component for every basis, as CuTe's origin has).
    Ok(LayoutPartition::new(slice(coord, layout)?, layout.apply(&coord.coord)?))
}
/// CuTe's `slice(coord, layout)`: the layout of the modes where `coord` is `_`.
///
/// ```
/// use const_layout::algebra::slice;
/// let l = "(_4,(_2,_3)):(_1,(_4,_8))".parse().unwrap();
/// assert_eq!(slice(&"(_,2)".parse().unwrap(), &l).unwrap().to_string(), "(_4):(_1)");
/// assert_eq!(slice(&"(1,_)".parse().unwrap(), &l).unwrap().to_string(), "((_2,_3)):((_4,_8))");
/// ```
pub const fn slice(coord: &Slicer, layout: &DynLayout) -> R<DynLayout> {
    if let Some(k) = coord.keep.as_int()
        && k.value == 1
    {
        return Ok(*layout);
    }
    let mut out = tri!(ModeBuilder::new());
    tri!(keep_modes(&coord.keep, layout, &mut out));
    out.finish()
}
