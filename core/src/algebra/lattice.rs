//! Systems of linear equations over the integers, small enough for the stack: the strides of a
//! layout searched for by value ([`super::inverse_search`]) are the unknowns, and a stride that
//! no equation pins yet stays an unknown until later equations pin it together with others.
//!
//! Rows are kept in echelon form by unimodular row operations (a pair of rows is replaced by
//! Bezout combinations), which keep the set of integer solutions; whether one exists is then
//! decided by unimodular column operations that make the system triangular. Arithmetic is in
//! `i128` and checked: an overflow is reported, never wrapped, and the caller treats it as a search
//! it could not finish.

/// The most unknowns a system has (a layout searched for has at most this many modes: the
/// periods of a layout over `2^14` offsets are at most 14 doublings, plus its last mode).
pub(crate) const UNKNOWNS: usize = 16;

/// Arithmetic left `i128`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Overflow;

/// One equation: the coefficients of the unknowns, then the right-hand side.
pub(crate) type Row = [i128; UNKNOWNS + 1];

/// Equations over [`UNKNOWNS`] integer unknowns, in echelon form: row `k` has its first nonzero
/// coefficient (its lead) at column `lead[k]`, leads strictly increasing.
#[derive(Clone, Copy)]
pub(crate) struct System {
    rows: usize,
    /// One past the last column any equation has a nonzero coefficient in (the loops stop
    /// there: systems are usually far narrower than [`UNKNOWNS`]).
    width: usize,
    lead: [usize; UNKNOWNS],
    a: [Row; UNKNOWNS],
}

const fn mul(a: i128, b: i128) -> Result<i128, Overflow> {
    match a.checked_mul(b) {
        Some(v) => Ok(v),
        None => Err(Overflow),
    }
}

const fn add(a: i128, b: i128) -> Result<i128, Overflow> {
    match a.checked_add(b) {
        Some(v) => Ok(v),
        None => Err(Overflow),
    }
}

/// `a * x + b * y`, checked.
const fn checked_combine(a: i128, x: i128, b: i128, y: i128) -> Result<i128, Overflow> {
    let (Ok(p), Ok(q)) = (mul(a, x), mul(b, y)) else { return Err(Overflow) };
    add(p, q)
}

/// What a system's equations fix of a linear form ([`System::determined`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Determined {
    /// Nothing: the form is independent of the equations.
    Free,
    /// This value.
    Value(i128),
    /// A value that is no integer: no integer solution gives the form any value.
    Never,
}

/// `gcd(a, b) > 0` of two numbers not both 0.
const fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a as i128
}

/// `(g, x, y)` with `g = gcd(a, b) > 0` and `a * x + b * y == g` (`a`, `b` not both 0).
const fn bezout(a: i128, b: i128) -> Result<(i128, i128, i128), Overflow> {
    let (mut r0, mut r1) = (a, b);
    let (mut x0, mut x1, mut y0, mut y1) = (1i128, 0i128, 0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        let r2 = r0 - q * r1;
        let x2 = match checked_combine(1, x0, -q, x1) {
            Ok(v) => v,
            Err(e) => return Err(e),
        };
        let y2 = match checked_combine(1, y0, -q, y1) {
            Ok(v) => v,
            Err(e) => return Err(e),
        };
        (r0, r1, x0, x1, y0, y1) = (r1, r2, x1, x2, y1, y2);
    }
    if r0 < 0 { Ok((-r0, -x0, -y0)) } else { Ok((r0, x0, y0)) }
}

impl System {
    pub(crate) const fn new() -> Self {
        System { rows: 0, width: 0, lead: [0; UNKNOWNS], a: [[0; UNKNOWNS + 1]; UNKNOWNS] }
    }

    /// Whether no equation reads unknown `c` or any after it.
    pub(crate) const fn reads_only_before(&self, c: usize) -> bool {
        c >= self.width || {
            let mut r = 0;
            while r < self.rows {
                let mut k = c;
                while k < self.width {
                    if self.a[r][k] != 0 {
                        return false;
                    }
                    k += 1;
                }
                r += 1;
            }
            true
        }
    }

    /// The number of independent equations.
    pub(crate) const fn rank(&self) -> usize {
        self.rows
    }

