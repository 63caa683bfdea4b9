//! The memory suite: the memory hierarchy seen from a shader. Read bandwidth ([`read`]) and
//! dependent-load latency ([`chase`]: one invocation, and a subgroup's lanes on the vector path)
//! against the working set, over the same sizes from 4 KiB
//! to four times the largest cache the adapter is assumed to have, at two points per octave
//! (2^k and 1.5 x 2^k bytes; the quick profile stops at twice the cache); derived rows give each level the bandwidth curve shows
//! ([`levels`]): its size, its bandwidth and the latency measured inside it. Then workgroup
//! (shared) memory: its read bandwidth and a stride sweep that shows bank conflicts
//! ([`shared`]), and atomicAdd throughput, contended (folded by the compiler or not) and not, in
//! storage and workgroup memory ([`atomics`]).
//!
//! The largest cache: the host's own on a software adapter (its kernels run on the host CPU,
//! [`host_caches`]), else the vendor's ([`llc`]: NVIDIA 128 MiB, AMD RDNA 128 MiB, MI300
//! 256 MiB), else the adapter class's assumption (`AdapterClass::assumed_llc_bytes`: 256 MiB
//! for a discrete GPU, 96 MiB for an integrated one). The adapter's binding and buffer limits
//! cap the sweep, and a sweep that could not reach four times the cache says so, since its last
//! plateau may then be a cache rather than memory. Where the stream suite ran before, the last
//! read plateau is memory when it is within [`BEYOND_CACHES_WITHIN`] of stream's read.

pub mod atomics;
pub mod chase;
mod forms;
pub mod host_caches;
pub mod levels;
pub mod llc;
#[cfg(test)]
mod on_an_adapter;
pub mod read;
pub mod shared;

use std::collections::BTreeMap;

use gpubench_harness::{
    BenchResult, Benchmark, GpuContext, Kernel, KernelBench, MetricKind, Profile, Role, Status,
};
use gpubench_results::units::{MIB, format_size};

use gpubench_engine::SuiteOptions;
use gpubench_engine::{Benchmarks, Suite};
use gpubench_harness::kit::derived::{derived_result, derived_skipped};
use gpubench_harness::kit::sizing::AdapterClass;

pub use chase::{ChaseForm, PointerChase};
use gpubench_engine::SuiteInfo;
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::forms::KernelForms;
pub use host_caches::{HostCache, host_data_caches};
pub use levels::{BEYOND_CACHES_WITHIN, Plateau, Trend, plateaus, serves_as_memory};
pub use read::WorkingSetRead;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "read bandwidth and dependent-load latency against working-set size, with the \
                     cache levels they show; workgroup memory with a bank-conflict stride sweep; \
                     atomicAdd throughput";

/// memory.wgsl: read bandwidth and pointer-chase latency against the working set.
pub const WGSL: &str = include_str!("memory.wgsl");
/// memory_shared.wgsl: workgroup-memory bandwidth with a bank-conflict stride sweep, and atomicAdd throughput on storage and workgroup memory.
pub const SHARED_WGSL: &str = include_str!("memory_shared.wgsl");

/// One compute pipeline shared by every size of a sweep: the kernel does not depend on the
/// working set, and compiling it once instead of once per size saves most of the sweep's time
/// on a software adapter (its compiler takes tens of milliseconds a pipeline).
#[derive(Clone, Default)]
pub struct SharedPipeline(std::rc::Rc<std::cell::RefCell<Option<wgpu::ComputePipeline>>>);

impl SharedPipeline {
    /// The pipeline, built by `build` the first time.
    pub fn get_or_build(
        &self,
        build: impl FnOnce() -> wgpu::ComputePipeline,
    ) -> wgpu::ComputePipeline {
        self.0.borrow_mut().get_or_insert_with(build).clone()
    }
}

/// Threads the host offers (4 when it does not say), at most 256: a software adapter runs its
/// workgroups on them, so its grids are sized by them.
pub fn host_threads() -> u32 {
    std::thread::available_parallelism().map_or(4, |n| n.get().min(256)) as u32
}

/// Workgroups per dispatch on an adapter of `class`: `per_host_thread` times
/// [`host_threads`] on a software adapter, else `integrated` or `discrete`.
pub fn groups_by_class(
    class: AdapterClass,
    per_host_thread: u32,
    integrated: u32,
    discrete: u32,
) -> u32 {
    match class {
        AdapterClass::Software => per_host_thread * host_threads(),
        AdapterClass::Integrated => integrated,
        AdapterClass::Discrete => discrete,
    }
}

/// The smallest working set swept.
pub const SMALLEST: u64 = 4096;
/// The largest working set a software adapter sweeps, whatever its host's caches: a CPU run
/// stays within CI's minutes.
pub const SOFTWARE_CAP: u64 = 512 * MIB;
/// The largest cache assumed on a software adapter whose host says nothing of its caches.
const SOFTWARE_LLC_FALLBACK: u64 = 32 * MIB;

/// The largest set the chase walks whole before timing ([`PointerChase::warmed_within`]):
/// 4 M dependent loads, under 3 s at HBM's 600 ns; the caches assumed by vendor or class
/// (128-256 MiB) would otherwise have an unknown discrete GPU walk 512 MiB sets, 17 s each.
const WARM_WALK_MAX: u64 = 256 * MIB;

/// The working sets of a sweep from [`SMALLEST`] to `top`: 2^k and 1.5 x 2^k bytes.
pub fn working_sets(top: u64) -> Vec<u64> {
    let mut sizes = Vec::new();
    let mut size = SMALLEST;
    while size <= top {
        sizes.push(size);
        if size + size / 2 <= top {
            sizes.push(size + size / 2);
        }
        size *= 2;
    }
    sizes
}

/// What the sweep is sized from: the largest cache assumed, where that assumption comes from,
/// and the top of the sweep after the adapter's limits.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPlan {
    /// The largest cache assumed, bytes.
    pub largest_cache: u64,
    /// Where that figure comes from.
    pub cache_source: String,
    /// The largest working set swept, bytes.
    pub top: u64,
    /// Why the top is under four times the cache, when it is.
    pub capped_by: Option<String>,
}

