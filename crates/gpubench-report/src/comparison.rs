//! The human-readable cells of comparisons, shared by the terminal table and Markdown: a heading
//! that says what was compared with what (and, across machines, what differs), one row per
//! benchmark, and notes that explain the verdicts.

use gpubench_baseline::compare::RunLabel;
use gpubench_baseline::{
    Comparison, CrossCell, CrossTable, Mode, PairComparison, ReportOnly, Side, Verdict,
};

use crate::grid::Grid;
use crate::numbers::{plus_minus_percent, ratio, ratio_interval, sig3, status_cell};

/// Longest reason shown in a cell.
const REASON_CHARS: usize = 60;

/// A comparison as heading lines, a grid and notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComparisonText {
    /// What was compared with what.
    pub heading: Vec<String>,
    /// One row per benchmark.
    pub grid: Grid,
    /// Verdict counts and the legend.
    pub notes: Vec<String>,
}

fn run_name(run: &RunLabel) -> String {
    format!("{} ({}, {})", run.label, run.adapter, run.started_at)
}

/// The text of a two-run comparison.
pub fn comparison_text(cmp: &Comparison) -> ComparisonText {
    let mut heading = vec![
        format!("base: {}", run_name(&cmp.base)),
        format!("new:  {}", run_name(&cmp.new)),
    ];
    let differs: Vec<String> = cmp
        .differences
        .iter()
        .map(|d| format!("{}: {} -> {}", d.field, d.base, d.new))
        .collect();
    match cmp.mode {
        Mode::SameMachine => {
            heading.push(format!("same adapter ({})", cmp.new.fingerprint));
            if !differs.is_empty() {
                heading.push(format!("changed: {}", differs.join("; ")));
            }
        }
        Mode::CrossMachine => {
            heading.push(
                "cross-machine comparison (different adapters): ratios only, no verdicts"
                    .to_string(),
            );
            heading.push(format!("differs: {}", differs.join("; ")));
        }
    }

    for (side, run, lacks) in [
        ("base", &cmp.base, "the ids it never reached show as new"),
        ("new", &cmp.new, "the ids it never reached show as missing"),
    ] {
        if !run.complete {
            heading.push(format!(
                "the {side} run did not complete (interrupted): {lacks}"
            ));
        }
    }
    if cmp.bootstrap_resamples < gpubench_results::stats::BOOTSTRAP_RESAMPLES {
        heading.push(format!(
            "bootstrap: {} resamples per interval, not {}: the files' results and samples would take minutes at the full count (intervals are a little rougher)",
            cmp.bootstrap_resamples,
            gpubench_results::stats::BOOTSTRAP_RESAMPLES
        ));
    }
    if cmp.mode == Mode::SameMachine && cmp.run_noise.worst().is_some() {
        heading.push(run_noise_line(cmp));
    }
    let mut grid = Grid::new(&[
        "benchmark",
        "base",
        "new",
        "unit",
        "ratio",
        "95% CI",
        "band",
        "verdict",
    ])
    .numeric(&[1, 2, 4]);
    for pair in &cmp.pairs {
        grid.push(pair_row(pair, cmp.report_only));
    }

    ComparisonText {
        heading,
        grid,
        notes: comparison_notes(cmp),
    }
}

