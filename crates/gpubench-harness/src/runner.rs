//! The runner: the only code in gpubench that times anything.
//!
//! For each benchmark: check support, set up (inside error scopes), run once and verify against
//! the CPU reference, calibrate the iterations per sample, warm up, sample until the count and
//! the coefficient of variation are met or the time cap is reached, then summarise and warn.
//! The observer is called only between samples, never inside a timed region; so is the
//! telemetry hook, which starts before warm-up and stops after the last timed sample.
//!
//! The summary and its warnings (`summarise`, `warnings`) are pure functions of the samples,
//! so they are tested with synthetic timings, no adapter needed. One warning is a clock check:
//! on samples of at least [`CLOCK_CHECK_MIN_SAMPLE`], GPU time is compared with host time.
//! Only one direction is impossible for every measurement: the host clock starts before the
//! submit and stops after completion is seen, so GPU time above host time (by more than
//! [`CLOCK_AHEAD_TOLERANCE`]) means the timestamp period is wrong. GPU time below host time is
//! what host-side work, several submits, submit latency and wake-up latency produce (a round
//! trip spinning without yielding against lavapipe, whose device is the host's own CPU, measured 11.6 ms of host
//! time around 0.063 ms of GPU time), so it is flagged only for samples that were one submit
//! of a calibrated amount of work and nothing else (no latency probes), and only when GPU time
//! is under [`CLOCK_BEHIND_FRACTION`] of host time (a clock running slow, or stopping); samples
//! whose host clock stopped before completion (CPU costs) are not compared at all.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
// web-time's Instant is std's natively; std's panics on wasm32-unknown-unknown.
use std::time::Duration;
use web_time::Instant;

use crate::benchmark::Benchmark;
use crate::context::GpuContext;
use crate::error::BenchError;
use crate::host_clock::RESOLUTION_FACTOR;
use crate::item_trace::{self, ItemStage};
use crate::read_log;
use crate::telemetry_hook::TelemetryHook;
use crate::timing::{HostSpan, SampleClock, SampleTiming, TimestampQueries};
use gpubench_results::item_timeline::ItemTimeline;
use gpubench_results::level_shift::level_shift;
use gpubench_results::metric::{
    BenchmarkInfo, IterationPolicy, MetricKind, Outputs, TimingPreference, Work,
};
use gpubench_results::profile::RunSettings;
use gpubench_results::schema::{BenchResult, Status, TimingSource};
use gpubench_results::stats;
use gpubench_results::warnings::{FigureUnit, OwnedKind, Warning, WarningRecord};

/// Steps of its clock a calibrated sample spans at least, where the sample ceiling allows:
/// twice the bound under which a result is marked ([`RESOLUTION_FACTOR`]), since samples vary
/// about the calibrated length and a quantized clock rounds each one down by up to a step.
pub const CALIBRATION_STEPS: f64 = 2.0 * RESOLUTION_FACTOR;

/// What the runner is doing, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Creating buffers and pipelines.
    Setup,
    /// First run and comparison with the CPU reference.
    Verify,
    /// Choosing iterations per sample.
    Calibrate,
    /// Running untimed samples.
    WarmUp,
    /// Taking timed samples.
    Sample,
}

/// Receives progress. Every method has a no-op default.
pub trait RunObserver {
    /// A benchmark is about to start.
    fn started(&mut self, _index: usize, _total: usize, _info: &BenchmarkInfo) {}
    /// The runner entered a phase.
    fn phase(&mut self, _phase: Phase) {}
    /// A timed sample was recorded (`taken` of at most `max`).
    fn sampled(&mut self, _taken: usize, _max: usize) {}
    /// A benchmark finished with this result.
    fn finished(&mut self, _result: &BenchResult) {}
}

/// An observer that ignores everything.
pub struct Silent;

impl RunObserver for Silent {}

/// Runs benchmarks on one context with one set of settings.
pub struct Runner<'a> {
    ctx: &'a GpuContext,
    settings: RunSettings,
    queries: Option<TimestampQueries>,
    stop: Arc<AtomicBool>,
    telemetry: Option<Arc<dyn TelemetryHook>>,
    screen: Option<Duration>,
}

/// Why [`Runner::prepare`] gave no benchmark ready to time.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PrepareError {
    /// The adapter cannot run it (feature, limit, out of memory).
    #[error("skipped: {0}")]
    Skipped(String),
    /// Set-up, the first run or verification failed.
    #[error("failed: {0}")]
    Failed(String),
}

/// Why a benchmark stopped early.
enum Stop {
    Skip(String),
    Fail(String),
}

impl From<BenchError> for Stop {
    fn from(err: BenchError) -> Self {
        match err {
            BenchError::Unsupported(reason) => Stop::Skip(reason),
            other => Stop::Fail(other.to_string()),
        }
    }
}

/// The longest the warm-up goes on for a device the telemetry says is still at its idle clocks.
/// On an H200 the 1 GiB stream copy's whole region (0.25 s at 20 Hz readings) ran at the 345 MHz
/// idle clock, and the triad's rose to 1980 MHz within its region of under half a second of
/// back-to-back kernels; a second covers that with room.
pub const CLOCK_RAMP_CAP: Duration = Duration::from_secs(1);
/// Warm-up samples whose GPU time is at least this fraction of their host time keep the device
/// busy enough for its clock governor to raise the clock.
pub const BUSY_FRACTION: f64 = 0.5;

/// Whether a sample kept the device busy ([`BUSY_FRACTION`]); unknown GPU time counts as not.
fn keeps_device_busy(timing: &SampleTiming) -> bool {
    timing
        .gpu
        .is_some_and(|gpu| gpu.as_secs_f64() >= BUSY_FRACTION * timing.host.as_secs_f64())
}

/// How a benchmark warms up: which clock heads its samples, and the sample target to
/// recalibrate to once warm (`None` for a fixed iteration count).
#[derive(Debug, Clone, Copy)]
struct Warm {
    prefer_gpu: bool,
    recalibrate_to: Option<Duration>,
}

/// The most iterations one sample runs.
const MAX_ITERATIONS: u32 = 1 << 20;

/// Without telemetry to judge the clocks, warm-up goes on while each sample is faster than the
/// one [`RAMP_WINDOW`] before it by more than this fraction: a clock still rising. Noise alone
/// stops it within a window or two.
pub const RAMP_STEP: f64 = 0.02;

/// Whether `next` ran its iterations faster than `before` by more than [`RAMP_STEP`], by the
/// clock that heads the samples.
fn still_speeding_up(before: &SampleTiming, next: &SampleTiming, prefer_gpu: bool) -> bool {
    let (was, _) = headline(before, prefer_gpu);
    let (now, _) = headline(next, prefer_gpu);
    now < was * (1.0 - RAMP_STEP)
}

/// The least time between the two samples [`RampWatch`] compares. Sample to sample, a clock
/// rising steadily over 400 ms (an H200's 345 to 1980 MHz) gains under [`RAMP_STEP`] between
/// two 2 ms samples from about 20 ms on, at a fifth of its top clock: the short samples of the
/// noise check and the tuner read that as settled.
pub const RAMP_WINDOW: Duration = Duration::from_millis(50);

/// Without telemetry, whether the clock still rises: each sample at least [`RAMP_WINDOW`]
/// after the reference sample is compared with it ([`still_speeding_up`]) and becomes the
/// next reference.
struct RampWatch {
    reference: SampleTiming,
    taken_at: Duration,
}

impl RampWatch {
    /// A watch whose first reference is `sample`, taken at `taken_at` (time since any fixed
    /// start, as the later samples' are).
    fn new(sample: SampleTiming, taken_at: Duration) -> Self {
        Self {
            reference: sample,
            taken_at,
        }
    }

    /// Whether the clock still rises, judged by `next` taken at `at`: `None` within the
    /// window (sample on), else whether it beat the reference, which it then becomes.
    fn judge(&mut self, next: &SampleTiming, at: Duration, prefer_gpu: bool) -> Option<bool> {
        if at.saturating_sub(self.taken_at) < RAMP_WINDOW {
            return None;
        }
        let faster = still_speeding_up(&self.reference, next, prefer_gpu);
        self.reference = next.clone();
        self.taken_at = at;
        Some(faster)
    }
}

/// Warmed-up samples under this fraction of their target get more iterations.
pub const RECALIBRATE_BELOW: f64 = 0.8;

/// The iteration count to time with once warm: `iterations` (calibrated before the warm-up,
/// perhaps at idle clocks), or more where a warm sample of `seconds` ran under
/// [`RECALIBRATE_BELOW`] of `target`: an H200 triad calibrated at 1.8 TB/s and timed at
/// 4.4 TB/s ran samples of under half its target. Never more than the `ceiling` per sample
/// (one submit's watchdog-safe maximum) allows, nor over 16 times as many, nor fewer.
fn recalibrated(iterations: u32, seconds: f64, target: f64, ceiling: f64) -> u32 {
    if !(seconds > 0.0 && seconds < RECALIBRATE_BELOW * target) {
        return iterations;
    }
    iterations_toward(iterations, seconds, target, ceiling).max(iterations)
}

