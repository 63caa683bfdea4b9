//! The HTML report: one self-contained page (inline CSS and SVG, no scripts, no network) with
//! the machine summary, the roofline, the compute peaks and matmul shapes, transfer bandwidth
//! against size, the charts any other suite's results ask for by their chart hints ([`hinted`]),
//! launch latency, stream bars, cross-card bars when several files are given, the sustained
//! timeline, the telemetry panel where the run sampled telemetry, and every failed or skipped
//! result with its reason. Rows are chosen by role, metric and chart hint, never by suite name
//! (files written before hints get theirs from `gpubench_results::chart::legacy_hint`).
//!
//! Where several files are given, what users set side by side shares one chart with a colour
//! per file: the roofline, compute, matmul, stream and transfer charts. Every chart scales to
//! the page's width and carries a text alternative (see [`overlay`]).

pub mod bars;
pub mod charts;
pub mod data;
mod fleet;
pub mod hinted;
pub mod histogram;
pub mod overlay;
pub mod roofline;
mod stream;
pub mod suite_bars;
pub mod telemetry;
mod verdicts;

use gpubench_results::units::format_size;
use gpubench_results::{RunDocument, Status};

use crate::ReportError;
use data::Series;
use overlay::Key;

/// Renders the page for one or more result documents, each with a label (its file name, say);
/// the first is the reference for ratios and verdicts.
pub fn render(labelled: &[(String, RunDocument)]) -> Result<String, ReportError> {
    let mut body = String::new();
    body.push_str("<h1>gpubench report</h1>\n");
    if labelled.len() > 1 {
        several_files(&mut body, labelled)?;
    } else {
        for (label, doc) in labelled {
            body.push_str(&machine_section(label, doc));
            roofline_section(&mut body, "", &[(label.clone(), doc)])?;
            suite_bars::compute_and_matmul(&mut body, "", &[(label.clone(), doc)])?;
            stream_section(&mut body, "", &[(label.clone(), doc)])?;
            memory_section(&mut body, "", &[(label.clone(), doc)])?;
            transfer_section(&mut body, "", &[(label.clone(), doc)])?;
            hinted_sections(&mut body, "", &[(label.clone(), doc)])?;
            latency_sections(&mut body, "", doc)?;
            per_file_sections(&mut body, "", doc)?;
        }
    }
    Ok(page(&body))
}

/// The several-file page: machines side by side, verdicts against the first file, one overlaid
/// chart each for the roofline, compute, matmul, transfers and stream, the cross-card charts,
/// then what each file alone has.
fn several_files(body: &mut String, labelled: &[(String, RunDocument)]) -> Result<(), ReportError> {
    let docs: Vec<RunDocument> = labelled.iter().map(|(_, d)| d.clone()).collect();
    let files: Vec<(String, &RunDocument)> = labelled.iter().map(|(l, d)| (l.clone(), d)).collect();
    body.push_str(&fleet::machines_table(labelled));
    for (label, doc) in labelled {
        body.push_str(&format!(
            "<details><summary>{}: adapter details</summary>\n{}</details>\n",
            escape(label),
            machine_section(label, doc)
        ));
    }
    roofline_section(body, " (every file)", &files)?;
    suite_bars::compute_and_matmul(body, " (every file)", &files)?;
    transfer_section(body, " (every file)", &files)?;
    stream_section(body, " (every file)", &files)?;
    memory_section(body, " (every file)", &files)?;
    hinted_sections(body, " (every file)", &files)?;
    body.push_str(&verdicts::section(labelled));
    fleet::cross_card_sections(body, labelled, &docs)?;
    for (label, doc) in labelled {
        let title = format!(" ({label})");
        latency_sections(body, &title, doc)?;
        per_file_sections(body, &title, doc)?;
    }
    Ok(())
}

/// The sections of one file that no overlay replaces: the stream size sweep, the sustained
/// timeline, telemetry, every result, and failures.
fn per_file_sections(body: &mut String, title: &str, doc: &RunDocument) -> Result<(), ReportError> {
    if let Some(svg) = charts::size_sweep(
        "Stream bandwidth against array size",
        "array size (bytes)",
        &data::stream_sweep(doc),
        &[],
        None,
    )? {
        section(
            body,
            &format!("Cache versus memory{title}"),
            &svg,
            "The same kernel over growing arrays: the fall marks where the arrays leave the caches.",
        );
    }
    let (sustained, unit) = data::sustained(doc);
    if let Some(svg) = charts::timeline(&sustained, &unit)? {
        section(
            body,
            &format!("Sustained run{title}"),
            &svg,
            "Throughput of each window; a fall in the last third flags throttling.",
        );
    }
    body.push_str(&telemetry::section(title, doc)?);
    body.push_str(&results_section(title, doc));
    body.push_str(&failures_section(title, doc));
    Ok(())
}

