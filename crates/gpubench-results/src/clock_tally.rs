//! Which clocks a run's results were actually timed by. The machine's `timing_source` says what
//! the adapter offers; a result falls back to the host clock where its timestamps could not be
//! used (an empty pass on Metal, a stale or reversed pair), and derived or probed results are
//! not timed at all. A header that printed only the offer would claim GPU timing for a run
//! that had none, so every report states the offer and the tally together.

use crate::schema::{BenchResult, Status, TimingSource};

/// How many measured (ok) results each clock timed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockTally {
    /// Results whose headline came from GPU timestamps.
    pub gpu: usize,
    /// Results whose headline came from the host clock.
    pub host: usize,
    /// Results with no clock: derived from others (fits, ratios) or probed, not timed.
    pub untimed: usize,
}

impl ClockTally {
    /// The tally of `results`; skipped and failed results count nowhere.
    pub fn of(results: &[BenchResult]) -> Self {
        let mut tally = ClockTally::default();
        for result in results.iter().filter(|r| r.status == Status::Ok) {
            match result.timing {
                Some(TimingSource::GpuTimestamp) => tally.gpu += 1,
                Some(TimingSource::Host) => tally.host += 1,
                None => tally.untimed += 1,
            }
        }
        tally
    }

    /// The offer and the tally in words: `gpu-timestamp offered (results: gpu-timestamp 179,
    /// host 59, untimed 71)`, or the offer alone when no result was measured.
    pub fn describe(&self, offered: TimingSource) -> String {
        let counts = [
            (self.gpu, TimingSource::GpuTimestamp.as_str()),
            (self.host, TimingSource::Host.as_str()),
            (self.untimed, "untimed"),
        ];
        let used: Vec<String> = counts
            .iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, clock)| format!("{clock} {count}"))
            .collect();
        if used.is_empty() {
            return format!("{} offered", offered.as_str());
        }
        format!(
            "{} offered (results: {})",
            offered.as_str(),
            used.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(status: Status, timing: Option<TimingSource>) -> BenchResult {
        let info = crate::BenchmarkInfo::new("s/x", "s", crate::MetricKind::Bandwidth, "bytes");
        let mut r = BenchResult::empty(&info, status, None);
        r.timing = timing;
        r
    }

    #[test]
    fn an_offer_no_result_used_is_not_read_as_gpu_timing() {
        let results = vec![
            result(Status::Ok, Some(TimingSource::Host)),
            result(Status::Ok, Some(TimingSource::Host)),
            result(Status::Ok, None),
            result(Status::Failed, Some(TimingSource::GpuTimestamp)),
        ];
        let tally = ClockTally::of(&results);
        assert_eq!(
            tally,
            ClockTally {
                gpu: 0,
                host: 2,
                untimed: 1
            }
        );
        assert_eq!(
            tally.describe(TimingSource::GpuTimestamp),
            "gpu-timestamp offered (results: host 2, untimed 1)"
        );
    }

    #[test]
    fn without_measured_results_only_the_offer_is_stated() {
        let results = vec![result(Status::Skipped, None)];
        assert_eq!(
            ClockTally::of(&results).describe(TimingSource::Host),
            "host offered"
        );
    }
}
