//! Comparing GPU output with CPU references, with tolerances scaled to the data type and the
//! length of any reduction.

use crate::Verification;

/// How many differences a failed verification describes.
const REPORTED: usize = 5;

/// Machine epsilon of f32.
pub const F32_EPS: f64 = f32::EPSILON as f64;

/// The probabilistic f32 dot-product bound's multiple of `sqrt(k) * u` (see [`DotTolerance`]).
const LAMBDA: f64 = 10.0;

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
    /// the sum of magnitudes. A dropped term of similar size (a 1/terms share of that sum) stays
    /// outside it only while terms^2 < 1/eps, about 2,900 terms; a longer sum catches one only
    /// if its terms are kept exact (as the stream suite's partial sums are).
    pub fn f32_sum(terms: u64) -> Self {
        Tolerance {
            abs: 0.0,
            rel: (terms.max(2) - 1) as f64 * F32_EPS,
        }
    }

    /// Whether `got` is within tolerance of `want`, given the error `scale`.
    #[inline]
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

    /// A checker that goes on from `earlier`, a check of another part of the same output: its
    /// counts and first mismatches come first.
    pub fn continuing(earlier: Verification) -> Self {
        Self {
            checked: earlier.checked,
            mismatches: earlier.mismatches,
            first: earlier.first_mismatches,
        }
    }

    /// Compares one value; `what` names it for the report (called only on mismatch).
    #[inline]
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

    /// Records a wrong length, `got` values where `want` were expected; whether they match.
    pub fn same_length(&mut self, got: usize, want: usize) -> bool {
        if got != want {
            self.fail(format!("length {got} differs from expected {want}"));
        }
        got == want
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
    compare_f32_with(got, want.len(), tol, |i| want[i])
}

/// Compares `got` element-wise with `want(i)` for each of `len` elements, with `tol` (scale =
/// |want|), naming a mismatch by its index. The expected values are computed one at a time
/// inside the loop, never stored: at a large GPU's 1 GiB arrays a vector of them is 2 GiB
/// of f64 to build, and building it cost more than the GPU work it checked. Pass a `want`
/// with no branch on anything that is fixed for the whole array, so the loop stays tight.
pub fn compare_f32_with(
    got: &[f32],
    len: usize,
    tol: Tolerance,
    want: impl Fn(usize) -> f64,
) -> Verification {
    compare_f32_elements(got, len, tol, got.iter().copied().enumerate(), want)
}

/// Compares `got` with `want(i)` at the given `indices` only (each below `len`), with `tol`
/// (scale = |want|): a spot check for an output whose full check is made elsewhere.
pub fn compare_f32_at(
    got: &[f32],
    len: usize,
    tol: Tolerance,
    indices: impl IntoIterator<Item = usize>,
    want: impl Fn(usize) -> f64,
) -> Verification {
    let elements = indices.into_iter().map(|i| (i, got[i]));
    compare_f32_elements(got, len, tol, elements, want)
}

/// What [`compare_f32_with`] and [`compare_f32_at`] share: `got` must hold `len` elements, and
/// each `(i, got[i])` of `elements` is compared with `want(i)`. The caller picks the elements,
/// so the full check walks `got` without an index check per element.
fn compare_f32_elements(
    got: &[f32],
    len: usize,
    tol: Tolerance,
    elements: impl Iterator<Item = (usize, f32)>,
    want: impl Fn(usize) -> f64,
) -> Verification {
    let mut checker = Checker::new();
    if !checker.same_length(got.len(), len) {
        return checker.finish();
    }
    for (i, g) in elements {
        let w = want(i);
        checker.check(f64::from(g), w, w, tol, || format!("element {i}"));
    }
    checker.finish()
}

