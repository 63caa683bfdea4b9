//! The verdict rules, apart from the pairing: how an interval of the oriented ratio compares
//! with the noise band, and which status changes lose something the base run had.
//!
//! As criterion does for change detection, a change counts only when the whole 95% interval
//! lies beyond the noise band; an interval that straddles an edge, or is wider than the band,
//! is inconclusive rather than a guess.

use gpubench_results::{BenchResult, Role, Status, TimingSource};
use serde::{Deserialize, Serialize};

use crate::ratio::RatioEstimate;

/// The verdict on one pair of results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The whole interval lies beyond the band on the slow side.
    Regressed,
    /// The whole interval lies beyond the band on the fast side.
    Improved,
    /// The whole interval lies inside the band.
    Unchanged,
    /// The interval straddles a band edge or is wider than the band.
    Inconclusive,
    /// Only in the new run.
    New,
    /// Failed in the new run, where the base run did not have it or failed it too: a wrong
    /// answer or an error is a failure, never merely new or unchanged, and it fails the gate as
    /// a status change to failed would.
    Failed,
    /// Only in the base run.
    Missing,
    /// The status differs (e.g. ok -> failed).
    StatusChanged,
    /// Neither run has a number (skipped or failed in both, with the same status).
    NotMeasured,
    /// Across machines: a ratio, no verdict.
    RatioOnly,
    /// The metric is one this gpubench does not know (a newer one wrote it): its direction is
    /// not known here, so its values are shown and never judged.
    NotJudged,
}

impl Verdict {
    /// The verdict as written in tables and files.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
            Verdict::Inconclusive => "inconclusive",
            Verdict::New => "new",
            Verdict::Failed => "failed",
            Verdict::Missing => "missing",
            Verdict::StatusChanged => "status-changed",
            Verdict::NotMeasured => "not-measured",
            Verdict::RatioOnly => "ratio-only",
            Verdict::NotJudged => "not-judged",
        }
    }
}

/// The verdict of an oriented ratio interval against a noise band (a fraction).
pub fn verdict_for(ratio: &RatioEstimate, band: f64) -> Verdict {
    let (slow_edge, fast_edge) = (1.0 - band, 1.0 + band);
    if ratio.ci_high < slow_edge {
        Verdict::Regressed
    } else if ratio.ci_low > fast_edge {
        Verdict::Improved
    } else if ratio.ci_low >= slow_edge && ratio.ci_high <= fast_edge {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    }
}

/// How the note on a pair whose metric changed begins: a reader of a comparison (an export)
/// tells such pairs by it.
pub const METRIC_CHANGED: &str = "metric changed";

/// `metric changed (GB/s, higher is better -> GB/s, lower is better): not comparable` when the
/// unit or the direction differs, else `None`.
pub fn metric_changed(base: &BenchResult, new: &BenchResult) -> Option<String> {
    if base.unit == new.unit && base.higher_is_better == new.higher_is_better {
        return None;
    }
    let metric = |r: &BenchResult| {
        let better = if r.higher_is_better {
            "higher"
        } else {
            "lower"
        };
        format!("{}, {better} is better", r.unit)
    };
    Some(format!(
        "{METRIC_CHANGED} ({} -> {}): not comparable",
        metric(base),
        metric(new)
    ))
}

/// `timed by gpu-timestamp then by host: not comparable` when two ok results were timed by
/// different clocks (GPU time and host time, submit to completion, measure different things),
/// else `None`.
pub fn clock_changed(base: &BenchResult, new: &BenchResult) -> Option<String> {
    (base.timing != new.timing).then(|| {
        format!(
            "timed by {} then by {}: not comparable",
            base.timing.map_or("-", |t| t.as_str()),
            new.timing.map_or("-", |t| t.as_str())
        )
    })
}

/// A result's samples by the host clock (submit to completion): its headline samples where the
/// host timed it, the host samples it keeps beside them where GPU timestamps did. What a pair
/// timed by two clocks is judged by (a build or driver that lost its timestamps).
pub fn host_clock_samples(r: &BenchResult) -> Option<&[f64]> {
    match r.timing? {
        TimingSource::Host => Some(r.samples.as_slice()),
        TimingSource::GpuTimestamp => Some(r.host_samples.as_slice()),
    }
}

