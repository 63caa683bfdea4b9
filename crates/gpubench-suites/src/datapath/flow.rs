//! Whole requests, end to end, in three arrangements:
//!
//! - `serial`: one request at a time. A sample is one request, timed by one host-clock span
//!   from the start of its preparation to the end of its check, independent of the stage
//!   timers; GPU timestamps bracket its device part (upload to download). The latency
//!   percentiles are over these spans.
//! - `overlap-K`: K requests in flight, each in a slot of its own (so no buffer orders one
//!   after another): while the device works on some, the host prepares the next and checks
//!   the last. A sample carries `REQUESTS` + 1 requests; its clock runs from the first
//!   request's completion to the last one's, so it covers `REQUESTS` steady intervals and no
//!   filling of the pipeline. Each request's own latency (start of preparation to end of
//!   check) is recorded, so its percentiles stand beside the interval.
//! - `batch-B`: B requests per submission: B inputs prepared, one submit carrying every
//!   upload, kernel and download, then every output checked. A sample is one batch; each
//!   request's latency is the whole batch's.
//!
//! Every arrangement records each request's stages as the host sees them ([`STAGES`]), so the
//! result keeps a typical sample's first requests as its item timeline (`extra.item_timeline`,
//! drawn as a Gantt chart): what overlapped, measured rather than assumed.
//!
//! A request whose output is wrong fails the row (it is never counted as throughput).
//! wgpu has one queue: the overlap it allows is host work against device work, and device
//! copies against kernels only where the driver runs them so; the rows measure what happened.

use std::collections::VecDeque;
// web-time's Instant is std's natively; std's panics on wasm32-unknown-unknown.
use web_time::Instant;

use gpubench_harness::timing::Boundary;
use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, IterationPolicy, Kernel, Outcome, SampleClock,
    TimingPreference, Verification, Work,
};

use super::path::{self, Prepared};
use super::request::Request;

/// Requests per sample of the overlapped path (one more is run to fill the pipeline).
pub const REQUESTS: u32 = 16;

/// How requests go through the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// One at a time.
    Serial,
    /// This many in flight.
    Overlap(u32),
    /// This many per submission.
    Batch(u32),
}

impl Flow {
    /// Its name in ids (`serial`, `overlap-2`, `batch-16`).
    pub fn name(self) -> String {
        match self {
            Flow::Serial => "serial".to_string(),
            Flow::Overlap(k) => format!("overlap-{k}"),
            Flow::Batch(b) => format!("batch-{b}"),
        }
    }

    /// Slots (buffers of requests) it needs.
    fn slots(self) -> usize {
        match self {
            Flow::Serial => 1,
            Flow::Overlap(k) | Flow::Batch(k) => k as usize,
        }
    }

    fn counts(self) -> &'static str {
        match self {
            Flow::Serial => {
                "time of one request end to end (prepare, upload, compute, download, check), one at a time"
            }
            Flow::Overlap(_) => {
                "steady interval between request completions with requests in flight together"
            }
            Flow::Batch(_) => {
                "time per request of a batch submitted together, end to end; its latency percentiles are whole batches' (each request waits for its batch), one per batch"
            }
        }
    }
}

/// Whole requests of one workload, in one arrangement.
pub struct FlowKernel {
    request: Request,
    flow: Flow,
    seed: u64,
    samples: usize,
    skip: Option<String>,
}

impl FlowKernel {
    /// `request` through `flow`, with at least `samples` samples.
    pub fn new(request: Request, flow: Flow, seed: u64, samples: usize) -> Self {
        Self {
            request,
            flow,
            seed,
            samples,
            skip: None,
        }
    }

    /// This row, recorded as skipped with `reason` instead of run.
    pub fn skipped(mut self, reason: String) -> Self {
        self.skip = Some(reason);
        self
    }

    /// The work of one iteration: a request (a batch's requests), each moving its input to the
    /// device and its output back once, counted as the stages count them (toward the device
    /// written, back from it read), with its kernel's FLOP.
    fn declared_work(&self) -> Work {
        let requests = match self.flow {
            Flow::Batch(b) => u64::from(b),
            Flow::Serial | Flow::Overlap(_) => 1,
        };
        Work {
            bytes_read: self.request.output_bytes * requests,
            bytes_written: self.request.input_bytes * requests,
            flops: self.request.flops() * requests,
            ops: requests,
            int_ops: 0,
        }
    }
}

impl Kernel for FlowKernel {
    type State = Prepared;

