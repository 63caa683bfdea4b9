//! Runs the generated matmul kernels on the Vulkan adapter (lavapipe in CI): every member of the
//! tiled family (one copy of the staged blocks and double-buffered) and every small-M parameter set, in f32, f16 and f16 with f32 sums, verified at
//! 127x255x63 and at a shape no tile divides; 1000x1000x1000 once per family and form; the
//! small-M kernel with and without its subgroup reduction; the cooperative-matrix row skipped
//! with its reason where the adapter has none; the suite's tuning table naming what it
//! tried; a candidate that failed while tuning staying failed; a ragged f32 and f16 product on
//! the classic variants. Asserts status and verification, never speed.

use crate::matmul::{
    Kind, Matmul, MatmulSuite, Shape, Variant, candidates, catalogue, coop::CoopParams, coop_space,
    emulated_coop, find_variant,
};
use gpubench_engine::{BuildContext, Suite, SuiteOptions, Tuner};
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::gpu::Precision;
use gpubench_harness::runner::Silent;
use gpubench_harness::testing::require_vulkan;
use gpubench_harness::testing::{assert_all_ok, run_ok, short_settings};
use gpubench_harness::{Benchmark, GpuContext, KernelBench, Profile, Runner, Status};
use pollster::FutureExt as _;

/// The data and accumulation forms the adapter runs: f32, and f16 (both sums) with SHADER_F16.
fn forms(ctx: &GpuContext) -> Vec<(Precision, bool)> {
    let mut out = vec![(Precision::F32, false)];
    if ctx.features.contains(wgpu::Features::SHADER_F16) {
        out.extend([(Precision::F16, false), (Precision::F16, true)]);
    }
    out
}

/// The generated variants `pick` selects, in every form the adapter runs, as (variant,
/// precision) pairs.
fn generated(ctx: &GpuContext, pick: impl Fn(&Variant) -> bool) -> Vec<(Variant, Precision)> {
    let mut out = Vec::new();
    for (precision, acc32) in forms(ctx) {
        for v in catalogue() {
            if pick(v) && v.f32_accumulate == acc32 && v.applies_to(precision) {
                out.push((*v, precision));
            }
        }
    }
    out
}

/// Runs `variant` on `shape` and asserts it is ok and verified (true), or skipped where the
/// adapter's limits rule it out, as the tuner's pruning does (false).
fn assert_verifies(
    ctx: &GpuContext,
    runner: &Runner<'_>,
    shape: Shape,
    variant: Variant,
    precision: Precision,
) -> bool {
    let id = format!(
        "test/{}/{}/{}",
        precision.name(),
        shape.label(),
        variant.name
    );
    let mut bench = KernelBench::new(Matmul::new(id, shape, precision, variant, 11));
    if variant
        .unsupported(ctx, precision, shape.m, shape.n)
        .is_some()
    {
        let result = runner.run(&mut bench, &mut Silent).block_on();
        assert_eq!(result.status, Status::Skipped, "{}", result.id);
        return false;
    }
    run_ok(runner, &mut bench);
    true
}

