//! The result document as pretty JSON (the same bytes `--out` writes).

use gpubench_harness::RunDocument;

use crate::{Exporter, ReportError};

/// Pretty-printed JSON of the whole document.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn render(&self, doc: &RunDocument) -> Result<String, ReportError> {
        Ok(serde_json::to_string_pretty(doc)? + "\n")
    }
}
