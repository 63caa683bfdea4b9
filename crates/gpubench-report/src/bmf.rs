//! Bencher Metric Format (<https://bencher.dev/docs/reference/bencher-metric-format/>):
//! `{ "<benchmark>": { "<measure>": { "value", "lower_value", "upper_value" } } }`.
//!
//! A run's export also holds the run's own benchmark, `gpubench/run`, with its counts of
//! verified and failed results, so a result that failed (no number) is not only a gap.
//!
//! The value is the median and the bounds are its 95% interval (order statistics), so Bencher's
//! thresholds see the uncertainty gpubench measured. Measures are named by
//! [`bencher_measure`](crate::measured::bencher_measure) (`gpubench-bandwidth-gb-s`, ...), never
//! Bencher's built-in `latency` or `throughput`, whose units differ. Only measured results are
//! exported ([`measured`](crate::measured::measured), and for a comparison's pairs
//! [`measured_pair`](crate::measured::measured_pair)): skipped and failed results have no
//! number, and derived ones (fits, ridge points, fractions of peak, ceilings) were not timed. A
//! comparison also leaves out a pair whose metric changed between the runs, and the value
//! (not the ratio) of a pair the host clock judged because the runs' clocks differed.

use gpubench_baseline::verdict::{HOST_CLOCK_NOTE, METRIC_CHANGED};
use gpubench_baseline::{Comparison, CrossTable, PairComparison};
use gpubench_results::{RunDocument, Status};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::ReportError;
use crate::measured::{bencher_measure, measured, measured_pair};

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
    Ok(crate::numbers::json_text(
        serde_json::to_string_pretty(&Value::Object(out))? + "\n",
    ))
}

/// The run in this format.
pub fn render_run(doc: &RunDocument) -> Result<String, ReportError> {
    render_run_named(doc, None)
}

