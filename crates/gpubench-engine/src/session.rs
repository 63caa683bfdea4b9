//! Drives a [`RunPlan`] on one adapter: each suite in turn plans its stages, runs its probes,
//! builds each stage's benchmarks when its turn comes (matmul autotunes one product per stage),
//! has every benchmark measured by the harness's runner, annotates each result and derives its
//! own. The document goes
//! to the caller's [`RunSink`] after every change worth keeping, so an interrupted or crashed
//! run leaves every finished result on disk.
//!
//! A stop request (a signal) ends the run between samples; the benchmark in flight is dropped
//! and the document is returned incomplete. After a device loss nothing more can run: the
//! remaining benchmarks are recorded as skipped, with the reason, and everything measured is
//! kept.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use gpubench_harness::TelemetryHook;
use gpubench_harness::runner::{RunObserver, run_warnings};
use gpubench_harness::{
    BenchResult, Benchmark, BenchmarkInfo, GpuContext, RunDocument, RunSettings, Runner, Status,
};
use gpubench_results::schema::ToolInfo;

use gpubench_harness::kit::gpu;

use crate::noise_check::NoiseCheck;

/// The key in each result's `extra` of the seconds the whole benchmark took, from set-up to
/// teardown (verification, calibration and warm-up included).
pub const WALL_S: &str = "wall_s";
use crate::plan::RunPlan;
use crate::tuner::ShortRunTuner;
use crate::{BuildContext, PlanError, Suite};

/// Where a run's document goes, and who hears about its progress (the runner's callbacks, plus
/// the two below).
pub trait RunSink: RunObserver {
    /// Keeps the document as it is now (the CLI writes the results file atomically). Called
    /// once at the start, after every result, and at the end.
    fn save(&mut self, doc: &RunDocument) -> Result<(), gpubench_results::ResultsError>;

    /// A suite is building its benchmarks (autotuning where it does).
    fn preparing(&mut self, _suite: &str) {}

    /// A suite that announced itself will build its benchmarks in `count` stages (one per
    /// matmul product, one for most suites).
    fn stages(&mut self, _count: usize) {}

    /// A suite has built `count` more benchmarks to run (once per stage).
    fn planned(&mut self, _count: usize) {}
}

