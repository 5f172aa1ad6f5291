//! The searches by value behind [`super::right_inverse`] and [`super::left_inverse`], for the
//! layouts where following the strides (CuTe's algorithms) does not give the answer.
//!
//! Both search flat layouts `(e0,e1,...):(d0,d1,...)` mode by mode, from the fastest: a layout
//! is fixed by its extents and its values at the running products of the extents (its strides),
//! so a search over those is exhaustive. Both work on fixed arrays (no heap) over at most
//! [`BY_VALUE_LIMIT`] elements or offsets and count their steps: past [`EFFORT_LIMIT`] the right
//! inverse search keeps the best layout found so far (still a right inverse) and the left
//! inverse search gives up with [`Inadmissible::SearchEffort`].

use super::R;
use super::composition::BY_VALUE_LIMIT;
use super::lattice::{Determined, Overflow, Row, System, UNKNOWNS};
use super::leaves::Leaves;
use crate::dyn_layout::{DynInt, MAX_NODES};
use crate::error::Inadmissible;
use crate::error::{LayoutError, tri};

/// The most steps (evaluations of the layout, or equations) a search takes.
pub(crate) const EFFORT_LIMIT: isize = 1 << 20;

/// The most steps the quasi-inverse search takes (each tries an index for an offset, or reads
/// an offset the strides fix).
pub(crate) const QUASI_EFFORT_LIMIT: isize = 1 << 18;

const LIMIT: usize = BY_VALUE_LIMIT as usize;

/// Flat modes as plain values, evaluated on the domain (`i < size`, first mode fastest).
#[derive(Clone, Copy)]
pub(crate) struct Flat {
    n: usize,
    s: [isize; MAX_NODES],
    d: [isize; MAX_NODES],
}

impl Flat {
    pub(crate) const fn of(l: &Leaves) -> Flat {
        let mut f = Flat { n: l.len(), s: [1; MAX_NODES], d: [0; MAX_NODES] };
        let mut k = 0;
        while k < l.len() {
            f.s[k] = l.shape(k).value;
            f.d[k] = l.stride(k).value;
            k += 1;
        }
        f
    }

    /// The size, or `None` past [`BY_VALUE_LIMIT`].
    const fn size(&self) -> Option<isize> {
        let (mut n, mut k) = (1isize, 0);
        while k < self.n {
            n = match n.checked_mul(self.s[k]) {
                Some(v) if v <= BY_VALUE_LIMIT => v,
                _ => return None,
            };
            k += 1;
        }
        Some(n)
    }

    const fn at(&self, i: isize) -> isize {
        colex(&self.s, &self.d, self.n, i)
    }
}

/// The value at index `i` (in the domain) of the flat modes `s[..n]:d[..n]`, first mode fastest.
const fn colex(s: &[isize], d: &[isize], n: usize, mut i: isize) -> isize {
    let (mut v, mut k) = (0, 0);
    while k < n {
        v += (i % s[k]) * d[k];
        i /= s[k];
        k += 1;
    }
    v
}

/// A layout found: extents and strides, flat.
#[derive(Clone, Copy)]
pub(crate) struct Found {
    pub(crate) n: usize,
    pub(crate) e: [isize; UNKNOWNS],
    pub(crate) d: [isize; UNKNOWNS],
}

impl Found {
    const fn new() -> Found {
        Found { n: 0, e: [1; UNKNOWNS], d: [0; UNKNOWNS] }
    }

    const fn size(&self) -> isize {
        let (mut p, mut k) = (1, 0);
        while k < self.n {
            p *= self.e[k];
            k += 1;
        }
        p
    }

    const fn at(&self, i: isize) -> isize {
        colex(&self.e, &self.d, self.n, i)
    }

    const fn with(&self, e: isize, d: isize) -> Found {
        let mut f = *self;
        f.e[f.n] = e;
        f.d[f.n] = d;
        f.n += 1;
        f
    }

    /// As modes, every integer static or every one runtime.
    pub(crate) const fn leaves(&self, is_static: bool) -> R<Leaves> {
        let mut out = <Leaves>::new();
        let mut k = 0;
        while k < self.n {
            if let Err(e) = out.push(DynInt::new(self.e[k], is_static), DynInt::new(self.d[k], is_static)) {
                return Err(e);
            }
            k += 1;
        }
        Ok(out)
    }
}