/// The iteration count whose sample would last `target`, from a sample of `iterations` that
/// lasted `seconds`: at most what keeps one sample under `ceiling` (a submit's watchdog-safe
/// maximum, and at least one), 16 times `iterations`, and [`MAX_ITERATIONS`].
fn iterations_toward(iterations: u32, seconds: f64, target: f64, ceiling: f64) -> u32 {
    let per_iteration = seconds / f64::from(iterations);
    let safe = (ceiling / per_iteration).floor().max(1.0);
    (target / per_iteration)
        .ceil()
        .min(safe)
        .min(f64::from(iterations) * 16.0)
        .min(f64::from(MAX_ITERATIONS)) as u32
}

/// The most `seconds` (a sample's headline time) may grow to while its one submit stays under
/// `max_sample`, the watchdog-safe maximum. A submit's length is what a watchdog sees, so where
/// the sample was one submit and nothing else it is judged by the longer of its two clocks:
/// timestamps that read slow (a wrong period, a counter that stops) cannot calibrate a submit
/// past the ceiling. Host time of other samples spans more than one submit and is not used.
fn watchdog_ceiling(timing: &SampleTiming, seconds: f64, max_sample: Duration) -> f64 {
    let ceiling = max_sample.as_secs_f64();
    let host = timing.host.as_secs_f64();
    if timing.host_span == HostSpan::OneSubmit && host > seconds && seconds > 0.0 {
        ceiling * seconds / host
    } else {
        ceiling
    }
}

/// Samples at least this long (host time) have their GPU time compared with their host time.
pub const CLOCK_CHECK_MIN_SAMPLE: Duration = Duration::from_millis(10);
/// GPU time may exceed host time by this fraction (timer granularity, rounding) before the
/// clocks are said to disagree.
pub const CLOCK_AHEAD_TOLERANCE: f64 = 0.05;
/// For samples that were one submit and nothing else, GPU time under this fraction of host time
/// is said to disagree: the rest would be over a submit's and a wake-up's latency many times.
pub const CLOCK_BEHIND_FRACTION: f64 = 0.5;

/// One sample's two clocks over the whole sample (not per iteration), for the clock check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockPair {
    /// Host time of the sample, seconds.
    pub host: f64,
    /// GPU time of the sample, seconds.
    pub gpu: f64,
    /// What the host time covers.
    pub span: HostSpan,
}

/// GPU time may exceed host time by this much (a browser's 100 us host step, the timestamps'
/// own step), plus the host clock's own step where that is coarser, besides
/// [`CLOCK_AHEAD_TOLERANCE`], before a sample of any length is said to be ahead.
pub const CLOCK_AHEAD_SLACK: Duration = Duration::from_micros(200);

/// The warning on a result of fewer samples than any 95% interval of the median needs (six),
/// where no time cap stopped it (the time cap's warning says the same): `--samples` asked for
/// fewer. Its interval is the samples' range; its figure is the chance that range holds the
/// median, in percent.
pub const FEW_SAMPLES: OwnedKind = OwnedKind::new(
    "few-samples",
    "interval under 95% coverage",
    FigureUnit::Percent,
)
.worst_at_lowest();

/// [`FEW_SAMPLES`] on `result` where its summary's interval covers the median with less than
/// 95%.
fn annotate_coverage(result: &mut BenchResult) {
    let Some(n) = result.summary.as_ref().map(|s| s.n) else {
        return;
    };
    let Some(coverage) = stats::short_coverage(n) else {
        return;
    };
    let message = format!(
        "{n} samples: no interval of the median reaches 95% from fewer than six, so the stated one is their range, which holds the median with {:.1}%; take six or more for a 95% interval",
        coverage * 100.0
    );
    result
        .warnings
        .push(FEW_SAMPLES.record(message, Some(coverage * 100.0)));
}

/// The clock check over the samples (see the module docs): a warning when GPU time exceeds host
/// time, which no sample can do, judged on every sample whose host clock ran until completion
/// (calibrated samples are a few ms long: a period read k times too long makes calibration stop
/// at samples k times shorter than their target, so a floor on length would never see it); or
/// when it falls far below it where each sample was one submit of a calibrated amount of work
/// (`calibrated`: not a latency probe, whose sample is all latency), judged on samples of at
/// least [`CLOCK_CHECK_MIN_SAMPLE`], where a submit's and a wake-up's latency weigh little.
/// Medians over the samples, so one wild sample decides nothing.
pub fn clock_check(clocks: &[ClockPair], calibrated: bool, host_step: f64) -> Option<Warning> {
    let timed: Vec<&ClockPair> = clocks
        .iter()
        .filter(|c| c.span != HostSpan::HostOnly && c.host > 0.0 && c.gpu.is_finite())
        .collect();
    // A host time is read down to whole steps of its clock: a millisecond's on a page a
    // browser does not isolate.
    let slack = CLOCK_AHEAD_SLACK.as_secs_f64() + host_step;
    let ahead = !timed.is_empty()
        && median_over(&timed, |c| (c.gpu - slack) / c.host) > 1.0 + CLOCK_AHEAD_TOLERANCE;
    let min = CLOCK_CHECK_MIN_SAMPLE.as_secs_f64();
    let long: Vec<&ClockPair> = timed.iter().copied().filter(|c| c.host >= min).collect();
    let one_submit = calibrated && long.iter().all(|c| c.span == HostSpan::OneSubmit);
    let behind = one_submit
        && !long.is_empty()
        && median_over(&long, |c| c.gpu / c.host) < CLOCK_BEHIND_FRACTION;
    let judged = if ahead { &timed } else { &long };
    (ahead || behind).then(|| Warning::ClockDisagreement {
        gpu_ms: median_over(judged, |c| c.gpu) * 1e3,
        host_ms: median_over(judged, |c| c.host) * 1e3,
        samples: judged.len(),
    })
}

/// The median of `f` over `pairs`.
fn median_over(pairs: &[&ClockPair], f: impl Fn(&ClockPair) -> f64) -> f64 {
    let values: Vec<f64> = pairs.iter().map(|c| f(c)).collect();
    stats::median(&values)
}

/// Per-sample times, per iteration, in seconds, and each sample's two clocks whole.
#[derive(Default)]
struct Samples {
    host: Vec<f64>,
    /// Latencies of the items the samples carried (pipelined requests), when recorded.
    items: Vec<Duration>,
    /// Each sample's item stages (empty where none were recorded), beside `host`.
    stages: Vec<Vec<ItemStage>>,
    gpu: Vec<Option<f64>>,
    rejected: usize,
    clocks: Vec<ClockPair>,
    /// The most spans of host work one sample added up (0: each ran as one span).
    host_spans: u32,
    /// The host clock's step, seconds: each host time is read down to a whole number of them.
    host_step: f64,
}

impl<'a> Runner<'a> {
    /// No samples yet, read by this context's host clock.
    fn samples(&self) -> Samples {
        Samples {
            host_step: self.ctx.host_clock().resolution().as_secs_f64(),
            ..Samples::default()
        }
    }

    /// A runner on `ctx`.
    pub fn new(ctx: &'a GpuContext, settings: RunSettings) -> Self {
        Self {
            queries: TimestampQueries::new(ctx),
            ctx,
            settings,
            stop: Arc::new(AtomicBool::new(false)),
            telemetry: None,
            screen: None,
        }
    }

    /// Ends a benchmark after its verified first run when that run alone took longer than
    /// `bound`, with that run as its only sample (`None`: never). For autotuning, where a
    /// candidate already many times slower than the best cannot win, and its full protocol
    /// (calibration, warm-up, samples) would cost several of its slow iterations: on a CPU
    /// adapter the simplest kernel took 5 s per 1024^3 product, 35 s per product to sample.
    /// Such a result says so in its `screened` param.
    pub fn set_screen(&mut self, bound: Option<Duration>) {
        self.screen = bound;
    }

    /// Calls `hook` around each measured region and records what it saw in the result.
    pub fn with_telemetry(mut self, hook: Arc<dyn TelemetryHook>) -> Self {
        self.telemetry = Some(hook);
        self
    }

    /// The telemetry hook in force, if any.
    pub fn telemetry(&self) -> Option<&Arc<dyn TelemetryHook>> {
        self.telemetry.as_ref()
    }