/// Compares bytes exactly, reporting the first differing offsets.
pub fn compare_bytes(got: &[u8], want: &[u8]) -> Verification {
    let mut checker = Checker::new();
    if got.len() != want.len() {
        checker.fail(format!(
            "{} bytes arrived, {} were sent",
            got.len(),
            want.len()
        ));
        return checker.finish();
    }
    // Compare in 4 KiB blocks so a long correct run costs one comparison per block.
    for (block, (g, w)) in got.chunks(4096).zip(want.chunks(4096)).enumerate() {
        if g == w {
            checker.check(0.0, 0.0, 0.0, Tolerance::EXACT, String::new);
            continue;
        }
        for (i, (x, y)) in g.iter().zip(w).enumerate() {
            let offset = block * 4096 + i;
            checker.check(f64::from(*x), f64::from(*y), 0.0, Tolerance::EXACT, || {
                format!("byte {offset}")
            });
        }
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

    #[test]
    fn compare_with_computes_each_expected_value_and_names_the_wrong_one() {
        let got: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
        let want = |i: usize| i as f64 * 0.5;
        let v = compare_f32_with(&got, 1000, Tolerance::EXACT, want);
        assert!(v.passed());
        assert_eq!(v.checked, 1000);
        let mut wrong = got.clone();
        wrong[777] = 1.0;
        let v = compare_f32_with(&wrong, 1000, Tolerance::EXACT, want);
        assert_eq!((v.checked, v.mismatches), (1000, 1));
        assert_eq!(v.first_mismatches, ["element 777: got 1, expected 388.5"]);
        // A NaN never passes, and a short readback fails on its length.
        wrong[777] = f32::NAN;
        assert!(!compare_f32_with(&wrong, 1000, Tolerance::f32_elementwise(), want).passed());
        let v = compare_f32_with(&got[1..], 1000, Tolerance::EXACT, want);
        assert!(v.first_mismatches[0].contains("length 999"));
        // A spot check reads only its indices.
        let v = compare_f32_at(&wrong, 1000, Tolerance::EXACT, [0, 10, 999], want);
        assert_eq!((v.checked, v.mismatches), (3, 0));
        let v = compare_f32_at(&wrong, 1000, Tolerance::EXACT, [10, 777], want);
        assert_eq!(v.first_mismatches, ["element 777: got NaN, expected 388.5"]);
    }
}

/// What [`DotTolerance`] allows an f16 running sum of `k` terms, as a fraction of the product's
/// rms: `4 * sqrt(k) * u`, 12.5% at K = 4096. It grows with K until no wrong product stands out:
/// at K = 2^18 it is the whole rms, and a C of zeros passes.
pub fn f16_sum_allowance(k: u64) -> f64 {
    4.0 * (k.max(1) as f64).sqrt() * crate::kit::gpu::Precision::F16.unit_roundoff()
}

/// The largest [`f16_sum_allowance`] at which the check still tells a wrong product from a
/// right one: a quarter of the rms (K up to 16384). A product with f16 sums over more terms is
/// not checked, so it is not run.
pub const F16_SUM_MAX_ALLOWANCE: f64 = 0.25;

/// How far a computed dot product of length `k` may stray from the exact (f64) value, given the
/// precision it accumulated in and the precision of the stored result.
///
/// - f32 accumulation: the lesser of two bounds on `sum|a_i b_i|`, both valid for any summation
///   order, fused or not. The deterministic `k * eps` (twice Higham's gamma_k, `k u / (1 - k
///   u)`) is certain but grows with k: at K = 4096 of inputs in [-1, 1) it is 2.3% of rms(C),
///   about 0.5, and one term read from the wrong index (an error `a_j (b_j' - b_j)`: at most 2,
///   a third on average) mostly passes it. The probabilistic `LAMBDA * sqrt(k) * u` (Higham and
///   Mary, "A new approach to probabilistic rounding error analysis", SIAM J. Sci. Comput.
///   41(5), 2019) fails a correct dot product with probability under `2k * exp(-LAMBDA^2 / 2)`,
///   about 1e-18 at K = 4096, and is 12.8 times tighter there (`2 sqrt(k) / LAMBDA`); below
///   K = 25 the deterministic one is the tighter. It assumes rounding errors of mean zero,
///   which zero-mean inputs (the matmul suite's) give even to a sum truncated at every step
///   (round toward zero, as a tensor core's aligned adds are): that stays six times inside
///   it. Inputs all of one sign would not: there a truncated sum runs about twice past it.
/// - f16 accumulation: the deterministic bound is useless (k * eps16 exceeds 1 at k = 1024), so
///   the bound is statistical: rounding errors of a running sum of zero-mean terms grow like a
///   random walk, about `u * sqrt(k / 6) * rms(C)`; the bound allows `4 * sqrt(k) * u * rms(C)`,
///   about ten standard deviations. It is loose for a single element: at K = 4096 it is 12.6% of
///   rms(C), so an error of one term (a wrong index: at most 2 with inputs in [-1, 1)) or of a
///   few (a lost K step of 8 terms) passes; what it catches is a wrong or unwritten tile, whose
///   elements are off by about rms(C), and errors of f32-accumulated products, whose bound is
///   far tighter. Valid for zero-mean random inputs, which is what the matmul suite generates.
///   It grows with K: past [`F16_SUM_MAX_ALLOWANCE`] (K = 16384) the matmul suite runs no
///   product with f16 sums.
/// - The stored result is rounded once more: `2 * u_out * |want|`, or where that is less, up to
///   the output's smallest normal number: a result below it is subnormal, rounded to the
///   subnormals' coarser step or flushed to zero, both of which WGSL allows (an f16 product of
///   K = 1 of inputs uniform in [-1, 1] is subnormal for about one element in 1500).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DotTolerance {
    /// Terms in each dot product.
    pub k: u64,
    /// Precision of the running sum.
    pub accumulate: crate::kit::gpu::Precision,
    /// Precision of the stored result.
    pub output: crate::kit::gpu::Precision,
}

