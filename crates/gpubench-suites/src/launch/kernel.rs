//! The launch kernel: `bump` (launch.wgsl) launched the way its [`LaunchMode`] says,
//! and the counter check that proves every launch ran exactly once.

use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, IterationPolicy, Kernel, MetricKind, Outcome, Outputs,
    SampleClock, TimingPreference, Verification, Work,
};
use gpubench_results::rng::SplitMix64;

use super::LaunchMode;
use gpubench_harness::kit::gpu::{DispatchKernel, bind_buffers, compute_pipeline};
use gpubench_harness::kit::verify::{Checker, Tolerance};

/// Dispatches per sample of `gpu-gap-independent`, each on a buffer of its own: a fixed count,
/// since a buffer bumped twice in one pass is a dependency again (wgpu tracks usage per buffer,
/// so a second read-write use of one puts a barrier before that dispatch). 4096 keeps a sample
/// in milliseconds even at a microsecond per dispatch.
pub const INDEPENDENT_SLOTS: u32 = 4096;

/// Whether dispatches without a dependency run unordered on `backend`, as the
/// `gpu-gap-independent` row needs: not on Metal, where wgpu encodes every compute pass
/// serially (Metal's default dispatch type) and records no barriers, so each dispatch still
/// waits for the one before and the row would equal `gpu-gap`, reading as a free barrier.
fn independent_dispatches(backend: wgpu::Backend) -> Result<(), String> {
    if backend == wgpu::Backend::Metal {
        return Err("wgpu encodes a Metal compute pass serially, so independent dispatches still run one after another: this row would equal gpu-gap".to_string());
    }
    Ok(())
}

/// One buffer of `gpu-gap-independent` (its group is in [`LaunchState`]).
struct Slot {
    counter: wgpu::Buffer,
    /// Its value at set-up.
    start: u32,
    /// Dispatches that bumped it since.
    bumps: u64,
}

/// What set-up made, and how many dispatches the runs have made since.
pub struct LaunchState {
    /// `bump` bound to the counter, over one workgroup.
    dispatch: DispatchKernel,
    counter: wgpu::Buffer,
    /// Arguments `[1, 1, 1]` of the indirect dispatches.
    indirect: wgpu::Buffer,
    /// The counter's value at set-up.
    start: u32,
    /// Dispatches submitted since set-up.
    dispatched: u64,
    /// `gpu-gap-independent`'s buffers (empty in every other mode).
    slots: Vec<Slot>,
    /// The groups the gap modes set, one before each dispatch, [`INDEPENDENT_SLOTS`] of them
    /// (empty in every other mode): `gpu-gap-independent`'s each bind a slot's counter,
    /// `gpu-gap`'s all bind the one counter, so the two modes differ in the dependency alone,
    /// not in a bind-group switch too.
    groups: Vec<wgpu::BindGroup>,
}

/// One launch mode.
pub struct Launch {
    mode: LaunchMode,
    round_trips: usize,
    seed: u64,
}

impl Launch {
    /// The storm (or round trip) of `mode`; `round_trips` is the sample count of the round trip.
    pub fn new(mode: LaunchMode, round_trips: usize, seed: u64) -> Self {
        Self {
            mode,
            round_trips,
            seed,
        }
    }