    /// Uses `flag` to stop between samples (set it from a signal handler).
    /// Every wait for the GPU on the context ends early on it too
    /// ([`GpuContext::stop_waits_on`]).
    pub fn with_stop_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.ctx.stop_waits_on(Arc::clone(&flag));
        self.stop = flag;
        self
    }

    /// The settings in force.
    pub fn settings(&self) -> &RunSettings {
        &self.settings
    }

    /// Whether a stop was requested.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Runs one benchmark to a result. Never panics on GPU errors: they become statuses.
    pub async fn run(
        &self,
        bench: &mut dyn Benchmark,
        observer: &mut dyn RunObserver,
    ) -> BenchResult {
        let info = bench.info().clone();
        // A panicking benchmark must not take the run (and the results so far) down with it.
        let measured = CatchUnwind(Box::pin(self.measure(bench, &info, observer)))
            .await
            .unwrap_or_else(|payload| {
                Err(Stop::Fail(format!(
                    "benchmark panicked: {}",
                    panic_message(&*payload)
                )))
            });
        let result = match measured {
            Ok(result) => result,
            Err(Stop::Skip(reason)) => BenchResult::empty(&info, Status::Skipped, Some(reason)),
            Err(Stop::Fail(reason)) => {
                let mut result = BenchResult::empty(&info, Status::Failed, Some(reason));
                result.work = bench.work();
                result
            }
        };
        bench.teardown();
        if !self.ctx.faults.device_lost() {
            // Let freed memory actually go before the next benchmark allocates.
            let _ = self.ctx.wait_idle().await;
        }
        observer.finished(&result);
        result
    }

    fn check_faults(&self) -> Result<(), Stop> {
        let messages = self.ctx.faults.drain();
        if self.ctx.faults.device_lost() {
            return Err(Stop::Fail(format!("device lost: {}", messages.join("; "))));
        }
        if !messages.is_empty() {
            return Err(Stop::Fail(format!("GPU error: {}", messages.join("; "))));
        }
        Ok(())
    }

    fn check_stop(&self) -> Result<(), Stop> {
        if self.stop_requested() {
            return Err(Stop::Fail("interrupted".to_string()));
        }
        Ok(())
    }

    async fn measure(
        &self,
        bench: &mut dyn Benchmark,
        info: &BenchmarkInfo,
        observer: &mut dyn RunObserver,
    ) -> Result<BenchResult, Stop> {
        let (first, read) = self.prepare_observed(bench, observer).await?;
        let work = bench.work();
        let prefer_gpu = info.timing != TimingPreference::Host;
        if let Some(bound) = self.screen.filter(|&bound| first.host > bound) {
            let run = Measured {
                work,
                iterations: 1,
                prefer_gpu,
                first,
                one_iteration: None,
                capped: false,
                clock_steps: self.clock_steps(),
            };
            return Ok(self.screened(info, &run, bound));
        }
        if info.outputs == Outputs::Rewritten {
            // What the first check read is overwritten: the check after the timed samples then
            // sees only what the runs from here on wrote ([`crate::read_log`]).
            self.ctx.scoped(self.ctx.poison_reads(&read)).await?;
            self.check_faults()?;
        }

        observer.phase(Phase::Calibrate);
        if let Some(queries) = self.queries.as_ref().filter(|_| prefer_gpu) {
            self.ctx.scoped(queries.learn_step(self.ctx)).await?;
        }
        let target = info.target_sample.unwrap_or(self.settings.target_sample);
        let target = target.min(self.settings.max_sample);
        let calibrated = info.iterations == IterationPolicy::Calibrate;
        let (iterations, one_iteration) = match info.iterations {
            IterationPolicy::Fixed(n) => (n.max(1), None),
            IterationPolicy::Calibrate => self.calibrate(bench, prefer_gpu, target).await?,
        };
        if let Some(hook) = &self.telemetry {
            hook.begin(&info.id);
        }
        // The measured region, telemetry around it: warm-up, then the timed samples.
        observer.phase(Phase::WarmUp);
        let warm = Warm {
            prefer_gpu,
            recalibrate_to: calibrated.then_some(target),
        };
        let taken = self
            .warm_then_sample(bench, info, iterations, warm, work, observer)
            .await;
        let telemetry = self.telemetry.as_ref().and_then(|hook| hook.end());
        let (iterations, samples, capped) = taken?;
        self.check_faults()?;
        self.verify_timed_work(bench, observer).await?;
        let run = Measured {
            work,
            iterations,
            prefer_gpu,
            first,
            one_iteration,
            capped,
            clock_steps: self.clock_steps(),
        };
        let mut result = summarise(&self.settings, info, &samples, &run);
        result.telemetry = telemetry.map(Box::new);
        // A result with no figure (GPU time only, its timestamps unusable) has no resolution
        // to state.
        if result.summary.is_some() {
            state_clock_resolution(&mut result, &samples, &run);
        }
        Ok(result)
    }

    /// Warms up from `iterations` per sample (recalibrating where `warm` says), then takes the
    /// timed samples: the iterations per sample warm-up settled on, the samples, and whether
    /// their count was capped.
    async fn warm_then_sample(
        &self,
        bench: &mut dyn Benchmark,
        info: &BenchmarkInfo,
        iterations: u32,
        warm: Warm,
        work: Work,
        observer: &mut dyn RunObserver,
    ) -> Result<(u32, Samples, bool), Stop> {
        let prefer_gpu = warm.prefer_gpu;
        let iterations = self.warm_up(bench, iterations, warm).await?;
        if let Some(hook) = &self.telemetry {
            hook.sampling();
        }
        observer.phase(Phase::Sample);
        let (samples, capped) = self
            .take_samples(bench, info, iterations, prefer_gpu, work, observer)
            .await?;
        Ok((iterations, samples, capped))
    }

    /// The result of a candidate screened out ([`Runner::set_screen`]): its verified first run,
    /// which took longer than `bound`, as its only sample.
    fn screened(&self, info: &BenchmarkInfo, run: &Measured, bound: Duration) -> BenchResult {
        let mut samples = self.samples();
        samples.push(&run.first, 1);
        let mut result = summarise(&self.settings, info, &samples, run);
        let why = format!(
            "one run only: its verified first run took {:.3} s, over the bound of {:.3} s",
            run.first.host.as_secs_f64(),
            bound.as_secs_f64()
        );
        result.params.insert("screened".into(), why.into());
        result
    }

    /// Checks the output again after the timed samples. The check before timing saw one run of
    /// one iteration; the samples ran the kernel many times in long batches. What the first
    /// check read was overwritten after it (where runs rewrite it), so what this check reads was
    /// written by the runs since; where runs accumulate, it holds what they add up to (the
    /// launch storms' counters: 4096 dispatches a sample, against one before timing). A driver
    /// that drops every run of a batch, or writes wrong values in the last run, fails here
    /// instead of being timed as a throughput; where the runs accumulate, so does one that
    /// drops, merges or miscomputes any of them. Where they rewrite one output, a batch of which
    /// only the last run ran passes: those outputs say what was computed, not how often.
    async fn verify_timed_work(
        &self,
        bench: &mut dyn Benchmark,
        observer: &mut dyn RunObserver,
    ) -> Result<(), Stop> {
        observer.phase(Phase::Verify);
        let verification = self.ctx.scoped(bench.verify(self.ctx)).await?;
        self.check_faults()?;
        if !verification.passed() {
            return Err(Stop::Fail(format!(
                "wrong after the timed samples (right after the first run): {}",
                verification.failure_reason()
            )));
        }
        Ok(())
    }

    /// Sets `bench` up, runs it once and verifies the output: everything before timing. A
    /// benchmark that fails here gets no number. Returns the first run's timing (compared with
    /// the samples to warn about a slow first run). Tools that drive their own timing loop
    /// (criterion benches) call this and then [`Runner::time_sample`].
    pub async fn prepare(&self, bench: &mut dyn Benchmark) -> Result<SampleTiming, PrepareError> {
        self.prepare_observed(bench, &mut Silent)
            .await
            .map(|(first, _read)| first)
            .map_err(|stop| match stop {
                Stop::Skip(reason) => PrepareError::Skipped(reason),
                Stop::Fail(reason) => PrepareError::Failed(reason),
            })
    }

    /// [`Runner::prepare`], observed; also returns what the check read back, which the timed
    /// path overwrites before it starts ([`crate::read_log`]).
    async fn prepare_observed(
        &self,
        bench: &mut dyn Benchmark,
        observer: &mut dyn RunObserver,
    ) -> Result<(SampleTiming, Vec<read_log::ReadSpan>), Stop> {
        let missing = bench.required_features() - self.ctx.features;
        if !missing.is_empty() {
            return Err(Stop::Skip(crate::device::lacking(missing)));
        }
        bench.check_support(self.ctx).map_err(Stop::Skip)?;
        if self.ctx.faults.device_lost() {
            return Err(Stop::Fail(
                "device lost before this benchmark started".to_string(),
            ));
        }
        self.ctx.faults.drain();

        observer.phase(Phase::Setup);
        self.ctx.scoped(bench.setup(self.ctx)).await?;
        self.check_faults()?;

        observer.phase(Phase::Verify);
        let first = self.ctx.scoped(self.sample(bench, 1)).await?;
        self.check_faults()?;
        let recording = self.ctx.read_log().record();
        let verification = self.ctx.scoped(bench.verify(self.ctx)).await;
        let read = recording.finish();
        let verification = verification?;
        self.check_faults()?;
        if !verification.passed() {
            return Err(Stop::Fail(verification.failure_reason()));
        }
        Ok((first, read))
    }

    /// Untimed samples for the warm-up budget, at least the minimum count; then, where the
    /// telemetry says the device still idles, more ([`Runner::ramp_clocks`]).
    async fn warm_up(
        &self,
        bench: &mut dyn Benchmark,
        iterations: u32,
        warm: Warm,
    ) -> Result<u32, Stop> {
        let start = Instant::now();
        let mut warmups = 0;
        let mut last = None;
        while warmups < self.settings.min_warmup_samples || start.elapsed() < self.settings.warmup {
            self.check_stop()?;
            last = Some(self.sample(bench, iterations).await?);
            warmups += 1;
            if start.elapsed() > self.settings.max_time {
                return Ok(iterations);
            }
        }
        let last = self.ramp_clocks(bench, iterations, last, warm).await?;
        Ok(match (warm.recalibrate_to, last) {
            (Some(target), Some(last)) => {
                let (seconds, source) = headline(&last, warm.prefer_gpu);
                let target = self.sample_target(target.as_secs_f64(), source, warm.prefer_gpu);
                let ceiling = watchdog_ceiling(&last, seconds, self.settings.max_sample);
                recalibrated(iterations, seconds, target, ceiling)
            }
            _ => iterations,
        })
    }

    /// More warm-up samples while the device is still ramping its clocks, for at most
    /// [`CLOCK_RAMP_CAP`]; returns the last warm-up sample. Where telemetry can judge the
    /// clocks: while it says the device is still at its idle clocks and the samples keep it
    /// busy (GPU time at least [`BUSY_FRACTION`] of host time: lighter work would not raise
    /// the clock however long it ran); a result whose samples still ran at idle clocks is
    /// marked by the telemetry. Where it cannot (no telemetry, as on an Apple GPU, or no clock
    /// to read) on a GPU: while each sample is still faster than the one [`RAMP_WINDOW`]
    /// before it by more than [`RAMP_STEP`], the pace of a clock still rising.
    async fn ramp_clocks(
        &self,
        bench: &mut dyn Benchmark,
        iterations: u32,
        mut last: Option<SampleTiming>,
        warm: Warm,
    ) -> Result<Option<SampleTiming>, Stop> {
        let start = Instant::now();
        let mut watch: Option<RampWatch> = None;
        while start.elapsed() < CLOCK_RAMP_CAP {
            let settled = self
                .telemetry
                .as_ref()
                .and_then(|hook| hook.clocks_settled());
            let ramping = match settled {
                Some(false) => last.as_ref().is_some_and(keeps_device_busy),
                Some(true) => false,
                // A software adapter's "clock" is the host CPU's, which the fixed warm-up
                // already covers; its samples swing with the host's load, not a ramp.
                None => last.is_some() && !self.ctx.is_software(),
            };
            if !ramping {
                break;
            }
            self.check_stop()?;
            let next = self.sample(bench, iterations).await?;
            let faster = match (&last, settled) {
                (Some(before), None) => watch
                    .get_or_insert_with(|| RampWatch::new(before.clone(), Duration::ZERO))
                    .judge(&next, start.elapsed(), warm.prefer_gpu)
                    .unwrap_or(true),
                _ => true,
            };
            last = Some(next);
            if !faster {
                break;
            }
        }
        Ok(last)
    }

    /// What a sample aims at, in seconds, timed by `source`: `target`, and at least
    /// [`CALIBRATION_STEPS`] steps of that clock where the sample ceiling allows (a browser's
    /// clocks step by up to 100 us). Where the GPU's timestamps head the samples (`prefer_gpu`)
    /// their steps count even when this one sample fell back to the host clock: both timestamps
    /// in one step of a coarse GPU clock give no GPU time, and the host time of a loaded
    /// machine would otherwise call a sample of under one GPU step long enough.
    fn sample_target(&self, target: f64, source: TimingSource, prefer_gpu: bool) -> f64 {
        let mut resolution = self.clock_resolution(source);
        if prefer_gpu {
            resolution = resolution.max(self.clock_resolution(TimingSource::GpuTimestamp));
        }
        let steps = CALIBRATION_STEPS * resolution.as_secs_f64();
        target
            .max(steps)
            .min(self.settings.max_sample.as_secs_f64())
    }

    /// Timed samples until the count and the variation target are met or a time cap is reached
    /// (or, for a fixed-duration benchmark, until its duration has passed). Returns the samples
    /// and whether the time cap stopped them with the variation still above target. The
    /// variation is the result's own: of its values in the metric's unit (a rate's cv is not
    /// its time's), as the summary states it.
    async fn take_samples(
        &self,
        bench: &mut dyn Benchmark,
        info: &BenchmarkInfo,
        iterations: u32,
        prefer_gpu: bool,
        work: Work,
        observer: &mut dyn RunObserver,
    ) -> Result<(Samples, bool), Stop> {
        let min_samples = self
            .settings
            .min_samples
            .max(info.min_samples.unwrap_or(0))
            .max(2);
        let calibrated = info.iterations == IterationPolicy::Calibrate;
        let max_samples = match info.duration {
            Some(_) => usize::MAX,
            None => self.settings.max_samples.max(min_samples),
        };
        let mut samples = self.samples();
        let start = Instant::now();
        loop {
            self.check_stop()?;
            let timing = self.sample(bench, iterations).await?;
            samples.push(&timing, iterations);
            observer.sampled(samples.host.len(), max_samples);
            let n = samples.host.len();
            let elapsed = start.elapsed();
            if let Some(duration) = info.duration {
                if elapsed >= duration && n >= 2 {
                    return Ok((samples, false));
                }
                continue;
            }
            // The stop rule is worked out after every sample, below the minimum too, and is
            // cheap (a variation over the samples): the device idles while it runs, and a pause
            // changes what the next sample measures. The first H200 run's runner began a
            // 2000-resample bootstrap between samples at their minimum count, about 0.5-0.9 ms,
            // and end-to-end transfers after such a pause took up to about 200 us more.
            let (gpu, _) = samples.headline_clock(prefer_gpu, calibrated);
            let values = stated(&samples.headline(gpu).0, info.metric, &work);
            // The sample cap counts samples the result states: one that took no time on a
            // coarse clock states none, and sampling goes on to the time cap for the minimum.
            if n >= max_samples && values.len() >= min_samples {
                return Ok((samples, false));
            }
            let settled = settled(&values, min_samples, self.settings.target_cv);
            if n >= min_samples {
                if settled {
                    return Ok((samples, false));
                }
                if elapsed >= self.settings.max_time {
                    // Stopped by time with the variation still above target: say so.
                    return Ok((samples, true));
                }
            } else if elapsed >= self.settings.max_time.saturating_mul(2) && n >= 2 {
                return Ok((samples, true));
            }
        }
    }

    /// Runs one sample of `iterations` and returns its timing.
    async fn sample(
        &self,
        bench: &mut dyn Benchmark,
        iterations: u32,
    ) -> Result<SampleTiming, BenchError> {
        let mut clock = SampleClock::new(self.ctx, self.queries.as_ref(), iterations);
        bench.run(&mut clock).await?;
        let timing = clock.finish().await;
        // Errors the device reported explain a failed wait better than the wait's own error.
        if self.ctx.faults.device_lost() {
            return Err(BenchError::DeviceLost(self.ctx.faults.drain().join("; ")));
        }
        let messages = self.ctx.faults.drain();
        if !messages.is_empty() {
            return Err(BenchError::Gpu(messages.join("; ")));
        }
        timing
    }

    /// Times one sample of `iterations` outside the full protocol, for tools that drive their
    /// own loop (criterion benches). Call after [`Benchmark::setup`].
    pub async fn time_sample(
        &self,
        bench: &mut dyn Benchmark,
        iterations: u32,
    ) -> Result<SampleTiming, BenchError> {
        self.sample(bench, iterations).await
    }

    /// The steps of both clocks.
    fn clock_steps(&self) -> ClockSteps {
        ClockSteps {
            gpu: self.clock_resolution(TimingSource::GpuTimestamp),
            host: self.clock_resolution(TimingSource::Host),
        }
    }

    /// The step of the clock `source`: the GPU timestamps' (their period, or the coarser step
    /// their values take) or the host clock's.
    fn clock_resolution(&self, source: TimingSource) -> Duration {
        match source {
            TimingSource::GpuTimestamp => self
                .queries
                .as_ref()
                .map_or(Duration::ZERO, TimestampQueries::resolution),
            TimingSource::Host => self.ctx.host_clock().resolution(),
        }
    }

    /// Doubles (or jumps) the iteration count until a sample lasts about the target time (and
    /// at least [`CALIBRATION_STEPS`] steps of its clock), keeping one submit under the
    /// watchdog-safe maximum. Returns the count and the host time of its first sample, one
    /// iteration like the first run, which the slow-first-run check compares with.
    async fn calibrate(
        &self,
        bench: &mut dyn Benchmark,
        prefer_gpu: bool,
        target: Duration,
    ) -> Result<(u32, Option<Duration>), Stop> {
        let target = target.as_secs_f64();
        let mut iterations: u32 = 1;
        let mut one_iteration = None;
        for _ in 0..12 {
            self.check_stop()?;
            let timing = self.sample(bench, iterations).await?;
            one_iteration.get_or_insert(timing.host);
            let (seconds, source) = headline(&timing, prefer_gpu);
            let seconds = seconds.max(1e-7);
            let ceiling = watchdog_ceiling(&timing, seconds, self.settings.max_sample);
            let target = self.sample_target(target, source, prefer_gpu);
            if seconds >= target || iterations >= MAX_ITERATIONS {
                break;
            }
            let per_iteration = seconds / f64::from(iterations);
            let next = iterations_toward(iterations, seconds, target, ceiling).max(iterations + 1);
            if next as f64 * per_iteration > ceiling {
                break;
            }
            iterations = next;
        }
        Ok((iterations, Some(one_iteration.unwrap_or_default())))
    }
}

