//! The transfer kernel: one path at one size, its buffers in a typed state per path, one
//! transfer per iteration, verified byte for byte.

use gpubench_harness::rng::SplitMix64;
use gpubench_harness::timing::Boundary;
use gpubench_harness::units::format_size;
use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, IterationPolicy, Kernel, MetricKind, Outcome,
    SampleClock, TimingPreference, Verification, Work,
};

use super::{SAMPLES_PER_SIZE, TransferPath};
use crate::verify::compare_bytes;

/// Buffers and host memory of one transfer benchmark, per path; what the runs change (the
/// buffer mapped at creation, the bytes read out) is kept for verification.
pub enum TransferState {
    /// `queue.write_buffer` of `data` into `dst`.
    WriteBuffer {
        /// The bytes uploaded.
        data: Vec<u8>,
        /// The device buffer written.
        dst: wgpu::Buffer,
    },
    /// `data` through the mapped `staging` buffer, then copied into `dst`.
    MappedStaging {
        /// The bytes uploaded.
        data: Vec<u8>,
        /// MAP_WRITE | COPY_SRC staging.
        staging: wgpu::Buffer,
        /// The device buffer copied into.
        dst: wgpu::Buffer,
    },
    /// `data` written into a fresh buffer mapped at creation, once per transfer.
    MappedAtCreation {
        /// The bytes uploaded.
        data: Vec<u8>,
        /// The last transfer's buffer (none before the first run).
        last: Option<wgpu::Buffer>,
    },
    /// `src` copied into the MAP_READ `staging` buffer and read out into `out`.
    MapRead {
        /// What `src` holds.
        data: Vec<u8>,
        /// The device buffer read.
        src: wgpu::Buffer,
        /// MAP_READ | COPY_DST readback.
        staging: wgpu::Buffer,
        /// Host memory the bytes are read out into.
        out: Vec<u8>,
    },
}

/// Where one transfer stands among a sample's transfers.
#[derive(Debug, Clone, Copy)]
struct Step {
    first: bool,
    last: bool,
}

/// Usage of the device-side buffers of every path.
fn device_usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC
}

/// Submits what the queue holds (wgpu's own staging copy) and, unless this is the sample's last
/// transfer, waits for it: each transfer completes before the next starts, and the clock waits
/// for the last one.
fn flush(ctx: &GpuContext, clock: &mut SampleClock<'_>, step: Step) -> Result<(), BenchError> {
    clock.submit(std::iter::empty());
    if !step.last {
        ctx.wait_idle()?;
    }
    Ok(())
}

/// `copy_buffer_to_buffer` of `bytes` in a command buffer of its own, with the clock's begin
/// timestamp before the sample's first copy and its end timestamp after the last.
fn timed_copy(
    ctx: &GpuContext,
    clock: &mut SampleClock<'_>,
    (src, dst): (&wgpu::Buffer, &wgpu::Buffer),
    bytes: u64,
    step: Step,
) {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    if step.first {
        clock.write_timestamp(&mut encoder, Boundary::Begin);
    }
    encoder.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
    if step.last {
        clock.write_timestamp(&mut encoder, Boundary::End);
    }
    clock.submit([encoder.finish()]);
}

impl TransferState {
    /// One transfer of `bytes` along this state's path.
    fn transfer(
        &mut self,
        ctx: &GpuContext,
        clock: &mut SampleClock<'_>,
        bytes: u64,
        step: Step,
    ) -> Result<(), BenchError> {
        match self {
            TransferState::WriteBuffer { data, dst } => {
                ctx.queue.write_buffer(dst, 0, data);
                flush(ctx, clock, step)?;
            }
            TransferState::MappedStaging { data, staging, dst } => {
                ctx.map_and_wait(staging, wgpu::MapMode::Write)?;
                staging.get_mapped_range_mut(..)?.copy_from_slice(data);
                staging.unmap();
                timed_copy(ctx, clock, (staging, dst), bytes, step);
            }
            TransferState::MappedAtCreation { data, last } => {
                let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("transfer fresh"),
                    size: bytes,
                    usage: device_usage(),
                    mapped_at_creation: true,
                });
                buffer.get_mapped_range_mut(..)?.copy_from_slice(data);
                buffer.unmap();
                flush(ctx, clock, step)?;
                *last = Some(buffer);
            }
            TransferState::MapRead {
                src, staging, out, ..
            } => {
                timed_copy(ctx, clock, (src, staging), bytes, step);
                ctx.map_and_wait(staging, wgpu::MapMode::Read)?;
                out.copy_from_slice(&staging.get_mapped_range(..)?);
                staging.unmap();
            }
        }
        Ok(())
    }
}

