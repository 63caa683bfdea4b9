//! Drives a [`RunPlan`] on one adapter: each suite in turn plans its stages, runs its probes,
//! builds each stage's benchmarks when its turn comes (matmul autotunes one product per stage),
//! has every benchmark measured by the harness's runner, annotates each result and derives its
//! own; the injected faults run last. The document goes
//! to the caller's [`RunSink`] after every change worth keeping, so an interrupted or crashed
//! run leaves every finished result on disk.
//!
//! A stop request (a signal) ends the run between samples; the benchmark in flight is dropped
//! and the document is returned incomplete. After a device loss nothing more can run: the
//! remaining benchmarks are recorded as skipped, with the reason, and everything measured is
//! kept.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gpubench_harness::TelemetryHook;
use gpubench_harness::runner::{RunObserver, Silent, run_warnings};
use gpubench_harness::{
    BenchResult, Benchmark, GpuContext, Profile, RunDocument, RunSettings, Runner, Status,
};
use gpubench_results::schema::ToolInfo;

use crate::faults::SelfTestSuite;
use crate::gpu;
use crate::noise_check::NoiseCheck;
use crate::plan::RunPlan;
use crate::{BuildContext, PlanError, Stage, Suite, Tuner};

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
    pub fn run(
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
        self.start_noise_check(&mut doc);
        let mut driver = RunLoop {
            session: self,
            sink,
            doc,
            index: 0,
        };
        for step in driver.session.steps() {
            if driver.session.runner.stop_requested() || driver.run_suite(step)? == Flow::Stop {
                break;
            }
        }
        let RunLoop {
            session,
            sink,
            mut doc,
            ..
        } = driver;
        session.end_noise_check(&mut doc);
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
    fn start_noise_check(&self, doc: &mut RunDocument) {
        let Some(check) = &self.noise else {
            return;
        };
        let mut noise = check.record();
        match check.measure() {
            Ok(summary) => noise.start = Some(summary),
            Err(reason) => noise.note(format!("start: {reason}")),
        }
        doc.noise = Some(noise);
    }

    /// Measures the noise reference after the last suite, unless the run was stopped or lost
    /// its device, and works out the run's noise level.
    fn end_noise_check(&self, doc: &mut RunDocument) {
        let (Some(check), Some(noise)) = (&self.noise, doc.noise.as_mut()) else {
            return;
        };
        let end = if self.runner.stop_requested() {
            Err("end: not measured, the run was stopped".to_string())
        } else if self.ctx.faults.device_lost() {
            Err("end: not measured, the device was lost".to_string())
        } else {
            check.measure().map_err(|reason| format!("end: {reason}"))
        };
        noise.finish(end);
    }

    /// The plan's suites, then the injected faults under the self-test suite.
    fn steps(&self) -> Vec<Step> {
        let mut steps: Vec<Step> = self
            .plan
            .suites()
            .iter()
            .map(|entry| Step {
                suite: (entry.build)(),
                prebuilt: None,
            })
            .collect();
        if !self.plan.faults().is_empty() {
            let seed = self.plan.options().seed;
            steps.push(Step {
                suite: Box::new(SelfTestSuite),
                prebuilt: Some(
                    self.plan
                        .faults()
                        .iter()
                        .map(|f| f.benchmark(seed))
                        .collect(),
                ),
            });
        }
        steps
    }
}

/// A suite and, for injected faults, the benchmarks it runs. Other suites build theirs stage by
/// stage when their turn comes (matmul autotunes a product per stage), so earlier results are
/// saved first and a stop during tuning ends the run keeping every finished product.
struct Step {
    suite: Box<dyn Suite>,
    prebuilt: Option<Vec<Box<dyn Benchmark>>>,
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
}