// ---- right inverse ----------------------------------------------------------------------------

/// The largest right inverse of `a` (`a(R(i)) == i` for `i < size(R)`, `0 <= R(i) < size(a)`) if
/// it has more than `known` elements; `None` if none does or if `a` has more than
/// [`BY_VALUE_LIMIT`] elements. A search cut short by `limit` steps gives the largest it found
/// (`None` if none was larger than `known`).
///
/// No right inverse is larger than `n`, the first offset `a` does not reach (its offsets below
/// `n` are `0..n`). The search tries every stride `R` can have at each running product `p`
/// (an index `x` with `a(x) == p`), each extent it can take there, and stops at `n`.
pub(crate) const fn largest_right_inverse(a: &Flat, known: isize, limit: isize) -> Option<Found> {
    let Some(size) = a.size() else { return None };
    let mut seen = [0u64; LIMIT / 64];
    let mut i = 0;
    while i < size {
        let o = a.at(i);
        if o >= 0 && o < size {
            seen[o as usize / 64] |= 1 << (o as usize % 64);
        }
        i += 1;
    }
    let mut n = 0;
    while n < size && seen[n as usize / 64] & (1 << (n as usize % 64)) != 0 {
        n += 1;
    }
    if known >= n {
        return None;
    }
    let mut s = RightSearch { a, size, n, best: known, found: None, steps: size, limit };
    s.extend(&Found::new());
    s.found
}

struct RightSearch<'a> {
    a: &'a Flat,
    size: isize,
    /// The bound: the first offset not reached.
    n: isize,
    best: isize,
    found: Option<Found>,
    steps: isize,
    limit: isize,
}

impl RightSearch<'_> {
    /// Try every next mode of the right inverse `r` (valid on `0..size(r)`).
    const fn extend(&mut self, r: &Found) {
        let p = r.size();
        if p * (self.n / p) <= self.best || r.n + 1 >= UNKNOWNS {
            return;
        }
        let mut x = 0;
        while x < self.size && self.steps <= self.limit {
            self.steps += 1;
            // A stride equal to the last mode's span would only continue that mode, which its
            // larger extents cover.
            if self.a.at(x) == p && !(r.n > 0 && x == r.e[r.n - 1] * r.d[r.n - 1]) {
                let mut e = self.largest_extent(r, x);
                while e >= 2 {
                    if p * e > self.best {
                        self.best = p * e;
                        self.found = Some(r.with(e, x));
                    }
                    if self.best == self.n {
                        return;
                    }
                    self.extend(&r.with(e, x));
                    if self.best == self.n {
                        return;
                    }
                    e -= 1;
                }
            }
            x += 1;
        }
    }

    /// The largest extent `e` for which `(r, e:x)` is a right inverse on `0..size(r)*e`.
    const fn largest_extent(&mut self, r: &Found, x: isize) -> isize {
        let p = r.size();
        let mut e = 1;
        while p * (e + 1) <= self.n {
            let mut i = 0;
            while i < p {
                self.steps += 1;
                let y = r.at(i) + e * x;
                if y < 0 || y >= self.size || self.a.at(y) != i + e * p {
                    return e;
                }
                i += 1;
            }
            e += 1;
        }
        e
    }
}

// ---- left inverse -----------------------------------------------------------------------------

/// The offsets of a layout's moving modes, inverted: `at[o]` is 1 + the index (in the moving
/// modes' own domain) that reaches `o`, 0 where no index does.
pub(crate) struct Offsets {
    cosize: isize,
    at: [u16; LIMIT],
    /// The offsets in increasing order (`count` of them).
    sorted: [u16; LIMIT],
    count: usize,
    moving: Flat,
    /// Each moving mode's stride in the whole layout's index space (its prefix product there),
    /// so that an index of the moving modes is read back as an index of the layout with the other
    /// modes' coordinates at 0.
    index: [isize; MAX_NODES],
}

