//! AMD GPUs on Linux, read directly from the amdgpu driver's sysfs files: `gpu_busy_percent`,
//! the DPM clock tables `pp_dpm_sclk` and `pp_dpm_mclk` (the current level marked `*`), and
//! the hwmon directory's temperature (millidegrees) and `power1_average` or `power1_input`
//! (microwatts). The temperature is the junction (hot spot) sensor's where there is one: RDNA
//! and CDNA lower their clocks on junction temperature, which runs 15-25 C above the edge
//! sensor under load, so the edge sensor would show a throttled card as cool. The driver
//! exposes no throttle reasons in these files ([`gpubench_results::telemetry::reports_throttle_reasons`]
//! is false for it), and no list of processes, so those stay unknown.

use gpubench_results::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};
use gpubench_results::telemetry::Sensors;
use std::path::{Path, PathBuf};

use crate::pcie::{DisplayDevice, read_trimmed};
use crate::source::{AMDGPU_SOURCE, DeviceFacts, GpuProcess, Reading, TelemetrySource};

/// Reads one amdgpu device's sysfs directory.
#[derive(Debug, Clone)]
pub struct AmdgpuSource {
    dir: PathBuf,
    hwmon: Option<PathBuf>,
    /// The hwmon temperature inputs, most wanted first (see [`temperature_inputs`]).
    temperatures: Vec<String>,
}

impl AmdgpuSource {
    /// A source on `device`, when it is driven by amdgpu (it has `gpu_busy_percent` or a DPM
    /// clock table); otherwise the reason it is not.
    pub fn open(device: &DisplayDevice) -> Result<Self, String> {
        let dir = device.dir.clone();
        let driven = ["gpu_busy_percent", "pp_dpm_sclk"]
            .iter()
            .any(|f| dir.join(f).exists());
        if !driven {
            return Err(format!(
                "{} has no amdgpu sysfs files (gpu_busy_percent, pp_dpm_sclk): is the amdgpu driver bound to it?",
                device.address
            ));
        }
        let hwmon = first_hwmon(&dir);
        let temperatures = hwmon.as_deref().map(temperature_inputs).unwrap_or_default();
        Ok(Self {
            dir,
            hwmon,
            temperatures,
        })
    }

    fn hwmon_value<S: AsRef<str>>(&self, names: &[S], scale: f64) -> Option<f64> {
        let hwmon = self.hwmon.as_ref()?;
        names
            .iter()
            .find_map(|name| read_number(&hwmon.join(name.as_ref())))
            .map(|v| v / scale)
    }
}

impl TelemetrySource for AmdgpuSource {
    fn name(&self) -> &str {
        AMDGPU_SOURCE
    }

    fn sample(&mut self) -> Reading {
        let sensors = Sensors {
            sm_clock_mhz: dpm_table(&self.dir.join("pp_dpm_sclk")).and_then(|t| t.current),
            memory_clock_mhz: dpm_table(&self.dir.join("pp_dpm_mclk")).and_then(|t| t.current),
            power_w: self.hwmon_value(&["power1_average", "power1_input"], 1e6),
            temperature_c: self.hwmon_value(&self.temperatures, 1e3),
            utilization_pct: read_number(&self.dir.join("gpu_busy_percent")),
        };
        Reading {
            sensors,
            throttle_reasons: Vec::new(),
        }
    }

    fn facts(&mut self) -> DeviceFacts {
        let max = |name: &str| dpm_table(&self.dir.join(name)).and_then(|t| t.max);
        DeviceFacts {
            max_sm_clock_mhz: max("pp_dpm_sclk"),
            max_memory_clock_mhz: max("pp_dpm_mclk"),
            driver_version: None,
        }
    }

    fn other_processes(&mut self) -> Option<Vec<GpuProcess>> {
        None
    }
}

/// A DPM clock table: the current level and the highest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpmTable {
    /// The level marked `*`, MHz.
    pub current: Option<f64>,
    /// The highest level, MHz.
    pub max: Option<f64>,
}

/// Parses `0: 500Mhz\n1: 1800Mhz *\n` (levels may also read `S: 19Mhz` or `2500MHz`).
pub fn parse_dpm(text: &str) -> DpmTable {
    let mut current = None;
    let mut max: Option<f64> = None;
    for line in text.lines() {
        let Some((_, value)) = line.split_once(':') else {
            continue;
        };
        let digits: String = value
            .trim()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let Ok(mhz) = digits.parse::<f64>() else {
            continue;
        };
        max = Some(max.map_or(mhz, |m| m.max(mhz)));
        if value.trim_end().ends_with('*') {
            current = Some(mhz);
        }
    }
    DpmTable { current, max }
}

