//! The step GPU timestamps are seen to take, which may be coarser than their period says.
//!
//! A device states its timestamp period (nanoseconds per tick), but its counter may advance by
//! many ticks at a time, and a browser may quantize WebGPU timestamps on purpose (Chromium's
//! default is 100 us steps, against timing attacks) while the period still says 1 ns. Either
//! way every value the queries return is then a multiple of the real step. So the step is read
//! off the values themselves: the greatest common divisor of every nonzero timestamp read so
//! far. Counters that tick finely give a divisor of one tick within a few values (the chance
//! that `n` values of a fine counter share a factor `k` is about `k^-n`), so the step is
//! believed only after [`MIN_VALUES`] values; until then it is the period. The values are a
//! property of the device, so the context keeps one [`TimestampStep`] for all its runners, and a
//! runner reads a few timestamps of empty passes before it calibrates a GPU-timed benchmark
//! (`TimestampQueries::learn_step`) if fewer were seen.
//!
//! A test makes the device's timestamps coarse on purpose ([`Quantum`]) to see a native run
//! flagged as a browser's quantized one would be.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// Timestamps read before their common divisor is taken as the clock's step.
pub const MIN_VALUES: u32 = 16;

/// The step GPU timestamps have been seen to take, from the values read so far.
#[derive(Debug, Default)]
pub struct TimestampStep {
    /// Greatest common divisor of the nonzero values seen, in ticks; 0 before the first.
    divisor: AtomicU64,
    /// How many nonzero values were seen.
    seen: AtomicU32,
}

impl TimestampStep {
    /// Takes the timestamps of one read (in ticks) into account.
    pub fn observe(&self, ticks: &[u64]) {
        for &value in ticks.iter().filter(|&&v| v != 0) {
            // The update is a pure function of the old divisor, so a retry is harmless.
            let _ = self
                .divisor
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                    Some(gcd(old, value))
                });
            self.seen.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether enough values were seen to believe their common divisor.
    pub fn known(&self) -> bool {
        self.seen.load(Ordering::Relaxed) >= MIN_VALUES
    }

    /// The clock's step for a timestamp `period_ns`: the period itself until [`MIN_VALUES`]
    /// values were seen, then the common divisor of the values in nanoseconds, if that is
    /// coarser.
    pub fn resolution(&self, period_ns: f64) -> Duration {
        let period = Duration::from_secs_f64((period_ns * 1e-9).max(0.0));
        if !self.known() {
            return period;
        }
        let divisor = self.divisor.load(Ordering::Relaxed).max(1);
        let seen = Duration::from_secs_f64((divisor as f64 * period_ns * 1e-9).max(0.0));
        period.max(seen)
    }
}

/// Greatest common divisor; `gcd(0, x) == x`.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A coarser step forced on a device's timestamps, in ticks: each value is cut down to a whole
/// number of steps, as a browser's quantized timestamps are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantum(u64);

impl Quantum {
    /// The quantum of `step` on a clock of `period_ns` per tick (at least one tick).
    pub fn new(step: Duration, period_ns: f64) -> Self {
        let ticks = step.as_nanos() as f64 / period_ns.max(f64::MIN_POSITIVE);
        Self((ticks.round() as u64).max(1))
    }

    /// `ticks` cut down to a whole number of quanta.
    pub fn apply(self, ticks: u64) -> u64 {
        ticks - ticks % self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fine_counter_steps_by_its_period() {
        let step = TimestampStep::default();
        // Consecutive-ish values of a 1 ns counter: their divisor is 1.
        let values: Vec<u64> = (0..MIN_VALUES as u64)
            .map(|i| 1_000_003 + 7919 * i)
            .collect();
        step.observe(&values);
        assert_eq!(step.resolution(1.0), Duration::from_nanos(1));
    }

    #[test]
    fn quantized_values_show_their_step_once_enough_are_seen() {
        let step = TimestampStep::default();
        let quantum = Quantum::new(Duration::from_micros(100), 1.0);
        let values: Vec<u64> = (1..=u64::from(MIN_VALUES))
            .map(|i| quantum.apply(12_345_678_901 + 263_411 * i * i))
            .collect();
        step.observe(&values[..values.len() - 1]);
        assert_eq!(
            step.resolution(1.0),
            Duration::from_nanos(1),
            "too few values to believe a step"
        );
        step.observe(&values[values.len() - 1..]);
        assert_eq!(step.resolution(1.0), Duration::from_micros(100));
        // The divisor is in ticks: on a 0.5 ns counter the same values step by 50 us.
        assert_eq!(step.resolution(0.5), Duration::from_micros(50));
    }

    #[test]
    fn zeros_are_not_values_and_quanta_cut_down() {
        let step = TimestampStep::default();
        step.observe(&[0; 64]);
        assert_eq!(step.resolution(10.0), Duration::from_nanos(10));
        let quantum = Quantum::new(Duration::from_micros(1), 10.0);
        assert_eq!(quantum.apply(1_234), 1_200);
        assert_eq!(Quantum::new(Duration::ZERO, 1.0).apply(7), 7);
        assert_eq!(gcd(0, 12), 12);
        assert_eq!(gcd(18, 12), 6);
    }
}
