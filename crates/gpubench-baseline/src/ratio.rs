//! The ratio of two runs' medians with a bootstrap 95% interval, oriented so that > 1 is faster.
//!
//! Both sides are resampled independently (they are independent runs) from their raw samples,
//! with the results crate's generator and a fixed seed, so the same inputs always give the same
//! interval and hence the same verdict. The point estimate is the ratio of the observed medians;
//! the interval is widened to contain it when resampling alone would not (rare, with few
//! samples), so `ci_low <= ratio <= ci_high` always holds.

use gpubench_results::stats::{
    BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_ci, bootstrap_subset, median_in_place,
};
use serde::{Deserialize, Serialize};

/// A ratio of medians and its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioEstimate {
    /// New median over base median for higher-is-better metrics, the inverse otherwise:
    /// above 1 the new run is faster.
    pub ratio: f64,
    /// Lower end of the 95% interval of the ratio.
    pub ci_low: f64,
    /// Upper end of the 95% interval of the ratio.
    pub ci_high: f64,
}

/// The oriented ratio of the medians of `new` and `base` with a percentile-bootstrap 95%
/// interval (`BOOTSTRAP_RESAMPLES` resamples, `BOOTSTRAP_SEED`). `None` when either side has no
/// finite sample or the medians have no ratio ([`oriented`]: a division by zero means nothing,
/// a throughput collapsed to zero is a ratio of 0).
pub fn ratio_ci(base: &[f64], new: &[f64], higher_is_better: bool) -> Option<RatioEstimate> {
    ratio_ci_with(
        base,
        new,
        higher_is_better,
        BOOTSTRAP_RESAMPLES,
        BOOTSTRAP_SEED,
    )
}

/// [`ratio_ci`] with the number of resamples and the seed given.
pub fn ratio_ci_with(
    base: &[f64],
    new: &[f64],
    higher_is_better: bool,
    resamples: usize,
    seed: u64,
) -> Option<RatioEstimate> {
    let base: Vec<f64> = base.iter().copied().filter(|v| v.is_finite()).collect();
    let new: Vec<f64> = new.iter().copied().filter(|v| v.is_finite()).collect();
    if base.is_empty() || new.is_empty() {
        return None;
    }
    let orient = |base_median: f64, new_median: f64| {
        interval_end(base_median, new_median, higher_is_better).unwrap_or(f64::NAN)
    };
    let ratio = oriented(
        median_in_place(&mut base.clone()),
        median_in_place(&mut new.clone()),
        higher_is_better,
    )?;
    let (base, new) = (bootstrap_subset(&base), bootstrap_subset(&new));
    let mut other = Vec::with_capacity(new.len());
    let (low, high) = bootstrap_ci(base.len(), resamples, seed, |rng, scratch| {
        scratch.clear();
        scratch.extend((0..base.len()).map(|_| base[rng.next_below(base.len())]));
        other.clear();
        other.extend((0..new.len()).map(|_| new[rng.next_below(new.len())]));
        orient(median_in_place(scratch), median_in_place(&mut other))
    });
    let (low, high) = if low.is_finite() && high.is_finite() {
        (low.min(ratio), high.max(ratio))
    } else {
        (ratio, ratio)
    };
    Some(RatioEstimate {
        ratio,
        ci_low: low,
        ci_high: high,
    })
}

/// The oriented ratio of two summaries when raw samples are missing (derived results): the
/// interval combines the two medians' own intervals at their extremes, which is conservative.
pub fn ratio_from_intervals(
    base: (f64, f64, f64),
    new: (f64, f64, f64),
    higher_is_better: bool,
) -> Option<RatioEstimate> {
    let (b_med, b_low, b_high) = base;
    let (n_med, n_low, n_high) = new;
    let end = |b, n| interval_end(b, n, higher_is_better);
    // The interval's slow end pairs the new run's slow end with the base run's fast end.
    let (slow, fast) = if higher_is_better {
        (end(b_high, n_low)?, end(b_low, n_high)?)
    } else {
        (end(b_low, n_high)?, end(b_high, n_low)?)
    };
    let ratio = oriented(b_med, n_med, higher_is_better)?;
    Some(RatioEstimate {
        ratio,
        ci_low: slow.min(ratio),
        ci_high: fast.max(ratio),
    })
}

/// [`oriented`] at an end of an interval (or of a resample), where the medians themselves have
/// a ratio: a time of zero there is the farthest that end reaches, a base time of zero the
/// slowest (0) and a new one the fastest (`f64::MAX`), so it widens the interval rather than
/// dropping out of it.
fn interval_end(base: f64, new: f64, higher_is_better: bool) -> Option<f64> {
    oriented(base, new, higher_is_better).or_else(|| {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        match (higher_is_better, base, new) {
            (false, b, n) if b == 0.0 && positive(n) => Some(0.0),
            (false, b, n) if n == 0.0 && positive(b) => Some(f64::MAX),
            _ => None,
        }
    })
}

