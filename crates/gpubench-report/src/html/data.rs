//! What the charts draw, extracted from result documents by role, metric and chart hint (the
//! hint a result declares, or for files written before hints, the one
//! [`gpubench_results::chart_of::legacy_hint`] infers): stream kernels, compute peaks, matmul
//! shapes and roofline points (placed by FLOP per byte of their declared work), transfer paths
//! by size with their fitted models, latency samples and the sustained series.

use gpubench_baseline::measured_otherwise;
use gpubench_results::chart::{self, ChartHint, Roof, group};
use gpubench_results::chart_of::hint_of;
use gpubench_results::{BenchResult, MetricKind, Role, RunDocument, Status};

/// A named line or point set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
    /// Each point's tooltip (same order as `points`; a point without one shows its
    /// coordinates).
    pub tips: Vec<String>,
    /// Colour index (see `charts::colour`).
    pub colour: usize,
    /// Marker shape index (see `overlay::Overlay::marker`).
    pub marker: usize,
}

impl Series {
    /// An empty series called `name`, drawn in colour `colour`.
    pub fn new(name: impl Into<String>, colour: usize) -> Self {
        Self {
            name: name.into(),
            colour,
            ..Self::default()
        }
    }

    /// Adds a point with its tooltip.
    pub fn push(&mut self, point: (f64, f64), tip: String) {
        self.points.push(point);
        self.tips.push(tip);
    }

    /// Sorts the points (with their tooltips) by x.
    pub fn sort(&mut self) {
        let mut both: Vec<((f64, f64), String)> = self
            .points
            .drain(..)
            .zip(self.tips.drain(..).chain(std::iter::repeat(String::new())))
            .collect();
        both.sort_by(|a, b| a.0.0.total_cmp(&b.0.0));
        (self.points, self.tips) = both.into_iter().unzip();
    }

    /// The tooltip of point `i`.
    pub fn tip(&self, i: usize) -> String {
        match self.tips.get(i).filter(|t| !t.is_empty()) {
            Some(t) => t.clone(),
            None => {
                let (x, y) = self.points.get(i).copied().unwrap_or_default();
                format!(
                    "{}: ({}, {})",
                    self.name,
                    crate::numbers::sig3(x),
                    crate::numbers::sig3(y)
                )
            }
        }
    }
}

/// Adds `(point, tip)` to the series called `name` in `series`, creating it (in the next
/// colour) when it is new.
fn add_point(series: &mut Vec<Series>, name: &str, point: (f64, f64), tip: String) {
    if let Some(s) = series.iter_mut().find(|s| s.name == name) {
        s.push(point, tip);
    } else {
        let mut s = Series::new(name, series.len());
        s.push(point, tip);
        series.push(s);
    }
}

/// One bar: the value, its 95% interval, the best sample and its tooltip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bar {
    /// Height.
    pub value: f64,
    /// Lower whisker.
    pub low: f64,
    /// Upper whisker.
    pub high: f64,
    /// The best sample (the fastest: max rate where higher is better), marked on the bar.
    pub best: Option<f64>,
    /// Tooltip.
    pub tip: String,
}

/// The measured ceilings of the roofline, with where each came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ceilings {
    /// Best measured device bandwidth, GB/s.
    pub bandwidth_gbs: Option<f64>,
    /// Which result gave it.
    pub bandwidth_from: String,
    /// Best measured f32 compute, GFLOP/s.
    pub compute_gflops: Option<f64>,
    /// Which result gave it.
    pub compute_from: String,
    /// Best measured f16 compute (the best f16 ceiling-candidate peak), GFLOP/s.
    pub compute_f16_gflops: Option<f64>,
    /// Which result gave it.
    pub compute_f16_from: String,
    /// Best measured f64 compute (the best f64 ceiling-candidate peak), GFLOP/s.
    pub compute_f64_gflops: Option<f64>,
    /// Which result gave it.
    pub compute_f64_from: String,
}

impl Ceilings {
    /// The ridge point (FLOP/byte) where the two ceilings meet.
    pub fn ridge(&self) -> Option<f64> {
        Some(self.compute_gflops? / self.bandwidth_gbs?)
    }

