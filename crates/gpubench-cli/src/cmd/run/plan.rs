//! `run`'s arguments turned into a checked plan before any adapter is opened: the library's
//! [`RunPlan`] (suites, options, faults, sampling) plus what only the command deals with
//! (adapter selection, output paths, the stdout format, the baseline). Every mistake found here
//! is a usage error (exit 2) and leaves no file behind.

use std::path::PathBuf;

use gpubench_engine::plan::{RunPlan, SampleOverrides};
use gpubench_engine::{PlanError, SuiteOptions};
use gpubench_harness::RunDocument;
use gpubench_harness::device::Selection;
use gpubench_harness::expect::AdapterExpectation;
use gpubench_report::Format;
use gpubench_report::table::TableStyle;
use gpubench_suites::REGISTRY;

use crate::cli::{AdapterChoice, BaselineArgs, ExportArgs, RunArgs};
use crate::cmd::baseline_gate;
use crate::exit::UsageError;
use crate::paths::{Files, check_baseline_dir};
use crate::progress::ProgressMode;

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
    /// The stdout format.
    pub format: Format,
    /// How the terminal table is drawn (width, verbosity).
    pub table: TableStyle,
    /// Baseline handling.
    pub baseline: BaselineArgs,
    /// The files written besides stdout.
    pub exports: ExportArgs,
    /// The `--baseline FILE`, loaded.
    pub explicit_baseline: Option<(String, RunDocument)>,
    /// How progress is shown.
    pub progress: ProgressMode,
    /// How many times the suites run (`--runs`); the quietest run is reported and recorded.
    pub runs: u32,
    /// What the adapter must be.
    pub expect: AdapterExpectation,
    /// Whether telemetry is read.
    pub telemetry: bool,
    /// Every file the run reads or writes, checked so far.
    pub files: Files,
}

impl Plan {
    /// The plan of one adapter of a fleet: `args` with the adapter at `index` of `gpubench list`
    /// chosen on its own backend (flags win over the WGPU_* variables, so the environment cannot
    /// choose another) and `out` as its results file; no HTML page and no exports (the fleet's
    /// come after, of every adapter's run).
    pub fn for_fleet_adapter(
        args: &RunArgs,
        index: usize,
        backend: &str,
        out: PathBuf,
    ) -> anyhow::Result<Self> {
        let mut one = args.clone();
        one.adapter.adapter = Some(AdapterChoice::Index(index));
        one.adapter.backend = Some(backend.to_string());
        one.out = Some(out);
        one.html = None;
        one.exports = ExportArgs::default();
        Self::from_args(&one)
    }

    /// Checks `args`; every refusal is a usage error naming the flag.
    pub fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        let mut files = Files::new();
        let explicit_baseline = baseline_gate::load_explicit_baseline(&args.baseline)?;
        if let Some(path) = &args.baseline.baseline {
            files.input("--baseline", path)?;
        }
        for (flag, path) in [("--out", &args.out), ("--html", &args.html)] {
            if let Some(path) = path {
                files.output(flag, path)?;
            }
        }
        if let (Some(out), true) = (&args.out, args.baseline.runs > 1) {
            for k in 1..=args.baseline.runs {
                files.output("--out (one run of --runs)", &numbered_run(out, k))?;
            }
        }
        if args.baseline.runs > 1 && !args.noise_check.is_on() {
            return Err(UsageError(
                "--runs keeps the quietest run by its own noise check: leave --noise-check on"
                    .to_string(),
            )
            .into());
        }
        args.exports.check(&mut files)?;
        check_baseline_dir(&args.baseline.dir(), args.baseline.save_baseline)?;
        let selection = args.adapter.selection();
        selection
            .backends()
            .map_err(|e| UsageError(format!("--backend: {e}")))?;
        let run = RunPlan::new(&REGISTRY, &args.suites, suite_options(args))
            .and_then(|plan| plan.with_sampling(sample_overrides(args)))
            .map_err(usage_error)?
            .with_noise_check(args.noise_check.is_on());
        Ok(Self {
            run,
            selection,
            out: args.out.clone(),
            html: args.html.clone(),
            format: args.format,
            table: TableStyle::for_stdout(args.verbose),
            baseline: args.baseline.clone(),
            exports: args.exports.clone(),
            explicit_baseline,
            progress: if args.no_progress {
                ProgressMode::Off
            } else {
                args.progress
            },
            runs: args.baseline.runs,
            expect: args.expect.expectation(),
            telemetry: args.telemetry.is_on(),
            files,
        })
    }
}

/// Run `k` of `--runs` when `--out` is `out`: `out-runK.json` beside it.
pub fn numbered_run(out: &std::path::Path, k: u32) -> PathBuf {
    gpubench_results::results_file::sibling_with_suffix(out, &format!("-run{k}"), "results")
}

/// A refusal of the library's (a suite, an option) as a usage error naming the flag.
pub fn usage_error(error: PlanError) -> anyhow::Error {
    match error {
        PlanError::BadOption { option, problem } => {
            UsageError(format!("{} {problem}", crate::suite_flags::flag_of(option))).into()
        }
        PlanError::NamedTwice(suite) => UsageError(format!(
            "--suite {suite} is named twice; name each suite once"
        ))
        .into(),
        other => UsageError(other.to_string()).into(),
    }
}

/// The suites' options, as given.
fn suite_options(args: &RunArgs) -> SuiteOptions {
    let mut options = SuiteOptions::new(args.profile);
    options.values = args.suite_options.values.clone();
    options.seed = args.seed;
    options.shader_checks = args.shader_checks;
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn every_library_option_maps_to_a_flag_run_takes() {
        let cli = crate::cli::Cli::command();
        let run = cli.find_subcommand("run").expect("run");
        let keys = ["samples", "sample_length", "max_time"]
            .into_iter()
            .chain(REGISTRY.options().into_iter().map(|(_, spec)| spec.key));
        for key in keys {
            let flag = crate::suite_flags::flag_of(key);
            let long = flag.trim_start_matches("--");
            assert!(
                run.get_arguments().any(|a| a.get_long() == Some(long)),
                "{key} maps to {flag}, which run does not take"
            );
        }
        let error = usage_error(PlanError::bad("matmul_shapes", "0x4x4: too small"));
        assert_eq!(error.to_string(), "--matmul-shape 0x4x4: too small");
    }
}
