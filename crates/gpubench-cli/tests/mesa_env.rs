//! Mesa's device-select layer stays quiet under gpubench (it selects its own adapter), unless
//! the user steers the layer. Needs a Vulkan adapter (lavapipe in CI, which brings the layer).

use std::path::Path;

mod common;
use common::{gpubench_command, require_vulkan};

const LAYER: &str = "/usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json";

fn list(env: &[(&str, &str)]) -> String {
    let mut cmd = gpubench_command();
    cmd.arg("list");
    for var in [
        "XDG_RUNTIME_DIR",
        "NODEVICE_SELECT",
        "MESA_VK_DEVICE_SELECT",
        "DRI_PRIME",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn no_xdg_runtime_dir_complaint_and_the_users_choice_wins() {
    if !require_vulkan() {
        return;
    }
    let quiet = list(&[]);
    assert!(!quiet.contains("XDG_RUNTIME_DIR"), "{quiet}");
    if Path::new(LAYER).exists() {
        // MESA_VK_DEVICE_SELECT=list makes the layer print its device list: it still runs.
        let steered = list(&[("MESA_VK_DEVICE_SELECT", "list")]);
        assert!(steered.contains("selectable devices"), "{steered}");
    }
}
