//! The HTML report: one self-contained page (inline CSS and SVG, no scripts, no network) with
//! the machine summary, the roofline, the compute peaks and matmul shapes, transfer bandwidth
//! against size, the charts any other suite's results ask for by their chart hints ([`hinted`]),
//! launch latency, stream bars, cross-card bars when several files are given, the sustained
//! timeline, the telemetry panel where the run sampled telemetry, and every failed or skipped
//! result with its reason. Rows are chosen by role, metric and chart hint, never by suite name
//! (files written before hints get theirs from `gpubench_results::chart_of::legacy_hint`).
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
mod item_timelines;
pub mod overlay;
pub mod roofline;
mod stream;
pub mod suite_bars;
pub mod telemetry;
mod verdicts;

use gpubench_results::clock_tally::ClockTally;
use gpubench_results::units::format_size;
use gpubench_results::{RunDocument, Status};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::ReportError;
use crate::numbers::{printable, sig3};
use data::Series;
use overlay::Key;

/// Renders the page for one or more result documents, each with a label (its file name, say);
/// the first is the reference for ratios and verdicts.
///
/// Every text reaches the page through one of two rules, each applied once by construction:
/// the templates escape `& < > "` in every interpolation (charts, which are markup already, are
/// inserted as such), and the finished page goes through [`printable`], so that no control
/// character (NUL included) or bidirectional override from a file reaches it, whichever part
/// of the page it landed in (an entity for U+202E would still reverse the text after it).
pub fn render(labelled: &[(String, RunDocument)]) -> Result<String, ReportError> {
    let body = if labelled.len() > 1 {
        several_files(labelled)?
    } else {
        let files = labelled.iter().map(|(label, doc)| one_file(label, doc));
        join(files.collect::<Result<Vec<_>, _>>()?)
    };
    Ok(printable(&page(body).into_string()))
}

/// `parts` one after another.
fn join(parts: impl IntoIterator<Item = Markup>) -> Markup {
    html! {
        @for part in parts {
            (part)
        }
    }
}

/// The sections of a page of one file.
fn one_file(label: &str, doc: &RunDocument) -> Result<Markup, ReportError> {
    let files = [(label.to_string(), doc)];
    Ok(html! {
        (machine_section(label, doc))
        (roofline_section("", &files)?)
        (suite_bars::compute_and_matmul("", &files)?)
        (stream_section("", &files)?)
        (memory_section("", &files)?)
        (transfer_section("", &files)?)
        (hinted_sections("", &files)?)
        (findings_section("", doc))
        (item_timelines::section("", doc))
        (latency_sections("", doc)?)
        (per_file_sections("", doc)?)
    })
}

/// The several-file page: machines side by side, verdicts against the first file, one overlaid
/// chart each for the roofline, compute, matmul, transfers and stream, the cross-card charts,
/// then what each file alone has.
fn several_files(labelled: &[(String, RunDocument)]) -> Result<Markup, ReportError> {
    let docs: Vec<RunDocument> = labelled.iter().map(|(_, d)| d.clone()).collect();
    let files: Vec<(String, &RunDocument)> = labelled.iter().map(|(l, d)| (l.clone(), d)).collect();
    let every = " (every file)";
    Ok(html! {
        (fleet::machines_table(labelled))
        @for (label, doc) in labelled {
            details {
                summary { (label) ": adapter details" }
                "\n"
                (machine_section(label, doc))
            }
            "\n"
        }
        (roofline_section(every, &files)?)
        (suite_bars::compute_and_matmul(every, &files)?)
        (transfer_section(every, &files)?)
        (stream_section(every, &files)?)
        (memory_section(every, &files)?)
        (hinted_sections(every, &files)?)
        (verdicts::section(labelled))
        (fleet::cross_card_sections(labelled, &docs)?)
        @for (label, doc) in labelled {
            @let title = format!(" ({label})");
            (findings_section(&title, doc))
            (item_timelines::section(&title, doc))
            (latency_sections(&title, doc)?)
            (per_file_sections(&title, doc)?)
        }
    })
}

