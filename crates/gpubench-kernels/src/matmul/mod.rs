//! The matmul suite: C = A x B, row-major, f32 and f16, over square and batch-like shapes, with
//! the kernel variant chosen per shape and precision by measuring (autotuning).
//!
//! For each shape and precision the suite builds every applicable variant, has the tuner run
//! each briefly (verify first, then a few samples), and keeps the fastest one that verified.
//! The result's params name the chosen variant and carry the whole tuning table (each
//! variant's median GFLOP/s, or why it was skipped or failed). Because the simplest tiled
//! kernel is always among the candidates, the choice is never slower than it (as measured).
//!
//! A variant that fails verification is never chosen, and it is also run again as a result of
//! its own (`.../variant-NAME`), which fails: a kernel that computes wrong answers on this
//! adapter is a defect someone must see in the report and in the exit status, not a footnote
//! in a tuning table.
//!
//! Why these variants: on GPUs, register blocking with vec4 loads and coalesced or broadcast
//! operands is the classic recipe; on lavapipe (Mesa 22.x) every storage or workgroup-memory
//! load becomes a loop over the SIMD lanes with a bounds check per component, and a barrier is
//! a coroutine switch, so shared-memory tiling is the slowest choice there and the winner is
//! whichever kernel gets the most multiply-adds per loaded vec4 without spilling its
//! accumulators. Which of these wins depends on the adapter and the shape, hence measuring.
//! f16 data may accumulate in f16 (fast on GPUs with native f16, and the result says so) or in
//! f32 (`-acc32` variants: more accurate, and faster on software adapters, which emulate f16).
//!
//! Derived results give each product's throughput as a fraction of the measured FMA peak of the
//! precision its arithmetic runs in (the accumulation precision), when the compute suite ran
//! earlier in the same run.

mod kernel;
mod reference;
mod select;
pub mod unrolled;
mod variant;

use std::collections::BTreeMap;

use gpubench_harness::{
    BenchResult, Benchmark, GpuContext, KernelBench, MetricKind, Profile, Status,
};

pub use kernel::{Matmul, MatmulState, Shape, check_product};
pub use reference::{MatrixRef, elements_to_check, reference_element};
pub use select::{select_fastest, tuning_table};
pub use variant::{Kind, VARIANTS, Variant, find_variant, variant_names};

use crate::compute::measured_peak;
use crate::derived::{derived_result, param_str};
use crate::gpu::Precision;
use crate::{Benchmarks, BuildContext, KernelError, Suite, SuiteOptions, Tuner};

/// The shapes a profile runs: squares, then batch-like shapes (M from 1 up against a fixed
/// N x K), smaller on software adapters. `--matmul-shape` values come after them.
pub fn profile_shapes(profile: Profile, software: bool) -> Vec<Shape> {
    let (squares, batch_m, nk): (&[u32], &[u32], u32) = match (profile, software) {
        (Profile::Quick, _) => (&[128, 256], &[1, 8, 64], 256),
        (_, true) => (&[256, 512, 1024], &[1, 8, 64, 512], 1024),
        (Profile::Default, false) => (&[1024, 2048, 4096], &[1, 8, 64, 512], 4096),
        (Profile::Full, false) => (&[512, 1024, 2048, 4096], &[1, 8, 64, 512, 2048], 4096),
    };
    let mut shapes: Vec<Shape> = squares.iter().map(|&s| Shape::new(s, s, s)).collect();
    shapes.extend(batch_m.iter().map(|&m| Shape::new(m, nk, nk)));
    shapes
}

/// The stable id of a product's result (the variant is a param, so baselines pair across
/// changes of the chosen variant).
pub fn result_id(precision: Precision, shape: Shape) -> String {
    format!("matmul/{}/{}", precision.name(), shape.label())
}

/// The matmul suite.
pub struct MatmulSuite;

impl Suite for MatmulSuite {
    fn name(&self) -> &'static str {
        gpubench_harness::suite_names::MATMUL
    }

    fn benchmarks(&self, build: &mut BuildContext<'_>) -> Benchmarks {
        let (ctx, options, tuner) = (build.ctx, build.options, &mut *build.tuner);
        let forced = match &options.matmul_variant {
            Some(name) => Some(find_variant(name).ok_or_else(|| {
                KernelError::BadOption(format!(
                    "--matmul-variant {name}: unknown variant (known: {})",
                    variant_names().join(", ")
                ))
            })?),
            None => None,
        };
        let mut shapes = profile_shapes(options.profile, ctx.is_software());
        for &(m, n, k) in &options.matmul_shapes {
            if m == 0 || n == 0 || k == 0 {
                return Err(KernelError::BadOption(format!(
                    "--matmul-shape {m}x{n}x{k}: every dimension must be positive"
                )));
            }
            let shape = Shape::new(m, n, k);
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
        let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
        for shape in shapes {
            for precision in [Precision::F32, Precision::F16] {
                benches.extend(plan_product(ctx, options, tuner, shape, precision, forced));
            }
        }
        Ok(benches)
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        fraction_of_peak(results, earlier)
    }
}