    /// Legend text naming both ceilings (and the f16 peak where one was measured).
    pub fn label(&self) -> String {
        let bw = self
            .bandwidth_gbs
            .map_or("no bandwidth ceiling".to_string(), |b| {
                format!("{} GB/s ({})", crate::numbers::sig3(b), self.bandwidth_from)
            });
        let fl = self
            .compute_gflops
            .map_or("no compute ceiling".to_string(), |c| {
                format!(
                    "{} GFLOP/s ({})",
                    crate::numbers::sig3(c),
                    self.compute_from
                )
            });
        match self.ridge() {
            Some(r) => format!("roof: {bw}, {fl}; ridge {} FLOP/B", crate::numbers::sig3(r)),
            None => format!("roof: {bw}, {fl}"),
        }
    }
}

fn ok(r: &BenchResult) -> Option<f64> {
    r.median().filter(|m| m.is_finite())
}

fn param_str<'a>(r: &'a BenchResult, key: &str) -> Option<&'a str> {
    r.params.get(key).and_then(|v| v.as_str())
}

fn param_f64(r: &BenchResult, key: &str) -> Option<f64> {
    r.params.get(key).and_then(serde_json::Value::as_f64)
}

/// Whether `r`'s chart hint puts it in the chart group `name`.
pub fn in_group(r: &BenchResult, name: &str) -> bool {
    hint_of(r).is_some_and(|h| h.group() == Some(name))
}

/// Whether `r`'s chart hint makes it a roofline ceiling candidate.
fn ceiling_candidate(r: &BenchResult) -> bool {
    hint_of(r).is_some_and(|h| h.roof() == Some(&Roof::Ceiling))
}

/// The curve hint's x parameter and series parameter of `r`, when it is in curve group `name`.
fn curve_keys(r: &BenchResult, name: &str) -> Option<(String, Option<String>)> {
    match hint_of(r)?.into_owned() {
        ChartHint::Curve {
            group, x, series, ..
        } if group == name => Some((x, series)),
        _ => None,
    }
}

/// The id without its suite prefix.
pub fn short_id(r: &BenchResult) -> String {
    r.id.strip_prefix(&format!("{}/", r.suite))
        .unwrap_or(&r.id)
        .to_string()
}

/// FLOP per byte: as the result states it ([`chart::INTENSITY`]), else of its declared work,
/// when it declares both.
pub fn intensity(r: &BenchResult) -> Option<f64> {
    param_f64(r, chart::INTENSITY).or_else(|| {
        (r.work.flops > 0 && r.work.total_bytes() > 0)
            .then(|| r.work.flops as f64 / r.work.total_bytes() as f64)
    })
}

/// The run's ceiling rows (roles `bandwidth-ceiling` and `compute-ceiling`) when it has them;
/// otherwise the bandwidth ceiling from the best ceiling-candidate kernel (not the copy engine,
/// not the host) and the compute ceiling from the best f32 candidate peak, else the best point
/// of the roofline sweep. The f16 roof is the best f16 candidate peak, when one ran, and the
/// f64 roof the best f64 one.
pub fn ceilings(doc: &RunDocument) -> Ceilings {
    let best = |pick: &dyn Fn(&BenchResult) -> bool| {
        doc.results
            .iter()
            .filter(|r| pick(r))
            .filter_map(|r| ok(r).map(|m| (m, short_id(r))))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    };
    let peak_of = |precision: &str| {
        best(&|r| {
            r.metric == MetricKind::Throughput
                && param_str(r, "precision") == Some(precision)
                && ceiling_candidate(r)
        })
    };
    let (f16, f64) = (peak_of("f16"), peak_of("f64"));
    let mut ceilings = measured_ceilings(doc, &best);
    ceilings.compute_f16_gflops = f16.as_ref().map(|c| c.0);
    ceilings.compute_f16_from = f16.map(|c| c.1).unwrap_or_default();
    ceilings.compute_f64_gflops = f64.as_ref().map(|c| c.0);
    ceilings.compute_f64_from = f64.map(|c| c.1).unwrap_or_default();
    ceilings
}

/// Picks results for a ceiling.
type Pick<'a> = &'a dyn Fn(&BenchResult) -> bool;

