//! The one interface every telemetry reader implements: NVML, amdgpu sysfs, and the scripted
//! source tests use. The sampler thread and the doctor see only this trait.

use gpubench_results::telemetry::Sensors;
use serde::{Deserialize, Serialize};

/// One reading of the device; each quantity is `None` where the source does not expose it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reading {
    /// Clocks, power, temperature and utilisation (over the last interval) now.
    #[serde(flatten)]
    pub sensors: Sensors<f64>,
    /// Reasons the clocks are held down right now (`sw-power-cap`, `hw-thermal-slowdown`, ...);
    /// always empty from a source that does not report them
    /// ([`gpubench_results::telemetry::reports_throttle_reasons`]).
    pub throttle_reasons: Vec<String>,
}

/// What does not change during a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeviceFacts {
    /// Highest graphics clock the device can reach, MHz.
    pub max_sm_clock_mhz: Option<f64>,
    /// Highest memory clock, MHz.
    pub max_memory_clock_mhz: Option<f64>,
    /// Kernel driver version.
    pub driver_version: Option<String>,
}

/// Another process with a context on the device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuProcess {
    /// Process id.
    pub pid: u32,
    /// Its command name, when the host tells.
    #[serde(default)]
    pub name: Option<String>,
    /// Device memory it holds, bytes, when the source tells.
    #[serde(default)]
    pub used_memory_bytes: Option<u64>,
}

/// The name the amdgpu sysfs reader records with every summary.
pub const AMDGPU_SOURCE: &str = gpubench_results::telemetry::AMDGPU_SYSFS_SOURCE;

/// A reader of one device's telemetry. Reading must be cheap (well under a millisecond on a
/// real driver) because it runs ten to twenty times a second beside the benchmark.
pub trait TelemetrySource: Send {
    /// Short name recorded with every summary (`nvml`, `amdgpu-sysfs`).
    fn name(&self) -> &str;
    /// Reads every quantity the source exposes now.
    fn sample(&mut self) -> Reading;
    /// Limits and versions.
    fn facts(&mut self) -> DeviceFacts;
    /// Processes other than this one using the device; `None` when the source cannot tell.
    fn other_processes(&mut self) -> Option<Vec<GpuProcess>>;
}

/// The result of looking for a source for an adapter.
pub enum Opened {
    /// A source that reads this adapter.
    Source(Box<dyn TelemetrySource>),
    /// None can be read; the reason says why and what would help.
    Unavailable(String),
    /// A software adapter: nothing to read.
    NotApplicable(String),
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Opened::Source(source) => write!(f, "Source({})", source.name()),
            Opened::Unavailable(reason) => write!(f, "Unavailable({reason})"),
            Opened::NotApplicable(reason) => write!(f, "NotApplicable({reason})"),
        }
    }
}
