//! Layouts as functions, by brute force and independently of the library's algebra: evaluation of
//! flat (extent, stride) lists, and bounded exact searches for a layout with given values (a
//! layout with given top-level mode sizes, a right inverse of the largest size, a left inverse).
//! Used by `random_differential.rs`.
#![allow(dead_code)] // a test crate uses part of it

/// What a search decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Search<T> {
    /// One exists (the witness).
    Found(T),
    /// None exists: the search covered every candidate.
    NotFound,
    /// The search ran past its budget.
    OverBudget,
}

/// A search's budget: the number of steps it may take (each a point checked or a node visited).
pub struct Budget(pub u64);

impl Budget {
    fn spend(&mut self, n: u64) -> bool {
        if self.0 < n {
            self.0 = 0;
            return false;
        }
        self.0 -= n;
        true
    }
}

/// A layout as a function: its leaves (extent, stride), first fastest, the last one extending
/// past the size (CuTe's `idx2crd` gives the last mode the rest of the index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flat(pub Vec<(i64, i64)>);

impl Flat {
    pub fn size(&self) -> i64 {
        self.0.iter().map(|l| l.0).product()
    }

    /// CuTe's `cosize`: `sum((s - 1) * |d|) + 1`.
    pub fn cosize(&self) -> i64 {
        self.0.iter().map(|&(s, d)| (s - 1) * d.abs()).sum::<i64>() + 1
    }

    /// The value at any integer `x`. A negative `x` gives `-L(-x)`: CuTe's arithmetic divides
    /// with truncation, so the coordinates of `-x` are those of `x` negated (that is how
    /// `composition(8:2, 4:-1)` is `4:-2`).
    pub fn at(&self, x: i64) -> i64 {
        if x < 0 {
            return -self.at(-x);
        }
        let (mut rest, mut v) = (x, 0);
        for (k, &(s, d)) in self.0.iter().enumerate() {
            if k + 1 == self.0.len() {
                return v + rest * d;
            }
            v += (rest % s) * d;
            rest /= s;
        }
        v
    }

    /// `L(0), ..., L(size - 1)`, built mode by mode (no division).
    pub fn values(&self) -> Vec<i64> {
        let mut out = vec![0i64];
        for &(s, d) in &self.0 {
            let len = out.len();
            for j in 1..s {
                for k in 0..len {
                    out.push(out[k] + j * d);
                }
            }
        }
        out
    }
}

/// The index of a coordinate `c` (colexicographic over `sizes`).
pub fn colex(c: &[i64], sizes: &[i64]) -> i64 {
    c.iter().zip(sizes).rev().fold(0, |acc, (&x, &s)| acc * s + x)
}

/// The coordinate of index `i` over `sizes` (colexicographic, each below its size).
pub fn split(mut i: i64, sizes: &[i64]) -> Vec<i64> {
    sizes
        .iter()
        .map(|&s| {
            let c = i % s;
            i /= s;
            c
        })
        .collect()
}

