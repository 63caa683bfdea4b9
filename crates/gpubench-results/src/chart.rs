//! How a result asks to be charted: a small vocabulary of chart hints that suites declare for
//! their results, so the reports find rows by role, metric and hint and never by suite name.
//!
//! A result carries at most one hint (`BenchResult::chart`). Hints are a field added with a
//! default, so they keep `schema_version`: files written before hints existed have none, and
//! [`hint_of`](crate::chart_of::hint_of) infers one for their rows from the conventions of the
//! time. A hint kind this version does not
//! know (a newer gpubench wrote it) is kept as written ([`ChartHint::Unknown`]), written back
//! unchanged, and drawn nowhere; a known kind whose fields do not parse is kept the same way.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Chart groups the reports lay out with their own titles, notes and orders. Any other group
/// is charted too, generically, titled by its name.
pub mod group {
    /// The memory-bandwidth kernels: one bar per kernel at its largest array, the copy engine
    /// and host references drawn apart by their role, and the kernels over growing arrays.
    pub const STREAM_KERNELS: &str = "stream-kernels";
    /// Arithmetic peaks: by precision (`precision` or `type`) then width (`form`); a chart per
    /// metric (floating-point, integer).
    pub const PEAKS: &str = "peaks";
    /// Matrix products: a chart per precision (the id's second part), a bar per shape ordered
    /// by `m`, `n`, `k`.
    pub const MATMUL_SHAPES: &str = "matmul-shapes";
    /// Curves against the working set: the `read` bandwidth and the `chase` latency.
    pub const WORKING_SET: &str = "working-set";
    /// Host-device transfers against size, one series per path, with each path's fitted model
    /// (its derived rows).
    pub const TRANSFER_SIZES: &str = "transfer-sizes";

    /// Every group with a layout of its own.
    pub const LAID_OUT: &[&str] = &[
        STREAM_KERNELS,
        PEAKS,
        MATMUL_SHAPES,
        WORKING_SET,
        TRANSFER_SIZES,
    ];
}

/// The `extra` entry in which a result states its throughput in items per second (requests,
/// for a data path). A curve group whose rows carry it and a latency summary is also drawn as
/// latency against throughput, the trade a batch size or a depth of requests in flight makes.
pub const ITEMS_PER_S: &str = "requests_per_s";

/// The parameter in which a result states its arithmetic intensity: FLOP per byte of the
/// traffic its roofline counts (a roofline sweep point counts the array it reads, not the one
/// vec4 each invocation writes). The roofline chart places a point by it; a result without it
/// is placed by its work's FLOP over all the bytes its work declares.
pub const INTENSITY: &str = "intensity_flop_per_byte";

/// The `extra` entry in which a result states one sentence for the reader: a derived row's
/// conclusion (which stage bounds a data path, and what making it twice as fast would buy).
/// The terminal table, Markdown and the HTML page print it under its suite's table.
pub const FINDING: &str = "finding";

/// How a result asks to be charted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ChartHint {
    /// A bar per kernel form: the results of one group share a bar chart, one bar each, with
    /// the median and its 95% interval.
    Bars {
        /// The chart the bar belongs to (see [`group`] for the groups with their own layout).
        group: String,
        /// The parameters whose values, joined by spaces, name the bar; none: the id without
        /// its suite.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        label: Vec<String>,
        /// Numeric parameters ordering the bars, compared in turn, smallest first; none: the
        /// document's order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        order: Vec<String>,
        /// What the result is to the roofline, if anything.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        roof: Option<Roof>,
    },
    /// A curve over a parameter: x is the parameter's value, y the median.
    Curve {
        /// The chart the curve belongs to (see [`group`]).
        group: String,
        /// The numeric parameter on the x axis.
        x: String,
        /// The parameter whose value names the result's series; none: one series, the group.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        series: Option<String>,
        /// A logarithmic x axis.
        #[serde(default)]
        log_x: bool,
        /// A logarithmic y axis.
        #[serde(default)]
        log_y: bool,
    },
    /// A point of the roofline alone (an arithmetic-intensity sweep), at the FLOP per byte of
    /// its declared work (or its `intensity` parameter); the best such throughput is the
    /// compute ceiling's last resort when the run measured no ceiling otherwise.
    Roofline {
        /// The series (legend entry) of the point.
        series: String,
    },
    /// The samples over time, each a window of `extra.window_s` seconds (a sustained run).
    Windows,
    /// A per-item timeline of stages: the item's stages in order, each with its median.
    Timeline {
        /// The chart (a table, for now) the stage belongs to.
        group: String,
        /// The parameter naming the item (a request, a batch).
        item: String,
        /// The parameter naming the stage (upload, compute, readback).
        stage: String,
    },
    /// A kind this version does not know, or a known kind whose fields do not parse: kept as
    /// written, written back unchanged, drawn nowhere.
    #[serde(untagged)]
    Unknown(serde_json::Value),
}