impl SweepPlan {
    /// The plan for an adapter of `class` whose last-level cache is `gpu_llc` (bytes and
    /// source, [`llc::gpu_llc`]; `None` on a software adapter) with `limit` bytes per binding,
    /// the host's caches being `host` (used only on a software adapter), in `profile`: on a
    /// software adapter the quick profile stops at twice the largest cache (the largest sets
    /// cost the most to set up and to chase on a CPU); a GPU reaches four times it in every
    /// profile, so that its last plateau is device memory.
    pub fn new(
        class: AdapterClass,
        gpu_llc: Option<(u64, String)>,
        limit: u64,
        host: &[HostCache],
        profile: Profile,
    ) -> Self {
        let (largest_cache, cache_source) = match (gpu_llc, host.last()) {
            (Some(llc), _) => llc,
            (None, Some(cache)) => (cache.bytes, format!("the host's {}", cache.name())),
            (None, None) => (
                SOFTWARE_LLC_FALLBACK,
                "assumed: the host reports no caches".to_string(),
            ),
        };
        let wanted = 4 * largest_cache;
        let soft_cap = if class == AdapterClass::Software {
            SOFTWARE_CAP
        } else {
            u64::MAX
        };
        let quick_cap = if profile == Profile::Quick && class == AdapterClass::Software {
            2 * largest_cache
        } else {
            u64::MAX
        };
        let top = wanted.min(soft_cap).min(quick_cap).min(limit).max(SMALLEST);
        let capped_by = (top < wanted).then(|| {
            if top == quick_cap {
                "the quick profile (twice the largest cache)".to_string()
            } else if top == limit {
                format!(
                    "the adapter's storage binding limit ({})",
                    format_size(limit)
                )
            } else {
                format!("the software adapter's cap ({})", format_size(SOFTWARE_CAP))
            }
        });
        Self {
            largest_cache,
            cache_source,
            top,
            capped_by,
        }
    }

    /// The plan for `ctx`'s adapter in `profile`.
    pub fn of(ctx: &GpuContext, profile: Profile) -> Self {
        let class = AdapterClass::of(ctx);
        let limit = ctx
            .limits
            .max_storage_buffer_binding_size
            .min(ctx.limits.max_buffer_size);
        let host = if class == AdapterClass::Software {
            host_data_caches()
        } else {
            Vec::new()
        };
        let gpu_llc = llc::gpu_llc(class, ctx.summary.vendor(), &ctx.summary.name);
        Self::new(class, gpu_llc, limit, &host, profile)
    }
}

/// The memory suite: the read sweep, then the two latency sweeps, over the same working sets; then
/// workgroup-memory bandwidth with its stride sweep, and atomicAdd throughput.
pub struct MemorySuite;

impl Suite for MemorySuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("memory", ABOUT)
            // Its beyond-caches level reads stream's read rate of the same run.
            .after(&["stream"])
            .shaders(&[("memory.wgsl", WGSL), ("memory_shared.wgsl", SHARED_WGSL)])
    }

    fn pipelines(&self, _facts: AdapterFacts, _profile: Profile) -> KernelForms {
        Ok(forms::memory_forms())
    }

    fn build(&self, ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let class = AdapterClass::of(ctx);
        let plan = SweepPlan::of(ctx, options.profile);
        let seed = options.seed;
        let chunk = read::chunk_for(ctx);
        let steps = chase::steps_for(class);
        let sizes = working_sets(plan.top);
        let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
        // One read pipeline per chunk width (a wide chunk gives way on the sizes it does
        // not divide, read::chunk_fitting).
        let mut read_pipelines: BTreeMap<u32, SharedPipeline> = BTreeMap::new();
        for &bytes in &sizes {
            let groups = read::groups_for(bytes, class);
            let kernel = WorkingSetRead::new(bytes, groups, chunk, seed);
            let pipeline = read_pipelines.entry(kernel.chunk()).or_default();
            benches.push(with_plan(kernel.sharing(pipeline), &plan));
        }
        // The single-invocation chase, then the same walk by a subgroup's lanes (the vector
        // path), each with its pipeline compiled once.
        for form in [ChaseForm::Single, ChaseForm::Lanes(chunk)] {
            let pipeline = SharedPipeline::default();
            for &bytes in &sizes {
                let kernel = PointerChase::new(bytes, steps, seed)
                    .in_form(form)
                    .sharing(&pipeline)
                    .warmed_within((2 * plan.largest_cache).min(WARM_WALK_MAX));
                benches.push(with_plan(kernel, &plan));
            }
        }
        let groups = shared::groups_for(class);
        let reads = std::iter::once(shared::TileRead::Vec4)
            .chain(shared::STRIDES.iter().map(|&s| shared::TileRead::Stride(s)));
        for read in reads {
            benches.push(Box::new(KernelBench::new(shared::WorkgroupRead::new(
                read, groups, seed,
            ))));
        }
        let groups = atomics::groups_for(class);
        for target in atomics::AtomicTarget::ALL {
            benches.push(Box::new(KernelBench::new(atomics::AtomicAdds::new(
                target, groups,
            ))));
        }
        Ok(benches)
    }

    /// A read row's median time per dispatch (`dispatch_us`), and a warning when it is under
    /// the target (the stream suite's 50 us).
    fn annotate(&self, result: &mut BenchResult, _run: &gpubench_harness::RunDocument) {
        let kernel = gpubench_harness::kit::derived::param_str(result, "kernel");
        if result.role != Role::Kernel || kernel != Some("read") {
            return;
        }
        let Some(dispatch_s) = gpubench_harness::kit::sizing::median_dispatch_s(result) else {
            return;
        };
        result
            .extra
            .insert("dispatch_us".into(), (dispatch_s * 1e6).into());
        let groups = result.params.get("workgroups").and_then(|g| g.as_u64());
        if let Some(warning) = read::short_dispatch_warning(dispatch_s, groups.unwrap_or(0)) {
            result.warnings.push(warning);
        }
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        // Stream's read is device memory only over arrays past the caches: twice the largest
        // cache the sweep was sized for (stream's own default is 2x MI300X's infinity cache; on
        // a software adapter, the rule for a plateau past the host's caches).
        let largest_cache = results
            .iter()
            .find_map(|r| r.params.get("largest_cache_bytes")?.as_u64());
        let memory = stream_read(earlier, 2 * largest_cache.unwrap_or(0));
        derive_levels(results, &host_data_caches(), memory)
    }

    /// The read and chase sweeps are curves against the working set on log axes.
    fn chart_hint(&self, result: &BenchResult) -> Option<gpubench_results::ChartHint> {
        use gpubench_results::chart::{ChartHint, group};
        let kernel = result.params.get("kernel").and_then(|k| k.as_str());
        let curve = matches!(kernel, Some("read" | "chase" | "chase-lanes"));
        (result.role == gpubench_results::Role::Kernel && curve)
            .then(|| ChartHint::log_curve(group::WORKING_SET, "working_set_bytes", "kernel"))
    }
}

