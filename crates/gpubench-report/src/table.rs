//! The terminal table: one row per result with value, unit, interval, variation, clock and
//! status; failed and skipped rows show their reason instead of a number (a long one as a note
//! under the table); warnings follow. Comparisons draw the shared comparison cells with the same
//! table style. On a narrow terminal the tables leave out their less important columns
//! ([`fit`]) and the prose wraps at word boundaries; piped, every line is whole.

use crate::grid::Color;
use gpubench_baseline::{Comparison, CrossCell, CrossTable, Verdict};
use gpubench_results::{RunDocument, Status};

use crate::ReportError;
use crate::comparison::{ComparisonText, comparison_text, cross_text, verdict_cell_with};
use crate::grid::TerminalGrid;
use crate::layout::prose;
use crate::numbers::{printable, printable_line};
use crate::run_text::{SuiteGrid, run_text};

pub(crate) mod blocks;
pub(crate) mod fit;
pub(crate) mod notes;
pub(crate) mod telemetry;

use fit::{Footnotes, INLINE_REASON, Narrowed, Step};

/// The human-readable table.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableStyle {
    /// Fit the tables to this many columns (a terminal's width); `None` keeps every cell on one
    /// line (piped output).
    pub width: Option<u16>,
    /// List every warning instead of one line per kind.
    pub verbose: bool,
    /// Colour the verdicts (red for worse, green for better): only on a terminal, never piped.
    pub color: bool,
}

impl TableStyle {
    /// For stdout: fitted to the terminal when stdout is one, full width when piped; coloured
    /// on a terminal unless `NO_COLOR` is set to anything but the empty string.
    pub fn for_stdout(verbose: bool) -> Self {
        let width = crate::layout::terminal_width();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self {
            width,
            verbose,
            color: width.is_some() && !no_color,
        }
    }
}

/// How a run's suite table narrows: the clock first abbreviated, then left out, then the host
/// time, then the variation, and only where the status cells wrapped at their spaces would still
/// not fit, the interval; the id, value, unit and status always stay.
const RUN_STEPS: &[Step] = &[
    Step::Shorten("timing", short_timing),
    Step::Drop("timing"),
    Step::Drop("host"),
    Step::Drop("cv"),
    Step::LastResort("±95% CI"),
];

/// How a comparison narrows: the noise band first (the verdict already applied it), then the
/// ratio's interval, then (where wrapping the free text would not do) the unit; the values, the
/// ratio and the verdict always stay.
const COMPARISON_STEPS: &[Step] = &[
    Step::Drop("band"),
    Step::Drop("95% CI"),
    Step::LastResort("unit"),
];

fn short_timing(cell: &str) -> String {
    match cell {
        "gpu-timestamp" => "gpu".to_string(),
        other => other.to_string(),
    }
}

fn explain_shortening(column: &str) -> String {
    match column {
        "timing" => "timing gpu is gpu-timestamp".to_string(),
        other => format!("{other} abbreviated"),
    }
}

/// `lines`, each one line ([`printable_line`]: a line break inside one is shown, not obeyed),
/// then wrapped to `width` (whole when piped).
fn prose_block(lines: &[String], width: Option<u16>) -> String {
    let escaped: Vec<String> = lines.iter().map(|l| printable_line(l)).collect();
    prose(&escaped, width)
}

/// A suite's grid with the reason of every result not measured ok marked in its status cell and
/// kept whole in the footnotes: as the terminal and Markdown show them.
pub(crate) fn footnoted_suite(
    suite: &SuiteGrid,
    doc: &RunDocument,
) -> (crate::grid::Grid, Footnotes) {
    let mut grid = suite.grid.clone();
    let mut notes = Footnotes::numbered();
    if let Some(status) = grid.header.iter().position(|h| h == "status") {
        for (row, &index) in grid.rows.iter_mut().zip(&suite.rows) {
            let Some(r) = doc.results.get(index) else {
                continue;
            };
            if matches!((r.status, &r.summary), (Status::Ok, Some(_))) {
                continue;
            }
            if let Some(cell) = row.get_mut(status) {
                *cell = notes.status(r.status.as_str(), r.reason.as_deref());
            }
        }
    }
    (grid, notes)
}

/// One suite's table and the notes under it.
fn suite_table(
    suite: &SuiteGrid,
    doc: &RunDocument,
    style: &TableStyle,
    narrowed: &mut Narrowed,
) -> String {
    let (grid, notes) = footnoted_suite(suite, doc);
    let wrap = grid
        .header
        .iter()
        .position(|h| h == "status")
        .into_iter()
        .collect();
    let mut table = TerminalGrid::new(grid, wrap);
    fit::fit(&mut table, RUN_STEPS, style.width, narrowed);
    let mut out = table.render(style.width);
    out.push('\n');
    out.push_str(&prose_block(&notes.lines(), style.width));
    out
}

