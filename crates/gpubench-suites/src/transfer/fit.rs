//! The transfer model `t(n) = fixed + n / bandwidth` (Hockney's linear timing model), fitted
//! to a size sweep.
//!
//! Why a model: a table of bandwidth per size mixes two costs that an application feels very
//! differently. Small transfers pay a fixed cost (driver call, staging, submit, wait) whatever
//! their size; large ones run at the link's rate. Fitting a line to time against size separates
//! them into a fixed cost (the intercept), an asymptotic bandwidth (one over the slope) and the
//! half-bandwidth size `n_1/2 = fixed x bandwidth`, the size at which a transfer reaches half the
//! asymptote.
//!
//! The sweep is geometric, so times span several orders of magnitude. Ordinary least squares
//! would let the largest sizes decide everything (their absolute noise dwarfs the small
//! transfers' whole time) and leave the intercept to chance; the fit therefore weights each point
//! by `1 / t^2`, i.e. minimises relative residuals. A negative intercept is not physical (it only
//! appears when noise swamps the fixed cost); the fit then refits through the origin and says so.
//!
//! Pure functions over plain numbers: no GPU, tested with fixed vectors.

use gpubench_results::rng::SplitMix64;
use gpubench_results::stats::{median, percentile_sorted};

/// One size of the sweep: bytes moved once and the time the transfer took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Bytes moved once.
    pub bytes: f64,
    /// Seconds per transfer.
    pub seconds: f64,
}

/// A fitted `t(n) = fixed + n / bandwidth`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransferModel {
    /// Fixed cost per transfer, seconds.
    pub fixed_s: f64,
    /// Asymptotic bandwidth, bytes per second.
    pub bandwidth_bps: f64,
    /// True when the unconstrained intercept came out negative and the line was refitted through
    /// the origin (fixed cost 0).
    pub constrained: bool,
}

impl TransferModel {
    /// Fixed cost in microseconds.
    pub fn fixed_us(&self) -> f64 {
        self.fixed_s * 1e6
    }

    /// Asymptotic bandwidth in GB/s (10^9 B/s).
    pub fn bandwidth_gbs(&self) -> f64 {
        self.bandwidth_bps / 1e9
    }

    /// The transfer size that reaches half the asymptotic bandwidth: `fixed x bandwidth`.
    pub fn half_bandwidth_bytes(&self) -> f64 {
        self.fixed_s * self.bandwidth_bps
    }

    /// Predicted seconds for a transfer of `bytes`.
    pub fn predict(&self, bytes: f64) -> f64 {
        self.fixed_s + bytes / self.bandwidth_bps
    }

    /// The largest relative difference between the model and the points it was fitted to: how
    /// well a straight line describes the sweep.
    pub fn max_relative_residual(&self, points: &[Point]) -> f64 {
        points
            .iter()
            .map(|p| ((self.predict(p.bytes) - p.seconds) / p.seconds).abs())
            .fold(0.0, f64::max)
    }
}

/// Why a sweep could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// Fewer than two distinct sizes with a finite positive time.
    #[error("fewer than two sizes with a usable time: a line needs at least two")]
    TooFewSizes,
    /// Time did not grow with size: the sweep never reached a bandwidth limit.
    #[error("time did not grow with size, so the sweep shows no bandwidth limit")]
    NoBandwidthLimit,
}

