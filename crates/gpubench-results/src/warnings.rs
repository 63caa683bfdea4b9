//! Warnings a careful engineer would give about a measurement. Each names what fixes it.
//!
//! Files store each warning typed, as a [`WarningRecord`] (`{kind, message, figure}`), so a
//! reader groups them by [`WarningKind`] and ranks them by their figure without parsing prose.
//! Files written before typed warnings (schema 1) hold plain strings: those read as kind
//! `other`, with the text as the message. A kind this gpubench does not know (a newer one wrote
//! it) reads as [`WarningKind::Unknown`], keeping its name; it is shown with its message and
//! never acts on a verdict (nothing judges by warnings).
//!
//! The kinds defined here are the measuring path's (samples, timers, the adapter) and the
//! baseline store's. A suite's own kinds (a sustained run's throttling, a transfer fit's
//! quality) live with the suite, as an [`OwnedKind`] constant; their records carry how they are
//! shown (label, figure unit, which end is worst), so any reader shows them without knowing
//! the suite, and a new suite adds kinds without touching this crate. Files written before
//! suites owned their kinds name six of them without that presentation:
//! [`legacy_presentation`] keeps showing those as before.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::kind_name::{KindName, KindNameError};

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
    /// The first (verification) run, one iteration, took much longer than a later run of one
    /// iteration (or, without one, a whole timed sample): lazy compilation or first touch of
    /// memory, excluded from the samples.
    SlowFirstRun {
        /// How many times as long as that later run (host clock, submit to completion both).
        factor: f64,
    },
    /// The time cap stopped sampling before the minimum count or the variation target was met.
    TimeCapped {
        /// Samples taken.
        samples: usize,
    },
    /// Some timestamp pairs were rejected (zero, stale, or end not after start).
    TimestampsRejected {
        /// How many.
        count: usize,
    },
    /// On samples long enough to compare (at least 10 ms), the GPU timestamps and the host clock
    /// disagree in a way no correct measurement can: GPU time above the host's submit-to-
    /// completion time, or, for a sample that was one submit and nothing else, far below it.
    /// Where GPU time exceeds host time (impossible), the result's headline is the host clock's.
    ClockDisagreement {
        /// Median GPU time of the compared samples, milliseconds.
        gpu_ms: f64,
        /// Median host time of the same samples, milliseconds.
        host_ms: f64,
        /// How many samples were compared.
        samples: usize,
    },
    /// The samples, in the order taken, did not stay at one level ([`crate::level_shift`]):
    /// where the median lands depends on how many fell on each side of the move.
    LevelShift {
        /// Per-iteration time after the move over before it, less one (0.05: 5% slower).
        change: f64,
        /// The sample (from 1) that began the later level.
        at: usize,
        /// How many samples there were.
        of: usize,
        /// Median per-iteration time before the move, seconds.
        before_s: f64,
        /// Median per-iteration time from the move on, seconds.
        after_s: f64,
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
                "samples are short ({median_us:.0} us): timer resolution and launch cost weigh in; raise the sample length"
            ),
            Warning::HighVariation { cv, target } => write!(
                f,
                "high variation (cv {:.1}% above the {:.1}% target): close other GPU work, or raise the sample count or the time cap",
                cv * 100.0,
                target * 100.0
            ),
            Warning::Outliers { count, of } => write!(
                f,
                "{count} of {of} samples are outliers (beyond 1.5 IQR): another process may be using the device"
            ),
            Warning::SlowFirstRun { factor } => write!(
                f,
                "first run took {factor:.0}x as long as a later run of the same work (lazy compilation or first touch); it is not counted"
            ),
            Warning::TimeCapped { samples } => {
                write!(
                    f,
                    "time cap reached after {samples} samples before the variation target"
                )?;
                // Below six samples no interval of order statistics reaches 95%: the stated
                // one is their range, and it covers the median less often.
                if let Some(coverage) = crate::stats::short_coverage(*samples) {
                    write!(
                        f,
                        "; its interval is their range, which holds the median with {:.1}%, not 95%",
                        coverage * 100.0
                    )?;
                }
                write!(f, ": raise the time cap for a tighter interval")
            }
            Warning::TimestampsRejected { count } => write!(
                f,
                "{count} GPU timestamp pairs rejected (zero, stale, or end not after start; a driver that resolves the timestamps of a pass without a dispatch to zero, as Metal does, gives zeros); those samples are left out of the GPU-timed values (host time keeps them)"
            ),
            Warning::ClockDisagreement {
                gpu_ms,
                host_ms,
                samples,
            } if gpu_ms > host_ms => write!(
                f,
                "GPU timestamps say {gpu_ms:.3} ms where the host clock saw {host_ms:.3} ms from before the submit to completion (median of {samples} samples): GPU time cannot exceed that, so the timestamp period is wrong (check queue.get_timestamp_period() against the driver's; wgpu's Metal backend reports 1.0) and the GPU-timed values are not to be trusted: the headline is the host clock's"
            ),
            Warning::ClockDisagreement {
                gpu_ms,
                host_ms,
                samples,
            } => write!(
                f,
                "GPU timestamps say {gpu_ms:.3} ms for work that was the sample's only submit, where the host clock saw {host_ms:.3} ms (median of {samples} samples): the GPU clock runs slow or stops (check queue.get_timestamp_period() against the driver's, and whether the counter halts while the GPU clocks down), or the host was too busy to see the completion in time; the host values are beside the GPU ones"
            ),
            Warning::LevelShift {
                change,
                at,
                of,
                before_s,
                after_s,
            } => write!(
                f,
                "samples did not stay at one level: time per iteration {} before sample {at} of {of}, {} from it on ({:+.1}% in time); something changed while measuring (a boost clock ending, throttling, another process, the driver) and the median depends on how many samples fell on each side: rerun it warmed up and alone, and compare",
                seconds_text(*before_s),
                seconds_text(*after_s),
                change * 100.0
            ),
            Warning::SoftwareAdapter => write!(
                f,
                "software adapter: these are CPU numbers, not GPU numbers; choose a GPU adapter (`gpubench list` shows them)"
            ),
            Warning::NoTimestamps => write!(
                f,
                "adapter has no timestamp queries: host clock only (includes submit and wait overhead)"
            ),
        }
    }
}

