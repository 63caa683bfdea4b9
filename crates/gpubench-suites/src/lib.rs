//! The gpubench suites. Each module builds benchmarks that implement the harness's
//! [`Benchmark`] trait: pipelines, random inputs, CPU references, verification and declared work.
//! [`REGISTRY`] lists every suite once; [`plan`] checks what a run is to do before an adapter is
//! opened, and [`session`] drives it, suite by suite. Nothing here prints: the harness's runner
//! times, and the caller reports.

pub mod capacity;
pub mod compute;
pub mod derived;
pub mod faults;
pub mod fit;
pub mod gpu;
pub mod kernel_forms;
pub mod launch;
pub mod matmul;
pub mod memory;
pub mod noise_check;
pub mod plan;
pub mod roofline;
pub mod session;
pub mod shaders;
pub mod stream;
pub mod sustained;
pub mod transfer;
pub mod verify;

use std::time::Duration;

use gpubench_harness::{BenchResult, Benchmark, GpuContext, Profile};
use gpubench_results::suite_names;
use serde::{Deserialize, Serialize};

/// Errors in choosing or configuring suites.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A suite name that does not exist.
    #[error("unknown suite '{0}': choose from {known}", known = SUITES.join(", "))]
    UnknownSuite(String),
    /// An option value that cannot work. The message names the option as the library knows it;
    /// a front end names its own flag instead ([`SuiteOption`]).
    #[error("{} {problem}", option.name())]
    BadOption {
        /// Which option.
        option: SuiteOption,
        /// What is wrong with its value, e.g. `0x4x4: every dimension must be from 1 to 65536`.
        problem: String,
    },
}

/// The options a run takes, by the library's names: errors say which one was wrong, and a
/// front end maps each to its own flag (the CLI's `--matmul-shape`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SuiteOption {
    /// Samples per benchmark.
    Samples,
    /// Target length of one sample.
    SampleLength,
    /// Time cap for sampling one benchmark.
    MaxTime,
    /// Length of a sustained run.
    Duration,
    /// Bytes per stream array.
    StreamSize,
    /// An extra matmul shape.
    MatmulShape,
    /// The one matmul variant to run.
    MatmulVariant,
}

impl SuiteOption {
    /// The option's name in the library's words.
    pub fn name(self) -> &'static str {
        match self {
            SuiteOption::Samples => "samples",
            SuiteOption::SampleLength => "sample length",
            SuiteOption::MaxTime => "max time",
            SuiteOption::Duration => "duration",
            SuiteOption::StreamSize => "stream size",
            SuiteOption::MatmulShape => "matmul shape",
            SuiteOption::MatmulVariant => "matmul variant",
        }
    }
}

impl PlanError {
    /// `option`'s value is wrong: `problem` says how.
    pub fn bad(option: SuiteOption, problem: impl Into<String>) -> Self {
        PlanError::BadOption {
            option,
            problem: problem.into(),
        }
    }
}

/// When a suite runs without being named with `--suite`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Included {
    /// In every profile's default suites.
    Always,
    /// Only in the full profile's (long or memory-hungry suites).
    FullProfile,
    /// Only when named.
    WhenNamed,
}

/// One row of the suite registry: everything the rest of the tool needs to know about a suite.
/// Adding a suite is a module, its shader and one row in [`REGISTRY`].
#[derive(Debug, Clone, Copy)]
pub struct SuiteEntry {
    /// Name as given to `--suite`; the same as the built suite's [`Suite::name`].
    pub name: &'static str,
    /// What it measures, in one line (shown by `--help`).
    pub about: &'static str,
    /// Which default runs include it.
    pub included: Included,
    /// Builds the suite.
    pub build: fn() -> Box<dyn Suite>,
}

impl SuiteEntry {
    /// Whether a run of `profile` that names no suites takes this one.
    pub fn in_defaults_of(&self, profile: Profile) -> bool {
        match self.included {
            Included::Always => true,
            Included::FullProfile => profile == Profile::Full,
            Included::WhenNamed => false,
        }
    }
}

