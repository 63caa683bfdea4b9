//! The terminal table: one row per result with value, unit, interval, variation, clock and
//! status; failed and skipped rows show their reason instead of a number; warnings follow.
//! Comparisons draw the shared comparison cells with the same table style.

use gpubench_results::{BenchResult, RunDocument};

use crate::numbers::printable;
use gpubench_baseline::{Comparison, CrossTable};

mod blocks;
pub(crate) mod notes;
pub(crate) mod telemetry;
use crate::ReportError;
use crate::comparison::{ComparisonText, comparison_text, cross_text};
use crate::run_text::run_text;

/// The human-readable table.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableStyle {
    /// Fit the tables to this many columns (a terminal's width); `None` keeps every cell on one
    /// line (piped output).
    pub width: Option<u16>,
    /// List every warning instead of one line per kind.
    pub verbose: bool,
}

impl TableStyle {
    /// For stdout: fitted to the terminal when stdout is one, full width when piped.
    pub fn for_stdout(verbose: bool) -> Self {
        Self {
            width: crate::layout::terminal_width(),
            verbose,
        }
    }
}

/// The run as the terminal table.
pub fn render_run(style: &TableStyle, doc: &RunDocument) -> Result<String, ReportError> {
    let text = run_text(doc, style.verbose);
    let mut out = text.heading.join("\n");
    out.push('\n');
    for suite in &text.suites {
        let rows: Vec<&BenchResult> = suite.rows.iter().map(|&i| &doc.results[i]).collect();
        out.push('\n');
        out.push_str(&suite.grid.to_table(style.width));
        out.push('\n');
        if let Some(sweep) = blocks::sweep_table(&suite.suite, &rows, style.width) {
            out.push_str(&sweep);
        }
        if let Some(latency) = blocks::latency_table(&suite.suite, &rows, style.width) {
            out.push_str(&latency.to_string());
            out.push('\n');
        }
    }
    if let Some(nominal) = telemetry::nominal_table(doc) {
        out.push('\n');
        out.push_str(&nominal.to_string());
        out.push('\n');
    }
    if !text.notes.is_empty() {
        out.push('\n');
        out.push_str(&text.notes.join("\n"));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&text.legend.join("\n"));
    out.push('\n');
    Ok(printable(&out))
}

/// A comparison as the terminal table.
pub fn render_comparison(
    style: &TableStyle,
    comparison: &Comparison,
) -> Result<String, ReportError> {
    Ok(printable(&render_text(
        &comparison_text(comparison),
        style.width,
    )))
}

/// A cross-card table as the terminal table.
pub fn render_cross(style: &TableStyle, table: &CrossTable) -> Result<String, ReportError> {
    Ok(printable(&render_text(&cross_text(table), style.width)))
}

fn render_text(text: &ComparisonText, width: Option<u16>) -> String {
    let mut out = text.heading.join("\n");
    out.push_str("\n\n");
    out.push_str(&text.grid.to_table(width));
    out.push_str("\n\n");
    out.push_str(&text.notes.join("\n"));
    out.push('\n');
    out
}
