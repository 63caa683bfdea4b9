//! Runs real kernels on the Vulkan adapter (lavapipe in CI) through the harness's runner with
//! very short settings: a ragged matmul with both f32 register-blocked and tiled variants, an
//! f16 product, every form of the compute peak with and without naga's runtime checks, the
//! compute suite through a session (which records the checks in every result), roofline points
//! at both ends of the sweep and a short sustained run. Asserts status ok and verified, never
//! speed.

mod common;

use pollster::FutureExt as _;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use common::{assert_ok, run_ok, short_settings};
use gpubench_engine::plan::{RunPlan, SampleOverrides};
use gpubench_engine::session::{RunSink, Session};
use gpubench_engine::{BuildContext, Suite, SuiteOptions, Tuner};
use gpubench_harness::kit::fma::grid::PeakGrid;
use gpubench_harness::kit::fma::{FloatType, FmaPeak, PeakForm};
use gpubench_harness::kit::gpu::{Precision, ShaderChecks, ShaderChecksScope};
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::runner::RunObserver;
use gpubench_harness::testing::require_vulkan;
use gpubench_harness::{Benchmark, GpuContext, Kernel, KernelBench, Profile, RunDocument, Runner};
use gpubench_results::schema::ToolInfo;
use gpubench_suites::compute::PeakKernels;
use gpubench_suites::compute::types::{DotPeak, DotType, IntForm, IntPeak, IntType};
use gpubench_suites::matmul::{Matmul, Shape, find_variant};
use gpubench_suites::roofline::{FMAS_SWEEP, RooflinePoint, RooflineSuite, roofline_size};
use gpubench_suites::sustained::SustainedSuite;

/// A matmul of `shape` in `precision` for each named variant.
fn matmuls(shape: Shape, precision: Precision, names: &[&str]) -> Vec<Box<dyn Benchmark>> {
    names
        .iter()
        .map(|name| {
            let variant = find_variant(name).expect("variant exists");
            let id = format!("test/{}/{name}", precision.name());
            KernelBench::boxed(Matmul::new(id, shape, precision, variant, 7))
        })
        .collect()
}

#[test]
fn ragged_matmul_verifies_on_the_adapter() {
    // 63 x 65 x 31: no dimension is a multiple of any tile or of 4; the 32 x 32 blocks overhang
    // both edges.
    let shape = Shape::new(63, 65, 31);
    assert_all_ok(|ctx| {
        let f32_variants = [
            "tiled16",
            "reg8x8",
            "cols8x8",
            "unrolled8x8",
            "unrolled32x32",
        ];
        let mut benches = matmuls(shape, Precision::F32, &f32_variants);
        if ctx.features.contains(wgpu::Features::SHADER_F16) {
            let f16_variants = ["tiled16", "unrolled16x16-acc32"];
            benches.extend(matmuls(shape, Precision::F16, &f16_variants));
        }
        benches
    });
}

/// Runs the benchmarks `build` makes on the Vulkan adapter; each must be ok and verified.
fn assert_all_ok(build: impl FnOnce(&GpuContext) -> Vec<Box<dyn Benchmark>>) {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let runner = Runner::new(&ctx, short_settings());
    for mut bench in build(&ctx) {
        run_ok(&runner, bench.as_mut());
    }
}