/// The run in this format, every benchmark named `PREFIX/id` when a prefix is given (several
/// machines' runs in one Bencher project, see [`crate::adapter_prefix`]).
pub fn render_run_named(doc: &RunDocument, prefix: Option<&str>) -> Result<String, ReportError> {
    let mut out = Map::new();
    run_counts(&mut out, doc, prefix)?;
    for r in &doc.results {
        let Some(s) = measured(r) else {
            continue;
        };
        // A single value (a probe, a derived figure) has no interval: none is written.
        let interval = Some(s).filter(|s| s.has_interval());
        let metric = Metric {
            value: s.median,
            lower_value: interval.map(|s| s.ci_low),
            upper_value: interval.map(|s| s.ci_high),
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

/// The run's own benchmark, `gpubench/run`: how many results were ok and verified, and how
/// many failed (measures `gpubench-verified-results`, `gpubench-failed-results`), as the
/// github-action-benchmark export has them. A failed result has no value of its own, so its
/// series in Bencher just stops; this count is what a threshold can catch it by.
fn run_counts(
    out: &mut Map<String, Value>,
    doc: &RunDocument,
    prefix: Option<&str>,
) -> Result<(), ReportError> {
    let count = |keep: fn(&gpubench_results::BenchResult) -> bool| Metric {
        value: doc.results.iter().filter(|r| keep(r)).count() as f64,
        lower_value: None,
        upper_value: None,
    };
    let name = crate::prefixed(prefix, RUN_BENCHMARK);
    let verified = count(|r| r.status == Status::Ok && r.verified);
    insert(out, &name, "gpubench-verified-results", verified)?;
    let failed = count(|r| r.status == Status::Failed);
    insert(out, &name, "gpubench-failed-results", failed)
}

/// The name of the run's own benchmark ([`run_counts`]).
const RUN_BENCHMARK: &str = "gpubench/run";

/// A comparison in this format: the new run's medians (with their intervals) under their
/// metric's measure, and the oriented ratio against the base (with its interval) under the
/// measure `gpubench-ratio`. As for a run, only measured results
/// ([`measured_pair`]); and not a pair whose metric changed between the runs, whose new value
/// the base's measure (named for the base's metric and unit) would misfile.
pub fn render_comparison(cmp: &Comparison) -> Result<String, ReportError> {
    render_comparison_named(cmp, None)
}

/// A comparison as [`render_comparison`] has it, every benchmark named `PREFIX/id` when a
/// prefix is given (the new run's adapter, as [`render_run_named`] names a run's).
pub fn render_comparison_named(
    cmp: &Comparison,
    prefix: Option<&str>,
) -> Result<String, ReportError> {
    let mut out = Map::new();
    for p in cmp.pairs.iter().filter(|p| exported(p)) {
        let name = crate::prefixed(prefix, &p.id);
        let new = p.new.as_ref().filter(|_| !by_host_clock(p));
        if let Some((median, new)) = new.and_then(|new| Some((new.median?, new))) {
            let metric = Metric {
                value: median,
                lower_value: new.ci_low,
                upper_value: new.ci_high,
            };
            let measure = bencher_measure(p.metric.name(), &p.unit);
            insert(&mut out, &name, &measure, metric)?;
        }
        if let Some(r) = p.ratio {
            let ratio = Metric {
                value: r.ratio,
                lower_value: Some(r.ci_low),
                upper_value: Some(r.ci_high),
            };
            insert(&mut out, &name, &bencher_measure("ratio", ""), ratio)?;
        }
    }
    finish(out)
}

/// Whether a pair was judged by the host clock because the runs were timed by different
/// clocks while the new run's headline clock was its GPU timestamps: its new side then holds
/// the host clock's median, which the new run's own export does not write under that measure,
/// so Bencher would chart two clocks as one series. Its ratio, host clock against host clock,
/// is exported; its value is not. (Where the new run is the host-timed one, its host median is
/// its headline, and is exported.)
fn by_host_clock(pair: &PairComparison) -> bool {
    let judged_by_host = pair
        .note
        .as_deref()
        .is_some_and(|note| note.contains(HOST_CLOCK_NOTE));
    let new_gpu_timed = pair
        .new
        .as_ref()
        .is_some_and(|s| s.timing == Some(gpubench_results::TimingSource::GpuTimestamp));
    judged_by_host && new_gpu_timed
}

/// Whether a compared pair is exported: measured in its own right, and of one metric in
/// both runs. A pair carries the base's metric and unit; where the new run's differ, the
/// comparison says so in its note (`metric changed (...)`, from
/// [`gpubench_baseline::verdict::metric_changed`]) and judges nothing.
fn exported(pair: &PairComparison) -> bool {
    let metric_changed = pair
        .note
        .as_deref()
        .is_some_and(|n| n.starts_with(METRIC_CHANGED));
    measured_pair(pair) && !metric_changed
}

/// A cross-card table in this format (BMF has none: it says so).
pub fn render_cross(_table: &CrossTable) -> Result<String, ReportError> {
    Err(ReportError::Unsupported(
        "bmf holds one run's values; a cross-card table holds several: choose another format (json, csv, md or table)"
            .to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::{doc_with, gpu_timed, lost_timestamps, ok_result};
    use gpubench_baseline::{CompareOptions, compare};
    use gpubench_results::Role;

    /// A derived row, computed from others: no timing of its own.
    fn derived(id: &str, metric: &str, unit: &str, value: f64) -> gpubench_results::BenchResult {
        let mut r = ok_result(id, metric, unit, value);
        r.role = Role::Derived;
        r.timing = None;
        r
    }

    #[test]
    fn a_single_value_is_exported_without_an_interval() {
        let mut doc = doc_with("Card", false);
        let mut one = ok_result("capacity/probe", "bandwidth", "GB/s", 10.0);
        one.samples = vec![10.0];
        one.summary = gpubench_results::stats::summarize(&one.samples);
        doc.results.push(one);
        let exported: serde_json::Value =
            serde_json::from_str(&render_run(&doc).expect("bmf")).expect("json");
        let measure = exported["capacity/probe"]
            .as_object()
            .and_then(|m| m.values().next())
            .expect("exported");
        assert_eq!(measure["value"], 10.0);
        assert!(measure.get("lower_value").is_none() && measure.get("upper_value").is_none());
        // Several samples keep theirs.
        let first = &doc.results[0].id;
        let measure = exported[first]
            .as_object()
            .and_then(|m| m.values().next())
            .expect("exported");
        assert!(measure.get("lower_value").is_some());
    }

    #[test]
    fn a_comparison_exports_measured_pairs_of_one_metric_only() {
        let mut base = doc_with("Card", false);
        base.results.extend([
            derived(
                "matmul/f32/64/fraction-of-peak",
                "fraction-of-peak",
                "%",
                40.0,
            ),
            derived("memory/fit/latency", "latency", "ns", 90.0),
            ok_result("stream/changed/1MiB", "bandwidth", "GB/s", 100.0),
        ]);
        let mut new = base.clone();
        // The unit changed: the new value is not the base measure's.
        let changed = new.results.last_mut().expect("a row");
        changed.unit = "GiB/s".into();
        // A derived row only the new run has, of a suite that had one before roles.
        new.results.push(derived(
            "roofline/ridge-point",
            "arithmetic-intensity",
            "FLOP/B",
            8.0,
        ));
        let cmp = compare("b", &base, "n", &new, &CompareOptions::default());
        let exported: serde_json::Value =
            serde_json::from_str(&render_comparison(&cmp).expect("bmf")).expect("json");
        let ids: Vec<&String> = exported.as_object().expect("an object").keys().collect();
        for gone in [
            "matmul/f32/64/fraction-of-peak",
            "memory/fit/latency",
            "roofline/ridge-point",
            "stream/changed/1MiB",
        ] {
            assert!(!ids.iter().any(|id| *id == gone), "{gone} in {ids:?}");
        }
        let run: serde_json::Value =
            serde_json::from_str(&render_run(&new).expect("bmf")).expect("json");
        let measured: Vec<&String> = run
            .as_object()
            .expect("an object")
            .keys()
            .filter(|id| *id != "stream/changed/1MiB" && *id != RUN_BENCHMARK)
            .collect();
        assert_eq!(ids, measured, "the same rows as the run's own export");
    }

    /// A run's export counts its verified and failed results under its own benchmark, so a
    /// failure that leaves no value still shows.
    #[test]
    fn a_run_counts_its_verified_and_failed_results() {
        let mut doc = doc_with("Card", false);
        let mut failed = ok_result("stream/broken/1MiB", "bandwidth", "GB/s", 1.0);
        failed.status = gpubench_results::Status::Failed;
        failed.verified = false;
        doc.results.push(failed);
        let exported: serde_json::Value =
            serde_json::from_str(&render_run_named(&doc, Some("Card")).expect("bmf"))
                .expect("json");
        let run = &exported[format!("Card/{RUN_BENCHMARK}")];
        let verified = doc
            .results
            .iter()
            .filter(|r| r.status == gpubench_results::Status::Ok && r.verified)
            .count();
        assert!(verified > 0);
        assert_eq!(run["gpubench-verified-results"]["value"], verified as f64);
        assert_eq!(run["gpubench-failed-results"]["value"], 1.0);
        assert!(run["gpubench-failed-results"].get("lower_value").is_none());
        assert!(exported.get("Card/stream/broken/1MiB").is_none());
    }

    /// A derived row a comparison has no legacy id or note for (new in the new run) is known
    /// by its side's role and left out, as the run's export leaves it out.
    #[test]
    fn a_new_derived_row_is_left_out_by_its_role() {
        let base = doc_with("Card", false);
        let mut new = base.clone();
        new.results
            .push(derived("memory/level-2/size", "size", "KiB", 2048.0));
        let cmp = compare("b", &base, "n", &new, &CompareOptions::default());
        let exported: serde_json::Value =
            serde_json::from_str(&render_comparison(&cmp).expect("bmf")).expect("json");
        assert!(exported.get("memory/level-2/size").is_none(), "{exported}");
        assert!(exported.get(&base.results[0].id).is_some(), "{exported}");
    }

    /// Runs timed by different clocks are compared by the host clock: the new side's median
    /// is then the host clock's, not the one the run's own export writes under that measure,
    /// so only the ratio is exported.
    #[test]
    fn a_pair_judged_by_the_host_clock_exports_its_ratio_only() {
        let mut new = doc_with("Card", false);
        gpu_timed(&mut new.results[1], 1.5);
        let mut base = new.clone();
        lost_timestamps(&mut base.results[1], 1.0);
        let cmp = compare("b", &base, "n", &new, &CompareOptions::default());
        assert!(by_host_clock(&cmp.pairs[1]), "{:?}", cmp.pairs[1].note);
        let exported: serde_json::Value =
            serde_json::from_str(&render_comparison(&cmp).expect("bmf")).expect("json");
        let measures = exported[&new.results[1].id]
            .as_object()
            .expect("the pair is exported");
        let names: Vec<&String> = measures.keys().collect();
        assert_eq!(names, ["gpubench-ratio"]);
        let measures_of =
            |exported: &serde_json::Value, id: &str| exported[id].as_object().map(Map::len);
        assert_eq!(measures_of(&exported, &new.results[0].id), Some(2));
        // The other way round the new run's host median is its headline: exported.
        let cmp = compare("b", &new, "n", &base, &CompareOptions::default());
        assert!(!by_host_clock(&cmp.pairs[1]), "{:?}", cmp.pairs[1].note);
        let exported: serde_json::Value =
            serde_json::from_str(&render_comparison(&cmp).expect("bmf")).expect("json");
        assert_eq!(measures_of(&exported, &new.results[1].id), Some(2));
    }
}
