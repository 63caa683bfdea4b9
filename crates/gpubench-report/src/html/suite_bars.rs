//! Bar charts of the results whose chart hint asks for bars: the peaks (hint group `peaks`)
//! grouped by type, then width (`f32 scalar`, `f32 vec2`, ..., `f16 vec4`), one chart per
//! matmul precision (group `matmul-shapes`: `f32`, `f16`, `f16-coop`) with a group of bars per
//! shape, smallest first, and a chart per any other group of bars, named by the hint's label
//! parameters and ordered by its order parameters. Several files share each chart, a colour
//! per file.
//!
//! A result that is not ok has no number, and a bar of zero would read as a measurement: such
//! results are left out of the chart and listed under it with their status and reason.

use gpubench_results::chart::{ChartHint, group};
use gpubench_results::chart_of::hint_of;
use gpubench_results::{BenchResult, MetricKind, Role, RunDocument, Status};
use maud::{Markup, html};

use super::bars::{Panel, common_legend, draw_panel};
use super::charts::{colour, svg};
use super::data::{self, Bar};
use super::overlay::Key;
use super::{figure, fleet::BARS_PER_CHART, join, titled_section};
use crate::ReportError;

/// Where a category sorts: ranks compared in order.
type Rank = (u64, u64, u64);

/// The bars of one chart, `[category][file]`, and what was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grouped {
    /// Category names, in order.
    pub categories: Vec<String>,
    /// `values[category][file]`: `None` where that file has no ok result for it.
    pub values: Vec<Vec<Option<Bar>>>,
    /// Results not drawn, as (`status: reason`, the ids with that status and reason).
    pub left_out: Vec<(String, Vec<String>)>,
    ranks: Vec<Rank>,
}

impl Grouped {
    /// Adds file `f`'s (of `files`) result `r` under `category`: its bar when it is ok, else a
    /// line saying why it is not drawn.
    fn add(
        &mut self,
        (f, files): (usize, usize),
        r: &BenchResult,
        (rank, category): (Rank, String),
        who: &str,
    ) {
        let bar = data::bar(r).filter(|_| r.status == Status::Ok);
        let Some(mut bar) = bar else {
            let why = format!(
                "{}: {}",
                r.status.as_str(),
                r.reason.as_deref().unwrap_or("no reason recorded")
            );
            let id = format!("{who}{}", r.id);
            match self.left_out.iter_mut().find(|(w, _)| *w == why) {
                Some((_, ids)) => ids.push(id),
                None => self.left_out.push((why, vec![id])),
            }
            return;
        };
        if !who.is_empty() {
            bar.tip = format!("{}\nfile: {}", bar.tip, who.trim_end_matches(": "));
        }
        let c = match self.categories.iter().position(|c| *c == category) {
            Some(c) => c,
            None => {
                self.categories.push(category);
                self.values.push(vec![None; files]);
                self.ranks.push(rank);
                self.categories.len() - 1
            }
        };
        self.values[c][f] = Some(bar);
    }

    /// Sorts the categories by rank (first seen among equals).
    fn sort(&mut self) {
        let mut order: Vec<usize> = (0..self.categories.len()).collect();
        order.sort_by_key(|&i| self.ranks[i]);
        self.categories = order.iter().map(|&i| self.categories[i].clone()).collect();
        self.values = order.iter().map(|&i| self.values[i].clone()).collect();
        self.ranks = order.iter().map(|&i| self.ranks[i]).collect();
    }
}

/// The label prefix of a file's rows when several files share a chart.
fn who(label: &str, several: bool) -> String {
    if several {
        format!("{label}: ")
    } else {
        String::new()
    }
}

/// The results of every file that `pick` places (rank and category), gathered by category.
fn gather(
    files: &[(String, &RunDocument)],
    pick: &dyn Fn(&BenchResult) -> Option<(Rank, String)>,
) -> Grouped {
    let mut g = Grouped::default();
    for (f, (label, doc)) in files.iter().enumerate() {
        let who = who(label, files.len() > 1);
        for r in &doc.results {
            if let Some(place) = pick(r) {
                g.add((f, files.len()), r, place, &who);
            }
        }
    }
    g.sort();
    g
}

fn param<'a>(r: &'a BenchResult, key: &str) -> Option<&'a str> {
    r.params.get(key).and_then(|v| v.as_str())
}

/// Whether `r` is a kernel's `metric` in the bars group `name`.
fn is_kernel_in(r: &BenchResult, metric: MetricKind, name: &str) -> bool {
    r.metric == metric && r.role == Role::Kernel && data::in_group(r, name)
}