/// Every form in every precision the adapter has, over a one-row and a two-row grid (the
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
            for grid in [PeakGrid::fixed(4), two_rows.clone()] {
                benches.push(KernelBench::boxed(FmaPeak::new(precision, form, grid)));
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
                common::assert_status_reason(
                    &result,
                    gpubench_harness::Status::Skipped,
                    "adapter lacks SHADER_",
                );
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

/// Keeps the last document a session saved.
#[derive(Default)]
struct LastDocument(Option<RunDocument>);

impl RunObserver for LastDocument {}

impl RunSink for LastDocument {
    fn save(&mut self, doc: &RunDocument) -> Result<(), gpubench_results::ResultsError> {
        self.0 = Some(doc.clone());
        Ok(())
    }
}

#[test]
fn a_session_records_the_shader_checks_in_every_compute_result() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let mut options = SuiteOptions::new(Profile::Quick);
    options.shader_checks = ShaderChecks::Off;
    let sampling = SampleOverrides {
        samples: Some(2),
        sample_ms: Some(2.0),
        max_time: Some(0.2),
    };
    let plan = RunPlan::new(&gpubench_suites::REGISTRY, &["compute"], options)
        .and_then(|plan| plan.with_sampling(sampling))
        .expect("plan");
    let tool = ToolInfo {
        name: "gpubench".to_string(),
        version: "test".to_string(),
        git_commit: None,
    };
    let mut sink = LastDocument::default();
    let stop = Arc::new(AtomicBool::new(false));
    let doc = Session::new(&ctx, &plan, stop)
        .run(tool, &mut sink)
        .block_on()
        .expect("the session runs");
    assert_eq!(sink.0.as_ref(), Some(&doc), "the last save is the document");
    assert_eq!(doc.config.options["shader_checks"], "off");
    let forms = PeakForm::ALL.len();
    assert!(doc.results.len() >= forms, "{} results", doc.results.len());
    for result in &doc.results {
        if result.status == gpubench_harness::Status::Skipped {
            continue; // f16 on an adapter without it
        }
        assert_ok(result);
        assert_eq!(result.params["shader_checks"], "off", "{}", result.id);
        assert!(result.params["grid_sizing"].is_string(), "{}", result.id);
    }
    assert!(
        doc.results
            .iter()
            .any(|r| r.id == "compute/fma-peak/vec2-f32")
    );
}

#[test]
fn roofline_points_verify_on_the_adapter() {
    // The lightest and the heaviest point: FMAS reaches the shader as a pipeline constant, and
    // a wrong count fails the exact check.
    assert_all_ok(|_| {
        [FMAS_SWEEP[0], FMAS_SWEEP[FMAS_SWEEP.len() - 1]]
            .iter()
            .map(|&fmas| KernelBench::boxed(RooflinePoint::new(fmas, 256 * 1024, 7)))
            .collect()
    });
}

/// Sustained benchmarks are built without candidates to measure.
struct NoTuning;

impl Tuner for NoTuning {
    fn measure<'a>(
        &'a mut self,
        bench: &'a mut dyn Benchmark,
    ) -> gpubench_harness::LocalFuture<'a, gpubench_harness::BenchResult> {
        Box::pin(async move {
            panic!(
                "the sustained suite tunes nothing, yet measured {}",
                bench.info().id
            )
        })
    }
}

#[test]
fn roofline_points_record_how_their_array_was_sized() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let options = SuiteOptions::new(Profile::Quick);
    let tuner = &mut NoTuning;
    let build = &mut BuildContext {
        ctx: &ctx,
        options: &options,
        tuner,
    };
    let benches = RooflineSuite
        .benchmarks(build)
        .block_on()
        .expect("the roofline suite builds");
    let limit = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
    let size = roofline_size(AdapterClass::of(&ctx), Profile::Quick, limit);
    assert_eq!(benches.len(), FMAS_SWEEP.len());
    for bench in &benches {
        let params = &bench.info().params;
        assert_eq!(params["array_bytes"].as_u64(), Some(size.bytes));
        assert_eq!(params["size_rule"].as_str(), Some(size.rule.as_str()));
    }
    if ctx.is_software() {
        // Software adapters keep CI's sizes.
        assert_eq!(size.bytes, 16 << 20);
    }
}

#[test]
fn sustained_run_reuses_the_peak_kernel_on_the_adapter() {
    assert_all_ok(|ctx| {
        let mut options = SuiteOptions::new(Profile::Quick);
        options.set("duration", 0.2);
        let tuner = &mut NoTuning;
        let benches = SustainedSuite
            .benchmarks(&mut BuildContext {
                ctx,
                options: &options,
                tuner,
            })
            .block_on();
        let benches = benches.expect("the sustained suite builds");
        assert_eq!(benches.len(), 1);
        assert_eq!(benches[0].info().id, "sustained/fma-peak/vec4-f32");
        assert_eq!(benches[0].info().suite, "sustained");
        benches
    });
}
