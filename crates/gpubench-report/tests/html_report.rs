//! The HTML report as a user sees it: rendered from a recorded lavapipe run, every chart is
//! well-formed SVG carrying the series it promises, failures are listed with reasons, and the
//! page needs nothing from the network.

mod common;

use common::{mark_not_ok, nominal_h200, parse, recorded, render, scaled, svgs, texts};
use gpubench_results::{RunDocument, Status};

/// The chart one of whose texts matches `text`.
fn chart_with(charts: &[String], text: impl Fn(&str) -> bool) -> &String {
    charts
        .iter()
        .find(|svg| texts(svg).iter().any(|t| text(t)))
        .expect("a chart with that text")
}

/// The stream chart names every kernel, its unit, and draws a bar per ok stream result.
fn assert_stream_chart(charts: &[String], doc: &RunDocument) {
    let stream = chart_with(charts, |t| t == "Shader kernels (GPU)");
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
    let latency = chart_with(charts, |t| t == "Latency: launch/round-trip/one-dispatch");
    let labels = texts(latency);
    for p in ["p50", "p95", "p99"] {
        assert!(
            labels.iter().any(|t| t.starts_with(p)),
            "latency chart marks {p}: {labels:?}"
        );
    }
}

/// A data path's serial requests are captioned and labelled as requests (prepare, upload,
/// compute, check), in the result's own words, never as launch round trips.
#[test]
fn a_request_histogram_is_worded_from_its_result() {
    let mut doc = recorded();
    let mut request = doc
        .result("launch/round-trip/one-dispatch")
        .expect("a round trip")
        .clone();
    request.id = "datapath/balanced/serial".to_string();
    request.suite = "datapath".to_string();
    request.counts =
        "time of one request end to end (prepare, upload, compute, download, check), one at a time"
            .to_string();
    doc.results.push(request);
    let page = render(&[("run", &doc)]);
    let charts = svgs(&page);
    let chart = chart_with(&charts, |t| t == "Latency: datapath/balanced/serial");
    let labels = texts(chart);
    assert!(
        labels
            .iter()
            .any(|t| t == "time of one request end to end (us)"),
        "{labels:?}"
    );
    assert!(chart.contains("each time of one request end to end (prepare, upload"));
    assert!(!page.contains("round-trip latencies") && !page.contains("Launch round trip"));
}

#[test]
fn one_run_renders_machine_charts_and_failures() {
    let mut doc = recorded();
    // One result failed verification and one was skipped: both must be listed with reasons.
    let failure = "verification failed: 3 of 4096 values outside tolerance";
    let skip = "adapter lacks SHADER_F16";
    mark_not_ok(
        &mut doc,
        "stream/scale/vec4-f32/16MiB",
        Status::Failed,
        failure,
    );
    mark_not_ok(&mut doc, "compute/fma-peak/vec4-f16", Status::Skipped, skip);
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

    for reason in [failure, skip] {
        assert!(page.contains(reason), "the reason '{reason}' is listed");
    }
    assert!(page.contains("Failed and skipped"));
}

#[test]
fn several_runs_add_a_cross_card_chart_with_one_series_per_file() {
    let doc = recorded();
    let slower = scaled(&doc, 0.8);
    let page = gpubench_report::html::render(&[("base".into(), doc), ("slower".into(), slower)])
        .expect("renders");
    let charts = svgs(&page);
    let cross = chart_with(&charts, |t| t.contains("Cross-card"));
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
            if r.status == Status::Ok
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

fn render_one(doc: &RunDocument) -> String {
    render(&[("lavapipe-quick", doc)])
}

fn attr(n: roxmltree::Node<'_, '_>, name: &str) -> f64 {
    n.attribute(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("<{}> has a numeric {name}", n.tag_name().name()))
}

/// The text of an element's `<title>` child, if any.
fn title_of(n: roxmltree::Node<'_, '_>) -> Option<String> {
    n.children()
        .find(|c| c.has_tag_name("title"))
        .and_then(|t| t.text())
        .map(str::to_string)
}

/// The elements of class `mark` (data marks) in `svg`, with their titles.
fn marks(svg: &str) -> Vec<(String, Option<String>)> {
    parse(svg)
        .descendants()
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|c| c == "mark"))
        })
        .map(|n| {
            (
                n.attribute("fill").unwrap_or_default().to_string(),
                title_of(n),
            )
        })
        .collect()
}

