//! The transfer and launch suites on a real adapter (lavapipe in CI): a tiny sweep of every
//! transfer path and every launch mode go through the harness's runner and must come back ok
//! and verified, with the fitted transfer model, where the buffers live and the round-trip
//! percentiles present. Speed is never asserted: software-adapter numbers swing with the
//! machine's load.

mod common;

use common::{assert_ok, short_settings};
use gpubench_engine::{BuildContext, Suite, SuiteOptions, Tuner};
use gpubench_harness::runner::Silent;
use gpubench_harness::testing::require_vulkan;
use gpubench_harness::timing::HostSpan;
use gpubench_harness::{
    BenchResult, Benchmark, KernelBench, Profile, Role, Runner, Status, TimingSource,
};
use gpubench_suites::launch::{Launch, LaunchMode};
use gpubench_suites::transfer::{
    Measures, MemoryMap, Transfer, TransferPath, TransferSuite, zero_copy_support,
};
use pollster::FutureExt as _;

/// Where lavapipe's buffers live, as every transfer row must record it: Vulkan memory
/// properties read through wgpu-hal, one unified memory type for every role the path uses.
fn assert_placement_recorded(result: &BenchResult, path: TransferPath) {
    let param = |key: &str| {
        result
            .params
            .get(key)
            .unwrap_or_else(|| panic!("{}: no {key} param", result.id))
    };
    assert_eq!(param("memory_source"), "vulkan", "{}", result.id);
    assert_eq!(param("unified_memory"), true, "{}", result.id);
    assert!(
        param("memory_layout")
            .as_str()
            .is_some_and(|l| l.contains("HOST_VISIBLE"))
    );
    for role in path.roles() {
        let kind = param(&format!("{}_memory", role.name()));
        assert_eq!(kind, "unified", "{}: {} buffer", result.id, role.name());
        let detail = param(&format!("{}_memory_detail", role.name()));
        assert!(
            detail
                .as_str()
                .is_some_and(|d| d.starts_with("memory type ")),
            "{}: {detail}",
            result.id
        );
    }
}

#[test]
fn transfer_paths_verify_record_placement_and_fit() {
    let Some(ctx) = require_vulkan() else { return };
    let runner = Runner::new(&ctx, short_settings());
    let memory = MemoryMap::probe(&ctx);
    let mut results = Vec::new();
    for path in TransferPath::ALL {
        for bytes in [4096, 64 * 1024, 256 * 1024] {
            let transfer = Transfer::new(path, bytes, 11).placed(&memory);
            let mut bench = KernelBench::new(transfer);
            let result = runner.run(&mut bench, &mut Silent).block_on();
            // The zero-copy path runs here: lavapipe is a CPU adapter, unified memory.
            assert_ok(&result);
            assert_placement_recorded(&result, path);
            let timing = result.timing.map(|t| t.as_str());
            match path.measures() {
                Measures::CopyEngine => {
                    assert_eq!(result.role, Role::CopyEngine);
                    if ctx.has_encoder_timestamps() {
                        assert_eq!(timing, Some("gpu-timestamp"), "{}", result.id);
                    }
                }
                _ => assert_eq!(timing, Some("host"), "{}", result.id),
            }
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
                assert!(r.extra.contains_key("fitted_from"));
                assert!(r.median().is_some_and(f64::is_finite));
            }
            _ => assert!(r.reason.is_some(), "{} without a reason", r.id),
        }
    }
}

/// The transfer suite measures nothing while it builds.
struct NoTuning;

impl Tuner for NoTuning {
    fn measure<'a>(
        &'a mut self,
        bench: &'a mut dyn Benchmark,
    ) -> gpubench_harness::LocalFuture<'a, gpubench_harness::BenchResult> {
        Box::pin(async move {
            panic!(
                "the transfer suite tunes nothing, yet measured {}",
                bench.info().id
            )
        })
    }
}

#[test]
fn the_suite_records_where_every_rows_buffers_live() {
    let Some(ctx) = require_vulkan() else { return };
    let options = SuiteOptions::new(Profile::Quick);
    let benches = TransferSuite
        .benchmarks(&mut BuildContext {
            ctx: &ctx,
            options: &options,
            tuner: &mut NoTuning,
        })
        .block_on()
        .expect("the transfer suite builds");
    let sizes = gpubench_suites::transfer::sweep_sizes(&ctx, Profile::Quick).len();
    assert_eq!(benches.len(), TransferPath::ALL.len() * sizes);
    for bench in &benches {
        let info = bench.info();
        assert_eq!(info.params["memory_source"], "vulkan", "{}", info.id);
        assert!(
            info.params.keys().any(|k| k.ends_with("_memory")),
            "{}",
            info.id
        );
    }
    // lavapipe is a CPU adapter: zero copy is allowed, and its feature was requested.
    let device_type = ctx.adapter.get_info().device_type;
    assert_eq!(zero_copy_support(device_type, ctx.features), Ok(()));
}

