//! `gpubench run`: check the arguments into a plan, open the adapter, have the library's session
//! run the plan (the results file is rewritten after every result), then report and gate: the
//! HTML page, the verdicts against the baseline, the export, the table on stdout, the baseline,
//! the exit code. Every file is checked before the adapter opens; a signal at any point before
//! the baseline is written means no baseline.

mod plan;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gpubench_engine::session::{RunSink, Session, SessionError};
use gpubench_harness::TelemetryHook;
use gpubench_harness::runner::{Phase, RunObserver};
use gpubench_harness::{BenchResult, BenchmarkInfo, GpuContext, RunDocument};
use gpubench_report::Format;
use gpubench_report::table::TableStyle;
use gpubench_results::ResultsError;
use gpubench_results::results_file::{save_document, save_new_document};
use gpubench_results::schema::{ToolInfo, slug};
use gpubench_telemetry::{Telemetry, TelemetryOptions};

use crate::cli::RunArgs;
use crate::cmd::baseline_gate::{self, BaselinePlan, BaselineSettings};
use crate::exit::Exit;
use crate::progress::Progress;
use crate::signals::StopSignal;
use crate::stdout::{Printed, print_unless_stopped};
pub use plan::Plan;
use plan::usage_error;

/// Where runs without `--out` write their results (and where `show` with no file looks).
pub const RESULTS_DIR: &str = "results";

/// `gpubench run` on one adapter.
pub fn run(args: &RunArgs) -> anyhow::Result<Exit> {
    let signals = StopSignal::install();
    let plan = Plan::from_args(args)?;
    let (exit, doc) = run_one(plan, &signals)?;
    if let Some(line) = doc.as_ref().and_then(|doc| final_line(exit, doc)) {
        note!("{line}");
    }
    Ok(exit)
}

/// The run's last line on stderr: the exit code and what caused it, so a CI log's last line
/// says why a job failed (or that it did not). Interrupts, errors and a closed stdout say
/// theirs where they happen.
fn final_line(exit: Exit, doc: &RunDocument) -> Option<String> {
    let with = |status: gpubench_results::Status| -> Vec<&str> {
        doc.results
            .iter()
            .filter(|r| r.status == status)
            .map(|r| r.id.as_str())
            .collect()
    };
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    Some(match exit {
        Exit::BenchmarkFailed => {
            let failed = with(gpubench_results::Status::Failed);
            let shown = failed[..failed.len().min(3)].join(", ");
            let more = match failed.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            format!(
                "exit {}: {} ({shown}{more})",
                exit.code(),
                plural(failed.len(), "benchmark failed", "benchmarks failed")
            )
        }
        Exit::Regression => format!(
            "exit {}: regressed against the baseline (listed above; --no-fail reports without failing)",
            exit.code()
        ),
        Exit::TooNoisy => format!(
            "exit {}: too noisy to judge: the timing regressions above are within the runs' own noise (said above: whose, and what helps)",
            exit.code()
        ),
        Exit::Success => {
            let ok = with(gpubench_results::Status::Ok).len();
            let skipped = with(gpubench_results::Status::Skipped).len();
            format!(
                "exit 0: {}, {ok} ok and verified, {skipped} skipped; no failure",
                plural(doc.results.len(), "result", "results")
            )
        }
        _ => return None,
    })
}

