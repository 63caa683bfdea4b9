//! The charts of the HTML report, drawn with plotters' SVG backend. Each function returns one
//! self-contained `<svg>` element, or `None` when the documents hold nothing to draw.
//!
//! Plotters draws axes, grid and lines; every data mark (point, bar, histogram bin) is written
//! by [`Overlay`] with a `<title>` tooltip, and the legend sits under the plot area, never on it.
//! Text is laid out by an estimate and rendered by the browser, so no font library is needed at
//! build or run time.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::{RangedCoordf64, RangedCoordi32};
use plotters::prelude::*;

use super::data::Series;
use super::histogram;
use super::overlay::{Key, Overlay, tick};
use crate::ReportError;
use crate::numbers::sig3;

/// Width of every chart, in pixels: the widest it is shown (it scales down to narrower
/// columns through its `viewBox`, never up).
pub const WIDTH: u32 = 860;
/// Height of the chart above its legend, in pixels.
pub const HEIGHT: u32 = 440;
/// Plotters' size of tick labels: its SVG backend writes sizes divided by 1.24, so 15 is a
/// 12.1 px font.
pub(super) const TICK_FONT: u32 = 15;
/// Plotters' size of axis descriptions (12.9 px).
pub(super) const AXIS_FONT: u32 = 16;
/// Plotters' size of chart captions (16.1 px).
pub(super) const CAPTION_FONT: u32 = 20;

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draws into a fresh SVG string with `draw`, then adds the overlay's marks, labels and legend;
/// `alt` is the chart's text alternative (what it shows, with a short data summary).
pub(super) fn svg(
    alt: &str,
    draw: impl FnOnce(&Area<'_>, &mut Overlay) -> Result<(), String>,
) -> Result<String, ReportError> {
    let mut buffer = String::new();
    let mut overlay = Overlay::default();
    {
        let root = SVGBackend::with_string(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        draw(&root, &mut overlay).map_err(ReportError::Chart)?;
        root.present().map_err(chart_error)?;
    }
    Ok(overlay.finish(buffer, WIDTH, HEIGHT, alt))
}

fn chart_error(error: impl std::fmt::Display) -> ReportError {
    ReportError::Chart(error.to_string())
}

pub(super) fn err(error: impl std::fmt::Display) -> String {
    error.to_string()
}

/// A colour per series, stable across charts.
pub fn colour(index: usize) -> RGBColor {
    const COLOURS: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    COLOURS[index % COLOURS.len()]
}

/// Smallest axis bound or span drawn: plotters takes powers of ten of an axis's span to place
/// its ticks, and that loop never ends on a span of zero or infinity, so every bound is kept
/// between this and `f64::MAX` (values beyond are clipped at the edge of the chart).
const AXIS_FLOOR: f64 = 1e-300;

/// `v` kept inside what an axis can show: `AXIS_FLOOR..=f64::MAX`.
pub(super) fn axis_bound(v: f64) -> f64 {
    v.clamp(AXIS_FLOOR, f64::MAX)
}

/// Range of positive values, widened by `pad` (a factor) on each side for log axes. The ratio
/// of the ends is kept finite (at most 1e300: plotters counts a log axis's decades from it, and
/// an infinite count never ends), raising the low end where needed.
pub(super) fn log_range(values: impl Iterator<Item = f64>, pad: f64) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    (lo.is_finite() && hi > 0.0).then(|| {
        let hi = axis_bound(hi * pad);
        (axis_bound(lo / pad).max(hi / 1e300), hi)
    })
}

/// A chart on two axes, drawn into an SVG string.
pub(super) type Chart2d<'a, 'b, X, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>;

/// How the ticks of an axis of values `V` are labelled.
type TickLabel<'f, V> = &'f dyn Fn(&V) -> String;

/// The axes every chart of lines shares: `caption` over a plot of `x` by `y` (any of
/// plotters' ranges), the axes described by `x_desc` and `y_desc`, their ticks labelled by
/// `x_label` and `y_label`.
fn line_axes<'a, 'b, XS, YS, XV, YV>(
    root: &'a Area<'b>,
    caption: &str,
    (x, y): (XS, YS),
    (x_desc, y_desc): (&str, &str),
    (x_label, y_label): (TickLabel<'_, XV>, TickLabel<'_, YV>),
) -> Result<Chart2d<'a, 'b, XS::CoordDescType, YS::CoordDescType>, String>
where
    XS: AsRangedCoord<Value = XV>,
    YS: AsRangedCoord<Value = YV>,
    XS::CoordDescType: ValueFormatter<XV>,
    YS::CoordDescType: ValueFormatter<YV>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", CAPTION_FONT))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    chart
        .configure_mesh()
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", AXIS_FONT))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(x_label)
        .y_label_formatter(y_label)
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// A tick label of a value drawn as itself (see [`tick`]).
fn plain_tick(v: &f64) -> String {
    tick(*v)
}

/// The log-log axes shared by the roofline and the size sweeps, with tick labels without
/// spurious decimals (`x_label` formats the x ticks).
pub(super) type LogChart<'a, 'b> = Chart2d<
    'a,
    'b,
    plotters::coord::combinators::LogCoord<f64>,
    plotters::coord::combinators::LogCoord<f64>,
>;

/// [`LogChart`] axes over `x` by `y`, the x axis in powers of `x_base`.
pub(super) fn log_axes<'a, 'b>(
    root: &'a Area<'b>,
    caption: &str,
    (x, y): ((f64, f64), (f64, f64)),
    x_base: f64,
    desc: (&str, &str),
    x_label: &dyn Fn(&f64) -> String,
) -> Result<LogChart<'a, 'b>, String> {
    let (x0, y0) = (down_to_power(x.0, x_base), down_to_power(y.0, 10.0));
    let ranges = ((x0..x.1).log_scale().base(x_base), (y0..y.1).log_scale());
    line_axes(root, caption, ranges, desc, (x_label, &plain_tick))
}

/// The largest power of `base` at or below `v` (`v` itself where it is not positive and
/// finite). plotters' log axis puts its ticks at the powers of its base and at even steps
/// from each one up, never below the first power inside the range: an axis from 2.5 to 16 would
/// get one tick, at 10. Starting it at a power gives a tick at its foot and steps above it.
fn down_to_power(v: f64, base: f64) -> f64 {
    if !(v.is_finite() && v > 0.0 && base > 1.0) {
        return v;
    }
    // The small margin keeps a value that is a power (up to rounding) where it is.
    base.powf((v.ln() / base.ln() + 1e-9).floor())
}

/// The text alternative of a chart of lines: its title, its axes, and each series' range of
/// values with the best one.
fn series_alt(title: &str, x_desc: &str, series: &[Series], unit: &str) -> String {
    let each: Vec<String> = series
        .iter()
        .filter_map(|s| {
            let best = s.points.iter().map(|p| p.1).max_by(f64::total_cmp)?;
            let least = s.points.iter().map(|p| p.1).min_by(f64::total_cmp)?;
            Some(format!(
                "{} {} to {} {unit} over {} points",
                s.name,
                sig3(least),
                sig3(best),
                s.points.len()
            ))
        })
        .collect();
    format!("{title}: {unit} against {x_desc}. {}.", each.join("; "))
}

/// The series' line in its colour, which it returns.
fn draw_line<X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    s: &Series,
) -> Result<RGBColor, String> {
    let c = colour(s.colour);
    chart
        .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
        .map_err(err)?;
    Ok(c)
}

