//! The gpubench suites. Each module builds benchmarks that implement the harness's
//! [`Benchmark`] trait: pipelines, random inputs, CPU references, verification and declared work.
//! Nothing here times or prints: the harness's runner does the one and the CLI the other.

pub mod capacity;
pub mod compute;
pub mod derived;
pub mod faults;
pub mod fit;
pub mod gpu;
pub mod launch;
pub mod matmul;
pub mod roofline;
pub mod shaders;
pub mod stream;
pub mod sustained;
pub mod transfer;
pub mod verify;

use gpubench_harness::{BenchResult, Benchmark, GpuContext, Profile};

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

/// Every suite, in the order a full run takes them. Stream goes before transfer so that its host
/// memcpy row is there as the reference for the transfer paths' fitted bandwidth, and before
/// compute, matmul and roofline so that the roofline has its bandwidth ceiling.
pub const SUITES: &[&str] = &[
    "stream",
    "transfer",
    "launch",
    "compute",
    "matmul",
    "roofline",
    "capacity",
    "sustained",
];

/// Suites the full profile adds to the defaults.
pub const FULL_EXTRA_SUITES: &[&str] = &["capacity", "sustained"];

/// Suites a run of `profile` takes when none are named.
pub fn default_suites(profile: Profile) -> Vec<&'static str> {
    let mut suites = DEFAULT_SUITES.to_vec();
    if profile == Profile::Full {
        suites.extend_from_slice(FULL_EXTRA_SUITES);
    }
    suites
}

/// Suites a run takes when none are named.
pub const DEFAULT_SUITES: &[&str] = &[
    "stream", "transfer", "launch", "compute", "matmul", "roofline",
];

/// Options that shape the benchmarks a suite builds.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// Sizes follow the profile.
    pub profile: Profile,
    /// Bytes per stream array, instead of the profile's choice.
    pub stream_size: Option<u64>,
    /// Extra matmul shapes (M, N, K) from `--matmul-shape`.
    pub matmul_shapes: Vec<(u32, u32, u32)>,
    /// A matmul variant forced by `--matmul-variant` (no autotuning).
    pub matmul_variant: Option<String>,
    /// Upper bound of the total-allocation probe, from `--capacity-cap`.
    pub capacity_cap: Option<u64>,
    /// Length of the sustained run in seconds, from `--duration`.
    pub duration: Option<f64>,
    /// Seed for random inputs.
    pub seed: u64,
}

impl SuiteOptions {
    /// Options for `profile` with everything else at its default.
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            stream_size: None,
            matmul_shapes: Vec::new(),
            matmul_variant: None,
            capacity_cap: None,
            duration: None,
            seed: 0x5eed,
        }
    }
}

/// Measures a candidate benchmark briefly (for autotuning). The CLI implements it with a
/// short-settings runner, so even tuning is timed by the harness only.
pub trait Tuner {
    /// Runs `bench` (verify, then a few samples) and returns its result.
    fn measure(&mut self, bench: &mut dyn Benchmark) -> BenchResult;
}

/// A suite: the benchmarks it runs, and the results it derives from them.
pub trait Suite {
    /// Name as given to `--suite`.
    fn name(&self) -> &'static str;

    /// The benchmarks to run, in order. A suite may measure candidates with `tuner` first
    /// (e.g. to pick the fastest verified kernel variant).
    fn benchmarks(
        &self,
        ctx: &GpuContext,
        options: &SuiteOptions,
        tuner: &mut dyn Tuner,
    ) -> Result<Vec<Box<dyn Benchmark>>, KernelError>;

    /// Results that are probed rather than timed (capacity), produced before the suite's
    /// benchmarks run. Every resource they use is freed before they return.
    fn probes(&self, _ctx: &GpuContext, _options: &SuiteOptions) -> Vec<BenchResult> {
        Vec::new()
    }

    /// Adds suite-specific analysis to one of its measured results (flags, series metadata),
    /// right after it was measured.
    fn annotate(&self, _result: &mut BenchResult) {}

    /// Results computed from this suite's measured `results` (fitted models, ceilings, ratios),
    /// given everything measured so far in the run (`earlier`, other suites included).
    fn derive(&self, _results: &[BenchResult], _earlier: &[BenchResult]) -> Vec<BenchResult> {
        Vec::new()
    }
}

/// The suite called `name`.
pub fn suite(name: &str) -> Result<Box<dyn Suite>, KernelError> {
    match name {
        "transfer" => Ok(Box::new(transfer::TransferSuite)),
        "stream" => Ok(Box::new(stream::StreamSuite)),
        "launch" => Ok(Box::new(launch::LaunchSuite)),
        "capacity" => Ok(Box::new(capacity::CapacitySuite)),
        "sustained" => Ok(Box::new(sustained::SustainedSuite)),
        "compute" => Ok(Box::new(compute::ComputeSuite)),
        "matmul" => Ok(Box::new(matmul::MatmulSuite)),
        "roofline" => Ok(Box::new(roofline::RooflineSuite)),
        other => Err(KernelError::UnknownSuite(other.to_string())),
    }
}