/// Why a run stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A suite refused its options (a usage mistake only the adapter could reveal).
    #[error(transparent)]
    Suite(#[from] PlanError),
    /// The sink could not keep the document.
    #[error(transparent)]
    Save(#[from] gpubench_results::ResultsError),
    /// The options could not be written into the document.
    #[error("recording the run's options: {0}")]
    Options(#[from] serde_json::Error),
}

/// One run of a plan on one adapter.
pub struct Session<'a> {
    ctx: &'a GpuContext,
    plan: &'a RunPlan,
    runner: Runner<'a>,
    tuner: ShortRunTuner<'a>,
    noise: Option<NoiseCheck<'a>>,
}

impl<'a> Session<'a> {
    /// A session on `ctx` with the plan's sample settings for this adapter; setting `stop` ends
    /// it between samples (autotuning included).
    pub fn new(ctx: &'a GpuContext, plan: &'a RunPlan, stop: Arc<AtomicBool>) -> Self {
        let settings = plan.settings(ctx.is_software());
        Self {
            ctx,
            plan,
            runner: Runner::new(ctx, settings).with_stop_flag(Arc::clone(&stop)),
            noise: plan
                .noise_check()
                .then(|| NoiseCheck::new(ctx, Arc::clone(&stop))),
            tuner: ShortRunTuner::new(ctx, plan.options().profile, stop),
        }
    }

    /// Has telemetry read around every measured region, and the run's totals, link and nominal
    /// figures added to the document at its end.
    pub fn with_telemetry(mut self, hook: Arc<dyn TelemetryHook>) -> Self {
        self.runner = self.runner.with_telemetry(hook);
        self
    }

    /// The sample settings in force (recorded in the document's config).
    pub fn settings(&self) -> &RunSettings {
        self.runner.settings()
    }

    /// Runs every suite of the plan in order and returns the document: complete when the run
    /// got to its end, incomplete when a stop was requested.
    pub async fn run(
        &mut self,
        tool: ToolInfo,
        sink: &mut dyn RunSink,
    ) -> Result<RunDocument, SessionError> {
        let config = self.plan.config(self.settings().clone())?;
        let _checks = gpu::ShaderChecksScope::enter(self.ctx, self.plan.options().shader_checks);
        let mut doc = RunDocument::start(
            tool,
            self.ctx.machine_info(),
            config,
            run_warnings(self.ctx),
        );
        sink.save(&doc)?;
        self.start_noise_check(&mut doc).await;
        let mut driver = RunLoop {
            session: self,
            sink,
            doc,
            index: 0,
            loss_reported: false,
        };
        let suites = driver.session.plan.suites();
        for suite in suites {
            if driver.session.runner.stop_requested()
                || driver.run_suite(*suite).await? == Flow::Stop
            {
                break;
            }
        }
        let RunLoop {
            session,
            sink,
            mut doc,
            ..
        } = driver;
        session.end_noise_check(&mut doc).await;
        if let Some(hook) = session.runner.telemetry() {
            hook.finish(&mut doc);
        }
        if !session.runner.stop_requested() {
            doc.finish();
        }
        sink.save(&doc)?;
        Ok(doc)
    }

    /// Measures the noise reference before the first suite, when the plan asks for it (well
    /// under a second: not a step of the progress display).
    async fn start_noise_check(&self, doc: &mut RunDocument) {
        let Some(check) = &self.noise else {
            return;
        };
        let mut noise = check.record();
        match check.measure().await {
            Ok(summary) => noise.start = Some(summary),
            Err(reason) => noise.note(format!("start: {reason}")),
        }
        doc.noise = Some(noise);
    }

    /// Measures the noise reference after the last suite, unless the run was stopped or lost
    /// its device, and works out the run's noise level.
    async fn end_noise_check(&self, doc: &mut RunDocument) {
        let (Some(check), Some(noise)) = (&self.noise, doc.noise.as_mut()) else {
            return;
        };
        let end = if self.runner.stop_requested() {
            Err("end: not measured, the run was stopped".to_string())
        } else if self.ctx.faults.device_lost() {
            Err("end: not measured, the device was lost".to_string())
        } else {
            check
                .measure()
                .await
                .map_err(|reason| format!("end: {reason}"))
        };
        noise.finish(end);
    }
}

/// Gives each of `results` that has no chart hint the one `suite` declares for it.
fn stamp_hints(suite: &dyn Suite, results: &mut [BenchResult]) {
    for result in results.iter_mut().filter(|r| r.chart.is_none()) {
        result.chart = suite.chart_hint(result);
    }
}

/// Whether the run goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Next,
    Stop,
}

/// The state of one run: the document so far and how many benchmarks have started.
struct RunLoop<'r, 'a> {
    session: &'r mut Session<'a>,
    sink: &'r mut dyn RunSink,
    doc: RunDocument,
    index: usize,
    /// Whether a failed result has reported the device's loss.
    loss_reported: bool,
}

