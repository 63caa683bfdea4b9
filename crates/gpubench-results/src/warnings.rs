//! Warnings a careful engineer would give about a measurement. Each names what fixes it.

use std::fmt;

/// Something about a result or run that makes its numbers less trustworthy.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// Samples were short against timer resolution and launch cost.
    ShortSamples {
        /// Median sample length in microseconds.
        median_us: f64,
    },
    /// The coefficient of variation stayed above the target.
    HighVariation {
        /// Measured coefficient of variation.
        cv: f64,
        /// The profile's target.
        target: f64,
    },
    /// Some samples lay outside Tukey's fences.
    Outliers {
        /// Number of outliers.
        count: usize,
        /// Number of samples.
        of: usize,
    },
    /// The first (verification) run was much slower than the median: lazy compilation or first
    /// touch of memory, excluded from the samples.
    SlowFirstRun {
        /// How many times slower than the median iteration.
        factor: f64,
    },
    /// The time cap stopped sampling before the minimum count or the variation target was met.
    TimeCapped {
        /// Samples taken.
        samples: usize,
    },
    /// Some timestamp pairs were rejected (end not after start).
    TimestampsRejected {
        /// How many.
        count: usize,
    },
    /// On samples long enough to compare (at least 10 ms), the GPU timestamps and the host clock
    /// disagree in a way no correct measurement can: GPU time above the host's submit-to-
    /// completion time, or, for a sample that was one submit and nothing else, far below it.
    ClockDisagreement {
        /// Median GPU time of the compared samples, milliseconds.
        gpu_ms: f64,
        /// Median host time of the same samples, milliseconds.
        host_ms: f64,
        /// How many samples were compared.
        samples: usize,
    },
    /// The benchmark ran on a software adapter: the numbers are CPU numbers.
    SoftwareAdapter,
    /// The adapter has no timestamp queries: host clock only.
    NoTimestamps,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::ShortSamples { median_us } => write!(
                f,
                "samples are short ({median_us:.0} us): timer resolution and launch cost weigh in; raise --sample-ms"
            ),
            Warning::HighVariation { cv, target } => write!(
                f,
                "high variation (cv {:.1}% above the {:.1}% target): close other GPU work, or raise --samples / --max-time",
                cv * 100.0,
                target * 100.0
            ),
            Warning::Outliers { count, of } => write!(
                f,
                "{count} of {of} samples are outliers (beyond 1.5 IQR): another process may be using the device"
            ),
            Warning::SlowFirstRun { factor } => write!(
                f,
                "first run was {factor:.0}x slower than the median (lazy compilation or first touch); it is not counted"
            ),
            Warning::TimeCapped { samples } => write!(
                f,
                "time cap reached after {samples} samples before the variation target: raise --max-time for a tighter interval"
            ),
            Warning::TimestampsRejected { count } => write!(
                f,
                "{count} GPU timestamp pairs rejected (end not after start); those samples are left out of the GPU-timed values (host time keeps them)"
            ),
            Warning::ClockDisagreement {
                gpu_ms,
                host_ms,
                samples,
            } if gpu_ms > host_ms => write!(
                f,
                "GPU timestamps say {gpu_ms:.3} ms where the host clock saw {host_ms:.3} ms from before the submit to completion (median of {samples} samples): GPU time cannot exceed that, so the timestamp period is wrong (check queue.get_timestamp_period() against the driver's; wgpu's Metal backend reports 1.0) and the GPU-timed values are not to be trusted; the host values are"
            ),
            Warning::ClockDisagreement {
                gpu_ms,
                host_ms,
                samples,
            } => write!(
                f,
                "GPU timestamps say {gpu_ms:.3} ms for work that was the sample's only submit, where the host clock saw {host_ms:.3} ms (median of {samples} samples): the GPU clock runs slow or stops (check queue.get_timestamp_period() against the driver's, and whether the counter halts while the GPU clocks down); prefer the host values"
            ),
            Warning::SoftwareAdapter => write!(
                f,
                "software adapter: these are CPU numbers, not GPU numbers; choose a GPU with --adapter"
            ),
            Warning::NoTimestamps => write!(
                f,
                "adapter has no timestamp queries: host clock only (includes submit and wait overhead)"
            ),
        }
    }
}
