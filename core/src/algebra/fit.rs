//! Fitting a CuTe mode to a function known only by its values: the greedy run-length fit that
//! `composition` uses where its divisibility conditions fail, and the bridges use to read a CK
//! descriptor or a coordinate-graph path back as a layout.
//!
//! The fit asks for values one at a time ([`ModeFit::next`], [`ModeFit::feed`]), so that a
//! `const fn` caller (which cannot pass a closure) and a closure-driven one share one algorithm.
//! The greedy choice is complete: if some flat layout of `len` elements has these values, its
//! canonical form (extent-1 modes dropped, modes merged where `d[k+1] == s[k] * d[k]`) is what the
//! fit finds, since each extent is as long as the values stay linear, and a mode of a layout
//! stops being linear exactly where the next mode starts unless the two merge. The fit reads only
//! the values at the running periods, so callers check every value afterwards.

use super::R;
use super::leaves::Leaves;
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};

/// The state of a greedy fit of a mode of `len` elements.
#[derive(Clone, Copy)]
pub struct ModeFit {
    len: isize,
    /// Product of the extents found so far: the index the next mode starts at.
    period: isize,
    /// The current mode's stride and the extent confirmed so far (while `extending`).
    stride: isize,
    extent: isize,
    extending: bool,
    failed: bool,
    modes: Leaves,
}

impl ModeFit {
    pub const fn new(len: isize) -> Self {
        ModeFit {
            len,
            period: 1,
            stride: 0,
            extent: 0,
            extending: false,
            failed: false,
            modes: <Leaves>::new(),
        }
    }

    /// The index whose value the fit needs next, or `None` when it is done (or has failed).
    pub const fn next(&mut self) -> Option<isize> {
        loop {
            if self.failed {
                return None;
            }
            if !self.extending {
                return if self.period < self.len { Some(self.period) } else { None };
            }
            match self.period.checked_mul(self.extent) {
                Some(p) if p < self.len => return Some(p),
                _ => self.close(),
            }
        }
    }

    /// The value at the index [`ModeFit::next`] returned.
    pub const fn feed(&mut self, value: isize) {
        if !self.extending {
            self.stride = value;
            self.extent = 2;
            self.extending = true;
            return;
        }
        match self.extent.checked_mul(self.stride) {
            Some(v) if v == value => self.extent += 1,
            _ => self.close(),
        }
    }

    /// End the current mode at the extent confirmed so far; it must divide the length.
    const fn close(&mut self) {
        self.extending = false;
        let extent = match self.period.checked_mul(self.extent) {
            Some(p) if p <= self.len => self.extent,
            _ => self.len / self.period,
        };
        if extent < 2
            || self.len % (self.period * extent) != 0
            || self.modes.push(DynInt::new_runtime(extent), DynInt::new_runtime(self.stride)).is_err()
        {
            self.failed = true;
            return;
        }
        self.period *= extent;
    }

    /// The fitted mode (runtime integers: a scalar `s:d`, a flat tuple, or `1:0` for one
    /// element), or `None` if the values at the periods are no layout's.
    pub const fn layout(&self) -> R<Option<DynLayout>> {
        if self.failed || self.extending || self.period < self.len {
            return Ok(None);
        }
        if self.modes.is_empty() {
            return match super::scalar(DynInt::new_runtime(1), DynInt::new_runtime(0)) {
                Ok(l) => Ok(Some(l)),
                Err(e) => Err(e),
            };
        }
        match self.modes.layout(true) {
            Ok(l) => Ok(Some(l)),
            Err(e) => Err(e),
        }
    }
}

/// The CuTe mode (a shape and a stride, nested where needed) whose offsets over `0..len` are
/// `offset(k)`, if there is one: found greedily by [`ModeFit`], then checked at every `k`. The CK
/// Tile and rocRoller bridges read a descriptor's or a coordinate-graph path's dimension back as a
/// layout mode with it.
///
/// ```
/// use const_layout_core::algebra::fit::fit_mode;
/// let (s, d) = fit_mode(12, &|k| (k % 4) * 3 + (k / 4) * 20).unwrap().unwrap();
/// assert_eq!((s.to_string(), d.to_string()), ("(4,3)".to_string(), "(3,20)".to_string()));
/// assert!(fit_mode(4, &|k| k * k).unwrap().is_none());
/// ```
pub fn fit_mode(len: isize, offset: &dyn Fn(isize) -> isize) -> R<Option<(DynIntTuple, DynIntTuple)>> {
    let mut fit = ModeFit::new(len);
    while let Some(k) = fit.next() {
        fit.feed(offset(k));
    }
    let Some(mode) = fit.layout()? else { return Ok(None) };
    Ok(if (0..len).all(|k| mode.offset(k) == offset(k)) {
        Some((*mode.shape(), *mode.stride()))
    } else {
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit(len: isize, f: impl Fn(isize) -> isize) -> Option<DynLayout> {
        let mut m = ModeFit::new(len);
        while let Some(k) = m.next() {
            m.feed(f(k));
        }
        m.layout().unwrap()
    }

    fn l(s: &str) -> DynLayout {
        s.parse().unwrap()
    }

    #[test]
    fn finds_the_canonical_form() {
        let a = l("(2,3,4):(5,1,20)");
        assert_eq!(fit(24, |k| a.offset(k)), Some(a));
        let a = l("(2,3,4):(1,2,6)");
        assert_eq!(fit(24, |k| a.offset(k)), Some(l("24:1")));
        assert_eq!(fit(1, |_| 0), Some(l("1:0")));
        // Values that are no layout's at the periods: the extent 3 does not divide 8.
        assert_eq!(fit(8, |k| [0, 1, 2, 7, 9, 9, 9, 9][k as usize]), None);
    }
}
