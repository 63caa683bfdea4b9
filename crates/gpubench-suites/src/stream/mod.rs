//! The stream suite: device-memory bandwidth of copy, scale, add, triad, a read-only reduction
//! and a write-only fill over `array<vec4<f32>>` ([`kernels`]), the copy engine
//! ([`copy_engine`]), and the host's own memcpy as a reference row ([`host_memcpy`]).
//!
//! Bandwidth counts bytes read plus bytes written per iteration (STREAM/BabelStream's
//! convention): copy and scale move 2 arrays, add and triad 3, read 1 (plus its small partial
//! sums), fill 1. Every element of every output is checked against a CPU replay.
//!
//! Kernels over arrays small enough to live in a cache walk them several times per dispatch
//! ([`sizing`]), so that what is timed is the kernel rather than the barrier between dispatches;
//! a result whose dispatches are still shorter than the target says so.

pub mod copy_engine;
pub mod host_memcpy;
pub mod kernels;
pub mod sizing;

use gpubench_harness::{BenchResult, Benchmark, GpuContext, KernelBench, Profile, Role};
use gpubench_results::units::{MIB, format_size};

pub use copy_engine::CopyEngine;
pub use host_memcpy::HostMemcpy;
pub use kernels::{KERNELS, SCALAR, Stream, StreamKernel, StreamSpec, VEC4_BYTES};
pub use sizing::AdapterClass;

use crate::{Benchmarks, BuildContext, PlanError, Suite, SuiteOptions};

/// The stream suite: the six kernels, the copy engine and the host memcpy reference, all on
/// arrays of the same size; in the full profile, triad over smaller arrays too.
pub struct StreamSuite;

impl Suite for StreamSuite {
    fn name(&self) -> &'static str {
        gpubench_results::suite_names::STREAM
    }

    fn benchmarks(&self, build: &mut BuildContext<'_>) -> Benchmarks {
        let (ctx, options) = (build.ctx, build.options);
        let bytes = stream_array_bytes(ctx, options)?;
        let seed = options.seed;
        let class = AdapterClass::of(ctx);
        let kernel = |k: StreamKernel, size: u64| {
            KernelBench::boxed(Stream::new(k, size, seed).sized_for(class))
        };
        let mut benches: Vec<Box<dyn Benchmark>> = KERNELS
            .iter()
            .map(|spec| kernel(spec.kernel, bytes))
            .collect();
        benches.push(KernelBench::boxed(CopyEngine::new(bytes, seed)));
        benches.push(KernelBench::boxed(HostMemcpy::new(bytes, seed)));
        if options.profile == Profile::Full {
            // Cache versus DRAM: triad over arrays from 256 KiB up to the main size.
            let mut size = 256 * 1024;
            while size < bytes {
                benches.push(kernel(StreamKernel::Triad, size));
                size *= 4;
            }
        }
        Ok(benches)
    }

    /// A shader kernel's median time per dispatch (`dispatch_us`), and a warning when it is
    /// still under the target however many walks the dispatch made.
    fn annotate(&self, result: &mut BenchResult) {
        let Some(repeats) = result.params.get("repeats").and_then(|r| r.as_u64()) else {
            return;
        };
        if result.role != Role::Kernel {
            return;
        }
        let Some(dispatch_s) = sizing::median_dispatch_s(result) else {
            return;
        };
        result
            .extra
            .insert("dispatch_us".into(), (dispatch_s * 1e6).into());
        if let Some(warning) = sizing::short_dispatch_warning(dispatch_s, repeats) {
            result.warnings.push(warning);
        }
    }
}

/// Refuses a `--stream-size` no stream kernel can take: under 4 KiB, or not whole vec4s. Needs
/// no adapter, so a caller can check it before anything runs.
pub fn check_stream_size(bytes: u64) -> Result<(), PlanError> {
    if bytes < 4096 || !bytes.is_multiple_of(VEC4_BYTES) {
        return Err(PlanError::bad(
            crate::SuiteOption::StreamSize,
            format!(
                "{} must be at least 4KiB and a multiple of 16 bytes",
                format_size(bytes)
            ),
        ));
    }
    Ok(())
}

/// Bytes per stream array: the option when given, else the profile's size (quick: 256 MiB on a
/// GPU, 16 MiB on a software adapter; otherwise 512 MiB on a GPU, 10x H200's L2 and 2x
/// MI300X's infinity cache, and 128 MiB on a software adapter, 4x a typical server L3), capped
/// by the adapter's binding and buffer limits and rounded down to a power of two.
pub fn stream_array_bytes(ctx: &GpuContext, options: &SuiteOptions) -> Result<u64, PlanError> {
    if let Some(bytes) = options.stream_size {
        check_stream_size(bytes)?;
        return Ok(bytes);
    }
    let wanted = match (options.profile, ctx.is_software()) {
        // Quick stays small on a software adapter (a CPU runs it); on a GPU even a smoke test
        // needs arrays beyond the last-level cache (50-256 MiB on current large cards).
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
