//! What the platform says about the device while it is measured: clocks, power, temperature,
//! utilisation and throttle reasons, the PCIe link and the datasheet figures of the card.
//!
//! These are data only: the harness's runner calls its `TelemetryHook` around each measured
//! region; reading them (NVML, sysfs) lives outside the harness, so the runner works the same
//! with no hook, and no vendor library is ever needed to build or run it. Detected facts (link,
//! clocks) and nominal facts (datasheets) are kept in separate fields and never mixed with the
//! measured numbers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whether telemetry was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TelemetryStatus {
    /// Read from the platform; the quantities it exposes are filled in.
    Sampled,
    /// The platform gives no readings for this adapter; `reason` says why.
    Unavailable,
    /// A software adapter: there is no device to read.
    NotApplicable,
    /// Turned off for the run (`--telemetry off`).
    Off,
}

impl TelemetryStatus {
    /// The status as written in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            TelemetryStatus::Sampled => "sampled",
            TelemetryStatus::Unavailable => "unavailable",
            TelemetryStatus::NotApplicable => "not applicable",
            TelemetryStatus::Off => "off",
        }
    }
}

/// Minimum, median and maximum of one quantity over a region's readings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spread {
    /// Smallest reading.
    pub min: f64,
    /// Median reading.
    pub median: f64,
    /// Largest reading.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Self {
            min,
            median: crate::stats::median(values),
            max,
        })
    }
}

/// The quantities a telemetry source reads of a device, each where the source exposes it: one
/// reading's values (`Sensors<f64>`), or their spread over a region's readings
/// (`Sensors<Spread>`). One list, so a quantity added is read, summarised and written alike.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sensors<T> {
    /// Graphics (SM, shader) clock, MHz.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<T>,
    /// Memory clock, MHz.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_clock_mhz: Option<T>,
    /// Board power, watts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_w: Option<T>,
    /// GPU temperature, degrees Celsius: where the source has several sensors, the one the
    /// clocks are limited by (amdgpu's junction sensor rather than its edge sensor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature_c: Option<T>,
    /// Share of the time the GPU was busy, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilization_pct: Option<T>,
}

impl<T> Default for Sensors<T> {
    fn default() -> Self {
        Self {
            sm_clock_mhz: None,
            memory_clock_mhz: None,
            power_w: None,
            temperature_c: None,
            utilization_pct: None,
        }
    }
}

impl Sensors<Spread> {
    /// The spread of each quantity over the `readings` that have it.
    pub fn spread_over<'a>(readings: impl IntoIterator<Item = &'a Sensors<f64>>) -> Self {
        let readings: Vec<&Sensors<f64>> = readings.into_iter().collect();
        let spread = |quantity: fn(&Sensors<f64>) -> Option<f64>| {
            let values: Vec<f64> = readings.iter().filter_map(|r| quantity(r)).collect();
            Spread::of(&values)
        };
        Self {
            sm_clock_mhz: spread(|r| r.sm_clock_mhz),
            memory_clock_mhz: spread(|r| r.memory_clock_mhz),
            power_w: spread(|r| r.power_w),
            temperature_c: spread(|r| r.temperature_c),
            utilization_pct: spread(|r| r.utilization_pct),
        }
    }
}

/// What telemetry saw during one measured region (or over a whole run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TelemetrySummary {
    /// Whether readings were taken.
    pub status: TelemetryStatus,
    /// Where they came from: `nvml`, `amdgpu-sysfs`, or a test source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why there are none, when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Readings taken.
    #[serde(default)]
    pub readings: usize,
    /// Each quantity's minimum, median and maximum over the readings.
    #[serde(flatten)]
    pub sensors: Sensors<Spread>,
    /// Every clock-limiting reason reported in any reading (`sw-power-cap`, `hw-thermal-slowdown`,
    /// ...), in the order first seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle_reasons: Vec<String>,
}

/// The name the amdgpu sysfs reader records with every summary.
pub const AMDGPU_SYSFS_SOURCE: &str = "amdgpu-sysfs";

/// Sources whose drivers expose no clock-limit (throttle) reasons: their readings' empty list
/// means "not known", never "not throttled".
const WITHOUT_THROTTLE_REASONS: [&str; 1] = [AMDGPU_SYSFS_SOURCE];

/// Whether the source recorded as `name` reports clock-limit (throttle) reasons. The name is
/// what every summary keeps ([`TelemetrySummary::source`]), so any reader of a summary (the
/// doctor, a suite's warning, a report) can tell an empty list that means "none" from one that
/// means "this driver does not say".
pub fn reports_throttle_reasons(name: &str) -> bool {
    !WITHOUT_THROTTLE_REASONS.contains(&name)
}