/// The sections of one file that no overlay replaces: the stream size sweep, the sustained
/// timeline, telemetry, every result, and failures.
fn per_file_sections(title: &str, doc: &RunDocument) -> Result<Markup, ReportError> {
    let sweep = charts::size_sweep(
        "Stream bandwidth against array size",
        "array size (bytes)",
        &data::stream_sweep(doc),
        &[],
        None,
    )?;
    let (sustained, unit) = data::sustained(doc);
    Ok(html! {
        (chart_section(
            &format!("Cache versus memory{title}"),
            sweep,
            "The same kernel over growing arrays: the fall marks where the arrays leave the caches.",
        ))
        (chart_section(
            &format!("Sustained run{title}"),
            charts::timeline(&sustained, &unit)?,
            "Throughput of each window; a fall in the last third flags throttling.",
        ))
        (telemetry::section(title, doc)?)
        (results_section(title, doc))
        (failures_section(title, doc))
    })
}

/// The roofline with its measured ceilings: one chart for every file, a colour per file when
/// several.
fn roofline_section(title: &str, files: &[(String, &RunDocument)]) -> Result<Markup, ReportError> {
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
    Ok(chart_section(
        &format!("Roofline{title}"),
        roofline::chart(&sets)?,
        &format!(
            "Ceilings are measured on each adapter: the bytes read per second of the roofline sweep or the stream suite's read, the f32 FMA peak in the sweep's instruction form and, where f16 results are drawn, the compute suite's f16 peak (dashed), which bounds products that sum in f16, and its f64 peak (dotted) where it measured one, the roof f64 code meets (no f64 points are swept); f16 products that sum in f32 run their arithmetic in f32, under the f32 roof. Points sit at the FLOP per byte of their declared work; hover a point for its shape, variant and interval.{each}"
        ),
    ))
}

/// The memory hierarchy: read bandwidth and dependent-load latency against the working set,
/// log x, a colour per file when several.
fn memory_section(title: &str, files: &[(String, &RunDocument)]) -> Result<Markup, ReportError> {
    let bandwidth = charts::working_set_sweep(
        "Read bandwidth against working set",
        &data::memory_sweep(files, "read"),
        ("GB/s", "GB/s (10^9 bytes/s)"),
    )?;
    let latency = charts::working_set_sweep(
        "Dependent-load latency against working set",
        &data::memory_sweep(files, "chase"),
        ("ns", "ns per dependent load"),
    )?;
    Ok(html! {
        (chart_section(
            &format!("Memory hierarchy: bandwidth{title}"),
            bandwidth,
            "Bytes read per second by workgroups that each stream a 1 MiB window of a working set of this size (smaller sets are walked repeatedly, larger ones shared out): each fall marks where the set leaves a cache. On a software adapter the shader's loads, not the caches, may bound the curve.",
        ))
        (chart_section(
            &format!("Memory hierarchy: latency{title}"),
            latency,
            "One invocation following a random cycle through the working set in 64-byte nodes, one load at a time: each step up marks where the set leaves a cache.",
        ))
    })
}

/// The charts of results whose chart hints name groups without a layout of their own (any
/// suite's, the report naming none): their bars, curves and timelines.
fn hinted_sections(title: &str, files: &[(String, &RunDocument)]) -> Result<Markup, ReportError> {
    Ok(html! {
        (suite_bars::hinted_sections(title, files)?)
        (hinted::sections(title, files)?)
    })
}

/// The sentences results state for the reader (`extra.finding`: a data path's bounding stage
/// and its what-if), each after its result's id; nothing where no result states one.
fn findings_section(title: &str, doc: &RunDocument) -> Markup {
    let findings: Vec<(&str, &str)> = doc
        .results
        .iter()
        .filter_map(|r| Some((r.id.as_str(), gpubench_results::chart_of::finding_of(r)?)))
        .collect();
    section_of(&format!("Findings{title}"), &findings, |findings| {
        html! {
            ul {
                @for (id, finding) in findings {
                    li { code { (id) } ": " (finding) }
                    "\n"
                }
            }
            "\n"
        }
    })
}

/// Latency histograms: of every result whose samples are each one operation waited for (a
/// launch round trip, a serial request), whatever its suite.
fn latency_sections(title: &str, doc: &RunDocument) -> Result<Markup, ReportError> {
    let mut sections = Vec::new();
    for (words, samples, percentiles) in data::latencies(doc) {
        let each = if words.each.is_empty() {
            String::new()
        } else {
            format!(" Here: {}.", words.each)
        };
        sections.push(chart_section(
            &format!("Latency{title}"),
            charts::latency(&words, &samples, &percentiles)?,
            &format!("Each sample is one operation (a dispatch, a request) submitted and waited for.{each} Clipped axis: the x axis runs over the samples within Tukey's far fences (Q1 - 3 IQR to Q3 + 3 IQR, the IQR taken as at least 5% of the median so that near-constant samples do not clip their neighbours), so that one stall does not squash the rest into one bin; samples beyond it are counted in the end bin, drawn dark grey, and the legend says how many and how far they reach."),
        ));
    }
    Ok(join(sections))
}