impl Offsets {
    /// The inverted offsets of `l`'s modes that move (extent above 1 and a nonzero stride), or
    /// why the search cannot run: a negative stride, a collision (not injective), or more than
    /// [`BY_VALUE_LIMIT`] offsets.
    pub(crate) const fn of(l: &Leaves) -> R<Offsets> {
        let mut moving = Flat { n: 0, s: [1; MAX_NODES], d: [0; MAX_NODES] };
        let mut index = [0isize; MAX_NODES];
        let (mut pre, mut cosize, mut k) = (1isize, 1isize, 0);
        while k < l.len() {
            let (s, d) = (l.shape(k).value, l.stride(k).value);
            if s > 1 && d != 0 {
                if d < 0 {
                    return Err(inadmissible(Inadmissible::NegativeStride { mode: k, stride: d }));
                }
                cosize = cosize.saturating_add((s - 1).saturating_mul(d));
                moving.s[moving.n] = s;
                moving.d[moving.n] = d;
                index[moving.n] = pre;
                moving.n += 1;
            }
            pre = pre.saturating_mul(s);
            k += 1;
        }
        if cosize > BY_VALUE_LIMIT {
            return Err(inadmissible(Inadmissible::SearchLimit { cosize, limit: BY_VALUE_LIMIT }));
        }
        let mut out = Offsets { cosize, at: [0; LIMIT], sorted: [0; LIMIT], count: 0, moving, index };
        let mut size = 1isize;
        let mut k = 0;
        while k < moving.n {
            size = size.saturating_mul(moving.s[k]);
            k += 1;
        }
        // At most `cosize` indices have distinct offsets: a collision ends this loop by then.
        let mut i = 0;
        while i < size {
            let o = moving.at(i) as usize;
            if out.at[o] != 0 {
                return Err(inadmissible(Inadmissible::Collision {
                    offset: o as isize,
                    first: out.target(out.at[o] as isize - 1),
                    second: out.target(i),
                }));
            }
            out.at[o] = (i + 1) as u16;
            i += 1;
        }
        let mut o = 0;
        while o < cosize as usize {
            if out.at[o] != 0 {
                out.sorted[out.count] = o as u16;
                out.count += 1;
            }
            o += 1;
        }
        Ok(out)
    }

    /// The layout's index of the moving modes' index `i`.
    const fn target(&self, i: isize) -> isize {
        colex(&self.moving.s, &self.index, self.moving.n, i)
    }

    /// What the left inverse must map offset `o` to (`o` an offset of the layout).
    const fn value(&self, o: isize) -> isize {
        self.target(self.at[o as usize] as isize - 1)
    }

    /// The `k`-th offset of the layout in increasing order (`k < count`).
    const fn offset(&self, k: usize) -> isize {
        self.sorted[k] as isize
    }
}

/// A layout `L` with `L(o) == i` for every offset `o == layout(i)` (`i` read with the coordinates
/// of the modes that do not move at 0) and `size(L) >= cosize`, or
/// [`Inadmissible::NoLeftInverse`] if there is none. The search peels `L`'s modes from the
/// fastest: an extent `E` splits the offsets into blocks `o / E`, in each of which the values
/// minus `d * (o % E)` must agree, which pins the stride `d` (or leaves it an unknown that later
/// blocks pin together with others: [`System`]); the agreed values are the next mode's problem.
/// Every extent is tried, and the last mode (which extends) at every level, so "none" means none.
pub(crate) const fn left_inverse_by_value(pts: &Offsets, limit: isize) -> R<Found> {
    let mut s = LeftSearch { pts, steps: 0, limit };
    let top = Level { j: 0, period: [1; UNKNOWNS + 1], strides: Strides::new() };
    match s.descend(&top) {
        Ok(Some(f)) => Ok(f),
        Ok(None) => Err(inadmissible(Inadmissible::NoLeftInverse { cosize: pts.cosize })),
        Err(e) => Err(e),
    }
}

/// The strides of a partial left inverse: numbers where pinned, the others (`free`, a bit per
/// stride) unknowns of `sys`, whose equations are over those unknowns only.
#[derive(Clone, Copy)]
struct Strides {
    d: [isize; UNKNOWNS],
    free: u32,
    sys: System,
}

impl Strides {
    const fn new() -> Strides {
        Strides { d: [0; UNKNOWNS], free: 0, sys: System::new() }
    }