/// Why a pair timed by two clocks is judged by one.
pub const HOST_CLOCK_NOTE: &str = "one run timed by GPU timestamps, the other by the host: judged by the host clock on both sides";

/// `kernels built with shader checks off then on: different code, ratio only` when the two
/// results' kernels were built with different runtime checks (naga's bounds clamping and loop
/// bounding change the code that runs), else `None`. A result that does not say is not judged
/// different.
pub fn checks_changed(base: &BenchResult, new: &BenchResult) -> Option<String> {
    fn checks(r: &BenchResult) -> Option<&str> {
        r.params.get("shader_checks").and_then(|v| v.as_str())
    }
    match (checks(base), checks(new)) {
        (Some(b), Some(n)) if b != n => Some(format!(
            "kernels built with shader checks {b} then {n}: different code, ratio only"
        )),
        _ => None,
    }
}

/// Why a derived or probed value gets a ratio and no verdict.
pub const RATIO_ONLY_NOTE: &str = "derived value: ratio only, its inputs carry the verdicts";

/// Whether a result is judged by its ratio alone: a derived or probed value (a fitted model, a
/// ceiling, a ridge point, a fraction of peak, a capacity) has no timing of its own. It is
/// computed from measured results that carry their own verdicts, so judging it too would count
/// one change twice, with intervals that understate the noise and, for ratios such as the ridge
/// point or a fraction of peak, no meaningful "faster" direction.
pub fn ratio_only(result: &BenchResult) -> bool {
    result.status == Status::Ok && result.timing.is_none()
}

/// Whether a result has no timing of its own: derived from others (a fit, a cache level, a
/// fraction of peak) or probed (a capacity). Such a value the sweep or probe did not resolve
/// this time is a fact about the sweep, not a loss: the measured results it comes from carry
/// their own verdicts.
pub fn untimed(result: &BenchResult) -> bool {
    result.role == Role::Derived || ratio_only(result)
}

