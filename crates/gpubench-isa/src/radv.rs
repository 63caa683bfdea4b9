//! Finding Mesa's RADV and pointing the Vulkan loader at it for an AMD family on null hardware
//! (no AMD GPU needed). The variables are returned, not set: changing the environment is only
//! sound before any thread reads it, which only the caller (a `main`, a test's one-time set-up)
//! can promise.
//!
//! Mesa renamed the RDNA 3 families after 22.3: `RADV_FORCE_FAMILY=gfx1100` to Mesa 22.3 is
//! `navi31` to Mesa 25 (and an unknown name aborts the driver). Both spellings are accepted
//! and passed on as given; the LLVM target name means Mesa 22.3's spelling. A RADV other than
//! the system's (Mesa 25.0.7 unpacked by `cargo xtask radv25`) is named by [`RADV_ICD`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::IsaError;

/// The AMD families RADV compiles for on null hardware, by their LLVM target name, the name
/// Mesa 22.3's `RADV_FORCE_FAMILY` takes (an unknown name aborts the driver, so it is refused
/// here first) and the architecture.
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

/// The RDNA 3 families under the names later Mesas give them (Mesa 25.0's `RADV_FORCE_FAMILY`),
/// with their LLVM target name.
pub const RENAMED: &[(&str, &str)] = &[
    ("navi31", "gfx1100"),
    ("navi32", "gfx1101"),
    ("navi33", "gfx1102"),
];

/// The variable that names a RADV driver manifest to use instead of the system's.
pub const RADV_ICD: &str = "GPUBENCH_RADV_ICD";

/// The `RADV_FORCE_FAMILY` value for `family` (any case): Mesa 22.3's name for an LLVM target
/// name or a Mesa 22.3 name, the name itself for a later Mesa's name ([`RENAMED`]).
pub fn radv_family(family: &str) -> Option<&'static str> {
    let wanted = family.to_lowercase();
    FAMILIES
        .iter()
        .find(|(target, mesa, _)| *target == wanted || *mesa == wanted)
        .map(|(_, mesa, _)| *mesa)
        .or_else(|| {
            RENAMED
                .iter()
                .find(|(name, _)| *name == wanted)
                .map(|(name, _)| *name)
        })
}

/// Every family name [`radv_family`] takes, in words (for the error that lists them).
pub fn known_families() -> String {
    FAMILIES
        .iter()
        .map(|(t, m, arch)| format!("{t} ({m}, {arch})"))
        .chain(
            RENAMED
                .iter()
                .map(|(name, target)| format!("{name} ({target} to Mesa 23 and later)")),
        )
        .collect::<Vec<_>>()
        .join(", ")
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
    system_manifest()
}

/// The manifest of the RADV to use: the one [`RADV_ICD`] names, else the system's.
fn chosen_manifest() -> Result<PathBuf, IsaError> {
    if let Some(path) = std::env::var_os(RADV_ICD).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(IsaError::NoRadvOverride {
                variable: RADV_ICD,
                path: path.display().to_string(),
            })
        };
    }
    system_manifest().ok_or(IsaError::NoRadv {
        manifest: format!("radeon_icd.{}.json", std::env::consts::ARCH),
    })
}

/// RADV's manifest in the loader's folders.
fn system_manifest() -> Option<PathBuf> {
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

/// The environment that makes the Vulkan loader offer only RADV (the one [`RADV_ICD`] names,
/// else the system's), compiling for `family` on null hardware. Open the device with
/// `Compiler::open("RADV")` after applying it.
pub fn null_hardware_environment(family: &str) -> Result<RadvEnvironment, IsaError> {
    let mesa = radv_family(family).ok_or_else(|| IsaError::UnknownFamily {
        family: family.to_string(),
        known: known_families(),
    })?;
    let manifest = chosen_manifest()?;
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
        assert_eq!(radv_family("Navi31"), Some("navi31"), "Mesa 25's name");
        assert_eq!(radv_family("navi99"), None);
        let error = null_hardware_environment("navi99").expect_err("unknown");
        let text = error.to_string();
        assert!(text.contains("gfx1010 (navi10, RDNA1)"), "{text}");
        assert!(
            text.contains("navi31 (gfx1100 to Mesa 23 and later)"),
            "{text}"
        );
    }
}
