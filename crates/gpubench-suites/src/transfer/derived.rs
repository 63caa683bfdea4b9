//! The transfer suite's derived results: per path, the fit of `t = fixed + bytes / bandwidth`
//! over the verified sizes (see [`crate::transfer::fit`]), reported as three results (fixed cost,
//! asymptotic bandwidth, half-bandwidth size) with bootstrap intervals, the GPU-side fit of the
//! copy alone where timestamps bracketed it inside an end-to-end transfer, and, where the
//! path goes at the host's pace (end to end, host write), its fraction of the host's memcpy
//! (a comparison, not a bound). Each
//! path is fitted to its headline clock (host time end to end, GPU time per copy, host time
//! per memcpy: `fitted_from` says which).
//!
//! The fitted rows say what their sizes say of where the buffers live and whether the bytes
//! cross the link (the placement params, [`is_placement_param`]), where every fitted size says
//! the same; sizes that disagree are not fitted as one path.

use gpubench_results::warnings::{FigureUnit, OwnedKind, WarningRecord};
use std::collections::BTreeMap;

use gpubench_harness::{BenchResult, BenchmarkInfo, MetricKind, Role, Status};
use gpubench_results::stats::{self, Summary};
use gpubench_results::units::{KIB, format_size};

use super::{FIT_RESAMPLES, FIT_SEED, MIN_FIT_SIZES, Measures, POOR_FIT, TransferPath};
use crate::transfer::fit::{self, SizeSamples, TransferModel};
use gpubench_harness::kit::placement::is_placement_param;

/// A row's params, by name.
type Params = BTreeMap<String, serde_json::Value>;

/// This suite's warning: a fit left unverified sizes out; figure: the sizes fitted.
pub const PARTIAL_FIT: OwnedKind = OwnedKind::new(
    "partial-fit",
    "fitted over some sizes only",
    FigureUnit::Count,
);

/// This suite's warning: the free fit gave a negative fixed cost and was refitted through the
/// origin.
pub const FIT_THROUGH_ORIGIN: OwnedKind = OwnedKind::new(
    "fit-through-origin",
    "fit refitted through the origin",
    FigureUnit::Count,
);

/// Every path's fitted results from the suite's `results`; `earlier` may hold stream's host
/// memcpy row, the reference for the fitted bandwidth.
pub fn derive(results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
    let memcpy = host_memcpy_reference(earlier);
    TransferPath::ALL
        .iter()
        .flat_map(|&path| derive_path(path, results, memcpy))
        .collect()
}

/// The host's own copy rate in bytes moved once per second (GB/s), from the stream suite's
/// largest verified host-memcpy row (its [`Role::HostReference`] row) when it ran earlier: what
/// a path that copies through host memory is compared with (not a bound: stores into
/// write-combined device memory are not limited by a memcpy between two host buffers). Stream
/// counts read plus written, so its number is halved here.
fn host_memcpy_reference(earlier: &[BenchResult]) -> Option<f64> {
    earlier
        .iter()
        .filter(|r| {
            r.suite == gpubench_results::suite_names::STREAM && r.role == Role::HostReference
        })
        .filter(|r| r.metric == MetricKind::Bandwidth)
        .filter(|r| r.status == Status::Ok && r.verified)
        .max_by_key(|r| r.work.total_bytes())
        .and_then(BenchResult::median)
        .map(|read_plus_written| read_plus_written / 2.0)
}

/// The rows of `path` among `results`, and those of them a fit may use: ok, verified and
/// summarised.
fn rows_of(path: TransferPath, results: &[BenchResult]) -> (Vec<&BenchResult>, Vec<&BenchResult>) {
    let mine: Vec<&BenchResult> = results
        .iter()
        .filter(|r| r.params.get("path").and_then(|p| p.as_str()) == Some(path.name()))
        .collect();
    let usable = mine
        .iter()
        .copied()
        .filter(|r| r.status == Status::Ok && r.verified && r.summary.is_some())
        .collect();
    (mine, usable)
}

