//! The compatibility rule: new metrics and warning kinds do not raise `schema_version`, so a file
//! of the current version from a newer gpubench may name kinds this one does not know. The
//! fixture `fixtures/unknown-kinds.json` has one result of the metric `joules-per-request` and
//! one warning of the kind `power-capped`: it is read, not refused, and written back it keeps
//! both names, and every other byte of meaning.

use std::path::{Path, PathBuf};

use gpubench_results::results_file::{load_document, save_document};
use gpubench_results::schema::SCHEMA_VERSION;
use gpubench_results::warnings::WarningKind;
use gpubench_results::{MetricKind, RunDocument};

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/unknown-kinds.json")
}

fn fixture() -> RunDocument {
    load_document(&fixture_path()).unwrap_or_else(|e| panic!("{e}"))
}

fn json_of(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_current_file_with_unknown_kinds_is_read_with_their_names() {
    let doc = fixture();
    assert_eq!(doc.schema_version, SCHEMA_VERSION, "the fixture is current");
    let unknown = &doc.results[2];
    assert_eq!(unknown.metric.name(), "joules-per-request");
    assert!(!unknown.metric.is_known());
    assert_eq!(unknown.metric.to_string(), "joules-per-request");
    assert_eq!(unknown.unit, "J/request", "the unit is the result's own");
    assert!(!unknown.higher_is_better, "the file's direction is kept");
    assert!(
        unknown
            .median()
            .is_some_and(|m| (m - 0.34965).abs() < 1e-12)
    );
    // The known rows beside it read as before.
    assert_eq!(doc.results[0].metric, MetricKind::Bandwidth);
    assert_eq!(doc.results[1].metric, MetricKind::TimePerOp);
    let warning = &doc.results[0].warnings[0];
    assert_eq!(warning.kind.name(), "power-capped");
    assert!(!warning.kind.is_known());
    assert_ne!(
        warning.kind,
        WarningKind::Other,
        "the name is kept, not folded away"
    );
    assert!(warning.message.starts_with("the board hit its power cap"));
    assert_eq!(warning.figure, Some(40.0));
}

#[test]
fn written_back_the_file_keeps_the_unknown_names_and_everything_else() {
    let doc = fixture();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("again.json");
    save_document(&path, &doc).expect("write");
    let text = std::fs::read_to_string(&path).expect("read the written file");
    assert!(text.contains(r#""metric": "joules-per-request""#), "{text}");
    assert!(text.contains(r#""kind": "power-capped""#), "{text}");
    // The same JSON as the file read: no field lost, added or renamed by the round trip.
    assert_eq!(json_of(&path), json_of(&fixture_path()));
    let again = load_document(&path).expect("read the written file");
    assert_eq!(again, doc);
}

#[test]
fn names_that_cannot_be_kept_are_refused_with_the_reason() {
    let text = std::fs::read_to_string(fixture_path()).expect("fixture");
    let long = "x".repeat(gpubench_results::KindName::CAPACITY + 1);
    for (from, to) in [
        ("\"joules-per-request\"", format!("\"{long}\"")),
        ("\"power-capped\"", format!("\"{long}\"")),
        ("\"joules-per-request\"", "\"\"".to_string()),
    ] {
        let bad = text.replacen(from, &to, 1);
        let reason = gpubench_results::results_file::parse_document(bad.as_bytes())
            .expect_err("a name no file may hold");
        assert!(
            reason.contains("up to 63 bytes") || reason.contains("empty"),
            "{reason}"
        );
        assert!(!reason.contains('\n'), "one line: {reason}");
    }
}