impl RunLoop<'_, '_> {
    /// Plans, probes, builds stage by stage, measures and derives one suite.
    fn run_suite(&mut self, step: Step) -> Result<Flow, SessionError> {
        let Step { suite, prebuilt } = step;
        let first_of_suite = self.doc.results.len();
        let ctx = self.session.ctx;
        let stages = match prebuilt {
            Some(benches) => {
                let stage: Stage = Box::new(move |_| benches);
                vec![stage]
            }
            None => {
                self.sink.preparing(suite.name());
                let options = self.session.plan.options();
                let tuner = &mut self.session.tuner;
                let stages = suite.stages(&mut BuildContext {
                    ctx,
                    options,
                    tuner,
                })?;
                self.sink.stages(stages.len());
                stages
            }
        };
        if !ctx.faults.device_lost() {
            let probes = suite.probes(ctx, self.session.plan.options());
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
            });
            self.sink.planned(benches.len());
            let total = self.index + benches.len();
            for bench in &mut benches {
                if self.run_one(suite.as_ref(), bench.as_mut(), total)? == Flow::Stop {
                    return Ok(Flow::Stop);
                }
            }
        }
        let (earlier, measured) = self.doc.results.split_at(first_of_suite);
        let derived = suite.derive(measured, earlier);
        self.doc.results.extend(derived);
        self.sink.save(&self.doc)?;
        Ok(Flow::Next)
    }

    /// Measures one benchmark and keeps its result; after a device loss, records it as not run.
    fn run_one(
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
            // Stop cleanly: record what was not run and why, keep everything measured.
            let reason = "not run: the device was lost earlier in this run".to_string();
            let skipped = BenchResult::empty(bench.info(), Status::Skipped, Some(reason));
            self.doc.results.push(skipped);
            return Ok(Flow::Next);
        }
        self.sink.started(self.index, total, bench.info());
        self.index += 1;
        let ctx = self.session.ctx;
        let pipelines = ctx.pipelines_built();
        let mut result = runner.run(bench, &mut *self.sink);
        gpu::record_shader_checks(ctx, &mut result, pipelines);
        if runner.stop_requested() {
            // The benchmark in flight was cut short: keep only what finished.
            return Ok(Flow::Stop);
        }
        suite.annotate(&mut result);
        if let Some(hook) = runner.telemetry() {
            hook.annotate(&mut result);
        }
        self.doc.results.push(result);
        self.sink.save(&self.doc)?;
        Ok(Flow::Next)
    }
}

/// Measures autotuning candidates with the quick profile's settings, capped short, so even
/// tuning is timed by the harness's runner.
pub struct ShortRunTuner<'a> {
    runner: Runner<'a>,
}