impl Warning {
    /// What kind of warning this is, for grouping.
    pub fn kind(&self) -> WarningKind {
        match self {
            Warning::ShortSamples { .. } => WarningKind::ShortSamples,
            Warning::HighVariation { .. } => WarningKind::HighVariation,
            Warning::Outliers { .. } => WarningKind::Outliers,
            Warning::SlowFirstRun { .. } => WarningKind::SlowFirstRun,
            Warning::TimeCapped { .. } => WarningKind::TimeCapped,
            Warning::TimestampsRejected { .. } => WarningKind::TimestampsRejected,
            Warning::ClockDisagreement { .. } => WarningKind::ClockDisagreement,
            Warning::LevelShift { .. } => WarningKind::LevelShift,
            Warning::SoftwareAdapter => WarningKind::SoftwareAdapter,
            Warning::NoTimestamps => WarningKind::NoTimestamps,
        }
    }

    /// The headline figure, in the unit [`WarningKind::figure_unit`] names.
    pub fn figure(&self) -> Option<f64> {
        match *self {
            Warning::ShortSamples { median_us } => Some(median_us),
            Warning::HighVariation { cv, .. } => Some(cv * 100.0),
            Warning::Outliers { count, .. } => Some(count as f64),
            Warning::SlowFirstRun { factor } => Some(factor),
            Warning::TimeCapped { samples } => Some(samples as f64),
            Warning::TimestampsRejected { count } => Some(count as f64),
            Warning::ClockDisagreement {
                gpu_ms, host_ms, ..
            } => Some(gpu_ms / host_ms),
            Warning::LevelShift { change, .. } => Some(change.abs() * 100.0),
            Warning::SoftwareAdapter | Warning::NoTimestamps => None,
        }
    }

    /// The warning as stored in a results file.
    pub fn record(&self) -> WarningRecord {
        WarningRecord::new(self.kind(), self.to_string(), self.figure())
    }
}

