//! The HTML report: one self-contained page (inline CSS and SVG, no scripts, no network) with
//! the machine summary, the roofline, transfer bandwidth against size, launch latency, stream
//! bars, cross-card bars when several files are given, the sustained timeline, the telemetry
//! panel where the run sampled telemetry, and every failed
//! or skipped result with its reason.

pub mod charts;
pub mod data;
mod fleet;
pub mod telemetry;

use gpubench_harness::units::format_size;
use gpubench_harness::{RunDocument, Status};

use crate::ReportError;

/// Renders the page for one or more result documents, each with a label (its file name, say);
/// the first is the reference for ratios.
pub fn render(labelled: &[(String, RunDocument)]) -> Result<String, ReportError> {
    let docs: Vec<RunDocument> = labelled.iter().map(|(_, d)| d.clone()).collect();
    let mut body = String::new();
    body.push_str("<h1>gpubench report</h1>\n");
    if docs.len() > 1 {
        body.push_str(&fleet::machines_table(labelled));
        for (label, doc) in labelled {
            body.push_str(&format!(
                "<details><summary>{}: adapter details</summary>\n{}</details>\n",
                escape(label),
                machine_section(label, doc)
            ));
        }
        fleet::cross_card_sections(&mut body, labelled, &docs)?;
    } else {
        for (label, doc) in labelled {
            body.push_str(&machine_section(label, doc));
        }
    }
    for (label, doc) in labelled {
        let title = if docs.len() > 1 {
            format!(" ({label})")
        } else {
            String::new()
        };
        roofline_and_transfer_sections(&mut body, &title, doc)?;
        for (id, samples, percentiles) in data::latencies(doc) {
            if let Some(svg) = charts::latency(&id, &samples, &percentiles)? {
                section(
                    &mut body,
                    &format!("Launch latency{title}"),
                    &svg,
                    "Each sample is one dispatch submitted and waited for.",
                );
            }
        }
        stream_sections(&mut body, &title, doc)?;
        let (sustained, unit) = data::sustained(doc);
        if let Some(svg) = charts::timeline(&sustained, &unit)? {
            section(
                &mut body,
                &format!("Sustained run{title}"),
                &svg,
                "Throughput of each window; a fall in the last third flags throttling.",
            );
        }
        body.push_str(&telemetry::section(&title, doc)?);
        body.push_str(&results_section(&title, doc));
        body.push_str(&failures_section(&title, doc));
    }
    Ok(page(&body))
}

/// The roofline with its measured ceilings, and transfer bandwidth against size.
fn roofline_and_transfer_sections(
    body: &mut String,
    title: &str,
    doc: &RunDocument,
) -> Result<(), ReportError> {
    let ceilings = data::ceilings(doc);
    if let Some(svg) = charts::roofline(&ceilings, &data::roofline_points(doc))? {
        section(
            body,
            &format!("Roofline{title}"),
            &svg,
            "Ceilings are measured on this adapter: the best stream kernel's bandwidth and the best f32 FMA peak. Points sit at the FLOP per byte of their declared work.",
        );
    }
    let (transfer, models) = data::transfer(doc);
    if let Some(svg) = charts::size_sweep(
        "Host-device transfer: bandwidth against size",
        "transfer size (bytes)",
        &transfer,
        &models,
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

/// Stream bandwidth bars, and the size sweep where the full profile measured one.
fn stream_sections(body: &mut String, title: &str, doc: &RunDocument) -> Result<(), ReportError> {
    let stream = data::stream_bars(doc);
    if !stream.is_empty() {
        let names: Vec<String> = stream.iter().map(|(n, _)| n.clone()).collect();
        let rows: Vec<Vec<Option<data::Bar>>> =
            stream.iter().map(|(_, b)| vec![Some(*b)]).collect();
        let member = vec![doc.machine.adapter.name.clone()];
        if let Some(svg) = charts::bars(
            "Device memory bandwidth (stream)",
            "GB/s (read + written)",
            &names,
            &member,
            &rows,
        )? {
            section(
                body,
                &format!("Stream{title}"),
                &svg,
                "Median with its bootstrap 95% interval; bytes read plus bytes written per second.",
            );
        }
    }
    if let Some(svg) = charts::size_sweep(
        "Stream bandwidth against array size",
        "array size (bytes)",
        &data::stream_sweep(doc),
        &[],
    )? {
        section(
            body,
            &format!("Cache versus memory{title}"),
            &svg,
            "The same kernel over growing arrays: the fall marks where the arrays leave the caches.",
        );
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
    let mut html = format!(
        "<section class=\"machine\">\n<h2>{}</h2>\n<table>\n",
        escape(label)
    );
    for (k, v) in rows {
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
                crate::format::sig3(s.ci_low),
                crate::format::sig3(s.ci_high)
            )
        } else {
            "-".to_string()
        };
        html.push_str(&format!(
            "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&r.id),
            crate::format::sig3(s.median),
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

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gpubench report</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n{body}<footer>GB/s = 10^9 bytes/s; sizes in KiB/MiB/GiB; every number is the median of verified samples.</footer>\n</body>\n</html>\n"
    )
}

const CSS: &str = "body { font-family: sans-serif; margin: 2em auto; max-width: 920px; color: #222; }\n\
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }\n\
table { border-collapse: collapse; } th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }\n\
figure { margin: 0; } .note { color: #555; font-size: 0.9em; }\n\
td.num { text-align: right; } tr.failed td { color: #a00; } tr.skipped td { color: #666; } footer { margin-top: 2em; color: #555; font-size: 0.85em; }\n";
