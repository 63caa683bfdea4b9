//! Exporters: one trait per kind of report, one module per format. Exporters return text; the
//! CLI decides where it goes.
//!
//! A run document renders through [`Exporter`]; a comparison of runs (two runs with verdicts, or
//! the cross-card table of several) through [`ComparisonExporter`]. The text formats share one
//! [`grid::Grid`] of cells and differ only in how they draw it, as hyperfine's markup exporters
//! do. Skipped and failed results never show a number: their cells carry the status and reason.

pub mod bmf;
pub mod comparison;
pub mod csv;
pub mod format;
pub mod gab;
pub mod grid;
pub mod html;
pub mod json;
pub mod layout;
pub mod markdown;
pub mod measured;
pub mod table;

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::RunDocument;

/// Errors from rendering a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Serialising to JSON failed.
    #[error("could not serialise the report: {0}")]
    Json(#[from] serde_json::Error),
    /// Drawing a chart failed.
    #[error("could not draw a chart: {0}")]
    Chart(String),
    /// The format cannot express this report.
    #[error("{0}")]
    Unsupported(String),
}

/// Renders a run document in one format.
pub trait Exporter {
    /// The document as text.
    fn render(&self, doc: &RunDocument) -> Result<String, ReportError>;
}

/// Renders comparisons in one format.
pub trait ComparisonExporter {
    /// A new run against a base run: ratios, intervals and verdicts.
    fn render_comparison(&self, comparison: &Comparison) -> Result<String, ReportError>;

    /// Several runs side by side, ratios against the first.
    fn render_cross(&self, table: &CrossTable) -> Result<String, ReportError>;
}

/// The formats `--format` accepts.
pub const FORMATS: &[&str] = &["table", "json", "csv", "md", "bmf"];

/// The exporter for a format name from [`FORMATS`].
pub fn exporter(format: &str) -> Option<Box<dyn Exporter>> {
    exporter_with(format, table::TableExporter::default())
}

/// [`exporter`], with the terminal table's width and verbosity given.
pub fn exporter_with(format: &str, table: table::TableExporter) -> Option<Box<dyn Exporter>> {
    match format {
        "table" => Some(Box::new(table)),
        "json" => Some(Box::new(json::JsonExporter)),
        "csv" => Some(Box::new(csv::CsvExporter)),
        "md" => Some(Box::new(markdown::MarkdownExporter)),
        "bmf" => Some(Box::new(bmf::BmfExporter)),
        _ => None,
    }
}

/// The comparison exporter for a format name from [`FORMATS`].
pub fn comparison_exporter(format: &str) -> Option<Box<dyn ComparisonExporter>> {
    comparison_exporter_with(format, table::TableExporter::default())
}

/// [`comparison_exporter`], with the terminal table's width and verbosity given.
pub fn comparison_exporter_with(
    format: &str,
    table: table::TableExporter,
) -> Option<Box<dyn ComparisonExporter>> {
    match format {
        "table" => Some(Box::new(table)),
        "json" => Some(Box::new(json::JsonExporter)),
        "csv" => Some(Box::new(csv::CsvExporter)),
        "md" => Some(Box::new(markdown::MarkdownExporter)),
        "bmf" => Some(Box::new(bmf::BmfExporter)),
        _ => None,
    }
}