/// Every `<circle>`, `<polygon>` and `<rect>` that is not the background, a plot-area outline, a
/// legend box or a legend key is a data mark, and every data mark carries a non-empty tooltip.
fn assert_every_mark_has_a_title(svg: &str) {
    for n in parse(svg).descendants() {
        let tag = n.tag_name().name();
        if !matches!(tag, "circle" | "rect" | "polygon") {
            continue;
        }
        let class = n.attribute("class").unwrap_or_default();
        if matches!(class, "plot-area" | "legend-box" | "key") {
            continue;
        }
        if class.is_empty() && tag == "rect" && attr(n, "x") == 0.0 && attr(n, "y") == 0.0 {
            continue; // the background
        }
        let title = title_of(n).unwrap_or_default();
        assert!(
            !title.trim().is_empty(),
            "a <{tag} class=\"{class}\"> without a tooltip"
        );
    }
}

#[test]
fn every_drawn_point_and_bar_has_a_tooltip_with_value_unit_and_interval() {
    let doc = recorded();
    let page = render_one(&doc);
    let charts = svgs(&page);
    for svg in &charts {
        assert_every_mark_has_a_title(svg);
    }
    let roofline = chart_with(&charts, |t| t == "Roofline");
    let drawn: usize = gpubench_report::html::data::roofline_points(&doc)
        .iter()
        .map(|s| s.points.len())
        .sum();
    let tips = marks(roofline);
    assert_eq!(tips.len(), drawn, "one mark per roofline point");
    let r = doc
        .result("matmul/f16/256x256x256")
        .expect("the fixture has this shape");
    let s = r.summary.as_ref().expect("ok");
    let tip = tips
        .iter()
        .filter_map(|(_, t)| t.as_deref())
        .find(|t| t.starts_with(&r.id))
        .expect("the shape's point has a tooltip");
    let sig3 = gpubench_report::numbers::sig3;
    for want in [
        "256x256x256".to_string(),
        "unrolled16x16-acc32".to_string(),
        format!("median {} GFLOP/s", sig3(s.median)),
        format!("[{}, {}]", sig3(s.ci_low), sig3(s.ci_high)),
    ] {
        assert!(tip.contains(&want), "tooltip {tip:?} lacks {want:?}");
    }
    let many = gpubench_report::html::render(&[
        ("a".into(), doc.clone()),
        ("b".into(), scaled(&doc, 0.9)),
    ])
    .expect("renders");
    for svg in svgs(&many) {
        assert_every_mark_has_a_title(&svg);
    }
}

/// The best compute result of the given precision.
fn compute_peak(doc: &RunDocument, precision: &str) -> f64 {
    doc.results
        .iter()
        .filter(|r| {
            r.suite == "compute"
                && r.params.get("precision").and_then(|v| v.as_str()) == Some(precision)
        })
        .filter_map(|r| r.median())
        .fold(0.0, f64::max)
}

#[test]
fn an_f64_peak_gives_its_own_roof_and_none_is_drawn_without_one() {
    let mut doc = recorded();
    let labels = texts(chart_with(&svgs(&render_one(&doc)), |t| t == "Roofline"));
    assert!(!labels.iter().any(|t| t.contains("f64")), "{labels:?}");
    // The recorded run predates the f64 peak: add one at a sixteenth of the f32 vector peak.
    let mut f64_row = doc
        .result("compute/fma-peak/vec4-f32")
        .expect("the fixture's f32 peak")
        .clone();
    f64_row.id = "compute/fma-peak/vec4-f64".into();
    f64_row.params.insert("precision".into(), "f64".into());
    for v in &mut f64_row.samples {
        *v /= 16.0;
    }
    f64_row.summary = gpubench_results::stats::summarize(&f64_row.samples);
    let peak = f64_row.median().expect("a median");
    doc.results.push(f64_row);
    let labels = texts(chart_with(&svgs(&render_one(&doc)), |t| t == "Roofline"));
    let roof = format!("f64 peak {}", gpubench_report::numbers::sig3(peak));
    assert!(
        labels.iter().any(|t| t.contains(&roof)),
        "{roof} in {labels:?}"
    );
    assert!(
        labels.iter().any(|t| t.starts_with("f64 roof:")),
        "{labels:?}"
    );
}

