//! The result document: one versioned JSON file per run. Its JSON Schema is published as
//! `docs/results.schema.json` (generated from these types; a test fails when it drifts).
//!
//! `schema_version` rules:
//! - a field added with a default (`#[serde(default)]`) keeps the version: older readers ignore
//!   unknown fields (serde's default) and newer readers fill the default;
//! - a field whose type or meaning changes, or that is removed or renamed, raises the version;
//!   readers keep reading every older version back to [`OLDEST_READABLE_SCHEMA`];
//! - readers refuse versions newer than [`SCHEMA_VERSION`] rather than guess;
//! - new metrics, warning kinds and fields keep the version: a reader keeps a metric or warning
//!   kind it does not know ([`MetricKind::Unknown`], [`crate::warnings::WarningKind::Unknown`],
//!   names of 1 to [`crate::KindName::CAPACITY`] bytes), shows it, and never judges it (its
//!   direction is unknown); writing the document back keeps the name as it was.
//!
//! History: 1, the first; 2, warnings became `{kind, message, figure}` objects (schema 1's
//! plain strings still read, as kind `other`); 3, the metrics `int-throughput` (GIOP/s) and
//! `latency` (ns per dependent load) and `work.int_ops` (a schema-2 reader would refuse the new
//! metrics' names).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::adapter::AdapterSummary;
use crate::metric::{MetricKind, Role, Work};
use crate::profile::RunSettings;
use crate::stats::{LatencySummary, Summary};

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = 3;
/// The oldest schema version this build reads.
pub const OLDEST_READABLE_SCHEMA: u32 = 1;

/// One run of gpubench.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunDocument {
    /// Version of this schema.
    pub schema_version: u32,
    /// The tool that wrote the file.
    pub tool: ToolInfo,
    /// The machine and adapter measured.
    pub machine: MachineInfo,
    /// How the run was configured.
    pub config: RunConfig,
    /// When the run started, UTC, RFC 3339.
    pub started_at: String,
    /// When the run finished, UTC, RFC 3339; absent while running or when interrupted.
    #[serde(default)]
    pub finished_at: Option<String>,
    /// False while the run is in progress or when it was interrupted.
    #[serde(default)]
    pub complete: bool,
    /// Warnings about the whole run (software adapter, no timestamps).
    #[serde(default)]
    pub warnings: Vec<crate::warnings::WarningRecord>,
    /// One entry per benchmark, in the order they ran.
    #[serde(default)]
    pub results: Vec<BenchResult>,
    /// Clocks, power and temperature over the run, the PCIe link and the datasheet figures
    /// matched to the adapter; absent when the run had no telemetry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<crate::telemetry::RunTelemetry>,
    /// The run's own noise level: a fixed reference measured at its start and end; absent when
    /// the run did not measure it (`--noise-check off`, or files from before it existed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<crate::run_noise::RunNoise>,
}

impl RunDocument {
    /// Whether any result failed verification (such a run never becomes a baseline).
    pub fn has_failures(&self) -> bool {
        self.results.iter().any(|r| r.status == Status::Failed)
    }

    /// The result with this id, if the run has one (ids are unique within a run).
    pub fn result(&self, id: &str) -> Option<&BenchResult> {
        self.results.iter().find(|r| r.id == id)
    }
}

/// Name, version and commit of the tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolInfo {
    /// Always "gpubench".
    pub name: String,
    /// Crate version.
    pub version: String,
    /// Git commit the binary was built from (short SHA, `-dirty` when tracked files had
    /// uncommitted changes), when known.
    #[serde(default)]
    pub git_commit: Option<String>,
}

