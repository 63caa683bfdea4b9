//! Timing one sample: GPU timestamps at the boundaries of the benchmark's work, and the host
//! clock from the start of the work until the GPU has finished it.
//!
//! The flow for GPU time: a query set of two timestamps; the benchmark asks the clock for
//! pass timestamp writes (begin on its first pass, end on its last) or writes them between
//! encoder commands; after the sample completes, the runner resolves the two queries into a
//! buffer, copies that into a mappable one, maps it and converts ticks to nanoseconds with the
//! queue's timestamp period. A pair whose end is not after its start is rejected.
//!
//! On adapters whose timestamps exist only at pass boundaries (no
//! TIMESTAMP_QUERY_INSIDE_ENCODERS, as on Apple GPUs), a timestamp asked for between encoder
//! commands goes on an empty compute pass instead, so a copy stays GPU-timed there too.
//!
//! Host time starts at [`SampleClock::start_host`] (or at the first submit if the benchmark never
//! called it) and ends when the device reports the last submission complete, found by a blocking
//! wait or, where the benchmark asked for it ([`SampleClock::spin_wait`]), by polling in a loop.
//! So both clocks time completion, never mere submission. A benchmark that measures a CPU cost
//! (recording, the submit call) stops the host clock itself ([`SampleClock::stop_host`]); one
//! whose figure is host work between untimed waits adds up its spans of that work instead
//! ([`SampleClock::time_on_host`]). Either way the sample still waits for the device before
//! the next one starts. [`SampleTiming::host_span`]
//! says which of these the host time covers, which decides whether the two clocks can be
//! compared (see the runner's clock check).

// web-time's Instant is std's natively; std's panics on wasm32-unknown-unknown.
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use web_time::Instant;

use crate::context::GpuContext;
use crate::error::BenchError;
use crate::item_trace::ItemStage;
use crate::timestamp_step::{MIN_VALUES, Quantum, TimestampStep};

/// Which end of the timed work a timestamp marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// Before the first timed command.
    Begin,
    /// After the last timed command.
    End,
}

const BEGIN_QUERY: u32 = 0;
const END_QUERY: u32 = 1;

/// The query set and buffers for one pair of timestamps, reused across samples.
pub struct TimestampQueries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
    inside_encoders: bool,
    /// The step the device's values were seen to take (shared by the context's runners).
    step: Arc<TimestampStep>,
    /// A coarser step forced on the values (a test's stand-in for a browser's quantized ones).
    quantum: Option<Quantum>,
    /// The last pair read, as the device gave it ([`repeats`]).
    last: [AtomicU64; 2],
}

