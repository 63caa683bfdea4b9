//! Mesa 25.0.7's RADV, the newer real AMD compiler: its `navi31` (RDNA 3) offers
//! `VK_KHR_cooperative_matrix`, which Mesa 22.3 (Debian 12's) does not, so the
//! cooperative-matrix kernels compile there (registers, spills, occupancy, and the ISA with
//! its `v_wmma` and the LDS loads feeding them). `cargo xtask radv25` checks that
//! docs/kernels/navi31.md is what this tree's kernels compile to, and runs the tests that read
//! its disassembly (`gpubench-isa`'s `navi31`); both fail, never skip, without it.
//!
//! It comes from Debian's bookworm-backports, pinned by version and SHA-256: `apt-get download`
//! through an isolated apt state in target/xtask/radv25 (a source list naming only
//! bookworm-backports, its own package lists and cache; nothing of the system's apt changes),
//! checked, unpacked with `dpkg-deb -x`, never installed. Its `libvulkan_radeon.so` loads with
//! Debian 12's libdrm and LLVM 15 (nothing undefined; on null hardware libdrm is not called),
//! so only `mesa-vulkan-drivers` is fetched. A driver manifest naming the unpacked library by
//! its absolute path is written beside it and handed to gpubench as `GPUBENCH_RADV_ICD`, in
//! the environment of these commands only. Elsewhere, point that variable at a Mesa 25 RADV's
//! manifest.

use std::path::{Path, PathBuf};

use crate::workspace_root;

/// The pinned package: Mesa 25.0.7's Vulkan drivers from Debian 12's backports (amd64).
const PACKAGE: &str = "mesa-vulkan-drivers";
const VERSION: &str = "25.0.7-2~bpo12+1";
const SHA256: &str = "3899f1800424c60a05df5d6913076a526ca8fdbabec43672cd397563d1ca3263";
/// The one suite the isolated apt state lists.
const SOURCE: &str = "deb http://deb.debian.org/debian bookworm-backports main";
/// Where the pinned file is in Debian's archive, for a machine without apt.
const POOL_URL: &str =
    "https://deb.debian.org/debian/pool/main/m/mesa/mesa-vulkan-drivers_25.0.7-2~bpo12+1_amd64.deb";
/// RADV's library inside the package.
const LIBRARY: &str = "usr/lib/x86_64-linux-gnu/libvulkan_radeon.so";

/// The variable gpubench reads for another RADV than the system's (`gpubench_isa::radv`).
pub const OVERRIDE: &str = "GPUBENCH_RADV_ICD";

/// What to do where the package cannot be unpacked here.
fn how_to_get_it() -> String {
    format!(
        "on Debian 12 (apt-get and dpkg-deb, with Debian's archive) this step unpacks {PACKAGE} {VERSION} \
         itself; elsewhere (Ubuntu's archive has no such package) download {POOL_URL} (SHA-256 {SHA256}), unpack it (`ar x`, then \
         `tar xf data.tar.xz`), write a driver manifest whose library_path is the unpacked \
         {LIBRARY}, and set {OVERRIDE} to it"
    )
}

/// The folder everything of this step lives in.
fn folder() -> PathBuf {
    workspace_root().join("target/xtask/radv25")
}

/// Mesa 25's RADV driver manifest: the one `GPUBENCH_RADV_ICD` names, or the pinned
/// package's, unpacked into target/xtask/radv25 on first use.
pub fn icd() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(OVERRIDE).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(format!("{OVERRIDE}={}: no such file", path.display()));
        }
        return Ok(path);
    }
    let dir = folder();
    let root = dir.join(format!("{PACKAGE}-{VERSION}"));
    let manifest = dir.join("radeon_icd.json");
    if manifest.is_file() && root.join(LIBRARY).is_file() {
        return Ok(manifest);
    }
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Err(format!(
            "Mesa 25's RADV is pinned for x86_64 Linux; {}",
            how_to_get_it()
        ));
    }
    if !root.join(LIBRARY).is_file() {
        unpack(&dir, &root)?;
    }
    let library = root.join(LIBRARY);
    if !library.is_file() {
        return Err(format!(
            "{PACKAGE} {VERSION} holds no {LIBRARY}; {}",
            how_to_get_it()
        ));
    }
    let text = serde_json::json!({
        "file_format_version": "1.0.0",
        "ICD": { "library_path": library.display().to_string(), "api_version": "1.4.305" }
    });
    std::fs::write(&manifest, format!("{text}\n"))
        .map_err(|e| format!("writing {}: {e}", manifest.display()))?;
    Ok(manifest)
}

