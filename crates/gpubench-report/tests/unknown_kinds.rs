//! A results file from a newer gpubench (`gpubench-results/tests/fixtures/unknown-kinds.json`):
//! one result of the metric `joules-per-request` and one warning of the kind `power-capped`,
//! neither known to this gpubench. Every format shows the row with its own unit and the warning
//! with its kind and message; comparisons show the row and never judge it, while the known rows
//! beside it are judged as always.

use gpubench_baseline::testing::{doubled, unknown_kinds_fixture};
use gpubench_baseline::{CompareOptions, Comparison, CrossTable, compare, cross_table};
use gpubench_report::Format;
use gpubench_report::gab::gab_export;
use gpubench_report::table::TableStyle;
use gpubench_results::results_file::parse_document;

const UNKNOWN_ROW: &str = "energy/request/joules";

fn run_in(format: Format) -> String {
    format
        .render(&unknown_kinds_fixture(), &TableStyle::default())
        .expect("render")
}

fn comparison() -> Comparison {
    let base = unknown_kinds_fixture();
    compare(
        "base.json",
        &base,
        "twice.json",
        &doubled(&base),
        &CompareOptions::default(),
    )
}

/// `cmp` in `format`, piped.
fn comparison_in(format: Format, cmp: &Comparison) -> String {
    format.render(cmp, &TableStyle::default()).expect("render")
}

/// `cross` in `format`, piped.
fn cross_in(format: Format, cross: &CrossTable) -> String {
    format
        .render(cross, &TableStyle::default())
        .expect("render")
}

/// The unknown metric's row of `text` (in `format`), asserted to show the row's own unit.
fn unknown_row_in_its_unit(format: Format, text: &str) -> &str {
    let row = line_with(text, UNKNOWN_ROW);
    assert!(row.contains("J/request"), "{format}: {row}");
    row
}

/// The line of `text` that holds `needle`.
fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

#[test]
fn the_table_shows_the_row_in_its_unit_and_the_warning_with_its_kind() {
    let text = run_in(Format::Table);
    let row = line_with(&text, "request/joules");
    assert!(row.contains("0.350") && row.contains("J/request"), "{row}");
    assert!(
        text.contains("metric kind 'joules-per-request' unknown to this gpubench"),
        "{text}"
    );
    let warning = line_with(&text, "power-capped");
    assert!(
        warning.contains("(a kind unknown to this gpubench)"),
        "{warning}"
    );
    let text_of_it = "stream/triad/vec4-f32/64MiB (the board hit its power cap";
    assert!(warning.contains(text_of_it), "{warning}");
}

#[test]
fn markdown_shows_the_row_in_its_unit_and_the_warning_with_its_kind() {
    let text = run_in(Format::Markdown);
    let row = line_with(&text, "request/joules");
    assert!(row.starts_with('|'), "a table row: {row}");
    assert!(
        row.contains("| 0.350 |") && row.contains("| J/request |"),
        "{row}"
    );
    let warning = line_with(&text, "power-capped");
    assert!(
        warning.contains("stream/triad/vec4-f32/64MiB: power-capped: the board hit its power cap"),
        "{warning}"
    );
    assert!(
        text.contains("metric kind 'joules-per-request' unknown"),
        "{text}"
    );
}

#[test]
fn csv_names_the_metric_as_written_with_its_unit_and_direction() {
    let text = run_in(Format::Csv);
    let row = line_with(&text, UNKNOWN_ROW);
    assert!(
        row.starts_with(
            "energy/request/joules,energy,joules-per-request,J/request,false,ok,0.34965,"
        ),
        "{row}"
    );
}

#[test]
fn the_json_export_writes_the_unknown_kinds_back_as_they_were() {
    let text = run_in(Format::Json);
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(value["results"][2]["metric"], "joules-per-request");
    assert_eq!(value["results"][2]["unit"], "J/request");
    assert_eq!(value["results"][0]["warnings"][0]["kind"], "power-capped");
    let again = parse_document(text.as_bytes()).expect("the export reads as a results file");
    assert_eq!(again, unknown_kinds_fixture());
}

