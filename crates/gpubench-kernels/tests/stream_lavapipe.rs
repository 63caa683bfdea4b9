//! The stream suite on a real adapter (lavapipe in CI): every kernel verifies and is timed by
//! GPU timestamps; a deliberately broken kernel fails verification and gets no number.

mod common;

use common::{assert_host_time_beside_gpu, run_ok, short_settings};
use gpubench_harness::runner::Silent;
use gpubench_harness::{Benchmark, GpuContext, KernelBench, Runner, Status, TimingSource};
use gpubench_kernels::faults::broken_copy;
use gpubench_kernels::stream::{CopyEngine, HostMemcpy, Stream, StreamKernel};

fn context() -> Option<GpuContext> {
    gpubench_harness::testing::require_vulkan()
}

#[test]
fn every_stream_kernel_verifies_and_is_gpu_timed() {
    let Some(ctx) = context() else { return };
    let runner = Runner::new(&ctx, short_settings());
    let bytes = 256 * 1024;
    let mut benches: Vec<Box<dyn Benchmark>> = StreamKernel::ALL
        .iter()
        .map(|&k| KernelBench::boxed(Stream::new(k, bytes, 1)))
        .collect();
    benches.push(KernelBench::boxed(CopyEngine::new(bytes, 1)));
    benches.push(KernelBench::boxed(HostMemcpy::new(bytes, 1)));
    for bench in &mut benches {
        let result = run_ok(&runner, bench.as_mut());
        let summary = result.summary.as_ref().expect("ok results have a summary");
        assert!(summary.ci_low <= summary.median && summary.median <= summary.ci_high);
        assert_eq!(result.samples.len(), summary.n);
        assert_eq!(result.unit, "GB/s");
        let expected = if result.id.contains("host-memcpy") || !ctx.has_pass_timestamps() {
            TimingSource::Host
        } else {
            TimingSource::GpuTimestamp
        };
        assert_eq!(result.timing, Some(expected), "{}", result.id);
        assert_host_time_beside_gpu(&result);
    }
}

#[test]
fn declared_work_counts_bytes_read_plus_written() {
    let Some(ctx) = context() else { return };
    let bytes = 64 * 1024;
    let mut triad = KernelBench::new(Stream::new(StreamKernel::Triad, bytes, 3));
    triad.setup(&ctx).expect("setup");
    let work = triad.work();
    assert_eq!((work.bytes_read, work.bytes_written), (2 * bytes, bytes));
    let mut fill = KernelBench::new(Stream::new(StreamKernel::Fill, bytes, 3));
    fill.setup(&ctx).expect("setup");
    assert_eq!(fill.work().total_bytes(), bytes);
}

#[test]
fn a_broken_kernel_fails_verification_and_reports_no_number() {
    let Some(ctx) = context() else { return };
    let runner = Runner::new(&ctx, short_settings());
    let mut bench = broken_copy(64 * 1024, 5);
    let result = runner.run(&mut bench, &mut Silent);
    assert_eq!(result.status, Status::Failed);
    assert!(!result.verified);
    assert!(result.summary.is_none() && result.samples.is_empty());
    let reason = result.reason.expect("a failure has a reason");
    assert!(reason.starts_with("verification failed"), "{reason}");
}

#[test]
fn an_array_over_the_binding_limit_is_skipped_with_the_reason() {
    let Some(ctx) = context() else { return };
    let runner = Runner::new(&ctx, short_settings());
    let too_big = ctx.limits.max_storage_buffer_binding_size.saturating_mul(2);
    let mut bench = KernelBench::new(Stream::new(StreamKernel::Copy, too_big, 1));
    let result = runner.run(&mut bench, &mut Silent);
    assert_eq!(result.status, Status::Skipped);
    assert!(
        result
            .reason
            .expect("reason")
            .contains("exceeds the adapter's limit")
    );
    assert!(result.summary.is_none());
}
