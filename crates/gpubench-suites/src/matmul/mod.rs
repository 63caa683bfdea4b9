//! The matmul suite: C = A x B, row-major, f32 and f16, over square and batch-like shapes, with
//! the kernel variant chosen per shape and precision by measuring (autotuning).
//!
//! For each shape and precision (one stage of the suite each, tuned when its turn comes) the
//! suite builds every applicable variant, has the tuner run each briefly (verify first, then a
//! few samples), and keeps the fastest one that verified. The candidates share one set of
//! inputs, one CPU reference and the compiled pipelines (the `inputs` module); a candidate
//! whose first run is already [`SCREEN_FACTOR`] times slower than the fastest so far keeps
//! that run alone.
//! The result's params name the chosen variant and carry the whole tuning table (each
//! variant's median GFLOP/s, or why it was skipped or failed). Because the simplest tiled
//! kernel is always among the candidates, the choice is never slower than it (as measured).
//!
//! A variant that fails verification is never chosen, and it is also reported as a result of
//! its own (`.../variant-NAME`), failed with the reason its tuning run gave and not run again
//! (an intermittent race could pass a second run): a kernel that computes wrong answers on
//! this adapter is a defect someone must see in the report and in the exit status, not a
//! footnote in a tuning table.
//!
//! Which variants: the search space depends on the adapter ([`select::candidates`]). On a CPU
//! adapter (lavapipe, Mesa 22.x) every storage or workgroup-memory load becomes a loop over
//! the SIMD lanes and a barrier a coroutine switch, so the fixed register-blocked table (no
//! workgroup memory, the most multiply-adds per loaded vec4) wins, and it is kept there. On a
//! GPU its large blocks spill; a GPU tunes the generated workgroup-tiled family
//! ([`tiled`]) pruned by its limits instead. Products with M below a tile also try the
//! small-M kernel ([`gemv`]), which is bound by reading B. Tensor-core products
//! ([`coop`]) are rows of their own. f16 data may accumulate in f16 (fast on GPUs with native
//! f16, and the result says so) or in f32 (`-acc32` variants: more accurate, and faster on
//! software adapters, which emulate f16).
//!
//! Derived results give each product's throughput as a fraction of the measured FMA peak of the
//! precision its arithmetic runs in (the accumulation precision), when the compute suite ran
//! earlier in the same run.

pub mod coop;
pub mod forms;
pub mod gemv;
mod inputs;
mod kernel;
#[cfg(test)]
mod on_an_adapter;
pub mod options;
mod readback;
mod reference;
mod select;
mod shape;
pub mod tiled;
pub mod unrolled;
mod variant;
mod wgsl;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use gpubench_harness::{
    BenchResult, Benchmark, GpuContext, Kernel, KernelBench, MetricKind, Profile, Status,
};

pub use inputs::ProductInputs;
pub use kernel::{Matmul, MatmulState};
pub use reference::{MatrixRef, elements_to_check, reference_element};
pub use select::{
    CPU_TILE, Candidate, REGISTER_BUDGET, RegisterModel, SMALL_M, WAVE64_REGISTER_BUDGET,
    candidates, register_model, registers, select_fastest, tuning_table,
};
pub use shape::Shape;
pub use variant::{
    Kind, VARIANTS, Variant, catalogue, coop_space, emulated_coop, find_variant, gemv_space,
    variant_names,
};

use gpubench_engine::{Benchmarks, BuildContext, PlanError, Stage, Stages, Suite, Tuner};
use gpubench_engine::{SuiteInfo, SuiteOptions};
use gpubench_harness::LocalFuture;
use gpubench_harness::kit::derived::{derived_result, derived_skipped, param_str};
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::fma::measured_peak;
use gpubench_harness::kit::forms::KernelForms;
use gpubench_harness::kit::gpu::Precision;
use gpubench_harness::kit::sizing::short_dispatch_record;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "autotuned matrix multiply, f32 and f16, square and batch-like shapes";

/// matmul_tiled.wgsl: the workgroup-tiled matmul (shared-memory tiles; the tile edge is a pipeline constant), after params.wgsl. The unrolled kernels are generated ([`unrolled`]).
pub const TILED_WGSL: &str = concat!(
    include_str!("params.wgsl"),
    "\n",
    include_str!("matmul_tiled.wgsl")
);
/// matmul_reg.wgsl: the register-blocked vec4 matmul without workgroup memory, after
/// params.wgsl.
pub const REG_WGSL: &str = concat!(
    include_str!("params.wgsl"),
    "\n",
    include_str!("matmul_reg.wgsl")
);

