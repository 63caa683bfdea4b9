//! `gpubench run`: select the adapter, build the suites, run every benchmark through the
//! harness, write the results file after each one, and print the report.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use gpubench_harness::device::Selection;
use gpubench_harness::results_file::save_document;
use gpubench_harness::runner::{RunObserver, run_warnings};
use gpubench_harness::schema::{MachineInfo, RunConfig, ToolInfo, slug};
use gpubench_harness::{Benchmark, GpuContext, Profile, RunDocument, RunSettings, Runner};
use gpubench_kernels::faults::Fault;
use gpubench_kernels::{KernelError, SuiteOptions};

use crate::cli::RunArgs;
use crate::exit::{Exit, UsageError};
use crate::progress::Progress;

pub fn run(args: &RunArgs) -> anyhow::Result<Exit> {
    let profile: Profile = args.profile.parse().map_err(UsageError)?;
    let faults = parse_faults(&args.inject_fault)?;
    if let Some(out) = &args.out {
        check_output_path(out)?;
    }

    let selection = Selection::resolve(args.adapter.adapter.clone(), args.adapter.backend.clone());
    let ctx = GpuContext::new(&selection)?;
    let settings = apply_overrides(profile.settings(ctx.is_software()), args);

    let suites: Vec<String> = if args.suites.is_empty() {
        gpubench_kernels::DEFAULT_SUITES
            .iter()
            .map(ToString::to_string)
            .collect()
    } else {
        args.suites.clone()
    };
    let mut options = SuiteOptions::new(profile);
    options.stream_size = args.stream_size;
    options.seed = args.seed;
    let mut benches = build_benchmarks(&suites, &options, &ctx)?;
    benches.extend(faults.iter().map(|f| f.benchmark(args.seed)));

    let out_path = match &args.out {
        Some(path) => path.clone(),
        None => default_output_path(&ctx)?,
    };
    let config = RunConfig {
        profile: profile.name().to_string(),
        suites: suites.clone(),
        settings: settings.clone(),
        options: [
            (
                "stream_size".to_string(),
                serde_json::json!(args.stream_size),
            ),
            ("seed".to_string(), serde_json::json!(args.seed)),
        ]
        .into_iter()
        .collect(),
    };
    let mut doc = RunDocument::start(
        tool_info(),
        MachineInfo::from_context(&ctx),
        config,
        run_warnings(&ctx),
    );
    save_document(&out_path, &doc)?;

    let stop = Arc::new(AtomicBool::new(false));
    let handler_flag = Arc::clone(&stop);
    // A second handler cannot be installed (tests call run once per process); ignore that case.
    let _ = ctrlc::set_handler(move || handler_flag.store(true, Ordering::SeqCst));
    let runner = Runner::new(&ctx, settings).with_stop_flag(Arc::clone(&stop));

    let total = benches.len();
    let mut progress = Progress::new(total, !args.no_progress);
    for (index, bench) in benches.iter_mut().enumerate() {
        if runner.stop_requested() {
            break;
        }
        progress.started(index, total, bench.info());
        let result = runner.run(bench.as_mut(), &mut progress);
        if runner.stop_requested() {
            // The benchmark in flight was cut short: keep only what finished.
            break;
        }
        doc.results.push(result);
        save_document(&out_path, &doc)?;
        if ctx.faults.device_lost() {
            break;
        }
    }
    progress.finish();

    if stop.load(Ordering::SeqCst) {
        save_document(&out_path, &doc)?;
        eprintln!(
            "interrupted: {} finished results kept in {} (marked incomplete)",
            doc.results.len(),
            out_path.display()
        );
        return Ok(Exit::Interrupted);
    }
    doc.finish();
    save_document(&out_path, &doc)?;

    let exporter = gpubench_report::exporter(&args.format)
        .ok_or_else(|| UsageError(format!("unknown --format {}", args.format)))?;
    print!("{}", exporter.render(&doc)?);
    eprintln!("results written to {}", out_path.display());
    if doc.has_failures() {
        return Ok(Exit::BenchmarkFailed);
    }
    Ok(Exit::Success)
}

fn parse_faults(names: &[String]) -> anyhow::Result<Vec<Fault>> {
    names
        .iter()
        .map(|name| {
            Fault::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Fault::ALL.iter().map(|(n, _)| *n).collect();
                UsageError(format!(
                    "--inject-fault: unknown fault '{name}' (known: {})",
                    known.join(", ")
                ))
                .into()
            })
        })
        .collect()
}

fn build_benchmarks(
    suites: &[String],
    options: &SuiteOptions,
    ctx: &GpuContext,
) -> anyhow::Result<Vec<Box<dyn Benchmark>>> {
    let mut benches = Vec::new();
    for suite in suites {
        match gpubench_kernels::build_suite(suite, options, ctx) {
            Ok(mut built) => benches.append(&mut built),
            Err(error @ (KernelError::BadOption(_) | KernelError::UnknownSuite(_))) => {
                return Err(UsageError(error.to_string()).into());
            }
        }
    }
    Ok(benches)
}

fn apply_overrides(mut settings: RunSettings, args: &RunArgs) -> RunSettings {
    if let Some(samples) = args.samples {
        settings.min_samples = samples as usize;
        settings.max_samples = settings.max_samples.max(samples as usize);
    }
    if let Some(ms) = args.sample_ms {
        settings.target_sample = Duration::from_secs_f64(ms / 1e3);
        settings.max_sample = settings.max_sample.max(settings.target_sample);
    }
    if let Some(seconds) = args.max_time {
        settings.max_time = Duration::from_secs_f64(seconds);
    }
    settings.seed = args.seed;
    settings
}

/// Refuses an --out whose directory does not exist or is not writable, before anything runs.
fn check_output_path(path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(UsageError(format!(
            "--out {}: is a directory; give a file name",
            path.display()
        ))
        .into());
    }
    if !dir.is_dir() {
        return Err(UsageError(format!(
            "--out {}: directory {} does not exist",
            path.display(),
            dir.display()
        ))
        .into());
    }
    let probe = tempfile_probe(dir);
    if let Err(error) = probe {
        return Err(UsageError(format!(
            "--out {}: directory {} is not writable ({error})",
            path.display(),
            dir.display()
        ))
        .into());
    }
    Ok(())
}

fn tempfile_probe(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".gpubench-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

fn default_output_path(ctx: &GpuContext) -> anyhow::Result<PathBuf> {
    let dir = PathBuf::from("results");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir.join(format!(
        "{}-{}.json",
        gpubench_harness::hostinfo::now_compact(),
        slug(&ctx.summary.name)
    )))
}

fn tool_info() -> ToolInfo {
    let commit = env!("GPUBENCH_GIT_COMMIT");
    ToolInfo {
        name: "gpubench".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: (!commit.is_empty()).then(|| commit.to_string()),
    }
}
