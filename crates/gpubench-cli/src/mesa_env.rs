//! Mesa's device-select Vulkan layer, silenced: gpubench selects its adapter itself.
//!
//! The layer runs inside `vkEnumeratePhysicalDevices` and, without a Wayland or X session,
//! prints `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` on every instance
//! (twice per run), which reads as a failure of gpubench. Its own off switch is
//! `NODEVICE_SELECT=1`. A user who set it, or who steers the layer (`MESA_VK_DEVICE_SELECT`,
//! `DRI_PRIME`), keeps their setting.

/// Variables that mean the user wants the layer as they configured it.
const USER_CHOICES: [&str; 3] = ["NODEVICE_SELECT", "MESA_VK_DEVICE_SELECT", "DRI_PRIME"];

/// Sets `NODEVICE_SELECT=1` unless the user chose otherwise. Call first in `main`, before any
/// thread exists: changing the environment is only sound while no other thread reads it.
pub fn silence_device_select_layer() {
    if USER_CHOICES
        .iter()
        .all(|var| std::env::var_os(var).is_none())
    {
        // SAFETY: called at the top of main, before any thread is spawned.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}