/// `kernel` as a benchmark whose result carries the plan's params.
fn with_plan<K: Kernel + 'static>(kernel: K, plan: &SweepPlan) -> Box<dyn Benchmark> {
    let mut bench = KernelBench::new(kernel);
    bench.info_mut().params.extend(plan_params(plan));
    Box::new(bench)
}

/// The plan as params every row of the sweep carries.
fn plan_params(plan: &SweepPlan) -> BTreeMap<String, serde_json::Value> {
    let mut params = BTreeMap::new();
    params.insert("largest_cache_bytes".into(), plan.largest_cache.into());
    params.insert(
        "largest_cache_source".into(),
        plan.cache_source.clone().into(),
    );
    params.insert("sweep_top_bytes".into(), plan.top.into());
    if let Some(why) = &plan.capped_by {
        params.insert("sweep_capped_by".into(), why.clone().into());
    }
    params
}

/// The curve of one kernel's measured rows: (working set, best sample), the best being the
/// fastest (the lowest latency, the highest bandwidth). Levels are read from these, not from
/// the medians the rows report: a shared host's other work only ever slows a sample, and a
/// neighbour's burst of a few seconds lifts the medians of a size or two and no others',
/// enough to split a level or cut it short, while each size's fastest sample stays what the
/// memory itself does. (On a quiet adapter the two differ by the rows' small spread.)
fn curve(results: &[BenchResult], kernel: &str) -> Vec<(u64, f64)> {
    results
        .iter()
        .filter(|r| r.role == Role::Kernel && r.status == Status::Ok)
        .filter(|r| gpubench_harness::kit::derived::param_str(r, "kernel") == Some(kernel))
        .filter_map(|r| {
            let bytes = r.params.get("working_set_bytes")?.as_u64()?;
            let summary = r.summary.as_ref()?;
            let best = if r.higher_is_better {
                summary.max
            } else {
                summary.min
            };
            Some((bytes, best))
        })
        .collect()
}

/// The device-memory read bandwidth the stream suite measured earlier in the run (GB/s): the
/// median read rate of its verified `read` kernel over its largest array (its reads alone: the
/// row's bandwidth counts the partial sums it writes too, 9/8 of the reads), when it ran over
/// arrays of `min_array_bytes` or more (a smaller array, `--stream-size 32MiB` say, may sit in
/// a cache, and its figure would make a cache level look like the memory).
pub fn stream_read(earlier: &[BenchResult], min_array_bytes: u64) -> Option<f64> {
    use gpubench_harness::kit::derived::param_str;
    earlier
        .iter()
        .filter(|r| r.suite == gpubench_results::suite_names::STREAM && r.role == Role::Kernel)
        .filter(|r| r.status == Status::Ok && r.verified && param_str(r, "kernel") == Some("read"))
        .filter_map(|r| Some((r.params.get("array_bytes")?.as_u64()?, r.read_rate()?)))
        .max_by_key(|(bytes, _)| *bytes)
        .filter(|(bytes, _)| *bytes >= min_array_bytes)
        .map(|(_, gbs)| gbs)
}

