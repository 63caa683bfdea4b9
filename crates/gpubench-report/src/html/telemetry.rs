//! The telemetry panel: graphics clock and temperature over the run, the throttle reasons the
//! driver reported with when they were first seen, and the link and datasheet row. Drawn only
//! where the run's telemetry was sampled; otherwise one line says why there is none.

use maud::{Markup, html};
use plotters::prelude::*;

use gpubench_results::RunDocument;
use gpubench_results::telemetry::{RunTelemetry, TelemetryPoint, TelemetryStatus};

use super::charts::{colour, err, svg, time_axes};
use super::{figure, table_of, titled_section};
use crate::ReportError;

/// The panel's HTML for `doc`, empty when the run recorded no telemetry.
pub fn section(title: &str, doc: &RunDocument) -> Result<Markup, ReportError> {
    let Some(run) = &doc.telemetry else {
        return Ok(html! {});
    };
    let body = if run.totals.status == TelemetryStatus::Sampled {
        sampled(run)?
    } else {
        html! {
            p {
                "Telemetry " (run.totals.status.as_str()) ": "
                (run.totals.reason.as_deref().unwrap_or("no reason recorded"))
            }
            "\n"
        }
    };
    Ok(titled_section(
        &format!("Telemetry{title}"),
        None,
        html! {
            (body)
            (facts_paragraph(run))
        },
    ))
}

/// A sampled run's clock and temperature charts and its throttle reasons.
fn sampled(run: &RunTelemetry) -> Result<Markup, ReportError> {
    let clock = |p: &TelemetryPoint| p.sm_clock_mhz;
    let temperature = |p: &TelemetryPoint| p.temperature_c;
    let mut charts = Vec::new();
    for (name, unit, pick) in [
        (
            "Graphics clock",
            "MHz",
            &clock as &dyn Fn(&TelemetryPoint) -> Option<f64>,
        ),
        ("Temperature", "degrees C", &temperature),
    ] {
        let max = run.max_sm_clock_mhz.filter(|_| unit == "MHz");
        charts.extend(over_time(name, unit, &run.trace, pick, max)?);
    }
    Ok(html! {
        @for svg in &charts {
            (figure(svg))
            "\n"
        }
        (reasons_table(run))
    })
}

/// One quantity against time, with the device's maximum dashed where given.
fn over_time(
    name: &str,
    unit: &str,
    trace: &[TelemetryPoint],
    pick: &dyn Fn(&TelemetryPoint) -> Option<f64>,
    max: Option<f64>,
) -> Result<Option<String>, ReportError> {
    let points: Vec<(f64, f64)> = trace
        .iter()
        .filter_map(|p| Some((p.t_s, pick(p)?)))
        .collect();
    if points.len() < 2 {
        return Ok(None);
    }
    let x1 = points.iter().map(|p| p.0).fold(0.0, f64::max).max(1e-3);
    let top = points.iter().map(|p| p.1).chain(max).fold(0.0, f64::max) * 1.15;
    let (least, most) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
    let alt = format!(
        "Line chart of {} over the run: {} readings over {} s, from {} to {} {unit}.",
        name.to_lowercase(),
        points.len(),
        crate::numbers::sig3(x1),
        crate::numbers::sig3(least),
        crate::numbers::sig3(most)
    );
    svg(&alt, |root, overlay| {
        let mut chart = time_axes(root, &format!("{name} over the run"), x1, top, unit)?;
        overlay.plot_area(chart.plotting_area().get_pixel_range());
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                colour(0).stroke_width(2),
            ))
            .map_err(err)?;
        if let Some(max) = max {
            let dashed =
                DashedLineSeries::new(vec![(0.0, max), (x1, max)], 6, 4, colour(3).stroke_width(1));
            chart.draw_series(dashed).map_err(err)?;
        }
        Ok(())
    })
    .map(Some)
}

/// Each throttle reason with the time it was first seen and the share of readings showing it.
fn reasons_table(run: &RunTelemetry) -> Markup {
    if run.totals.throttle_reasons.is_empty() {
        let said = if run.totals.throttle_reasons_known() {
            "No throttle reason was reported."
        } else {
            "Throttle reasons unknown: this driver reports none."
        };
        return html! {
            p { (said) }
            "\n"
        };
    }
    let rows: Vec<Markup> = run
        .totals
        .throttle_reasons
        .iter()
        .map(|reason| reason_row(run, reason))
        .collect();
    table_of(
        None,
        &["throttle reason", "first seen", "share of charted readings"],
        &rows,
    )
}