/// Runs `test` with the Vulkan adapter and a runner of short settings on it (where none is, the
/// test fails unless skipped on purpose, as [`require_vulkan`] says).
fn on_vulkan(test: impl FnOnce(&GpuContext, &Runner<'_>)) {
    if let Some(ctx) = require_vulkan() {
        test(&ctx, &Runner::new(&ctx, short_settings()));
    }
}

/// 127x255x63, and 61x67x45: no dimension a multiple of 4, 8, 16 or any tile edge.
const ODD: [Shape; 2] = [
    Shape {
        m: 127,
        n: 255,
        k: 63,
    },
    Shape {
        m: 61,
        n: 67,
        k: 45,
    },
];

#[test]
fn every_tiled_family_member_verifies_at_odd_shapes() {
    on_vulkan(|ctx, runner| {
        let members = generated(ctx, |v| matches!(v.kind, Kind::Family(_)));
        assert!(members.len() >= 10, "{} members", members.len());
        assert!(
            members
                .iter()
                .any(|(v, _)| matches!(v.kind, Kind::Family(p) if p.stages == 2)),
            "double-buffered members"
        );
        for (variant, precision) in members {
            // Double-buffered members at the shape whose K gives both odd and even step counts
            // (45: 6, 3 and 2 steps of 8, 16 and 32), which is where swapped copies can go wrong;
            // the one-copy members, which share the rest of the code, at both.
            let double = matches!(variant.kind, Kind::Family(p) if p.stages == 2);
            let shapes = if double { &ODD[1..] } else { &ODD[..] };
            for &shape in shapes {
                assert_verifies(ctx, runner, shape, variant, precision);
            }
        }
    });
}

#[test]
fn every_small_m_form_verifies_with_and_without_subgroups() {
    on_vulkan(|ctx, runner| {
        let subgroups = ctx.features.contains(wgpu::Features::SUBGROUP);
        let all = generated(ctx, |v| matches!(v.kind, Kind::Gemv(_)));
        // The workgroup-memory reduction is forced by running its variants by name, on an adapter
        // that has subgroups as on one that has not.
        assert!(all.iter().any(|(v, _)| !v.name.ends_with("-sg")));
        // Small M proper for the forms with the most edges: several column blocks (a partial
        // last block at 255 and 67 columns), or K split (K = 1000 in uneven chunks).
        let columns = [Shape::new(1, 255, 63), Shape::new(8, 67, 45)];
        let split = [Shape::new(3, 1000, 1000)];
        for (variant, precision) in all {
            if variant.name.ends_with("-sg") && !subgroups {
                continue;
            }
            let blocks = !variant.name.contains("-c1-");
            let split_k = !variant.name.contains("-ks1-");
            let extra = columns
                .iter()
                .filter(|_| blocks || split_k)
                .chain(split.iter().filter(|_| split_k));
            for shape in ODD.iter().chain(extra) {
                assert_verifies(ctx, runner, *shape, variant, precision);
            }
        }
    });
}

#[test]
fn each_family_verifies_at_1000_cubed() {
    on_vulkan(|ctx, runner| {
        let big = Shape::new(1000, 1000, 1000);
        for name in [
            "tiled-bm128-bn128-bk16-t8x8-wg256",
            "tiled-bm64-bn64-bk16-t8x8-wg64",
            "gemv-x8-c1-wg64-ks8-wgmem",
        ] {
            for (precision, acc32) in forms(ctx) {
                let name = if acc32 {
                    format!("{name}-acc32")
                } else {
                    name.to_string()
                };
                let variant = find_variant(&name).expect("in the catalogue");
                assert_verifies(ctx, runner, big, variant, precision);
            }
        }
    });
}

/// Every cooperative-matrix configuration's emulated twin (the same kernel, the matrix
/// operations in plain WGSL) verifies at a shape with a partial block along M and N, N not a
/// multiple of 4, and K giving 6, 3 or 2 steps of 8, 16 or 32 (odd and even counts, where
/// swapped copies go wrong): the staging, double buffering, edges and subgroup tiling of the
/// kernel the adapters with matrix units run. Twins beyond the adapter's workgroup memory are
/// skipped by its limit, so the test also asserts that every value of every parameter, and
/// every data and accumulation form, was verified in some configuration.
#[test]
fn every_cooperative_matrix_form_verifies_emulated() {
    on_vulkan(|ctx, runner| {
        let shape = Shape::new(131, 133, 45);
        let space = coop_space();
        assert!(space.len() >= 24, "{} configurations", space.len());
        let mut verified = Vec::new();
        for &p in &space {
            for (precision, acc32) in forms(ctx) {
                let variant = emulated_coop(p, acc32);
                if assert_verifies(ctx, runner, shape, variant, precision) {
                    verified.push((p, precision, acc32));
                }
            }
        }
        let covered = |what: &str, has: &dyn Fn(&CoopParams) -> bool| {
            assert!(
                space.iter().any(has) && verified.iter().any(|(p, ..)| has(p)),
                "no verified twin with {what}"
            );
        };
        for size in [8, 16] {
            covered(&format!("S = {size}"), &|p| p.size == size);
        }
        for sg in [32, 64] {
            covered(&format!("subgroups of {sg}"), &|p| p.sg == sg);
        }
        for warps in [(2, 2), (2, 4), (4, 2)] {
            covered(&format!("{warps:?} subgroups"), &|p| p.warps == warps);
        }
        for steps in [1, 2] {
            covered(&format!("BK = {steps} S"), &|p| p.bk == steps * p.size);
            covered(&format!("{steps} staged copies"), &|p| p.stages == steps);
        }
        for (precision, acc32) in forms(ctx) {
            assert!(
                verified
                    .iter()
                    .any(|&(_, pr, a)| pr == precision && a == acc32),
                "no verified twin in {} (f32 sums: {acc32})",
                precision.name()
            );
        }
    });
}

#[test]
fn the_cooperative_matrix_product_is_skipped_with_the_reason_where_not_offered() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    if ctx
        .features
        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
    {
        return; // an adapter with matrix units: the suite test below runs its rows
    }
    let runner = Runner::new(&ctx, short_settings());
    let variant = find_variant("coop16x16-sg32-w2x2-bk16-db").expect("in the catalogue");
    let kernel = Matmul::new("test/coop".into(), ODD[0], Precision::F16, variant, 1);
    let result = runner
        .run(&mut KernelBench::new(kernel), &mut Silent)
        .block_on();
    assert_eq!(result.status, Status::Skipped, "{:?}", result.reason);
    let reason = result.reason.unwrap_or_default();
    assert!(
        reason.contains("cooperative-matrix") || reason.contains("SHADER_F16"),
        "{reason}"
    );
}