/// The result of a measured benchmark: headline samples, host or GPU samples beside them,
/// latency percentiles for round trips, the summary and the warnings.
fn summarise(
    settings: &RunSettings,
    info: &BenchmarkInfo,
    samples: &Samples,
    run: &Measured,
) -> BenchResult {
    // Timestamps the host clock proves wrong (GPU time past the submit-to-completion time: a
    // wrong period) never give the headline: the host clock does, and the warning says why.
    let calibrated = info.iterations == IterationPolicy::Calibrate;
    let (gpu, disagreement) = samples.headline_clock(run.prefer_gpu, calibrated);
    let (seconds, source) = samples.headline(gpu);
    if info.timing == TimingPreference::GpuOnly && source != TimingSource::GpuTimestamp {
        return gpu_time_unusable(info, samples, disagreement);
    }
    let values = stated(&seconds, info.metric, &run.work);
    let host_values = stated(&samples.host, info.metric, &run.work);
    let Some(summary) = stats::summarize(&values) else {
        return BenchResult::empty(
            info,
            Status::Skipped,
            Some(format!(
                "none of its {} samples took measurable time on the {} clock: the clock is too \
                 coarse for this work",
                seconds.len(),
                source.as_str()
            )),
        );
    };
    let summary = Some(summary);

    let mut result = BenchResult::empty(info, Status::Ok, None);
    result.verified = true;
    result.timing = Some(source);
    result.work = run.work;
    result.iterations_per_sample = run.iterations;
    result.samples = values;
    if source == TimingSource::GpuTimestamp {
        result.host_summary = stats::summarize(&host_values).map(Box::new);
        result.host_samples = host_values;
    } else {
        // Host is the headline (end-to-end timing): keep what the timestamps saw as well.
        let gpu_seconds: Vec<f64> = samples.gpu.iter().flatten().copied().collect();
        let gpu_values = stated(&gpu_seconds, info.metric, &run.work);
        result.gpu_summary = stats::summarize(&gpu_values).map(Box::new);
        result.gpu_samples = gpu_values;
    }
    if let Some(timeline) = samples.typical_timeline() {
        timeline.store(&mut result.extra);
    }
    if !samples.items.is_empty() {
        let ns: Vec<u64> = samples.items.iter().map(|d| d.as_nanos() as u64).collect();
        result.latency = stats::latency_summary(&ns).map(Box::new);
    } else if info.metric == MetricKind::TimePerOp && info.iterations == IterationPolicy::Fixed(1) {
        let ns: Vec<u64> = stated_seconds(&seconds, info.metric, &run.work)
            .map(|s| (s * 1e9).round() as u64)
            .collect();
        result.latency = stats::latency_summary(&ns).map(Box::new);
    }
    let mut warnings = warnings(
        settings,
        info,
        samples,
        run,
        &seconds,
        source,
        summary.as_ref(),
    );
    warnings.extend(disagreement);
    result.warnings = warnings.iter().map(Warning::record).collect();
    result.summary = summary;
    if !run.capped {
        annotate_coverage(&mut result);
    }
    result
}