    /// Add the equation `sum_t row[t] * d_t == row[rhs]` (strides `t <= j`); `Ok(false)` if it
    /// contradicts the others. Pinned strides are substituted; when the unknowns are pinned
    /// (as many independent equations as unknowns) they become numbers.
    const fn equate(&mut self, row: &Row, j: usize) -> R<bool> {
        let mut eq = [0i128; UNKNOWNS + 1];
        let (mut rhs, mut any, mut t) = (row[UNKNOWNS], false, 0);
        while t <= j {
            if self.free & (1 << t) != 0 {
                eq[t] = row[t];
                any |= row[t] != 0;
            } else {
                rhs -= row[t] * self.d[t] as i128;
            }
            t += 1;
        }
        if !any {
            return Ok(rhs == 0);
        }
        // One unknown that no other equation reads: the equation pins it alone.
        let mut t = 0;
        while t <= j && eq[t] == 0 {
            t += 1;
        }
        if self.sys.reads_only_before(t) && Self::only(&eq, t, j) {
            if rhs % eq[t] != 0 {
                return Ok(false);
            }
            let v = rhs / eq[t];
            if v < isize::MIN as i128 || v > isize::MAX as i128 {
                return Err(effort());
            }
            self.d[t] = v as isize;
            self.free &= !(1 << t);
            if self.free != 0 && self.sys.rank() == self.free.count_ones() as usize {
                return self.pin();
            }
            return Ok(true);
        }
        eq[UNKNOWNS] = rhs;
        match self.sys.add(eq) {
            Ok(true) => {}
            Ok(false) => return Ok(false),
            Err(_) => return Err(effort()),
        }
        if self.sys.rank() == self.free.count_ones() as usize {
            return self.pin();
        }
        Ok(true)
    }

    /// Whether `eq` reads unknown `t` and none after it up to `j`.
    const fn only(eq: &Row, t: usize, j: usize) -> bool {
        let mut k = t + 1;
        while k <= j {
            if eq[k] != 0 {
                return false;
            }
            k += 1;
        }
        true
    }

    /// The value `sum_t row[t] * d_t` (strides `t <= j`) if every stride it reads is pinned.
    const fn value(&self, row: &Row, j: usize) -> Option<i128> {
        let (mut v, mut t) = (0i128, 0);
        while t <= j {
            if row[t] != 0 {
                if self.free & (1 << t) != 0 {
                    return None;
                }
                v += row[t] * self.d[t] as i128;
            }
            t += 1;
        }
        Some(v)
    }

    /// What the equations fix of `sum_t row[t] * d_t` (strides `t <= j`) where it reads strides
    /// not yet pinned.
    const fn determined(&self, row: &Row, j: usize) -> Result<Determined, Overflow> {
        let mut eq = [0i128; UNKNOWNS + 1];
        let (mut known, mut t) = (0i128, 0);
        while t <= j {
            if self.free & (1 << t) != 0 {
                eq[t] = row[t];
            } else {
                known += row[t] * self.d[t] as i128;
            }
            t += 1;
        }
        match self.sys.determined(&eq) {
            Ok(Determined::Value(v)) => Ok(Determined::Value(v + known)),
            r => r,
        }
    }

    /// Give the unknowns the values of an integer solution of `sys` (the only one when they are
    /// pinned); `Ok(false)` if there is none.
    const fn pin(&mut self) -> R<bool> {
        let x = match self.sys.solve() {
            Ok(Some(x)) => x,
            Ok(None) => return Ok(false),
            Err(_) => return Err(effort()),
        };
        let mut t = 0;
        while t < UNKNOWNS {
            if self.free & (1 << t) != 0 {
                if x[t] < isize::MIN as i128 || x[t] > isize::MAX as i128 {
                    return Err(effort());
                }
                self.d[t] = x[t] as isize;
            }
            t += 1;
        }
        self.free = 0;
        self.sys = System::new();
        Ok(true)
    }
}

/// A partial left inverse: modes `0..j`, as running products `period`, and their strides.
#[derive(Clone, Copy)]
struct Level {
    j: usize,
    period: [isize; UNKNOWNS + 1],
    strides: Strides,
}

impl Level {
    /// Coordinate `t < j` of offset `o`.
    const fn coord(&self, o: isize, t: usize) -> isize {
        (o / self.period[t]) % (self.period[t + 1] / self.period[t])
    }

    /// The equation `L(o) - L(r) == value(o) - value(r)` with `L`'s coordinate `j` differing by
    /// `k` (`r < 0`: `L(o) == value(o)`, coordinate `j` being `k`).
    const fn row(&self, pts: &Offsets, o: isize, r: isize, k: isize) -> Row {
        let mut row = [0i128; UNKNOWNS + 1];
        let mut t = 0;
        while t < self.j {
            row[t] = (self.coord(o, t) - if r < 0 { 0 } else { self.coord(r, t) }) as i128;
            t += 1;
        }
        row[self.j] = k as i128;
        row[UNKNOWNS] = (pts.value(o) - if r < 0 { 0 } else { pts.value(r) }) as i128;
        row
    }