/// Whether some flat layout of `n` elements has at every index `i` a value `v` with `ok(i, v)`.
/// The value at a mode's first index (a running product `p`, where the mode's stride is read) is
/// drawn from `cands(p)`. Exact: every ordered factorization of `n` into extents >= 2 with
/// strides from the candidates is tried, except those with two adjacent modes that merge
/// (`d1 == s0 * d0`), whose function the merged mode gives; each mode's block of values is checked
/// as it grows, so a failing extent ends the larger ones.
pub fn find_flat(
    n: usize,
    cands: &dyn Fn(usize) -> Vec<i64>,
    ok: &dyn Fn(usize, i64) -> bool,
    budget: &mut Budget,
) -> Search<Flat> {
    struct Ctx<'a> {
        n: usize,
        cands: &'a dyn Fn(usize) -> Vec<i64>,
        ok: &'a dyn Fn(usize, i64) -> bool,
        vals: Vec<i64>,
        modes: Vec<(i64, i64)>,
    }
    fn dfs(c: &mut Ctx, p: usize, budget: &mut Budget) -> Search<()> {
        if p == c.n {
            return Search::Found(());
        }
        let rest = c.n / p;
        let mut over = false;
        for g in (c.cands)(p) {
            if let Some(&(fl, gl)) = c.modes.last()
                && g == fl * gl
            {
                continue;
            }
            if !budget.spend(1) {
                return Search::OverBudget;
            }
            // Blocks 1..verified of this mode hold checked values.
            let mut verified = 1;
            for f in 2..=rest {
                let mut failed = false;
                while verified < f {
                    if !budget.spend(p as u64) {
                        return Search::OverBudget;
                    }
                    let base = verified * p;
                    for r in 0..p {
                        let v = c.vals[r] + verified as i64 * g;
                        if !(c.ok)(base + r, v) {
                            failed = true;
                            break;
                        }
                        c.vals[base + r] = v;
                    }
                    if failed {
                        break;
                    }
                    verified += 1;
                }
                if failed {
                    break;
                }
                if !rest.is_multiple_of(f) {
                    continue;
                }
                c.modes.push((f as i64, g));
                match dfs(c, p * f, budget) {
                    Search::Found(()) => return Search::Found(()),
                    Search::OverBudget => over = true,
                    Search::NotFound => {}
                }
                c.modes.pop();
                // The search below wrote past this mode's blocks: check them again.
                verified = verified.min(f);
            }
        }
        if over { Search::OverBudget } else { Search::NotFound }
    }
    if n == 0 || !ok(0, 0) {
        return Search::NotFound;
    }
    let mut c = Ctx { n, cands, ok, vals: vec![0; n], modes: Vec::new() };
    match dfs(&mut c, 1, budget) {
        Search::Found(()) => {
            let f = Flat(if c.modes.is_empty() { vec![(1, 0)] } else { c.modes });
            // The witness, evaluated afresh, must have the values asked for.
            assert!(f.values().iter().enumerate().all(|(i, &v)| ok(i, v)), "bad witness {f:?}");
            Search::Found(f)
        }
        Search::NotFound => Search::NotFound,
        Search::OverBudget => Search::OverBudget,
    }
}

/// Whether some flat layout has exactly the values `h` (on `[0, h.len())`).
pub fn is_layout_function(h: &[i64], budget: &mut Budget) -> Search<Flat> {
    find_flat(h.len(), &|i| vec![h[i]], &|i, v| h[i] == v, budget)
}

/// Whether some layout whose top-level modes have the sizes `sizes` has the values `values` (its
/// domain in colexicographic order). A layout is the sum of its modes, each mode's values being
/// those along it with the other coordinates at 0: those must be layouts' values and add up.
pub fn layout_with_modes(values: &[i64], sizes: &[i64], budget: &mut Budget) -> Search<Vec<Flat>> {
    assert_eq!(values.len() as i64, sizes.iter().product::<i64>(), "sizes of {values:?}");
    let mut along = Vec::new();
    let mut period = 1;
    for &n in sizes {
        along.push((0..n).map(|k| values[(k * period) as usize]).collect::<Vec<i64>>());
        period *= n;
    }
    if !budget.spend(values.len() as u64) {
        return Search::OverBudget;
    }
    for (i, &v) in values.iter().enumerate() {
        let c = split(i as i64, sizes);
        if v != c.iter().zip(&along).map(|(&x, h)| h[x as usize]).sum::<i64>() {
            return Search::NotFound;
        }
    }
    let mut modes = Vec::new();
    for h in &along {
        match is_layout_function(h, budget) {
            Search::Found(f) => modes.push(f),
            Search::NotFound => return Search::NotFound,
            Search::OverBudget => return Search::OverBudget,
        }
    }
    Search::Found(modes)
}

/// The largest `m` for which some layout `R` of size `m` has `A(R(i)) == i` with `R(i)` in
/// `A`'s domain, for every `i < m`; `a` is `A`'s values on its domain. Every `m` from the first
/// value `A` misses down is searched (a right inverse of size `m` does not give one of every
/// smaller size), each by [`find_flat`] with the preimages as candidates.
pub fn max_right_inverse(a: &[i64], budget: &mut Budget) -> Search<(i64, Flat)> {
    let mut pre: std::collections::HashMap<i64, Vec<i64>> = Default::default();
    for (x, &v) in a.iter().enumerate() {
        pre.entry(v).or_default().push(x as i64);
    }
    let mut m0 = 0;
    while pre.contains_key(&(m0 as i64)) {
        m0 += 1;
    }
    let mut over = false;
    for m in (1..=m0).rev() {
        let cands = |i: usize| pre.get(&(i as i64)).cloned().unwrap_or_default();
        let ok = |i: usize, v: i64| v >= 0 && (v as usize) < a.len() && a[v as usize] == i as i64;
        match find_flat(m, &cands, &ok, budget) {
            Search::Found(f) if !over => return Search::Found((m as i64, f)),
            Search::Found(_) | Search::OverBudget => over = true,
            Search::NotFound => {}
        }
    }
    if over { Search::OverBudget } else { Search::Found((1, Flat(vec![(1, 0)]))) }
}

