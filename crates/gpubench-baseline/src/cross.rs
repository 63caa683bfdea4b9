//! The cross-card table: several runs side by side, one column per run, each value with its
//! ratio against the first run (oriented so that > 1 is faster). No verdicts: different machines
//! are different, not better or worse within noise.

use std::collections::{BTreeSet, HashMap};

use gpubench_results::{BenchResult, RunDocument, Status};
use serde::{Deserialize, Serialize};

use crate::compare::RunLabel;
use crate::ratio::oriented;
use crate::verdict::clock_changed;

/// One run's column.
pub type CrossColumn = RunLabel;

/// One cell: what a run has for a benchmark id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CrossCell {
    /// A number, and its ratio against the first run when the first run has one too.
    Value {
        /// The median.
        median: f64,
        /// Oriented ratio against the first column (> 1 faster); none for a metric this
        /// gpubench does not know, or where this run measured the id otherwise.
        ratio: Option<f64>,
        /// How this run measured the id (`time-per-op in ms, lower is better`), where its
        /// metric, unit or direction differ from the row's (the median is in that unit), or its
        /// clock (`timed by gpu-timestamp then by host: not comparable`): no ratio then.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        measured_as: Option<String>,
    },
    /// Skipped or failed, with the reason.
    NotMeasured {
        /// skipped or failed.
        status: Status,
        /// Why.
        reason: Option<String>,
    },
    /// The run has no result with this id.
    Absent,
}

/// One benchmark id across the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrossRow {
    /// Result id.
    pub id: String,
    /// What the numbers measure.
    pub metric: gpubench_results::MetricKind,
    /// Unit of the medians.
    pub unit: String,
    /// Whether larger values are better.
    pub higher_is_better: bool,
    /// One cell per column, in column order.
    pub cells: Vec<CrossCell>,
}

/// Several runs side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrossTable {
    /// One per run, in the order given; ratios are against the first.
    pub columns: Vec<CrossColumn>,
    /// One per id, in order of first appearance.
    pub rows: Vec<CrossRow>,
}

/// The cross-card table of `runs` (label, document), ratios against the first. Each run's
/// results are indexed by id once, so the table costs O(ids x runs), not a search per cell.
pub fn cross_table(runs: &[(&str, &RunDocument)]) -> CrossTable {
    let columns = runs
        .iter()
        .map(|(label, doc)| RunLabel::of(label, doc))
        .collect();
    let indexed: Vec<HashMap<&str, &BenchResult>> = runs
        .iter()
        .map(|(_, doc)| doc.results.iter().map(|r| (r.id.as_str(), r)).collect())
        .collect();
    let mut seen = BTreeSet::new();
    let mut rows = Vec::new();
    for result in runs.iter().flat_map(|(_, doc)| &doc.results) {
        if !seen.insert(result.id.as_str()) {
            continue;
        }
        let reference = indexed
            .first()
            .and_then(|first| first.get(result.id.as_str()))
            .and_then(|r| r.median());
        let cells = indexed
            .iter()
            .map(|by_id| cell(by_id.get(result.id.as_str()).copied(), reference, result))
            .collect();
        rows.push(CrossRow {
            id: result.id.clone(),
            metric: result.metric,
            unit: result.unit.clone(),
            higher_is_better: result.higher_is_better,
            cells,
        });
    }
    CrossTable { columns, rows }
}

/// One run's cell for `row`'s id: its median and ratio against `reference`, why it has none,
/// or absent. A metric this gpubench does not know gets no ratio: orienting one (> 1 faster)
/// would take its direction on trust.
fn cell(found: Option<&BenchResult>, reference: Option<f64>, row: &BenchResult) -> CrossCell {
    let Some(r) = found else {
        return CrossCell::Absent;
    };
    let known = row.metric.is_known() && r.metric.is_known();
    let measured_as = measured_otherwise(r, row);
    match r.median() {
        Some(median) => CrossCell::Value {
            median,
            ratio: reference
                .filter(|_| known && measured_as.is_none())
                .and_then(|base| oriented(base, median, row.higher_is_better)),
            measured_as,
        },
        None => CrossCell::NotMeasured {
            status: r.status,
            reason: r.reason.clone(),
        },
    }
}

/// How `r` measured its id, where that differs from the row's (`row`, the first run to have
/// the id): its metric, unit and direction, or its clock. A ratio of a time in µs to one in ms
/// (1000x) or of a rate to a time says nothing about the cards, nor does one of a GPU-timed
/// dispatch to a host-timed one (which adds the submit and the wait: a card that lost its
/// timestamps would read as many times slower). Every cross-card view asks this, the table and
/// the HTML page's bars alike.
pub fn measured_otherwise(r: &BenchResult, row: &BenchResult) -> Option<String> {
    let same =
        r.metric == row.metric && r.unit == row.unit && r.higher_is_better == row.higher_is_better;
    let direction = if r.higher_is_better {
        "higher is better"
    } else {
        "lower is better"
    };
    if !same {
        return Some(format!("{} in {}, {direction}", r.metric, r.unit));
    }
    // The same rule as a comparison's: the first run to have the id is the base.
    clock_changed(row, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{doc_with, scaled};
    use gpubench_results::TimingSource;

    #[test]
    fn columns_ratios_and_status_cells() {
        let a = doc_with("A", false);
        let b = scaled(&doc_with("B", false), 2.0);
        let mut c = doc_with("C", false);
        c.results[0].status = Status::Skipped;
        c.results[0].reason = Some("limit too small".to_string());
        c.results.pop();
        let table = cross_table(&[("a", &a), ("b", &b), ("c", &c)]);
        assert_eq!(table.columns.len(), 3);
        assert_eq!(table.rows.len(), 2);
        match &table.rows[0].cells[1] {
            CrossCell::Value { ratio: Some(r), .. } => assert!((r - 0.5).abs() < 0.01),
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            table.rows[0].cells[2],
            CrossCell::NotMeasured { .. }
        ));
        assert_eq!(table.rows[1].cells[2], CrossCell::Absent);
    }

    #[test]
    fn a_cell_measured_otherwise_gets_no_ratio_and_says_how_it_was_measured() {
        let a = doc_with("A", false);
        // The same launch time written in ms (a ratio would read 1000x), and one timed by the
        // host clock where the card lost its timestamps (submit to completion, not the
        // dispatch).
        let mut in_ms = doc_with("B", false);
        let launch = &mut in_ms.results[1];
        launch.unit = "ms".to_string();
        for v in launch.samples.iter_mut() {
            *v /= 1000.0;
        }
        launch.summary = gpubench_results::stats::summarize(&launch.samples);
        let mut by_host = doc_with("B", false);
        by_host.results[1].timing = Some(TimingSource::Host);
        for (b, how) in [
            (in_ms, "time-per-op in ms, lower is better"),
            (
                by_host,
                "timed by gpu-timestamp then by host: not comparable",
            ),
        ] {
            let table = cross_table(&[("a", &a), ("b", &b)]);
            match &table.rows[1].cells[1] {
                CrossCell::Value {
                    ratio, measured_as, ..
                } => {
                    assert_eq!(*ratio, None);
                    assert_eq!(measured_as.as_deref(), Some(how));
                }
                other => panic!("unexpected {other:?}"),
            }
            // The rows measured alike keep their ratios.
            assert!(matches!(
                table.rows[0].cells[1],
                CrossCell::Value {
                    ratio: Some(_),
                    measured_as: None,
                    ..
                }
            ));
        }
    }
}