#[test]
fn the_f16_roof_is_drawn_wherever_f16_results_are() {
    let doc = recorded();
    let f16 = compute_peak(&doc, "f16");
    assert!(f16 > 0.0, "the fixture measured an f16 peak");
    let roof = format!("f16 peak {}", gpubench_report::numbers::sig3(f16));
    let labels = texts(chart_with(&svgs(&render_one(&doc)), |t| t == "Roofline"));
    assert!(
        labels.iter().any(|t| t.contains(&roof)),
        "{roof} in {labels:?}"
    );
    assert!(labels.iter().any(|t| t.contains(&format!(
        "f32 peak {}",
        gpubench_report::numbers::sig3(compute_peak(&doc, "f32"))
    ))));

    // Without an f16 peak, the page says so instead of drawing a roof.
    let mut no_peak = doc.clone();
    no_peak
        .results
        .retain(|r| !(r.suite == "compute" && r.id.ends_with("f16")));
    let labels = texts(chart_with(&svgs(&render_one(&no_peak)), |t| {
        t == "Roofline"
    }));
    assert!(
        labels.iter().any(|t| t.contains("no f16 roof measured")),
        "{labels:?}"
    );
    assert!(!labels.iter().any(|t| t.contains("f16 peak")));

    // f16 products that sum in f32 are their own series, under the f32 roof: with only those,
    // no f16 roof.
    let mut summed_in_f32 = doc.clone();
    for r in &mut summed_in_f32.results {
        if r.suite == "matmul" && r.id.starts_with("matmul/f16") {
            r.params.insert("accumulation".into(), "f32".into());
        }
    }
    let labels = texts(chart_with(&svgs(&render_one(&summed_in_f32)), |t| {
        t == "Roofline"
    }));
    assert!(
        labels.iter().any(|t| t == "matmul f16 (f32 sums)"),
        "{labels:?}"
    );
    assert!(!labels.iter().any(|t| t.contains("f16 peak")), "{labels:?}");

    // Without f16 points, no f16 roof.
    let mut no_points = doc;
    no_points
        .results
        .retain(|r| !(r.suite == "matmul" && r.id.starts_with("matmul/f16")));
    let labels = texts(chart_with(&svgs(&render_one(&no_points)), |t| {
        t == "Roofline"
    }));
    assert!(!labels.iter().any(|t| t.contains("f16")), "{labels:?}");
}

fn numbers(svg: &str) -> Vec<(String, f64)> {
    texts(svg)
        .into_iter()
        .filter_map(|t| t.parse::<f64>().ok().map(|v| (t, v)))
        .collect()
}

#[test]
fn tick_labels_carry_no_spurious_decimals() {
    let page = render_one(&recorded());
    let charts = svgs(&page);
    let roofline = numbers(chart_with(&charts, |t| t == "Roofline"));
    let transfer = numbers(chart_with(&charts, |t| t.contains("Host-device transfer")));
    for want in ["0.1", "1", "10"] {
        assert!(
            roofline.iter().any(|(t, _)| t == want),
            "roofline ticks {roofline:?}"
        );
    }
    assert!(
        transfer.iter().any(|(t, _)| t == "1"),
        "transfer ticks {transfer:?}"
    );
    for svg in &charts {
        for (t, _) in numbers(svg) {
            assert!(
                !(t.contains('.') && t.ends_with('0')),
                "tick {t} has a spurious trailing zero"
            );
        }
    }
}

#[test]
fn the_latency_histogram_fits_its_samples_and_counts_in_integers() {
    let samples: Vec<f64> = (0..200).map(|i| 1000.0 + f64::from(i % 50) * 2.0).collect();
    let svg = gpubench_report::html::charts::latency(&words("t"), &samples, &[("p50", 1050.0)])
        .expect("drawn")
        .expect("a chart");
    let ticks = numbers(&svg);
    let x: Vec<f64> = ticks.iter().map(|t| t.1).filter(|v| *v > 200.0).collect();
    assert!(x.len() >= 3, "x ticks {ticks:?}");
    assert!(
        x.iter().all(|v| (990.0..=1110.0).contains(v)),
        "the x axis spans the samples, not from zero: {ticks:?}"
    );
    for (t, v) in ticks.iter().filter(|t| t.1 <= 200.0) {
        assert!(v.fract() == 0.0 && !t.contains('.'), "count tick {t}");
    }
}