/// Runs `plan` on the adapter it selects, writing its results file; the exit status and the
/// document (`None` when the run stopped before one existed). A fleet calls this per adapter.
pub fn run_one(
    mut plan: Plan,
    signals: &StopSignal,
) -> anyhow::Result<(Exit, Option<RunDocument>)> {
    for warning in plan.selection.notes() {
        note!("warning: {warning}");
    }
    let ctx = super::open_adapter(&plan.selection)?;
    plan.expect.check(&ctx.summary)?;
    plan.run.check_adapter(&ctx).map_err(usage_error)?;
    let baseline = BaselinePlan::prepare(
        &mut plan.baseline,
        &gpubench_baseline::baseline_key(&ctx.machine_info(), plan.run.options().profile.name()),
        &mut plan.files,
    )?;
    if let Some(code) = signals.received() {
        note!("interrupted before the run started: nothing written");
        return Ok((code, None));
    }
    let telemetry = open_telemetry(&ctx, plan.telemetry, plan.format)?;
    let mut runs = Vec::new();
    for k in 1..=plan.runs {
        if plan.runs > 1 {
            note!("== run {k}/{} ==", plan.runs);
        }
        let (path, named) = results_path(&mut plan, &ctx, k)?;
        let mut sink = ResultsFile {
            path,
            named,
            progress: Progress::new(progress_steps(&plan), plan.progress),
            written: false,
        };
        let mut session =
            Session::new(&ctx, &plan.run, signals.flag()).with_telemetry(telemetry.clone());
        // The one place a run blocks on the device: the session's waits are all awaited in it.
        let outcome = pollster::block_on(session.run(tool_info(), &mut sink));
        drop(session);
        sink.progress.finish();
        let doc = outcome.map_err(session_error)?;
        let stopped = signals.received();
        if let (Some(code), false) = (stopped, sink.written) {
            // Stopped before its first result: nothing measured would be saved, and writing
            // the empty run would replace a file `--out` names with nothing.
            nothing_written(k, plan.runs, &sink.path, &runs);
            baseline_gate::refuse_interrupted(&plan.baseline);
            signals.reported();
            std::mem::forget(ctx);
            return Ok((code, None));
        }
        // A run that finished without a result (every suite refused on the way) is still a
        // run: its file says so.
        if !sink.written {
            sink.write(&doc)?;
        }
        if let Some(code) = stopped {
            if let Some(finished) = finished_runs(&runs) {
                note!("{finished}");
            }
            let exit = interrupted(&doc, &sink.path, &plan.baseline, code, signals);
            // Dropping the device waits for the work a stopped wait left in flight, which can
            // be minutes of one dispatch; the process is about to end and gets it all back.
            std::mem::forget(ctx);
            return Ok((exit, Some(doc)));
        }
        runs.push((doc, sink.path));
    }
    let (doc, out_path) = quietest(runs, &plan)?;
    let exit = report_and_gate(&plan, &baseline, &doc, &out_path, signals)?;
    Ok((exit, Some(doc)))
}

/// Says that run `k` of `of` stopped before its first result and wrote nothing (`path`, if
/// it existed, kept as it was), and what the runs before it left.
fn nothing_written(k: u32, of: u32, path: &Path, runs: &[(RunDocument, PathBuf)]) {
    let which = if of > 1 {
        format!(" of run {k}")
    } else {
        String::new()
    };
    let file = if path.exists() {
        "kept as it was"
    } else {
        "not created"
    };
    note!(
        "interrupted before the first result{which}: nothing written ({} {file})",
        path.display()
    );
    if let Some(finished) = finished_runs(runs) {
        note!("{finished}");
    }
}

/// What the runs of a `--runs N` set that finished before a stop left: their files, which
/// stand as they were written (none of them was recorded as the baseline).
fn finished_runs(runs: &[(RunDocument, PathBuf)]) -> Option<String> {
    let files: Vec<String> = runs.iter().map(|(_, p)| p.display().to_string()).collect();
    (!files.is_empty()).then(|| {
        format!(
            "the runs that finished before it are kept in {}; none was recorded as the baseline",
            files.join(", ")
        )
    })
}

/// Where run `k` of the plan's runs is written: `--out` (with `-runK` added when there are
/// several, `--out` itself then holding the recorded one), else a free name from the time and
/// the adapter.
fn results_path(plan: &mut Plan, ctx: &GpuContext, k: u32) -> anyhow::Result<(PathBuf, Naming)> {
    Ok(match &plan.out {
        Some(path) if plan.runs > 1 => (plan::numbered_run(path, k), Naming::Explicit),
        Some(path) => (path.clone(), Naming::Explicit),
        None => {
            let base = default_output_path(ctx);
            let path = free_name(&base);
            plan.files.planned_output("the results file", &path)?;
            (path, Naming::Chosen { base })
        }
    })
}

/// Of several runs (`--runs N`), the one to report and record: the first with a failed result,
/// if any run has one (a wrong answer in any run fails the set: it is reported, the command
/// exits 4 and no baseline is recorded), else the quietest by its own noise check among those
/// that completed (else the last). Pooling their samples would hide the state each run met in
/// one distribution; the quietest is a real run, every number in it measured together. With
/// `--out`, the chosen run is also written there.
fn quietest(
    mut runs: Vec<(RunDocument, PathBuf)>,
    plan: &Plan,
) -> anyhow::Result<(RunDocument, PathBuf)> {
    if runs.len() == 1 {
        return runs.pop().ok_or_else(|| anyhow::anyhow!("no run was made"));
    }
    for (k, (doc, path)) in runs.iter().enumerate() {
        let noise = noise_level(doc).map_or("not measured".to_string(), |l| {
            format!("±{}", gpubench_report::numbers::percent(l * 100.0, 1))
        });
        note!(
            "run {}/{}: noise {noise}, {}",
            k + 1,
            runs.len(),
            path.display()
        );
    }
    let docs: Vec<&RunDocument> = runs.iter().map(|(doc, _)| doc).collect();
    let (chosen, failed) = run_to_report(&docs);
    let (doc, path) = runs.swap_remove(chosen);
    let why = match failed {
        true => "it has a failed result, so the set of runs failed",
        false => "the quietest that completed",
    };
    note!("reporting run {} of {}: {why}", chosen + 1, plan.runs);
    match &plan.out {
        Some(out) => {
            save_document(out, &doc)?;
            note!(
                "{} holds run {} ({})",
                out.display(),
                chosen + 1,
                path.display()
            );
            Ok((doc, out.clone()))
        }
        None => Ok((doc, path)),
    }
}

