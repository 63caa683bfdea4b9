//! The HTML report's overlaid roofline, its compute and matmul charts, the clipped latency
//! histogram and the charts' accessibility, checked on pages rendered from a recorded lavapipe
//! run.

mod common;

use common::{mark_not_ok, parse, recorded, render, scaled, svgs, texts};
use gpubench_results::{RunDocument, Status};

/// The charts with a text equal to `text`.
fn charts_with<'a>(charts: &'a [String], text: &str) -> Vec<&'a String> {
    charts
        .iter()
        .filter(|svg| texts(svg).iter().any(|t| t == text))
        .collect()
}

fn one_chart_with<'a>(charts: &'a [String], text: &str) -> &'a String {
    let found = charts_with(charts, text);
    assert_eq!(found.len(), 1, "one chart titled {text:?}");
    found[0]
}

/// The data marks of `svg` whose class is exactly `class`: (fill, tooltip).
fn marks(svg: &str, class: &str) -> Vec<(String, String)> {
    parse(svg)
        .descendants()
        .filter(|n| n.attribute("class") == Some(class))
        .map(|n| {
            let tip = n
                .children()
                .find(|c| c.has_tag_name("title"))
                .and_then(|t| t.text())
                .unwrap_or_default();
            (
                n.attribute("fill").unwrap_or_default().to_string(),
                tip.to_string(),
            )
        })
        .collect()
}

