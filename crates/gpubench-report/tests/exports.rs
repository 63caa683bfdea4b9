//! Every format pinned by an insta snapshot on a small fixed document: two ok results (a rate
//! and a time per operation), one skipped and one failed, so each format shows that skipped and
//! failed results carry their status and reason and never a number.

use gpubench_baseline::testing::{doc_with, not_ok_result, scaled};
use gpubench_baseline::{CompareOptions, Comparison, compare, cross_table};
use gpubench_report::Format;
use gpubench_report::gab::gab_export;
use gpubench_report::table::TableStyle;
use gpubench_results::{RunDocument, Status};

fn piped() -> TableStyle {
    TableStyle::default()
}

/// `new` compared with `base` under the default options, each `(file name, document)`.
fn compare_files(base: (&str, &RunDocument), new: (&str, &RunDocument)) -> Comparison {
    compare(base.0, base.1, new.0, new.1, &CompareOptions::default())
}

/// `cmp` rendered in `format` as for a pipe.
fn render_comparison(format: Format, cmp: &Comparison) -> String {
    format.render(cmp, &piped()).expect("render")
}

fn fixture() -> RunDocument {
    let mut doc = doc_with("NVIDIA Test", false);
    doc.results.push(not_ok_result(
        "stream/triad/vec4-f16/64MiB",
        Status::Skipped,
        "adapter lacks SHADER_F16",
    ));
    doc.results.push(not_ok_result(
        "stream/copy/vec4-f32/64MiB",
        Status::Failed,
        "verification failed: 3 of 1024 values outside tolerance, first: [7] 1.5 != 2.5",
    ));
    doc.warnings
        .push(gpubench_results::warnings::WarningRecord::new(
            gpubench_results::warnings::WarningKind::NoTimestamps,
            "timestamps unavailable, | pipes, \"quotes\"",
            None,
        ));
    doc
}

/// The fixture with a derived row beside its measured ones: a copy of its first result, as `id`.
fn fixture_with_derived(id: &str) -> RunDocument {
    let mut doc = fixture();
    let mut derived = doc.results[0].clone();
    derived.id = id.to_string();
    derived.role = gpubench_results::Role::Derived;
    doc.results.push(derived);
    doc
}

#[test]
fn run_document_in_every_format() {
    let doc = fixture();
    for format in Format::ALL {
        let text = format.render(&doc, &piped()).expect("render");
        insta::assert_snapshot!(format!("run_{format}"), text);
    }
}

#[test]
fn github_action_benchmark_splits_by_direction() {
    let export = gab_export(&fixture()).expect("export");
    insta::assert_snapshot!("gab_bigger", export.bigger_is_better);
    insta::assert_snapshot!("gab_smaller", export.smaller_is_better);
}

#[test]
fn comparison_in_every_format() {
    let base = fixture();
    let mut new = scaled(&base, 1.3);
    let lost = &mut new.results[1];
    lost.status = Status::Failed;
    lost.reason = Some("device lost".to_string());
    lost.summary = None;
    lost.samples.clear();
    new.machine.adapter.driver_info = "2.0".to_string();
    let cmp = compare_files(("base.json", &base), ("new.json", &new));
    for format in Format::ALL {
        let text = render_comparison(format, &cmp);
        insta::assert_snapshot!(format!("compare_{format}"), text);
    }
}

#[test]
fn cross_card_table_in_every_format_but_bmf() {
    let a = fixture();
    let b = scaled(&doc_with("AMD Test", false), 0.8);
    let c = scaled(&doc_with("lavapipe", true), 20.0);
    let table = cross_table(&[("a.json", &a), ("b.json", &b), ("c.json", &c)]);
    for format in Format::ALL {
        let rendered = format.render(&table, &piped());
        match (format, rendered) {
            (Format::Bmf, result) => assert!(result.is_err(), "bmf cannot hold several runs"),
            (_, result) => {
                insta::assert_snapshot!(format!("cross_{format}"), result.expect("render"))
            }
        }
    }
}

