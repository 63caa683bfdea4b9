//! `gpubench list`: every adapter on every backend.

use gpubench_harness::device::list_adapters;
use gpubench_harness::units::format_size;

use crate::cli::ListArgs;
use crate::exit::Exit;

pub fn run(args: &ListArgs) -> anyhow::Result<Exit> {
    let adapters = list_adapters();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&adapters)?);
        return Ok(Exit::Success);
    }
    if adapters.is_empty() {
        println!(
            "No GPU adapter found on any backend.\nInstall a Vulkan driver; for a software adapter on Debian/Ubuntu: apt-get install mesa-vulkan-drivers (or run `cargo xtask setup`)."
        );
        return Ok(Exit::Success);
    }
    for a in &adapters {
        println!("{}", a.one_line());
        println!(
            "    vendor 0x{:04x}, device 0x{:04x}{}",
            a.vendor_id,
            a.device_id,
            if a.software { ", software adapter" } else { "" }
        );
        if !a.driver_info.is_empty() {
            println!("    driver info: {}", a.driver_info);
        }
        let limit = |name: &str| a.limits.get(name).copied().unwrap_or(0);
        println!(
            "    max buffer {}, max storage binding {}, workgroup storage {}, invocations/workgroup {}",
            format_size(limit("max_buffer_size")),
            format_size(limit("max_storage_buffer_binding_size")),
            format_size(limit("max_compute_workgroup_storage_size")),
            limit("max_compute_invocations_per_workgroup"),
        );
        let features = if a.features.is_empty() {
            "none of interest".to_string()
        } else {
            a.features.join(", ")
        };
        println!("    features: {features}");
    }
    Ok(Exit::Success)
}
