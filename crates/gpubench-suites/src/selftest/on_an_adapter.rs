//! Faults injected on a real adapter: each becomes a clean status with a reason, never a panic
//! of the process, and the runner goes on; a deliberately broken kernel fails verification
//! and gets no number.

use super::{Fault, broken_copy};
use gpubench_harness::kit::fma::grid::PeakGrid;
use gpubench_harness::kit::fma::{FmaPeak, PeakForm};
use gpubench_harness::kit::gpu::Precision;
use gpubench_harness::testing::{assert_status_reason, run_short};
use gpubench_harness::{BenchResult, GpuContext, KernelBench, Status};

fn context() -> Option<GpuContext> {
    gpubench_harness::testing::require_vulkan()
}

fn run_fault(ctx: &GpuContext, fault: Fault) -> BenchResult {
    let mut bench = fault.benchmark(1);
    run_short(ctx, bench.as_mut())
}

/// The benchmark after a fault: the kit's scalar f32 FMA chain on a tiny grid.
fn run_next(ctx: &GpuContext) -> BenchResult {
    let peak = FmaPeak::new(Precision::F32, PeakForm::Scalar, PeakGrid::fixed(2));
    let mut next = KernelBench::new(peak);
    run_short(ctx, &mut next)
}

/// Runs `fault` on the adapter and asserts that it ends with `status` and a reason that
/// contains `words`, and that the next benchmark still runs; the reason, or `None` where the
/// test is not to run.
fn assert_contained(fault: Fault, status: Status, words: &str) -> Option<String> {
    let ctx = context()?;
    let result = run_fault(&ctx, fault);
    assert_status_reason(&result, status, words);
    let next = run_next(&ctx);
    assert_eq!(
        next.status,
        Status::Ok,
        "the next benchmark still runs: {:?}",
        next.reason
    );
    result.reason
}

#[test]
fn over_the_limit_is_skipped_with_the_reason() {
    let words = "exceeds the adapter's max_buffer_size";
    assert_contained(Fault::OverLimit, Status::Skipped, words);
}

#[test]
fn an_uncaptured_gpu_error_fails_that_benchmark_only() {
    let Some(reason) = assert_contained(Fault::GpuError, Status::Failed, "GPU error") else {
        return;
    };
    assert!(reason.starts_with("GPU error"), "{reason}");
    assert!(!reason.contains('\n'), "reasons are one line: {reason}");
}

#[test]
fn a_panicking_benchmark_fails_without_taking_the_process_down() {
    assert_contained(Fault::Panic, Status::Failed, "injected panic");
}

#[test]
fn device_loss_fails_the_benchmark_and_later_ones_say_why() {
    let Some(ctx) = context() else { return };
    let result = run_fault(&ctx, Fault::DeviceLost);
    assert_status_reason(&result, Status::Failed, "device lost");
    assert!(ctx.faults.device_lost());
    assert_status_reason(&run_next(&ctx), Status::Failed, "device lost");
}

#[test]
fn a_broken_kernel_fails_verification_and_reports_no_number() {
    let Some(ctx) = context() else { return };
    let result = run_short(&ctx, &mut broken_copy(64 * 1024, 5));
    assert_eq!(result.status, Status::Failed);
    assert!(!result.verified);
    assert!(result.summary.is_none() && result.samples.is_empty());
    let reason = result.reason.expect("a failure has a reason");
    assert!(reason.starts_with("verification failed"), "{reason}");
}