/// A result of GPU time only ([`TimingPreference::GpuOnly`]) whose timestamps cannot give its
/// headline: skipped, saying why (the clock check's warning beside it where it has one). The
/// host clock would state another quantity under its name: a dispatch gap timed from submit to
/// completion is mostly the submit.
fn gpu_time_unusable(
    info: &BenchmarkInfo,
    samples: &Samples,
    disagreement: Option<Warning>,
) -> BenchResult {
    let usable = samples.gpu.iter().flatten().count();
    let why = match &disagreement {
        Some(Warning::ClockDisagreement {
            gpu_ms, host_ms, ..
        }) if gpu_ms > host_ms => format!(
            "its GPU timestamps spanned more than the host's whole submit-to-completion time \
             ({gpu_ms:.3} ms against {host_ms:.3} ms): the timestamp period or the counter is wrong"
        ),
        _ => format!(
            "{} of its {} samples had no usable pair of GPU timestamps (zero, repeated from the \
             sample before, an error value, or the end not after the start)",
            samples.gpu.len() - usable,
            samples.gpu.len()
        ),
    };
    let reason = format!(
        "GPU time only, and {why}; the host clock would time the submit and the wait, not this"
    );
    let mut result = BenchResult::empty(info, Status::Skipped, Some(reason));
    result.warnings = disagreement.iter().map(Warning::record).collect();
    result
}

/// Whether sampling may stop: `values` (the finite headline values, in the metric's unit) are
/// at least `min_samples` and vary no more than `target_cv`. The minimum counts the values the
/// summary will state: samples whose timestamps were rejected, or of no time, are not among
/// them, so a summary never rests on fewer than the profile asks for unless a cap stopped it.
/// It runs between samples while the device idles: a pass over the values, nothing more (no
/// resampling; see the note in `take_samples`).
fn settled(values: &[f64], min_samples: usize, target_cv: f64) -> bool {
    values.len() >= min_samples && stats::cv(values).is_some_and(|cv| cv <= target_cv)
}

/// Per-iteration `seconds` as the values a result states, in `metric`'s unit for `work`.
fn stated(seconds: &[f64], metric: MetricKind, work: &Work) -> Vec<f64> {
    stated_seconds(seconds, metric, work)
        .map(|s| metric.value(work, s))
        .collect()
}

/// The per-iteration `seconds` a result states a value for, in order. A sample of no time on a
/// clock too coarse to see it (a browser's) is no measurement, whatever the metric: as a rate
/// it would be infinite (which JSON cannot carry), as a time a 0 that drags the median down. It
/// is left out (the coarse-clock warning says why).
fn stated_seconds<'a>(
    seconds: &'a [f64],
    metric: MetricKind,
    work: &'a Work,
) -> impl Iterator<Item = f64> + 'a {
    seconds
        .iter()
        .copied()
        .filter(move |&s| s > 0.0 && metric.value(work, s).is_finite())
}

/// Records the resolution of the clock that timed `result` and marks it where its median
/// sample spans too few of that clock's steps ([`crate::host_clock`]): GPU timestamps step
/// by the device's timestamp period or the coarser step their values were seen to take
/// ([`crate::timestamp_step`]), the host clock by its measured (or coarsened) step.
fn state_clock_resolution(result: &mut BenchResult, samples: &Samples, run: &Measured) {
    // The clock the summary went by: not the GPU's where the host clock disproved it.
    let (seconds, source) = samples.headline(result.timing == Some(TimingSource::GpuTimestamp));
    let resolution = run.clock_steps.of(source);
    // The median of the samples the result states, as its figure is.
    let stated: Vec<f64> = stated_seconds(&seconds, result.metric, &run.work).collect();
    // A sample that adds up spans of host work steps on each span: judged by its spans' length.
    let spans = match source {
        TimingSource::Host => f64::from(samples.host_spans.max(1)),
        TimingSource::GpuTimestamp => 1.0,
    };
    let sample = stats::median(&stated) * f64::from(run.iterations) / spans;
    if sample.is_finite() && sample >= 0.0 {
        crate::host_clock::annotate(result, Duration::from_secs_f64(sample), resolution);
    }
    // Per-item latencies are each timed by the host clock alone.
    let p50 = result.latency.as_ref().map(|l| l.p50_us * 1e-6);
    if let Some(p50) = p50.filter(|s| s.is_finite() && *s >= 0.0) {
        let host = run.clock_steps.host;
        crate::host_clock::annotate_latencies(result, Duration::from_secs_f64(p50), host);
    }
}

/// What a careful engineer would say about this measurement.
fn warnings(
    settings: &RunSettings,
    info: &BenchmarkInfo,
    samples: &Samples,
    run: &Measured,
    seconds: &[f64],
    source: TimingSource,
    summary: Option<&stats::Summary>,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let sample_seconds = stats::median(seconds) * f64::from(run.iterations);
    let short = match source {
        TimingSource::GpuTimestamp => 50e-6,
        TimingSource::Host => 1e-3,
    };
    if info.iterations == IterationPolicy::Calibrate && sample_seconds < short {
        warnings.push(Warning::ShortSamples {
            median_us: sample_seconds * 1e6,
        });
    }
    if let Some(summary) = summary {
        if summary.cv > settings.target_cv * 2.0 {
            warnings.push(Warning::HighVariation {
                cv: summary.cv,
                target: settings.target_cv,
            });
        }
        if summary.outliers > 0 {
            warnings.push(Warning::Outliers {
                count: summary.outliers,
                of: summary.n,
            });
        }
    }
    // A run for a set duration measures change over time on purpose: its suite reads it. The
    // samples judged are those the result states (a rate of no time is none), so that "sample
    // N of M" counts the file's samples.
    if info.duration.is_none() {
        let stated_seconds: Vec<f64> = stated_seconds(seconds, info.metric, &run.work).collect();
        // Per-iteration times step by the clock's step over the iterations of a sample.
        let step = run.clock_steps.of(source).as_secs_f64() / f64::from(run.iterations);
        warnings.extend(
            level_shift(&stated_seconds, step).map(|shift| Warning::LevelShift {
                change: shift.change(),
                at: shift.at + 1,
                of: shift.of,
                before_s: shift.before,
                after_s: shift.after,
            }),
        );
    }
    // The first run is one iteration with a submit and a wait around it: it is compared with a
    // later run of one iteration (calibration's first), which has the same around it, or else
    // with a whole timed sample. Against one iteration of a many-iteration sample, the submit
    // and wait alone would make a short kernel's first run look slow.
    let (first_seconds, _) = headline(&run.first, run.prefer_gpu);
    let later = run.one_iteration.map_or_else(
        || stats::median(&samples.host) * f64::from(run.iterations),
        |one| one.as_secs_f64(),
    );
    let first_host = run.first.host.as_secs_f64();
    if later > 0.0 && first_host > 10.0 * later && first_seconds > 1e-3 {
        warnings.push(Warning::SlowFirstRun {
            factor: first_host / later,
        });
    }
    if run.capped {
        // The samples the result states (a sample of no time states none), as its interval
        // is made of them.
        warnings.push(Warning::TimeCapped {
            samples: summary.map_or(0, |s| s.n),
        });
    }
    if samples.rejected > 0 {
        warnings.push(Warning::TimestampsRejected {
            count: samples.rejected,
        });
    }
    warnings
}