/// The shapes a profile runs, largest first: squares, then batch-like shapes (M down to 1
/// against a fixed N x K), smaller on software adapters. `--matmul-shape` values come after
/// them. The largest square is the suite's headline: first, so that a run stopped by a time
/// budget (matmul runs last) keeps it.
pub fn profile_shapes(profile: Profile, software: bool) -> Vec<Shape> {
    let (squares, batch_m, nk): (&[u32], &[u32], u32) = match (profile, software) {
        (Profile::Quick, _) => (&[256, 128], &[64, 8, 1], 256),
        (_, true) => (&[1024, 512, 256], &[512, 64, 8, 1], 1024),
        (Profile::Default, false) => (&[4096, 2048, 1024], &[512, 64, 8, 1], 4096),
        (Profile::Full, false) => (&[4096, 2048, 1024, 512], &[2048, 512, 64, 8, 1], 4096),
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

/// The stable id of a product's result on matrix units (`matmul/f16-coop/...`).
pub fn coop_id(precision: Precision, shape: Shape) -> String {
    format!("matmul/{}-coop/{}", precision.name(), shape.label())
}

/// The matmul suite.
pub struct MatmulSuite;

impl Suite for MatmulSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("matmul", ABOUT)
            .after(&["compute"])
            .options(&options::OPTIONS)
            .shaders(&[
                ("matmul_tiled.wgsl", TILED_WGSL),
                ("matmul_reg.wgsl", REG_WGSL),
            ])
    }

    fn pipelines(&self, facts: AdapterFacts, profile: Profile) -> KernelForms {
        forms::matmul_forms(facts, profile)
    }

    fn check_adapter(&self, ctx: &GpuContext, options: &SuiteOptions) -> Result<(), PlanError> {
        options::check_shapes_fit(ctx, options)
    }

    fn benchmarks<'a>(&'a self, build: &'a mut BuildContext<'_>) -> LocalFuture<'a, Benchmarks> {
        Box::pin(async move {
            let stages = self.stages(build).await?;
            let mut benches = Vec::new();
            for stage in stages {
                benches.extend(stage(build).await);
            }
            Ok(benches)
        })
    }

    /// One stage per product (shape and precision), tuned when its turn comes: a stop or a
    /// time limit during one product's tuning keeps every product measured before it.
    fn stages<'a>(&'a self, build: &'a mut BuildContext<'_>) -> LocalFuture<'a, Stages> {
        let stages = product_stages(build.ctx, build.options);
        Box::pin(async move { stages })
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        let mut derived = fraction_of_peak(results, earlier);
        derived.extend(small_m_bandwidth(results, earlier));
        derived
    }

    /// Each product is a bar by shape and a point of the roofline by precision.
    fn chart_hint(&self, result: &BenchResult) -> Option<gpubench_results::ChartHint> {
        use gpubench_results::chart::{ChartHint, group, precision_point};
        use gpubench_results::{MetricKind, Role};
        if result.role != Role::Kernel || result.metric != MetricKind::Throughput {
            return None;
        }
        let param = |key: &str| result.params.get(key).and_then(serde_json::Value::as_str);
        let roof = precision_point("matmul", param("precision"), param("accumulation"));
        let order = ["m", "n", "k"];
        Some(ChartHint::bars(
            group::MATMUL_SHAPES,
            &["shape"],
            &order,
            Some(roof),
        ))
    }
}

/// The variant `matmul_variant` forces, if any: a known name, and not a cooperative-matrix one
/// in a run that turned those kernels off.
fn forced_variant(options: &SuiteOptions) -> Result<Option<Variant>, PlanError> {
    let Some(name) = options.get::<String>(options::VARIANT) else {
        return Ok(None);
    };
    let variant = find_variant(&name).ok_or_else(|| {
        PlanError::bad(
            options::VARIANT,
            format!(
                "{name}: unknown variant (known: {})",
                variant_names().join(", ")
            ),
        )
    })?;
    if variant.on_matrix_units() && !options.flag(options::COOP_MATRIX, true) {
        return Err(PlanError::bad(
            options::VARIANT,
            format!(
                "{name} runs on matrix units, and cooperative-matrix kernels are turned off for this run (the `coop_matrix` option is off)"
            ),
        ));
    }
    Ok(Some(variant))
}

/// One stage per product (shape and precision) of the run's options, each tuned when its turn
/// comes: a stop or a time limit during one product's tuning keeps every product before it.
fn product_stages(ctx: &GpuContext, options: &SuiteOptions) -> Stages {
    let forced = forced_variant(options)?;
    // The option's parser refused empty and oversized shapes before any suite was built.
    let extra = options::shapes(options)?;
    let stages = products(options.profile, ctx.is_software(), &extra)
        .into_iter()
        .map(|(shape, precision)| -> Stage {
            Box::new(move |build| Box::pin(plan_product(build, shape, precision, forced)))
        })
        .collect();
    Ok(stages)
}