/// A time in seconds with three significant figures in the unit that fits it (`812 ns`,
/// `1.05 ms`).
fn seconds_text(seconds: f64) -> String {
    let (value, unit) = match seconds.abs() {
        s if s >= 1.0 => (seconds, "s"),
        s if s >= 1e-3 => (seconds * 1e3, "ms"),
        s if s >= 1e-6 => (seconds * 1e6, "us"),
        _ => (seconds * 1e9, "ns"),
    };
    let decimals = match value.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{value:.decimals$} {unit}")
}

/// What a stored warning is about: the key the notes under a table group by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// Samples short against timer resolution and launch cost; figure: median sample, us.
    ShortSamples,
    /// Variation above the profile's target; figure: coefficient of variation, %.
    HighVariation,
    /// Samples beyond Tukey's fences; figure: how many.
    Outliers,
    /// The verification run took much longer than a later run of the same work; figure: how
    /// many times.
    SlowFirstRun,
    /// The time cap ended sampling early; figure: samples taken.
    TimeCapped,
    /// GPU timestamp pairs rejected; figure: how many.
    TimestampsRejected,
    /// GPU timestamps and the host clock disagree; figure: GPU time over host time.
    ClockDisagreement,
    /// The samples did not stay at one level; figure: the move in time, % either way.
    LevelShift,
    /// The run measured a software adapter.
    SoftwareAdapter,
    /// The adapter has no timestamp queries.
    NoTimestamps,
    /// Stream dispatches shorter than their target; figure: median dispatch, us.
    ShortDispatches,
    /// A baseline kept suites from an earlier run.
    BaselineMerged,
    /// A warning from a file older than typed warnings.
    Other,
    /// A kind not defined here, kept by its name: a suite's own ([`OwnedKind`], shown as its
    /// records say), or one a newer gpubench wrote (shown with its message). Like every
    /// warning it never changes a verdict.
    #[serde(untagged)]
    Unknown(KindName),
}

impl WarningKind {
    /// Every kind this gpubench knows, in the order the schema lists them.
    pub const KNOWN: [WarningKind; 13] = [
        WarningKind::ShortSamples,
        WarningKind::HighVariation,
        WarningKind::Outliers,
        WarningKind::SlowFirstRun,
        WarningKind::TimeCapped,
        WarningKind::TimestampsRejected,
        WarningKind::ClockDisagreement,
        WarningKind::LevelShift,
        WarningKind::SoftwareAdapter,
        WarningKind::NoTimestamps,
        WarningKind::ShortDispatches,
        WarningKind::BaselineMerged,
        WarningKind::Other,
    ];

    /// The kind a file names `name`: a known one, else [`WarningKind::Unknown`] keeping the
    /// name; an error only for a name no file may hold (empty, or too long to keep).
    pub fn from_name(name: &str) -> Result<WarningKind, KindNameError> {
        match Self::KNOWN.into_iter().find(|k| k.name() == name) {
            Some(known) => Ok(known),
            None => KindName::new(name).map(WarningKind::Unknown),
        }
    }

    /// Whether this gpubench knows the kind.
    pub fn is_known(self) -> bool {
        !matches!(self, WarningKind::Unknown(_))
    }

    /// The kind's name as written in files.
    pub fn name(&self) -> &str {
        match self {
            WarningKind::ShortSamples => "short-samples",
            WarningKind::HighVariation => "high-variation",
            WarningKind::Outliers => "outliers",
            WarningKind::SlowFirstRun => "slow-first-run",
            WarningKind::TimeCapped => "time-capped",
            WarningKind::TimestampsRejected => "timestamps-rejected",
            WarningKind::ClockDisagreement => "clock-disagreement",
            WarningKind::LevelShift => "level-shift",
            WarningKind::SoftwareAdapter => "software-adapter",
            WarningKind::NoTimestamps => "no-timestamps",
            WarningKind::ShortDispatches => "short-dispatches",
            WarningKind::BaselineMerged => "baseline-merged",
            WarningKind::Other => "other",
            WarningKind::Unknown(name) => name.as_str(),
        }
    }