    fn info(&self) -> BenchmarkInfo {
        let name = self.flow.name();
        let mut info = self
            .request
            .info(&name, self.flow.counts(), ("flow", &name));
        info.timing = TimingPreference::Host;
        info.iterations = match self.flow {
            Flow::Serial | Flow::Batch(_) => IterationPolicy::Fixed(1),
            Flow::Overlap(_) => IterationPolicy::Fixed(REQUESTS),
        };
        info.min_samples = Some(self.samples);
        match self.flow {
            Flow::Overlap(k) => info.param("in_flight", k),
            Flow::Batch(b) => info.param("batch", b),
            // One in flight: the first point of the in-flight curve.
            Flow::Serial => info.param("in_flight", 1),
        }
    }

    fn check_support(&self, _ctx: &GpuContext) -> Result<(), String> {
        self.skip.clone().map_or(Ok(()), Err)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<Prepared> {
        path::prepared(ctx, &self.request, self.seed, self.flow.slots()).await
    }

    fn work(&self, _state: &Prepared) -> Work {
        self.declared_work()
    }

    async fn run(&self, state: &mut Prepared, clock: &mut SampleClock<'_>) -> Outcome {
        match self.flow {
            Flow::Serial => serial(state, clock).await,
            Flow::Overlap(_) => overlapped(state, clock).await,
            Flow::Batch(_) => batch(state, clock).await,
        }
    }

    async fn verify(&self, state: &mut Prepared, ctx: &GpuContext) -> Outcome<Verification> {
        path::verify_one_request(ctx, state).await
    }
}

/// A wrong output, as the row's failure.
fn wrong(found: super::reference::Mismatches, k: u64) -> Outcome {
    match found.failure() {
        Some(reason) => Err(BenchError::Gpu(format!(
            "request {k} returned a wrong answer: {reason}"
        ))),
        None => Ok(()),
    }
}

/// One request end to end, its device part bracketed by timestamps.
async fn serial(state: &mut Prepared, clock: &mut SampleClock<'_>) -> Outcome {
    let ctx = clock.ctx();
    let k = state.next;
    let salt = state.next_salt();
    let slot = &mut state.slots[0];
    clock.start_host();
    let start = Instant::now();
    slot.prepare(ctx, &state.reference, salt).await?;
    let prepared = Instant::now();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    clock.write_timestamp(&mut encoder, Boundary::Begin);
    slot.encode_request(&mut encoder, &state.kernel);
    clock.write_timestamp(&mut encoder, Boundary::End);
    clock.submit([encoder.finish()]);
    // The only work in flight is this request's.
    slot.last_submission = None;
    slot.map_output(ctx).await?;
    let returned = Instant::now();
    let found = slot.check_output(&state.reference, salt, false)?;
    clock.stop_host();
    record_stages(
        clock,
        k,
        back_to_back([start, prepared, returned, Instant::now()]),
    );
    state.last_salt = salt;
    wrong(found, k)
}

/// A request's stages as the host sees them, for the result's timeline: its input written
/// (`prepare`), submitted until its output is mapped on the host (`in-flight`: queued behind
/// other requests, uploaded, computed and downloaded, then waiting for the host to look), and
/// its output checked (`check`).
pub const STAGES: [&str; 3] = ["prepare", "in-flight", "check"];

/// Records request `number`'s three [`STAGES`], each from its start to its end.
fn record_stages(clock: &mut SampleClock<'_>, number: u64, spans: [(Instant, Instant); 3]) {
    for (stage, (start, end)) in STAGES.into_iter().zip(spans) {
        clock.record_item_stage(number, stage, start, end);
    }
}

/// Three stages end to end, from the four instants between them.
fn back_to_back(at: [Instant; 4]) -> [(Instant, Instant); 3] {
    [(at[0], at[1]), (at[1], at[2]), (at[2], at[3])]
}

/// A request in flight: its slot, number, salt, start and end of preparation.
struct InFlight {
    slot: usize,
    number: u64,
    salt: u32,
    start: Instant,
    prepared: Instant,
}

/// Where a retirement falls in a sample's timed window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Window {
    /// The first: its request filled an empty pipeline, and its check starts the clock.
    Opens,
    /// Timed: its latency is recorded, and the last of these stops the clock.
    Inside,
    /// Drained after the clock stopped: checked, not timed.
    After,
}

