//! The HTML report pinned byte for byte by insta snapshots: the recorded lavapipe run alone
//! (with one failed and one skipped result), two runs of it with verdicts against the first,
//! two small runs on different adapters (one with sampled telemetry and run noise), a suite
//! charted only by its hints, and files whose every text is hostile (markup, quotes, control characters and
//! bidirectional overrides in names, ids, units, labels and reasons), so that any change to
//! what the page says, or to how it escapes, shows up as a snapshot diff.

mod common;

use common::{fft_doc, mark_not_ok, nominal_h200, recorded, render, scaled};
use gpubench_baseline::testing::{doc_with, not_ok_result};
use gpubench_results::run_noise::RunNoise;
use gpubench_results::telemetry::{
    NominalFigures, RunTelemetry, TelemetryStatus, TelemetrySummary,
};
use gpubench_results::{RunDocument, Status};

#[test]
fn one_recorded_run() {
    let mut doc = recorded();
    mark_not_ok(
        &mut doc,
        "stream/scale/vec4-f32/16MiB",
        Status::Failed,
        "verification failed: 3 of 4096 values outside tolerance",
    );
    mark_not_ok(
        &mut doc,
        "compute/fma-peak/vec4-f16",
        Status::Skipped,
        "adapter lacks SHADER_F16",
    );
    insta::assert_snapshot!("one_run", render(&[("lavapipe-quick", &doc)]));
}

/// The shared sampled telemetry with a driver, the link and the datasheet row.
fn sampled_telemetry() -> RunTelemetry {
    RunTelemetry {
        driver_version: Some("550.54".into()),
        link: Some(gpubench_baseline::testing::gen5_x16_link("device id")),
        nominal: Some(NominalFigures {
            pcie_generation: Some(5),
            ..nominal_h200()
        }),
        ..gpubench_baseline::testing::sampled_telemetry()
    }
}

/// A small run on another adapter and host than `doc_with`'s, unfinished, with sampled
/// telemetry and run noise.
fn on_another_adapter() -> RunDocument {
    let mut other = doc_with("NVIDIA H200", false);
    other.machine.fingerprint = "another-adapter".into();
    other.machine.hostname = Some("node7".into());
    other.complete = false;
    other.telemetry = Some(sampled_telemetry());
    let mut noise = RunNoise::new("ref", "GFLOP/s");
    noise.level = Some(0.125);
    noise.drift = Some(-0.125);
    other.noise = Some(noise);
    other
}

#[test]
fn two_recorded_runs_with_verdicts_against_the_first() {
    let base = recorded();
    let slower = scaled(&base, 0.8);
    insta::assert_snapshot!("two_runs", render(&[("base", &base), ("slower", &slower)]));
}

#[test]
fn runs_on_two_adapters_with_telemetry_and_noise() {
    let base = doc_with("NVIDIA Test", false);
    let page = render(&[("base", &base), ("other", &on_another_adapter())]);
    insta::assert_snapshot!("two_adapters", page);
}

#[test]
fn a_suite_charted_by_its_hints_alone() {
    insta::assert_snapshot!("hinted_suite", render(&[("fft.json", &fft_doc())]));
}

/// Text a results file may carry that must reach the page as text: markup, an entity, quotes,
/// NUL, an escape sequence and a right-to-left override.
const HOSTILE: &str = "<img src=x onerror=alert(1)> & \"q\" 'a' \0\x1b[2J\u{202e}";

/// A document whose adapter, host, ids, units, reasons, warnings and telemetry reason all carry
/// [`HOSTILE`] text.
fn hostile_doc() -> RunDocument {
    let mut doc = doc_with(&format!("GPU {HOSTILE}"), false);
    doc.machine.hostname = Some(format!("host {HOSTILE}"));
    doc.machine.cpu_model = format!("CPU {HOSTILE}");
    doc.machine.adapter.driver_info = HOSTILE.into();
    doc.machine.adapter.features = vec![HOSTILE.into()];
    doc.config.profile = format!("quick {HOSTILE}");
    for r in &mut doc.results {
        r.id = format!("{}/{HOSTILE}", r.id);
        r.unit = format!("{} {HOSTILE}", r.unit);
    }
    doc.results.push(not_ok_result(
        &format!("stream/{HOSTILE}"),
        Status::Failed,
        &format!("reason {HOSTILE}"),
    ));
    doc.telemetry = Some(RunTelemetry {
        totals: TelemetrySummary::without_readings(
            TelemetryStatus::NotApplicable,
            Some(format!("why {HOSTILE}")),
        ),
        trace: Vec::new(),
        max_sm_clock_mhz: None,
        max_memory_clock_mhz: None,
        driver_version: Some(HOSTILE.into()),
        link: None,
        nominal: None,
    });
    doc
}

#[test]
fn hostile_text_reaches_the_page_as_text() {
    let doc = hostile_doc();
    let label = format!("run {HOSTILE}.json");
    let one = render(&[(&label, &doc)]);
    insta::assert_snapshot!("hostile_one", one);
    let slower = gpubench_baseline::testing::scaled(&doc, 1.3);
    let several = render(&[(&label, &doc), (&format!("b {HOSTILE}"), &slower)]);
    insta::assert_snapshot!("hostile_several", several);
}
