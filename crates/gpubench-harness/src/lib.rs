//! The measuring core of gpubench: device selection, the GPU context, timing by GPU timestamps
//! and the host clock, and the benchmark runner.
//!
//! Nothing here prints. Progress reaches the caller through [`runner::RunObserver`]; results come
//! back as [`BenchResult`] values, plain data of the `gpubench-results` crate, which also stores
//! them.

pub mod benchmark;
pub mod context;
pub mod device;
pub mod error;
pub mod expect;
pub mod host_clock;
pub mod item_trace;
pub mod kernel;
pub mod kit;
mod oneshot;
pub mod read_log;
pub mod runner;
pub mod shader_checks;
pub mod telemetry_hook;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
pub mod timestamp_step;
pub mod timing;

pub use benchmark::{Benchmark, Verification};
pub use context::GpuContext;
pub use error::{BenchError, HarnessError, Outcome};
pub use gpubench_results::{
    BenchResult, BenchmarkInfo, IterationPolicy, MetricKind, Outputs, Profile, Role, RunDocument,
    RunSettings, Status, TimingPreference, TimingSource, Work,
};
pub use kernel::{Kernel, KernelBench};
pub use runner::{RunObserver, Runner};
pub use telemetry_hook::TelemetryHook;
pub use timing::{SampleClock, SampleTiming};

/// A boxed future driven on the thread that created it (no `Send` bound: one thread drives a
/// run). Every wait on the device is one of these or an `async fn`; the native binaries block
/// on the whole run once, at their top (`pollster::block_on`), and a browser build can await it.
pub type LocalFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;
