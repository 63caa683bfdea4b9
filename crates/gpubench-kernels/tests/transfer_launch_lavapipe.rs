//! The transfer and launch suites on a real adapter (lavapipe in CI): a tiny sweep and every
//! launch mode go through the harness's runner and must come back ok and verified, with the
//! fitted transfer model and the round-trip percentiles present. Speed is never asserted:
//! software-adapter numbers swing with the machine's load.

mod common;

use common::{assert_ok, short_settings};
use gpubench_harness::runner::Silent;
use gpubench_harness::testing::require_vulkan;
use gpubench_harness::{Benchmark, KernelBench, Runner, Status};
use gpubench_kernels::Suite;
use gpubench_kernels::launch::{Launch, LaunchMode};
use gpubench_kernels::transfer::{Transfer, TransferPath, TransferSuite};

#[test]
fn transfer_paths_verify_and_fit() {
    let Some(ctx) = require_vulkan() else { return };
    let runner = Runner::new(&ctx, short_settings());
    let mut results = Vec::new();
    for path in TransferPath::ALL {
        for bytes in [4096, 64 * 1024, 256 * 1024] {
            let mut bench = KernelBench::new(Transfer::new(path, bytes, 11));
            let result = runner.run(&mut bench, &mut Silent);
            assert_ok(&result);
            assert_eq!(result.timing.map(|t| t.as_str()), Some("host"));
            if path.gpu_timed() && ctx.has_encoder_timestamps() {
                assert!(
                    result.gpu_summary.is_some(),
                    "{}: GPU time of the copy should be recorded",
                    result.id
                );
            }
            results.push(result);
        }
    }
    let derived = TransferSuite.derive(&results, &[]);
    assert_eq!(derived.len(), 3 * TransferPath::ALL.len());
    for r in &derived {
        // Timings on a loaded machine can defeat a fit (time not growing with size); then the
        // result must say so, never carry a made-up number.
        match r.status {
            Status::Ok => {
                assert!(r.verified);
                assert!(r.extra.contains_key("fixed_us"));
                assert!(r.median().is_some_and(f64::is_finite));
            }
            _ => assert!(r.reason.is_some(), "{} without a reason", r.id),
        }
    }
}

#[test]
fn launch_modes_verify_and_round_trip_has_percentiles() {
    let Some(ctx) = require_vulkan() else { return };
    let runner = Runner::new(&ctx, short_settings());
    for mode in LaunchMode::ALL {
        let mut bench = KernelBench::new(Launch::new(mode, 50, 3));
        let result = runner.run(&mut bench, &mut Silent);
        assert_ok(&result);
        if mode == LaunchMode::RoundTrip {
            let latency = result.latency.as_ref().expect("latency percentiles");
            assert!(latency.n >= 50);
            assert!(latency.p50_us <= latency.p95_us && latency.p95_us <= latency.p99_us);
        } else if ctx.has_pass_timestamps() {
            assert!(
                result.host_summary.is_some(),
                "{}: host time missing",
                result.id
            );
        }
    }
}

#[test]
fn a_transfer_that_never_happened_fails_verification() {
    let Some(ctx) = require_vulkan() else { return };
    for path in [TransferPath::WriteBuffer, TransferPath::MapRead] {
        let mut bench = KernelBench::new(Transfer::new(path, 4096, 9));
        bench.setup(&ctx).expect("setup");
        // No run yet: the destination still holds its own random bytes, not the data.
        let verdict = bench.verify(&ctx).expect("verify");
        assert!(!verdict.passed(), "{path:?} passed without a transfer");
        bench.teardown();
    }
}
