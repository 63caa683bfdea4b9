//! Markdown (GitHub-flavoured): for pull-request comments and job summaries. The same cells as
//! the terminal table, drawn with pipes.

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::{RunDocument, Status};

use crate::comparison::{ComparisonText, comparison_text, cross_text};
use crate::format::{ci_percent, printable, sig3, status_cell};
use crate::grid::Grid;
use crate::{ComparisonExporter, Exporter, ReportError};

/// Markdown tables.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn render(&self, doc: &RunDocument) -> Result<String, ReportError> {
        let m = &doc.machine;
        let mut out = format!(
            "## gpubench: {}\n\n{} ({}, driver {} {}){}, profile {}, timing {}, wgpu {}\n\n",
            m.adapter.name,
            m.adapter.backend,
            m.adapter.device_type,
            m.adapter.driver,
            m.adapter.driver_info,
            if m.software_adapter {
                ", software adapter"
            } else {
                ""
            },
            doc.config.profile,
            m.timing_source.as_str(),
            m.wgpu_version,
        );
        let mut grid = Grid::new(&[
            "benchmark",
            "value",
            "unit",
            "±95% CI",
            "cv",
            "timing",
            "status",
        ])
        .numeric(&[1]);
        for r in &doc.results {
            let row = match (&r.status, &r.summary) {
                (Status::Ok, Some(s)) => vec![
                    r.id.clone(),
                    sig3(s.median),
                    r.unit.clone(),
                    ci_percent(s.median, s.ci_low, s.ci_high),
                    format!("{:.1}%", s.cv * 100.0),
                    r.timing.map_or("-", |t| t.as_str()).to_string(),
                    "ok".to_string(),
                ],
                _ => {
                    let mut row = vec![r.id.clone()];
                    row.extend(std::iter::repeat_n("-".to_string(), 5));
                    row.push(status_cell(r.status, r.reason.as_deref(), 120));
                    row
                }
            };
            grid.push(row);
        }
        out.push_str(&grid.to_markdown());
        let warnings: Vec<String> = doc
            .warnings
            .iter()
            .map(|w| w.message.clone())
            .chain(
                doc.results
                    .iter()
                    .flat_map(|r| r.warnings.iter().map(move |w| format!("{}: {w}", r.id))),
            )
            .collect();
        if !warnings.is_empty() {
            out.push('\n');
            for warning in warnings {
                out.push_str(&format!("- warning: {warning}\n"));
            }
        }
        Ok(printable(&out))
    }
}

impl ComparisonExporter for MarkdownExporter {
    fn render_comparison(&self, comparison: &Comparison) -> Result<String, ReportError> {
        Ok(render_text(
            "gpubench comparison",
            &comparison_text(comparison),
        ))
    }

    fn render_cross(&self, table: &CrossTable) -> Result<String, ReportError> {
        Ok(render_text(
            "gpubench cross-card comparison",
            &cross_text(table),
        ))
    }
}

fn render_text(title: &str, text: &ComparisonText) -> String {
    let mut out = format!("## {title}\n\n");
    for line in &text.heading {
        out.push_str(&format!("- {line}\n"));
    }
    out.push('\n');
    out.push_str(&text.grid.to_markdown());
    out.push('\n');
    for note in &text.notes {
        out.push_str(&format!("{note}\n\n"));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    printable(&out)
}
