//! The charts of the HTML report, drawn with plotters' SVG backend. Each function returns one
//! self-contained `<svg>` element, or `None` when the documents hold nothing to draw.
//!
//! Text is laid out by plotters' built-in estimate and rendered by the browser, so no font
//! library is needed at build or run time.

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;

use super::data::{Bar, Ceilings, Series};
use crate::ReportError;

const WIDTH: u32 = 860;
const HEIGHT: u32 = 440;

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draws into a fresh SVG string with `draw`.
pub(super) fn svg(
    draw: impl FnOnce(&Area<'_>) -> Result<(), String>,
) -> Result<String, ReportError> {
    let mut buffer = String::new();
    {
        let root = SVGBackend::with_string(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        draw(&root).map_err(ReportError::Chart)?;
        root.present().map_err(chart_error)?;
    }
    Ok(buffer)
}

fn chart_error(error: impl std::fmt::Display) -> ReportError {
    ReportError::Chart(error.to_string())
}

pub(super) fn err(error: impl std::fmt::Display) -> String {
    error.to_string()
}

/// Draws the series labels in a framed box at `position`.
fn legend<'a, 'b: 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)
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
fn axis_bound(v: f64) -> f64 {
    v.clamp(AXIS_FLOOR, f64::MAX)
}

/// Range of positive values, widened by `pad` (a factor) on each side for log axes. The ratio
/// of the ends is kept finite (at most 1e300: plotters counts a log axis's decades from it, and
/// an infinite count never ends), raising the low end where needed.
fn log_range(values: impl Iterator<Item = f64>, pad: f64) -> Option<(f64, f64)> {
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

/// The roofline: bandwidth and compute ceilings against arithmetic intensity (log-log), with
/// measured points (the roofline sweep and matmul shapes) placed by their intensity.
pub fn roofline(ceilings: &Ceilings, points: &[Series]) -> Result<Option<String>, ReportError> {
    let all_points = points.iter().flat_map(|s| s.points.iter());
    let xs = all_points.clone().map(|p| p.0).chain(ceilings.ridge());
    let Some((x0, x1)) = log_range(xs.chain([0.05, 64.0]), 2.0) else {
        return Ok(None);
    };
    let ys = all_points
        .map(|p| p.1)
        .chain(ceilings.compute_gflops)
        .chain(ceilings.bandwidth_gbs.map(|b| b * x0));
    let Some((y0, y1)) = log_range(ys, 2.0) else {
        return Ok(None);
    };
    if points.is_empty() && ceilings.compute_gflops.is_none() {
        return Ok(None);
    }
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Roofline", ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("arithmetic intensity (FLOP per byte moved)")
            .y_desc("GFLOP/s")
            .draw()
            .map_err(err)?;
        let steps: Vec<f64> = (0..=100)
            .map(|i| x0 * (x1 / x0).powf(f64::from(i) / 100.0))
            .collect();
        let roof = |x: f64| {
            let bw = ceilings.bandwidth_gbs.map_or(f64::INFINITY, |b| b * x);
            bw.min(ceilings.compute_gflops.unwrap_or(f64::INFINITY))
        };
        if ceilings.bandwidth_gbs.is_some() || ceilings.compute_gflops.is_some() {
            let label = ceilings.label();
            chart
                .draw_series(LineSeries::new(
                    steps
                        .iter()
                        .map(|&x| (x, roof(x)))
                        .filter(|p| p.1.is_finite() && p.1 >= y0),
                    BLACK.stroke_width(2),
                ))
                .map_err(err)?
                .label(label)
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], BLACK.stroke_width(2))
                });
        }
        for (i, series) in points.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(
                    series
                        .points
                        .iter()
                        .map(|&(x, y)| Circle::new((x, y), 4, c.filled())),
                )
                .map_err(err)?
                .label(series.name.clone())
                .legend(move |(x, y)| Circle::new((x + 9, y), 4, c.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)
    })
    .map(Some)
}

