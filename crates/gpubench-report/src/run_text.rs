//! The text of a run, built once and drawn by the terminal table and by Markdown alike: the
//! heading (adapter, profile, telemetry, run noise, logging above warn), one grid per suite, the warning notes and
//! the legend. The terminal adds only what needs its own drawing (sweeps, latency, datasheet).

use gpubench_results::chart_of::finding_of;
use gpubench_results::clock_tally::ClockTally;
use gpubench_results::{BenchResult, MetricKind, Role, RunDocument, Status};

use crate::grid::Grid;
use crate::numbers::{ci_percent, percent, sig3, status_cell};

/// A run's text, ready to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunText {
    /// Lines saying what ran where: the adapter, the profile and clocks, telemetry, run noise.
    pub heading: Vec<String>,
    /// One grid per suite, in the order the suites ran.
    pub suites: Vec<SuiteGrid>,
    /// The warnings: the run's own, then the results' (grouped by kind unless verbose).
    pub notes: Vec<String>,
    /// What the columns mean.
    pub legend: Vec<String>,
}

/// One suite's results as a grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteGrid {
    /// The suite's name.
    pub suite: String,
    /// Its results, one row each.
    pub grid: Grid,
    /// The results the grid shows, by index into the document's results.
    pub rows: Vec<usize>,
    /// The sentences its results state for the reader (`extra.finding`), each after its
    /// result's short id.
    pub findings: Vec<String>,
}

/// The text of `doc`; `verbose` lists every warning instead of one line per kind.
pub fn run_text(doc: &RunDocument, verbose: bool) -> RunText {
    let mut suites: Vec<&str> = Vec::new();
    for r in &doc.results {
        if !suites.contains(&r.suite.as_str()) {
            suites.push(&r.suite);
        }
    }
    let suites = suites
        .into_iter()
        .map(|suite| {
            let rows: Vec<usize> = (0..doc.results.len())
                .filter(|&i| doc.results[i].suite == suite)
                .collect();
            let results: Vec<&BenchResult> = rows.iter().map(|&i| &doc.results[i]).collect();
            SuiteGrid {
                suite: suite.to_string(),
                grid: suite_grid(suite, &results),
                findings: results
                    .iter()
                    .filter_map(|r| Some(format!("{}: {}", short_id(r), finding_of(r)?)))
                    .collect(),
                rows,
            }
        })
        .collect();
    RunText {
        heading: heading(doc),
        suites,
        notes: crate::table::notes::warning_lines(doc, verbose),
        legend: legend(doc),
    }
}

fn heading(doc: &RunDocument) -> Vec<String> {
    let m = &doc.machine;
    let mut lines = vec![
        format!(
            "{} ({}, {}, driver {} {}){}",
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
        ),
        format!(
            "profile {}, timing {}, wgpu {}, {} build",
            doc.config.profile,
            ClockTally::of(&doc.results).describe(m.timing_source),
            m.wgpu_version,
            m.build_profile
        ),
    ];
    lines.extend(
        crate::table::telemetry::header_lines(doc)
            .lines()
            .map(String::from),
    );
    if let Some(noise) = &doc.noise {
        lines.push(format!("run noise: {}", noise.describe()));
    }
    if !doc.complete {
        lines.push(format!(
            "interrupted: the run did not complete; the {} results it finished are shown, the rest were never measured",
            doc.results.len()
        ));
    }
    if let Some(filter) = doc.config.verbose_logging() {
        lines.push(format!(
            "logging: '{}', above warn: short kernels' timings include it (not a baseline)",
            crate::numbers::printable(filter)
        ));
    }
    lines
}

