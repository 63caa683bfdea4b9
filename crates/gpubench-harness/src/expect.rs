//! What the user expects the chosen adapter to be, checked as soon as it is opened.
//!
//! Adapter selection falls back to whatever adapter exists: when a vendor's driver fails to load
//! and a software adapter is installed, a run meant for a GPU silently measures the CPU. A job
//! that names the vendor and device type it expects (`--expect-vendor nvidia --expect-type
//! discrete`, or `--require-gpu`) stops within seconds instead, before anything is written.

use std::fmt;

use gpubench_results::adapter::AdapterSummary;

/// PCI vendor ids by the names users know them by.
const VENDORS: &[(&str, u32)] = &[
    ("nvidia", 0x10de),
    ("amd", 0x1002),
    ("intel", 0x8086),
    ("apple", 0x106b),
    ("arm", 0x13b5),
    ("qualcomm", 0x5143),
    ("imgtec", 0x1010),
    ("mesa", 0x10005),
];

/// Device types as `gpubench list` names them.
pub const DEVICE_TYPES: &[&str] = &["discrete", "integrated", "virtual", "cpu", "other"];

/// The adapter a run requires; empty means any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdapterExpectation {
    /// PCI vendor id the adapter must report.
    pub vendor: Option<u32>,
    /// Device types it may be (any of them); empty means any.
    pub device_types: Vec<String>,
    /// Refuse software adapters (lavapipe, SwiftShader, WARP), whatever type they report.
    pub hardware: bool,
}

/// The chosen adapter is not the one expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "adapter {index} '{name}' (vendor {vendor:#x}, {device_type}, {backend}) is not what was expected: {wanted}. The expected driver may have failed to load: `gpubench list` shows every adapter, and for Vulkan `VK_LOADER_DEBUG=error,warn gpubench list` says why a driver was not loaded"
)]
pub struct UnexpectedAdapter {
    /// Its position in `gpubench list`.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its PCI vendor id.
    pub vendor: u32,
    /// Its device type.
    pub device_type: String,
    /// Its backend.
    pub backend: String,
    /// What was asked for, in words.
    pub wanted: String,
}

/// A vendor the user named that is neither a known name nor a number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown vendor '{0}': give a PCI vendor id (0x10de, 4318) or one of nvidia, amd, intel, apple, arm, qualcomm, imgtec, mesa"
)]
pub struct UnknownVendor(pub String);

/// Parses a vendor: a known name (case-insensitive), a hex id with `0x`, or a decimal id.
pub fn parse_vendor(text: &str) -> Result<u32, UnknownVendor> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    if let Some((_, id)) = VENDORS.iter().find(|(name, _)| *name == lower) {
        return Ok(*id);
    }
    let parsed = match lower.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => lower.parse().ok(),
    };
    parsed.ok_or_else(|| UnknownVendor(text.to_string()))
}

/// The name of a vendor id, where it is a known one.
pub fn vendor_name(id: u32) -> Option<&'static str> {
    VENDORS
        .iter()
        .find(|(_, v)| *v == id)
        .map(|(name, _)| *name)
}

impl AdapterExpectation {
    /// True when nothing is required.
    pub fn is_empty(&self) -> bool {
        self.vendor.is_none() && self.device_types.is_empty() && !self.hardware
    }

    /// Ok when `adapter` is what was expected.
    pub fn check(&self, adapter: &AdapterSummary) -> Result<(), UnexpectedAdapter> {
        let vendor_ok = self.vendor.is_none_or(|v| v == adapter.vendor());
        let type_ok =
            self.device_types.is_empty() || self.device_types.contains(&adapter.device_type);
        let hardware_ok = !self.hardware || !(adapter.software || adapter.device_type == "cpu");
        if vendor_ok && type_ok && hardware_ok {
            return Ok(());
        }
        Err(UnexpectedAdapter {
            index: adapter.index,
            name: adapter.name.clone(),
            vendor: adapter.vendor(),
            device_type: adapter.device_type.clone(),
            backend: adapter.backend.clone(),
            wanted: self.to_string(),
        })
    }
}