/// Bandwidth against size, one line per series, log axes, with each series' fitted model
/// (`t = fixed + bytes / bandwidth`, as (name, fixed us, GB/s)) dashed when present.
pub fn size_sweep(
    title: &str,
    x_desc: &str,
    series: &[Series],
    models: &[(String, f64, f64)],
) -> Result<Option<String>, ReportError> {
    let Some((x0, x1)) = log_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
        1.5,
    ) else {
        return Ok(None);
    };
    let Some((y0, y1)) = log_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        2.0,
    ) else {
        return Ok(None);
    };
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d((x0..x1).log_scale().base(4.0), (y0..y1).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("GB/s (10^9 bytes/s)")
            .x_label_formatter(&|v| crate::format::bytes_label(*v))
            .draw()
            .map_err(err)?;
        for (i, s) in series.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
                .map_err(err)?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            chart
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(err)?;
            if let Some((_, fixed_us, gbs)) = models.iter().find(|m| m.0 == s.name) {
                let model = |bytes: f64| bytes / (fixed_us * 1e-6 + bytes / (gbs * 1e9)) / 1e9;
                let steps: Vec<(f64, f64)> = (0..=60)
                    .map(|k| x0 * (x1 / x0).powf(f64::from(k) / 60.0))
                    .map(|x| (x, model(x)))
                    .filter(|p| p.1 >= y0 && p.1 <= y1)
                    .collect();
                chart
                    .draw_series(DashedLineSeries::new(steps, 6, 4, c.stroke_width(1)))
                    .map_err(err)?;
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
    .map(Some)
}

/// A histogram of round-trip latencies (microseconds) with p50/p95/p99 marked.
pub fn latency(
    name: &str,
    samples_us: &[f64],
    percentiles: &[(&str, f64)],
) -> Result<Option<String>, ReportError> {
    let finite: Vec<f64> = samples_us
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    if finite.len() < 2 {
        return Ok(None);
    }
    let lo = axis_bound(finite.iter().copied().fold(f64::INFINITY, f64::min));
    let hi = axis_bound(finite.iter().copied().fold(0.0, f64::max).max(lo * 1.01));
    const BINS: usize = 40;
    let width = (hi - lo) / BINS as f64;
    let mut counts = [0u32; BINS];
    for v in &finite {
        let bin = (((v - lo) / width) as usize).min(BINS - 1);
        counts[bin] += 1;
    }
    let top = f64::from(counts.iter().copied().max().unwrap_or(1)) * 1.15;
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(format!("Launch round trip: {name}"), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(lo..hi, 0f64..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("submit-to-completion latency (us)")
            .y_desc("samples")
            .draw()
            .map_err(err)?;
        chart
            .draw_series(counts.iter().enumerate().map(|(i, &n)| {
                let x = lo + width * i as f64;
                Rectangle::new(
                    [(x, 0.0), (x + width * 0.9, f64::from(n))],
                    colour(0).mix(0.7).filled(),
                )
            }))
            .map_err(err)?
            .label(format!("{} samples", finite.len()))
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour(0).filled()));
        for (i, (label, value)) in percentiles.iter().enumerate() {
            let c = colour(i + 1);
            chart
                .draw_series(LineSeries::new(
                    vec![(*value, 0.0), (*value, top)],
                    c.stroke_width(2),
                ))
                .map_err(err)?
                .label(format!("{label} {}", crate::format::sig3(*value)))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    })
    .map(Some)
}

/// Bars with 95% confidence whiskers, grouped by category; one colour per group member (one
/// member per file for cross-card charts). `unit` labels the value axis.
pub fn bars(
    title: &str,
    unit: &str,
    categories: &[String],
    members: &[String],
    values: &[Vec<Option<Bar>>],
) -> Result<Option<String>, ReportError> {
    let top = values
        .iter()
        .flatten()
        .flatten()
        .map(|b| b.high.max(b.value))
        .fold(0.0f64, f64::max);
    if categories.is_empty() || top.is_nan() || top <= 0.0 {
        return Ok(None);
    }
    let group = members.len().max(1) + 1;
    let segments = (categories.len() * group) as i32;
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(60)
            .y_label_area_size(64)
            .build_cartesian_2d((0..segments).into_segmented(), 0f64..axis_bound(top * 1.12))
            .map_err(err)?;
        let label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(s) if (*s as usize) % group == (group - 1) / 2 => categories
                .get(*s as usize / group)
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(segments as usize)
            .x_label_formatter(&label)
            .y_desc(unit)
            .draw()
            .map_err(err)?;
        for (m, member) in members.iter().enumerate() {
            let c = colour(m);
            let bars = member_bars(values, m, group);
            chart
                .draw_series(bars.iter().map(|(s, b)| {
                    let corners = [
                        (SegmentValue::Exact(*s), 0.0),
                        (SegmentValue::Exact(s + 1), b.value),
                    ];
                    let mut rect = Rectangle::new(corners, c.filled());
                    rect.set_margin(0, 0, 2, 2);
                    rect
                }))
                .map_err(err)?
                .label(member.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
            chart
                .draw_series(bars.iter().filter(|(_, b)| b.high > b.low).map(|(s, b)| {
                    ErrorBar::new_vertical(
                        SegmentValue::CenterOf(*s),
                        b.low,
                        b.value,
                        b.high,
                        BLACK.stroke_width(1),
                        6,
                    )
                }))
                .map_err(err)?;
        }
        if members.len() > 1 {
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    })
    .map(Some)
}

/// Member `m`'s bars as (segment, bar): category `cat` occupies segments `cat * group ..`.
fn member_bars(values: &[Vec<Option<Bar>>], m: usize, group: usize) -> Vec<(i32, Bar)> {
    values
        .iter()
        .enumerate()
        .filter_map(|(cat, row)| {
            row.get(m)
                .copied()
                .flatten()
                .map(|b| ((cat * group + m) as i32, b))
        })
        .collect()
}

/// Linear axes from time 0 to `x1` seconds and from 0 to `y1` in `unit`, with a caption.
pub(super) fn time_axes<'a, 'b>(
    root: &'a Area<'b>,
    caption: &str,
    x1: f64,
    y1: f64,
    unit: &str,
) -> Result<
    ChartContext<
        'a,
        SVGBackend<'b>,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    String,
> {
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..axis_bound(x1), 0f64..axis_bound(y1).max(1e-9))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(unit)
        .draw()
        .map_err(err)?;
    Ok(chart)
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
    svg(|root| {
        let mut chart = time_axes(root, "Sustained throughput per window", x1, y1, unit)?;
        for (i, s) in series.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
                .map_err(err)?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)
    })
    .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values near the top of f64 still give a chart, in bounded time.
    #[test]
    fn charts_survive_the_largest_finite_values() {
        for huge in [1.7e308, f64::MAX, 1e300, 5e-324] {
            let bar = Bar {
                value: huge,
                low: huge / 2.0,
                high: huge,
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
            };
            timeline(std::slice::from_ref(&series), "GB/s").expect("drawn");
            size_sweep("t", "bytes", std::slice::from_ref(&series), &[]).expect("drawn");
            latency("l", &[1.0, huge], &[("p50", huge)]).expect("drawn");
        }
    }
}