/// The columns of a suite's grid: value, unit, interval, variation, host time, clock, status.
fn suite_grid(suite: &str, rows: &[&BenchResult]) -> Grid {
    let mut grid = Grid::new(&[
        suite, "value", "unit", "±95% CI", "cv", "host", "timing", "status",
    ])
    .numeric(&[1, 5]);
    let link = crate::link::any_crosses(rows.iter().copied());
    for r in rows {
        // A copy that stayed on the card (a large BAR's staging buffer) is no host-device
        // figure, whatever its path's name says.
        let mut cells = vec![format!(
            "{}{}",
            short_id(r),
            crate::link::grid_mark(r, rows, link)
        )];
        match (&r.status, &r.summary) {
            (Status::Ok, Some(s)) => {
                cells.push(sig3(s.median));
                cells.push(r.unit.clone());
                // A probe has no spread; a fitted model has a bootstrap interval but no cv.
                cells.push(if s.has_interval() {
                    ci_percent(s.median, s.ci_low, s.ci_high)
                } else {
                    "-".into()
                });
                cells.push(if s.has_spread() {
                    percent(s.cv * 100.0, 1)
                } else {
                    "-".into()
                });
                cells.push(
                    r.host_summary
                        .as_ref()
                        .map_or("-".to_string(), |h| sig3(h.median)),
                );
                cells.push(timing_cell(r).to_string());
                cells.push("ok".into());
            }
            _ => {
                cells.extend(std::iter::repeat_n("-".to_string(), 6));
                cells.push(status_cell(r.status, r.reason.as_deref(), 90));
            }
        }
        grid.push(cells);
    }
    grid
}

/// What the timing column says of `r`: the clock that timed it; `derived` for a value
/// computed from other rows (a fit, a ceiling, a fraction of peak), which no clock timed; `-`
/// for one measured untimed (a probe).
pub(crate) fn timing_cell(r: &BenchResult) -> &'static str {
    match r.timing {
        Some(clock) => clock.as_str(),
        None if shows_derived(r) => DERIVED,
        None => "-",
    }
}

/// Whether `r`'s timing column says [`DERIVED`]: no clock timed it, and it is no row measured
/// in its own right.
pub(crate) fn shows_derived(r: &BenchResult) -> bool {
    r.timing.is_none() && !crate::measured::measured_role(r.role)
}

/// [`timing_cell`]'s word for a derived row.
const DERIVED: &str = "derived";

/// What [`DERIVED`] in a timing column means, for the legend under a table that shows it.
pub(crate) const DERIVED_NOTE: &str = "timing derived: computed from other rows of the run (a fit, a ceiling, a fraction of peak), not timed itself; its interval, where it has one, comes from theirs.";

/// The id without its suite prefix (the grid is already per suite).
fn short_id(r: &BenchResult) -> String {
    r.id.strip_prefix(&format!("{}/", r.suite))
        .unwrap_or(&r.id)
        .to_string()
}

fn legend(doc: &RunDocument) -> Vec<String> {
    let mut lines = vec![
        "value: median of the samples; ±: half-width of the 95% interval of the median \
         (-below%/+above% where one side is over 1.5x the other); host: the same work timed submit-to-completion on the host."
            .to_string(),
        "GB/s = 10^9 bytes/s; sizes in KiB/MiB/GiB.".to_string(),
    ];
    lines.extend(unknown_metrics_line(doc));
    if doc
        .results
        .iter()
        .any(|r| r.status == Status::Ok && shows_derived(r))
    {
        lines.push(DERIVED_NOTE.to_string());
    }
    let rows: Vec<&BenchResult> = doc.results.iter().collect();
    let link = crate::link::any_crosses(rows.iter().copied());
    if rows
        .iter()
        .any(|r| !crate::link::grid_mark(r, &rows, link).is_empty())
    {
        lines.push(crate::link::ON_DEVICE_NOTE.to_string());
    }
    // Kernels timed per operation are the launch storms and round trips (by role and metric,
    // never by suite name).
    if doc
        .results
        .iter()
        .any(|r| r.role == Role::Kernel && r.metric == MetricKind::TimePerOp)
    {
        lines.push(
            "launch: value is per op by the timing column's clock: GPU timestamps for the storms and gpu-gap, \
             the host clock for record and submit-call (those calls alone) and the round trips; host beside a \
             storm's GPU value is what the application pays per op (recording, wgpu and driver work, submit and \
             wait), beside gpu-gap's from the submit to completion (recorded before the clock)."
                .to_string(),
        );
    }
    lines
}

/// What the table cannot say of a metric this gpubench does not know (a newer one wrote the
/// file): that its rows are as written, in their own unit, and never judged. `None` when every
/// metric is known.
fn unknown_metrics_line(doc: &RunDocument) -> Option<String> {
    let names = unknown_metric_names(doc.results.iter().map(|r| &r.metric))?;
    Some(format!(
        "metric kind {names} unknown to this gpubench (a newer one wrote the file): shown as written, in the unit the file gives, never judged."
    ))
}

