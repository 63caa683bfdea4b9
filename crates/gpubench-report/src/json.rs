//! JSON: the result document as written by `--out`, and comparisons as their full structure
//! (every ratio, interval, band and verdict) for scripts.

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::RunDocument;

use crate::ReportError;
use crate::numbers::json_text;

/// The run in this format.
pub fn render_run(doc: &RunDocument) -> Result<String, ReportError> {
    Ok(json_text(serde_json::to_string_pretty(doc)? + "\n"))
}

/// A comparison in this format.
pub fn render_comparison(comparison: &Comparison) -> Result<String, ReportError> {
    Ok(json_text(serde_json::to_string_pretty(comparison)? + "\n"))
}

/// A cross-card table in this format.
pub fn render_cross(table: &CrossTable) -> Result<String, ReportError> {
    Ok(json_text(serde_json::to_string_pretty(table)? + "\n"))
}