/// The run as the terminal table.
pub fn render_run(style: &TableStyle, doc: &RunDocument) -> Result<String, ReportError> {
    let text = run_text(doc, style.verbose);
    let mut out = prose_block(&text.heading, style.width);
    let mut narrowed = Narrowed::default();
    for suite in &text.suites {
        let rows: Vec<_> = suite.rows.iter().map(|&i| &doc.results[i]).collect();
        out.push('\n');
        out.push_str(&suite_table(suite, doc, style, &mut narrowed));
        if !suite.findings.is_empty() {
            out.push_str(&prose_block(&suite.findings, style.width));
        }
        if let Some(sweep) = blocks::sweep_table(&suite.suite, &rows, style.width) {
            out.push_str(&printable(&sweep));
        }
        if let Some(latency) = blocks::latency_table(&suite.suite, &rows, style.width) {
            out.push_str(&printable(&latency.to_string()));
            out.push('\n');
        }
    }
    if let Some(nominal) = telemetry::nominal_table(doc) {
        out.push('\n');
        out.push_str(&printable(&nominal.to_string()));
        out.push('\n');
    }
    if !text.notes.is_empty() {
        out.push('\n');
        out.push_str(&prose_block(&text.notes, style.width));
    }
    let mut legend = text.legend.clone();
    legend.extend(narrowed.legend(style.width, explain_shortening));
    out.push('\n');
    out.push_str(&prose_block(&legend, style.width));
    Ok(out)
}

/// A comparison's text with every reason of a side that has no median, and every verdict
/// note too long for its cell, marked there and kept whole in the footnotes: as the terminal
/// and Markdown show them.
pub(crate) fn footnoted_comparison(comparison: &Comparison) -> (ComparisonText, Footnotes) {
    let mut text = comparison_text(comparison);
    let mut notes = Footnotes::numbered();
    for (row, pair) in text.grid.rows.iter_mut().zip(&comparison.pairs) {
        for (column, side) in [(1, &pair.base), (2, &pair.new)] {
            if let (Some(side), Some(cell)) = (side, row.get_mut(column))
                && side.median.is_none()
            {
                *cell = notes.status(side.status.as_str(), side.reason.as_deref());
            }
        }
        if let Some(cell) = row.get_mut(7) {
            *cell = verdict_cell_with(pair, comparison.report_only, |note| {
                if note.chars().count() <= INLINE_REASON {
                    format!("({note})")
                } else {
                    notes.mark(note)
                }
            });
        }
    }
    (text, notes)
}

/// A comparison as the terminal table.
pub fn render_comparison(
    style: &TableStyle,
    comparison: &Comparison,
) -> Result<String, ReportError> {
    let (mut text, notes) = footnoted_comparison(comparison);
    let mut colors = Vec::new();
    for (r, pair) in comparison.pairs.iter().enumerate() {
        let better_status = pair.verdict == Verdict::StatusChanged
            && !pair.regression
            && pair.new.as_ref().is_some_and(|s| s.status == Status::Ok);
        if style.color {
            if pair.regression {
                colors.push((r, 7, Color::Red));
            } else if pair.verdict == Verdict::Improved || better_status {
                colors.push((r, 7, Color::Green));
            }
        }
    }
    let mut narrowed = Narrowed::default();
    let mut table = TerminalGrid::new(std::mem::take(&mut text.grid), vec![1, 2, 7]);
    table.colors = colors;
    fit::fit(&mut table, COMPARISON_STEPS, style.width, &mut narrowed);
    text.notes
        .extend(narrowed.legend(style.width, explain_shortening));
    Ok(render_text(&text, table, &notes, style.width))
}

/// A cross-card table as the terminal table.
pub fn render_cross(style: &TableStyle, table: &CrossTable) -> Result<String, ReportError> {
    let mut text = cross_text(table);
    // The columns are numbered [1], [2], ...: the notes are lettered.
    let mut notes = Footnotes::lettered();
    let mut grid = std::mem::take(&mut text.grid);
    for (row, cross_row) in grid.rows.iter_mut().zip(&table.rows) {
        for (i, cell) in cross_row.cells.iter().enumerate() {
            if let (CrossCell::NotMeasured { status, reason }, Some(text)) =
                (cell, row.get_mut(2 + i))
            {
                *text = notes.status(status.as_str(), reason.as_deref());
            }
        }
    }
    // The heading above names each run ([1] file, adapter, start, fingerprint): its column
    // keeps the number alone, so a terminal's width goes to the values.
    for (k, cell) in grid.header.iter_mut().skip(2).enumerate() {
        *cell = format!("[{}]", k + 1);
    }
    let columns = grid.header.len();
    let terminal = TerminalGrid::new(grid, (2..columns).collect());
    Ok(render_text(&text, terminal, &notes, style.width))
}

fn render_text(
    text: &ComparisonText,
    table: TerminalGrid,
    notes: &Footnotes,
    width: Option<u16>,
) -> String {
    let mut out = prose_block(&text.heading, width);
    out.push('\n');
    out.push_str(&table.render(width));
    out.push('\n');
    out.push_str(&prose_block(&notes.lines(), width));
    out.push('\n');
    out.push_str(&prose_block(&text.notes, width));
    out
}
