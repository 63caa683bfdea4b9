//! The browser build's first slice (issue 52): the library crates a web page uses must keep
//! compiling for `wasm32-unknown-unknown`, where there are no files, no threads, no blocking
//! waits and no std clock. A `cargo check` (nothing built or linked), so once the
//! dependencies are checked it takes seconds; warnings fail it, since code configured out on
//! one target and not the other rots quietly.

use crate::{cargo_with_env, setup};

/// The target a browser page is compiled for.
pub const TARGET: &str = "wasm32-unknown-unknown";

/// The crates a page uses: results (the file format), harness, engine and suites (the run),
/// baseline (the comparisons; its file store is native-only), report (tables, charts, HTML) and
/// the page's own entry points (gpubench-web).
const CRATES: [&str; 7] = [
    "gpubench-results",
    "gpubench-harness",
    "gpubench-engine",
    "gpubench-suites",
    "gpubench-baseline",
    "gpubench-report",
    "gpubench-web",
];

/// Checks [`CRATES`] for [`TARGET`], adding the target to the toolchain first where missing.
pub fn check() -> Result<(), String> {
    setup::ensure_rust_target(TARGET)?;
    let mut args = vec!["check", "--quiet", "--target", TARGET];
    for name in CRATES {
        args.extend(["-p", name]);
    }
    let env = [(
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
        "-D warnings",
    )];
    cargo_with_env(&args, &env).map_err(|error| {
        format!(
            "{error}\n\nThe crates a browser page uses no longer compile for {TARGET} (issue \
             52). Keep files, threads, blocking waits (pollster, device.poll(Wait)) and \
             native-only dependencies behind #[cfg(not(target_arch = \"wasm32\"))], and take \
             clocks from web_time (std's Instant and SystemTime panic there). To see where: \
             CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS='-D warnings' cargo {}",
            args.join(" ")
        )
    })
}
