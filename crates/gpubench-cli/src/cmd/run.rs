//! `gpubench run`: select the adapter, build the suites, run every benchmark through the
//! harness, write the results file after each one, and print the report.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Context;
use gpubench_harness::device::Selection;
use gpubench_harness::results_file::save_document;
use gpubench_harness::runner::{RunObserver, run_warnings};
use gpubench_harness::schema::{MachineInfo, RunConfig, ToolInfo, slug};
use gpubench_harness::{
    BenchResult, Benchmark, GpuContext, Profile, RunDocument, RunSettings, Runner, Status,
};
use gpubench_kernels::faults::Fault;
use gpubench_kernels::{KernelError, Suite, SuiteOptions, Tuner};

use crate::cli::RunArgs;
use crate::cmd::verdicts;
use crate::exit::{Exit, UsageError};
use crate::progress::Progress;
use crate::signals::StopSignal;

/// A suite and, for injected faults, the benchmarks it runs (others build theirs in turn).
type SuitePlan = (Box<dyn Suite>, Option<Vec<Box<dyn Benchmark>>>);

pub fn run(args: &RunArgs) -> anyhow::Result<Exit> {
    let profile: Profile = args.profile.parse().map_err(UsageError)?;
    let faults = parse_faults(&args.inject_fault)?;
    for (flag, path) in [("--out", &args.out), ("--html", &args.html)] {
        if let Some(path) = path {
            check_output_path(flag, path)?;
        }
    }
    let explicit_baseline = verdicts::load_explicit_baseline(&args.baseline)?;

    // Option mistakes are reported before any adapter is opened.
    let unknown_variant = args
        .matmul_variant
        .as_ref()
        .filter(|name| gpubench_kernels::matmul::find_variant(name).is_none());
    if let Some(name) = unknown_variant {
        return Err(UsageError(format!(
            "--matmul-variant {name}: unknown variant (known: {})",
            gpubench_kernels::matmul::variant_names().join(", ")
        ))
        .into());
    }
    let selection = Selection::resolve(args.adapter.adapter.clone(), args.adapter.backend.clone());
    let ctx = GpuContext::new(&selection)?;
    check_matmul_shapes(&ctx, &args.matmul_shapes)?;
    let settings = apply_overrides(profile.settings(ctx.is_software()), args);

    let suites: Vec<String> = if args.suites.is_empty() {
        gpubench_kernels::default_suites(profile)
            .iter()
            .map(ToString::to_string)
            .collect()
    } else {
        args.suites.clone()
    };
    let mut options = SuiteOptions::new(profile);
    options.stream_size = args.stream_size;
    options.capacity_cap = args.capacity_cap;
    options.duration = args.duration;
    options.matmul_shapes = args.matmul_shapes.clone();
    options.matmul_variant = args.matmul_variant.clone();
    options.seed = args.seed;
    let suite_impls = suites
        .iter()
        .map(|name| gpubench_kernels::suite(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| UsageError(e.to_string()))?;

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
            (
                "matmul_shapes".to_string(),
                serde_json::json!(
                    args.matmul_shapes
                        .iter()
                        .map(|(m, n, k)| format!("{m}x{n}x{k}"))
                        .collect::<Vec<_>>()
                ),
            ),
            (
                "matmul_variant".to_string(),
                serde_json::json!(args.matmul_variant),
            ),
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

    let signals = StopSignal::install();
    let runner = Runner::new(&ctx, settings).with_stop_flag(signals.flag());

    let mut tuner = ShortRunTuner::new(&ctx, profile, signals.flag());
    // Suites build their benchmarks when their turn comes (matmul autotunes then), so the
    // results of earlier suites are on disk first and a signal during tuning stops the run.
    let mut plan: Vec<SuitePlan> = suite_impls.into_iter().map(|s| (s, None)).collect();
    if !faults.is_empty() {
        let injected = faults.iter().map(|f| f.benchmark(args.seed)).collect();
        plan.push((
            Box::new(gpubench_kernels::faults::SelfTestSuite),
            Some(injected),
        ));
    }

    let mut progress = Progress::new(0, !args.no_progress);
    let mut index = 0;
    'suites: for (suite, prebuilt) in plan {
        let first_of_suite = doc.results.len();
        if runner.stop_requested() {
            break;
        }
        let mut benches = match prebuilt {
            Some(benches) => benches,
            None => {
                progress.preparing(suite.name());
                suite
                    .benchmarks(&ctx, &options, &mut tuner)
                    .map_err(kernel_error)?
            }
        };
        progress.add_benchmarks(benches.len());
        let total = index + benches.len();
        if !ctx.faults.device_lost() {
            doc.results.extend(suite.probes(&ctx, &options));
            save_document(&out_path, &doc)?;
        }
        for bench in benches.iter_mut() {
            if runner.stop_requested() {
                break 'suites;
            }
            if ctx.faults.device_lost() {
                // Stop cleanly: record what was not run and why, keep everything measured.
                let reason = "not run: the device was lost earlier in this run".to_string();
                doc.results.push(BenchResult::empty(
                    bench.info(),
                    Status::Skipped,
                    Some(reason),
                ));
                continue;
            }
            progress.started(index, total, bench.info());
            index += 1;
            let mut result = runner.run(bench.as_mut(), &mut progress);
            if runner.stop_requested() {
                // The benchmark in flight was cut short: keep only what finished.
                break 'suites;
            }
            suite.annotate(&mut result);
            doc.results.push(result);
            save_document(&out_path, &doc)?;
        }
        let (earlier, measured) = doc.results.split_at(first_of_suite);
        let derived = suite.derive(measured, earlier);
        doc.results.extend(derived);
        save_document(&out_path, &doc)?;
    }
    progress.finish();

    if let Some(code) = signals.received() {
        save_document(&out_path, &doc)?;
        eprintln!(
            "interrupted: {} finished results kept in {} (marked incomplete)",
            doc.results.len(),
            out_path.display()
        );
        verdicts::refuse_interrupted(&args.baseline);
        return Ok(Exit::Interrupted(code));
    }
    doc.finish();
    save_document(&out_path, &doc)?;

    let exporter = gpubench_report::exporter(&args.format)
        .ok_or_else(|| UsageError(format!("unknown --format {}", args.format)))?;
    print!("{}", exporter.render(&doc)?);
    eprintln!("results written to {}", out_path.display());
    if let Some(html) = &args.html {
        let labelled = [(crate::cmd::report::label(&out_path), doc.clone())];
        crate::cmd::report::write_html(html, &labelled)?;
        eprintln!("report written to {}", html.display());
    }
    let verdict_exit = verdicts::after_run(
        &args.baseline,
        &doc,
        &out_path,
        &args.format,
        explicit_baseline,
    )?;
    if doc.has_failures() {
        return Ok(Exit::BenchmarkFailed);
    }
    Ok(verdict_exit)
}

