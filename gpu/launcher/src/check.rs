//! CPU references: exact element-by-element checks (copy, transpose) and the GEMM checks (every
//! element finite, sampled `f64` dot products, the whole matrix against cuBLAS), each failing with
//! what differs and where.
//!
//! A GEMM result is compared with its reference in one of three ways ([`Tolerance`]): with `f32`
//! accumulation (SGEMM, and the HGEMMs' `f32` accumulators, whose half-precision products are
//! exact in `f32`), each element within 1e-5 of `sum_k |a_ik b_jk|`; with `f16` accumulators, the
//! largest difference within 1e-2 of the largest reference value (what `f16` accumulation of
//! `k = 4096` products keeps; `tools/gpu/hgemm_bench.py`'s criterion); on small integers (every
//! partial sum an integer below 2048, exact in `f16`), exactly.

use crate::error::Error;
use crate::kernels::GemmForm;
use crate::rng::SplitMix64;

/// The largest accepted error with `f32` accumulation, relative to `sum_k |a_ik b_jk|`.
pub const GEMM_TOLERANCE: f64 = 1e-5;
/// The largest accepted error with `f16` accumulators, relative to the largest reference value.
pub const F16_ACC_TOLERANCE: f64 = 1e-2;
/// Added to the denominators of relative errors (all-zero rows cannot occur with the non-zero
/// test data, but the division stays defined).
const TINY: f64 = 1e-30;

/// How a GEMM result is compared with its reference (see the module).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Each element within this fraction of its `sum_k |a_ik b_jk|`.
    PerElement(f64),
    /// The largest difference within this fraction of the largest reference value.
    OfLargest(f64),
    /// Every element exactly.
    Exact,
}

impl Tolerance {
    /// The tolerance of `f32` accumulation (`f32 = true`) or of `f16` accumulators.
    pub fn of_accumulation(f32: bool) -> Tolerance {
        if f32 { Tolerance::PerElement(GEMM_TOLERANCE) } else { Tolerance::OfLargest(F16_ACC_TOLERANCE) }
    }

    /// The bound, as printed.
    fn bound(self) -> f64 {
        match self {
            Tolerance::PerElement(t) | Tolerance::OfLargest(t) => t,
            Tolerance::Exact => 0.0,
        }
    }
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

/// The CPU reference of `C = A B^T` with `A` (m x k) and `B` (n x k) compactly stored in `form`
/// (values: `f32`, or halves as their exact `f32` values).
pub struct GemmReference<'a> {
    /// `(m, n, k)`.
    pub dims: (usize, usize, usize),
    /// The operands' storage.
    pub form: GemmForm,
    /// `A`'s storage.
    pub a: &'a [f32],
    /// `B`'s storage.
    pub b: &'a [f32],
}

impl GemmReference<'_> {
    /// `(sum_k a_ik b_jk, sum_k |a_ik b_jk|)` in `f64`.
    pub fn dot(&self, i: usize, j: usize) -> (f64, f64) {
        let (m, n, k) = self.dims;
        (0..k).fold((0.0, 0.0), |(sum, abs), p| {
            let ab = f64::from(self.a[self.form.offset(m, k, i, p)])
                * f64::from(self.b[self.form.offset(n, k, j, p)]);
            (sum + ab, abs + ab.abs())
        })
    }

    /// The elements a sampled check compares: `samples` random ones, and the last row and the last
    /// column (the residue tiles').
    pub fn positions(&self, samples: usize, rng: &mut SplitMix64) -> Vec<(usize, usize)> {
        let (m, n, _) = self.dims;
        let mut at: Vec<(usize, usize)> =
            (0..samples).map(|_| (rng.below(m as u64) as usize, rng.below(n as u64) as usize)).collect();
        at.extend((0..n).map(|j| (m - 1, j)));
        at.extend((0..m).map(|i| (i, n - 1)));
        at
    }

    /// Checks the result `c(i, j)` (poisoned with NaN before the launch, `beta = 0`): the elements
    /// `all` (every element, for finiteness) are finite, then the elements `at` against
    /// [`dot`](Self::dot) within `tolerance`. Returns the largest error, relative as the tolerance
    /// says.
    pub fn check(
        &self,
        what: &str,
        c: impl Fn(usize, usize) -> f64,
        at: &[(usize, usize)],
        tolerance: Tolerance,
    ) -> Result<f64, Error> {
        let (m, n, _) = self.dims;
        if let Some((i, j)) =
            (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).find(|&(i, j)| !c(i, j).is_finite())
        {
            return Err(Error::new(format!(
                "check failed: {what}: C({i}, {j}) is {} (not written, or not finite)",
                c(i, j)
            )));
        }
        let dots: Vec<(f64, f64)> = at.iter().map(|&(i, j)| self.dot(i, j)).collect();
        let largest = dots.iter().fold(0.0f64, |l, d| l.max(d.0.abs()));
        let mut worst = 0.0f64;
        for (&(i, j), &(want, scale)) in at.iter().zip(&dots) {
            let ours = c(i, j);
            let rel = relative(tolerance, ours, want, scale, largest);
            if rel.is_nan() || rel > tolerance.bound() {
                return Err(Error::new(format!(
                    "check failed: {what}: C({i}, {j}) is {ours}, the f64 reference {want} ({})",
                    describe(tolerance, rel)
                )));
            }
            worst = worst.max(rel);
        }
        Ok(worst)
    }
}

/// The error of `ours` against `want` as `tolerance` measures it.
fn relative(tolerance: Tolerance, ours: f64, want: f64, scale: f64, largest: f64) -> f64 {
    let diff = (ours - want).abs();
    match tolerance {
        Tolerance::PerElement(_) => diff / (scale + TINY),
        Tolerance::OfLargest(_) => diff / (largest + TINY),
        Tolerance::Exact => diff,
    }
}

