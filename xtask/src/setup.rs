//! Making sure an adapter exists before anything runs.

use std::path::Path;
use std::process::Command;

/// Where Vulkan loaders look for installable client drivers (ICDs) on Linux.
const ICD_DIRS: &[&str] = &[
    "/usr/share/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
];

/// Succeeds when an adapter can exist; on Debian/Ubuntu as root, installs lavapipe if needed.
pub fn ensure_adapter() -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        // Metal (macOS) and DX12 (Windows) ship with the OS; `gpubench list` shows what is there.
        return Ok(());
    }
    if vulkan_driver_present() {
        eprintln!("setup: {}", found_drivers());
        return Ok(());
    }
    let debian = Path::new("/etc/debian_version").exists();
    let apt = Command::new("apt-get")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if debian && apt && is_root() {
        eprintln!(
            "no Vulkan driver found: installing the software adapter (mesa-vulkan-drivers, lavapipe)"
        );
        run_apt(&["update"])?;
        run_apt(&[
            "install",
            "-y",
            "--no-install-recommends",
            "mesa-vulkan-drivers",
            "libvulkan1",
        ])?;
        if vulkan_driver_present() {
            eprintln!("setup: {}", found_drivers());
            return Ok(());
        }
        return Err(
            "mesa-vulkan-drivers was installed but no Vulkan driver is visible".to_string(),
        );
    }
    Err(
        "no Vulkan driver found. Install your GPU vendor's Vulkan driver, or a software adapter: \
         on Debian/Ubuntu `sudo apt-get install mesa-vulkan-drivers libvulkan1`; on Fedora \
         `sudo dnf install mesa-vulkan-drivers vulkan-loader`; on Arch `sudo pacman -S vulkan-swrast \
         vulkan-icd-loader`. Then run `cargo xtask setup` again."
            .to_string(),
    )
}

/// The Vulkan driver manifests found, in words (what `setup` says when it has nothing to do).
fn found_drivers() -> String {
    let manifests = driver_manifests();
    format!(
        "the Vulkan loader and {} driver manifest(s) are installed ({}); nothing to install. \
         `cargo run -p gpubench-cli -- list` shows the adapters they give",
        manifests.len(),
        manifests.join(", ")
    )
}

/// The file names of the driver manifests in the loader's folders, sorted, once each.
fn driver_manifests() -> Vec<String> {
    let mut manifests: Vec<String> = ICD_DIRS
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|entries| entries.flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    manifests.sort();
    manifests.dedup();
    manifests
}

fn vulkan_driver_present() -> bool {
    !driver_manifests().is_empty() && loader_present()
}

fn loader_present() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
        "/usr/lib/aarch64-linux-gnu/libvulkan.so.1",
        "/usr/lib64/libvulkan.so.1",
        "/usr/lib/libvulkan.so.1",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
        || Command::new("ldconfig")
            .arg("-p")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("libvulkan.so.1"))
}

/// Whether this process runs as root (installing packages needs it).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs apt-get with `args`, echoing the command first.
pub fn run_apt(args: &[&str]) -> Result<(), String> {
    eprintln!("$ apt-get {}", args.join(" "));
    let status = Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .map_err(|e| format!("could not start apt-get: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`apt-get {}` failed ({status})", args.join(" ")))
    }
}

/// Succeeds when the toolchain (rust-toolchain.toml's, through rustup) can compile for
/// `target`; adds it with `rustup target add` where it is missing, and says so.
pub fn ensure_rust_target(target: &str) -> Result<(), String> {
    let root = crate::workspace_root();
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .current_dir(&root)
        .output()
        .map_err(|e| {
            format!("checking for the {target} target needs rustup on the PATH ({e}); or add the target to this toolchain another way")
        })?;
    if String::from_utf8_lossy(&installed.stdout)
        .lines()
        .any(|line| line.trim() == target)
    {
        return Ok(());
    }
    eprintln!("setup: the {target} target is missing: $ rustup target add {target}");
    let status = Command::new("rustup")
        .args(["target", "add", target])
        .current_dir(&root)
        .status()
        .map_err(|e| format!("could not start rustup: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`rustup target add {target}` failed ({status}): it needs the network once"
        ))
    }
}

