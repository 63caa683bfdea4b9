//! The compute suite's kernels on the Vulkan adapter (lavapipe in CI), with very short
//! settings: every form of the FMA peak with and without naga's runtime checks, every number
//! type the adapter offers, and an unrun kernel failing its check. Asserts status ok and
//! verified, never speed.

use pollster::FutureExt as _;

use super::PeakKernels;
use super::types::{DotPeak, DotType, IntForm, IntPeak, IntType};
use gpubench_harness::kit::fma::grid::PeakGrid;
use gpubench_harness::kit::fma::{Chain, FloatType, FmaPeak, PeakForm};
use gpubench_harness::kit::gpu::{Precision, ShaderChecks, ShaderChecksScope};
use gpubench_harness::testing::{assert_status_reason, require_vulkan, run_ok, short_settings};
use gpubench_harness::{Benchmark, GpuContext, Kernel, KernelBench, Runner, Status};

/// The chains an adapter runs: both on a GPU; on a software adapter the multiply form only (the
/// accumulate form is skipped there, see [`accumulate_form_is_skipped_on_a_software_adapter`]).
fn chains_run(ctx: &GpuContext) -> Vec<Chain> {
    if ctx.is_software() {
        vec![Chain::Multiply]
    } else {
        vec![Chain::Multiply, Chain::Accumulate]
    }
}

#[test]
fn accumulate_form_is_skipped_on_a_software_adapter() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    if !ctx.is_software() {
        return;
    }
    let runner = Runner::new(&ctx, short_settings());
    let peak = FmaPeak::new(Precision::F32, PeakForm::Vec4, PeakGrid::fixed(4))
        .with_chain(Chain::Accumulate);
    let mut bench = KernelBench::new(peak);
    let result = runner
        .run(&mut bench, &mut gpubench_harness::runner::Silent)
        .block_on();
    assert_status_reason(&result, Status::Skipped, "hoist the product");
}

/// Every form of the chains it runs in every precision the adapter has, over a one-row and a two-row grid (the
/// shader numbers invocations row by row).
fn peak_kernels(ctx: &GpuContext) -> Vec<Box<dyn Benchmark>> {
    let mut precisions = vec![Precision::F32];
    if ctx.features.contains(wgpu::Features::SHADER_F16) {
        precisions.push(Precision::F16);
    }
    let two_rows = PeakGrid {
        workgroups: (3, 2),
        sizing: "test".to_string(),
    };
    let mut benches = Vec::new();
    for precision in precisions {
        for form in PeakForm::ALL {
            for chain in chains_run(ctx) {
                for grid in [PeakGrid::fixed(4), two_rows.clone()] {
                    let peak = FmaPeak::new(precision, form, grid).with_chain(chain);
                    benches.push(KernelBench::boxed(peak));
                }
            }
        }
    }
    benches
}

#[test]
fn compute_peak_verifies_on_the_adapter_with_and_without_checks() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let runner = Runner::new(&ctx, short_settings());
    for checks in ShaderChecks::ALL {
        // Set-up (where pipelines are built) runs inside the scope, as in a session.
        let _scope = ShaderChecksScope::enter(&ctx, checks);
        assert_eq!(ctx.shader_checks(), checks);
        let before = ctx.pipelines_built();
        for mut bench in peak_kernels(&ctx) {
            run_ok(&runner, bench.as_mut());
        }
        assert!(ctx.pipelines_built() > before, "pipelines come from gpu.rs");
    }
    assert_eq!(
        ctx.shader_checks(),
        ShaderChecks::Off,
        "the scopes restored the default"
    );
}

