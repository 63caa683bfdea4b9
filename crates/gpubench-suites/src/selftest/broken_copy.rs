//! The wrong-output fault: a copy with an off-by-one bound and perturbed elements
//! (`selftest.wgsl`'s `broken_copy`), whose verification must fail. Its id and params are those
//! the row has always had (`selftest/broken_copy/vec4-f32/<size>`).

use gpubench_harness::kit::gpu::{
    DispatchKernel, StrideGrid, compute_pipeline, f32_bytes, read_f32, uniform_buffer,
};
use gpubench_harness::kit::inputs::exact_inputs;
use gpubench_harness::kit::verify::{Tolerance, compare_f32};
use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification, Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::format_size;

/// The entry point, and the row's kernel name.
const ENTRY: &str = "broken_copy";
/// Invocations per workgroup, as `broken_copy` declares.
const WORKGROUP: u32 = 256;

/// A copy of `bytes` through the broken kernel.
pub struct BrokenCopy {
    bytes: u64,
    seed: u64,
}

/// The copy's buffers and its dispatch.
pub struct BrokenCopyState {
    dispatch: DispatchKernel,
    output: wgpu::Buffer,
    input: Vec<f32>,
}

impl BrokenCopy {
    /// A copy of `bytes` (a whole number of vec4s) from inputs drawn with `seed`.
    pub fn new(bytes: u64, seed: u64) -> Self {
        Self { bytes, seed }
    }
}

impl Kernel for BrokenCopy {
    type State = BrokenCopyState;

    fn info(&self) -> BenchmarkInfo {
        let size = format_size(self.bytes);
        BenchmarkInfo::new(
            format!("selftest/{ENTRY}/vec4-f32/{size}"),
            "selftest",
            MetricKind::Bandwidth,
            "bytes read plus bytes written per second (fault injection)",
        )
        .param("kernel", ENTRY)
        .param("element", "vec4<f32>")
        .param("array_bytes", self.bytes)
        .param("array_size", size)
        .param("repeats", 1)
        .param("per_trip", 1)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<BrokenCopyState> {
        let grid = StrideGrid::new(ctx, self.bytes / 16, WORKGROUP, 1)?;
        // selftest.wgsl's uniform block: n, an unused scalar, threads and padding.
        let params = grid.params(0.0, 0);
        let floats = grid.items as usize * 4;
        let input = exact_inputs(&mut SplitMix64::new(self.seed), floats);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let params = uniform_buffer(ctx, "broken copy params", &params);
        let a = ctx.buffer_with_data("broken copy a", f32_bytes(&input), usage);
        // The output starts as something else: an element left unwritten cannot pass.
        let output = ctx.buffer_with_data("broken copy c", &vec![0u8; self.bytes as usize], usage);
        let pipeline = compute_pipeline(ctx, ENTRY, crate::selftest::WGSL, ENTRY);
        let dispatch = DispatchKernel::new(
            ctx,
            ENTRY,
            pipeline,
            &[(0, &params), (1, &a), (3, &output)],
            (grid.workgroups, 1),
        );
        Ok(BrokenCopyState {
            dispatch,
            output,
            input,
        })
    }

    fn work(&self, _state: &BrokenCopyState) -> Work {
        Work::bytes(self.bytes, self.bytes)
    }

    async fn run(&self, state: &mut BrokenCopyState, clock: &mut SampleClock<'_>) -> Outcome {
        state.dispatch.run(clock)
    }

    async fn verify(&self, state: &mut BrokenCopyState, ctx: &GpuContext) -> Outcome<Verification> {
        let got = read_f32(ctx, &state.output).await?;
        let want: Vec<f64> = state.input.iter().map(|&x| f64::from(x)).collect();
        Ok(compare_f32(&got, &want, Tolerance::EXACT))
    }
}