/// How a series' best point is labelled: by the result (the shape, for the roofline) or by
/// the series (the path, for size sweeps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BestLabel {
    /// By the result's id less its suite.
    Id,
    /// By the result's id, after the file named before `: ` in the series' name.
    FileAndId,
    /// By the series' name.
    Series,
}

/// Every series' points as marks with tooltips, and each series' best point labelled.
pub(super) fn draw_points<X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    overlay: &mut Overlay,
    series: &[Series],
    (unit, by): (&str, BestLabel),
) {
    for s in series {
        let c = colour(s.colour);
        for (i, p) in s.points.iter().enumerate() {
            overlay.marker(chart.backend_coord(p), s.marker, c, &s.tip(i));
        }
        overlay.legend(Key::Marker(c, s.marker), s.name.clone());
    }
    // Each series' best point, in the series' order, and at most LABELS of them: more crowd the
    // chart (the tooltips still give every value).
    let bests: Vec<(&Series, usize, (f64, f64))> = series
        .iter()
        .filter_map(|s| {
            let (i, p) = s
                .points
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.1.total_cmp(&b.1.1))?;
            Some((s, i, *p))
        })
        .collect();
    let mut placed = 0;
    for (s, i, p) in bests {
        let what = s.tip(i);
        let id = what.lines().next().unwrap_or_default();
        let name = match by {
            // The id without its suite and its array size: `fma128/vec4-f32`.
            BestLabel::Id => short_label(id),
            BestLabel::FileAndId => match s.name.rsplit_once(": ") {
                Some((file, _)) => format!("{file}: {}", short_label(id)),
                None => short_label(id),
            },
            BestLabel::Series => s.name.clone(),
        };
        let text = format!("{name}: {} {unit}", sig3(p.1));
        if placed < LABELS && overlay.label(chart.backend_coord(&p), &text) {
            placed += 1;
        }
    }
}