/// Fits `t = fixed + bytes / bandwidth` by least squares weighted by `1 / t^2`. Points with a
/// non-finite or non-positive size or time are ignored.
pub fn fit(points: &[Point]) -> Result<TransferModel, FitError> {
    let usable: Vec<Point> = points
        .iter()
        .copied()
        .filter(|p| p.bytes.is_finite() && p.seconds.is_finite())
        .filter(|p| p.bytes > 0.0 && p.seconds > 0.0)
        .collect();
    let first = usable.first().ok_or(FitError::TooFewSizes)?;
    if usable.iter().all(|p| p.bytes == first.bytes) {
        return Err(FitError::TooFewSizes);
    }
    let weight = |p: &Point| 1.0 / (p.seconds * p.seconds);
    let sum_w: f64 = usable.iter().map(weight).sum();
    let mean_x = usable.iter().map(|p| weight(p) * p.bytes).sum::<f64>() / sum_w;
    let mean_t = usable.iter().map(|p| weight(p) * p.seconds).sum::<f64>() / sum_w;
    // Centred sums keep the arithmetic well conditioned when sizes reach 2^30.
    let sxx: f64 = usable
        .iter()
        .map(|p| weight(p) * (p.bytes - mean_x).powi(2))
        .sum();
    let sxt: f64 = usable
        .iter()
        .map(|p| weight(p) * (p.bytes - mean_x) * (p.seconds - mean_t))
        .sum();
    let slope = sxt / sxx;
    let intercept = mean_t - slope * mean_x;
    let (fixed, slope, constrained) = if intercept >= 0.0 {
        (intercept, slope, false)
    } else {
        // Through the origin: minimise sum w (t - b x)^2.
        let num: f64 = usable.iter().map(|p| weight(p) * p.bytes * p.seconds).sum();
        let den: f64 = usable.iter().map(|p| weight(p) * p.bytes * p.bytes).sum();
        (0.0, num / den, true)
    };
    if !(slope.is_finite() && slope > 0.0) {
        return Err(FitError::NoBandwidthLimit);
    }
    Ok(TransferModel {
        fixed_s: fixed,
        bandwidth_bps: 1.0 / slope,
        constrained,
    })
}

/// Per-size timing samples of a sweep: bytes and every measured seconds-per-transfer.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeSamples {
    /// Bytes moved once.
    pub bytes: f64,
    /// Seconds per transfer, one per sample.
    pub seconds: Vec<f64>,
}

/// The median time of each size, as points to fit.
pub fn median_points(sizes: &[SizeSamples]) -> Vec<Point> {
    sizes
        .iter()
        .filter(|s| !s.seconds.is_empty())
        .map(|s| Point {
            bytes: s.bytes,
            seconds: median(&s.seconds),
        })
        .collect()
}

/// Bootstrap 95% intervals of the three fitted quantities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelIntervals {
    /// Fixed cost, microseconds (low, high).
    pub fixed_us: (f64, f64),
    /// Asymptotic bandwidth, GB/s (low, high).
    pub bandwidth_gbs: (f64, f64),
    /// Half-bandwidth size, bytes (low, high).
    pub half_bandwidth_bytes: (f64, f64),
}