    /// These strides with stride `j` a new unknown.
    const fn with_unknown(&self) -> Strides {
        let mut s = self.strides;
        s.free |= 1 << self.j;
        s
    }
}

/// An overflow of the integer arithmetic ends the search as its step bound does.
const fn effort() -> LayoutError {
    inadmissible(Inadmissible::SearchEffort { steps: EFFORT_LIMIT })
}

/// The offsets in increasing order, one per quotient `o / p` (offsets with one quotient agree
/// by the levels before; `prev` is the quotient last given, which is skipped).
struct Quotients {
    k: usize,
    prev: isize,
    p: isize,
}

impl Quotients {
    const fn next(&mut self, pts: &Offsets) -> Option<isize> {
        while self.k < pts.count {
            let o = pts.offset(self.k);
            self.k += 1;
            if o / self.p != self.prev {
                self.prev = o / self.p;
                return Some(o);
            }
        }
        None
    }
}

struct LeftSearch<'a> {
    pts: &'a Offsets,
    steps: isize,
    limit: isize,
}

impl LeftSearch<'_> {
    const fn spend(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > self.limit {
            return Err(inadmissible(Inadmissible::SearchEffort { steps: self.limit }));
        }
        Ok(())
    }

    const fn descend(&mut self, lv: &Level) -> R<Option<Found>> {
        let (st, reach) = tri!(self.line(lv));
        if reach == isize::MAX
            && let Some(f) = tri!(self.complete(lv, st))
        {
            return Ok(Some(f));
        }
        let p = lv.period[lv.j];
        let max = self.pts.cosize - 1;
        if lv.j + 2 >= UNKNOWNS || p * 2 > max {
            return Ok(None);
        }
        let top = if reach < max / p { reach } else { max / p };
        let mut e = top;
        while e >= 2 {
            if let Some(next) = tri!(self.split(lv, e))
                && let Some(f) = tri!(self.descend(&next))
            {
                return Ok(Some(f));
            }
            e -= 1;
        }
        Ok(None)
    }

    /// The last mode's equations (each offset against offset 0, coordinate `j` being the
    /// quotient `o / p`) in increasing quotient: the strides they leave, and the first quotient
    /// at which they contradict the ones before (`isize::MAX` if none does). They are also block
    /// 0's equations for any extent `E` above the quotients they cover, so an extent is at most
    /// that quotient.
    const fn line(&mut self, lv: &Level) -> R<(Strides, isize)> {
        let p = lv.period[lv.j];
        let mut st = lv.with_unknown();
        // Quotient 0 is offset 0's, whose equation is 0 == 0.
        let mut each = Quotients { k: 0, prev: 0, p };
        while let Some(o) = each.next(self.pts) {
            let q = o / p;
            tri!(self.spend());
            if !tri!(st.equate(&lv.row(self.pts, o, -1, q), lv.j)) {
                return Ok((st, q));
            }
        }
        Ok((st, isize::MAX))
    }

    /// Mode `j` as the last one (extending), its equations all consistent: `L`, if they have an
    /// integer solution.
    const fn complete(&self, lv: &Level, mut st: Strides) -> R<Option<Found>> {
        if st.free != 0 && !tri!(st.pin()) {
            return Ok(None);
        }
        let mut f = Found::new();
        let mut t = 0;
        while t < lv.j {
            f.e[t] = lv.period[t + 1] / lv.period[t];
            t += 1;
        }
        f.e[lv.j] = (self.pts.cosize - 1) / lv.period[lv.j] + 1;
        f.n = lv.j + 1;
        f.d = st.d;
        Ok(Some(f))
    }

    /// Mode `j` with extent `e`: the next level if the blocks `o / (p * e)` agree.
    const fn split(&mut self, lv: &Level, e: isize) -> R<Option<Level>> {
        let p = lv.period[lv.j];
        let big = p * e;
        let mut st = lv.with_unknown();
        // The block and its first offset.
        let (mut block, mut first) = (-1, 0);
        let mut each = Quotients { k: 0, prev: -1, p };
        while let Some(o) = each.next(self.pts) {
            let q = o / p;
            tri!(self.spend());
            if o / big != block {
                block = o / big;
                first = o;
            } else if !tri!(st.equate(&lv.row(self.pts, o, first, q % e - (first / p) % e), lv.j)) {
                return Ok(None);
            }
        }
        // Unknowns left must still have an integer solution.
        if st.free != 0 {
            let mut probe = st;
            if !tri!(probe.pin()) {
                return Ok(None);
            }
        }
        let mut next = *lv;
        next.j += 1;
        next.period[next.j] = big;
        next.strides = st;
        Ok(Some(next))
    }
}

