//! What this binary was built from, as build.rs found it (git, rustc, cargo): shown by
//! `--version` and recorded in every results file, so a number can always be traced to the code
//! that produced it.

use std::sync::LazyLock;

/// The commit the binary was built from (short SHA), when it was built from a git checkout or
/// `VERGEN_GIT_SHA` was given.
pub fn commit() -> Option<&'static str> {
    known(option_env!("VERGEN_GIT_SHA"))
}

/// Whether tracked files differed from that commit when it was built.
pub fn dirty() -> bool {
    option_env!("VERGEN_GIT_DIRTY") == Some("true")
}

/// `gpubench -V`: the version and the commit, e.g. `0.1.0 (e720013)`.
pub fn short() -> &'static str {
    static SHORT: LazyLock<String> =
        LazyLock::new(|| format!("{} ({})", env!("CARGO_PKG_VERSION"), source()));
    &SHORT
}

/// `gpubench --version`: the version, then every build fact on a line of its own.
pub fn long() -> &'static str {
    static LONG: LazyLock<String> = LazyLock::new(|| {
        let fact = |value: Option<&'static str>| known(value).unwrap_or("unknown");
        format!(
            "{}\ncommit:      {}\ncommit date: {}\nrustc:       {}\ntarget:      {}\nopt-level:   {}",
            env!("CARGO_PKG_VERSION"),
            source(),
            fact(option_env!("VERGEN_GIT_COMMIT_DATE")),
            fact(option_env!("VERGEN_RUSTC_SEMVER")),
            fact(option_env!("VERGEN_CARGO_TARGET_TRIPLE")),
            fact(option_env!("VERGEN_CARGO_OPT_LEVEL")),
        )
    });
    &LONG
}

/// The commit, marked when the tree held uncommitted changes; says so when it is not known.
fn source() -> String {
    match (commit(), dirty()) {
        (Some(sha), false) => sha.to_string(),
        (Some(sha), true) => format!("{sha}-dirty: built with uncommitted changes"),
        (None, _) => "commit unknown: built outside a git checkout".to_string(),
    }
}

/// A build fact that build.rs could not find (no git, no checkout) is `None`, never its
/// placeholder text.
fn known(value: Option<&'static str>) -> Option<&'static str> {
    value.filter(|v| !v.is_empty() && !v.starts_with("VERGEN_"))
}
