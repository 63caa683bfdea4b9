//! The launch suite (the launch storm): what it costs to get tiny work onto the device.
//!
//! A one-invocation kernel bumps a counter (`shaders/launch.wgsl`), launched in five ways:
//!
//! - `dispatch-in-pass`: N dispatches in one compute pass (cost per dispatch);
//! - `dispatch-indirect`: the same with `dispatch_workgroups_indirect` (wgpu validates indirect
//!   arguments with a compute pass of its own, so this includes that cost);
//! - `pass-in-encoder`: N compute passes of one dispatch each in one encoder (cost per pass);
//! - `submit`: N command buffers of one dispatch each, each submitted by its own
//!   `queue.submit`, back to back (cost per submit);
//! - `round-trip`: one dispatch submitted and waited for, repeated hundreds of times, recorded in
//!   an HDR histogram (p50, p95, p99, max).
//!
//! The storms are timed both ways: GPU timestamps on the first and last pass give device time
//! per operation; the host clock from the start of recording until the GPU is done gives what
//! the application pays per operation (recording, wgpu's validation and tracking, the driver,
//! submit and wait, amortised over N). The round trip is timed by the host clock from submit to
//! completion, which is what "latency" means to an application.
//!
//! Every dispatch here writes a read-write storage buffer, and wgpu on Vulkan orders only
//! read-only uses without a barrier, so each dispatch is preceded by a pipeline barrier: the
//! per-dispatch cost includes it, as it would for any real kernel that writes memory.
//!
//! Verified: the counter starts at a random value and must equal that plus every dispatch made
//! since set-up (wrapping), so a dropped or doubled dispatch fails.

use gpubench_harness::rng::SplitMix64;
use gpubench_harness::{
    BenchError, Benchmark, BenchmarkInfo, GpuContext, IterationPolicy, MetricKind, Profile,
    SampleClock, TimingPreference, Verification, Work,
};

use crate::gpu::ready;
use crate::gpu::{bind_buffers, compute_pipeline};
use crate::verify::{Checker, Tolerance};
use crate::{KernelError, Suite, SuiteOptions, Tuner, shaders};

/// Round trips recorded by the quick profile.
pub const QUICK_ROUND_TRIPS: usize = 200;
/// Round trips recorded by the default and full profiles.
pub const DEFAULT_ROUND_TRIPS: usize = 1000;

/// How the storm launches its dispatches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchMode {
    /// N dispatches in one pass.
    DispatchInPass,
    /// N indirect dispatches in one pass.
    DispatchIndirect,
    /// N passes of one dispatch in one encoder.
    PassInEncoder,
    /// N submits of one command buffer each.
    Submit,
    /// One dispatch submitted and waited for.
    RoundTrip,
}

impl LaunchMode {
    /// Every mode in report order.
    pub const ALL: [LaunchMode; 5] = [
        LaunchMode::DispatchInPass,
        LaunchMode::DispatchIndirect,
        LaunchMode::PassInEncoder,
        LaunchMode::Submit,
        LaunchMode::RoundTrip,
    ];

    /// Name, as used in result ids.
    pub fn name(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass => "dispatch-in-pass",
            LaunchMode::DispatchIndirect => "dispatch-indirect",
            LaunchMode::PassInEncoder => "pass-in-encoder",
            LaunchMode::Submit => "submit",
            LaunchMode::RoundTrip => "round-trip",
        }
    }

    /// What one operation is, the last part of the id.
    pub fn per(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass | LaunchMode::DispatchIndirect => "per-dispatch",
            LaunchMode::PassInEncoder => "per-pass",
            LaunchMode::Submit => "per-submit",
            LaunchMode::RoundTrip => "one-dispatch",
        }
    }

    fn counts(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass => {
                "microseconds per dispatch of a 1-invocation kernel, N dispatches in one pass (value: GPU timestamps; host: recording to completion, per dispatch)"
            }
            LaunchMode::DispatchIndirect => {
                "microseconds per dispatch_workgroups_indirect, N in one pass, wgpu's indirect validation included (value: GPU timestamps; host: recording to completion)"
            }
            LaunchMode::PassInEncoder => {
                "microseconds per compute pass of one dispatch, N passes in one encoder (value: GPU timestamps; host: recording to completion)"
            }
            LaunchMode::Submit => {
                "microseconds per queue.submit of one command buffer of one dispatch, N back to back (value: GPU timestamps; host: recording to completion)"
            }
            LaunchMode::RoundTrip => {
                "microseconds from queue.submit of one dispatch until the host sees it complete (host clock; GPU time recorded)"
            }
        }
    }
}

