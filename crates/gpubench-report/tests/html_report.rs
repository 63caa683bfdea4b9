//! The HTML report as a user sees it: rendered from a recorded lavapipe run, every chart is
//! well-formed SVG carrying the series it promises, failures are listed with reasons, and the
//! page needs nothing from the network.

use gpubench_harness::RunDocument;
use gpubench_harness::results_file::load_document;

fn recorded() -> RunDocument {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lavapipe-quick.json");
    load_document(&path).expect("the recorded run loads")
}

/// Every `<svg>...</svg>` element of the page, each parsed as XML.
fn svgs(page: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = page;
    while let Some(start) = rest.find("<svg") {
        let end =
            rest[start..].find("</svg>").expect("every svg is closed") + start + "</svg>".len();
        let svg = &rest[start..end];
        roxmltree::Document::parse(svg)
            .unwrap_or_else(|e| panic!("chart is not well-formed SVG: {e}"));
        found.push(svg.to_string());
        rest = &rest[end..];
    }
    found
}

fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("parsed");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

/// The chart one of whose texts matches `text`.
fn chart_with(charts: &[String], text: impl Fn(&str) -> bool) -> &String {
    charts
        .iter()
        .find(|svg| texts(svg).iter().any(|t| text(t)))
        .expect("a chart with that text")
}

/// The stream chart names every kernel, its unit, and draws a bar per ok stream result.
fn assert_stream_chart(charts: &[String], doc: &gpubench_harness::RunDocument) {
    let stream = chart_with(charts, |t| t.contains("Device memory bandwidth"));
    let labels = texts(stream);
    for kernel in ["copy", "add", "triad", "read", "fill"] {
        assert!(
            labels.iter().any(|t| t == kernel),
            "stream chart labels {kernel}: {labels:?}"
        );
    }
    assert!(
        labels.iter().any(|t| t.contains("GB/s")),
        "the value axis names its unit"
    );
    // One bar per ok stream result, drawn as a rect with the series colour.
    let ok_stream = doc
        .results
        .iter()
        .filter(|r| r.suite == "stream" && r.median().is_some())
        .count();
    assert!(stream.matches("<rect").count() >= ok_stream);
}

/// The roofline, transfer and latency charts carry their ceilings, paths, sizes and percentiles.
fn assert_roofline_transfer_and_latency_charts(charts: &[String]) {
    // The roofline carries its measured roof and the sweep; the transfer chart one line per
    // path with size labels in binary units; the latency chart its percentiles.
    let roofline = chart_with(charts, |t| t == "Roofline");
    let labels = texts(roofline);
    assert!(
        labels
            .iter()
            .any(|t| t.starts_with("roof: ") && t.contains("GB/s") && t.contains("GFLOP/s")),
        "{labels:?}"
    );
    assert!(
        labels.iter().any(|t| t == "roofline sweep") && labels.iter().any(|t| t == "matmul f32")
    );
    assert!(labels.iter().any(|t| t.contains("FLOP per byte")));
    let transfer = chart_with(charts, |t| t.contains("Host-device transfer"));
    let labels = texts(transfer);
    for path in [
        "h2d-write-buffer",
        "h2d-mapped-staging",
        "h2d-mapped-at-creation",
        "d2h-map-read",
    ] {
        assert!(
            labels.iter().any(|t| t == path),
            "transfer chart has {path}: {labels:?}"
        );
    }
    assert!(
        labels.iter().any(|t| t == "4KiB") && labels.iter().any(|t| t == "1MiB"),
        "{labels:?}"
    );
    let latency = chart_with(charts, |t| t.starts_with("Launch round trip"));
    let labels = texts(latency);
    for p in ["p50", "p95", "p99"] {
        assert!(
            labels.iter().any(|t| t.starts_with(p)),
            "latency chart marks {p}: {labels:?}"
        );
    }
}

#[test]
fn one_run_renders_machine_charts_and_failures() {
    let mut doc = recorded();
    // One result failed verification and one was skipped: both must be listed with reasons.
    let failed = doc
        .results
        .iter_mut()
        .find(|r| r.id.starts_with("stream/scale"))
        .expect("scale ran");
    failed.status = gpubench_harness::Status::Failed;
    failed.reason = Some("verification failed: 3 of 4096 values outside tolerance".into());
    failed.summary = None;
    let skipped = doc
        .results
        .iter_mut()
        .find(|r| r.id.starts_with("compute/fma-peak/vec4-f16"))
        .expect("f16 ran");
    skipped.status = gpubench_harness::Status::Skipped;
    skipped.reason = Some("adapter lacks SHADER_F16".into());
    skipped.summary = None;
    let page = gpubench_report::html::render(&[("lavapipe-quick".to_string(), doc.clone())])
        .expect("renders");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script"), "no scripts required");
    assert!(
        !page.contains("src=\"http") && !page.contains("href=\"http"),
        "nothing from the network"
    );
    assert!(!page.contains("NaN"), "no NaN anywhere");
    assert!(page.contains(&doc.machine.adapter.name));
    assert!(page.contains("software adapter"));

    let charts = svgs(&page);
    assert!(!charts.is_empty());
    assert_stream_chart(&charts, &doc);
    assert_roofline_transfer_and_latency_charts(&charts);

    for reason in [
        "verification failed: 3 of 4096 values outside tolerance",
        "adapter lacks SHADER_F16",
    ] {
        assert!(page.contains(reason), "the reason '{reason}' is listed");
    }
    assert!(page.contains("Failed and skipped"));
}

#[test]
fn several_runs_add_a_cross_card_chart_with_one_series_per_file() {
    let doc = recorded();
    let mut slower = doc.clone();
    for r in &mut slower.results {
        for v in &mut r.samples {
            *v *= 0.8;
        }
        if let Some(s) = &mut r.summary {
            s.median *= 0.8;
            s.ci_low *= 0.8;
            s.ci_high *= 0.8;
        }
    }
    let page = gpubench_report::html::render(&[("base".into(), doc), ("slower".into(), slower)])
        .expect("renders");
    let charts = svgs(&page);
    let cross = charts
        .iter()
        .find(|svg| texts(svg).iter().any(|t| t.contains("Cross-card")))
        .expect("a cross-card chart");
    let labels = texts(cross);
    assert!(
        labels.iter().any(|t| t == "base") && labels.iter().any(|t| t == "slower"),
        "{labels:?}"
    );
}

#[test]
fn several_runs_get_a_machines_table_and_a_cross_card_chart_for_every_suite() {
    let doc = recorded();
    let mut other = doc.clone();
    other.machine.hostname = Some("node7".to_string());
    let suites: Vec<String> = {
        let mut s: Vec<String> = Vec::new();
        for r in &doc.results {
            if r.status == gpubench_harness::Status::Ok
                && r.summary.as_ref().is_some_and(|s| s.n > 1)
                && !s.contains(&r.suite)
            {
                s.push(r.suite.clone());
            }
        }
        s
    };
    assert!(
        suites.len() >= 2,
        "the fixture spans several suites: {suites:?}"
    );
    let page =
        gpubench_report::html::render(&[("a".into(), doc), ("b".into(), other)]).expect("renders");
    assert!(page.contains("<h2>Machines</h2>") && page.contains("node7"));
    for suite in &suites {
        assert!(
            page.contains(&format!("Cross-card: {suite}")),
            "no cross-card chart for {suite}"
        );
    }
}