/// A compute peak's place: by precision (f32, f16, then others), then width (scalar, vec2,
/// vec4, then others); named `f32 vec4` (with the kernel's name first when it is not the FMA
/// peak).
fn compute_place(r: &BenchResult) -> Option<(Rank, String)> {
    if !is_kernel_in(r, MetricKind::Throughput, group::PEAKS) {
        return None;
    }
    let (Some(precision), Some(form)) = (param(r, "precision"), param(r, "form")) else {
        return Some(((u64::MAX, 0, 0), data::short_id(r)));
    };
    let p = ["f32", "f16"].iter().position(|x| *x == precision);
    let w = ["scalar", "vec2", "vec3", "vec4"]
        .iter()
        .position(|x| *x == form);
    let kernel = param(r, "kernel").filter(|k| *k != "fma-peak");
    let name = match kernel {
        Some(k) => format!("{k} {precision} {form}"),
        None => format!("{precision} {form}"),
    };
    let rank = |i: Option<usize>| i.map_or(u64::MAX - 1, |i| i as u64);
    Some(((rank(p), rank(w), 0), name))
}

/// The compute peaks of every file.
pub fn compute(files: &[(String, &RunDocument)]) -> Grouped {
    gather(files, &compute_place)
}

/// An integer compute peak's place: by type (i32, u32, i64, i16, then the dot products' i8 and
/// u8), then form (scalar, vec4, packed); named `i32 vec4`, or `dot i8 packed`.
fn compute_int_place(r: &BenchResult) -> Option<(Rank, String)> {
    if !is_kernel_in(r, MetricKind::IntThroughput, group::PEAKS) {
        return None;
    }
    let (Some(ty), Some(form)) = (param(r, "type"), param(r, "form")) else {
        return Some(((u64::MAX, 0, 0), data::short_id(r)));
    };
    let t = ["i32", "u32", "i64", "i16", "i8", "u8"]
        .iter()
        .position(|x| *x == ty);
    let f = ["scalar", "vec4", "packed"].iter().position(|x| *x == form);
    let name = match param(r, "kernel") {
        Some("dot-peak") => format!("dot {ty} {form}"),
        _ => format!("{ty} {form}"),
    };
    let rank = |i: Option<usize>| i.map_or(u64::MAX - 1, |i| i as u64);
    Some(((rank(t), rank(f), 0), name))
}

/// The integer compute peaks of every file.
pub fn compute_int(files: &[(String, &RunDocument)]) -> Grouped {
    gather(files, &compute_int_place)
}

/// A matmul result's precision group: the id's second part (`f32`, `f16`, `f16-coop`).
fn matmul_group(r: &BenchResult) -> Option<&str> {
    is_kernel_in(r, MetricKind::Throughput, group::MATMUL_SHAPES)
        .then(|| r.id.split('/').nth(1))
        .flatten()
}

/// A matmul result's place: by M, N, K (smallest first), named by its shape.
fn matmul_place(r: &BenchResult) -> (Rank, String) {
    let dim = |k: &str| r.params.get(k).and_then(serde_json::Value::as_u64);
    let shape = param(r, "shape").map_or_else(
        || r.id.rsplit('/').next().unwrap_or_default().to_string(),
        str::to_string,
    );
    match (dim("m"), dim("n"), dim("k")) {
        (Some(m), Some(n), Some(k)) => ((m, n, k), shape),
        _ => ((u64::MAX, 0, 0), shape),
    }
}

/// The matmul shapes of every file, one `Grouped` per precision group in first-seen order.
pub fn matmul(files: &[(String, &RunDocument)]) -> Vec<(String, Grouped)> {
    let mut groups: Vec<String> = Vec::new();
    for r in files.iter().flat_map(|(_, d)| &d.results) {
        if let Some(g) = matmul_group(r).filter(|g| !groups.iter().any(|x| x == g)) {
            groups.push(g.to_string());
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let pick = |r: &BenchResult| {
                (matmul_group(r) == Some(group.as_str())).then(|| matmul_place(r))
            };
            let g = gather(files, &pick);
            (group, g)
        })
        .collect()
}

/// The bars hint of `r` when its group has no layout of its own: (group, label parameters,
/// order parameters).
fn other_bars(r: &BenchResult) -> Option<(String, Vec<String>, Vec<String>)> {
    match hint_of(r)?.into_owned() {
        ChartHint::Bars {
            group: name,
            label,
            order,
            ..
        } if !group::LAID_OUT.contains(&name.as_str()) => Some((name, label, order)),
        _ => None,
    }
}

