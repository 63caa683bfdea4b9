//! The stream suite: device-memory bandwidth of copy, scale, add, triad, a read-only reduction
//! and a write-only fill over `array<vec4<f32>>` ([`kernels`]), the copy engine
//! ([`copy_engine`]), and the host's own memcpy as a reference row ([`host_memcpy`]).
//!
//! Bandwidth counts bytes read plus bytes written per iteration (STREAM/BabelStream's
//! convention): copy and scale move 2 arrays, add and triad 3, read 1 (plus its small partial
//! sums), fill 1. Every element of every output is checked against a CPU replay.

pub mod copy_engine;
pub mod host_memcpy;
pub mod kernels;

use gpubench_harness::units::{MIB, format_size};
use gpubench_harness::{Benchmark, GpuContext, KernelBench, Profile};

pub use copy_engine::CopyEngine;
pub use host_memcpy::HostMemcpy;
pub use kernels::{KERNELS, SCALAR, Stream, StreamKernel, StreamSpec, VEC4_BYTES};

use crate::{Benchmarks, BuildContext, KernelError, Suite, SuiteOptions};

/// The stream suite: the six kernels, the copy engine and the host memcpy reference, all on
/// arrays of the same size.
pub struct StreamSuite;

impl Suite for StreamSuite {
    fn name(&self) -> &'static str {
        gpubench_harness::suite_names::STREAM
    }

    fn benchmarks(&self, build: &mut BuildContext<'_>) -> Benchmarks {
        let (ctx, options) = (build.ctx, build.options);
        let bytes = stream_array_bytes(ctx, options)?;
        let seed = options.seed;
        let mut benches: Vec<Box<dyn Benchmark>> = KERNELS
            .iter()
            .map(|spec| KernelBench::boxed(Stream::new(spec.kernel, bytes, seed)))
            .collect();
        benches.push(KernelBench::boxed(CopyEngine::new(bytes, seed)));
        benches.push(KernelBench::boxed(HostMemcpy::new(bytes, seed)));
        if options.profile == Profile::Full {
            // Cache versus DRAM: triad over arrays from 256 KiB up to the main size.
            let mut size = 256 * 1024;
            while size < bytes {
                benches.push(KernelBench::boxed(Stream::new(
                    StreamKernel::Triad,
                    size,
                    seed,
                )));
                size *= 4;
            }
        }
        Ok(benches)
    }
}

/// Bytes per stream array: the option when given, else the profile's size (quick: 256 MiB on a
/// GPU, 16 MiB on a software adapter; otherwise 512 MiB on a GPU, at least 4x the last-level
/// cache of current cards, and 128 MiB on a software adapter, 4x a typical server L3), capped
/// by the adapter's binding and buffer limits and rounded down to a power of two.
pub fn stream_array_bytes(ctx: &GpuContext, options: &SuiteOptions) -> Result<u64, KernelError> {
    if let Some(bytes) = options.stream_size {
        if bytes < 4096 || bytes % VEC4_BYTES != 0 {
            return Err(KernelError::BadOption(format!(
                "--stream-size {} must be at least 4KiB and a multiple of 16 bytes",
                format_size(bytes)
            )));
        }
        return Ok(bytes);
    }
    let wanted = match (options.profile, ctx.is_software()) {
        // Quick stays small on a software adapter (a CPU runs it); on a GPU even a smoke test
        // needs arrays beyond the last-level cache (50-96 MiB on current large cards).
        (Profile::Quick, true) => 16 * MIB,
        (Profile::Quick, false) => 256 * MIB,
        (_, true) => 128 * MIB,
        (_, false) => 512 * MIB,
    };
    let cap = wanted
        .min(ctx.limits.max_storage_buffer_binding_size)
        .min(ctx.limits.max_buffer_size);
    Ok(1u64 << (63 - cap.max(4096).leading_zeros()))
}