/// Percentile bootstrap of the fit: each resample draws, for every size, as many samples as it
/// has (with replacement), takes their median and fits the medians. Resamples that cannot be
/// fitted are dropped; `None` when none could.
pub fn bootstrap(sizes: &[SizeSamples], resamples: usize, seed: u64) -> Option<ModelIntervals> {
    let mut rng = SplitMix64::new(seed);
    let mut fixed = Vec::with_capacity(resamples);
    let mut bandwidth = Vec::with_capacity(resamples);
    let mut half = Vec::with_capacity(resamples);
    let mut scratch = Vec::new();
    for _ in 0..resamples {
        let points: Vec<Point> = sizes
            .iter()
            .filter(|s| !s.seconds.is_empty())
            .map(|s| {
                scratch.clear();
                scratch.extend(
                    (0..s.seconds.len()).map(|_| s.seconds[rng.next_below(s.seconds.len())]),
                );
                Point {
                    bytes: s.bytes,
                    seconds: median(&scratch),
                }
            })
            .collect();
        if let Ok(model) = fit(&points) {
            fixed.push(model.fixed_us());
            bandwidth.push(model.bandwidth_gbs());
            half.push(model.half_bandwidth_bytes());
        }
    }
    if fixed.is_empty() {
        return None;
    }
    let interval = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        (
            percentile_sorted(values, 2.5),
            percentile_sorted(values, 97.5),
        )
    };
    Some(ModelIntervals {
        fixed_us: interval(&mut fixed),
        bandwidth_gbs: interval(&mut bandwidth),
        half_bandwidth_bytes: interval(&mut half),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(fixed_s: f64, bandwidth_bps: f64) -> Vec<Point> {
        (0..9)
            .map(|i| 4096.0 * 4f64.powi(i))
            .map(|bytes| Point {
                bytes,
                seconds: fixed_s + bytes / bandwidth_bps,
            })
            .collect()
    }

    /// Points from `(bytes, seconds)` pairs.
    fn points(pairs: &[(f64, f64)]) -> Vec<Point> {
        pairs
            .iter()
            .map(|&(bytes, seconds)| Point { bytes, seconds })
            .collect()
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn recovers_a_known_line_exactly() {
        // 20 us fixed, 10 GB/s: n_1/2 = 20e-6 * 10e9 = 200 kB.
        let model = fit(&sweep(20e-6, 10e9)).expect("fit");
        assert!(close(model.fixed_us(), 20.0, 1e-9), "{model:?}");
        assert!(close(model.bandwidth_gbs(), 10.0, 1e-9), "{model:?}");
        assert!(close(model.half_bandwidth_bytes(), 200_000.0, 1e-9));
        assert!(!model.constrained);
        assert!(model.max_relative_residual(&sweep(20e-6, 10e9)) < 1e-9);
    }

    #[test]
    fn recovers_tiny_fixed_costs_next_to_huge_transfers() {
        // 1 us fixed, 900 GB/s over 4 KiB..256 MiB: the fixed cost is a millionth of the largest
        // time; relative weighting must still find it.
        let model = fit(&sweep(1e-6, 900e9)).expect("fit");
        assert!(close(model.fixed_us(), 1.0, 1e-6), "{model:?}");
        assert!(close(model.bandwidth_gbs(), 900.0, 1e-6), "{model:?}");
    }

    #[test]
    fn fits_two_points_and_tolerates_symmetric_noise() {
        let two = points(&[(1000.0, 2e-6), (3000.0, 4e-6)]);
        let model = fit(&two).expect("fit");
        // Slope 1e-9 s/B -> 1 GB/s; intercept 1 us.
        assert!(close(model.bandwidth_gbs(), 1.0, 1e-9));
        assert!(close(model.fixed_us(), 1.0, 1e-9));

        let noisy: Vec<Point> = sweep(50e-6, 5e9)
            .into_iter()
            .enumerate()
            .map(|(i, p)| Point {
                seconds: p.seconds * if i % 2 == 0 { 1.02 } else { 0.98 },
                ..p
            })
            .collect();
        let model = fit(&noisy).expect("fit");
        assert!(close(model.fixed_us(), 50.0, 0.05), "{model:?}");
        assert!(close(model.bandwidth_gbs(), 5.0, 0.05), "{model:?}");
    }

    #[test]
    fn negative_intercept_refits_through_the_origin() {
        // Pure bandwidth with the smallest point measured fast: the free line dips below zero.
        let dipping = points(&[(1000.0, 0.5e-6), (2000.0, 2e-6), (4000.0, 4e-6)]);
        let model = fit(&dipping).expect("fit");
        assert!(model.constrained);
        assert_eq!(model.fixed_s, 0.0);
        assert!(model.bandwidth_gbs() > 0.5 && model.bandwidth_gbs() < 2.5);
    }

    #[test]
    fn refuses_what_a_line_cannot_describe() {
        assert_eq!(fit(&[]), Err(FitError::TooFewSizes));
        let same = points(&[(4096.0, 1e-6), (4096.0, 2e-6)]);
        assert_eq!(fit(&same), Err(FitError::TooFewSizes));
        let shrinking = points(&[(1000.0, 4e-6), (2000.0, 2e-6)]);
        assert_eq!(fit(&shrinking), Err(FitError::NoBandwidthLimit));
        let bad = points(&[(1000.0, f64::NAN), (2000.0, 0.0)]);
        assert_eq!(fit(&bad), Err(FitError::TooFewSizes));
    }

    #[test]
    fn bootstrap_brackets_the_fit_and_repeats() {
        let sizes: Vec<SizeSamples> = sweep(30e-6, 8e9)
            .into_iter()
            .map(|p| SizeSamples {
                bytes: p.bytes,
                seconds: (0..15)
                    .map(|k| p.seconds * (1.0 + 0.01 * f64::from(k % 5) - 0.02))
                    .collect(),
            })
            .collect();
        let model = fit(&median_points(&sizes)).expect("fit");
        let a = bootstrap(&sizes, 300, 7).expect("intervals");
        let b = bootstrap(&sizes, 300, 7).expect("intervals");
        assert_eq!(a, b);
        assert!(a.fixed_us.0 <= model.fixed_us() && model.fixed_us() <= a.fixed_us.1);
        assert!(
            a.bandwidth_gbs.0 <= model.bandwidth_gbs()
                && model.bandwidth_gbs() <= a.bandwidth_gbs.1
        );
        assert!(a.half_bandwidth_bytes.0 <= a.half_bandwidth_bytes.1);
        assert!(bootstrap(&[], 10, 1).is_none());
    }
}