/// A bar's place by its hint: named by the `label` parameters' values (the id without its
/// suite when one is missing), ranked by the first three `order` parameters, smallest first
/// (a missing one last).
fn hinted_place(r: &BenchResult, label: &[String], order: &[String]) -> (Rank, String) {
    let texts: Option<Vec<String>> = label
        .iter()
        .map(|k| {
            let v = r.params.get(k)?;
            Some(v.as_str().map_or_else(|| v.to_string(), str::to_string))
        })
        .collect();
    let name = texts
        .filter(|t| !t.is_empty())
        .map_or_else(|| data::short_id(r), |t| t.join(" "));
    let key = |i: usize| {
        order.get(i).map_or(0, |k| {
            let v = r.params.get(k).and_then(serde_json::Value::as_f64);
            v.map_or(u64::MAX, |v| v.max(0.0).to_bits())
        })
    };
    ((key(0), key(1), key(2)), name)
}

/// Every other group of bars of every file (see [`other_bars`]), in first-seen order, each
/// with its unit (the first row's).
pub fn hinted(files: &[(String, &RunDocument)]) -> Vec<(String, String, Grouped)> {
    let mut groups: Vec<(String, String)> = Vec::new();
    for r in files.iter().flat_map(|(_, d)| &d.results) {
        if let Some((name, _, _)) = other_bars(r)
            && !groups.iter().any(|(g, _)| *g == name)
        {
            groups.push((name, r.unit.clone()));
        }
    }
    groups
        .into_iter()
        .map(|(name, unit)| {
            let pick = |r: &BenchResult| {
                let (g, label, order) = other_bars(r)?;
                (g == name).then(|| hinted_place(r, &label, &order))
            };
            let g = gather(files, &pick);
            (name, unit, g)
        })
        .collect()
}

/// A section per other group of bars (see [`hinted`]), titled by the group.
pub fn hinted_sections(
    title: &str,
    files: &[(String, &RunDocument)],
) -> Result<Markup, ReportError> {
    let members: Vec<String> = files.iter().map(|(l, _)| l.clone()).collect();
    let mut all = Vec::new();
    for (name, unit, g) in hinted(files) {
        all.push(sections(
            &format!("{name}{title}"),
            &g,
            "A bar per result, as its suite's chart hint names and orders them: the median with its 95% interval.",
            &|part| chart(&name, &unit, part, &members, None),
        )?);
    }
    Ok(join(all))
}

/// One chart of `g` (bars coloured per file, or per `colour_of` category for one file), or
/// `None` when nothing is drawn.
fn chart(
    title: &str,
    unit: &str,
    g: &Grouped,
    members: &[String],
    colour_of: Option<&dyn Fn(&str) -> usize>,
) -> Result<Option<String>, ReportError> {
    if g.categories.is_empty() {
        return Ok(None);
    }
    let category_colour = |c: usize| {
        let name = g.categories.get(c).map_or("", String::as_str);
        colour_of.map(|f| f(name))
    };
    let style = |c: usize, m: usize| (colour(category_colour(c).unwrap_or(m)), 0.85);
    // One entry per colour the categories use, named by the category's first word.
    let mut keys: Vec<(usize, String)> = Vec::new();
    for (c, name) in g.categories.iter().enumerate() {
        let first = name.split(' ').next().unwrap_or_default().to_string();
        if let Some(k) = category_colour(c).filter(|k| !keys.iter().any(|(x, _)| x == k)) {
            keys.push((k, first));
        }
    }
    let panel = Panel {
        title,
        unit,
        categories: &g.categories,
        values: &g.values,
        style: &style,
    };
    svg(&panel.alt(members), |root, overlay| {
        draw_panel(root, overlay, &panel)?;
        match colour_of {
            Some(_) => {
                for (c, name) in &keys {
                    overlay.legend(Key::Block(colour(*c), 0.85), name.clone());
                }
            }
            None if members.len() > 1 => {
                for (m, member) in members.iter().enumerate() {
                    overlay.legend(Key::Block(colour(m), 0.85), member.clone());
                }
            }
            None => {}
        }
        common_legend(overlay, panel.has_best());
        Ok(())
    })
    .map(Some)
}

/// The list of results left out of a chart, with their status and reason.
fn left_out_list(g: &Grouped) -> Markup {
    html! {
        @if !g.left_out.is_empty() {
            p class="note" {
                "Not drawn (not measured ok, so no bar: a zero would read as a measurement):"
            }
            "\n"
            ul class="left-out" {
                "\n"
                @for (why, ids) in &g.left_out {
                    li { (why) ": " (ids.join(", ")) }
                    "\n"
                }
            }
            "\n"
        }
    }
}

