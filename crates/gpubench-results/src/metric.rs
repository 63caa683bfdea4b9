//! What a benchmark declares before it runs: what its number measures ([`MetricKind`]), what part
//! the result plays ([`Role`]), the work of one iteration ([`Work`]) and how it is to be timed
//! ([`BenchmarkInfo`]). Plain data, shared by the runner that measures and the readers that judge.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::kind_name::{KindName, KindNameError};

/// What a result's number measures, which decides its unit and its direction.
///
/// A file from a newer gpubench may name a metric this one does not know: it reads as
/// `Unknown`, keeping the name as written (new metrics do not raise `schema_version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MetricKind {
    /// Bytes read plus bytes written per second, in GB/s (10^9 B/s).
    Bandwidth,
    /// Floating-point operations per second, in GFLOP/s (10^9 FLOP/s; an FMA counts as two).
    Throughput,
    /// Integer operations per second, in GIOP/s (10^9 integer operations/s; a multiply-add
    /// counts as two, a 4-lane 8-bit dot product with its accumulate as eight).
    IntThroughput,
    /// Time per operation in microseconds (lower is better).
    TimePerOp,
    /// Time per dependent memory load in nanoseconds (lower is better): a pointer chase.
    Latency,
    /// An amount of memory in GiB (2^30 bytes), e.g. the largest buffer that could be allocated.
    Capacity,
    /// A size in KiB (2^10 bytes) derived from a model, e.g. the transfer size reaching half the
    /// asymptotic bandwidth (smaller is better: the path is efficient sooner).
    Size,
    /// Arithmetic intensity in FLOP per byte (a roofline's ridge point).
    ArithmeticIntensity,
    /// A percentage of a measured ceiling (matmul as a fraction of the FMA peak).
    FractionOfPeak,
    /// A metric this gpubench does not know, written by a newer one, kept by its name. Its unit
    /// and direction are its result's own (`unit`, `higher_is_better`): readers show them and
    /// never judge the result, since what "better" means for it is not known here.
    #[serde(untagged)]
    Unknown(KindName),
}

impl MetricKind {
    /// Every metric this gpubench knows, in the order the schema lists them.
    pub const KNOWN: [MetricKind; 9] = [
        MetricKind::Bandwidth,
        MetricKind::Throughput,
        MetricKind::IntThroughput,
        MetricKind::TimePerOp,
        MetricKind::Latency,
        MetricKind::Capacity,
        MetricKind::Size,
        MetricKind::ArithmeticIntensity,
        MetricKind::FractionOfPeak,
    ];

    /// The known metric written `name`, or `None` when this gpubench does not know it.
    pub fn known(name: &str) -> Option<MetricKind> {
        Self::KNOWN.into_iter().find(|m| m.name() == name)
    }

    /// The metric a file names `name`: a known one, else [`MetricKind::Unknown`] keeping the
    /// name; an error only for a name no file may hold (empty, or too long to keep).
    pub fn from_name(name: &str) -> Result<MetricKind, KindNameError> {
        match Self::known(name) {
            Some(known) => Ok(known),
            None => KindName::new(name).map(MetricKind::Unknown),
        }
    }

    /// Whether this gpubench knows the metric (its unit, its direction, how to judge it).
    pub fn is_known(self) -> bool {
        !matches!(self, MetricKind::Unknown(_))
    }

