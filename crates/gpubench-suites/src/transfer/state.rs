//! The typed state of each transfer path (its buffers and host memory, built at set-up) and
//! what one sample does with it: whole transfers, copies alone, or host writes alone.

use gpubench_harness::timing::Boundary;
use gpubench_harness::{BenchError, GpuContext, Outcome, SampleClock, Verification};
use gpubench_results::rng::SplitMix64;

use super::TransferPath;
use gpubench_harness::kit::gpu::{DispatchKernel, compute_pipeline, grid_workgroups};
use gpubench_harness::kit::placement::BufferRole;
use gpubench_harness::kit::verify::compare_bytes;

/// Buffers and host memory of one transfer benchmark, per path; what the runs change (the
/// buffer mapped at creation, the bytes read out, whether the staging is mapped) is kept for
/// verification.
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
    /// Copies alone from `staging`, which holds `data` since set-up, into `dst`.
    StagingCopy {
        /// What `staging` holds.
        data: Vec<u8>,
        /// MAP_WRITE | COPY_SRC staging, written once.
        staging: wgpu::Buffer,
        /// The device buffer copied into.
        dst: wgpu::Buffer,
    },
    /// Copies alone from `src` into the MAP_READ `readback` buffer.
    ReadbackCopy {
        /// What `src` holds.
        data: Vec<u8>,
        /// The device buffer read.
        src: wgpu::Buffer,
        /// MAP_READ | COPY_DST readback, never mapped while timed.
        readback: wgpu::Buffer,
    },
    /// memcpy of `data` into the mapped range of `staging`.
    HostWrite {
        /// The bytes written.
        data: Vec<u8>,
        /// MAP_WRITE | COPY_SRC staging.
        staging: wgpu::Buffer,
        /// Whether `staging` is mapped (verification unmaps it; the next run maps it again
        /// before the clock starts).
        mapped: bool,
    },
    /// `data` written into the mapped STORAGE | MAP_WRITE `shared` buffer, which `kernel`
    /// reads in place and copies into `dst`.
    ZeroCopy {
        /// The bytes uploaded.
        data: Vec<u8>,
        /// STORAGE | MAP_WRITE, host-written and read by the kernel.
        shared: wgpu::Buffer,
        /// The device buffer the kernel copies into (for verification).
        dst: wgpu::Buffer,
        /// The copy kernel bound to `shared` and `dst`.
        kernel: DispatchKernel,
    },
}

/// Where one transfer stands among a sample's transfers.
#[derive(Debug, Clone, Copy)]
struct Step {
    first: bool,
    last: bool,
}

/// A step that is the sample's first and last: timestamps around everything it records.
const WHOLE_SAMPLE: Step = Step {
    first: true,
    last: true,
};

/// Invocations of the zero-copy kernel's workgroup (as in `transfer.wgsl`).
const WORKGROUP: u32 = 256;
/// vec4<u32> elements each zero-copy invocation copies (the grid is sized for it).
const PER_INVOCATION: u64 = 16;

impl TransferState {
    /// The buffers and host memory of `path` for transfers of `bytes`, data from `seed`. Every
    /// buffer is sized by the sweep (the profile and the adapter), so each is created through
    /// [`GpuContext::try_buffer`]: a size over the adapter's limit or an allocation the device
    /// cannot make is [`BenchError::Unsupported`] (the row is skipped with the reason), never a
    /// panic.
    pub async fn new(ctx: &GpuContext, path: TransferPath, bytes: u64, seed: u64) -> Outcome<Self> {
        let len = usize::try_from(bytes)
            .map_err(|_| BenchError::Unsupported("transfer larger than host memory".into()))?;
        let mut rng = SplitMix64::new(seed);
        let data = rng.bytes(len);
        // Destinations start with other random bytes: a transfer that never happened fails.
        let stale = rng.bytes(len);
        let device = BufferRole::Device.usage();
        let staging = BufferRole::Staging.usage();
        let readback = BufferRole::Readback.usage();
        let state = match path {
            TransferPath::WriteBuffer => TransferState::WriteBuffer {
                dst: filled(ctx, "transfer dst", &stale, device).await?,
                data,
            },
            TransferPath::MappedStaging => TransferState::MappedStaging {
                staging: ctx.try_buffer("transfer staging", bytes, staging).await?,
                dst: filled(ctx, "transfer dst", &stale, device).await?,
                data,
            },
            TransferPath::MappedAtCreation => TransferState::MappedAtCreation { data, last: None },
            TransferPath::MapRead => TransferState::MapRead {
                src: filled(ctx, "transfer src", &data, device).await?,
                staging: ctx.try_buffer("transfer readback", bytes, readback).await?,
                data,
                out: stale,
            },
            TransferPath::StagingCopy => TransferState::StagingCopy {
                staging: filled(ctx, "transfer staging", &data, staging).await?,
                dst: filled(ctx, "transfer dst", &stale, device).await?,
                data,
            },
            TransferPath::ReadbackCopy => TransferState::ReadbackCopy {
                src: filled(ctx, "transfer src", &data, device).await?,
                readback: filled(ctx, "transfer readback", &stale, readback).await?,
                data,
            },
            TransferPath::HostWrite => {
                let staging = ctx.try_buffer("transfer staging", bytes, staging).await?;
                // Mapped once here, outside any clock (wgpu zero-fills a first mapping, which
                // also touches every page before timing).
                ctx.map_and_wait(&staging, wgpu::MapMode::Write).await?;
                TransferState::HostWrite {
                    data,
                    staging,
                    mapped: true,
                }
            }
            TransferPath::ZeroCopy => {
                let dst = filled(ctx, "transfer dst", &stale, device).await?;
                zero_copy(ctx, data, dst, bytes).await?
            }
        };
        // Let the initial uploads finish so the first timed transfer does not wait for them.
        ctx.wait_idle().await?;
        Ok(state)
    }

