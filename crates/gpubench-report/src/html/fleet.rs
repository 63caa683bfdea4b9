//! The parts of the page that only several runs have: the table of machines (one row per file,
//! so twenty nodes read as twenty rows, not twenty blocks) and the cross-card charts, one per
//! suite and at most [`BARS_PER_CHART`] results each, so that every suite is covered and every
//! label (the whole id less its suite, broken into lines under its bars) stays readable.

use gpubench_results::RunDocument;
use maud::{Markup, html};

use super::{bars, data, join, section, table_of, titled_section};
use crate::ReportError;

/// Results per cross-card chart: more and the labels under the bars overlap.
pub const BARS_PER_CHART: usize = 8;

/// One row per run: where it ran and how.
pub fn machines_table(labelled: &[(String, RunDocument)]) -> Markup {
    let header = [
        "run",
        "host",
        "adapter",
        "backend",
        "driver",
        "CPU",
        "profile",
        "telemetry",
        "run noise",
        "started",
    ];
    let rows: Vec<Markup> = labelled
        .iter()
        .map(|(label, doc)| {
            html! {
                tr {
                    @for cell in machine_cells(label, doc) {
                        td { (cell) }
                    }
                }
            }
        })
        .collect();
    titled_section("Machines", Some("machines"), table_of(None, &header, &rows))
}

/// The cells of one run's row in the machines table.
fn machine_cells(label: &str, doc: &RunDocument) -> [String; 10] {
    let m = &doc.machine;
    let adapter = if m.software_adapter {
        format!("{} (software: CPU numbers)", m.adapter.name)
    } else {
        format!("{} ({})", m.adapter.name, m.adapter.device_type)
    };
    [
        label.to_string(),
        m.hostname.clone().unwrap_or_else(|| "-".to_string()),
        adapter,
        m.adapter.backend.clone(),
        format!("{} {}", m.adapter.driver, m.adapter.driver_info),
        format!("{} ({} CPUs)", m.cpu_model, m.cpu_count),
        format!("{}, {} build", doc.config.profile, m.build_profile),
        telemetry_cell(doc),
        noise_cell(doc),
        format!(
            "{}{}",
            doc.started_at,
            if doc.complete { "" } else { " (incomplete)" }
        ),
    ]
}

/// The run's own noise level (its reference's drift and spread), or why there is none.
fn noise_cell(doc: &RunDocument) -> String {
    match doc.noise.as_ref().map(|n| (n.level, n)) {
        Some((Some(level), n)) => format!(
            "±{}{}",
            crate::numbers::percent(100.0 * level, 1),
            n.drift.map_or(String::new(), |d| {
                let sign = if d < 0.0 { "-" } else { "+" };
                format!(
                    " (moved {sign}{})",
                    crate::numbers::percent(100.0 * d.abs(), 1)
                )
            })
        ),
        Some((None, n)) => {
            let why = n.reason.as_deref().unwrap_or(match (&n.start, &n.end) {
                (Some(_), None) => "start check only: the run ended before its end check",
                _ => "no check",
            });
            format!("unknown ({why})")
        }
        None => "not measured".to_string(),
    }
}

/// The telemetry status of a run, with the detected link and the datasheet row where present.
fn telemetry_cell(doc: &RunDocument) -> String {
    let Some(t) = &doc.telemetry else {
        return "-".to_string();
    };
    // The status alone: its reason is in the run's telemetry section.
    let mut parts = vec![t.totals.status.as_str().to_string()];
    if let Some(driver) = &t.driver_version {
        parts.push(format!("driver {driver}"));
    }
    if let Some(link) = &t.link {
        let gen_width = link
            .current_generation
            .zip(link.current_width)
            .map_or("?".to_string(), |(g, w)| format!("gen{g} x{w}"));
        parts.push(format!("PCIe {gen_width}"));
    }
    if let Some(nominal) = &t.nominal {
        parts.push(format!("nominal: {} ({})", nominal.name, nominal.source));
    }
    parts.join("; ")
}

/// Why a suite has no cross-card chart.
fn no_cross_card(docs: &[RunDocument], suite: &str) -> &'static str {
    let mut results = docs.iter().take(1).flat_map(|d| &d.results);
    if results.all(|r| r.suite != suite || !r.metric.is_known()) {
        "Its metrics are unknown to this gpubench (a newer one wrote the files): which way is better is not known here, so no ratio is charted (the tables list each file's results)."
    } else {
        "No result of this suite was measured ok, with repeated samples and the same way (unit, direction and clock), in every file: nothing to set side by side (the tables list each file's results)."
    }
}

/// A cross-card chart per suite (split into charts of [`BARS_PER_CHART`]), results named
/// without their suite.
pub fn cross_card_sections(
    labelled: &[(String, RunDocument)],
    docs: &[RunDocument],
) -> Result<Markup, ReportError> {
    let labels: Vec<String> = labelled.iter().map(|(label, _)| label.clone()).collect();
    let mut sections = Vec::new();
    for suite in data::suites(docs) {
        let (ids, rows) = data::cross_card_of(docs, |r| r.suite == suite);
        if ids.is_empty() {
            sections.push(titled_section(
                &format!("Cross-card: {suite}"),
                None,
                html! {
                    p class="note" { (no_cross_card(docs, &suite)) }
                    "\n"
                },
            ));
            continue;
        }
        let parts = ids.len().div_ceil(BARS_PER_CHART);
        for (part, (ids, rows)) in ids
            .chunks(BARS_PER_CHART)
            .zip(rows.chunks(BARS_PER_CHART))
            .enumerate()
        {
            let short: Vec<String> = ids.iter().map(|id| bar_label(&suite, id)).collect();
            let title = if parts > 1 {
                format!("Cross-card: {suite} ({}/{parts})", part + 1)
            } else {
                format!("Cross-card: {suite}")
            };
            if let Some(svg) = bars::bars(
                &format!("{title}: ratio to the first file (> 1 is better)"),
                "ratio",
                &short,
                &labels,
                rows,
            )? {
                sections.push(section(
                    &title,
                    &svg,
                    "Each bar is a result's median divided by the first file's (inverted for time-per-op metrics), with the 95% interval of that file's median. Results not ok in every file are left out.",
                ));
            }
        }
    }
    Ok(join(sections))
}

/// A result's label under its bar: the id without its suite (the chart's title names it);
/// the bars module breaks it into lines.
fn bar_label(suite: &str, id: &str) -> String {
    id.strip_prefix(&format!("{suite}/"))
        .unwrap_or(id)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_labels_drop_the_suite_only() {
        assert_eq!(
            bar_label("stream", "stream/copy/vec4-f32/16MiB"),
            "copy/vec4-f32/16MiB"
        );
        assert_eq!(
            bar_label("launch", "launch/submit/per-submit"),
            "submit/per-submit"
        );
        assert_eq!(
            bar_label("compute", "compute/fma-peak/vec4-f32"),
            "fma-peak/vec4-f32"
        );
    }
}
