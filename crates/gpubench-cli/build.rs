//! Build information for `--version` and the results file, through vergen: the commit (short
//! SHA), whether the tree had uncommitted changes, the commit date, the rustc and the target.
//! vergen asks cargo to rebuild when the checked-out commit or the index moves, so a binary
//! never reports a commit it was not built from. Outside a git checkout (a source archive, an
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
    Ok(())
}