/// The verdict counts, why verdicts only report where they do, and the legend.
fn comparison_notes(cmp: &Comparison) -> Vec<String> {
    let mut notes = Vec::new();
    let counts: Vec<String> = cmp
        .counts()
        .iter()
        .map(|(verdict, n)| format!("{n} {verdict}"))
        .collect();
    notes.push(counts.join(", "));
    if let Some(reason) = cmp.report_only_reason() {
        notes.push(match reason {
            ReportOnly::Build(d) => format!(
                "build profiles differ ({} base, {} run): timing verdicts are report-only (they never fail the run, strict or not); record a baseline with a {} build",
                d.base, d.new, d.new
            ),
            ReportOnly::Profile(d) => format!(
                "profiles differ ({} base, {} run): they time samples differently (warm-up, sample length), so timing verdicts are report-only (they never fail the run, strict or not); compare runs of one profile",
                d.base, d.new
            ),
            ReportOnly::Logging(d) => format!(
                "logging differs ({} base, {} run): logging above warn slows short kernels, so timing verdicts are report-only (they never fail the run, strict or not); compare runs that logged alike",
                d.base, d.new
            ),
            ReportOnly::SoftwareAdapter => "software adapter: timing verdicts are report-only (they never fail the run); compare in strict mode to gate on them"
                .to_string(),
        });
    }
    if cmp.pairs.iter().any(|p| p.within_run_noise) {
        notes.push(
            "[within run noise]: the change is no larger than the noise level a run measured on itself (its reference moved that much between its start and end): check on a quieter machine before acting on it"
                .to_string(),
        );
    }
    let legend = "ratio: new against base, oriented so that > 1 is faster; 95% CI: bootstrap interval of the ratio";
    notes.push(match cmp.mode {
        Mode::SameMachine => format!(
            "{legend}; a verdict needs the whole interval beyond (or inside) the noise band"
        ),
        Mode::CrossMachine => format!("{legend}; different adapters get ratios, not verdicts"),
    });
    notes
}

fn pair_row(pair: &PairComparison, report_only: bool) -> Vec<String> {
    let (ratio_cell, ci_cell) = match &pair.ratio {
        Some(r) => (ratio(r.ratio), ratio_interval(r.ci_low, r.ci_high)),
        None => ("-".to_string(), "-".to_string()),
    };
    // The band only matters where a timing verdict was given.
    let timed = matches!(
        pair.verdict,
        Verdict::Regressed | Verdict::Improved | Verdict::Unchanged | Verdict::Inconclusive
    );
    let band = if timed {
        plus_minus_percent(pair.band)
    } else {
        "-".to_string()
    };
    vec![
        pair.id.clone(),
        side_cell(pair.base.as_ref()),
        side_cell(pair.new.as_ref()),
        pair.unit.clone(),
        ratio_cell,
        ci_cell,
        band,
        verdict_cell(pair, report_only),
    ]
}

fn side_cell(side: Option<&Side>) -> String {
    match side {
        None => "-".to_string(),
        Some(side) => match side.median {
            Some(median) => sig3(median),
            None => status_cell(side.status, side.reason.as_deref(), REASON_CHARS),
        },
    }
}

/// The verdict as shown: status changes say what changed; report-only regressions say so.
pub fn verdict_cell(pair: &PairComparison, report_only: bool) -> String {
    verdict_cell_with(pair, report_only, |note| format!("({note})"))
}

/// The verdict as [`verdict_cell`] shows it, its note (if any) written by `note`: inline in
/// parentheses, or a marker of a note under the table.
pub fn verdict_cell_with(
    pair: &PairComparison,
    report_only: bool,
    note: impl FnOnce(&str) -> String,
) -> String {
    let mut text = pair.verdict.as_str().to_string();
    if let Some(detail) = &pair.note {
        text.push(' ');
        text.push_str(&note(detail));
    }
    if pair.verdict == Verdict::Regressed && report_only {
        text.push_str(" [report-only]");
    }
    if pair.within_run_noise {
        text.push_str(" [within run noise]");
    }
    text
}

/// `run noise: base ±3.1%, new ±42.0% (a fixed reference at each run's start and end)`.
fn run_noise_line(cmp: &Comparison) -> String {
    let level = |l: Option<f64>| {
        l.map_or("not measured".to_string(), |l| {
            format!("±{}", crate::numbers::percent(100.0 * l, 1))
        })
    };
    format!(
        "run noise: base {}, new {} (a fixed reference measured at each run's start and end; changes smaller than this are marked)",
        level(cmp.run_noise.base),
        level(cmp.run_noise.new)
    )
}

