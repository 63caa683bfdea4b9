//! Statistics as pure functions over samples: the summary every result carries, the
//! distribution-free confidence interval of the median (order statistics, the sign test's), a
//! bootstrap for other statistics, Tukey outlier fences, and HDR-histogram latency percentiles.
//!
//! The median's interval is not a bootstrap: with the few samples a run may stop at (6 in the
//! quick profile, 10 in the default one), a percentile bootstrap of the median can only land on
//! inner order statistics and covers the true median far less often than it says (87.5% at 7
//! samples for a stated 95%). The interval of order statistics holds it with a probability
//! known exactly from the binomial law, whatever the distribution.
//!
//! Samples are plain `&[f64]`. Every function documents what it does with an empty slice;
//! non-finite values are the caller's bug and are filtered out by [`summarize`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rng::SplitMix64;

/// Number of bootstrap resamples for confidence intervals.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// Seed of the bootstrap, fixed so that the same samples always give the same interval.
pub const BOOTSTRAP_SEED: u64 = 0x6770_7562_656e_6368; // "gpubench"
/// Most samples a bootstrap resamples from, so its cost is bounded whatever a file holds
/// (2000 resamples of 5 million samples took minutes). Runs take far fewer; beyond this,
/// [`bootstrap_subset`] thins them.
pub const BOOTSTRAP_MAX_SAMPLES: usize = 4096;

/// The summary of one result's samples. All values are in the result's unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Median: the headline value.
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Sample standard deviation (n - 1 in the denominator; 0 for one sample).
    pub stddev: f64,
    /// Coefficient of variation: stddev / mean.
    pub cv: f64,
    /// 5th percentile (linear interpolation between order statistics).
    pub p5: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Lower end of the 95% confidence interval of the median: the order statistic
    /// [`median_ci_rank`] picks (from six samples; below six, the smallest sample, and the
    /// interval is the samples' range, covering the median with 1 - 2^(1-n): 93.75% at five).
    pub ci_low: f64,
    /// Upper end of the 95% confidence interval of the median (see `ci_low`).
    pub ci_high: f64,
    /// Number of samples.
    pub n: usize,
    /// Samples outside Tukey's fences (1.5 x IQR beyond the quartiles).
    #[serde(default)]
    pub outliers: usize,
}

impl Summary {
    /// Whether there is an interval of the median to show: one of several samples, or a
    /// single derived value with an interval of its own (a fitted model's bootstrap). A
    /// probe's one value has none.
    pub fn has_interval(&self) -> bool {
        self.n > 1 || self.ci_low < self.ci_high
    }

    /// Whether there is a spread (standard deviation, cv, range) to show: of several samples
    /// only; a single value's zero spread is no measurement of one.
    pub fn has_spread(&self) -> bool {
        self.n > 1
    }
}

/// The mean, the sample standard deviation (n - 1) and the coefficient of variation (0 for a
/// mean of 0) of `values`, all finite and at least one.
fn moments(values: &[f64]) -> (f64, f64, f64) {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let stddev = if n > 1 {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let cv = if mean != 0.0 {
        stddev / mean.abs()
    } else {
        0.0
    };
    (mean, stddev, cv)
}

/// The coefficient of variation of `samples`, to the bit as [`summarize`] gives it (summed in
/// the same order), without the rest of the summary: what the sample loop asks after every
/// sample, while the device waits. `None` when no finite sample is left.
pub fn cv(samples: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    (!sorted.is_empty()).then(|| moments(&sorted).2)
}

/// Summarises `samples`, ignoring non-finite values. `None` when no finite sample is left.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let (mean, stddev, cv) = moments(&sorted);
    let (k, _) = median_ci_rank(n, MEDIAN_CI_COVERAGE)?;
    let (ci_low, ci_high) = (sorted[k - 1], sorted[n - k]);
    Some(Summary {
        median: percentile_sorted(&sorted, 50.0),
        mean,
        min: sorted[0],
        max: sorted[n - 1],
        stddev,
        cv,
        p5: percentile_sorted(&sorted, 5.0),
        p95: percentile_sorted(&sorted, 95.0),
        ci_low,
        ci_high,
        n,
        outliers: tukey_outliers(&sorted).len(),
    })
}