/// What the equations so far say about a new left-hand side.
enum Determined {
    /// Its value is fixed, to this.
    Value(i128),
    /// Its value is fixed, to no integer.
    Never,
    /// It is independent of the equations so far.
    Free,
}

/// Linear equations over the integers in at most `MAX_UNKNOWNS` unknowns, kept in reduced row
/// echelon form with integer rows (each divided by the gcd of its entries).
#[derive(Clone)]
struct System {
    rows: Vec<([i128; MAX_UNKNOWNS], i128, usize)>,
    /// Each row has only its pivot: the unknowns with a pivot are known (the common case, which
    /// `determined` answers without reducing).
    diagonal: bool,
    known: [Option<i128>; MAX_UNKNOWNS],
}

/// Radices have at most `MAX_UNKNOWNS - 1` extents >= 2 below the largest point: enough for
/// points below 2^13 (the searches here stay below 2^12).
const MAX_UNKNOWNS: usize = 14;

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// Divide `c` and `t` by their gcd when they grow (gcds are slow), and always when asked.
fn normalize(c: &mut [i128; MAX_UNKNOWNS], t: &mut i128) {
    if t.abs() < 1 << 40 && c.iter().all(|x| x.abs() < 1 << 40) {
        return;
    }
    normalize_now(c, t);
}

fn normalize_now(c: &mut [i128; MAX_UNKNOWNS], t: &mut i128) {
    let g = c.iter().fold(*t, |g, &x| gcd(g, x));
    if g > 1 {
        c.iter_mut().for_each(|x| *x /= g);
        *t /= g;
    }
}

impl System {
    fn new() -> System {
        System { rows: Vec::new(), diagonal: true, known: [None; MAX_UNKNOWNS] }
    }

    /// Add `c . g == t`; false if the equations have no rational solution, or one that fixes
    /// an unknown to a value that is not an integer.
    fn add(&mut self, mut c: [i128; MAX_UNKNOWNS], mut t: i128) -> bool {
        for (r, rt, p) in &self.rows {
            if c[*p] != 0 {
                let (a, b) = (r[*p], c[*p]);
                for k in 0..MAX_UNKNOWNS {
                    c[k] = c[k] * a - r[k] * b;
                }
                t = t * a - rt * b;
                normalize(&mut c, &mut t);
            }
        }
        normalize_now(&mut c, &mut t);
        let Some(q) = c.iter().position(|&x| x != 0) else { return t == 0 };
        if c[q] < 0 {
            c.iter_mut().for_each(|x| *x = -*x);
            t = -t;
        }
        for (r, rt, _) in &mut self.rows {
            if r[q] != 0 {
                let (a, b) = (c[q], r[q]);
                for k in 0..MAX_UNKNOWNS {
                    r[k] = r[k] * a - c[k] * b;
                }
                *rt = *rt * a - t * b;
                normalize_now(r, rt);
            }
        }
        self.rows.push((c, t, q));
        self.diagonal = self.rows.iter().all(|(r, _, _)| r.iter().filter(|&&x| x != 0).count() == 1);
        self.known = [None; MAX_UNKNOWNS];
        let mut integral = true;
        for (r, rt, p) in &self.rows {
            if r.iter().filter(|&&x| x != 0).count() == 1 {
                integral &= rt % r[*p] == 0;
                self.known[*p] = Some(rt / r[*p]);
            }
        }
        integral
    }