/// Succeeds when Node.js and npm are on the PATH (the Tint check runs Dawn's Node bindings);
/// on Debian/Ubuntu as root, installs the distribution's `nodejs` and `npm` if they are not.
pub fn ensure_node() -> Result<(), String> {
    let works = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if works("node") && works("npm") {
        return Ok(());
    }
    let debian = Path::new("/etc/debian_version").exists();
    if debian && works("apt-get") && is_root() {
        eprintln!("setup: Node.js or npm is missing: installing the distribution's nodejs and npm");
        run_apt(&["update"])?;
        run_apt(&["install", "-y", "--no-install-recommends", "nodejs", "npm"])?;
        if works("node") && works("npm") {
            return Ok(());
        }
        return Err("nodejs and npm were installed but `node` or `npm` does not run".to_string());
    }
    Err(
        "the Tint check needs Node.js (tested with 20) and npm on the PATH: on \
         Debian/Ubuntu `sudo apt-get install nodejs npm`; on Fedora `sudo dnf install nodejs \
         npm`; on Arch `sudo pacman -S nodejs npm`; on macOS `brew install node`; or the \
         installer from nodejs.org. Then run the check again."
            .to_string(),
    )
}

/// Whether apt-get and dpkg-deb both run here (Debian or Ubuntu): what downloading and
/// unpacking a pinned package without installing it needs.
pub fn apt_tools_present() -> bool {
    ["apt-get", "dpkg-deb"].iter().all(|name| {
        Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// `apt-get download SPEC` into `dir` (a package, or `package=version`), once more after an
/// `apt-get update` where the first try fails (a fresh machine may have no package lists yet);
/// whether a package was downloaded. Nothing is installed.
pub fn apt_download(spec: &str, dir: &Path) -> bool {
    apt_download_with(spec, dir, &[])
}

/// [`apt_download`] with apt `options` (`-o NAME=VALUE` pairs) on both commands: an isolated
/// apt state (its own source list, package lists and cache) downloads from a suite the system
/// does not list, and its update touches nothing of the system's.
pub fn apt_download_with(spec: &str, dir: &Path, options: &[String]) -> bool {
    let download = || {
        Command::new("apt-get")
            .args(options)
            .args(["download", "-q", spec])
            .current_dir(dir)
            .status()
            .is_ok_and(|s| s.success())
    };
    download() || {
        let _ = Command::new("apt-get")
            .args(options)
            .args(["update", "-q"])
            .status();
        download()
    }
}

/// Unpacks the package `deb` into `root` once its SHA-256 is `pinned` (a package that differs
/// is deleted and refused), through `dir/partial` and a rename, so a half-unpacked tree is
/// never used.
pub fn unpack_pinned(deb: &Path, pinned: &str, dir: &Path, root: &Path) -> Result<(), String> {
    let sum = sha256(deb)?;
    if sum != pinned {
        let _ = std::fs::remove_file(deb);
        return Err(format!(
            "{} has SHA-256 {sum}, not the pinned {pinned}: refusing it",
            deb.display()
        ));
    }
    let partial = dir.join("partial");
    let _ = std::fs::remove_dir_all(&partial);
    let status = Command::new("dpkg-deb")
        .arg("-x")
        .arg(deb)
        .arg(&partial)
        .status()
        .map_err(|e| format!("dpkg-deb: {e}"))?;
    if !status.success() {
        return Err(format!("dpkg-deb -x {} failed ({status})", deb.display()));
    }
    let _ = std::fs::remove_dir_all(root);
    std::fs::rename(&partial, root).map_err(|e| format!("moving {}: {e}", partial.display()))
}

/// The SHA-256 of `file`, in lower-case hex (coreutils' `sha256sum`).
pub fn sha256(file: &Path) -> Result<String, String> {
    let out = Command::new("sha256sum")
        .arg(file)
        .output()
        .map_err(|e| format!("could not start sha256sum: {e}"))?;
    if !out.status.success() {
        return Err(format!("sha256sum {} failed", file.display()));
    }
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .map(str::to_string)
        .ok_or_else(|| format!("sha256sum printed nothing for {}", file.display()))
}