impl DotTolerance {
    /// The largest acceptable |got - want| for a result `want` whose terms have magnitudes
    /// summing to `sum_abs`, in a product whose reference values have root-mean-square `rms`.
    pub fn bound(&self, want: f64, sum_abs: f64, rms: f64) -> f64 {
        use crate::kit::gpu::Precision;
        let k = self.k.max(1) as f64;
        let accumulation = match self.accumulate {
            Precision::F32 => {
                let probabilistic = LAMBDA * k.sqrt() * Precision::F32.unit_roundoff();
                (k * F32_EPS).min(probabilistic) * sum_abs
            }
            // A running f16 sum rounds at every step by the unit roundoff of its own size,
            // which grows toward the element's value: an element several times the product's
            // rms carries that many times the error (a bound of the rms alone failed correct
            // kernels at 3 to 5 rms, about once in a thousand checks of a 4096-term product).
            Precision::F16 => f16_sum_allowance(self.k) * rms.hypot(want),
        };
        let stored = 2.0 * self.output.unit_roundoff() * want.abs();
        accumulation + stored.max(self.output.smallest_normal())
    }
}

#[cfg(test)]
mod dot_tests {
    use super::*;
    use crate::kit::gpu::Precision;
    use gpubench_results::rng::SplitMix64;

    /// The f16 sums' allowance against K: 12.5% of the rms at 4096, the quarter the matmul suite
    /// stops at by 16384, all of it at 2^18 (where a C of zeros would pass).
    #[test]
    fn the_f16_sum_allowance_grows_to_the_whole_rms() {
        assert!((f16_sum_allowance(4096) - 0.125).abs() < 1e-12);
        assert!((f16_sum_allowance(16384) - F16_SUM_MAX_ALLOWANCE).abs() < 1e-12);
        assert!(f16_sum_allowance(16385) > F16_SUM_MAX_ALLOWANCE);
        assert!((f16_sum_allowance(1 << 18) - 1.0).abs() < 1e-12);
        let tol = DotTolerance {
            k: 1 << 18,
            accumulate: Precision::F16,
            output: Precision::F16,
        };
        assert!(
            tol.bound(3.0, 30.0, 3.0) > 3.0,
            "zero passes for a value of one rms"
        );
    }

    /// An f16 result too small to be normal passes stored at the subnormals' step or flushed
    /// to zero (K = 1, summed in f32: the bound is otherwise relative and far below that step);
    /// an error past f16's least normal value, or ten last bits off a normal result, fails.
    #[test]
    fn a_subnormal_f16_result_may_be_rounded_or_flushed_but_not_wrong() {
        use half::f16;
        let tol = DotTolerance {
            k: 1,
            accumulate: Precision::F32,
            output: Precision::F16,
        };
        let want = -9.4e-6;
        let bound = tol.bound(want, want.abs(), 0.3);
        let stored = f16::from_f64(want).to_f64();
        assert!(stored != want && (stored - want).abs() <= bound);
        assert!(want.abs() <= bound, "flushed to zero");
        let least_normal = 2f64.powi(-14);
        assert!(
            bound <= 1.01 * least_normal,
            "the floor is f16's least normal: {bound}"
        );
        assert!(2.0 * least_normal > bound, "twice that fails");
        let normal = 0.3;
        let normal_bound = tol.bound(normal, normal, 0.3);
        let ulp = 2f64.powi(-12);
        assert!(
            10.0 * ulp > normal_bound,
            "a normal result stays held to its rounding"
        );
    }

