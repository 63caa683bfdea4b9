//! A results file from a newer gpubench, with a metric kind and a warning kind this one does not
//! know (`gpubench-results/tests/fixtures/unknown-kinds.json`): the comparison shows the unknown
//! metric's row and never judges it, while the known rows beside it are judged as always, and the
//! unknown warning changes no verdict.

use gpubench_baseline::testing::{doubled, unknown_kinds_fixture};
use gpubench_baseline::{
    CompareOptions, Comparison, CrossCell, CrossRow, CrossTable, PairComparison, Verdict, compare,
    cross_table,
};

const UNKNOWN_ROW: &str = "energy/request/joules";
const BANDWIDTH_ROW: &str = "stream/triad/vec4-f32/64MiB";
const TIME_ROW: &str = "launch/dispatch/1";

/// The pair of `id` in `cmp`.
fn pair_of<'a>(cmp: &'a Comparison, id: &str) -> &'a PairComparison {
    cmp.pairs
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no pair {id}"))
}

/// The row of `id` in `table`.
fn row_of<'a>(table: &'a CrossTable, id: &str) -> &'a CrossRow {
    table
        .rows
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no row {id}"))
}

fn verdict(cmp: &Comparison, id: &str) -> Verdict {
    pair_of(cmp, id).verdict
}

#[test]
fn an_unknown_metric_compared_with_itself_is_not_judged_and_known_rows_are() {
    let doc = unknown_kinds_fixture();
    let cmp = compare("a", &doc, "b", &doc, &CompareOptions::default());
    assert_eq!(verdict(&cmp, UNKNOWN_ROW), Verdict::NotJudged);
    assert_eq!(verdict(&cmp, BANDWIDTH_ROW), Verdict::Unchanged);
    assert_eq!(verdict(&cmp, TIME_ROW), Verdict::Unchanged);
    let pair = pair_of(&cmp, UNKNOWN_ROW);
    assert_eq!(
        pair.note.as_deref(),
        Some("not judged: metric kind 'joules-per-request' unknown to this gpubench")
    );
    assert_eq!(pair.metric.name(), "joules-per-request");
    assert_eq!(pair.unit, "J/request");
    assert!(!pair.higher_is_better, "the file's direction is carried");
    assert!(pair.ratio.is_none() && !pair.regression);
    assert_eq!(cmp.counts().get("not-judged"), Some(&1));
    assert!(!cmp.fails_gate());
}

#[test]
fn doubling_every_value_judges_the_known_rows_only() {
    let base = unknown_kinds_fixture();
    let cmp = compare("a", &base, "b", &doubled(&base), &CompareOptions::default());
    // Twice the bandwidth is faster, twice the time per operation slower; twice the joules is
    // neither here: this gpubench does not know which way is better for them.
    assert_eq!(verdict(&cmp, BANDWIDTH_ROW), Verdict::Improved);
    assert_eq!(verdict(&cmp, TIME_ROW), Verdict::Regressed);
    assert_eq!(verdict(&cmp, UNKNOWN_ROW), Verdict::NotJudged);
    let unknown: Vec<_> = cmp.pairs.iter().filter(|p| p.id == UNKNOWN_ROW).collect();
    assert!(unknown.iter().all(|p| !p.regression && p.ratio.is_none()));
    let medians = |p: &&gpubench_baseline::PairComparison| {
        let side = |s: &Option<gpubench_baseline::Side>| s.as_ref().and_then(|s| s.median);
        side(&p.base).zip(side(&p.new))
    };
    assert!(
        unknown
            .iter()
            .filter_map(medians)
            .all(|(b, n)| (n / b - 2.0).abs() < 1e-6),
        "both values are shown: {unknown:?}"
    );
    let gating: Vec<&str> = cmp.gating().map(|p| p.id.as_str()).collect();
    assert_eq!(gating, [TIME_ROW], "only the known regression gates");
    // And the other way round: half the joules is no improvement either.
    let cmp = compare("a", &doubled(&base), "b", &base, &CompareOptions::default());
    assert_eq!(verdict(&cmp, UNKNOWN_ROW), Verdict::NotJudged);
    assert_eq!(verdict(&cmp, TIME_ROW), Verdict::Improved);
}

#[test]
fn a_status_change_of_an_unknown_metric_is_still_a_status_change() {
    let base = unknown_kinds_fixture();
    let mut failed = base.clone();
    let r = &mut failed.results[2];
    r.status = gpubench_results::Status::Failed;
    r.reason = Some("verification failed".into());
    r.summary = None;
    let cmp = compare("a", &base, "b", &failed, &CompareOptions::default());
    assert_eq!(verdict(&cmp, UNKNOWN_ROW), Verdict::StatusChanged);
    assert!(cmp.fails_gate(), "a failure is one whatever the metric");
}

#[test]
fn the_cross_table_shows_the_unknown_row_without_a_ratio() {
    let base = unknown_kinds_fixture();
    let twice = doubled(&base);
    let table = cross_table(&[("a", &base), ("b", &twice)]);
    let row = row_of(&table, UNKNOWN_ROW);
    assert_eq!(row.metric.name(), "joules-per-request");
    assert_eq!(row.unit, "J/request");
    match &row.cells[1] {
        CrossCell::Value { median, ratio, .. } => {
            assert!((median / 0.34965 - 2.0).abs() < 1e-6, "{median}");
            assert_eq!(*ratio, None);
        }
        other => panic!("unexpected {other:?}"),
    }
    let known = row_of(&table, BANDWIDTH_ROW);
    assert!(
        matches!(known.cells[1], CrossCell::Value { ratio: Some(r), .. } if (r - 2.0).abs() < 1e-6),
        "{known:?}"
    );
}

#[test]
fn comparisons_with_unknown_kinds_round_trip_through_json() {
    let doc = unknown_kinds_fixture();
    let cmp = compare("a", &doc, "b", &doubled(&doc), &CompareOptions::default());
    let json = serde_json::to_string(&cmp).expect("serialise");
    assert!(json.contains(r#""metric":"joules-per-request""#), "{json}");
    assert!(json.contains(r#""verdict":"not-judged""#), "{json}");
    let back: Comparison = serde_json::from_str(&json).expect("read back");
    // Whole-structure equality would hinge on serde_json's float parsing (last-digit rounding
    // without its `float_roundtrip` feature): the kinds and verdicts are what is checked here.
    let kinds = |c: &Comparison| -> Vec<_> {
        c.pairs
            .iter()
            .map(|p| (p.metric, p.verdict, p.note.clone()))
            .collect()
    };
    assert_eq!(kinds(&back), kinds(&cmp));
}
