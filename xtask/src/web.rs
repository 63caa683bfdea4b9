//! `cargo xtask web`: the page that runs gpubench in a browser (crates/gpubench-web compiled to
//! wasm32, its JavaScript glue from wasm-bindgen, and web/), into target/web; and `cargo xtask
//! web-test`: that page run in headless Chromium as a visitor would run it, its results file
//! held to the same contract as the command line's.
//!
//! wasm-bindgen's command-line tool must be the exact release of the `wasm-bindgen` crate the
//! build links (their glue format is private to each release): it is read from Cargo.lock and
//! installed with `cargo install` when that release is not there, into the user's cache folder
//! by release ([`tool_cache`]), so that another checkout on the machine (CI's fresh clone) does
//! not build it again, as cargo keeps its registry. Nothing is fetched at run time: the page is
//! static files.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{cargo, cargo_with_env, workspace_root};

/// The Rust target of the browser build.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The page's own files, copied beside the generated ones.
const PAGE_FILES: [&str; 4] = ["index.html", "app.js", "style.css", "serve.py"];
/// The suites the browser test runs (a reduced quick run: CI's allowance is minutes).
const TEST_SUITES: &str = "launch,stream,compute";

/// Builds the page into target/web and says how to open it.
pub fn build() -> Result<PathBuf, String> {
    let root = workspace_root();
    crate::setup::ensure_rust_target(WASM_TARGET)?;
    let commit = git_commit(&root);
    cargo_with_env(
        &[
            "build",
            "--release",
            "--target",
            WASM_TARGET,
            "-p",
            "gpubench-web",
        ],
        &[("GPUBENCH_COMMIT", &commit)],
    )?;
    let bindgen = ensure_wasm_bindgen(&root)?;
    let out = root.join("target/web");
    let wasm = root.join(format!("target/{WASM_TARGET}/release/gpubench_web.wasm"));
    let status = Command::new(&bindgen)
        .args(["--target", "web", "--no-typescript", "--out-dir"])
        .arg(out.join("pkg"))
        .arg(&wasm)
        .status()
        .map_err(|e| format!("could not start {}: {e}", bindgen.display()))?;
    if !status.success() {
        return Err(format!(
            "wasm-bindgen failed on {}: {status}",
            wasm.display()
        ));
    }
    for file in PAGE_FILES {
        std::fs::copy(root.join("web").join(file), out.join(file))
            .map_err(|e| format!("copying web/{file} into {}: {e}", out.display()))?;
    }
    eprintln!(
        "web: the page is in {}: serve it cross-origin isolated from a secure origin (`python3 {}`) and open http://127.0.0.1:8000/ in a browser with WebGPU",
        out.display(),
        out.join("serve.py").display()
    );
    Ok(out)
}

/// Builds the page, runs it in headless Chromium (installed on Debian/Ubuntu as root where
/// missing), and holds the results file it returns to the command line's contract: the schema,
/// every result ok and verified or skipped with its reason.
pub fn test() -> Result<(), String> {
    let page = build()?;
    let chromium = ensure_chromium()?;
    let root = workspace_root();
    let out = root.join("target/web-test");
    std::fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    let results = out.join("web-results.json");
    let status = Command::new("python3")
        .arg(root.join("scripts/web/run_page.py"))
        .arg(&page)
        .arg("--out")
        .arg(&results)
        .args(["--suites", TEST_SUITES, "--profile", "quick", "--chromium"])
        .arg(&chromium)
        .status()
        .map_err(|e| format!("could not start python3: {e}"))?;
    if !status.success() {
        return Err(format!(
            "the page's run in Chromium failed ({status}): see above"
        ));
    }
    let doc = crate::checks::read_checked_document(&results)?;
    if doc["machine"]["adapter"]["backend"] != "webgpu" {
        return Err(format!(
            "the page's run names backend {}, not webgpu",
            doc["machine"]["adapter"]["backend"]
        ));
    }
    crate::checks::validate_schema(&results)?;
    let count = doc["results"].as_array().map_or(0, Vec::len);
    eprintln!(
        "web-test: {count} results from the page in headless Chromium, all ok and verified or skipped with a reason; the file validates against docs/results.schema.json"
    );
    crate::web_compare::check(&results)
}