/// The roofline with its measured ceilings: one chart for every file, a colour per file when
/// several.
fn roofline_section(
    body: &mut String,
    title: &str,
    files: &[(String, &RunDocument)],
) -> Result<(), ReportError> {
    let several = files.len() > 1;
    let sets: Vec<roofline::RoofSet> = files
        .iter()
        .map(|(label, doc)| roofline::RoofSet {
            label: if several {
                label.clone()
            } else {
                String::new()
            },
            ceilings: data::ceilings(doc),
            points: data::roofline_points(doc),
        })
        .collect();
    let each = if several {
        " Each file's roofs and points take its colour; each kind of point its marker."
    } else {
        ""
    };
    if let Some(svg) = roofline::chart(&sets)? {
        section(
            body,
            &format!("Roofline{title}"),
            &svg,
            &format!(
                "Ceilings are measured on each adapter: the best stream kernel's bandwidth, the best f32 FMA peak and, where f16 results are drawn, the compute suite's f16 peak (dashed), which bounds products that sum in f16, and its f64 peak (dotted) where it measured one, the roof f64 code meets (no f64 points are swept); f16 products that sum in f32 run their arithmetic in f32, under the f32 roof. Points sit at the FLOP per byte of their declared work; hover a point for its shape, variant and interval.{each}"
            ),
        );
    }
    Ok(())
}

/// The memory hierarchy: read bandwidth and dependent-load latency against the working set,
/// log x, a colour per file when several.
fn memory_section(
    body: &mut String,
    title: &str,
    files: &[(String, &RunDocument)],
) -> Result<(), ReportError> {
    if let Some(svg) = charts::working_set_sweep(
        "Read bandwidth against working set",
        &data::memory_sweep(files, "read"),
        ("GB/s", "GB/s (10^9 bytes/s)"),
    )? {
        section(
            body,
            &format!("Memory hierarchy: bandwidth{title}"),
            &svg,
            "Bytes read per second by workgroups that each stream a 1 MiB window of a working set of this size (smaller sets are walked repeatedly, larger ones shared out): each fall marks where the set leaves a cache. On a software adapter the shader's loads, not the caches, may bound the curve.",
        );
    }
    if let Some(svg) = charts::working_set_sweep(
        "Dependent-load latency against working set",
        &data::memory_sweep(files, "chase"),
        ("ns", "ns per dependent load"),
    )? {
        section(
            body,
            &format!("Memory hierarchy: latency{title}"),
            &svg,
            "One invocation following a random cycle through the working set in 64-byte nodes, one load at a time: each step up marks where the set leaves a cache.",
        );
    }
    Ok(())
}

/// The charts of results whose chart hints name groups without a layout of their own (any
/// suite's, the report naming none): their bars, curves and timelines.
fn hinted_sections(
    body: &mut String,
    title: &str,
    files: &[(String, &RunDocument)],
) -> Result<(), ReportError> {
    suite_bars::hinted_sections(body, title, files)?;
    hinted::sections(body, title, files)
}

/// Launch round-trip histograms.
fn latency_sections(body: &mut String, title: &str, doc: &RunDocument) -> Result<(), ReportError> {
    for (id, samples, percentiles) in data::latencies(doc) {
        if let Some(svg) = charts::latency(&id, &samples, &percentiles)? {
            section(
                body,
                &format!("Launch latency{title}"),
                &svg,
                "Each sample is one dispatch submitted and waited for. Clipped axis: the x axis runs over the samples within Tukey's far fences (Q1 - 3 IQR to Q3 + 3 IQR), so that one stall does not squash the rest into one bin; samples beyond it are counted in the end bin, drawn dark grey, and the legend says how many and how far they reach.",
            );
        }
    }
    Ok(())
}

/// Transfer bandwidth against size: one chart for every file, one colour per file and one
/// marker per path when several.
fn transfer_section(
    body: &mut String,
    title: &str,
    files: &[(String, &RunDocument)],
) -> Result<(), ReportError> {
    let (series, models, legend) = transfer_overlay(files);
    if let Some(svg) = charts::size_sweep(
        "Host-device transfer: bandwidth against size",
        "transfer size (bytes)",
        &series,
        &models,
        legend,
    )? {
        section(
            body,
            &format!("Host-device transfer{title}"),
            &svg,
            "Bytes moved once per second. End-to-end paths are timed on the host, start to completion; copy-engine paths (-copy) by GPU timestamps per copy; host-write per memcpy (each row's measures param). Dashed: the fitted model t = fixed + bytes / bandwidth.",
        );
    }
    Ok(())
}