/// The apt options of the isolated state in `dir`: its own source list (bookworm-backports
/// alone, no source parts), package lists and cache.
fn apt_state(dir: &Path) -> Result<Vec<String>, String> {
    let lists = dir.join("apt/lists");
    let cache = dir.join("apt/cache");
    for made in [lists.join("partial"), cache.join("archives/partial")] {
        std::fs::create_dir_all(&made).map_err(|e| format!("creating {}: {e}", made.display()))?;
    }
    let sources = dir.join("apt/sources.list");
    std::fs::write(&sources, format!("{SOURCE}\n"))
        .map_err(|e| format!("writing {}: {e}", sources.display()))?;
    let option =
        |name: &str, value: &Path| ["-o".to_string(), format!("{name}={}", value.display())];
    let mut options: Vec<String> = Vec::new();
    options.extend(option("Dir::Etc::sourcelist", &sources));
    options.extend(option("Dir::Etc::sourceparts", Path::new("-")));
    options.extend(option("Dir::State::Lists", &lists));
    options.extend(option("Dir::Cache", &cache));
    Ok(options)
}

/// Downloads the pinned package into `dir` through the isolated apt state, checks its hash
/// and unpacks it into `root`.
fn unpack(dir: &Path, root: &Path) -> Result<(), String> {
    if !crate::setup::apt_tools_present() {
        return Err(format!(
            "Mesa 25's RADV is not available: {}",
            how_to_get_it()
        ));
    }
    let debs = dir.join("deb");
    std::fs::create_dir_all(&debs).map_err(|e| format!("creating {}: {e}", debs.display()))?;
    eprintln!(
        "xtask: unpacking RADV from {PACKAGE} {VERSION} (bookworm-backports) into {} (not \
         installed)",
        dir.display()
    );
    let pinned = format!("{PACKAGE}={VERSION}");
    if !crate::setup::apt_download_with(&pinned, &debs, &apt_state(dir)?) {
        return Err(format!(
            "`apt-get download {pinned}` from bookworm-backports failed: the archive may have \
             dropped the pinned version (pin the one `apt-cache policy {PACKAGE}` shows with \
             that source list, and its SHA256, in xtask/src/radv25.rs); or {}",
            how_to_get_it()
        ));
    }
    let deb = debs.join(format!(
        "{PACKAGE}_{}_amd64.deb",
        VERSION.replace(':', "%3a")
    ));
    crate::setup::unpack_pinned(&deb, SHA256, dir, root)
}

/// The environment that makes gpubench compile with Mesa 25's RADV (`--isa navi31`).
pub fn environment(icd: &Path) -> Vec<(&'static str, String)> {
    vec![
        (OVERRIDE, icd.display().to_string()),
        // Mesa's device-select layer prints about XDG_RUNTIME_DIR on every instance.
        ("NODEVICE_SELECT", "1".to_string()),
    ]
}

/// The docs/kernels/navi31.md check and the tests that read Mesa 25's RADV disassembly, both
/// ignored by a plain `cargo test` (they need this step's RADV).
pub fn check() -> Result<(), String> {
    let started = std::time::Instant::now();
    let icd = icd()?;
    eprintln!(
        "xtask: Mesa 25's RADV ready in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let env = environment(&icd);
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // Selected over the workspace, not with `-p`: the features are the workspace tests', so
    // nothing is rebuilt after them.
    let runs: [&[&str]; 2] = [
        &[
            "test",
            "--quiet",
            "--workspace",
            "--test",
            "navi31",
            "--",
            "--ignored",
        ],
        &[
            "test",
            "--quiet",
            "--workspace",
            "--test",
            "kernels_isa",
            "--",
            "--ignored",
            "navi31",
        ],
    ];
    runs.iter()
        .try_for_each(|args| crate::cargo_with_env(args, &env_refs))
}
