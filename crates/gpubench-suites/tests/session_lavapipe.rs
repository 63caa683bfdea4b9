//! The engine's session driving real suites on the software adapter: every result saved as it
//! lands, a stop between stages keeping every finished one, tuning cut short by a stop.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gpubench_engine::noise_check::SAMPLES;
use gpubench_engine::plan::{RunPlan, SampleOverrides};
use gpubench_engine::session::{RunSink, Session};
use gpubench_engine::tuner::ShortRunTuner;
use gpubench_engine::{BuildContext, Stage, Suite, SuiteInfo, SuiteOptions, Tuner};
use gpubench_harness::kit::fma::PeakForm;
use gpubench_harness::kit::gpu::ShaderChecks;
use gpubench_harness::runner::RunObserver;
use gpubench_harness::testing::assert_ok;
use gpubench_harness::{
    GpuContext, Kernel, KernelBench, LocalFuture, MetricKind, Profile, RunDocument, Status,
};
use gpubench_results::schema::ToolInfo;
use pollster::FutureExt as _;

/// Remembers how many results each save held, the last document saved, and how many
/// benchmarks started.
#[derive(Default)]
struct Recorder {
    saves: Vec<usize>,
    last: Option<RunDocument>,
    started: usize,
    planned: usize,
}

impl RunObserver for Recorder {
    fn started(&mut self, _index: usize, _total: usize, _info: &gpubench_harness::BenchmarkInfo) {
        self.started += 1;
    }
}

