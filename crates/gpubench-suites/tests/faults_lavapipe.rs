//! Faults injected on a real adapter: each becomes a clean status with a reason, never a panic
//! of the process, and the runner goes on.

mod common;

use common::{assert_status_reason, run_short};
use gpubench_harness::{BenchResult, GpuContext, KernelBench, Status};
use gpubench_suites::selftest::Fault;
use gpubench_suites::stream::{Stream, StreamKernel};

fn context() -> Option<GpuContext> {
    gpubench_harness::testing::require_vulkan()
}

fn run_fault(ctx: &GpuContext, fault: Fault) -> BenchResult {
    let mut bench = fault.benchmark(1);
    run_short(ctx, bench.as_mut())
}

/// The benchmark after a fault: a copy of 64 KiB arrays.
fn run_next(ctx: &GpuContext) -> BenchResult {
    let mut next = KernelBench::new(Stream::new(StreamKernel::Copy, 64 * 1024, 1));
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