fn boxes(svg: &str, class: &str) -> Vec<(f64, f64, f64, f64)> {
    parse(svg)
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some(class))
        .map(|n| {
            let (x, y) = (attr(n, "x"), attr(n, "y"));
            (x, y, x + attr(n, "width"), y + attr(n, "height"))
        })
        .collect()
}

#[test]
fn legends_sit_outside_the_plot_area() {
    let doc = recorded();
    let page = gpubench_report::html::render(&[
        ("a".into(), doc.clone()),
        ("b".into(), scaled(&doc, 0.8)),
    ])
    .expect("renders");
    let mut legends = 0;
    for svg in svgs(&render_one(&doc)).iter().chain(&svgs(&page)) {
        let plots = boxes(svg, "plot-area");
        assert!(!plots.is_empty(), "every chart records its plot area");
        for l in boxes(svg, "legend-box") {
            legends += 1;
            for p in &plots {
                let apart = l.0 >= p.2 || p.0 >= l.2 || l.1 >= p.3 || p.1 >= l.3;
                assert!(apart, "legend {l:?} overlaps the plot area {p:?}");
            }
        }
    }
    assert!(legends > 5, "the charts have legends");
}

/// The fill of the stream mark whose tooltip starts with `id`, and the plot area it is in.
fn stream_mark(svg: &str, id: &str) -> (String, usize) {
    let doc = parse(svg);
    let plots = boxes(svg, "plot-area");
    let n = doc
        .descendants()
        .find(|n| {
            n.attribute("class") == Some("mark") && title_of(*n).is_some_and(|t| t.starts_with(id))
        })
        .unwrap_or_else(|| panic!("a bar for {id}"));
    let x = attr(n, "x");
    let area = plots
        .iter()
        .position(|p| x >= p.0 && x <= p.2)
        .expect("inside a plot area");
    (n.attribute("fill").unwrap_or_default().to_string(), area)
}

#[test]
fn host_memcpy_and_the_copy_engine_stand_apart_from_the_shader_kernels() {
    let page = render_one(&recorded());
    let charts = svgs(&page);
    let stream = chart_with(&charts, |t| t == "Shader kernels (GPU)");
    let (kernel, kernel_area) = stream_mark(stream, "stream/copy/vec4-f32");
    let (copy_engine, copy_area) = stream_mark(stream, "stream/copy-buffer");
    let (host, host_area) = stream_mark(stream, "stream/host-memcpy");
    assert!(
        kernel != copy_engine && kernel != host && copy_engine != host,
        "{kernel} {copy_engine} {host}"
    );
    assert_ne!(kernel_area, copy_area, "the copy engine has its own axis");
    assert_eq!(copy_area, host_area);
    assert!(texts(stream).iter().any(|t| t.contains("host CPU")));
}

#[test]
fn the_best_rate_is_shown_beside_the_median() {
    let doc = recorded();
    let page = render_one(&doc);
    let stream = chart_with(&svgs(&page), |t| t == "Shader kernels (GPU)").clone();
    let ticks = parse(&stream)
        .descendants()
        .filter(|n| n.attribute("class") == Some("mark best"))
        .count();
    let rows: Vec<_> = doc
        .results
        .iter()
        .filter(|r| r.suite == "stream" && r.median().is_some())
        .collect();
    assert_eq!(ticks, rows.len(), "one best-rate tick per stream bar");
    for r in rows {
        // The best rate: bytes over the fastest sample's time, i.e. the largest rate sample.
        let best = r.samples.iter().copied().fold(f64::MIN, f64::max);
        assert!(best >= r.median().unwrap_or(f64::MAX));
        let cell = format!(
            "<td class=\"num best\">{}</td>",
            gpubench_report::numbers::sig3(best)
        );
        assert!(page.contains(&cell), "{} best rate {cell}", r.id);
    }
    assert!(page.contains("best (max rate)"));
}

