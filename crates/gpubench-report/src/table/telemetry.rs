//! The terminal table's telemetry lines and the block of results against nominal figures:
//! what the platform reported over the run (or why nothing), the PCIe link, the datasheet row
//! matched, and each result's percentage of its nominal figure beside its percentage of the
//! measured peak. Nothing is printed for a run without telemetry or for results no row matches.

use comfy_table::{Cell, CellAlignment, Table};
use gpubench_results::telemetry::{RunTelemetry, Spread, TelemetryStatus};
use gpubench_results::{BenchResult, RunDocument};

use crate::layout::framed_table;
use crate::numbers::sig3;

/// `graphics clock 1410-1980 MHz` for a spread.
fn spread(name: &str, s: Option<Spread>, unit: &str) -> Option<String> {
    let s = s?;
    Some(format!("{name} {:.0}-{:.0} {unit}", s.min, s.max))
}

/// One line on the run's telemetry, one on its link, one on its datasheet row.
pub fn header_lines(doc: &RunDocument) -> String {
    let Some(run) = &doc.telemetry else {
        return String::new();
    };
    let mut out = format!("telemetry: {}\n", totals_text(run));
    if let Some(link) = &run.link {
        let gen_width = |g: Option<u8>, w: Option<u32>| {
            format!(
                "gen{} x{}",
                g.map_or("?".into(), |g| g.to_string()),
                w.map_or("?".into(), |w| w.to_string())
            )
        };
        out.push_str(&format!(
            "PCIe link: {} {} of {} ({} GB/s one way, nominal)\n",
            link.address,
            gen_width(link.current_generation, link.current_width),
            gen_width(link.max_generation, link.max_width),
            link.current_nominal_gbs.map_or("?".into(), sig3)
        ));
    }
    if let Some(nominal) = &run.nominal {
        out.push_str(&format!(
            "datasheet: {} (matched by {}; {})\n",
            nominal.name, nominal.matched_by, nominal.source
        ));
    }
    out
}

