//! Host buffers for the emulated kernels: device memory is `AtomicU32` words.
#![allow(missing_docs, dead_code)]

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// A buffer of `f32` as the emulator's global memory.
pub struct Buffer(pub Vec<AtomicU32>);

impl Buffer {
    pub fn from_fn(len: usize, f: impl Fn(usize) -> f32) -> Self {
        Buffer((0..len).map(|i| AtomicU32::new(f(i).to_bits())).collect())
    }

    pub fn filled(len: usize, v: f32) -> Self {
        Self::from_fn(len, |_| v)
    }

    pub fn get(&self, i: usize) -> f32 {
        f32::from_bits(self.0[i].load(Relaxed))
    }

    pub fn to_vec(&self) -> Vec<f32> {
        (0..self.0.len()).map(|i| self.get(i)).collect()
    }
}

/// Deterministic values in (-1, 1), none zero: splitmix64 of the index and a seed.
pub fn value(seed: u64, i: usize) -> f32 {
    let mut z = seed.wrapping_add((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let v = ((z >> 40) as f32 + 0.5) / (1u64 << 24) as f32; // (0, 1)
    2.0 * v - 1.0
}

/// Every element of a GEMM's `C` (`got(i, j)`) against `alpha A B^T + beta C0`, computed exactly
/// from small-integer inputs `a(i, p)`, `b(j, p)` and `c0(i, j)`.
#[allow(clippy::too_many_arguments)]
pub fn check_gemm(
    what: &str,
    (m, n, k): (usize, usize, usize),
    a: impl Fn(usize, usize) -> i32,
    b: impl Fn(usize, usize) -> i32,
    c0: impl Fn(usize, usize) -> f32,
    alpha: f32,
    beta: f32,
    got: impl Fn(usize, usize) -> f32,
) {
    for i in 0..m {
        for j in 0..n {
            let dot: i32 = (0..k).map(|p| a(i, p) * b(j, p)).sum();
            let want = alpha * dot as f32 + beta * c0(i, j);
            assert_eq!(got(i, j), want, "{what} {m}x{n}x{k}: C({i},{j})");
        }
    }
}
