//! CSV: one line per result (or per compared pair, or per benchmark across runs), numbers at full
//! precision for spreadsheets and scripts. Cells of skipped and failed results stay empty where
//! a number would be; the status and reason columns say why. A run's rows carry its adapter,
//! driver, host and start time, so files from several machines can be concatenated and still
//! told apart, and whether the run completed (`run_complete` false: it was interrupted, and the
//! results it never reached are not there). The tail percentiles of a run's samples (`p5`,
//! `p95`, in the row's unit: of a rate, the slow tail is `p5`) come after the columns older
//! readers index by position; after them what part the row plays (`role`: `derived` for a
//! value computed from other rows, which has no timing of its own), what its metric counts
//! (`counts`), and where a row timed each request's whole path, its latency percentiles in
//! microseconds (`latency_p50_us` to `latency_p99_us`), stated from enough requests only; and
//! for a transfer row whether its bytes crossed the host-device link (`crosses_link`: `false`
//! for a copy that stayed on the device, which is no host-to-device figure).

use gpubench_baseline::{Comparison, CrossCell, CrossTable};
use gpubench_results::stats::{MIN_N_P95, Summary};
use gpubench_results::{BenchResult, RunDocument, Status};

use crate::ReportError;
use crate::comparison::verdict_cell;
use crate::grid::Grid;
use crate::numbers::{printable, raw};

/// The columns of a run's rows, in order.
const RUN_COLUMNS: &[&str] = &[
    "id",
    "suite",
    "metric",
    "unit",
    "higher_is_better",
    "status",
    "median",
    "ci_low",
    "ci_high",
    "mean",
    "stddev",
    "cv",
    "min",
    "max",
    "n",
    "timing",
    "reason",
    "adapter",
    "backend",
    "driver",
    "host",
    "run_started",
    "run_complete",
    // Appended, so the columns before them keep their places.
    "p5",
    "p95",
    "role",
    "counts",
    "latency_p50_us",
    "latency_p95_us",
    "latency_p99_us",
    "crosses_link",
];

/// The run in this format.
pub fn render_run(doc: &RunDocument) -> Result<String, ReportError> {
    let mut grid = Grid::new(RUN_COLUMNS);
    for r in &doc.results {
        grid.push(run_row(doc, r));
    }
    Ok(printable(&grid.to_csv()))
}

/// One result of `doc` as a row of [`RUN_COLUMNS`].
fn run_row(doc: &RunDocument, r: &BenchResult) -> Vec<String> {
    let adapter = &doc.machine.adapter;
    let s = r.summary.as_ref().filter(|_| r.status == Status::Ok);
    let latency = r.latency.as_deref().filter(|_| r.status == Status::Ok);
    let num = |f: fn(&gpubench_results::stats::Summary) -> f64| raw(s.map(f));
    // A single value's zero spread is no measurement of one: left empty, as `-` elsewhere.
    let spread =
        |f: fn(&gpubench_results::stats::Summary) -> f64| raw(s.filter(|s| s.has_spread()).map(f));
    // Nor has it an interval.
    let interval = |f: fn(&gpubench_results::stats::Summary) -> f64| {
        raw(s.filter(|s| s.has_interval()).map(f))
    };
    vec![
        r.id.clone(),
        r.suite.clone(),
        r.metric.to_string(),
        r.unit.clone(),
        r.higher_is_better.to_string(),
        r.status.as_str().to_string(),
        num(|s| s.median),
        interval(|s| s.ci_low),
        interval(|s| s.ci_high),
        num(|s| s.mean),
        spread(|s| s.stddev),
        spread(|s| s.cv),
        num(|s| s.min),
        num(|s| s.max),
        s.map_or(String::new(), |s| s.n.to_string()),
        r.timing.map_or("", |t| t.as_str()).to_string(),
        r.reason.clone().unwrap_or_default(),
        adapter.name.clone(),
        adapter.backend.clone(),
        format!("{} {}", adapter.driver, adapter.driver_info)
            .trim()
            .to_string(),
        doc.machine.hostname.clone().unwrap_or_default(),
        doc.started_at.clone(),
        doc.complete.to_string(),
        tail(s, |s| s.p5),
        tail(s, |s| s.p95),
        r.role.as_str().to_string(),
        r.counts.clone(),
        raw(latency.map(|l| l.p50_us)),
        raw(latency.and_then(|l| l.p95())),
        raw(latency.and_then(|l| l.p99())),
        // A transfer row's bytes: whether they crossed the host-device link (false: a
        // copy that stayed on the device), empty where the row does not say.
        r.params
            .get("crosses_link")
            .and_then(serde_json::Value::as_bool)
            .map_or(String::new(), |crossed| crossed.to_string()),
    ]
}

/// A tail percentile of `summary` at full precision; empty where there is no summary or too
/// few samples to state one (fewer than [`MIN_N_P95`], as the latency table has it).
fn tail(summary: Option<&Summary>, percentile: fn(&Summary) -> f64) -> String {
    raw(summary.filter(|s| s.n as u64 >= MIN_N_P95).map(percentile))
}

