//! `gpubench doctor`: the slow-GPU checklist, run. Opens the adapter, reads its link and
//! telemetry, runs a short load (the FMA peak for two seconds, a stream triad, host-to-device
//! copies) through the harness's runner with telemetry around each, then prints every check
//! with ok / warn / fail / unknown and what to do. Exit 5 when a check fails.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use gpubench_engine::SuiteOptions;
use gpubench_harness::TelemetryHook;
use gpubench_harness::kit::fma::grid::peak_grid;
use gpubench_harness::kit::fma::{FmaPeak, PeakForm};
use gpubench_harness::kit::gpu::Precision;
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::runner::Silent;
use gpubench_harness::{BenchResult, Benchmark, GpuContext, KernelBench, Profile, Runner};
use gpubench_results::telemetry::{NominalFigures, PcieLink, TelemetrySummary};
use gpubench_suites::stream::{Stream, StreamKernel, stream_array_bytes};
use gpubench_suites::transfer::{MemoryMap, Transfer, TransferPath};
use gpubench_telemetry::doctor::{self, Check, CheckStatus, Findings};
use gpubench_telemetry::{GpuProcess, Telemetry, TelemetryOptions};
use serde::Serialize;

use gpubench_report::numbers::printable;

use crate::cli::DoctorArgs;
use crate::exit::Exit;

/// How long the FMA load runs: long enough for clocks to settle and throttling to show.
const LOAD: Duration = Duration::from_secs(2);
/// Bytes per host-to-device copy: enough to reach the link's asymptote on a real GPU.
const H2D_BYTES: u64 = 256 << 20;
/// The same on a software adapter, where a copy is a memcpy.
const H2D_BYTES_SOFTWARE: u64 = 16 << 20;
/// Input seed of the load.
const SEED: u64 = 0x5eed;

/// What `--json` prints.
#[derive(Serialize)]
struct Report<'a> {
    adapter: &'a gpubench_results::AdapterSummary,
    failed: bool,
    checks: &'a [Check],
    load_telemetry: Option<&'a TelemetrySummary>,
    link: Option<&'a PcieLink>,
    nominal: Option<&'a NominalFigures>,
    other_processes: Option<&'a Vec<GpuProcess>>,
    measured_h2d_gbs: Option<f64>,
    /// The transfer path that measured it.
    measured_h2d_path: &'a str,
    measured_stream_gbs: Option<f64>,
}

pub fn run(args: &DoctorArgs) -> anyhow::Result<Exit> {
    if args.adapter.adapter == Some(crate::cli::AdapterChoice::All) {
        return run_all(args);
    }
    let ctx = super::open_adapter(&args.adapter.selection())?;
    let (checked, failed) = checklist(&ctx)?;
    let text = if args.json {
        format!("{}\n", serde_json::to_string_pretty(&checked.json)?)
    } else {
        checked.text
    };
    crate::stdout::print_then(&text, exit_for(failed))
}

/// Every adapter `gpubench list` shows (on `--backend`'s backends), in turn, as a multi-GPU node
/// needs: each checklist under its adapter's heading, or in JSON an array of the reports (an
/// adapter that could not be opened is an object with its error). Exit 5 when a check failed on
/// any adapter, else 1 when one could not be opened, else 0.
fn run_all(args: &DoctorArgs) -> anyhow::Result<Exit> {
    let adapters = crate::cmd::fleet::chosen_adapters(args.adapter.backend.as_deref())?;
    let (mut texts, mut reports) = (Vec::new(), Vec::new());
    let (mut failed, mut unopened) = (false, false);
    for adapter in &adapters {
        let heading = format!(
            "== [{}] {} ({}) ==",
            adapter.index, adapter.name, adapter.backend
        );
        let selection = gpubench_harness::device::Selection::resolve(
            Some(adapter.index.to_string()),
            Some(adapter.backend.clone()),
        );
        match super::open_adapter(&selection).and_then(|ctx| checklist(&ctx)) {
            Ok((checked, one_failed)) => {
                failed |= one_failed;
                texts.push(format!("{}\n{}", printable(&heading), checked.text));
                reports.push(checked.json);
            }
            Err(error) => {
                unopened = true;
                note!(
                    "error: adapter [{}] {}: {error:#}",
                    adapter.index,
                    adapter.name
                );
                texts.push(format!(
                    "{}\nnot checked: {}\n",
                    printable(&heading),
                    printable(&format!("{error:#}"))
                ));
                reports
                    .push(serde_json::json!({"adapter": adapter, "error": format!("{error:#}")}));
            }
        }
    }
    let text = if args.json {
        format!("{}\n", serde_json::to_string_pretty(&reports)?)
    } else {
        texts.join("\n")
    };
    let exit = match (failed, unopened) {
        (true, _) => Exit::CheckFailed,
        (false, true) => Exit::Error,
        (false, false) => Exit::Success,
    };
    crate::stdout::print_then(&text, exit)
}

