//! The transfer suite on a real adapter (lavapipe in CI): a tiny sweep of every transfer path
//! goes through the harness's runner and must come back ok and verified, with the fitted
//! transfer model and where the buffers live recorded; a transfer that never happened fails
//! its check; a buffer the device cannot make skips the set-up with the reason. Speed is never
//! asserted: software-adapter numbers swing with the machine's load.

use pollster::FutureExt as _;

use super::{
    Measures, MemoryMap, Transfer, TransferPath, TransferState, TransferSuite, zero_copy_support,
};
use gpubench_engine::{Suite, SuiteOptions};
use gpubench_harness::runner::Silent;
use gpubench_harness::testing::{assert_ok, require_vulkan, short_settings};
use gpubench_harness::{
    BenchError, BenchResult, Benchmark, KernelBench, Profile, Role, Runner, Status,
};

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

#[test]
fn the_suite_records_where_every_rows_buffers_live() {
    let Some(ctx) = require_vulkan() else { return };
    let options = SuiteOptions::new(Profile::Quick);
    let benches = TransferSuite
        .build(&ctx, &options)
        .expect("the transfer suite builds");
    let sizes = super::sweep_sizes(&ctx, Profile::Quick).len();
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

#[test]
fn a_buffer_the_device_cannot_make_skips_the_set_up_with_the_reason() {
    let Some(mut ctx) = require_vulkan() else {
        return;
    };
    // A limit below the transfer's size stands in for a device out of memory: the device
    // itself would make the buffer, so only a set-up that asks through the fallible creation
    // (try_buffer, which checks the limit and the out-of-memory scope alike) refuses it.
    let bytes = 256 * 1024;
    ctx.limits.max_buffer_size = 64 * 1024;
    // mapped_at_creation allocates in the run, not at set-up.
    for path in TransferPath::ALL
        .into_iter()
        .filter(|&p| p != TransferPath::MappedAtCreation)
    {
        let setup = TransferState::new(&ctx, path, bytes, 5).block_on();
        match setup {
            Err(BenchError::Unsupported(reason)) => {
                assert!(reason.contains("max_buffer_size"), "{path:?}: {reason}");
            }
            Err(other) => panic!("{path:?}: expected a skip, got {other}"),
            Ok(_) => panic!("{path:?}: set up a {bytes}-byte buffer past the limit"),
        }
    }
}
