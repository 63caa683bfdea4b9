//! The report charts rows by role, metric and chart hint, never by suite name: a suite it has
//! never heard of ("fft") is charted from its hints (bars, a curve on log axes, a timeline
//! table), and files written before hints are charted exactly as before (their hints are
//! inferred), so declaring today's hints explicitly changes nothing on the page.

mod common;

use common::{fft_doc, load, svgs, texts};
use gpubench_results::RunDocument;
use gpubench_results::chart_of::legacy_hint;

#[test]
fn an_unknown_suite_is_charted_by_its_hints() {
    let doc = fft_doc();
    let page = gpubench_report::html::render(&[("fft.json".into(), doc.clone())]).expect("renders");
    assert!(
        page.contains("<h2>FFT by variant</h2>"),
        "the bars have a section"
    );
    assert!(
        page.contains("<h2>FFT throughput by size</h2>"),
        "the curve has a section"
    );
    assert!(
        page.contains("<h2>FFT request stages</h2>"),
        "the timeline is listed"
    );
    let charts = svgs(&page);
    let bars = charts
        .iter()
        .find(|s| s.contains("FFT by variant"))
        .expect("a bar chart");
    for variant in ["radix2", "radix4"] {
        assert!(
            bars.contains(&format!(">{variant}<")) || bars.contains(variant),
            "bar {variant}"
        );
        assert!(
            bars.contains(&format!("fft/{variant}/4096")),
            "the bar's tooltip"
        );
    }
    let curve = charts
        .iter()
        .find(|s| s.contains("FFT throughput by size"))
        .expect("a curve chart");
    for n in [256u64, 4096, 65536, 1 << 20] {
        for variant in ["radix2", "radix4"] {
            assert!(
                curve.contains(&format!("fft/sweep/{variant}/{n}")),
                "point {variant} {n}"
            );
        }
    }
    // Log axes: the ticks are labelled with values, not their logarithms, over decades; the
    // best point's label gives its value.
    let labels = texts(curve);
    for decade in ["1000", "10000", "100000"] {
        assert!(labels.iter().any(|t| t == decade), "{decade} in {labels:?}");
    }
    assert!(
        labels.iter().any(|t| t == "radix4: 30.0 GFLOP/s"),
        "{labels:?}"
    );
    let stages = page
        .split("<h2>FFT request stages</h2>")
        .nth(1)
        .expect("listed");
    let (upload, transform, readback) = (
        stages.find(">upload<"),
        stages.find(">transform<"),
        stages.find(">readback<"),
    );
    assert!(
        upload.is_some() && transform.is_some() && readback.is_some(),
        "every stage"
    );
    // The terminal table has the suite's grid, as for any suite.
    let text = gpubench_report::run_text::run_text(&doc, false);
    assert_eq!(
        text.suites
            .iter()
            .map(|s| s.suite.as_str())
            .collect::<Vec<_>>(),
        ["fft"]
    );
}

#[test]
fn several_files_share_the_hinted_charts() {
    let (a, b) = (fft_doc(), fft_doc());
    let page = gpubench_report::html::render(&[("a.json".into(), a), ("b.json".into(), b)])
        .expect("renders");
    assert!(page.contains("<h2>FFT by variant (every file)</h2>"));
    let charts = svgs(&page);
    let curve = charts
        .iter()
        .find(|s| s.contains("FFT throughput by size"))
        .expect("a curve chart");
    assert!(curve.contains("a.json: radix2") && curve.contains("b.json: radix4"));
}

#[test]
fn hints_declared_as_today_draw_what_old_files_draw() {
    for path in [
        "tests/fixtures/lavapipe-quick.json",
        "tests/fixtures/lavapipe-quick-schema1-baseline.json",
    ] {
        let old = load(path);
        assert!(
            old.results.iter().all(|r| r.chart.is_none()),
            "written before hints"
        );
        let mut declared = old.clone();
        for r in &mut declared.results {
            r.chart = legacy_hint(r);
        }
        let render = |doc: &RunDocument| {
            gpubench_report::html::render(&[("run".into(), doc.clone())]).expect("renders")
        };
        assert_eq!(render(&old), render(&declared), "{path}");
        // And a file's rows under another suite's name are charted the same by their hints.
        let mut renamed = declared.clone();
        for r in &mut renamed.results {
            r.id = format!("x{}", r.id);
            r.suite = format!("x{}", r.suite);
        }
        let page = render(&renamed);
        for heading in [
            "<h2>Roofline</h2>",
            "<h2>Compute peaks</h2>",
            "<h2>Stream</h2>",
            "<h2>Host-device transfer</h2>",
            "<h2>Matmul f32 by shape</h2>",
        ] {
            assert!(render(&old).contains(heading), "{heading}");
            assert!(page.contains(heading), "{path}: {heading} by hint alone");
        }
    }
}