/// The bandwidth and f32 compute ceilings (see [`ceilings`]); `best` gives the best result
/// that a pick selects, with its short id.
fn measured_ceilings(
    doc: &RunDocument,
    best: &dyn Fn(Pick<'_>) -> Option<(f64, String)>,
) -> Ceilings {
    let derived = |role: Role| {
        let r = doc.results.iter().find(|r| r.role == role)?;
        Some((ok(r)?, r.id.clone()))
    };
    if let (Some((bw, bw_id)), Some((fl, fl_id))) = (
        derived(Role::BandwidthCeiling),
        derived(Role::ComputeCeiling),
    ) {
        return Ceilings {
            bandwidth_gbs: Some(bw),
            bandwidth_from: bw_id,
            compute_gflops: Some(fl),
            compute_from: fl_id,
            ..Ceilings::default()
        };
    }
    // Bytes read per second, as the roofline's intensity counts them: read's reads, not
    // triad's reads and writes. Over the largest arrays of their suite only: a smaller one
    // (a full-profile cache sweep's 256 KiB triad, in files from before such rows said so)
    // may sit in a cache, whose rate is not the memory's.
    let candidates: Vec<&BenchResult> = doc
        .results
        .iter()
        .filter(|r| r.role == Role::Kernel && ceiling_candidate(r))
        .collect();
    let mut largest: std::collections::BTreeMap<&str, f64> = Default::default();
    for r in &candidates {
        if let Some(bytes) = param_f64(r, "array_bytes") {
            let top = largest.entry(r.suite.as_str()).or_insert(0.0);
            *top = top.max(bytes);
        }
    }
    let bandwidth = candidates
        .iter()
        .filter(|r| {
            let top = largest.get(r.suite.as_str());
            param_f64(r, "array_bytes").is_none_or(|b| top.is_none_or(|top| b >= *top))
        })
        .filter_map(|r| Some((r.read_rate().filter(|v| v.is_finite())?, short_id(r))))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    // The f32 roof: f32 peaks (or a peak that names no precision), never f16, f64 or bf16.
    let compute = best(&|r| {
        r.metric == MetricKind::Throughput
            && param_str(r, "precision").is_none_or(|p| p == "f32")
            && ceiling_candidate(r)
    });
    let compute = compute.or_else(|| {
        best(&|r| {
            r.metric == MetricKind::Throughput
                && r.role == Role::Kernel
                && matches!(hint_of(r).as_deref(), Some(ChartHint::Roofline { .. }))
        })
    });
    Ceilings {
        bandwidth_gbs: bandwidth.as_ref().map(|b| b.0),
        bandwidth_from: bandwidth.map(|b| b.1).unwrap_or_default(),
        compute_gflops: compute.as_ref().map(|c| c.0),
        compute_from: compute.map(|c| c.1).unwrap_or_default(),
        ..Ceilings::default()
    }
}

/// A result's tooltip: its id, what it is (shape or size, variant, path), the median with its
/// unit, the median's 95% interval and the samples' spread.
pub fn tip(r: &BenchResult) -> String {
    let mut lines = vec![r.id.clone()];
    let what: Vec<String> = [
        "shape",
        "array_size",
        "size",
        "path",
        "kernel",
        "variant",
        "precision",
    ]
    .iter()
    .filter_map(|k| Some(format!("{k} {}", param_text(r, k)?)))
    .collect();
    if !what.is_empty() {
        lines.push(what.join(", "));
    }
    match (&r.summary, r.status) {
        (Some(s), Status::Ok) => {
            lines.push(format!("median {} {}", sig3(s.median), r.unit));
            if s.has_interval() {
                lines.push(format!(
                    "95% CI of the median [{}, {}] {}",
                    sig3(s.ci_low),
                    sig3(s.ci_high),
                    r.unit
                ));
            }
            lines.push(format!(
                "spread {} - {} {} over {} samples",
                sig3(s.min),
                sig3(s.max),
                r.unit,
                s.n
            ));
        }
        _ => lines.push(format!(
            "{}: {}",
            r.status.as_str(),
            r.reason.as_deref().unwrap_or("no reason recorded")
        )),
    }
    lines.join("\n")
}

fn param_text(r: &BenchResult, key: &str) -> Option<String> {
    let v = r.params.get(key)?;
    Some(v.as_str().map_or_else(|| v.to_string(), str::to_string))
}

fn sig3(v: f64) -> String {
    crate::numbers::sig3(v)
}

/// The roofline's points (sweep points and products by precision, as their hints name the
/// series), x = FLOP/byte, y = GFLOP/s.
pub fn roofline_points(doc: &RunDocument) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for r in doc
        .results
        .iter()
        .filter(|r| r.metric == MetricKind::Throughput && r.role == Role::Kernel)
    {
        let name = match hint_of(r).as_deref() {
            Some(ChartHint::Roofline { series }) => series.clone(),
            Some(hint) => match hint.roof() {
                Some(Roof::Point { series }) => series.clone(),
                _ => continue,
            },
            None => continue,
        };
        let (Some(x), Some(y)) = (intensity(r), ok(r)) else {
            continue;
        };
        add_point(&mut series, &name, (x, y), tip(r));
    }
    for s in &mut series {
        s.sort();
    }
    series
}