#[test]
fn launch_modes_verify_and_round_trip_has_percentiles() {
    let Some(ctx) = require_vulkan() else { return };
    let runner = Runner::new(&ctx, short_settings());
    for mode in LaunchMode::ALL {
        let mut bench = KernelBench::new(Launch::new(mode, 50, 3));
        let result = runner.run(&mut bench, &mut Silent).block_on();
        assert_ok(&result);
        if mode.is_round_trip() {
            let latency = result.latency.as_ref().expect("latency percentiles");
            assert!(
                latency.n >= 50,
                "{}: {} round trips ({:?})",
                result.id,
                latency.n,
                result.warnings
            );
            assert!(latency.p50_us <= latency.p95_us && latency.p95_us <= latency.p99_us);
        } else if ctx.has_pass_timestamps() && !mode.host_timed() {
            assert!(
                result.host_summary.is_some(),
                "{}: host time missing",
                result.id
            );
        }
    }
}

/// The three launch costs come from three clocks: recording and the submit call on the host
/// alone (stopped before the device is waited for), the gap between dispatches on the GPU.
#[test]
fn launch_split_times_each_cost_with_its_own_clock() {
    let Some(ctx) = require_vulkan() else { return };
    assert!(ctx.has_pass_timestamps(), "lavapipe has timestamp queries");
    let runner = Runner::new(&ctx, short_settings());
    let sample = |mode: LaunchMode| {
        let mut bench = KernelBench::new(Launch::new(mode, 50, 5));
        runner.prepare(&mut bench).block_on().expect("prepare");
        // A round trip is one dispatch per sample; the others do 16.
        let iterations = if mode.is_round_trip() { 1 } else { 16 };
        let timing = runner
            .time_sample(&mut bench, iterations)
            .block_on()
            .expect("sample");
        let result = runner.run(&mut bench, &mut Silent).block_on();
        assert_ok(&result);
        (timing, result)
    };
    let (record, result) = sample(LaunchMode::Record);
    assert_eq!(record.host_span, HostSpan::HostOnly);
    assert_eq!(result.timing, Some(TimingSource::Host));
    assert!(record.gpu.is_none(), "recording alone writes no timestamps");

    let (submit, result) = sample(LaunchMode::SubmitCall);
    assert_eq!(submit.host_span, HostSpan::HostOnly);
    assert_eq!(result.timing, Some(TimingSource::Host));
    assert!(
        result.gpu_summary.is_some(),
        "the device's pace is recorded beside the submit calls"
    );

    let (gap, result) = sample(LaunchMode::GpuGap);
    assert_eq!(gap.host_span, HostSpan::OneSubmit);
    assert_eq!(result.timing, Some(TimingSource::GpuTimestamp));

    let (spin, result) = sample(LaunchMode::RoundTripSpin);
    assert_eq!(spin.host_span, HostSpan::OneSubmit);
    assert_eq!(
        result.params.get("wait").and_then(|w| w.as_str()),
        Some("spin (poll Wait with zero timeout in a loop, yielding)")
    );
    // The storms keep their meaning: the host clock from recording to completion.
    let (storm, _) = sample(LaunchMode::Submit);
    assert_eq!(storm.host_span, HostSpan::UntilComplete);
}

#[test]
fn a_transfer_that_never_happened_fails_verification() {
    let Some(ctx) = require_vulkan() else { return };
    // Every path whose destination exists before the first run (mapped_at_creation creates its
    // buffer in the run): copies alone, host writes and zero copy included.
    for path in TransferPath::ALL
        .into_iter()
        .filter(|&p| p != TransferPath::MappedAtCreation)
    {
        let mut bench = KernelBench::new(Transfer::new(path, 4096, 9));
        bench.setup(&ctx).block_on().expect("setup");
        // No run yet: the destination still holds its own random bytes, not the data.
        let verdict = bench.verify(&ctx).block_on().expect("verify");
        assert!(!verdict.passed(), "{path:?} passed without a transfer");
        bench.teardown();
    }
}