impl<'a> ShortRunTuner<'a> {
    /// A tuner on `ctx` for a run of `profile` (quick runs tune shorter); `stop` ends tuning
    /// between samples.
    pub fn new(ctx: &'a GpuContext, profile: Profile, stop: Arc<AtomicBool>) -> Self {
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
    /// Once a stop is requested, every further candidate is skipped without its set-up (the
    /// shader compile and verification are what make each one take a while), so an autotune
    /// loop of any suite ends within one candidate of the signal.
    fn measure(&mut self, bench: &mut dyn Benchmark) -> BenchResult {
        if self.runner.stop_requested() {
            let reason = "not run: a stop was requested during autotuning".to_string();
            return BenchResult::empty(bench.info(), Status::Skipped, Some(reason));
        }
        self.runner.run(bench, &mut Silent)
    }

    /// Screens at `bound`, never below the tuner's own time cap: a candidate that fits in
    /// the cap is always sampled in full.
    fn measure_within(
        &mut self,
        bench: &mut dyn Benchmark,
        bound: Option<Duration>,
    ) -> BenchResult {
        let cap = self.runner.settings().max_time;
        self.runner.set_screen(bound.map(|b| b.max(cap)));
        let result = self.measure(bench);
        self.runner.set_screen(None);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SuiteOptions;
    use crate::noise_check::SAMPLES;
    use crate::plan::SampleOverrides;

    /// Remembers how many results each save held, and how many benchmarks started.
    #[derive(Default)]
    struct Recorder {
        saves: Vec<usize>,
        started: usize,
        planned: usize,
    }

    impl RunObserver for Recorder {
        fn started(
            &mut self,
            _index: usize,
            _total: usize,
            _info: &gpubench_harness::BenchmarkInfo,
        ) {
            self.started += 1;
        }
    }

    impl RunSink for Recorder {
        fn save(&mut self, doc: &RunDocument) -> Result<(), gpubench_results::ResultsError> {
            self.saves.push(doc.results.len());
            Ok(())
        }

        fn planned(&mut self, count: usize) {
            self.planned += count;
        }
    }

    fn tool() -> ToolInfo {
        ToolInfo {
            name: "gpubench".to_string(),
            version: "test".to_string(),
            git_commit: None,
        }
    }

    fn tiny_stream_plan() -> RunPlan {
        let mut options = SuiteOptions::new(Profile::Quick);
        options.stream_size = Some(64 * 1024);
        let sampling = SampleOverrides {
            samples: Some(2),
            sample_ms: Some(2.0),
            max_time: Some(0.2),
        };
        RunPlan::new(&["stream"], options)
            .expect("plan")
            .with_sampling(sampling)
            .expect("sampling")
    }

    /// Runs the tiny stream plan on lavapipe, with a stop requested from the start when
    /// `stopped`; `None` where GPU tests are skipped.
    fn run_tiny_stream(stopped: bool) -> Option<(RunDocument, Recorder)> {
        let ctx = gpubench_harness::testing::require_vulkan()?;
        let plan = tiny_stream_plan();
        let mut sink = Recorder::default();
        let stop = Arc::new(AtomicBool::new(stopped));
        let doc = Session::new(&ctx, &plan, stop)
            .run(tool(), &mut sink)
            .expect("runs");
        Some((doc, sink))
    }

    #[test]
    fn a_tiny_plan_runs_and_is_saved_after_every_result() {
        let Some((doc, sink)) = run_tiny_stream(false) else {
            return;
        };
        assert!(doc.complete);
        assert_eq!(
            doc.results.len(),
            8,
            "six kernels, copy engine, host memcpy"
        );
        assert_eq!(sink.started, 8);
        assert_eq!(sink.planned, 8);
        assert!(doc.results.iter().all(|r| r.status == Status::Ok));
        // A save with 0 results first, then one with each new result, then the end.
        for count in 0..=doc.results.len() {
            assert!(
                sink.saves.contains(&count),
                "no save with {count} results: {:?}",
                sink.saves
            );
        }
        assert!(
            sink.saves.windows(2).all(|w| w[0] <= w[1]),
            "{:?}",
            sink.saves
        );
        assert_eq!(sink.saves.last(), Some(&doc.results.len()));
        assert_eq!(doc.config.suites, ["stream"]);
        assert_eq!(doc.config.options["stream_size"], 65536);
        assert_eq!(doc.config.settings.min_samples, 2);
        // The reference is measured with its own settings, not the plan's two samples.
        let noise = doc.noise.expect("noise measured");
        let counts = [&noise.start, &noise.end].map(|s| s.as_ref().map(|s| s.n));
        assert_eq!(counts, [Some(SAMPLES); 2], "{noise:?}");
        assert!(noise.level.is_some_and(|l| l.is_finite() && l >= 0.0));
    }

    /// Counts the candidates that got as far as their set-up.
    struct CountingBench {
        info: gpubench_harness::BenchmarkInfo,
        setups: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Benchmark for CountingBench {
        fn info(&self) -> &gpubench_harness::BenchmarkInfo {
            &self.info
        }

        fn setup(&mut self, _ctx: &GpuContext) -> gpubench_harness::Outcome {
            self.setups
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Err(gpubench_harness::BenchError::Setup("counted".into()))
        }

        fn work(&self) -> gpubench_harness::Work {
            gpubench_harness::Work::ops(1)
        }

        fn run(
            &mut self,
            _clock: &mut gpubench_harness::SampleClock<'_>,
        ) -> gpubench_harness::Outcome {
            Ok(())
        }

        fn verify(
            &mut self,
            _ctx: &GpuContext,
        ) -> gpubench_harness::Outcome<gpubench_harness::Verification> {
            Err(gpubench_harness::BenchError::Setup("never set up".into()))
        }
    }

    #[test]
    fn a_stop_skips_every_further_autotuning_candidate_without_its_set_up() {
        let Some(ctx) = gpubench_harness::testing::require_vulkan() else {
            return;
        };
        let stop = Arc::new(AtomicBool::new(false));
        let mut tuner = ShortRunTuner::new(&ctx, Profile::Quick, Arc::clone(&stop));
        let setups = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut bench = CountingBench {
            info: gpubench_harness::BenchmarkInfo::new(
                "selftest/candidate",
                "selftest",
                gpubench_harness::MetricKind::Throughput,
                "a candidate",
            ),
            setups: Arc::clone(&setups),
        };
        tuner.measure(&mut bench);
        assert_eq!(setups.load(std::sync::atomic::Ordering::SeqCst), 1);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let result = tuner.measure(&mut bench);
        assert_eq!(result.status, Status::Skipped);
        assert_eq!(
            setups.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "not set up"
        );
    }

    /// A suite in three stages: the tiny stream benchmarks, then a stage that requests a stop
    /// (as a signal during a product's tuning would), then one that must never be built.
    struct Staged {
        stop: Arc<AtomicBool>,
        built: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Suite for Staged {
        fn name(&self) -> &'static str {
            "stream"
        }

        fn benchmarks(&self, _build: &mut BuildContext<'_>) -> crate::Benchmarks {
            Ok(Vec::new())
        }

        fn stages(&self, _build: &mut BuildContext<'_>) -> crate::Stages {
            let counted = |built: &Arc<std::sync::atomic::AtomicUsize>| {
                built.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            };
            let (built1, built2, built3) = (
                Arc::clone(&self.built),
                Arc::clone(&self.built),
                Arc::clone(&self.built),
            );
            let stop = Arc::clone(&self.stop);
            let first: Stage = Box::new(move |build: &mut BuildContext<'_>| {
                counted(&built1);
                crate::stream::StreamSuite
                    .benchmarks(build)
                    .expect("the stream suite builds")
            });
            let second: Stage = Box::new(move |_: &mut BuildContext<'_>| {
                counted(&built2);
                stop.store(true, std::sync::atomic::Ordering::SeqCst);
                Vec::new()
            });
            let third: Stage = Box::new(move |_: &mut BuildContext<'_>| {
                counted(&built3);
                Vec::new()
            });
            Ok(vec![first, second, third])
        }
    }