/// The run's own noise level, where its noise check measured one.
fn noise_level(doc: &RunDocument) -> Option<f64> {
    doc.noise.as_ref().and_then(|n| n.level)
}

/// Which of several runs (at least one) to report, and whether it is there because it failed:
/// the first run with a failed result, else the quietest complete one, else the last.
fn run_to_report(runs: &[&RunDocument]) -> (usize, bool) {
    if let Some(failed) = runs.iter().position(|doc| doc.has_failures()) {
        return (failed, true);
    }
    let quietest = (0..runs.len())
        .filter(|&k| runs[k].complete)
        .min_by(|&a, &b| {
            let key = |k: usize| noise_level(runs[k]).unwrap_or(f64::INFINITY);
            key(a).total_cmp(&key(b))
        })
        .unwrap_or(runs.len().saturating_sub(1));
    (quietest, false)
}

/// The run's telemetry for `ctx` (a missing reader is recorded, never an error), its state
/// said on stderr.
fn open_telemetry(
    ctx: &GpuContext,
    enabled: bool,
    format: Format,
) -> anyhow::Result<Arc<dyn TelemetryHook>> {
    let telemetry = Telemetry::open(ctx, &TelemetryOptions::from_env(enabled))?;
    if baseline_gate::is_text(format) {
        // The table's and Markdown's heading say it, once, with the results.
        return Ok(Arc::new(telemetry));
    }
    let (status, reason) = telemetry.status();
    match (telemetry.source_name(), reason) {
        (Some(source), _) => note!("telemetry: {source}"),
        (None, Some(reason)) => note!("telemetry: {}: {reason}", status.as_str()),
        (None, None) => note!("telemetry: {}", status.as_str()),
    }
    Ok(Arc::new(telemetry))
}

/// Says what an interrupted run kept (so the watchdog need not); no baseline is recorded.
fn interrupted(
    doc: &RunDocument,
    out_path: &Path,
    baseline: &BaselineSettings,
    code: Exit,
    signals: &StopSignal,
) -> Exit {
    note!(
        "interrupted: {} finished results kept in {} (marked {})",
        doc.results.len(),
        out_path.display(),
        if doc.complete {
            "complete"
        } else {
            "incomplete"
        }
    );
    baseline_gate::refuse_interrupted(baseline);
    signals.reported();
    code
}

