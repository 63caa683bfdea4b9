//! `copy_buffer_to_buffer`: the copy engine, or whatever the driver copies buffers with.

use gpubench_harness::timing::Boundary;
use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, Outcome, Role, SampleClock, Verification, Work,
};
use gpubench_results::rng::SplitMix64;

use gpubench_harness::kit::gpu::check_buffer_fits;
use gpubench_harness::kit::verify::compare_bytes;

/// Copies of `bytes` between two device buffers, timed between encoder timestamps.
pub struct CopyEngine {
    /// Bytes a copy moves (a multiple of 4).
    pub bytes: u64,
    /// Seeds the source's contents.
    pub seed: u64,
}

/// The source, the destination and what the source holds.
pub struct CopyEngineState {
    src: wgpu::Buffer,
    dst: wgpu::Buffer,
    data: Vec<u8>,
}

impl Kernel for CopyEngine {
    type State = CopyEngineState;

    fn info(&self) -> BenchmarkInfo {
        super::copy_info(
            "copy-buffer",
            "copy_buffer_to_buffer",
            Role::CopyEngine,
            "bytes read + written per second by copy_buffer_to_buffer",
            self.bytes,
        )
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        check_buffer_fits(ctx, self.bytes)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<CopyEngineState> {
        let data = SplitMix64::new(self.seed).bytes(self.bytes as usize);
        let src = ctx.buffer_with_data("copy src", &data, wgpu::BufferUsages::COPY_SRC);
        let dst = ctx.buffer(
            "copy dst",
            self.bytes,
            wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        );
        Ok(CopyEngineState { src, dst, data })
    }

    fn work(&self, _state: &CopyEngineState) -> Work {
        Work::bytes(self.bytes, self.bytes)
    }

    async fn run(&self, state: &mut CopyEngineState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        clock.write_timestamp(&mut encoder, Boundary::Begin);
        for _ in 0..iterations {
            encoder.copy_buffer_to_buffer(&state.src, 0, &state.dst, 0, self.bytes);
        }
        clock.write_timestamp(&mut encoder, Boundary::End);
        clock.submit([encoder.finish()]);
        Ok(())
    }

    async fn verify(&self, state: &mut CopyEngineState, ctx: &GpuContext) -> Outcome<Verification> {
        let got = ctx.read_buffer(&state.dst, self.bytes).await?;
        Ok(compare_bytes(&got, &state.data))
    }
}
