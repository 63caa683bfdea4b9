//! The terminal table: one row per result with value, unit, interval, variation, clock and
//! status; failed and skipped rows show their reason instead of a number; warnings follow.
//! Comparisons draw the shared comparison cells with the same table style.

use comfy_table::{Cell, CellAlignment, Table, presets};
use gpubench_results::{BenchResult, RunDocument, Status};

use crate::format::{ci_percent, printable, sig3, truncate};
use gpubench_baseline::{Comparison, CrossTable};

mod blocks;
mod notes;
mod telemetry;
use crate::comparison::{ComparisonText, comparison_text, cross_text};
use crate::{ComparisonExporter, Exporter, ReportError};

/// The human-readable table.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableExporter {
    /// Fit the tables to this many columns (a terminal's width); `None` keeps every cell on one
    /// line (piped output).
    pub width: Option<u16>,
    /// List every warning instead of one line per kind.
    pub verbose: bool,
}

impl TableExporter {
    /// For stdout: fitted to the terminal when stdout is one, full width when piped.
    pub fn for_stdout(verbose: bool) -> Self {
        Self {
            width: crate::layout::terminal_width(),
            verbose,
        }
    }
}

impl Exporter for TableExporter {
    fn render(&self, doc: &RunDocument) -> Result<String, ReportError> {
        let mut out = String::new();
        let m = &doc.machine;
        out.push_str(&format!(
            "{} ({}, {}, driver {} {}){}\n",
            m.adapter.name,
            m.adapter.backend,
            m.adapter.device_type,
            m.adapter.driver,
            m.adapter.driver_info,
            if m.software_adapter {
                " [software adapter]"
            } else {
                ""
            }
        ));
        out.push_str(&format!(
            "profile {}, timing {}, wgpu {}, {} build\n",
            doc.config.profile,
            m.timing_source.as_str(),
            m.wgpu_version,
            m.build_profile
        ));
        out.push_str(&telemetry::header_lines(doc));
        if let Some(noise) = &doc.noise {
            out.push_str(&format!("run noise: {}\n", noise.describe()));
        }
        let mut suites: Vec<&str> = doc.results.iter().map(|r| r.suite.as_str()).collect();
        suites.dedup();
        for suite in suites {
            let rows: Vec<&BenchResult> = doc.results.iter().filter(|r| r.suite == suite).collect();
            out.push('\n');
            out.push_str(&suite_table(suite, &rows, self.width).to_string());
            out.push('\n');
            if let Some(sweep) = blocks::sweep_table(suite, &rows, self.width) {
                out.push_str(&sweep);
            }
            if let Some(latency) = blocks::latency_table(suite, &rows, self.width) {
                out.push_str(&latency.to_string());
                out.push('\n');
            }
        }
        if let Some(nominal) = telemetry::nominal_table(doc) {
            out.push('\n');
            out.push_str(&nominal.to_string());
            out.push('\n');
        }
        let notes = notes::warning_lines(doc, self.verbose);
        if !notes.is_empty() {
            out.push('\n');
            out.push_str(&notes.join("\n"));
            out.push('\n');
        }
        out.push_str(
            "\nvalue: median of the samples; ±: half-width of the bootstrap 95% interval of the median; \
             host: the same work timed submit-to-completion on the host.\nGB/s = 10^9 bytes/s; sizes in KiB/MiB/GiB.\n",
        );
        if doc
            .results
            .iter()
            .any(|r| r.suite == gpubench_results::suite_names::LAUNCH)
        {
            out.push_str(
                "launch: value is per op by the timing column's clock: GPU timestamps for the storms and gpu-gap, \
                 the host clock for record and submit-call (those calls alone) and the round trips; host beside a \
                 GPU value is what the application pays per op (recording, wgpu and driver work, submit and wait).\n",
            );
        }
        Ok(printable(&out))
    }
}

fn suite_table(suite: &str, rows: &[&BenchResult], width: Option<u16>) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_header(vec![
            suite, "value", "unit", "±95% CI", "cv", "host", "timing", "status",
        ]);
    crate::layout::arrange(&mut table, width);
    for r in rows {
        let mut cells = vec![Cell::new(short_id(r))];
        match (&r.status, &r.summary) {
            (Status::Ok, Some(s)) => {
                cells.push(Cell::new(sig3(s.median)).set_alignment(CellAlignment::Right));
                cells.push(Cell::new(&r.unit));
                // A probe has no spread; a fitted model has a bootstrap interval but no cv.
                let interval = s.n > 1 || s.ci_low < s.ci_high;
                cells.push(Cell::new(if interval {
                    ci_percent(s.median, s.ci_low, s.ci_high)
                } else {
                    "-".into()
                }));
                cells.push(Cell::new(if s.n > 1 {
                    format!("{:.1}%", s.cv * 100.0)
                } else {
                    "-".into()
                }));
                let host = r
                    .host_summary
                    .as_ref()
                    .map_or("-".to_string(), |h| sig3(h.median));
                cells.push(Cell::new(host).set_alignment(CellAlignment::Right));
                cells.push(Cell::new(r.timing.map_or("-", |t| t.as_str())));
                cells.push(Cell::new("ok"));
            }
            _ => {
                for _ in 0..6 {
                    cells.push(Cell::new("-"));
                }
                let reason = r.reason.as_deref().unwrap_or("no reason recorded");
                cells.push(Cell::new(format!(
                    "{}: {}",
                    r.status.as_str(),
                    truncate(reason, 90)
                )));
            }
        }
        table.add_row(cells);
    }
    table
}

/// The id without its suite prefix (the table is already per suite).
fn short_id(r: &BenchResult) -> String {
    r.id.strip_prefix(&format!("{}/", r.suite))
        .unwrap_or(&r.id)
        .to_string()
}

impl ComparisonExporter for TableExporter {
    fn render_comparison(&self, comparison: &Comparison) -> Result<String, ReportError> {
        Ok(printable(&render_text(
            &comparison_text(comparison),
            self.width,
        )))
    }

    fn render_cross(&self, table: &CrossTable) -> Result<String, ReportError> {
        Ok(printable(&render_text(&cross_text(table), self.width)))
    }
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