/// Transfer series, their fitted models (name, fixed us, GB/s) and the legend when it is not
/// one entry per series.
type TransferOverlay = (
    Vec<Series>,
    Vec<(String, f64, f64)>,
    Option<Vec<(Key, String)>>,
);

/// Every file's transfer series (named `file: path` when several, coloured by file, marked by
/// path), their models, and the legend by file and by path.
fn transfer_overlay(files: &[(String, &RunDocument)]) -> TransferOverlay {
    if let [(_, doc)] = files {
        let (series, models) = data::transfer(doc);
        return (series, models, None);
    }
    let (mut all, mut all_models, mut paths) = (Vec::new(), Vec::new(), Vec::<String>::new());
    let mut legend: Vec<(Key, String)> = Vec::new();
    for (f, (label, doc)) in files.iter().enumerate() {
        legend.push((Key::Line(charts::colour(f)), label.clone()));
        let (series, models) = data::transfer(doc);
        for mut s in series {
            let p = paths.iter().position(|q| *q == s.name).unwrap_or_else(|| {
                paths.push(s.name.clone());
                paths.len() - 1
            });
            let name = format!("{label}: {}", s.name);
            if let Some(m) = models.iter().find(|m| m.0 == s.name) {
                all_models.push((name.clone(), m.1, m.2));
            }
            (s.name, s.colour, s.marker) = (name, f, p);
            all.push(s);
        }
    }
    for (p, path) in paths.iter().enumerate() {
        legend.push((Key::Marker(charts::colour(7), p), path.clone()));
    }
    (all, all_models, Some(legend))
}

/// Stream bars of every file in one chart, with the table of medians and best rates.
fn stream_section(
    body: &mut String,
    title: &str,
    files: &[(String, &RunDocument)],
) -> Result<(), ReportError> {
    let rows: Vec<(String, Vec<data::StreamBar>)> = files
        .iter()
        .map(|(label, doc)| (label.clone(), data::stream_bars(doc)))
        .filter(|(_, bars)| !bars.is_empty())
        .collect();
    if let Some(svg) = stream::chart(&rows)? {
        body.push_str(&format!(
            "<section>\n<h2>Stream{}</h2>\n<figure>{svg}</figure>\n<p class=\"note\">{}</p>\n{}</section>\n",
            escape(title),
            escape("Median with its bootstrap 95% interval; bytes read plus bytes written per second. The tick on each bar is the best sample (the fastest: max rate), the figure BabelStream reports and the best of STREAM's trials; the median is this tool's headline. The copy engine (copy_buffer_to_buffer) and host memcpy (a host CPU figure) are drawn apart, on their own axis."),
            stream::table(&rows)
        ));
    }
    Ok(())
}

fn section(body: &mut String, title: &str, svg: &str, note: &str) {
    body.push_str(&format!(
        "<section>\n<h2>{}</h2>\n<figure>{svg}</figure>\n<p class=\"note\">{}</p>\n</section>\n",
        escape(title),
        escape(note)
    ));
}

fn machine_section(label: &str, doc: &RunDocument) -> String {
    let m = &doc.machine;
    let a = &m.adapter;
    let limit = |k: &str| a.limits.get(k).map_or("-".to_string(), |v| format_size(*v));
    let rows = [
        (
            "adapter",
            format!(
                "{} ({}, vendor 0x{:04x}, device 0x{:04x})",
                a.name, a.device_type, a.vendor_id, a.device_id
            ),
        ),
        ("driver", format!("{} {}", a.driver, a.driver_info)),
        ("backend", a.backend.clone()),
        (
            "software adapter",
            if m.software_adapter {
                "yes: these are CPU numbers".into()
            } else {
                "no".into()
            },
        ),
        (
            "limits",
            format!(
                "max buffer {}, max storage binding {}, workgroup storage {}",
                limit("max_buffer_size"),
                limit("max_storage_buffer_binding_size"),
                limit("max_compute_workgroup_storage_size")
            ),
        ),
        ("features", a.features.join(", ")),
        (
            "timing",
            format!(
                "{} (wgpu {}, {} build)",
                m.timing_source.as_str(),
                m.wgpu_version,
                m.build_profile
            ),
        ),
        (
            "host",
            format!("{} on {} ({} CPUs)", m.os, m.cpu_model, m.cpu_count),
        ),
        (
            "run",
            format!(
                "profile {}, started {}{}",
                doc.config.profile,
                doc.started_at,
                if doc.complete { "" } else { ", incomplete" }
            ),
        ),
    ];
    let noise = doc.noise.as_ref().map(|n| ("run noise", n.describe()));
    let mut html = format!(
        "<section class=\"machine\">\n<h2>{}</h2>\n<table>\n",
        escape(label)
    );
    for (k, v) in rows.into_iter().chain(noise) {
        html.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>\n",
            escape(k),
            escape(&v)
        ));
    }
    html.push_str("</table>\n</section>\n");
    html
}