impl TelemetrySummary {
    /// Whether its throttle reasons are known: a source that reports them read it. An empty
    /// list means "none seen" only then.
    pub fn throttle_reasons_known(&self) -> bool {
        self.source.as_deref().is_some_and(reports_throttle_reasons)
    }

    /// A summary with no readings, for `status` with `reason`.
    pub fn without_readings(status: TelemetryStatus, reason: Option<String>) -> Self {
        Self {
            status,
            source: None,
            reason,
            readings: 0,
            sensors: Sensors::default(),
            throttle_reasons: Vec::new(),
        }
    }
}

/// One reading on the run's time line, for charts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TelemetryPoint {
    /// Seconds since the run's first reading.
    pub t_s: f64,
    /// Graphics clock, MHz.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<f64>,
    /// Temperature, degrees Celsius.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature_c: Option<f64>,
    /// Board power, watts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// Throttle reasons in this reading.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle_reasons: Vec<String>,
}

/// The run's telemetry: totals over every region, a time line, and the detected and nominal
/// facts about the card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunTelemetry {
    /// Over every reading of the run.
    pub totals: TelemetrySummary,
    /// The readings in time order, thinned to at most a few thousand points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TelemetryPoint>,
    /// Highest graphics clock the device reports it can reach, MHz (detected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_sm_clock_mhz: Option<f64>,
    /// Highest memory clock the device reports, MHz (detected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_memory_clock_mhz: Option<f64>,
    /// Kernel driver version as the telemetry source reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<String>,
    /// The adapter's PCIe link, when one was matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<PcieLink>,
    /// The datasheet row matched to the adapter, when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominal: Option<NominalFigures>,
}

/// A PCI device's link as sysfs reports it (detected), with the nominal one-way bandwidth of
/// its generation and width.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PcieLink {
    /// PCI address, `domain:bus:device.function`.
    pub address: String,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// How the device was matched to the adapter (`pci-bus-id`, `vendor-device-id`).
    pub matched_by: String,
    /// Current link speed, GT/s per lane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_speed_gts: Option<f64>,
    /// Current link width, lanes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_width: Option<u32>,
    /// Highest speed the device supports, GT/s per lane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_speed_gts: Option<f64>,
    /// Widest link the device supports, lanes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_width: Option<u32>,
    /// PCIe generation of the current speed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_generation: Option<u8>,
    /// PCIe generation of the highest speed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_generation: Option<u8>,
    /// Nominal one-way bandwidth of the current link after encoding overhead, GB/s (10^9).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_nominal_gbs: Option<f64>,
    /// Nominal one-way bandwidth at the highest speed and width, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_nominal_gbs: Option<f64>,
}

/// Datasheet figures of a card (nominal, never measured), with their source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NominalFigures {
    /// Card name as the table gives it.
    pub name: String,
    /// How it was matched (`device-id`, `name`).
    pub matched_by: String,
    /// Memory bandwidth, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_bandwidth_gbs: Option<f64>,
    /// FP32 peak without tensor units, TFLOP/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp32_tflops: Option<f64>,
    /// FP16 peak without tensor units, TFLOP/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp16_tflops: Option<f64>,
    /// Dense FP16 peak on tensor (matrix) units, TFLOP/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp16_tensor_tflops: Option<f64>,
    /// FP64 peak without tensor units, TFLOP/s.
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp64_tflops: Option<f64>,
    /// Dense INT8 peak on tensor (matrix) units, 10^12 operations/s (no gpubench row runs on
    /// them: it is shown, never compared).
    #[serde(default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int8_tensor_tops: Option<f64>,
    /// PCIe generation of the card's host interface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcie_generation: Option<u8>,
    /// Where the figures come from.
    pub source: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_is_min_median_max_and_none_when_empty() {
        let spread = Spread::of(&[3.0, 1.0, 2.0, 10.0, 4.0]).expect("values");
        assert_eq!((spread.min, spread.median, spread.max), (1.0, 3.0, 10.0));
        assert_eq!(Spread::of(&[]), None);
    }

    #[test]
    fn only_sources_whose_drivers_say_nothing_have_unknown_throttle_reasons() {
        assert!(!reports_throttle_reasons(AMDGPU_SYSFS_SOURCE));
        assert!(reports_throttle_reasons("nvml"));
        assert!(reports_throttle_reasons("fake"));
        let mut summary = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
        assert!(
            !summary.throttle_reasons_known(),
            "no source, nothing known"
        );
        summary.source = Some("nvml".to_string());
        assert!(summary.throttle_reasons_known());
    }
}