/// A comparison in this format.
pub fn render_comparison(cmp: &Comparison) -> Result<String, ReportError> {
    let mut grid = Grid::new(&[
        "id",
        "metric",
        "unit",
        "higher_is_better",
        "base_status",
        "new_status",
        "base_median",
        "new_median",
        "ratio",
        "ratio_ci_low",
        "ratio_ci_high",
        "band",
        "verdict",
        "regression",
        "detail",
        "base_reason",
        "new_reason",
    ]);
    for p in &cmp.pairs {
        let status = |side: Option<&gpubench_baseline::Side>| {
            side.map_or(String::new(), |s| s.status.as_str().to_string())
        };
        let median = |side: Option<&gpubench_baseline::Side>| raw(side.and_then(|s| s.median));
        // Why a side was skipped or failed, whole, as the terminal's footnotes have it.
        let reason = |side: Option<&gpubench_baseline::Side>| {
            side.and_then(|s| s.reason.clone()).unwrap_or_default()
        };
        grid.push(vec![
            p.id.clone(),
            p.metric.to_string(),
            p.unit.clone(),
            p.higher_is_better.to_string(),
            status(p.base.as_ref()),
            status(p.new.as_ref()),
            median(p.base.as_ref()),
            median(p.new.as_ref()),
            raw(p.ratio.map(|r| r.ratio)),
            raw(p.ratio.map(|r| r.ci_low)),
            raw(p.ratio.map(|r| r.ci_high)),
            raw(Some(p.band)),
            p.verdict.as_str().to_string(),
            p.regression.to_string(),
            verdict_cell(p, cmp.report_only),
            reason(p.base.as_ref()),
            reason(p.new.as_ref()),
        ]);
    }
    Ok(printable(&grid.to_csv()))
}

/// A cross-card table in this format.
pub fn render_cross(table: &CrossTable) -> Result<String, ReportError> {
    let mut header: Vec<String> = ["id", "metric", "unit", "higher_is_better"]
        .iter()
        .map(ToString::to_string)
        .collect();
    for (i, column) in table.columns.iter().enumerate() {
        let name = format!("[{}] {}", i + 1, column.label);
        header.push(format!("{name} median"));
        header.push(format!("{name} ratio"));
        header.push(format!("{name} status"));
    }
    let mut grid = Grid {
        header,
        ..Grid::default()
    };
    for row in &table.rows {
        let mut cells = vec![
            row.id.clone(),
            row.metric.to_string(),
            row.unit.clone(),
            row.higher_is_better.to_string(),
        ];
        for cell in &row.cells {
            let (median, ratio, status) = match cell {
                CrossCell::Value {
                    median,
                    ratio,
                    measured_as,
                } => (
                    raw(Some(*median)),
                    raw(*ratio),
                    // A median in another unit says so where a reader of the row looks.
                    measured_as
                        .as_ref()
                        .map_or("ok".to_string(), |how| format!("ok, measured as {how}")),
                ),
                CrossCell::NotMeasured { status, reason } => (
                    String::new(),
                    String::new(),
                    format!(
                        "{}: {}",
                        status.as_str(),
                        reason.as_deref().unwrap_or("no reason recorded")
                    ),
                ),
                CrossCell::Absent => (String::new(), String::new(), "absent".to_string()),
            };
            cells.extend([median, ratio, status]);
        }
        grid.push(cells);
    }
    Ok(printable(&grid.to_csv()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::doc_with;

    /// The header as it was before the appended columns: older readers index these by place.
    const OLDER_COLUMNS: usize = 25;

    /// The cells of line `k` of `csv` (cells here hold no comma).
    fn cells(csv: &str, k: usize) -> Vec<String> {
        let line = csv.lines().nth(k).expect("a line");
        line.split(',').map(String::from).collect()
    }

    #[test]
    fn the_tail_percentiles_keep_their_places_and_newer_columns_follow() {
        let mut doc = doc_with("Card", false);
        doc.results[0].counts = "bytes read".into();
        let before = render_run(&doc).expect("csv");
        let header = cells(&before, 0);
        assert_eq!(
            header[OLDER_COLUMNS - 3..OLDER_COLUMNS],
            ["run_complete", "p5", "p95"]
        );
        assert_eq!(
            header[OLDER_COLUMNS..],
            [
                "role",
                "counts",
                "latency_p50_us",
                "latency_p95_us",
                "latency_p99_us",
                "crosses_link"
            ]
        );
        let s = doc.results[0].summary.clone().expect("a summary");
        assert!(s.n as u64 >= MIN_N_P95, "the fixture has enough samples");
        let first = cells(&before, 1);
        assert_eq!(
            first[OLDER_COLUMNS - 2..],
            [
                raw(Some(s.p5)),
                raw(Some(s.p95)),
                "kernel".into(),
                "bytes read".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new()
            ]
        );
        // Too few samples to state a tail: the cells stay empty.
        let few = doc.results[0].summary.as_mut().expect("a summary");
        few.n = 5;
        let after = render_run(&doc).expect("csv");
        assert_eq!(cells(&after, 1)[OLDER_COLUMNS - 2..OLDER_COLUMNS], ["", ""]);
    }

    /// A derived row says so; a row that timed requests gives its latency percentiles, each
    /// only from enough requests; a transfer row says whether its bytes crossed the link.
    #[test]
    fn a_derived_row_and_request_latencies_are_named() {
        use gpubench_results::stats::LatencySummary;
        let mut doc = doc_with("Card", false);
        doc.results[0].role = gpubench_results::Role::Derived;
        let latency = |n| LatencySummary {
            p50_us: 10.0,
            p95_us: 20.0,
            p99_us: 30.0,
            max_us: 40.0,
            n,
        };
        doc.results[1].latency = Some(Box::new(latency(200)));
        let csv = render_run(&doc).expect("csv");
        assert_eq!(cells(&csv, 1)[OLDER_COLUMNS], "derived");
        assert_eq!(cells(&csv, 2)[OLDER_COLUMNS + 2..], ["10", "20", "30", ""]);
        doc.results[1].latency = Some(Box::new(latency(50)));
        doc.results[1]
            .params
            .insert("crosses_link".into(), false.into());
        let csv = render_run(&doc).expect("csv");
        assert_eq!(
            cells(&csv, 2)[OLDER_COLUMNS + 2..],
            ["10", "20", "", "false"]
        );
    }
}
