//! The github-action-benchmark custom formats (`customBiggerIsBetter`, `customSmallerIsBetter`):
//! a JSON array of `{ "name", "unit", "value", "range", "extra" }`.
//!
//! The action reads one direction per file, and a run mixes rates (bigger is better) with times
//! per operation (smaller is better), so the export is split in two: the bigger-is-better
//! entries go to the file the user names, the smaller-is-better ones to a companion file beside
//! it (`<stem>-smaller.json`, see [`companion_path`]). Skipped and failed results are left out.

use std::path::{Path, PathBuf};

use gpubench_harness::{RunDocument, Status};
use serde::Serialize;

use crate::ReportError;
use crate::format::sig3;

/// One entry of the custom format.
#[derive(Debug, Serialize)]
struct Entry {
    /// Benchmark id.
    name: String,
    /// Unit of `value`.
    unit: String,
    /// The median.
    value: f64,
    /// Half-width of the 95% interval, as the action shows it: `±1.23`.
    range: String,
    /// Context shown in the action's tooltip.
    extra: String,
}

/// The two files of a github-action-benchmark export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GabExport {
    /// `customBiggerIsBetter` JSON (always written, possibly `[]`).
    pub bigger_is_better: String,
    /// `customSmallerIsBetter` JSON, when the run has such results.
    pub smaller_is_better: Option<String>,
}

/// Splits the ok results of `doc` into the two custom formats.
pub fn gab_export(doc: &RunDocument) -> Result<GabExport, ReportError> {
    let mut bigger = Vec::new();
    let mut smaller = Vec::new();
    for r in &doc.results {
        let Some(s) = r.summary.as_ref().filter(|_| r.status == Status::Ok) else {
            continue;
        };
        let entry = Entry {
            name: r.id.clone(),
            unit: r.unit.clone(),
            value: s.median,
            range: format!("±{}", sig3((s.ci_high - s.ci_low).abs() / 2.0)),
            extra: format!(
                "{}\nn={} cv={:.1}% timing={}",
                doc.machine.adapter.name,
                s.n,
                s.cv * 100.0,
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
        smaller_is_better: if smaller.is_empty() {
            None
        } else {
            Some(serde_json::to_string_pretty(&smaller)? + "\n")
        },
    })
}

/// Where the smaller-is-better half of an export to `path` goes: `out.json` ->
/// `out-smaller.json`, beside it.
pub fn companion_path(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "gab".into(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-smaller.{}", ext.to_string_lossy()),
        None => format!("{stem}-smaller"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

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