/// The sentence [`fft_doc_stating_more`] gives its last row as a finding.
const FINDING_TEXT: &str = "transform bounds: 1.7 ms of 2.5 ms per request";

/// [`fft_doc`] whose radix-2 sweep rows state a throughput and latencies, and whose last row
/// (`fft/request-1/readback`) has an item timeline of three items and a finding.
fn fft_doc_stating_more() -> RunDocument {
    use gpubench_results::chart::{FINDING, ITEMS_PER_S};
    use gpubench_results::item_timeline::{ItemTimeline, StageSpan, TimelineItem};
    use gpubench_results::stats::LatencySummary;

    let mut doc = fft_doc();
    for r in doc
        .results
        .iter_mut()
        .filter(|r| r.id.starts_with("fft/sweep/radix2/"))
    {
        let n = r.params["n"].as_f64().expect("n");
        r.extra.insert(ITEMS_PER_S.into(), (1e6 / n).into());
        r.latency = Some(Box::new(LatencySummary {
            p50_us: n,
            p95_us: 2.0 * n,
            p99_us: 3.0 * n,
            max_us: 4.0 * n,
            n: 40,
        }));
    }
    let timeline = ItemTimeline {
        clock: "host".into(),
        items: (0..3u64)
            .map(|k| TimelineItem {
                item: k,
                spans: vec![
                    StageSpan::new("upload", 1000.0 * k as f64, 1000.0 * k as f64 + 800.0),
                    StageSpan::new(
                        "transform",
                        1000.0 * k as f64 + 800.0,
                        1000.0 * k as f64 + 2500.0,
                    ),
                ],
            })
            .collect(),
    };
    let last = doc.results.last_mut().expect("rows");
    timeline.store(&mut last.extra);
    last.extra.insert(FINDING.into(), FINDING_TEXT.into());
    doc
}

/// A suite the report has never heard of that states its throughput, its latencies, a
/// typical sample's item timeline and a finding: each reaches the page (latency against
/// throughput, a Gantt chart, a findings list) and the finding the terminal table and
/// Markdown too, all found by their `extra` entries, not by the suite's name.
#[test]
fn throughput_latency_item_timelines_and_findings_reach_every_output() {
    use gpubench_report::Format;
    use gpubench_report::table::TableStyle;

    let doc = fft_doc_stating_more();
    let page = gpubench_report::html::render(&[("fft.json".into(), doc.clone())]).expect("renders");
    let charts = svgs(&page);
    let traded = charts
        .iter()
        .find(|s| s.contains("Latency against throughput: FFT throughput by size"))
        .expect("a latency-against-throughput chart");
    assert!(
        traded.contains("fft/sweep/radix2/4096"),
        "the point's tooltip"
    );
    assert!(traded.contains("radix2 p95"), "a p95 series");
    assert!(
        !traded.contains("radix4"),
        "rows without a latency are left out"
    );
    let timelines = page
        .split("<h2>Item timelines")
        .nth(1)
        .expect("a timeline section");
    assert!(timelines.contains("<h3>fft/request-1/readback</h3>"));
    let gantt = svgs(timelines).into_iter().next().expect("a Gantt chart");
    assert_eq!(
        gantt.matches("<rect").count(),
        6 + 2,
        "six bars and two legend keys"
    );
    assert!(
        gantt.contains("#2 transform: 2.80 to 4.50 ms (1.70 ms)"),
        "{gantt}"
    );
    assert!(page.contains(FINDING_TEXT), "the findings list");

    let text = gpubench_report::run_text::run_text(&doc, false);
    assert_eq!(
        text.suites[0].findings,
        [format!("request-1/readback: {FINDING_TEXT}")]
    );
    for format in [Format::Table, Format::Markdown] {
        let out = format
            .render(&doc, &TableStyle::default())
            .expect("renders");
        assert!(out.contains(FINDING_TEXT), "{format:?}: {out}");
    }
}
