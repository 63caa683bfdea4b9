//! The roofline suite: one kernel swept over arithmetic intensity, from memory-bound to
//! compute-bound, and the ceilings and ridge point derived from the sweep.
//!
//! Each point reads an array of `vec4<f32>` once and applies `FMAS` multiply-adds to every
//! element (intensity = 8 FMAS FLOP / 16 bytes). Its result is GFLOP/s with the intensity in
//! params. The derived results are the bandwidth ceiling (best GB/s of any point, or the stream
//! suite's best when it ran and did better), the compute ceiling (best GFLOP/s of any point,
//! or the compute suite's f32 peak when higher), and the ridge point: compute / bandwidth, the
//! intensity above which this adapter is compute-bound.
//!
//! A bandwidth ceiling measured in a cache is no ceiling for arrays that are not: on a GPU the
//! array is at least 4x the last-level cache assumed for the adapter's type ([`roofline_size`]),
//! and a stream result raises the ceiling only from the stream suite's largest arrays, and only
//! when those are no smaller than the roofline's own.

#[cfg(test)]
mod on_an_adapter;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use gpubench_harness::{
    BenchError, BenchResult, BenchmarkInfo, GpuContext, Kernel, KernelBench, MetricKind, Outcome,
    Profile, Role, SampleClock, Status, Verification, Work,
};
use gpubench_results::chart;
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::{KIB, MIB, format_size};

// The chains are the compute peak's: multiplier 1 and addend 2^-10, so every value stays exact
// (see roofline.wgsl).
use gpubench_engine::SuiteInfo;
use gpubench_engine::SuiteOptions;
use gpubench_engine::{Benchmarks, Suite};
use gpubench_harness::kit::derived::{derived_result, param_str};
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::fma::{A, B, Chain, FmaDispatch, measured_peak_of_chain};
use gpubench_harness::kit::forms::{KernelForm, KernelForms};
use gpubench_harness::kit::gpu::{
    Precision, SpecialisedShader, check_binding_fits, grid_workgroups,
};
use gpubench_harness::kit::sizing::AdapterClass;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "one kernel swept over arithmetic intensity, with ceilings and ridge point";

/// roofline.wgsl: the roofline kernel, FMAS multiply-adds per vec4 read.
pub const WGSL: &str = include_str!("roofline.wgsl");

const WORKGROUP: u32 = 256;
/// Bytes per element.
const VEC4: u64 = 16;
/// Groups of four elements each invocation handles on an adapter of `class`; each invocation
/// also writes one vec4, traffic the sweep's bytes (reads) leave out. On lavapipe 16 groups
/// read at a fifth of the stream kernels' bandwidth and 2 (8 elements, as the stream read
/// kernel) reach it, at one vec4 written per eight read. A GPU keeps thousands of loads in
/// flight either way (16 groups of a 1 GiB array still make a million invocations), and at 16
/// it writes one vec4 per 64 read: its read bandwidth, the ceiling, is then the memory's
/// within 2%, not an eighth under it.
fn groups_per_invocation(class: AdapterClass) -> u64 {
    match class {
        AdapterClass::Software => 2,
        AdapterClass::Integrated | AdapterClass::Discrete => 16,
    }
}