impl TimestampQueries {
    /// Creates the queries when the device can write timestamps; `None` otherwise.
    pub fn new(ctx: &GpuContext) -> Option<Self> {
        let period_ns = ctx.timestamp_period_ns?;
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpubench timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let size = 2 * wgpu::QUERY_SIZE as u64;
        let resolve = ctx.buffer(
            "gpubench timestamp resolve",
            size,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let readback = ctx.buffer(
            "gpubench timestamp readback",
            size,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        Some(Self {
            set,
            resolve,
            readback,
            period_ns,
            inside_encoders: ctx.has_encoder_timestamps(),
            step: Arc::clone(ctx.timestamp_step()),
            quantum: ctx
                .timestamp_quantum()
                .map(|step| Quantum::new(step, period_ns)),
            last: [AtomicU64::new(0), AtomicU64::new(0)],
        })
    }

    /// The step of these timestamps: their period, or the coarser step their values were seen
    /// to take ([`crate::timestamp_step`]).
    pub fn resolution(&self) -> Duration {
        self.step.resolution(self.period_ns)
    }

    /// Reads the timestamps of empty passes until the device's step is known (a no-op once it
    /// is): at most [`MIN_VALUES`] values, one submit and read-back per pair.
    pub async fn learn_step(&self, ctx: &GpuContext) -> Result<(), BenchError> {
        for _ in 0..MIN_VALUES.div_ceil(2) {
            if self.step.known() {
                break;
            }
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            drop(encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpubench timestamp step"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &self.set,
                    beginning_of_pass_write_index: Some(BEGIN_QUERY),
                    end_of_pass_write_index: Some(END_QUERY),
                }),
            }));
            ctx.queue.submit([encoder.finish()]);
            self.read(ctx).await?;
        }
        Ok(())
    }

    /// Resolves both queries and returns the elapsed GPU time, or `None` when the pair is not
    /// usable (end not after start).
    async fn read(&self, ctx: &GpuContext) -> Result<Option<Duration>, BenchError> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.resolve_query_set(&self.set, BEGIN_QUERY..END_QUERY + 1, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, self.resolve.size());
        ctx.queue.submit([encoder.finish()]);
        let bytes = ctx.map_and_read(&self.readback).await?;
        let read: &[u64] = bytemuck::try_cast_slice(&bytes)
            .map_err(|e| BenchError::Readback(format!("timestamp buffer: {e}")))?;
        let raw = [read[0], read[1]];
        let last = [0, 1].map(|i| self.last[i].swap(raw[i], Ordering::Relaxed));
        if repeats(last, raw) {
            return Ok(None);
        }
        let ticks = raw.map(|t| self.quantum.map_or(t, |q| q.apply(t)));
        self.step.observe(&ticks);
        Ok(ticks_to_duration(ticks[0], ticks[1], self.period_ns))
    }
}

/// Whether a pair of timestamps, as the device gave them, is no fresh measurement: either value
/// the same as the one read at its index the time before (a device that does not reset its
/// queries, as Metal's counter sample buffers do not, leaves one the GPU did not write at the
/// last sample's value; a running counter never repeats), or the end Metal's error value,
/// `u64::MAX`. A stale pair would pass every other check with a plausible, constant time.
fn repeats(last: [u64; 2], now: [u64; 2]) -> bool {
    let stale = last.iter().zip(now).any(|(&was, is)| was != 0 && was == is);
    stale || now[1] == u64::MAX
}

/// Elapsed time between two timestamps, or `None` when end is not after start (a reset
/// counter, a driver that reorders, or an unwritten query) or either is zero: Metal resolves
/// the timestamps of a pass with no dispatch in it to 0 (reported on Apple M2), and a pair
/// from 0 would time the counter's whole age. No running GPU counter reads 0.
pub fn ticks_to_duration(begin: u64, end: u64, period_ns: f64) -> Option<Duration> {
    if begin == 0 || end <= begin {
        return None;
    }
    let nanos = (end - begin) as f64 * period_ns;
    // At least 1 ns: a pair one tick apart on a sub-nanosecond clock is a real, short interval.
    (nanos.is_finite() && nanos > 0.0).then(|| Duration::from_nanos((nanos.round() as u64).max(1)))
}

/// What a sample's host time covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostSpan {
    /// From the sample's only submit until the device finished it: the GPU work plus the
    /// latency of one submit and of noticing completion, nothing else.
    OneSubmit,
    /// From host-side work (recording, filling a staging buffer) or from the first of several
    /// submits until the device finished: the GPU may have idled inside it.
    UntilComplete,
    /// Stopped on the host before the device finished ([`SampleClock::stop_host`]), or spans
    /// of host work added up ([`SampleClock::time_on_host`]): a CPU cost, which GPU time is no
    /// check on.
    HostOnly,
}

/// How the sample waits for the device to finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaitMode {
    /// `device.poll(Wait)`: the thread sleeps in the driver until the fence signals.
    Block,
    /// `device.poll(Wait)` with a zero timeout in a loop, yielding between polls: the thread
    /// never sleeps in the driver.
    Spin,
}