/// The oriented ratio of two values (> 1: the new one is better), or `None` when it has no
/// meaning: a value that is negative or not finite, a base that is zero, or a time that is
/// zero. A throughput that collapsed to zero is a ratio of 0 (a regression, not a gap), and a
/// ratio beyond f64's range is held at its edge (`f64::MIN_POSITIVE` or `f64::MAX`) so that
/// 1e300 -> 1e-300 still reads as the collapse it is.
pub fn oriented(base: f64, new: f64, higher_is_better: bool) -> Option<f64> {
    let (numerator, denominator) = if higher_is_better {
        (new, base)
    } else {
        (base, new)
    };
    let valid = |v: f64| v.is_finite() && v >= 0.0;
    if !valid(numerator) || !valid(denominator) || denominator == 0.0 {
        return None;
    }
    if numerator == 0.0 {
        // A rate that fell to zero is a collapse; a base time of zero has no ratio.
        return higher_is_better.then_some(0.0);
    }
    let ratio = numerator / denominator;
    Some(if ratio == 0.0 {
        f64::MIN_POSITIVE
    } else if ratio.is_infinite() {
        f64::MAX
    } else {
        ratio
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn noisy(center: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| center * (1.0 + 0.01 * (((i * 7) % 11) as f64 - 5.0) / 5.0))
            .collect()
    }

    #[test]
    fn orientation_makes_faster_above_one() {
        let base = noisy(100.0, 20);
        let faster: Vec<f64> = base.iter().map(|v| v * 1.2).collect();
        assert!(ratio_ci(&base, &faster, true).expect("ratio").ratio > 1.19);
        // For times, a larger value is slower.
        assert!(ratio_ci(&base, &faster, false).expect("ratio").ratio < 0.84);
    }

    #[test]
    fn nothing_to_compare_gives_none() {
        assert!(ratio_ci(&[], &[1.0], true).is_none());
        assert!(ratio_ci(&[1.0], &[f64::NAN], true).is_none());
        assert!(ratio_ci(&[0.0], &[1.0], true).is_none());
    }

    #[test]
    fn intervals_fallback_is_conservative() {
        let r =
            ratio_from_intervals((100.0, 95.0, 105.0), (110.0, 105.0, 115.0), true).expect("ratio");
        assert!((r.ratio - 1.1).abs() < 1e-12);
        // 105 / 105 and 115 / 95: the extremes of both intervals.
        assert!((r.ci_low - 1.0).abs() < 1e-12 && r.ci_high > 1.2);
    }

    proptest! {
        #[test]
        fn same_inputs_same_interval(
            base in prop::collection::vec(1.0f64..1000.0, 1..40),
            new in prop::collection::vec(1.0f64..1000.0, 1..40),
            higher in any::<bool>(),
        ) {
            let a = ratio_ci(&base, &new, higher);
            let b = ratio_ci(&base, &new, higher);
            prop_assert_eq!(a, b);
        }

        #[test]
        fn interval_contains_the_ratio(
            base in prop::collection::vec(1.0f64..1000.0, 1..40),
            new in prop::collection::vec(1.0f64..1000.0, 1..40),
            higher in any::<bool>(),
        ) {
            let r = ratio_ci(&base, &new, higher).expect("positive samples");
            prop_assert!(r.ci_low > 0.0);
            prop_assert!(r.ci_low <= r.ratio && r.ratio <= r.ci_high);
        }

        #[test]
        fn scaling_new_scales_the_ratio(
            base in prop::collection::vec(1.0f64..1000.0, 2..30),
            factor in 0.1f64..10.0,
        ) {
            let new: Vec<f64> = base.iter().map(|v| v * factor).collect();
            let up = ratio_ci(&base, &new, true).expect("ratio");
            prop_assert!((up.ratio - factor).abs() <= 1e-9 * factor);
            let down = ratio_ci(&base, &new, false).expect("ratio");
            prop_assert!((down.ratio - 1.0 / factor).abs() <= 1e-9 / factor);
        }

        #[test]
        fn identical_runs_straddle_one(base in prop::collection::vec(1.0f64..1000.0, 1..40)) {
            let r = ratio_ci(&base, &base, true).expect("ratio");
            prop_assert!((r.ratio - 1.0).abs() < 1e-12);
            prop_assert!(r.ci_low <= 1.0 && 1.0 <= r.ci_high);
        }
    }
}
