//! Build information for `--version` and the results file: the commit (short SHA), whether
//! tracked files differed from it, the commit date, the rustc and the target. Each is one git
//! or rustc call, or a value cargo hands every build script, so it is asked for here directly
//! (a build-info crate would add a proc-macro builder stack to every clean build, twice in CI,
//! for these six lines).
//!
//! The script reruns when the checked-out commit or any tracked file changes, so a binary never
//! reports a commit it was not built from, and the `-dirty` mark follows the working tree (an
//! edited README marks it, a restored file clears it). Outside a git checkout (a source
//! archive, an image built without `.git`) the git fields are empty unless `VERGEN_GIT_SHA` is
//! set in the build's environment (the Dockerfile passes it as a build argument). The variable
//! names are the ones the binary has always read.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=VERGEN_GIT_SHA");
    emit("VERGEN_CARGO_TARGET_TRIPLE", std::env::var("TARGET").ok());
    emit("VERGEN_CARGO_OPT_LEVEL", std::env::var("OPT_LEVEL").ok());
    emit("VERGEN_RUSTC_SEMVER", rustc_semver());
    let given = std::env::var("VERGEN_GIT_SHA")
        .ok()
        .filter(|sha| !sha.is_empty());
    if given.is_none() {
        watch_checkout(&root);
    }
    let sha = given.or_else(|| git(&root, &["rev-parse", "--short", "HEAD"]));
    let known = sha.is_some();
    emit("VERGEN_GIT_SHA", sha);
    if known {
        emit(
            "VERGEN_GIT_COMMIT_DATE",
            git(&root, &["log", "-1", "--format=%cs"]),
        );
        let changes = git(&root, &["status", "--porcelain", "--untracked-files=no"]);
        emit(
            "VERGEN_GIT_DIRTY",
            changes.map(|c| (!c.is_empty()).to_string()),
        );
    }
}

/// Sets `name` for the crate's compilation, to the empty string when the value is unknown
/// (the binary reads an empty value as unknown).
fn emit(name: &str, value: Option<String>) {
    println!("cargo:rustc-env={name}={}", value.unwrap_or_default());
}

/// `git -C root args`, trimmed, when git runs and succeeds (`None` outside a checkout).
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The compiler's version, e.g. `1.95.0`, from `rustc -V`.
fn rustc_semver() -> Option<String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).arg("-V").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split_whitespace().nth(1).map(str::to_string)
}

/// Asks cargo to rerun this script when the checked-out commit moves (HEAD, the branch it
/// points to, the packed refs) or any tracked file changes, since whether the tree is dirty
/// depends on all of them. Outside a checkout nothing is added.
fn watch_checkout(root: &Path) {
    let branch = git(root, &["symbolic-ref", "-q", "HEAD"]);
    let refs = ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref());
    for git_path in refs {
        // Only files that exist: cargo reruns a script whose watched path is missing every time.
        let path = git(root, &["rev-parse", "--git-path", git_path]).map(|p| absolute(root, &p));
        if let Some(path) = path.filter(|p| p.is_file()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let Some(names) = git(root, &["ls-files", "-z"]) else {
        return;
    };
    for name in names.split('\0').filter(|name| !name.is_empty()) {
        println!("cargo:rerun-if-changed={}", root.join(name).display());
    }
}

/// `path` as git printed it (relative to `root` unless absolute).
fn absolute(root: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}