/// Bandwidth against size per transfer path (the rows of the transfer-sizes curves, by their
/// x and series parameters), and each path's fitted model from its derived rows
/// (path, fixed cost in us, asymptotic GB/s). Sizes of a path whose bytes stayed on the device
/// are a series of their own, named apart ([`crate::link`]), never points of the host-device one.
pub fn transfer(doc: &RunDocument) -> (Vec<Series>, Vec<(String, f64, f64)>) {
    let link = crate::link::any_crosses(&doc.results);
    let mut series: Vec<Series> = Vec::new();
    let mut models = Vec::new();
    for r in &doc.results {
        let Some((x, series_key)) = curve_keys(r, group::TRANSFER_SIZES) else {
            continue;
        };
        let Some(path) = series_key.as_deref().and_then(|k| param_str(r, k)) else {
            continue;
        };
        if r.role == Role::Derived {
            // The model is drawn from the fitted bandwidth's own row, where it stood: every
            // fitted row keeps the model in `extra`, and the fixed cost's stands where the
            // bandwidth is an extrapolation past the sizes measured (skipped, saying so).
            if r.metric != MetricKind::Bandwidth {
                continue;
            }
            let fixed = r.extra.get("fixed_us").and_then(serde_json::Value::as_f64);
            let gbs = r
                .extra
                .get("bandwidth_gbs")
                .and_then(serde_json::Value::as_f64);
            if let (Some(fixed), Some(gbs), Status::Ok) = (fixed, gbs, r.status)
                && !models
                    .iter()
                    .any(|(p, _, _): &(String, f64, f64)| p == path)
            {
                models.push((path.to_string(), fixed, gbs));
            }
            continue;
        }
        let (Some(bytes), Some(y), MetricKind::Bandwidth) = (param_f64(r, &x), ok(r), r.metric)
        else {
            continue;
        };
        let name = crate::link::series_name(path, r, link);
        add_point(&mut series, &name, (bytes, y), tip(r));
    }
    for s in &mut series {
        s.sort();
    }
    follow_marked(&mut models, &series);
    (series, models)
}

/// Names each fitted model after its path's series: a path all of whose sizes are marked alike
/// (stayed on the device, or crossing not known) has only its marked series, and its fit is
/// drawn there.
fn follow_marked(models: &mut [(String, f64, f64)], series: &[Series]) {
    let names = series.iter().map(|s| s.name.as_str());
    for (path, _, _) in models.iter_mut() {
        if let Some(marked) = crate::link::marked_series(path, names.clone()) {
            *path = marked;
        }
    }
}