// ---- quasi-inverse ----------------------------------------------------------------------------

/// The offsets of a layout that is not injective, each with the indices that reach it: CuTe's
/// quasi-inverse `L` (`layout(L(layout(i))) == layout(i)`) maps each offset to any one of them.
pub(crate) struct Preimages {
    /// Every mode of the layout, to evaluate it at any index.
    layout: Flat,
    /// Its size.
    size: isize,
    /// Its largest offset.
    max: isize,
    /// The distinct offsets, in increasing order (`count` of them).
    offsets: [u16; LIMIT],
    count: usize,
    /// By position in `offsets`: that offset's indices are `index[first[k]..first[k + 1]]`.
    first: [u16; LIMIT + 1],
    /// The enumerated indices grouped by offset, increasing within one.
    index: [u16; LIMIT],
}

impl Preimages {
    /// The preimages of `l`'s offsets among its indices when it has at most [`BY_VALUE_LIMIT`]
    /// of them, otherwise among the indices whose coordinates in the modes that do not move are
    /// 0 (enough for a layout whose moving modes are injective, a subset of the answers
    /// otherwise), or why the search cannot run: a negative stride, more than
    /// [`BY_VALUE_LIMIT`] offsets or indices to enumerate.
    pub(crate) const fn of(l: &Leaves) -> R<Preimages> {
        let layout = Flat::of(l);
        // The modes to enumerate, each with its stride in the layout's index space.
        let mut sub = Flat { n: 0, s: [1; MAX_NODES], d: [0; MAX_NODES] };
        let mut at = [0isize; MAX_NODES];
        let whole = layout.size().is_some();
        let (mut pre, mut size, mut max, mut k) = (1isize, 1isize, 0isize, 0);
        while k < layout.n {
            let (s, d) = (layout.s[k], layout.d[k]);
            if s > 1 && d < 0 {
                return Err(inadmissible(Inadmissible::NegativeStride { mode: k, stride: d }));
            }
            if whole || (s > 1 && d != 0) {
                sub.s[sub.n] = s;
                sub.d[sub.n] = d;
                at[sub.n] = pre;
                sub.n += 1;
            }
            max = max.saturating_add((s - 1).saturating_mul(d));
            pre = pre.saturating_mul(s);
            size = pre;
            k += 1;
        }
        if max >= BY_VALUE_LIMIT {
            return Err(inadmissible(Inadmissible::SearchLimit { cosize: max + 1, limit: BY_VALUE_LIMIT }));
        }
        let Some(n) = sub.size() else {
            return Err(inadmissible(Inadmissible::SearchSize { size, limit: BY_VALUE_LIMIT }));
        };
        let mut out = Preimages {
            layout,
            size,
            max,
            offsets: [0; LIMIT],
            count: 0,
            first: [0; LIMIT + 1],
            index: [0; LIMIT],
        };
        // Counting sort by offset: how many indices reach each offset, then where each starts.
        let mut start = [0u16; LIMIT + 1];
        let mut i = 0;
        while i < n {
            start[sub.at(i) as usize + 1] += 1;
            i += 1;
        }
        let mut o = 0;
        while o <= max as usize {
            if start[o + 1] > 0 {
                out.offsets[out.count] = o as u16;
                out.first[out.count] = start[o];
                out.count += 1;
            }
            start[o + 1] += start[o];
            o += 1;
        }
        out.first[out.count] = n as u16;
        let mut i = 0;
        while i < n {
            let o = sub.at(i) as usize;
            out.index[start[o] as usize] = colex(&sub.s, &at, sub.n, i) as u16;
            start[o] += 1;
            i += 1;
        }
        Ok(out)
    }

