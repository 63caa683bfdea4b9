//! The transfer suite: moving data between host and device, the way a wgpu program actually
//! does it, over a geometric sweep of sizes, plus a fitted fixed cost and asymptotic bandwidth.
//!
//! Four paths, each timed end to end by the host clock (what an application waits for), one
//! transfer per sample so each sample is one transfer's latency:
//!
//! - `h2d-write-buffer`: `queue.write_buffer` into a device buffer, then a submit to flush it.
//!   wgpu copies through its own staging memory in a command buffer of its own, ahead of ours,
//!   so no timestamp of ours can bracket that copy: host time only.
//! - `h2d-mapped-staging`: `map_async(Write)` on a MAP_WRITE | COPY_SRC staging buffer and wait,
//!   write the data into the mapped range, unmap, `copy_buffer_to_buffer` into the device buffer.
//!   The map is inside the timed region because an application re-uploading must re-map; GPU
//!   timestamps bracket the copy.
//! - `h2d-mapped-at-creation`: a fresh device buffer created `mapped_at_creation`, written and
//!   unmapped, then a submit so the data lands. Creating the buffer is part of this path's cost
//!   (that is how `create_buffer_init` uploads). Host time only, as for write_buffer.
//! - `d2h-map-read`: `copy_buffer_to_buffer` from a device buffer into a MAP_READ buffer,
//!   `map_async(Read)` and wait, and read the bytes out into host memory; timestamps bracket the
//!   copy.
//!
//! Bandwidth counts the bytes moved once. Every transfer is verified byte for byte: the
//! destination starts with different random bytes, so a transfer that did not happen fails.
//! The suite derives, per path, the fit of `t = fixed + bytes / bandwidth` (see [`crate::fit`]).

use gpubench_harness::rng::SplitMix64;
use gpubench_harness::timing::Boundary;
use gpubench_harness::units::{KIB, MIB, format_size};
use gpubench_harness::{
    BenchError, BenchResult, Benchmark, BenchmarkInfo, GpuContext, IterationPolicy, MetricKind,
    Profile, SampleClock, TimingPreference, Verification, Work,
};

use crate::gpu::ready;
use crate::verify::compare_bytes;
use crate::{KernelError, Suite, SuiteOptions, Tuner};

mod derived;

pub use derived::fitted_model;

/// Smallest size of every sweep.
pub const SMALLEST: u64 = 4 * KIB;
/// Each size is this many times the previous one.
pub const STEP: u64 = 4;
/// Largest size of the quick profile.
pub const QUICK_CAP: u64 = 4 * MIB;
/// Largest size of the default and full profiles (before the adapter's limit).
pub const DEFAULT_CAP: u64 = 256 * MIB;
/// Transfers per size and path (each is one sample): enough for a stable median and bootstrap.
pub const SAMPLES_PER_SIZE: usize = 20;
/// Resamples of the bootstrap of the fit.
const FIT_RESAMPLES: usize = 1000;
/// A fit whose worst point is further than this (relative) from the line gets a warning.
const POOR_FIT: f64 = 0.25;
/// Seed of that bootstrap, fixed so intervals repeat.
const FIT_SEED: u64 = 0x7472_616e_7366_6572; // "transfer"

/// A way to move bytes between host and device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferPath {
    /// `queue.write_buffer`.
    WriteBuffer,
    /// Mapped MAP_WRITE staging buffer plus `copy_buffer_to_buffer`.
    MappedStaging,
    /// A fresh buffer `mapped_at_creation`.
    MappedAtCreation,
    /// Copy into a MAP_READ buffer, map and read out.
    MapRead,
}

impl TransferPath {
    /// Every path in report order.
    pub const ALL: [TransferPath; 4] = [
        TransferPath::WriteBuffer,
        TransferPath::MappedStaging,
        TransferPath::MappedAtCreation,
        TransferPath::MapRead,
    ];