/// ok -> failed, ok -> skipped and skipped -> failed lose something the base run had. A value
/// with no timing of its own (derived, or probed) that the new run skipped is the exception:
/// a fit or a cache level's size that this run's sweep did not resolve (the fit went through
/// the origin, the sweep ended inside the level), or a capacity its cap stopped short of, is a
/// fact about the sweep or the probe, and the measured results a derived value comes from carry
/// their own verdicts. Such a value that fails still loses something.
pub fn status_got_worse(base: &BenchResult, new: &BenchResult) -> bool {
    if (untimed(new) || untimed(base)) && new.status == Status::Skipped {
        return false;
    }
    let rank = |s: Status| match s {
        Status::Ok => 2,
        Status::Skipped => 1,
        Status::Failed => 0,
    };
    rank(new.status) < rank(base.status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::{BenchmarkInfo, MetricKind};

    fn interval(low: f64, high: f64) -> RatioEstimate {
        RatioEstimate {
            ratio: (low + high) / 2.0,
            ci_low: low,
            ci_high: high,
        }
    }

    #[test]
    fn verdicts_follow_the_whole_interval() {
        assert_eq!(verdict_for(&interval(0.70, 0.80), 0.05), Verdict::Regressed);
        assert_eq!(verdict_for(&interval(1.10, 1.20), 0.05), Verdict::Improved);
        assert_eq!(verdict_for(&interval(0.98, 1.02), 0.05), Verdict::Unchanged);
        assert_eq!(
            verdict_for(&interval(0.90, 0.99), 0.05),
            Verdict::Inconclusive
        );
        assert_eq!(
            verdict_for(&interval(0.80, 1.20), 0.05),
            Verdict::Inconclusive
        );
    }

    fn result(role: Role, status: Status) -> BenchResult {
        let info = BenchmarkInfo::new("s/x", "s", MetricKind::Bandwidth, "test").role(role);
        BenchResult::empty(&info, status, None)
    }

    #[test]
    fn losing_a_number_is_worse() {
        let timed = |status: Status| {
            let mut r = result(Role::Kernel, status);
            r.timing = (status == Status::Ok).then_some(gpubench_results::TimingSource::Host);
            r
        };
        let worse = |base: Status, new: Status| status_got_worse(&timed(base), &timed(new));
        assert!(worse(Status::Ok, Status::Failed));
        assert!(worse(Status::Ok, Status::Skipped));
        assert!(worse(Status::Skipped, Status::Failed));
        assert!(!worse(Status::Failed, Status::Ok));
        assert!(!worse(Status::Skipped, Status::Skipped));
    }

    #[test]
    fn a_probe_its_cap_stopped_short_is_no_loss_but_a_skipped_kernel_is() {
        let mut probe = result(Role::Kernel, Status::Ok);
        probe.timing = None;
        let mut timed = result(Role::Kernel, Status::Ok);
        timed.timing = Some(gpubench_results::TimingSource::GpuTimestamp);
        let skipped = result(Role::Kernel, Status::Skipped);
        assert!(!status_got_worse(&probe, &skipped));
        assert!(status_got_worse(
            &probe,
            &result(Role::Kernel, Status::Failed)
        ));
        assert!(status_got_worse(&timed, &skipped));
    }

    #[test]
    fn a_derived_value_this_run_did_not_resolve_is_no_loss_but_its_failure_is() {
        let derived = |status: Status| result(Role::Derived, status);
        assert!(!status_got_worse(
            &derived(Status::Ok),
            &derived(Status::Skipped)
        ));
        assert!(status_got_worse(
            &derived(Status::Ok),
            &derived(Status::Failed)
        ));
        assert!(status_got_worse(
            &derived(Status::Skipped),
            &derived(Status::Failed)
        ));
    }

    #[test]
    fn a_collapse_is_a_ratio_near_zero_not_a_gap() {
        use crate::ratio::{oriented, ratio_ci, ratio_from_intervals};
        let regressed = |r: Option<RatioEstimate>| {
            let r = r.expect("a collapse still has a ratio");
            assert_eq!(verdict_for(&r, 0.05), Verdict::Regressed, "{r:?}");
            r.ratio
        };
        // A throughput that fell to zero, and one that fell by 600 orders of magnitude.
        assert_eq!(regressed(ratio_ci(&[100.0; 8], &[0.0; 8], true)), 0.0);
        let huge_to_tiny = regressed(ratio_ci(&[1e300; 8], &[1e-300; 8], true));
        assert!(huge_to_tiny > 0.0 && huge_to_tiny < 1e-300);
        // A time that grew as much, and the fallback from intervals alike.
        regressed(ratio_ci(&[1e-300; 8], &[1e300; 8], false));
        regressed(ratio_from_intervals(
            (1e300, 1e300, 1e300),
            (1e-300, 1e-300, 1e-300),
            true,
        ));
        let up = ratio_ci(&[1e-300; 8], &[1e300; 8], true).expect("ratio");
        assert_eq!(verdict_for(&up, 0.05), Verdict::Improved);
        assert_eq!(up.ratio, f64::MAX);
        // A time of zero, or a base of zero, has no ratio at all.
        assert!(ratio_ci(&[5.0; 8], &[0.0; 8], false).is_none());
        assert!(oriented(0.0, 1.0, true).is_none());
        // For a time the base is the numerator: a base time of zero is no ratio either, never
        // a collapse to 0 that would read as a regression.
        assert!(oriented(0.0, 5.0, false).is_none());
        assert!(ratio_ci(&[0.0; 8], &[5.0; 8], false).is_none());
        // At an interval's end a time of zero is as far as that end reaches, never a lost
        // estimate: a base whose interval starts at zero still regresses on clear medians, and
        // a new run with zero times in its resamples reaches the fast end.
        let from_intervals = ratio_from_intervals((4.0, 0.0, 4.1), (8.0, 7.9, 8.1), false)
            .expect("the medians have a ratio");
        assert_eq!((from_intervals.ci_low, from_intervals.ratio), (0.0, 0.5));
        let faster = ratio_ci(
            &[5.0; 8],
            &[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            false,
        )
        .expect("ratio");
        assert_eq!(faster.ci_high, f64::MAX);
        assert!(oriented(1.0, -1.0, true).is_none());
    }
}