/// After a finished run: the HTML page, the verdicts against the baseline, the export, the
/// report on stdout, then the baseline; exit 4 when a benchmark failed, else as the verdicts
/// say. Stdout comes after every file but the baseline, so a closed stdout (exit 141) loses
/// none of them, and a signal while stdout is blocked still means no baseline.
fn report_and_gate(
    plan: &Plan,
    baseline: &BaselinePlan,
    doc: &RunDocument,
    out_path: &Path,
    signals: &StopSignal,
) -> anyhow::Result<Exit> {
    note!("results written to {}", out_path.display());
    if let Some(html) = &plan.html {
        // With a baseline, the page draws it first and the run beside it: the verdicts too.
        let run = (crate::cmd::report::label(out_path), doc.clone());
        let labelled: Vec<_> = baseline
            .compared_with(doc)
            .into_iter()
            .chain([run])
            .collect();
        crate::cmd::report::write_html(html, &labelled)?;
        note!("report written to {}", html.display());
    }
    let verdicts = baseline_gate::after_run(baseline, &plan.baseline, doc, out_path);
    let summary = verdicts
        .as_ref()
        .map(|cmp| baseline_gate::run_verdict_summary(cmp, &plan.baseline.gate, doc));
    let with_summary = verdicts.as_ref().zip(summary.as_deref());
    // --export-adapter-names names BMF entries by adapter here too, as it does in show.
    let prefix = plan.exports.prefixes(&[doc])?.pop().flatten();
    let render = |format| {
        baseline_gate::run_with_verdicts(format, doc, with_summary, &plan.table, prefix.as_deref())
    };
    let stdout = render(plan.format)?;
    if let Some((cmp, summary)) = with_summary.filter(|_| !baseline_gate::is_text(plan.format)) {
        // Machine-readable stdout stays one document: the verdicts go to stderr.
        let table = Format::Table.render(cmp, &TableStyle::for_stdout(false))?;
        note!("{summary}\n\n{table}");
    }
    plan.exports.write_rendered(render)?;
    plan.exports.write_gab(&[doc])?;
    // The same gate as `compare`: regressions fail (exit 3) unless --no-fail; on a software
    // adapter only status changes do, unless --strict.
    let verdict_exit = verdicts.as_ref().map_or(Exit::Success, |cmp| {
        baseline_gate::gate_exit(cmp, &plan.baseline.gate)
    });
    let printed = if plan.prints {
        print_unless_stopped(stdout, &signals.flag())?
    } else {
        Printed::Written
    };
    if let Some(code) = signals.received() {
        return Ok(interrupted(doc, out_path, &plan.baseline, code, signals));
    }
    // Whether it may become the baseline is the comparison's outcome, --no-fail or not.
    let judged = verdicts
        .as_ref()
        .map_or(Exit::Success, baseline_gate::outcome_exit);
    // A refusal for the verdict is said, and the run's exit stays its verdict's.
    let saving = (judged, baseline_gate::Saving::Run);
    baseline_gate::record_judged(baseline, &plan.baseline, doc, saving)?;
    let exit = if doc.has_failures() {
        Exit::BenchmarkFailed
    } else {
        verdict_exit
    };
    Ok(crate::stdout::exit_after(printed, exit))
}

/// A suite's refusal of its options is a usage error; anything else (the file could not be
/// written) an error.
fn session_error(error: SessionError) -> anyhow::Error {
    match error {
        SessionError::Suite(refusal) => usage_error(refusal),
        other => other.into(),
    }
}

/// Who named the results file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Naming {
    /// The user (`--out`): it is replaced if it exists.
    Explicit,
    /// gpubench, from `base` ([`free_name`]): an existing file is never replaced.
    Chosen {
        /// The name before a number was added to make it free.
        base: PathBuf,
    },
}

/// The results file, rewritten atomically at every save, and the progress bar. Nothing is
/// written before the first result: a run refused on the way (a suite's options) leaves an
/// existing file as it was, and no empty one behind.
struct ResultsFile {
    path: PathBuf,
    named: Naming,
    progress: Progress,
    written: bool,
}

impl ResultsFile {
    /// Writes `doc`, creating the default results directory the first time. A name gpubench
    /// chose is claimed without replacing anything: where another run took it meanwhile, the
    /// next free one is used and said.
    fn write(&mut self, doc: &RunDocument) -> Result<(), ResultsError> {
        if self.written {
            return save_document(&self.path, doc);
        }
        let dir = crate::paths::parent_dir(&self.path);
        std::fs::create_dir_all(dir).map_err(|source| ResultsError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        match &self.named {
            Naming::Explicit => save_document(&self.path, doc)?,
            Naming::Chosen { base } => loop {
                match save_new_document(&self.path, doc) {
                    Err(taken) if taken.already_exists() => {
                        let next = free_name(base);
                        note!(
                            "{} was written by another run meanwhile: writing {} instead",
                            self.path.display(),
                            next.display()
                        );
                        self.path = next;
                    }
                    other => break other?,
                }
            },
        }
        self.written = true;
        Ok(())
    }
}

impl RunSink for ResultsFile {
    fn save(&mut self, doc: &RunDocument) -> Result<(), ResultsError> {
        if doc.results.is_empty() {
            return Ok(());
        }
        self.write(doc)
    }

    fn preparing(&mut self, suite: &str) {
        self.progress.preparing(suite);
    }

    fn stages(&mut self, count: usize) {
        self.progress.stages(count);
    }

    fn planned(&mut self, count: usize) {
        self.progress.add_benchmarks(count);
    }
}

impl RunObserver for ResultsFile {
    fn started(&mut self, index: usize, total: usize, info: &BenchmarkInfo) {
        self.progress.started(index, total, info);
    }

    fn phase(&mut self, phase: Phase) {
        self.progress.phase(phase);
    }

    fn sampled(&mut self, taken: usize, max: usize) {
        self.progress.sampled(taken, max);
    }