/// An error and its bound, for a failed check's message.
fn describe(tolerance: Tolerance, rel: f64) -> String {
    match tolerance {
        Tolerance::PerElement(t) => format!("relative error {rel:.2e} > {t:e}"),
        Tolerance::OfLargest(t) => format!("error {rel:.2e} of the largest value > {t:e}"),
        Tolerance::Exact => format!("off by {rel}, expected exactly"),
    }
}

/// Compares the `m x n` result `c(i, j)` with another result `reference` of the same product
/// (column-major), every element, within `tolerance` (`scale`, column-major: `sum_k |a_ik b_jk|`
/// of each element, for [`Tolerance::PerElement`]). Returns the largest error.
pub fn compare(
    what: &str,
    (m, n): (usize, usize),
    c: impl Fn(usize, usize) -> f64,
    reference: &[f32],
    scale: &[f32],
    tolerance: Tolerance,
) -> Result<f64, Error> {
    let largest = reference.iter().fold(0.0f64, |l, &r| l.max(f64::from(r).abs()));
    let mut worst = 0.0f64;
    for j in 0..n {
        for i in 0..m {
            let (ours, theirs) = (c(i, j), f64::from(reference[i + j * m]));
            let rel = relative(tolerance, ours, theirs, f64::from(scale[i + j * m]), largest);
            if rel.is_nan() || rel > tolerance.bound() {
                return Err(Error::new(format!(
                    "check failed: {what}: C({i}, {j}) is {ours}, against {theirs} ({})",
                    describe(tolerance, rel)
                )));
            }
            worst = worst.max(rel);
        }
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny product on the CPU, in `f32`, column-major: what a correct kernel writes.
    fn product(r: &GemmReference<'_>) -> Vec<f32> {
        let (m, n, _) = r.dims;
        (0..m * n).map(|at| r.dot(at % m, at / m).0 as f32).collect()
    }

    fn reference<'a>(form: GemmForm, a: &'a [f32], b: &'a [f32]) -> GemmReference<'a> {
        GemmReference { dims: (5, 3, 4), form, a, b }
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
        assert_eq!(reference(GemmForm::Nt, &a_nt, &b_nt).dot(4, 2), (404.0, 404.0));
        assert_eq!(reference(GemmForm::Tn, &a_tn, &b_tn).dot(4, 2), (404.0, 404.0));
    }

    #[test]
    fn gemm_check_finds_a_wrong_element() {
        let mut rng = SplitMix64::new(5);
        let (a, b) = (rng.nonzero_vec(20), rng.nonzero_vec(12));
        let r = reference(GemmForm::Tn, &a, &b);
        let mut c = product(&r);
        let at = r.positions(64, &mut rng);
        assert!(at.contains(&(4, 0)) && at.contains(&(0, 2)));
        let tol = Tolerance::PerElement(GEMM_TOLERANCE);
        assert!(r.check("sgemm_tn_f32", |i, j| f64::from(c[i + 5 * j]), &at, tol).unwrap() < 1e-6);
        c[2 + 5] += 0.01;
        let e = r.check("sgemm_tn_f32", |i, j| f64::from(c[i + 5 * j]), &at, tol).unwrap_err();
        assert!(e.message().contains("C(2, 1)"), "{e}");
        // Relative to the largest value, 0.01 is within f16 accumulation's error.
        let loose = Tolerance::OfLargest(F16_ACC_TOLERANCE);
        assert!(r.check("hgemm_tn_f16", |i, j| f64::from(c[i + 5 * j]), &at, loose).is_ok());
        c[2 + 5] = f32::NAN;
        let e = r.check("sgemm_tn_f32", |i, j| f64::from(c[i + 5 * j]), &[], tol).unwrap_err();
        assert!(e.message().contains("not finite"), "{e}");
    }

    #[test]
    fn exact_checks_take_no_error() {
        let (a, b) = ([1.0f32; 20], [0.0f32, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]);
        let r = reference(GemmForm::Nt, &a, &b);
        let c = product(&r);
        let at = [(0, 0), (4, 2)];
        assert_eq!(r.check("x", |i, j| f64::from(c[i + 5 * j]), &at, Tolerance::Exact).unwrap(), 0.0);
        let e = r.check("x", |i, j| f64::from(c[i + 5 * j]) + 1e-3, &at, Tolerance::Exact).unwrap_err();
        assert!(e.message().contains("expected exactly"), "{e}");
    }

    #[test]
    fn compare_finds_a_wrong_element() {
        let c = [1.0f32, 2.0, 3.0, 4.0];
        let scale = [1.0; 4];
        let at = |i: usize, j: usize| f64::from(c[i + 2 * j]);
        let tol = Tolerance::PerElement(GEMM_TOLERANCE);
        assert_eq!(compare("x", (2, 2), at, &c, &scale, tol).unwrap(), 0.0);
        let other = [1.0, 2.0, 3.5, 4.0];
        let e = compare("x", (2, 2), at, &other, &scale, tol).unwrap_err();
        assert!(e.message().contains("C(0, 1)"), "{e}");
        // 0.5 of a largest value of 4: more than 1e-2.
        assert!(compare("x", (2, 2), at, &other, &scale, Tolerance::OfLargest(F16_ACC_TOLERANCE)).is_err());
        assert!(compare("x", (2, 2), at, &[1.0, 2.0, 3.01, 4.0], &scale, Tolerance::OfLargest(1e-2)).is_ok());
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
