//! What the source-reading tests share: the walk over a folder's Rust files, and the scan that
//! reads each and says where a finding is.

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What `find` reports in each of `files`, each finding after its file's path.
pub fn scan(files: &[PathBuf], find: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("readable");
        found.extend(
            find(&text)
                .into_iter()
                .map(|f| format!("{}{f}", file.display())),
        );
    }
    found
}
