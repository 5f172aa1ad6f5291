//! Precomputed division by a runtime extent: CUTLASS's `FastDivmod`, CK Tile's magic division.
//!
//! Splitting an index over a runtime extent is a division and a remainder. A hardware division
//! costs tens of cycles; a kernel splits the same extents millions of times, so CUTLASS and CK
//! compute a multiplier once (on the host) and divide by multiplying. [`FastDivmod`] is that, exact
//! for *every* dividend and divisor (not only for the 31-bit ranges CUTLASS's and CK's versions
//! assume). The method is Granlund and Montgomery's ("Division by invariant integers using
//! multiplication", 1994, theorem 4.2): with `l = ceil(log2 d)` and `N` bits of dividend, the
//! multiplier `m = ceil(2^(N+l) / d)` makes `n / d = (m * n) >> (N + l)` exact for every `n < 2^N`.
//! Two multipliers are kept. At `N = 31` the multiplier fits in 32 bits, so a dividend and divisor
//! below 2^31 (every index of a layout whose size fits `i32`) take one 64-bit multiply and a
//! shift. At `N = 63` (indices are non-negative `isize`s) it fits in 64 bits, with no 65-bit
//! fix-up as at 64 bits: the high half of `m * 2n` shifted right by `l`. A dividend of 64 bits
//! (only reachable through the `usize` methods) takes a hardware division.
//!
//! A `FastDivmod` is also a runtime integer ([`crate::int::Int`]): an extent of a layout's
//! shape written as a `FastDivmod` is split with the precomputed multiplier wherever the layout
//! splits an index (`crd2idx` of an integer index, `idx2crd`), so fast division is a choice of
//! integer type, not another API:
//!
//! ```
//! use const_layout::{C, FastDivmod, make_layout};
//! let (m, n) = (12usize, 7usize);
//! let l = make_layout((FastDivmod::new(m).unwrap(), n), (C::<1>, m)).unwrap();
//! assert_eq!(l.crd2idx(29usize), 29); // 29 = 5 + 2 * 12: split by the multiplier, not `div`
//! assert_eq!(l.idx2crd(29usize), (5, 2));
//! assert_eq!(l.to_string(), "(12,7):(_1,12)");
//! ```

use crate::int::{Int, Runtime, Sealed};
use core::fmt;

/// A runtime divisor with its precomputed multipliers: `n / d` and `n % d` for every `n: usize` by
/// a multiply and a shift (and a multiply and a subtract for the remainder). Build it once per extent (the constructor
/// divides), use it many times.
///
/// ```
/// use const_layout::FastDivmod;
/// let d = FastDivmod::new(7).unwrap();
/// assert_eq!(d.divmod(100), (14, 2));
/// assert_eq!(d.div(usize::MAX), usize::MAX / 7);
/// assert!(FastDivmod::new(0).is_none());
/// ```
#[derive(Clone, Copy, Hash)]
pub struct FastDivmod {
    divisor: usize,
    multiplier: u64,
    // `ceil(2^(31+l) / d)` if `d < 2^31`, else unused.
    multiplier32: u32,
    shift: u32,
}

impl FastDivmod {
    /// The divisor `d` with its multiplier, or `None` if `d` is 0 or above `isize::MAX` (an
    /// extent of a layout is a positive `isize`).
    ///
    /// ```
    /// use const_layout::FastDivmod;
    /// assert_eq!(FastDivmod::new(96).map(|d| d.divisor()), Some(96));
    /// assert!(FastDivmod::new(usize::MAX).is_none());
    /// ```
    pub const fn new(d: usize) -> Option<Self> {
        if d == 0 || d > isize::MAX as usize {
            return None;
        }
        // 2^(l-1) < d <= 2^l, so 2^63 <= m < 2^64; and m * d <= 2^(63+l) + 2^l, the theorem's
        // condition for exactness on every dividend below 2^63.
        let shift = usize::BITS - (d - 1).leading_zeros();
        let multiplier = (1u128 << (63 + shift)).div_ceil(d as u128);
        // The same bound at 31 bits of dividend: 2^31 <= m32 < 2^32 when d < 2^31.
        let multiplier32 = if d < 1 << 31 { (1u64 << (31 + shift)).div_ceil(d as u64) as u32 } else { 0 };
        Some(FastDivmod { divisor: d, multiplier: multiplier as u64, multiplier32, shift })
    }

    /// The divisor.
    ///
    /// ```
    /// assert_eq!(const_layout::FastDivmod::new(5).unwrap().divisor(), 5);
    /// ```
    #[inline(always)]
    pub const fn divisor(&self) -> usize {
        self.divisor
    }

    /// `n / d`.
    ///
    /// ```
    /// assert_eq!(const_layout::FastDivmod::new(3).unwrap().div(10), 3);
    /// ```
    #[inline(always)]
    pub const fn div(&self, n: usize) -> usize {
        if (n | self.divisor) >> 31 == 0 {
            return ((self.multiplier32 as u64 * n as u64) >> (31 + self.shift)) as usize;
        }
        if n > isize::MAX as usize {
            return n / self.divisor;
        }
        let n2 = (n as u64) << 1;
        (((self.multiplier as u128 * n2 as u128) >> 64) as u64 >> self.shift) as usize
    }