    #[test]
    fn a_stop_in_a_later_stage_keeps_every_earlier_stage_and_builds_no_more() {
        let Some(ctx) = gpubench_harness::testing::require_vulkan() else {
            return;
        };
        let plan = tiny_stream_plan();
        let stop = Arc::new(AtomicBool::new(false));
        let mut session = Session::new(&ctx, &plan, Arc::clone(&stop));
        let config = plan
            .config(session.settings().clone())
            .expect("the config records");
        let doc = RunDocument::start(tool(), ctx.machine_info(), config, Vec::new());
        let mut sink = Recorder::default();
        let built = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut driver = RunLoop {
            session: &mut session,
            sink: &mut sink,
            doc,
            index: 0,
        };
        let step = Step {
            suite: Box::new(Staged {
                stop,
                built: Arc::clone(&built),
            }),
            prebuilt: None,
        };
        let flow = driver.run_suite(step).expect("runs");
        assert_eq!(flow, Flow::Stop);
        assert_eq!(
            built.load(std::sync::atomic::Ordering::SeqCst),
            2,
            "the stage after the stop is never built"
        );
        assert_eq!(
            driver.doc.results.len(),
            8,
            "the first stage's results are kept"
        );
        assert!(driver.doc.results.iter().all(|r| r.status == Status::Ok));
        assert_eq!(sink.planned, 8);
        assert_eq!(sink.saves.last(), Some(&8), "saved after the last result");
    }