    /// The kind in a few words, for the grouped notes; an unknown kind's name as written.
    pub fn label(&self) -> &str {
        match self {
            WarningKind::ShortSamples => "samples are short",
            WarningKind::HighVariation => "high variation",
            WarningKind::Outliers => "samples are outliers",
            WarningKind::SlowFirstRun => "first run slower than later ones",
            WarningKind::TimeCapped => "time cap reached",
            WarningKind::TimestampsRejected => "GPU timestamp pairs rejected",
            WarningKind::ClockDisagreement => "GPU timestamps disagree with the host clock",
            WarningKind::LevelShift => "samples did not stay at one level",
            WarningKind::SoftwareAdapter => "software adapter",
            WarningKind::NoTimestamps => "no timestamp queries",
            WarningKind::ShortDispatches => "dispatches are short",
            WarningKind::BaselineMerged => "baseline merged",
            WarningKind::Other => "other",
            WarningKind::Unknown(name) => name.as_str(),
        }
    }

    /// The unit of this kind's figure; `None` for a kind not defined here (its records say).
    pub fn unit(self) -> Option<FigureUnit> {
        Some(match self {
            WarningKind::HighVariation | WarningKind::LevelShift => FigureUnit::Percent,
            WarningKind::SlowFirstRun | WarningKind::ClockDisagreement => FigureUnit::Times,
            WarningKind::ShortSamples | WarningKind::ShortDispatches => FigureUnit::Microseconds,
            WarningKind::Unknown(_) => return None,
            _ => FigureUnit::Count,
        })
    }

    /// Whether the worst case is the one with the lowest figure (the shortest samples).
    pub fn worst_is_lowest(self) -> bool {
        matches!(
            self,
            WarningKind::ShortSamples | WarningKind::ShortDispatches
        )
    }

    /// A figure of this kind as the notes show it, with its unit; a kind not defined here shows
    /// the figure as written.
    pub fn show_figure(self, figure: f64) -> String {
        self.unit()
            .map_or_else(|| format!("{figure}"), |unit| unit.show(figure))
    }
}

/// The unit a warning's figure is in, which says how it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FigureUnit {
    /// How many (samples, sizes, pairs).
    Count,
    /// A percentage.
    Percent,
    /// How many times (a ratio).
    Times,
    /// Microseconds.
    Microseconds,
    /// Bytes.
    Bytes,
    /// A unit a newer gpubench wrote: the figure is shown as written.
    #[serde(other)]
    Other,
}

impl FigureUnit {
    /// `figure` with its unit, as the notes show it.
    pub fn show(self, figure: f64) -> String {
        match self {
            FigureUnit::Count => format!("{figure:.0}"),
            FigureUnit::Percent => format!("{figure:.1}%"),
            FigureUnit::Times => format!("{figure:.1}x"),
            FigureUnit::Microseconds => format!("{figure:.1} us"),
            FigureUnit::Bytes if figure >= 0.0 => crate::units::format_size(figure as u64),
            FigureUnit::Bytes | FigureUnit::Other => format!("{figure}"),
        }
    }
}

/// A warning kind a suite owns, declared as a constant in the suite's folder: its name in
/// files, its label in the grouped notes, the unit of its figure, and which end of the figure
/// is worst. Its records carry all of it, so every reader shows them alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedKind {
    /// The name in files.
    name: KindName,
    /// A few words for the grouped notes.
    label: &'static str,
    /// The unit of the figure.
    unit: FigureUnit,
    /// The worst case has the lowest figure.
    worst_is_lowest: bool,
}

impl OwnedKind {
    /// A kind named `name` (1 to 63 bytes, checked where the constant is evaluated), labelled
    /// `label`, its figure in `unit`, worst at the highest figure.
    pub const fn new(name: &'static str, label: &'static str, unit: FigureUnit) -> Self {
        Self {
            name: KindName::fixed(name),
            label,
            unit,
            worst_is_lowest: false,
        }
    }

    /// The same kind, worst at the lowest figure (a clock's percentage, a sample's steps).
    pub const fn worst_at_lowest(self) -> Self {
        Self {
            worst_is_lowest: true,
            ..self
        }
    }