#[test]
fn comparison_modes_say_what_they_are() {
    // Across adapters: ratios, no verdicts, and what differs.
    let base = fixture();
    let mut other = scaled(&doc_with("AMD Test", false), 0.5);
    other.machine.fingerprint = "vulkan-1002-73bf-amd-test".to_string();
    other.machine.adapter.vendor_id = 0x1002;
    other.machine.adapter.device_id = 0x73bf;
    let cmp = compare_files(("nvidia.json", &base), ("amd.json", &other));
    insta::assert_snapshot!(
        "compare_cross_machine_table",
        render_comparison(Format::Table, &cmp)
    );

    // A software adapter: a clear slowdown is reported, marked report-only.
    let soft = doc_with("llvmpipe (LLVM 15.0.6, 256 bits)", true);
    let cmp = compare_files(("base.json", &soft), ("slow.json", &scaled(&soft, 1.6)));
    insta::assert_snapshot!(
        "compare_report_only_md",
        render_comparison(Format::Markdown, &cmp)
    );
}

/// The fields github-action-benchmark reads from a custom-format entry, with their JSON types
/// (its `isCustomBenchmarkResult` check): name and unit strings, value a number, range and extra
/// strings when present.
fn assert_custom_format(text: &str) -> Vec<serde_json::Value> {
    let entries: Vec<serde_json::Value> = serde_json::from_str(text).expect("a JSON array");
    assert!(
        !entries.is_empty(),
        "the action refuses an empty array: {text}"
    );
    for e in &entries {
        assert!(e["name"].is_string() && e["unit"].is_string(), "{e}");
        assert!(e["value"].is_number(), "{e}");
        for optional in ["range", "extra"] {
            assert!(e.get(optional).is_none_or(|v| v.is_string()), "{e}");
        }
    }
    entries
}

fn names(entries: &[serde_json::Value]) -> Vec<&str> {
    entries.iter().filter_map(|e| e["name"].as_str()).collect()
}

#[test]
fn github_action_benchmark_files_are_never_empty_and_hold_measured_values_only() {
    let mut doc = fixture_with_derived("transfer/h2d-write-buffer/fit/asymptotic-bandwidth");
    let export = gab_export(&doc).expect("export");
    let bigger = assert_custom_format(&export.bigger_is_better);
    let smaller = assert_custom_format(&export.smaller_is_better);
    assert!(
        !names(&bigger).iter().any(|n| n.contains("/fit/")),
        "{bigger:?}"
    );
    assert_eq!(names(&bigger)[0], "gpubench/run/verified-results");
    assert_eq!(names(&smaller)[0], "gpubench/run/failed-results");
    assert_eq!(
        smaller[0]["value"], 1.0,
        "the fixture has one failed result"
    );

    // Every result one way (or none ok at all): both files still exist with an entry.
    doc.results.retain(|r| r.higher_is_better);
    let export = gab_export(&doc).expect("export");
    assert_custom_format(&export.smaller_is_better);
    doc.results.clear();
    let export = gab_export(&doc).expect("export");
    assert_custom_format(&export.bigger_is_better);
    assert_custom_format(&export.smaller_is_better);
}

#[test]
fn bencher_measures_are_namespaced_unit_bearing_and_measured_only() {
    let doc = fixture_with_derived("roofline/ridge-point");
    let text = Format::Bmf.render(&doc, &piped()).expect("render");
    let bmf: serde_json::Value = serde_json::from_str(&text).expect("BMF is JSON");
    let benchmarks = bmf.as_object().expect("an object of benchmarks");
    assert!(!benchmarks.contains_key("roofline/ridge-point"), "{text}");
    assert!(!benchmarks.is_empty());
    // Bencher's built-in measures: a gpubench figure must never land in one of them.
    let builtin = ["latency", "throughput", "build-time", "file-size"];
    for measures in benchmarks.values() {
        for (name, metric) in measures.as_object().expect("measures") {
            assert!(name.starts_with("gpubench-") && !builtin.contains(&name.as_str()));
            assert!(metric["value"].is_number(), "{metric}");
        }
    }
}

#[test]
fn a_terminal_table_fits_80_columns_and_piped_output_keeps_its_lines() {
    let doc = fixture();
    let narrow = Format::Table
        .render(
            &doc,
            &TableStyle {
                width: Some(80),
                ..TableStyle::default()
            },
        )
        .expect("render");
    let table_lines = narrow
        .lines()
        .filter(|l| l.starts_with(['┌', '│', '╞', '├', '└']));
    for line in table_lines {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    let piped = Format::Table.render(&doc, &piped()).expect("render");
    let widest = piped.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(
        widest > 80,
        "piped output is not wrapped (widest line {widest})"
    );
}