    /// Add an equation; `Ok(false)` if it contradicts the others (no rational solution is left).
    pub(crate) const fn add(&mut self, mut v: Row) -> Result<bool, Overflow> {
        let mut c = UNKNOWNS;
        while c > self.width {
            if v[c - 1] != 0 {
                self.width = c;
            }
            c -= 1;
        }
        let (mut r, mut c) = (0, 0);
        while c < self.width {
            if v[c] == 0 {
                c += 1;
                continue;
            }
            while r < self.rows && self.lead[r] < c {
                r += 1;
            }
            if r < self.rows && self.lead[r] == c {
                // Replace the pair (row, v) by (x*row + y*v, p*v - q*row): unimodular, and v's
                // coefficient at c becomes 0 while the row's becomes the gcd.
                let (g, x, y) = match bezout(self.a[r][c], v[c]) {
                    Ok(t) => t,
                    Err(e) => return Err(e),
                };
                let (p, q) = (self.a[r][c] / g, v[c] / g);
                let mut k = c;
                while k <= self.width {
                    // The right-hand side is the last entry, after the columns in use.
                    let k_at = if k == self.width { UNKNOWNS } else { k };
                    let (rk, vk) = (self.a[r][k_at], v[k_at]);
                    self.a[r][k_at] = match checked_combine(x, rk, y, vk) {
                        Ok(t) => t,
                        Err(e) => return Err(e),
                    };
                    v[k_at] = match checked_combine(p, vk, -q, rk) {
                        Ok(t) => t,
                        Err(e) => return Err(e),
                    };
                    k += 1;
                }
                c += 1;
                r += 1;
                continue;
            }
            // A new lead: insert the row at r.
            let mut k = self.rows;
            while k > r {
                self.a[k] = self.a[k - 1];
                self.lead[k] = self.lead[k - 1];
                k -= 1;
            }
            self.a[r] = v;
            self.lead[r] = c;
            self.rows += 1;
            return Ok(true);
        }
        Ok(v[UNKNOWNS] == 0)
    }

    /// What the equations say of `sum_t v[t] * x_t` (`v`'s right-hand side ignored), without
    /// changing them: `Free` if `v` is independent of them (any value keeps a rational
    /// solution), else the one value they fix (`Value`), or `Never` where that is no integer.
    pub(crate) const fn determined(&self, v: &Row) -> Result<Determined, Overflow> {
        // Fraction-free elimination of v's coefficients by the rows, the right-hand side kept as
        // `scale * value + rest`: once the coefficients are 0, `scale * value + rest == 0`.
        let mut v = *v;
        let (mut scale, mut rest) = (1i128, 0i128);
        let mut r = 0;
        let mut c = 0;
        while c < UNKNOWNS {
            if v[c] == 0 {
                c += 1;
                continue;
            }
            while r < self.rows && self.lead[r] < c {
                r += 1;
            }
            if r == self.rows || self.lead[r] != c {
                return Ok(Determined::Free);
            }
            // v <- (a/g) * v - (v_c/g) * row: v's coefficient at c becomes 0.
            let row = &self.a[r];
            let g = gcd(row[c], v[c]);
            let (p, q) = (row[c] / g, v[c] / g);
            let mut k = c;
            while k < UNKNOWNS {
                v[k] = match checked_combine(p, v[k], -q, row[k]) {
                    Ok(t) => t,
                    Err(e) => return Err(e),
                };
                k += 1;
            }
            scale = match mul(p, scale) {
                Ok(t) => t,
                Err(e) => return Err(e),
            };
            rest = match checked_combine(p, rest, -q, row[UNKNOWNS]) {
                Ok(t) => t,
                Err(e) => return Err(e),
            };
            c += 1;
        }
        // `scale * value + rest == 0`.
        if rest % scale != 0 {
            return Ok(Determined::Never);
        }
        Ok(Determined::Value(-rest / scale))
    }