    /// Records one compute pass of `dispatches` dispatches of `bump` into `encoder`: the one
    /// place every mode records its work.
    fn record(
        &self,
        state: &LaunchState,
        encoder: &mut wgpu::CommandEncoder,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
        dispatches: u32,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.mode.pass_label()),
            timestamp_writes,
        });
        if self.mode == LaunchMode::DispatchIndirect {
            // No direct dispatches: this binds the pipeline and its group only.
            state.dispatch.encode(&mut pass, 0);
            for _ in 0..dispatches {
                pass.dispatch_workgroups_indirect(&state.indirect, 0);
            }
        } else if !state.groups.is_empty() {
            pass.set_pipeline(&state.dispatch.pipeline);
            for group in state.groups.iter().cycle().take(dispatches as usize) {
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        } else {
            state.dispatch.encode(&mut pass, dispatches);
        }
    }

    /// `n` dispatches in one pass, one command buffer, one submit. The host clock runs from the
    /// encoder's creation (the storms and `record`, as in the modes of a pass per dispatch) or
    /// from the submit (gpu gap, whose figure is GPU time). Returns the dispatches submitted.
    fn one_pass(
        &self,
        state: &LaunchState,
        ctx: &GpuContext,
        n: u32,
        clock: &mut SampleClock<'_>,
    ) -> u32 {
        let gap = matches!(
            self.mode,
            LaunchMode::GpuGap | LaunchMode::GpuGapIndependent
        );
        if !gap {
            clock.start_host();
        }
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        if self.mode == LaunchMode::Record {
            // The clock covers the recording alone, finish() included (wgpu encodes the
            // driver's commands there). The command buffer is dropped unsubmitted: running
            // such dispatches is what gpu-gap measures, and recording does not depend on it.
            self.record(state, &mut encoder, None, n);
            drop(encoder.finish());
            clock.stop_host();
            return 0;
        }
        let timestamps = clock.pass_timestamps(true, true);
        self.record(state, &mut encoder, timestamps, n);
        clock.submit([encoder.finish()]);
        n
    }

    /// `n` command buffers of one dispatch each, recorded first, then submitted back to back
    /// with the host clock around the submit calls alone.
    fn submit_calls(
        &self,
        state: &LaunchState,
        ctx: &GpuContext,
        n: u32,
        clock: &mut SampleClock<'_>,
    ) {
        let last = n - 1;
        let buffers: Vec<wgpu::CommandBuffer> = (0..n)
            .map(|i| {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                let timestamps = clock.pass_timestamps(i == 0, i == last);
                self.record(state, &mut encoder, timestamps, 1);
                encoder.finish()
            })
            .collect();
        clock.start_host();
        for commands in buffers {
            clock.submit([commands]);
        }
        clock.stop_host();
    }

    /// `n` passes of one dispatch each: in one command buffer (pass-in-encoder), or each in its
    /// own command buffer and submit (submit; the round trips, which wait for each before the
    /// next).
    async fn pass_per_dispatch(
        &self,
        state: &LaunchState,
        ctx: &GpuContext,
        n: u32,
        clock: &mut SampleClock<'_>,
    ) -> Result<(), BenchError> {
        let last = n - 1;
        let new_encoder = || ctx.device.create_command_encoder(&Default::default());
        if self.mode == LaunchMode::PassInEncoder {
            clock.start_host();
            let mut encoder = new_encoder();
            for i in 0..n {
                let timestamps = clock.pass_timestamps(i == 0, i == last);
                self.record(state, &mut encoder, timestamps, 1);
            }
            clock.submit([encoder.finish()]);
            return Ok(());
        }
        // A storm's host clock starts with the recording; the round trip's at its first submit.
        if self.mode == LaunchMode::Submit {
            clock.start_host();
        }
        if self.mode == LaunchMode::RoundTripSpin {
            clock.spin_wait();
        }
        // A round trip's pass carries no timestamps: writing them is work the application's
        // dispatch would not do (on lavapipe they added 29-57 us to a 70-120 us round trip).
        let round_trip = self.mode.is_round_trip();
        for i in 0..n {
            let mut encoder = new_encoder();
            let timestamps = if round_trip {
                None
            } else {
                clock.pass_timestamps(i == 0, i == last)
            };
            self.record(state, &mut encoder, timestamps, 1);
            clock.submit([encoder.finish()]);
            if round_trip && i < last {
                ctx.wait_idle().await?;
            }
        }
        Ok(())
    }
}

impl Kernel for Launch {
    type State = LaunchState;

