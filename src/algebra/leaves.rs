//! A flat list of modes (extent, stride), the working form of most of CuTe's algorithms.

use super::R;
use crate::dynamic::int_tuple::Node;
use crate::dynamic::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::LayoutError;

/// Up to [`MAX_NODES`] modes `s:d`, flat. No heap.
#[derive(Clone, Copy)]
pub(crate) struct Leaves {
    n: usize,
    s: [DynInt; MAX_NODES],
    d: [DynInt; MAX_NODES],
}

impl Leaves {
    pub(crate) fn new() -> Self {
        Leaves { n: 0, s: [DynInt::fixed(0); MAX_NODES], d: [DynInt::fixed(0); MAX_NODES] }
    }

    /// The flattened modes of a layout.
    pub(crate) fn of(l: &DynLayout) -> Self {
        let mut m = Leaves::new();
        for (s, d) in l.shape().leaves().zip(l.stride().leaves()) {
            // A layout has at most MAX_NODES integers, so this always fits.
            let _ = m.push(s, d);
        }
        m
    }

    pub(crate) fn len(&self) -> usize {
        self.n
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub(crate) fn shape(&self, k: usize) -> DynInt {
        self.s[k]
    }

    pub(crate) fn stride(&self, k: usize) -> DynInt {
        self.d[k]
    }

    pub(crate) fn set(&mut self, k: usize, s: DynInt, d: DynInt) {
        self.s[k] = s;
        self.d[k] = d;
    }

    pub(crate) fn push(&mut self, s: DynInt, d: DynInt) -> R<()> {
        if self.n >= MAX_NODES {
            return Err(LayoutError::TooLarge);
        }
        self.s[self.n] = s;
        self.d[self.n] = d;
        self.n += 1;
        Ok(())
    }

    pub(crate) fn push_front(&mut self, s: DynInt, d: DynInt) -> R<()> {
        if self.n >= MAX_NODES {
            return Err(LayoutError::TooLarge);
        }
        self.s.copy_within(0..self.n, 1);
        self.d.copy_within(0..self.n, 1);
        self.s[0] = s;
        self.d[0] = d;
        self.n += 1;
        Ok(())
    }

    pub(crate) fn remove(&mut self, k: usize) {
        self.s.copy_within(k + 1..self.n, k);
        self.d.copy_within(k + 1..self.n, k);
        self.n -= 1;
    }

    /// The layout of these modes: a tuple, or with `unwrap` a single mode as a scalar layout.
    pub(crate) fn layout(&self, unwrap: bool) -> R<DynLayout> {
        if unwrap && self.n == 1 {
            return super::scalar(self.s[0], self.d[0]);
        }
        DynLayout::new(flat_tuple(&self.s[..self.n])?, flat_tuple(&self.d[..self.n])?)
    }

    /// The same function with modes merged by value (ignoring static-ness) wherever
    /// `d[k+1] == s[k] * d[k]`, and extent-1 modes dropped except the last, which carries the
    /// function past the end of the domain. This is the form the admissibility checks read.
    pub(crate) fn merged(&self) -> Leaves {
        let mut out = self.merge(true);
        if out.n == 0 {
            let _ = out.push(DynInt::runtime(1), DynInt::runtime(0));
        }
        out
    }

    /// The canonical form of the function on `0..size`: extent-1 modes dropped, modes merged by
    /// value. Two layouts of equal size whose canonical forms are equal are equal functions.
    pub(crate) fn canonical(&self) -> Leaves {
        self.merge(false)
    }

    fn merge(&self, keep_last: bool) -> Leaves {
        let mut out = Leaves::new();
        for k in 0..self.n {
            let (s, d, basis) = (self.s[k].value, self.d[k].value, self.d[k].basis);
            if s == 1 && !(keep_last && k + 1 == self.n) {
                continue;
            }
            if out.n > 0 {
                let (ps, pd) = (out.s[out.n - 1].value, out.d[out.n - 1]);
                if ps.checked_mul(pd.value) == Some(d) && (pd.basis == basis || d == 0) {
                    out.s[out.n - 1] = DynInt::runtime(ps * s);
                    continue;
                }
            }
            let _ = out.push(DynInt::runtime(s), DynInt::runtime(d).scaled(basis));
        }
        out
    }

    /// Equal as values (static-ness ignored).
    pub(crate) fn same_values(&self, other: &Leaves) -> bool {
        self.n == other.n
            && (0..self.n).all(|k| {
                let (d, e) = (self.d[k], other.d[k]);
                self.s[k].value == other.s[k].value
                    && d.value == e.value
                    && (d.basis == e.basis || d.value == 0)
            })
    }
}

/// The flat tuple of these integers, built in place (no tuple per integer).
fn flat_tuple(values: &[DynInt]) -> R<DynIntTuple> {
    let mut t = DynIntTuple::builder();
    t.push_node(Node::Tuple(u8::try_from(values.len()).map_err(|_| LayoutError::TooLarge)?))?;
    for v in values {
        t.push_node(Node::Int(*v))?;
    }
    Ok(t)
}
