//! Helpers shared by the HTML report's tests: the recorded lavapipe run, documents derived from
//! it, rendering, and reading the charts of a page.

#![allow(dead_code)] // each test binary uses its own subset

use gpubench_results::chart::ChartHint;
use gpubench_results::results_file::load_document;
use gpubench_results::stats::summarize;
use gpubench_results::telemetry::NominalFigures;
use gpubench_results::{BenchResult, MetricKind, Role, RunDocument, Status};

/// The results file at `path`, relative to this crate.
pub fn load(path: &str) -> RunDocument {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    load_document(&path).expect("the recorded run loads")
}

/// The recorded lavapipe run the HTML tests render.
pub fn recorded() -> RunDocument {
    load("tests/fixtures/lavapipe-quick.json")
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

/// Turns the result `id` of `doc` into one with `status` and `reason` and no summary.
pub fn mark_not_ok(doc: &mut RunDocument, id: &str, status: Status, reason: &str) {
    let result = doc
        .results
        .iter_mut()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} ran"));
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

/// Every `<svg>...</svg>` element of the page, each checked to be well-formed.
pub fn svgs(page: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find("<svg") {
        let end =
            rest[start..].find("</svg>").expect("every svg is closed") + start + "</svg>".len();
        let svg = &rest[start..end];
        parse(svg);
        found.push(svg.to_string());
        rest = &rest[end..];
    }
    found
}

/// `svg` parsed as XML.
pub fn parse(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed SVG: {e}"))
}

/// The trimmed texts of an SVG.
pub fn texts(svg: &str) -> Vec<String> {
    parse(svg)
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

/// A datasheet row for an H200.
pub fn nominal_h200() -> NominalFigures {
    NominalFigures {
        name: "NVIDIA H200".into(),
        matched_by: "device id".into(),
        memory_bandwidth_gbs: Some(4800.0),
        fp32_tflops: None,
        fp16_tflops: None,
        fp16_tensor_tflops: None,
        fp64_tflops: None,
        int8_tensor_tops: None,
        pcie_generation: None,
        source: "datasheet".into(),
    }
}
