//! Exporters: one trait, one module per format. Exporters return text; the CLI decides where
//! it goes.

pub mod format;
pub mod html;
pub mod json;
pub mod table;

use gpubench_harness::RunDocument;

/// Errors from rendering a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Serialising to JSON failed.
    #[error("could not serialise the report: {0}")]
    Json(#[from] serde_json::Error),
    /// Drawing a chart failed.
    #[error("could not draw a chart: {0}")]
    Chart(String),
}

/// Renders a run document in one format.
pub trait Exporter {
    /// The document as text.
    fn render(&self, doc: &RunDocument) -> Result<String, ReportError>;
}

/// The formats `--format` accepts.
pub const FORMATS: &[&str] = &["table", "json"];

/// The exporter for a format name from [`FORMATS`].
pub fn exporter(format: &str) -> Option<Box<dyn Exporter>> {
    match format {
        "table" => Some(Box::new(table::TableExporter)),
        "json" => Some(Box::new(json::JsonExporter)),
        _ => None,
    }
}
