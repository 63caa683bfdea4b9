//! Faults injected on a real adapter: each becomes a clean status with a reason, never a panic
//! of the process, and the runner goes on.

mod common;

use common::short_settings;
use gpubench_harness::runner::Silent;
use gpubench_harness::{GpuContext, KernelBench, Runner, Status};
use gpubench_suites::faults::Fault;
use gpubench_suites::stream::{Stream, StreamKernel};

fn context() -> Option<GpuContext> {
    gpubench_harness::testing::require_vulkan()
}

fn run_fault(ctx: &GpuContext, fault: Fault) -> gpubench_harness::BenchResult {
    let runner = Runner::new(ctx, short_settings());
    let mut bench = fault.benchmark(1);
    runner.run(bench.as_mut(), &mut Silent)
}

fn assert_healthy_afterwards(ctx: &GpuContext) {
    let runner = Runner::new(ctx, short_settings());
    let mut next = KernelBench::new(Stream::new(StreamKernel::Copy, 64 * 1024, 1));
    let result = runner.run(&mut next, &mut Silent);
    assert_eq!(
        result.status,
        Status::Ok,
        "the next benchmark still runs: {:?}",
        result.reason
    );
}

#[test]
fn over_the_limit_is_skipped_with_the_reason() {
    let Some(ctx) = context() else { return };
    let result = run_fault(&ctx, Fault::OverLimit);
    assert_eq!(result.status, Status::Skipped);
    assert!(
        result
            .reason
            .expect("reason")
            .contains("exceeds the adapter's max_buffer_size")
    );
    assert_healthy_afterwards(&ctx);
}

#[test]
fn an_uncaptured_gpu_error_fails_that_benchmark_only() {
    let Some(ctx) = context() else { return };
    let result = run_fault(&ctx, Fault::GpuError);
    assert_eq!(result.status, Status::Failed);
    let reason = result.reason.expect("reason");
    assert!(reason.starts_with("GPU error"), "{reason}");
    assert!(!reason.contains('\n'), "reasons are one line: {reason}");
    assert_healthy_afterwards(&ctx);
}

#[test]
fn a_panicking_benchmark_fails_without_taking_the_process_down() {
    let Some(ctx) = context() else { return };
    let result = run_fault(&ctx, Fault::Panic);
    assert_eq!(result.status, Status::Failed);
    assert!(result.reason.expect("reason").contains("injected panic"));
    assert_healthy_afterwards(&ctx);
}

#[test]
fn device_loss_fails_the_benchmark_and_later_ones_say_why() {
    let Some(ctx) = context() else { return };
    let result = run_fault(&ctx, Fault::DeviceLost);
    assert_eq!(result.status, Status::Failed);
    let reason = result.reason.expect("reason");
    assert!(reason.contains("device lost"), "{reason}");
    assert!(ctx.faults.device_lost());
    let runner = Runner::new(&ctx, short_settings());
    let mut next = KernelBench::new(Stream::new(StreamKernel::Copy, 64 * 1024, 1));
    let after = runner.run(&mut next, &mut Silent);
    assert_eq!(after.status, Status::Failed);
    assert!(after.reason.expect("reason").contains("device lost"));
}