/// The text of a cross-card table.
pub fn cross_text(table: &CrossTable) -> ComparisonText {
    let heading = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| format!("[{}] {} ({})", i + 1, run_name(c), c.fingerprint))
        .collect();
    let mut header = vec!["benchmark".to_string(), "unit".to_string()];
    header.extend(
        table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| format!("[{}] {}", i + 1, c.adapter)),
    );
    let mut grid = Grid {
        header,
        rows: Vec::new(),
        numeric: (2..2 + table.columns.len()).collect(),
    };
    for row in &table.rows {
        let mut cells = vec![row.id.clone(), row.unit.clone()];
        cells.extend(row.cells.iter().enumerate().map(|(i, cell)| match cell {
            CrossCell::Value {
                median,
                measured_as: Some(how),
                ..
            } => format!("{} ({how})", sig3(*median)),
            CrossCell::Value {
                median, ratio: r, ..
            } => match (i, r) {
                (0, _) | (_, None) => sig3(*median),
                (_, Some(r)) => format!("{} ({})", sig3(*median), ratio(*r)),
            },
            CrossCell::NotMeasured { status, reason } => {
                status_cell(*status, reason.as_deref(), REASON_CHARS)
            }
            CrossCell::Absent => "-".to_string(),
        }));
        grid.push(cells);
    }
    let mut notes = vec![
        "values: medians; (1.23x): ratio against [1], oriented so that > 1 is faster; different machines get ratios, not verdicts"
            .to_string(),
    ];
    notes.extend(unknown_metrics_note(table));
    ComparisonText {
        heading,
        grid,
        notes,
    }
}

/// Why some rows of a cross-card table have values and no ratio: their metric is one this
/// gpubench does not know, so which way is faster is not known here. `None` when all are known.
fn unknown_metrics_note(table: &CrossTable) -> Option<String> {
    let names = crate::run_text::unknown_metric_names(table.rows.iter().map(|r| &r.metric))?;
    Some(format!(
        "metric kind {names} unknown to this gpubench: values only, no ratio (which way is faster is not known here)"
    ))
}

#[cfg(test)]
mod tests {
    use gpubench_baseline::testing::{doc_with, scaled};
    use gpubench_baseline::{CompareOptions, compare};
    use gpubench_results::run_noise::RunNoise;

    use super::*;

    #[test]
    fn the_runs_noise_is_shown_beside_the_verdicts() {
        let base = doc_with("gpu", false);
        let mut slow = scaled(&base, 1.3);
        let quiet = comparison_text(&compare("a", &base, "b", &slow, &CompareOptions::default()));
        let noise_line = |text: &ComparisonText| {
            text.heading
                .iter()
                .find(|l| l.starts_with("run noise:"))
                .cloned()
        };
        assert_eq!(noise_line(&quiet), None, "neither run measured its noise");
        assert!(
            quiet
                .grid
                .rows
                .iter()
                .all(|r| !r[7].contains("within run noise"))
        );

        let mut noise = RunNoise::new("ref", "GFLOP/s");
        noise.level = Some(0.35);
        slow.noise = Some(noise);
        let cmp = compare("a", &base, "b", &slow, &CompareOptions::default());
        let noisy = comparison_text(&cmp);
        assert!(noise_line(&noisy).is_some_and(|l| l.contains("base not measured, new ±35.0%")));
        for (row, pair) in noisy.grid.rows.iter().zip(&cmp.pairs) {
            assert_eq!(
                row[7],
                format!("{} [within run noise]", pair.verdict.as_str())
            );
        }
        assert!(
            noisy
                .notes
                .iter()
                .any(|n| n.starts_with("[within run noise]"))
        );
    }

    #[test]
    fn an_interrupted_run_and_a_collapse_are_said() {
        let base = doc_with("gpu", false);
        // Every number collapses by 600 orders of magnitude: a regression, printed as such.
        let mut collapsed = scaled(&base, 1e300);
        collapsed.complete = false;
        let cmp = compare("a", &base, "b", &collapsed, &CompareOptions::default());
        assert!(
            cmp.pairs
                .iter()
                .all(|p| p.verdict == Verdict::Regressed && p.regression)
        );
        let text = comparison_text(&cmp);
        assert!(
            text.heading
                .iter()
                .any(|l| l == "the new run did not complete (interrupted): the ids it never reached show as missing"),
            "{:?}",
            text.heading
        );
        assert!(!text.heading.iter().any(|l| l.starts_with("the base run")));
        for row in &text.grid.rows {
            assert_eq!(row[4], "1.00e-300x", "{row:?}");
        }
    }
}
