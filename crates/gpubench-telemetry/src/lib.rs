//! Telemetry for gpubench: what the platform says about the device while it is measured, the
//! PCIe link it sits on, the datasheet figures of the card, and the checks of `gpubench doctor`.
//!
//! Three kinds of fact are kept apart: *detected* (clocks, link width, driver, read from NVML or
//! sysfs), *nominal* (datasheets, [`nominal`]) and *measured* (the harness's results). Readers
//! sit behind one trait, [`TelemetrySource`]: NVML for NVIDIA (loaded at run time, so nothing
//! needs the NVIDIA library to build or run), the amdgpu sysfs files for AMD on Linux, and a
//! scripted source for tests. [`Telemetry`] is the harness's [`TelemetryHook`]: it runs a
//! sampler thread around each measured region and summarises what it read. Nothing here fails
//! a run: a missing reader is "unavailable" with its reason, a software adapter "not
//! applicable".

pub mod amdgpu;
pub mod clocks;
pub mod doctor;
pub mod fake;
pub mod hook;
pub mod nominal;
pub mod nvml;
pub mod pcie;
pub mod sampler;
pub mod source;

use gpubench_results::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};
use std::path::PathBuf;

pub use hook::{Telemetry, TelemetryOptions};
pub use pcie::SysfsRoot;
pub use source::{DeviceFacts, GpuProcess, Opened, Reading, TelemetrySource};

pub use gpubench_harness::TelemetryHook;

/// What could go wrong reading files this crate is given.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// A file could not be read.
    #[error("reading {path}: {source}; check the path")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A scripted source's file is not a valid script.
    #[error("{path} is not a telemetry script (JSON with readings, facts, processes): {source}")]
    Script {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The shipped nominal table does not parse (a broken build).
    #[error("the nominal figures table data/nominal-gpus.json does not parse: {0}; fix the file")]
    Table(serde_json::Error),
}

/// What identifies the adapter to the telemetry readers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterIdentity {
    /// Adapter name as the driver reports it.
    pub name: String,
    /// PCI vendor id (or the backend's vendor id).
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// PCI bus id, when the backend reports one (`0000:01:00.0`).
    pub pci_bus_id: Option<String>,
    /// Whether it is a software adapter.
    pub software: bool,
}

impl AdapterIdentity {
    /// The identity of the adapter behind `ctx`.
    pub fn of(ctx: &gpubench_harness::GpuContext) -> Self {
        let bus = ctx.adapter.get_info().device_pci_bus_id;
        Self {
            name: ctx.summary.name.clone(),
            vendor_id: ctx.summary.vendor_id,
            device_id: ctx.summary.device_id,
            pci_bus_id: (!bus.trim().is_empty()).then_some(bus),
            software: ctx.is_software(),
        }
    }
}

/// PCI vendor id of NVIDIA.
pub const VENDOR_NVIDIA: u32 = 0x10de;
/// PCI vendor id of AMD.
pub const VENDOR_AMD: u32 = 0x1002;

/// Finds the reader for `adapter`: not applicable for a software adapter, NVML for NVIDIA,
/// amdgpu sysfs for AMD (the display device under `root` with its ids), otherwise unavailable.
pub fn open_source(adapter: &AdapterIdentity, root: &SysfsRoot) -> Opened {
    if adapter.software {
        return Opened::NotApplicable(format!(
            "{} is a software adapter: its device is the host's CPU, so there are no GPU clocks, power or temperature to read",
            adapter.name
        ));
    }
    match adapter.vendor_id {
        VENDOR_NVIDIA => match nvml::NvmlSource::open(adapter) {
            Ok(source) => Opened::Source(Box::new(source)),
            Err(reason) => Opened::Unavailable(reason),
        },
        VENDOR_AMD => {
            let devices = pcie::display_devices(root);
            let found = pcie::match_adapter(
                &devices,
                adapter.vendor_id,
                adapter.device_id,
                adapter.pci_bus_id.as_deref(),
            );
            let Some((device, _)) = found else {
                return Opened::Unavailable(format!(
                    "no PCI display device {:04x}:{:04x} under {} (amdgpu telemetry is read from sysfs on Linux only)",
                    adapter.vendor_id,
                    adapter.device_id,
                    root.pci_devices().display()
                ));
            };
            match amdgpu::AmdgpuSource::open(device) {
                Ok(source) => Opened::Source(Box::new(source)),
                Err(reason) => Opened::Unavailable(reason),
            }
        }
        other => Opened::Unavailable(format!(
            "no telemetry reader for vendor {other:#06x} ({}): gpubench reads NVIDIA GPUs through NVML and AMD GPUs through amdgpu sysfs",
            adapter.name
        )),
    }
}

/// A process's command name from `/proc/PID/comm`, where there is one.
pub fn process_name(pid: u32) -> Option<String> {
    let path = std::path::PathBuf::from(format!("/proc/{pid}/comm"));
    let text = read_text_bounded(&path, SYSTEM_FILE_BYTES).ok()?;
    Some(text.trim().to_string()).filter(|name| !name.is_empty())
}
