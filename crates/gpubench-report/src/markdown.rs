//! Markdown (GitHub-flavoured): for pull-request comments and job summaries. The same text as
//! the terminal table ([`crate::run_text`]), drawn with pipes.

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::RunDocument;

use crate::ReportError;
use crate::comparison::{ComparisonText, comparison_text, cross_text};
use crate::grid::markdown_text;
use crate::numbers::printable;
use crate::run_text::run_text;

/// The run in this format: the same heading, grids, notes and legend as the terminal table.
pub fn render_run(doc: &RunDocument) -> Result<String, ReportError> {
    let text = run_text(doc, true);
    let md = markdown_text;
    let mut out = format!("## gpubench: {}\n\n", md(&doc.machine.adapter.name));
    for line in &text.heading {
        out.push_str(&format!("- {}\n", md(line)));
    }
    for suite in &text.suites {
        out.push_str(&format!("\n### {}\n\n", md(&suite.suite)));
        out.push_str(&suite.grid.to_markdown());
    }
    if !text.notes.is_empty() {
        out.push('\n');
        for note in &text.notes {
            out.push_str(&format!("- {}\n", md(note)));
        }
    }
    out.push('\n');
    for line in &text.legend {
        out.push_str(&format!("{}\n", md(line)));
    }
    Ok(printable(&out))
}

/// A comparison in this format.
pub fn render_comparison(comparison: &Comparison) -> Result<String, ReportError> {
    Ok(render_text(
        "gpubench comparison",
        &comparison_text(comparison),
    ))
}

/// A cross-card table in this format.
pub fn render_cross(table: &CrossTable) -> Result<String, ReportError> {
    Ok(render_text(
        "gpubench cross-card comparison",
        &cross_text(table),
    ))
}

fn render_text(title: &str, text: &ComparisonText) -> String {
    let mut out = format!("## {title}\n\n");
    for line in &text.heading {
        out.push_str(&format!("- {}\n", markdown_text(line)));
    }
    out.push('\n');
    out.push_str(&text.grid.to_markdown());
    out.push('\n');
    for note in &text.notes {
        out.push_str(&format!("{}\n\n", markdown_text(note)));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    printable(&out)
}
