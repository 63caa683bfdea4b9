//! Which chart a result is drawn in: the hint it declares, or for a file written before hints
//! existed, the one inferred from the conventions of the time ([`legacy_hint`], the one place
//! that names suites, and only for such files); and the sentence a row states for the reader.
//! The vocabulary is [`crate::chart`]'s; this module reads it off results.

use std::borrow::Cow;

use crate::chart::{ChartHint, FINDING, Roof, group, precision_point};
use crate::metric::{MetricKind, Role};
use crate::schema::BenchResult;
use crate::suite_names;

/// The finding of `result` ([`FINDING`](crate::chart::FINDING)), when it states one.
pub fn finding_of(result: &BenchResult) -> Option<&str> {
    result.extra.get(FINDING)?.as_str()
}

/// The hint a result declares, or for a result written before hints existed, the one
/// [`legacy_hint`] infers.
pub fn hint_of(r: &BenchResult) -> Option<Cow<'_, ChartHint>> {
    match &r.chart {
        Some(hint) => Some(Cow::Borrowed(hint)),
        None => legacy_hint(r).map(Cow::Owned),
    }
}

/// The compatibility path for files written before results carried chart hints: the hint a
/// row of a built-in suite would carry, inferred from the conventions those files followed
/// (suite names, parameters, roles and metrics). The only code that picks rows for charts by
/// suite name; new results declare their hint themselves (`Suite::chart_hint`).
pub fn legacy_hint(r: &BenchResult) -> Option<ChartHint> {
    let param = |key: &str| r.params.get(key).and_then(serde_json::Value::as_str);
    let kernel = r.role == Role::Kernel;
    match r.suite.as_str() {
        suite_names::STREAM => Some(ChartHint::bars(
            group::STREAM_KERNELS,
            &["kernel"],
            &["array_bytes"],
            Some(Roof::Ceiling),
        )),
        suite_names::COMPUTE => Some(ChartHint::bars(
            group::PEAKS,
            &["kernel", "precision", "form"],
            &[],
            Some(Roof::Ceiling),
        )),
        suite_names::MATMUL if kernel && r.metric == MetricKind::Throughput => {
            let roof = precision_point("matmul", param("precision"), param("accumulation"));
            Some(ChartHint::bars(
                group::MATMUL_SHAPES,
                &["shape"],
                &["m", "n", "k"],
                Some(roof),
            ))
        }
        suite_names::ROOFLINE if kernel && r.metric == MetricKind::Throughput => {
            Some(ChartHint::Roofline {
                series: "roofline sweep".into(),
            })
        }
        suite_names::TRANSFER if r.params.contains_key("path") => {
            Some(ChartHint::log_curve(group::TRANSFER_SIZES, "bytes", "path"))
        }
        suite_names::MEMORY if matches!(param("kernel"), Some("read" | "chase")) => Some(
            ChartHint::log_curve(group::WORKING_SET, "working_set_bytes", "kernel"),
        ),
        suite_names::SUSTAINED => Some(ChartHint::Windows),
        _ => None,
    }
}