/// Transfer bandwidth against size: one chart for every file, one colour per file and one
/// marker per path when several.
fn transfer_section(title: &str, files: &[(String, &RunDocument)]) -> Result<Markup, ReportError> {
    let (series, models, legend) = transfer_overlay(files);
    let chart = charts::size_sweep(
        "Host-device transfer: bandwidth against size",
        "transfer size (bytes)",
        &series,
        &models,
        legend,
    )?;
    let mut note = "Bytes moved once per second. End-to-end paths are timed on the host, start to completion; copy-engine paths (-copy) by GPU timestamps per copy; host-write per memcpy (each row's measures param). Dashed: the fitted model t = fixed + bytes / bandwidth.".to_string();
    for apart in crate::link::notes_for(series.iter().map(|s| s.name.as_str())) {
        note.push_str(" Drawn apart: ");
        note.push_str(apart);
        note.push('.');
    }
    Ok(chart_section(
        &format!("Host-device transfer{title}"),
        chart,
        &note,
    ))
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
fn stream_section(title: &str, files: &[(String, &RunDocument)]) -> Result<Markup, ReportError> {
    let rows: Vec<(String, Vec<data::StreamBar>)> = files
        .iter()
        .map(|(label, doc)| (label.clone(), data::stream_bars(doc)))
        .filter(|(_, bars)| !bars.is_empty())
        .collect();
    let Some(svg) = stream::chart(&rows)? else {
        return Ok(html! {});
    };
    Ok(section_with(
        &format!("Stream{title}"),
        &svg,
        "Median with its 95% interval; bytes read plus bytes written per second. The tick on each bar is the best sample (the fastest: max rate), the figure BabelStream reports and the best of STREAM's trials; the median is this tool's headline. The copy engine (copy_buffer_to_buffer) and host memcpy (a host CPU figure) are drawn apart, on their own axis.",
        stream::table(&rows),
    ))
}

/// A chart in a `<figure>`. The chart is markup already: the overlay's templates escape what
/// they write, and plotters escapes the texts it draws.
fn figure(svg: &str) -> Markup {
    html! {
        figure { (PreEscaped(svg)) }
    }
}

/// A section with a heading, a chart and the note under it.
fn section(title: &str, svg: &str, note: &str) -> Markup {
    section_with(title, svg, note, html! {})
}

/// [`section`] with `more` (a table) after the note.
fn section_with(title: &str, svg: &str, note: &str, more: Markup) -> Markup {
    titled_section(
        title,
        None,
        html! {
            (figure(svg))
            "\n"
            p class="note" { (note) }
            "\n"
            (more)
        },
    )
}

/// A section (of `class`, where given) headed `heading`, `body` under the heading: the frame
/// every section of the page shares.
fn titled_section(heading: &str, class: Option<&str>, body: Markup) -> Markup {
    html! {
        section class=[class] {
            "\n"
            h2 { (heading) }
            "\n"
            (body)
        }
        "\n"
    }
}

/// A section headed `heading` showing `items` as `body` draws them; nothing where there are
/// none.
fn section_of<T>(heading: &str, items: &[T], body: impl FnOnce(&[T]) -> Markup) -> Markup {
    if items.is_empty() {
        return html! {};
    }
    titled_section(heading, None, body(items))
}

/// [`section`] where a chart was drawn; nothing where none was.
fn chart_section(title: &str, chart: Option<String>, note: &str) -> Markup {
    chart.map_or_else(|| html! {}, |svg| section(title, &svg, note))
}

/// The adapter, driver, limits, timing, host and run of one file, a row each.
fn machine_rows(doc: &RunDocument) -> Vec<(&'static str, String)> {
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
                "{}; wgpu {}, {} build",
                ClockTally::of(&doc.results).describe(m.timing_source),
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
    rows.into_iter().chain(noise).collect()
}

/// The machine of one file, headed by its label.
fn machine_section(label: &str, doc: &RunDocument) -> Markup {
    titled_section(
        label,
        Some("machine"),
        html! {
            table {
                "\n"
                @for (k, v) in machine_rows(doc) {
                    tr { th { (k) } td { (v) } }
                    "\n"
                }
            }
            "\n"
        },
    )
}

/// A table's header row.
fn header_row(cells: &[&str]) -> Markup {
    html! {
        tr {
            @for cell in cells {
                th { (cell) }
            }
        }
    }
}

/// A table (of `class`, where given): `header`, then `rows`.
fn table_of(class: Option<&str>, header: &[&str], rows: &[Markup]) -> Markup {
    html! {
        table class=[class] {
            "\n"
            (header_row(header))
            "\n"
            @for row in rows {
                (row)
                "\n"
            }
        }
        "\n"
    }
}

/// Every ok result as a row: the numbers behind the charts, and those no chart shows.
fn results_section(title: &str, doc: &RunDocument) -> Markup {
    let ok: Vec<_> = doc
        .results
        .iter()
        .filter(|r| r.status == Status::Ok)
        .collect();
    section_of(&format!("All results{title}"), &ok, |ok| {
        let rows: Vec<Markup> = ok
            .iter()
            .filter_map(|r| Some((r, r.summary.as_ref()?)))
            .map(|(r, s)| {
                let ci = if s.has_interval() {
                    format!("{} - {}", sig3(s.ci_low), sig3(s.ci_high))
                } else {
                    "-".to_string()
                };
                html! {
                    tr {
                        td { (r.id) }
                        td class="num" { (sig3(s.median)) }
                        td { (r.unit) }
                        td { (ci) }
                        td { (crate::run_text::timing_cell(r)) }
                    }
                }
            })
            .collect();
        let header = ["result", "median", "unit", "95% CI", "timing"];
        let derived = ok.iter().any(|r| crate::run_text::shows_derived(r));
        html! {
            (table_of(Some("results"), &header, &rows))
            @if derived {
                p class="note" { (crate::run_text::DERIVED_NOTE) }
                "\n"
            }
        }
    })
}

/// Every failed and skipped result with its reason.
fn failures_section(title: &str, doc: &RunDocument) -> Markup {
    let rows: Vec<Markup> = doc
        .results
        .iter()
        .filter(|r| r.status != Status::Ok)
        .map(|r| {
            html! {
                tr class=(r.status.as_str()) {
                    td { (r.id) }
                    td { (r.status.as_str()) }
                    td { (r.reason.as_deref().unwrap_or("no reason recorded")) }
                }
            }
        })
        .collect();
    section_of(&format!("Failed and skipped{title}"), &rows, |rows| {
        table_of(None, &["result", "status", "reason"], rows)
    })
}

/// The page around `body`: head, inline style, heading and footer.
fn page(body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        "\n"
        html lang="en" {
            "\n"
            head {
                "\n"
                meta charset="utf-8";
                "\n"
                meta name="viewport" content="width=device-width, initial-scale=1";
                "\n"
                title { "gpubench report" }
                "\n"
                // The style sheet is raw text in HTML: an entity there would not be decoded.
                style { "\n" (PreEscaped(CSS)) }
                "\n"
            }
            "\n"
            body {
                "\n"
                h1 { "gpubench report" }
                "\n"
                (body)
                footer {
                    "GB/s = 10^9 bytes/s; sizes in KiB/MiB/GiB; every measured number is the median of verified samples, and every derived one (a fit, a ceiling, a fraction of peak) is computed from them."
                }
                "\n"
            }
            "\n"
        }
        "\n"
    }
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

    fn doc_named(name: &str) -> RunDocument {
        gpubench_baseline::testing::doc_with(name, false)
    }

    #[test]
    fn text_from_a_file_neutralises_markup_nul_and_bidirectional_overrides() {
        let page = render(&[(
            "<script>&\"".to_string(),
            doc_named("id\0\u{202e}gnp.exe\u{1b}[2J"),
        )])
        .expect("renders");
        assert!(
            page.contains("<h2>&lt;script&gt;&amp;&quot;</h2>"),
            "{page}"
        );
        assert!(!page.contains(['\0', '\u{202e}', '\u{1b}']), "{page}");
        assert!(
            page.contains("id\\u{0}\\u{202e}gnp.exe\\u{1b}[2J"),
            "{page}"
        );
    }
}