    /// What the equations say about `c . g`.
    fn determined(&self, mut c: [i128; MAX_UNKNOWNS]) -> Determined {
        if self.diagonal {
            let mut v = 0;
            for (x, known) in c.iter().zip(&self.known) {
                if *x != 0 {
                    match known {
                        Some(g) => v += x * g,
                        None => return Determined::Free,
                    }
                }
            }
            return Determined::Value(v);
        }
        // Reduce `c . g` by the rows, tracking `alpha * (c . g) + gamma` as the reduced form.
        let (mut alpha, mut gamma) = (1i128, 0i128);
        for (r, rt, p) in &self.rows {
            if c[*p] != 0 {
                let (a, b) = (r[*p], c[*p]);
                for k in 0..MAX_UNKNOWNS {
                    c[k] = c[k] * a - r[k] * b;
                }
                alpha *= a;
                gamma = gamma * a - rt * b;
                // Divide out common factors only when the numbers grow (gcds are slow).
                if alpha.abs() > 1 << 40 || gamma.abs() > 1 << 40 {
                    let g = c.iter().fold(gcd(alpha, gamma), |g, &x| gcd(g, x));
                    c.iter_mut().for_each(|x| *x /= g);
                    alpha /= g;
                    gamma /= g;
                }
            }
        }
        if c.iter().any(|&x| x != 0) {
            return Determined::Free;
        }
        // alpha * value + gamma == 0 (the reduced equation is 0 . g == alpha * t + gamma).
        if gamma % alpha != 0 { Determined::Never } else { Determined::Value(-gamma / alpha) }
    }

    /// An integer solution (unknowns with no equation at 0), `Ok(None)` if there is none, `Err`
    /// past `limit` combinations: the unknowns without a pivot are tried modulo the pivots' lcm
    /// (exact: the pivots' divisibility depends on them only modulo it).
    fn integer_solution(&self, limit: u64) -> Result<Option<[i128; MAX_UNKNOWNS]>, ()> {
        let pivots: Vec<usize> = self.rows.iter().map(|r| r.2).collect();
        let free: Vec<usize> = (0..MAX_UNKNOWNS)
            .filter(|k| !pivots.contains(k) && self.rows.iter().any(|r| r.0[*k] != 0))
            .collect();
        let lcm = self.rows.iter().fold(1i128, |l, r| l / gcd(l, r.0[r.2]) * r.0[r.2]);
        let combos =
            if free.is_empty() { 1 } else { (lcm as u64).checked_pow(free.len() as u32).ok_or(())? };
        if combos > limit {
            return Err(());
        }
        for n in 0..combos {
            let mut g = [0i128; MAX_UNKNOWNS];
            let mut x = n;
            for &k in &free {
                g[k] = (x % lcm as u64) as i128;
                x /= lcm as u64;
            }
            let mut ok = true;
            for (r, t, p) in &self.rows {
                let rest: i128 = free.iter().map(|&k| r[k] * g[k]).sum();
                if (t - rest) % r[*p] != 0 {
                    ok = false;
                    break;
                }
                g[*p] = (t - rest) / r[*p];
            }
            if ok {
                return Ok(Some(g));
            }
        }
        Ok(None)
    }
}

/// Whether some layout `L` has, at every `x` of `points` (distinct, `>= 0`), one of the values
/// listed with it (`L(x) == t` for a left inverse; any preimage for a quasi-inverse).
///
/// A layout's value at `x` is `sum(digit_j(x) * g_j)` over the digits of `x` in the mixed radix of
/// its extents, the last digit unbounded. So for each radix (extents >= 2, each prefix product at
/// most the largest `x`, then the unbounded digit) the strides `g` solve linear equations, exactly
/// over the integers. Radices are searched depth first: the points below a prefix's product have
/// the same equations in every extension, so an inconsistent prefix ends its subtree. A point
/// whose equation the earlier ones already determine must have that value among its own; a point
/// that adds an equation branches over its values.
pub fn find_by_points(points: &[(i64, Vec<i64>)], budget: &mut Budget) -> Search<Flat> {
    let mut pts: Vec<(i64, Vec<i64>)> = points.to_vec();
    pts.sort();
    if pts.first().is_some_and(|(x, t)| *x == 0 && !t.contains(&0)) {
        return Search::NotFound;
    }
    pts.retain(|(x, _)| *x != 0);
    let maxx = pts.last().map_or(0, |p| p.0);
    let mut c = Ctx { maxx, radix: Vec::new(), over: false, found: None };
    node(&mut c, &pts, 1, 0, &System::new(), budget);
    match c.found {
        Some(f) => Search::Found(f),
        None if c.over => Search::OverBudget,
        None => Search::NotFound,
    }
}