/// A throttle reason's row: when it was first seen and in what share of the readings.
fn reason_row(run: &RunTelemetry, reason: &str) -> Markup {
    let seen: Vec<&TelemetryPoint> = run
        .trace
        .iter()
        .filter(|p| p.throttle_reasons.iter().any(|r| r == reason))
        .collect();
    // The trace is thinned to a few thousand points: a reason every reading counted (the
    // run's totals) may fall between the points kept, which is said, never a share of 0%.
    let (first, share) = match seen.first() {
        Some(p) => (
            format!("{:.1} s", p.t_s),
            share_of(seen.len(), run.trace.len()),
        ),
        None => ("-".to_string(), "between the charted readings".to_string()),
    };
    html! {
        tr {
            td { (reason) }
            td { (first) }
            td { (share) }
        }
    }
}

/// `seen` of `all` readings as a percentage that never reads as all of them when it is not:
/// 1995 of 2000 is over 99%, not 100%.
fn share_of(seen: usize, all: usize) -> String {
    let text = crate::numbers::percent(100.0 * seen as f64 / all.max(1) as f64, 0);
    if seen < all && text == "100%" {
        "over 99%".to_string()
    } else {
        text
    }
}

/// The link and the datasheet row, as detected and as published.
fn facts_paragraph(run: &RunTelemetry) -> Markup {
    let mut facts = Vec::new();
    if let Some(link) = &run.link {
        facts.push(format!(
            "PCIe link {}: gen{} x{} of gen{} x{} ({} GB/s one way, nominal)",
            link.address,
            link.current_generation
                .map_or("?".into(), |g| g.to_string()),
            link.current_width.map_or("?".into(), |w| w.to_string()),
            link.max_generation.map_or("?".into(), |g| g.to_string()),
            link.max_width.map_or("?".into(), |w| w.to_string()),
            link.current_nominal_gbs
                .map_or("?".into(), |g| format!("{g:.1}"))
        ));
    }
    if let Some(nominal) = &run.nominal {
        facts.push(format!(
            "datasheet row: {} ({})",
            nominal.name, nominal.source
        ));
    }
    html! {
        @if !facts.is_empty() {
            p class="note" { (facts.join("; ")) }
            "\n"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::{doc_with, sampled_telemetry};
    use gpubench_results::telemetry::TelemetrySummary;

    fn sampled_doc() -> RunDocument {
        let mut doc = doc_with("NVIDIA H200", false);
        doc.telemetry = Some(sampled_telemetry());
        doc
    }

    #[test]
    fn a_sampled_run_draws_clock_and_temperature_and_lists_its_reasons() {
        let html = section("", &sampled_doc()).expect("renders").into_string();
        assert_eq!(html.matches("<svg").count(), 2, "clock and temperature");
        assert!(
            html.contains("<td>hw-thermal-slowdown</td><td>0.5 s</td><td>67%</td>"),
            "{html}"
        );
    }

    /// A reason in one reading of thousands shows its small share, and one every reading
    /// counted but the thinned trace lost is said to fall between the charted points: never 0%.
    #[test]
    fn a_rare_reason_is_never_a_share_of_zero() {
        let mut run = sampled_telemetry();
        let point = run.trace[0].clone();
        run.trace = vec![point; 2000];
        run.trace
            .iter_mut()
            .for_each(|p| p.throttle_reasons.clear());
        run.trace[7].throttle_reasons = vec!["hw-thermal-slowdown".into()];
        let share = |run: &RunTelemetry| reason_row(run, "hw-thermal-slowdown").into_string();
        assert!(share(&run).contains("<td>0.0500%</td>"));
        run.trace[7].throttle_reasons.clear();
        assert!(share(&run).contains("<td>between the charted readings</td>"));
        // Nearly every reading is not every reading.
        assert_eq!(share_of(1995, 2000), "over 99%");
        assert_eq!(share_of(2000, 2000), "100%");
    }

    #[test]
    fn no_telemetry_draws_nothing_and_unsampled_says_why() {
        let mut doc = sampled_doc();
        doc.telemetry = None;
        assert_eq!(section("", &doc).expect("renders").into_string(), "");
        let mut doc = sampled_doc();
        if let Some(run) = doc.telemetry.as_mut() {
            run.totals = TelemetrySummary::without_readings(
                TelemetryStatus::NotApplicable,
                Some("software adapter".into()),
            );
        }
        let html = section("", &doc).expect("renders").into_string();
        assert!(
            !html.contains("<svg") && html.contains("not applicable: software adapter"),
            "{html}"
        );
    }
}