/// The products a run tunes, in order: each shape of the profile (largest first), then each
/// requested `(m, n, k)` the profile lacks, f32 before f16.
fn products(
    profile: Profile,
    software: bool,
    extra: &[(u32, u32, u32)],
) -> Vec<(Shape, Precision)> {
    let mut shapes = profile_shapes(profile, software);
    for &(m, n, k) in extra {
        let shape = Shape::new(m, n, k);
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
    }
    shapes
        .into_iter()
        .flat_map(|shape| [(shape, Precision::F32), (shape, Precision::F16)])
        .collect()
}

/// The benchmarks for one product: the forced variant, or the tuned choice plus any variant
/// that failed verification; then, for f16 (and f32 where the adapter has an f32
/// configuration), the cooperative-matrix product as a row of its own. Every candidate and the
/// chosen kernel share one set of inputs and one CPU reference (the `inputs` module).
async fn plan_product(
    build: &mut BuildContext<'_>,
    shape: Shape,
    precision: Precision,
    forced: Option<Variant>,
) -> Vec<Box<dyn Benchmark>> {
    let (ctx, options) = (build.ctx, build.options);
    let id = result_id(precision, shape);
    let inputs = ProductInputs::new(shape, precision, options.seed);
    let product = |id: String, variant: Variant| Matmul::sharing(id, variant, Arc::clone(&inputs));
    let untuned = |kernel: Matmul| KernelBench::boxed(kernel.with_param("tuned", false.into()));
    if let Some(variant) = forced {
        // A cooperative-matrix variant is the product on matrix units: its row is the coop
        // row, never the FMA product's (whose baselines and fraction of the FMA peak it would
        // take).
        let id = if variant.on_matrix_units() {
            coop_id(precision, shape)
        } else {
            id
        };
        let kernel = product(id, variant);
        // Forced or tuned, a product the check cannot tell from a wrong one is not run.
        return vec![match select::unverifiable(&variant, precision, shape.k) {
            Some(why) => untuned(kernel.turned_off(why)),
            None => untuned(kernel),
        }];
    }
    let space = candidates(AdapterFacts::of(ctx), precision, shape);
    if ctx.faults.device_lost() {
        // Nothing can be tuned: the runner records the product as not run, with the reason.
        return space
            .first()
            .map(|c| untuned(product(id.clone(), c.variant)))
            .into_iter()
            .collect();
    }
    let mut benches = tune(ctx, &mut *build.tuner, &id, &space, &product).await;
    benches.extend(
        coop_product(
            ctx,
            &mut *build.tuner,
            &inputs,
            options.flag(options::COOP_MATRIX, true),
        )
        .await,
    );
    benches
}

/// Measures every unpruned candidate with `tuner` and returns the fastest verified one (as the
/// product's result, with the tuning table) and each candidate that failed verification (as a
/// failing result of its own).
async fn tune(
    ctx: &GpuContext,
    tuner: &mut dyn Tuner,
    id: &str,
    space: &[Candidate],
    product: &dyn Fn(String, Variant) -> Matmul,
) -> Vec<Box<dyn Benchmark>> {
    let variant_id = |variant: &Variant| format!("{id}/variant-{}", variant.name);
    let untuned = |kernel: Matmul| KernelBench::boxed(kernel.with_param("tuned", false.into()));
    let (measurable, pruned): (Vec<&Candidate>, Vec<&Candidate>) =
        space.iter().partition(|c| c.pruned.is_none());
    let Some(first) = measurable.first() else {
        return Vec::new();
    };
    let precision_missing = !ctx
        .features
        .contains(product(String::new(), first.variant).required_features());
    if precision_missing {
        // Nothing to tune: the runner reports the product skipped with the missing feature.
        return vec![untuned(product(id.to_string(), first.variant))];
    }
    let tried: Vec<Variant> = measurable.iter().map(|c| c.variant).collect();
    let started = web_time::Instant::now();
    let kernel = |v: &Variant| product(variant_id(v), *v);
    let mut measured = first_pass(tuner, &tried, &kernel).await;
    let screened: Vec<&str> = tried
        .iter()
        .zip(&measured)
        .filter(|(_, r)| r.params.contains_key("screened"))
        .map(|(v, _)| v.name)
        .collect();
    let names: Vec<&str> = tried.iter().map(|v| v.name).collect();
    let (chosen, final_table) = final_rounds(&tried, &mut measured, tuner, &kernel).await;
    // After the final rounds: a finalist that failed in one is in the table as failed, with no
    // figure from its first pass.
    let mut table = tuning_table(&names, &measured);
    if let Some(entries) = table.as_object_mut() {
        for c in pruned {
            let reason = c.pruned.as_deref().unwrap_or_default();
            entries.insert(
                c.variant.name.to_string(),
                format!("skipped: pruned: {reason}").into(),
            );
        }
    }
    let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
    if let Some(best) = chosen {
        let mut kernel = product(id.to_string(), tried[best])
            .with_param("tuned", true.into())
            .with_param("tuning_candidates", tried.len().into())
            .with_param("tuning_gflops", table.clone());
        if let Some(rounds) = final_table {
            kernel = kernel.with_param("tuning_final_rounds", rounds);
        }
        if !screened.is_empty() {
            kernel = kernel.with_param("tuning_screened", screened.clone().into());
        }
        let seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
        kernel = kernel.with_param("tuning_seconds", seconds.into());
        benches.push(KernelBench::boxed(kernel));
    }
    for (variant, result) in tried.iter().zip(&measured) {
        if result.status == Status::Failed {
            let reason = result.reason.clone().unwrap_or_default();
            let kernel = product(variant_id(variant), *variant)
                .with_param("tuning_gflops", table.clone())
                .failed_while_tuning(reason);
            benches.push(untuned(kernel));
        }
    }
    benches
}

