//! The terminal table at 80 columns and piped: ids and verdict words are never broken, long
//! reasons go under the table as notes, prose wraps at word boundaries, and colour appears only
//! when asked for and never in Markdown.

use gpubench_baseline::testing::{doc_with, not_ok_result, scaled};
use gpubench_baseline::{CompareOptions, Comparison, compare};
use gpubench_report::Format;
use gpubench_report::table::TableStyle;
use gpubench_results::results_file::load_document;
use gpubench_results::{RunDocument, Status};

/// Longer than any recorded id (the longest, without its suite, is 34 characters).
const LONG_ID: &str = "stream/copy-with-a-long-kernel-name/vec4/16MiB";
const LONG_REASON: &str = "the adapter offers no 16x16x16 f16 x f16 -> f16 cooperative-matrix configuration (wgpu's EXPERIMENTAL_COOPERATIVE_MATRIX)";

fn recorded() -> RunDocument {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lavapipe-quick.json");
    load_document(&path).expect("the recorded run loads")
}

/// The recorded lavapipe run with a long id and two skips of one long reason.
fn with_long_texts() -> RunDocument {
    let mut doc = recorded();
    let mut long = doc
        .results
        .iter()
        .find(|r| r.suite == "stream" && r.status == Status::Ok)
        .expect("a stream result")
        .clone();
    long.id = LONG_ID.to_string();
    doc.results.push(long);
    for id in ["stream/skipped-one/16MiB", "stream/skipped-two/16MiB"] {
        doc.results
            .push(not_ok_result(id, Status::Skipped, LONG_REASON));
    }
    doc
}

fn at(width: u16) -> TableStyle {
    TableStyle {
        width: Some(width),
        ..TableStyle::default()
    }
}

fn is_table_line(line: &str) -> bool {
    line.starts_with(['┌', '│', '╞', '├', '└'])
}

/// Drops ANSI styling (`ESC [ ... m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

#[test]
fn a_run_at_80_columns_keeps_every_id_whole_and_every_line_within_80() {
    let doc = with_long_texts();
    let text = Format::Table.render(&doc, &at(80)).expect("render");
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}\n{text}",
            line.chars().count()
        );
    }
    let table_lines: Vec<&str> = text.lines().filter(|l| is_table_line(l)).collect();
    for r in &doc.results {
        let short = r.id.strip_prefix(&format!("{}/", r.suite)).unwrap_or(&r.id);
        assert!(
            table_lines
                .iter()
                .any(|l| l.split(['│', '┆']).any(|cell| cell.trim() == short)),
            "{short} is not whole on one table line:\n{text}"
        );
    }
    assert!(
        text.contains("narrow terminal (80 columns):")
            && text.contains("every value is in the results file"),
        "{text}"
    );
    // The shared long reason is one note, its cells marked (the marker may wrap under the
    // status word).
    let marked = table_lines.iter().filter(|l| l.contains("[1]")).count();
    assert_eq!(marked, 2, "{text}");
    assert_eq!(text.matches("[1] the adapter offers").count(), 1, "{text}");
}

#[test]
fn piped_a_long_reason_is_a_note_under_the_table_and_the_row_stays_short() {
    let doc = with_long_texts();
    let text = Format::Table
        .render(&doc, &TableStyle::default())
        .expect("render");
    let row = text
        .lines()
        .find(|l| l.contains("skipped-one/16MiB"))
        .expect("the row");
    assert!(row.contains("skipped [1]"), "{row}");
    assert!(!row.contains("cooperative"), "{row}");
    assert!(row.chars().count() < 120, "{row}");
    assert!(
        text.lines().any(|l| l == format!("[1] {LONG_REASON}")),
        "the whole reason, once, on one line:\n{text}"
    );
    // Prose stays on one line when piped.
    assert!(
        text.lines()
            .any(|l| l.starts_with("value: median") && l.ends_with("on the host."))
    );
    // No table line carries the reason.
    assert!(
        text.lines()
            .filter(|l| is_table_line(l))
            .all(|l| !l.contains("cooperative-matrix")),
        "{text}"
    );
}

#[test]
fn prose_wraps_at_word_boundaries_at_80_columns() {
    let doc = with_long_texts();
    let text = Format::Table.render(&doc, &at(80)).expect("render");
    let prose: Vec<&str> = text.lines().filter(|l| !is_table_line(l)).collect();
    let joined = prose.join(" ");
    let all = words(&joined);
    let legend = "value: median of the samples; ±: half-width of the 95% interval of the median \
         (-below%/+above% where one side is over 1.5x the other); host: the same work timed submit-to-completion on the host.";
    let expected = words(legend);
    assert!(
        all.windows(expected.len())
            .any(|w| w == expected.as_slice()),
        "the legend's words, each whole and in order:\n{text}"
    );
    let heading = &doc.machine.adapter.name;
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with(heading.as_str()))
    );
    assert!(
        text.lines()
            .filter(|l| l.starts_with("value: median"))
            .all(|l| l.chars().count() <= 80)
    );
    assert!(prose.iter().all(|l| l.chars().count() <= 80));
}

