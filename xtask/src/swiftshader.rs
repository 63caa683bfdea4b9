//! SwiftShader, Google's CPU Vulkan driver: a second software adapter beside lavapipe, with
//! other limits (subgroups of 4 lanes, 256 invocations per workgroup, 1 GiB buffers, no f16,
//! f64 or i64). `cargo xtask swiftshader` runs the quick profile of every suite on it, so a
//! suite that assumes more than WebGPU-class hardware offers (1024 invocations, subgroups of 8
//! or more, f16) fails CI rather than a user; `cargo xtask tint` compiles on it too.
//!
//! It comes from Debian's `chromium-common` package, pinned by version and SHA-256: downloaded
//! with `apt-get download`, checked, and unpacked with `dpkg-deb -x` into target/xtask, never
//! installed. Its driver manifest is handed to the loader (`VK_DRIVER_FILES` and
//! `VK_ICD_FILENAMES`) only in the environment of the commands that use it: listed beside
//! lavapipe it comes first, and would take over every other test. Elsewhere, point
//! `GPUBENCH_SWIFTSHADER_ICD` at a SwiftShader `vk_swiftshader_icd.json`.

use std::path::{Path, PathBuf};

use crate::workspace_root;

/// The package: Debian 12's chromium-common (amd64), which carries SwiftShader's Vulkan driver.
const PACKAGE: &str = "chromium-common";
/// The pinned versions and their SHA-256, tried in order: bookworm main's (replaced only at a
/// point release), then bookworm-security's (replaced at each Chromium security update).
/// Debian's archive keeps only the current ones, so a pin goes stale by itself; where none is
/// listed, the version apt offers is taken, checked by apt against Debian's signed index
/// alone, and the run says so (pin it here from `apt-cache show chromium-common`).
const PINS: [(&str, &str); 2] = [
    (
        "150.0.7871.100-1~deb12u1",
        "31326f6b71ce20a52e7bea9792bf7135d4ff802e1cdbc250960b1b46729998d2",
    ),
    (
        "156.0.8078.114-1~deb12u1",
        "fe9713b01e8336384848ca9ff4c073d9a36113c71ebf6e1f1e54e8d294b675ae",
    ),
];
/// Where the first pinned file is in Debian's archive, for a machine without apt.
const POOL_URL: &str = "https://deb.debian.org/debian/pool/main/c/chromium/chromium-common_150.0.7871.100-1~deb12u1_amd64.deb";
/// The driver manifest inside the package (its library path is relative to it).
const MANIFEST: &str = "usr/lib/chromium/vk_swiftshader_icd.json";

/// The variable that names a SwiftShader driver manifest to use instead of the pinned package.
const OVERRIDE: &str = "GPUBENCH_SWIFTSHADER_ICD";

/// What to do where the package cannot be unpacked here.
fn how_to_get_it() -> String {
    let (version, sha256) = PINS[0];
    format!(
        "on Debian 12 (apt-get and dpkg-deb, with Debian's archive) this check unpacks {PACKAGE} {version} \
         itself; elsewhere (Ubuntu's archive has no such package) download {POOL_URL} (SHA-256 {sha256}), unpack it (`ar x`, then \
         `tar xf data.tar.xz`) and set {OVERRIDE} to the unpacked {MANIFEST}"
    )
}

/// The SwiftShader driver manifest: the one `GPUBENCH_SWIFTSHADER_ICD` names, or the package's,
/// unpacked into target/xtask/swiftshader on first use.
pub fn icd() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(OVERRIDE) {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(format!("{OVERRIDE}={}: no such file", path.display()));
        }
        return Ok(path);
    }
    let dir = workspace_root().join("target/xtask/swiftshader");
    let unpacked = dir.join(PACKAGE);
    let manifest = unpacked.join(MANIFEST);
    if manifest.is_file() {
        return Ok(manifest);
    }
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Err(format!(
            "SwiftShader is packaged here for x86_64 Linux; {}",
            how_to_get_it()
        ));
    }
    let version = unpack(&dir, &unpacked)?;
    if manifest.is_file() {
        Ok(manifest)
    } else {
        Err(format!(
            "{PACKAGE} {version} holds no {MANIFEST}; {}",
            how_to_get_it()
        ))
    }
}

