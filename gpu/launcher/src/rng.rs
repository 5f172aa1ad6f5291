//! A small, fast, deterministic PRNG (SplitMix64) for test data and sample positions, and the
//! half-precision test data of the tensor-core GEMMs.

use const_layout_device::{HalfKind, f32_to_half, half_to_f32};

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

    /// `len` halves of `kind`: [`nonzero_f32`](Self::nonzero_f32) rounded to `kind`
    /// (`small_integers`: 0 or 1, so that every partial sum of a product is an integer).
    pub fn halves(&mut self, kind: HalfKind, len: usize, small_integers: bool) -> Halves {
        let bits: Vec<u16> = (0..len)
            .map(|_| {
                let v = if small_integers { (self.next_u64() & 1) as f32 } else { self.nonzero_f32() };
                f32_to_half(kind, v)
            })
            .collect();
        Halves::new(kind, bits)
    }
}

/// Halves in memory order: their values (exact as `f32`) and the 32-bit words a kernel and cuBLAS
/// read, two halves a word, the first in the low 16 bits.
#[derive(Clone, Debug, PartialEq)]
pub struct Halves {
    /// The values.
    pub values: Vec<f32>,
    /// The words (the last one padded with a zero half for an odd count).
    pub words: Vec<u32>,
}

impl Halves {
    /// The halves `bits` of `kind`.
    pub fn new(kind: HalfKind, bits: Vec<u16>) -> Halves {
        let values = bits.iter().map(|&h| half_to_f32(kind, h)).collect();
        let words =
            bits.chunks(2).map(|p| u32::from(p[0]) | u32::from(*p.get(1).unwrap_or(&0)) << 16).collect();
        Halves { values, words }
    }

    /// The absolute values: each sign bit cleared (the same for `f16` and `bf16`).
    pub fn abs_words(&self) -> Vec<u32> {
        self.words.iter().map(|w| w & 0x7fff_7fff).collect()
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
    fn halves_are_packed_low_first() {
        let h = Halves::new(HalfKind::F16, vec![0x3c00, 0xc000, 0x3800]);
        assert_eq!(h.values, [1.0, -2.0, 0.5]);
        assert_eq!(h.words, [0xc000_3c00, 0x3800]);
        assert_eq!(h.abs_words(), [0x4000_3c00, 0x3800]);
        let b = SplitMix64::new(9).halves(HalfKind::BF16, 1000, false);
        assert!(b.values.iter().all(|v| v.abs() >= 0.25 && v.abs() <= 1.0));
        assert_eq!(b.words[3], const_layout_device::pack_half2(HalfKind::BF16, b.values[6], b.values[7]));
        let ints = SplitMix64::new(9).halves(HalfKind::F16, 1000, true);
        assert!(ints.values.iter().all(|v| *v == 0.0 || *v == 1.0));
        assert!(ints.values.iter().filter(|v| **v == 1.0).count() > 400);
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