    /// One sample of `iterations` operations: whole transfers one after the other, copies
    /// alone in one command buffer, or memcpys alone.
    pub async fn sample(
        &mut self,
        clock: &mut SampleClock<'_>,
        bytes: u64,
        iterations: u32,
    ) -> Outcome {
        match self {
            TransferState::StagingCopy { staging, dst, .. } => {
                timed_copies(clock, (staging, dst), (bytes, iterations), WHOLE_SAMPLE);
            }
            TransferState::ReadbackCopy { src, readback, .. } => {
                timed_copies(clock, (src, readback), (bytes, iterations), WHOLE_SAMPLE);
            }
            TransferState::HostWrite {
                data,
                staging,
                mapped,
            } => {
                let ctx = clock.ctx();
                if !*mapped {
                    ctx.map_and_wait(staging, wgpu::MapMode::Write).await?;
                    *mapped = true;
                }
                clock.start_host();
                let mut view = staging.get_mapped_range_mut(..)?;
                for _ in 0..iterations {
                    view.copy_from_slice(std::hint::black_box(data.as_slice()));
                    std::hint::black_box(&mut view);
                }
            }
            _ => {
                if let TransferState::MappedAtCreation { last, .. } = self {
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
                    self.transfer(clock, bytes, step).await?;
                }
            }
        }
        Ok(())
    }

    /// One whole transfer of `bytes` along an end-to-end path.
    async fn transfer(&mut self, clock: &mut SampleClock<'_>, bytes: u64, step: Step) -> Outcome {
        let ctx = clock.ctx();
        match self {
            TransferState::WriteBuffer { data, dst } => {
                ctx.queue.write_buffer(dst, 0, data);
                flush(ctx, clock, step).await?;
            }
            TransferState::MappedStaging { data, staging, dst } => {
                ctx.map_and_wait(staging, wgpu::MapMode::Write).await?;
                staging.get_mapped_range_mut(..)?.copy_from_slice(data);
                staging.unmap();
                timed_copies(clock, (staging, dst), (bytes, 1), step);
            }
            TransferState::MappedAtCreation { data, last } => {
                let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("transfer fresh"),
                    size: bytes,
                    usage: BufferRole::Device.usage(),
                    mapped_at_creation: true,
                });
                buffer.get_mapped_range_mut(..)?.copy_from_slice(data);
                buffer.unmap();
                flush(ctx, clock, step).await?;
                *last = Some(buffer);
            }
            TransferState::MapRead {
                src, staging, out, ..
            } => {
                timed_copies(clock, (src, staging), (bytes, 1), step);
                ctx.map_and_wait(staging, wgpu::MapMode::Read).await?;
                out.copy_from_slice(&staging.get_mapped_range(..)?);
                staging.unmap();
            }
            TransferState::ZeroCopy {
                data,
                shared,
                kernel,
                ..
            } => {
                ctx.map_and_wait(shared, wgpu::MapMode::Write).await?;
                shared.get_mapped_range_mut(..)?.copy_from_slice(data);
                shared.unmap();
                timed_kernel(clock, kernel, step);
            }
            TransferState::StagingCopy { .. }
            | TransferState::ReadbackCopy { .. }
            | TransferState::HostWrite { .. } => {
                return Err(BenchError::Gpu(
                    "a copy-engine or host-write state has no end-to-end transfer".into(),
                ));
            }
        }
        Ok(())
    }

    /// What arrived where it should, against what was sent: compared where the bytes were
    /// mapped, never copied out first (at the largest sizes a copy is a second buffer's worth
    /// of host memory).
    pub async fn verify(&mut self, ctx: &GpuContext, bytes: u64) -> Outcome<Verification> {
        let verification = match self {
            TransferState::WriteBuffer { data, dst }
            | TransferState::MappedStaging { data, dst, .. }
            | TransferState::StagingCopy { data, dst, .. }
            | TransferState::ZeroCopy { data, dst, .. } => {
                ctx.read_buffer_with(dst, bytes, |got| compare_bytes(got, data))
                    .await?
            }
            TransferState::MappedAtCreation { data, last } => {
                let buffer = last
                    .as_ref()
                    .ok_or_else(|| BenchError::Gpu("verify before any transfer".into()))?;
                ctx.read_buffer_with(buffer, bytes, |got| compare_bytes(got, data))
                    .await?
            }
            TransferState::MapRead {
                data, out, staging, ..
            } => {
                // What the path delivered, then the readback it came through: the runner
                // overwrites what a check read (`gpubench_harness::read_log`), so a copy dropped
                // after this check leaves the readback wrong for the next.
                let delivered = compare_bytes(out, data);
                if !delivered.passed() {
                    return Ok(delivered);
                }
                ctx.map_and_read_with(staging, |got| compare_bytes(got, data))
                    .await?
            }
            TransferState::ReadbackCopy { data, readback, .. } => {
                ctx.map_and_read_with(readback, |got| compare_bytes(got, data))
                    .await?
            }
            TransferState::HostWrite {
                data,
                staging,
                mapped,
            } => {
                if *mapped {
                    staging.unmap();
                    *mapped = false;
                }
                ctx.read_buffer_with(staging, bytes, |got| compare_bytes(got, data))
                    .await?
            }
        };
        Ok(verification)
    }
}

