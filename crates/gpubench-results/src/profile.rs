//! Profiles: how long samples are, how many there are, and how big the work is.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A named set of sizes and sample settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// CI and smoke tests: small sizes, few samples; well under a minute on lavapipe.
    Quick,
    /// A real machine in a few minutes.
    Default,
    /// Size sweeps, longer sampling, and the capacity and sustained suites.
    Full,
}

impl Profile {
    /// The profile's name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Quick => "quick",
            Profile::Default => "default",
            Profile::Full => "full",
        }
    }

    /// Sample settings for this profile; software adapters get longer samples (their timings
    /// are noisier and launch overhead is larger) but tighter total caps. Every profile takes
    /// at least six samples, the fewest whose range is a 95% interval of the median.
    pub fn settings(self, software: bool) -> RunSettings {
        let ms = Duration::from_millis;
        let (target, warmup, min, max, cv, cap) = match (self, software) {
            (Profile::Quick, false) => (ms(2), ms(20), 6, 15, 0.05, ms(1000)),
            (Profile::Quick, true) => (ms(10), ms(20), 6, 12, 0.05, ms(1500)),
            (Profile::Default, false) => (ms(5), ms(200), 10, 50, 0.02, ms(5000)),
            (Profile::Default, true) => (ms(20), ms(100), 10, 30, 0.03, ms(4000)),
            (Profile::Full, false) => (ms(10), ms(1000), 20, 200, 0.01, ms(15000)),
            (Profile::Full, true) => (ms(25), ms(300), 15, 60, 0.02, ms(10000)),
        };
        RunSettings {
            target_sample: target,
            max_sample: ms(100),
            warmup,
            min_warmup_samples: 2,
            min_samples: min,
            max_samples: max,
            target_cv: cv,
            max_time: cap,
            seed: 0x5eed,
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "quick" => Ok(Profile::Quick),
            "default" => Ok(Profile::Default),
            "full" => Ok(Profile::Full),
            other => Err(format!(
                "unknown profile '{other}': use quick, default or full"
            )),
        }
    }
}

/// How the runner samples one benchmark. Recorded in the result's `config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunSettings {
    /// A sample should last about this long (iterations are calibrated to reach it).
    #[serde(with = "duration_ms")]
    #[schemars(with = "f64")]
    pub target_sample: Duration,
    /// No single submit is calibrated to run longer than this (driver watchdogs sit near 100 ms+).
    #[serde(with = "duration_ms")]
    #[schemars(with = "f64")]
    pub max_sample: Duration,
    /// Warm-up time budget before sampling.
    #[serde(with = "duration_ms")]
    #[schemars(with = "f64")]
    pub warmup: Duration,
    /// Warm-up runs at least this many samples.
    pub min_warmup_samples: usize,
    /// Sampling stops no earlier than this many samples.
    pub min_samples: usize,
    /// Sampling stops at this many samples.
    pub max_samples: usize,
    /// Sampling stops early once the coefficient of variation is at or below this.
    pub target_cv: f64,
    /// Sampling stops after this much time (once `min_samples` are in, or at twice the cap).
    #[serde(with = "duration_ms")]
    #[schemars(with = "f64")]
    pub max_time: Duration,
    /// Seed for inputs.
    pub seed: u64,
}

mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1e3)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let ms = f64::deserialize(d)?;
        Duration::try_from_secs_f64(ms / 1e3).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{MEDIAN_CI_COVERAGE, median_ci_rank};

    #[test]
    fn every_profile_takes_enough_samples_for_a_95_percent_interval_of_the_median() {
        for profile in [Profile::Quick, Profile::Default, Profile::Full] {
            for software in [false, true] {
                let settings = profile.settings(software);
                let (_, covered) =
                    median_ci_rank(settings.min_samples, MEDIAN_CI_COVERAGE).expect("samples");
                assert!(covered >= MEDIAN_CI_COVERAGE, "{profile:?} {software}");
                assert!(settings.min_samples <= settings.max_samples);
            }
        }
    }
}