    /// The unit the metric is reported in; empty for an unknown metric, whose results carry
    /// their own unit (`BenchResult::unit`).
    pub fn unit(self) -> &'static str {
        match self {
            MetricKind::Bandwidth => "GB/s",
            MetricKind::Throughput => "GFLOP/s",
            MetricKind::IntThroughput => "GIOP/s",
            MetricKind::TimePerOp => "us",
            MetricKind::Latency => "ns",
            MetricKind::Capacity => "GiB",
            MetricKind::Size => "KiB",
            MetricKind::ArithmeticIntensity => "FLOP/B",
            MetricKind::FractionOfPeak => "%",
            MetricKind::Unknown(_) => "",
        }
    }

    /// The metric's name as written in files (an unknown one's as its file wrote it).
    pub fn name(&self) -> &str {
        match self {
            MetricKind::Bandwidth => "bandwidth",
            MetricKind::Throughput => "throughput",
            MetricKind::IntThroughput => "int-throughput",
            MetricKind::TimePerOp => "time-per-op",
            MetricKind::Latency => "latency",
            MetricKind::Capacity => "capacity",
            MetricKind::Size => "size",
            MetricKind::ArithmeticIntensity => "arithmetic-intensity",
            MetricKind::FractionOfPeak => "fraction-of-peak",
            MetricKind::Unknown(name) => name.as_str(),
        }
    }

    /// Whether the metric is a rate that repeats within a few percent on a quiet machine
    /// (bandwidth, throughput), as opposed to a time or a derived quantity.
    pub fn is_rate(self) -> bool {
        matches!(
            self,
            MetricKind::Bandwidth | MetricKind::Throughput | MetricKind::IntThroughput
        )
    }

    /// Whether a larger value is better. An unknown metric's direction is not known here: it
    /// says `true`, and nothing judges by it ([`MetricKind::is_known`] comes first).
    pub fn higher_is_better(self) -> bool {
        !matches!(
            self,
            MetricKind::TimePerOp | MetricKind::Latency | MetricKind::Size
        )
    }

    /// The metric's value for one iteration's `work` done in `seconds`.
    pub fn value(self, work: &Work, seconds: f64) -> f64 {
        match self {
            MetricKind::Bandwidth => work.total_bytes() as f64 / seconds / 1e9,
            MetricKind::Throughput => work.flops as f64 / seconds / 1e9,
            MetricKind::IntThroughput => work.int_ops as f64 / seconds / 1e9,
            MetricKind::TimePerOp => seconds * 1e6 / work.ops.max(1) as f64,
            MetricKind::Latency => seconds * 1e9 / work.ops.max(1) as f64,
            MetricKind::Capacity => work.total_bytes() as f64 / (1u64 << 30) as f64,
            MetricKind::Size => work.total_bytes() as f64 / 1024.0,
            MetricKind::ArithmeticIntensity => work.flops as f64 / work.total_bytes().max(1) as f64,
            // A fraction is derived from two results, never timed: seconds do not enter it.
            MetricKind::FractionOfPeak => f64::NAN,
            // Nothing here knows how an unknown metric is computed.
            MetricKind::Unknown(_) => f64::NAN,
        }
    }
}

/// What part a result plays, so that code which looks rows up (charts, derived results,
/// fractions of peak) finds them by role instead of by matching ids.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A GPU kernel or transfer measured in its own right (the default).
    #[default]
    Kernel,
    /// The host's own memcpy: a reference row for the host side, not a GPU figure.
    HostReference,
    /// `copy_buffer_to_buffer`: the copy engine (or whatever the driver copies buffers with).
    CopyEngine,
    /// The measured device-memory bandwidth ceiling of a roofline.
    BandwidthCeiling,
    /// The measured compute ceiling of a roofline.
    ComputeCeiling,
    /// Computed from other results (a fitted model, a ridge point, a fraction of peak).
    Derived,
}

impl Role {
    /// The role as files name it (`kernel`, `host-reference`, `derived`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Kernel => "kernel",
            Role::HostReference => "host-reference",
            Role::CopyEngine => "copy-engine",
            Role::BandwidthCeiling => "bandwidth-ceiling",
            Role::ComputeCeiling => "compute-ceiling",
            Role::Derived => "derived",
        }
    }
}

/// The work one iteration does. GB/s and GFLOP/s come from this declaration and the measured
/// time, the same way for every benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Work {
    /// Bytes read from memory per iteration.
    pub bytes_read: u64,
    /// Bytes written to memory per iteration.
    pub bytes_written: u64,
    /// Floating-point operations per iteration (an FMA counts as two).
    pub flops: u64,
    /// Operations (dispatches, submits, transfers) per iteration, for time-per-operation metrics.
    pub ops: u64,
    /// Integer arithmetic operations per iteration (a multiply-add counts as two), for integer
    /// throughput.
    #[serde(default)]
    pub int_ops: u64,
}