impl RunLoop<'_, '_> {
    /// Plans, probes, builds stage by stage, measures and derives one suite.
    async fn run_suite(&mut self, suite: &dyn Suite) -> Result<Flow, SessionError> {
        let first_of_suite = self.doc.results.len();
        let ctx = self.session.ctx;
        self.sink.preparing(suite.name());
        let options = self.session.plan.options();
        let tuner = &mut self.session.tuner;
        let stages = suite
            .stages(&mut BuildContext {
                ctx,
                options,
                tuner,
            })
            .await?;
        self.sink.stages(stages.len());
        if ctx.faults.device_lost() {
            for info in suite.probe_infos() {
                let not_run = self.not_run(suite, &info);
                self.doc.results.push(not_run);
            }
        } else {
            let mut probes = suite.probes(ctx, self.session.plan.options()).await;
            if self.session.runner.stop_requested() {
                // A probe cut short reads a stop as the device refusing: keep only what
                // finished, as for a benchmark in flight.
                return Ok(Flow::Stop);
            }
            stamp_hints(suite, &mut probes);
            // A probe that failed as the device was lost has said so, as a benchmark does.
            self.loss_reported |=
                ctx.faults.device_lost() && probes.iter().any(|r| r.status == Status::Failed);
            self.doc.results.extend(probes);
            self.sink.save(&self.doc)?;
        }
        for stage in stages {
            if self.session.runner.stop_requested() {
                return Ok(Flow::Stop);
            }
            let options = self.session.plan.options();
            let tuner = &mut self.session.tuner;
            let mut benches = stage(&mut BuildContext {
                ctx,
                options,
                tuner,
            })
            .await;
            self.sink.planned(benches.len());
            let total = self.index + benches.len();
            for bench in &mut benches {
                if self.run_one(suite, bench.as_mut(), total).await? == Flow::Stop {
                    return Ok(Flow::Stop);
                }
            }
        }
        let (earlier, measured) = self.doc.results.split_at(first_of_suite);
        let mut derived = suite.derive(measured, earlier);
        stamp_hints(suite, &mut derived);
        self.doc.results.extend(derived);
        self.sink.save(&self.doc)?;
        Ok(Flow::Next)
    }

    /// The result of a benchmark (or probe) the lost device stopped: everything measured is
    /// kept and what was not run says why. A loss no result has reported (during autotuning, a
    /// probe or the noise check) fails the first benchmark it stops, so the run says it failed,
    /// and why.
    fn not_run(&mut self, suite: &dyn Suite, info: &BenchmarkInfo) -> BenchResult {
        let mut not_run = if self.loss_reported {
            let reason = "not run: the device was lost earlier in this run".to_string();
            BenchResult::empty(info, Status::Skipped, Some(reason))
        } else {
            let reason = format!(
                "the device was lost before this benchmark ran (while autotuning, probing or measuring the noise reference): {}",
                self.session.ctx.faults.lost_reason()
            );
            BenchResult::empty(info, Status::Failed, Some(reason))
        };
        self.loss_reported = true;
        stamp_hints(suite, std::slice::from_mut(&mut not_run));
        not_run
    }

    /// Measures one benchmark and keeps its result; after a device loss, records it as not run.
    async fn run_one(
        &mut self,
        suite: &dyn Suite,
        bench: &mut dyn Benchmark,
        total: usize,
    ) -> Result<Flow, SessionError> {
        let runner = &self.session.runner;
        if runner.stop_requested() {
            return Ok(Flow::Stop);
        }
        if self.session.ctx.faults.device_lost() {
            let not_run = self.not_run(suite, bench.info());
            self.doc.results.push(not_run);
            return Ok(Flow::Next);
        }
        self.sink.started(self.index, total, bench.info());
        self.index += 1;
        let ctx = self.session.ctx;
        let pipelines = ctx.pipelines_built();
        let started = web_time::Instant::now();
        let mut result = runner.run(bench, &mut *self.sink).await;
        // The whole benchmark's time, set-up and verification included: what a time budget for
        // a run is made of (the timed samples are a fraction of it on a large card).
        let wall_s = started.elapsed().as_secs_f64();
        result.extra.insert(WALL_S.into(), wall_s.into());
        gpu::record_shader_checks(ctx, &mut result, pipelines);
        if runner.stop_requested() {
            // The benchmark in flight was cut short: keep only what finished.
            return Ok(Flow::Stop);
        }
        suite.annotate(&mut result, &self.doc);
        stamp_hints(suite, std::slice::from_mut(&mut result));
        if let Some(hook) = runner.telemetry() {
            hook.annotate(&mut result);
        }
        // A result that failed as the device was lost has said so.
        self.loss_reported |= ctx.faults.device_lost() && result.status == Status::Failed;
        self.doc.results.push(result);
        self.sink.save(&self.doc)?;
        Ok(Flow::Next)
    }
}