    /// One dot product of random f16 terms: its running sum in f16 and its exact sums.
    struct F16Sum {
        /// The f16 running sum.
        got: f64,
        /// The exact sum of the terms.
        want: f64,
        /// The exact sum of the first 64 terms.
        first_64: f64,
    }

    /// One dot product of `k` random f16 terms summed in f16 with an FMA a step, as a kernel
    /// sums it: a in [`a_low`, 1), b in [-1, 1) shifted by `b_shift`.
    fn f16_sum(rng: &mut SplitMix64, k: usize, a_low: f32, b_shift: f32) -> F16Sum {
        use half::f16;
        let mut acc = f16::ZERO;
        let (mut want, mut first_64) = (0.0f64, 0.0f64);
        for i in 0..k {
            let a = f16::from_f32(a_low + rng.next_unit_f32() * (1.0 - a_low));
            let b = f16::from_f32(rng.next_unit_f32() * 2.0 - 1.0 + b_shift);
            acc = f16::from_f32(a.to_f32().mul_add(b.to_f32(), acc.to_f32()));
            let term = a.to_f64() * b.to_f64();
            want += term;
            if i < 64 {
                first_64 += term;
            }
        }
        F16Sum {
            got: acc.to_f64(),
            want,
            first_64,
        }
    }

    /// The bound of a `k`-term product summed and stored in f16.
    fn f16_tolerance(k: usize) -> DotTolerance {
        DotTolerance {
            k: k as u64,
            accumulate: Precision::F16,
            output: Precision::F16,
        }
    }

    /// Dot products of zero-mean random f16 values, summed in f16 (through half::f16), stay
    /// inside the bound; dropping one block of 64 terms mostly does not.
    #[test]
    fn f16_accumulation_bound_holds_and_catches_a_lost_block() {
        let k = 1024usize;
        let mut rng = SplitMix64::new(42);
        let tol = f16_tolerance(k);
        let mut exact = Vec::new();
        let mut got = Vec::new();
        let mut lost = Vec::new();
        for _ in 0..200 {
            let sum = f16_sum(&mut rng, k, -1.0, 0.0);
            exact.push(sum.want);
            got.push(sum.got);
            lost.push(sum.want - sum.first_64);
        }
        let rms = (exact.iter().map(|v| v * v).sum::<f64>() / exact.len() as f64).sqrt();
        for (g, w) in got.iter().zip(&exact) {
            assert!((g - w).abs() <= tol.bound(*w, 0.0, rms), "{g} vs {w}");
        }
        let caught = lost
            .iter()
            .zip(&exact)
            .filter(|(l, w)| (*l - *w).abs() > tol.bound(**w, 0.0, rms))
            .count();
        assert!(
            caught > 100,
            "a lost block of K must mostly be caught ({caught}/200)"
        );
    }

    /// Elements several times the product's rms carry that many times its f16 rounding: the
    /// bound grows with the element, and holds every element of a correct product.
    #[test]
    fn f16_accumulation_bound_grows_with_the_element() {
        // Unbiased rows set the rms; biased ones (b shifted up) land at several times it.
        let (k, mut rng) = (4096usize, SplitMix64::new(7));
        let rows: Vec<(f64, f64)> = (0..300)
            .map(|row| f16_sum(&mut rng, k, 0.0, if row < 290 { 0.0 } else { 0.08 }))
            .map(|sum| (sum.got, sum.want))
            .collect();
        let tol = f16_tolerance(k);
        let rms = (rows.iter().map(|(_, w)| w * w).sum::<f64>() / rows.len() as f64).sqrt();
        let largest = rows.iter().map(|(_, w)| w.abs()).fold(0.0, f64::max);
        assert!(
            largest > 3.0 * rms,
            "elements at several rms: {largest} vs {rms}"
        );
        for (g, w) in &rows {
            assert!((g - w).abs() <= tol.bound(*w, 0.0, rms), "{g} vs {w}");
        }
        // Elements at the rms or below keep the bound they had.
        let at_rms = 4.0 * (k as f64).sqrt() * Precision::F16.unit_roundoff() * rms;
        assert!(tol.bound(0.0, 0.0, rms) - at_rms < tol.bound(0.0, 0.0, rms) * 0.01);
        assert!(tol.bound(5.0 * rms, 0.0, rms) > 4.0 * at_rms);
    }