    fn info(&self) -> BenchmarkInfo {
        let mode = self.mode;
        let mut info = BenchmarkInfo::new(
            format!("launch/{}/{}", mode.name(), mode.per()),
            "launch",
            MetricKind::TimePerOp,
            mode.counts(),
        )
        .param("mode", mode.name())
        .param("kernel", "bump (1 invocation, atomicAdd)")
        // The check counts every dispatch since set-up in the counters.
        .outputs(Outputs::Accumulated);
        if mode.host_timed() {
            info.timing = TimingPreference::Host;
        }
        if matches!(mode, LaunchMode::GpuGap | LaunchMode::GpuGapIndependent) {
            // The gap is the GPU's own: submit-to-completion time would be mostly the submit.
            info.timing = TimingPreference::GpuOnly;
        }
        if mode == LaunchMode::GpuGapIndependent {
            info.iterations = IterationPolicy::Fixed(INDEPENDENT_SLOTS);
            info = info.param("buffers", INDEPENDENT_SLOTS);
        }
        if mode.is_round_trip() {
            info.iterations = IterationPolicy::Fixed(1);
            info.min_samples = Some(self.round_trips);
            let wait = match mode {
                LaunchMode::RoundTripSpin => {
                    "spin (poll Wait with zero timeout in a loop, yielding)"
                }
                _ => "block (poll Wait)",
            };
            info = info
                .param("round_trips", self.round_trips)
                .param("wait", wait);
        }
        info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        let gpu_time = matches!(
            self.mode,
            LaunchMode::GpuGap | LaunchMode::GpuGapIndependent
        );
        if gpu_time && !ctx.has_pass_timestamps() {
            return Err(
                "the GPU gap is GPU time, and this adapter has no timestamp queries".to_string(),
            );
        }
        if self.mode == LaunchMode::GpuGapIndependent {
            return independent_dispatches(ctx.adapter.get_info().backend);
        }
        if self.mode == LaunchMode::RoundTripSpin && cfg!(target_arch = "wasm32") {
            // The wait would be the blocking one and the row a copy of round-trip under
            // another name, paired with the native spin by `compare`.
            return Err(
                "a browser cannot spin on the device: the page's event loop polls it, so the \
                 wait is always the callback round-trip measures"
                    .to_string(),
            );
        }
        Ok(())
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<LaunchState> {
        let mut rng = SplitMix64::new(self.seed);
        // A random start (never zero) so a counter that was never written cannot pass.
        let start = (rng.next_u64() as u32) | 1;
        let counter = ctx.buffer_with_data(
            "launch counter",
            &start.to_le_bytes(),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let args: [u32; 3] = [1, 1, 1];
        let indirect = ctx.buffer_with_data(
            "launch indirect args",
            bytemuck::cast_slice(&args),
            wgpu::BufferUsages::INDIRECT,
        );
        let pipeline = compute_pipeline(ctx, "launch bump", crate::launch::WGSL, "bump");
        let dispatch = DispatchKernel::new(
            ctx,
            self.mode.pass_label(),
            pipeline,
            &[(0, &counter)],
            (1, 1),
        );
        let slots = match self.mode {
            LaunchMode::GpuGapIndependent => (0..INDEPENDENT_SLOTS)
                .map(|_| {
                    let start = (rng.next_u64() as u32) | 1;
                    let counter = ctx.buffer_with_data(
                        "launch independent counter",
                        &start.to_le_bytes(),
                        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                    );
                    Slot {
                        counter,
                        start,
                        bumps: 0,
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let bind = |buffer: &wgpu::Buffer| bind_buffers(ctx, &dispatch.pipeline, &[(0, buffer)]);
        let groups = match self.mode {
            LaunchMode::GpuGapIndependent => slots.iter().map(|slot| bind(&slot.counter)).collect(),
            LaunchMode::GpuGap => (0..INDEPENDENT_SLOTS).map(|_| bind(&counter)).collect(),
            _ => Vec::new(),
        };
        ctx.wait_idle().await?;
        Ok(LaunchState {
            dispatch,
            counter,
            indirect,
            start,
            dispatched: 0,
            slots,
            groups,
        })
    }

    fn work(&self, _state: &LaunchState) -> Work {
        Work::ops(1)
    }

    async fn run(&self, state: &mut LaunchState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        let n = iterations.max(1);
        let submitted = match self.mode {
            LaunchMode::DispatchInPass
            | LaunchMode::DispatchIndirect
            | LaunchMode::Record
            | LaunchMode::GpuGap => self.one_pass(state, ctx, n, clock),
            LaunchMode::GpuGapIndependent => {
                let n = n.min(state.slots.len() as u32);
                for slot in state.slots.iter_mut().take(n as usize) {
                    slot.bumps += 1;
                }
                self.one_pass(state, ctx, n, clock)
            }
            LaunchMode::SubmitCall => {
                self.submit_calls(state, ctx, n, clock);
                n
            }
            LaunchMode::PassInEncoder
            | LaunchMode::Submit
            | LaunchMode::RoundTrip
            | LaunchMode::RoundTripSpin => {
                self.pass_per_dispatch(state, ctx, n, clock).await?;
                n
            }
        };
        state.dispatched += u64::from(submitted);
        Ok(())
    }

    async fn verify(&self, state: &mut LaunchState, ctx: &GpuContext) -> Outcome<Verification> {
        if self.mode == LaunchMode::GpuGapIndependent {
            return verify_slots(&state.slots, ctx).await;
        }
        let bytes = ctx.read_buffer(&state.counter, 4).await?;
        let mut checker = Checker::new();
        let got = bytes
            .get(..4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes);
        let Some(got) = got else {
            checker.fail(format!("counter read back {} bytes, not 4", bytes.len()));
            return Ok(checker.finish());
        };
        // The counter wraps at 2^32 like the atomic does.
        let want = state.start.wrapping_add(state.dispatched as u32);
        let (dispatched, start) = (state.dispatched, state.start);
        checker.check(
            f64::from(got),
            f64::from(want),
            0.0,
            Tolerance::EXACT,
            || format!("counter after {dispatched} dispatches (started at {start})"),
        );
        Ok(checker.finish())
    }
}

/// Every buffer of `gpu-gap-independent` holds its start plus its bumps: all copied into one
/// buffer and read back at once.
async fn verify_slots(slots: &[Slot], ctx: &GpuContext) -> Outcome<Verification> {
    let size = 4 * slots.len() as u64;
    let gathered = ctx.buffer(
        "launch independent counters",
        size.max(4),
        wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    );
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for (i, slot) in slots.iter().enumerate() {
        encoder.copy_buffer_to_buffer(&slot.counter, 0, &gathered, 4 * i as u64, 4);
    }
    ctx.queue.submit([encoder.finish()]);
    let bytes = ctx.read_buffer(&gathered, size).await?;
    let mut checker = Checker::new();
    if bytes.len() as u64 != size {
        checker.fail(format!(
            "counters read back {} bytes, not {size}",
            bytes.len()
        ));
        return Ok(checker.finish());
    }
    for (i, (slot, got)) in slots.iter().zip(bytes.chunks_exact(4)).enumerate() {
        let got = u32::from_le_bytes([got[0], got[1], got[2], got[3]]);
        let want = slot.start.wrapping_add(slot.bumps as u32);
        checker.check(
            f64::from(got),
            f64::from(want),
            0.0,
            Tolerance::EXACT,
            || {
                format!(
                    "buffer {i} after {} dispatches (started at {})",
                    slot.bumps, slot.start
                )
            },
        );
    }
    Ok(checker.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn independent_dispatches_are_skipped_on_metal_alone() {
        let why = independent_dispatches(wgpu::Backend::Metal).expect_err("metal is serial");
        assert!(why.contains("would equal gpu-gap"), "{why}");
        for backend in [
            wgpu::Backend::Vulkan,
            wgpu::Backend::Dx12,
            wgpu::Backend::Gl,
        ] {
            assert_eq!(independent_dispatches(backend), Ok(()), "{backend:?}");
        }
    }
}