    /// Clears a small buffer and sleeps on the host before the completion is awaited: a
    /// candidate as slow as asked.
    struct Sleepy {
        info: gpubench_harness::BenchmarkInfo,
        sleep: Duration,
        buffer: Option<wgpu::Buffer>,
    }

    impl Sleepy {
        fn new(sleep: Duration) -> Self {
            Self {
                info: gpubench_harness::BenchmarkInfo::new(
                    "selftest/sleepy",
                    "selftest",
                    gpubench_harness::MetricKind::Bandwidth,
                    "bytes cleared",
                ),
                sleep,
                buffer: None,
            }
        }
    }

    impl Benchmark for Sleepy {
        fn info(&self) -> &gpubench_harness::BenchmarkInfo {
            &self.info
        }

        fn setup(&mut self, ctx: &GpuContext) -> gpubench_harness::Outcome {
            self.buffer = Some(ctx.buffer("sleepy", 256, wgpu::BufferUsages::COPY_DST));
            Ok(())
        }

        fn work(&self) -> gpubench_harness::Work {
            gpubench_harness::Work::bytes(0, 256)
        }

        fn run(
            &mut self,
            clock: &mut gpubench_harness::SampleClock<'_>,
        ) -> gpubench_harness::Outcome {
            let ctx = clock.ctx();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            if let Some(buffer) = &self.buffer {
                encoder.clear_buffer(buffer, 0, None);
            }
            clock.submit([encoder.finish()]);
            // The host clock runs from the submit until completion is seen, after this.
            std::thread::sleep(self.sleep);
            Ok(())
        }

        fn verify(
            &mut self,
            _ctx: &GpuContext,
        ) -> gpubench_harness::Outcome<gpubench_harness::Verification> {
            Ok(gpubench_harness::Verification {
                checked: 1,
                mismatches: 0,
                first_mismatches: Vec::new(),
            })
        }
    }

    #[test]
    fn a_candidate_slower_than_the_bound_keeps_its_first_run_and_a_fast_one_is_sampled() {
        let Some(ctx) = gpubench_harness::testing::require_vulkan() else {
            return;
        };
        let stop = Arc::new(AtomicBool::new(false));
        let mut tuner = ShortRunTuner::new(&ctx, Profile::Quick, stop);
        // The quick tuner's cap is 200 ms: a bound below it is raised to it.
        let slow = tuner.measure_within(
            &mut Sleepy::new(Duration::from_millis(250)),
            Some(Duration::from_millis(1)),
        );
        assert_eq!(slow.status, Status::Ok, "{:?}", slow.reason);
        assert!(slow.verified);
        assert_eq!(slow.samples.len(), 1, "only the verified first run");
        let why = slow.params["screened"].as_str().expect("says why");
        assert!(why.contains("over the bound of 0.200 s"), "{why}");
        let fast = tuner.measure_within(
            &mut Sleepy::new(Duration::ZERO),
            Some(Duration::from_millis(1)),
        );
        assert!(!fast.params.contains_key("screened"));
        assert!(fast.samples.len() >= 2, "{}", fast.samples.len());
        let unbounded = tuner.measure(&mut Sleepy::new(Duration::from_millis(1)));
        assert!(!unbounded.params.contains_key("screened"));
    }

    #[test]
    fn a_stop_before_the_start_runs_nothing_and_leaves_the_run_incomplete() {
        let Some((doc, sink)) = run_tiny_stream(true) else {
            return;
        };
        assert!(!doc.complete);
        assert!(doc.results.is_empty());
        assert_eq!(sink.started, 0);
        assert_eq!(sink.saves, [0, 0], "saved at the start and at the stop");
        let noise = doc
            .noise
            .expect("the noise record says why it has no checks");
        assert!(noise.start.is_none() && noise.end.is_none() && noise.level.is_none());
        let reason = noise.reason.unwrap_or_default();
        assert!(
            reason.contains("start: a stop was requested")
                && reason.contains("end: not measured, the run was stopped"),
            "{reason}"
        );
    }
}