/// The machine: adapter facts (detected), host facts, and how timing was done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MachineInfo {
    /// The adapter as detected (name, ids, type, driver, backend, limits, features).
    pub adapter: AdapterSummary,
    /// True for software adapters.
    pub software_adapter: bool,
    /// Features enabled on the device.
    pub features_enabled: Vec<String>,
    /// Operating system (family and version when known).
    pub os: String,
    /// Host CPU model.
    pub cpu_model: String,
    /// The host's name, where known (fleet reports group runs by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// Logical CPUs on the host.
    pub cpu_count: usize,
    /// wgpu version the binary was built with.
    pub wgpu_version: String,
    /// "release" or "debug".
    pub build_profile: String,
    /// wgpu instance flags in force (validation, debug).
    pub instance_flags: String,
    /// "gpu-timestamp" when the adapter has timestamp queries, else "host".
    pub timing_source: TimingSource,
    /// Nanoseconds per GPU timestamp tick, when available.
    #[serde(default)]
    pub timestamp_period_ns: Option<f64>,
    /// Stable key of the adapter for baselines: backend, vendor, device and name.
    pub fingerprint: String,
}

/// The stable baseline key of an adapter: backend, vendor id, device id and a slug of its name.
/// The driver is metadata, not key: a driver update must compare against the same baseline.
pub fn fingerprint(adapter: &AdapterSummary) -> String {
    format!(
        "{}-{:04x}-{:04x}-{}",
        adapter.backend,
        adapter.vendor_id,
        adapter.device_id,
        slug(&adapter.name)
    )
}

/// Lower-case letters and digits, runs of anything else folded to one dash, at most 48 chars.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed: String = out.trim_matches('-').chars().take(48).collect();
    let trimmed = trimmed.trim_end_matches('-').to_string();
    if trimmed.is_empty() {
        "unnamed".to_string()
    } else {
        trimmed
    }
}

/// How the run was configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunConfig {
    /// Profile name.
    pub profile: String,
    /// Suites run, in order.
    pub suites: Vec<String>,
    /// Sample settings.
    pub settings: RunSettings,
    /// Extra options (sizes, shapes, variants) as given.
    #[serde(default)]
    pub options: BTreeMap<String, serde_json::Value>,
    /// The log filter in force during the run (`--log`, `GPUBENCH_LOG` or `RUST_LOG`, in
    /// env_logger's syntax), absent when nothing was logged. Logging above `warn` slows short
    /// kernels' timings, so a run that logged more is said so and never becomes a baseline
    /// unless forced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_filter: Option<String>,
}

impl RunConfig {
    /// The log filter, when it lets through more than warnings and errors (`info`, `debug` or
    /// `trace`, anywhere in it): such a run's timings include the logging.
    pub fn verbose_logging(&self) -> Option<&str> {
        self.log_filter
            .as_deref()
            .filter(|f| crate::log_filter::is_verbose(f))
    }
}

/// Outcome of one benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Measured and verified.
    Ok,
    /// Not run on this adapter; `reason` says why.
    Skipped,
    /// Ran but failed (wrong answer, GPU error, device lost); `reason` says why.
    Failed,
}

impl Status {
    /// The status as written in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
        }
    }
}

/// Which clock produced a result's headline numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TimingSource {
    /// GPU timestamp queries around the work.
    GpuTimestamp,
    /// Host clock from the start of the work to its completion.
    Host,
}

impl TimingSource {
    /// The source as written in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            TimingSource::GpuTimestamp => "gpu-timestamp",
            TimingSource::Host => "host",
        }
    }
}

