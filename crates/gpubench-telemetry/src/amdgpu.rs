//! AMD GPUs on Linux, read directly from the amdgpu driver's sysfs files: `gpu_busy_percent`,
//! the DPM clock tables `pp_dpm_sclk` and `pp_dpm_mclk` (the current level marked `*`), and
//! the hwmon directory's `temp1_input` (millidegrees, edge sensor) and `power1_average` or
//! `power1_input` (microwatts). The driver exposes no throttle reasons in these files, and no
//! list of processes, so those stay unknown.

use gpubench_results::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};
use std::path::{Path, PathBuf};

use crate::pcie::{DisplayDevice, read_trimmed};
use crate::source::{DeviceFacts, GpuProcess, Reading, TelemetrySource};

/// Reads one amdgpu device's sysfs directory.
#[derive(Debug, Clone)]
pub struct AmdgpuSource {
    dir: PathBuf,
    hwmon: Option<PathBuf>,
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
        Ok(Self { dir, hwmon })
    }

    fn hwmon_value(&self, names: &[&str], scale: f64) -> Option<f64> {
        let hwmon = self.hwmon.as_ref()?;
        names
            .iter()
            .find_map(|name| read_number(&hwmon.join(name)))
            .map(|v| v / scale)
    }
}

impl TelemetrySource for AmdgpuSource {
    fn name(&self) -> &str {
        "amdgpu-sysfs"
    }

    fn sample(&mut self) -> Reading {
        Reading {
            sm_clock_mhz: dpm_table(&self.dir.join("pp_dpm_sclk")).and_then(|t| t.current),
            memory_clock_mhz: dpm_table(&self.dir.join("pp_dpm_mclk")).and_then(|t| t.current),
            power_w: self.hwmon_value(&["power1_average", "power1_input"], 1e6),
            temperature_c: self.hwmon_value(&["temp1_input"], 1e3),
            utilization_pct: read_number(&self.dir.join("gpu_busy_percent")),
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
}