/// A candidate whose verified first run takes this many times the fastest candidate's
/// iteration so far is not sampled further: it cannot come within [`select::CLOSE`] of it.
pub const SCREEN_FACTOR: u32 = 10;

/// The first pass over `tried`, in the list's order except the reference (the first, simplest
/// kernel), which goes last: by then the fastest iteration so far bounds it, and on a CPU
/// adapter it is a hundred times slower than the best. Each candidate after the first is
/// screened ([`Tuner::measure_within`]) at [`SCREEN_FACTOR`] times the fastest iteration so far.
async fn first_pass(
    tuner: &mut dyn Tuner,
    tried: &[Variant],
    kernel: &dyn Fn(&Variant) -> Matmul,
) -> Vec<BenchResult> {
    let mut order: Vec<usize> = (1..tried.len()).collect();
    order.push(0);
    let mut fastest: Option<f64> = None;
    let mut results: Vec<Option<BenchResult>> = vec![None; tried.len()];
    for i in order {
        let bench = &mut KernelBench::new(kernel(&tried[i]));
        let bound = fastest.map(|s| Duration::from_secs_f64(s * f64::from(SCREEN_FACTOR)));
        let result = tuner.measure_within(bench, bound).await;
        let counted = result.status == Status::Ok
            && result.verified
            && !result.params.contains_key("screened");
        if let Some(seconds) = iteration_seconds(&result).filter(|_| counted) {
            fastest = Some(fastest.map_or(seconds, |f| f.min(seconds)));
        }
        results[i] = Some(result);
    }
    results.into_iter().flatten().collect()
}

/// The seconds one iteration of a throughput result took, from its median and its work.
fn iteration_seconds(result: &BenchResult) -> Option<f64> {
    let gflops = result.median().filter(|g| g.is_finite() && *g > 0.0)?;
    Some(result.work.flops as f64 / (gflops * 1e9))
}

/// The choice among the first pass's `measured` results of `tried`: the fastest, or where
/// several are within [`select::CLOSE`] of it, the winner of [`select::FINAL_ROUNDS`]
/// interleaved rounds over them, with those rounds as a table (finalist to its medians, in
/// round order). A finalist that fails in a final round replaces its first-pass result, so it
/// is reported failing and never chosen. Each round measures `kernel` of a finalist with `tuner`.
async fn final_rounds(
    tried: &[Variant],
    measured: &mut [BenchResult],
    tuner: &mut dyn Tuner,
    kernel: &dyn Fn(&Variant) -> Matmul,
) -> (Option<usize>, Option<serde_json::Value>) {
    let finalists = select::finalists(measured);
    if finalists.is_empty() {
        return (select_fastest(measured), None);
    }
    let mut rounds: Vec<Vec<Option<f64>>> = Vec::new();
    for _ in 0..select::FINAL_ROUNDS {
        let mut round = Vec::new();
        for &f in &finalists {
            let result = tuner
                .measure(&mut KernelBench::new(kernel(&tried[f])))
                .await;
            let ok = result.status == Status::Ok && result.verified;
            round.push(result.median().filter(|_| ok));
            if result.status == Status::Failed {
                measured[f] = result;
            }
        }
        rounds.push(round);
    }
    let table: serde_json::Map<String, serde_json::Value> = finalists
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            let values: Vec<serde_json::Value> = rounds
                .iter()
                .map(|r| r[i].map_or(serde_json::Value::Null, |v| select::table_value(v).into()))
                .collect();
            (tried[f].name.to_string(), values.into())
        })
        .collect();
    let chosen = select::select_final(&rounds)
        .map(|i| finalists[i])
        .filter(|&f| measured[f].status == Status::Ok)
        .or_else(|| select_fastest(measured));
    (chosen, Some(table.into()))
}