fn totals_text(run: &RunTelemetry) -> String {
    let t = &run.totals;
    if t.status != TelemetryStatus::Sampled {
        return format!(
            "{}{}",
            t.status.as_str(),
            t.reason
                .as_ref()
                .map_or(String::new(), |r| format!(" ({r})"))
        );
    }
    let parts: Vec<String> = [
        spread("graphics clock", t.sensors.sm_clock_mhz, "MHz"),
        spread("memory clock", t.sensors.memory_clock_mhz, "MHz"),
        spread("power", t.sensors.power_w, "W"),
        spread("temperature", t.sensors.temperature_c, "C"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let reasons = if t.throttle_reasons.is_empty() && !t.throttle_reasons_known() {
        // amdgpu reports none: silence there is not health.
        "unknown (this driver reports none)".to_string()
    } else if t.throttle_reasons.is_empty() {
        "none".to_string()
    } else {
        t.throttle_reasons.join(", ")
    };
    format!(
        "{}, {} readings: {}; throttle reasons: {reasons}",
        t.source.as_deref().unwrap_or("?"),
        t.readings,
        parts.join(", ")
    )
}

/// The median of the derived `<id>/fraction-of-peak` row, where there is one.
fn fraction_of_peak(doc: &RunDocument, id: &str) -> Option<f64> {
    let wanted = format!("{id}/fraction-of-peak");
    doc.result(&wanted)?.median()
}

fn pct(result: &BenchResult, key: &str) -> Option<f64> {
    result.extra.get(key)?.as_f64()
}

/// `result`'s share of the PCIe link, unless its bytes stayed on the device.
fn link_share(result: &BenchResult) -> Option<f64> {
    pct(result, "pct_of_link").filter(|_| !crate::link::stayed_on_device(result))
}

/// Results beside their nominal figures; `None` when no result has one.
pub fn nominal_table(doc: &RunDocument) -> Option<Table> {
    let rows: Vec<&BenchResult> = doc
        .results
        .iter()
        .filter(|r| pct(r, "pct_of_nominal").is_some() || link_share(r).is_some())
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut table = framed_table(
        vec![
            "against nominal",
            "value",
            "unit",
            "% of measured peak",
            "% of nominal",
            "of",
        ],
        None,
    );
    let percent = |v: Option<f64>| {
        Cell::new(v.map_or("-".to_string(), |v| crate::numbers::percent(v, 0)))
            .set_alignment(CellAlignment::Right)
    };
    for r in rows {
        // The figure compared with, in the result's unit, beside its name: a share means
        // nothing to a reader who cannot see what it is a share of.
        let of = |name: &str, value: Option<f64>| match value {
            Some(v) => format!("{name} ({} {})", sig3(v), r.unit),
            None => name.to_string(),
        };
        let (share, of) = match pct(r, "pct_of_nominal") {
            Some(p) => (
                Some(p),
                of(
                    r.extra
                        .get("nominal_figure")
                        .and_then(|v| v.as_str())
                        .unwrap_or(""),
                    pct(r, "nominal_value"),
                ),
            ),
            None => (link_share(r), of("pcie link", pct(r, "link_nominal_gbs"))),
        };
        table.add_row(vec![
            Cell::new(&r.id),
            Cell::new(r.median().map_or("-".into(), sig3)).set_alignment(CellAlignment::Right),
            Cell::new(&r.unit),
            percent(fraction_of_peak(doc, &r.id)),
            percent(share),
            Cell::new(of),
        ]);
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::{doc_with, ok_result};
    use gpubench_results::telemetry::TelemetrySummary;

    #[test]
    fn results_with_nominal_figures_show_both_percentages_and_others_none() {
        let mut doc = doc_with("NVIDIA H200", false);
        assert!(
            nominal_table(&doc).is_none(),
            "no row without a nominal figure"
        );
        assert_eq!(header_lines(&doc), "", "no telemetry, no lines");
        let mut matmul = ok_result("matmul/f32/4096", "throughput", "GFLOP/s", 30000.0);
        matmul.extra.insert("pct_of_nominal".into(), 44.8.into());
        matmul
            .extra
            .insert("nominal_figure".into(), "fp32_tflops".into());
        let fraction = ok_result(
            "matmul/f32/4096/fraction-of-peak",
            "fraction-of-peak",
            "%",
            61.0,
        );
        doc.results.extend([matmul, fraction]);
        let text = nominal_table(&doc).expect("a block").to_string();
        let row = text
            .lines()
            .find(|l| l.contains("matmul/f32/4096 "))
            .expect("the row");
        assert!(
            row.contains("61%") && row.contains("45%") && row.contains("fp32_tflops"),
            "{row}"
        );
        // The figure itself stands beside its name, in the result's unit.
        let mut doc_with_value = doc.clone();
        if let Some(m) = doc_with_value
            .results
            .iter_mut()
            .find(|r| r.id == "matmul/f32/4096")
        {
            m.extra.insert("nominal_value".into(), 67000.0.into());
        }
        let text = nominal_table(&doc_with_value).expect("a block").to_string();
        assert!(text.contains("fp32_tflops (67000 GFLOP/s)"), "{text}");
        doc.telemetry = Some(with_totals(TelemetrySummary::without_readings(
            TelemetryStatus::NotApplicable,
            Some("software adapter".into()),
        )));
        assert_eq!(
            header_lines(&doc),
            "telemetry: not applicable (software adapter)\n"
        );
    }

    /// A run's telemetry of `totals` alone: no trace, clocks, link or datasheet row.
    fn with_totals(totals: TelemetrySummary) -> RunTelemetry {
        RunTelemetry {
            totals,
            trace: Vec::new(),
            max_sm_clock_mhz: None,
            max_memory_clock_mhz: None,
            driver_version: None,
            link: None,
            nominal: None,
        }
    }

    #[test]
    fn a_driver_that_reports_no_throttle_reasons_is_not_read_as_unthrottled() {
        let sampled = |source: &str| {
            let mut totals = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
            totals.source = Some(source.to_string());
            totals.readings = 10;
            with_totals(totals)
        };
        assert!(totals_text(&sampled("nvml")).ends_with("throttle reasons: none"));
        let amd = totals_text(&sampled("amdgpu-sysfs"));
        assert!(
            amd.ends_with("throttle reasons: unknown (this driver reports none)"),
            "{amd}"
        );
    }

    #[test]
    fn a_small_share_of_the_link_is_not_rounded_to_zero() {
        let mut doc = doc_with("NVIDIA H200", false);
        // 0.04 GB/s over a 64 GB/s link: 0.0625% of it.
        let mut slow = ok_result("transfer/h2d/bytes/4KiB", "bandwidth", "GB/s", 0.04);
        slow.extra.insert("pct_of_link".into(), 0.0625.into());
        doc.results.push(slow);
        let text = nominal_table(&doc).expect("a block").to_string();
        let row = text
            .lines()
            .find(|l| l.contains("transfer/h2d/bytes/4KiB"))
            .expect("the row");
        assert!(row.contains("0.0625%") && !row.contains(" 0% "), "{row}");
    }

    /// A copy whose bytes stayed on the device shows no share of the link, even where an older
    /// file stored one beside it (an H200's 424 GB/s in-VRAM staging copy was "672%" of PCIe).
    #[test]
    fn a_copy_that_stayed_on_the_device_is_no_share_of_the_link() {
        let mut doc = doc_with("NVIDIA H200", false);
        doc.results.clear();
        let mut copy = ok_result(
            "transfer/h2d-staging-copy/bytes/256MiB",
            "bandwidth",
            "GB/s",
            424.0,
        );
        copy.extra.insert("pct_of_link".into(), 672.0.into());
        copy.params.insert("crosses_link".into(), false.into());
        doc.results.push(copy.clone());
        assert!(
            nominal_table(&doc).is_none(),
            "no row has a figure to compare"
        );
        copy.params.insert("crosses_link".into(), true.into());
        doc.results[0] = copy;
        assert!(nominal_table(&doc).is_some());
    }
}
