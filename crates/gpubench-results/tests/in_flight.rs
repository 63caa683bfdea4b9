//! The list of temporary files being written, alone in its own process (the list is the
//! process's): a file being written is removed by `remove_all`, a finished one is not listed,
//! and a save lists its temporary file only while it writes it.

use gpubench_results::in_flight::{Writing, remove_all};

#[test]
fn a_file_being_written_is_removed_and_a_finished_one_is_not_listed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let written = dir.path().join("written.tmp");
    let unfinished = dir.path().join("unfinished.tmp");
    for path in [&written, &unfinished] {
        std::fs::write(path, b"x").expect("write");
    }
    drop(Writing::start(written.clone()));
    let writing = Writing::start(unfinished.clone());
    assert_eq!(remove_all(), 1);
    assert!(written.exists(), "a finished file is not listed");
    assert!(!unfinished.exists());
    drop(writing);
    // A finished save leaves nothing listed, and its file in place.
    let saved = dir.path().join("saved.json");
    gpubench_results::results_file::write_atomic(&saved, b"{}\n").expect("save");
    assert_eq!(remove_all(), 0);
    assert!(saved.exists());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}
