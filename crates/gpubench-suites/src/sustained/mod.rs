//! The sustained run: the f32 vec4 FMA peak kernel kept busy for a set time, one sample per
//! window, so clock ramps and thermal or power throttling show as a falling series. On a GPU it
//! runs the accumulate chain, the one that loads every card fully ([`load_chain`]).
//!
//! Throttling is flagged when three quarters of the last third's windows fall under 90% of
//! the pace the card held (the windows' 90th percentile, or the first third's 75th where that is
//! higher: a boost that lasted a second of a ten-second run is under a tenth of its windows;
//! one window that ran fast is neither), or when
//! telemetry saw the driver hold the clocks for heat or a hardware limit (a card hot from the
//! start throttles from its first window and shows no fall); the coefficient of variation over
//! all windows says how steady the device was. All go into the result (`extra`, and a warning
//! when throttled).

#[cfg(test)]
mod on_an_adapter;

use gpubench_results::warnings::{FigureUnit, OwnedKind};
use std::time::Duration;

use gpubench_harness::{BenchResult, KernelBench, Profile, Status};
use gpubench_results::stats::median;

use gpubench_engine::options::parse_seconds_value;
use gpubench_engine::{Arity, OptionSpec};
use gpubench_engine::{Benchmarks, Suite, SuiteOptions};
use gpubench_engine::{Included, SuiteInfo};
use gpubench_harness::GpuContext;
use gpubench_harness::kit::fma::grid::peak_grid;
use gpubench_harness::kit::fma::{Chain, FmaPeak, PeakForm, plausible};
use gpubench_harness::kit::gpu::Precision;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "the FMA kernel kept busy for a set duration, throttling flagged";

/// This suite's warning: the last third of the run fell below the threshold of the pace held
/// earlier ([`Analysis::best`]), or the driver held the clocks; figure: the last third against
/// that pace, %, the lowest the worst.
pub const THROTTLING: OwnedKind =
    OwnedKind::new("throttling", "throttling", FigureUnit::Percent).worst_at_lowest();

/// The sustained suite's option: the run's length in seconds.
pub const DURATION: OptionSpec = OptionSpec {
    key: "duration",
    flag: "duration",
    value_name: "SECONDS",
    help: "Length of the sustained run in seconds (default: 30 in the full profile, 10 otherwise).",
    arity: Arity::One,
    default: || serde_json::Value::Null,
    parse: parse_seconds_value,
    choices: None,
    hidden: false,
};

/// The last third of the windows must reach this fraction of the pace held earlier ([`Analysis::best`]).
pub const THROTTLE_THRESHOLD: f64 = 0.9;
/// The percentile of the last third's windows that must fall under the threshold for the run
/// to be throttled: three quarters of them, not their median. The reference is a high
/// percentile of the windows, so a steady series with a coefficient of variation of 9% (a
/// loaded host, a laptop's power cap oscillating) had its median under 90% of it with no fall.
pub const TAIL_PERCENTILE: f64 = 75.0;
/// The percentile of the windows the last third is held to: robust to a window or two that
/// ran fast (a boost before the power limit settled), where the best window alone is not.
pub const BEST_PERCENTILE: f64 = 90.0;
/// The percentile of the first third's windows the last third is held to as well: a pace held
/// for a quarter of the first third. Boost clocks fall to sustained ones early in a run, and a
/// boost shorter than a tenth of all windows never reaches [`BEST_PERCENTILE`].
pub const EARLY_PERCENTILE: f64 = 75.0;
/// The fewest windows a first third needs for [`EARLY_PERCENTILE`] to stand for more than one
/// window: shorter runs (a one-second `--duration`) are held to [`BEST_PERCENTILE`] alone.
pub const EARLY_WINDOWS_MIN: usize = 8;
/// Length of one window (one sample).
pub const WINDOW: Duration = Duration::from_millis(100);

/// The sustained suite.
pub struct SustainedSuite;

