//! CPU references: exact element-by-element checks (copy, transpose) and the SGEMM checks (every
//! element finite, sampled `f64` dot products, the whole matrix against cuBLAS), each failing with
//! what differs and where.

use crate::error::Error;
use crate::kernels::Matrix;
use crate::rng::SplitMix64;
use std::marker::PhantomData;

/// The largest accepted SGEMM error, relative to `sum_k |a_ik b_jk|`.
pub const GEMM_TOLERANCE: f64 = 1e-5;
/// Added to the denominators of relative errors (all-zero rows cannot occur with the non-zero
/// test data, but the division stays defined).
const TINY: f64 = 1e-30;

/// Whether a relative error is within [`GEMM_TOLERANCE`] (a NaN is not).
fn accepted(rel: f64) -> bool {
    rel <= GEMM_TOLERANCE
}

/// Checks an `m x n` result bit for bit: `got(i, j)` against `want(i, j)`, every element.
pub fn exact(
    what: &str,
    (m, n): (usize, usize),
    got: impl Fn(usize, usize) -> f32,
    want: impl Fn(usize, usize) -> f32,
) -> Result<(), Error> {
    let mut first = None;
    let mut wrong = 0u64;
    for j in 0..n {
        for i in 0..m {
            let (g, w) = (got(i, j), want(i, j));
            if g.to_bits() != w.to_bits() {
                wrong += 1;
                first.get_or_insert((i, j, g, w));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((i, j, g, w)) => Err(Error::new(format!(
            "check failed: {what}: element ({i}, {j}) is {g} ({:#010x}), expected {w} ({:#010x}); {wrong} of {} elements wrong",
            g.to_bits(),
            w.to_bits(),
            m * n
        ))),
    }
}

/// The CPU reference of `C = A B^T` with `A` (m x k) and `B` (n x k) compactly stored as `P`
/// (column-major: NT, row-major: TN), `C` column-major.
pub struct GemmReference<'a, P> {
    /// `(m, n, k)`.
    pub dims: (usize, usize, usize),
    /// `A`'s storage.
    pub a: &'a [f32],
    /// `B`'s storage.
    pub b: &'a [f32],
    /// The operands' storage.
    pub storage: PhantomData<P>,
}

impl<P: Matrix> GemmReference<'_, P> {
    /// `(sum_k a_ik b_jk, sum_k |a_ik b_jk|)` in `f64`.
    pub fn dot(&self, i: usize, j: usize) -> (f64, f64) {
        let (m, n, k) = self.dims;
        (0..k).fold((0.0, 0.0), |(sum, abs), p| {
            let ab = f64::from(self.a[P::offset(m, k, i, p)]) * f64::from(self.b[P::offset(n, k, j, p)]);
            (sum + ab, abs + ab.abs())
        })
    }

    /// Checks `c` (column-major m x n, poisoned with NaN before the launch, `beta = 0`): every
    /// element finite, then `samples` random elements against [`dot`](Self::dot). Returns the
    /// largest sampled relative error.
    pub fn check(&self, what: &str, c: &[f32], samples: usize, rng: &mut SplitMix64) -> Result<f64, Error> {
        let (m, n, _) = self.dims;
        if let Some(at) = c.iter().position(|v| !v.is_finite()) {
            let (i, j) = (at % m, at / m);
            return Err(Error::new(format!(
                "check failed: {what}: C({i}, {j}) is {} (not written, or not finite)",
                c[at]
            )));
        }
        let mut worst = 0.0f64;
        for _ in 0..samples {
            let (i, j) = (rng.below(m as u64) as usize, rng.below(n as u64) as usize);
            let (want, scale) = self.dot(i, j);
            let ours = f64::from(c[i + j * m]);
            let rel = (ours - want).abs() / (scale + TINY);
            if !accepted(rel) {
                return Err(Error::new(format!(
                    "check failed: {what}: C({i}, {j}) is {ours}, the f64 reference {want} \
                     (relative error {rel:.2e} > {GEMM_TOLERANCE:e})"
                )));
            }
            worst = worst.max(rel);
        }
        Ok(worst)
    }
}