impl Work {
    /// One operation moving `read` and `written` bytes, with no floating-point work.
    pub const fn bytes(read: u64, written: u64) -> Self {
        Self {
            bytes_read: read,
            bytes_written: written,
            flops: 0,
            ops: 1,
            int_ops: 0,
        }
    }

    /// One operation of `flops` floating-point operations, with no memory traffic declared.
    pub const fn flops(flops: u64) -> Self {
        Self {
            bytes_read: 0,
            bytes_written: 0,
            flops,
            ops: 1,
            int_ops: 0,
        }
    }

    /// `ops` operations (dispatches, submits, transfers) that move nothing worth counting.
    pub const fn ops(ops: u64) -> Self {
        Self {
            bytes_read: 0,
            bytes_written: 0,
            flops: 0,
            ops,
            int_ops: 0,
        }
    }

    /// One operation of `int_ops` integer arithmetic operations, with no memory traffic declared.
    pub const fn int_ops(int_ops: u64) -> Self {
        Self {
            bytes_read: 0,
            bytes_written: 0,
            flops: 0,
            ops: 1,
            int_ops,
        }
    }

    /// The same work, with the bytes it also moves.
    pub const fn with_bytes(mut self, read: u64, written: u64) -> Self {
        self.bytes_read = read;
        self.bytes_written = written;
        self
    }

    /// Bytes read plus bytes written: the convention of STREAM and BabelStream.
    pub fn total_bytes(&self) -> u64 {
        self.bytes_read + self.bytes_written
    }
}

impl std::str::FromStr for MetricKind {
    type Err = String;

    /// Parses the name of a metric this gpubench knows (`bandwidth`, `time-per-op`, ...): for
    /// names a user types, where an unknown one is a mistake. Files go through
    /// [`MetricKind::from_name`], which keeps unknown names.
    fn from_str(name: &str) -> Result<Self, String> {
        Self::known(name).ok_or_else(|| format!("unknown metric '{name}'"))
    }
}

impl std::fmt::Display for MetricKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A file's metric name: known, or kept as [`MetricKind::Unknown`]; the error says why a name
/// cannot be kept (empty, too long).
impl<'de> Deserialize<'de> for MetricKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        // The error quotes only the name's start: a file's string may be megabytes long.
        MetricKind::from_name(&name).map_err(|e| serde::de::Error::custom(format!("metric: {e}")))
    }
}

/// Which clock is the headline for a benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TimingPreference {
    /// GPU timestamps where the adapter has them, else the host clock.
    GpuWhenAvailable,
    /// The host clock from start to completion is the headline (end-to-end costs such as a
    /// transfer the application waits for); GPU time is still recorded when available.
    Host,
    /// GPU timestamps or no figure: a quantity the host clock cannot stand in for (the gap
    /// between dispatches on the GPU). Where the samples' timestamps cannot give the headline
    /// (most pairs unusable, or disproved by the host clock), the result is skipped and says
    /// why, never stated by the host clock under the GPU quantity's name.
    GpuOnly,
}

/// How many iterations go in one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IterationPolicy {
    /// The runner calibrates the count so a sample lasts about the target time.
    Calibrate,
    /// Always this many (e.g. 1 for a round-trip latency).
    Fixed(u32),
}

/// What a benchmark's runs do to what its check reads back, which decides whether the runner
/// overwrites that before the timed runs (see `gpubench_harness::read_log`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Outputs {
    /// Every run writes it whole again: it is overwritten after the first check, so the check
    /// after the timed samples sees only what they wrote.
    #[default]
    Rewritten,
    /// Runs add to it (a counter of dispatches): the check already counts every run, and a
    /// poison would lose the count.
    Accumulated,
}