    /// An integer solution (the unknowns no equation constrains set as the column operations
    /// leave them, 0 in the triangular form), or `None` if there is none.
    pub(crate) const fn solve(&self) -> Result<Option<[i128; UNKNOWNS]>, Overflow> {
        if let Some(x) = self.unique() {
            return x;
        }
        let (n, w) = (self.rows, self.width);
        let mut m = self.a;
        // q: the column operations (x = q y).
        let mut q = [[0i128; UNKNOWNS]; UNKNOWNS];
        let mut i = 0;
        while i < w {
            q[i][i] = 1;
            i += 1;
        }
        // Make row i zero right of column i by column operations among columns >= i (rows
        // above are already zero there, so they are not disturbed).
        let mut i = 0;
        while i < n {
            let mut c = i + 1;
            while c < w {
                if m[i][c] != 0 {
                    if m[i][i] == 0 {
                        swap_columns(&mut m, &mut q, (n, w), i, c);
                    } else {
                        let (g, x, y) = match bezout(m[i][i], m[i][c]) {
                            Ok(t) => t,
                            Err(e) => return Err(e),
                        };
                        let (p, s) = (m[i][i] / g, m[i][c] / g);
                        // col_i <- x*col_i + y*col_c ; col_c <- p*col_c - s*col_i
                        if let Err(e) = column_pair(&mut m, &mut q, (n, w), i, c, x, y, p, s) {
                            return Err(e);
                        }
                    }
                }
                c += 1;
            }
            if m[i][i] == 0 {
                // Cannot happen for independent rows; treat as no solution found.
                return Ok(None);
            }
            i += 1;
        }
        // Forward substitution: y_i = (b_i - sum_{t<i} m[i][t] y_t) / m[i][i], exactly.
        let mut y = [0i128; UNKNOWNS];
        let mut i = 0;
        while i < n {
            let mut rest = m[i][UNKNOWNS];
            let mut t = 0;
            while t < i {
                rest = match mul(m[i][t], y[t]) {
                    Ok(v) => match rest.checked_sub(v) {
                        Some(r) => r,
                        None => return Err(Overflow),
                    },
                    Err(e) => return Err(e),
                };
                t += 1;
            }
            if rest % m[i][i] != 0 {
                return Ok(None);
            }
            y[i] = rest / m[i][i];
            i += 1;
        }
        let mut x = [0i128; UNKNOWNS];
        let mut r = 0;
        while r < w {
            let mut acc = 0i128;
            let mut t = 0;
            while t < n {
                acc = match mul(q[r][t], y[t]) {
                    Ok(v) => match add(acc, v) {
                        Ok(a) => a,
                        Err(e) => return Err(e),
                    },
                    Err(e) => return Err(e),
                };
                t += 1;
            }
            x[r] = acc;
            r += 1;
        }
        Ok(Some(x))
    }
}

impl System {
    /// Where every unknown an equation reads is some row's lead (the rational solution is
    /// unique, the usual case in the searches): that solution by back substitution, `None` in
    /// it if it is no integer. `None` where unknowns are left open.
    #[allow(clippy::type_complexity)]
    const fn unique(&self) -> Option<Result<Option<[i128; UNKNOWNS]>, Overflow>> {
        let (mut used, mut leads, mut r) = (0u32, 0u32, 0);
        while r < self.rows {
            leads |= 1 << self.lead[r];
            let mut c = 0;
            while c < self.width {
                if self.a[r][c] != 0 {
                    used |= 1 << c;
                }
                c += 1;
            }
            r += 1;
        }
        if used != leads {
            return None;
        }
        let mut x = [0i128; UNKNOWNS];
        let mut r = self.rows;
        while r > 0 {
            r -= 1;
            let c = self.lead[r];
            let mut rest = self.a[r][UNKNOWNS];
            let mut k = c + 1;
            while k < self.width {
                rest = match mul(self.a[r][k], x[k]) {
                    Ok(v) => match rest.checked_sub(v) {
                        Some(t) => t,
                        None => return Some(Err(Overflow)),
                    },
                    Err(e) => return Some(Err(e)),
                };
                k += 1;
            }
            if rest % self.a[r][c] != 0 {
                return Some(Ok(None));
            }
            x[c] = rest / self.a[r][c];
        }
        Some(Ok(Some(x)))
    }
}

/// Swap columns `i` and `c` of the first `n` rows of `m` and the first `w` of `q`.
const fn swap_columns(
    m: &mut [Row; UNKNOWNS],
    q: &mut [[i128; UNKNOWNS]; UNKNOWNS],
    (n, w): (usize, usize),
    i: usize,
    c: usize,
) {
    let mut r = 0;
    while r < w {
        if r < n {
            let t = m[r][i];
            m[r][i] = m[r][c];
            m[r][c] = t;
        }
        let t = q[r][i];
        q[r][i] = q[r][c];
        q[r][c] = t;
        r += 1;
    }
}