fn distinct(v: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in v {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

#[test]
fn several_files_share_one_roofline_with_a_series_per_file() {
    let doc = recorded();
    let slower = scaled(&doc, 0.8);
    let page = render(&[("a", &doc), ("b", &slower)]);
    let charts = svgs(&page);
    let roofline = one_chart_with(&charts, "Roofline");
    assert!(
        !page.contains("<h2>Roofline (a)</h2>") && !page.contains("<h2>Roofline (b)</h2>"),
        "no roofline per file"
    );
    let points: usize = gpubench_report::html::data::roofline_points(&doc)
        .iter()
        .map(|s| s.points.len())
        .sum();
    let drawn: Vec<(String, String)> = ["mark"].iter().flat_map(|c| marks(roofline, c)).collect();
    assert_eq!(drawn.len(), 2 * points, "every file's points");
    let fills = distinct(drawn.iter().map(|(f, _)| f.clone()));
    assert_eq!(fills.len(), 2, "one colour per file: {fills:?}");
    for (file, fill) in [("a", &fills[0]), ("b", &fills[1])] {
        let of_file = drawn.iter().filter(|(f, _)| f == fill);
        assert!(
            of_file
                .clone()
                .all(|(_, t)| t.ends_with(&format!("file: {file}"))),
            "every point of {file} names it"
        );
        assert_eq!(of_file.count(), points);
    }
    let labels = texts(roofline);
    for file in ["a", "b"] {
        assert!(
            labels
                .iter()
                .any(|t| t.starts_with(&format!("{file}: roof: "))),
            "the legend names {file}'s roof: {labels:?}"
        );
    }
    for kind in ["roofline sweep", "matmul f32"] {
        assert!(labels.iter().any(|t| t == kind), "{kind} in {labels:?}");
    }
}

/// The ok compute results of `doc`.
fn ok_compute(doc: &RunDocument) -> usize {
    doc.results
        .iter()
        .filter(|r| r.suite == "compute" && r.status == Status::Ok && r.summary.is_some())
        .count()
}

/// Asserts that `wanted` are all among `labels`, in that order.
fn assert_in_order(labels: &[String], wanted: &[&str], why: &str) {
    let at: Vec<usize> = wanted
        .iter()
        .map(|w| {
            labels
                .iter()
                .position(|t| t == w)
                .unwrap_or_else(|| panic!("{w} in {labels:?}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{why}: {labels:?}");
}

/// Asserts that `chart` has no category `category` and no mark for the result `id`.
fn assert_not_drawn(chart: &str, category: &str, id: &str) {
    assert!(
        !texts(chart).iter().any(|t| t == category),
        "no bar for {category}"
    );
    assert!(
        marks(chart, "mark").iter().all(|(_, t)| !t.starts_with(id)),
        "{id} is not drawn"
    );
}

/// The recorded run with its result `id` made `status` for `reason`, and its page.
fn page_with_one_not_ok(id: &str, status: Status, reason: &str) -> (RunDocument, String) {
    let mut doc = recorded();
    mark_not_ok(&mut doc, id, status, reason);
    let page = render(&[("lavapipe-quick", &doc)]);
    (doc, page)
}

#[test]
fn the_compute_chart_groups_by_type_and_width_and_leaves_out_what_is_not_ok() {
    let skip = "adapter lacks SHADER_F16";
    let (doc, page) = page_with_one_not_ok("compute/fma-peak/vec4-f16", Status::Skipped, skip);
    let charts = svgs(&page);
    let compute = one_chart_with(&charts, "Compute peak by type and width");
    assert_in_order(
        &texts(compute),
        &["f32 scalar", "f32 vec4", "f16 scalar"],
        "f32 first, scalar first",
    );
    assert_not_drawn(compute, "f16 vec4", "compute/fma-peak/vec4-f16");
    assert_eq!(
        marks(compute, "mark").len(),
        ok_compute(&doc),
        "one bar per ok result"
    );
    assert!(
        page.contains(&format!(
            "<li>skipped: {skip}: compute/fma-peak/vec4-f16</li>"
        )),
        "the skip is said in text"
    );

    let other = scaled(&doc, 0.5);
    let page = render(&[("a", &doc), ("b", &other)]);
    let compute = one_chart_with(&svgs(&page), "Compute peak by type and width").clone();
    let bars = marks(&compute, "mark");
    assert_eq!(bars.len(), 2 * ok_compute(&doc), "both files in one chart");
    assert_eq!(distinct(bars.into_iter().map(|(f, _)| f)).len(), 2);
    assert!(page.contains("<li>skipped: adapter lacks SHADER_F16: a: compute/fma-peak/vec4-f16, b: compute/fma-peak/vec4-f16</li>"));
}

/// `doc` with the compute suite's other number types added, made from its f32 scalar peak: f64
/// (GFLOP/s), i32 and i64 multiply-adds and the i8 dot product (GIOP/s), and the bf16 row that
/// is skipped everywhere.
fn with_number_types(doc: &RunDocument) -> RunDocument {
    let mut out = doc.clone();
    let base = doc
        .result("compute/fma-peak/scalar-f32")
        .expect("the recording has the f32 peak")
        .clone();
    let rows = [
        (
            "compute/fma-peak/vec4-f64",
            "fma-peak",
            "precision",
            "f64",
            "vec4",
        ),
        (
            "compute/int-peak/scalar-i32",
            "int-peak",
            "type",
            "i32",
            "scalar",
        ),
        (
            "compute/int-peak/vec4-i64",
            "int-peak",
            "type",
            "i64",
            "vec4",
        ),
        (
            "compute/dot-peak/packed-i8",
            "dot-peak",
            "type",
            "i8",
            "packed",
        ),
    ];
    for (id, kernel, key, ty, form) in rows {
        let mut r = base.clone();
        r.id = id.to_string();
        r.params.remove("precision");
        r.params.insert("kernel".into(), kernel.into());
        r.params.insert(key.into(), ty.into());
        r.params.insert("form".into(), form.into());
        if kernel != "fma-peak" {
            r.metric = gpubench_results::MetricKind::IntThroughput;
        }
        out.results.push(r);
    }
    let mut bf16 = base;
    bf16.id = "compute/fma-peak/vec4-bf16".to_string();
    out.results.push(bf16);
    let reason = "WGSL has no bf16 type";
    mark_not_ok(
        &mut out,
        "compute/fma-peak/vec4-bf16",
        Status::Skipped,
        reason,
    );
    out
}

#[test]
fn integer_peaks_get_their_own_chart_in_giop_and_f64_joins_the_float_chart() {
    let doc = with_number_types(&recorded());
    let page = render(&[("lavapipe-quick", &doc)]);
    let charts = svgs(&page);
    let float = texts(one_chart_with(&charts, "Compute peak by type and width"));
    assert!(float.iter().any(|t| t == "f64 vec4"), "{float:?}");
    assert!(
        !float.iter().any(|t| t.starts_with("i32")),
        "no GIOP/s bar among GFLOP/s"
    );
    let int_chart = one_chart_with(&charts, "Integer compute peak by type and width");
    let labels = texts(int_chart);
    assert_in_order(
        &labels,
        &["i32 scalar", "i64 vec4", "dot i8 packed"],
        "by type, the dot product last",
    );
    assert!(labels.iter().any(|t| t.contains("GIOP/s")), "{labels:?}");
    assert_eq!(
        marks(int_chart, "mark").len(),
        3,
        "one bar per integer result"
    );
    assert!(page.contains("<li>skipped: WGSL has no bf16 type: compute/fma-peak/vec4-bf16</li>"));
}

#[test]
fn matmul_charts_show_each_shape_and_leave_out_what_is_not_ok() {
    let failure = "verification failed: 3 of 16384 values outside tolerance";
    let (mut doc, page) = page_with_one_not_ok("matmul/f32/128x128x128", Status::Failed, failure);
    let charts = svgs(&page);
    let f32 = one_chart_with(&charts, "Matmul f32 by shape (M x N x K)");
    assert_in_order(
        &texts(f32),
        &["1x256x256", "8x256x256", "64x256x256", "256x256x256"],
        "smallest shape first",
    );
    assert_not_drawn(f32, "128x128x128", "matmul/f32/128x128x128");
    assert_eq!(marks(f32, "mark").len(), 4);
    assert!(page.contains(&format!(
        "<li>failed: {failure}: matmul/f32/128x128x128</li>"
    )));
    one_chart_with(&charts, "Matmul f16 by shape (M x N x K)");

    // A group with nothing ok draws no chart, only the reasons.
    for r in doc
        .results
        .iter_mut()
        .filter(|r| r.id.starts_with("matmul/f16/"))
    {
        r.status = Status::Skipped;
        r.reason = Some("adapter lacks SHADER_F16".into());
        r.summary = None;
    }
    let page = render(&[("lavapipe-quick", &doc)]);
    assert!(charts_with(&svgs(&page), "Matmul f16 by shape (M x N x K)").is_empty());
    assert!(page.contains("<h2>Matmul f16 by shape</h2>"));
    assert!(page.contains("<li>skipped: adapter lacks SHADER_F16: matmul/f16/128x128x128,"));
}

/// The bins' sample counts, read from their tooltips (`a - b us: n of N samples`).
fn bin_counts(svg: &str) -> Vec<u32> {
    ["mark", "mark clipped"]
        .iter()
        .flat_map(|c| marks(svg, c))
        .filter_map(|(_, t)| {
            let after = t.split(" us: ").nth(1)?;
            after.split(' ').next()?.parse().ok()
        })
        .collect()
}

#[test]
fn one_outlier_does_not_squash_the_latency_histogram() {
    // Two modes, 180 - 220 us and 380 - 420 us, and one 3,800 us stall.
    let mut samples: Vec<f64> = (0..100).map(|i| 180.0 + 0.4 * f64::from(i)).collect();
    samples.extend((0..99).map(|i| 380.0 + 0.4 * f64::from(i)));
    samples.push(3800.0);
    let svg = gpubench_report::html::charts::latency(&words("t"), &samples, &[("p50", 300.0)])
        .expect("drawn")
        .expect("a chart");
    let counts = bin_counts(&svg);
    assert_eq!(counts.iter().sum::<u32>(), 200, "every sample is counted");
    let busiest = counts.iter().copied().max().unwrap_or(0);
    assert!(busiest <= 180, "no bin holds over 90%: {counts:?}");
    assert!(
        counts.len() >= 8,
        "the samples spread over bins: {counts:?}"
    );
    let clipped = marks(&svg, "mark clipped");
    assert_eq!(clipped.len(), 1, "the end bin is marked");
    assert!(
        clipped[0]
            .1
            .contains("includes 1 sample beyond the axis, out to 3800 us"),
        "{clipped:?}"
    );
    let labels = texts(&svg);
    assert!(
        labels
            .iter()
            .any(|t| t.starts_with("1 sample beyond the axis")),
        "the legend counts the clipped sample: {labels:?}"
    );
    let ticks: Vec<f64> = labels.iter().filter_map(|t| t.parse().ok()).collect();
    assert!(
        ticks.iter().all(|v| *v < 1000.0),
        "the axis stops short of the stall: {ticks:?}"
    );
    let root = parse(&svg);
    let label = root
        .root_element()
        .attribute("aria-label")
        .unwrap_or_default();
    assert!(label.contains("1 sample beyond it"), "{label}");
}

/// The root `<svg>` is scalable and labelled: a viewBox, no fixed size, role="img", an
/// aria-label, a `<title>` and a `<desc>`; and its text is at least 12 px where drawn.
fn assert_accessible(svg: &str) {
    let doc = parse(svg);
    let root = doc.root_element();
    assert_eq!(root.attribute("role"), Some("img"));
    let label = root.attribute("aria-label").unwrap_or_default();
    assert!(label.len() > 20, "a text alternative: {label:?}");
    let view = root.attribute("viewBox").unwrap_or_default();
    assert_eq!(view.split(' ').count(), 4, "a viewBox: {view:?}");
    assert!(
        root.attribute("width").is_none() && root.attribute("height").is_none(),
        "no fixed pixel size"
    );
    for tag in ["title", "desc"] {
        let child = root.children().find(|c| c.has_tag_name(tag));
        assert!(
            child.and_then(|c| c.text()).is_some_and(|t| !t.is_empty()),
            "a <{tag}>"
        );
    }
    for n in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let size: f64 = n
            .attribute("font-size")
            .and_then(|s| s.trim_end_matches("px").parse().ok())
            .unwrap_or(0.0);
        assert!(
            size >= 12.0,
            "text {:?} at {size} px",
            n.text().unwrap_or_default()
        );
    }
}

#[test]
fn every_chart_scales_with_the_page_and_has_a_text_alternative() {
    let doc = recorded();
    let one = render(&[("lavapipe-quick", &doc)]);
    let two = render(&[("a", &doc), ("b", &scaled(&doc, 0.9))]);
    for page in [&one, &two] {
        assert!(
            page.contains(
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            )
        );
        let charts = svgs(page);
        assert!(charts.len() > 6, "the page has its charts");
        for svg in &charts {
            assert_accessible(svg);
        }
    }
    let roofline = one_chart_with(&svgs(&one), "Roofline").clone();
    let label = parse(&roofline)
        .root_element()
        .attribute("aria-label")
        .unwrap_or_default()
        .to_string();
    assert!(
        label.starts_with("Roofline chart") && label.contains("GFLOP/s"),
        "{label}"
    );
}

/// `doc` with a memory sweep: read rows at `gbs(bytes)` and chase rows at `ns(bytes)` over
/// 4 KiB to 1 MiB, built from one of its own results.
fn with_memory(
    doc: &RunDocument,
    gbs: impl Fn(u64) -> f64,
    ns: impl Fn(u64) -> f64,
) -> RunDocument {
    let mut out = doc.clone();
    let base = out.results[0].clone();
    let mut bytes = 4096u64;
    while bytes <= 1 << 20 {
        for (kernel, value, metric) in [
            ("read", gbs(bytes), gpubench_results::MetricKind::Bandwidth),
            ("chase", ns(bytes), gpubench_results::MetricKind::Latency),
        ] {
            let mut r = base.clone();
            r.id = format!("memory/{kernel}/{bytes}");
            r.suite = "memory".into();
            r.metric = metric;
            r.params.clear();
            r.params.insert("kernel".into(), kernel.into());
            r.params.insert("working_set_bytes".into(), bytes.into());
            r.samples = vec![value];
            r.summary = gpubench_results::stats::summarize(&[value]);
            out.results.push(r);
        }
        bytes *= 2;
    }
    out
}

#[test]
fn the_memory_curves_are_drawn_per_file_with_their_units() {
    let small = with_memory(
        &recorded(),
        |b| if b <= 32 << 10 { 90.0 } else { 30.0 },
        |_| 12.0,
    );
    let big = with_memory(
        &recorded(),
        |_| 400.0,
        |b| if b <= 64 << 10 { 30.0 } else { 300.0 },
    );
    let page = render(&[("cpu", &small), ("gpu", &big)]);
    let charts = svgs(&page);
    let bandwidth = one_chart_with(&charts, "Read bandwidth against working set");
    let latency = one_chart_with(&charts, "Dependent-load latency against working set");
    // Nine sizes, two files, each point a mark in each chart.
    assert_eq!(marks(bandwidth, "mark").len(), 18);
    assert_eq!(marks(latency, "mark").len(), 18);
    let words = texts(latency);
    assert!(
        words.iter().any(|t| t == "ns per dependent load"),
        "{words:?}"
    );
    assert!(
        words.iter().any(|t| t == "cpu") && words.iter().any(|t| t == "gpu"),
        "{words:?}"
    );
    assert!(texts(bandwidth).iter().any(|t| t == "GB/s (10^9 bytes/s)"));
    // A file without memory rows draws neither chart.
    let plain = render(&[("plain", &recorded())]);
    assert!(!plain.contains("Read bandwidth against working set"));
}

/// A log axis whose values stay within one decade (a flat latency curve: 5 to 8 ns per load)
/// still has several labelled ticks, from the bottom of the axis up, not one.
#[test]
fn a_log_axis_over_less_than_a_decade_has_several_ticks() {
    let mut flat = gpubench_report::html::data::Series::new("chase", 0);
    flat.points = (0..8)
        .map(|k| (f64::from(4096 << (2 * k)), 5.0 + f64::from(k) * 0.4))
        .collect();
    let svg =
        gpubench_report::html::charts::working_set_sweep("flat", &[flat], ("ns", "ns per load"))
            .expect("drawn")
            .expect("a chart");
    let ticks: Vec<f64> = texts(&svg).iter().filter_map(|t| t.parse().ok()).collect();
    assert!(ticks.len() >= 3, "y ticks: {ticks:?}");
    let lowest = ticks.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(lowest <= 5.0, "a tick below the lowest point: {ticks:?}");
}

/// Latency histogram words for a result `id` of one operation per sample.
fn words(id: &str) -> gpubench_report::html::data::LatencyWords {
    gpubench_report::html::data::LatencyWords::new(id, "time of one operation", "us")
}