#[test]
fn turned_off_cooperative_matrices_leave_a_skipped_row_saying_so_and_each_product_is_a_stage() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let mut options = SuiteOptions::new(Profile::Quick);
    options.set("coop_matrix", false);
    let tuner = &mut ShortTuner(Runner::new(&ctx, short_settings()));
    let build = &mut BuildContext {
        ctx: &ctx,
        options: &options,
        tuner,
    };
    let stages = MatmulSuite
        .stages(build)
        .block_on()
        .expect("the suite plans");
    // One stage per shape and precision: the quick profile's five shapes, twice.
    assert_eq!(stages.len(), 10);
    // Largest first: 256^3 in f32 and f16, then 128^3. The fourth stage is f16 at 128^3 (the
    // cheapest square to tune here); nothing before it is built or tuned.
    let mut stages = stages.into_iter().skip(3);
    let f16 = stages.next().expect("a fourth stage")(build).block_on();
    let ids: Vec<&str> = f16.iter().map(|b| b.info().id.as_str()).collect();
    assert!(ids.contains(&"matmul/f16/128x128x128"), "{ids:?}");
    let mut coop = f16
        .into_iter()
        .find(|b| b.info().id == "matmul/f16-coop/128x128x128")
        .expect("the cooperative-matrix row is still there");
    let (result, reason) = run_short(&ctx, coop.as_mut());
    assert_eq!(result.status, Status::Skipped);
    assert!(reason.contains("`coop_matrix` option is off"), "{reason}");
}

/// `bench` run with the test runner's short settings: its result and reason (empty if none).
fn run_short(
    ctx: &GpuContext,
    bench: &mut dyn Benchmark,
) -> (gpubench_harness::BenchResult, String) {
    let result = Runner::new(ctx, short_settings())
        .run(bench, &mut Silent)
        .block_on();
    let reason = result.reason.clone().unwrap_or_default();
    (result, reason)
}

/// Measures candidates with the test runner's short settings.
struct ShortTuner<'a>(Runner<'a>);

impl Tuner for ShortTuner<'_> {
    fn measure<'a>(
        &'a mut self,
        bench: &'a mut dyn Benchmark,
    ) -> gpubench_harness::LocalFuture<'a, gpubench_harness::BenchResult> {
        Box::pin(async move { self.0.run(bench, &mut Silent).await })
    }
}

/// The quick profile's benchmarks with the shape 1 x 300 x 200 added, tuned by `tuner`.
fn quick_with_one_small_m_shape(
    ctx: &GpuContext,
    tuner: &mut dyn Tuner,
) -> Vec<Box<dyn Benchmark>> {
    let mut options = SuiteOptions::new(Profile::Quick);
    options.set("matmul_shapes", serde_json::json!(["1x300x200"]));
    MatmulSuite
        .benchmarks(&mut BuildContext {
            ctx,
            options: &options,
            tuner,
        })
        .block_on()
        .expect("the suite builds")
}