/// The chain that loads the adapter fully: the accumulate chain on a GPU, the multiply chain
/// on a software adapter. RDNA 3 issues only the accumulate form's `v_fmac_f32` at twice the
/// rate (the multiply form's VOP3 `v_fma_f32` runs at half its peak there, so throttling a
/// real load provokes would not show), and every other card issues both forms at one rate;
/// a software adapter's compiler splits the accumulate form's fma and hoists the product
/// ([`gpubench_harness::kit::fma::SOFTWARE_SPLITS_FMA`]).
pub fn load_chain(software: bool) -> Chain {
    if software {
        Chain::Multiply
    } else {
        Chain::Accumulate
    }
}

/// The run's length: the duration option, else 30 s in the full profile and 10 s otherwise.
pub fn duration(options: &SuiteOptions) -> Duration {
    match (options.get::<f64>(DURATION.key), options.profile) {
        (Some(seconds), _) => Duration::from_secs_f64(seconds),
        (None, Profile::Full) => Duration::from_secs(30),
        (None, _) => Duration::from_secs(10),
    }
}

impl Suite for SustainedSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("sustained", ABOUT)
            .included(Included::FullProfile)
            // Its accumulate chain is held to the compute suite's multiply row of the run.
            .after(&["compute"])
            .options(&[DURATION])
    }

    fn build(&self, ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let length = duration(options);
        let peak = FmaPeak::new(Precision::F32, PeakForm::Vec4, peak_grid(ctx))
            .with_chain(load_chain(ctx.is_software()));
        let id = format!("sustained/fma-peak/{}", peak.form_name());
        let mut bench = KernelBench::new(peak);
        let info = bench.info_mut();
        info.id = id;
        info.suite = "sustained".to_string();
        info.params
            .insert("duration_s".into(), length.as_secs_f64().into());
        info.params
            .insert("window_ms".into(), (WINDOW.as_secs_f64() * 1e3).into());
        info.duration = Some(length);
        info.target_sample = Some(WINDOW);
        let bench: Box<dyn gpubench_harness::Benchmark> = Box::new(bench);
        Ok(vec![bench])
    }

    /// The accumulate chain is first held to the compute suite's multiply row of the run, as
    /// that suite's own accumulate rows are ([`plausible::judge_accumulate`]): a compiler that
    /// folded the chain fails the row, so its windows are not read as a card's pace.
    fn annotate(&self, result: &mut BenchResult, run: &gpubench_harness::RunDocument) {
        let adapter = &run.machine.adapter;
        plausible::judge_accumulate(result, &run.results, (adapter.vendor(), &adapter.name));
        if result.status != Status::Ok {
            return;
        }
        let Some(analysis) = analyse(&result.samples) else {
            return;
        };
        let window_s = window_seconds(result);
        let held = held_by_the_driver(result);
        let extra = &mut result.extra;
        extra.insert("window_s".into(), window_s.into());
        extra.insert("windows".into(), result.samples.len().into());
        extra.insert("best_window".into(), analysis.best.into());
        extra.insert("last_third_median".into(), analysis.last_third.into());
        extra.insert("last_third_vs_best".into(), analysis.ratio.into());
        extra.insert("windows_cv".into(), analysis.cv.into());
        extra.insert("throttled".into(), (analysis.throttled || held).into());
        let what = if analysis.throttled {
            format!(
                "the last third of the run reached {:.0}% of the pace it held earlier (its 90th-percentile window, or its first third's 75th) (threshold {:.0}%)",
                analysis.ratio * 100.0,
                THROTTLE_THRESHOLD * 100.0
            )
        } else if held {
            "the driver held the clocks during the run, though the windows did not fall: a card hot from the start runs slow throughout".to_string()
        } else {
            return;
        };
        let message = format!("throttling: {what}{}", reasons_seen(result));
        result
            .warnings
            .push(THROTTLING.record(message, Some(analysis.ratio * 100.0)));
    }

    /// Its samples are windows over time.
    fn chart_hint(&self, _result: &BenchResult) -> Option<gpubench_results::ChartHint> {
        Some(gpubench_results::ChartHint::Windows)
    }
}

