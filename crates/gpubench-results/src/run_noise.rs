//! The run's own noise level: one fixed reference kernel measured at the start and at the end
//! of a run, so that a reader of a comparison can tell a regression from a machine that moved.
//!
//! A noise band (the baseline crate's) is a fixed guess per kind of metric. What a shared CI
//! machine does during one particular run is not: its CPU-bound figures can move 2-3x between
//! minutes. The reference is the same work, with the same settings, twice; how far its median
//! moved between the two checks (the drift), and how widely its samples spread within each check,
//! bound what the machine did to every result in between. The larger of the two is the run's
//! noise level: a change of a result smaller than that is no evidence of anything.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::stats::Summary;

/// The reference measured at the start and the end of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunNoise {
    /// The reference benchmark's id (a fixed kernel, also run by its own suite).
    pub reference: String,
    /// The unit of its values (a rate: higher is faster).
    pub unit: String,
    /// The reference at the start of the run, before the first suite.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<Summary>,
    /// The reference at the end of the run, after the last suite.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<Summary>,
    /// How far the median moved from the start to the end, as a fraction (end / start - 1);
    /// absent unless both checks were measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<f64>,
    /// The run's noise level, a fraction: the larger of how far the median moved, as a factor
    /// either way less one (end / start or start / end, whichever is larger: a halving counts
    /// as a doubling does), and each check's spread (half the 5th-95th percentile range over
    /// the median); absent unless both checks measured a rate (how far the run moved is not
    /// known otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// Why a check is missing (the reference failed or is unsupported, the run was stopped or
    /// lost its device), when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Half the 5th-95th percentile range of a check over its median: how widely its samples
/// spread. `None` for a median that is not a positive number.
pub fn spread(summary: &Summary) -> Option<f64> {
    (summary.median.is_finite() && summary.median > 0.0)
        .then(|| ((summary.p95 - summary.p5) / 2.0 / summary.median).abs())
}

/// `percent` as a percentage with one decimal, or with as many as show its first two digits
/// where one decimal would read 0.0 (a start spread of 0.0033% is not "±0.0%"); signed where
/// `signed` says.
fn percent_text(percent: f64, signed: bool) -> String {
    let magnitude = percent.abs();
    let decimals = if magnitude > 0.0 && magnitude < 0.05 {
        // Two significant digits: 0.0033 has its first at the third decimal.
        (1.0 - magnitude.log10().floor()).clamp(1.0, 12.0) as usize
    } else {
        1
    };
    if signed {
        format!("{percent:+.decimals$}%")
    } else {
        format!("{percent:.decimals$}%")
    }
}

impl RunNoise {
    /// A record for `reference` in `unit` with no check measured yet.
    pub fn new(reference: impl Into<String>, unit: impl Into<String>) -> Self {
        Self {
            reference: reference.into(),
            unit: unit.into(),
            start: None,
            end: None,
            drift: None,
            level: None,
            reason: None,
        }
    }

    /// Records the end check (or why there is none) and works out the drift and the level.
    pub fn finish(&mut self, end: Result<Summary, String>) {
        match end {
            Ok(summary) => self.end = Some(summary),
            Err(reason) => self.note(reason),
        }
        let ratio = match (&self.start, &self.end) {
            (Some(s), Some(e)) if s.median > 0.0 && e.median.is_finite() => {
                Some(e.median / s.median)
            }
            _ => None,
        };
        self.drift = ratio.map(|r| r - 1.0);
        // The drift as a factor either way: a reference that halved moved the machine as much
        // as one that doubled. From the ratio itself, so a rise is the drift to the last bit.
        let moved = match ratio {
            Some(r) if r > 0.0 => Some(r.max(1.0 / r) - 1.0),
            Some(_) => {
                // The reference collapsed to no rate at all: no factor measures that, and a
                // run that cannot say how far it moved has no level to excuse anything by.
                self.note("the end check measured a rate of 0".to_string());
                None
            }
            None => None,
        };
        // Without the drift (an end check that failed, was skipped or collapsed) how far the
        // run moved is not known: the start's spread alone would call it quiet, and excuse a
        // slowdown or pass it as a baseline on nothing.
        let spreads = [&self.start, &self.end]
            .into_iter()
            .flatten()
            .filter_map(spread);
        self.level = moved
            .map(|moved| spreads.fold(moved, f64::max))
            .filter(|l| l.is_finite());
    }

    /// Adds `reason` to why a check is missing.
    pub fn note(&mut self, reason: String) {
        self.reason = Some(match self.reason.take() {
            Some(earlier) => format!("{earlier}; {reason}"),
            None => reason,
        });
    }