/// One benchmark's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BenchResult {
    /// Stable id, e.g. `stream/triad/vec4-f32/256MiB`.
    pub id: String,
    /// Suite name.
    pub suite: String,
    /// Parameters (size, precision, variant, ...).
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// What the number measures (written as its name: bandwidth, throughput, time-per-op, ...;
    /// a name this version does not know is kept as written, and its result never judged).
    pub metric: MetricKind,
    /// Unit of every number in `summary` and `samples` (the only unit an unknown metric has).
    pub unit: String,
    /// Whether larger is better (shown, but not judged by, for a metric this version does not
    /// know).
    pub higher_is_better: bool,
    /// What part the result plays (files written before roles existed get theirs from
    /// [`legacy_role`] when read).
    #[serde(default)]
    pub role: Role,
    /// What the metric counts, in words.
    #[serde(default)]
    pub counts: String,
    /// ok, skipped or failed.
    pub status: Status,
    /// Why it was skipped or failed.
    #[serde(default)]
    pub reason: Option<String>,
    /// Whether the output matched the CPU reference.
    pub verified: bool,
    /// Clock of the headline numbers; absent when nothing was timed.
    #[serde(default)]
    pub timing: Option<TimingSource>,
    /// Work per iteration.
    pub work: Work,
    /// Iterations in each sample (after calibration).
    #[serde(default)]
    pub iterations_per_sample: u32,
    /// Summary of `samples`; absent unless status is ok.
    #[serde(default)]
    pub summary: Option<Summary>,
    /// Raw per-sample values in `unit`, by the headline clock.
    #[serde(default)]
    pub samples: Vec<f64>,
    /// The same samples by the host clock (submit to completion), when the headline is GPU time:
    /// the difference is the overhead an application pays on top of device time.
    #[serde(default)]
    pub host_summary: Option<Box<Summary>>,
    /// Raw per-sample values by the host clock.
    #[serde(default)]
    pub host_samples: Vec<f64>,
    /// The same samples by GPU timestamps, when the headline is the host clock (an end-to-end
    /// transfer or round trip) and the benchmark bracketed its device work with timestamps: the
    /// difference is what the host side (staging, mapping, submit, wait) adds to device time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_summary: Option<Box<Summary>>,
    /// Raw per-sample values by GPU timestamps (only samples with a valid pair).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_samples: Vec<f64>,
    /// Latency percentiles for latency benchmarks.
    #[serde(default)]
    pub latency: Option<Box<LatencySummary>>,
    /// Extra derived values (fitted models, ratios), by name.
    #[serde(default)]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Warnings about this measurement.
    #[serde(default)]
    pub warnings: Vec<crate::warnings::WarningRecord>,
    /// What telemetry saw while this benchmark was measured; absent when nothing was measured
    /// or the run had no telemetry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<Box<crate::telemetry::TelemetrySummary>>,
    /// How the result asks to be charted, as its suite declared it; absent in files written
    /// before hints existed (the reports infer one, see [`crate::chart_of::hint_of`]) and for
    /// results no chart draws. A kind this version does not know is kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<crate::chart::ChartHint>,
}

impl BenchResult {
    /// A result with no numbers yet, for `status` with `reason`.
    pub fn empty(
        info: &crate::metric::BenchmarkInfo,
        status: Status,
        reason: Option<String>,
    ) -> Self {
        Self {
            id: info.id.clone(),
            suite: info.suite.clone(),
            params: info.params.clone(),
            metric: info.metric,
            unit: info.metric.unit().to_string(),
            higher_is_better: info.metric.higher_is_better(),
            role: info.role,
            counts: info.counts.clone(),
            status,
            reason,
            verified: false,
            timing: None,
            work: Work::default(),
            iterations_per_sample: 0,
            summary: None,
            samples: Vec::new(),
            host_summary: None,
            host_samples: Vec::new(),
            gpu_summary: None,
            gpu_samples: Vec::new(),
            latency: None,
            extra: BTreeMap::new(),
            warnings: Vec::new(),
            telemetry: None,
            chart: None,
        }
    }

    /// Fails this measured result for `reason`, withdrawing every figure it holds, as a result
    /// that failed before it was timed holds none: its samples, summaries, latency, timing, work
    /// and iteration count. What it is (id, params, metric, what it counts) stays, and so do its
    /// warnings, extra and whether its output was verified.
    pub fn fail(&mut self, reason: String) {
        self.status = Status::Failed;
        self.reason = Some(reason);
        self.timing = None;
        self.work = Work::default();
        self.iterations_per_sample = 0;
        self.summary = None;
        self.samples.clear();
        self.host_summary = None;
        self.host_samples.clear();
        self.gpu_summary = None;
        self.gpu_samples.clear();
        self.latency = None;
    }

    /// The headline value: the median, when the result is ok.
    pub fn median(&self) -> Option<f64> {
        (self.status == Status::Ok).then_some(self.summary.as_ref()?.median)
    }