/// Refuses, before anything runs, a `--matmul-shape` whose matrices cannot be bound on this
/// adapter even in f16 (a shape that fits in f16 only is run in f16 and skipped in f32).
fn check_matmul_shapes(ctx: &GpuContext, shapes: &[(u32, u32, u32)]) -> anyhow::Result<()> {
    let limit = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
    for &(m, n, k) in shapes {
        let (m64, n64, k64) = (u64::from(m), u64::from(n), u64::from(k));
        let largest = (m64 * k64).max(k64 * n64).max(m64 * n64) * 2;
        if largest > limit {
            return Err(UsageError(format!(
                "--matmul-shape {m}x{n}x{k}: its largest matrix needs {} even in f16, over the adapter's storage binding limit of {}",
                gpubench_harness::units::format_size(largest),
                gpubench_harness::units::format_size(limit)
            ))
            .into());
        }
    }
    Ok(())
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

/// Option mistakes are usage errors (exit 2).
fn kernel_error(error: KernelError) -> anyhow::Error {
    match error {
        KernelError::BadOption(_) | KernelError::UnknownSuite(_) => {
            UsageError(error.to_string()).into()
        }
    }
}

/// Measures autotuning candidates with the quick profile's settings, capped short.
struct ShortRunTuner<'a> {
    runner: Runner<'a>,
}

impl<'a> ShortRunTuner<'a> {
    fn new(ctx: &'a GpuContext, profile: Profile, stop: Arc<AtomicBool>) -> Self {
        let mut settings = Profile::Quick.settings(ctx.is_software());
        settings.min_samples = 3;
        settings.max_samples = 5;
        settings.max_time = if profile == Profile::Quick {
            Duration::from_millis(200)
        } else {
            Duration::from_millis(500)
        };
        settings.warmup = Duration::from_millis(10);
        Self {
            runner: Runner::new(ctx, settings).with_stop_flag(stop),
        }
    }
}

impl Tuner for ShortRunTuner<'_> {
    fn measure(&mut self, bench: &mut dyn Benchmark) -> gpubench_harness::BenchResult {
        self.runner
            .run(bench, &mut gpubench_harness::runner::Silent)
    }
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

/// Refuses an output path whose directory does not exist or is not writable, before anything
/// runs.
fn check_output_path(flag: &str, path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(UsageError(format!(
            "{flag} {}: is a directory; give a file name",
            path.display()
        ))
        .into());
    }
    if !dir.is_dir() {
        return Err(UsageError(format!(
            "{flag} {}: directory {} does not exist",
            path.display(),
            dir.display()
        ))
        .into());
    }
    let probe = tempfile_probe(dir);
    if let Err(error) = probe {
        return Err(UsageError(format!(
            "{flag} {}: directory {} is not writable ({error})",
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
