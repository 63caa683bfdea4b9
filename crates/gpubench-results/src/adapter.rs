//! What is known about an adapter, as data: its identity, driver, backend, key limits and
//! features. The harness fills it from wgpu; results, baselines and reports only read it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What `gpubench list` and the result's `machine.adapter` say about an adapter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdapterSummary {
    /// Position in `gpubench list` (stable for a given machine and driver set).
    pub index: usize,
    /// Adapter name as the driver reports it.
    pub name: String,
    /// PCI vendor id (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel, 0x106b Apple, 0x10005 Mesa).
    pub vendor_id: u32,
    /// PCI device id (0 for many software adapters).
    pub device_id: u32,
    /// discrete, integrated, virtual, cpu or other.
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// Driver version and build details.
    pub driver_info: String,
    /// vulkan, metal, dx12 or gl.
    pub backend: String,
    /// True for software adapters (lavapipe/llvmpipe, SwiftShader, WARP).
    pub software: bool,
    /// The limits that matter to gpubench, by wgpu's field name.
    pub limits: BTreeMap<String, u64>,
    /// Features of interest that the adapter offers, by wgpu's name.
    pub features: Vec<String>,
}

/// Apple's PCI vendor id.
pub const VENDOR_APPLE: u32 = 0x106B;

impl AdapterSummary {
    /// The vendor the classifications by vendor read (grid sizes, cache sizes, kernel short
    /// lists, `--expect-vendor`): [`Self::vendor_id`], except on wgpu's Metal backend, which
    /// reports 0 for every GPU (wgpu 30 fills Metal's adapter info with defaults): there every
    /// GPU is taken as Apple's (an Intel Mac's AMD or Intel GPU too, which wgpu does not tell
    /// apart). The fingerprint keeps the id as reported.
    pub fn vendor(&self) -> u32 {
        if self.vendor_id == 0 && self.backend == "metal" {
            VENDOR_APPLE
        } else {
            self.vendor_id
        }
    }

    /// One line for listings: `[0] llvmpipe (...) (vulkan, cpu, driver llvmpipe)`; the driver
    /// part only where the backend names one (GL does not).
    pub fn listing_line(&self) -> String {
        let driver = match self.driver.trim() {
            "" => String::new(),
            name => format!(", driver {name}"),
        };
        format!(
            "[{}] {} ({}, {}{driver})",
            self.index, self.name, self.backend, self.device_type
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metal_gpu_reported_with_no_vendor_is_apples() {
        let mut metal = adapter("metal", "");
        metal.vendor_id = 0;
        assert_eq!(metal.vendor(), VENDOR_APPLE);
        assert_eq!(adapter("vulkan", "llvmpipe").vendor(), 0x10005);
        let mut unknown = adapter("vulkan", "x");
        unknown.vendor_id = 0;
        assert_eq!(unknown.vendor(), 0, "only Metal's 0 is known to be Apple");
    }

    fn adapter(backend: &str, driver: &str) -> AdapterSummary {
        AdapterSummary {
            index: 1,
            name: "llvmpipe".to_string(),
            vendor_id: 0x10005,
            device_id: 0,
            device_type: "cpu".to_string(),
            driver: driver.to_string(),
            driver_info: String::new(),
            backend: backend.to_string(),
            software: true,
            limits: BTreeMap::new(),
            features: Vec::new(),
        }
    }

    #[test]
    fn the_listing_names_a_driver_only_where_there_is_one() {
        assert_eq!(
            adapter("vulkan", "llvmpipe").listing_line(),
            "[1] llvmpipe (vulkan, cpu, driver llvmpipe)"
        );
        assert_eq!(adapter("gl", "").listing_line(), "[1] llvmpipe (gl, cpu)");
        assert_eq!(adapter("gl", "  ").listing_line(), "[1] llvmpipe (gl, cpu)");
    }
}