    /// The kind, as records and files name it.
    pub fn kind(&self) -> WarningKind {
        WarningKind::Unknown(self.name)
    }

    /// A warning of this kind saying `message`, ranked by `figure`, with its presentation.
    pub fn record(&self, message: impl Into<String>, figure: Option<f64>) -> WarningRecord {
        WarningRecord {
            label: Some(self.label.to_string()),
            unit: Some(self.unit),
            worst_is_lowest: self.worst_is_lowest,
            ..WarningRecord::new(self.kind(), message, figure)
        }
    }
}

/// How a record is shown: its label, the unit of its figure, which end is worst.
#[derive(Debug, Clone, PartialEq)]
pub struct Presentation {
    /// A few words for the grouped notes.
    pub label: String,
    /// The unit of the figure.
    pub unit: FigureUnit,
    /// The worst case has the lowest figure.
    pub worst_is_lowest: bool,
}

/// The presentation of the six kinds suites wrote before they owned them (their files carry
/// none): the same label, unit and order as before, so old files read as they did.
pub fn legacy_presentation(name: &str) -> Option<Presentation> {
    let (label, unit, worst_is_lowest) = match name {
        "throttling" => ("throttling", FigureUnit::Percent, true),
        "allocation-below-limit" => (
            "less could be allocated than reported",
            FigureUnit::Bytes,
            false,
        ),
        "capacity-stopped" => ("capacity probe stopped", FigureUnit::Count, false),
        "partial-fit" => ("fitted over some sizes only", FigureUnit::Count, false),
        "fit-through-origin" => ("fit refitted through the origin", FigureUnit::Count, false),
        "poor-fit" => ("a line fits the sweep poorly", FigureUnit::Percent, false),
        _ => return None,
    };
    Some(Presentation {
        label: label.to_string(),
        unit,
        worst_is_lowest,
    })
}

/// One warning as a results file stores it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WarningRecord {
    /// What the warning is about.
    pub kind: WarningKind,
    /// The warning in words, with what to do about it.
    pub message: String,
    /// The warning's headline figure, in the unit its kind names; absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figure: Option<f64>,
    /// How the kind is labelled in the grouped notes: written for a kind its suite owns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The unit of the figure: written for a kind its suite owns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<FigureUnit>,
    /// The worst case has the lowest figure: written (true) for a kind its suite owns.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub worst_is_lowest: bool,
}

impl WarningRecord {
    /// A warning of `kind` saying `message`, ranked by `figure`.
    pub fn new(kind: WarningKind, message: impl Into<String>, figure: Option<f64>) -> Self {
        Self {
            kind,
            message: message.into(),
            figure,
            label: None,
            unit: None,
            worst_is_lowest: false,
        }
    }

    /// How this record is shown: as it says (a kind its suite owns), else as its kind is
    /// defined here, else as the kind was shown before suites owned it; `None` for a kind
    /// nothing here can present (a newer gpubench's).
    pub fn presentation(&self) -> Option<Presentation> {
        if let (Some(label), Some(unit)) = (&self.label, self.unit) {
            return Some(Presentation {
                label: label.clone(),
                unit,
                worst_is_lowest: self.worst_is_lowest,
            });
        }
        match self.kind {
            WarningKind::Unknown(name) => legacy_presentation(name.as_str()),
            kind => kind.unit().map(|unit| Presentation {
                label: kind.label().to_string(),
                unit,
                worst_is_lowest: kind.worst_is_lowest(),
            }),
        }
    }
}

/// A file's kind name: known, or kept as [`WarningKind::Unknown`]; the error says why a name
/// cannot be kept (empty, too long).
impl<'de> Deserialize<'de> for WarningKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        WarningKind::from_name(&name).map_err(|e| serde::de::Error::custom(format!("warning: {e}")))
    }
}

/// The message; a kind this gpubench does not know goes first, since no label explains it.
impl fmt::Display for WarningRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            WarningKind::Unknown(kind) if self.presentation().is_none() => {
                write!(f, "{kind}: {}", self.message)
            }
            _ => f.write_str(&self.message),
        }
    }
}