/// The throttle reasons telemetry saw during the run (the idle reason aside: it says nothing
/// about a slow-down), as a clause for the warning; empty when there were none to see.
fn reasons_seen(result: &BenchResult) -> String {
    let Some(telemetry) = &result.telemetry else {
        return String::new();
    };
    let reasons: Vec<&str> = telemetry
        .throttle_reasons
        .iter()
        .map(String::as_str)
        .filter(|r| *r != "gpu-idle")
        .collect();
    if !reasons.is_empty() {
        return format!("; the driver reported: {}", reasons.join(", "));
    }
    if !telemetry.throttle_reasons_known() {
        // amdgpu says nothing of why its clocks are held: silence is not "no reason".
        return format!(
            "; telemetry ({}) cannot say why: its driver reports no throttle reasons",
            telemetry
                .source
                .as_deref()
                .unwrap_or(telemetry.status.as_str())
        );
    }
    format!(
        "; telemetry ({}) reported no throttle reason",
        telemetry.status.as_str()
    )
}

/// Whether telemetry saw the driver hold the clocks for heat or by a hardware limit during
/// the run (`hw-slowdown`, `hw-thermal-slowdown`, `sw-thermal-slowdown`, ...): a card already
/// hot when the run began throttles from its first window and shows no fall.
fn held_by_the_driver(result: &BenchResult) -> bool {
    result.telemetry.as_ref().is_some_and(|t| {
        t.throttle_reasons
            .iter()
            .any(|r| r.starts_with("hw-") || r.contains("thermal"))
    })
}

/// What the window series says.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The reference the last third is held to: the 90th percentile of the windows or the
    /// 75th of the first third's, whichever is higher; a pace the card held, not one window
    /// that ran fast.
    pub best: f64,
    /// Median of the last third of the windows.
    pub last_third: f64,
    /// `last_third / best`.
    pub ratio: f64,
    /// Coefficient of variation over all windows.
    pub cv: f64,
    /// Whether the last third fell under the threshold: its [`TAIL_PERCENTILE`] window, not
    /// only its median.
    pub throttled: bool,
}

/// Analyses a series of window throughputs (higher is better). `None` for fewer than 3 windows.
pub fn analyse(windows: &[f64]) -> Option<Analysis> {
    if windows.len() < 3 {
        return None;
    }
    let percentile = |values: &[f64], p: f64| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        gpubench_results::stats::percentile_sorted(&sorted, p)
    };
    let first_third = &windows[..windows.len() / 3];
    let overall = percentile(windows, BEST_PERCENTILE);
    // A first third of a few windows has no quarter that is more than one window.
    let best = if first_third.len() >= EARLY_WINDOWS_MIN {
        overall.max(percentile(first_third, EARLY_PERCENTILE))
    } else {
        overall
    };
    let tail = &windows[windows.len() - windows.len() / 3..];
    let last_third = median(tail);
    let summary = gpubench_results::stats::summarize(windows)?;
    let of_best = |value: f64| if best > 0.0 { value / best } else { 0.0 };
    let ratio = of_best(last_third);
    Some(Analysis {
        best,
        last_third,
        ratio,
        cv: summary.cv,
        throttled: of_best(percentile(tail, TAIL_PERCENTILE)) < THROTTLE_THRESHOLD,
    })
}

