//! The gpubench suites. Each module builds benchmarks that implement the harness's
//! [`Benchmark`] trait: pipelines, random inputs, CPU references, verification and declared work.
//! Nothing here times or prints: the harness's runner does the one and the CLI the other.

pub mod faults;
pub mod gpu;
pub mod shaders;
pub mod stream;
pub mod verify;

use gpubench_harness::units::{MIB, format_size};
use gpubench_harness::{Benchmark, GpuContext, Profile};

/// Errors in choosing or configuring suites.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// A suite name that does not exist.
    #[error("unknown suite '{0}': choose from {known}", known = SUITES.join(", "))]
    UnknownSuite(String),
    /// An option value that cannot work.
    #[error("{0}")]
    BadOption(String),
}

/// Every suite, in the order a full run takes them.
pub const SUITES: &[&str] = &["stream"];

/// Suites a run takes when none are named.
pub const DEFAULT_SUITES: &[&str] = &["stream"];

/// Options that shape the benchmarks a suite builds.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// Sizes follow the profile.
    pub profile: Profile,
    /// Bytes per stream array, instead of the profile's choice.
    pub stream_size: Option<u64>,
    /// Seed for random inputs.
    pub seed: u64,
}

impl SuiteOptions {
    /// Options for `profile` with everything else at its default.
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            stream_size: None,
            seed: 0x5eed,
        }
    }
}

/// Builds the benchmarks of suite `name` for the adapter in `ctx`.
pub fn build_suite(
    name: &str,
    options: &SuiteOptions,
    ctx: &GpuContext,
) -> Result<Vec<Box<dyn Benchmark>>, KernelError> {
    match name {
        "stream" => {
            let bytes = stream_array_bytes(ctx, options)?;
            let mut benches: Vec<Box<dyn Benchmark>> = stream::StreamKernel::ALL
                .iter()
                .map(|&k| {
                    Box::new(stream::StreamBenchmark::new(k, bytes, options.seed))
                        as Box<dyn Benchmark>
                })
                .collect();
            benches.push(Box::new(stream::CopyBufferBenchmark::new(
                bytes,
                options.seed,
            )));
            benches.push(Box::new(stream::HostMemcpyBenchmark::new(
                bytes,
                options.seed,
            )));
            Ok(benches)
        }
        other => Err(KernelError::UnknownSuite(other.to_string())),
    }
}

/// Bytes per stream array: the option when given, else the profile's size (quick: 16 MiB;
/// otherwise 512 MiB on a GPU, at least 4x the last-level cache of current cards, and 128 MiB on
/// a software adapter, 4x a typical server L3), capped by the adapter's binding and buffer
/// limits and rounded down to a power of two.
pub fn stream_array_bytes(ctx: &GpuContext, options: &SuiteOptions) -> Result<u64, KernelError> {
    if let Some(bytes) = options.stream_size {
        if bytes < 4096 || bytes % stream::VEC4_BYTES != 0 {
            return Err(KernelError::BadOption(format!(
                "--stream-size {} must be at least 4KiB and a multiple of 16 bytes",
                format_size(bytes)
            )));
        }
        return Ok(bytes);
    }
    let wanted = match (options.profile, ctx.is_software()) {
        (Profile::Quick, _) => 16 * MIB,
        (_, true) => 128 * MIB,
        (_, false) => 512 * MIB,
    };
    let cap = wanted
        .min(ctx.limits.max_storage_buffer_binding_size)
        .min(ctx.limits.max_buffer_size);
    Ok(1u64 << (63 - cap.max(4096).leading_zeros()))
}