/// `g` split into charts of at most [`BARS_PER_CHART`] categories (the left-out list goes with
/// the first part).
fn parts(g: &Grouped) -> Vec<Grouped> {
    if g.categories.len() <= BARS_PER_CHART {
        return vec![g.clone()];
    }
    g.categories
        .chunks(BARS_PER_CHART)
        .zip(g.values.chunks(BARS_PER_CHART))
        .enumerate()
        .map(|(i, (categories, values))| Grouped {
            categories: categories.to_vec(),
            values: values.to_vec(),
            left_out: if i == 0 {
                g.left_out.clone()
            } else {
                Vec::new()
            },
            ranks: Vec::new(),
        })
        .collect()
}

/// A section per part of `g`: its chart, note and left-out list; a section with the list alone
/// when nothing is drawn.
fn sections(
    heading: &str,
    g: &Grouped,
    note: &str,
    draw: &dyn Fn(&Grouped) -> Result<Option<String>, ReportError>,
) -> Result<Markup, ReportError> {
    if g.categories.is_empty() && g.left_out.is_empty() {
        return Ok(html! {});
    }
    let all = parts(g);
    let mut out = Vec::new();
    for (i, part) in all.iter().enumerate() {
        let h = if all.len() > 1 {
            format!("{heading} ({}/{})", i + 1, all.len())
        } else {
            heading.to_string()
        };
        out.push(part_section(&h, draw(part)?, note, part));
    }
    Ok(join(out))
}

/// One part's section: its chart and note (or a line saying nothing was drawn), then what was
/// left out.
fn part_section(heading: &str, chart: Option<String>, note: &str, part: &Grouped) -> Markup {
    titled_section(
        heading,
        None,
        html! {
            @if let Some(svg) = chart {
                (figure(&svg))
                "\n"
                p class="note" { (note) }
                "\n"
            } @else {
                p class="note" { "Nothing measured ok to draw." }
                "\n"
            }
            (left_out_list(part))
        },
    )
}

/// A chart's colour for a category, by the category's first word.
type ColourOf = fn(&str) -> usize;

/// One file's compute peaks take a colour per precision, so that the types group.
fn by_precision(name: &str) -> usize {
    match name.split(' ').next() {
        Some("f16") => 3,
        Some("f32") => 0,
        Some("f64") => 2,
        _ => 7,
    }
}

/// One file's integer peaks take a colour per type.
fn by_type(name: &str) -> usize {
    match name.split(' ').next() {
        Some("i32") => 0,
        Some("u32") => 1,
        Some("i64") => 2,
        Some("i16") => 3,
        _ => 4,
    }
}

/// The sections of a chart of peaks (`caption` and `unit` above and beside it): a colour per
/// file when several, else per category by `colour_of`.
fn peak_sections(
    heading: &str,
    g: &Grouped,
    note: &str,
    (caption, unit): (&str, &str),
    (members, colour_of): (&[String], ColourOf),
) -> Result<Markup, ReportError> {
    let colour_of: Option<&dyn Fn(&str) -> usize> = (members.len() < 2).then_some(&colour_of);
    sections(heading, g, note, &|part| {
        chart(caption, unit, part, members, colour_of)
    })
}

/// The compute and matmul sections of one or more files; `title` follows each heading.
pub fn compute_and_matmul(
    title: &str,
    files: &[(String, &RunDocument)],
) -> Result<Markup, ReportError> {
    let members: Vec<String> = files.iter().map(|(l, _)| l.clone()).collect();
    let mut all = vec![
        peak_sections(
            &format!("Compute peaks{title}"),
            &compute(files),
            "Peak arithmetic rate by type, then vector width: the median with its 95% interval, an FMA counting as two operations.",
            ("Compute peak by type and width", "GFLOP/s"),
            (&members, by_precision),
        )?,
        peak_sections(
            &format!("Integer compute peaks{title}"),
            &compute_int(files),
            "Peak integer rate by type, then vector width: the median with its 95% interval, a multiply-add counting as two operations and a packed 8-bit dot product with its accumulate as eight.",
            ("Integer compute peak by type and width", "GIOP/s"),
            (&members, by_type),
        )?,
    ];
    for (group, g) in matmul(files) {
        all.push(sections(
            &format!("Matmul {group} by shape{title}"),
            &g,
            "Each shape's tuned kernel (M x N x K, smallest first): the median with its 95% interval. The roofline places the same results by arithmetic intensity.",
            &|part| {
                chart(
                    &format!("Matmul {group} by shape (M x N x K)"),
                    "GFLOP/s",
                    part,
                    &members,
                    None,
                )
            },
        )?);
    }
    Ok(join(all))
}
