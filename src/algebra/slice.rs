//! Slicing: `layout(2, _)`, CuTe's `slice` and `slice_and_offset`.

use super::divide::Partition;
use super::{ModeBuilder, R};
use crate::dynamic::basis::add_values;
use crate::dynamic::{DynInt, DynIntTuple, DynLayout};
use crate::error::LayoutError;
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
    pub fn new(coord: DynIntTuple, keep: DynIntTuple) -> R<Self> {
        if !coord.congruent(&keep) {
            return Err(LayoutError::NotCongruent { what: "slice mask" });
        }
        Ok(Slicer { coord, keep })
    }

    /// `_` alone: keep everything.
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// assert_eq!(Slicer::all().to_string(), "_");
    /// ```
    pub fn all() -> Self {
        let one = DynIntTuple::int(DynInt::fixed(1));
        Slicer { coord: DynIntTuple::int(DynInt::fixed(0)), keep: one }
    }

    /// A coordinate with no `_`.
    ///
    /// ```
    /// use const_layout::algebra::Slicer;
    /// let s = Slicer::fixed("(1,2)".parse().unwrap());
    /// assert!(!s.has_underscore());
    /// ```
    pub fn fixed(coord: DynIntTuple) -> Self {
        Slicer { keep: coord.map_leaves(|_| DynInt::fixed(0)), coord }
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

/// Collect the kept modes of `layout` under `s` into `out`, returning the offset of the fixed
/// coordinates (CuTe's `lift_slice`: kept modes of nested tuples are concatenated).
fn lift(s: &Slicer, layout: &DynLayout, out: &mut ModeBuilder) -> R<DynIntTuple> {
    match s.leaf() {
        Some(None) => {
            out.push(layout)?;
            Ok(DynIntTuple::int(DynInt::fixed(0)))
        }
        Some(Some(c)) => layout.apply(&DynIntTuple::int(c)),
        None => {
            let rank = if layout.shape().is_int() { 1 } else { layout.rank() };
            if layout.shape().is_int() || s.rank() != rank {
                return Err(LayoutError::RankMismatch {
                    what: "slice coordinate",
                    got: s.rank(),
                    expected: rank,
                });
            }
            let mut offset = DynIntTuple::int(DynInt::fixed(0));
            for (i, m) in super::modes_of(layout).enumerate() {
                let sub = s.mode(i).ok_or(LayoutError::TooLarge)?;
                offset = add_values(&offset, &lift(&sub, &m, out)?)?;
            }
            Ok(offset)
        }
    }
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
pub fn slice_and_offset(coord: &Slicer, layout: &DynLayout) -> R<Partition> {
    if coord.leaf() == Some(None) {
        return Ok(Partition::new(*layout, DynIntTuple::int(DynInt::fixed(0))));
    }
    let mut out = ModeBuilder::new()?;
    let offset = lift(coord, layout, &mut out)?;
    let p = Partition::new(out.finish()?, offset);
    if !layout.has_basis() {
        return Ok(p);
    }
    // The origin as CuTe has it: the whole layout at the fixed coordinates (`_0` where `_`), so
    // it has a component for every basis of the layout.
    Ok(Partition { origin: Some(layout.apply(&coord.coord)?), offset: 0, ..p })
}

/// CuTe's `slice(coord, layout)`: the layout of the modes where `coord` is `_`.
///
/// ```
/// use const_layout::algebra::slice;
/// let l = "(_4,(_2,_3)):(_1,(_4,_8))".parse().unwrap();
/// assert_eq!(slice(&"(_,2)".parse().unwrap(), &l).unwrap().to_string(), "(_4):(_1)");
/// assert_eq!(slice(&"(1,_)".parse().unwrap(), &l).unwrap().to_string(), "((_2,_3)):((_4,_8))");
/// ```
pub fn slice(coord: &Slicer, layout: &DynLayout) -> R<DynLayout> {
    Ok(slice_and_offset(coord, layout)?.layout)
}
