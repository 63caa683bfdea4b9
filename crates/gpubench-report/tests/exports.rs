//! Every format pinned by an insta snapshot on a small fixed document: two ok results (a rate
//! and a time per operation), one skipped and one failed, so each format shows that skipped and
//! failed results carry their status and reason and never a number.

use gpubench_baseline::testing::{doc_with, not_ok_result, scaled};
use gpubench_baseline::{CompareOptions, compare, cross_table};
use gpubench_harness::{RunDocument, Status};
use gpubench_report::gab::gab_export;
use gpubench_report::{FORMATS, comparison_exporter, exporter};

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
        .push("timestamps unavailable, | pipes, \"quotes\"".to_string());
    doc
}

#[test]
fn run_document_in_every_format() {
    let doc = fixture();
    for format in FORMATS {
        let text = exporter(format)
            .expect("every listed format has an exporter")
            .render(&doc)
            .expect("render");
        insta::assert_snapshot!(format!("run_{format}"), text);
    }
}

#[test]
fn github_action_benchmark_splits_by_direction() {
    let export = gab_export(&fixture()).expect("export");
    insta::assert_snapshot!("gab_bigger", export.bigger_is_better);
    insta::assert_snapshot!(
        "gab_smaller",
        export.smaller_is_better.expect("a time-per-op result")
    );
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
    let cmp = compare(
        "base.json",
        &base,
        "new.json",
        &new,
        &CompareOptions::default(),
    );
    for format in FORMATS {
        let text = comparison_exporter(format)
            .expect("every listed format compares")
            .render_comparison(&cmp)
            .expect("render");
        insta::assert_snapshot!(format!("compare_{format}"), text);
    }
}

#[test]
fn cross_card_table_in_every_format_but_bmf() {
    let a = fixture();
    let b = scaled(&doc_with("AMD Test", false), 0.8);
    let c = scaled(&doc_with("lavapipe", true), 20.0);
    let table = cross_table(&[("a.json", &a), ("b.json", &b), ("c.json", &c)]);
    for format in FORMATS {
        let rendered = comparison_exporter(format)
            .expect("every listed format compares")
            .render_cross(&table);
        match (*format, rendered) {
            ("bmf", result) => assert!(result.is_err(), "bmf cannot hold several runs"),
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
    let cmp = compare(
        "nvidia.json",
        &base,
        "amd.json",
        &other,
        &CompareOptions::default(),
    );
    let table = comparison_exporter("table").expect("table");
    insta::assert_snapshot!(
        "compare_cross_machine_table",
        table.render_comparison(&cmp).expect("render")
    );

    // A software adapter: a clear slowdown is reported, marked report-only.
    let soft = doc_with("llvmpipe (LLVM 15.0.6, 256 bits)", true);
    let cmp = compare(
        "base.json",
        &soft,
        "slow.json",
        &scaled(&soft, 1.6),
        &CompareOptions::default(),
    );
    insta::assert_snapshot!(
        "compare_report_only_md",
        comparison_exporter("md")
            .expect("md")
            .render_comparison(&cmp)
            .expect("render")
    );
}