/// A latency distribution: the words of its histogram, samples in us, p50/p95/p99 in us.
pub type Latency = (LatencyWords, Vec<f64>, Vec<(&'static str, f64)>);

/// What a latency histogram says its samples are, in its result's own words (its id, what it
/// counts, its unit): the one place the caption, the x axis, the text alternative and the
/// note under the chart take them from, so a datapath request is never called a launch round
/// trip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatencyWords {
    /// The result's id.
    pub id: String,
    /// The caption: `Latency: <id>`.
    pub caption: String,
    /// The x axis: what one sample is (the first clause of what the result counts, when
    /// short) and its unit: `time of one request end to end (us)`.
    pub axis: String,
    /// What one sample is, whole (the result's `counts`); empty where the file says nothing.
    pub each: String,
}

/// Longest first clause of a result's `counts` that still reads as an axis title.
const AXIS_CLAUSE_MAX: usize = 60;

impl LatencyWords {
    /// The words for the result `id` whose samples are each `counts`, in `unit`.
    pub fn new(id: &str, counts: &str, unit: &str) -> Self {
        let clause = counts.split(['(', ',', ';']).next().unwrap_or("").trim();
        let what = if clause.is_empty() || clause.chars().count() > AXIS_CLAUSE_MAX {
            "time per sample"
        } else {
            clause
        };
        Self {
            id: id.to_string(),
            caption: format!("Latency: {id}"),
            axis: format!("{what} ({unit})"),
            each: counts.trim().to_string(),
        }
    }

    /// The words of `r`'s histogram.
    pub fn of(r: &BenchResult) -> Self {
        Self::new(&r.id, &r.counts, &r.unit)
    }
}

/// Results with a latency distribution whose samples are the latencies: one operation per
/// sample (not a pipelined window whose percentiles are over its items, nor a batch whose
/// sample is shared by its requests).
pub fn latencies(doc: &RunDocument) -> Vec<Latency> {
    doc.results
        .iter()
        .filter(|r| r.status == Status::Ok && r.metric == MetricKind::TimePerOp)
        .filter(|r| r.iterations_per_sample <= 1 && r.work.ops <= 1)
        .filter_map(|r| {
            let l = r.latency.as_ref()?;
            Some((
                LatencyWords::of(r),
                r.samples.clone(),
                [("p50", Some(l.p50_us)), ("p95", l.p95()), ("p99", l.p99())]
                    .into_iter()
                    .filter_map(|(name, v)| Some((name, v?)))
                    .collect(),
            ))
        })
        .collect()
}

/// The bar of a result: its median and 95% interval.
pub fn bar(r: &BenchResult) -> Option<Bar> {
    let s = r.summary.as_ref().filter(|_| r.status == Status::Ok)?;
    Some(Bar {
        value: s.median,
        low: s.ci_low,
        high: s.ci_high,
        best: best_sample(r),
        tip: tip(r),
    })
}

/// The best sample of a result: the fastest one, i.e. the largest where larger is better (the
/// max rate BabelStream reports, STREAM's best trial) and the smallest otherwise. Every sample
/// of a rate is bytes over that sample's time, as the median is, so the max rate is bytes over
/// the fastest sample's time. From the summary's extremes, else from the stored samples.
pub fn best_sample(r: &BenchResult) -> Option<f64> {
    let from_summary = r
        .summary
        .as_ref()
        .map(|s| if r.higher_is_better { s.max } else { s.min });
    from_summary.filter(|v| v.is_finite()).or_else(|| {
        let finite = r.samples.iter().copied().filter(|v| v.is_finite());
        if r.higher_is_better {
            finite.max_by(f64::total_cmp)
        } else {
            finite.min_by(f64::total_cmp)
        }
    })
}

/// A stream row: its kernel label, its role (a shader kernel, the copy engine or the host
/// reference), its bar and how many samples it has.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamBar {
    /// Kernel label (`copy`, `copy_buffer_to_buffer`, `host memcpy`).
    pub label: String,
    /// What it measures.
    pub role: Role,
    /// Median, interval, best sample and tooltip.
    pub bar: Bar,
    /// Number of samples.
    pub samples: usize,
}

/// Stream kernels measured at more than one array size (the full profile's sweep), as
/// GB/s against array bytes, one series per kernel.
pub fn stream_sweep(doc: &RunDocument) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for r in doc
        .results
        .iter()
        .filter(|r| r.role != Role::HostReference && in_group(r, group::STREAM_KERNELS))
    {
        let (Some(kernel), Some(bytes), Some(y)) =
            (param_str(r, "kernel"), param_f64(r, "array_bytes"), ok(r))
        else {
            continue;
        };
        add_point(&mut series, kernel, (bytes, y), tip(r));
    }
    series.retain(|s| s.points.len() > 1);
    for s in &mut series {
        s.sort();
    }
    series
}