struct LaunchState {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    counter: wgpu::Buffer,
    indirect: wgpu::Buffer,
    /// The counter's value at set-up.
    start: u32,
    /// Dispatches submitted since set-up.
    dispatched: u64,
}

/// One launch mode.
pub struct LaunchBenchmark {
    info: BenchmarkInfo,
    mode: LaunchMode,
    seed: u64,
    state: Option<LaunchState>,
}

impl LaunchBenchmark {
    /// The storm (or round trip) of `mode`; `round_trips` is the sample count of the round trip.
    pub fn new(mode: LaunchMode, round_trips: usize, seed: u64) -> Self {
        let mut info = BenchmarkInfo::new(
            format!("launch/{}/{}", mode.name(), mode.per()),
            "launch",
            MetricKind::TimePerOp,
            mode.counts(),
        )
        .param("mode", mode.name())
        .param("kernel", "bump (1 invocation, atomicAdd)");
        if mode == LaunchMode::RoundTrip {
            info.timing = TimingPreference::Host;
            info.iterations = IterationPolicy::Fixed(1);
            info.min_samples = Some(round_trips);
            info = info.param("round_trips", round_trips);
        }
        Self {
            info,
            mode,
            seed,
            state: None,
        }
    }

    fn dispatch(&self, state: &LaunchState, pass: &mut wgpu::ComputePass<'_>) {
        if self.mode == LaunchMode::DispatchIndirect {
            pass.dispatch_workgroups_indirect(&state.indirect, 0);
        } else {
            pass.dispatch_workgroups(1, 1, 1);
        }
    }
}

