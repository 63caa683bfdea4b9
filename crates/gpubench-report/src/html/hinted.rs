//! The charts of chart hints no layout of its own draws: a curve chart per group of curves (x
//! the hint's parameter, a series per value of its series parameter, log axes as the hint
//! asks) and, per group of timelines, a bar per item with its stages end to end as shares of
//! its total, and a table of their medians. Any suite's results
//! reach the page this way, with no edit here: the report chooses rows by hint, never by
//! suite name. (Groups of bars are drawn with the other bar charts, in `suite_bars`.)

use gpubench_results::chart::{ChartHint, ITEMS_PER_S, group};
use gpubench_results::chart_of::hint_of;
use gpubench_results::{BenchResult, RunDocument, Status};
use maud::{Markup, html};

use super::charts;
use super::data::{self, Series};
use super::{chart_section, join, table_of, titled_section};
use crate::ReportError;
use crate::numbers::sig3;

/// A curve hint of a group without a layout of its own.
#[derive(Debug, Clone, PartialEq)]
struct CurveOf {
    group: String,
    x: String,
    series: Option<String>,
    log: charts::LogAxes,
}

/// `r`'s curve hint when its group has no layout of its own.
fn other_curve(r: &BenchResult) -> Option<CurveOf> {
    match hint_of(r)?.into_owned() {
        ChartHint::Curve {
            group: name,
            x,
            series,
            log_x,
            log_y,
        } if !group::LAID_OUT.contains(&name.as_str()) => Some(CurveOf {
            group: name,
            x,
            series,
            log: (log_x, log_y),
        }),
        _ => None,
    }
}

/// The series of curve group `name` over every file (named `file: series` when several), and
/// the unit of its first row.
fn curve_series(files: &[(String, &RunDocument)], name: &str) -> (Vec<Series>, String) {
    let several = files.len() > 1;
    let (mut series, mut unit): (Vec<Series>, String) = (Vec::new(), String::new());
    for (f, (label, doc)) in files.iter().enumerate() {
        for r in &doc.results {
            let Some(c) = other_curve(r).filter(|c| c.group == name) else {
                continue;
            };
            let x = r.params.get(&c.x).and_then(serde_json::Value::as_f64);
            let (Some(x), Some(y)) = (x, r.median().filter(|m| m.is_finite())) else {
                continue;
            };
            let value = c.series.as_ref().and_then(|k| r.params.get(k));
            let part = value.map_or_else(
                || name.to_string(),
                |v| v.as_str().map_or_else(|| v.to_string(), str::to_string),
            );
            let s_name = if several {
                format!("{label}: {part}")
            } else {
                part
            };
            if unit.is_empty() {
                unit = r.unit.clone();
            }
            match series.iter_mut().find(|s| s.name == s_name) {
                Some(s) => s.push((x, y), data::tip(r)),
                None => {
                    let mut s = Series::new(s_name, series.len());
                    s.marker = f;
                    s.push((x, y), data::tip(r));
                    series.push(s);
                }
            }
        }
    }
    for s in &mut series {
        s.sort();
    }
    (series, unit)
}

/// Group `c`'s rows that state a throughput ([`ITEMS_PER_S`]) and a latency summary, as
/// latency (ms) against throughput: a p50 and a p95 series per series of the group (the p95
/// only from at least 20 latencies), over every file, each series' points in the order of the
/// group's parameter (so the line follows the parameter as it grows).
fn latency_series(files: &[(String, &RunDocument)], c: &CurveOf) -> Vec<Series> {
    let several = files.len() > 1;
    let mut series: Vec<Series> = Vec::new();
    for (label, doc) in files {
        let mut rows: Vec<&BenchResult> = doc
            .results
            .iter()
            .filter(|r| {
                r.status == Status::Ok && other_curve(r).is_some_and(|o| o.group == c.group)
            })
            .collect();
        let x_of = |r: &BenchResult| r.params.get(&c.x).and_then(serde_json::Value::as_f64);
        rows.sort_by(|a, b| {
            x_of(a)
                .unwrap_or(f64::NAN)
                .total_cmp(&x_of(b).unwrap_or(f64::NAN))
        });
        for r in rows {
            let rate = r.extra.get(ITEMS_PER_S).and_then(serde_json::Value::as_f64);
            let (Some(rate), Some(latency)) = (rate, r.latency.as_deref()) else {
                continue;
            };
            let part = c.series.as_ref().and_then(|k| r.params.get(k)).map_or_else(
                || c.group.clone(),
                |v| v.as_str().map_or_else(|| v.to_string(), str::to_string),
            );
            let part = if several {
                format!("{label}: {part}")
            } else {
                part
            };
            let at = r
                .params
                .get(&c.x)
                .map_or_else(String::new, ToString::to_string);
            for (which, value) in [("p50", Some(latency.p50_us)), ("p95", latency.p95())] {
                let Some(value) = value else { continue };
                let name = format!("{part} {which}");
                let tip = format!(
                    "{}\n{} {at}: {} per s, {which} {} ms (n = {})",
                    r.id,
                    c.x,
                    sig3(rate),
                    sig3(value / 1e3),
                    latency.n
                );
                match series.iter_mut().find(|s| s.name == name) {
                    Some(s) => s.push((rate, value / 1e3), tip),
                    None => {
                        let mut s = Series::new(name, series.len());
                        s.push((rate, value / 1e3), tip);
                        series.push(s);
                    }
                }
            }
        }
    }
    series
}

