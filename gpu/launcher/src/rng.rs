//! A small, fast, deterministic PRNG (SplitMix64) for test data and sample positions.

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, every seed a full-period sequence.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator started at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value uniform in `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for the
    /// sizes used here). `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A non-zero, finite value with a random sign and a magnitude in `[0.25, 1)`: no zeros (a
    /// kernel that skips an element cannot pass by luck), no cancellation to zero in a copy.
    pub fn nonzero_f32(&mut self) -> f32 {
        let bits = self.next_u64();
        let unit = (bits >> 40) as f32 / (1u64 << 24) as f32;
        let magnitude = 0.25 + 0.75 * unit;
        if bits & 1 == 0 { magnitude } else { -magnitude }
    }

    /// `len` values of [`nonzero_f32`](Self::nonzero_f32).
    pub fn nonzero_vec(&mut self, len: usize) -> Vec<f32> {
        (0..len).map(|_| self.nonzero_f32()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_nonzero_finite_and_of_both_signs() {
        let v = SplitMix64::new(1).nonzero_vec(100_000);
        assert!(v.iter().all(|x| x.is_finite() && x.abs() >= 0.25 && x.abs() < 1.0));
        let negative = v.iter().filter(|x| **x < 0.0).count();
        assert!((45_000..55_000).contains(&negative), "{negative}");
    }

    #[test]
    fn sequences_are_deterministic_and_seeded() {
        let (mut a, mut b, mut c) = (SplitMix64::new(7), SplitMix64::new(7), SplitMix64::new(8));
        let (x, y, z) = (a.next_u64(), b.next_u64(), c.next_u64());
        assert_eq!(x, y);
        assert_ne!(x, z);
    }

    #[test]
    fn below_stays_below() {
        let mut r = SplitMix64::new(3);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let v = r.below(5) as usize;
            seen[v] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }
}