/// The working-set curves' kernel rows whose series is `kernel` (`read` or `chase`) of every
/// file, one series per file (named by file when several), by working set (the hint's x): the
/// bandwidth or latency curve.
pub fn memory_sweep(files: &[(String, &RunDocument)], kernel: &str) -> Vec<Series> {
    let several = files.len() > 1;
    let mut series = Vec::new();
    for (i, (label, doc)) in files.iter().enumerate() {
        let name = if several {
            label.clone()
        } else {
            kernel.to_string()
        };
        let mut s = Series::new(name, i);
        s.marker = i;
        for r in doc.results.iter().filter(|r| r.role == Role::Kernel) {
            let Some((x, Some(key))) = curve_keys(r, group::WORKING_SET) else {
                continue;
            };
            if param_str(r, &key) != Some(kernel) {
                continue;
            }
            if let (Some(bytes), Some(y)) = (param_f64(r, &x), ok(r)) {
                s.push((bytes, y), tip(r));
            }
        }
        if s.points.len() > 1 {
            s.sort();
            series.push(s);
        }
    }
    series
}

/// Stream results, one per kernel at its largest size, in the document's order.
pub fn stream_bars(doc: &RunDocument) -> Vec<StreamBar> {
    let largest = |r: &BenchResult| param_f64(r, "array_bytes").unwrap_or(0.0);
    let mut bars: Vec<(StreamBar, f64)> = Vec::new();
    for r in doc
        .results
        .iter()
        .filter(|r| in_group(r, group::STREAM_KERNELS))
    {
        let Some(bar) = bar(r) else { continue };
        let row = StreamBar {
            label: param_str(r, "kernel").map_or_else(|| short_id(r), str::to_string),
            role: r.role,
            bar,
            samples: r.samples.len(),
        };
        match bars.iter_mut().find(|(b, _)| b.label == row.label) {
            Some(entry) if largest(r) > entry.1 => *entry = (row, largest(r)),
            Some(_) => {}
            None => bars.push((row, largest(r))),
        }
    }
    bars.into_iter().map(|(b, _)| b).collect()
}

/// The suites of the first document, in its order.
pub fn suites(docs: &[RunDocument]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in docs.iter().take(1).flat_map(|d| &d.results) {
        if !out.contains(&r.suite) {
            out.push(r.suite.clone());
        }
    }
    out
}

/// The first document's results that `keep` selects and that are measured ok in every
/// document, and measured the same way (metric, unit, direction and clock, as the cross-card
/// table judges it), in the first document's order, as ratios to the first document, oriented
/// so that > 1 is better (for the cross-card charts).
pub fn cross_card_of(
    docs: &[RunDocument],
    keep: impl Fn(&BenchResult) -> bool,
) -> (Vec<String>, Vec<Vec<Option<Bar>>>) {
    let Some(first) = docs.first() else {
        return (Vec::new(), Vec::new());
    };
    let mut ids = Vec::new();
    let mut rows = Vec::new();
    for base in first
        .results
        .iter()
        // A metric this gpubench does not know has no known direction to orient a ratio by.
        .filter(|r| {
            keep(r)
                && r.metric.is_known()
                && ok(r).is_some()
                && r.summary.as_ref().is_some_and(|s| s.n > 1)
        })
    {
        let Some(base_median) = ok(base).filter(|m| *m > 0.0) else {
            continue;
        };
        let row: Vec<Option<Bar>> = docs
            .iter()
            .map(|doc| {
                let r = doc
                    .result(&base.id)
                    .filter(|r| measured_otherwise(r, base).is_none())?;
                let b = bar(r)?;
                let (value, low, high) = if base.higher_is_better {
                    (
                        b.value / base_median,
                        b.low / base_median,
                        b.high / base_median,
                    )
                } else {
                    (
                        base_median / b.value,
                        base_median / b.high,
                        base_median / b.low,
                    )
                };
                Some(Bar {
                    value,
                    low,
                    high,
                    best: None,
                    tip: format!(
                        "{}\nratio to the first file {} (median's 95% CI [{}, {}])\n{}",
                        doc.machine.adapter.name,
                        sig3(value),
                        sig3(low),
                        sig3(high),
                        b.tip
                    ),
                })
            })
            .collect();
        if row.iter().all(Option::is_some) {
            ids.push(base.id.clone());
            rows.push(row);
        }
    }
    (ids, rows)
}