    /// Bytes read per second (10^9 B/s), for an ok bandwidth result whose work reads: its
    /// median (bytes read and written per second, STREAM's convention) times the share of its
    /// work's bytes that are reads. What a read bandwidth is compared with: stream's `read`
    /// also writes a vec4 of partial sums for every eight it reads, and triad writes a third of
    /// its bytes.
    pub fn read_rate(&self) -> Option<f64> {
        let total = self.work.total_bytes();
        let reads = self.work.bytes_read;
        if self.metric != MetricKind::Bandwidth || reads == 0 {
            return None;
        }
        Some(self.median()? * reads as f64 / total as f64)
    }
}

/// The role of a result read from a file written before results carried roles, known from the
/// ids those versions gave such rows. Used only when reading such files: new results say their
/// role themselves.
pub fn legacy_role(id: &str) -> Role {
    if id.starts_with("stream/host-memcpy/") {
        Role::HostReference
    } else if id.starts_with("stream/copy-buffer/") {
        Role::CopyEngine
    } else if id == "roofline/ceiling/bandwidth" {
        Role::BandwidthCeiling
    } else if id == "roofline/ceiling/compute" {
        Role::ComputeCeiling
    } else if id == "roofline/ridge-point"
        || id.ends_with("/fraction-of-peak")
        || (id.starts_with("transfer/") && id.contains("/fit/"))
    {
        Role::Derived
    } else {
        Role::Kernel
    }
}

impl RunDocument {
    /// A new, incomplete document for a run starting now.
    pub fn start(
        tool: ToolInfo,
        machine: MachineInfo,
        config: RunConfig,
        warnings: Vec<crate::warnings::WarningRecord>,
    ) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            tool,
            machine,
            config,
            started_at: crate::hostinfo::now_rfc3339(),
            finished_at: None,
            complete: false,
            warnings,
            results: Vec::new(),
            telemetry: None,
            noise: None,
        }
    }

    /// Marks the run finished now.
    pub fn finish(&mut self) {
        self.finished_at = Some(crate::hostinfo::now_rfc3339());
        self.complete = true;
    }
}

/// The JSON Schema (draft 2020-12) of a results file, generated from these types: what other
/// tools validate against. Published as `docs/results.schema.json`.
pub fn json_schema() -> serde_json::Value {
    let mut schema = schemars::schema_for!(RunDocument);
    schema.insert("title".into(), "gpubench results file".into());
    schema.insert(
        "description".into(),
        format!(
            "One gpubench run: machine, configuration and results. Written with schema_version {SCHEMA_VERSION}; readers accept {OLDEST_READABLE_SCHEMA} to {SCHEMA_VERSION}."
        )
        .into(),
    );
    schema.to_value()
}

/// [`json_schema`] as the published file holds it: pretty-printed, with a final newline.
pub fn json_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&json_schema()).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_stable_and_safe() {
        assert_eq!(
            slug("llvmpipe (LLVM 15.0.6, 256 bits)"),
            "llvmpipe-llvm-15-0-6-256-bits"
        );
        assert_eq!(slug("NVIDIA H200"), "nvidia-h200");
        assert_eq!(slug("///"), "unnamed");
        assert!(slug(&"x".repeat(100)).len() <= 48);
    }

    /// A bandwidth's reads alone: stream read's partial sums and triad's writes are left out;
    /// a row that reads nothing, or is no bandwidth, has none.
    #[test]
    fn the_read_rate_is_the_share_of_the_bandwidth_that_reads() {
        let row = |metric: MetricKind, work: Work| {
            let info = crate::BenchmarkInfo::new("s/k", "s", metric, "bytes");
            let mut r = BenchResult::empty(&info, Status::Ok, None);
            r.work = work;
            r.summary = crate::stats::summarize(&[90.0, 90.0]);
            r
        };
        let read = row(MetricKind::Bandwidth, Work::bytes(8 << 20, 1 << 20));
        assert_eq!(read.read_rate(), Some(80.0));
        let triad = row(MetricKind::Bandwidth, Work::bytes(2 << 20, 1 << 20));
        assert_eq!(triad.read_rate(), Some(60.0));
        assert_eq!(
            row(MetricKind::Bandwidth, Work::bytes(0, 1)).read_rate(),
            None
        );
        assert_eq!(
            row(MetricKind::Throughput, Work::bytes(1, 0)).read_rate(),
            None
        );
    }
}