/// Where tools built for the checks are kept, one folder per tool and release, for every
/// checkout of this machine: `GPUBENCH_TOOL_CACHE`, else `$XDG_CACHE_HOME/gpubench`, else
/// `~/.cache/gpubench`, else this checkout's target/xtask.
fn tool_cache(root: &Path) -> PathBuf {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("GPUBENCH_TOOL_CACHE")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("gpubench")))
        .or_else(|| env("HOME").map(|d| d.join(".cache/gpubench")))
        .unwrap_or_else(|| root.join("target/xtask"))
}

/// The wasm-bindgen release Cargo.lock resolves, installed into the [`tool_cache`] where
/// missing.
fn ensure_wasm_bindgen(root: &Path) -> Result<PathBuf, String> {
    let version = locked_version(root, "wasm-bindgen")?;
    let prefix = tool_cache(root).join(format!("wasm-bindgen-{version}"));
    let bin = prefix.join("bin/wasm-bindgen");
    let has = Command::new(&bin).arg("--version").output().is_ok_and(|o| {
        String::from_utf8_lossy(&o.stdout).trim() == format!("wasm-bindgen {version}")
    });
    if has {
        return Ok(bin);
    }
    eprintln!(
        "web: installing wasm-bindgen-cli {version} (Cargo.lock's wasm-bindgen) into {}; a first install builds it, minutes",
        prefix.display()
    );
    let prefix_text = prefix.to_string_lossy().to_string();
    // Not --locked: the CLI's own lock file names a release of webpki-roots that crates.io has
    // since withdrawn, so a locked install fails; the CLI's version itself is pinned exactly.
    // The one binary the page needs, without the default TLS stack (only its test runner
    // downloads anything): 118 s to build here instead of 144.
    cargo(&[
        "install",
        "--quiet",
        "wasm-bindgen-cli",
        "--version",
        &format!("={version}"),
        "--no-default-features",
        "--bin",
        "wasm-bindgen",
        "--root",
        &prefix_text,
    ])?;
    Ok(bin)
}

/// The version Cargo.lock gives `package`.
fn locked_version(root: &Path, package: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let name = format!("name = \"{package}\"");
    let lines: Vec<&str> = lock.lines().collect();
    let version = lines
        .windows(2)
        .find(|pair| pair[0].trim() == name)
        .and_then(|pair| pair[1].trim().strip_prefix("version = "));
    if let Some(version) = version {
        return Ok(version.trim_matches('"').to_string());
    }
    Err(format!(
        "Cargo.lock has no {package}: build gpubench-web once to resolve it"
    ))
}

/// Chromium for the browser test: on the PATH, or installed from the distribution on
/// Debian/Ubuntu as root; else what to install.
pub fn ensure_chromium() -> Result<PathBuf, String> {
    let found = |name: &str| {
        Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if found(name) {
            return Ok(PathBuf::from(name));
        }
    }
    if crate::setup::apt_tools_present() && crate::setup::is_root() {
        eprintln!("web-test: Chromium is missing: installing the distribution's chromium");
        crate::setup::update_apt_lists();
        // Ubuntu has Chromium only as a snap (no deb of that name): a failed install falls
        // through to what to install instead.
        let apt = ["install", "-y", "--no-install-recommends", "chromium"];
        if let Err(failed) = crate::setup::run_apt(&apt) {
            eprintln!("web-test: {failed}");
        }
        if found("chromium") {
            return Ok(PathBuf::from("chromium"));
        }
    }
    Err("the browser test needs Chromium or Chrome on the PATH (as chromium, chromium-browser or google-chrome): on Debian `sudo apt-get install chromium`, on Ubuntu `sudo snap install chromium` or Google's Chrome package, on Fedora `sudo dnf install chromium`, on Arch `sudo pacman -S chromium`, on macOS `brew install --cask chromium`; then run it again".to_string())
}

/// The commit the page is built from as its results record it, marked `-dirty` where tracked
/// files differ from it (as the command line's build does); empty where git cannot tell (the
/// page then records none).
fn git_commit(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(sha) = git(&["rev-parse", "--short", "HEAD"]).filter(|s| !s.is_empty()) else {
        return String::new();
    };
    match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(changes) if changes.is_empty() => sha,
        _ => format!("{sha}-dirty"),
    }
}
