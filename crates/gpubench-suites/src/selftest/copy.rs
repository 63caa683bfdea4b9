//! The self-test suite's copies: the wrong-output fault, a copy with an off-by-one bound and
//! perturbed elements (`selftest.wgsl`'s `broken_copy`), whose verification must fail (its id
//! and params are those the row has always had, `selftest/broken_copy/vec4-f32/<size>`); and
//! the paced copy, a correct copy (`copy`) that makes `walks` passes over its arrays per
//! dispatch counted as one (`selftest/pace/vec4-f32/<size>`): with two walks the same row at half
//! its rate, the real slowdown the regression gate's error-rate harness must catch; and the
//! dropped copy, the correct copy dispatched in its first run only
//! (`selftest/dropped-work/vec4-f32/<size>`): a driver that dropped the timed batches, whose
//! output the first run left right, which the check after the samples must still fail.

use gpubench_harness::kit::gpu::{
    DispatchKernel, OUTPUT, StrideGrid, compute_pipeline, f32_bytes, read_f32, uniform_buffer,
};
use gpubench_harness::kit::inputs::exact_inputs;
use gpubench_harness::kit::verify::{Tolerance, compare_f32};
use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification, Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::format_size;

/// Invocations per workgroup, as `broken_copy` and `copy` declare.
const WORKGROUP: u32 = 256;

/// A copy of `bytes` through `selftest.wgsl`'s `entry`, `walks` passes per counted one.
pub struct CopyKernel {
    bytes: u64,
    seed: u64,
    entry: &'static str,
    row: &'static str,
    walks: u32,
    /// Dispatches nothing in any run after the first.
    drops_later_runs: bool,
}

/// The copy's buffers, its dispatch and how many times it has run.
pub struct CopyState {
    dispatch: DispatchKernel,
    output: wgpu::Buffer,
    input: Vec<f32>,
    runs: u32,
}

impl CopyKernel {
    /// The broken copy of `bytes` (a whole number of vec4s) from inputs drawn with `seed`.
    pub fn broken(bytes: u64, seed: u64) -> Self {
        Self {
            bytes,
            seed,
            entry: "broken_copy",
            row: "broken_copy",
            walks: 1,
            drops_later_runs: false,
        }
    }

    /// The correct copy of `bytes`, walking its arrays `walks` times per dispatch and counting
    /// one walk: its rate is 1 / `walks` of the copy's.
    pub fn paced(bytes: u64, seed: u64, walks: u32) -> Self {
        Self {
            bytes,
            seed,
            entry: "copy",
            row: "pace",
            walks: walks.max(1),
            drops_later_runs: false,
        }
    }

    /// The correct copy of `bytes`, dispatched in its first run only: every timed batch is
    /// dropped, and the first run's right output stays in place.
    pub fn dropping(bytes: u64, seed: u64) -> Self {
        Self {
            row: "dropped-work",
            drops_later_runs: true,
            ..Self::paced(bytes, seed, 1)
        }
    }
}

impl Kernel for CopyKernel {
    type State = CopyState;

    fn info(&self) -> BenchmarkInfo {
        let size = format_size(self.bytes);
        BenchmarkInfo::new(
            format!("selftest/{}/vec4-f32/{size}", self.row),
            "selftest",
            MetricKind::Bandwidth,
            "bytes read plus bytes written per second (fault injection)",
        )
        .param("kernel", self.entry)
        .param("element", "vec4<f32>")
        .param("array_bytes", self.bytes)
        .param("array_size", size)
        .param("repeats", 1)
        .param("per_trip", 1)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<CopyState> {
        let grid = StrideGrid::new(ctx, self.bytes / 16, WORKGROUP, 1)?;
        // selftest.wgsl's uniform block: n, an unused scalar, threads and padding.
        let params = grid.params(0.0, 0);
        let floats = grid.items as usize * 4;
        let input = exact_inputs(&mut SplitMix64::new(self.seed), floats);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let params = uniform_buffer(ctx, "selftest copy params", &params);
        let a = ctx.buffer_with_data("selftest copy a", f32_bytes(&input), usage);
        // The output starts as something else: an element left unwritten cannot pass.
        let output =
            ctx.buffer_with_data("selftest copy c", &vec![0u8; self.bytes as usize], OUTPUT);
        let pipeline = compute_pipeline(ctx, self.entry, crate::selftest::WGSL, self.entry);
        let dispatch = DispatchKernel::new(
            ctx,
            self.entry,
            pipeline,
            &[(0, &params), (1, &a), (3, &output)],
            (grid.workgroups, 1),
        );
        Ok(CopyState {
            dispatch,
            output,
            input,
            runs: 0,
        })
    }

    /// One walk's bytes, however many walks a dispatch makes.
    fn work(&self, _state: &CopyState) -> Work {
        Work::bytes(self.bytes, self.bytes)
    }

    async fn run(&self, state: &mut CopyState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        let dropped = self.drops_later_runs && state.runs > 0;
        state.runs += 1;
        let dispatches = if dropped { 0 } else { iterations };
        state
            .dispatch
            .submit(ctx, clock, dispatches.saturating_mul(self.walks));
        Ok(())
    }

    async fn verify(&self, state: &mut CopyState, ctx: &GpuContext) -> Outcome<Verification> {
        let got = read_f32(ctx, &state.output).await?;
        let want: Vec<f64> = state.input.iter().map(|&x| f64::from(x)).collect();
        Ok(compare_f32(&got, &want, Tolerance::EXACT))
    }
}