/// What the protocol settled before sampling, carried to the summary.
struct Measured {
    work: Work,
    iterations: u32,
    prefer_gpu: bool,
    first: SampleTiming,
    /// Host time of a later run of one iteration (calibration's first sample), where there was
    /// one.
    one_iteration: Option<Duration>,
    capped: bool,
    /// The steps of the two clocks (GPU timestamps, host): how far apart two readings of the
    /// same time can be.
    clock_steps: ClockSteps,
}

/// The step of each clock a sample is read from ([`Runner::clock_resolution`]).
#[derive(Debug, Clone, Copy, Default)]
struct ClockSteps {
    gpu: Duration,
    host: Duration,
}

impl ClockSteps {
    /// The step of `source`'s clock.
    fn of(self, source: TimingSource) -> Duration {
        match source {
            TimingSource::GpuTimestamp => self.gpu,
            TimingSource::Host => self.host,
        }
    }
}

impl Samples {
    /// Whether the headline may be GPU time, and the clock check's warning where it has one
    /// ([`clock_check`]). GPU time above the host's submit-to-completion time is impossible:
    /// those timestamps never headline. GPU time far below it is only suspect (a host slowed by
    /// its own load waits longer than the work took, as lavapipe on a busy host does): the
    /// warning says so and the GPU time stays. The stop rule and the summary go by it.
    fn headline_clock(&self, prefer_gpu: bool, calibrated: bool) -> (bool, Option<Warning>) {
        let disagreement = clock_check(&self.clocks, calibrated, self.host_step);
        let impossible = matches!(
            disagreement,
            Some(Warning::ClockDisagreement { gpu_ms, host_ms, .. }) if gpu_ms > host_ms
        );
        (prefer_gpu && !impossible, disagreement)
    }

    fn push(&mut self, timing: &SampleTiming, iterations: u32) {
        let per = |d: Duration| d.as_secs_f64() / f64::from(iterations);
        self.items.extend(timing.item_latencies.iter().copied());
        self.stages.push(timing.item_stages.clone());
        self.host.push(per(timing.host));
        self.gpu.push(timing.gpu.map(per));
        self.rejected += usize::from(timing.gpu_rejected);
        self.host_spans = self.host_spans.max(timing.host_spans);
        if let Some(gpu) = timing.gpu {
            self.clocks.push(ClockPair {
                host: timing.host.as_secs_f64(),
                gpu: gpu.as_secs_f64(),
                span: timing.host_span,
            });
        }
    }

    /// The item timeline of the sample whose host time is nearest the median, when the
    /// samples recorded item stages.
    fn typical_timeline(&self) -> Option<ItemTimeline> {
        if self.stages.iter().all(Vec::is_empty) {
            return None;
        }
        let k = item_trace::typical(&self.host)?;
        item_trace::timeline(self.stages.get(k)?)
    }

    /// Per-iteration seconds by the headline clock: GPU time when preferred and available for
    /// most samples (samples without a valid pair are dropped), else host time.
    fn headline(&self, prefer_gpu: bool) -> (Vec<f64>, TimingSource) {
        let gpu: Vec<f64> = self.gpu.iter().flatten().copied().collect();
        if prefer_gpu && !gpu.is_empty() && gpu.len() * 2 >= self.gpu.len() {
            (gpu, TimingSource::GpuTimestamp)
        } else {
            (self.host.clone(), TimingSource::Host)
        }
    }
}

/// A future that turns a panic while it is polled into an `Err` with the panic's payload, as
/// `std::panic::catch_unwind` does for a closure: one benchmark's panic must not end the run.
struct CatchUnwind<'a, T>(crate::LocalFuture<'a, T>);

impl<T> std::future::Future for CatchUnwind<'_, T> {
    type Output = std::thread::Result<T>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let inner = &mut self.0;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Ok(std::task::Poll::Ready(value)) => std::task::Poll::Ready(Ok(value)),
            Err(payload) => std::task::Poll::Ready(Err(payload)),
        }
    }
}

/// The text of a panic payload (`&str` or `String`), or a placeholder.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string())
}

/// A sample's headline seconds and the clock they come from: GPU time where it is preferred
/// and the pair was valid, host time otherwise.
fn headline(timing: &SampleTiming, prefer_gpu: bool) -> (f64, TimingSource) {
    match (prefer_gpu, timing.gpu) {
        (true, Some(gpu)) => (gpu.as_secs_f64(), TimingSource::GpuTimestamp),
        _ => (timing.host.as_secs_f64(), TimingSource::Host),
    }
}