/// Every suite, in the order a run takes them. Stream goes before transfer so that its host
/// memcpy row is there as the reference for the transfer paths' fitted bandwidth, and before
/// compute, matmul and roofline so that the roofline has its bandwidth ceiling.
pub const REGISTRY: &[SuiteEntry] = &[
    SuiteEntry {
        name: suite_names::STREAM,
        about: "device memory bandwidth (copy, scale, add, triad, read, fill), copy engine, host memcpy",
        included: Included::Always,
        build: || Box::new(stream::StreamSuite),
    },
    SuiteEntry {
        name: suite_names::TRANSFER,
        about: "host-device transfers over a size sweep, with fitted fixed cost and bandwidth",
        included: Included::Always,
        build: || Box::new(transfer::TransferSuite),
    },
    SuiteEntry {
        name: suite_names::LAUNCH,
        about: "cost of tiny dispatches, passes and submits, and the submit round trip",
        included: Included::Always,
        build: || Box::new(launch::LaunchSuite),
    },
    SuiteEntry {
        name: suite_names::COMPUTE,
        about: "peak throughput per number type: f32, f16, f64 FMA; i32, u32, i64, i16 multiply-add; 8-bit dot products",
        included: Included::Always,
        build: || Box::new(compute::ComputeSuite),
    },
    SuiteEntry {
        name: suite_names::MEMORY,
        about: "read bandwidth and dependent-load latency against working-set size, with the cache levels they show; workgroup memory with a bank-conflict stride sweep; atomicAdd throughput",
        included: Included::Always,
        build: || Box::new(memory::MemorySuite),
    },
    SuiteEntry {
        name: suite_names::MATMUL,
        about: "autotuned matrix multiply, f32 and f16, square and batch-like shapes",
        included: Included::Always,
        build: || Box::new(matmul::MatmulSuite),
    },
    SuiteEntry {
        name: suite_names::ROOFLINE,
        about: "one kernel swept over arithmetic intensity, with ceilings and ridge point",
        included: Included::Always,
        build: || Box::new(roofline::RooflineSuite),
    },
    SuiteEntry {
        name: suite_names::CAPACITY,
        about: "largest single buffer and total memory actually allocated and written",
        included: Included::FullProfile,
        build: || Box::new(capacity::CapacitySuite),
    },
    SuiteEntry {
        name: suite_names::SUSTAINED,
        about: "the FMA kernel kept busy for --duration, throttling flagged",
        included: Included::FullProfile,
        build: || Box::new(sustained::SustainedSuite),
    },
];

/// The names in `rows`, in order (a `const fn` so that [`SUITES`] is a constant).
const fn names<const N: usize>(rows: &[SuiteEntry]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = rows[i].name;
        i += 1;
    }
    out
}

/// Every suite name, in registry order.
pub const SUITES: &[&str] = &names::<{ REGISTRY.len() }>(REGISTRY);

/// The registry row of the suite called `name`.
pub fn find_suite(name: &str) -> Option<&'static SuiteEntry> {
    REGISTRY.iter().find(|entry| entry.name == name)
}

/// Suites a run of `profile` takes when none are named, in registry order.
pub fn default_suites(profile: Profile) -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|entry| entry.in_defaults_of(profile))
        .map(|entry| entry.name)
        .collect()
}

/// Suites the full profile adds to the defaults of the others.
pub fn full_extra_suites() -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|entry| entry.included == Included::FullProfile)
        .map(|entry| entry.name)
        .collect()
}

/// Options that shape the benchmarks a suite builds. Recorded whole, as given, in the results
/// file's `config.options` (absent keys read back as their defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SuiteOptions {
    /// Sizes follow the profile.
    pub profile: Profile,
    /// Bytes per stream array, instead of the profile's choice.
    pub stream_size: Option<u64>,
    /// Extra matmul shapes (M, N, K) from `--matmul-shape`, written `"MxNxK"` in files.
    #[serde(with = "plan::shape_strings")]
    pub matmul_shapes: Vec<(u32, u32, u32)>,
    /// A matmul variant forced by `--matmul-variant` (no autotuning).
    pub matmul_variant: Option<String>,
    /// Whether the cooperative-matrix (tensor core) matmul products run; off (`--no-coop-matrix`)
    /// where a driver's experimental support is suspect, so a device loss there cannot cost
    /// the rest of a run. Off, their rows are skipped with the reason.
    pub coop_matrix: bool,
    /// Upper bound of the total-allocation probe, from `--capacity-cap`.
    pub capacity_cap: Option<u64>,
    /// Length of the sustained run in seconds, from `--duration`.
    pub duration: Option<f64>,
    /// Seed for random inputs.
    pub seed: u64,
    /// naga's runtime checks in the timed kernels' shaders, from `--shader-checks` (off unless
    /// asked for: see [`gpu`]'s module docs).
    pub shader_checks: gpu::ShaderChecks,
}

