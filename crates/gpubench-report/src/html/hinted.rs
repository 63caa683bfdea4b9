//! The charts of chart hints no layout of its own draws: a curve chart per group of curves (x
//! the hint's parameter, a series per value of its series parameter, log axes as the hint
//! asks) and a table per group of timelines (each item's stages in order). Any suite's results
//! reach the page this way, with no edit here: the report chooses rows by hint, never by
//! suite name. (Groups of bars are drawn with the other bar charts, in `suite_bars`.)

use gpubench_results::chart::{ChartHint, group, hint_of};
use gpubench_results::{BenchResult, RunDocument, Status};
use maud::{Markup, html};

use super::charts;
use super::data::{self, Series};
use super::{chart_section, header_row, join};
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
    html! {
        @for (name, rows) in &groups {
            section {
                "\n"
                h2 { (name) (title) }
                "\n"
                table class="timeline" {
                    "\n"
                    (header_row(&["item", "stage", "median", "unit"]))
                    "\n"
                    @for (item, stage, r) in rows {
                        tr {
                            td { (item) }
                            td { (stage) }
                            td class="num" { (median(r)) }
                            td { (r.unit) }
                        }
                        "\n"
                    }
                }
                "\n"
            }
            "\n"
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
