//! `gpubench list`: every adapter on every backend.

use std::fmt::Write;

use gpubench_harness::device::list_adapters;
use gpubench_results::units::format_size;

use crate::cli::ListArgs;
use crate::exit::Exit;
use crate::stdout::print_then;

pub fn run(args: &ListArgs) -> anyhow::Result<Exit> {
    let text = if args.json {
        format!("{}\n", serde_json::to_string_pretty(&list_adapters())?)
    } else {
        listing()?
    };
    print_then(&text, Exit::Success)
}

/// The adapters as text, one block each.
fn listing() -> Result<String, std::fmt::Error> {
    let adapters = list_adapters();
    let mut out = String::new();
    if adapters.is_empty() {
        writeln!(
            out,
            "No GPU adapter found on any backend.\nInstall a Vulkan driver; for a software adapter on Debian/Ubuntu: apt-get install mesa-vulkan-drivers (or run `cargo xtask setup`)."
        )?;
        return Ok(out);
    }
    for a in &adapters {
        writeln!(out, "{}", a.listing_line())?;
        writeln!(
            out,
            "    vendor 0x{:04x}, device 0x{:04x}{}",
            a.vendor_id,
            a.device_id,
            if a.software { ", software adapter" } else { "" }
        )?;
        if !a.driver_info.is_empty() {
            writeln!(out, "    driver info: {}", a.driver_info)?;
        }
        let limit = |name: &str| a.limits.get(name).copied().unwrap_or(0);
        writeln!(
            out,
            "    max buffer {}, max storage binding {}, workgroup storage {}, invocations/workgroup {}",
            format_size(limit("max_buffer_size")),
            format_size(limit("max_storage_buffer_binding_size")),
            format_size(limit("max_compute_workgroup_storage_size")),
            limit("max_compute_invocations_per_workgroup"),
        )?;
        let features = if a.features.is_empty() {
            "none of interest".to_string()
        } else {
            a.features.join(", ")
        };
        writeln!(out, "    features: {features}")?;
    }
    Ok(out)
}
