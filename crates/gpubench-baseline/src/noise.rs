//! The noise band: how far a ratio may move before it counts as a change (the defaults are in
//! docs/baselines.md, "Pairs, ratios and verdicts").
//!
//! Bandwidth and throughput (stream, transfer, compute, matmul) repeat within a few percent on a
//! quiet machine, so 5%; per-operation times (launch overhead) are dominated by driver and OS
//! scheduling and wander more, so 10%. Software adapters share the CPU with everything else on
//! the machine (CI runners above all), so they get 25% and, unless asked, only report.

use gpubench_results::MetricKind;

/// Band for bandwidth and throughput metrics.
pub const THROUGHPUT_BAND: f64 = 0.05;
/// Band for time-per-operation metrics and anything not known to be a rate.
pub const TIME_PER_OP_BAND: f64 = 0.10;
/// Band for software adapters, whatever the metric.
pub const SOFTWARE_BAND: f64 = 0.25;

/// The noise band (a fraction, 0.05 = 5%) for a result of `metric` measured on a machine that
/// is a software adapter or not; `override_band` (from `--noise`) wins over both.
pub fn band_for(metric: MetricKind, software: bool, override_band: Option<f64>) -> f64 {
    if let Some(band) = override_band {
        return band;
    }
    if software {
        return SOFTWARE_BAND;
    }
    if metric.is_rate() {
        THROUGHPUT_BAND
    } else {
        TIME_PER_OP_BAND
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_follow_the_design_defaults() {
        assert_eq!(band_for(MetricKind::Bandwidth, false, None), 0.05);
        assert_eq!(band_for(MetricKind::Throughput, false, None), 0.05);
        assert_eq!(band_for(MetricKind::TimePerOp, false, None), 0.10);
        assert_eq!(band_for(MetricKind::Bandwidth, true, None), 0.25);
        assert_eq!(band_for(MetricKind::TimePerOp, true, Some(0.02)), 0.02);
    }
}
