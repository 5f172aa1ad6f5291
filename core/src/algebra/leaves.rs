//! A flat list of modes (extent, stride), the working form of most of CuTe's algorithms.

use super::R;
use crate::dyn_layout::int_tuple::Node;
use crate::dyn_layout::ops::Sizes;
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout, MAX_NODES};
use crate::error::{LayoutError, tri};

/// Up to `N` modes `s:d`, flat (by default [`MAX_NODES`], as many as a layout has). No heap.
///
/// The algebra's working form. Every list is copied and cleared whole, so the algorithms run
/// first on lists of [`SMALL`] modes (an eighth of the bytes), which hold the modes of most
/// layouts, and again on full ones only where a small list runs out of room: the same code, so
/// the same answer ([`LayoutError::TooLarge`] from the small lists means "retry", nothing else).
#[derive(Clone, Copy)]
pub struct Leaves<const N: usize = MAX_NODES> {
    n: usize,
    s: [DynInt; N],
    d: [DynInt; N],
}

/// The capacity of the small working lists (see [`Leaves`]).
pub const SMALL: usize = 8;

impl<const N: usize> Default for Leaves<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl Leaves {
    /// The flattened modes of a layout (a layout has at most [`MAX_NODES`] integers, so they fit).
    pub const fn of(l: &DynLayout) -> Self {
        match Leaves::try_of(l) {
            Ok(m) => m,
            Err(_) => Leaves::new(),
        }
    }
}

impl<const N: usize> Leaves<N> {
    pub const fn new() -> Self {
        // All-zero bytes (a runtime 0): one `memset`, where a static 0 takes a store per mode.
        Leaves { n: 0, s: [DynInt::new_runtime(0); N], d: [DynInt::new_runtime(0); N] }
    }

    /// The flattened modes of a layout; `Err(TooLarge)` if they are more than `N`.
    pub const fn try_of(l: &DynLayout) -> R<Self> {
        let mut m = Leaves::new();
        // The shape and the stride are congruent: their integers pair up in node order.
        let (s, d) = (l.shape(), l.stride());
        let mut k = 0;
        let mut kd = 0;
        while let (Some((sk, sn)), Some((dk, dn))) = (s.read(k), d.read(kd)) {
            (k, kd) = (sn, dn);
            if let (Node::Int(sv), Node::Int(dv)) = (sk, dk) {
                tri!(m.push(sv, dv));
            }
        }
        Ok(m)
    }

    /// No modes (the capacity's contents stay; only the first `len` are read).
    pub const fn clear(&mut self) {
        self.n = 0;
    }

    pub const fn len(&self) -> usize {
        self.n
    }

    pub const fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub const fn shape(&self, k: usize) -> DynInt {
        self.s[k]
    }

    pub const fn stride(&self, k: usize) -> DynInt {
        self.d[k]
    }

    pub const fn set(&mut self, k: usize, s: DynInt, d: DynInt) {
        self.s[k] = s;
        self.d[k] = d;
    }

    pub const fn push(&mut self, s: DynInt, d: DynInt) -> R<()> {
        if self.n >= N {
            return Err(LayoutError::TooLarge);
        }
        self.s[self.n] = s;
        self.d[self.n] = d;
        self.n += 1;
        Ok(())
    }

    pub const fn push_front(&mut self, s: DynInt, d: DynInt) -> R<()> {
        if self.n >= N {
            return Err(LayoutError::TooLarge);
        }
        let mut k = self.n;
        while k > 0 {
            self.s[k] = self.s[k - 1];
            self.d[k] = self.d[k - 1];
            k -= 1;
        }
        self.s[0] = s;
        self.d[0] = d;
        self.n += 1;
        Ok(())
    }

    pub const fn remove(&mut self, k: usize) {
        let mut j = k;
        while j + 1 < self.n {
            self.s[j] = self.s[j + 1];
            self.d[j] = self.d[j + 1];
            j += 1;
        }
        self.n -= 1;
    }

    /// The extents and the strides, as slices of the list's length.
    pub const fn values(&self) -> (&[DynInt], &[DynInt]) {
        (self.s.split_at(self.n).0, self.d.split_at(self.n).0)
    }

    /// The layout of these modes: a tuple, or with `unwrap` a single mode as a scalar layout.
    pub const fn layout(&self, unwrap: bool) -> R<DynLayout> {
        if unwrap && self.n == 1 {
            return super::scalar(self.s[0], self.d[0]);
        }
        DynLayout::flat(&self.s, &self.d, self.n)
    }