impl RunSink for Recorder {
    fn save(&mut self, doc: &RunDocument) -> Result<(), gpubench_results::ResultsError> {
        self.saves.push(doc.results.len());
        self.last = Some(doc.clone());
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

/// A plan of `suites` with `options` and two samples of 2 ms each.
fn tiny_plan(suites: &[&str], options: SuiteOptions) -> RunPlan {
    let sampling = SampleOverrides {
        samples: Some(2),
        sample_ms: Some(2.0),
        max_time: Some(0.2),
    };
    RunPlan::new(&gpubench_suites::REGISTRY, suites, options)
        .expect("plan")
        .with_sampling(sampling)
        .expect("sampling")
}

fn tiny_stream_plan() -> RunPlan {
    let mut options = SuiteOptions::new(Profile::Quick);
    options.set("stream_size", 64 * 1024);
    tiny_plan(&["stream"], options)
}

/// Runs `plan` on `ctx` in a session, with a stop requested from the start when `stopped`:
/// the document and what the sink recorded.
fn run_recorded(ctx: &GpuContext, plan: &RunPlan, stopped: bool) -> (RunDocument, Recorder) {
    let mut sink = Recorder::default();
    let stop = Arc::new(AtomicBool::new(stopped));
    let doc = Session::new(ctx, plan, stop)
        .run(tool(), &mut sink)
        .block_on()
        .expect("the session runs");
    (doc, sink)
}

/// Runs the tiny stream plan on lavapipe, with a stop requested from the start when
/// `stopped`; `None` where GPU tests are skipped.
fn run_tiny_stream(stopped: bool) -> Option<(RunDocument, Recorder)> {
    let ctx = gpubench_harness::testing::require_vulkan()?;
    Some(run_recorded(&ctx, &tiny_stream_plan(), stopped))
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

/// Counts the candidates that got as far as their set-up, where each fails.
struct CountingBench {
    setups: Arc<std::sync::atomic::AtomicUsize>,
}

/// A test benchmark's info: `selftest/NAME`, of `metric`, counting `counts`.
fn test_bench(name: &str, metric: MetricKind, counts: &str) -> gpubench_harness::BenchmarkInfo {
    gpubench_harness::BenchmarkInfo::new(format!("selftest/{name}"), "selftest", metric, counts)
}

impl Kernel for CountingBench {
    type State = ();

    fn info(&self) -> gpubench_harness::BenchmarkInfo {
        test_bench("candidate", MetricKind::Throughput, "a candidate")
    }

    async fn setup(&self, _ctx: &GpuContext) -> gpubench_harness::Outcome<()> {
        self.setups
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Err(gpubench_harness::BenchError::Setup("counted".into()))
    }

    fn work(&self, _state: &()) -> gpubench_harness::Work {
        gpubench_harness::Work::ops(1)
    }

    async fn run(
        &self,
        _state: &mut (),
        _clock: &mut gpubench_harness::SampleClock<'_>,
    ) -> gpubench_harness::Outcome {
        Ok(())
    }

    async fn verify(
        &self,
        _state: &mut (),
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
    let mut bench = KernelBench::new(CountingBench {
        setups: Arc::clone(&setups),
    });
    tuner.measure(&mut bench).block_on();
    assert_eq!(setups.load(std::sync::atomic::Ordering::SeqCst), 1);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let result = tuner.measure(&mut bench).block_on();
    assert_eq!(result.status, Status::Skipped);
    assert_eq!(
        setups.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "not set up"
    );
}

/// The stop flag the staged suite's second stage sets, and how many stages it built.
static STAGED_STOP: std::sync::LazyLock<Arc<AtomicBool>> =
    std::sync::LazyLock::new(|| Arc::new(AtomicBool::new(false)));
static STAGED_BUILT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A suite in three stages: the tiny stream benchmarks, then a stage that requests a stop
/// (as a signal during a product's tuning would), then one that must never be built.
struct Staged;

fn counted() {
    STAGED_BUILT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

impl Suite for Staged {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new(
            "staged",
            "the stream kernels, then a stop, then a stage never built",
        )
        .included(gpubench_engine::Included::WhenNamed)
        .options(gpubench_suites::stream::StreamSuite.options())
    }

    fn benchmarks<'a>(
        &'a self,
        _build: &'a mut BuildContext<'_>,
    ) -> LocalFuture<'a, gpubench_engine::Benchmarks> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn stages<'a>(
        &'a self,
        _build: &'a mut BuildContext<'_>,
    ) -> LocalFuture<'a, gpubench_engine::Stages> {
        let first: Stage = Box::new(|build| {
            Box::pin(async move {
                counted();
                gpubench_suites::stream::StreamSuite
                    .benchmarks(build)
                    .await
                    .expect("the stream suite builds")
            })
        });
        let second: Stage = Box::new(|_| {
            Box::pin(async {
                counted();
                STAGED_STOP.store(true, std::sync::atomic::Ordering::SeqCst);
                Vec::new()
            })
        });
        let third: Stage = Box::new(|_| {
            Box::pin(async {
                counted();
                Vec::new()
            })
        });
        Box::pin(async { Ok(vec![first, second, third]) })
    }
}

#[test]
fn a_stop_in_a_later_stage_keeps_every_earlier_stage_and_builds_no_more() {
    let Some(ctx) = gpubench_harness::testing::require_vulkan() else {
        return;
    };
    let registry: &'static gpubench_engine::Registry = Box::leak(Box::new(
        gpubench_engine::Registry::new(&[|| Box::new(Staged)]).expect("a registry"),
    ));
    let sampling = SampleOverrides {
        samples: Some(2),
        sample_ms: Some(2.0),
        max_time: Some(0.2),
    };
    let options = SuiteOptions::new(Profile::Quick).with("stream_size", 64 * 1024);
    let plan = RunPlan::new(registry, &["staged"], options)
        .expect("plan")
        .with_sampling(sampling)
        .expect("sampling")
        .with_noise_check(false);
    let mut session = Session::new(&ctx, &plan, Arc::clone(&STAGED_STOP));
    let mut sink = Recorder::default();
    let doc = session.run(tool(), &mut sink).block_on().expect("runs");
    assert_eq!(
        STAGED_BUILT.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "the stage after the stop is never built"
    );
    assert!(!doc.complete, "a stopped run is incomplete");
    assert_eq!(doc.results.len(), 8, "the first stage's results are kept");
    assert!(doc.results.iter().all(|r| r.status == Status::Ok));
    assert_eq!(sink.planned, 8);
    assert_eq!(sink.saves.last(), Some(&8), "saved after the last result");
}

/// Clears a small buffer and sleeps on the host before the completion is awaited: a
/// candidate as slow as asked.
struct Sleepy {
    sleep: Duration,
}

impl Sleepy {
    /// The candidate that sleeps for `sleep`, ready for a tuner.
    fn bench(sleep: Duration) -> KernelBench<Sleepy> {
        KernelBench::new(Sleepy { sleep })
    }
}

impl Kernel for Sleepy {
    /// The buffer each iteration clears.
    type State = wgpu::Buffer;

    fn info(&self) -> gpubench_harness::BenchmarkInfo {
        test_bench("sleepy", MetricKind::Bandwidth, "bytes cleared")
    }

    async fn setup(&self, ctx: &GpuContext) -> gpubench_harness::Outcome<wgpu::Buffer> {
        Ok(ctx.buffer("sleepy", 256, wgpu::BufferUsages::COPY_DST))
    }

    fn work(&self, _buffer: &wgpu::Buffer) -> gpubench_harness::Work {
        gpubench_harness::Work::bytes(0, 256)
    }

    async fn run(
        &self,
        buffer: &mut wgpu::Buffer,
        clock: &mut gpubench_harness::SampleClock<'_>,
    ) -> gpubench_harness::Outcome {
        let ctx = clock.ctx();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(buffer, 0, None);
        clock.submit([encoder.finish()]);
        // The host clock runs from the submit until completion is seen, after this.
        std::thread::sleep(self.sleep);
        Ok(())
    }

