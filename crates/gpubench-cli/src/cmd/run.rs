//! `gpubench run`: check the arguments into a plan, open the adapter, have the library's session
//! run the plan (the results file is rewritten after every result), then report and gate: the
//! table or export on stdout, the HTML page, the verdicts against the baseline, the exit code.

mod plan;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use gpubench_harness::results_file::save_document;
use gpubench_harness::runner::{Phase, RunObserver};
use gpubench_harness::schema::{ToolInfo, slug};
use gpubench_harness::telemetry::TelemetryHook;
use gpubench_harness::{BenchResult, BenchmarkInfo, GpuContext, HarnessError, RunDocument};
use gpubench_kernels::session::{RunSink, Session, SessionError};
use gpubench_telemetry::{Telemetry, TelemetryOptions};

use crate::cli::RunArgs;
use crate::cmd::verdicts;
use crate::exit::Exit;
use crate::progress::Progress;
use crate::signals::StopSignal;
use plan::{Plan, usage_error};

pub fn run(args: &RunArgs) -> anyhow::Result<Exit> {
    let plan = Plan::from_args(args)?;
    let ctx = GpuContext::new(&plan.selection)?;
    plan.run.check_adapter(&ctx).map_err(usage_error)?;
    let out_path = match &plan.out {
        Some(path) => path.clone(),
        None => default_output_path(&ctx)?,
    };
    let signals = StopSignal::install();
    let mut sink = ResultsFile {
        path: &out_path,
        progress: Progress::new(0, plan.progress),
    };
    let telemetry = open_telemetry(&ctx, args.telemetry == "on")?;
    let outcome = Session::new(&ctx, &plan.run, signals.flag())
        .with_telemetry(telemetry)
        .run(tool_info(), &mut sink);
    sink.progress.finish();
    let doc = outcome.map_err(session_error)?;
    if let Some(code) = signals.received() {
        eprintln!(
            "interrupted: {} finished results kept in {} (marked incomplete)",
            doc.results.len(),
            out_path.display()
        );
        verdicts::refuse_interrupted(&plan.baseline);
        return Ok(Exit::Interrupted(code));
    }
    report_and_gate(plan, &doc, &out_path)
}

/// The run's telemetry for `ctx` (a missing reader is recorded, never an error), its state
/// said on stderr.
fn open_telemetry(ctx: &GpuContext, enabled: bool) -> anyhow::Result<Arc<dyn TelemetryHook>> {
    let telemetry = Telemetry::open(ctx, &TelemetryOptions::from_env(enabled))?;
    let (status, reason) = telemetry.status();
    match (telemetry.source_name(), reason) {
        (Some(source), _) => eprintln!("telemetry: {source}"),
        (None, Some(reason)) => eprintln!("telemetry: {}: {reason}", status.as_str()),
        (None, None) => eprintln!("telemetry: {}", status.as_str()),
    }
    Ok(Arc::new(telemetry))
}

/// After a finished run: the report on stdout, the HTML page, the verdicts against the
/// baseline; exit 4 when a benchmark failed, else as the verdicts say.
fn report_and_gate(plan: Plan, doc: &RunDocument, out_path: &Path) -> anyhow::Result<Exit> {
    let (format, exporter) = &plan.format;
    print!("{}", exporter.render(doc)?);
    eprintln!("results written to {}", out_path.display());
    if let Some(html) = &plan.html {
        let labelled = [(crate::cmd::report::label(out_path), doc.clone())];
        crate::cmd::report::write_html(html, &labelled)?;
        eprintln!("report written to {}", html.display());
    }
    let verdict_exit = verdicts::after_run(
        &plan.baseline,
        doc,
        out_path,
        format,
        plan.explicit_baseline,
    )?;
    if doc.has_failures() {
        return Ok(Exit::BenchmarkFailed);
    }
    Ok(verdict_exit)
}

/// A suite's refusal of its options is a usage error; anything else (the file could not be
/// written) an error.
fn session_error(error: SessionError) -> anyhow::Error {
    match error {
        SessionError::Suite(refusal) => usage_error(refusal),
        other => other.into(),
    }
}

/// The results file, rewritten atomically at every save, and the progress bar.
struct ResultsFile<'p> {
    path: &'p Path,
    progress: Progress,
}

impl RunSink for ResultsFile<'_> {
    fn save(&mut self, doc: &RunDocument) -> Result<(), HarnessError> {
        save_document(self.path, doc)
    }

    fn preparing(&mut self, suite: &str) {
        self.progress.preparing(suite);
    }

    fn planned(&mut self, count: usize) {
        self.progress.add_benchmarks(count);
    }
}

impl RunObserver for ResultsFile<'_> {
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

/// `results/<time>-<adapter>.json`, creating `results/`.
fn default_output_path(ctx: &GpuContext) -> anyhow::Result<PathBuf> {
    let dir = PathBuf::from("results");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir.join(format!(
        "{}-{}.json",
        gpubench_harness::hostinfo::now_compact(),
        slug(&ctx.summary.name)
    )))
}

/// This build of the tool, as the results file records it.
fn tool_info() -> ToolInfo {
    let commit = env!("GPUBENCH_GIT_COMMIT");
    ToolInfo {
        name: "gpubench".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: (!commit.is_empty()).then(|| commit.to_string()),
    }
}