/// `clock.iterations()` + K requests through the K slots in turn, timed from the first
/// completion over the next `clock.iterations()`. The window then holds as many checks as
/// preparations (requests K to `iterations` + K - 1 are prepared inside it), so a host-bound
/// request is not read short by the K - 1 preparations a window ending at the last completion
/// would leave out; the last K - 1 requests drain untimed.
async fn overlapped(state: &mut Prepared, clock: &mut SampleClock<'_>) -> Outcome {
    let ctx = clock.ctx();
    let depth = state.slots.len();
    let timed = clock.iterations() as usize;
    let total = timed + depth;
    let mut in_flight: VecDeque<InFlight> = VecDeque::with_capacity(depth);
    let mut retired = 0usize;
    for r in 0..total + depth {
        if in_flight.len() == depth || (r >= total && !in_flight.is_empty()) {
            let done = in_flight
                .pop_front()
                .ok_or_else(|| BenchError::Setup("no request in flight to retire".to_string()))?;
            let window = match retired {
                0 => Window::Opens,
                n if n <= timed => Window::Inside,
                _ => Window::After,
            };
            retire(state, clock, &done, window).await?;
            if retired == timed {
                clock.stop_host();
            }
            retired += 1;
        }
        if r >= total {
            continue;
        }
        let i = r % depth;
        let start = Instant::now();
        let number = state.next;
        let salt = state.next_salt();
        let slot = &mut state.slots[i];
        slot.prepare(ctx, &state.reference, salt).await?;
        let prepared = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        slot.encode_request(&mut encoder, &state.kernel);
        slot.last_submission = Some(ctx.queue.submit([encoder.finish()]));
        in_flight.push_back(InFlight {
            slot: i,
            number,
            salt,
            start,
            prepared,
        });
    }
    Ok(())
}

/// Waits for `done`'s output and checks it; where it falls in the `window`, starts the clock
/// or records its latency and stages.
async fn retire(
    state: &mut Prepared,
    clock: &mut SampleClock<'_>,
    done: &InFlight,
    window: Window,
) -> Outcome {
    let ctx = clock.ctx();
    let slot = &state.slots[done.slot];
    slot.map_output(ctx).await?;
    let returned = Instant::now();
    let found = slot.check_output(&state.reference, done.salt, false)?;
    match window {
        Window::Opens => clock.start_host(),
        Window::Inside => clock.record_item_latency(done.start.elapsed()),
        Window::After => {}
    }
    if window != Window::After {
        let at = [done.start, done.prepared, returned, Instant::now()];
        record_stages(clock, done.number, back_to_back(at));
    }
    state.last_salt = done.salt;
    wrong(found, done.number)
}

/// One batch: every slot prepared, one submit, every output checked.
async fn batch(state: &mut Prepared, clock: &mut SampleClock<'_>) -> Outcome {
    let ctx = clock.ctx();
    clock.start_host();
    let mut requests = Vec::with_capacity(state.slots.len());
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for i in 0..state.slots.len() {
        let start = Instant::now();
        let salt = state.next_salt();
        let slot = &state.slots[i];
        slot.prepare(ctx, &state.reference, salt).await?;
        slot.encode_request(&mut encoder, &state.kernel);
        requests.push((state.next - 1, salt, start, Instant::now()));
    }
    clock.submit([encoder.finish()]);
    let submitted = Instant::now();
    let mut stages = Vec::with_capacity(requests.len());
    for (slot, (number, salt, start, prepared)) in state.slots.iter_mut().zip(requests) {
        slot.last_submission = None;
        slot.map_output(ctx).await?;
        let returned = Instant::now();
        let found = slot.check_output(&state.reference, salt, false)?;
        wrong(found, number)?;
        // Between its preparation and the submit, a request waits for the rest of its batch.
        let spans = [
            (start, prepared),
            (submitted, returned),
            (returned, Instant::now()),
        ];
        stages.push((number, spans));
    }
    clock.stop_host();
    for (number, at) in stages {
        record_stages(clock, number, at);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datapath::request::builtins;
    use crate::datapath::stage::Stage;
    use gpubench_harness::Profile;

    /// A whole request moves what its copies move (`prepare` writes into the staging buffer
    /// what `h2d` then copies: the input goes to the device once) and computes what its kernel
    /// computes; a batch of four, four times that in one iteration.
    #[test]
    fn a_request_declares_what_its_copies_and_kernel_do() {
        for request in builtins(Profile::Quick) {
            let (up, down) = (Stage::Upload.work(&request), Stage::Download.work(&request));
            let serial = FlowKernel::new(request.clone(), Flow::Serial, 1, 2).declared_work();
            assert_eq!(serial.bytes_written, up.bytes_written, "{}", request.name);
            assert_eq!(serial.bytes_read, down.bytes_read, "{}", request.name);
            assert_eq!(serial.flops, Stage::Compute.work(&request).flops);
            let batch = FlowKernel::new(request.clone(), Flow::Batch(4), 1, 2).declared_work();
            assert_eq!(batch.total_bytes(), 4 * serial.total_bytes());
            assert_eq!((batch.ops, batch.flops), (4, 4 * serial.flops));
        }
    }
}