/// Every number type beyond f32 and f16 the adapter offers (lavapipe offers them all), over a
/// one-row and a two-row grid; a type it lacks must come back skipped, naming the feature.
#[test]
fn every_number_type_verifies_exactly_on_the_adapter() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let runner = Runner::new(&ctx, short_settings());
    let two_rows = PeakGrid {
        workgroups: (3, 2),
        sizing: "test".to_string(),
    };
    let mut measured = 0;
    for grid in [PeakGrid::fixed(4), two_rows] {
        let kernels = PeakKernels::new(&grid);
        let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
        benches.extend(
            kernels
                .float
                .into_iter()
                .filter(|k| k.info().id.ends_with("-f64"))
                .map(KernelBench::boxed),
        );
        benches.extend(kernels.int.into_iter().map(KernelBench::boxed));
        benches.extend(kernels.dot.into_iter().map(KernelBench::boxed));
        for mut bench in benches {
            let missing = bench.required_features() - ctx.features;
            if missing.is_empty() {
                run_ok(&runner, bench.as_mut());
                measured += 1;
            } else {
                let result = runner
                    .run(bench.as_mut(), &mut gpubench_harness::runner::Silent)
                    .block_on();
                assert_status_reason(&result, Status::Skipped, "adapter lacks SHADER_");
            }
        }
    }
    // i32, u32 and the two dot products need no feature: at least those ran on every grid.
    assert!(measured >= 2 * (2 * 2 + 2), "{measured} measured");
}

/// An integer kernel's output starts as the complement of every expected word, so a dispatch
/// that never ran (or an invocation that wrote nothing) fails verification: no bit pattern
/// left in memory can pass by chance.
#[test]
fn an_integer_kernel_that_did_not_run_fails_verification() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let grid = PeakGrid::fixed(2);
    let int = IntPeak::new(IntType::U32, IntForm::Vec4, grid.clone());
    let mut state = int.setup(&ctx).block_on().expect("set-up");
    let verification = int.verify(&mut state, &ctx).block_on().expect("readback");
    assert!(!verification.passed(), "an unrun integer kernel passed");
    let dot = DotPeak::new(DotType::I8, grid);
    let mut state = dot.setup(&ctx).block_on().expect("set-up");
    assert!(
        !dot.verify(&mut state, &ctx)
            .block_on()
            .expect("readback")
            .passed()
    );
    // And f64 starts as NaN, like f32.
    let f64_peak = FmaPeak::new(FloatType::F64, PeakForm::Scalar, PeakGrid::fixed(2));
    if ctx.features.contains(wgpu::Features::SHADER_F64) {
        let mut state = f64_peak.setup(&ctx).block_on().expect("set-up");
        assert!(
            !f64_peak
                .verify(&mut state, &ctx)
                .block_on()
                .expect("readback")
                .passed()
        );
    }
}

/// A telemetry hook that says the device idles for its first `idle_for` asks, then that it has
/// settled; it counts the asks and whether the samples were announced.
struct RampingHook {
    idle_for: usize,
    asked: std::sync::atomic::AtomicUsize,
    sampling: std::sync::atomic::AtomicBool,
}

impl gpubench_harness::TelemetryHook for RampingHook {
    fn begin(&self, _id: &str) {}
    fn sampling(&self) {
        self.sampling
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
    fn clocks_settled(&self) -> Option<bool> {
        let asked = self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Some(asked >= self.idle_for)
    }
    fn end(&self) -> Option<gpubench_results::telemetry::TelemetrySummary> {
        None
    }
}

#[test]
fn the_warm_up_goes_on_while_the_telemetry_says_the_device_idles() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    // Samples long enough that GPU time is most of host time: work that keeps a device busy.
    let mut settings = gpubench_harness::testing::short_settings();
    settings.target_sample = std::time::Duration::from_millis(20);
    settings.max_time = std::time::Duration::from_secs(2);
    let hook = std::sync::Arc::new(RampingHook {
        idle_for: 3,
        asked: Default::default(),
        sampling: Default::default(),
    });
    let runner = Runner::new(&ctx, settings).with_telemetry(hook.clone());
    let mut bench = KernelBench::new(FmaPeak::new(
        Precision::F32,
        PeakForm::Vec4,
        PeakGrid::fixed(64),
    ));
    run_ok(&runner, &mut bench);
    // Three asks said "idle", each followed by one more warm-up sample; the fourth ended it.
    assert_eq!(hook.asked.load(std::sync::atomic::Ordering::SeqCst), 4);
    assert!(hook.sampling.load(std::sync::atomic::Ordering::SeqCst));
}