/// The id without its suite and its array size: `fma128/vec4-f32`.
fn short_label(id: &str) -> String {
    id.split('/').skip(1).take(2).collect::<Vec<_>>().join("/")
}

/// Most direct labels of best points per chart.
const LABELS: usize = 8;

/// Bandwidth against size, one line per series (its colour and marker from the series), log
/// axes, with each series' fitted model (`t = fixed + bytes / bandwidth`, as (name, fixed us,
/// GB/s)) dashed when present. `legend` replaces the one-entry-per-series legend when given.
pub fn size_sweep(
    title: &str,
    x_desc: &str,
    series: &[Series],
    models: &[(String, f64, f64)],
    legend: Option<Vec<(Key, String)>>,
) -> Result<Option<String>, ReportError> {
    sweep_in(title, (x_desc, GB_S), series, models, legend)
}

/// GB/s on a y axis: the unit and the axis's words.
const GB_S: (&str, &str) = ("GB/s", "GB/s (10^9 bytes/s)");

/// A value against working-set size, one line per series, log axes: `y` names the unit and
/// the axis (`("ns", "ns per load")`).
pub fn working_set_sweep(
    title: &str,
    series: &[Series],
    y: (&str, &str),
) -> Result<Option<String>, ReportError> {
    sweep_in(title, ("working set (bytes)", y), series, &[], None)
}

/// [`size_sweep`] with the y unit and axis words given.
fn sweep_in(
    title: &str,
    (x_desc, (unit, y_desc)): (&str, (&str, &str)),
    series: &[Series],
    models: &[(String, f64, f64)],
    legend: Option<Vec<(Key, String)>>,
) -> Result<Option<String>, ReportError> {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (Some(x), Some(y)) = (log_range(xs, 1.5), log_range(ys, 2.0)) else {
        return Ok(None);
    };
    svg(&series_alt(title, x_desc, series, unit), |root, overlay| {
        let mut chart = log_axes(root, title, (x, y), 4.0, (x_desc, y_desc), &|v| {
            crate::numbers::bytes_label(*v)
        })?;
        overlay.plot_area(chart.plotting_area().get_pixel_range());
        for s in series {
            let c = draw_line(&mut chart, s)?;
            if let Some((_, fixed_us, gbs)) = models.iter().find(|m| m.0 == s.name) {
                let model = |bytes: f64| bytes / (fixed_us * 1e-6 + bytes / (gbs * 1e9)) / 1e9;
                let steps: Vec<(f64, f64)> = (0..=60)
                    .map(|k| x.0 * (x.1 / x.0).powf(f64::from(k) / 60.0))
                    .map(|x| (x, model(x)))
                    .filter(|p| p.1 >= y.0 && p.1 <= y.1)
                    .collect();
                chart
                    .draw_series(DashedLineSeries::new(steps, 6, 4, c.stroke_width(1)))
                    .map_err(err)?;
            }
        }
        draw_points(&chart, overlay, series, (unit, BestLabel::Series));
        if let Some(entries) = &legend {
            overlay.replace_legend(entries.clone());
        }
        if !models.is_empty() {
            overlay.legend(
                Key::Dashed(colour(7)),
                "fitted model t = fixed + bytes / bandwidth",
            );
        }
        Ok(())
    })
    .map(Some)
}