/// One adapter's checklist: as the terminal shows it and as JSON, and whether a check failed.
struct Checked {
    text: String,
    json: serde_json::Value,
}

/// Runs the checklist on `ctx`'s adapter (the short load included).
fn checklist(ctx: &GpuContext) -> anyhow::Result<(Checked, bool)> {
    let telemetry = Arc::new(
        Telemetry::open(ctx, &TelemetryOptions::from_env(true)).context("opening telemetry")?,
    );
    // The one place doctor blocks on the device: the whole load, driven to its end.
    let findings = pollster::block_on(gather(ctx, &telemetry));
    let checks = with_flags(doctor::checks(&findings));
    let failed = doctor::any_failed(&checks);
    let report = Report {
        adapter: &ctx.summary,
        failed,
        checks: &checks,
        load_telemetry: findings.load.as_ref(),
        link: findings.link.as_ref(),
        nominal: findings.nominal.as_ref(),
        other_processes: findings.processes.as_ref(),
        measured_h2d_gbs: findings.h2d_gbs.as_ref().ok().copied(),
        measured_h2d_path: &findings.h2d_path,
        measured_stream_gbs: findings.stream_gbs.as_ref().ok().copied(),
    };
    let checked = Checked {
        json: serde_json::to_value(&report)?,
        // The terminal's rule: sysfs names, driver versions, process names and throttle
        // reasons (which any local user can set) reach it as visible escapes.
        text: printable(&render(ctx, &checks)),
    };
    Ok((checked, failed))
}

/// Exit 5 when a check failed.
fn exit_for(failed: bool) -> Exit {
    if failed {
        Exit::CheckFailed
    } else {
        Exit::Success
    }
}

/// The flag that carries out a check's action, by the check's name (the telemetry crate names
/// no flag).
fn action_flag(check: &str) -> Option<&'static str> {
    match check {
        "software-adapter" => Some("--adapter <index|name>"),
        _ => None,
    }
}

/// `checks` with each action that a flag carries out led by that flag, as every flag's message
/// is worded: `--FLAG VALUE: what to do`.
fn with_flags(mut checks: Vec<Check>) -> Vec<Check> {
    for check in &mut checks {
        if let (Some(action), Some(flag)) = (check.action.as_mut(), action_flag(&check.name)) {
            *action = format!("{flag}: {action}");
        }
    }
    checks
}

/// Runs the load and collects everything the checks judge.
async fn gather(ctx: &GpuContext, telemetry: &Arc<Telemetry>) -> Findings {
    let mut settings = Profile::Quick.settings(ctx.is_software());
    settings.max_time = Duration::from_secs(1);
    let hook: Arc<dyn TelemetryHook> = telemetry.clone();
    let runner = Runner::new(ctx, settings).with_telemetry(hook);
    let load = measure(&runner, &mut fma_load(ctx)).await;
    let stream = match stream_load(ctx) {
        Ok(mut bench) => Ok(measure(&runner, bench.as_mut()).await),
        Err(reason) => Err(reason),
    };
    let h2d_bytes = if ctx.is_software() {
        H2D_BYTES_SOFTWARE
    } else {
        H2D_BYTES
    };
    // The staging copy alone where staging is host memory; where it lands in device memory
    // (a large BAR) that copy never crosses the bus, and the whole mapped upload is timed.
    let memory = MemoryMap::probe(ctx);
    let h2d_path = if memory.crosses_link(TransferPath::StagingCopy, h2d_bytes).0 {
        TransferPath::StagingCopy
    } else {
        TransferPath::MappedStaging
    };
    let mut h2d = KernelBench::new(Transfer::new(h2d_path, h2d_bytes, SEED).placed(&memory));
    let h2d = measure(&runner, &mut h2d).await;
    let (status, reason) = telemetry.status();
    let link = telemetry.link();
    Findings {
        adapter: ctx.summary.name.clone(),
        software: ctx.is_software(),
        driver: format!("{} {}", ctx.summary.driver, ctx.summary.driver_info),
        driver_version: telemetry.facts().driver_version.clone(),
        telemetry: Some((status, reason.map(String::from))),
        load: load.telemetry.as_deref().cloned(),
        max_sm_clock_mhz: telemetry.facts().max_sm_clock_mhz,
        processes: telemetry.other_processes(),
        other_links: if link.is_none() {
            telemetry.all_links()
        } else {
            Vec::new()
        },
        link,
        h2d_gbs: median_of(&h2d),
        h2d_path: h2d_path.name().to_string(),
        stream_gbs: stream.and_then(|r| median_of(&r)),
        nominal: telemetry.nominal().cloned(),
    }
}

