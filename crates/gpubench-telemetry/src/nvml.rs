//! NVIDIA GPUs through NVML, loaded at run time by `nvml-wrapper` (libloading): a machine
//! without libnvidia-ml gets "unavailable: NVML not found", never an error or a link failure.
//! The NVML device is matched to the wgpu adapter by PCI bus id, else by device id and name.

use std::sync::Arc;

use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::error::NvmlError;

use crate::AdapterIdentity;
use crate::pcie::parse_address;
use crate::source::{DeviceFacts, GpuProcess, Reading, TelemetrySource};
use gpubench_results::telemetry::Sensors;

/// One NVML device.
pub struct NvmlSource {
    nvml: Arc<Nvml>,
    index: u32,
    matched_by: &'static str,
}

impl NvmlSource {
    /// Loads NVML and finds the adapter's device; the reason when either fails.
    pub fn open(adapter: &AdapterIdentity) -> Result<Self, String> {
        let nvml = Nvml::init().map_err(|error| match error {
            NvmlError::LibloadingError(_) | NvmlError::LibraryNotFound => format!(
                "NVML not found (libnvidia-ml could not be loaded: {error}); install the NVIDIA driver's management library"
            ),
            NvmlError::DriverNotLoaded => {
                "NVML found, but the NVIDIA kernel driver is not loaded".to_string()
            }
            other => format!("NVML could not start: {other}"),
        })?;
        let (index, matched_by) = find_device(&nvml, adapter)?;
        Ok(Self {
            nvml: Arc::new(nvml),
            index,
            matched_by,
        })
    }

    /// How the NVML device was matched to the adapter.
    pub fn matched_by(&self) -> &'static str {
        self.matched_by
    }
}

/// The index of the NVML device that is `adapter`.
fn find_device(nvml: &Nvml, adapter: &AdapterIdentity) -> Result<(u32, &'static str), String> {
    let count = nvml
        .device_count()
        .map_err(|e| format!("NVML could not count devices: {e}"))?;
    let wanted_bus = adapter.pci_bus_id.as_deref().and_then(parse_address);
    let mut by_id = Vec::new();
    for index in 0..count {
        let Ok(device) = nvml.device_by_index(index) else {
            continue;
        };
        let Ok(pci) = device.pci_info() else {
            continue;
        };
        if wanted_bus.is_some() && parse_address(&pci.bus_id) == wanted_bus {
            return Ok((index, "pci-bus-id"));
        }
        if pci.pci_device_id >> 16 == adapter.device_id {
            let same_name = device.name().is_ok_and(|n| n == adapter.name);
            by_id.push((index, same_name));
        }
    }
    pick_by_id_and_name(&by_id, count, adapter)
}

/// The device among `by_id` (index, whether its name is the adapter's) of the NVML devices
/// with the adapter's device id: the only one, else the only one with its name too. Identical
/// cards share their name, so a name that several carry tells nothing: that is the ambiguous
/// case, which only a PCI bus id resolves.
fn pick_by_id_and_name(
    by_id: &[(u32, bool)],
    count: u32,
    adapter: &AdapterIdentity,
) -> Result<(u32, &'static str), String> {
    let named: Vec<u32> = by_id
        .iter()
        .filter(|(_, same_name)| *same_name)
        .map(|(index, _)| *index)
        .collect();
    match (by_id, named.as_slice()) {
        (_, [index]) => Ok((*index, "device-id-and-name")),
        ([(index, _)], _) => Ok((*index, "device-id")),
        ([], _) => Err(format!(
            "NVML lists {count} device(s), none with device id {:#06x} ({})",
            adapter.device_id, adapter.name
        )),
        _ => {
            let named = match named.len() {
                0 | 1 => String::new(),
                n => format!(", {n} of them named {}", adapter.name),
            };
            let bus = match &adapter.pci_bus_id {
                Some(bus) => format!("none is at the adapter's PCI bus id {bus}"),
                None => "the adapter reports no PCI bus id to tell them apart".to_string(),
            };
            Err(format!(
                "{} NVML devices have device id {:#06x}{named} and {bus}",
                by_id.len(),
                adapter.device_id
            ))
        }
    }
}

