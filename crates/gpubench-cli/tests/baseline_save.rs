//! `gpubench baseline save FILE` and `gpubench show` with no file, on result files in a
//! temporary directory (no GPU): a finished run becomes the baseline under the same gates as
//! `run --save-baseline`, and `show` alone shows the latest run under `results/`.

use std::path::Path;

use gpubench_baseline::testing::doc_with;
use gpubench_harness::{RunDocument, Status};
use gpubench_results::run_noise::RunNoise;

mod common;
use common::{
    arg, assert_exit, assert_exit_saying, assert_has, assert_lacks, gpubench_command, json_files,
    text, write_doc,
};

/// `gpubench baseline save FILE` into the baseline directory `store`, with `extra` flags.
fn save_into(store: &Path, file: &Path, extra: &[&str]) -> std::process::Output {
    gpubench_command()
        .args(["baseline", "save", arg(file), "--baseline-dir", arg(store)])
        .args(extra)
        .output()
        .expect("runs")
}

/// A clean run: only ok results, its own noise check quiet.
fn clean_run(adapter: &str) -> RunDocument {
    let mut doc = doc_with(adapter, false);
    doc.results.retain(|r| r.status == Status::Ok);
    let mut noise = RunNoise::new("compute/fma-peak/vec4-f32", "GFLOP/s");
    noise.level = Some(0.01);
    doc.noise = Some(noise);
    doc
}

#[test]
fn a_finished_run_is_recorded_as_the_baseline_under_the_runs_gates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("baselines");
    let save = |file: &Path, extra: &[&str]| save_into(&store, file, extra);

    let mut unchecked = clean_run("Card");
    unchecked.noise = None;
    let unchecked = write_doc(dir.path(), "unchecked.json", &unchecked);
    let out = save(&unchecked, &[]);
    assert_exit_saying(&out, 1, &["no noise check", "--force"]);
    assert!(json_files(&store).is_empty(), "nothing recorded");
    // A run with a failed result is refused for that, with no advice --force would not keep.
    let mut failed = clean_run("Card");
    failed.noise = None;
    failed.results[0].status = Status::Failed;
    let failed = write_doc(dir.path(), "failed.json", &failed);
    let out = save(&failed, &[]);
    assert_exit(&out, 1);
    assert!(
        !text(&out.stderr).contains("--force"),
        "{}",
        text(&out.stderr)
    );
    assert!(json_files(&store).is_empty(), "nothing recorded");

    let clean = write_doc(dir.path(), "clean.json", &clean_run("Card"));
    let out = save(&clean, &[]);
    assert_exit_saying(&out, 0, &["baseline recorded"]);
    let recorded = json_files(&store);
    assert_eq!(recorded.len(), 1, "{recorded:?}");

    // The stored baseline itself as FILE would be read and replaced at once: refused.
    let out = save(&recorded[0], &[]);
    assert_exit(&out, 2);

    // A run with a failed result never becomes the baseline, forced or not.
    let mut broken = clean_run("Card");
    broken.results[0].status = Status::Failed;
    let broken = write_doc(dir.path(), "broken.json", &broken);
    let before = std::fs::read(&recorded[0]).expect("read");
    let out = save(&broken, &["--force"]);
    assert_exit(&out, 1);
    assert_eq!(std::fs::read(&recorded[0]).expect("read"), before);

    // Nor does a file with no results: refused with exit 1, the stored baseline kept.
    let mut empty = clean_run("Card");
    empty.results.clear();
    let empty = write_doc(dir.path(), "empty.json", &empty);
    let out = save(&empty, &[]);
    assert_exit_saying(&out, 1, &["holds no results"]);
    assert_eq!(std::fs::read(&recorded[0]).expect("read"), before);
}

/// A file that does not pass against the stored baseline it would replace (every rate at half)
/// is refused with its verdict's exit, as a run's save is, and one of another build profile
/// with exit 1: the stored baseline is kept, byte for byte, until `--force` accepts them.
#[test]
fn a_slower_file_or_another_build_replaces_the_baseline_only_with_force() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("baselines");
    let save = |file: &Path, extra: &[&str]| save_into(&store, file, extra);
    let clean = write_doc(dir.path(), "clean.json", &clean_run("Card"));
    assert_exit(&save(&clean, &[]), 0);
    let recorded = json_files(&store);
    let before = std::fs::read(&recorded[0]).expect("read");

    let mut slower = clean_run("Card");
    for r in slower.results.iter_mut().filter(|r| r.higher_is_better) {
        r.samples.iter_mut().for_each(|s| *s *= 0.5);
        r.summary = gpubench_results::stats::summarize(&r.samples);
    }
    let slower = write_doc(dir.path(), "slower.json", &slower);
    let out = save(&slower, &[]);
    assert_exit_saying(
        &out,
        3,
        &["exit 3: ", "this file did not pass against", "--force"],
    );
    assert_lacks(&text(&out.stderr), "--no-fail");
    assert_eq!(std::fs::read(&recorded[0]).expect("read"), before);

    let mut debug = clean_run("Card");
    debug.machine.build_profile = "debug".to_string();
    let debug = write_doc(dir.path(), "debug.json", &debug);
    let out = save(&debug, &[]);
    assert_exit_saying(
        &out,
        1,
        &["a release build and this file a debug build", "--force"],
    );
    assert_eq!(std::fs::read(&recorded[0]).expect("read"), before);

    assert_exit(&save(&slower, &["--force"]), 0);
    assert_ne!(std::fs::read(&recorded[0]).expect("read"), before);
}

#[test]
fn show_alone_shows_the_latest_run_under_results() {
    let dir = tempfile::tempdir().expect("temp dir");
    let show = || {
        gpubench_command()
            .arg("show")
            .current_dir(dir.path())
            .output()
            .expect("runs")
    };
    let out = show();
    assert_exit_saying(&out, 1, &["no run found"]);

    let results = dir.path().join("results");
    std::fs::create_dir(&results).expect("mkdir");
    let mut older = clean_run("Older Card");
    older.started_at = "2026-12-01T00:00:00Z".to_string();
    let mut newer = clean_run("Newer Card");
    newer.started_at = "2026-12-02T00:00:00Z".to_string();
    write_doc(&results, "a.json", &newer);
    write_doc(&results, "b.json", &older);
    let out = show();
    assert_exit_saying(&out, 0, &["showing the latest run"]);
    let stdout = text(&out.stdout);
    assert_has(&stdout, "Newer Card");
    assert_lacks(&stdout, "Older Card");
}
