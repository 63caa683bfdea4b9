//! Helpers shared by the kernels' adapter tests: very short sampling settings (the tests check
//! correctness, never speed) and the assertions every measured result must pass.

#![allow(dead_code)] // each test binary uses its own subset

use gpubench_harness::runner::Silent;
use gpubench_harness::{BenchResult, Benchmark, GpuContext, Runner, Status, TimingSource};
use pollster::FutureExt as _;

pub use gpubench_harness::testing::short_settings;

/// The result is ok, verified and has a positive, finite median.
pub fn assert_ok(result: &BenchResult) {
    assert_eq!(
        result.status,
        Status::Ok,
        "{}: {:?}",
        result.id,
        result.reason
    );
    assert!(result.verified, "{} not verified", result.id);
    assert!(
        result.median().is_some_and(|m| m.is_finite() && m > 0.0),
        "{}: median {:?}",
        result.id,
        result.median()
    );
}

/// Runs `bench` through `runner` and asserts [`assert_ok`]; returns the result.
pub fn run_ok(runner: &Runner<'_>, bench: &mut dyn Benchmark) -> BenchResult {
    let result = runner.run(bench, &mut Silent).block_on();
    assert_ok(&result);
    result
}

/// Runs `bench` on `ctx` with [`short_settings`] and returns its result, whatever the outcome.
pub fn run_short(ctx: &GpuContext, bench: &mut dyn Benchmark) -> BenchResult {
    Runner::new(ctx, short_settings())
        .run(bench, &mut Silent)
        .block_on()
}

/// The result ended with `status` and a reason that contains `words`.
pub fn assert_status_reason(result: &BenchResult, status: Status, words: &str) {
    assert_eq!(result.status, status, "{}: {:?}", result.id, result.reason);
    let reason = result.reason.as_deref().expect("reason");
    assert!(reason.contains(words), "{}: {reason}", result.id);
}

/// A GPU-timed result also carries the host clock's samples (what an application waits for).
pub fn assert_host_time_beside_gpu(result: &BenchResult) {
    if result.timing == Some(TimingSource::GpuTimestamp) {
        assert!(
            result.host_summary.is_some(),
            "{}: host time recorded beside GPU time",
            result.id
        );
    }
}
