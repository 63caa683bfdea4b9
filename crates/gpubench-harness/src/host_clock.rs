//! The host clock's resolution, and the mark on a result whose samples are too short for the
//! clock that timed them.
//!
//! A native host clock ticks in tens of nanoseconds; a browser's `performance.now()` steps by
//! 100 us without cross-origin isolation (5 us with it). A sample of 400 us timed by such a
//! clock is four of its steps: its figure is mostly rounding. So the resolution of the clock
//! that timed each result is recorded beside it (`extra.clock_resolution_us`), and a result
//! whose median sample spans under [`RESOLUTION_FACTOR`] steps gets the warning
//! [`COARSE_CLOCK`]. A test coarsens the host clock on purpose ([`HostClock::coarsened`]) to
//! see a native run flagged as a browser's would be.

use std::time::Duration;

use gpubench_results::schema::BenchResult;
use gpubench_results::warnings::{FigureUnit, OwnedKind};

/// A sample should span at least this many steps of the clock that timed it.
pub const RESOLUTION_FACTOR: f64 = 20.0;

/// The warning on a result whose median sample spans fewer than [`RESOLUTION_FACTOR`] steps of
/// its clock; its figure is the sample's length in steps (the fewer, the worse).
pub const COARSE_CLOCK: OwnedKind = OwnedKind::new(
    "coarse-clock",
    "samples near the clock's resolution",
    FigureUnit::Times,
)
.worst_at_lowest();

/// The key in a result's `extra` of its clock's resolution, microseconds.
pub const RESOLUTION_KEY: &str = "clock_resolution_us";

/// Reads of the clock while its resolution is measured: the smallest step seen over them.
const PROBES: usize = 200;

/// The most time measuring the resolution may take, once one step has been seen: 200 steps of
/// 100 us take 20 ms, of a 16.7 ms clock more than 3 s.
const PROBE_BUDGET: Duration = Duration::from_millis(50);

/// The host clock as the harness reads it: its measured resolution, and on purpose a coarser
/// step than it has (a test's stand-in for a browser's clock).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostClock {
    resolution: Duration,
    quantum: Option<Duration>,
}

impl HostClock {
    /// The clock as it is: its resolution is the smallest step it takes over [`PROBES`] reads,
    /// or over as many as [`PROBE_BUDGET`] allows: a browser that coarsens its clock to
    /// milliseconds against fingerprinting would otherwise hold its page's only thread for
    /// seconds.
    pub fn measure() -> Self {
        let began = web_time::Instant::now();
        let mut smallest = Duration::MAX;
        for _ in 0..PROBES {
            let start = web_time::Instant::now();
            let mut now = web_time::Instant::now();
            // A clock may return the same value for a while: wait for its next step.
            while now == start {
                now = web_time::Instant::now();
            }
            smallest = smallest.min(now.duration_since(start));
            if began.elapsed() >= PROBE_BUDGET {
                break;
            }
        }
        Self {
            resolution: smallest.max(Duration::from_nanos(1)),
            quantum: None,
        }
    }

    /// A clock that steps by `quantum` (at least 1 ns): each host duration is cut down to a
    /// whole number of steps, as a browser's coarse clock does.
    pub fn coarsened(quantum: Duration) -> Self {
        let quantum = quantum.max(Duration::from_nanos(1));
        Self {
            resolution: quantum,
            quantum: Some(quantum),
        }
    }

    /// The clock's step.
    pub fn resolution(&self) -> Duration {
        self.resolution
    }

    /// `elapsed` as this clock reads it: unchanged, or cut to whole steps where coarsened.
    pub fn read(&self, elapsed: Duration) -> Duration {
        match self.quantum {
            Some(quantum) => {
                let steps = elapsed.as_nanos() / quantum.as_nanos();
                Duration::from_nanos(u64::try_from(steps * quantum.as_nanos()).unwrap_or(u64::MAX))
            }
            None => elapsed,
        }
    }
}