/// Multiply-adds per loaded vec4 for each point of the sweep.
pub const FMAS_SWEEP: [u32; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// FLOP per byte read at `fmas` multiply-adds per vec4.
pub fn intensity(fmas: u32) -> f64 {
    f64::from(fmas) * 8.0 / VEC4 as f64
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    groups: u32,
    threads: u32,
    a: f32,
    b: f32,
}

/// What set-up made: the dispatch and its grid.
pub struct RooflineState {
    fma: FmaDispatch,
    workgroups: u32,
}

/// The swept array's host copy and each invocation's sums over it, each made on first use and
/// shared by every point of the sweep: the points read the same array, and making it per point
/// (1 GiB of random floats on a GPU) cost 2.7 s of host time a point, its full reference sum
/// another 0.9 s.
pub struct RooflineInput {
    bytes: u64,
    seed: u64,
    values: OnceLock<Vec<f32>>,
    sums: OnceLock<BaseSums>,
}

impl RooflineInput {
    /// The array of `bytes` from `seed` (made when first asked for), shared through the `Arc`.
    pub fn new(bytes: u64, seed: u64) -> Arc<Self> {
        Arc::new(Self {
            bytes,
            seed,
            values: OnceLock::new(),
            sums: OnceLock::new(),
        })
    }

    /// Bytes of the array.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The array's floats: multiples of 2^-10 in [-1, 1), random, never all zero, and exact
    /// through the chain.
    pub fn values(&self) -> &[f32] {
        self.values.get_or_init(|| {
            let mut rng = SplitMix64::new(self.seed);
            (0..self.bytes / 4)
                .map(|_| (rng.next_below(2048) as f32 - 1024.0) / 1024.0)
                .collect()
        })
    }

    /// What each of `threads` invocations writes at `fmas` multiply-adds per element
    /// ([`expected_sums`]), from sums over the array made once for the sweep's grid.
    pub fn expected(&self, threads: usize, fmas: u32) -> Vec<f64> {
        let sums = self
            .sums
            .get_or_init(|| BaseSums::new(self.values(), threads));
        if sums.threads == threads {
            sums.expected(fmas)
        } else {
            // Another grid than the first point's (none in a suite run): its own sums.
            BaseSums::new(self.values(), threads).expected(fmas)
        }
    }
}

/// Each invocation's sum of the elements it reads, per component, before any multiply-add.
///
/// With a = 1 and b = 2^-10 each chain ends exactly at x + fmas x b (roofline.wgsl), so an
/// invocation that reads `count` groups of four elements writes, per component, its base sum
/// plus 4 x count x fmas x b. Every term and partial sum is a multiple of 2^-10 far inside
/// f64's integers (below 2^43 steps), so this is the full sum bit for bit, in O(threads) per
/// point instead of a pass over the array.
struct BaseSums {
    threads: usize,
    groups: usize,
    sums: Vec<f64>,
}

impl BaseSums {
    fn new(input: &[f32], threads: usize) -> Self {
        let groups = input.len() / 16;
        let mut sums = vec![0.0f64; threads * 4];
        for i in 0..groups {
            let t = i % threads;
            for part in 0..4 {
                let element = i + part * groups;
                for c in 0..4 {
                    sums[t * 4 + c] += f64::from(input[element * 4 + c]);
                }
            }
        }
        Self {
            threads,
            groups,
            sums,
        }
    }

    /// Groups invocation `t` reads: the grid strides over them.
    fn count(&self, t: usize) -> usize {
        self.groups / self.threads + usize::from(t < self.groups % self.threads)
    }

    fn expected(&self, fmas: u32) -> Vec<f64> {
        let shift = f64::from(fmas) * f64::from(B);
        self.sums
            .iter()
            .enumerate()
            .map(|(j, &sum)| sum + (4 * self.count(j / 4)) as f64 * shift)
            .collect()
    }
}

impl RooflineState {
    fn threads(&self) -> u64 {
        u64::from(self.workgroups) * u64::from(WORKGROUP)
    }
}

/// One point of the sweep: `fmas` multiply-adds per vec4 over an array of `bytes`.
pub struct RooflinePoint {
    fmas: u32,
    bytes: u64,
    input: Arc<RooflineInput>,
    size_rule: Option<String>,
}

impl RooflinePoint {
    /// A point over `bytes` (a multiple of 64) with `fmas` multiply-adds per element.
    pub fn new(fmas: u32, bytes: u64, seed: u64) -> Self {
        Self::sharing(fmas, RooflineInput::new(bytes, seed))
    }

    /// A point over `input`'s array, which the other points of a sweep share.
    pub fn sharing(fmas: u32, input: Arc<RooflineInput>) -> Self {
        Self {
            fmas,
            bytes: input.bytes(),
            input,
            size_rule: None,
        }
    }

    /// The same point, recording in its params how its array size was chosen.
    pub fn sized_by(mut self, rule: impl Into<String>) -> Self {
        self.size_rule = Some(rule.into());
        self
    }

    fn groups(&self) -> u64 {
        self.bytes / VEC4 / 4
    }

    fn id(&self) -> String {
        format!(
            "roofline/fma{}/vec4-f32/{}",
            self.fmas,
            format_size(self.bytes)
        )
    }

    /// The shader its pipeline compiles: roofline.wgsl as written, with the point's multiply-adds
    /// per vec4 as the `FMAS` pipeline constant.
    pub fn shader(&self) -> SpecialisedShader {
        SpecialisedShader {
            source: crate::roofline::WGSL.to_string(),
            entry: "roofline".to_string(),
            constants: vec![("FMAS", f64::from(self.fmas))],
        }
    }
}

impl Kernel for RooflinePoint {
    type State = RooflineState;

    fn info(&self) -> BenchmarkInfo {
        let info = BenchmarkInfo::new(
            self.id(),
            "roofline",
            MetricKind::Throughput,
            "floating-point operations per second (an FMA counts as 2) at a fixed FLOP per byte",
        )
        .param("fmas_per_vec4", self.fmas)
        .param(chart::INTENSITY, intensity(self.fmas))
        .param("precision", Precision::F32.name())
        .param("array_bytes", self.bytes)
        .param("array_size", format_size(self.bytes));
        match &self.size_rule {
            Some(rule) => info.param("size_rule", rule.as_str()),
            None => info,
        }
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        check_binding_fits(ctx, self.bytes, "roofline array")
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<RooflineState> {
        let groups = u32::try_from(self.groups())
            .map_err(|_| BenchError::Unsupported("array too long for u32 indexing".into()))?;
        let per_invocation = groups_per_invocation(AdapterClass::of(ctx));
        let workgroups = grid_workgroups(ctx, u64::from(groups), WORKGROUP, per_invocation);
        let threads = workgroups * WORKGROUP;
        let params = Params {
            groups,
            threads,
            a: A,
            b: B,
        };
        let fma = FmaDispatch::new(
            ctx,
            &self.id(),
            &self.shader(),
            bytemuck::bytes_of(&params),
            &[self.input.values()],
            threads as usize * 4,
            (workgroups, 1),
        );
        Ok(RooflineState { fma, workgroups })
    }

    fn work(&self, state: &RooflineState) -> Work {
        let elements = self.bytes / VEC4;
        Work::flops(elements * 4 * 2 * u64::from(self.fmas))
            .with_bytes(self.bytes, state.threads() * VEC4)
    }

    async fn run(&self, state: &mut RooflineState, clock: &mut SampleClock<'_>) -> Outcome {
        state.fma.run(clock)
    }

    async fn verify(&self, state: &mut RooflineState, ctx: &GpuContext) -> Outcome<Verification> {
        let want = self.input.expected(state.threads() as usize, self.fmas);
        state
            .fma
            .verify_exact(ctx, &want, |i| {
                format!("invocation {}, component {}", i / 4, i % 4)
            })
            .await
    }
}

/// What each invocation writes: for each component, the sum over its elements of
/// `x + fmas * b` (a = 1), for `threads` invocations striding over groups of four.
pub fn expected_sums(input: &[f32], threads: usize, fmas: u32) -> Vec<f64> {
    BaseSums::new(input, threads).expected(fmas)
}

/// The swept array's size and the rule that chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RooflineSize {
    /// Bytes of the array (a power of two).
    pub bytes: u64,
    /// How the size was chosen, in words (recorded in params).
    pub rule: String,
}

/// The swept array's size on an adapter of `class` whose storage bindings and buffers may be
/// `limit` bytes: on a GPU at least 4x its class's assumed last-level cache (1 GiB on a
/// discrete GPU, 512 MiB on an integrated one: 4x rounded up to a power of two), in every
/// profile; on a software adapter 16 MiB for quick runs and 64 MiB otherwise, so CI stays fast.
/// Capped by `limit`, rounded down to a power of two.
pub fn roofline_size(class: AdapterClass, profile: Profile, limit: u64) -> RooflineSize {
    let (wanted, mut rule) = match class.assumed_llc_bytes() {
        Some(llc) => (
            (4 * llc).next_power_of_two(),
            format!(
                "at least 4x the last-level cache assumed for a {} GPU ({})",
                class.name(),
                format_size(llc)
            ),
        ),
        None => {
            let bytes = if profile == Profile::Quick { 16 } else { 64 } * MIB;
            let rule = format!("software adapter, {} profile: kept small", profile.name());
            (bytes, rule)
        }
    };
    let cap = wanted.min(limit).max(64 * KIB);
    let bytes = 1u64 << (63 - cap.leading_zeros());
    if bytes < wanted {
        rule.push_str(&format!(
            ", capped by the adapter's binding limit ({})",
            format_size(limit)
        ));
    }
    RooflineSize { bytes, rule }
}

/// The swept array's size on `ctx` for `profile` ([`roofline_size`]).
pub fn roofline_size_on(ctx: &GpuContext, profile: Profile) -> RooflineSize {
    let limit = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
    roofline_size(AdapterClass::of(ctx), profile, limit)
}

/// The roofline suite.
pub struct RooflineSuite;

impl Suite for RooflineSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("roofline", ABOUT)
            .after(&["stream", "compute"])
            .shaders(&[("roofline.wgsl", WGSL)])
    }

    fn pipelines(&self, _facts: AdapterFacts, _profile: Profile) -> KernelForms {
        Ok(FMAS_SWEEP
            .into_iter()
            .map(|fmas| {
                let point = RooflinePoint::new(fmas, 1 << 20, 1);
                KernelForm::fixed(point.info().id, point.shader())
            })
            .collect())
    }

    fn build(&self, ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let size = roofline_size_on(ctx, options.profile);
        let input = RooflineInput::new(size.bytes, options.seed);
        let point = |fmas| RooflinePoint::sharing(fmas, input.clone()).sized_by(&size.rule);
        Ok(FMAS_SWEEP
            .iter()
            .map(|&fmas| KernelBench::boxed(point(fmas)))
            .collect())
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        derive_ceilings(results, earlier)
    }

    /// Each measured kernel is a point of the roofline sweep.
    fn chart_hint(&self, result: &BenchResult) -> Option<gpubench_results::ChartHint> {
        use gpubench_results::{ChartHint, MetricKind, Role};
        (result.role == Role::Kernel && result.metric == MetricKind::Throughput).then(|| {
            ChartHint::Roofline {
                series: "roofline sweep".into(),
            }
        })
    }
}