    async fn verify(
        &self,
        _buffer: &mut wgpu::Buffer,
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
    let slow = tuner
        .measure_within(
            &mut Sleepy::bench(Duration::from_millis(250)),
            Some(Duration::from_millis(1)),
        )
        .block_on();
    assert_eq!(slow.status, Status::Ok, "{:?}", slow.reason);
    assert!(slow.verified);
    assert_eq!(slow.samples.len(), 1, "only the verified first run");
    let why = slow.params["screened"].as_str().expect("says why");
    assert!(why.contains("over the bound of 0.200 s"), "{why}");
    let fast = tuner
        .measure_within(
            &mut Sleepy::bench(Duration::ZERO),
            Some(Duration::from_millis(1)),
        )
        .block_on();
    assert!(!fast.params.contains_key("screened"));
    assert!(fast.samples.len() >= 2, "{}", fast.samples.len());
    let unbounded = tuner
        .measure(&mut Sleepy::bench(Duration::from_millis(1)))
        .block_on();
    assert!(!unbounded.params.contains_key("screened"));
}

/// A Vulkan context whose device is lost before anything runs.
fn lost_vulkan() -> Option<GpuContext> {
    let ctx = gpubench_harness::testing::require_vulkan()?;
    ctx.device.destroy();
    let _ = ctx.device.poll(wgpu::PollType::Poll);
    assert!(ctx.faults.device_lost(), "the loss was seen");
    Some(ctx)
}

/// A device lost where no benchmark reports it (here before the run; in a run, while a suite
/// autotunes or probes) fails the first benchmark it stops, saying so: the run fails, exit 4,
/// never an exit 0 of skipped rows.
#[test]
fn a_loss_no_benchmark_reported_fails_the_first_one_it_stops() {
    let Some(ctx) = lost_vulkan() else {
        return;
    };
    let (doc, _) = run_recorded(&ctx, &tiny_stream_plan(), false);
    let (first, rest) = doc.results.split_first().expect("results recorded");
    assert_eq!(first.status, Status::Failed, "{:?}", first.reason);
    let reason = first.reason.clone().unwrap_or_default();
    assert!(
        reason.contains("the device was lost before this benchmark ran")
            && reason.contains("device lost"),
        "{reason}"
    );
    assert!(
        !rest.is_empty() && rest.iter().all(|r| r.status == Status::Skipped),
        "{rest:?}"
    );
    assert!(doc.has_failures());
}

/// Probes a lost device stops are recorded as not run, as benchmarks are: every row of the
/// run has a status and a reason, none is left out.
#[test]
fn probes_a_lost_device_stops_are_recorded_as_not_run() {
    let Some(ctx) = lost_vulkan() else {
        return;
    };
    let mut options = SuiteOptions::new(Profile::Quick);
    options.set("stream_size", 64 * 1024);
    let (doc, _) = run_recorded(&ctx, &tiny_plan(&["capacity", "stream"], options), false);
    let (first, rest) = doc.results.split_first().expect("results recorded");
    assert_eq!(first.status, Status::Failed, "{:?}", first.reason);
    let probes: Vec<_> = rest.iter().filter(|r| r.suite == "capacity").collect();
    let ids: Vec<&str> = probes.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        ["capacity/max-single-buffer", "capacity/total-allocation"]
    );
    for probe in probes {
        assert_eq!(probe.status, Status::Skipped);
        assert_eq!(
            probe.reason.as_deref(),
            Some("not run: the device was lost earlier in this run")
        );
    }
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

#[test]
fn a_session_records_the_shader_checks_in_every_compute_result() {
    let Some(ctx) = gpubench_harness::testing::require_vulkan() else {
        return;
    };
    let mut options = SuiteOptions::new(Profile::Quick);
    options.shader_checks = ShaderChecks::Off;
    let (doc, sink) = run_recorded(&ctx, &tiny_plan(&["compute"], options), false);
    assert_eq!(
        sink.last.as_ref(),
        Some(&doc),
        "the last save is the document"
    );
    assert_eq!(doc.config.options["shader_checks"], "off");
    let forms = PeakForm::ALL.len();
    assert!(doc.results.len() >= forms, "{} results", doc.results.len());
    for result in &doc.results {
        if result.status == Status::Skipped {
            continue; // f16 on an adapter without it
        }
        assert_ok(result);
        assert_eq!(result.params["shader_checks"], "off", "{}", result.id);
        assert!(result.params["grid_sizing"].is_string(), "{}", result.id);
    }
    assert!(
        doc.results
            .iter()
            .any(|r| r.id == "compute/fma-peak/vec2-f32")
    );
}