    /// Name, as used in result ids and the `path` parameter.
    pub fn name(self) -> &'static str {
        match self {
            TransferPath::WriteBuffer => "h2d-write-buffer",
            TransferPath::MappedStaging => "h2d-mapped-staging",
            TransferPath::MappedAtCreation => "h2d-mapped-at-creation",
            TransferPath::MapRead => "d2h-map-read",
        }
    }

    /// `h2d` or `d2h`.
    pub fn direction(self) -> &'static str {
        match self {
            TransferPath::MapRead => "d2h",
            _ => "h2d",
        }
    }

    /// Whether GPU timestamps can bracket this path's copy.
    pub fn gpu_timed(self) -> bool {
        matches!(self, TransferPath::MappedStaging | TransferPath::MapRead)
    }

    fn counts(self) -> &'static str {
        match self {
            TransferPath::WriteBuffer => {
                "bytes moved once per second, host to device: queue.write_buffer + submit until the GPU has the data (host clock; no GPU time: wgpu copies in its own command buffer)"
            }
            TransferPath::MappedStaging => {
                "bytes moved once per second, host to device: map_async(Write) + wait, write the mapped staging buffer, unmap, copy_buffer_to_buffer until done (host clock; GPU timestamps around the copy)"
            }
            TransferPath::MappedAtCreation => {
                "bytes moved once per second, host to device: create a fresh buffer mapped_at_creation (creation cost included), write, unmap, submit until the GPU has it (host clock; no GPU time)"
            }
            TransferPath::MapRead => {
                "bytes moved once per second, device to host: copy_buffer_to_buffer into a MAP_READ buffer, map_async(Read) + wait, read out into host memory (host clock; GPU timestamps around the copy)"
            }
        }
    }
}

/// Buffers and host memory of one transfer benchmark.
enum TransferState {
    WriteBuffer {
        data: Vec<u8>,
        dst: wgpu::Buffer,
    },
    MappedStaging {
        data: Vec<u8>,
        staging: wgpu::Buffer,
        dst: wgpu::Buffer,
    },
    MappedAtCreation {
        data: Vec<u8>,
        last: Option<wgpu::Buffer>,
    },
    MapRead {
        data: Vec<u8>,
        src: wgpu::Buffer,
        staging: wgpu::Buffer,
        out: Vec<u8>,
    },
}

/// One path at one size.
pub struct TransferBenchmark {
    info: BenchmarkInfo,
    path: TransferPath,
    bytes: u64,
    seed: u64,
    state: Option<TransferState>,
}

impl TransferBenchmark {
    /// Transfers of `bytes` (a multiple of 4) along `path`, data from `seed`.
    pub fn new(path: TransferPath, bytes: u64, seed: u64) -> Self {
        let mut info = BenchmarkInfo::new(
            format!("transfer/{}/bytes/{}", path.name(), format_size(bytes)),
            "transfer",
            MetricKind::Bandwidth,
            path.counts(),
        )
        .param("path", path.name())
        .param("direction", path.direction())
        .param("bytes", bytes)
        .param("size", format_size(bytes));
        info.timing = TimingPreference::Host;
        // One transfer per sample: each sample is one transfer's end-to-end latency, and the GPU
        // timestamps bracket exactly that transfer's copy.
        info.iterations = IterationPolicy::Fixed(1);
        info.min_samples = Some(SAMPLES_PER_SIZE);
        Self {
            info,
            path,
            bytes,
            seed,
            state: None,
        }
    }

    fn device_usage() -> wgpu::BufferUsages {
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC
    }
}

impl Benchmark for TransferBenchmark {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
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

    fn setup(&mut self, ctx: &GpuContext) -> Result<(), BenchError> {
        let len = usize::try_from(self.bytes)
            .map_err(|_| BenchError::Unsupported("transfer larger than host memory".into()))?;
        let mut rng = SplitMix64::new(self.seed);
        let data = rng.bytes(len);
        // Destinations start with other random bytes: a transfer that never happened fails.
        let stale = rng.bytes(len);
        let device = |label: &str| ctx.buffer_with_data(label, &stale, Self::device_usage());
        let state = match self.path {
            TransferPath::WriteBuffer => TransferState::WriteBuffer {
                data,
                dst: device("transfer dst"),
            },
            TransferPath::MappedStaging => TransferState::MappedStaging {
                data,
                staging: ctx.buffer(
                    "transfer staging",
                    self.bytes,
                    wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                ),
                dst: device("transfer dst"),
            },
            TransferPath::MappedAtCreation => TransferState::MappedAtCreation { data, last: None },
            TransferPath::MapRead => TransferState::MapRead {
                src: ctx.buffer_with_data("transfer src", &data, Self::device_usage()),
                data,
                staging: ctx.buffer(
                    "transfer readback",
                    self.bytes,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                ),
                out: stale,
            },
        };
        self.state = Some(state);
        // Let the initial uploads finish so the first timed transfer does not wait for them.
        ctx.wait_idle()
    }