/// Compares `c` with another result `reference` of the same `m`-row column-major product, every
/// element, relative to `scale` (`sum_k |a_ik b_jk|` for each element). Returns the largest
/// relative error.
pub fn compare(what: &str, m: usize, c: &[f32], reference: &[f32], scale: &[f32]) -> Result<f64, Error> {
    let mut worst = 0.0f64;
    for (at, ((&ours, &theirs), &s)) in c.iter().zip(reference).zip(scale).enumerate() {
        let rel = (f64::from(ours) - f64::from(theirs)).abs() / (f64::from(s) + TINY);
        if !accepted(rel) {
            return Err(Error::new(format!(
                "check failed: {what}: C({}, {}) is {ours}, against {theirs} (relative error {rel:.2e} > {GEMM_TOLERANCE:e})",
                at % m,
                at / m
            )));
        }
        worst = worst.max(rel);
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{ColMajor, RowMajor};

    /// A tiny product on the CPU, in `f32`: what a correct kernel writes.
    fn product<P: Matrix>(r: &GemmReference<'_, P>) -> Vec<f32> {
        let (m, n, _) = r.dims;
        (0..m * n).map(|at| r.dot(at % m, at / m).0 as f32).collect()
    }

    fn reference<'a, P>(a: &'a [f32], b: &'a [f32]) -> GemmReference<'a, P> {
        GemmReference { dims: (5, 3, 4), a, b, storage: PhantomData }
    }

    #[test]
    fn dot_reads_each_form() {
        // A(i, p) = i + 10 p and B(j, p) = 1 + j * p, stored in both forms.
        let (m, n, k) = (5, 3, 4);
        let a_nt: Vec<f32> = (0..m * k).map(|o| ((o % m) + 10 * (o / m)) as f32).collect();
        let b_nt: Vec<f32> = (0..n * k).map(|o| (1 + (o % n) * (o / n)) as f32).collect();
        let a_tn: Vec<f32> = (0..m * k).map(|o| ((o / k) + 10 * (o % k)) as f32).collect();
        let b_tn: Vec<f32> = (0..n * k).map(|o| (1 + (o / k) * (o % k)) as f32).collect();
        // C(4, 2) = sum_p (4 + 10 p)(1 + 2 p) = 4 + 42 + 120 + 238.
        assert_eq!(reference::<ColMajor>(&a_nt, &b_nt).dot(4, 2), (404.0, 404.0));
        assert_eq!(reference::<RowMajor>(&a_tn, &b_tn).dot(4, 2), (404.0, 404.0));
    }

    #[test]
    fn sgemm_check_finds_a_wrong_element() {
        let mut rng = SplitMix64::new(5);
        let (a, b) = (rng.nonzero_vec(20), rng.nonzero_vec(12));
        let r = reference::<RowMajor>(&a, &b);
        let mut c = product(&r);
        assert!(r.check("sgemm_tn_f32", &c, 2048, &mut rng).unwrap() < 1e-6);
        c[2 + 5] += 0.01;
        let e = r.check("sgemm_tn_f32", &c, 2048, &mut rng).unwrap_err();
        assert!(e.message().contains("C(2, 1)"), "{e}");
        c[2 + 5] = f32::NAN;
        assert!(r.check("sgemm_tn_f32", &c, 0, &mut rng).unwrap_err().message().contains("not finite"));
    }

    #[test]
    fn compare_finds_a_wrong_element() {
        let c = [1.0, 2.0, 3.0, 4.0];
        let scale = [1.0; 4];
        assert_eq!(compare("x", 2, &c, &c, &scale).unwrap(), 0.0);
        let other = [1.0, 2.0, 3.5, 4.0];
        assert!(compare("x", 2, &c, &other, &scale).unwrap_err().message().contains("C(0, 1)"));
    }

    #[test]
    fn exact_reports_the_first_difference_and_the_count() {
        let want = |i: usize, j: usize| (i * 10 + j) as f32;
        assert!(exact("copy_f32", (4, 3), want, want).is_ok());
        let got = |i: usize, j: usize| if j == 1 && i > 1 { f32::NAN } else { want(i, j) };
        let e = exact("copy_f32", (4, 3), got, want).unwrap_err();
        assert!(e.message().contains("element (2, 1)") && e.message().contains("2 of 12"), "{e}");
    }
}
