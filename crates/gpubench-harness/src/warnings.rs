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