    /// `(n / d, n % d)`.
    ///
    /// ```
    /// assert_eq!(const_layout::FastDivmod::new(3).unwrap().divmod(10), (3, 1));
    /// ```
    #[inline(always)]
    pub const fn divmod(&self, n: usize) -> (usize, usize) {
        let q = self.div(n);
        (q, n - q * self.divisor)
    }

    /// `n % d`.
    ///
    /// ```
    /// assert_eq!(const_layout::FastDivmod::new(3).unwrap().rem(10), 1);
    /// ```
    #[inline(always)]
    pub const fn rem(&self, n: usize) -> usize {
        self.divmod(n).1
    }
}

/// Division by 1.
///
/// ```
/// assert_eq!(const_layout::FastDivmod::default().divmod(7), (7, 0));
/// ```
impl Default for FastDivmod {
    fn default() -> Self {
        FastDivmod { divisor: 1, multiplier: 1 << 63, multiplier32: 1 << 31, shift: 0 }
    }
}

impl fmt::Debug for FastDivmod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.divisor)
    }
}

impl fmt::Display for FastDivmod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.divisor)
    }
}

impl Sealed for FastDivmod {}

// A runtime integer whose splits use the multiplier. Arithmetic on it (a product of extents, a
// stride) gives a plain `isize`: the result is another divisor, which would need its own
// multiplier, and most results are never divided by.
impl Int for FastDivmod {
    type Kind = Runtime;
    type RtOr<X: Int> = isize;
    const STATIC: Option<isize> = None;
    #[inline(always)]
    fn value(self) -> isize {
        self.divisor as isize
    }
    #[inline(always)]
    fn try_value(self) -> Option<isize> {
        Some(self.divisor as isize)
    }
    /// A non-positive value (which no layout accepts as an extent) divides as 1 does.
    fn from_value(v: isize) -> Self {
        FastDivmod::new(v as usize).unwrap_or_default()
    }
    fn try_from_value(v: isize) -> Option<Self> {
        if v > 0 { FastDivmod::new(v as usize) } else { None }
    }
    #[inline(always)]
    fn split_index(self, index: isize) -> (isize, isize) {
        let (q, r) = self.divmod(index as usize);
        (r as isize, q as isize)
    }
}

impl Eq for FastDivmod {}

// Equal to any integer of the same value, as the other runtime integers are.
impl<Rhs: Int> PartialEq<Rhs> for FastDivmod {
    fn eq(&self, other: &Rhs) -> bool {
        other.try_value() == Some(self.divisor as isize)
    }
}

#[cfg(test)]
mod tests {
    use super::FastDivmod;

    fn check(d: usize, n: usize) {
        let f = FastDivmod::new(d).unwrap();
        assert_eq!(f.divmod(n), (n / d, n % d), "{n} / {d}");
    }

    #[test]
    fn exact_for_small_divisors_and_dividends() {
        for d in 1..=300 {
            for n in 0..3000 {
                check(d, n);
            }
        }
    }

    #[test]
    fn exact_at_the_edges() {
        let ds = [
            1,
            2,
            3,
            5,
            7,
            641,
            6700417,
            (1 << 30) + 1,
            (1 << 31) - 1,
            (1 << 31) - 3,
            1 << 31,
            (1 << 31) + 1,
            (1 << 32) - 1,
            1 << 32,
            (1 << 32) + 1,
        ];
        let big = [isize::MAX as usize, isize::MAX as usize - 1, (isize::MAX as usize) / 3 * 2 + 1];
        for &d in ds.iter().chain(big.iter()) {
            let top = isize::MAX as usize;
            for &n in &[
                0,
                1,
                d - 1,
                d,
                d + 1,
                usize::MAX,
                usize::MAX - 1,
                usize::MAX / d * d,
                u32::MAX as usize,
                top,
                top - 1,
                top + 1,
                top / d * d,
                top / d * d - 1,
            ] {
                check(d, n);
            }
            for k in [1usize, 2, 3, 1000, 1 << 20] {
                let q = usize::MAX / d / k;
                for n in
                    [Some(q * d), (q * d).checked_add(d - 1), (q * d).checked_sub(1)].into_iter().flatten()
                {
                    check(d, n);
                }
            }
        }
    }

    #[test]
    fn exact_for_pseudo_random_pairs() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as usize
        };
        for _ in 0..200_000 {
            let shift = next() % 64;
            let d = (next() >> shift).clamp(1, isize::MAX as usize);
            check(d, next());
            check(d, next() >> (next() % 64));
            // Both below 2^31: the 32-bit multiplier's range.
            let small = (next() >> (33 + next() % 31)).max(1);
            check(small, next() >> 33);
            check(small, (next() >> 33) / small * small);
        }
    }

    #[test]
    fn rejects_zero_and_huge() {
        assert!(FastDivmod::new(0).is_none());
        assert!(FastDivmod::new(isize::MAX as usize + 1).is_none());
        assert!(FastDivmod::new(isize::MAX as usize).is_some());
    }
}