/// The `p`-th percentile (0..=100) of already sorted values, interpolating linearly between
/// order statistics (Hyndman and Fan type 7, as numpy's default). NaN for an empty slice.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let rank = (p.clamp(0.0, 100.0) / 100.0) * (n - 1) as f64;
            let lower = rank.floor() as usize;
            let upper = rank.ceil() as usize;
            let weight = rank - lower as f64;
            sorted[lower] + (sorted[upper] - sorted[lower]) * weight
        }
    }
}

/// The median of unsorted values. NaN for an empty slice.
pub fn median(values: &[f64]) -> f64 {
    median_in_place(&mut values.to_vec())
}

/// The median of `values`, reordering them: by selection (linear time), not a sort, which is
/// what makes thousands of bootstrap resamples per result cheap. The same value as
/// [`percentile_sorted`] at 50 gives on the sorted values, to the bit: the middle one, or the
/// two middle ones interpolated at the same weight, 0.5.
pub fn median_in_place(values: &mut [f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return values.first().copied().unwrap_or(f64::NAN);
    }
    let middle = n / 2;
    let (below, upper, _) = values.select_nth_unstable_by(middle, f64::total_cmp);
    let upper = *upper;
    if n % 2 == 1 {
        return upper;
    }
    let lower = below
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .unwrap_or(upper);
    lower + (upper - lower) * 0.5
}

/// The coverage a summary's interval of the median aims at.
pub const MEDIAN_CI_COVERAGE: f64 = 0.95;

/// The coverage of the interval a summary of `n` samples states, where it falls short of the
/// 95% every table calls it (fewer than six samples: their range); `None` where it does not.
pub fn short_coverage(n: usize) -> Option<f64> {
    median_ci_rank(n, MEDIAN_CI_COVERAGE)
        .map(|(_, coverage)| coverage)
        .filter(|coverage| *coverage < MEDIAN_CI_COVERAGE)
}

/// The distribution-free interval of the median of `n` samples: the rank `k` (1-based) for
/// which `[x(k), x(n+1-k)]` of the sorted samples holds the true median with probability at
/// least `coverage`, the narrowest such, and that probability, `1 - 2 P(Bin(n, 1/2) < k)` (the
/// sign test's interval). Where even the whole range falls short (fewer than six samples for
/// 95%), `k = 1` and the range's own coverage, `1 - 2^(1-n)`. `None` for no samples.
///
/// The binomial terms are summed from their logarithms, so no count of samples underflows.
pub fn median_ci_rank(n: usize, coverage: f64) -> Option<(usize, f64)> {
    if n == 0 {
        return None;
    }
    // ln of C(n, j) / 2^n, for j = 0 upwards.
    let mut ln_term = -(n as f64) * std::f64::consts::LN_2;
    let mut below = 0.0;
    let mut chosen = None;
    for k in 1..=n.div_ceil(2) {
        let j = k - 1;
        below += ln_term.exp();
        let covered = (1.0 - 2.0 * below).max(0.0);
        if covered < coverage {
            break;
        }
        chosen = Some((k, covered));
        ln_term += ((n - j) as f64 / (j + 1) as f64).ln();
    }
    Some(chosen.unwrap_or((1, 1.0 - 2.0 * (-(n as f64) * std::f64::consts::LN_2).exp())))
}

/// The samples a bootstrap draws from: all of them when there are at most
/// [`BOOTSTRAP_MAX_SAMPLES`], else exactly that many, taken from the sorted values at an even
/// stride (the middle of each of `BOOTSTRAP_MAX_SAMPLES` equal slices of the order). The rule is
/// fixed and needs no seed, so the same file always gives the same interval; it keeps the
/// distribution's quantiles, and the interval it gives is the one of a run of that many samples:
/// wider than the full set's, never narrower, so thinning can hide a small change but cannot
/// invent one.
pub fn bootstrap_subset(samples: &[f64]) -> std::borrow::Cow<'_, [f64]> {
    let n = samples.len();
    if n <= BOOTSTRAP_MAX_SAMPLES {
        return std::borrow::Cow::Borrowed(samples);
    }
    let mut sorted = samples.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let m = BOOTSTRAP_MAX_SAMPLES;
    let picked = (0..m).map(|i| sorted[(2 * i + 1) * n / (2 * m)]).collect();
    std::borrow::Cow::Owned(picked)
}