/// What a result is to the roofline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Roof {
    /// A ceiling candidate: when the run has no ceiling rows (roles `bandwidth-ceiling`,
    /// `compute-ceiling`), the best ok kernel so marked sets the ceiling of its metric
    /// (bandwidth, or compute: f32 or no `precision` for the roof, f16 and f64 for theirs).
    Ceiling,
    /// A point of the roofline at the FLOP per byte of its declared work, in this series.
    Point {
        /// The series (legend entry) of the point.
        series: String,
    },
}

impl ChartHint {
    /// Bars of `group`, named by the `label` parameters and ordered by the `order` ones.
    pub fn bars(group: &str, label: &[&str], order: &[&str], roof: Option<Roof>) -> Self {
        ChartHint::Bars {
            group: group.to_string(),
            label: label.iter().map(|s| s.to_string()).collect(),
            order: order.iter().map(|s| s.to_string()).collect(),
            roof,
        }
    }

    /// A curve of `group` over the parameter `x` on log-log axes, a series per value of
    /// `series`.
    pub fn log_curve(group: &str, x: &str, series: &str) -> Self {
        ChartHint::Curve {
            group: group.to_string(),
            x: x.to_string(),
            series: Some(series.to_string()),
            log_x: true,
            log_y: true,
        }
    }

    /// The chart group, for the kinds that have one.
    pub fn group(&self) -> Option<&str> {
        match self {
            ChartHint::Bars { group, .. }
            | ChartHint::Curve { group, .. }
            | ChartHint::Timeline { group, .. } => Some(group),
            _ => None,
        }
    }

    /// Where the hint puts its result on the roofline, if anywhere.
    pub fn roof(&self) -> Option<&Roof> {
        match self {
            ChartHint::Bars { roof, .. } => roof.as_ref(),
            _ => None,
        }
    }
}

/// A matrix product's roofline point: in the series `base precision`, except that f16 data
/// summed in f32 (its arithmetic runs in f32, under the f32 roof) is `base f16 (f32 sums)`.
pub fn precision_point(base: &str, precision: Option<&str>, accumulation: Option<&str>) -> Roof {
    let series = match (precision, accumulation) {
        (Some("f16"), Some("f32")) => format!("{base} f16 (f32 sums)"),
        (precision, _) => format!("{base} {}", precision.unwrap_or("")),
    };
    Roof::Point { series }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_kinds_round_trip() {
        let hints = [
            ChartHint::bars("fft", &["variant"], &["n"], Some(Roof::Ceiling)),
            ChartHint::log_curve("fft by size", "n", "variant"),
            ChartHint::Roofline {
                series: "sweep".into(),
            },
            ChartHint::Windows,
            ChartHint::Timeline {
                group: "requests".into(),
                item: "request".into(),
                stage: "stage".into(),
            },
        ];
        for hint in hints {
            let text = serde_json::to_string(&hint).expect("serialises");
            let back: ChartHint = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back, hint, "{text}");
        }
    }

    #[test]
    fn unknown_and_malformed_kinds_are_kept_as_written() {
        for text in [
            r#"{"kind":"sankey","flows":["a","b"]}"#,
            r#"{"kind":"bars"}"#,
            r#""bars""#,
        ] {
            let hint: ChartHint = serde_json::from_str(text).expect("never a read failure");
            assert!(matches!(hint, ChartHint::Unknown(_)), "{text}: {hint:?}");
            let back = serde_json::to_value(&hint).expect("serialises");
            let written: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(back, written, "written back as it was");
        }
    }
}