    fn finished(&mut self, result: &BenchResult) {
        self.progress.finished(result);
    }
}

/// The steps the progress bar divides the run into: each suite (the injected faults' hidden
/// suite included).
fn progress_steps(plan: &Plan) -> usize {
    plan.run.suites().len()
}

/// `results/<time>-<backend><index>-<adapter>.json` (the directory is created with the first
/// write): the backend and index tell apart one adapter seen by two backends (llvmpipe on
/// Vulkan and GL) and identical cards in one machine. [`free_name`] makes it unique.
fn default_output_path(ctx: &GpuContext) -> PathBuf {
    PathBuf::from(RESULTS_DIR).join(format!(
        "{}-{}{}-{}.json",
        gpubench_results::hostinfo::now_compact(),
        slug(&ctx.summary.backend),
        ctx.summary.index,
        slug(&ctx.summary.name)
    ))
}

/// `base` if nothing is there, else the first of `<stem>-2.json`, `<stem>-3.json`, ... that is
/// free.
fn free_name(base: &Path) -> PathBuf {
    let stem = base
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    std::iter::once(base.to_path_buf())
        .chain((2u32..).map(|n| base.with_file_name(format!("{stem}-{n}.json"))))
        .find(|candidate| !candidate.exists())
        .unwrap_or_else(|| base.to_path_buf())
}

/// This build of the tool, as the results file records it.
fn tool_info() -> ToolInfo {
    ToolInfo {
        name: "gpubench".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: crate::build_info::commit().map(|sha| match crate::build_info::dirty() {
            true => format!("{sha}-dirty"),
            false => sha.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::ProgressMode;
    use gpubench_baseline::testing::doc_with;

    fn sink(path: PathBuf, named: Naming) -> ResultsFile {
        ResultsFile {
            path,
            named,
            progress: Progress::new(1, ProgressMode::Off),
            written: false,
        }
    }

    /// A complete run whose noise check measured `level`.
    fn run_at(level: f64) -> RunDocument {
        let mut doc = doc_with("gpu", false);
        let mut noise = gpubench_results::run_noise::RunNoise::new("ref", "GFLOP/s");
        noise.level = Some(level);
        doc.noise = Some(noise);
        doc.complete = true;
        doc
    }

    #[test]
    fn of_several_runs_a_failed_one_is_reported_else_the_quietest_complete_one() {
        let (loud, quiet, quieter) = (run_at(0.05), run_at(0.02), run_at(0.01));
        let mut cut_short = run_at(0.001);
        cut_short.complete = false;
        assert_eq!(
            run_to_report(&[&loud, &quiet, &cut_short, &quieter]),
            (3, false)
        );
        // A wrong answer in a noisy run that would not have been chosen still fails the set.
        let mut wrong = run_at(0.05);
        wrong
            .results
            .push(gpubench_baseline::testing::not_ok_result(
                "stream/copy",
                gpubench_results::Status::Failed,
                "wrong output",
            ));
        assert_eq!(run_to_report(&[&quiet, &wrong, &quieter]), (1, true));
        assert_eq!(run_to_report(&[&cut_short]), (0, false));
    }

    #[test]
    fn a_chosen_name_never_replaces_a_file_and_an_explicit_one_does() {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().join("results").join("t-vulkan0-gpu.json");
        let doc = doc_with("gpu", false);
        // Three runs that chose the same name before any of them wrote: each gets its own file.
        let mut runs: Vec<ResultsFile> = (0..3)
            .map(|_| sink(free_name(&base), Naming::Chosen { base: base.clone() }))
            .collect();
        for run in &mut runs {
            run.write(&doc).expect("write");
        }
        let names: Vec<String> = runs
            .iter()
            .map(|r| {
                r.path
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "t-vulkan0-gpu.json",
                "t-vulkan0-gpu-2.json",
                "t-vulkan0-gpu-3.json"
            ]
        );
        assert_eq!(
            free_name(&base),
            base.with_file_name("t-vulkan0-gpu-4.json")
        );
        // A later save of a run rewrites its own file.
        runs[0].write(&doc).expect("rewrite");
        assert_eq!(runs[0].path, base);
        // --out names the file: it is replaced.
        let before = std::fs::read(&base).expect("read");
        let mut other = doc_with("other", false);
        other.started_at = "2026-12-02T00:00:00Z".into();
        sink(base.clone(), Naming::Explicit)
            .write(&other)
            .expect("replace");
        assert_ne!(std::fs::read(&base).expect("read"), before);
    }
}