/// The three fitted results of one path: fixed cost, asymptotic bandwidth, half-bandwidth size.
fn derive_path(
    path: TransferPath,
    results: &[BenchResult],
    host_memcpy_gbs: Option<f64>,
) -> Vec<BenchResult> {
    let (mine, usable) = rows_of(path, results);
    if mine.is_empty() {
        return Vec::new();
    }
    let infos = match agreed_placement(&usable) {
        Ok(placement) => fitted_infos(path, &placement),
        Err(reason) => {
            return skip_all(&fitted_infos(path, &Params::new()), &reason, Params::new());
        }
    };
    let host = size_samples(&usable, |r| &r.samples);
    let points = fit::median_points(&host);
    let model = match line_through(&points) {
        Ok(model) => model,
        Err(reason) => return skip_all(&infos, &reason, BTreeMap::new()),
    };
    // The copy (or kernel) alone by GPU timestamps, where an end-to-end path has them: host
    // minus GPU is staging, mapping, submit and wait.
    let gpu = size_samples(&usable, |r| &r.gpu_samples);
    let gpu_model = (path.gpu_timed() && gpu.len() == host.len())
        .then(|| fit::fit(&fit::median_points(&gpu)).ok())
        .flatten();
    let residual = model.max_relative_residual(&points);
    let extra = fit_extra(
        path,
        (&model, &points, residual),
        gpu_model,
        host_memcpy_gbs,
    );
    if let Some(reason) = poor_fit(residual) {
        return skip_all(&infos, &reason, extra);
    }
    let warnings = fit_warnings(&model, usable.len(), mine.len());
    let values = fitted_values(&model, &host);
    let extrapolated = extrapolation(&model, &points);
    infos
        .iter()
        .zip(values)
        .enumerate()
        .map(|(k, (info, (value, interval)))| {
            // The bandwidth and the half-bandwidth size rest on the asymptote; the fixed cost
            // is read from the small sizes and stands.
            if let Some(reason) = extrapolated.as_ref().filter(|_| k > 0) {
                let mut r = fitted_skip(info, reason);
                r.extra = extra.clone();
                return r;
            }
            // A fit forced through the origin has no fixed cost to report: the sweep did not
            // resolve one (the free intercept came out negative), and a 0 would read as a
            // measured "no fixed cost". Only the bandwidth is a result then.
            if !(value > 0.0 && value.is_finite()) {
                let reason = format!(
                    "not resolved by this sweep: the fitted {} is {value} (the free intercept was negative, so the fit went through the origin); the bandwidth fit stands",
                    info.id.rsplit('/').next().unwrap_or("value")
                );
                return fitted_skip(info, &reason);
            }
            let mut r = fitted_shell(info, Status::Ok);
            // Fitted over verified sizes only.
            r.verified = true;
            // No timing source of its own: a fit is derived from host-timed results (said in
            // `extra`), and comparisons give derived values a ratio, not a verdict.
            r.summary = fitted_summary(value, interval);
            r.samples = vec![value];
            r.extra = extra.clone();
            r.warnings = warnings.clone();
            r
        })
        .collect()
}