/// What one sample measured.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleTiming {
    /// Host clock: start of the work until the GPU finished it (or until the benchmark stopped
    /// it, or the sum of its timed spans of host work: see `host_span`, `host_spans`).
    pub host: Duration,
    /// GPU timestamps around the work, when both were written and valid.
    pub gpu: Option<Duration>,
    /// Whether the benchmark wrote both timestamps but the pair was rejected.
    pub gpu_rejected: bool,
    /// What `host` covers.
    pub host_span: HostSpan,
    /// How many spans of host work `host` adds up ([`SampleClock::time_on_host`]; 0 where the
    /// host clock ran as one span): the clock's step weighs on each span, not on the sum.
    pub host_spans: u32,
    /// The latencies of the items the sample carried through in flight together (requests of a
    /// pipelined path), each from its start to its end, when the benchmark recorded them
    /// ([`SampleClock::record_item_latency`]).
    pub item_latencies: Vec<Duration>,
    /// The stages of the items the sample carried, when the benchmark recorded them
    /// ([`SampleClock::record_item_stage`]).
    pub item_stages: Vec<ItemStage>,
}

/// One sample as a benchmark records it: the context to record on, how many iterations to do,
/// and the clocks (timestamps at the boundaries the benchmark marks, the host clock until the
/// device finishes). Created by the runner for each sample.
pub struct SampleClock<'a> {
    ctx: &'a GpuContext,
    iterations: u32,
    queries: Option<&'a TimestampQueries>,
    host_start: Option<Instant>,
    /// Whether the host clock was started by the benchmark rather than by a submit.
    started_by_benchmark: bool,
    host_end: Option<Instant>,
    /// The host spans [`SampleClock::time_on_host`] added up, each as the host clock read it,
    /// and how many, where the benchmark timed its work that way.
    host_spans: Option<(Duration, u32)>,
    submits: u32,
    wait: WaitMode,
    last_submission: Option<wgpu::SubmissionIndex>,
    wrote_begin: bool,
    wrote_end: bool,
    item_latencies: Vec<Duration>,
    item_stages: Vec<ItemStage>,
}

impl<'a> SampleClock<'a> {
    pub(crate) fn new(
        ctx: &'a GpuContext,
        queries: Option<&'a TimestampQueries>,
        iterations: u32,
    ) -> Self {
        Self {
            ctx,
            iterations,
            queries,
            host_start: None,
            started_by_benchmark: false,
            host_end: None,
            host_spans: None,
            submits: 0,
            wait: WaitMode::Block,
            last_submission: None,
            wrote_begin: false,
            wrote_end: false,
            item_latencies: Vec::new(),
            item_stages: Vec::new(),
        }
    }

    /// Records the latency of one item this sample carried (a request, from its start to its
    /// end), for a benchmark whose sample is many items in flight together: the result's
    /// latency percentiles are then over the items of every timed sample, not over samples.
    pub fn record_item_latency(&mut self, latency: Duration) {
        self.item_latencies.push(latency);
    }

    /// Records one stage of one item this sample carried (`item`'s `stage`, from `start` to
    /// `end` on the host clock): the result keeps a typical sample's first items as its
    /// timeline (`extra.item_timeline`).
    pub fn record_item_stage(
        &mut self,
        item: u64,
        stage: &'static str,
        start: Instant,
        end: Instant,
    ) {
        self.item_stages.push(ItemStage {
            item,
            stage,
            start,
            end,
        });
    }

