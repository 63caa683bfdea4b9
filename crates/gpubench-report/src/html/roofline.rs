//! The roofline: bandwidth and compute ceilings against arithmetic intensity (log-log), with
//! measured points (the roofline sweep and matmul shapes) placed by their intensity.
//!
//! One file draws its roofs in black (the f16 roof dashed red, the f64 roof, where the compute
//! suite measured f64, dotted blue) and a colour per series. Several
//! files share one chart, since the roofs and points are what users set side by side: each
//! file's roofs and points take that file's colour, each kind of point (sweep, matmul f32, ...)
//! its own marker, and the legend names the files, their roofs and the kinds.

use plotters::prelude::*;

use super::charts::{BestLabel, LogChart, colour, draw_points, log_axes, log_range, svg};
use super::data::{Ceilings, Series};
use super::overlay::{Key, Overlay, tick};
use crate::ReportError;
use crate::numbers::sig3;

/// The colour of the f16 compute roof (one file).
const F16_ROOF: RGBColor = RGBColor(178, 24, 43);
/// The f64 roof's colour on a one-file chart.
const F64_ROOF: RGBColor = RGBColor(33, 102, 172);

/// One file's roofline: its label, its measured ceilings and its points.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoofSet {
    /// The file's label (empty for a page of one file).
    pub label: String,
    /// Its measured ceilings.
    pub ceilings: Ceilings,
    /// Its points, one series per kind.
    pub points: Vec<Series>,
}

impl RoofSet {
    /// Whether f16 points are drawn: the f16 roof bounds f16 arithmetic, and products summing
    /// f16 data in f32 do not count.
    fn f16_drawn(&self) -> bool {
        self.points
            .iter()
            .any(|s| s.name.contains("f16") && !s.name.contains("f32 sums"))
    }

    /// The f16 ridge point, FLOP/byte.
    fn f16_ridge(&self) -> Option<f64> {
        let c = &self.ceilings;
        c.compute_f16_gflops
            .zip(c.bandwidth_gbs)
            .map(|(f, b)| f / b)
    }

    /// Whether there is anything to draw.
    fn drawable(&self) -> bool {
        !self.points.is_empty() || self.ceilings.compute_gflops.is_some()
    }
}

/// The roofline of one file: `ceilings` and `points` (see the module's notes).
pub fn roofline(ceilings: &Ceilings, points: &[Series]) -> Result<Option<String>, ReportError> {
    chart(&[RoofSet {
        label: String::new(),
        ceilings: ceilings.clone(),
        points: points.to_vec(),
    }])
}

/// The axes' ranges over every file: (x0, x1) FLOP/byte and (y0, y1) GFLOP/s.
type Ranges = ((f64, f64), (f64, f64));

fn ranges(files: &[RoofSet]) -> Option<Ranges> {
    let points = || files.iter().flat_map(|f| &f.points).flat_map(|s| &s.points);
    let xs = points()
        .map(|p| p.0)
        .chain(files.iter().filter_map(|f| f.ceilings.ridge()))
        .chain(files.iter().filter_map(RoofSet::f16_ridge));
    let (x0, x1) = log_range(xs.chain([0.05, 64.0]), 2.0)?;
    let ys = points().map(|p| p.1).chain(files.iter().flat_map(|f| {
        let c = &f.ceilings;
        [
            c.compute_gflops,
            c.compute_f16_gflops,
            c.compute_f64_gflops,
            c.bandwidth_gbs.map(|b| b * x0),
        ]
        .into_iter()
        .flatten()
    }));
    Some(((x0, x1), log_range(ys, 2.0)?))
}

/// The roofline of one or more files: one chart, a colour per file when several.
pub fn chart(files: &[RoofSet]) -> Result<Option<String>, ReportError> {
    let Some(((x0, x1), (y0, y1))) = ranges(files) else {
        return Ok(None);
    };
    if !files.iter().any(RoofSet::drawable) {
        return Ok(None);
    }
    let several = files.len() > 1;
    svg(&alt(files), |root, overlay| {
        let mut chart = log_axes(
            root,
            "Roofline",
            ((x0, x1), (y0, y1)),
            10.0,
            ("arithmetic intensity (FLOP per byte moved)", "GFLOP/s"),
            &|v| tick(*v),
        )?;
        overlay.plot_area(chart.plotting_area().get_pixel_range());
        for (f, file) in files.iter().enumerate() {
            let style = several.then(|| (colour(f), file.label.as_str()));
            draw_roofs(&mut chart, overlay, file, (x0, x1, y0), style)?;
        }
        if several {
            draw_overlaid_points(&chart, overlay, files);
        } else {
            let points = files.first().map_or(&[][..], |f| &f.points[..]);
            draw_points(&chart, overlay, points, ("GFLOP/s", BestLabel::Id));
        }
        Ok(())
    })
    .map(Some)
}

/// The chart's text alternative: what it plots and, per file, its roofs and point count.
fn alt(files: &[RoofSet]) -> String {
    let per_file: Vec<String> = files
        .iter()
        .map(|f| {
            let n: usize = f.points.iter().map(|s| s.points.len()).sum();
            let who = if f.label.is_empty() {
                String::new()
            } else {
                format!("{}: ", f.label)
            };
            format!("{who}{}, {n} measured points", f.ceilings.label())
        })
        .collect();
    format!(
        "Roofline chart, log-log: GFLOP/s against arithmetic intensity (FLOP per byte). {}.",
        per_file.join("; ")
    )
}

