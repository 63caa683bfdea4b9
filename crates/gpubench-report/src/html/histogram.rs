//! Binning for the latency histograms, with the axis clipped to the bulk of the samples.
//!
//! One slow sample (a 3,800 us stall among samples near 200 us) on an axis that runs to the
//! slowest sample squashes every other sample into one bin. The axis therefore runs over Tukey's
//! far fences, Q1 - 3 IQR to Q3 + 3 IQR (the IQR taken as at least 5% of the median, so that
//! near-constant samples do not clip their own neighbours), from the least to the greatest
//! sample within them.
//! Samples beyond the axis are counted in the end bin on their side, which is marked, and the
//! chart says how many there are and how far they reach.

/// Factor of the interquartile range beyond the quartiles that the axis reaches.
pub const FENCE_IQR: f64 = 3.0;
/// Least interquartile range used for the fences, as a share of the median.
const LEAST_IQR: f64 = 0.05;

/// Samples binned over a clipped axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Low end of the axis (the first bin's start).
    pub lo: f64,
    /// High end of the axis (the last bin's end).
    pub hi: f64,
    /// Samples per bin, beyond-the-axis samples included in the end bins.
    pub counts: Vec<u32>,
    /// Samples below the axis (counted in the first bin) and the smallest of them.
    pub below: (usize, f64),
    /// Samples above the axis (counted in the last bin) and the largest of them.
    pub above: (usize, f64),
    /// Number of samples binned.
    pub n: usize,
}

impl Histogram {
    /// Width of one bin.
    pub fn bin_width(&self) -> f64 {
        (self.hi - self.lo) / self.counts.len().max(1) as f64
    }

    /// Whether bin `i` holds samples from beyond the axis.
    pub fn is_clipped(&self, i: usize) -> bool {
        (i == 0 && self.below.0 > 0) || (i + 1 == self.counts.len() && self.above.0 > 0)
    }

    /// Samples beyond the axis, both sides together.
    pub fn clipped(&self) -> usize {
        self.below.0 + self.above.0
    }
}

/// The `q` quantile of `sorted` (linear interpolation between ranks).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let rank = q.clamp(0.0, 1.0) * last as f64;
    let (i, frac) = (rank.floor() as usize, rank.fract());
    let a = sorted[i.min(last)];
    let b = sorted[(i + 1).min(last)];
    a + (b - a) * frac
}

/// The axis for sorted samples: from the least to the greatest sample within the far fences.
fn axis(sorted: &[f64]) -> Option<(f64, f64)> {
    let (q1, q3) = (quantile(sorted, 0.25), quantile(sorted, 0.75));
    let iqr = (q3 - q1).max(LEAST_IQR * quantile(sorted, 0.5).abs());
    let (low_fence, high_fence) = (q1 - FENCE_IQR * iqr, q3 + FENCE_IQR * iqr);
    let lo = *sorted.iter().find(|v| **v >= low_fence)?;
    let hi = *sorted.iter().rev().find(|v| **v <= high_fence)?;
    // A span of zero (all samples equal) still needs a bin with a width.
    let hi = if hi > lo {
        hi
    } else {
        lo + lo.abs().max(1.0) * 0.01
    };
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// The finite samples in `bins` bins over the clipped axis; `None` with fewer than two.
pub fn bin(samples: &[f64], bins: usize) -> Option<Histogram> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.len() < 2 || bins == 0 {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let (lo, hi) = axis(&sorted)?;
    let mut h = Histogram {
        lo,
        hi,
        counts: vec![0; bins],
        below: (0, lo),
        above: (0, hi),
        n: sorted.len(),
    };
    let width = h.bin_width();
    for v in &sorted {
        if *v < lo {
            h.below = (h.below.0 + 1, h.below.1.min(*v));
        } else if *v > hi {
            h.above = (h.above.0 + 1, h.above.1.max(*v));
        }
        let bin = ((v - lo) / width).max(0.0) as usize;
        h.counts[bin.min(bins - 1)] += 1;
    }
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_outlier_is_clipped_and_counted_and_the_rest_spread() {
        let mut samples: Vec<f64> = (0..199).map(|i| 200.0 + f64::from(i % 20)).collect();
        samples.push(3800.0);
        let h = bin(&samples, 40).expect("binned");
        assert_eq!(h.above, (1, 3800.0));
        assert_eq!(h.below.0, 0);
        assert!(h.hi < 400.0, "the axis stops near the bulk: {}", h.hi);
        assert!(h.is_clipped(39) && !h.is_clipped(0));
        assert_eq!(h.counts.iter().sum::<u32>() as usize, samples.len());
        let busiest = h.counts.iter().copied().max().unwrap_or(0);
        assert!(f64::from(busiest) < 0.2 * samples.len() as f64);
    }

    #[test]
    fn samples_without_outliers_keep_their_whole_range() {
        let samples: Vec<f64> = (0..100).map(|i| 10.0 + f64::from(i)).collect();
        let h = bin(&samples, 10).expect("binned");
        assert_eq!((h.lo, h.hi), (10.0, 109.0));
        assert_eq!(h.clipped(), 0);
        let equal = bin(&[5.0; 10], 4).expect("binned");
        assert!(equal.hi > equal.lo && equal.counts[0] == 10);
        assert!(bin(&[1.0], 4).is_none());
    }
}