/// NVML's clocks-event (throttle) reasons, by the names gpubench records.
const REASONS: [(ThrottleReasons, &str); 9] = [
    (ThrottleReasons::GPU_IDLE, "gpu-idle"),
    (
        ThrottleReasons::APPLICATIONS_CLOCKS_SETTING,
        "applications-clocks-setting",
    ),
    (ThrottleReasons::SW_POWER_CAP, "sw-power-cap"),
    (ThrottleReasons::HW_SLOWDOWN, "hw-slowdown"),
    (ThrottleReasons::SYNC_BOOST, "sync-boost"),
    (ThrottleReasons::SW_THERMAL_SLOWDOWN, "sw-thermal-slowdown"),
    (ThrottleReasons::HW_THERMAL_SLOWDOWN, "hw-thermal-slowdown"),
    (
        ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN,
        "hw-power-brake-slowdown",
    ),
    (
        ThrottleReasons::DISPLAY_CLOCK_SETTING,
        "display-clock-setting",
    ),
];

impl TelemetrySource for NvmlSource {
    fn name(&self) -> &str {
        "nvml"
    }

    fn sample(&mut self) -> Reading {
        let Ok(device) = self.nvml.device_by_index(self.index) else {
            return Reading::default();
        };
        let reasons = device
            .current_throttle_reasons()
            .unwrap_or(ThrottleReasons::NONE);
        let sensors = Sensors {
            sm_clock_mhz: device.clock_info(Clock::SM).ok().map(f64::from),
            memory_clock_mhz: device.clock_info(Clock::Memory).ok().map(f64::from),
            power_w: device.power_usage().ok().map(|mw| f64::from(mw) / 1e3),
            temperature_c: device
                .temperature(TemperatureSensor::Gpu)
                .ok()
                .map(f64::from),
            utilization_pct: device.utilization_rates().ok().map(|u| f64::from(u.gpu)),
        };
        Reading {
            sensors,
            throttle_reasons: REASONS
                .iter()
                .filter(|(flag, _)| reasons.contains(*flag))
                .map(|(_, name)| (*name).to_string())
                .collect(),
        }
    }

    fn facts(&mut self) -> DeviceFacts {
        let device = self.nvml.device_by_index(self.index).ok();
        let max = |clock: Clock| {
            device
                .as_ref()
                .and_then(|d| d.max_clock_info(clock).ok())
                .map(f64::from)
        };
        DeviceFacts {
            max_sm_clock_mhz: max(Clock::SM),
            max_memory_clock_mhz: max(Clock::Memory),
            driver_version: self.nvml.sys_driver_version().ok(),
        }
    }

    fn other_processes(&mut self) -> Option<Vec<GpuProcess>> {
        let device = self.nvml.device_by_index(self.index).ok()?;
        let compute = device.running_compute_processes().ok()?;
        let graphics = device.running_graphics_processes().unwrap_or_default();
        let own = std::process::id();
        let mut processes: Vec<GpuProcess> = Vec::new();
        for info in compute.into_iter().chain(graphics) {
            if info.pid == own || processes.iter().any(|p| p.pid == info.pid) {
                continue;
            }
            let used = match info.used_gpu_memory {
                nvml_wrapper::enums::device::UsedGpuMemory::Used(bytes) => Some(bytes),
                nvml_wrapper::enums::device::UsedGpuMemory::Unavailable => None,
            };
            processes.push(GpuProcess {
                pid: info.pid,
                name: crate::process_name(info.pid),
                used_memory_bytes: used,
            });
        }
        Some(processes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter() -> AdapterIdentity {
        AdapterIdentity {
            name: "NVIDIA H200".to_string(),
            vendor_id: crate::VENDOR_NVIDIA,
            device_id: 0x2335,
            pci_bus_id: None,
            software: false,
        }
    }

    #[test]
    fn identical_cards_sharing_a_name_are_ambiguous_not_card_zero() {
        let error = pick_by_id_and_name(&[(0, true), (1, true)], 2, &adapter())
            .expect_err("two H200s cannot be told apart by name");
        assert!(error.contains("2 NVML devices"), "{error}");
        assert!(error.contains("2 of them named NVIDIA H200"), "{error}");
        assert!(error.contains("no PCI bus id"), "{error}");
    }

    #[test]
    fn one_device_or_one_name_among_the_id_matches_is_picked() {
        let card = adapter();
        assert_eq!(
            pick_by_id_and_name(&[(3, false)], 4, &card),
            Ok((3, "device-id"))
        );
        assert_eq!(
            pick_by_id_and_name(&[(0, false), (2, true)], 4, &card),
            Ok((2, "device-id-and-name"))
        );
        let none = pick_by_id_and_name(&[], 4, &card).expect_err("none");
        assert!(none.contains("none with device id 0x2335"), "{none}");
        let unnamed = pick_by_id_and_name(&[(0, false), (1, false)], 2, &card);
        assert!(unnamed.is_err());
    }
}