/// Records `resolution` (the step of the clock that timed `result`) in its `extra`, and marks
/// it with [`COARSE_CLOCK`] when its median sample, `sample` long, spans fewer than
/// [`RESOLUTION_FACTOR`] steps.
pub fn annotate(result: &mut BenchResult, sample: Duration, resolution: Duration) {
    let resolution_us = resolution.as_secs_f64() * 1e6;
    result
        .extra
        .insert(RESOLUTION_KEY.into(), resolution_us.into());
    if resolution.is_zero() {
        return;
    }
    let steps = sample.as_secs_f64() / resolution.as_secs_f64();
    if steps < RESOLUTION_FACTOR {
        let message = format!(
            "the median sample lasted {:.1} us, {steps:.1} steps of the {resolution_us:.3} us clock that timed it (under {RESOLUTION_FACTOR:.0}): the figure is mostly the clock's rounding; longer samples, or a finer clock (a browser's is finer with cross-origin isolation), fix it",
            sample.as_secs_f64() * 1e6
        );
        result
            .warnings
            .push(COARSE_CLOCK.record(message, Some(steps)));
    }
}

/// Marks `result` with [`COARSE_CLOCK`] when the median of its per-item latencies (`p50`, each
/// one timed by the host clock on its own) spans fewer than [`RESOLUTION_FACTOR`] steps of that
/// clock, unless its median sample was marked already: its percentiles are then mostly the
/// clock's rounding, however long the samples were.
pub fn annotate_latencies(result: &mut BenchResult, p50: Duration, resolution: Duration) {
    let kind = COARSE_CLOCK.kind();
    if resolution.is_zero() || result.warnings.iter().any(|w| w.kind == kind) {
        return;
    }
    let steps = p50.as_secs_f64() / resolution.as_secs_f64();
    if steps < RESOLUTION_FACTOR {
        let message = format!(
            "the median latency of one item is {:.1} us, {steps:.1} steps of the {:.3} us host clock that timed each one (under {RESOLUTION_FACTOR:.0}): the percentiles are mostly the clock's rounding (the median over the samples is not)",
            p50.as_secs_f64() * 1e6,
            resolution.as_secs_f64() * 1e6
        );
        result
            .warnings
            .push(COARSE_CLOCK.record(message, Some(steps)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::metric::{BenchmarkInfo, MetricKind};
    use gpubench_results::schema::Status;

    #[test]
    fn a_native_clock_steps_in_well_under_a_microsecond() {
        let clock = HostClock::measure();
        assert!(clock.resolution() < Duration::from_micros(1), "{clock:?}");
        assert_eq!(
            clock.read(Duration::from_nanos(1234)),
            Duration::from_nanos(1234)
        );
    }

    #[test]
    fn a_coarsened_clock_cuts_durations_to_whole_steps() {
        let clock = HostClock::coarsened(Duration::from_micros(100));
        assert_eq!(clock.resolution(), Duration::from_micros(100));
        assert_eq!(
            clock.read(Duration::from_micros(399)),
            Duration::from_micros(300)
        );
        assert_eq!(
            clock.read(Duration::from_micros(400)),
            Duration::from_micros(400)
        );
        assert_eq!(clock.read(Duration::from_micros(99)), Duration::ZERO);
    }

    /// A result whose median sample took `median`, annotated for a clock of 100 us steps.
    fn annotated(median: Duration) -> BenchResult {
        let info = BenchmarkInfo::new("launch/round-trip/x", "launch", MetricKind::TimePerOp, "t");
        let mut result = BenchResult::empty(&info, Status::Ok, None);
        annotate(&mut result, median, Duration::from_micros(100));
        result
    }

    #[test]
    fn a_sample_under_twenty_steps_is_marked_and_every_result_states_its_resolution() {
        let mut short = annotated(Duration::from_micros(400));
        assert_eq!(short.extra[RESOLUTION_KEY], 100.0);
        assert_eq!(short.warnings.len(), 1);
        assert_eq!(short.warnings[0].kind, COARSE_CLOCK.kind());
        assert_eq!(short.warnings[0].figure, Some(4.0));
        let mut long = annotated(Duration::from_millis(5));
        assert_eq!(long.extra[RESOLUTION_KEY], 100.0);
        assert!(long.warnings.is_empty());
        // Long samples of 50 round trips, each timed alone at 400 us: the percentiles are not.
        let (p50, step) = (Duration::from_micros(400), Duration::from_micros(100));
        annotate_latencies(&mut long, p50, step);
        assert_eq!(long.warnings.len(), 1);
        assert!(long.warnings[0].message.contains("percentiles"));
        // Marked once, whichever way.
        annotate_latencies(&mut short, p50, step);
        assert_eq!(short.warnings.len(), 1);
    }
}