#[test]
fn the_tuning_table_names_what_was_tried_and_small_m_tries_the_gemv_kernel() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let tuner = &mut ShortTuner(Runner::new(&ctx, short_settings()));
    let benches = quick_with_one_small_m_shape(&ctx, tuner);
    let info = |id: &str| {
        benches
            .iter()
            .map(|b| b.info())
            .find(|i| i.id == id)
            .unwrap_or_else(|| panic!("no {id}"))
    };
    let square = info("matmul/f32/256x256x256");
    let table = square.params["tuning_gflops"].as_object().expect("table");
    let facts = AdapterFacts::of(&ctx);
    let space = candidates(facts, Precision::F32, Shape::new(256, 256, 256));
    for c in &space {
        assert!(
            table.contains_key(c.variant.name),
            "{} missing",
            c.variant.name
        );
    }
    assert!(table.keys().any(|k| k.starts_with("tiled-bm")), "{table:?}");
    let one = info("matmul/f32/1x300x200");
    let table = one.params["tuning_gflops"].as_object().expect("table");
    assert!(table.keys().any(|k| k.starts_with("gemv-")), "{table:?}");
    assert!(
        benches
            .iter()
            .any(|b| b.info().id == "matmul/f16-coop/256x256x256")
    );
    // Where close candidates went to the final rounds, the choice is one of them and each has
    // a value (or null) per round.
    for info in benches.iter().map(|b| b.info()) {
        let Some(rounds) = info.params.get("tuning_final_rounds") else {
            continue;
        };
        let rounds = rounds.as_object().expect("finalist to its round medians");
        let first = info.params["tuning_gflops"].as_object().expect("table");
        assert!((2..=3).contains(&rounds.len()), "{}: {rounds:?}", info.id);
        for (name, values) in rounds {
            assert!(first.contains_key(name), "{}: {name}", info.id);
            assert_eq!(values.as_array().map(Vec::len), Some(2), "{}", info.id);
        }
        let chosen = info.params["variant"].as_str().expect("variant");
        assert!(
            rounds.contains_key(chosen),
            "{}: {chosen} {rounds:?}",
            info.id
        );
    }
}

/// Measures as [`ShortTuner`] does, but fails the first candidate of `product` it is given
/// (as a wrong C would), and remembers its id.
struct FailingOnce<'a> {
    tuner: ShortTuner<'a>,
    product: &'static str,
    failed: Option<String>,
}

impl Tuner for FailingOnce<'_> {
    fn measure<'a>(
        &'a mut self,
        bench: &'a mut dyn Benchmark,
    ) -> gpubench_harness::LocalFuture<'a, gpubench_harness::BenchResult> {
        Box::pin(async move {
            let mut result = self.tuner.measure(bench).await;
            let prefix = format!("{}/variant-", self.product);
            if self.failed.is_none() && result.id.starts_with(&prefix) {
                self.failed = Some(result.id.clone());
                result.status = Status::Failed;
                result.reason = Some("planted: C[0][0] was wrong".to_string());
            }
            result
        })
    }
}

/// A candidate that failed while tuning is reported failed with that reason, and is not run
/// again: a second run could pass it (an intermittent race) and turn a wrong kernel into a
/// throughput.
#[test]
fn a_candidate_that_failed_while_tuning_stays_failed() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let tuner = &mut FailingOnce {
        tuner: ShortTuner(Runner::new(&ctx, short_settings())),
        product: "matmul/f32/1x300x200",
        failed: None,
    };
    let mut benches = quick_with_one_small_m_shape(&ctx, tuner);
    let failed = tuner.failed.clone().expect("a candidate was measured");
    let bench = benches
        .iter_mut()
        .find(|b| b.info().id == failed)
        .unwrap_or_else(|| panic!("no row for {failed}"));
    let (result, reason) = run_short(&ctx, bench.as_mut());
    assert_eq!(result.status, Status::Failed);
    assert!(reason.contains("planted: C[0][0] was wrong"), "{reason}");
    assert!(reason.contains("not run again"), "{reason}");
    assert!(result.samples.is_empty(), "it was not measured again");
}

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
fn a_ragged_matmul_verifies() {
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