/// The sustained run's windows as (seconds since start, value), one series per result.
pub fn sustained(doc: &RunDocument) -> (Vec<Series>, String) {
    let mut unit = String::new();
    let series = doc
        .results
        .iter()
        .filter(|r| r.status == Status::Ok)
        .filter(|r| matches!(hint_of(r).as_deref(), Some(ChartHint::Windows)))
        .map(|r| {
            unit = r.unit.clone();
            let window = r
                .extra
                .get("window_s")
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(1.0);
            let mut s = Series::new(short_id(r), 0);
            for (i, v) in r.samples.iter().enumerate() {
                let t = (i + 1) as f64 * window;
                s.push(
                    (t, *v),
                    format!(
                        "{}\nwindow ending {} s: {} {}",
                        r.id,
                        sig3(t),
                        sig3(*v),
                        r.unit
                    ),
                );
            }
            s
        })
        .collect();
    (series, unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::results_file::load_document;

    /// Rows of every transfer kind feed the chart: copy-engine rows beside the end-to-end ones
    /// become a series of their own, and a skipped path (zero copy on a discrete adapter) none.
    #[test]
    fn transfer_rows_of_every_kind_become_series() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lavapipe-quick.json");
        let mut doc = load_document(&fixture).expect("the recorded run loads");
        let as_path = |r: &BenchResult, path: &str| {
            let mut row = r.clone();
            row.id = row.id.replace("h2d-mapped-staging", path);
            row.params.insert("path".into(), path.into());
            row
        };
        let copies: Vec<BenchResult> = doc
            .results
            .iter()
            .filter(|r| r.suite == "transfer" && !r.params.contains_key("fit"))
            .filter(|r| param_str(r, "path") == Some("h2d-mapped-staging"))
            .map(|r| {
                let mut row = as_path(r, "h2d-staging-copy");
                row.role = Role::CopyEngine;
                row
            })
            .collect();
        assert!(!copies.is_empty(), "the fixture has a mapped-staging sweep");
        let mut skipped = as_path(&copies[0], "h2d-zero-copy");
        skipped.id = "transfer/h2d-zero-copy/bytes/4KiB".into();
        skipped.status = Status::Skipped;
        skipped.summary = None;
        let sizes = copies.len();
        doc.results.extend(copies);
        doc.results.push(skipped);
        let (series, _) = transfer(&doc);
        let copy = series
            .iter()
            .find(|s| s.name == "h2d-staging-copy")
            .expect("a series for the copy-engine path");
        assert_eq!(copy.points.len(), sizes);
        assert!(series.iter().all(|s| s.name != "h2d-zero-copy"));
        assert!(series.iter().any(|s| s.name == "h2d-mapped-staging"));
    }

    /// A copy whose bytes stayed on the device (a large BAR's staging buffer) is its own
    /// series, named so, with its fit; the host-device series hold none of its points.
    #[test]
    fn rows_that_stayed_on_the_device_are_a_series_apart() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lavapipe-quick.json");
        let mut doc = load_document(&fixture).expect("the recorded run loads");
        for r in doc.results.iter_mut().filter(|r| r.suite == "transfer") {
            r.params.insert("crosses_link".into(), true.into());
        }
        let copies: Vec<BenchResult> = doc
            .results
            .iter()
            .filter(|r| param_str(r, "path") == Some("h2d-mapped-staging"))
            .map(|r| {
                let mut row = r.clone();
                row.id = row.id.replace("h2d-mapped-staging", "h2d-staging-copy");
                row.params.insert("path".into(), "h2d-staging-copy".into());
                if !row.params.contains_key("fit") {
                    row.params.insert("crosses_link".into(), false.into());
                    row.role = Role::CopyEngine;
                }
                row
            })
            .collect();
        doc.results.extend(copies);
        let (series, models) = transfer(&doc);
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"h2d-staging-copy (on device)"), "{names:?}");
        assert!(!names.contains(&"h2d-staging-copy"), "{names:?}");
        assert!(
            models.iter().any(|m| m.0 == "h2d-staging-copy (on device)"),
            "its fit follows it: {models:?}"
        );
        // Without a link (unified memory: no row crosses one) nothing is marked.
        for r in doc.results.iter_mut() {
            r.params.insert("crosses_link".into(), false.into());
        }
        let (series, _) = transfer(&doc);
        assert!(series.iter().all(|s| !s.name.contains("(on device)")));
    }

    /// A roofline sweep point sits at the intensity its row states (FLOP per byte read), not
    /// at its work's FLOP over every byte (the one vec4 per invocation it also writes), so the
    /// point that sets the bandwidth ceiling lies on that ceiling.
    #[test]
    fn a_stream_row_smaller_than_its_suites_largest_array_is_no_memory_ceiling() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lavapipe-quick.json");
        let mut doc = load_document(&fixture).expect("the recorded run loads");
        // A run without roofline rows, as a stream-only run has: the candidates decide.
        doc.results.retain(|r| r.suite == "stream");
        let main = ceilings(&doc).bandwidth_gbs.expect("a bandwidth ceiling");
        // A full profile's cache sweep row from a file that did not mark it: a 256 KiB triad
        // ten times faster than memory, in a cache.
        let mut cached = doc
            .results
            .iter()
            .find(|r| param_str(r, "kernel") == Some("triad") && r.status == Status::Ok)
            .expect("a triad row")
            .clone();
        cached.id = "stream/triad/vec4-f32/256KiB".into();
        cached
            .params
            .insert("array_bytes".into(), (256 * 1024).into());
        // The stream suite's cache-sweep param, which an older file lacks.
        cached.params.remove("cache_sweep");
        let summary = cached.summary.as_mut().expect("summary");
        summary.median *= 10.0;
        assert!(
            ceiling_candidate(&cached),
            "the row is a candidate by its hint"
        );
        doc.results.push(cached);
        assert_eq!(ceilings(&doc).bandwidth_gbs, Some(main));
    }

    #[test]
    fn roofline_points_sit_at_their_stated_intensity() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/lavapipe-quick.json");
        let doc = load_document(&fixture).expect("the recorded run loads");
        let sweep: Vec<&BenchResult> = doc
            .results
            .iter()
            .filter(|r| r.params.contains_key(chart::INTENSITY) && r.work.bytes_written > 0)
            .collect();
        assert!(
            !sweep.is_empty(),
            "the fixture has a roofline sweep that writes"
        );
        let points: Vec<(f64, f64)> = roofline_points(&doc)
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .collect();
        for r in sweep {
            let stated = param_f64(r, chart::INTENSITY).expect("numeric");
            let of_work = r.work.flops as f64 / r.work.total_bytes() as f64;
            assert!(of_work < stated, "{}: writes lower the work's ratio", r.id);
            let y = ok(r).expect("ok");
            assert!(
                points.iter().any(|&(px, py)| px == stated && py == y),
                "{} drawn at {stated} FLOP/B: {points:?}",
                r.id
            );
        }
    }

    #[test]
    fn a_result_timed_by_another_clock_is_no_cross_card_bar() {
        let a = gpubench_baseline::testing::doc_with("A", false);
        let b = gpubench_baseline::testing::scaled(&a, 2.0);
        let (ids, rows) = cross_card_of(&[a.clone(), b.clone()], |_| true);
        assert!(!ids.is_empty() && rows.iter().all(|r| r.iter().all(Option::is_some)));
        // The second card lost its timestamps on the first result: its host time (submit to
        // completion) against the first card's GPU time says nothing about the cards.
        let mut host_timed = b.clone();
        host_timed.results[0].timing = Some(gpubench_results::TimingSource::Host);
        let (fewer, _) = cross_card_of(&[a.clone(), host_timed], |_| true);
        assert_eq!(fewer.len(), ids.len() - 1);
        assert!(!fewer.contains(&a.results[0].id));
    }

    /// A histogram's words come from its result: a datapath request is a request, a launch
    /// round trip a round trip.
    #[test]
    fn latency_words_are_the_results_own() {
        let request = LatencyWords::new(
            "datapath/x/serial",
            "time of one request end to end (prepare, upload, compute, download, check), one at a time",
            "us",
        );
        assert_eq!(request.caption, "Latency: datapath/x/serial");
        assert_eq!(request.axis, "time of one request end to end (us)");
        assert!(request.each.contains("prepare, upload, compute"));
        let long = LatencyWords::new("launch/round-trip/one-dispatch", &"word ".repeat(20), "us");
        assert_eq!(long.axis, "time per sample (us)");
        assert_eq!(
            LatencyWords::new("a/b", "", "us").axis,
            "time per sample (us)"
        );
    }
}