/// `new` against `base` with the default options, as `gpubench compare base.json new.json`
/// compares them.
fn compared(base: &RunDocument, new: &RunDocument) -> Comparison {
    compare(
        "base.json",
        base,
        "new.json",
        new,
        &CompareOptions::default(),
    )
}

/// The table's rows as (id, the row's first line): a first cell that starts with two spaces
/// continues the id above it (an id broken after a slash).
fn table_rows(text: &str) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('│')) {
        let first = line.split(['│', '┆']).nth(1).unwrap_or_default();
        let cell = first.strip_prefix(' ').unwrap_or(first).trim_end();
        match (cell.strip_prefix("  "), rows.last_mut()) {
            (Some(rest), Some((id, _))) if id.ends_with('/') => id.push_str(rest.trim()),
            _ if !cell.is_empty() => rows.push((cell.to_string(), line.to_string())),
            _ => {}
        }
    }
    rows
}

#[test]
fn comparison_verdict_words_stay_whole_at_80_columns() {
    let base = recorded();
    let mut new = scaled(&base, 1.3);
    let lost = new
        .results
        .iter_mut()
        .find(|r| r.status == Status::Ok)
        .expect("an ok result");
    lost.status = Status::Failed;
    lost.reason = Some("device lost while mapping the readback buffer (timeout)".into());
    lost.summary = None;
    lost.samples.clear();
    let cmp = compared(&base, &new);
    let text = Format::Table.render(&cmp, &at(80)).expect("render");
    // Every line fits, the longest ids broken only after a slash, their continuations
    // indented; each id's verdict stands on the line where the id starts.
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let rows = table_rows(&text);
    for pair in &cmp.pairs {
        let row = rows
            .iter()
            .find(|(id, _)| *id == pair.id)
            .map(|(_, first)| first.as_str())
            .unwrap_or_else(|| panic!("{} in the table:\n{text}", pair.id));
        assert!(
            row.split(['│', '┆'])
                .any(|c| c.split_whitespace().next() == Some(pair.verdict.as_str())),
            "{} on the row of {}:\n{row}\n{text}",
            pair.verdict.as_str(),
            pair.id
        );
    }
    assert!(
        text.contains("[1] device lost while mapping the readback buffer (timeout)"),
        "{text}"
    );
    // A small comparison fits in 80 columns entirely.
    let small = doc_with("NVIDIA Test", false);
    let cmp = compared(&small, &scaled(&small, 1.3));
    let text = Format::Table.render(&cmp, &at(80)).expect("render");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(text.contains("regressed"), "{text}");
}

#[test]
fn colour_only_when_asked_and_never_in_markdown() {
    let mut base = doc_with("NVIDIA Test", false);
    base.results[0].id = "stream/a\u{1b}[2Jb/64MiB".to_string();
    let cmp = compared(&base, &scaled(&base, 1.3));
    let coloured = TableStyle {
        width: Some(80),
        color: true,
        ..TableStyle::default()
    };
    let text = Format::Table.render(&cmp, &coloured).expect("render");
    assert!(text.contains('\u{1b}'), "a regression is coloured:\n{text}");
    // The id's own escape is still made visible; only the styling is raw.
    assert!(text.contains("a\\u{1b}[2Jb"), "{text}");
    assert!(!text.contains("\u{1b}[2J"), "{text}");
    let plain = strip_ansi(&text);
    assert!(plain.lines().all(|l| l.chars().count() <= 80), "{plain}");
    assert!(plain.contains("regressed"));
    for style in [at(80), TableStyle::default()] {
        let text = Format::Table.render(&cmp, &style).expect("render");
        assert!(!text.contains('\u{1b}'), "{text}");
    }
    let md = Format::Markdown.render(&cmp, &coloured).expect("render");
    assert!(!md.contains('\u{1b}'), "{md}");
    let run = Format::Markdown.render(&base, &coloured).expect("render");
    assert!(!run.contains('\u{1b}'));
    // Piped stdout (as under the test harness) is never coloured.
    assert!(!TableStyle::for_stdout(false).color || TableStyle::for_stdout(false).width.is_some());
}

#[test]
fn a_three_file_cross_card_table_fits_80_columns_with_numbered_columns() {
    let base = recorded();
    let runs = [
        ("a.json", base.clone()),
        ("b.json", scaled(&base, 1.3)),
        ("c.json", scaled(&base, 0.8)),
    ];
    let named: Vec<(&str, &RunDocument)> = runs.iter().map(|(n, d)| (*n, d)).collect();
    let table = gpubench_baseline::cross_table(&named);
    let text = Format::Table.render(&table, &at(80)).expect("render");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let header = text
        .lines()
        .find(|l| l.contains("benchmark"))
        .expect("header");
    assert!(
        header.contains("[2]") && !header.contains("llvmpipe"),
        "{header}"
    );
    // A value and its ratio stay on one line.
    assert!(text.lines().any(|l| l.contains(" (0.77x)")), "{text}");
}