    /// Whether index `x` of the layout reaches offset `o`.
    const fn reaches(&self, x: i128, o: isize) -> bool {
        x >= 0 && x < self.size as i128 && self.layout.at(x as isize) == o
    }
}

/// A layout `L` with `layout(L(o)) == o` and `L(o)` in the layout's domain for every offset `o` of
/// the layout, with `size(L)` above its largest offset (CuTe's quasi-inverse, for a layout that is
/// not injective), or `Ok(None)` if there is none.
///
/// `L`'s extents are searched for depth first from the fastest (a mixed radix, its last digit
/// unbounded: `L` extends its last mode), and for a given radix `L(o)` is linear in `L`'s
/// strides, the digits of `o` its coefficients: each offset, in increasing order, either has its
/// value fixed by the strides the offsets before it pinned (it must then be one of its indices) or
/// adds an equation, and then each of its indices is tried. The offsets below a radix's product
/// have the same equations in every radix it starts, so one whose equations contradict each other
/// ends the subtree, and an offset at which every way of reading the offsets fails bounds the
/// next extent. Past `limit` steps: [`Inadmissible::SearchEffort`].
pub(crate) const fn quasi_inverse_by_value(pre: &Preimages, limit: isize) -> R<Option<Found>> {
    // Offset 0 is index 0's; its equation is 0 == 0.
    let top = Radix { n: 0, e: [1; UNKNOWNS], p: 1 };
    let mut s = QuasiSearch { pre, steps: 0, limit, deepest: 0 };
    s.node(&top, 1, &Strides::new())
}

/// `L`'s extents so far: `e[..n]`, of product `p`; digit `n` is unbounded.
#[derive(Clone, Copy)]
struct Radix {
    n: usize,
    e: [isize; UNKNOWNS],
    p: isize,
}

impl Radix {
    /// The equation `L(o) == x`: the digits of `o`, then `x`.
    const fn row(&self, o: isize, x: isize) -> Row {
        let mut row = [0i128; UNKNOWNS + 1];
        let (mut rest, mut t) = (o, 0);
        while t < self.n {
            row[t] = (rest % self.e[t]) as i128;
            rest /= self.e[t];
            t += 1;
        }
        row[self.n] = rest as i128;
        row[UNKNOWNS] = x as i128;
        row
    }
}

/// What to do with a way of reading the offsets that holds.
#[derive(Clone, Copy)]
enum Then {
    /// The radix as it is, its last digit unbounded: solve for the strides.
    Complete,
    /// The radix with next extent `f` (the offsets read are those below `p * f`): search below
    /// it, then go on to `f + 1` while `p * f` stays within `bound`.
    Extend { f: isize, bound: isize },
}

struct QuasiSearch<'a> {
    pre: &'a Preimages,
    steps: isize,
    limit: isize,
    /// The furthest offset (by position) at which a way of reading all of them failed.
    deepest: usize,
}