#[test]
fn bencher_and_github_action_benchmark_carry_the_row_in_its_unit() {
    let bmf: serde_json::Value = serde_json::from_str(&run_in(Format::Bmf)).expect("BMF");
    let measure = &bmf[UNKNOWN_ROW]["gpubench-joules-per-request-j-request"];
    assert!(
        measure["value"]
            .as_f64()
            .is_some_and(|v| (v - 0.34965).abs() < 1e-12),
        "{bmf:#}"
    );
    let gab = gab_export(&unknown_kinds_fixture()).expect("export");
    // The file says lower is better: the entry goes where the file's direction puts it.
    let smaller: serde_json::Value = serde_json::from_str(&gab.smaller_is_better).expect("JSON");
    let entry = smaller
        .as_array()
        .and_then(|entries| entries.iter().find(|e| e["name"] == UNKNOWN_ROW))
        .unwrap_or_else(|| panic!("no entry in {smaller:#}"));
    assert_eq!(entry["unit"], "J/request");
    assert!(!gab.bigger_is_better.contains(UNKNOWN_ROW));
}

#[test]
fn every_comparison_format_shows_the_row_not_judged_and_judges_the_rest() {
    let cmp = comparison();
    let note = "not judged: metric kind 'joules-per-request' unknown to this gpubench";
    for format in [Format::Table, Format::Markdown, Format::Csv] {
        let text = comparison_in(format, &cmp);
        let row = unknown_row_in_its_unit(format, &text);
        assert!(row.contains("not-judged"), "{format}: {row}");
        assert!(
            !row.contains("regressed") && !row.contains("improved"),
            "{format}: {row}"
        );
        assert!(text.contains(note), "{format}: {text}");
        assert!(
            line_with(&text, "launch/dispatch/1").contains("regressed"),
            "{format}: {text}"
        );
        assert!(
            line_with(&text, "stream/triad/vec4-f32/64MiB").contains("improved"),
            "{format}: {text}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&comparison_in(Format::Json, &cmp)).expect("JSON");
    let pair = json["pairs"]
        .as_array()
        .and_then(|pairs| pairs.iter().find(|p| p["id"] == UNKNOWN_ROW))
        .expect("the pair");
    assert_eq!(pair["verdict"], "not-judged");
    assert_eq!(pair["metric"], "joules-per-request");
    assert_eq!(pair["regression"], false);
}

#[test]
fn the_cross_table_shows_the_row_in_its_unit_without_a_ratio() {
    let base = unknown_kinds_fixture();
    let twice = doubled(&base);
    let cross = cross_table(&[("base", &base), ("twice", &twice)]);
    for format in [Format::Table, Format::Markdown] {
        let text = cross_in(format, &cross);
        let row = unknown_row_in_its_unit(format, &text);
        assert!(row.contains("0.699"), "{format}: the doubled value: {row}");
        assert!(!row.contains("2.00x"), "{format}: no ratio: {row}");
        assert!(
            text.contains(
                "metric kind 'joules-per-request' unknown to this gpubench: values only, no ratio"
            ),
            "{format}: says why: {text}"
        );
        // A known row beside it keeps its ratio.
        assert!(
            line_with(&text, "stream/triad/vec4-f32/64MiB").contains("2.00"),
            "{format}: {text}"
        );
    }
    let csv = cross_in(Format::Csv, &cross);
    // Both medians, empty ratio cells.
    assert_eq!(
        line_with(&csv, UNKNOWN_ROW),
        "energy/request/joules,joules-per-request,J/request,false,0.34965,,ok,0.6993,,ok"
    );
    assert!(
        line_with(&csv, "stream/triad").contains(",1623.375,2,ok"),
        "{csv}"
    );
}

#[test]
fn the_html_report_lists_the_row_and_the_verdict_table_does_not_judge_it() {
    let one = gpubench_report::html::render(&[("base.json".to_string(), unknown_kinds_fixture())])
        .expect("single-file page");
    let row = line_with(&one, UNKNOWN_ROW);
    assert!(row.contains("<td>J/request</td>"), "{row}");
    let base = unknown_kinds_fixture();
    let two = gpubench_report::html::render(&[
        ("base.json".to_string(), base.clone()),
        ("twice.json".to_string(), doubled(&base)),
    ])
    .expect("several-file page");
    let verdict_row = two
        .lines()
        .find(|l| l.starts_with("<tr class=") && l.contains(UNKNOWN_ROW))
        .unwrap_or_else(|| panic!("no verdict row in:\n{two}"));
    assert!(
        verdict_row.starts_with("<tr class=\"not-judged\">"),
        "{verdict_row}"
    );
    assert!(verdict_row.contains("J/request"), "{verdict_row}");
    assert!(
        two.contains("Its metrics are unknown to this gpubench"),
        "the energy suite's cross-card section says why it has no chart"
    );
}