    /// The context the sample runs on.
    pub fn ctx(&self) -> &'a GpuContext {
        self.ctx
    }

    /// Iterations this sample does: the benchmark repeats its work this many times.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Starts the host clock now (for work that begins on the host, e.g. filling a staging
    /// buffer). Calling it again has no effect.
    pub fn start_host(&mut self) {
        if self.host_start.is_none() {
            self.started_by_benchmark = true;
            self.host_start = Some(Instant::now());
        }
    }

    /// Runs `work`, timing it on the host clock, and adds that to the sample's host time: for a
    /// benchmark whose figure is host work done in pieces with untimed waits between them
    /// (each check of an output downloaded afresh). The sample's host time is then the sum of
    /// these spans and nothing else; the benchmark starts and stops no other host clock.
    pub fn time_on_host<T>(&mut self, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = work();
        // Each span as the clock reads it: a coarse clock's step falls on every span.
        let span = self.ctx.host_clock().read(start.elapsed());
        let (sum, count) = self.host_spans.get_or_insert((Duration::ZERO, 0));
        *sum += span;
        *count += 1;
        out
    }

    /// Stops the host clock now, before the device has finished: for a benchmark whose figure is
    /// a CPU cost (recording commands, the submit call). The sample still waits for the device
    /// afterwards. Calling it again has no effect.
    pub fn stop_host(&mut self) {
        self.host_end.get_or_insert_with(Instant::now);
    }

    /// Waits for this sample's completion by polling in a loop (the thread never sleeps in the
    /// driver; it yields its core between polls) instead of a blocking wait: what a
    /// latency-bound application can do, at the cost of a busy core.
    pub fn spin_wait(&mut self) {
        self.wait = WaitMode::Spin;
    }

    /// Timestamp writes for a compute pass: `begin` on the first timed pass, `end` on the last
    /// (both on a single pass). `None` when the device has no timestamps.
    pub fn pass_timestamps(
        &mut self,
        begin: bool,
        end: bool,
    ) -> Option<wgpu::ComputePassTimestampWrites<'a>> {
        let queries = self.queries?;
        if !begin && !end {
            return None;
        }
        self.wrote_begin |= begin;
        self.wrote_end |= end;
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &queries.set,
            beginning_of_pass_write_index: begin.then_some(BEGIN_QUERY),
            end_of_pass_write_index: end.then_some(END_QUERY),
        })
    }

    /// Writes a timestamp between encoder commands (for copies, which have no pass). Where the
    /// device has timestamps only at pass boundaries (no TIMESTAMP_QUERY_INSIDE_ENCODERS, as on
    /// Apple GPUs), the timestamp goes on an empty compute pass recorded here instead: on
    /// Vulkan a pass's timestamps wait, like encoder ones, for every earlier command to finish;
    /// on Metal the pass is an encoder of its own next to the copy's, the finest boundary those
    /// GPUs can sample. Does nothing when the device has no timestamps; the sample then has
    /// host time only.
    pub fn write_timestamp(&mut self, encoder: &mut wgpu::CommandEncoder, boundary: Boundary) {
        let Some(queries) = self.queries else {
            return;
        };
        let index = match boundary {
            Boundary::Begin => BEGIN_QUERY,
            Boundary::End => END_QUERY,
        };
        if queries.inside_encoders {
            encoder.write_timestamp(&queries.set, index);
        } else {
            let writes = wgpu::ComputePassTimestampWrites {
                query_set: &queries.set,
                beginning_of_pass_write_index: (boundary == Boundary::Begin).then_some(index),
                end_of_pass_write_index: (boundary == Boundary::End).then_some(index),
            };
            // Nothing is recorded in the pass: it exists to carry the timestamp.
            drop(encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpubench timestamp"),
                timestamp_writes: Some(writes),
            }));
        }
        match boundary {
            Boundary::Begin => self.wrote_begin = true,
            Boundary::End => self.wrote_end = true,
        }
    }

    /// Whether timestamps written with [`SampleClock::write_timestamp`] go on empty compute
    /// passes, because the device has timestamps only at pass boundaries.
    pub fn timestamps_on_empty_passes(&self) -> bool {
        self.queries.is_some_and(|q| !q.inside_encoders)
    }

    /// Submits command buffers. Starts the host clock if the benchmark has not.
    pub fn submit<I: IntoIterator<Item = wgpu::CommandBuffer>>(&mut self, buffers: I) {
        if self.host_start.is_none() {
            self.host_start = Some(Instant::now());
        }
        self.submits += 1;
        self.last_submission = Some(self.ctx.queue.submit(buffers));
    }

    /// What the host clock covers, by how the benchmark drove it.
    fn host_span(&self) -> HostSpan {
        if self.host_end.is_some() || self.host_spans.is_some() {
            HostSpan::HostOnly
        } else if self.submits == 1 && !self.started_by_benchmark {
            HostSpan::OneSubmit
        } else {
            HostSpan::UntilComplete
        }
    }

    /// Waits (blocking in the driver, or spinning, see [`SampleClock::spin_wait`]) until `index`
    /// is done; either way a stop request ends the wait early ([`BenchError::Interrupted`]).
    async fn wait_for(&self, index: wgpu::SubmissionIndex) -> Result<(), BenchError> {
        // A browser (wasm32) cannot spin: its device is polled by the page's event loop.
        if self.wait == WaitMode::Block || cfg!(target_arch = "wasm32") {
            return self.ctx.wait_for(Some(index)).await;
        }
        let device = &self.ctx.device;
        loop {
            let poll = wgpu::PollType::Wait {
                submission_index: Some(index.clone()),
                timeout: Some(Duration::ZERO),
            };
            match device.poll(poll) {
                Ok(_) => return Ok(()),
                Err(wgpu::PollError::Timeout) if self.ctx.stop_requested() => {
                    return Err(BenchError::Interrupted);
                }
                // Yield, not a bare spin hint: where the device is the host's own CPU
                // (lavapipe) a thread holding its core holds the device back (a bare spin put
                // the p95 round trip at 2-2.6 ms, a yielding one at 0.09-0.18 ms). Where no
                // other thread is waiting, the yield returns at once.
                Err(wgpu::PollError::Timeout) => std::thread::yield_now(),
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// Waits for the last submission (if any), stops the host clock and reads the timestamps.
    pub(crate) async fn finish(self) -> Result<SampleTiming, BenchError> {
        let start = self.host_start.unwrap_or_else(Instant::now);
        let host_span = self.host_span();
        if let Some(index) = self.last_submission.clone()
            && let Err(error) = self.wait_for(index).await
        {
            // A failed submit (e.g. on a destroyed device) makes the wait fail. One more
            // non-blocking poll lets wgpu run its maintenance, which reports device loss to
            // the callback, so the runner can say "device lost" instead of "wait failed".
            let _ = self.ctx.device.poll(wgpu::PollType::Poll);
            return Err(error);
        }
        let (host, host_spans) = match (self.host_spans, self.host_end) {
            (Some((sum, count)), _) => (sum, count),
            (None, Some(end)) => (
                self.ctx
                    .host_clock()
                    .read(end.saturating_duration_since(start)),
                0,
            ),
            (None, None) => (self.ctx.host_clock().read(start.elapsed()), 0),
        };
        let (gpu, gpu_rejected) = match self.queries {
            Some(queries) if self.wrote_begin && self.wrote_end => {
                let gpu = queries.read(self.ctx).await?;
                (gpu, gpu.is_none())
            }
            _ => (None, false),
        };
        Ok(SampleTiming {
            host,
            gpu,
            gpu_rejected,
            host_span,
            host_spans,
            item_latencies: self.item_latencies,
            item_stages: self.item_stages,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pair repeating either value of the pair before it is stale (an index the device did
    /// not write this time); Metal's error value is no end; fresh pairs, and a first read
    /// after nothing, pass.
    #[test]
    fn stale_and_error_timestamps_are_no_measurement() {
        assert!(!repeats([0, 0], [100, 200]), "the first read");
        assert!(!repeats([100, 200], [300, 450]));
        assert!(repeats([100, 200], [100, 450]), "begin not written");
        assert!(repeats([100, 200], [300, 200]), "end not written");
        assert!(repeats([100, 200], [300, u64::MAX]), "Metal's error value");
        // Metal's empty passes resolve to zero: zeros are rejected elsewhere, never stale.
        assert!(!repeats([0, 0], [0, 0]));
    }

    #[test]
    fn timestamps_convert_with_period_and_reject_backwards_pairs() {
        assert_eq!(
            ticks_to_duration(100, 1100, 1.0),
            Some(Duration::from_nanos(1000))
        );
        assert_eq!(
            ticks_to_duration(1, 1001, 83.333),
            Some(Duration::from_nanos(83_333))
        );
        // An unwritten begin (Metal's empty pass reads 0) is no interval from boot.
        assert_eq!(ticks_to_duration(0, 1000, 83.333), None);
        assert_eq!(ticks_to_duration(500, 500, 1.0), None);
        assert_eq!(ticks_to_duration(500, 400, 1.0), None);
    }

    /// A buffer copy timed by [`SampleClock::write_timestamp`], as the copy-engine and transfer
    /// benchmarks time theirs: `copies` copies of `bytes` an iteration between the two
    /// timestamps.
    struct TimedCopy {
        bytes: u64,
        copies: u32,
        /// One copy run a sample, never calibrated longer.
        once_a_sample: bool,
        /// Copies the wrong source in every run after the first: work the device got wrong in
        /// the timed batches, though the first run, checked before timing, was right.
        wrong_after_the_first_run: bool,
        /// Copies nothing in every run after the first: work a driver dropped from the timed
        /// batches, which leaves the first run's right output in place.
        dropped_after_the_first_run: bool,
    }

    struct CopyState {
        /// Runs made since set-up.
        runs: u32,
        src: wgpu::Buffer,
        zeros: wgpu::Buffer,
        dst: wgpu::Buffer,
        data: Vec<u8>,
    }

    impl TimedCopy {
        /// `copies` copies of `bytes` an iteration, calibrated, right in every run.
        fn of(bytes: u64, copies: u32) -> Self {
            Self {
                bytes,
                copies,
                once_a_sample: false,
                wrong_after_the_first_run: false,
                dropped_after_the_first_run: false,
            }
        }
    }

    impl crate::Kernel for TimedCopy {
        type State = CopyState;

        fn info(&self) -> crate::BenchmarkInfo {
            let mut info = crate::BenchmarkInfo::new(
                "test/timed-copy",
                "test",
                crate::MetricKind::TimePerOp,
                "microseconds per copy",
            );
            if self.once_a_sample {
                info.iterations = crate::IterationPolicy::Fixed(1);
            }
            info
        }

        async fn setup(&self, ctx: &GpuContext) -> crate::Outcome<CopyState> {
            let data = gpubench_results::rng::SplitMix64::new(7).bytes(self.bytes as usize);
            let src = ctx.buffer_with_data("src", &data, wgpu::BufferUsages::COPY_SRC);
            let usage = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
            let dst = ctx.buffer("dst", self.bytes, usage);
            let zeros = ctx.buffer("zeros", self.bytes, usage);
            Ok(CopyState {
                runs: 0,
                src,
                zeros,
                dst,
                data,
            })
        }

        fn work(&self, _state: &CopyState) -> crate::Work {
            crate::Work::bytes(self.bytes, self.bytes)
        }

        async fn run(&self, state: &mut CopyState, clock: &mut SampleClock<'_>) -> crate::Outcome {
            let mut encoder = clock
                .ctx()
                .device
                .create_command_encoder(&Default::default());
            clock.write_timestamp(&mut encoder, Boundary::Begin);
            let src = if self.wrong_after_the_first_run && state.runs > 0 {
                &state.zeros
            } else {
                &state.src
            };
            let dropped = self.dropped_after_the_first_run && state.runs > 0;
            state.runs += 1;
            let copies = if dropped { 0 } else { self.copies };
            for _ in 0..copies * clock.iterations() {
                encoder.copy_buffer_to_buffer(src, 0, &state.dst, 0, self.bytes);
            }
            clock.write_timestamp(&mut encoder, Boundary::End);
            clock.submit([encoder.finish()]);
            Ok(())
        }

        async fn verify(
            &self,
            state: &mut CopyState,
            ctx: &GpuContext,
        ) -> crate::Outcome<crate::Verification> {
            let got = ctx.read_buffer(&state.dst, self.bytes).await?;
            let mismatches = if self.copies == 0 {
                0
            } else {
                got.iter().zip(&state.data).filter(|(a, b)| a != b).count() as u64
            };
            Ok(crate::Verification {
                checked: self.bytes,
                mismatches,
                first_mismatches: Vec::new(),
            })
        }
    }

    /// Spans of host work added up are the sample's host time, counted, and host only: the
    /// wait between them (a sleep standing in for a download) is not in it.
    #[test]
    fn timed_spans_of_host_work_add_up_to_the_host_time() {
        let Some(ctx) = crate::testing::require_vulkan() else {
            return;
        };
        let mut clock = SampleClock::new(&ctx, None, 2);
        for _ in 0..2 {
            std::thread::sleep(Duration::from_millis(30));
            clock.time_on_host(|| std::thread::sleep(Duration::from_millis(5)));
        }
        let timing = pollster::block_on(clock.finish()).expect("finishes");
        assert_eq!(timing.host_spans, 2);
        assert_eq!(timing.host_span, HostSpan::HostOnly);
        assert!(
            timing.host >= Duration::from_millis(10) && timing.host < Duration::from_millis(40),
            "{:?}",
            timing.host
        );
    }

    #[test]
    fn copies_stay_gpu_timed_where_only_passes_carry_timestamps_on_an_adapter() {
        let Some(mut ctx) = crate::testing::require_vulkan() else {
            return;
        };
        assert!(ctx.has_pass_timestamps(), "lavapipe has timestamp queries");
        ctx.use_pass_timestamps_only();
        assert!(!ctx.has_encoder_timestamps());
        let queries = TimestampQueries::new(&ctx).expect("timestamp queries");
        assert!(SampleClock::new(&ctx, Some(&queries), 1).timestamps_on_empty_passes());

        let runner = crate::Runner::new(&ctx, crate::testing::short_settings());
        let mut copy = crate::KernelBench::new(TimedCopy::of(1 << 20, 1));
        let result = pollster::block_on(runner.run(&mut copy, &mut crate::runner::Silent));
        assert_eq!(result.status, crate::Status::Ok, "{:?}", result.reason);
        assert_eq!(result.timing, Some(crate::TimingSource::GpuTimestamp));
        assert!(result.host_summary.is_some(), "host time beside GPU time");

        // The copies lie between the two empty passes' timestamps: many megabytes of copying
        // take far longer on the device than two empty passes with nothing between them.
        // The least of three samples each: a busy host (tests run side by side on lavapipe's
        // threads) only ever adds time, and once put 4 ms between two empty passes.
        let gpu_time = |copies: u32| {
            let mut bench = crate::KernelBench::new(TimedCopy::of(8 << 20, copies));
            pollster::block_on(runner.prepare(&mut bench)).expect("prepare");
            (0..3)
                .map(|_| {
                    let timing =
                        pollster::block_on(runner.time_sample(&mut bench, 1)).expect("sample");
                    assert!(!timing.gpu_rejected);
                    timing.gpu.expect("GPU time of the sample")
                })
                .min()
                .expect("three samples")
        };
        let (empty, copying) = (gpu_time(0), gpu_time(8));
        assert!(
            copying > empty * 4,
            "8 copies of 8 MiB took {copying:?} on the GPU, two empty passes {empty:?}"
        );
    }

    /// Work that is right in one run but wrong, or dropped, in the timed batches fails: the
    /// output is checked again after the samples, and what the first check read was
    /// overwritten before them, so a dropped batch cannot pass on the first run's output.
    #[test]
    fn work_wrong_or_dropped_only_in_the_timed_batches_fails_on_an_adapter() {
        let Some(ctx) = crate::testing::require_vulkan() else {
            return;
        };
        let runner = crate::Runner::new(&ctx, crate::testing::short_settings());
        let wrong = TimedCopy {
            wrong_after_the_first_run: true,
            ..TimedCopy::of(1 << 20, 1)
        };
        let dropped = TimedCopy {
            dropped_after_the_first_run: true,
            ..TimedCopy::of(1 << 20, 1)
        };
        for copy in [wrong, dropped] {
            let mut copy = crate::KernelBench::new(copy);
            let result = pollster::block_on(runner.run(&mut copy, &mut crate::runner::Silent));
            assert_eq!(result.status, crate::Status::Failed, "{:?}", result.reason);
            let reason = result.reason.unwrap_or_default();
            assert!(reason.contains("after the timed samples"), "{reason}");
            assert!(result.summary.is_none(), "a wrong answer has no figure");
        }
    }

    /// A browser's quantized timestamps on a native adapter: with every timestamp cut to 1 ms
    /// steps, the stated resolution is the step the values take, not the 1 ns period;
    /// calibration makes samples span enough of those steps; and a single copy far shorter
    /// than a step is not given a GPU figure made of zero-or-one steps unmarked.
    #[test]
    fn quantized_timestamps_are_detected_and_samples_lengthened_on_an_adapter() {
        let Some(mut ctx) = crate::testing::require_vulkan() else {
            return;
        };
        let mut settings = crate::testing::short_settings();
        settings.max_time = Duration::from_secs(2);
        let run_on = |ctx: &GpuContext, once_a_sample: bool| {
            let runner = crate::Runner::new(ctx, settings.clone());
            let mut copy = crate::KernelBench::new(TimedCopy {
                once_a_sample,
                ..TimedCopy::of(1 << 20, 1)
            });
            pollster::block_on(runner.run(&mut copy, &mut crate::runner::Silent))
        };
        // First at the device's own step (lavapipe's timestamps are nanoseconds), which the
        // context learns and must forget once its timestamps are quantized.
        let fine = run_on(&ctx, false);
        let fine_us = fine.extra[crate::host_clock::RESOLUTION_KEY].as_f64();
        assert!(fine_us.is_some_and(|us| us < 1.0), "{fine_us:?}");
        ctx.quantize_timestamps(Duration::from_millis(1));
        let run = |once_a_sample: bool| run_on(&ctx, once_a_sample);
        let calibrated = run(false);
        assert_eq!(
            calibrated.status,
            crate::Status::Ok,
            "{:?}",
            calibrated.reason
        );
        assert_eq!(
            calibrated.timing,
            Some(crate::TimingSource::GpuTimestamp),
            "{} per sample, {:?}",
            calibrated.iterations_per_sample,
            calibrated.warnings
        );
        assert_eq!(
            calibrated.extra[crate::host_clock::RESOLUTION_KEY].as_f64(),
            Some(1000.0),
            "the step the quantized values take, in us"
        );
        // Calibration aims at 40 steps of 1 ms where the fine clock asked for the 2 ms target:
        // about 20 times the iterations. Compared as a count, not as the samples' length, which
        // swings with the host's load on a software adapter (its GPU is the CPU); a fifth of
        // that still tells lengthened samples from ones calibrated to the host clock.
        let lengthened =
            f64::from(calibrated.iterations_per_sample) / f64::from(fine.iterations_per_sample);
        assert!(
            lengthened >= 4.0,
            "{} per sample at 1 ms steps, {} at the device's own: samples {:?}",
            calibrated.iterations_per_sample,
            fine.iterations_per_sample,
            calibrated.samples
        );

        let single = run(true);
        assert_eq!(single.status, crate::Status::Ok, "{:?}", single.reason);
        let coarse = crate::host_clock::COARSE_CLOCK.kind();
        let marked = single.warnings.iter().any(|w| w.kind == coarse);
        assert!(
            single.timing == Some(crate::TimingSource::Host) || marked,
            "a 1 MiB copy timed by 1 ms timestamps, unmarked: {:?} {:?}",
            single.timing,
            single.warnings
        );
    }
}
