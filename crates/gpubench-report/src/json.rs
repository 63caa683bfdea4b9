//! JSON: the result document as written by `--out`, and comparisons as their full structure
//! (every ratio, interval, band and verdict) for scripts.

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::RunDocument;

use crate::{ComparisonExporter, Exporter, ReportError};

/// Pretty-printed JSON of the whole document.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn render(&self, doc: &RunDocument) -> Result<String, ReportError> {
        Ok(serde_json::to_string_pretty(doc)? + "\n")
    }
}

impl ComparisonExporter for JsonExporter {
    fn render_comparison(&self, comparison: &Comparison) -> Result<String, ReportError> {
        Ok(serde_json::to_string_pretty(comparison)? + "\n")
    }

    fn render_cross(&self, table: &CrossTable) -> Result<String, ReportError> {
        Ok(serde_json::to_string_pretty(table)? + "\n")
    }
}