/// A section per group of curves no layout draws, and a table per group of timelines.
pub fn sections(title: &str, files: &[(String, &RunDocument)]) -> Result<Markup, ReportError> {
    let mut groups: Vec<CurveOf> = Vec::new();
    for r in files.iter().flat_map(|(_, d)| &d.results) {
        if let Some(c) = other_curve(r).filter(|c| !groups.iter().any(|g| g.group == c.group)) {
            groups.push(c);
        }
    }
    let mut all = Vec::new();
    for c in groups {
        let (series, unit) = curve_series(files, &c.group);
        all.push(chart_section(
            &format!("{}{title}", c.group),
            charts::curve(&c.group, &c.x, &series, &unit, c.log)?,
            "The median of each result against its parameter, as its suite's chart hint asks; hover a point for its interval.",
        ));
        let traded = latency_series(files, &c);
        let name = format!("Latency against throughput: {}", c.group);
        all.push(chart_section(
            &format!("{name}{title}"),
            charts::curve(&name, "throughput (per second)", &traded, "ms", (true, true))?,
            "Each result's items per second against the latency of one item: its median (p50) and, \
             where at least 20 latencies were recorded, its 95th percentile (p95). Further right is \
             more throughput, higher up a longer wait; hover a point for the parameter it was measured at.",
        ));
    }
    for (label, doc) in files {
        let who = if files.len() > 1 {
            format!(" ({label})")
        } else {
            String::new()
        };
        all.push(timelines(&format!("{who}{title}"), doc));
    }
    Ok(join(all))
}

/// A timeline row: its item, its stage and its result.
type Stage<'a> = (String, String, &'a BenchResult);