    /// The checks [`DynLayout::new`] makes on the layout of these modes (integer strides),
    /// in its order, without building it: extents, size, cosize.
    pub const fn check_values(&self) -> R<()> {
        match self.sizes() {
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The size and cosize of the layout of these modes (integer strides), with
    /// [`Leaves::check_values`]'s checks.
    pub const fn sizes(&self) -> R<(DynInt, DynInt)> {
        let (s, d) = self.values();
        Sizes::of(s, d)
    }

    /// The shape of [`Leaves::layout`] (checked there).
    pub const fn shape_tuple(&self, unwrap: bool) -> R<DynIntTuple> {
        if unwrap && self.n == 1 {
            return Ok(DynIntTuple::int(self.s[0]));
        }
        flat_tuple(&self.s, self.n)
    }

    /// The same function with modes merged by value (ignoring static-ness) wherever
    /// `d[k+1] == s[k] * d[k]`, and extent-1 modes dropped except the last, which carries the
    /// function past the end of the domain. This is the form the admissibility checks read.
    pub const fn merged(&self) -> Leaves<N> {
        let mut out = self.merge(true);
        if out.n == 0 {
            let _ = out.push(DynInt::new_runtime(1), DynInt::new_runtime(0));
        }
        out
    }

    /// The canonical form of the function on `0..size`: extent-1 modes dropped, modes merged by
    /// value. Two layouts of equal size whose canonical forms are equal are equal functions.
    pub const fn canonical(&self) -> Leaves<N> {
        self.merge(false)
    }

    const fn merge(&self, keep_last: bool) -> Leaves<N> {
        let mut out = Leaves::new();
        let mut k = 0;
        while k < self.n {
            let (s, d, basis) = (self.s[k].value, self.d[k].value, self.d[k].basis);
            k += 1;
            if s == 1 && !(keep_last && k == self.n) {
                continue;
            }
            if out.n > 0 {
                let (ps, pd) = (out.s[out.n - 1].value, out.d[out.n - 1]);
                if super::rules::joins(ps, pd.value, d) && (pd.basis.same(&basis) || d == 0) {
                    out.s[out.n - 1] = DynInt::new_runtime(ps * s);
                    continue;
                }
            }
            let _ = out.push(DynInt::new_runtime(s), DynInt::new_runtime(d).scaled(basis));
        }
        out
    }

    /// Whether the canonical forms ([`Leaves::canonical`]) are equal as values, read mode by mode
    /// without building them.
    pub const fn same_canonical(&self, other: &Leaves<N>) -> bool {
        let (mut a, mut b) = (0, 0);
        loop {
            match (self.next_canonical(&mut a), other.next_canonical(&mut b)) {
                (None, None) => return true,
                (Some((s, d)), Some((t, e))) => {
                    if s != t || d.value != e.value || !(d.basis.same(&e.basis) || d.value == 0) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }

    /// The canonical mode starting at position `*k` (extent and stride; the stride keeps its
    /// basis), advancing `*k` past the modes merged into it: `merge(false)` one mode at a time.
    const fn next_canonical(&self, k: &mut usize) -> Option<(isize, DynInt)> {
        while *k < self.n && self.s[*k].value == 1 {
            *k += 1;
        }
        if *k >= self.n {
            return None;
        }
        let (mut ps, pd) = (self.s[*k].value, self.d[*k]);
        *k += 1;
        while *k < self.n {
            let (s, d, basis) = (self.s[*k].value, self.d[*k].value, self.d[*k].basis);
            if s == 1 {
                *k += 1;
                continue;
            }
            if super::rules::joins(ps, pd.value, d) && (pd.basis.same(&basis) || d == 0) {
                ps *= s;
                *k += 1;
            } else {
                break;
            }
        }
        Some((ps, pd))
    }

    /// Equal as values (static-ness ignored).
    pub const fn same_values(&self, other: &Leaves<N>) -> bool {
        if self.n != other.n {
            return false;
        }
        let mut k = 0;
        while k < self.n {
            let (d, e) = (self.d[k], other.d[k]);
            if self.s[k].value != other.s[k].value
                || d.value != e.value
                || !(d.basis.same(&e.basis) || d.value == 0)
            {
                return false;
            }
            k += 1;
        }
        true
    }
}

/// The flat tuple of the first `n` integers of `values`, built in place (no tuple per integer).
pub const fn flat_tuple(values: &[DynInt], n: usize) -> R<DynIntTuple> {
    if n > u8::MAX as usize {
        return Err(LayoutError::TooLarge);
    }
    let mut t = DynIntTuple::builder();
    tri!(t.push_node(Node::Tuple(n as u8)));
    let mut k = 0;
    while k < n {
        tri!(t.push_node(Node::Int(values[k])));
        k += 1;
    }
    Ok(t)
}
