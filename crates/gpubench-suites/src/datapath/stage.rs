//! The five stages of a request, each timed alone over the request's own buffers: what each
//! costs without the seams between them (the submits, maps and waits the whole path adds,
//! which the serial row's own span includes and this one leaves out).
//!
//! - `prepare`: the host writes the input into the mapped staging buffer (host clock; the map
//!   itself is a seam);
//! - `h2d`: the copy from the staging buffer to the device buffer (GPU timestamps around the
//!   copies where the adapter has them, and the host clock from submit to completion);
//! - `compute`: the kernel (timestamps on its pass, and the host clock);
//! - `d2h`: the copy of the output into the mappable buffer (as `h2d`);
//! - `check`: the host compares the mapped output with the predicted answer (host clock).
//!
//! Calibrated: a sample repeats its stage until it is long enough to time, so each figure is
//! the stage's steady cost per request.

use gpubench_harness::timing::Boundary;
use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, Outcome, SampleClock, TimingPreference,
    Verification, Work,
};

use super::path::{self, Prepared};
use super::reference::Reference;
use super::request::Request;

/// One stage of a request's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Host writes the input where the upload reads it.
    Prepare,
    /// Host-to-device copy.
    Upload,
    /// The kernel.
    Compute,
    /// Device-to-host copy.
    Download,
    /// Host checks the output.
    Check,
}

impl Stage {
    /// The stages in the order of the path.
    pub const ALL: [Stage; 5] = [
        Stage::Prepare,
        Stage::Upload,
        Stage::Compute,
        Stage::Download,
        Stage::Check,
    ];

    /// Its name in ids and tables.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Prepare => "prepare",
            Stage::Upload => "h2d",
            Stage::Compute => "compute",
            Stage::Download => "d2h",
            Stage::Check => "check",
        }
    }

    /// Whether the host does it (no device work to time).
    pub fn on_host(self) -> bool {
        matches!(self, Stage::Prepare | Stage::Check)
    }

    /// The stage named `name`.
    pub fn named(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name)
    }

    fn counts(self) -> &'static str {
        match self {
            Stage::Prepare => "host time to write one request's input into mapped memory",
            Stage::Upload => "time of one request's host-to-device copy",
            Stage::Compute => "time of one request's kernel",
            Stage::Download => "time of one request's device-to-host copy",
            Stage::Check => "host time to check one request's output (sampled words)",
        }
    }

    /// The bytes the stage moves, for its GB/s.
    pub fn bytes(self, request: &Request) -> u64 {
        match self {
            Stage::Prepare | Stage::Upload => request.input_bytes,
            Stage::Download => request.output_bytes,
            Stage::Compute | Stage::Check => 0,
        }
    }
}

/// One stage of one workload's request, timed alone.
pub struct StageKernel {
    request: Request,
    stage: Stage,
    seed: u64,
}

impl StageKernel {
    /// `stage` of `request`.
    pub fn new(request: Request, stage: Stage, seed: u64) -> Self {
        Self {
            request,
            stage,
            seed,
        }
    }
}

impl Kernel for StageKernel {
    type State = Prepared;

    fn info(&self) -> BenchmarkInfo {
        let name = self.stage.name();
        let row = format!("stage/{name}");
        let mut info = self
            .request
            .info(&row, self.stage.counts(), ("stage", name));
        if self.stage.on_host() {
            info.timing = TimingPreference::Host;
        }
        info
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<Prepared> {
        path::prepared(ctx, &self.request, self.seed, 1).await
    }

    fn work(&self, _state: &Prepared) -> Work {
        let bytes = self.stage.bytes(&self.request);
        let mut work = Work::bytes(bytes, bytes);
        if self.stage == Stage::Compute {
            work.flops = self.request.flops();
        }
        work
    }

    async fn run(&self, state: &mut Prepared, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, n) = (clock.ctx(), clock.iterations());
        let slot = &state.slots[0];
        match self.stage {
            Stage::Prepare => {
                ctx.map_after(&slot.staging, wgpu::MapMode::Write, None)
                    .await?;
                {
                    let mut range = slot.staging.get_mapped_range_mut(..)?;
                    clock.start_host();
                    for k in 0..n {
                        state
                            .reference
                            .prepare(range.slice(..), Reference::salt(u64::from(k)));
                    }
                    clock.stop_host();
                }
                slot.staging.unmap();
            }
            Stage::Check => {
                slot.map_output(ctx).await?;
                let salt = state.last_salt;
                let mut found = None;
                {
                    let range = slot.readback.get_mapped_range(..)?;
                    clock.start_host();
                    for _ in 0..n {
                        found = Some(state.reference.mismatches(&range, salt, false));
                    }
                    clock.stop_host();
                }
                slot.readback.unmap();
                if let Some(reason) = found.and_then(|f| f.failure()) {
                    return Err(BenchError::Gpu(format!("the output changed: {reason}")));
                }
            }
            Stage::Upload | Stage::Download | Stage::Compute => {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                if self.stage == Stage::Compute {
                    for k in 0..n {
                        let writes = clock.pass_timestamps(k == 0, k + 1 == n);
                        slot.encode_compute(&mut encoder, &state.kernel, writes);
                    }
                } else {
                    clock.write_timestamp(&mut encoder, Boundary::Begin);
                    for _ in 0..n {
                        if self.stage == Stage::Upload {
                            slot.encode_upload(&mut encoder);
                        } else {
                            slot.encode_download(&mut encoder);
                        }
                    }
                    clock.write_timestamp(&mut encoder, Boundary::End);
                }
                clock.submit([encoder.finish()]);
            }
        }
        Ok(())
    }

    async fn verify(&self, state: &mut Prepared, ctx: &GpuContext) -> Outcome<Verification> {
        path::verify_one_request(ctx, state).await
    }
}