/// The benchmarks for one product: the forced variant, or the tuned choice plus any variant
/// that failed verification.
fn plan_product(
    ctx: &GpuContext,
    options: &SuiteOptions,
    tuner: &mut dyn Tuner,
    shape: Shape,
    precision: Precision,
    forced: Option<Variant>,
) -> Vec<Box<dyn Benchmark>> {
    let id = result_id(precision, shape);
    let product =
        |id: String, variant: Variant| Matmul::new(id, shape, precision, variant, options.seed);
    let variant_id = |variant: &Variant| format!("{id}/variant-{}", variant.name);
    let untuned = |kernel: Matmul| KernelBench::boxed(kernel.with_param("tuned", false.into()));
    if let Some(variant) = forced {
        return vec![untuned(product(id.clone(), variant))];
    }
    let candidates: Vec<Variant> = VARIANTS
        .iter()
        .copied()
        .filter(|v| v.applies_to(precision))
        .collect();
    if !ctx.features.contains(precision.features()) {
        // Nothing to tune: the runner reports the product skipped with the missing feature.
        return vec![untuned(product(id.clone(), candidates[0]))];
    }
    let measured: Vec<BenchResult> = candidates
        .iter()
        .map(|v| tuner.measure(&mut KernelBench::new(product(variant_id(v), *v))))
        .collect();
    let names: Vec<&str> = candidates.iter().map(|v| v.name).collect();
    let table = tuning_table(&names, &measured);
    let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
    if let Some(best) = select_fastest(&measured) {
        let kernel = product(id.clone(), candidates[best])
            .with_param("tuned", true.into())
            .with_param("tuning_gflops", table.clone());
        benches.push(KernelBench::boxed(kernel));
    }
    for (variant, result) in candidates.iter().zip(&measured) {
        if result.status == Status::Failed {
            let kernel =
                product(variant_id(variant), *variant).with_param("tuning_gflops", table.clone());
            benches.push(untuned(kernel));
        }
    }
    benches
}

/// Each ok product's median as a percentage of the measured FMA peak of its accumulation
/// precision (from the compute suite's results in `earlier`), as derived results.
pub fn fraction_of_peak(results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
    let mut derived = Vec::new();
    for result in results {
        let Some(median) = result.median() else {
            continue;
        };
        // The arithmetic runs in the accumulation precision (f16 data accumulated in f32 is
        // f32 arithmetic), so that is the peak it is measured against.
        let precision = match param_str(result, "accumulation") {
            Some("f32") => Precision::F32,
            Some("f16") => Precision::F16,
            _ => continue,
        };
        let Some((peak, peak_id)) = measured_peak(earlier, precision) else {
            continue;
        };
        let mut params = BTreeMap::new();
        params.insert("of".to_string(), result.id.clone().into());
        params.insert(
            "variant".to_string(),
            result.params.get("variant").cloned().unwrap_or_default(),
        );
        params.insert("gflops".to_string(), median.into());
        params.insert("peak_precision".to_string(), precision.name().into());
        params.insert("peak_id".to_string(), peak_id.into());
        params.insert("peak_gflops".to_string(), peak.into());
        derived.push(derived_result(
            format!("{}/fraction-of-peak", result.id),
            "matmul",
            MetricKind::FractionOfPeak,
            "matmul GFLOP/s as a percentage of the measured FMA peak of its accumulation precision",
            100.0 * median / peak,
            params,
        ));
    }
    derived
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::stats::summarize;
    use gpubench_harness::{BenchmarkInfo, MetricKind};

    fn ok(id: &str, suite: &str, params: &[(&str, &str)], value: f64) -> BenchResult {
        let mut info = BenchmarkInfo::new(id, suite, MetricKind::Throughput, "flops");
        for (k, v) in params {
            info = info.param(k, *v);
        }
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        r.verified = true;
        r.summary = summarize(&[value, value]);
        r
    }

    #[test]
    fn fractions_use_the_peak_of_the_accumulation_precision() {
        let earlier = vec![
            ok(
                "compute/a",
                "compute",
                &[("kernel", "fma-peak"), ("precision", "f32")],
                40.0,
            ),
            ok(
                "compute/b",
                "compute",
                &[("kernel", "fma-peak"), ("precision", "f32")],
                20.0,
            ),
            ok(
                "compute/c",
                "compute",
                &[("kernel", "fma-peak"), ("precision", "f16")],
                5.0,
            ),
        ];
        let results = vec![
            ok("matmul/f32/x", "matmul", &[("accumulation", "f32")], 10.0),
            ok("matmul/f16/x", "matmul", &[("accumulation", "f32")], 4.0),
            ok("matmul/f16/y", "matmul", &[("accumulation", "f16")], 4.0),
        ];
        let derived = fraction_of_peak(&results, &earlier);
        let values: Vec<f64> = derived.iter().filter_map(|r| r.median()).collect();
        assert_eq!(values, vec![25.0, 10.0, 80.0]);
        assert!(
            fraction_of_peak(&results, &[]).is_empty(),
            "no compute run, no fraction"
        );
    }

    #[test]
    fn quick_shapes_are_small_and_include_batch_shapes() {
        let shapes = profile_shapes(Profile::Quick, true);
        assert!(shapes.contains(&Shape::new(1, 256, 256)));
        assert!(shapes.iter().all(|s| s.flops() <= 2 * 256 * 256 * 256));
        let gpu = profile_shapes(Profile::Default, false);
        assert!(gpu.contains(&Shape::new(4096, 4096, 4096)));
        assert!(gpu.contains(&Shape::new(512, 4096, 4096)));
    }
}