async fn measure(runner: &Runner<'_>, bench: &mut dyn Benchmark) -> BenchResult {
    runner.run(bench, &mut Silent).await
}

/// The f32 vec4 FMA peak kept busy for [`LOAD`], one sample per 100 ms window.
fn fma_load(ctx: &GpuContext) -> KernelBench<FmaPeak> {
    let mut bench = KernelBench::new(FmaPeak::new(Precision::F32, PeakForm::Vec4, peak_grid(ctx)));
    let info = bench.info_mut();
    info.duration = Some(LOAD);
    info.target_sample = Some(gpubench_suites::sustained::WINDOW);
    bench
}

/// A stream triad over the quick profile's arrays.
fn stream_load(ctx: &GpuContext) -> Result<Box<dyn Benchmark>, String> {
    let bytes =
        stream_array_bytes(ctx, &SuiteOptions::new(Profile::Quick)).map_err(|e| e.to_string())?;
    let triad = Stream::new(StreamKernel::Triad, bytes, SEED).sized_for(AdapterClass::of(ctx));
    Ok(KernelBench::boxed(triad))
}

/// The median of an ok result, else why there is none.
fn median_of(result: &BenchResult) -> Result<f64, String> {
    result.median().ok_or_else(|| {
        format!(
            "{} {}: {}",
            result.id,
            result.status.as_str(),
            result.reason.clone().unwrap_or_default()
        )
    })
}

/// The checklist as text: one line per check, what to do under it.
fn render(ctx: &GpuContext, checks: &[Check]) -> String {
    let s = &ctx.summary;
    let mut out = format!(
        "gpubench doctor: {} ({}, {}, driver {} {})\n\n",
        s.name, s.backend, s.device_type, s.driver, s.driver_info
    );
    let width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for check in checks {
        out.push_str(&format!(
            "{:<7} {:<width$}  {}\n",
            check.status.as_str(),
            check.name,
            check.detail
        ));
        if let Some(action) = &check.action {
            out.push_str(&format!("{:<7} {:<width$}  what to do: {action}\n", "", ""));
        }
    }
    let count = |status| checks.iter().filter(|c| c.status == status).count();
    out.push_str(&format!(
        "\n{} ok, {} warn, {} fail, {} unknown{}\n",
        count(CheckStatus::Ok),
        count(CheckStatus::Warn),
        count(CheckStatus::Fail),
        count(CheckStatus::Unknown),
        if count(CheckStatus::Fail) > 0 {
            " (exit 5)"
        } else {
            ""
        }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_software_adapter_action_is_led_by_the_flag_that_carries_it_out() {
        let check = |name: &str, action: Option<&str>| Check {
            name: name.to_string(),
            status: CheckStatus::Warn,
            detail: String::new(),
            action: action.map(String::from),
        };
        let checks = with_flags(vec![
            check("software-adapter", Some("choose a GPU adapter")),
            check("pcie-link", Some("reseat the card")),
            check("software-adapter", None),
        ]);
        let actions: Vec<Option<&str>> = checks.iter().map(|c| c.action.as_deref()).collect();
        assert_eq!(
            actions,
            [
                Some("--adapter <index|name>: choose a GPU adapter"),
                Some("reseat the card"),
                None
            ]
        );
    }
}