/// The cooperative-matrix product of `shape` (`matmul/f16-coop/...`, `matmul/f32-coop/...`),
/// tuned over the configurations the adapter offers (the vendor's short list where there is
/// one, [`coop::tuned_for_vendor`]); for f16 without any, one row the runner reports skipped
/// with the reason. f32 rows exist only where an f32 configuration does. Below
/// [`coop::COOP_MIN_M`] rows the row is kept and not run ([`coop::too_few_rows`]).
async fn coop_product(
    ctx: &GpuContext,
    tuner: &mut dyn Tuner,
    inputs: &Arc<ProductInputs>,
    enabled_by_options: bool,
) -> Vec<Box<dyn Benchmark>> {
    let (shape, precision) = (inputs.shape(), inputs.precision());
    let id = coop_id(precision, shape);
    // Written for the widest subgroup the adapter runs (`coop::subgroup_for`); none is
    // written for subgroups above 64, so none is tuned there.
    let subgroup = coop::subgroup_for(AdapterFacts::of(ctx).subgroup_max);
    let f16_row = || {
        let sg = subgroup.unwrap_or(64);
        find_variant(&format!("coop16x16-sg{sg}-w2x2-bk16-db"))
    };
    let enabled = ctx
        .features
        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
    let product = |id: String, variant: Variant| {
        Matmul::sharing(id, variant, Arc::clone(inputs))
            .with_param("experimental_features", enabled.into())
    };
    if !enabled_by_options {
        // The f16 row, skipped with the reason (f32 rows exist only where offered).
        let reason =
            "cooperative-matrix kernels turned off for this run (the `coop_matrix` option is off)";
        return match f16_row() {
            Some(variant) if precision == Precision::F16 => vec![KernelBench::boxed(
                product(id, variant)
                    .with_param("tuned", false.into())
                    .turned_off(reason),
            )],
            _ => Vec::new(),
        };
    }
    // The forms this adapter's facts choose (`coop::candidates`), pruned ones with the reason;
    // f16 sums over more terms than their check can judge are pruned as the FMA kernels' are.
    let space = select::prune_unverifiable(
        coop::candidates(AdapterFacts::of(ctx), precision),
        precision,
        shape.k,
    );
    if space.iter().all(|c| c.pruned.is_some()) {
        if precision != Precision::F16 {
            return Vec::new();
        }
        // The 16 x 16 f16 form, which the runner skips with the adapter's reason.
        let Some(variant) = f16_row() else {
            return Vec::new();
        };
        return vec![KernelBench::boxed(
            product(id, variant).with_param("tuned", false.into()),
        )];
    }
    let first_kept = space.iter().find(|c| c.pruned.is_none());
    if let (Some(reason), Some(kept)) = (coop::too_few_rows(shape.m), first_kept) {
        return vec![KernelBench::boxed(
            product(id, kept.variant)
                .with_param("tuned", false.into())
                .turned_off(reason),
        )];
    }
    tune(ctx, tuner, &id, &space, &product).await
}