/// One curve's level rows: what they are called and measure.
struct Family<'a> {
    /// Id prefix: `level` (from the read curve) or `latency-level` (from the chase's).
    prefix: &'static str,
    /// Id of the plateau beyond the caches: `beyond-caches` or `latency-beyond-caches`.
    beyond: &'static str,
    /// The curve the plateaus come from, and its metric and words.
    curve: (&'a [(u64, f64)], MetricKind, &'static str, &'static str),
    /// Which way the curve goes from level to level.
    trend: Trend,
    /// The other curve, summarised over each plateau's sizes.
    other: (&'a [(u64, f64)], MetricKind, &'static str, &'static str),
    /// Device memory's figure on this curve measured by another suite (stream's read for the
    /// read curve), which decides whether the last plateau is memory.
    memory: Option<f64>,
}

/// The level rows of a memory suite's `results`, from each curve on its own: the read curve
/// gives `memory/level-k/{size,bandwidth,latency}`, the chase's
/// `memory/latency-level-k/{size,latency,bandwidth}` (on a software adapter the read kernel is
/// bound by the shader compiler's loads, not by the caches, and only the chase shows them).
/// Levels are read from each size's best sample (see [`curve`]), and their figures are the
/// medians of the best samples of the sizes on them. A curve with fewer than two plateaus
/// shows no level and gives no rows. The last plateau is `beyond-caches` when the sweep
/// reached four times the largest cache and the curve does not go on past it by a level's step
/// ([`steps_on_past`]). On a software adapter `host` names the host cache
/// each level is taken for (params `host_cache`, `host_cache_bytes`): levels and caches pair in
/// order of size, each at most once, as near in size as can be (a cache the curve shows no
/// level's step across, below one it does, takes none), and a last plateau that runs
/// to twice the largest cache or further is `beyond-caches` too (the host's memory), however
/// far the sweep went. With `stream_read` (the stream suite's read of the same run, GB/s), the
/// read curve's last plateau is `beyond-caches` when it is within [`BEYOND_CACHES_WITHIN`] of it
/// (and only then, unless it runs past the host's caches), however far the sweep went.
pub fn derive_levels(
    results: &[BenchResult],
    host: &[HostCache],
    stream_read: Option<f64>,
) -> Vec<BenchResult> {
    let bandwidth = curve(results, "read");
    let latency = curve(results, "chase");
    // The read curve's levels take their latency from the walk on the same (vector) path: on
    // AMD the single-invocation chase loads through the 16 KiB scalar cache, whose levels are
    // not the vector caches the read curve steps across. Files without it use the chase's.
    let lanes = curve(results, "chase-lanes");
    let vector_latency = if lanes.is_empty() { &latency } else { &lanes };
    let Some(first) = results.iter().find(|r| r.role == Role::Kernel) else {
        return Vec::new();
    };
    let reached_memory = !first.params.contains_key("sweep_capped_by");
    let sweep_top = first.params.get("sweep_top_bytes").and_then(|v| v.as_u64());
    let software = gpubench_harness::kit::derived::param_str(first, "largest_cache_source")
        .is_some_and(|s| s.starts_with("the host"));
    let host = if software { host } else { &[] };
    let read = (
        bandwidth.as_slice(),
        MetricKind::Bandwidth,
        "bandwidth",
        "read bandwidth over the level's working sets: the median of each one's best sample",
    );
    let chase = (
        latency.as_slice(),
        MetricKind::Latency,
        "latency",
        "dependent-load latency over the level's working sets: the median of each one's best sample (ns)",
    );
    let lanes_chase = (
        vector_latency.as_slice(),
        MetricKind::Latency,
        "latency",
        if lanes.is_empty() {
            chase.3
        } else {
            "dependent-load latency over the level's working sets, by a subgroup's lanes (the vector path the reads take): the median of each one's best sample (ns)"
        },
    );
    let families = [
        Family {
            prefix: "level",
            beyond: "beyond-caches",
            curve: read,
            trend: Trend::Falling,
            other: lanes_chase,
            memory: stream_read,
        },
        Family {
            prefix: "latency-level",
            beyond: "latency-beyond-caches",
            curve: chase,
            trend: Trend::Rising,
            other: read,
            memory: None,
        },
    ];
    families
        .iter()
        .flat_map(|family| family_rows(family, (reached_memory, sweep_top), host))
        .collect()
}

/// One curve's level rows. `planned` is whether the plan's sweep was to reach memory, and the
/// largest working set it planned: a curve whose measured sizes stop short of that (the last
/// ones failed, the device was lost) has not reached memory, whatever the plan.
fn family_rows(
    family: &Family<'_>,
    planned: (bool, Option<u64>),
    host: &[HostCache],
) -> Vec<BenchResult> {
    let found = plateaus(family.curve.0, family.trend);
    if found.len() < 2 {
        return Vec::new();
    }
    let sweep_end = family.curve.0.iter().map(|&(bytes, _)| bytes).max();
    // The largest size the plan's sweep holds (two sizes an octave, so not always its top).
    let planned_end = planned.1.and_then(|top| working_sets(top).last().copied());
    let reached_memory = planned.0 && planned_end.is_none_or(|end| sweep_end >= Some(end));
    let suite = gpubench_results::suite_names::MEMORY;
    // On a software adapter a plateau that runs to twice the host's largest cache or further is
    // no cache's: it is the host's memory, however far the sweep went.
    let largest_host_cache = host.iter().map(|c| c.bytes).max();
    let past_host_caches =
        |p: &Plateau| largest_host_cache.is_some_and(|bytes| p.last_bytes >= 2 * bytes);
    let memory_speed = |p: &Plateau| match family.memory {
        Some(figure) => serves_as_memory(p.median, figure),
        None => reached_memory && !steps_on_past(p, family.curve.0, family.trend),
    };
    let beyond =
        |k: usize| k + 1 == found.len() && (memory_speed(&found[k]) || past_host_caches(&found[k]));
    let candidates: Vec<Option<u64>> = (0..found.len())
        .map(|k| (!beyond(k) && !past_host_caches(&found[k])).then_some(found[k].last_bytes))
        .collect();
    let caches = matched_caches(&stepped_caches(host, family), &candidates);
    let mut out = Vec::new();
    for (k, plateau) in found.iter().enumerate() {
        let beyond = beyond(k);
        let name = if beyond {
            family.beyond.to_string()
        } else {
            format!("{}-{}", family.prefix, k + 1)
        };
        let mut params = BTreeMap::new();
        params.insert("first_bytes".into(), plateau.first_bytes.into());
        params.insert("last_bytes".into(), plateau.last_bytes.into());
        params.insert("points".into(), plateau.points.into());
        params.insert(
            "range".into(),
            format!(
                "{} to {}",
                format_size(plateau.first_bytes),
                format_size(plateau.last_bytes)
            )
            .into(),
        );
        if !beyond {
            if let Some(cache) = caches[k] {
                params.insert("host_cache".into(), cache.name().into());
                params.insert("host_cache_bytes".into(), cache.bytes.into());
            }
            let open_ended = Some(plateau.last_bytes) == sweep_end;
            out.push(size_row(&name, plateau, params.clone(), open_ended));
        }
        for (curve, metric, word, counts) in [family.curve, family.other] {
            let inside: Vec<f64> = curve
                .iter()
                .filter(|(b, _)| (plateau.first_bytes..=plateau.last_bytes).contains(b))
                .map(|(_, v)| *v)
                .collect();
            if let Some(median) = median(&inside) {
                out.push(derived_result(
                    format!("memory/{name}/{word}"),
                    suite,
                    metric,
                    counts,
                    median,
                    params.clone(),
                ));
            }
        }
    }
    out
}

/// A level's size row: its largest working set, KiB. A level whose plateau runs to the sweep's
/// largest working set (`open_ended`) shows no edge: the sweep stopped inside it (a binding
/// limit, the quick profile, a host cache larger than the sweep), so its size is unresolved,
/// not the sweep's end read as a cache's size.
fn size_row(
    name: &str,
    plateau: &Plateau,
    params: BTreeMap<String, serde_json::Value>,
    open_ended: bool,
) -> BenchResult {
    let id = format!("memory/{name}/size");
    let counts = "detected level size: the largest working set on the level's plateau (KiB)";
    let suite = gpubench_results::suite_names::MEMORY;
    let mut size = if open_ended {
        let reason = format!(
            "not resolved by this sweep: the level's plateau runs to the sweep's largest working \
             set ({}), so the level holds at least that much and its edge was not reached; its \
             latency and bandwidth stand",
            format_size(plateau.last_bytes)
        );
        derived_skipped(id, suite, MetricKind::Size, counts, reason, params)
    } else {
        let kib = plateau.last_bytes as f64 / 1024.0;
        derived_result(id, suite, MetricKind::Size, counts, kib, params)
    };
    // A level that holds more serves more at its speed.
    size.higher_is_better = true;
    size
}

/// The host caches a level may be taken for: a cache the curve shows no level's step across,
/// below a larger one it does show a step across, takes none. lavapipe's own cost per load can
/// hide the step from L1 to L2, and the plateau both serve is then L2's. (A last cache with no
/// step of its own keeps its claim: a guest may hold only a share of the L3, whose edge then
/// comes early.)
fn stepped_caches(host: &[HostCache], family: &Family<'_>) -> Vec<HostCache> {
    let steps = |c: &HostCache| {
        levels::step_across(family.curve.0, c.bytes, family.trend)
            .map(|step| step >= levels::LEVEL_STEP)
    };
    let hidden = |c: &HostCache| {
        steps(c) == Some(false)
            && host
                .iter()
                .any(|d| d.bytes > c.bytes && steps(d) == Some(true))
    };
    host.iter().filter(|c| !hidden(c)).copied().collect()
}

/// Whether the curve goes on past `plateau` by a level's step ([`levels::LEVEL_STEP`]) its way:
/// then the plateau is not memory, however far the sweep went. Before the read kernel staggered
/// its windows, an H200's read curve held 8.3-9.7 TB/s to 128 MiB (sets far past its 50 MiB L2,
/// served by windows read together) and fell to HBM3e's 4.8 TB/s by 512 MiB: the sweep reached
/// four times the cache it was sized for, but its last plateau was not the memory.
fn steps_on_past(plateau: &Plateau, curve: &[(u64, f64)], trend: Trend) -> bool {
    curve
        .iter()
        .filter(|&&(bytes, _)| bytes > plateau.last_bytes)
        .any(|&(_, value)| {
            let step = match trend {
                Trend::Falling => plateau.median / value,
                Trend::Rising => value / plateau.median,
            };
            step > levels::LEVEL_STEP
        })
}

/// The host cache each level is taken for: levels (their sizes; `None` for a plateau no cache
/// can be) and caches pair in order of size, each at most once, as many pairs as can be, and of
/// those pairings the one whose sizes differ least (the sum of each pair's log ratio). A level
/// the hierarchy shows beyond the caches (a TLB's reach, a step inside a cache) stays unpaired.
fn matched_caches(host: &[HostCache], levels: &[Option<u64>]) -> Vec<Option<HostCache>> {
    let mut caches = host.to_vec();
    caches.sort_by_key(|c| (c.bytes, c.level));
    let (m, n) = (caches.len(), levels.len());
    // best[i][j]: the best pairing of the first i caches with the first j levels, as (pairs,
    // total log ratio); more pairs first, then the smaller ratio.
    let better = |a: (usize, f64), b: (usize, f64)| a.0 > b.0 || (a.0 == b.0 && a.1 < b.1);
    let mut best = vec![vec![(0usize, 0.0f64); n + 1]; m + 1];
    for i in 1..=m {
        for j in 1..=n {
            let mut choice = best[i - 1][j];
            if better(best[i][j - 1], choice) {
                choice = best[i][j - 1];
            }
            if let Some(bytes) = levels[j - 1] {
                let (pairs, cost) = best[i - 1][j - 1];
                let paired = (
                    pairs + 1,
                    cost + (caches[i - 1].bytes as f64 / bytes as f64).ln().abs(),
                );
                if better(paired, choice) {
                    choice = paired;
                }
            }
            best[i][j] = choice;
        }
    }
    let mut out = vec![None; n];
    let (mut i, mut j) = (m, n);
    while i > 0 && j > 0 {
        if best[i][j] == best[i - 1][j] {
            i -= 1;
        } else if best[i][j] == best[i][j - 1] {
            j -= 1;
        } else {
            out[j - 1] = Some(caches[i - 1]);
            i -= 1;
            j -= 1;
        }
    }
    out
}

fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[mid]),
        _ => Some((sorted[mid - 1] + sorted[mid]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_has_two_points_an_octave_and_stops_at_its_top() {
        let sizes = working_sets(64 << 10);
        let kib: Vec<u64> = sizes.iter().map(|b| b / 1024).collect();
        assert_eq!(kib, [4, 6, 8, 12, 16, 24, 32, 48, 64]);
        assert_eq!(working_sets(4096), [4096]);
        assert!(sizes.iter().all(|b| b % 64 == 0), "whole chase nodes");
    }

    #[test]
    fn the_sweep_reaches_four_times_the_largest_cache_unless_a_limit_stops_it() {
        let host = [cache(1, 32 << 10), cache(3, 32 << 20)];
        let default = Profile::Default;
        let cpu = SweepPlan::new(AdapterClass::Software, None, 1 << 30, &host, default);
        assert_eq!(
            (cpu.largest_cache, cpu.top, cpu.capped_by),
            (32 << 20, 128 << 20, None)
        );
        assert_eq!(cpu.cache_source, "the host's L3");
        let fallback = || llc::gpu_llc(AdapterClass::Discrete, 0x8086, "Intel Arc A770");
        let gpu = SweepPlan::new(AdapterClass::Discrete, fallback(), 1 << 40, &host, default);
        assert_eq!((gpu.largest_cache, gpu.top), (256 << 20, 1 << 30));
        let limited = SweepPlan::new(AdapterClass::Discrete, fallback(), 128 << 20, &[], default);
        assert_eq!(limited.top, 128 << 20);
        assert!(limited.capped_by.expect("capped").contains("binding limit"));
        let unknown = SweepPlan::new(AdapterClass::Software, None, 1 << 30, &[], default);
        assert_eq!(unknown.top, 128 << 20);
        let quick = SweepPlan::new(AdapterClass::Software, None, 1 << 30, &host, Profile::Quick);
        assert_eq!(quick.top, 64 << 20);
        assert!(quick.capped_by.expect("capped").contains("quick"));
    }

    #[test]
    fn an_h200_sweeps_to_four_times_its_last_level_cache_even_in_the_quick_profile() {
        // H200: NVIDIA, 50 MiB of L2 (the table assumes 128 MiB for NVIDIA), 141 GB of HBM3e
        // and wgpu's Vulkan binding limit of 4 GiB.
        let class = AdapterClass::Discrete;
        let llc = llc::gpu_llc(class, llc::NVIDIA, "NVIDIA H200");
        for profile in [Profile::Quick, Profile::Default] {
            let plan = SweepPlan::new(class, llc.clone(), 4 << 30, &[], profile);
            assert_eq!(plan.largest_cache, 128 << 20);
            assert!(plan.top >= 4 * plan.largest_cache, "{plan:?}");
            assert!(plan.top >= 4 * (50 << 20), "4x the real L2 too: {plan:?}");
            assert_eq!(plan.capped_by, None, "{plan:?}");
            assert!(plan.cache_source.contains("NVIDIA"), "{plan:?}");
            assert_eq!(working_sets(plan.top).last(), Some(&(512 << 20)));
        }
    }

    #[test]
    fn levels_pair_with_host_caches_in_order_each_once() {
        // The chase on a guest that holds 4 MiB of its host's 32 MiB L3: 7 ns to 16 KiB, 11 ns
        // to 512 KiB, a climb to 3 MiB nearer in size to L2 than to L3, then memory, in a sweep
        // capped before four times L3.
        let sizes = working_sets(64 << 20);
        let results: Vec<BenchResult> = sizes
            .iter()
            .map(|&b| {
                let ns = match b {
                    b if b <= 16 << 10 => 7.0,
                    b if b <= 512 << 10 => 11.0,
                    b if b <= 3 << 20 => 11.0 * (b as f64 / (512 << 10) as f64).powf(0.42),
                    _ => 160.0,
                };
                row("chase", b, ns, true)
            })
            .collect();
        let host = [cache(1, 32 << 10), cache(2, 1 << 20), cache(3, 32 << 20)];
        let derived = derive_levels(&results, &host, None);
        let sizes: Vec<(&str, String)> = derived
            .iter()
            .filter(|r| r.metric == MetricKind::Size)
            .map(|r| {
                let cache = r.params.get("host_cache").and_then(|c| c.as_str());
                (r.id.as_str(), cache.unwrap_or("none").to_string())
            })
            .collect();
        assert_eq!(
            sizes,
            [
                ("memory/latency-level-1/size", "L1d".to_string()),
                ("memory/latency-level-2/size", "L2".to_string()),
                ("memory/latency-level-3/size", "L3".to_string()),
            ],
            "{derived:?}"
        );
        assert!(
            derived
                .iter()
                .any(|r| r.id == "memory/latency-beyond-caches/latency"),
            "{derived:?}"
        );
    }

    /// The latency levels of a capped chase to 128 MiB (`ns` at each working set from 4 KiB) on
    /// a 2-vCPU Xeon guest: a 48 KiB L1d, a 2 MiB L2 and a 260 MiB L3.
    fn levels_on_a_xeon_guest(ns: &[f64]) -> Vec<BenchResult> {
        let sizes = working_sets(128 << 20);
        assert_eq!(sizes.len(), ns.len());
        let results: Vec<BenchResult> = sizes
            .iter()
            .zip(ns)
            .map(|(&b, &ns)| row("chase", b, ns, true))
            .collect();
        let host = [cache(1, 48 << 10), cache(2, 2 << 20), cache(3, 260 << 20)];
        derive_levels(&results, &host, None)
    }

    #[test]
    fn a_cache_whose_step_the_chase_hides_takes_no_level() {
        // lavapipe's chase on a guest with a 48 KiB L1d, a 2 MiB L2 and a 260 MiB L3, under load
        // (ns from 4 KiB up, two sizes an octave): 7.0 to 48 KiB and 7.6 past it (a step of
        // 1.1, hidden), then the climb across L2 and a share of L3 ending near 48 MiB.
        let ns = [
            7.2, 7.1, 7.0, 7.1, 7.0, 7.0, 7.0, 7.0, 7.6, 7.6, 7.6, 7.7, 7.8, 7.9, 8.4, 8.8, 9.6,
            11.8, 22.5, 34.7, 38.8, 36.9, 40.1, 43.9, 43.4, 46.0, 49.2, 50.9, 129.7, 126.9, 139.7,
        ];
        let derived = levels_on_a_xeon_guest(&ns);
        let first = derived
            .iter()
            .find(|r| r.id == "memory/latency-level-1/size")
            .expect("a first level");
        // The first plateau runs from L1d's sizes well into L2's: it is L2's level.
        assert_eq!(first.params["first_bytes"], 4 << 10, "{derived:?}");
        assert_eq!(first.params["last_bytes"], 1 << 20, "{derived:?}");
        assert_eq!(first.params["host_cache"], "L2", "{derived:?}");
        assert!(
            !derived
                .iter()
                .any(|r| r.params.get("host_cache") == Some(&"L1d".into())),
            "{derived:?}"
        );
    }

    #[test]
    fn a_level_the_sweep_ends_inside_has_no_size_but_keeps_its_latency() {
        // lavapipe's chase (quick profile, medians in ns) on a guest with a 48 KiB L1d, a 2 MiB
        // L2 and a 260 MiB L3: the sweep stops at 128 MiB, on the plateau from 16 MiB.
        let ns = [
            9.74, 8.64, 9.60, 11.0, 13.7, 8.99, 10.1, 10.8, 10.2, 9.38, 9.62, 9.71, 9.83, 10.5,
            11.1, 14.5, 14.7, 19.4, 31.9, 44.3, 43.2, 45.7, 46.3, 90.4, 147.0, 152.0, 158.0, 153.0,
            156.0, 163.0, 177.0,
        ];
        let derived = levels_on_a_xeon_guest(&ns);
        let sizes: Vec<&BenchResult> = derived
            .iter()
            .filter(|r| r.metric == MetricKind::Size)
            .collect();
        let last = sizes.last().expect("levels");
        assert_eq!(last.params["last_bytes"], 128 << 20, "{derived:?}");
        assert_eq!(last.params["host_cache"], "L3", "{derived:?}");
        assert_eq!(last.status, Status::Skipped, "{last:?}");
        assert_eq!(last.median(), None, "{last:?}");
        let reason = last.reason.as_deref().unwrap_or("");
        assert!(
            reason.contains("at least") && reason.contains("128MiB"),
            "{reason}"
        );
        // The levels below it have their edges, and every level keeps its latency.
        assert!(
            sizes[..sizes.len() - 1]
                .iter()
                .all(|r| r.status == Status::Ok)
        );
        let latency = |size: &BenchResult| {
            let id = size.id.replace("/size", "/latency");
            derived
                .iter()
                .find(|r| r.id == id)
                .and_then(BenchResult::median)
        };
        assert!(sizes.iter().all(|s| latency(s).is_some()), "{derived:?}");
        assert!(latency(last).is_some_and(|ns| ns > 140.0), "{derived:?}");
    }

    #[test]
    fn a_level_between_caches_stays_unpaired_and_no_cache_is_named_twice() {
        let host = [cache(3, 32 << 20), cache(1, 32 << 10), cache(2, 1 << 20)];
        // A step inside L2 (where the first-level TLB's reach ends) gives a level at 384 KiB.
        let levels = [
            Some(32 << 10),
            Some(384 << 10),
            Some(1 << 20),
            Some(4 << 20),
            None,
        ];
        let names: Vec<Option<String>> = matched_caches(&host, &levels)
            .iter()
            .map(|c| c.map(|c| c.name().to_string()))
            .collect();
        let want = [Some("L1d"), None, Some("L2"), Some("L3"), None];
        assert_eq!(names, want.map(|n| n.map(str::to_string)));
        // Fewer levels than caches: each goes to the cache nearest in size, in order.
        let names: Vec<Option<String>> = matched_caches(&host, &[Some(2 << 20), Some(24 << 20)])
            .iter()
            .map(|c| c.map(|c| c.name().to_string()))
            .collect();
        assert_eq!(names, [Some("L2".to_string()), Some("L3".to_string())]);
        assert_eq!(matched_caches(&[], &levels), [None; 5]);
    }

    fn cache(level: u8, bytes: u64) -> HostCache {
        HostCache { level, bytes }
    }

    fn row(kernel: &str, bytes: u64, value: f64, capped: bool) -> BenchResult {
        row_of_samples(kernel, bytes, &[value], capped)
    }

    fn row_of_samples(kernel: &str, bytes: u64, samples: &[f64], capped: bool) -> BenchResult {
        let metric = if kernel == "read" {
            MetricKind::Bandwidth
        } else {
            MetricKind::Latency
        };
        let mut info = gpubench_harness::BenchmarkInfo::new(
            format!("memory/{kernel}/{bytes}"),
            "memory",
            metric,
            "test",
        )
        .param("kernel", kernel)
        .param("working_set_bytes", bytes)
        .param("largest_cache_source", "the host's L3");
        if capped {
            info = info.param("sweep_capped_by", "a limit");
        }
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        r.summary = gpubench_results::stats::summarize(samples);
        r.samples = samples.to_vec();
        r
    }

    #[test]
    fn a_neighbours_burst_moves_no_level_edge() {
        // L1d to 32 KiB at 1.5 ns, L2 to 1 MiB at 5 ns, then memory at 40 ns; a burst on the
        // host lifts most samples at 512 and 768 KiB to 9 ns, two of five stay at 5 ns.
        let burst = [9.0, 5.0, 9.2, 5.0, 9.1];
        let results: Vec<BenchResult> = working_sets(16 << 20)
            .into_iter()
            .map(|b| match b {
                b if b <= 32 << 10 => row("chase", b, 1.5, false),
                b if b == 512 << 10 || b == 768 << 10 => row_of_samples("chase", b, &burst, false),
                b if b <= 1 << 20 => row("chase", b, 5.0, false),
                b => row("chase", b, 40.0, false),
            })
            .collect();
        // By medians alone the burst would be a level of its own, and cut L2 short.
        let by_median: Vec<(u64, f64)> = results
            .iter()
            .filter_map(|r| Some((r.params["working_set_bytes"].as_u64()?, r.median()?)))
            .collect();
        let cut = plateaus(&by_median, Trend::Rising);
        assert!(
            cut.len() == 4 && cut[1].last_bytes == 384 << 10,
            "the burst splits L2 when read by medians: {cut:?}"
        );
        let host = [cache(1, 32 << 10), cache(2, 1 << 20)];
        let derived = derive_levels(&results, &host, None);
        let find = |id: &str| {
            derived
                .iter()
                .find(|r| r.id == id)
                .and_then(BenchResult::median)
                .unwrap_or_else(|| panic!("{id} in {derived:?}"))
        };
        assert_eq!(find("memory/latency-level-2/size"), 1024.0);
        assert!(
            !derived
                .iter()
                .any(|r| r.id.starts_with("memory/latency-level-3"))
        );
        // The levels' figures are their sizes' best samples too.
        assert_eq!(find("memory/latency-level-1/latency"), 1.5);
        assert_eq!(find("memory/latency-level-2/latency"), 5.0);
        assert_eq!(find("memory/latency-beyond-caches/latency"), 40.0);
    }

    /// A sweep to 16 MiB with a 32 KiB and a 1 MiB level, and a host with caches of those sizes.
    fn two_level_sweep() -> (Vec<BenchResult>, [HostCache; 2]) {
        let mut results = Vec::new();
        for &b in &working_sets(16 << 20) {
            let (bw, ns) = if b <= 32 << 10 {
                (100.0, 1.5)
            } else if b <= 1 << 20 {
                (50.0, 5.0)
            } else {
                (20.0, 40.0)
            };
            results.push(row("read", b, bw, false));
            results.push(row("chase", b, ns, false));
        }
        (results, [cache(1, 32 << 10), cache(2, 1 << 20)])
    }

    #[test]
    fn levels_carry_size_bandwidth_latency_and_their_host_cache() {
        let (results, host) = two_level_sweep();
        let derived = derive_levels(&results, &host, None);
        let ids: Vec<&str> = derived.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "memory/level-1/size",
                "memory/level-1/bandwidth",
                "memory/level-1/latency",
                "memory/level-2/size",
                "memory/level-2/bandwidth",
                "memory/level-2/latency",
                "memory/beyond-caches/bandwidth",
                "memory/beyond-caches/latency",
                "memory/latency-level-1/size",
                "memory/latency-level-1/latency",
                "memory/latency-level-1/bandwidth",
                "memory/latency-level-2/size",
                "memory/latency-level-2/latency",
                "memory/latency-level-2/bandwidth",
                "memory/latency-beyond-caches/latency",
                "memory/latency-beyond-caches/bandwidth",
            ]
        );
        let value = |k: usize| derived[k].median().unwrap_or(f64::NAN);
        let close = |k: usize, want: f64| (value(k) / want - 1.0).abs() < 1e-9;
        assert!(
            close(0, 32.0) && close(3, 1024.0),
            "sizes in KiB: {derived:?}"
        );
        assert!(close(1, 100.0) && close(6, 20.0), "bandwidths: {derived:?}");
        assert!(close(5, 5.0) && close(7, 40.0), "latencies: {derived:?}");
        assert_eq!(derived[0].params["host_cache"], "L1d");
        assert_eq!(derived[3].params["host_cache"], "L2");
        assert!(derived.iter().all(|r| r.role == Role::Derived));
    }

    #[test]
    fn a_sweep_whose_last_sizes_were_not_measured_has_not_reached_memory() {
        // A GPU's sweep planned to 16 MiB, but nothing past 4 MiB was measured (the device was
        // lost): the plateau from 1.5 MiB is where the curve stops, not memory.
        let (results, _) = two_level_sweep();
        let planned = |r: &BenchResult| {
            let mut r = r.clone();
            r.params
                .insert("sweep_top_bytes".into(), (16u64 << 20).into());
            r
        };
        let whole: Vec<BenchResult> = results.iter().map(planned).collect();
        let ids = |rows: &[BenchResult]| -> Vec<String> {
            derive_levels(rows, &[], None)
                .into_iter()
                .map(|r| r.id)
                .collect()
        };
        assert!(ids(&whole).contains(&"memory/latency-beyond-caches/latency".to_string()));
        let short: Vec<BenchResult> = whole
            .into_iter()
            .filter(|r| r.params["working_set_bytes"].as_u64() <= Some(4 << 20))
            .collect();
        let ids = ids(&short);
        assert!(
            !ids.iter().any(|id| id.contains("beyond-caches")),
            "{ids:?}"
        );
        assert!(
            ids.contains(&"memory/latency-level-3/size".to_string()),
            "{ids:?}"
        );
    }

    #[test]
    fn the_last_read_plateau_is_memory_when_within_the_constant_of_streams_read() {
        let (results, _) = two_level_sweep();
        let ids = |stream: Option<f64>| -> Vec<String> {
            derive_levels(&results, &[], stream)
                .into_iter()
                .map(|r| r.id)
                .collect()
        };
        let has = |ids: &[String], id: &str| ids.iter().any(|i| i == id);
        // The last plateau reads 20 GB/s; stream's read 22 GB/s (within 15%): memory.
        let near = ids(Some(22.0));
        assert!(has(&near, "memory/beyond-caches/bandwidth"), "{near:?}");
        assert!(!has(&near, "memory/level-3/size"), "{near:?}");
        // Stream reads 40 GB/s: the plateau at 20 is no memory the sweep reached, a level.
        let far = ids(Some(40.0));
        assert!(has(&far, "memory/level-3/size"), "{far:?}");
        assert!(!has(&far, "memory/beyond-caches/bandwidth"), "{far:?}");
        // The latency curve keeps the sweep's rule (this sweep was not capped).
        assert!(has(&far, "memory/latency-beyond-caches/latency"), "{far:?}");
        // Without stream the sweep's reach decides.
        assert!(has(&ids(None), "memory/beyond-caches/bandwidth"));
    }

    #[test]
    fn a_read_curve_that_falls_on_past_its_last_plateau_has_not_reached_memory() {
        // The first run on an H200 (gpubench's memory suite, 2026-12-05): read bandwidth (GB/s)
        // and the one-thread chase (ns) at every working set of the sweep, 4 KiB to 512 MiB.
        let sizes = working_sets(512 << 20);
        let read = [
            31099.0, 31117.0, 31084.0, 31006.0, 30931.0, 31065.0, 30841.0, 31009.0, 30553.0,
            30938.0, 29698.0, 24499.0, 23086.0, 23326.0, 23383.0, 22511.0, 20695.0, 18730.0,
            19347.0, 17450.0, 18373.0, 16523.0, 17440.0, 15353.0, 12478.0, 11113.0, 10170.0,
            9330.0, 9617.0, 8315.0, 9498.0, 7046.0, 6524.0, 5194.0, 4804.0,
        ];
        let chase = [
            24.0, 24.1, 24.1, 24.3, 24.4, 24.6, 24.9, 25.4, 25.8, 26.8, 27.8, 49.2, 109.0, 132.0,
            139.0, 144.0, 147.0, 148.0, 149.0, 149.0, 149.0, 149.0, 150.0, 151.0, 152.0, 153.0,
            209.0, 278.0, 325.0, 357.0, 357.0, 357.0, 357.0, 358.0, 358.0,
        ];
        assert_eq!((sizes.len(), read.len(), chase.len()), (35, 35, 35));
        let results: Vec<BenchResult> = sizes
            .iter()
            .zip(read.iter().zip(&chase))
            .flat_map(|(&b, (&gbs, &ns))| [row("read", b, gbs, false), row("chase", b, ns, false)])
            .collect();
        let ids: Vec<String> = derive_levels(&results, &[], None)
            .into_iter()
            .map(|r| r.id)
            .collect();
        let has = |id: &str| ids.iter().any(|i| i == id);
        // 9.7 TB/s from 16 to 128 MiB is not memory: the curve falls to 4.8 TB/s after it.
        assert!(!has("memory/beyond-caches/bandwidth"), "{ids:?}");
        // The chase's last plateau, 357 ns from 96 MiB to the end, is the memory.
        assert!(has("memory/latency-beyond-caches/latency"), "{ids:?}");
    }

    #[test]
    fn streams_read_is_its_largest_verified_array() {
        let row = |bytes: u64, gbs: f64, verified: bool| {
            let info = gpubench_harness::BenchmarkInfo::new(
                format!("stream/read/vec4-f32/{bytes}"),
                gpubench_results::suite_names::STREAM,
                MetricKind::Bandwidth,
                "test",
            )
            .param("kernel", "read")
            .param("array_bytes", bytes);
            let mut r = BenchResult::empty(&info, Status::Ok, None);
            r.summary = gpubench_results::stats::summarize(&[gbs, gbs]);
            r.verified = verified;
            // As stream's read counts its bytes: a vec4 of partial sums written per eight read.
            r.work.bytes_read = bytes;
            r.work.bytes_written = bytes / 8;
            r
        };
        // The row's 900 GB/s counts the writes too: its reads ran at 800.
        let earlier = [row(16 << 20, 1000.0, true), row(1 << 30, 900.0, true)];
        assert_eq!(stream_read(&earlier, 0), Some(800.0));
        assert_eq!(stream_read(&[row(1 << 30, 900.0, false)], 0), None);
        assert_eq!(stream_read(&[], 0), None);
        // Arrays under twice a 256 MiB cache may sit in it: no memory figure.
        assert_eq!(stream_read(&earlier, 512 << 20), Some(800.0));
        assert_eq!(stream_read(&earlier[..1], 512 << 20), None);
    }

    #[test]
    fn a_capped_sweep_pairs_its_last_plateau_with_a_cache_left_or_calls_it_memory() {
        let (results, host) = two_level_sweep();
        // A capped sweep does not call its last plateau memory.
        let capped: Vec<BenchResult> = results
            .iter()
            .map(|r| {
                let kernel = gpubench_harness::kit::derived::param_str(r, "kernel")
                    .unwrap_or("")
                    .to_string();
                row(
                    &kernel,
                    r.params["working_set_bytes"].as_u64().unwrap_or(0),
                    r.median().unwrap_or(0.0),
                    true,
                )
            })
            .collect();
        let with_l3 = [host[0], host[1], cache(3, 32 << 20)];
        let derived = derive_levels(&capped, &with_l3, None);
        let level_3 = derived
            .iter()
            .find(|r| r.id == "memory/level-3/size")
            .unwrap_or_else(|| panic!("a third level: {derived:?}"));
        assert_eq!(level_3.params["host_cache"], "L3");
        // Unless the host has no cache left for it: then it is the host's memory.
        let ids: Vec<String> = derive_levels(&capped, &host, None)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert!(
            ids.contains(&"memory/beyond-caches/bandwidth".to_string())
                && !ids.iter().any(|id| id.starts_with("memory/level-3/")),
            "{ids:?}"
        );
        // Without host caches to pair with, a capped sweep's last plateau stays a level.
        let ids: Vec<String> = derive_levels(&capped, &[], None)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert!(ids.contains(&"memory/level-3/size".to_string()), "{ids:?}");
        // A flat curve shows no level.
        let flat: Vec<BenchResult> = working_sets(16 << 20)
            .into_iter()
            .map(|b| row("read", b, 5.0, false))
            .collect();
        assert!(derive_levels(&flat, &host, None).is_empty());
    }
}