/// A histogram of latencies (microseconds) with p50/p95/p99 marked, captioned and labelled in
/// `words` (its result's); the x axis runs over the bulk of the samples (see [`histogram`]:
/// samples beyond it are counted in the marked end bin and named in the legend), with a little
/// padding; the y axis counts samples.
pub fn latency(
    words: &super::data::LatencyWords,
    samples_us: &[f64],
    percentiles: &[(&str, f64)],
) -> Result<Option<String>, ReportError> {
    let finite: Vec<f64> = samples_us
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let Some(h) = histogram::bin(&finite, LATENCY_BINS) else {
        return Ok(None);
    };
    let (lo, hi) = (axis_bound(h.lo), axis_bound(h.hi));
    let top = (f64::from(h.counts.iter().copied().max().unwrap_or(1)) * 1.15).ceil() as i32;
    let pad = (hi - lo) * 0.04;
    let x_range = axis_bound((lo - pad).max(lo / 2.0))..axis_bound(hi + pad);
    svg(&latency_alt(words, &h, percentiles), |root, overlay| {
        let mut chart = ChartBuilder::on(root)
            .caption(&words.caption, ("sans-serif", CAPTION_FONT))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(x_range, 0..top.max(1))
            .map_err(err)?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", TICK_FONT))
            .axis_desc_style(("sans-serif", AXIS_FONT))
            .x_desc(&words.axis)
            .y_desc("samples")
            .x_label_formatter(&|v| tick(*v))
            .draw()
            .map_err(err)?;
        overlay.plot_area(chart.plotting_area().get_pixel_range());
        draw_bins(&chart, overlay, &h);
        draw_percentiles(&mut chart, overlay, percentiles, (lo, hi, top))
    })
    .map(Some)
}

/// Bins of a latency histogram.
const LATENCY_BINS: usize = 40;
/// The colour of an end bin holding samples from beyond the axis (no percentile line uses it).
const CLIPPED: RGBColor = RGBColor(64, 64, 64);

/// The latency histogram's text alternative: what it counts, its percentiles and its axis.
fn latency_alt(
    words: &super::data::LatencyWords,
    h: &histogram::Histogram,
    percentiles: &[(&str, f64)],
) -> String {
    let marks: Vec<String> = percentiles
        .iter()
        .map(|(label, v)| format!("{label} {} us", sig3(*v)))
        .collect();
    let each = if words.each.is_empty() {
        String::new()
    } else {
        format!(", each {}", words.each)
    };
    format!(
        "Histogram of {} latencies of {}{each}: {}; axis {} to {} us, {} beyond it.",
        h.n,
        words.id,
        marks.join(", "),
        sig3(h.lo),
        sig3(h.hi),
        beyond(h.clipped())
    )
}

/// "1 sample", "3 samples", "no sample".
fn beyond(n: usize) -> String {
    match n {
        0 => "no sample".to_string(),
        1 => "1 sample".to_string(),
        n => format!("{n} samples"),
    }
}

type HistogramChart<'a, 'b> = Chart2d<'a, 'b, RangedCoordf64, RangedCoordi32>;

/// The bins as marks; an end bin holding samples from beyond the axis drawn darker, outlined,
/// with a tooltip saying how many and how far, and a legend entry saying so.
fn draw_bins(chart: &HistogramChart<'_, '_>, overlay: &mut Overlay, h: &histogram::Histogram) {
    let width = h.bin_width();
    for (i, &n) in h.counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        let x = h.lo + width * i as f64;
        let (a, b) = (
            chart.backend_coord(&(x, 0)),
            chart.backend_coord(&(x + width * 0.9, n as i32)),
        );
        let mut tip = format!(
            "{} - {} us: {n} of {} samples",
            sig3(x),
            sig3(x + width),
            h.n
        );
        let (class, c) = if h.is_clipped(i) {
            tip.push_str(&clipped_note(h, i));
            ("mark clipped", CLIPPED)
        } else {
            ("mark", colour(0))
        };
        overlay.rect((a.0, b.1, b.0, a.1), c, 0.7, class, &tip);
    }
    overlay.legend(Key::Block(colour(0), 0.7), format!("{} samples", h.n));
    for (side, (n, v)) in [("below", h.below), ("above", h.above)] {
        if n > 0 {
            let text = format!(
                "{} beyond the axis ({side} it, out to {} us), counted in the marked end bin",
                beyond(n),
                sig3(v)
            );
            overlay.legend(Key::Block(CLIPPED, 0.7), text);
        }
    }
    overlay.describe(format!(
        "The axis runs over the samples within Q1 - {k} IQR and Q3 + {k} IQR; {} beyond it.",
        beyond(h.clipped()),
        k = histogram::FENCE_IQR
    ));
}