/// Seconds per window: the work of one sample at the median rate.
fn window_seconds(result: &BenchResult) -> f64 {
    let per_sample_flops = result.work.flops as f64 * f64::from(result.iterations_per_sample);
    match result.summary.as_ref().map(|s| s.median) {
        Some(gflops) if gflops > 0.0 => per_sample_flops / (gflops * 1e9),
        _ => WINDOW.as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_series_is_not_throttled() {
        let windows: Vec<f64> = (0..30).map(|i| 100.0 + f64::from(i % 3)).collect();
        let a = analyse(&windows).expect("enough windows");
        assert!(!a.throttled);
        assert!(a.ratio > 0.97 && a.cv < 0.02);
    }

    /// A flat series as noisy as a loaded host makes it (80 to 120 in turn, a coefficient of
    /// variation of 14%): its last third's median is under 90% of the high percentile the
    /// reference is, but three quarters of its windows are not; a fall of 30% still is.
    #[test]
    fn a_steady_noisy_series_is_not_throttled() {
        let flat: Vec<f64> = (0..60).map(|i| 80.0 + 10.0 * f64::from(i % 5)).collect();
        let a = analyse(&flat).expect("enough windows");
        assert!(a.cv > 0.13, "{}", a.cv);
        assert!(
            a.ratio < THROTTLE_THRESHOLD,
            "the median test alone would flag it: {a:?}"
        );
        assert!(!a.throttled, "{a:?}");
        let falling: Vec<f64> = flat
            .iter()
            .enumerate()
            .map(|(i, v)| if i >= 40 { v * 0.7 } else { *v })
            .collect();
        assert!(analyse(&falling).expect("enough windows").throttled);
    }

    #[test]
    fn a_falling_tail_is_throttled() {
        let mut windows = vec![100.0; 20];
        windows.extend(vec![80.0; 10]);
        let a = analyse(&windows).expect("enough windows");
        assert!(a.throttled);
        assert!((a.ratio - 0.8).abs() < 1e-12);
        assert_eq!(a.best, 100.0);
    }

    #[test]
    fn a_boost_that_ends_early_in_the_run_is_the_reference() {
        // A second of boost in a ten-second run, then 15% lower to the end: under a tenth of
        // the windows, so the 90th percentile alone is the lower pace.
        let mut windows = vec![100.0; 10];
        windows.extend(vec![85.0; 90]);
        let a = analyse(&windows).expect("enough windows");
        assert_eq!(a.best, 100.0);
        assert!(a.throttled, "{a:?}");
        // A card that ramps up over the first third and holds its pace is not throttled.
        let mut ramp: Vec<f64> = (0..33).map(|i| 50.0 + f64::from(i) * 1.5).collect();
        ramp.extend(vec![100.0; 67]);
        assert!(!analyse(&ramp).expect("enough windows").throttled);
        // A one-second run: its first third (three windows) is no reference of its own.
        let mut short = vec![200.0];
        short.extend(vec![100.0; 9]);
        assert!(!analyse(&short).expect("enough windows").throttled);
    }

    #[test]
    fn one_fast_window_is_no_reference() {
        // One window at twice the pace the card held (a boost before the limit settled).
        let mut windows = vec![200.0];
        windows.extend(vec![100.0; 29]);
        let a = analyse(&windows).expect("enough windows");
        assert!(!a.throttled, "{a:?}");
        assert_eq!(a.best, 100.0);
    }

    #[test]
    fn a_card_held_by_its_driver_is_throttled_though_its_windows_are_flat() {
        use gpubench_harness::{BenchmarkInfo, MetricKind};
        use gpubench_results::telemetry::{TelemetryStatus, TelemetrySummary};
        let info = BenchmarkInfo::new("sustained/x", "sustained", MetricKind::Throughput, "");
        let mut result = BenchResult::empty(&info, Status::Ok, None);
        result.samples = vec![100.0; 30];
        result.summary = gpubench_results::stats::summarize(&result.samples);
        let mut seen = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
        seen.source = Some("nvml".into());
        seen.throttle_reasons = vec!["sw-power-cap".into()];
        result.telemetry = Some(Box::new(seen.clone()));
        let mut capped = result.clone();
        SustainedSuite.annotate(
            &mut capped,
            &gpubench_baseline::testing::doc_with("a card", false),
        );
        // Running at the power limit is how a card works, not throttling.
        assert_eq!(capped.extra["throttled"], false);
        seen.throttle_reasons.push("hw-thermal-slowdown".into());
        result.telemetry = Some(Box::new(seen));
        SustainedSuite.annotate(
            &mut result,
            &gpubench_baseline::testing::doc_with("a card", false),
        );
        assert_eq!(result.extra["throttled"], true);
        let warning = &result.warnings.last().expect("a warning").message;
        assert!(warning.contains("held the clocks"), "{warning}");
    }

    /// On a GPU the run is the accumulate chain, held to the compute suite's multiply row of
    /// the run: twice it (RDNA 3's dual issue) stands and its windows are read; past 2.2x the
    /// chain was folded, and the row fails before they are; with no multiply row in the run
    /// nothing bounds it and it stands as measured. A software adapter runs the multiply chain.
    #[test]
    fn the_accumulate_chain_is_held_to_the_runs_multiply_row() {
        assert_eq!(load_chain(false), Chain::Accumulate);
        assert_eq!(load_chain(true), Chain::Multiply);
        let alone = gpubench_baseline::testing::doc_with("Radeon RX 7900 XTX", false);
        let mut doc = alone.clone();
        doc.results.push(gpubench_harness::testing::fma_peak_row(
            "compute", "vec4", 100.0,
        ));
        let mut dual = gpubench_harness::testing::fma_peak_row("sustained", "acc-vec4", 200.0);
        SustainedSuite.annotate(&mut dual, &doc);
        assert_eq!(dual.status, Status::Ok, "{:?}", dual.reason);
        assert_eq!(dual.extra["throttled"], false);
        let mut folded = gpubench_harness::testing::fma_peak_row("sustained", "acc-vec4", 300.0);
        let mut unbounded = folded.clone();
        SustainedSuite.annotate(&mut folded, &doc);
        assert_eq!(folded.status, Status::Failed);
        let reason = folded.reason.as_deref().unwrap_or_default();
        assert!(reason.contains("folded"), "{reason}");
        assert!(!folded.extra.contains_key("throttled"));
        SustainedSuite.annotate(&mut unbounded, &alone);
        assert_eq!(unbounded.status, Status::Ok);
    }

    #[test]
    fn a_slow_start_is_not_throttling() {
        // Clocks ramping up at the start: the end is at the best, so no flag.
        let mut windows = vec![50.0; 5];
        windows.extend(vec![100.0; 25]);
        assert!(!analyse(&windows).expect("enough windows").throttled);
        assert!(analyse(&[1.0, 2.0]).is_none());
    }

    #[test]
    fn a_throttled_run_names_the_reasons_telemetry_saw() {
        use gpubench_harness::{BenchmarkInfo, MetricKind};
        use gpubench_results::telemetry::{TelemetryStatus, TelemetrySummary};
        let info = BenchmarkInfo::new("sustained/x", "sustained", MetricKind::Throughput, "");
        let mut result = BenchResult::empty(&info, Status::Ok, None);
        result.samples = vec![100.0; 20];
        result.samples.extend(vec![70.0; 10]);
        result.summary = gpubench_results::stats::summarize(&result.samples);
        let mut seen = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
        seen.throttle_reasons = vec!["gpu-idle".into(), "hw-thermal-slowdown".into()];
        result.telemetry = Some(Box::new(seen));
        let mut without = result.clone();
        without.telemetry = None;
        SustainedSuite.annotate(
            &mut result,
            &gpubench_baseline::testing::doc_with("a card", false),
        );
        SustainedSuite.annotate(
            &mut without,
            &gpubench_baseline::testing::doc_with("a card", false),
        );
        let warning = &result.warnings.last().expect("throttled").message;
        assert!(
            warning.ends_with("the driver reported: hw-thermal-slowdown"),
            "{warning}"
        );
        assert!(
            without
                .warnings
                .last()
                .expect("throttled")
                .message
                .ends_with("(threshold 90%)")
        );
    }
}
