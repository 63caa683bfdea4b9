//! Chart hints keep the compatibility rule: the field is new with a default, so old files (no
//! hints) read unchanged, and a hint kind this version does not know (a newer gpubench wrote
//! it) is neither a read failure nor lost when the document is written back.

use std::path::Path;

use gpubench_results::chart::{ChartHint, group};
use gpubench_results::chart_of::{hint_of, legacy_hint};
use gpubench_results::results_file::{load_document, parse_document, save_document};

fn fixture_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unknown-kinds.json");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixture with a hint of an unknown kind on its first result and a known one on its
/// second.
fn with_hints() -> String {
    let mut json: serde_json::Value = serde_json::from_str(&fixture_text()).expect("JSON");
    json["results"][0]["chart"] =
        serde_json::json!({"kind": "sankey", "flows": ["upload", "compute"], "weight": 2});
    json["results"][1]["chart"] =
        serde_json::json!({"kind": "bars", "group": "fft", "label": ["variant"]});
    serde_json::to_string_pretty(&json).expect("serialises")
}

#[test]
fn an_unknown_hint_kind_is_read_kept_and_written_back_as_it_was() {
    let doc = parse_document(with_hints().as_bytes()).expect("an unknown hint kind is no failure");
    let unknown = doc.results[0].chart.as_ref().expect("kept");
    assert!(matches!(unknown, ChartHint::Unknown(_)), "{unknown:?}");
    assert_eq!(unknown.group(), None, "drawn nowhere");
    let known = doc.results[1].chart.as_ref().expect("kept");
    assert_eq!(known.group(), Some("fft"));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("back.json");
    save_document(&path, &doc).expect("written back");
    let text = std::fs::read_to_string(&path).expect("read");
    let back: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        back["results"][0]["chart"],
        serde_json::json!({"kind": "sankey", "flows": ["upload", "compute"], "weight": 2})
    );
    assert_eq!(load_document(&path).expect("reads again"), doc);
}

#[test]
fn files_without_hints_read_with_none_and_get_todays_hint_inferred() {
    let doc = parse_document(fixture_text().as_bytes()).expect("reads");
    assert!(doc.results.iter().all(|r| r.chart.is_none()));
    let stream = &doc.results[0];
    assert_eq!(stream.suite, "stream");
    let hint = hint_of(stream).expect("inferred for an old stream row");
    assert_eq!(hint.group(), Some(group::STREAM_KERNELS));
    // A declared hint wins over the inference; a suite the inference never heard of has none.
    let mut declared = stream.clone();
    declared.chart = Some(ChartHint::bars("mine", &[], &[], None));
    assert_eq!(
        hint_of(&declared).and_then(|h| h.group().map(String::from)),
        Some("mine".into())
    );
    let mut other = stream.clone();
    other.suite = "fft".into();
    assert_eq!(legacy_hint(&other), None);
    // Serialised without hints, a hint-less result has no `chart` field at all.
    let text = serde_json::to_string(stream).expect("serialises");
    assert!(!text.contains("\"chart\""), "{text}");
}