/// A stored warning as either form: typed (schema 2 on), or the plain text of schema 1.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum StoredForm {
    /// The typed form every current file writes.
    Typed {
        /// What the warning is about: a kind this version knows, or any other name (a newer
        /// gpubench's), kept as written.
        // Read as text, made a kind after: a name that cannot be kept is then refused with its
        // reason, where inside this untagged enum it would be "no variant matched".
        #[schemars(with = "WarningKind")]
        kind: String,
        /// The warning in words, with what to do about it.
        message: String,
        /// The headline figure, in the unit its kind names.
        #[serde(default)]
        figure: Option<f64>,
        /// The label of a kind its suite owns, for the grouped notes.
        #[serde(default)]
        label: Option<String>,
        /// The unit of the figure of a kind its suite owns.
        #[serde(default)]
        unit: Option<FigureUnit>,
        /// The worst case of a kind its suite owns has the lowest figure.
        #[serde(default)]
        worst_is_lowest: bool,
    },
    /// Schema 1's plain text.
    Text(String),
}

/// The schema says what readers accept: the typed object, or schema 1's plain text.
impl JsonSchema for WarningRecord {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "WarningRecord".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        StoredForm::json_schema(generator)
    }
}

impl<'de> Deserialize<'de> for WarningRecord {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match StoredForm::deserialize(deserializer)? {
            StoredForm::Typed {
                kind,
                message,
                figure,
                label,
                unit,
                worst_is_lowest,
            } => WarningRecord {
                kind: WarningKind::from_name(&kind)
                    .map_err(|e| serde::de::Error::custom(format!("warning: {e}")))?,
                message,
                figure,
                label,
                unit,
                worst_is_lowest,
            },
            StoredForm::Text(message) => WarningRecord::new(WarningKind::Other, message, None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_result_below_six_samples_says_what_its_interval_covers() {
        let three = Warning::TimeCapped { samples: 3 }.to_string();
        assert!(
            three.contains("holds the median with 75.0%, not 95%"),
            "{three}"
        );
        let six = Warning::TimeCapped { samples: 6 }.to_string();
        assert!(!six.contains("holds the median"), "{six}");
        assert!(
            six.ends_with("raise the time cap for a tighter interval"),
            "{six}"
        );
    }

    #[test]
    fn typed_warnings_round_trip_and_old_text_reads_as_other() {
        let record = Warning::HighVariation {
            cv: 0.312,
            target: 0.05,
        }
        .record();
        assert_eq!(record.kind, WarningKind::HighVariation);
        assert!((record.figure.expect("figure") - 31.2).abs() < 1e-9);
        let json = serde_json::to_string(&record).expect("serialise");
        assert!(json.contains("\"kind\":\"high-variation\""), "{json}");
        let back: WarningRecord = serde_json::from_str(&json).expect("read back");
        assert_eq!(back, record);
        let old: WarningRecord =
            serde_json::from_str("\"3 of 12 samples are outliers\"").expect("old text");
        assert_eq!(old.kind, WarningKind::Other);
        assert_eq!(old.message, "3 of 12 samples are outliers");
        let newer: WarningRecord =
            serde_json::from_str(r#"{"kind": "a-kind-from-the-future", "message": "m"}"#)
                .expect("unknown kind");
        assert_eq!(newer.kind.name(), "a-kind-from-the-future");
        assert!(!newer.kind.is_known());
        assert_eq!(newer.to_string(), "a-kind-from-the-future: m");
        let json = serde_json::to_string(&newer).expect("serialise");
        assert_eq!(json, r#"{"kind":"a-kind-from-the-future","message":"m"}"#);
    }

    #[test]
    fn a_level_shift_says_both_levels_in_fitting_units_and_its_size_either_way() {
        let slower = Warning::LevelShift {
            change: 0.052,
            at: 24,
            of: 50,
            before_s: 812e-9,
            after_s: 854.2e-9,
        };
        let text = slower.to_string();
        assert!(
            text.contains("time per iteration 812 ns before sample 24 of 50, 854 ns from it on (+5.2% in time)"),
            "{text}"
        );
        let faster = Warning::LevelShift {
            change: -0.25,
            at: 8,
            of: 30,
            before_s: 1.5e-3,
            after_s: 1.125e-3,
        };
        assert!(
            faster
                .to_string()
                .contains("1.50 ms before sample 8 of 30, 1.12 ms from it on (-25.0% in time)")
        );
        // The figure is the size of the move either way: a speed-up ranks with a slow-down.
        assert_eq!(slower.figure().map(|f| (f * 10.0).round()), Some(52.0));
        assert_eq!(faster.figure(), Some(25.0));
        assert_eq!(WarningKind::LevelShift.show_figure(25.0), "25.0%");
    }

    #[test]
    fn every_known_kind_is_written_by_its_name_and_read_back() {
        for kind in WarningKind::KNOWN {
            let json = serde_json::to_string(&kind).expect("serialise");
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(
                serde_json::from_str::<WarningKind>(&json).expect("read"),
                kind
            );
            assert!(kind.is_known());
        }
    }

    #[test]
    fn a_kind_name_no_file_may_hold_is_refused_with_its_reason() {
        let long = format!(
            r#"{{"kind": "{}", "message": "m"}}"#,
            "k".repeat(crate::kind_name::KindName::CAPACITY + 1)
        );
        let error = serde_json::from_str::<WarningRecord>(&long).expect_err("too long");
        assert!(error.to_string().contains("up to 63 bytes"), "{error}");
    }

    const SLOWDOWN: OwnedKind =
        OwnedKind::new("slowdown", "the run slowed down", FigureUnit::Percent).worst_at_lowest();

    #[test]
    fn an_owned_kind_carries_its_presentation_through_a_file() {
        let record = SLOWDOWN.record("slower by the end", Some(12.34));
        assert_eq!(record.kind.name(), "slowdown");
        assert_eq!(record.kind, SLOWDOWN.kind());
        let json = serde_json::to_string(&record).expect("serialise");
        assert!(
            json.contains(r#""label":"the run slowed down""#)
                && json.contains(r#""unit":"percent""#)
                && json.contains(r#""worst_is_lowest":true"#),
            "{json}"
        );
        let back: WarningRecord = serde_json::from_str(&json).expect("read back");
        assert_eq!(back, record);
        let shown = back.presentation().expect("presented");
        assert_eq!(shown.label, "the run slowed down");
        assert_eq!(shown.unit.show(12.34), "12.3%");
        assert!(shown.worst_is_lowest);
        assert_eq!(
            back.to_string(),
            "slower by the end",
            "no unknown-kind prefix"
        );
    }

    #[test]
    fn kinds_suites_wrote_before_they_owned_them_read_as_before() {
        let old: WarningRecord =
            serde_json::from_str(r#"{"kind": "poor-fit", "message": "m", "figure": 31.24}"#)
                .expect("an old file's warning");
        let shown = old.presentation().expect("presented");
        assert_eq!(shown.label, "a line fits the sweep poorly");
        assert_eq!(shown.unit.show(31.24), "31.2%");
        let throttling = legacy_presentation("throttling").expect("known before");
        assert!(throttling.worst_is_lowest);
        assert_eq!(
            legacy_presentation("allocation-below-limit").map(|p| p.unit),
            Some(FigureUnit::Bytes)
        );
        let newer: WarningRecord =
            serde_json::from_str(r#"{"kind": "power-capped", "message": "m", "unit": "joules"}"#)
                .expect("a newer unit is kept as other");
        assert_eq!(newer.unit, Some(FigureUnit::Other));
        assert!(newer.presentation().is_none(), "no label: not presentable");
    }

    #[test]
    fn figures_show_in_their_kinds_unit() {
        assert_eq!(WarningKind::HighVariation.show_figure(31.24), "31.2%");
        assert_eq!(WarningKind::Outliers.show_figure(3.0), "3");
        assert_eq!(WarningKind::SlowFirstRun.show_figure(12.0), "12.0x");
        assert!(WarningKind::ShortSamples.worst_is_lowest());
        assert!(!WarningKind::HighVariation.worst_is_lowest());
    }
}