    /// Below K = 25 the classic bound is the lesser, above it the probabilistic one; an f16
    /// output adds f16 rounding of the result.
    #[test]
    fn f32_accumulation_bound_is_the_lesser_of_the_two() {
        let at = |k: u64| DotTolerance {
            k,
            accumulate: Precision::F32,
            output: Precision::F32,
        };
        let stored = F32_EPS;
        let classic = at(16).bound(1.0, 50.0, 1.0);
        assert!((classic - (16.0 * F32_EPS * 50.0 + stored)).abs() < 1e-15);
        let probabilistic = at(100).bound(1.0, 50.0, 1.0);
        let u = Precision::F32.unit_roundoff();
        assert!((probabilistic - (LAMBDA * 10.0 * u * 50.0 + stored)).abs() < 1e-15);
        assert!(probabilistic < 100.0 * F32_EPS * 50.0 + stored);
        let tol16 = DotTolerance {
            output: Precision::F16,
            ..at(100)
        };
        assert!(tol16.bound(1.0, 50.0, 1.0) > probabilistic + 9e-4);
    }

    /// `x` rounded to f32 toward zero, as a unit that truncates rounds every add.
    fn toward_zero(x: f64) -> f32 {
        let nearest = x as f32;
        if f64::from(nearest).abs() > x.abs() {
            f32::from_bits(nearest.to_bits() - 1)
        } else {
            nearest
        }
    }

    /// K = 4096 dot products of f32 inputs in [-1, 1), summed in f32 three ways (an FMA a step
    /// rounded to nearest; truncated toward zero at every step; eight interleaved partial sums,
    /// as a split loop adds them), all stay inside the bound; one term read from the wrong
    /// index is caught in most products, where the classic bound alone passes most of them.
    #[test]
    fn f32_sums_in_any_order_pass_and_one_wrong_term_mostly_fails() {
        let k = 4096usize;
        let tol = DotTolerance {
            k: k as u64,
            accumulate: Precision::F32,
            output: Precision::F32,
        };
        let mut rng = SplitMix64::new(11);
        let (mut caught, mut caught_classic) = (0, 0);
        for _ in 0..200 {
            let a: Vec<f32> = (0..k).map(|_| rng.next_unit_f32() * 2.0 - 1.0).collect();
            let b: Vec<f32> = (0..=k).map(|_| rng.next_unit_f32() * 2.0 - 1.0).collect();
            let term = |i: usize| f64::from(a[i]) * f64::from(b[i]);
            let want: f64 = (0..k).map(term).sum();
            let sum_abs: f64 = (0..k).map(|i| term(i).abs()).sum();
            let fused = (0..k).fold(0f32, |acc, i| a[i].mul_add(b[i], acc));
            let truncated = (0..k).fold(0f32, |acc, i| toward_zero(f64::from(acc) + term(i)));
            let mut partial = [0f32; 8];
            for i in 0..k {
                partial[i % 8] = a[i].mul_add(b[i], partial[i % 8]);
            }
            let split = partial.iter().fold(0f32, |acc, p| acc + p);
            let bound = tol.bound(want, sum_abs, 0.0);
            for got in [fused, truncated, split] {
                let error = (f64::from(got) - want).abs();
                assert!(
                    error <= bound / 3.0,
                    "{got} vs {want}: {error} against {bound}"
                );
            }
            let j = k / 2;
            let wrong = want - term(j) + f64::from(a[j]) * f64::from(b[j + 1]);
            caught += usize::from((wrong - want).abs() > bound);
            caught_classic += usize::from((wrong - want).abs() > k as f64 * F32_EPS * sum_abs);
        }
        assert!(caught >= 160, "one wrong term caught in {caught} of 200");
        assert!(
            caught_classic < 120,
            "the classic bound caught {caught_classic} of 200"
        );
    }
}
