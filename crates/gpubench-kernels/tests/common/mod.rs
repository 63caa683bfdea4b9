//! Helpers shared by the kernels' adapter tests: very short sampling settings (the tests check
//! correctness, never speed) and the assertions every measured result must pass.

#![allow(dead_code)] // each test binary uses its own subset

use std::time::Duration;

use gpubench_harness::runner::Silent;
use gpubench_harness::{
    BenchResult, Benchmark, Profile, RunSettings, Runner, Status, TimingSource,
};

/// Settings that take a few samples of a few milliseconds: enough to exercise the whole
/// protocol on a software adapter in well under a second per benchmark.
pub fn short_settings() -> RunSettings {
    let mut settings = Profile::Quick.settings(true);
    settings.target_sample = Duration::from_millis(2);
    settings.warmup = Duration::from_millis(2);
    settings.min_warmup_samples = 1;
    settings.min_samples = 3;
    settings.max_samples = 5;
    settings.max_time = Duration::from_millis(200);
    settings
}

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
    let result = runner.run(bench, &mut Silent);
    assert_ok(&result);
    result
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