impl QuasiSearch<'_> {
    const fn spend(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > self.limit {
            return Err(inadmissible(Inadmissible::SearchEffort { steps: self.limit }));
        }
        Ok(())
    }

    /// The search below radix `rx`, the offsets before position `start` read into `st`.
    const fn node(&mut self, rx: &Radix, start: usize, st: &Strides) -> R<Option<Found>> {
        if rx.n + 1 >= UNKNOWNS {
            // Unreachable: extents of at least 2 below 2^14 offsets are at most 14.
            return Err(effort());
        }
        let mut st = *st;
        st.free |= 1 << rx.n;
        let count = self.pre.count;
        self.deepest = start;
        if let Some(f) = tri!(self.feed(rx, start, count, st, Then::Complete)) {
            return Ok(Some(f));
        }
        // An extent past the offset at which every way failed would meet the same failure.
        let bound =
            if self.deepest >= count { self.pre.max } else { self.pre.offsets[self.deepest] as isize };
        if rx.p * 2 > bound {
            return Ok(None);
        }
        let end = self.below(start, rx.p * 2);
        self.feed(rx, start, end, st, Then::Extend { f: 2, bound })
    }

    /// The first position at or after `k` whose offset is at least `o`.
    const fn below(&self, mut k: usize, o: isize) -> usize {
        while k < self.pre.count && (self.pre.offsets[k] as isize) < o {
            k += 1;
        }
        k
    }

    /// Read the offsets at positions `k..end` into `st` in every consistent way, each followed
    /// by `then`. Every way that reads them goes on (`Then::Extend`) to the next extent with the
    /// offsets it adds, so the offsets below are read once per way; a way that fails stops there,
    /// as the larger extents would fail with it.
    const fn feed(
        &mut self,
        rx: &Radix,
        mut k: usize,
        mut end: usize,
        mut st: Strides,
        mut then: Then,
    ) -> R<Option<Found>> {
        loop {
            while k < end {
                tri!(self.spend());
                let o = self.pre.offsets[k] as isize;
                let row = rx.row(o, 0);
                // `L(o)` as the strides fix it, if they do: it must be one of `o`'s indices.
                let fixed = match st.value(&row, rx.n) {
                    Some(v) => Some(v),
                    None => match st.determined(&row, rx.n) {
                        Ok(Determined::Free) => None,
                        Ok(Determined::Value(v)) => Some(v),
                        Ok(Determined::Never) => return Ok(self.failed(k, then)),
                        Err(_) => return Err(effort()),
                    },
                };
                if let Some(v) = fixed {
                    if !self.pre.reaches(v, o) {
                        return Ok(self.failed(k, then));
                    }
                    k += 1;
                    continue;
                }
                // The equation is new: each of `o`'s indices is a way of its own.
                let (mut x, last) = (self.pre.first[k] as usize, self.pre.first[k + 1] as usize);
                while x < last {
                    tri!(self.spend());
                    let mut s = st;
                    let mut r = row;
                    r[UNKNOWNS] = self.pre.index[x] as i128;
                    if tri!(s.equate(&r, rx.n))
                        && let Some(f) = tri!(self.feed(rx, k + 1, end, s, then))
                    {
                        return Ok(Some(f));
                    }
                    x += 1;
                }
                return Ok(self.failed(k, then));
            }
            match then {
                Then::Complete => {
                    if st.free != 0 && !tri!(st.pin()) {
                        // No failure at an offset: no bound on the next extent from this way.
                        self.deepest = self.pre.count;
                        return Ok(None);
                    }
                    let mut f = Found::new();
                    let mut t = 0;
                    while t < rx.n {
                        f.e[t] = rx.e[t];
                        t += 1;
                    }
                    f.e[rx.n] = self.pre.max / rx.p + 1;
                    f.n = rx.n + 1;
                    f.d = st.d;
                    return Ok(Some(f));
                }
                Then::Extend { f, bound } => {
                    let mut next = *rx;
                    next.e[next.n] = f;
                    next.n += 1;
                    next.p *= f;
                    if let Some(found) = tri!(self.node(&next, end, &st)) {
                        return Ok(Some(found));
                    }
                    // The same way with extent f + 1: only the offsets it adds are new.
                    if rx.p * (f + 1) > bound {
                        return Ok(None);
                    }
                    then = Then::Extend { f: f + 1, bound };
                    end = self.below(end, rx.p * (f + 1));
                }
            }
        }
    }

    /// A way of reading the offsets failed at position `k`.
    const fn failed(&mut self, k: usize, then: Then) -> Option<Found> {
        if let Then::Complete = then
            && k > self.deepest
        {
            self.deepest = k;
        }
        None
    }
}

const fn inadmissible(why: Inadmissible) -> LayoutError {
    LayoutError::Inadmissible { op: "left_inverse", why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(s: &str) -> Leaves {
        Leaves::of(&s.parse::<crate::dyn_layout::DynLayout>().unwrap())
    }

    #[test]
    fn past_the_step_bound() {
        // (11,10):(241,353) has no left inverse; proving it takes about 2^18 steps.
        let pts = Offsets::of(&flat("(11,10):(241,353)")).unwrap();
        let e = left_inverse_by_value(&pts, 1000).err().unwrap();
        assert_eq!(e, inadmissible(Inadmissible::SearchEffort { steps: 1000 }));
        assert_eq!(
            left_inverse_by_value(&pts, EFFORT_LIMIT).err().unwrap(),
            inadmissible(Inadmissible::NoLeftInverse { cosize: 5588 })
        );
        // A right inverse search cut short keeps the best found so far: none beyond the chain.
        let a = Flat::of(&flat("(100,100):(1,1)"));
        assert!(largest_right_inverse(&a, 100, 10).is_none());
        assert_eq!(largest_right_inverse(&a, 100, EFFORT_LIMIT).map(|f| f.size()), Some(198));
    }
}