/// A buffer of `usage` holding `contents`, or why there is none: created by
/// [`GpuContext::try_buffer`] (over the adapter's limit or out of memory, the row is skipped
/// with the reason), then filled through a mapping where the usage has MAP_WRITE, else by the
/// queue (COPY_DST).
async fn filled(
    ctx: &GpuContext,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> Outcome<wgpu::Buffer> {
    use wgpu::BufferUsages as U;
    if !usage.intersects(U::MAP_WRITE | U::COPY_DST) {
        return Err(BenchError::Gpu(format!(
            "{label}: a buffer without MAP_WRITE or COPY_DST cannot be filled; give its usage one of them"
        )));
    }
    let buffer = ctx.try_buffer(label, contents.len() as u64, usage).await?;
    if usage.contains(U::MAP_WRITE) {
        ctx.map_and_wait(&buffer, wgpu::MapMode::Write).await?;
        buffer.get_mapped_range_mut(..)?.copy_from_slice(contents);
        buffer.unmap();
    } else {
        ctx.queue.write_buffer(&buffer, 0, contents);
    }
    Ok(buffer)
}

/// The zero-copy state: a STORAGE | MAP_WRITE buffer and the kernel that copies it into `dst`.
async fn zero_copy(
    ctx: &GpuContext,
    data: Vec<u8>,
    dst: wgpu::Buffer,
    bytes: u64,
) -> Outcome<TransferState> {
    let shared = ctx
        .try_buffer("transfer shared", bytes, BufferRole::Shared.usage())
        .await?;
    let pipeline = compute_pipeline(
        ctx,
        "transfer zero-copy",
        crate::transfer::WGSL,
        "copy_words",
    );
    let groups = grid_workgroups(ctx, bytes / 16, WORKGROUP, PER_INVOCATION);
    let kernel = DispatchKernel::new(
        ctx,
        "transfer zero-copy",
        pipeline,
        &[(0, &shared), (1, &dst)],
        (groups, 1),
    );
    Ok(TransferState::ZeroCopy {
        data,
        shared,
        dst,
        kernel,
    })
}

/// Submits what the queue holds (wgpu's own staging copy) and, unless this is the sample's last
/// transfer, waits for it: each transfer completes before the next starts, and the clock waits
/// for the last one.
async fn flush(ctx: &GpuContext, clock: &mut SampleClock<'_>, step: Step) -> Outcome {
    clock.submit(std::iter::empty());
    if !step.last {
        ctx.wait_idle().await?;
    }
    Ok(())
}

/// `count` copies of `bytes` in one command buffer of its own, one submit, with the clock's
/// begin timestamp before them on the sample's first step and its end timestamp after them on
/// the last: one copy per end-to-end transfer, or the copy-engine rows' back-to-back copies.
fn timed_copies(
    clock: &mut SampleClock<'_>,
    (src, dst): (&wgpu::Buffer, &wgpu::Buffer),
    (bytes, count): (u64, u32),
    step: Step,
) {
    let mut encoder = clock
        .ctx()
        .device
        .create_command_encoder(&Default::default());
    if step.first {
        clock.write_timestamp(&mut encoder, Boundary::Begin);
    }
    for _ in 0..count {
        encoder.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
    }
    if step.last {
        clock.write_timestamp(&mut encoder, Boundary::End);
    }
    clock.submit([encoder.finish()]);
}

/// One dispatch of `kernel` in a pass of its own, carrying the clock's begin timestamp on the
/// sample's first transfer and its end timestamp on the last.
fn timed_kernel(clock: &mut SampleClock<'_>, kernel: &DispatchKernel, step: Step) {
    let mut encoder = clock
        .ctx()
        .device
        .create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&kernel.label),
            timestamp_writes: clock.pass_timestamps(step.first, step.last),
        });
        kernel.encode(&mut pass, 1);
    }
    clock.submit([encoder.finish()]);
}
