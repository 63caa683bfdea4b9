//! Bencher Metric Format (<https://bencher.dev/docs/reference/bencher-metric-format/>):
//! `{ "<benchmark>": { "<measure>": { "value", "lower_value", "upper_value" } } }`.
//!
//! The value is the median and the bounds are its bootstrap 95% interval, so Bencher's
//! thresholds see the uncertainty gpubench measured. Measures are named by
//! [`bencher_measure`](crate::measured::bencher_measure) (`gpubench-bandwidth-gb-s`, ...), never
//! Bencher's built-in `latency` or `throughput`, whose units differ. Only measured results are
//! exported ([`measured`](crate::measured::measured)): skipped and failed results have no number,
//! and derived ones (fits, ridge points, fractions of peak, ceilings) were not timed.

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::RunDocument;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::ReportError;
use crate::measured::{bencher_measure, measured};

/// One measure of one benchmark.
#[derive(Debug, Serialize)]
struct Metric {
    /// The median.
    value: f64,
    /// Lower end of the 95% interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    lower_value: Option<f64>,
    /// Upper end of the 95% interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    upper_value: Option<f64>,
}

fn insert(
    out: &mut Map<String, Value>,
    id: &str,
    measure: &str,
    metric: Metric,
) -> Result<(), ReportError> {
    let entry = out
        .entry(id.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(measures) = entry {
        measures.insert(measure.to_string(), serde_json::to_value(metric)?);
    }
    Ok(())
}

fn finish(out: Map<String, Value>) -> Result<String, ReportError> {
    Ok(serde_json::to_string_pretty(&Value::Object(out))? + "\n")
}

/// The run in this format.
pub fn render_run(doc: &RunDocument) -> Result<String, ReportError> {
    render_run_named(doc, None)
}

/// The run in this format, every benchmark named `PREFIX/id` when a prefix is given (several
/// machines' runs in one Bencher project, see [`crate::adapter_prefix`]).
pub fn render_run_named(doc: &RunDocument, prefix: Option<&str>) -> Result<String, ReportError> {
    let mut out = Map::new();
    for r in &doc.results {
        let Some(s) = measured(r) else {
            continue;
        };
        let metric = Metric {
            value: s.median,
            lower_value: Some(s.ci_low),
            upper_value: Some(s.ci_high),
        };
        insert(
            &mut out,
            &crate::prefixed(prefix, &r.id),
            &bencher_measure(r.metric.name(), &r.unit),
            metric,
        )?;
    }
    finish(out)
}

/// The new run's medians (with their intervals) under their metric's measure, and the
/// oriented ratio against the base (with its interval) under the measure `gpubench-ratio`.
/// A comparison in this format.
pub fn render_comparison(cmp: &Comparison) -> Result<String, ReportError> {
    let mut out = Map::new();
    for p in &cmp.pairs {
        let Some(new) = p.new.as_ref() else { continue };
        let Some(median) = new.median else { continue };
        let metric = Metric {
            value: median,
            lower_value: new.ci_low,
            upper_value: new.ci_high,
        };
        insert(
            &mut out,
            &p.id,
            &bencher_measure(p.metric.name(), &p.unit),
            metric,
        )?;
        if let Some(r) = p.ratio {
            let ratio = Metric {
                value: r.ratio,
                lower_value: Some(r.ci_low),
                upper_value: Some(r.ci_high),
            };
            insert(&mut out, &p.id, &bencher_measure("ratio", ""), ratio)?;
        }
    }
    finish(out)
}

/// A cross-card table in this format (BMF has none: it says so).
pub fn render_cross(_table: &CrossTable) -> Result<String, ReportError> {
    Err(ReportError::Unsupported(
        "bmf holds one run's values; a cross-card table holds several: choose another format (json, csv, md or table)"
            .to_string(),
    ))
}