/// Downloads the package into `dir` (the first pinned version apt lists, else apt's own
/// candidate), checks a pinned one's hash and unpacks it into `root`; the version taken.
fn unpack(dir: &Path, root: &Path) -> Result<String, String> {
    if !crate::setup::apt_tools_present() {
        return Err(format!("SwiftShader is not available: {}", how_to_get_it()));
    }
    let debs = dir.join("deb");
    let _ = std::fs::remove_dir_all(&debs);
    std::fs::create_dir_all(&debs).map_err(|e| format!("creating {}: {e}", debs.display()))?;
    for (version, sha256) in PINS {
        if crate::setup::apt_download(&format!("{PACKAGE}={version}"), &debs) {
            eprintln!(
                "xtask: unpacking SwiftShader from {PACKAGE} {version} (pinned) into {} (not installed)",
                dir.display()
            );
            crate::setup::unpack_pinned(&downloaded(&debs)?, sha256, dir, root)?;
            return Ok(version.to_string());
        }
    }
    if !crate::setup::apt_download(PACKAGE, &debs) {
        return Err(format!(
            "`apt-get download {PACKAGE}` failed: this apt lists no {PACKAGE}; {}",
            how_to_get_it()
        ));
    }
    let deb = downloaded(&debs)?;
    let version = version_of(&deb);
    eprintln!(
        "xtask: none of {PACKAGE}'s pinned versions ({}) is in this apt's archive any more; \
         taking {version}, checked by apt against Debian's signed index only (pin it, with its \
         SHA256 from `apt-cache show {PACKAGE}`, in xtask/src/swiftshader.rs)",
        PINS.map(|(v, _)| v).join(", ")
    );
    let sha256 = crate::setup::sha256(&deb)?;
    crate::setup::unpack_pinned(&deb, &sha256, dir, root)?;
    Ok(version)
}

/// The package apt-get left in `debs`.
fn downloaded(debs: &Path) -> Result<PathBuf, String> {
    std::fs::read_dir(debs)
        .map_err(|e| format!("reading {}: {e}", debs.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{PACKAGE}_")))
        })
        .ok_or_else(|| format!("apt-get left no {PACKAGE} package in {}", debs.display()))
}

/// The version in a package's file name (`NAME_VERSION_ARCH.deb`, an epoch's colon as `%3a`).
fn version_of(deb: &Path) -> String {
    let name = deb
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name.split('_')
        .nth(1)
        .map_or_else(|| name.clone(), |v| v.replace("%3a", ":"))
}

/// The environment that makes SwiftShader the only Vulkan driver of one command.
pub fn environment(icd: &Path) -> Vec<(&'static str, String)> {
    let icd = icd.display().to_string();
    vec![
        ("VK_DRIVER_FILES", icd.clone()),
        ("VK_ICD_FILENAMES", icd),
        // Mesa's device-select layer prints about XDG_RUNTIME_DIR on every instance.
        ("NODEVICE_SELECT", "1".to_string()),
    ]
}

/// The matmul variant the run uses instead of autotuning: tuning measures every candidate,
/// which takes SwiftShader minutes; one small-tile form verifies the suite in seconds.
const MATMUL_VARIANT: &str = "tiled16";

/// The quick profile of every suite on SwiftShader: exit 0, every result verified or skipped
/// with its reason (see the module docs).
pub fn check() -> Result<(), String> {
    let icd = icd()?;
    let dir = workspace_root().join("target/xtask/swiftshader");
    let out = dir.join("quick.json");
    let _ = std::fs::remove_file(&out);
    let out_text = out.display().to_string();
    let env = environment(&icd);
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let gpubench = crate::test_build::programs()?.gpubench;
    let args = [
        "run",
        "--backend",
        "vulkan",
        "--adapter",
        "swiftshader",
        "--profile",
        "quick",
        "--suite",
        "all",
        "--matmul-variant",
        MATMUL_VARIANT,
        "--no-progress",
        "--noise-check",
        "off",
        "--out",
        &out_text,
    ];
    let started = std::time::Instant::now();
    match crate::test_build::run_status(&gpubench, &args, &env_refs)? {
        Some(0) => {}
        Some(code) => {
            return Err(format!(
                "the quick run on SwiftShader exited {code} (4: a benchmark failed, which is \
                 a suite assuming more than SwiftShader offers); the results are in {out_text}"
            ));
        }
        None => return Err("the quick run on SwiftShader was ended by a signal".to_string()),
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("reading {out_text}: {e}"))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{out_text} is not JSON: {e}"))?;
    let adapter = doc["machine"]["adapter"]["name"]
        .as_str()
        .unwrap_or_default();
    if !adapter.to_ascii_lowercase().contains("swiftshader") {
        return Err(format!(
            "{out_text} was measured on '{adapter}', not SwiftShader"
        ));
    }
    crate::checks::check_document(&doc).map_err(|e| format!("{out_text}: {e}"))?;
    let results = doc["results"].as_array().map_or(0, Vec::len);
    eprintln!(
        "xtask: the quick profile of every suite on {adapter}: {results} results, each verified \
         or skipped with its reason, in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_the_package_file_name() {
        let deb = Path::new("/x/chromium-common_1%3a150.0.7871.100-1~deb12u1_amd64.deb");
        assert_eq!(version_of(deb), "1:150.0.7871.100-1~deb12u1");
        assert_eq!(version_of(Path::new("odd.deb")), "odd.deb");
    }

    #[test]
    fn the_pins_are_versions_with_full_hashes_and_the_pool_url_names_the_first() {
        for (version, sha256) in PINS {
            assert!(version.ends_with("~deb12u1"), "{version}");
            assert_eq!(sha256.len(), 64);
            assert!(sha256.chars().all(|c| c.is_ascii_hexdigit()));
        }
        assert!(POOL_URL.contains(PINS[0].0));
    }
}