    fn work(&self) -> Work {
        let (read, written) = match self.path {
            TransferPath::MapRead => (self.bytes, 0),
            _ => (0, self.bytes),
        };
        Work {
            bytes_read: read,
            bytes_written: written,
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
        let bytes = self.bytes;
        let state = self
            .state
            .as_mut()
            .ok_or_else(|| BenchError::Gpu("run before setup".into()))?;
        // Each transfer completes before the next starts (the clock waits for the last one).
        let last = iterations.max(1) - 1;
        match state {
            TransferState::WriteBuffer { data, dst } => {
                clock.start_host();
                for i in 0..=last {
                    ctx.queue.write_buffer(dst, 0, data);
                    clock.submit(std::iter::empty());
                    if i < last {
                        ctx.wait_idle()?;
                    }
                }
            }
            TransferState::MappedStaging { data, staging, dst } => {
                clock.start_host();
                for i in 0..=last {
                    ctx.map_and_wait(staging, wgpu::MapMode::Write)?;
                    staging.get_mapped_range_mut(..)?.copy_from_slice(data);
                    staging.unmap();
                    let mut encoder = ctx.device.create_command_encoder(&Default::default());
                    if i == 0 {
                        clock.write_timestamp(&mut encoder, Boundary::Begin);
                    }
                    encoder.copy_buffer_to_buffer(staging, 0, dst, 0, bytes);
                    if i == last {
                        clock.write_timestamp(&mut encoder, Boundary::End);
                    }
                    clock.submit([encoder.finish()]);
                }
            }
            TransferState::MappedAtCreation { data, last: kept } => {
                // Release the previous run's buffer before the clock starts.
                drop(kept.take());
                clock.start_host();
                for i in 0..=last {
                    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("transfer fresh"),
                        size: bytes,
                        usage: Self::device_usage(),
                        mapped_at_creation: true,
                    });
                    buffer.get_mapped_range_mut(..)?.copy_from_slice(data);
                    buffer.unmap();
                    clock.submit(std::iter::empty());
                    if i < last {
                        ctx.wait_idle()?;
                    }
                    *kept = Some(buffer);
                }
            }
            TransferState::MapRead {
                src, staging, out, ..
            } => {
                clock.start_host();
                for i in 0..=last {
                    let mut encoder = ctx.device.create_command_encoder(&Default::default());
                    if i == 0 {
                        clock.write_timestamp(&mut encoder, Boundary::Begin);
                    }
                    encoder.copy_buffer_to_buffer(src, 0, staging, 0, bytes);
                    if i == last {
                        clock.write_timestamp(&mut encoder, Boundary::End);
                    }
                    clock.submit([encoder.finish()]);
                    ctx.map_and_wait(staging, wgpu::MapMode::Read)?;
                    out.copy_from_slice(&staging.get_mapped_range(..)?);
                    staging.unmap();
                }
            }
        }
        Ok(())
    }

    fn verify(&mut self, ctx: &GpuContext) -> Result<Verification, BenchError> {
        let state = ready(&self.state, "verify")?;
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

    fn teardown(&mut self) {
        self.state = None;
    }
}

/// The sizes of the sweep: 4 KiB, 16 KiB, ... up to the profile's cap (quick 4 MiB, else
/// 256 MiB), never above the adapter's `max_buffer_size`.
pub fn sweep_sizes(ctx: &GpuContext, profile: Profile) -> Vec<u64> {
    let wanted = match profile {
        Profile::Quick => QUICK_CAP,
        Profile::Default | Profile::Full => DEFAULT_CAP,
    };
    sizes_up_to(wanted.min(ctx.limits.max_buffer_size))
}

/// 4 KiB times powers of 4, up to and including `cap`.
pub fn sizes_up_to(cap: u64) -> Vec<u64> {
    std::iter::successors(Some(SMALLEST), |s| s.checked_mul(STEP))
        .take_while(|&s| s <= cap)
        .collect()
}

/// The transfer suite: every path over the size sweep, then the fitted model per path.
pub struct TransferSuite;

impl Suite for TransferSuite {
    fn name(&self) -> &'static str {
        "transfer"
    }

    fn benchmarks(
        &self,
        ctx: &GpuContext,
        options: &SuiteOptions,
        _tuner: &mut dyn Tuner,
    ) -> Result<Vec<Box<dyn Benchmark>>, KernelError> {
        let sizes = sweep_sizes(ctx, options.profile);
        Ok(TransferPath::ALL
            .iter()
            .flat_map(|&path| {
                sizes.iter().map(move |&bytes| {
                    Box::new(TransferBenchmark::new(path, bytes, options.seed))
                        as Box<dyn Benchmark>
                })
            })
            .collect())
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        derived::derive(results, earlier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_is_geometric_from_4kib_to_the_cap() {
        assert_eq!(
            sizes_up_to(4 * MIB),
            vec![4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB, 4 * MIB]
        );
        assert_eq!(sizes_up_to(256 * MIB).len(), 9);
        assert_eq!(sizes_up_to(200 * MIB).last(), Some(&(64 * MIB)));
        assert!(sizes_up_to(KIB).is_empty());
    }
}