/// Percentile bootstrap 95% interval of any statistic. `statistic` draws one resample with the
/// generator (using `scratch` as it likes) and returns its value.
pub fn bootstrap_ci(
    n: usize,
    resamples: usize,
    seed: u64,
    mut statistic: impl FnMut(&mut SplitMix64, &mut Vec<f64>) -> f64,
) -> (f64, f64) {
    if n == 0 || resamples == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mut rng = SplitMix64::new(seed);
    let mut scratch = Vec::with_capacity(n);
    let mut stats: Vec<f64> = (0..resamples)
        .map(|_| statistic(&mut rng, &mut scratch))
        .filter(|v| v.is_finite())
        .collect();
    if stats.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    stats.sort_by(f64::total_cmp);
    (
        percentile_sorted(&stats, 2.5),
        percentile_sorted(&stats, 97.5),
    )
}

/// Indices (into `sorted`) of the values beyond Tukey's fences: below Q1 - 1.5 IQR or above
/// Q3 + 1.5 IQR. Fewer than four samples never have outliers.
pub fn tukey_outliers(sorted: &[f64]) -> Vec<usize> {
    if sorted.len() < 4 {
        return Vec::new();
    }
    let q1 = percentile_sorted(sorted, 25.0);
    let q3 = percentile_sorted(sorted, 75.0);
    let iqr = q3 - q1;
    let (low, high) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
    sorted
        .iter()
        .enumerate()
        .filter(|(_, v)| **v < low || **v > high)
        .map(|(i, _)| i)
        .collect()
}

/// Tail latency from an HDR histogram (3 significant digits), in microseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatencySummary {
    /// Median latency, us.
    pub p50_us: f64,
    /// 95th percentile, us.
    pub p95_us: f64,
    /// 99th percentile, us.
    pub p99_us: f64,
    /// Largest recorded latency, us.
    pub max_us: f64,
    /// Number of recorded latencies.
    pub n: u64,
}

impl LatencySummary {
    /// The 95th percentile, where at least [`MIN_N_P95`] latencies were recorded.
    pub fn p95(&self) -> Option<f64> {
        (self.n >= MIN_N_P95).then_some(self.p95_us)
    }

    /// The 99th percentile, where at least [`MIN_N_P99`] latencies were recorded.
    pub fn p99(&self) -> Option<f64> {
        (self.n >= MIN_N_P99).then_some(self.p99_us)
    }
}

/// Fewest recorded latencies a 95th percentile is stated from: below it the tail is one or two
/// values, not a percentile.
pub const MIN_N_P95: u64 = 20;
/// Fewest recorded latencies a 99th percentile is stated from.
pub const MIN_N_P99: u64 = 100;

