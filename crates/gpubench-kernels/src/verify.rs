//! Comparing GPU output with CPU references, with tolerances scaled to the data type and the
//! length of any reduction.

use gpubench_harness::Verification;

/// How many differences a failed verification describes.
const REPORTED: usize = 5;

/// Machine epsilon of f32.
pub const F32_EPS: f64 = f32::EPSILON as f64;

/// An absolute-plus-relative tolerance: `|got - want| <= abs + rel * scale`, where `scale` is
/// the magnitude the error can grow with (|want| for element-wise kernels, the sum of |terms|
/// for reductions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f64,
    /// Relative part.
    pub rel: f64,
}

impl Tolerance {
    /// Bit-exact.
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// Element-wise f32 arithmetic with at most two roundings (a fused or unfused multiply-add):
    /// 4 ulp relative leaves room for either.
    pub fn f32_elementwise() -> Self {
        Tolerance {
            abs: 0.0,
            rel: 4.0 * F32_EPS,
        }
    }

    /// A sum of `terms` f32 values in any order: the classic bound (terms - 1) x eps relative to
    /// the sum of magnitudes, never loose enough to hide one dropped term of similar size.
    pub fn f32_sum(terms: u64) -> Self {
        Tolerance {
            abs: 0.0,
            rel: (terms.max(2) - 1) as f64 * F32_EPS,
        }
    }

    /// Whether `got` is within tolerance of `want`, given the error `scale`.
    pub fn accepts(&self, got: f64, want: f64, scale: f64) -> bool {
        got.is_finite() && (got - want).abs() <= self.abs + self.rel * scale.abs()
    }
}

/// Collects comparisons into a [`Verification`].
#[derive(Debug, Default)]
pub struct Checker {
    checked: u64,
    mismatches: u64,
    first: Vec<String>,
}

impl Checker {
    /// A checker with nothing compared yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Compares one value; `what` names it for the report (called only on mismatch).
    pub fn check(
        &mut self,
        got: f64,
        want: f64,
        scale: f64,
        tol: Tolerance,
        what: impl FnOnce() -> String,
    ) {
        self.checked += 1;
        if !tol.accepts(got, want, scale) {
            self.mismatches += 1;
            if self.first.len() < REPORTED {
                self.first
                    .push(format!("{}: got {got}, expected {want}", what()));
            }
        }
    }

    /// Records a mismatch that is not a numeric comparison (e.g. a wrong length).
    pub fn fail(&mut self, message: String) {
        self.checked += 1;
        self.mismatches += 1;
        if self.first.len() < REPORTED {
            self.first.push(message);
        }
    }

    /// The verdict.
    pub fn finish(self) -> Verification {
        Verification {
            checked: self.checked,
            mismatches: self.mismatches,
            first_mismatches: self.first,
        }
    }
}

/// Compares two f32 slices element-wise against `want` with `tol` (scale = |want|).
pub fn compare_f32(got: &[f32], want: &[f64], tol: Tolerance) -> Verification {
    let mut checker = Checker::new();
    if got.len() != want.len() {
        checker.fail(format!(
            "length {} differs from expected {}",
            got.len(),
            want.len()
        ));
        return checker.finish();
    }
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        checker.check(f64::from(g), w, w, tol, || format!("element {i}"));
    }
    checker.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_tolerance_accepts_only_equal_values() {
        assert!(Tolerance::EXACT.accepts(1.5, 1.5, 1.5));
        assert!(!Tolerance::EXACT.accepts(1.5, 1.5 + 1e-12, 1.5));
        assert!(!Tolerance::EXACT.accepts(f64::NAN, f64::NAN, 0.0));
    }

    #[test]
    fn elementwise_tolerance_allows_rounding_not_errors() {
        let want = 0.4f64 * 1.234_567 + 0.987_654;
        let got = f64::from((0.4f32 * 1.234_567f32) + 0.987_654f32);
        assert!(Tolerance::f32_elementwise().accepts(got, want, want));
        assert!(!Tolerance::f32_elementwise().accepts(got * 1.0001, want, want));
    }

    #[test]
    fn sum_tolerance_catches_one_dropped_term() {
        // 256 terms near 1.0: dropping one changes the sum by ~1/256 of it, far beyond 255 eps.
        let terms = vec![1.0f64; 256];
        let sum: f64 = terms.iter().sum();
        let tol = Tolerance::f32_sum(256);
        assert!(tol.accepts(sum * (1.0 + 100.0 * F32_EPS), sum, sum));
        assert!(!tol.accepts(sum - 1.0, sum, sum));
    }

    #[test]
    fn compare_reports_first_mismatches_and_lengths() {
        let v = compare_f32(&[1.0, 2.0, 3.0], &[1.0, 2.5, 3.0], Tolerance::EXACT);
        assert_eq!((v.checked, v.mismatches), (3, 1));
        assert!(v.first_mismatches[0].contains("element 1"));
        assert!(!v.passed());
        let v = compare_f32(&[1.0], &[1.0, 2.0], Tolerance::EXACT);
        assert!(!v.passed());
        assert!(compare_f32(&[1.0, 2.0], &[1.0, 2.0], Tolerance::EXACT).passed());
    }
}
