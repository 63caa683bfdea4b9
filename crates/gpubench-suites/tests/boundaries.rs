//! A suite is one folder that imports the engine and the harness's kit, never another suite:
//! what two suites share belongs in the kit. This walks every suite folder and fails on a path
//! into a sibling (`crate::other_suite`), comments included, since a doc link is a dependency
//! too.

mod common;

use common::{rust_files, scan};
use std::path::Path;

/// The modules `text` reaches as `crate::NAME`.
fn crate_paths(text: &str) -> Vec<String> {
    text.match_indices("crate::")
        .map(|(at, _)| {
            text[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn no_suite_reaches_into_another() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(&src).expect("src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            folders.push(path);
        }
    }
    assert!(folders.len() >= 9, "the suite folders: {folders:?}");
    let mut crossings = Vec::new();
    for folder in &folders {
        let own = folder
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        let mut files = Vec::new();
        rust_files(folder, &mut files);
        crossings.extend(scan(&files, |text| {
            crate_paths(text)
                .into_iter()
                .filter(|target| *target != own)
                .map(|target| format!(" -> crate::{target}"))
                .collect()
        }));
    }
    assert!(
        crossings.is_empty(),
        "suites reaching into others: {crossings:#?}"
    );
}

#[test]
fn a_crossing_is_seen() {
    assert_eq!(
        crate_paths("use crate::stream::Stream; // crate::matmul"),
        ["stream", "matmul"]
    );
}
