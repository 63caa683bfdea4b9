//! The github-action-benchmark custom formats (`customBiggerIsBetter`, `customSmallerIsBetter`):
//! a JSON array of `{ "name", "unit", "value", "range", "extra" }`.
//!
//! The action reads one direction per file, and a run mixes rates (bigger is better) with times
//! per operation (smaller is better), so the export is split in two: the bigger-is-better
//! entries go to the file the user names, the smaller-is-better ones to a companion file beside
//! it (`<stem>-smaller.json`, see [`companion_path`]). Both files are always written and never
//! empty (the action refuses `[]` with "No benchmark result was found", and a workflow names both
//! paths): each also holds one run-level count, `gpubench/run/verified-results` (bigger is better)
//! and `gpubench/run/failed-results` (smaller is better), so a run whose results all point one
//! way, or a run whose benchmarks all failed, still has an entry. Only measured results are
//! exported ([`measured`](crate::measured::measured)): not skipped or failed ones, and not derived
//! ones (fits, ridge points, fractions of peak, ceilings), whose "range" is no interval of
//! repeated samples.

use std::path::{Path, PathBuf};

use gpubench_results::{RunDocument, Status};

use crate::measured::measured;
use serde::Serialize;

use crate::ReportError;
use crate::numbers::{ci_range, percent};

/// One entry of the custom format.
#[derive(Debug, Serialize)]
struct Entry {
    /// Benchmark id.
    name: String,
    /// Unit of `value`.
    unit: String,
    /// The median.
    value: f64,
    /// The 95% interval, as the action shows it (a string it prints beside the value):
    /// `±1.23`, or both sides, `-39.6/+2.00`, where they differ by more than 1.5x (absent for
    /// counts).
    #[serde(skip_serializing_if = "String::is_empty")]
    range: String,
    /// Context shown in the action's tooltip.
    extra: String,
}

/// The two files of a github-action-benchmark export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GabExport {
    /// `customBiggerIsBetter` JSON: never an empty array.
    pub bigger_is_better: String,
    /// `customSmallerIsBetter` JSON: never an empty array.
    pub smaller_is_better: String,
}

/// Splits the measured results of `doc` into the two custom formats, each headed by its
/// run-level count.
pub fn gab_export(doc: &RunDocument) -> Result<GabExport, ReportError> {
    gab_export_named(doc, None)
}

/// [`gab_export`] with every name, the run-level counts' too, as `PREFIX/name` when a prefix
/// is given, so several machines' entries can share one dashboard (see
/// [`crate::adapter_prefix`]).
pub fn gab_export_named(doc: &RunDocument, prefix: Option<&str>) -> Result<GabExport, ReportError> {
    let verified = doc
        .results
        .iter()
        .filter(|r| r.status == Status::Ok && r.verified)
        .count();
    let failed = doc
        .results
        .iter()
        .filter(|r| r.status == Status::Failed)
        .count();
    let mut bigger = vec![run_count(
        doc,
        prefix,
        "verified-results",
        verified,
        "ok and verified",
    )];
    let mut smaller = vec![run_count(doc, prefix, "failed-results", failed, "failed")];
    for r in &doc.results {
        let Some(s) = measured(r) else {
            continue;
        };
        let entry = Entry {
            name: crate::prefixed(prefix, &r.id),
            unit: r.unit.clone(),
            value: s.median,
            // A single value (a probe, a derived figure) has no interval: no range.
            range: if s.has_interval() {
                ci_range(s.median, s.ci_low, s.ci_high)
            } else {
                String::new()
            },
            extra: format!(
                "{}\nn={} cv={} timing={}",
                doc.machine.adapter.name,
                s.n,
                if s.has_spread() {
                    percent(s.cv * 100.0, 1)
                } else {
                    "-".to_string()
                },
                r.timing.map_or("-", |t| t.as_str())
            ),
        };
        if r.higher_is_better {
            bigger.push(entry);
        } else {
            smaller.push(entry);
        }
    }
    Ok(GabExport {
        bigger_is_better: serde_json::to_string_pretty(&bigger)? + "\n",
        smaller_is_better: serde_json::to_string_pretty(&smaller)? + "\n",
    })
}

/// A run-level count: a fact of the run, not a timing, so it has no range.
fn run_count(
    doc: &RunDocument,
    prefix: Option<&str>,
    name: &str,
    count: usize,
    what: &str,
) -> Entry {
    Entry {
        name: crate::prefixed(prefix, &format!("gpubench/run/{name}")),
        unit: "results".to_string(),
        value: count as f64,
        range: String::new(),
        extra: format!(
            "{}\n{count} of {} results {what}",
            doc.machine.adapter.name,
            doc.results.len()
        ),
    }
}

/// Where the smaller-is-better half of an export to `path` goes: `out.json` ->
/// `out-smaller.json`, beside it.
pub fn companion_path(path: &Path) -> PathBuf {
    gpubench_results::results_file::sibling_with_suffix(path, "-smaller", "gab")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lopsided_interval_keeps_both_sides_in_the_range() {
        let mut doc = gpubench_baseline::testing::doc_with("Card", false);
        let (id, below, above) = {
            let r = &mut doc.results[0];
            let s = r.summary.as_mut().expect("a summary");
            (s.ci_low, s.ci_high) = (s.median * 0.604, s.median * 1.02);
            (r.id.clone(), s.median - s.ci_low, s.ci_high - s.median)
        };
        let export = gab_export(&doc).expect("export");
        let entries: Vec<serde_json::Value> =
            serde_json::from_str::<Vec<_>>(&export.bigger_is_better)
                .expect("json")
                .into_iter()
                .chain(serde_json::from_str::<Vec<_>>(&export.smaller_is_better).expect("json"))
                .collect();
        let entry = entries.iter().find(|e| e["name"] == id).expect("exported");
        let expected = format!(
            "-{}/+{}",
            crate::numbers::sig3(below),
            crate::numbers::sig3(above)
        );
        assert_eq!(entry["range"], expected.as_str(), "{entry}");
    }

    #[test]
    fn companion_sits_beside() {
        assert_eq!(
            companion_path(Path::new("out/bench.json")),
            PathBuf::from("out/bench-smaller.json")
        );
        assert_eq!(
            companion_path(Path::new("bench")),
            PathBuf::from("bench-smaller")
        );
    }
}
