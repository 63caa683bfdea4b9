//! The measuring core of gpubench: device selection, the GPU context, timing by GPU timestamps
//! and the host clock, the benchmark runner, statistics and the result schema.
//!
//! Nothing here prints. Progress reaches the caller through [`runner::RunObserver`]; results come
//! back as [`schema::BenchResult`] values and are stored with [`results_file`].

pub mod benchmark;
pub mod context;
pub mod device;
pub mod error;
pub mod expect;
pub mod hostinfo;
pub mod kernel;
pub mod profile;
pub mod results_file;
pub mod rng;
pub mod run_noise;
pub mod runner;
pub mod schema;
pub mod stats;
pub mod suite_names;
pub mod telemetry;
pub mod testing;
pub mod timing;
pub mod units;
pub mod warnings;

pub use benchmark::{
    Benchmark, BenchmarkInfo, IterationPolicy, MetricKind, Role, TimingPreference, Verification,
    Work,
};
pub use context::GpuContext;
pub use error::{BenchError, HarnessError, Outcome};
pub use kernel::{Kernel, KernelBench};
pub use profile::{Profile, RunSettings};
pub use runner::{RunObserver, Runner};
pub use schema::{BenchResult, RunDocument, Status, TimingSource};
pub use timing::{SampleClock, SampleTiming};