/// A table per timeline group of `doc`: each item's stages in the document's order, with
/// their medians (a chart is left for later).
fn timelines(title: &str, doc: &RunDocument) -> Markup {
    let mut groups: Vec<(String, Vec<Stage<'_>>)> = Vec::new();
    for r in &doc.results {
        let Some(ChartHint::Timeline {
            group: name,
            item,
            stage,
        }) = hint_of(r).map(std::borrow::Cow::into_owned)
        else {
            continue;
        };
        let text = |k: &str| {
            r.params.get(k).map_or_else(
                || "-".to_string(),
                |v| v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        };
        let row = (text(&item), text(&stage), r);
        match groups.iter_mut().find(|(g, _)| *g == name) {
            Some((_, rows)) => rows.push(row),
            None => groups.push((name, vec![row])),
        }
    }
    for (_, rows) in &mut groups {
        rows.sort_by(|a, b| a.0.cmp(&b.0));
    }
    join(groups.iter().map(|(name, rows)| {
        let stage_rows: Vec<Markup> = rows
            .iter()
            .map(|(item, stage, r)| {
                html! {
                    tr {
                        td { (item) }
                        td { (stage) }
                        td class="num" { (median(r)) }
                        td { (r.unit) }
                    }
                }
            })
            .collect();
        let header = ["item", "stage", "median", "unit"];
        titled_section(
            &format!("{name}{title}"),
            None,
            html! {
                (timeline_svg(rows))
                "\n"
                (table_of(Some("timeline"), &header, &stage_rows))
            },
        )
    }))
}

/// Width of a timeline picture, and of its item labels, in pixels.
const TIMELINE_WIDTH: f64 = 640.0;
const TIMELINE_LABEL: f64 = 150.0;
/// Height of one item's bar, and the gap under it.
const TIMELINE_BAR: f64 = 22.0;
const TIMELINE_GAP: f64 = 8.0;

/// One stage of one item's bar.
struct Segment<'a> {
    /// Its stage's index (its colour).
    colour: usize,
    stage: &'a str,
    value: f64,
    unit: &'a str,
    x: f64,
    width: f64,
    share: f64,
}

/// An item's bar: its segments and their total.
fn segments<'a>(item: &str, rows: &'a [Stage<'_>], stages: &[&str]) -> (Vec<Segment<'a>>, f64) {
    let parts: Vec<(usize, &str, f64, &str)> = rows
        .iter()
        .filter(|(it, _, r)| it == item && r.status == Status::Ok)
        .filter_map(|(_, stage, r)| {
            let k = stages.iter().position(|s| s == stage)?;
            Some((k, stage.as_str(), r.median()?, r.unit.as_str()))
        })
        .collect();
    let total: f64 = parts.iter().map(|p| p.2).sum();
    let span = TIMELINE_WIDTH - TIMELINE_LABEL - 90.0;
    let mut x = TIMELINE_LABEL;
    let mut out = Vec::new();
    for (colour, stage, value, unit) in parts {
        let share = if total > 0.0 { value / total } else { 0.0 };
        let width = share * span;
        out.push(Segment {
            colour,
            stage,
            value,
            unit,
            x,
            width,
            share,
        });
        x += width;
    }
    (out, total)
}

/// A bar per item: its stages end to end in the document's order, each as wide as its share
/// of the item's total (items differ by orders of magnitude, so each bar is its own 100%; the
/// total is written after it). A stage with no median is left out of its bar.
fn timeline_svg(rows: &[Stage<'_>]) -> Markup {
    let mut items: Vec<&str> = Vec::new();
    let mut stages: Vec<&str> = Vec::new();
    for (item, stage, _) in rows {
        if !items.contains(&item.as_str()) {
            items.push(item);
        }
        if !stages.contains(&stage.as_str()) {
            stages.push(stage);
        }
    }
    let total_x = TIMELINE_WIDTH - 84.0;
    let legend_y = items.len() as f64 * (TIMELINE_BAR + TIMELINE_GAP) + 14.0;
    let height = legend_y + 16.0;
    let hex = |i: usize| {
        let c = charts::colour(i);
        format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
    };
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(TIMELINE_WIDTH) height=(height)
            role="img" aria-label="each item's stages end to end, as shares of its total" {
            @for (i, item) in items.iter().enumerate() {
                @let y = i as f64 * (TIMELINE_BAR + TIMELINE_GAP);
                @let (bar, total) = segments(item, rows, &stages);
                text x="0" y=(y + 15.0) font-size="12" { (item) }
                @for seg in &bar {
                    rect x=(seg.x) y=(y) width=(seg.width.max(0.5)) height=(TIMELINE_BAR)
                        fill=(hex(seg.colour)) {
                        title {
                            (seg.stage) ": " (sig3(seg.value)) " " (seg.unit) " ("
                            (sig3(seg.share * 100.0)) "%)"
                        }
                    }
                    @if seg.width > 36.0 {
                        text x=(seg.x + 3.0) y=(y + 15.0) font-size="11" fill="white" { (seg.stage) }
                    }
                }
                @if let Some(first) = bar.first() {
                    text x=(total_x) y=(y + 15.0) font-size="11" { (sig3(total)) " " (first.unit) }
                }
            }
            @for (k, stage) in stages.iter().enumerate() {
                rect x=(k as f64 * 90.0) y=(legend_y - 9.0) width="10" height="10" fill=(hex(k)) {}
                text x=(k as f64 * 90.0 + 14.0) y=(legend_y) font-size="11" { (stage) }
            }
        }
    }
}

/// A timeline row's median, or its status where it has none.
fn median(r: &BenchResult) -> String {
    match (r.status, r.median()) {
        (Status::Ok, Some(m)) => sig3(m),
        _ => r.status.as_str().to_string(),
    }
}