/// The placement params every one of `rows` (a path's fitted sizes) carries alike, for its
/// fitted rows to carry too; or why the sizes are not fitted as one path: they disagree (some
/// sizes' buffers in device memory, others fallen back to host memory or unknown), and a line
/// through a mix describes none of them.
fn agreed_placement(rows: &[&BenchResult]) -> Result<Params, String> {
    let of = |r: &BenchResult| -> Params {
        r.params
            .iter()
            .filter(|(key, _)| is_placement_param(key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    };
    let Some(first) = rows.first() else {
        return Ok(Params::new());
    };
    let agreed = of(first);
    let Some(other) = rows.iter().find(|r| of(r) != agreed) else {
        return Ok(agreed);
    };
    let theirs = of(other);
    let differs: Vec<&String> = agreed
        .keys()
        .chain(theirs.keys())
        .filter(|key| agreed.get(*key) != theirs.get(*key))
        .collect();
    // Where a buffer lives (staging_memory: bar, unknown) says it best, then any other
    // one-word param (crosses_link); a detail only where nothing else differs.
    let key = differs
        .iter()
        .find(|key| key.ends_with("_memory"))
        .or_else(|| differs.iter().find(|key| !key.ends_with("_detail")))
        .or(differs.first())
        .map_or("", |key| key.as_str());
    let value = |params: &Params| {
        params
            .get(key)
            .map_or("not recorded".to_string(), |v| match v.as_str() {
                Some(text) => text.to_string(),
                None => v.to_string(),
            })
    };
    Err(format!(
        "not fitted: its sizes disagree on where their buffers live ({key} is {} at {} but {} at {}), and a line through sizes in different memories describes none of them; read the per-size rows, each of which says where its buffers live",
        value(&agreed),
        size_name(first),
        value(&theirs),
        size_name(other)
    ))
}

/// A per-size row's size as its id writes it (`4MiB`), or its bytes.
fn size_name(r: &BenchResult) -> String {
    match r.params.get("size").and_then(serde_json::Value::as_str) {
        Some(size) => size.to_string(),
        None => format!("{} bytes", r.work.total_bytes()),
    }
}

/// The line through the sweep's `points`, or why there is none: no fit, or too few sizes for a
/// fit to show anything (a line through two points fits them whatever they are).
fn line_through(points: &[fit::Point]) -> Result<TransferModel, String> {
    let sizes = points.len();
    match fit::fit(points) {
        Ok(_) if sizes < MIN_FIT_SIZES => Err(format!(
            "no fit over {sizes} verified sizes: a line through fewer than {MIN_FIT_SIZES} sizes fits them whatever they are, so it cannot show that it describes the path"
        )),
        Ok(model) => Ok(model),
        Err(error) => Err(format!("no fit over {sizes} verified sizes: {error}")),
    }
}

/// Why a fit whose worst size is `residual` off the line is no result, where it is further than
/// [`POOR_FIT`]: the interval of a fitted value is the model's, given the line, and when the
/// line does not describe the sweep neither the interval nor the value says anything.
fn poor_fit(residual: f64) -> Option<String> {
    (residual > POOR_FIT).then(|| {
        format!(
            "not resolved by this sweep: a line t = fixed + bytes / bandwidth fits it poorly (a size is {:.0}% off the model, beyond the {:.0}% a fit is held to): its bandwidth changes with size beyond a fixed cost (caches, allocation per transfer); the per-size rows stand",
            residual * 100.0,
            POOR_FIT * 100.0
        )
    })
}

/// The least share of the fitted asymptote the sweep's largest size must reach for the
/// asymptote to be a measurement: sizes to four times the half-bandwidth size.
const REACHED_MIN: f64 = 0.8;

/// Why the fitted asymptote is an extrapolation, where the sweep's largest size reached less
/// than [`REACHED_MIN`] of it (a quick sweep to 4 MiB of a path whose half-bandwidth size is
/// 2 MiB reached two thirds: its asymptote lies beyond every size measured).
fn extrapolation(model: &TransferModel, points: &[fit::Point]) -> Option<String> {
    let largest = points.iter().map(|p| p.bytes).fold(0.0, f64::max);
    let half = model.half_bandwidth_bytes();
    let reached = largest / (largest + half);
    (reached < REACHED_MIN).then(|| {
        format!(
            "an extrapolation: the largest size measured, {}, reached {:.0}% of the fitted {:.3} GB/s; an asymptote is taken as measured where a size reaches {:.0}% of it (sizes to {}, four times the half-bandwidth size, would measure it); the per-size rows stand",
            format_size(largest as u64),
            reached * 100.0,
            model.bandwidth_gbs(),
            REACHED_MIN * 100.0,
            format_size((4.0 * half) as u64)
        )
    })
}

/// The three fitted values (fixed cost in us, bandwidth in GB/s, half-bandwidth size in KiB),
/// each with its bootstrap interval over the per-size samples, when there is one.
fn fitted_values(model: &TransferModel, samples: &[SizeSamples]) -> [(f64, Option<(f64, f64)>); 3] {
    let intervals = fit::bootstrap(samples, FIT_RESAMPLES, FIT_SEED);
    let kib = |bytes: f64| bytes / KIB as f64;
    [
        (model.fixed_us(), intervals.map(|i| i.fixed_us)),
        (model.bandwidth_gbs(), intervals.map(|i| i.bandwidth_gbs)),
        (
            kib(model.half_bandwidth_bytes()),
            intervals.map(|i| (kib(i.half_bandwidth_bytes.0), kib(i.half_bandwidth_bytes.1))),
        ),
    ]
}

/// What every fitted result of a path records beside its value: the model, the points it was
/// fitted to (with the worst relative residual), the GPU-side fit of the copy where there is
/// one, and the host memcpy reference.
fn fit_extra(
    path: TransferPath,
    (model, points, residual): (&TransferModel, &[fit::Point], f64),
    gpu_model: Option<TransferModel>,
    host_memcpy_gbs: Option<f64>,
) -> BTreeMap<String, serde_json::Value> {
    let mut extra = BTreeMap::new();
    extra.insert("model".into(), "t = fixed + bytes / bandwidth".into());
    extra.insert("fitted_from".into(), path.fitted_from().into());
    extra.insert(
        "fit".into(),
        "least squares weighted by 1/t^2 over the median time per size".into(),
    );
    extra.insert("fixed_us".into(), model.fixed_us().into());
    extra.insert("bandwidth_gbs".into(), model.bandwidth_gbs().into());
    extra.insert(
        "half_bandwidth_bytes".into(),
        model.half_bandwidth_bytes().into(),
    );
    extra.insert(
        "constrained_through_origin".into(),
        model.constrained.into(),
    );
    extra.insert("max_relative_residual".into(), residual.into());
    extra.insert("sizes".into(), points.len().into());
    extra.insert(
        "points".into(),
        points
            .iter()
            .map(|p| serde_json::json!({ "bytes": p.bytes, "median_us": p.seconds * 1e6 }))
            .collect::<Vec<_>>()
            .into(),
    );
    if let Some(gpu_model) = gpu_model {
        extra.insert("gpu_copy_fixed_us".into(), gpu_model.fixed_us().into());
        extra.insert(
            "gpu_copy_bandwidth_gbs".into(),
            gpu_model.bandwidth_gbs().into(),
        );
    }
    // The host's memcpy is the comparison for what goes through host memory at the host's
    // pace: a whole transfer, a host write (not a bound: stores into a write-combined BAR ran
    // at 1.8 times it on the H200). A copy-engine copy is not at the host's pace at all (DMA
    // or a VRAM-to-VRAM copy runs at many times its rate), so those rows carry no fraction.
    let memcpy_bound = matches!(path.measures(), Measures::EndToEnd | Measures::HostWrite);
    if let Some(memcpy) = host_memcpy_gbs.filter(|_| memcpy_bound) {
        extra.insert("host_memcpy_gbs".into(), memcpy.into());
        extra.insert(
            "fraction_of_host_memcpy".into(),
            (model.bandwidth_gbs() / memcpy).into(),
        );
    }
    extra
}

/// Warnings every fitted result of a path carries: sizes left out, a refit through the origin.
fn fit_warnings(model: &TransferModel, usable: usize, measured: usize) -> Vec<WarningRecord> {
    let mut warnings = Vec::new();
    if usable != measured {
        warnings.push(PARTIAL_FIT.record(
            format!(
                "fitted over {usable} of {measured} sizes: the others gave no verified time (skipped or failed)"
            ),
            Some(usable as f64),
        ));
    }
    if model.constrained {
        warnings.push(FIT_THROUGH_ORIGIN.record(
            "the free fit gave a negative fixed cost; refitted through the origin",
            None,
        ));
    }
    warnings
}

/// Id, metric, description and params of the three fitted results of `path`: its path,
/// direction and what it measures, and `placement`, the placement params its fitted sizes
/// agree on.
fn fitted_infos(path: TransferPath, placement: &Params) -> [BenchmarkInfo; 3] {
    let id = |what: &str| format!("transfer/{}/fit/{what}", path.name());
    let info = |what: &str, metric: MetricKind, counts: &str| {
        let mut info = BenchmarkInfo::new(id(what), "transfer", metric, counts)
            .param("path", path.name())
            .param("direction", path.direction())
            .param("measures", path.measures().name())
            .param("fit", what);
        info.params
            .extend(placement.iter().map(|(k, v)| (k.clone(), v.clone())));
        info
    };
    [
        info(
            "fixed-cost",
            MetricKind::TimePerOp,
            "fitted fixed cost per transfer (intercept of t = fixed + bytes / bandwidth), us",
        ),
        info(
            "asymptotic-bandwidth",
            MetricKind::Bandwidth,
            "fitted asymptotic bandwidth (1 / slope of t = fixed + bytes / bandwidth), bytes moved once",
        ),
        info(
            "half-bandwidth-size",
            MetricKind::Size,
            "transfer size reaching half the asymptotic bandwidth (fixed x bandwidth)",
        ),
    ]
}

/// Every fitted result of a path skipped for `reason`, each keeping `extra` (what the fit was
/// over, where there was one) for the record.
fn skip_all(infos: &[BenchmarkInfo], reason: &str, extra: Params) -> Vec<BenchResult> {
    infos
        .iter()
        .map(|info| {
            let mut r = fitted_skip(info, reason);
            r.extra = extra.clone();
            r
        })
        .collect()
}

/// A fitted result that could not be computed, and why.
fn fitted_skip(info: &BenchmarkInfo, reason: &str) -> BenchResult {
    let mut r = fitted_shell(info, Status::Skipped);
    r.reason = Some(reason.to_string());
    r
}

/// An empty fitted result of `info`: derived, with `status`.
fn fitted_shell(info: &BenchmarkInfo, status: Status) -> BenchResult {
    let mut r = BenchResult::empty(info, status, None);
    r.role = Role::Derived;
    r
}

/// A one-value summary whose interval is the bootstrap's, when there is one.
fn fitted_summary(value: f64, interval: Option<(f64, f64)>) -> Option<Summary> {
    let mut summary = stats::summarize(&[value])?;
    if let Some((low, high)) = interval.filter(|(l, h)| l.is_finite() && h.is_finite()) {
        summary.ci_low = low.min(value);
        summary.ci_high = high.max(value);
    }
    Some(summary)
}

/// Seconds per transfer of every sample of each result, from its bandwidth samples
/// (`bytes / (GB/s x 10^9)`). Results without samples of that kind are left out.
fn size_samples(
    results: &[&BenchResult],
    samples: impl Fn(&BenchResult) -> &Vec<f64>,
) -> Vec<SizeSamples> {
    results
        .iter()
        .filter_map(|r| {
            let bytes = r.work.total_bytes() as f64;
            let seconds: Vec<f64> = samples(r)
                .iter()
                .filter(|v| v.is_finite() && **v > 0.0)
                .map(|gbs| bytes / (gbs * 1e9))
                .collect();
            (bytes > 0.0 && !seconds.is_empty()).then_some(SizeSamples { bytes, seconds })
        })
        .collect()
}

/// The model of a path, re-fitted from its results (for reports and tests).
pub fn fitted_model(path: TransferPath, results: &[BenchResult]) -> Option<TransferModel> {
    let usable: Vec<&BenchResult> = results
        .iter()
        .filter(|r| r.params.get("path").and_then(|p| p.as_str()) == Some(path.name()))
        .filter(|r| r.status == Status::Ok && r.verified)
        .collect();
    fit::fit(&fit::median_points(&size_samples(&usable, |r| &r.samples))).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transfer::{Transfer, TransferSuite, sizes_up_to};
    use gpubench_engine::Suite;
    use gpubench_harness::Kernel;
    use gpubench_harness::kit::placement::flags::{
        DEVICE_LOCAL, HOST_CACHED, HOST_COHERENT, HOST_VISIBLE,
    };
    use gpubench_harness::kit::placement::{
        BufferRole, MemoryHeap, MemoryMap, MemoryType, VulkanMemory,
    };
    use gpubench_results::units::{GIB, MIB};

    /// A discrete card on Vulkan whose MAP_WRITE staging prefers a device-local, host-visible
    /// type on a heap of `bar` bytes: all of VRAM (an H200's large BAR) or a small window.
    fn discrete_card(bar: u64) -> MemoryMap {
        let heap = |size, device_local| MemoryHeap { size, device_local };
        let ty = |flags, heap| MemoryType { flags, heap };
        let memory = VulkanMemory {
            types: vec![
                ty(DEVICE_LOCAL, 0),
                ty(HOST_VISIBLE | HOST_COHERENT, 1),
                ty(HOST_VISIBLE | HOST_COHERENT | HOST_CACHED, 1),
                ty(DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT, 2),
            ],
            heaps: vec![
                heap(141 * GIB, true),
                heap(64 * GIB, false),
                heap(bar, true),
            ],
        };
        let bits = BufferRole::ALL.iter().map(|&r| (r, u32::MAX)).collect();
        MemoryMap::new(wgpu::DeviceType::DiscreteGpu, Some((memory, bits)))
    }

    /// A clean sweep of `path` (30 us fixed, `gbs` GB/s) up to `cap`, placed by `map`.
    fn sweep_on(map: &MemoryMap, path: TransferPath, cap: u64, gbs: f64) -> Vec<BenchResult> {
        sizes_up_to(cap)
            .into_iter()
            .map(|bytes| {
                let t = 30e-6 + bytes as f64 / (gbs * 1e9);
                measured_on(Some(map), path, bytes, &[t, t, t])
            })
            .collect()
    }

    /// The stream suite's host-memcpy row, as its results file has it: `gbs` read + written.
    fn host_memcpy(gbs: f64) -> BenchResult {
        let info = BenchmarkInfo::new(
            "stream/host-memcpy/bytes/16MiB",
            "stream",
            MetricKind::Bandwidth,
            "bytes read + written per second by the host's memcpy",
        )
        .role(Role::HostReference);
        let mut memcpy = BenchResult::empty(&info, Status::Ok, None);
        memcpy.verified = true;
        memcpy.summary = stats::summarize(&[gbs]);
        memcpy
    }

    #[test]
    fn an_asymptote_beyond_every_size_measured_is_no_result_but_the_fixed_cost_is() {
        // 30 us fixed at 400 GB/s: half the bandwidth at 12 MB, so a sweep to 16 MiB reaches
        // 58% of it, and to 64 MiB 85%.
        let rebar = discrete_card(141 * GIB);
        let short = sweep_on(&rebar, TransferPath::StagingCopy, 16 * MIB, 400.0);
        let derived = TransferSuite.derive(&short, &[]);
        let status = |suffix: &str| {
            let r = derived
                .iter()
                .find(|r| r.id.ends_with(suffix))
                .expect("row");
            (r.status, r.reason.clone().unwrap_or_default())
        };
        assert_eq!(status("fit/fixed-cost").0, Status::Ok);
        for suffix in ["fit/asymptotic-bandwidth", "fit/half-bandwidth-size"] {
            let (status, reason) = status(suffix);
            assert_eq!(status, Status::Skipped, "{suffix}");
            assert!(
                reason.contains("reached 58% of the fitted 400.000 GB/s"),
                "{reason}"
            );
        }
        let long = sweep_on(&rebar, TransferPath::StagingCopy, 64 * MIB, 400.0);
        let derived = TransferSuite.derive(&long, &[]);
        assert!(
            derived.iter().all(|r| r.status == Status::Ok),
            "{derived:?}"
        );
    }

    #[test]
    fn fitted_rows_carry_the_placement_their_sizes_agree_on() {
        // An H200's large BAR: the staging copy is VRAM to VRAM at every size.
        let rebar = discrete_card(141 * GIB);
        let sizes = sweep_on(&rebar, TransferPath::StagingCopy, 64 * MIB, 400.0);
        let per_size = &sizes[0].params;
        assert_eq!(per_size["crosses_link"], false);
        let derived = TransferSuite.derive(&sizes, &[]);
        assert_eq!(derived.len(), 3);
        for r in &derived {
            assert_eq!(r.status, Status::Ok, "{}: {:?}", r.id, r.reason);
            for key in [
                "crosses_link",
                "crosses_link_why",
                "staging_memory",
                "device_memory",
            ] {
                assert_eq!(r.params.get(key), per_size.get(key), "{}: {key}", r.id);
            }
            assert_eq!(r.params["staging_memory"], "resizable-bar");
            assert_eq!(r.params["measures"], "copy-engine");
            assert_eq!(r.params["direction"], "h2d");
            // A fitted row is no size: the sweep table keys sizes on these.
            assert!(!r.params.contains_key("bytes") && !r.params.contains_key("size"));
        }
        // A backend that does not say: the fitted rows do not say either.
        let dx12 = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, None);
        let unknown = sweep_on(&dx12, TransferPath::StagingCopy, 16 * MIB, 20.0);
        for r in TransferSuite.derive(&unknown, &[]) {
            assert_eq!(r.status, Status::Ok, "{}", r.id);
            assert!(!r.params.contains_key("crosses_link"), "{}", r.id);
            assert_eq!(r.params["staging_memory"], "unknown");
        }
    }

    #[test]
    fn sizes_that_disagree_on_placement_are_not_fitted_as_one_path() {
        // A 64 MiB BAR window: up to half of it the staging buffer is BAR memory (a copy inside
        // the card); from 64 MiB, with other allocations sharing the window, and at 256 MiB,
        // which no longer fits there, its placement is unknown.
        let window = discrete_card(64 * MIB);
        let sizes = sweep_on(&window, TransferPath::StagingCopy, 256 * MIB, 400.0);
        let last = sizes.last().expect("a 256 MiB row");
        assert_eq!(last.params["staging_memory"], "unknown");
        let derived = TransferSuite.derive(&sizes, &[]);
        assert_eq!(derived.len(), 3);
        for r in &derived {
            assert_eq!(r.status, Status::Skipped, "{}", r.id);
            let reason = r.reason.as_deref().unwrap_or_default();
            assert!(
                reason.contains("disagree on where their buffers live"),
                "{reason}"
            );
            assert!(
                reason.contains("bar at 4KiB but unknown at 64MiB"),
                "{reason}"
            );
            assert!(!r.params.contains_key("crosses_link"), "{}", r.id);
            assert_eq!(r.params["measures"], "copy-engine");
        }
        // The same sweep up to 32 MiB agrees, and is fitted (at 100 GB/s, which 32 MiB reaches
        // 90% of).
        let fitting = sweep_on(&window, TransferPath::StagingCopy, 32 * MIB, 100.0);
        let fitted = TransferSuite.derive(&fitting, &[]);
        assert!(fitted.iter().all(|r| r.status == Status::Ok));
        assert!(fitted.iter().all(|r| r.params["staging_memory"] == "bar"));
    }

    #[test]
    fn only_paths_a_host_memcpy_bounds_are_given_a_fraction_of_it() {
        let rebar = discrete_card(141 * GIB);
        let reference = [host_memcpy(20.0)];
        let fraction = |path| {
            let sizes = sweep_on(&rebar, path, 16 * MIB, 8.0);
            let derived = TransferSuite.derive(&sizes, &reference);
            let bandwidth = derived
                .iter()
                .find(|r| r.id.ends_with("fit/asymptotic-bandwidth"))
                .expect("a bandwidth row");
            assert_eq!(bandwidth.status, Status::Ok, "{:?}", bandwidth.reason);
            (
                bandwidth.extra.get("fraction_of_host_memcpy").cloned(),
                bandwidth.extra.contains_key("host_memcpy_gbs"),
            )
        };
        // A copy engine's copy is no memcpy: 400 GB/s VRAM to VRAM is no "40x the host".
        for copy in [TransferPath::StagingCopy, TransferPath::ReadbackCopy] {
            assert_eq!(fraction(copy), (None, false), "{copy:?}");
        }
        for bounded in [TransferPath::HostWrite, TransferPath::MappedStaging] {
            let (share, reference) = fraction(bounded);
            assert!(reference, "{bounded:?}");
            let share = share.and_then(|v| v.as_f64()).expect("a fraction");
            assert!((share - 0.8).abs() < 0.01, "{bounded:?}: {share}");
        }
    }

    fn measured(path: TransferPath, bytes: u64, seconds: &[f64]) -> BenchResult {
        measured_on(None, path, bytes, seconds)
    }

    /// A verified row of `path` at `bytes`, its params saying where its buffers live by `map`.
    fn measured_on(
        map: Option<&MemoryMap>,
        path: TransferPath,
        bytes: u64,
        seconds: &[f64],
    ) -> BenchResult {
        let mut transfer = Transfer::new(path, bytes, 1);
        if let Some(map) = map {
            transfer = transfer.placed(map);
        }
        let mut r = BenchResult::empty(&transfer.info(), Status::Ok, None);
        r.verified = true;
        r.work = transfer.transfer_work();
        r.samples = seconds.iter().map(|s| bytes as f64 / s / 1e9).collect();
        r.summary = stats::summarize(&r.samples);
        r
    }

    #[test]
    fn derive_fits_each_path_from_its_samples() {
        // 40 us fixed, 2 GB/s, with a little spread around each size.
        let results: Vec<BenchResult> = sizes_up_to(4 * MIB)
            .into_iter()
            .map(|bytes| {
                let t = 40e-6 + bytes as f64 / 2e9;
                measured(
                    TransferPath::MappedStaging,
                    bytes,
                    &[t * 0.99, t, t * 1.01, t],
                )
            })
            .collect();
        let derived = TransferSuite.derive(&results, &[]);
        assert_eq!(derived.len(), 3, "one result per quantity for the one path");
        let by_id = |suffix: &str| {
            derived
                .iter()
                .find(|r| r.id.ends_with(suffix))
                .unwrap_or_else(|| panic!("{suffix} missing"))
        };
        let fixed = by_id("fit/fixed-cost");
        let bandwidth = by_id("fit/asymptotic-bandwidth");
        let half = by_id("fit/half-bandwidth-size");
        assert_eq!(fixed.id, "transfer/h2d-mapped-staging/fit/fixed-cost");
        for r in [fixed, bandwidth, half] {
            assert_eq!(r.status, Status::Ok);
            assert!(r.verified);
            let s = r.summary.as_ref().expect("summary");
            assert!(s.ci_low <= s.median && s.median <= s.ci_high);
        }
        let median = |r: &BenchResult| r.median().expect("median");
        assert!((median(fixed) - 40.0).abs() < 0.5, "{}", median(fixed));
        assert!((median(bandwidth) - 2.0).abs() < 0.02);
        // n_1/2 = 40e-6 * 2e9 = 80 kB = 78.1 KiB.
        assert!((median(half) - 80_000.0 / 1024.0).abs() < 1.5);
        assert_eq!(fixed.unit, "us");
        assert_eq!(half.unit, "KiB");
        assert!(bandwidth.higher_is_better && !fixed.higher_is_better);
        assert!(fixed.warnings.is_empty(), "{:?}", fixed.warnings);
        assert!(!bandwidth.extra.contains_key("host_memcpy_gbs"));
        // With stream's host memcpy measured earlier (20 GB/s read + written = 10 GB/s moved
        // once), the fit says what fraction of the host's own copy rate the path reaches.
        let with_reference = TransferSuite.derive(&results, &[host_memcpy(20.0)]);
        let extra = &with_reference[1].extra;
        assert_eq!(extra["host_memcpy_gbs"], 10.0);
        let fraction = extra["fraction_of_host_memcpy"].as_f64().expect("fraction");
        assert!((fraction - 0.2).abs() < 0.01, "{fraction}");
        let model = fitted_model(TransferPath::MappedStaging, &results).expect("model");
        assert!((model.bandwidth_gbs() - 2.0).abs() < 0.02);
    }

    #[test]
    fn a_sweep_a_line_does_not_describe_is_not_resolved() {
        // Fast while the data fits a cache, four times slower beyond: no single line fits.
        let results: Vec<BenchResult> = sizes_up_to(256 * MIB)
            .into_iter()
            .map(|bytes| {
                let gbs = if bytes <= 4 * MIB { 16e9 } else { 2e9 };
                let t = 30e-6 + bytes as f64 / gbs;
                measured(TransferPath::WriteBuffer, bytes, &[t, t, t])
            })
            .collect();
        let derived = TransferSuite.derive(&results, &[]);
        assert_eq!(derived.len(), 3);
        for r in &derived {
            assert_eq!(r.status, Status::Skipped, "{}", r.id);
            let reason = r.reason.as_deref().unwrap_or_default();
            assert!(reason.contains("fits it poorly"), "{reason}");
            assert!(r.extra.contains_key("max_relative_residual"), "{}", r.id);
        }
        // The same sweep at one rate all through is a line: resolved.
        let linear: Vec<BenchResult> = sizes_up_to(256 * MIB)
            .into_iter()
            .map(|bytes| {
                let t = 30e-6 + bytes as f64 / 2e9;
                measured(TransferPath::WriteBuffer, bytes, &[t, t, t])
            })
            .collect();
        assert!(
            TransferSuite
                .derive(&linear, &[])
                .iter()
                .all(|r| r.status == Status::Ok)
        );
    }

    #[test]
    fn a_fit_through_the_origin_reports_its_bandwidth_and_no_fixed_cost() {
        // A pure copy rate with no fixed cost, slightly faster at the small sizes: the free
        // intercept comes out negative and the fit goes through the origin.
        let results: Vec<BenchResult> = sizes_up_to(4 * MIB)
            .into_iter()
            .map(|bytes| {
                let t = bytes as f64 / 5e9 * if bytes < 64 * 1024 { 0.9 } else { 1.0 };
                measured(TransferPath::HostWrite, bytes, &[t, t, t])
            })
            .collect();
        let derived = TransferSuite.derive(&results, &[]);
        let by_id = |suffix: &str| {
            derived
                .iter()
                .find(|r| r.id.ends_with(suffix))
                .expect("row")
        };
        let bandwidth = by_id("fit/asymptotic-bandwidth");
        assert_eq!(bandwidth.status, Status::Ok);
        assert!(bandwidth.median().is_some_and(|m| m > 0.0));
        for suffix in ["fit/fixed-cost", "fit/half-bandwidth-size"] {
            let r = by_id(suffix);
            assert_eq!(r.status, Status::Skipped, "{suffix}");
            assert!(r.summary.is_none());
            assert!(
                r.reason
                    .as_deref()
                    .is_some_and(|why| why.contains("not resolved"))
            );
        }
    }

    #[test]
    fn derive_skips_a_path_without_enough_sizes() {
        let results = vec![measured(TransferPath::MapRead, 4096, &[1e-5, 1e-5])];
        let derived = TransferSuite.derive(&results, &[]);
        assert_eq!(derived.len(), 3);
        assert!(derived.iter().all(|r| r.status == Status::Skipped));
        assert!(TransferSuite.derive(&[], &[]).is_empty());
    }
}