/// One file's roofs (f32 solid, f16 dashed where f16 points are drawn) and its bandwidth label;
/// `style` is the file's colour and label when several files share the chart.
fn draw_roofs(
    chart: &mut LogChart<'_, '_>,
    overlay: &mut Overlay,
    file: &RoofSet,
    bounds: (f64, f64, f64),
    style: Option<(RGBColor, &str)>,
) -> Result<(), String> {
    let c = &file.ceilings;
    let f16_drawn = file.f16_drawn();
    let (f32_colour, f16_colour, f64_colour) =
        style.map_or((BLACK, F16_ROOF, F64_ROOF), |(c, _)| (c, c, c));
    let prefix = style.map_or(String::new(), |(_, l)| format!("{l}: "));
    let roofs = [
        (c.compute_gflops, "f32", c.compute_from.as_str(), f32_colour),
        (
            c.compute_f16_gflops.filter(|_| f16_drawn),
            "f16",
            c.compute_f16_from.as_str(),
            f16_colour,
        ),
        (
            c.compute_f64_gflops,
            "f64",
            c.compute_f64_from.as_str(),
            f64_colour,
        ),
    ];
    for roof in roofs {
        draw_roof(chart, overlay, c, bounds, roof, &prefix)?;
    }
    if f16_drawn && c.compute_f16_gflops.is_none() {
        overlay.legend(
            Key::Dashed(f16_colour),
            format!("{prefix}no f16 roof measured (no f16 compute peak in this run)"),
        );
    }
    if let Some(bw) = c.bandwidth_gbs {
        let x0 = bounds.0;
        let p = chart.backend_coord(&(x0 * 1.6, bw * x0 * 1.6));
        overlay.label_later(
            p,
            &format!("{prefix}{} GB/s ({})", sig3(bw), c.bandwidth_from),
        );
    }
    Ok(())
}

/// One roof, `min(bandwidth x intensity, peak)`, labelled with its peak and where it came from.
fn draw_roof(
    chart: &mut LogChart<'_, '_>,
    overlay: &mut Overlay,
    ceilings: &Ceilings,
    (x0, x1, y0): (f64, f64, f64),
    (peak, precision, from, c): (Option<f64>, &str, &str, RGBColor),
    prefix: &str,
) -> Result<(), String> {
    if peak.is_none() && (precision != "f32" || ceilings.bandwidth_gbs.is_none()) {
        return Ok(());
    }
    let roof = |x: f64| {
        let bw = ceilings.bandwidth_gbs.map_or(f64::INFINITY, |b| b * x);
        bw.min(peak.unwrap_or(f64::INFINITY))
    };
    let line: Vec<(f64, f64)> = (0..=100)
        .map(|i| x0 * (x1 / x0).powf(f64::from(i) / 100.0))
        .map(|x| (x, roof(x)))
        .filter(|p| p.1.is_finite() && p.1 >= y0)
        .collect();
    let key = if precision != "f32" {
        let (dash, gap) = if precision == "f64" { (3, 3) } else { (8, 4) };
        chart
            .draw_series(DashedLineSeries::new(line, dash, gap, c.stroke_width(2)))
            .map_err(super::charts::err)?;
        Key::Dashed(c)
    } else {
        chart
            .draw_series(LineSeries::new(line, c.stroke_width(2)))
            .map_err(super::charts::err)?;
        Key::Line(c)
    };
    if let Some(p) = peak {
        overlay.label_later(
            chart.backend_coord(&(x1 / 1.3, p)),
            &format!("{prefix}{precision} peak {}", sig3(p)),
        );
    }
    let roof_text = match (precision, peak) {
        ("f16", Some(p)) => format!("f16 roof: f16 peak {} GFLOP/s ({from})", sig3(p)),
        ("f16", None) => "f16 roof: no compute ceiling measured".to_string(),
        ("f64", Some(p)) => format!(
            "f64 roof: f64 peak {} GFLOP/s ({from}); no f64 points are swept",
            sig3(p)
        ),
        _ => ceilings.label(),
    };
    overlay.legend(key, format!("{prefix}{roof_text}"));
    Ok(())
}

/// Every file's points in its colour, a marker per kind of point, with the legend naming the
/// kinds once (the roofs' entries name the files by colour).
fn draw_overlaid_points(chart: &LogChart<'_, '_>, overlay: &mut Overlay, files: &[RoofSet]) {
    let mut kinds: Vec<String> = Vec::new();
    let mut all: Vec<Series> = Vec::new();
    for (f, file) in files.iter().enumerate() {
        for s in &file.points {
            let k = kinds.iter().position(|k| *k == s.name).unwrap_or_else(|| {
                kinds.push(s.name.clone());
                kinds.len() - 1
            });
            let mut s = s.clone();
            s.tips = (0..s.points.len())
                .map(|i| format!("{}\nfile: {}", s.tip(i), file.label))
                .collect();
            (s.name, s.colour, s.marker) = (format!("{}: {}", file.label, s.name), f, k);
            all.push(s);
        }
    }
    let before = overlay.legend_len();
    draw_points(chart, overlay, &all, ("GFLOP/s", BestLabel::FileAndId));
    overlay.truncate_legend(before);
    for (k, kind) in kinds.iter().enumerate() {
        overlay.legend(Key::Marker(colour(7), k), kind.clone());
    }
}