fn dpm_table(path: &Path) -> Option<DpmTable> {
    let text = read_text_bounded(path, SYSTEM_FILE_BYTES).ok()?;
    Some(parse_dpm(&text))
}

fn read_number(path: &Path) -> Option<f64> {
    read_trimmed(path)?.parse::<f64>().ok()
}

/// The label amdgpu gives its junction (hot spot) sensor.
const JUNCTION: &str = "junction";
/// The label amdgpu gives its edge sensor.
const EDGE: &str = "edge";

/// The temperature inputs of `hwmon`, most wanted first: by their `tempN_label` files where
/// there are any (`junction`, then `edge`), else amdgpu's fixed numbering (`temp2_input` is
/// the junction sensor, `temp1_input` the edge); the edge sensor stays as the fall-back when the
/// junction's input cannot be read.
fn temperature_inputs(hwmon: &Path) -> Vec<String> {
    let labels: Vec<(String, String)> = std::fs::read_dir(hwmon)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    let file = e.file_name().to_string_lossy().into_owned();
                    let sensor = file.strip_suffix("_label")?.to_string();
                    let label = read_trimmed(&e.path())?;
                    Some((sensor, label))
                })
                .collect()
        })
        .unwrap_or_default();
    prefer_junction(&labels)
}

/// The input files to try, in order, given `(sensor, label)` pairs (`("temp2", "junction")`);
/// with no labels, amdgpu's numbering.
fn prefer_junction(labels: &[(String, String)]) -> Vec<String> {
    if labels.is_empty() {
        return vec!["temp2_input".to_string(), "temp1_input".to_string()];
    }
    let labelled = |wanted: &str| {
        labels
            .iter()
            .filter(|(sensor, label)| {
                sensor.starts_with("temp") && label.eq_ignore_ascii_case(wanted)
            })
            .map(|(sensor, _)| format!("{sensor}_input"))
            .min()
    };
    let mut inputs: Vec<String> = [labelled(JUNCTION), labelled(EDGE)]
        .into_iter()
        .flatten()
        .collect();
    // A driver that labels neither still has its first sensor.
    if !inputs.iter().any(|i| i == "temp1_input") {
        inputs.push("temp1_input".to_string());
    }
    inputs
}

/// The device's first `hwmon/hwmonN` directory.
fn first_hwmon(dir: &Path) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir.join("hwmon"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dpm_table_gives_the_starred_level_and_the_highest() {
        let table = parse_dpm("0: 500Mhz \n1: 1200Mhz *\n2: 2500Mhz \n");
        assert_eq!(table.current, Some(1200.0));
        assert_eq!(table.max, Some(2500.0));
        let none_current = parse_dpm("S: 19Mhz\n0: 96Mhz\n");
        assert_eq!(none_current.current, None);
        assert_eq!(none_current.max, Some(96.0));
    }

    fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(sensor, label)| (sensor.to_string(), label.to_string()))
            .collect()
    }

    #[test]
    fn the_junction_sensor_is_read_before_the_edge_sensor() {
        // Matched by label, wherever the driver numbers it.
        let out_of_order = labels(&[("temp3", "mem"), ("temp1", "Junction"), ("temp2", "edge")]);
        assert_eq!(
            prefer_junction(&out_of_order),
            ["temp1_input", "temp2_input"]
        );
        let amdgpu = labels(&[("temp1", "edge"), ("temp2", "junction"), ("in0", "vddgfx")]);
        assert_eq!(prefer_junction(&amdgpu), ["temp2_input", "temp1_input"]);
        // No labels: amdgpu's numbering, junction second; labels without either: the first.
        assert_eq!(prefer_junction(&[]), ["temp2_input", "temp1_input"]);
        assert_eq!(
            prefer_junction(&labels(&[("temp1", "mem")])),
            ["temp1_input"]
        );
    }

    #[test]
    fn amdgpu_does_not_report_throttle_reasons() {
        let source = AmdgpuSource {
            dir: PathBuf::from("/nonexistent"),
            hwmon: None,
            temperatures: Vec::new(),
        };
        assert!(!gpubench_results::telemetry::reports_throttle_reasons(
            source.name()
        ));
    }
}