/// Records latencies given in nanoseconds into an HDR histogram (1 ns to 1 hour, 3 significant
/// digits) and reads p50/p95/p99/max. `None` for no samples; values beyond an hour are clamped.
pub fn latency_summary(latencies_ns: &[u64]) -> Option<LatencySummary> {
    const HOUR_NS: u64 = 3_600_000_000_000;
    let mut histogram = hdrhistogram::Histogram::<u64>::new_with_bounds(1, HOUR_NS, 3).ok()?;
    for &ns in latencies_ns {
        histogram.saturating_record(ns.clamp(1, HOUR_NS));
    }
    if histogram.is_empty() {
        return None;
    }
    let us = |ns: u64| ns as f64 / 1_000.0;
    Some(LatencySummary {
        p50_us: us(histogram.value_at_quantile(0.50)),
        p95_us: us(histogram.value_at_quantile(0.95)),
        p99_us: us(histogram.value_at_quantile(0.99)),
        max_us: us(histogram.max()),
        n: histogram.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_bootstrap_draws_from_a_bounded_even_stride_subset() {
        let small: Vec<f64> = (0..100).map(f64::from).collect();
        assert_eq!(bootstrap_subset(&small).as_ref(), small.as_slice());
        // A million samples in reverse order: the subset is sorted, evenly spread, bounded.
        let many: Vec<f64> = (0..1_000_000).rev().map(f64::from).collect();
        let subset = bootstrap_subset(&many);
        assert_eq!(subset.len(), BOOTSTRAP_MAX_SAMPLES);
        assert!(subset.windows(2).all(|w| w[0] < w[1]));
        let middle = percentile_sorted(&subset, 50.0);
        assert!((middle - 500_000.0).abs() < 1_000_000.0 / BOOTSTRAP_MAX_SAMPLES as f64);
    }

    #[test]
    fn the_median_interval_has_the_sign_tests_ranks_and_coverage() {
        // Exact values from the binomial law: five samples cannot reach 95%, so the whole
        // range and its 1 - 2/32; six reach it with the range; ten with x(2)..x(9) (1 - 2 *
        // 11/1024); twenty with x(6)..x(15) (1 - 2 * 0.0207).
        let rank = |n| median_ci_rank(n, MEDIAN_CI_COVERAGE).expect("samples");
        assert_eq!(rank(1), (1, 0.0));
        assert_eq!(rank(2), (1, 0.5));
        assert_eq!(rank(5), (1, 0.9375));
        assert_eq!(rank(6).0, 1);
        assert!((rank(6).1 - (1.0 - 2.0 / 64.0)).abs() < 1e-12);
        assert_eq!(rank(10).0, 2);
        assert!((rank(10).1 - (1.0 - 22.0 / 1024.0)).abs() < 1e-12);
        assert_eq!(rank(20).0, 6);
        assert!(median_ci_rank(0, 0.95).is_none());
        // Every k covers, by a direct sum of the binomial law, and one rank further in does
        // not: it is the narrowest interval that does.
        let cover = |n: usize, k: usize| {
            let mut term = 0.5f64.powi(n as i32);
            let mut below = 0.0;
            for i in 0..k {
                below += term;
                term *= (n - i) as f64 / (i + 1) as f64;
            }
            1.0 - 2.0 * below
        };
        for n in 6..200 {
            let (k, covered) = rank(n);
            assert!((covered - cover(n, k)).abs() < 1e-9, "{n}");
            assert!(covered >= MEDIAN_CI_COVERAGE, "{n}");
            assert!(
                k == n.div_ceil(2) || cover(n, k + 1) < MEDIAN_CI_COVERAGE,
                "{n}"
            );
        }
        // Far past where 2^-n underflows, the normal approximation's rank: n/2 - 1.96 sqrt(n)/2.
        let n = 1_000_000;
        let (k, covered) = rank(n);
        let approx = n as f64 / 2.0 - 1.959964 * (n as f64).sqrt() / 2.0;
        assert!((k as f64 - approx).abs() < 3.0, "{k} {approx}");
        assert!((0.95..0.9503).contains(&covered), "{covered}");
    }

    #[test]
    fn the_median_interval_covers_the_median_as_often_as_it_says() {
        // Seven samples of a skewed law, drawn 20000 times: the interval holds the true median
        // (ln 2 for the unit exponential) in at least 95% of draws (exactly 98.4% here), where
        // the percentile bootstrap of the median held it in 87.5%.
        let mut rng = SplitMix64::new(7);
        let draws = 20_000;
        let held = (0..draws)
            .filter(|_| {
                let samples: Vec<f64> = (0..7)
                    .map(|_| {
                        let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                        -(1.0 - unit).ln()
                    })
                    .collect();
                let s = summarize(&samples).expect("summary");
                s.ci_low <= std::f64::consts::LN_2 && std::f64::consts::LN_2 <= s.ci_high
            })
            .count();
        let rate = held as f64 / f64::from(draws);
        assert!((0.975..0.99).contains(&rate), "{rate}");
    }

    #[test]
    fn summary_of_fixed_vector() {
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).expect("summary");
        assert_eq!(s.n, 8);
        assert_eq!(s.median, 4.5);
        assert_eq!(s.mean, 5.0);
        assert_eq!(s.min, 2.0);
        assert_eq!(s.max, 9.0);
        // Sample stddev of this classic vector: sqrt(32 / 7).
        assert!((s.stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert!((s.cv - s.stddev / 5.0).abs() < 1e-12);
        // Type-7 percentiles: rank 0.35 -> 2 + 0.35 * 2; rank 6.65 -> 7 + 0.65 * 2.
        assert!((s.p5 - 2.7).abs() < 1e-12);
        assert!((s.p95 - 8.3).abs() < 1e-12);
        assert!(s.ci_low <= s.median && s.median <= s.ci_high);
        // Type-7 quartiles 4 and 5.5: the upper fence is 5.5 + 1.5 * 1.5 = 7.75, so 9 is out.
        assert_eq!(s.outliers, 1);
    }

    #[test]
    fn summary_skips_non_finite_and_handles_tiny_inputs() {
        assert!(summarize(&[]).is_none());
        assert!(summarize(&[f64::NAN]).is_none());
        let one = summarize(&[3.0, f64::INFINITY]).expect("one finite value");
        assert_eq!(
            (one.n, one.median, one.stddev, one.ci_low, one.ci_high),
            (1, 3.0, 0.0, 3.0, 3.0)
        );
    }

    #[test]
    fn outlier_fences_flag_far_values_only() {
        let mut values = vec![10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1, 50.0];
        values.sort_by(f64::total_cmp);
        let flagged = tukey_outliers(&values);
        assert_eq!(flagged.len(), 1);
        assert_eq!(values[flagged[0]], 50.0);
    }

    #[test]
    fn bootstrap_repeats_for_the_same_seed() {
        let samples: Vec<f64> = (0..30).map(|i| 100.0 + f64::from(i % 7)).collect();
        let mean = |seed| {
            bootstrap_ci(samples.len(), 500, seed, |rng, scratch| {
                scratch.clear();
                scratch.extend((0..samples.len()).map(|_| samples[rng.next_below(samples.len())]));
                scratch.iter().sum::<f64>() / scratch.len() as f64
            })
        };
        assert_eq!(mean(42), mean(42));
        assert!(mean(42).0 < mean(42).1);
    }

    #[test]
    fn latency_percentiles_from_known_distribution() {
        // 1..=1000 us: p50 ~ 500 us, p95 ~ 950 us, p99 ~ 990 us, max 1000 us (3 digits).
        let ns: Vec<u64> = (1..=1000u64).map(|us| us * 1000).collect();
        let l = latency_summary(&ns).expect("latency");
        assert_eq!(l.n, 1000);
        assert!((l.p50_us - 500.0).abs() <= 1.0, "p50 {}", l.p50_us);
        assert!((l.p95_us - 950.0).abs() <= 1.0, "p95 {}", l.p95_us);
        assert!((l.p99_us - 990.0).abs() <= 1.0, "p99 {}", l.p99_us);
        assert!((l.max_us - 1000.0).abs() <= 1.0, "max {}", l.max_us);
        assert!(latency_summary(&[]).is_none());
    }

    proptest! {
        #[test]
        fn the_median_by_selection_is_the_sorted_median_to_the_bit(
            values in prop::collection::vec(-1e300f64..1e300, 0..200),
        ) {
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let by_sort = percentile_sorted(&sorted, 50.0);
            let by_selection = median_in_place(&mut values.clone());
            prop_assert_eq!(by_sort.to_bits(), by_selection.to_bits());
        }

        #[test]
        fn summary_orders_its_statistics(values in prop::collection::vec(0.001f64..1e6, 1..60)) {
            let s = summarize(&values).expect("finite input");
            prop_assert!(s.min <= s.p5 && s.p5 <= s.median && s.median <= s.p95 && s.p95 <= s.max);
            prop_assert!(s.min <= s.mean && s.mean <= s.max);
            prop_assert!(s.ci_low <= s.median + 1e-9 && s.median <= s.ci_high + 1e-9);
            prop_assert!(s.min <= s.ci_low && s.ci_high <= s.max);
            prop_assert!(s.stddev >= 0.0 && s.cv >= 0.0);
            prop_assert_eq!(s.n, values.len());
        }

        #[test]
        fn the_cv_alone_is_the_summarys_cv(values in prop::collection::vec(0.001f64..1e6, 1..60)) {
            let s = summarize(&values).expect("finite input");
            prop_assert_eq!(cv(&values), Some(s.cv));
        }

        #[test]
        fn scaling_samples_scales_location_but_not_cv(
            values in prop::collection::vec(1.0f64..1000.0, 2..40),
            factor in 0.01f64..100.0,
        ) {
            let a = summarize(&values).expect("summary");
            let scaled: Vec<f64> = values.iter().map(|v| v * factor).collect();
            let b = summarize(&scaled).expect("summary");
            prop_assert!((b.median - a.median * factor).abs() <= 1e-9 * b.median.abs().max(1.0));
            prop_assert!((b.ci_low - a.ci_low * factor).abs() <= 1e-9 * b.ci_low.abs().max(1.0));
            prop_assert!((b.cv - a.cv).abs() <= 1e-9);
        }

        #[test]
        fn percentile_is_monotonic(mut values in prop::collection::vec(-1e6f64..1e6, 1..50), p in 0.0f64..100.0, q in 0.0f64..100.0) {
            values.sort_by(f64::total_cmp);
            let (lo, hi) = if p <= q { (p, q) } else { (q, p) };
            prop_assert!(percentile_sorted(&values, lo) <= percentile_sorted(&values, hi));
        }
    }
}