impl Benchmark for LaunchBenchmark {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
    }

    fn setup(&mut self, ctx: &GpuContext) -> Result<(), BenchError> {
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
        let pipeline = compute_pipeline(ctx, "launch bump", shaders::LAUNCH, "bump");
        let bind_group = bind_buffers(ctx, &pipeline, &[(0, &counter)]);
        self.state = Some(LaunchState {
            pipeline,
            bind_group,
            counter,
            indirect,
            start,
            dispatched: 0,
        });
        ctx.wait_idle()
    }

    fn work(&self) -> Work {
        Work {
            bytes_read: 0,
            bytes_written: 0,
            flops: 0,
            ops: 1,
        }
    }

    fn run(
        &mut self,
        ctx: &GpuContext,
        iterations: u32,
        clock: &mut SampleClock<'_>,
    ) -> Result<(), BenchError> {
        let state = ready(&self.state, "run")?;
        let n = iterations.max(1);
        let last = n - 1;
        let pass_descriptor = |label, timestamp_writes| wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes,
        };
        match self.mode {
            LaunchMode::DispatchInPass | LaunchMode::DispatchIndirect => {
                clock.start_host();
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                {
                    let mut pass = encoder.begin_compute_pass(&pass_descriptor(
                        "launch storm",
                        clock.pass_timestamps(true, true),
                    ));
                    pass.set_pipeline(&state.pipeline);
                    pass.set_bind_group(0, &state.bind_group, &[]);
                    for _ in 0..n {
                        self.dispatch(state, &mut pass);
                    }
                }
                clock.submit([encoder.finish()]);
            }
            LaunchMode::PassInEncoder => {
                clock.start_host();
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                for i in 0..n {
                    let mut pass = encoder.begin_compute_pass(&pass_descriptor(
                        "launch pass",
                        clock.pass_timestamps(i == 0, i == last),
                    ));
                    pass.set_pipeline(&state.pipeline);
                    pass.set_bind_group(0, &state.bind_group, &[]);
                    self.dispatch(state, &mut pass);
                }
                clock.submit([encoder.finish()]);
            }
            LaunchMode::Submit => {
                clock.start_host();
                for i in 0..n {
                    let mut encoder = ctx.device.create_command_encoder(&Default::default());
                    {
                        let mut pass = encoder.begin_compute_pass(&pass_descriptor(
                            "launch submit",
                            clock.pass_timestamps(i == 0, i == last),
                        ));
                        pass.set_pipeline(&state.pipeline);
                        pass.set_bind_group(0, &state.bind_group, &[]);
                        self.dispatch(state, &mut pass);
                    }
                    clock.submit([encoder.finish()]);
                }
            }
            LaunchMode::RoundTrip => {
                for i in 0..n {
                    let mut encoder = ctx.device.create_command_encoder(&Default::default());
                    {
                        let mut pass = encoder.begin_compute_pass(&pass_descriptor(
                            "launch round trip",
                            clock.pass_timestamps(i == 0, i == last),
                        ));
                        pass.set_pipeline(&state.pipeline);
                        pass.set_bind_group(0, &state.bind_group, &[]);
                        self.dispatch(state, &mut pass);
                    }
                    // The host clock starts at the first submit; each round trip is waited for.
                    clock.submit([encoder.finish()]);
                    if i < last {
                        ctx.wait_idle()?;
                    }
                }
            }
        }
        if let Some(state) = self.state.as_mut() {
            state.dispatched += u64::from(n);
        }
        Ok(())
    }

    fn verify(&mut self, ctx: &GpuContext) -> Result<Verification, BenchError> {
        let state = ready(&self.state, "verify")?;
        let bytes = ctx.read_buffer(&state.counter, 4)?;
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
        let dispatched = state.dispatched;
        checker.check(
            f64::from(got),
            f64::from(want),
            0.0,
            Tolerance::EXACT,
            || {
                format!(
                    "counter after {dispatched} dispatches (started at {})",
                    state.start
                )
            },
        );
        Ok(checker.finish())
    }

    fn teardown(&mut self) {
        self.state = None;
    }
}

/// The launch suite: the four storms and the round trip.
pub struct LaunchSuite;

impl Suite for LaunchSuite {
    fn name(&self) -> &'static str {
        "launch"
    }

    fn benchmarks(
        &self,
        _ctx: &GpuContext,
        options: &SuiteOptions,
        _tuner: &mut dyn Tuner,
    ) -> Result<Vec<Box<dyn Benchmark>>, KernelError> {
        let round_trips = match options.profile {
            Profile::Quick => QUICK_ROUND_TRIPS,
            Profile::Default | Profile::Full => DEFAULT_ROUND_TRIPS,
        };
        Ok(LaunchMode::ALL
            .iter()
            .map(|&mode| {
                Box::new(LaunchBenchmark::new(mode, round_trips, options.seed))
                    as Box<dyn Benchmark>
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_policies() {
        let ids: Vec<String> = LaunchMode::ALL
            .iter()
            .map(|&m| LaunchBenchmark::new(m, 200, 1).info().id.clone())
            .collect();
        assert_eq!(
            ids,
            [
                "launch/dispatch-in-pass/per-dispatch",
                "launch/dispatch-indirect/per-dispatch",
                "launch/pass-in-encoder/per-pass",
                "launch/submit/per-submit",
                "launch/round-trip/one-dispatch",
            ]
        );
        let rt = LaunchBenchmark::new(LaunchMode::RoundTrip, 200, 1);
        assert_eq!(rt.info().iterations, IterationPolicy::Fixed(1));
        assert_eq!(rt.info().min_samples, Some(200));
        assert_eq!(rt.info().timing, TimingPreference::Host);
        let storm = LaunchBenchmark::new(LaunchMode::Submit, 200, 1);
        assert_eq!(storm.info().iterations, IterationPolicy::Calibrate);
    }
}