/// Every ok result as a row: the numbers behind the charts, and those no chart shows.
fn results_section(title: &str, doc: &RunDocument) -> String {
    let ok: Vec<_> = doc
        .results
        .iter()
        .filter(|r| r.status == Status::Ok)
        .collect();
    if ok.is_empty() {
        return String::new();
    }
    let mut html = format!(
        "<section>\n<h2>All results{}</h2>\n<table class=\"results\">\n<tr><th>result</th><th>median</th><th>unit</th><th>95% CI</th><th>timing</th></tr>\n",
        escape(title)
    );
    for r in ok {
        let Some(s) = &r.summary else { continue };
        let ci = if s.n > 1 {
            format!(
                "{} - {}",
                crate::numbers::sig3(s.ci_low),
                crate::numbers::sig3(s.ci_high)
            )
        } else {
            "-".to_string()
        };
        html.push_str(&format!(
            "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&r.id),
            crate::numbers::sig3(s.median),
            escape(&r.unit),
            ci,
            r.timing.map_or("-", |t| t.as_str())
        ));
    }
    html.push_str("</table>\n</section>\n");
    html
}

fn failures_section(title: &str, doc: &RunDocument) -> String {
    let bad: Vec<_> = doc
        .results
        .iter()
        .filter(|r| r.status != Status::Ok)
        .collect();
    if bad.is_empty() {
        return String::new();
    }
    let mut html = format!(
        "<section>\n<h2>Failed and skipped{}</h2>\n<table>\n<tr><th>result</th><th>status</th><th>reason</th></tr>\n",
        escape(title)
    );
    for r in bad {
        html.push_str(&format!(
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            r.status.as_str(),
            escape(&r.id),
            r.status.as_str(),
            escape(r.reason.as_deref().unwrap_or("no reason recorded"))
        ));
    }
    html.push_str("</table>\n</section>\n");
    html
}

/// Escapes text for HTML, the one rule every text the page shows goes through: control
/// characters (NUL included) and bidirectional overrides become their visible escapes first
/// ([`printable`]), since an entity for U+202E would still reverse the text after it; then
/// `& < > "` become entities.
pub fn escape(text: &str) -> String {
    crate::numbers::printable(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>gpubench report</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n{body}<footer>GB/s = 10^9 bytes/s; sizes in KiB/MiB/GiB; every number is the median of verified samples.</footer>\n</body>\n</html>\n"
    )
}

const CSS: &str = "body { font-family: sans-serif; margin: 2em auto; padding: 0 12px; max-width: 884px; color: #222; }\n\
svg.chart { display: block; width: 100%; height: auto; max-width: 860px; }\n\
table { display: block; max-width: 100%; overflow-x: auto; } .machine td { overflow-wrap: anywhere; }\n\
ul.left-out { color: #666; font-size: 0.9em; }\n\
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }\n\
table { border-collapse: collapse; } th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }\n\
figure { margin: 0; } .note { color: #555; font-size: 0.9em; }\n\
td.num { text-align: right; } table.stream td:first-child, table.verdict td:first-child { white-space: nowrap; }\n\
details { margin: 0.3em 0; } h3 { font-size: 1.05em; margin-bottom: 0.2em; }\n\
 tr.failed td { color: #a00; } tr.skipped td { color: #666; } footer { margin-top: 2em; color: #555; font-size: 0.85em; }\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_neutralises_markup_nul_and_bidirectional_overrides() {
        assert_eq!(escape("<script>&\""), "&lt;script&gt;&amp;&quot;");
        let hostile = escape("id\0\u{202e}gnp.exe\u{1b}[2J");
        assert!(!hostile.contains(['\0', '\u{202e}', '\u{1b}']), "{hostile}");
        assert_eq!(hostile, "id\\u{0}\\u{202e}gnp.exe\\u{1b}[2J");
    }
}
