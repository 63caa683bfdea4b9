//! `run`'s arguments turned into a checked plan before any adapter is opened: the library's
//! [`RunPlan`] (suites, options, faults, sampling) plus what only the command deals with
//! (adapter selection, output paths, the stdout format, the baseline). Every mistake found here
//! is a usage error (exit 2) and leaves no file behind.

use std::path::{Path, PathBuf};

use gpubench_harness::RunDocument;
use gpubench_harness::device::Selection;
use gpubench_kernels::plan::{RunPlan, SampleOverrides};
use gpubench_kernels::{KernelError, SuiteOptions};
use gpubench_report::Exporter;

use crate::cli::{BaselineArgs, RunArgs};
use crate::cmd::verdicts;
use crate::exit::UsageError;

/// Everything `run` needs, checked.
pub struct Plan {
    /// What runs, and how.
    pub run: RunPlan,
    /// Which adapter.
    pub selection: Selection,
    /// The results file, when given (else a name from the time and the adapter).
    pub out: Option<PathBuf>,
    /// The HTML report to write too.
    pub html: Option<PathBuf>,
    /// The stdout format's name and its exporter.
    pub format: (String, Box<dyn Exporter>),
    /// Baseline handling.
    pub baseline: BaselineArgs,
    /// The `--baseline FILE`, loaded.
    pub explicit_baseline: Option<(String, RunDocument)>,
    /// Whether to draw progress bars.
    pub progress: bool,
}

impl Plan {
    /// Checks `args`; every refusal is a usage error naming the flag.
    pub fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        for (flag, path) in [("--out", &args.out), ("--html", &args.html)] {
            if let Some(path) = path {
                check_output_path(flag, path)?;
            }
        }
        let explicit_baseline = verdicts::load_explicit_baseline(&args.baseline)?;
        let exporter = gpubench_report::exporter(&args.format)
            .ok_or_else(|| UsageError(format!("unknown --format {}", args.format)))?;
        let faults = args.inject_fault.iter().map(|f| f.0).collect();
        let run = RunPlan::new(&args.suites, suite_options(args))
            .and_then(|plan| plan.with_sampling(sample_overrides(args)))
            .map_err(usage_error)?
            .with_faults(faults);
        Ok(Self {
            run,
            selection: Selection::resolve(
                args.adapter.adapter.clone(),
                args.adapter.backend.clone(),
            ),
            out: args.out.clone(),
            html: args.html.clone(),
            format: (args.format.clone(), exporter),
            baseline: args.baseline.clone(),
            explicit_baseline,
            progress: !args.no_progress,
        })
    }
}

/// A refusal of the library's (a suite, an option) as a usage error.
pub fn usage_error(error: KernelError) -> anyhow::Error {
    match error {
        KernelError::BadOption(_) | KernelError::UnknownSuite(_) => {
            UsageError(error.to_string()).into()
        }
    }
}

/// The suites' options, as given.
fn suite_options(args: &RunArgs) -> SuiteOptions {
    let mut options = SuiteOptions::new(args.profile.0);
    options.stream_size = args.stream_size;
    options.capacity_cap = args.capacity_cap;
    options.duration = args.duration;
    options.matmul_shapes = args.matmul_shapes.clone();
    options.matmul_variant = args.matmul_variant.map(ToString::to_string);
    options.seed = args.seed;
    options.shader_checks = args.shader_checks.0;
    options
}

/// The sampling flags.
fn sample_overrides(args: &RunArgs) -> SampleOverrides {
    SampleOverrides {
        samples: args.samples,
        sample_ms: args.sample_ms,
        max_time: args.max_time,
    }
}

/// Refuses an output path whose directory does not exist or is not writable, before anything
/// runs.
fn check_output_path(flag: &str, path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let refuse = |why: String| Err(UsageError(format!("{flag} {}: {why}", path.display())).into());
    if path.is_dir() {
        return refuse("is a directory; give a file name".to_string());
    }
    if !dir.is_dir() {
        return refuse(format!("directory {} does not exist", dir.display()));
    }
    if let Err(error) = write_probe(dir) {
        return refuse(format!(
            "directory {} is not writable ({error})",
            dir.display()
        ));
    }
    Ok(())
}

/// Writes and removes an empty file in `dir`.
fn write_probe(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".gpubench-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}