/// Each ok product's median as a percentage of the measured FMA peak of its accumulation
/// precision (from the compute suite's results in `earlier`), as derived results. Not the
/// cooperative-matrix products (`matmul/<precision>-coop/...`): they run on matrix units, whose
/// peak no FMA chain measures (an H200's dense f16 tensor rate is about 15 times its f32 FMA
/// peak), so a fraction of the FMA peak would read 990% of a card at 64% of its own.
pub fn fraction_of_peak(results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
    let mut derived = Vec::new();
    for result in results.iter().filter(|r| !on_matrix_units(r)) {
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

/// Whether `result` is a cooperative-matrix product, run on matrix units rather than by FMA: its
/// id's form ends `-coop`, or its variant, what actually ran, is a cooperative-matrix one
/// (whatever id a row took).
fn on_matrix_units(result: &BenchResult) -> bool {
    let coop_form = result
        .id
        .split('/')
        .nth(1)
        .is_some_and(|form| form.ends_with("-coop"));
    let coop_variant = param_str(result, "variant")
        .and_then(find_variant)
        .is_some_and(|v| v.on_matrix_units());
    coop_form || coop_variant
}

/// The stream suite's read-only kernel's best bytes read per second (GB/s) among `earlier`
/// results, and its id: its reads alone, as B's bytes read are compared with it (the kernel
/// also writes a vec4 of partial sums for every eight it reads, which its GB/s counts).
pub fn stream_read_bandwidth(earlier: &[BenchResult]) -> Option<(f64, String)> {
    earlier
        .iter()
        .filter(|r| r.suite == gpubench_results::suite_names::STREAM && r.status == Status::Ok)
        .filter(|r| r.metric == MetricKind::Bandwidth && param_str(r, "kernel") == Some("read"))
        .filter_map(|r| Some((r.read_rate()?, r.id.clone())))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

/// A product row with M below a tile ([`SMALL_M`]): its GFLOP/s, its M, N and K, and its
/// bytes per element; `None` for any other row, or one without a median.
fn small_m_product(result: &BenchResult) -> Option<(f64, [u64; 3], u64)> {
    if result.metric != MetricKind::Throughput {
        return None;
    }
    let dim = |key: &str| result.params.get(key).and_then(|v| v.as_u64());
    let (gflops, m, n, k) = (result.median()?, dim("m")?, dim("n")?, dim("k")?);
    let bytes = match param_str(result, "precision")? {
        "f32" => 4,
        "f16" => 2,
        _ => return None,
    };
    (m < u64::from(SMALL_M)).then_some((gflops, [m, n, k], bytes))
}

/// For each ok product with M below a tile ([`SMALL_M`]), which reading B bounds: the bytes
/// of B read per second (`.../b-read`, B's K x N elements once per product) and, when the
/// stream suite ran earlier in the same run, that as a percentage of the stream read
/// kernel's bandwidth (`.../b-read/fraction-of-stream-read`; skipped, and the b-read row
/// warned, where a product lasts under a dispatch's target length).
pub fn small_m_bandwidth(results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
    let stream_read = stream_read_bandwidth(earlier);
    let mut derived = Vec::new();
    for result in results {
        let Some((gflops, [m, n, k], bytes)) = small_m_product(result) else {
            continue;
        };
        let products = gflops / (2 * m * n * k) as f64;
        let gbps = products * (k * n * bytes) as f64;
        let mut params = BTreeMap::new();
        params.insert("of".to_string(), result.id.clone().into());
        params.insert(
            "variant".to_string(),
            result.params.get("variant").cloned().unwrap_or_default(),
        );
        params.insert("b_bytes".to_string(), (k * n * bytes).into());
        let id = format!("{}/b-read", result.id);
        // One product a timed iteration (two dispatches where K is split): a product shorter
        // than a dispatch should last includes the barrier and launch between products, so B
        // reads short. Its fraction of the stream read is then not stated; faster than the
        // stream read still says it came from a cache.
        // `products` is in 10^9 a second, as the GFLOP/s it comes from.
        let short = short_dispatch_record(
            1.0 / (products * 1e9),
            "(one product a dispatch, two where K is split)",
            ": B's bytes per second read short, so its fraction of the stream read is not \
             stated",
        );
        if let Some((stream_gbps, _)) = &stream_read {
            // Read faster than the stream kernel reads memory: B (32 MiB of f16 at 4096 x 4096,
            // inside an H200's 50 MB L2) was served from a cache, not from device memory. Read
            // slower, it may have come from either (a kernel can read a cached B slowly), so
            // nothing is said of where it was.
            let cached = gbps > *stream_gbps;
            if cached {
                params.insert("cache_resident".to_string(), true.into());
                params.insert(
                    "cache_note".to_string(),
                    "B was read faster than the stream read kernel reads device memory: it stayed in a cache between products, so this is cache bandwidth, not memory bandwidth".into(),
                );
            }
        }
        if let Some((stream_gbps, stream_id)) = &stream_read {
            let mut fraction = params.clone();
            fraction.insert("b_read_gbps".to_string(), gbps.into());
            fraction.insert("stream_read_id".to_string(), stream_id.clone().into());
            fraction.insert("stream_read_gbps".to_string(), (*stream_gbps).into());
            let fraction_id = format!("{id}/fraction-of-stream-read");
            let (metric, counts) = (
                MetricKind::FractionOfPeak,
                "bytes of B read per second as a percentage of the stream read kernel's bandwidth in the same run",
            );
            derived.push(match &short {
                Some(warning) => {
                    let reason = format!("not stated: {}", warning.message);
                    derived_skipped(fraction_id, "matmul", metric, counts, reason, fraction)
                }
                None => {
                    let percent = 100.0 * gbps / stream_gbps;
                    derived_result(fraction_id, "matmul", metric, counts, percent, fraction)
                }
            });
        }
        let mut b_read = derived_result(
            id,
            "matmul",
            MetricKind::Bandwidth,
            "bytes of B read per second (K x N elements per product), what bounds a small-M product",
            gbps,
            params,
        );
        b_read.warnings.extend(short);
        derived.push(b_read);
    }
    derived
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::{BenchmarkInfo, MetricKind, Work};
    use gpubench_results::stats::summarize;

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
            // On matrix units: no FMA peak measures them, so no fraction of one, whether the
            // id says so or only the variant.
            ok(
                "matmul/f16-coop/x",
                "matmul",
                &[("accumulation", "f32")],
                400.0,
            ),
            ok(
                "matmul/f16/z",
                "matmul",
                &[
                    ("accumulation", "f32"),
                    ("variant", "coop16x16-sg32-w2x2-bk16-db-acc32"),
                ],
                400.0,
            ),
        ];
        let derived = fraction_of_peak(&results, &earlier);
        let values: Vec<f64> = derived.iter().filter_map(|r| r.median()).collect();
        assert_eq!(values, vec![25.0, 10.0, 80.0]);
        assert!(
            fraction_of_peak(&results, &[]).is_empty(),
            "no compute run, no fraction"
        );
    }

    /// A forced cooperative-matrix variant is the product on matrix units: refused where those
    /// kernels are turned off, and an unknown name is refused with the known ones.
    #[test]
    fn a_forced_variant_is_known_and_on_matrix_units_only_where_they_are_on() {
        let coop = "coop16x16-sg32-w2x2-bk16-db-acc32";
        let forced = |coop_on: bool, name: &str| {
            let mut options = SuiteOptions::new(Profile::Quick);
            options.set(options::VARIANT, name);
            if !coop_on {
                options.set(options::COOP_MATRIX, false);
            }
            forced_variant(&options)
        };
        let on = forced(true, coop).expect("known").expect("forced");
        assert!(on.on_matrix_units());
        let off = forced(false, coop).expect_err("turned off");
        assert!(off.to_string().contains("runs on matrix units"), "{off}");
        // Every emulated twin runs by FMA, every other cooperative-matrix variant on the units.
        for v in catalogue().iter().filter(|v| v.name.starts_with("coop")) {
            assert_eq!(
                v.on_matrix_units(),
                !v.name.contains("emulated"),
                "{}",
                v.name
            );
        }
        assert!(forced(false, VARIANTS[0].name).is_ok_and(|v| v.is_some()));
        assert!(forced(true, "no-such-kernel").is_err());
        assert_eq!(
            coop_id(Precision::F16, Shape::new(8, 16, 32)),
            "matmul/f16-coop/8x16x32"
        );
    }

    /// Two f32 products of 8 GFLOP/s, M = 1 and M = 64 (1000 x 500 B), and a stream read row
    /// of 25 GB/s of reads and writes, a fifth of its bytes written: 20 GB/s of reads, what B's
    /// bytes read are compared with.
    fn small_m_fixture() -> (BenchResult, BenchResult, BenchResult) {
        let product = |m: u64| {
            let id = format!("matmul/f32/{m}x1000x500");
            let params = [
                ("precision", "f32"),
                ("variant", "gemv-x8-c1-wg64-ks1-wgmem"),
            ];
            let mut r = ok(&id, "matmul", &params, 8.0);
            for (key, v) in [("m", m), ("n", 1000), ("k", 500)] {
                r.params.insert(key.to_string(), v.into());
            }
            r
        };
        let mut read = ok(
            "stream/read/vec4-f32/64MiB",
            "stream",
            &[("kernel", "read")],
            25.0,
        );
        read.metric = MetricKind::Bandwidth;
        read.work = Work::bytes(64 << 20, 16 << 20);
        (product(1), product(64), read)
    }

    #[test]
    fn small_m_products_report_b_read_and_its_fraction_of_stream_read() {
        let (one, big, mut read) = small_m_fixture();
        let derived = small_m_bandwidth(&[one.clone(), big], std::slice::from_ref(&read));
        // 8 GFLOP/s of 2 x 1 x 1000 x 500 flops = 8000 products/s, each reading 2 MB of B.
        let ids: Vec<&str> = derived.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "matmul/f32/1x1000x500/b-read/fraction-of-stream-read",
                "matmul/f32/1x1000x500/b-read"
            ]
        );
        assert_eq!(derived[1].median(), Some(16.0));
        assert_eq!(derived[0].median(), Some(80.0));
        // Slower than the stream read: B may have come from memory or a cache; neither is said.
        assert!(!derived[1].params.contains_key("cache_resident"));
        // B read faster than the stream kernel reads memory is flagged as cache-resident.
        read.summary = summarize(&[10.0, 10.0]);
        let fast = small_m_bandwidth(std::slice::from_ref(&one), std::slice::from_ref(&read));
        assert_eq!(fast[1].params["cache_resident"], true);
        assert!(
            fast[0].params["cache_note"]
                .as_str()
                .is_some_and(|n| n.contains("cache"))
        );
        assert_eq!(
            small_m_bandwidth(std::slice::from_ref(&one), &[]).len(),
            1,
            "no stream, no fraction"
        );
    }

    #[test]
    fn a_product_shorter_than_a_dispatch_warns_its_b_read_and_states_no_fraction() {
        let (mut fast_one, _, mut read) = small_m_fixture();
        read.summary = summarize(&[10.0, 10.0]);
        // 8 TFLOP/s: 8 million products a second, 0.125 us each, far under a dispatch's 50
        // us: the b-read row is warned and the fraction skipped saying why.
        fast_one.summary = summarize(&[8000.0, 8000.0]);
        let short = small_m_bandwidth(std::slice::from_ref(&fast_one), std::slice::from_ref(&read));
        assert_eq!(short[0].status, Status::Skipped);
        let reason = short[0].reason.clone().unwrap_or_default();
        assert!(reason.contains("dispatches are short"), "{reason}");
        assert_eq!(short[1].status, Status::Ok);
        assert!(
            short[1]
                .warnings
                .iter()
                .any(|w| w.kind == gpubench_results::warnings::WarningKind::ShortDispatches)
        );
        // B read at 16 TB/s, faster than the stream read's 8 GB/s: a cache, short or not;
        // slower than a stream read of 80 TB/s, a short product says nothing of where B was.
        assert_eq!(short[1].params["cache_resident"], true);
        read.summary = summarize(&[1e5, 1e5]);
        let unknown = small_m_bandwidth(&[fast_one], &[read]);
        assert!(!unknown[1].params.contains_key("cache_resident"));
    }

    #[test]
    fn the_largest_square_in_f32_and_f16_is_tuned_first() {
        for (profile, software) in [
            (Profile::Default, false),
            (Profile::Full, false),
            (Profile::Default, true),
            (Profile::Quick, true),
        ] {
            let order = products(profile, software, &[(8, 64, 64)]);
            let largest = order
                .iter()
                .map(|(s, _)| s.flops())
                .max()
                .expect("products");
            assert_eq!(order[0].0.flops(), largest, "{profile:?}");
            assert_eq!(order[0].0.m, order[0].0.n, "a square first");
            assert_eq!((order[0].1, order[1].1), (Precision::F32, Precision::F16));
            assert_eq!(order[0].0, order[1].0);
            assert_eq!(order.last().map(|p| p.0), Some(Shape::new(8, 64, 64)));
        }
        let gpu = products(Profile::Default, false, &[]);
        assert_eq!(gpu[0].0, Shape::new(4096, 4096, 4096));
        let squares: Vec<u64> = gpu
            .iter()
            .filter(|(s, _)| s.m == s.n)
            .map(|(s, _)| s.flops())
            .collect();
        assert!(
            squares.windows(2).all(|w| w[0] >= w[1]),
            "squares largest first"
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

/// The GPU check's plan (scripts/check-plan-h200.json) restates how many candidates each
/// product tunes on an H200, for its time prediction: held here to the suite's own selection.
#[cfg(test)]
mod check_plan {
    use super::*;

    /// An H200 through Vulkan: 32-lane subgroups, 1024 invocations and 48 KiB of workgroup
    /// memory per workgroup, 16 x 16 f16 matrices with f16 or f32 sums.
    fn h200() -> AdapterFacts {
        use gpubench_harness::kit::facts::CoopMatrices;
        AdapterFacts {
            vendor: 0x10de,
            coop: CoopMatrices::NONE
                .with(16, Precision::F16, Precision::F16)
                .with(16, Precision::F16, Precision::F32),
            ..AdapterFacts::vulkan_gpu(32, 1024, 48 * 1024)
        }
    }

    /// (shape label, precision, tuned candidates, cooperative-matrix candidates) per product of
    /// the default profile on the H200, in run order.
    fn tuned_on_h200() -> Vec<(String, &'static str, usize, usize)> {
        products(Profile::Default, false, &[])
            .into_iter()
            .map(|(shape, precision)| {
                let kept =
                    |space: Vec<Candidate>| space.iter().filter(|c| c.pruned.is_none()).count();
                let tuned = kept(candidates(h200(), precision, shape));
                let coop = match coop::too_few_rows(shape.m) {
                    Some(_) => 0,
                    None => kept(coop::candidates(h200(), precision)),
                };
                (shape.label(), precision.name(), tuned, coop)
            })
            .collect()
    }

    #[test]
    fn the_plan_states_the_suites_own_candidate_counts() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scripts/check-plan-h200.json"
        );
        let text = std::fs::read_to_string(path).expect("the check's plan is committed");
        let plan: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let stated: Vec<(String, String, usize, usize)> = plan["matmul_products"]
            .as_array()
            .expect("matmul_products")
            .iter()
            .map(|p| {
                let count = |k: &str| p[k].as_u64().expect("a count") as usize;
                let text = |k: &str| p[k].as_str().expect("a string").to_string();
                (
                    text("shape"),
                    text("precision"),
                    count("candidates"),
                    count("coop"),
                )
            })
            .collect();
        let own: Vec<(String, String, usize, usize)> = tuned_on_h200()
            .into_iter()
            .map(|(s, p, t, c)| (s, p.to_string(), t, c))
            .collect();
        assert_eq!(
            stated, own,
            "update scripts/check-plan-h200.json from the suite"
        );
    }
}