    /// One line for a reader: the level, and what it is made of.
    pub fn describe(&self) -> String {
        let pct = |v: f64| percent_text(100.0 * v, false);
        let mut parts = Vec::new();
        if let Some(drift) = self.drift {
            let moved = percent_text(100.0 * drift, true);
            parts.push(format!("moved {moved} from start to end"));
        }
        let spreads: Vec<String> = [("start", &self.start), ("end", &self.end)]
            .into_iter()
            .filter_map(|(at, s)| {
                s.as_ref()
                    .and_then(spread)
                    .map(|v| format!("{at} ±{}", pct(v)))
            })
            .collect();
        if !spreads.is_empty() {
            parts.push(format!("spread {}", spreads.join(", ")));
        }
        if let Some(reason) = &self.reason {
            parts.push(reason.clone());
        }
        let level = self
            .level
            .map_or("unknown".to_string(), |l| format!("±{}", pct(l)));
        format!(
            "{level} (reference {}: {})",
            self.reference,
            parts.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::summarize;

    fn check(values: &[f64]) -> Summary {
        summarize(values).expect("finite samples")
    }

    /// A small spread or drift is not shown as zero: its first two digits are.
    #[test]
    fn small_percentages_keep_their_digits() {
        assert_eq!(percent_text(0.0033, false), "0.0033%");
        assert_eq!(percent_text(-0.012, true), "-0.012%");
        assert_eq!(percent_text(0.049, false), "0.049%");
        assert_eq!(percent_text(2.34, false), "2.3%");
        assert_eq!(percent_text(2.0, true), "+2.0%");
        assert_eq!(percent_text(0.0, true), "+0.0%");
    }

    #[test]
    fn the_level_is_the_larger_of_the_drift_and_the_spreads() {
        let mut noise = RunNoise::new("compute/fma-peak/vec4-f32", "GFLOP/s");
        noise.start = Some(check(&[100.0; 8]));
        noise.finish(Ok(check(&[80.0; 8])));
        let drift = noise.drift.expect("both checks");
        assert!((drift + 0.2).abs() < 1e-12, "{drift}");
        // 100 to 80 is a factor of 1.25, as 80 to 100 would be.
        assert!((noise.level.expect("level") - 0.25).abs() < 1e-12);
        let mut faster = RunNoise::new("r", "GFLOP/s");
        faster.start = Some(check(&[80.0; 8]));
        faster.finish(Ok(check(&[100.0; 8])));
        assert!((faster.level.expect("level") - 0.25).abs() < 1e-12);
        // A rise is the drift to the last bit (once (1 + drift) - 1, a bit under it).
        let mut rise = RunNoise::new("r", "GFLOP/s");
        rise.start = Some(check(&[33.08120974117914; 8]));
        rise.finish(Ok(check(&[41.57134251640456; 8])));
        assert!(rise.level.expect("level") >= rise.drift.expect("drift").abs());
        // A reference that collapsed to no rate has no factor: the run says so.
        let mut collapsed = RunNoise::new("r", "GFLOP/s");
        collapsed.start = Some(check(&[80.0; 8]));
        collapsed.finish(Ok(check(&[0.0; 8])));
        assert_eq!(collapsed.level, None, "how far it moved is not known");
        assert!(
            collapsed
                .describe()
                .contains("the end check measured a rate of 0")
        );

        // Steady medians but wide samples: the spread is the level.
        let wide: Vec<f64> = (0..20).map(|i| 70.0 + 3.0 * f64::from(i)).collect();
        let mut noise = RunNoise::new("r", "GFLOP/s");
        noise.start = Some(check(&wide));
        noise.finish(Ok(check(&wide)));
        let s = spread(&check(&wide)).expect("spread");
        assert_eq!(noise.drift, Some(0.0));
        assert!(s > 0.2 && noise.level == Some(s), "{s} {:?}", noise.level);
        assert!(
            noise.describe().contains("moved +0.0%"),
            "{}",
            noise.describe()
        );
    }

    /// A check of twenty samples (the noise check's count): one hiccup barely moves its 5th
    /// percentile, three slow samples of twenty do.
    #[test]
    fn one_hiccup_of_twenty_does_not_set_the_spread() {
        let steady: Vec<f64> = (0..20).map(|i| 99.0 + 0.1 * f64::from(i)).collect();
        let mut hiccup = steady.clone();
        hiccup[0] = 70.0;
        let quiet = spread(&check(&steady)).expect("spread");
        let one_off = spread(&check(&hiccup)).expect("spread");
        assert!(quiet < 0.01, "{quiet}");
        assert!(
            one_off < 0.02,
            "{one_off}: one slow sample is not the run's noise"
        );
        let mut three = steady;
        three[..3].fill(70.0);
        let noisy = spread(&check(&three)).expect("spread");
        assert!(noisy > 0.1, "{noisy}: three slow samples of twenty are");
    }

    #[test]
    fn a_missing_end_check_keeps_the_start_says_why_and_states_no_level() {
        let mut noise = RunNoise::new("r", "GFLOP/s");
        noise.start = Some(check(&[10.0, 10.0, 10.0]));
        noise.finish(Err("the run was stopped".to_string()));
        assert_eq!(noise.drift, None);
        // The start's spread alone would call the run quiet: how far it moved is not known.
        assert_eq!(noise.level, None);
        assert!(
            noise.describe().starts_with("unknown"),
            "{}",
            noise.describe()
        );
        assert!(noise.describe().contains("the run was stopped"));

        let mut none = RunNoise::new("r", "GFLOP/s");
        none.note("the reference failed verification".to_string());
        none.finish(Err("the run was stopped".to_string()));
        assert_eq!(none.level, None);
        assert!(
            none.describe().starts_with("unknown"),
            "{}",
            none.describe()
        );
        assert!(
            none.describe()
                .contains("failed verification; the run was stopped")
        );
    }
}