/// One path at one size.
pub struct Transfer {
    path: TransferPath,
    bytes: u64,
    seed: u64,
}

impl Transfer {
    /// Transfers of `bytes` (a multiple of 4) along `path`, data from `seed`.
    pub fn new(path: TransferPath, bytes: u64, seed: u64) -> Self {
        Self { path, bytes, seed }
    }

    /// The work of one transfer: the bytes moved once (read from the device for d2h, written to
    /// it for h2d). It does not depend on set-up.
    pub fn transfer_work(&self) -> Work {
        match self.path {
            TransferPath::MapRead => Work::bytes(self.bytes, 0),
            _ => Work::bytes(0, self.bytes),
        }
    }
}

impl Kernel for Transfer {
    type State = TransferState;

    fn info(&self) -> BenchmarkInfo {
        let path = self.path;
        let mut info = BenchmarkInfo::new(
            format!("transfer/{}/bytes/{}", path.name(), format_size(self.bytes)),
            "transfer",
            MetricKind::Bandwidth,
            path.counts(),
        )
        .param("path", path.name())
        .param("direction", path.direction())
        .param("bytes", self.bytes)
        .param("size", format_size(self.bytes));
        info.timing = TimingPreference::Host;
        // One transfer per sample: each sample is one transfer's end-to-end latency, and the GPU
        // timestamps bracket exactly that transfer's copy.
        info.iterations = IterationPolicy::Fixed(1);
        info.min_samples = Some(SAMPLES_PER_SIZE);
        info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        if self.bytes > ctx.limits.max_buffer_size {
            return Err(format!(
                "transfer of {} exceeds max_buffer_size ({})",
                format_size(self.bytes),
                format_size(ctx.limits.max_buffer_size)
            ));
        }
        Ok(())
    }

    fn setup(&self, ctx: &GpuContext) -> Outcome<TransferState> {
        let len = usize::try_from(self.bytes)
            .map_err(|_| BenchError::Unsupported("transfer larger than host memory".into()))?;
        let mut rng = SplitMix64::new(self.seed);
        let data = rng.bytes(len);
        // Destinations start with other random bytes: a transfer that never happened fails.
        let stale = rng.bytes(len);
        let device = |label: &str| ctx.buffer_with_data(label, &stale, device_usage());
        let staging = |label: &str, usage: wgpu::BufferUsages| ctx.buffer(label, self.bytes, usage);
        let state = match self.path {
            TransferPath::WriteBuffer => TransferState::WriteBuffer {
                data,
                dst: device("transfer dst"),
            },
            TransferPath::MappedStaging => TransferState::MappedStaging {
                data,
                staging: staging(
                    "transfer staging",
                    wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                ),
                dst: device("transfer dst"),
            },
            TransferPath::MappedAtCreation => TransferState::MappedAtCreation { data, last: None },
            TransferPath::MapRead => TransferState::MapRead {
                src: ctx.buffer_with_data("transfer src", &data, device_usage()),
                data,
                staging: staging(
                    "transfer readback",
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                ),
                out: stale,
            },
        };
        // Let the initial uploads finish so the first timed transfer does not wait for them.
        ctx.wait_idle()?;
        Ok(state)
    }

    fn work(&self, _state: &TransferState) -> Work {
        self.transfer_work()
    }

    fn run(&self, state: &mut TransferState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        if let TransferState::MappedAtCreation { last, .. } = state {
            // Release the previous run's buffer before the clock starts.
            drop(last.take());
        }
        let last = iterations.max(1) - 1;
        clock.start_host();
        for i in 0..=last {
            let step = Step {
                first: i == 0,
                last: i == last,
            };
            state.transfer(ctx, clock, self.bytes, step)?;
        }
        Ok(())
    }

    fn verify(&self, state: &mut TransferState, ctx: &GpuContext) -> Outcome<Verification> {
        let (got, want) = match state {
            TransferState::WriteBuffer { data, dst }
            | TransferState::MappedStaging { data, dst, .. } => {
                (ctx.read_buffer(dst, self.bytes)?, data)
            }
            TransferState::MappedAtCreation { data, last } => {
                let buffer = last
                    .as_ref()
                    .ok_or_else(|| BenchError::Gpu("verify before any transfer".into()))?;
                (ctx.read_buffer(buffer, self.bytes)?, data)
            }
            TransferState::MapRead { data, out, .. } => (out.clone(), data),
        };
        Ok(compare_bytes(&got, want))
    }
}