#[test]
fn the_verdict_table_shows_what_the_comparison_computes() {
    use gpubench_baseline::compare::{CompareOptions, compare};
    let doc = recorded();
    let slower = scaled(&doc, 0.8);
    let page = gpubench_report::html::render(&[
        ("base".into(), doc.clone()),
        ("slower".into(), slower.clone()),
    ])
    .expect("renders");
    let cmp = compare("base", &doc, "slower", &slower, &CompareOptions::default());
    let mut checked = 0;
    for pair in &cmp.pairs {
        let Some(r) = &pair.ratio else { continue };
        let ci = format!("[{:.3}, {:.3}]", r.ci_low, r.ci_high);
        let row = page
            .lines()
            .find(|l| l.contains(&format!("<td>{}</td>", pair.id)) && l.contains(&ci))
            .unwrap_or_else(|| panic!("a verdict row for {} with {ci}", pair.id));
        assert!(row.contains(pair.verdict.as_str()), "{row}");
        checked += 1;
    }
    assert!(checked > 10, "the comparison has ratios");

    let mut other = slower;
    other.machine.fingerprint = "another-adapter".into();
    other.machine.adapter.name = "Another adapter".into();
    let page = gpubench_report::html::render(&[("base".into(), doc), ("other".into(), other)])
        .expect("renders");
    assert!(page.contains("<td>no verdict (different adapters)</td>"));
}

#[test]
fn several_files_share_one_transfer_chart_and_one_stream_chart() {
    let doc = recorded();
    let labelled: Vec<(String, RunDocument)> = [("a", 1.0), ("b", 0.9), ("c", 0.7)]
        .iter()
        .map(|(l, f)| (l.to_string(), scaled(&doc, *f)))
        .collect();
    let page = gpubench_report::html::render(&labelled).expect("renders");
    let charts = svgs(&page);
    let transfer: Vec<&String> = charts
        .iter()
        .filter(|svg| {
            texts(svg)
                .iter()
                .any(|t| t.contains("Host-device transfer"))
        })
        .collect();
    assert_eq!(transfer.len(), 1, "one transfer chart for three files");
    let (series, _) = gpubench_report::html::data::transfer(&doc);
    let points: usize = series.iter().map(|s| s.points.len()).sum();
    assert_eq!(
        marks(transfer[0]).len(),
        3 * points,
        "every file's points in it"
    );
    let labels = texts(transfer[0]);
    for l in ["a", "b", "c"] {
        assert!(
            labels.iter().any(|t| t == l),
            "legend names file {l}: {labels:?}"
        );
    }
    let stream = charts
        .iter()
        .filter(|svg| texts(svg).iter().any(|t| t == "Shader kernels (GPU)"))
        .count();
    assert_eq!(stream, 1, "one stream chart for three files");
}

#[test]
fn the_machines_table_shows_where_and_how_each_file_ran() {
    use gpubench_results::telemetry::{RunTelemetry, TelemetryStatus, TelemetrySummary};
    let doc = recorded();
    let mut other = doc.clone();
    other.machine.hostname = Some("node7".into());
    other.machine.adapter.backend = "gl".into();
    other.telemetry = Some(RunTelemetry {
        totals: TelemetrySummary::without_readings(TelemetryStatus::Sampled, None),
        trace: Vec::new(),
        max_sm_clock_mhz: None,
        max_memory_clock_mhz: None,
        driver_version: Some("550.54".into()),
        link: None,
        nominal: Some(nominal_h200()),
    });
    let mut noise = gpubench_results::run_noise::RunNoise::new("ref", "GFLOP/s");
    noise.level = Some(0.125);
    noise.drift = Some(-0.125);
    other.noise = Some(noise);
    let page = gpubench_report::html::render(&[("a".into(), doc.clone()), ("b".into(), other)])
        .expect("renders");
    let start = page.find("<h2>Machines</h2>").expect("a machines table");
    let table = &page[start..start + page[start..].find("</table>").expect("closed")];
    let m = &doc.machine;
    for want in [
        "node7",
        m.adapter.name.as_str(),
        "vulkan",
        "gl",
        m.adapter.driver.as_str(),
        m.cpu_model.as_str(),
        doc.config.profile.as_str(),
        m.build_profile.as_str(),
        "driver 550.54",
        "nominal: NVIDIA H200 (datasheet)",
        "±12.5% (moved -12.5%)",
        "not measured",
    ] {
        assert!(table.contains(want), "the machines table lacks {want:?}");
    }
}

/// Latency histogram words for a result `id` of one operation per sample.
fn words(id: &str) -> gpubench_report::html::data::LatencyWords {
    gpubench_report::html::data::LatencyWords::new(id, "time of one operation", "us")
}
