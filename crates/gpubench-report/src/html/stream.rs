//! The stream chart and table: shader kernels on one axis, and apart from them, on an axis of
//! their own, the copy engine (`copy_buffer_to_buffer`, the GPU's DMA path) and host memcpy (a
//! host CPU figure), so that neither is read as a shader kernel. Each bar is the median with
//! its 95% interval and a tick at the best sample, the max rate BabelStream reports (STREAM
//! reports the best of its trials); the table beside gives both numbers.

use gpubench_results::Role;
use maud::{Markup, html};

use super::bars::{Panel, common_legend, draw_panel};
use super::charts::{colour, svg};
use super::data::{Bar, StreamBar};
use super::overlay::Key;
use super::table_of;
use crate::ReportError;
use crate::numbers::sig3;

/// Colour of the copy engine's bar (one file).
const COPY_ENGINE: usize = 4;
/// Colour of host memcpy's bar (one file).
const HOST: usize = 7;

/// What a reference row is called on the chart.
fn reference_name(label: &str, role: Role) -> String {
    match role {
        Role::HostReference => format!("host CPU: {label}"),
        _ => format!("copy engine: {label}"),
    }
}

/// Category names of `role_pick` rows in first-seen order across files, and the bars as
/// `[category][file]`.
fn grid(
    files: &[(String, Vec<StreamBar>)],
    role_pick: impl Fn(Role) -> bool,
) -> (Vec<String>, Vec<Vec<Option<Bar>>>, Vec<Role>) {
    let mut names: Vec<String> = Vec::new();
    let mut roles = Vec::new();
    for bar in files
        .iter()
        .flat_map(|(_, b)| b)
        .filter(|b| role_pick(b.role))
    {
        if !names.contains(&bar.label) {
            names.push(bar.label.clone());
            roles.push(bar.role);
        }
    }
    let values = names
        .iter()
        .map(|name| {
            files
                .iter()
                .map(|(_, bars)| {
                    bars.iter()
                        .find(|b| &b.label == name)
                        .map(|b| b.bar.clone())
                })
                .collect()
        })
        .collect();
    (names, values, roles)
}

fn is_reference(role: Role) -> bool {
    matches!(role, Role::CopyEngine | Role::HostReference)
}

/// The stream chart of one or more files (one colour per file when several).
pub fn chart(files: &[(String, Vec<StreamBar>)]) -> Result<Option<String>, ReportError> {
    let (kernels, kernel_values, _) = grid(files, |r| !is_reference(r));
    let (refs, ref_values, ref_roles) = grid(files, is_reference);
    if kernels.is_empty() && refs.is_empty() {
        return Ok(None);
    }
    let several = files.len() > 1;
    let ref_names: Vec<String> = refs
        .iter()
        .zip(&ref_roles)
        .map(|(label, role)| reference_name(label, *role))
        .collect();
    let kernel_style = |_: usize, m: usize| (colour(if several { m } else { 0 }), 0.85);
    let ref_style = |c: usize, m: usize| match (several, ref_roles.get(c)) {
        (true, _) => (colour(m), 0.4),
        (false, Some(Role::HostReference)) => (colour(HOST), 0.85),
        (false, _) => (colour(COPY_ENGINE), 0.85),
    };
    let left = Panel {
        title: "Shader kernels (GPU)",
        unit: "GB/s (read + written)",
        categories: &kernels,
        values: &kernel_values,
        style: &kernel_style,
    };
    let right = Panel {
        title: "Not shader kernels: copy engine, host CPU",
        unit: "GB/s",
        categories: &ref_names,
        values: &ref_values,
        style: &ref_style,
    };
    let labels: Vec<String> = files.iter().map(|(l, _)| l.clone()).collect();
    let alt = format!("Stream: {} {}", left.alt(&labels), right.alt(&labels));
    svg(&alt, |root, overlay| {
        let split = if refs.is_empty() { 860 } else { 560 };
        let (a, b) = root.split_horizontally(split);
        draw_panel(&a, overlay, &left)?;
        draw_panel(&b, overlay, &right)?;
        if several {
            for (m, (label, _)) in files.iter().enumerate() {
                overlay.legend(Key::Block(colour(m), 0.85), label.clone());
            }
            overlay.legend(
                Key::Block(colour(7), 0.4),
                "pale: copy engine and host memcpy",
            );
        } else {
            overlay.legend(Key::Block(colour(0), 0.85), "shader kernels (GPU)");
            overlay.legend(
                Key::Block(colour(COPY_ENGINE), 0.85),
                "copy engine (GPU DMA)",
            );
            overlay.legend(
                Key::Block(colour(HOST), 0.85),
                "host memcpy (CPU, not the GPU)",
            );
        }
        common_legend(overlay, left.has_best() || right.has_best());
        Ok(())
    })
    .map(Some)
}

/// The numbers behind the chart: median, its interval and the best sample of every row.
pub fn table(files: &[(String, Vec<StreamBar>)]) -> Markup {
    let header = [
        "run",
        "kernel",
        "kind",
        "median GB/s",
        "95% CI of the median",
        "best (max rate) GB/s",
        "samples",
    ];
    let rows: Vec<Markup> = files
        .iter()
        .flat_map(|(label, bars)| bars.iter().map(move |b| row(label, b)))
        .collect();
    table_of(Some("results stream"), &header, &rows)
}

/// One stream result's row: its run, kernel, kind, median, interval, best rate and samples.
fn row(label: &str, b: &StreamBar) -> Markup {
    let kind = match b.role {
        Role::HostReference => "host CPU memcpy",
        Role::CopyEngine => "copy engine",
        _ => "shader kernel",
    };
    let best = b
        .bar
        .best
        .map_or_else(|| "no samples recorded".to_string(), sig3);
    html! {
        tr {
            td { (label) }
            td { (b.label) }
            td { (kind) }
            td class="num" { (sig3(b.bar.value)) }
            td { "[" (sig3(b.bar.low)) ", " (sig3(b.bar.high)) "]" }
            td class="num best" { (best) }
            td class="num" { (b.samples) }
        }
    }
}