/// What an end bin's tooltip adds: the samples in it from beyond the axis.
fn clipped_note(h: &histogram::Histogram, i: usize) -> String {
    let (n, v) = if i == 0 { h.below } else { h.above };
    format!(
        "\nincludes {} beyond the axis, out to {} us",
        beyond(n),
        sig3(v)
    )
}

/// The percentiles as vertical lines where they fall on the axis; the legend gives every value.
fn draw_percentiles(
    chart: &mut HistogramChart<'_, '_>,
    overlay: &mut Overlay,
    percentiles: &[(&str, f64)],
    (lo, hi, top): (f64, f64, i32),
) -> Result<(), String> {
    for (i, (label, value)) in percentiles.iter().enumerate() {
        let c = colour(i + 1);
        let on_axis = (lo..=hi).contains(value);
        if on_axis {
            chart
                .draw_series(LineSeries::new(
                    vec![(*value, 0), (*value, top)],
                    c.stroke_width(2),
                ))
                .map_err(err)?;
        }
        let text = format!("{label} {} us", sig3(*value));
        let text = if on_axis {
            text
        } else {
            format!("{text} (beyond the axis)")
        };
        overlay.legend(Key::Line(c), text);
    }
    Ok(())
}

/// Linear axes from time 0 to `x1` seconds and from 0 to `y1` in `unit`, with a caption.
pub(super) fn time_axes<'a, 'b>(
    root: &'a Area<'b>,
    caption: &str,
    x1: f64,
    y1: f64,
    unit: &str,
) -> Result<Chart2d<'a, 'b, RangedCoordf64, RangedCoordf64>, String> {
    let ranges = (0f64..axis_bound(x1), 0f64..axis_bound(y1).max(1e-9));
    line_axes(
        root,
        caption,
        ranges,
        ("time (s)", unit),
        (&plain_tick, &plain_tick),
    )
}

/// Which axes of a [`curve`] are logarithmic: (x, y).
pub type LogAxes = (bool, bool);

/// A value against a parameter, one line per series, each axis linear or logarithmic (a log
/// axis plots log10 of the positive values, its ticks labelled with the values themselves):
/// the chart of a curve hint no layout of its own draws. `x_desc` names the parameter.
pub fn curve(
    title: &str,
    x_desc: &str,
    series: &[Series],
    unit: &str,
    (log_x, log_y): LogAxes,
) -> Result<Option<String>, ReportError> {
    let scale = |v: f64, log: bool| match log {
        true => (v > 0.0).then(|| v.log10()),
        false => Some(v),
    };
    let drawn: Vec<Series> = series
        .iter()
        .map(|s| {
            let mut d = Series::new(s.name.clone(), s.colour);
            d.marker = s.marker;
            for (i, (x, y)) in s.points.iter().enumerate() {
                if let (Some(x), Some(y)) = (scale(*x, log_x), scale(*y, log_y))
                    && x.is_finite()
                    && y.is_finite()
                {
                    d.push((x, y), s.tip(i));
                }
            }
            d
        })
        .filter(|d| !d.points.is_empty())
        .collect();
    let (xs, ys): (Vec<f64>, Vec<f64>) = drawn.iter().flat_map(|s| s.points.clone()).unzip();
    let (Some(x), Some(y)) = (padded(&xs), padded(&ys)) else {
        return Ok(None);
    };
    let label = |log: bool| move |v: &f64| tick(if log { 10f64.powf(*v) } else { *v });
    let (x_label, y_label) = (label(log_x), label(log_y));
    svg(&series_alt(title, x_desc, series, unit), |root, overlay| {
        let mut chart = line_axes(
            root,
            title,
            (x.0..x.1, y.0..y.1),
            (x_desc, unit),
            (&x_label, &y_label),
        )?;
        overlay.plot_area(chart.plotting_area().get_pixel_range());
        for s in &drawn {
            draw_line(&mut chart, s)?;
        }
        curve_marks(&chart, overlay, &drawn, unit, log_y);
        Ok(())
    })
    .map(Some)
}