/// Everything the runner and the result need to know about a benchmark before it runs.
#[derive(Debug, Clone)]
pub struct BenchmarkInfo {
    /// Stable id, e.g. `stream/triad/vec4-f32/256MiB`: results are paired by it.
    pub id: String,
    /// Suite name, e.g. `stream`.
    pub suite: String,
    /// Parameters worth recording (size, precision, variant, ...).
    pub params: BTreeMap<String, serde_json::Value>,
    /// What the number measures.
    pub metric: MetricKind,
    /// What part the result plays for code that looks rows up.
    pub role: Role,
    /// One line saying what the metric counts, e.g. "bytes read + written per second".
    pub counts: String,
    /// Which clock is the headline.
    pub timing: TimingPreference,
    /// How many iterations go in one sample.
    pub iterations: IterationPolicy,
    /// At least this many samples, whatever the profile says (latency distributions need
    /// hundreds); `None` follows the profile.
    pub min_samples: Option<usize>,
    /// Sample for exactly this long, every sample a window of a time series (a sustained run):
    /// no early stop on variation, no sample-count or time cap. `None` follows the profile.
    pub duration: Option<std::time::Duration>,
    /// Target length of one sample instead of the profile's (still capped by its watchdog-safe
    /// maximum), e.g. longer windows for a sustained run.
    pub target_sample: Option<std::time::Duration>,
    /// What the runs do to the output the check reads.
    pub outputs: Outputs,
}

impl BenchmarkInfo {
    /// Info with the common defaults: GPU time when available, calibrated iterations.
    pub fn new(id: impl Into<String>, suite: &str, metric: MetricKind, counts: &str) -> Self {
        Self {
            id: id.into(),
            suite: suite.to_string(),
            params: BTreeMap::new(),
            metric,
            role: Role::Kernel,
            counts: counts.to_string(),
            timing: TimingPreference::GpuWhenAvailable,
            iterations: IterationPolicy::Calibrate,
            min_samples: None,
            duration: None,
            target_sample: None,
            outputs: Outputs::Rewritten,
        }
    }

    /// Sets the role.
    pub fn role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }

    /// Sets what the runs do to the output the check reads.
    pub fn outputs(mut self, outputs: Outputs) -> Self {
        self.outputs = outputs;
        self
    }

    /// Adds a parameter.
    pub fn param(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.params.insert(key.to_string(), value.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roles_name_is_the_one_files_hold() {
        for role in [
            Role::Kernel,
            Role::HostReference,
            Role::CopyEngine,
            Role::BandwidthCeiling,
            Role::ComputeCeiling,
            Role::Derived,
        ] {
            assert_eq!(
                serde_json::to_value(role).expect("serializes"),
                role.as_str()
            );
        }
    }

    #[test]
    fn known_names_read_as_their_kind_and_others_are_kept() {
        for kind in MetricKind::KNOWN {
            let json = serde_json::to_string(&kind).expect("serialise");
            assert_eq!(json, format!("\"{}\"", kind.name()));
            let back: MetricKind = serde_json::from_str(&json).expect("read");
            assert_eq!(back, kind);
            assert!(back.is_known());
        }
        let newer: MetricKind = serde_json::from_str("\"joules-per-request\"").expect("unknown");
        assert_eq!(newer.name(), "joules-per-request");
        assert!(!newer.is_known() && !newer.is_rate());
        assert_eq!(newer.unit(), "", "an unknown metric's unit is its result's");
        assert_eq!(
            serde_json::to_string(&newer).expect("serialise"),
            "\"joules-per-request\""
        );
        // Typed input stays strict: a user's unknown name is a mistake, not a newer file.
        assert!("joules-per-request".parse::<MetricKind>().is_err());
        assert_eq!("latency".parse::<MetricKind>(), Ok(MetricKind::Latency));
    }

    #[test]
    fn names_no_file_may_hold_are_refused_with_the_reason() {
        assert!(serde_json::from_str::<MetricKind>("\"\"").is_err());
        let long = format!("\"{}\"", "m".repeat(KindName::CAPACITY + 1));
        let error = serde_json::from_str::<MetricKind>(&long).expect_err("too long");
        assert!(error.to_string().contains("up to 63 bytes"), "{error}");
        assert!(serde_json::from_str::<MetricKind>("3").is_err());
    }
}