/// The array size a result records (`array_bytes`).
fn array_bytes(result: &BenchResult) -> Option<u64> {
    result.params.get("array_bytes")?.as_u64()
}

/// The stream suite's `read` bandwidth over its largest arrays, with its id, when those arrays
/// are at least `min_bytes` (the roofline's own): a smaller array may sit in a cache, whose
/// bandwidth is no ceiling for arrays that do not. Only `read` counts bytes as the sweep's
/// intensity does (bytes read); the other kernels count bytes written too, and the copy engine
/// and the host's memcpy are figures no kernel can use.
fn stream_best(earlier: &[BenchResult], min_bytes: u64) -> Option<(f64, String)> {
    let rows: Vec<(&BenchResult, u64)> = earlier
        .iter()
        .filter(|r| r.suite == gpubench_results::suite_names::STREAM && r.role == Role::Kernel)
        .filter(|r| param_str(r, "kernel") == Some("read"))
        .filter(|r| r.metric == MetricKind::Bandwidth && r.status == Status::Ok)
        .filter_map(|r| Some((r, array_bytes(r)?)))
        .collect();
    let largest = rows.iter().map(|&(_, bytes)| bytes).max()?;
    if largest < min_bytes {
        return None;
    }
    rows.iter()
        .filter(|&&(_, bytes)| bytes == largest)
        .filter_map(|(r, _)| Some((r.read_rate()?, r.id.clone())))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

/// `ours`, unless `other` (from another suite) is strictly higher.
fn higher(ours: (f64, String), other: Option<(f64, String)>) -> (f64, String) {
    match other {
        Some(other) if other.0 > ours.0 => other,
        _ => ours,
    }
}

/// A ceiling of the roofline: `value`, measured by the result named in `from`.
fn ceiling(
    id: &str,
    metric: MetricKind,
    role: Role,
    counts: &str,
    (value, from): &(f64, String),
) -> BenchResult {
    let mut params = BTreeMap::new();
    params.insert("from".to_string(), serde_json::Value::from(from.as_str()));
    let mut result = derived_result(id.to_string(), "roofline", metric, counts, *value, params);
    result.role = role;
    result
}

/// The sweep's points as (intensity in FLOP per byte, GFLOP/s, id).
fn sweep_points(results: &[BenchResult]) -> Vec<(f64, f64, &str)> {
    results
        .iter()
        .filter_map(|r| {
            let gflops = r.median()?;
            let fi = r.params.get(chart::INTENSITY)?.as_f64()?;
            Some((fi, gflops, r.id.as_str()))
        })
        .collect()
}

/// Bandwidth ceiling, compute ceiling and ridge point from the sweep's `results` (and the
/// stream and compute suites' results in `earlier` when they ran).
pub fn derive_ceilings(results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
    let points = sweep_points(results);
    let Some(&(bw_fi, bw_gflops, bw_id)) = points
        .iter()
        .max_by(|a, b| (a.1 / a.0).total_cmp(&(b.1 / b.0)))
    else {
        return Vec::new();
    };
    let Some(&(_, top_gflops, top_id)) = points.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Vec::new();
    };
    let own_bytes = results.iter().filter_map(array_bytes).max().unwrap_or(0);
    let stream = stream_best(earlier, own_bytes);
    let bandwidth = higher((bw_gflops / bw_fi, bw_id.to_string()), stream);
    let compute = higher(
        (top_gflops, top_id.to_string()),
        measured_peak_of_chain(earlier, Precision::F32, Chain::Multiply),
    );
    let mut ridge_params = BTreeMap::new();
    ridge_params.insert("bandwidth_gbs".to_string(), bandwidth.0.into());
    ridge_params.insert("compute_gflops".to_string(), compute.0.into());
    vec![
        ceiling(
            "roofline/ceiling/bandwidth",
            MetricKind::Bandwidth,
            Role::BandwidthCeiling,
            "best measured bytes read per second (the roofline's slanted ceiling), as the sweep's intensity counts them: the sweep's own, or the stream suite's read over arrays at least as large where higher",
            &bandwidth,
        ),
        ceiling(
            "roofline/ceiling/compute",
            MetricKind::Throughput,
            Role::ComputeCeiling,
            "best measured f32 FLOP per second of the FMA chain in the sweep's form, x = fma(x, a, b) (the roofline's flat ceiling): the sweep's own, or the compute suite's multiply-form peak where higher",
            &compute,
        ),
        derived_result(
            "roofline/ridge-point".to_string(),
            "roofline",
            MetricKind::ArithmeticIntensity,
            "intensity where the ceilings meet: compute ceiling / bandwidth ceiling",
            compute.0 / bandwidth.0,
            ridge_params,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::stats::summarize;

    fn point(fmas: u32, gflops: f64) -> BenchResult {
        let bench = RooflinePoint::new(fmas, 1 << 20, 1);
        let mut r = BenchResult::empty(&bench.info(), Status::Ok, None);
        r.verified = true;
        r.summary = summarize(&[gflops, gflops]);
        r
    }

    #[test]
    fn ceilings_and_ridge_come_from_the_sweep() {
        // 0.5 FLOP/B at 5 GFLOP/s = 10 GB/s; 128 FLOP/B at 40 GFLOP/s: ridge 4 FLOP/B.
        let results = vec![point(1, 5.0), point(2, 9.0), point(256, 40.0)];
        let derived = derive_ceilings(&results, &[]);
        let value = |id: &str| {
            derived
                .iter()
                .find(|r| r.id == id)
                .and_then(|r| r.median())
                .expect("derived")
        };
        assert!((value("roofline/ceiling/bandwidth") - 10.0).abs() < 1e-9);
        assert!((value("roofline/ceiling/compute") - 40.0).abs() < 1e-9);
        assert!((value("roofline/ridge-point") - 4.0).abs() < 1e-9);
        assert!(derive_ceilings(&[], &[]).is_empty());
    }

    fn stream_row(id: &str, role: Role, gbs: f64) -> BenchResult {
        sized_stream_row(id, role, gbs, 1 << 20)
    }

    fn sized_stream_row(id: &str, role: Role, gbs: f64, bytes: u64) -> BenchResult {
        let kernel = id.split('/').nth(1).unwrap_or_default();
        let info = BenchmarkInfo::new(id, "stream", MetricKind::Bandwidth, "bytes")
            .role(role)
            .param("kernel", kernel)
            .param("array_bytes", bytes);
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        r.work = Work::bytes(bytes, 0);
        r.verified = true;
        r.summary = summarize(&[gbs, gbs]);
        r
    }

    #[test]
    fn stream_rows_count_by_role_and_ceilings_carry_theirs() {
        // The sweep alone reaches 10 GB/s. The host's memcpy and the copy engine are faster,
        // but no kernel can use them, and triad counts bytes written too: only read's 12 GB/s
        // raises the ceiling.
        let results = vec![point(1, 5.0), point(256, 40.0)];
        let earlier = vec![
            stream_row("stream/read/vec4-f32/1MiB", Role::Kernel, 12.0),
            stream_row("stream/triad/vec4-f32/1MiB", Role::Kernel, 30.0),
            stream_row("stream/any-name/1MiB", Role::HostReference, 50.0),
            stream_row("stream/other-name/1MiB", Role::CopyEngine, 40.0),
        ];
        let derived = derive_ceilings(&results, &earlier);
        let find = |id: &str| derived.iter().find(|r| r.id == id).expect("derived");
        let bandwidth = find("roofline/ceiling/bandwidth");
        assert!((bandwidth.median().expect("ok") - 12.0).abs() < 1e-9);
        assert_eq!(
            param_str(bandwidth, "from"),
            Some("stream/read/vec4-f32/1MiB")
        );
        assert_eq!(bandwidth.role, Role::BandwidthCeiling);
        assert_eq!(find("roofline/ceiling/compute").role, Role::ComputeCeiling);
        assert_eq!(find("roofline/ridge-point").role, Role::Derived);
    }

    /// The bandwidth ceiling `derive_ceilings` gives, and the result it came from.
    fn bandwidth_ceiling(results: &[BenchResult], earlier: &[BenchResult]) -> (f64, String) {
        let derived = derive_ceilings(results, earlier);
        let ceiling = derived
            .iter()
            .find(|r| r.id == "roofline/ceiling/bandwidth")
            .expect("derived");
        let from = param_str(ceiling, "from").expect("from").to_string();
        (ceiling.median().expect("ok"), from)
    }

    #[test]
    fn a_cache_resident_stream_result_is_no_bandwidth_ceiling() {
        // The sweep (1 MiB arrays) reaches 10 GB/s. A 256 KiB triad at 90 GB/s sits in a cache;
        // only the stream suite's largest arrays (4 MiB) count, and the best of them is 12.
        let results = vec![point(1, 5.0), point(256, 40.0)];
        let earlier = vec![
            sized_stream_row("stream/read/vec4-f32/256KiB", Role::Kernel, 90.0, 256 << 10),
            sized_stream_row("stream/read/vec4-f32/4MiB", Role::Kernel, 12.0, 4 << 20),
            sized_stream_row("stream/copy/vec4-f32/4MiB", Role::Kernel, 14.0, 4 << 20),
        ];
        let (gbs, from) = bandwidth_ceiling(&results, &earlier);
        assert!((gbs - 12.0).abs() < 1e-9);
        assert_eq!(from, "stream/read/vec4-f32/4MiB");
        // A read row that wrote a vec4 of sums for every eight read counts its reads only.
        let mut with_sums = earlier[1].clone();
        with_sums.work = Work::bytes(8 << 20, 1 << 20);
        let (gbs, _) = bandwidth_ceiling(&results, &[with_sums]);
        assert!((gbs - 12.0 * 8.0 / 9.0).abs() < 1e-9, "{gbs}");
        // Stream arrays smaller than the roofline's own may sit in a cache too: the sweep's
        // ceiling stands, however fast they were.
        let small = vec![sized_stream_row(
            "stream/read/vec4-f32/512KiB",
            Role::Kernel,
            90.0,
            512 << 10,
        )];
        let (gbs, from) = bandwidth_ceiling(&results, &small);
        assert!((gbs - 10.0).abs() < 1e-9);
        assert_eq!(from, "roofline/fma1/vec4-f32/1MiB");
    }

    #[test]
    fn the_array_is_four_times_the_assumed_cache_on_a_gpu() {
        let limit = 4 << 30;
        for profile in [Profile::Quick, Profile::Default, Profile::Full] {
            let discrete = roofline_size(AdapterClass::Discrete, profile, limit);
            assert_eq!(discrete.bytes, 1 << 30, "{}", discrete.rule);
            let llc = AdapterClass::Discrete
                .assumed_llc_bytes()
                .expect("a GPU has one");
            assert!(discrete.bytes >= 4 * llc);
            assert!(discrete.rule.contains("4x") && discrete.rule.contains("256MiB"));
            let integrated = roofline_size(AdapterClass::Integrated, profile, limit);
            assert_eq!(integrated.bytes, 512 << 20);
        }
        // Capped by the binding limit (rounded down to a power of two), and saying so.
        let capped = roofline_size(AdapterClass::Discrete, Profile::Full, 768 << 20);
        assert_eq!(capped.bytes, 512 << 20);
        assert!(capped.rule.contains("capped"), "{}", capped.rule);
        // Software adapters keep CI's sizes.
        let quick = roofline_size(AdapterClass::Software, Profile::Quick, 128 << 20);
        assert_eq!(quick.bytes, 16 << 20);
        assert!(!quick.rule.contains("capped"));
        let full = roofline_size(AdapterClass::Software, Profile::Full, 128 << 20);
        assert_eq!(full.bytes, 64 << 20);
    }

    /// The old reference: every term `x + fmas * b` summed in full, per point.
    fn full_sums(input: &[f32], threads: usize, fmas: u32) -> Vec<f64> {
        let groups = input.len() / 16;
        let shift = f64::from(fmas) * f64::from(B);
        let mut want = vec![0.0f64; threads * 4];
        for i in 0..groups {
            for part in 0..4 {
                for c in 0..4 {
                    let x = f64::from(input[(i + part * groups) * 4 + c]);
                    want[(i % threads) * 4 + c] += x + shift;
                }
            }
        }
        want
    }

    #[test]
    fn the_closed_form_is_the_full_sum_bit_for_bit() {
        // 1000 groups: invocations that read 3, 4 or no groups, at every point of the sweep.
        let input = RooflineInput::new(1000 * 64, 5);
        for threads in [1, 7, 256, 333, 1024] {
            for fmas in FMAS_SWEEP {
                let full = full_sums(input.values(), threads, fmas);
                let closed = input.expected(threads, fmas);
                assert_eq!(closed.len(), full.len());
                for (j, (c, f)) in closed.iter().zip(&full).enumerate() {
                    assert_eq!(
                        c.to_bits(),
                        f.to_bits(),
                        "{threads} threads, fmas {fmas}, {j}"
                    );
                }
                assert_eq!(expected_sums(input.values(), threads, fmas), full);
            }
        }
        // The inputs are what each point made for itself before.
        let mut rng = SplitMix64::new(5);
        let own: Vec<f32> = (0..1000 * 16)
            .map(|_| (rng.next_below(2048) as f32 - 1024.0) / 1024.0)
            .collect();
        assert_eq!(input.values(), own.as_slice());
    }

    #[test]
    fn expected_sums_replay_the_chains() {
        // 2 groups of four vec4 (32 floats), 1 invocation: each component sums 8 elements.
        let input: Vec<f32> = (0..32).map(|i| i as f32 / 1024.0).collect();
        let want = expected_sums(&input, 1, 4);
        let shift = 4.0 / 1024.0;
        for c in 0..4 {
            let direct: f64 = (0..8).map(|e| f64::from(input[e * 4 + c]) + shift).sum();
            assert_eq!(want[c], direct);
        }
    }
}