/// Whether the run should warn that results are software-adapter numbers or host-timed.
pub fn run_warnings(ctx: &GpuContext) -> Vec<WarningRecord> {
    let mut warnings = Vec::new();
    if ctx.is_software() {
        warnings.push(Warning::SoftwareAdapter.record());
    }
    if !ctx.has_pass_timestamps() {
        warnings.push(Warning::NoTimestamps.record());
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::ticks_to_duration;
    use gpubench_results::profile::Profile;

    const HOST: Duration = Duration::from_millis(20);
    /// What the device spent of each 20 ms sample, in nanoseconds.
    const DEVICE_NS: u64 = 19_500_000;
    /// A 24 MHz timestamp counter: 41.667 ns per tick.
    const PERIOD_24MHZ: f64 = 1e9 / 24e6;

    /// Ten samples of 20 ms on the host whose GPU pair reads `ticks` apart, converted with the
    /// period the runner was told (`period_ns`), the whole sample a single submit or not.
    fn samples(ticks: u64, period_ns: f64, host_span: HostSpan) -> Samples {
        let mut samples = Samples::default();
        for i in 0..10u64 {
            // A little spread so the summary has a variation to report.
            let host = HOST + Duration::from_micros(i * 10);
            let gpu = ticks_to_duration(1_000, 1_000 + ticks, period_ns);
            samples.push(&timed(host, gpu, host_span), 1);
        }
        samples
    }

    #[test]
    fn sampling_settles_on_enough_stated_values_that_vary_little() {
        let steady = [100.0, 101.0, 99.0, 100.0, 100.5, 99.5];
        assert!(settled(&steady, 6, 0.05));
        // Eight samples taken, three of their timestamp pairs rejected: five values are
        // stated, under the minimum of six.
        assert!(!settled(&steady[..5], 6, 0.05));
        assert!(!settled(&[100.0, 150.0, 60.0, 100.0, 130.0, 80.0], 6, 0.05));
        assert!(!settled(&[], 0, 0.05));
    }

    #[test]
    fn a_submit_is_kept_under_the_ceiling_by_the_longer_of_its_clocks() {
        let max = Duration::from_millis(100);
        let timing = |host_ms, host_span| {
            let gpu = Some(Duration::from_millis(1));
            timed(Duration::from_millis(host_ms), gpu, host_span)
        };
        // Timestamps that read 40x slow: 1 ms of GPU time for a 40 ms submit. Toward a 10 ms
        // target the GPU clock alone would ask for 10 iterations, a 400 ms submit; by the host
        // clock the count stops at 2 (80 ms).
        let slow = timing(40, HostSpan::OneSubmit);
        let ceiling = watchdog_ceiling(&slow, 0.001, max);
        assert!((ceiling - 0.0025).abs() < 1e-12, "{ceiling}");
        assert_eq!(iterations_toward(1, 0.001, 0.010, ceiling), 2);
        assert_eq!(iterations_toward(1, 0.001, 0.010, 0.1), 10);
        // Host time over several submits, or under the GPU time, leaves the ceiling as it is.
        assert_eq!(
            watchdog_ceiling(&timing(40, HostSpan::UntilComplete), 0.001, max),
            0.1
        );
        assert_eq!(
            watchdog_ceiling(&timing(40, HostSpan::HostOnly), 0.001, max),
            0.1
        );
        assert_eq!(
            watchdog_ceiling(&timing(0, HostSpan::OneSubmit), 0.001, max),
            0.1
        );
    }

    #[test]
    fn a_sample_calibrated_at_idle_clocks_gets_more_iterations_once_warm() {
        // Three iterations took 5.3 ms at idle clocks, 2.2 ms warm: 7 reach a 5 ms target.
        assert_eq!(recalibrated(3, 0.0022, 0.005, 0.1), 7);
        // Within the margin of the target, or over it, the count stands.
        assert_eq!(recalibrated(3, 0.0045, 0.005, 0.1), 3);
        assert_eq!(recalibrated(3, 0.009, 0.005, 0.1), 3);
        // Never past one submit's ceiling, nor 16 times as many, nor for a time of nothing.
        assert_eq!(recalibrated(10, 0.001, 0.005, 0.002), 20);
        assert_eq!(recalibrated(1, 1e-6, 0.005, 0.1), 16);
        assert_eq!(recalibrated(4, 0.0, 0.005, 0.1), 4);
    }

    #[test]
    fn warm_up_without_telemetry_goes_on_while_samples_still_speed_up() {
        let timing = |gpu_ms: f64| {
            let host = Duration::from_secs_f64(gpu_ms * 1.1e-3);
            let gpu = Some(Duration::from_secs_f64(gpu_ms * 1e-3));
            timed(host, gpu, HostSpan::OneSubmit)
        };
        assert!(still_speeding_up(&timing(5.0), &timing(4.0), true));
        assert!(!still_speeding_up(&timing(5.0), &timing(4.95), true));
        assert!(!still_speeding_up(&timing(5.0), &timing(5.5), true));
    }

    /// A clock rising steadily from 345 to 1980 MHz over 400 ms, sampled every 2 ms without
    /// telemetry: the watch keeps warming up past the 20 ms where one sample no longer beats
    /// the one before by 2%, and stops within a window or two of the clock's top.
    #[test]
    fn a_slow_ramp_is_not_read_as_settled() {
        let mhz = |ms: f64| 345.0 + (1980.0 - 345.0) * (ms / 400.0).min(1.0);
        // A fixed amount of work: its time falls as the clock rises.
        let sample = |ms: f64| {
            let gpu = Duration::from_secs_f64(2e-3 * 345.0 / mhz(ms));
            timed(gpu, Some(gpu), HostSpan::OneSubmit)
        };
        let at = |ms: f64| Duration::from_secs_f64(ms * 1e-3);
        assert!(!still_speeding_up(&sample(22.0), &sample(24.0), true));
        let mut watch = RampWatch::new(sample(0.0), Duration::ZERO);
        let mut stopped = None;
        for step in 1..500 {
            let ms = 2.0 * f64::from(step);
            if watch.judge(&sample(ms), at(ms), true) == Some(false) {
                stopped = Some(ms);
                break;
            }
        }
        let stopped = stopped.expect("the watch stops once the clock is flat");
        assert!(
            (400.0..=500.0).contains(&stopped),
            "stopped at {stopped} ms"
        );
        let next = stopped + 2.0;
        assert_eq!(
            watch.judge(&sample(next), at(next), true),
            None,
            "within the window"
        );
    }

    /// A sample's two clocks, with no items.
    fn timed(host: Duration, gpu: Option<Duration>, host_span: HostSpan) -> SampleTiming {
        SampleTiming {
            host,
            gpu,
            gpu_rejected: false,
            host_span,
            host_spans: 0,
            item_latencies: Vec::new(),
            item_stages: Vec::new(),
        }
    }

    /// The summary of `samples` as the runner makes it for a GPU-timed kernel.
    fn summary(samples: &Samples) -> BenchResult {
        summary_as(samples, MetricKind::TimePerOp)
    }

    /// [`summary`] of a result in `metric`.
    fn summary_as(samples: &Samples, metric: MetricKind) -> BenchResult {
        summarised(samples, metric, &measured())
    }

    /// The summary of `samples` in `metric`, measured as `run` says.
    fn summarised(samples: &Samples, metric: MetricKind, run: &Measured) -> BenchResult {
        let info = BenchmarkInfo::new("test/kernel", "test", metric, "what it counts");
        summarise(&Profile::Default.settings(false), &info, samples, run)
    }

    /// One iteration a sample, a MiB and an operation each, a first run of [`HOST`].
    fn measured() -> Measured {
        Measured {
            work: Work {
                bytes_read: 1 << 20,
                ..Work::ops(1)
            },
            iterations: 1,
            prefer_gpu: true,
            first: timed(HOST, None, HostSpan::OneSubmit),
            one_iteration: None,
            capped: false,
            clock_steps: ClockSteps::default(),
        }
    }

    /// A result of GPU time only is skipped, saying why, where most samples' timestamps are
    /// unusable (a Metal device resolving them to zero) or the host clock disproves them; with
    /// usable ones it is stated by them like any other.
    #[test]
    fn gpu_time_only_is_skipped_where_the_timestamps_cannot_give_it() {
        let gpu_only = |samples: &Samples| {
            let mut info = BenchmarkInfo::new("test/gap", "test", MetricKind::TimePerOp, "gap");
            info.timing = TimingPreference::GpuOnly;
            summarise(
                &Profile::Default.settings(false),
                &info,
                samples,
                &measured(),
            )
        };
        let ms = Duration::from_millis;
        let mut unusable = Samples::default();
        for i in 0..10 {
            let gpu = (i < 3).then(|| ms(1));
            unusable.push(&timed(ms(2), gpu, HostSpan::OneSubmit), 1);
        }
        let skipped = gpu_only(&unusable);
        assert_eq!(skipped.status, Status::Skipped);
        let reason = skipped.reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("7 of its 10 samples had no usable pair"),
            "{reason}"
        );
        assert!(skipped.summary.is_none() && skipped.samples.is_empty());
        // The host clock disproves timestamps that span more than the whole submit.
        let mut impossible = Samples::default();
        for _ in 0..10 {
            impossible.push(&timed(ms(20), Some(ms(40)), HostSpan::OneSubmit), 1);
        }
        let disproved = gpu_only(&impossible);
        assert_eq!(disproved.status, Status::Skipped);
        let reason = disproved.reason.as_deref().unwrap_or_default();
        assert!(reason.contains("more than the host's whole"), "{reason}");
        assert!(
            !disproved.warnings.is_empty(),
            "the clock check's warning stays beside it"
        );
        // Usable timestamps state it.
        let mut usable = Samples::default();
        for _ in 0..10 {
            usable.push(&timed(ms(2), Some(ms(1)), HostSpan::OneSubmit), 1);
        }
        let stated = gpu_only(&usable);
        assert_eq!(stated.status, Status::Ok);
        assert_eq!(stated.timing, Some(TimingSource::GpuTimestamp));
    }

    #[test]
    fn a_first_run_is_slow_against_a_later_one_of_one_iteration_not_one_of_many() {
        // Samples of 100 iterations of 10 us, 1 ms each; a first run of 40 ms.
        let mut samples = Samples::default();
        for _ in 0..10 {
            samples.push(
                &timed(Duration::from_millis(1), None, HostSpan::OneSubmit),
                100,
            );
        }
        let slow = |one_iteration_us: Option<u64>| {
            let mut run = measured();
            run.iterations = 100;
            run.first.host = Duration::from_millis(40);
            run.one_iteration = one_iteration_us.map(Duration::from_micros);
            let result = summarised(&samples, MetricKind::TimePerOp, &run);
            let kind = gpubench_results::warnings::WarningKind::SlowFirstRun;
            result
                .warnings
                .iter()
                .find(|w| w.kind == kind)
                .and_then(|w| w.figure)
        };
        // A later one-iteration run of 0.5 ms (submit, wait and 10 us of work): 80x.
        assert_eq!(slow(Some(500)), Some(80.0));
        // One of 5 ms: the first run was no slower than its submit and wait make it.
        assert_eq!(slow(Some(5_000)), None);
        // Without one, a whole sample is the reference: 40x its 1 ms.
        assert_eq!(slow(None), Some(40.0));
    }

    #[test]
    fn samples_that_moved_part_way_warn_unless_the_run_is_for_a_set_duration() {
        // 15 samples of 1 ms, then 15 of 1.1 ms (a boost clock ending), host clock alone, and
        // two of no time on a coarse clock, which the result does not state as rates.
        let mut samples = Samples::default();
        for k in 0..32u64 {
            let host = match k {
                0..15 => Duration::from_micros(1000 + k % 3),
                15..30 => Duration::from_micros(1100 + k % 3),
                _ => Duration::ZERO,
            };
            samples.push(&timed(host, None, HostSpan::OneSubmit), 1);
        }
        let shift = |duration: Option<Duration>, host_step_us: u64| {
            let mut info = BenchmarkInfo::new("test/kernel", "test", MetricKind::Bandwidth, "b");
            info.duration = duration;
            let settings = Profile::Default.settings(false);
            let mut run = measured();
            run.clock_steps.host = Duration::from_micros(host_step_us);
            let result = summarise(&settings, &info, &samples, &run);
            let kind = gpubench_results::warnings::WarningKind::LevelShift;
            let found = result.warnings.iter().find(|w| w.kind == kind);
            found.map(|w| (w.message.clone(), w.figure))
        };
        let (message, figure) = shift(None, 0).expect("a 10% move warns");
        assert!(message.contains("before sample 16 of 30"), "{message}");
        assert!(message.contains("time per iteration 1.00 ms"), "{message}");
        assert!(figure.is_some_and(|f| (f - 10.0).abs() < 0.5), "{figure:?}");
        // The sustained suite's windows change over time on purpose: it reads them itself.
        assert_eq!(shift(Some(Duration::from_secs(10)), 0), None);
        // On a clock of 100 us steps the 100 us move is one step: the clock's, not the work's.
        assert_eq!(shift(None, 100), None);
        assert!(shift(None, 40).is_some());
    }

    #[test]
    fn a_sample_of_no_time_on_a_coarse_clock_is_no_rate_and_the_file_reads_back() {
        let mut samples = Samples::default();
        for host_us in [0, 100, 100, 200, 100, 0] {
            let host = Duration::from_micros(host_us);
            samples.push(&timed(host, None, HostSpan::OneSubmit), 1);
        }
        let result = summary_as(&samples, MetricKind::Bandwidth);
        assert_eq!(result.samples.len(), 4, "{:?}", result.samples);
        assert!(result.samples.iter().all(|v| v.is_finite()));
        assert_eq!(result.summary.as_ref().map(|s| s.n), Some(4));
        let text = serde_json::to_string(&result).expect("json");
        let back: BenchResult = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back.samples, result.samples);
        // As a time, a sample of no time is no 0 us either: the median stays the clock's 100 us.
        let time = summary_as(&samples, MetricKind::TimePerOp);
        assert_eq!(time.samples.len(), 4, "{:?}", time.samples);
        assert_eq!(time.summary.as_ref().map(|s| s.median), Some(100.0));
        // Nothing measurable at all: skipped, saying why, never an ok result without a figure.
        let mut nothing = Samples::default();
        for _ in 0..5 {
            nothing.push(&timed(Duration::ZERO, None, HostSpan::OneSubmit), 1);
        }
        let none = summary_as(&nothing, MetricKind::TimePerOp);
        assert_eq!(none.status, Status::Skipped);
        let reason = none.reason.expect("a reason");
        assert!(reason.contains("none of its 5 samples"), "{reason}");
    }

    #[test]
    fn fewer_than_six_samples_say_their_interval_covers_less_than_95_percent() {
        let few = |n: usize, capped: bool| {
            let mut samples = Samples::default();
            for k in 0..n as u64 {
                let host = Duration::from_micros(1000 + k);
                samples.push(&timed(host, None, HostSpan::OneSubmit), 1);
            }
            let info = BenchmarkInfo::new("test/kernel", "test", MetricKind::Bandwidth, "b");
            let mut run = measured();
            run.capped = capped;
            let result = summarise(&Profile::Quick.settings(false), &info, &samples, &run);
            let kind = FEW_SAMPLES.kind();
            let found = result.warnings.iter().find(|w| w.kind == kind);
            found.map(|w| (w.message.clone(), w.figure))
        };
        // Four samples: their range holds the median with 1 - 2/16 = 87.5%.
        let (message, figure) = few(4, false).expect("warned");
        assert!(message.contains("87.5%"), "{message}");
        assert_eq!(figure, Some(87.5));
        assert_eq!(few(6, false), None);
        // A time cap's own warning says so already.
        assert_eq!(few(4, true), None);
    }

    #[test]
    fn item_latencies_of_every_sample_make_the_percentiles_not_the_samples() {
        let mut samples = Samples::default();
        for k in 0..4u64 {
            samples.push(
                &SampleTiming {
                    host: HOST,
                    gpu: None,
                    gpu_rejected: false,
                    host_span: HostSpan::HostOnly,
                    host_spans: 0,
                    // Each sample carried 50 items of 1..=50 ms (and one slow one in the last).
                    item_latencies: (1..=50u64)
                        .map(|ms| Duration::from_millis(if k == 3 && ms == 50 { 900 } else { ms }))
                        .collect(),
                    item_stages: Vec::new(),
                },
                50,
            );
        }
        let latency = summary(&samples)
            .latency
            .expect("percentiles over the items");
        assert_eq!(latency.n, 200);
        assert!(
            (latency.p50_us - 25_000.0).abs() < 100.0,
            "{}",
            latency.p50_us
        );
        assert!(
            (latency.max_us - 900_000.0).abs() < 1_000.0,
            "{}",
            latency.max_us
        );
    }

    fn clock_warnings(result: &BenchResult) -> Vec<&str> {
        result
            .warnings
            .iter()
            .filter(|w| w.kind == gpubench_results::warnings::WarningKind::ClockDisagreement)
            .map(|w| w.message.as_str())
            .collect()
    }

    #[test]
    fn a_period_too_large_makes_gpu_time_exceed_host_time_and_warns() {
        // A 1 GHz counter read as if it ticked at 24 MHz: 19.5 ms become 812 ms.
        let result = summary(&samples(DEVICE_NS, PERIOD_24MHZ, HostSpan::UntilComplete));
        let warned = clock_warnings(&result);
        assert_eq!(warned.len(), 1, "{:?}", result.warnings);
        assert!(warned[0].contains("cannot exceed"), "{}", warned[0]);
        assert!(warned[0].contains("timestamp period"), "{}", warned[0]);
        // The headline is the host clock's, never the 812 ms the timestamps claim.
        assert_eq!(result.timing, Some(TimingSource::Host));
        assert!(result.gpu_summary.is_some());
    }

    #[test]
    fn a_period_of_one_on_a_24mhz_counter_warns_for_a_lone_submit() {
        // Metal's hard-coded 1.0 on a 24 MHz counter: 19.5 ms of work read as 0.47 ms.
        let ticks = (DEVICE_NS as f64 / PERIOD_24MHZ).round() as u64;
        let result = summary(&samples(ticks, 1.0, HostSpan::OneSubmit));
        let warned = clock_warnings(&result);
        assert_eq!(warned.len(), 1, "{:?}", result.warnings);
        assert!(warned[0].contains("runs slow or stops"), "{}", warned[0]);
        // Suspect, not impossible (a loaded host waits longer too): the GPU time stays.
        assert_eq!(result.timing, Some(TimingSource::GpuTimestamp));
        // The same reading where host work shares the window is not evidence of anything.
        let result = summary(&samples(ticks, 1.0, HostSpan::UntilComplete));
        assert!(clock_warnings(&result).is_empty(), "{:?}", result.warnings);
        assert_eq!(result.timing, Some(TimingSource::GpuTimestamp));
    }

    #[test]
    fn the_right_period_and_cpu_costs_do_not_warn() {
        let result = summary(&samples(DEVICE_NS, 1.0, HostSpan::OneSubmit));
        assert!(clock_warnings(&result).is_empty(), "{:?}", result.warnings);
        // A host clock stopped before completion measures a CPU cost: GPU time may exceed it.
        let result = summary(&samples(DEVICE_NS, PERIOD_24MHZ, HostSpan::HostOnly));
        assert!(clock_warnings(&result).is_empty(), "{:?}", result.warnings);
    }

    #[test]
    fn the_clock_check_judges_ahead_on_every_sample_and_behind_on_long_ones() {
        let pair = |host_ms: f64, gpu_ms: f64| ClockPair {
            host: host_ms / 1e3,
            gpu: gpu_ms / 1e3,
            span: HostSpan::OneSubmit,
        };
        // Ahead is impossible at any length: a 2 ms sample read 2x long is flagged (a period
        // overstated k times makes calibration stop at samples k times short of target).
        assert!(clock_check(&[pair(2.0, 4.0); 5], true, 0.0).is_some());
        // A short sample's GPU time may pass its host time by the clocks' steps, no more.
        assert_eq!(clock_check(&[pair(2.0, 2.2); 5], true, 0.0), None);
        // 2.5 ms of GPU time read against a host clock of 1 ms steps (about 2.8 ms read as 2):
        // within a step, so not ahead; with a fine host clock it would be.
        assert_eq!(clock_check(&[pair(2.0, 2.5); 5], true, 1e-3), None);
        assert!(clock_check(&[pair(2.0, 2.5); 5], true, 0.0).is_some());
        // Behind is judged on samples of 10 ms or more only: 9 ms ones are too short.
        assert_eq!(clock_check(&[pair(9.0, 0.5); 5], true, 0.0), None);
        // Within 5% above, and anything down to half, is accepted.
        assert_eq!(clock_check(&[pair(20.0, 20.9); 5], true, 0.0), None);
        assert_eq!(clock_check(&[pair(20.0, 10.5); 5], true, 0.0), None);
        let ahead = clock_check(&[pair(20.0, 21.5); 5], false, 0.0);
        assert_eq!(
            ahead,
            Some(Warning::ClockDisagreement {
                gpu_ms: 21.5,
                host_ms: 20.0,
                samples: 5
            })
        );
        // One wild sample does not decide: the check takes medians.
        let mut mixed = vec![pair(20.0, 19.0); 4];
        mixed.push(pair(20.0, 400.0));
        assert_eq!(clock_check(&mixed, true, 0.0), None);
        // Far below is flagged for calibrated work only: a latency probe's sample is latency.
        assert!(clock_check(&[pair(20.0, 0.5); 5], true, 0.0).is_some());
        assert_eq!(clock_check(&[pair(20.0, 0.5); 5], false, 0.0), None);
    }
}