struct Ctx {
    maxx: i64,
    radix: Vec<i64>,
    over: bool,
    found: Option<Flat>,
}

/// The digits of `x` in `radix`, the last one unbounded.
fn equation(radix: &[i64], x: i64) -> [i128; MAX_UNKNOWNS] {
    let mut c = [0i128; MAX_UNKNOWNS];
    let mut rest = x;
    for (k, &f) in radix.iter().enumerate() {
        c[k] = (rest % f) as i128;
        rest /= f;
    }
    c[radix.len()] = rest as i128;
    c
}

/// Add the points `pts[k..end]` (in `radix`) to `sys` in every consistent way, calling `then`
/// on each resulting system; stops when `then` returns true (and returns true).
fn feed(
    sys: System,
    pts: &[(i64, Vec<i64>)],
    radix: &[i64],
    mut k: usize,
    end: usize,
    budget: &mut Budget,
    then: &mut dyn FnMut(System, &mut Budget) -> bool,
) -> Option<bool> {
    while k < end {
        if !budget.spend(1) {
            return None;
        }
        let (x, ts) = &pts[k];
        let c = equation(radix, *x);
        match sys.determined(c) {
            Determined::Value(v) => {
                if !ts.contains(&(v as i64)) {
                    return Some(false);
                }
            }
            Determined::Never => return Some(false),
            Determined::Free => {
                for &t in ts {
                    if !budget.spend(MAX_UNKNOWNS as u64) {
                        return None;
                    }
                    let mut s = sys.clone();
                    if s.add(c, t as i128) {
                        match feed(s, pts, radix, k + 1, end, budget, then) {
                            Some(true) => return Some(true),
                            None => return None,
                            Some(false) => {}
                        }
                    }
                }
                return Some(false);
            }
        }
        k += 1;
    }
    Some(then(sys, budget))
}

/// The search below the radix prefix `c.radix` (product `p`), the points before `start` in `sys`.
fn node(c: &mut Ctx, pts: &[(i64, Vec<i64>)], p: i64, start: usize, sys: &System, budget: &mut Budget) {
    if c.radix.len() + 1 >= MAX_UNKNOWNS {
        c.over = true;
        return;
    }
    // The next digit unbounded: every remaining point.
    let radix = c.radix.clone();
    let mut found = None;
    let mut over = false;
    let res = feed(sys.clone(), pts, &radix, start, pts.len(), budget, &mut |s, _| match s
        .integer_solution(1 << 12)
    {
        Ok(Some(g)) => {
            let mut modes: Vec<(i64, i64)> =
                radix.iter().enumerate().map(|(k, &f)| (f, g[k] as i64)).collect();
            modes.push((c.maxx / p + 1, g[radix.len()] as i64));
            found = Some(Flat(modes));
            true
        }
        Ok(None) => false,
        Err(()) => {
            over = true;
            false
        }
    });
    c.over |= over || res.is_none();
    if found.is_some() {
        c.found = found;
        return;
    }
    if res.is_none() {
        return;
    }
    children(c, pts, p, start, sys.clone(), 2, budget);
}

/// The children of a radix prefix with next extents `f, f+1, ...`: the points below `p * f` fed
/// (from `k`) in every consistent way, each way searched below `f` and then for `f + 1`.
fn children(
    c: &mut Ctx,
    pts: &[(i64, Vec<i64>)],
    p: i64,
    k: usize,
    sys: System,
    f: i64,
    budget: &mut Budget,
) {
    if p * f > c.maxx || c.found.is_some() {
        return;
    }
    let end = k + pts[k..].iter().take_while(|q| q.0 < p * f).count();
    let radix = c.radix.clone();
    let res = feed(sys, pts, &radix, k, end, budget, &mut |s, budget| {
        c.radix.push(f);
        node(c, pts, p * f, end, &s, budget);
        c.radix.pop();
        if c.found.is_none() {
            children(c, pts, p, end, s, f + 1, budget);
        }
        c.found.is_some()
    });
    if res.is_none() {
        c.over = true;
    }
}
