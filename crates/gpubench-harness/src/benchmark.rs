//! The one interface every benchmark implements. The runner is the only code that times: a
//! benchmark sets itself up, records and submits its work through a [`SampleClock`], and checks
//! its own output against a CPU reference.

use gpubench_results::metric::{BenchmarkInfo, Work};

use crate::LocalFuture;
use crate::context::GpuContext;
use crate::error::BenchError;
use crate::timing::SampleClock;

/// The outcome of checking a benchmark's output against its CPU reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    /// How many values were compared.
    pub checked: u64,
    /// How many were outside the tolerance.
    pub mismatches: u64,
    /// The first few differences, described for a human.
    pub first_mismatches: Vec<String>,
}

impl Verification {
    /// Whether every compared value was within tolerance (and something was compared).
    pub fn passed(&self) -> bool {
        self.mismatches == 0 && self.checked > 0
    }

    /// A one-line reason for a failed verification.
    pub fn failure_reason(&self) -> String {
        if self.checked == 0 {
            return "verification compared nothing".to_string();
        }
        format!(
            "verification failed: {} of {} values outside tolerance; first: {}",
            self.mismatches,
            self.checked,
            self.first_mismatches.join("; ")
        )
    }
}

/// One benchmark. Implementations hold their own buffers and pipelines.
///
/// The runner calls, in order: [`Benchmark::check_support`], [`Benchmark::setup`], then
/// [`Benchmark::run`] once followed by [`Benchmark::verify`], then `run` repeatedly for
/// calibration, warm-up and samples, `verify` again (what the timed runs left), then
/// [`Benchmark::teardown`]. `run` must be idempotent:
/// running it any number of times leaves output that `verify` accepts.
///
/// The steps that wait on the device (`setup`, `run`, `verify`) return [`LocalFuture`]s, so the
/// trait stays object-safe; [`crate::KernelBench`] bridges a [`crate::Kernel`]'s `async fn`s.
pub trait Benchmark {
    /// Id, suite, parameters, metric and timing policy.
    fn info(&self) -> &BenchmarkInfo;

    /// Device features this benchmark needs; missing ones make it "skipped".
    fn required_features(&self) -> wgpu::Features {
        wgpu::Features::empty()
    }

    /// Checks limits and anything else the adapter must offer. `Err` carries the skip reason.
    fn check_support(&self, _ctx: &GpuContext) -> Result<(), String> {
        Ok(())
    }

    /// Creates buffers and pipelines and fills inputs. Not timed.
    fn setup<'a>(&'a mut self, ctx: &'a GpuContext) -> LocalFuture<'a, Result<(), BenchError>>;

    /// The work one iteration does.
    fn work(&self) -> Work;

    /// Records and submits `clock.iterations()` iterations through `clock`. This is the timed
    /// region: do no set-up here.
    fn run<'a>(
        &'a mut self,
        clock: &'a mut SampleClock<'_>,
    ) -> LocalFuture<'a, Result<(), BenchError>>;

    /// Reads the output back and compares it with the CPU reference.
    fn verify<'a>(
        &'a mut self,
        ctx: &'a GpuContext,
    ) -> LocalFuture<'a, Result<Verification, BenchError>>;

    /// Frees GPU memory. Called once after the last sample, whatever happened.
    fn teardown(&mut self) {}
}
