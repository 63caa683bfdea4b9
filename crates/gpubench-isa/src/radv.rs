//! Finding Mesa's RADV and pointing the Vulkan loader at it for an AMD family on null hardware
//! (no AMD GPU needed). The variables are returned, not set: changing the environment is only
//! sound before any thread reads it, which only the caller (a `main`, a test's one-time set-up)
//! can promise.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::IsaError;

/// The AMD families RADV (Mesa 22.3 and later) compiles for on null hardware, by their LLVM
/// target name, the name this Mesa's `RADV_FORCE_FAMILY` takes (an unknown name aborts the
/// driver, so it is refused here first) and the architecture.
pub const FAMILIES: &[(&str, &str, &str)] = &[
    ("gfx1010", "navi10", "RDNA1"),
    ("gfx1011", "navi12", "RDNA1"),
    ("gfx1012", "navi14", "RDNA1"),
    ("gfx1030", "navi21", "RDNA2"),
    ("gfx1031", "navi22", "RDNA2"),
    ("gfx1032", "navi23", "RDNA2"),
    ("gfx1034", "navi24", "RDNA2"),
    ("gfx1100", "gfx1100", "RDNA3"),
    ("gfx1101", "gfx1101", "RDNA3"),
    ("gfx1102", "gfx1102", "RDNA3"),
];

/// The `RADV_FORCE_FAMILY` value for `family` (either spelling, any case).
pub fn radv_family(family: &str) -> Option<&'static str> {
    let wanted = family.to_lowercase();
    FAMILIES
        .iter()
        .find(|(target, mesa, _)| *target == wanted || *mesa == wanted)
        .map(|(_, mesa, _)| *mesa)
}

/// Where Vulkan loaders look for driver manifests, in the loader's order (without the user's
/// own folders, which hold no system driver).
fn icd_folders() -> Vec<PathBuf> {
    let split = |var: &str, default: &str| -> Vec<PathBuf> {
        std::env::var(var)
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| default.to_string())
            .split(':')
            .map(|d| Path::new(d).join("vulkan/icd.d"))
            .collect()
    };
    let mut folders = split("XDG_CONFIG_DIRS", "/etc/xdg");
    folders.push(PathBuf::from("/etc/vulkan/icd.d"));
    folders.extend(split("XDG_DATA_DIRS", "/usr/local/share:/usr/share"));
    folders
}

/// RADV's manifest for this machine's architecture, where a loader would find it.
pub fn radv_manifest() -> Option<PathBuf> {
    let name = format!("radeon_icd.{}.json", std::env::consts::ARCH);
    icd_folders()
        .into_iter()
        .map(|folder| folder.join(&name))
        .find(|path| path.is_file())
}

/// The environment variables that point the Vulkan loader at RADV on null hardware.
#[derive(Debug, Clone, PartialEq)]
pub struct RadvEnvironment {
    /// To set: `RADV_FORCE_FAMILY` and `VK_ICD_FILENAMES`.
    pub set: Vec<(&'static str, OsString)>,
    /// To remove: `VK_DRIVER_FILES`, which would win over `VK_ICD_FILENAMES`.
    pub remove: &'static str,
}

/// The environment that makes the Vulkan loader offer only RADV, compiling for `family` on
/// null hardware. Open the device with `Compiler::open("RADV")` after applying it.
pub fn null_hardware_environment(family: &str) -> Result<RadvEnvironment, IsaError> {
    let mesa = radv_family(family).ok_or_else(|| IsaError::UnknownFamily {
        family: family.to_string(),
        known: FAMILIES
            .iter()
            .map(|(t, m, arch)| format!("{t} ({m}, {arch})"))
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let manifest = radv_manifest().ok_or(IsaError::NoRadv {
        manifest: format!("radeon_icd.{}.json", std::env::consts::ARCH),
    })?;
    let set = vec![
        ("RADV_FORCE_FAMILY", OsString::from(mesa)),
        ("VK_ICD_FILENAMES", manifest.into_os_string()),
    ];
    Ok(RadvEnvironment {
        set,
        remove: "VK_DRIVER_FILES",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_take_either_name_and_unknown_ones_are_refused() {
        assert_eq!(radv_family("gfx1030"), Some("navi21"));
        assert_eq!(radv_family("NAVI21"), Some("navi21"));
        assert_eq!(radv_family("gfx1100"), Some("gfx1100"));
        assert_eq!(radv_family("navi31"), None, "Mesa 22.3 does not know it");
        let error = null_hardware_environment("navi31").expect_err("unknown");
        assert!(
            error.to_string().contains("gfx1010 (navi10, RDNA1)"),
            "{error}"
        );
    }
}