/// The metrics among `metrics` that this gpubench does not know, each once, quoted and joined
/// (`'a', 'b'`); `None` when it knows them all.
pub(crate) fn unknown_metric_names<'a>(
    metrics: impl Iterator<Item = &'a MetricKind>,
) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for metric in metrics.filter(|m| !m.is_known()) {
        if !names.contains(&metric.name()) {
            names.push(metric.name());
        }
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    (!quoted.is_empty()).then(|| quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::doc_with;

    #[test]
    fn every_suite_has_a_grid_with_the_host_column() {
        let doc = doc_with("Card", false);
        let text = run_text(&doc, false);
        assert!(!text.suites.is_empty());
        for suite in &text.suites {
            assert!(suite.grid.header.contains(&"host".to_string()));
            assert_eq!(suite.grid.rows.len(), suite.rows.len());
        }
        let shown: usize = text.suites.iter().map(|s| s.rows.len()).sum();
        assert_eq!(shown, doc.results.len());
        // A suite whose results are not contiguous is still one grid, each result once.
        let mut split = doc.clone();
        let first = split.results[0].clone();
        let mut other = first.clone();
        other.suite = "elsewhere".into();
        other.id = "elsewhere/x".into();
        split.results.insert(1, other);
        let text = run_text(&split, false);
        let names: Vec<&str> = text.suites.iter().map(|s| s.suite.as_str()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(names.len(), unique.len(), "{names:?}");
        let shown: usize = text.suites.iter().map(|s| s.rows.len()).sum();
        assert_eq!(shown, split.results.len());
        assert!(text.heading[0].starts_with("Card ("), "{:?}", text.heading);
    }

    /// Whether a line of `doc`'s heading starts with `prefix`.
    fn heading_says(doc: &RunDocument, prefix: &str) -> bool {
        run_text(doc, false)
            .heading
            .iter()
            .any(|l| l.starts_with(prefix))
    }

    #[test]
    fn a_run_that_logged_above_warn_says_so_in_its_heading() {
        let mut doc = doc_with("Card", false);
        let said = |doc: &RunDocument| heading_says(doc, "logging:");
        assert!(!said(&doc));
        doc.config.log_filter = Some("warn".into());
        assert!(!said(&doc), "warnings only change no timing");
        doc.config.log_filter = Some("wgpu_hal=debug".into());
        assert!(said(&doc));
    }

    #[test]
    fn an_interrupted_run_says_so_in_its_heading() {
        let mut doc = doc_with("Card", false);
        let interrupted = |doc: &RunDocument| heading_says(doc, "interrupted:");
        assert!(!interrupted(&doc));
        doc.complete = false;
        assert!(interrupted(&doc));
        let csv = crate::csv::render_run(&doc).expect("csv");
        let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
        let complete = header.iter().position(|h| *h == "run_complete");
        let complete = complete.expect("a run_complete column");
        assert!(
            csv.lines()
                .skip(1)
                .all(|l| l.split(',').nth(complete) == Some("false")),
            "{csv}"
        );
    }

    #[test]
    fn a_small_spread_is_not_rounded_to_zero() {
        let mut doc = doc_with("Card", false);
        let s = doc.results[0].summary.as_mut().expect("a summary");
        s.cv = 0.000015;
        (s.ci_low, s.ci_high) = (s.median * (1.0 - 0.00046), s.median * (1.0 + 0.00046));
        let text = run_text(&doc, false);
        let row = &text.suites[0].grid.rows[0];
        assert_eq!(row[3], "±0.0460%", "{row:?}");
        assert_eq!(row[4], "0.00150%", "{row:?}");
    }

    /// A derived row's timing cell says so, and the legend says what that means; a timed row
    /// names its clock.
    #[test]
    fn a_derived_row_says_so_where_a_clock_would_stand() {
        let mut doc = doc_with("Card", false);
        let timed = doc.results[0]
            .timing
            .expect("the fixture is timed")
            .as_str();
        let legend_says =
            |doc: &RunDocument| legend(doc).iter().any(|l| l.starts_with("timing derived"));
        assert!(!legend_says(&doc));
        doc.results[1].role = Role::Derived;
        doc.results[1].timing = None;
        let text = run_text(&doc, false);
        let timing = |k: usize| {
            text.suites
                .iter()
                .flat_map(|s| &s.grid.rows)
                .nth(k)
                .map(|row| row[6].clone())
        };
        assert_eq!(timing(0).as_deref(), Some(timed));
        assert_eq!(timing(1).as_deref(), Some(DERIVED));
        assert!(legend_says(&doc));
    }
}
