//! Helpers shared by the HTML report's tests: the recorded lavapipe run, documents derived from
//! it, and rendering.

#![allow(dead_code)] // each test binary uses its own subset

use gpubench_results::chart::ChartHint;
use gpubench_results::results_file::load_document;
use gpubench_results::stats::summarize;
use gpubench_results::{BenchResult, MetricKind, Role, RunDocument, Status};

/// The recorded lavapipe run the HTML tests render.
pub fn recorded() -> RunDocument {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lavapipe-quick.json");
    load_document(&path).expect("the recorded run loads")
}

/// The page of `files`, each `(label, document)`.
pub fn render(files: &[(&str, &RunDocument)]) -> String {
    let labelled: Vec<(String, RunDocument)> = files
        .iter()
        .map(|(l, d)| (l.to_string(), (*d).clone()))
        .collect();
    gpubench_report::html::render(&labelled).expect("renders")
}

/// `doc` with every sample, median and interval scaled by `factor`.
pub fn scaled(doc: &RunDocument, factor: f64) -> RunDocument {
    let mut out = doc.clone();
    for r in &mut out.results {
        for v in &mut r.samples {
            *v *= factor;
        }
        if let Some(s) = &mut r.summary {
            for v in [
                &mut s.median,
                &mut s.ci_low,
                &mut s.ci_high,
                &mut s.min,
                &mut s.max,
                &mut s.mean,
            ] {
                *v *= factor;
            }
        }
    }
    out
}

/// Turns the first result of `doc` whose id starts with `prefix` into one with `status` and
/// `reason` and no summary.
pub fn mark_not_ok(doc: &mut RunDocument, prefix: &str, status: Status, reason: &str) {
    let result = doc
        .results
        .iter_mut()
        .find(|r| r.id.starts_with(prefix))
        .unwrap_or_else(|| panic!("{prefix} ran"));
    result.status = status;
    result.reason = Some(reason.into());
    result.summary = None;
}

/// An ok fft row with `params`, its median `value` and `hint`.
pub fn fft_row(
    base: &BenchResult,
    id: &str,
    params: &[(&str, serde_json::Value)],
    value: f64,
    hint: ChartHint,
) -> BenchResult {
    let mut r = base.clone();
    r.id = id.to_string();
    r.suite = "fft".into();
    r.metric = MetricKind::Throughput;
    r.unit = "GFLOP/s".into();
    r.role = Role::Kernel;
    r.status = Status::Ok;
    r.params = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    r.samples = vec![value * 0.99, value, value * 1.01];
    r.summary = summarize(&r.samples);
    r.latency = None;
    r.chart = Some(hint);
    r
}

/// A document holding only an unknown suite's rows, each with its hint.
pub fn fft_doc() -> RunDocument {
    let mut doc = recorded();
    let base = doc.results[0].clone();
    let bars = ChartHint::bars("FFT by variant", &["variant"], &["n"], None);
    let curve = ChartHint::log_curve("FFT throughput by size", "n", "variant");
    let mut rows = Vec::new();
    for variant in ["radix2", "radix4"] {
        rows.push(fft_row(
            &base,
            &format!("fft/{variant}/4096"),
            &[("variant", variant.into()), ("n", 4096.into())],
            10.0,
            bars.clone(),
        ));
        for n in [256u64, 4096, 65536, 1 << 20] {
            let value = (n as f64).log2() * if variant == "radix2" { 1.0 } else { 1.5 };
            rows.push(fft_row(
                &base,
                &format!("fft/sweep/{variant}/{n}"),
                &[("variant", variant.into()), ("n", n.into())],
                value,
                curve.clone(),
            ));
        }
    }
    let stage = ChartHint::Timeline {
        group: "FFT request stages".into(),
        item: "request".into(),
        stage: "stage".into(),
    };
    for s in ["upload", "transform", "readback"] {
        rows.push(fft_row(
            &base,
            &format!("fft/request-1/{s}"),
            &[("request", "request-1".into()), ("stage", s.into())],
            1.0,
            stage.clone(),
        ));
    }
    doc.results = rows;
    doc
}