/// Columns `i`, `c` of `m` (first `n` rows) and `q` (first `w`) become `x*col_i + y*col_c` and
/// `p*col_c - s*col_i`.
#[allow(clippy::too_many_arguments)]
const fn column_pair(
    m: &mut [Row; UNKNOWNS],
    q: &mut [[i128; UNKNOWNS]; UNKNOWNS],
    (n, w): (usize, usize),
    i: usize,
    c: usize,
    x: i128,
    y: i128,
    p: i128,
    s: i128,
) -> Result<(), Overflow> {
    /// The pair `(a, b)` of one row becomes `(x*a + y*b, p*b - s*a)`.
    const fn pair(a: i128, b: i128, [x, y, p, s]: [i128; 4]) -> Result<(i128, i128), Overflow> {
        match (checked_combine(x, a, y, b), checked_combine(p, b, -s, a)) {
            (Ok(u), Ok(v)) => Ok((u, v)),
            _ => Err(Overflow),
        }
    }
    let k = [x, y, p, s];
    let mut r = 0;
    while r < w {
        if r < n {
            (m[r][i], m[r][c]) = match pair(m[r][i], m[r][c], k) {
                Ok(t) => t,
                Err(e) => return Err(e),
            };
        }
        (q[r][i], q[r][c]) = match pair(q[r][i], q[r][c], k) {
            Ok(t) => t,
            Err(e) => return Err(e),
        };
        r += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn row(coef: &[i128], rhs: i128) -> Row {
        let mut r = [0; UNKNOWNS + 1];
        r[..coef.len()].copy_from_slice(coef);
        r[UNKNOWNS] = rhs;
        r
    }

    fn check(eqs: &[(&[i128], i128)]) -> Option<[i128; UNKNOWNS]> {
        let mut s = System::new();
        for (c, b) in eqs {
            if !s.add(row(c, *b)).unwrap() {
                return None;
            }
        }
        let x = s.solve().unwrap()?;
        for (c, b) in eqs {
            assert_eq!(c.iter().zip(&x).map(|(a, v)| a * v).sum::<i128>(), *b, "{eqs:?} {x:?}");
        }
        Some(x)
    }

    #[test]
    fn integer_solvability() {
        assert!(check(&[(&[2, 4], 3)]).is_none()); // gcd 2 does not divide 3
        assert!(check(&[(&[2, 3], 1)]).is_some());
        assert!(check(&[(&[1, 1], 3), (&[1, 2], 5)]).is_some());
        assert!(check(&[(&[1, 1], 3), (&[2, 2], 5)]).is_none()); // contradiction
        assert!(check(&[(&[2, 0], 2), (&[0, 2], 4), (&[1, 1], 4)]).is_none()); // (1,2) sums to 3
        assert!(check(&[(&[0, 6, 4], 2), (&[0, 4, 6], 8)]).is_some());
        assert!(check(&[(&[0, 6, 4], 2), (&[0, 4, 6], 7)]).is_none());
    }

    #[test]
    fn random_systems_agree_with_a_search() {
        // Small systems in 3 unknowns with solutions in -4..=4 or none: whenever a bounded
        // search finds a solution, solve finds one (possibly another), and every solution found
        // satisfies the equations (checked in `check`).
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: i128| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % (2 * n as u64 + 1)) as i128 - n
        };
        for _ in 0..3000 {
            let k = 1 + (next(1) + 1) as usize;
            let eqs: Vec<([i128; 3], i128)> =
                (0..k).map(|_| ([next(3), next(3), next(3)], next(9))).collect();
            let view: Vec<(&[i128], i128)> = eqs.iter().map(|(c, b)| (&c[..], *b)).collect();
            let mut found = false;
            for a in -4..=4 {
                for b in -4..=4 {
                    for c in -4..=4 {
                        found |= eqs.iter().all(|(e, r)| e[0] * a + e[1] * b + e[2] * c == *r);
                    }
                }
            }
            let solved = check(&view);
            if found {
                assert!(solved.is_some(), "{eqs:?}");
            }
        }
    }
}