/// A [`curve`]'s points as marks with tooltips and legend entries, and each series' best point
/// labelled with its value (undone from log10 where the y axis is logarithmic).
fn curve_marks<X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    overlay: &mut Overlay,
    series: &[Series],
    unit: &str,
    log_y: bool,
) {
    let mut placed = 0;
    for s in series {
        let c = colour(s.colour);
        for (i, p) in s.points.iter().enumerate() {
            overlay.marker(chart.backend_coord(p), s.marker, c, &s.tip(i));
        }
        overlay.legend(Key::Marker(c, s.marker), s.name.clone());
        let best = s.points.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some(p) = best.filter(|_| placed < LABELS) {
            let value = if log_y { 10f64.powf(p.1) } else { p.1 };
            let text = format!("{}: {} {unit}", s.name, sig3(value));
            if overlay.label(chart.backend_coord(p), &text) {
                placed += 1;
            }
        }
    }
}

/// The range of finite `values` widened by a tenth of its span on each side (by one where
/// the span is zero), kept inside what an axis can show; `None` when there are none.
fn padded(values: &[f64]) -> Option<(f64, f64)> {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let pad = if hi > lo { (hi - lo) / 10.0 } else { 1.0 };
    let bound = |v: f64| v.clamp(-f64::MAX / 4.0, f64::MAX / 4.0);
    Some((bound(lo - pad), bound(hi + pad)))
}

/// Throughput per window over time for the sustained run, with the best window marked.
pub fn timeline(series: &[Series], unit: &str) -> Result<Option<String>, ReportError> {
    let points: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .collect();
    if points.len() < 2 {
        return Ok(None);
    }
    let x1 = points.iter().map(|p| p.0).fold(0.0, f64::max).max(1e-3);
    let y1 = axis_bound(points.iter().map(|p| p.1).fold(0.0, f64::max) * 1.15);
    let alt = series_alt(
        "Line chart of sustained throughput per window",
        "time (s)",
        series,
        unit,
    );
    svg(&alt, |root, overlay| {
        let mut chart = time_axes(root, "Sustained throughput per window", x1, y1, unit)?;
        overlay.plot_area(chart.plotting_area().get_pixel_range());
        for s in series {
            draw_line(&mut chart, s)?;
        }
        draw_points(&chart, overlay, series, (unit, BestLabel::Series));
        Ok(())
    })
    .map(Some)
}

#[cfg(test)]
mod tests {
    use super::super::bars::bars;
    use super::super::data::Bar;
    use super::*;

    /// Values near the top of f64 still give a chart, in bounded time.
    #[test]
    fn charts_survive_the_largest_finite_values() {
        for huge in [1.7e308, f64::MAX, 1e300, 5e-324] {
            let bar = Bar {
                value: huge,
                low: huge / 2.0,
                high: huge,
                best: Some(huge),
                tip: String::new(),
            };
            let chart = bars(
                "t",
                "GB/s",
                &["a".into()],
                &["m".into()],
                &[vec![Some(bar)]],
            )
            .expect("drawn");
            assert!(chart.is_some(), "{huge}");
            let series = Series {
                name: "s".into(),
                points: vec![(1.0, huge), (huge, 1.0), (2.0, 3.0)],
                ..Series::default()
            };
            timeline(std::slice::from_ref(&series), "GB/s").expect("drawn");
            size_sweep("t", "bytes", std::slice::from_ref(&series), &[], None).expect("drawn");
            latency(
                &super::super::data::LatencyWords::new("l", "", "us"),
                &[1.0, huge],
                &[("p50", huge)],
            )
            .expect("drawn");
        }
    }
}
