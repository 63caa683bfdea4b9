//! `run`'s arguments turned into a checked plan before any adapter is opened: the library's
//! [`RunPlan`] (suites, options, faults, sampling) plus what only the command deals with
//! (adapter selection, output paths, the stdout format, the baseline). Every mistake found here
//! is a usage error (exit 2) and leaves no file behind.

use std::path::{Path, PathBuf};

use gpubench_engine::plan::{RunPlan, SampleOverrides};
use gpubench_engine::{PlanError, SuiteOptions};
use gpubench_harness::device::Selection;
use gpubench_harness::expect::AdapterExpectation;
use gpubench_report::Format;
use gpubench_report::table::TableStyle;
use gpubench_suites::REGISTRY;

use crate::cli::RunArgs;
use crate::cmd::baseline_gate::BaselineSettings;
use crate::cmd::exports::ExportPlan;
use crate::exit::UsageError;
use crate::paths::Files;
use crate::progress::ProgressMode;

/// Everything `run` needs, checked.
#[derive(Clone)]
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
    /// Whether the run is printed on stdout: not an adapter's run in a fleet whose stdout is
    /// machine-readable (it holds one document, every adapter's runs).
    pub prints: bool,
    /// How the terminal table is drawn (width, verbosity).
    pub table: TableStyle,
    /// Baseline handling.
    pub baseline: BaselineSettings,
    /// The files written besides stdout.
    pub exports: ExportPlan,
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
    /// Checks `args` for a run on one adapter; every refusal is a usage error naming the flag.
    pub fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        let mut plan = Self::checked(args, |files| {
            if let Some(out) = &args.out {
                claim_results_file(files, "--out", out, args.baseline.runs)?;
            }
            if let Some(html) = &args.html {
                files.output("--html", html)?;
            }
            Ok(())
        })?;
        plan.out = args.out.clone();
        plan.html = args.html.clone();
        Ok(plan)
    }

    /// Checks `args` for a fleet (`--adapter all`): everything but the results file and the
    /// HTML page, which the fleet names itself (`--out` is its directory there). Each adapter's
    /// plan is derived from this one by [`Plan::for_fleet_adapter`].
    pub fn for_fleet(args: &RunArgs) -> anyhow::Result<Self> {
        Self::checked(args, |_| Ok(()))
    }

    /// The plan of one adapter of a fleet: this plan with the adapter at `index` of `gpubench
    /// list` chosen on its own backend (flags win over the WGPU_* variables, so the
    /// environment cannot choose another) and `out` as its results file, claimed in this
    /// fleet's files (so it is checked against every file the fleet writes or reads, the
    /// other adapters' among them); no HTML page and no exports (the fleet's come after, of
    /// every adapter's run).
    pub fn for_fleet_adapter(
        &mut self,
        index: usize,
        backend: &str,
        out: PathBuf,
    ) -> anyhow::Result<Self> {
        let role = "the adapter's results file";
        claim_results_file(&mut self.files, role, &out, self.runs)?;
        let mut one = self.clone();
        one.selection = Selection::resolve(Some(index.to_string()), Some(backend.to_string()));
        one.out = Some(out);
        one.html = None;
        one.exports = ExportPlan::default();
        one.prints = crate::cmd::baseline_gate::is_text(self.format);
        Ok(one)
    }

    /// What `from_args` and `for_fleet` share: every flag but the output paths, which
    /// `claim_outputs` adds to the command's files after its inputs and before its exports.
    fn checked(
        args: &RunArgs,
        claim_outputs: impl FnOnce(&mut Files) -> anyhow::Result<()>,
    ) -> anyhow::Result<Self> {
        if args.baseline.runs > 1 && !args.noise_check.is_on() {
            return Err(UsageError(
                "--runs keeps the quietest run by its own noise check: leave --noise-check on"
                    .to_string(),
            )
            .into());
        }
        check_baseline_conditions(args, crate::logging::in_force().as_deref())?;
        let mut files = Files::new();
        let baseline = args.baseline.checked(&mut files)?;
        claim_outputs(&mut files)?;
        let exports = args.exports.checked(&mut files)?;
        let selection = args.adapter.selection();
        selection
            .backends()
            .map_err(|e| UsageError(format!("--backend: {e}")))?;
        let run = RunPlan::new(&REGISTRY, &args.suites, suite_options(args))
            .and_then(|plan| plan.with_sampling(sample_overrides(args)))
            .map_err(usage_error)?
            .with_noise_check(args.noise_check.is_on())
            .with_log_filter(crate::logging::in_force());
        for warning in options_of_absent_suites(args, &run) {
            note!("warning: {warning}");
        }
        Ok(Self {
            run,
            selection,
            out: None,
            html: None,
            format: args.format,
            prints: true,
            table: TableStyle::for_stdout(args.verbose),
            baseline,
            exports,
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

/// Refuses, before any work, a baseline recorded under conditions that hide in its numbers:
/// without the run's own noise check (the gate that keeps a noisy run from becoming the
/// reference), or with logging above `warn` (it slows short kernels' timings 2-3x). `--force`
/// records it anyway.
fn check_baseline_conditions(args: &RunArgs, log_filter: Option<&str>) -> anyhow::Result<()> {
    if !args.baseline.save_baseline || args.baseline.force {
        return Ok(());
    }
    if !args.noise_check.is_on() {
        return Err(UsageError(
            "--save-baseline with --noise-check off: a baseline is recorded only after the run's own noise check says it is quiet enough; leave the check on, or add --force to record it without"
                .to_string(),
        )
        .into());
    }
    if let Some(filter) = log_filter.filter(|f| gpubench_results::log_filter::is_verbose(f)) {
        return Err(UsageError(format!(
            "--save-baseline with logging at '{filter}' (--log, GPUBENCH_LOG or RUST_LOG): logging above warn slows short kernels' timings, so such a run must not become the baseline; log at warn or not at all, or add --force"
        ))
        .into());
    }
    Ok(())
}

/// Adds the results file `out` to `files` (named `role` in messages), and with `runs` over one
/// every `-runK` file beside it. Those names gpubench chooses itself, so one that exists is
/// refused: it is another run's file, never replaced.
fn claim_results_file(files: &mut Files, role: &str, out: &Path, runs: u32) -> anyhow::Result<()> {
    files.output(role, out)?;
    if runs > 1 {
        for k in 1..=runs {
            let numbered = numbered_run(out, k);
            if std::fs::symlink_metadata(&numbered).is_ok() {
                return Err(UsageError(format!(
                    "{role} {}: run {k} of --runs would be written to {}, which exists; gpubench never replaces a file it names itself: move it, or give another name",
                    out.display(),
                    numbered.display()
                ))
                .into());
            }
            files.output(&format!("{role} (one run of --runs)"), &numbered)?;
        }
    }
    Ok(())
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

/// What a given option of a suite the run does not include says: it changes nothing.
fn options_of_absent_suites(args: &RunArgs, run: &RunPlan) -> Vec<String> {
    let running = |name: &str| run.suites().iter().any(|s| s.name() == name);
    REGISTRY
        .options()
        .into_iter()
        .filter(|(suite, spec)| {
            !spec.hidden && args.suite_options.values.contains_key(spec.key) && !running(suite)
        })
        .map(|(suite, spec)| {
            format!(
                "--{} is an option of the {suite} suite, which this run does not include: it changes nothing (add {suite} to --suite)",
                spec.flag
            )
        })
        .collect()
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
    use clap::{CommandFactory, Parser};

    use super::*;

    fn run_args(extra: &[&str]) -> RunArgs {
        let argv = ["gpubench", "run"].iter().chain(extra);
        match crate::cli::Cli::try_parse_from(argv).map(|cli| cli.command) {
            Ok(crate::cli::Command::Run(args)) => *args,
            other => panic!("not a run: {other:?}"),
        }
    }

    #[test]
    fn an_option_of_a_suite_the_run_leaves_out_is_said_to_change_nothing() {
        let plan_of = |args: &RunArgs| {
            RunPlan::new(&REGISTRY, &args.suites, suite_options(args)).expect("a plan")
        };
        let args = run_args(&["--suite", "stream", "--matmul-shape", "64x64x64"]);
        let said = options_of_absent_suites(&args, &plan_of(&args));
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("--matmul-shape is an option of the matmul suite"));
        let args = run_args(&["--suite", "stream,matmul", "--matmul-shape", "64x64x64"]);
        assert!(options_of_absent_suites(&args, &plan_of(&args)).is_empty());
    }

    #[test]
    fn a_fleet_adapters_plan_is_the_fleets_checked_plan_on_one_adapter() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let export = dir.path().join("all.json");
        let export_arg = export.to_string_lossy().into_owned();
        let args = run_args(&[
            "--adapter",
            "all",
            "--suite",
            "stream",
            "--export-json",
            &export_arg,
            "--runs",
            "2",
            "--save-baseline",
        ]);
        let mut fleet = Plan::for_fleet(&args).expect("checked");
        assert!(fleet.exports.any());

        let out = dir.path().join("0-llvmpipe-vulkan.json");
        let one = fleet
            .for_fleet_adapter(0, "vulkan", out.clone())
            .expect("derived");
        assert_eq!(one.selection.adapter.as_deref(), Some("0"));
        assert_eq!(one.selection.backend.as_deref(), Some("vulkan"));
        assert!(!one.selection.adapter_from_env && !one.selection.backend_from_env);
        assert_eq!(one.out.as_deref(), Some(out.as_path()));
        assert!(!one.exports.any() && one.html.is_none());
        let names = |plan: &Plan| -> Vec<&str> {
            plan.run.suites().iter().map(|s| s.info().name).collect()
        };
        assert_eq!(names(&one), ["stream"]);
        assert_eq!(names(&one), names(&fleet));
        assert!(one.baseline.save && one.runs == 2);

        // The fleet's own export, or a -runK file of another adapter's, cannot be an adapter's
        // results file: both are refused before that adapter runs.
        let error = fleet
            .for_fleet_adapter(1, "gl", export.clone())
            .err()
            .expect("refused");
        assert!(error.to_string().contains("--export-json"), "{error:#}");
        let error = fleet
            .for_fleet_adapter(1, "gl", numbered_run(&out, 2))
            .err()
            .expect("refused");
        assert!(error.to_string().contains("one run of --runs"), "{error:#}");

        // A -runK name that exists is another run's file: refused, and left as it was.
        let taken = dir.path().join("taken.json");
        std::fs::write(numbered_run(&taken, 1), b"other").expect("write");
        let error = fleet
            .for_fleet_adapter(2, "vulkan", taken.clone())
            .err()
            .expect("refused");
        assert!(error.to_string().contains("which exists"), "{error:#}");
        assert_eq!(
            std::fs::read(numbered_run(&taken, 1)).expect("read"),
            b"other"
        );
    }

    #[test]
    fn a_baseline_under_conditions_that_hide_in_its_numbers_is_refused_unless_forced() {
        let save = run_args(&["--save-baseline"]);
        check_baseline_conditions(&save, None).expect("plain");
        check_baseline_conditions(&save, Some("warn")).expect("warnings only");
        let error = check_baseline_conditions(&save, Some("wgpu_hal=debug")).expect_err("debug");
        assert!(
            error.to_string().contains("logging at 'wgpu_hal=debug'"),
            "{error}"
        );
        let unchecked = run_args(&["--save-baseline", "--noise-check", "off"]);
        let error = check_baseline_conditions(&unchecked, None).expect_err("no noise check");
        assert!(error.to_string().contains("--noise-check off"), "{error}");
        let forced = run_args(&["--save-baseline", "--noise-check", "off", "--force"]);
        check_baseline_conditions(&forced, Some("trace")).expect("forced");
        check_baseline_conditions(&run_args(&[]), Some("trace")).expect("no baseline");
    }

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
