//! Build information for `--version` and the results file, through vergen: the commit (short
//! SHA), whether the tree had uncommitted changes, the commit date, the rustc and the target.
//! vergen asks cargo to rebuild when the checked-out commit or the index moves, so a binary
//! never reports a commit it was not built from; every tracked file is watched too, so the
//! `-dirty` mark follows the working tree (an edited README marks it, a restored file clears
//! it) instead of the state at the last rebuild. Outside a git checkout (a source archive, an
//! image built without `.git`) the git fields are empty unless `VERGEN_GIT_SHA` is set in the
//! build's environment (the Dockerfile passes it as a build argument).

use vergen_gitcl::{Cargo, Emitter, Gitcl, Rustc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cargo = Cargo::builder().target_triple(true).opt_level(true).build();
    let rustc = Rustc::builder().semver(true).build();
    let git = Gitcl::builder()
        .sha(true)
        .dirty(false)
        .commit_date(true)
        .build();
    Emitter::default()
        .add_instructions(&cargo)?
        .add_instructions(&rustc)?
        .add_instructions(&git)?
        .emit()?;
    watch_tracked_files();
    Ok(())
}

/// Asks cargo to rerun this script when any file git tracks changes, since whether the tree is
/// dirty depends on all of them. Outside a checkout (no git, or not a repository) nothing is
/// added: the git fields are empty there anyway.
fn watch_tracked_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Ok(out) = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output()
    else {
        return;
    };
    if !out.status.success() {
        return;
    }
    for name in out
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
    {
        if let Ok(name) = std::str::from_utf8(name) {
            println!("cargo:rerun-if-changed={}", root.join(name).display());
        }
    }
}