impl fmt::Display for AdapterExpectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(vendor) = self.vendor {
            parts.push(match vendor_name(vendor) {
                Some(name) => format!("vendor {vendor:#x} ({name})"),
                None => format!("vendor {vendor:#x}"),
            });
        }
        if !self.device_types.is_empty() {
            parts.push(format!("type {}", self.device_types.join(" or ")));
        }
        if self.hardware {
            parts.push("a hardware GPU, not a software adapter".to_string());
        }
        if parts.is_empty() {
            parts.push("any adapter".to_string());
        }
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter(vendor: u32, device_type: &str, software: bool) -> AdapterSummary {
        AdapterSummary {
            index: 1,
            name: "card".to_string(),
            vendor_id: vendor,
            device_id: 0x2335,
            device_type: device_type.to_string(),
            driver: String::new(),
            driver_info: String::new(),
            backend: "vulkan".to_string(),
            software,
            limits: Default::default(),
            features: Vec::new(),
        }
    }

    #[test]
    fn vendors_parse_by_name_hex_and_decimal() {
        assert_eq!(parse_vendor("NVIDIA"), Ok(0x10de));
        assert_eq!(parse_vendor("0x10DE"), Ok(0x10de));
        assert_eq!(parse_vendor("4318"), Ok(0x10de));
        assert_eq!(parse_vendor(" amd "), Ok(0x1002));
        assert!(parse_vendor("nvidea").is_err());
        assert!(parse_vendor("0xzz").is_err());
    }

    #[test]
    fn a_software_adapter_fails_a_gpu_expectation_and_names_both() {
        let want = AdapterExpectation {
            vendor: Some(0x10de),
            device_types: vec!["discrete".to_string()],
            hardware: false,
        };
        let err = want
            .check(&adapter(0x10005, "cpu", true))
            .expect_err("lavapipe is not an NVIDIA discrete GPU");
        let text = err.to_string();
        assert!(text.contains("0x10005"), "{text}");
        assert!(text.contains("vendor 0x10de (nvidia)"), "{text}");
        assert!(text.contains("type discrete"), "{text}");
        assert!(text.contains("VK_LOADER_DEBUG"), "{text}");
        assert!(want.check(&adapter(0x10de, "discrete", false)).is_ok());
        assert!(want.check(&adapter(0x10de, "integrated", false)).is_err());
        assert!(want.check(&adapter(0x1002, "discrete", false)).is_err());
    }

    #[test]
    fn hardware_refuses_software_adapters_of_any_type() {
        let want = AdapterExpectation {
            hardware: true,
            ..Default::default()
        };
        assert!(want.check(&adapter(0x10005, "cpu", true)).is_err());
        // SwiftShader and WARP can report a non-CPU type; the software flag still counts.
        assert!(want.check(&adapter(0x1414, "other", true)).is_err());
        assert!(want.check(&adapter(0x8086, "integrated", false)).is_ok());
        assert!(AdapterExpectation::default().is_empty());
        assert!(
            AdapterExpectation::default()
                .check(&adapter(0x10005, "cpu", true))
                .is_ok()
        );
    }

    #[test]
    fn any_of_several_types_is_accepted() {
        let want = AdapterExpectation {
            device_types: vec!["discrete".to_string(), "integrated".to_string()],
            ..Default::default()
        };
        assert!(want.check(&adapter(0x106b, "integrated", false)).is_ok());
        assert!(want.check(&adapter(0x106b, "virtual", false)).is_err());
    }

    #[test]
    fn an_apple_gpu_on_metal_is_apples_though_wgpu_reports_no_vendor() {
        let want = AdapterExpectation {
            vendor: Some(parse_vendor("apple").expect("known")),
            ..Default::default()
        };
        let mut metal = adapter(0, "integrated", false);
        metal.backend = "metal".to_string();
        assert!(want.check(&metal).is_ok());
        assert!(want.check(&adapter(0, "integrated", false)).is_err());
    }
}
