//! Every wait on the device is async: library code awaits it, and only the native entry points
//! (the CLI's commands, the criterion benches, the tests) block, once, with `pollster`. A
//! browser build cannot block at all, so a `block_on` in the suites, the engine, the harness's
//! kit, its runner or its clock would hang it. This walks those sources and fails on either
//! spelling of a block, comments included. Unit-test modules (`#[cfg(test)] mod ...`, at the end
//! of a file or in a file of their own, like each suite's `on_an_adapter.rs`) are entry points
//! of their own and are left out.

mod common;

use common::{rust_files, scan};
use std::path::{Path, PathBuf};

/// What may not appear in library code.
const FORBIDDEN: [&str; 2] = ["block_on(", "pollster::"];

/// `text` up to its unit-test module, if it has one.
fn library_part(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod ")
        .map_or(text, |at| &text[..at])
}

/// The forbidden spellings in `text`'s library part, with their line numbers.
fn blocks(text: &str) -> Vec<(usize, &'static str)> {
    library_part(text)
        .lines()
        .enumerate()
        .flat_map(|(i, line)| {
            FORBIDDEN
                .iter()
                .filter(move |f| line.contains(**f))
                .map(move |f| (i + 1, *f))
        })
        .collect()
}

/// The library sources that must never block: the suites, the engine, the harness's kit,
/// runner and clock.
fn library_files() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crates folder")
        .to_path_buf();
    let mut files = Vec::new();
    rust_files(&crates.join("gpubench-suites/src"), &mut files);
    rust_files(&crates.join("gpubench-engine/src"), &mut files);
    rust_files(&crates.join("gpubench-harness/src/kit"), &mut files);
    files.push(crates.join("gpubench-harness/src/runner.rs"));
    files.push(crates.join("gpubench-harness/src/timing.rs"));
    files.retain(|file| !gpubench_harness::testing::test_only_source(file));
    files
}

#[test]
fn library_code_never_blocks_on_a_wait() {
    let files = library_files();
    assert!(files.len() >= 40, "the library sources: {files:?}");
    let found = scan(&files, |text| {
        blocks(text)
            .into_iter()
            .map(|(line, what)| format!(":{line}: {what}"))
            .collect()
    });
    assert!(
        found.is_empty(),
        "library code blocking on a wait (await it; block only at a binary's top): {found:#?}"
    );
}

#[test]
fn a_block_is_seen_and_a_test_module_or_file_is_not_scanned() {
    let text = "fn a() {\n    pollster::block_on(f());\n}\n#[cfg(test)]\nmod tests {\n    \
                fn t() { pollster::block_on(g()); }\n}\n";
    assert_eq!(blocks(text), [(2, "block_on("), (2, "pollster::")]);
    assert!(blocks("async fn a() { f().await; }").is_empty());
    let stream = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/stream");
    assert!(gpubench_harness::testing::test_only_source(
        &stream.join("on_an_adapter.rs")
    ));
    assert!(!gpubench_harness::testing::test_only_source(
        &stream.join("source.rs")
    ));
}