impl SuiteOptions {
    /// Options for `profile` with everything else at its default.
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            stream_size: None,
            matmul_shapes: Vec::new(),
            matmul_variant: None,
            coop_matrix: true,
            capacity_cap: None,
            duration: None,
            seed: 0x5eed,
            shader_checks: gpu::ShaderChecks::Off,
        }
    }
}

impl Default for SuiteOptions {
    /// The default profile's options.
    fn default() -> Self {
        Self::new(Profile::Default)
    }
}

/// Measures a candidate benchmark briefly (for autotuning). The [`session`] implements it with a
/// short-settings runner, so even tuning is timed by the harness only.
pub trait Tuner {
    /// Runs `bench` (verify, then a few samples) and returns its result.
    fn measure(&mut self, bench: &mut dyn Benchmark) -> BenchResult;

    /// As [`Tuner::measure`], but a candidate whose verified first run took longer than
    /// `bound` (or than the tuner's own time cap, whichever is longer) keeps that run as its
    /// only sample, marked `screened` (see `Runner::set_screen`). By default no screening.
    fn measure_within(
        &mut self,
        bench: &mut dyn Benchmark,
        bound: Option<Duration>,
    ) -> BenchResult {
        let _ = bound;
        self.measure(bench)
    }
}

/// What a suite builds its benchmarks from: the adapter, the run's options, and a tuner for
/// measuring candidates.
pub struct BuildContext<'a> {
    /// The adapter the benchmarks will run on.
    pub ctx: &'a GpuContext,
    /// The run's options.
    pub options: &'a SuiteOptions,
    /// Measures candidates briefly, for suites that autotune.
    pub tuner: &'a mut dyn Tuner,
}

/// A suite's benchmarks, in the order they run, or why they could not be built.
pub type Benchmarks = Result<Vec<Box<dyn Benchmark>>, PlanError>;

/// One step of a suite's work: builds the benchmarks it runs (autotuning first where the suite
/// does) when its turn comes, so that every earlier step's results are measured and saved
/// before it starts. A suite that tunes per product (matmul) has a stage per product: a stop or
/// a timeout during one product's tuning keeps every product before it.
pub type Stage = Box<dyn FnOnce(&mut BuildContext<'_>) -> Vec<Box<dyn Benchmark>>>;

/// A suite's stages, in the order they run, or why they could not be planned.
pub type Stages = Result<Vec<Stage>, PlanError>;

/// A suite: the benchmarks it runs, and the results it derives from them.
pub trait Suite {
    /// Name as given to `--suite`.
    fn name(&self) -> &'static str;

    /// The benchmarks to run, in order. A suite may measure candidates with `build.tuner`
    /// first (e.g. to pick the fastest verified kernel variant).
    fn benchmarks(&self, build: &mut BuildContext<'_>) -> Benchmarks;

    /// The benchmarks in stages, each built when its turn comes (see [`Stage`]); options are
    /// checked here, before the first stage. By default one stage holding [`Suite::benchmarks`].
    fn stages(&self, build: &mut BuildContext<'_>) -> Stages {
        let benches = self.benchmarks(build)?;
        let stage: Stage = Box::new(move |_| benches);
        Ok(vec![stage])
    }

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
pub fn suite(name: &str) -> Result<Box<dyn Suite>, PlanError> {
    find_suite(name)
        .map(|entry| (entry.build)())
        .ok_or_else(|| PlanError::UnknownSuite(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_row_builds_the_suite_it_names() {
        let mut unique = SUITES.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), SUITES.len(), "suite names repeat: {SUITES:?}");
        assert!(suite("no-such-suite").is_err());
        for (entry, name) in REGISTRY.iter().zip(SUITES) {
            assert_eq!(entry.name, *name);
            assert_eq!((entry.build)().name(), entry.name);
            assert_eq!(suite(name).expect("known").name(), entry.name);
        }
        assert!(matches!(suite("nonsense"), Err(PlanError::UnknownSuite(_))));
    }

    #[test]
    fn defaults_come_from_the_registry() {
        let defaults = [
            "stream", "transfer", "launch", "compute", "memory", "matmul", "roofline",
        ];
        assert_eq!(default_suites(Profile::Quick), defaults);
        assert_eq!(default_suites(Profile::Default), defaults);
        assert_eq!(full_extra_suites(), ["capacity", "sustained"]);
        let mut full = defaults.to_vec();
        full.extend(full_extra_suites());
        assert_eq!(default_suites(Profile::Full), full);
    }
}
