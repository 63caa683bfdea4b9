//! The published JSON Schema of the results file: it is what the types generate (no drift), and
//! every results file the repository ships validates against it. A fresh run is validated in
//! the CLI's tests (`cli_run`).
//!
//! After changing a result type, regenerate it with
//! `GPUBENCH_UPDATE_SCHEMA=1 cargo test -p gpubench-results --test json_schema`.

use std::path::{Path, PathBuf};

use gpubench_results::schema::{json_schema, json_schema_text};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn published() -> PathBuf {
    repo().join("docs/results.schema.json")
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

mod support {
    pub mod schema_check;
}
use support::schema_check::SchemaCheck;

fn validator() -> SchemaCheck {
    SchemaCheck::new(&json_schema())
}

#[test]
fn the_published_schema_is_what_the_types_generate() {
    let generated = json_schema_text();
    if std::env::var("GPUBENCH_UPDATE_SCHEMA").is_ok_and(|v| v == "1") {
        std::fs::write(published(), &generated).expect("write docs/results.schema.json");
    }
    let on_disk = std::fs::read_to_string(published()).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/results.schema.json differs from what the result types generate: regenerate it with \
         GPUBENCH_UPDATE_SCHEMA=1 cargo test -p gpubench-results --test json_schema, and raise \
         schema_version if a field changed type or meaning (rules in gpubench_results::schema)"
    );
}

#[test]
fn every_shipped_results_file_validates() {
    let validator = validator();
    let mut files = vec![
        repo().join("crates/gpubench-report/tests/fixtures/lavapipe-quick.json"),
        // Kinds a newer gpubench wrote: the schema is open to them.
        repo().join("crates/gpubench-results/tests/fixtures/unknown-kinds.json"),
    ];
    for entry in std::fs::read_dir(repo().join("baselines")).expect("baselines/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    assert!(files.len() >= 2, "{files:?}");
    for path in files {
        let doc = read_json(&path);
        let errors = validator.errors(&doc);
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        gpubench_results::results_file::parse_document(doc.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

#[test]
fn documents_the_schema_forbids_are_refused() {
    let validator = validator();
    let mut doc =
        read_json(&repo().join("crates/gpubench-report/tests/fixtures/lavapipe-quick.json"));
    assert!(validator.is_valid(&doc));
    doc["results"][0]["status"] = "fine".into();
    assert!(
        !validator.is_valid(&doc),
        "an unknown status must not validate"
    );
    let errors = validator.errors(&doc);
    assert!(
        errors.iter().any(|e| e.contains("/results/0/status")),
        "the error names the place: {errors:?}"
    );
    let mut doc =
        read_json(&repo().join("crates/gpubench-report/tests/fixtures/lavapipe-quick.json"));
    doc["results"][0]["warnings"] = serde_json::json!([{"message": "no kind"}]);
    assert!(!validator.is_valid(&doc), "a typed warning needs its kind");
    let mut doc =
        read_json(&repo().join("crates/gpubench-report/tests/fixtures/lavapipe-quick.json"));
    doc.as_object_mut().expect("object").remove("machine");
    assert!(!validator.is_valid(&doc), "machine is required");
}

/// The schema is open to metric and warning kinds it does not list, within the names a reader
/// keeps (1 to 63 bytes), and to nothing else there.
#[test]
fn unknown_kinds_validate_within_the_names_a_reader_keeps() {
    let validator = validator();
    let fixture = repo().join("crates/gpubench-results/tests/fixtures/unknown-kinds.json");
    let doc = read_json(&fixture);
    assert_eq!(doc["results"][2]["metric"], "joules-per-request");
    assert_eq!(doc["results"][0]["warnings"][0]["kind"], "power-capped");
    assert!(validator.is_valid(&doc));
    let long = "m".repeat(gpubench_results::KindName::CAPACITY + 1);
    for (pointer, value) in [
        ("/results/2/metric", serde_json::json!("")),
        ("/results/2/metric", serde_json::json!(long)),
        ("/results/2/metric", serde_json::json!(7)),
        ("/results/0/warnings/0/kind", serde_json::json!(long)),
        ("/results/0/warnings/0/kind", serde_json::json!(null)),
    ] {
        let mut bad = doc.clone();
        *bad.pointer_mut(pointer).expect("the fixture has it") = value.clone();
        assert!(
            !validator.is_valid(&bad),
            "{pointer} = {value} must not validate"
        );
    }
}

/// Run by `cargo xtask test` (`-- --ignored`) on the file of its fresh quick run of every suite,
/// named by `GPUBENCH_VALIDATE_RESULTS`. The CLI's tests validate every file they read, too.
#[test]
#[ignore = "needs a fresh results file: cargo xtask test runs it"]
fn a_fresh_run_named_by_the_environment_validates() {
    let path = std::env::var("GPUBENCH_VALIDATE_RESULTS")
        .expect("GPUBENCH_VALIDATE_RESULTS names the results file to validate");
    let doc = read_json(Path::new(&path));
    let errors = validator().errors(&doc);
    assert!(errors.is_empty(), "{path}: {errors:#?}");
}
