//! The baseline workflow on a real adapter (lavapipe in CI): a run with no baseline says how to
//! record one, `--save-baseline` records it, the next run prints verdicts against it, and a run
//! with a failed benchmark never replaces it. Fails where no Vulkan adapter is, unless GPU tests are skipped on purpose.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{
    assert_exit, assert_exit_saying, assert_has_all, json_files, quick_stream_command,
    quick_stream_run, text, vulkan_temp_dir,
};

fn quick_run(out: &Path, baselines: &Path, extra: &[&str]) -> Output {
    let baselines = baselines.to_string_lossy();
    let mut flags = vec!["--baseline-dir", &baselines];
    flags.extend(extra);
    quick_stream_run(out, "64KiB", &flags)
}

#[test]
fn save_then_compare_and_never_record_a_failed_run() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let baselines = dir.path().join("baselines");
    let (recorded, before) = record_then_compare(dir.path(), &baselines);
    let other = a_run_that_fails_never_replaces_it(dir.path(), &baselines, &recorded, &before);
    a_damaged_baseline_is_never_replaced(dir.path(), &baselines, &recorded, &other);
}

/// A first run finds no baseline, a second records one, a third is compared with it (its page
/// shows the verdicts): the recorded file and its bytes.
fn record_then_compare(dir: &Path, baselines: &Path) -> (PathBuf, Vec<u8>) {
    let first_page = dir.join("first.html");
    let html = first_page.to_string_lossy();
    let out = quick_run(&dir.join("first.json"), baselines, &["--html", &html]);
    assert_exit_saying(&out, 0, &["no baseline for this adapter"]);
    let page = std::fs::read_to_string(&first_page).expect("page");
    assert!(
        !page.contains("class=\"verdicts\""),
        "no baseline, no verdicts"
    );

    let out = quick_run(
        &dir.join("second.json"),
        baselines,
        // --force: a shared host's noise must not decide whether this test records one.
        &["--save-baseline", "--force"],
    );
    assert_exit_saying(&out, 0, &["baseline recorded"]);
    // The baseline, beside its lock file (`.<baseline>.lock`, which the store owns).
    let recorded = json_files(baselines);
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    let before = std::fs::read(&recorded[0]).expect("read baseline");

    let third_page = dir.join("third.html");
    let html = third_page.to_string_lossy();
    let out = quick_run(
        &dir.join("third.json"),
        baselines,
        &["--no-fail", "--html", &html],
    );
    assert_exit(&out, 0);
    assert_has_all(&text(&out.stdout), &["same adapter", "verdict"]);
    // The page holds the verdicts too: the baseline drawn first, the run beside it.
    let page = std::fs::read_to_string(&third_page).expect("page");
    assert!(
        page.contains("class=\"verdicts\""),
        "the verdicts are on the page"
    );
    (recorded[0].clone(), before)
}

/// A run that does not pass, with or without --no-fail, compared with the stored baseline or
/// another file, or that fails, leaves the stored baseline as it was: the other file it was
/// compared with.
fn a_run_that_fails_never_replaces_it(
    dir: &Path,
    baselines: &Path,
    recorded: &Path,
    before: &[u8],
) -> PathBuf {
    // A run that does not pass against the stored baseline (here made ten times faster) never
    // replaces it: the slowdown would become what the next run is judged by.
    let faster = scaled_rates(before, 10.0);
    std::fs::write(recorded, &faster).expect("a faster baseline");
    let out = quick_run(
        &dir.join("slower.json"),
        baselines,
        &["--strict", "--save-baseline"],
    );
    assert_exit_saying(
        &out,
        3,
        &["not recording a baseline: this run did not pass"],
    );
    assert_eq!(std::fs::read(recorded).expect("read"), faster);
    // --no-fail changes the exit code, never what may become the baseline.
    let out = quick_run(
        &dir.join("slower-no-fail.json"),
        baselines,
        &["--strict", "--save-baseline", "--no-fail"],
    );
    assert_exit_saying(
        &out,
        0,
        &["not recording a baseline: this run did not pass"],
    );
    assert_eq!(std::fs::read(recorded).expect("read"), faster);
    // Compared with another file (here the run's own earlier figures; --no-fail, as a shared
    // host's noise may judge either way), the save is still judged against the stored
    // baseline it would replace.
    let other = dir.join("other-baseline.json");
    std::fs::write(&other, before).expect("another baseline");
    let other_arg = other.to_string_lossy();
    let out = quick_run(
        &dir.join("slower-other.json"),
        baselines,
        &[
            "--strict",
            "--no-fail",
            "--save-baseline",
            "--baseline",
            &other_arg,
        ],
    );
    assert_exit_saying(
        &out,
        0,
        &[
            "not recording a baseline: this run did not pass against the stored baseline it would replace",
        ],
    );
    assert_eq!(std::fs::read(recorded).expect("read"), faster);
    std::fs::write(recorded, before).expect("restore the baseline");

    let out = quick_run(
        &dir.join("broken.json"),
        baselines,
        &["--inject-fault", "wrong-output", "--save-baseline"],
    );
    assert_exit_saying(&out, 4, &["not recording a baseline"]);
    assert_eq!(std::fs::read(recorded).expect("read"), before);
    other
}

/// A stored baseline that cannot be read in full is never replaced, and the run is refused
/// before it starts.
fn a_damaged_baseline_is_never_replaced(
    dir: &Path,
    baselines: &Path,
    recorded: &Path,
    other: &Path,
) {
    let other_arg = other.to_string_lossy();
    // A stored baseline that cannot be read in full cannot be replaced (its other suites would
    // be lost): said before the run, which then does not happen.
    std::fs::write(recorded, b"{ damaged").expect("damage the baseline");
    let never = dir.join("never.json");
    let out = quick_run(&never, baselines, &["--save-baseline"]);
    assert_exit_saying(&out, 1, &["could not replace it"]);
    assert!(!never.exists(), "refused before the run");
    // Likewise where the run is compared with another file.
    let out = quick_run(
        &never,
        baselines,
        &["--save-baseline", "--baseline", &other_arg],
    );
    assert_exit_saying(&out, 1, &["could not replace it"]);
    assert!(!never.exists(), "refused before the run");
    assert_eq!(std::fs::read(recorded).expect("read"), b"{ damaged");
}

/// A results file whose rates (GB/s rows) are `factor` times what `bytes` holds: every sample
/// and every location and spread statistic, host-clock ones too.
fn scaled_rates(bytes: &[u8], factor: f64) -> Vec<u8> {
    let mut doc: serde_json::Value = serde_json::from_slice(bytes).expect("a results file");
    let scale = |v: &mut serde_json::Value| {
        if let Some(x) = v.as_f64() {
            *v = (x * factor).into();
        }
    };
    let results = doc["results"].as_array_mut().expect("results");
    for r in results.iter_mut().filter(|r| r["unit"] == "GB/s") {
        for key in ["samples", "host_samples"] {
            r[key].as_array_mut().into_iter().flatten().for_each(scale);
        }
        for key in ["summary", "host_summary"] {
            let Some(summary) = r[key].as_object_mut() else {
                continue;
            };
            let stats = [
                "median", "mean", "min", "max", "stddev", "p5", "p95", "ci_low", "ci_high",
            ];
            summary
                .iter_mut()
                .filter(|(k, _)| stats.contains(&k.as_str()))
                .for_each(|(_, v)| scale(v));
        }
    }
    serde_json::to_vec_pretty(&doc).expect("serializes")
}

/// Outside a checkout (no `baselines/` in the working directory) and with no directory given,
/// baselines go to the per-user data directory, and the run says where it looked.
#[cfg(all(unix, not(target_os = "macos")))]
#[test]
fn outside_a_checkout_baselines_live_in_the_user_data_directory() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let data = dir.path().join("data");
    let work = dir.path().join("elsewhere");
    std::fs::create_dir(&work).expect("working directory");
    let run = |name: &str, extra: &[&str]| {
        quick_stream_command(&dir.path().join(name), "64KiB", extra)
            .current_dir(&work)
            .env_remove("GPUBENCH_BASELINE_DIR")
            .env("XDG_DATA_HOME", &data)
            .output()
            .expect("gpubench runs")
    };
    let stored = data.join("gpubench").join("baselines");
    let out = run("first.json", &[]);
    let looked = format!("looked for {}", stored.display());
    assert_exit_saying(&out, 0, &[&looked]);
    let out = run("second.json", &["--save-baseline", "--force"]);
    assert_exit(&out, 0);
    assert_eq!(json_files(&stored).len(), 1);
    assert!(
        !work.join("baselines").exists(),
        "nothing in the working directory"
    );
}

#[test]
fn several_runs_record_the_quietest_and_keep_every_file() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let baselines = dir.path().join("baselines");
    let out = dir.path().join("x.json");
    let bl = baselines.to_string_lossy().to_string();
    let flags = [
        "--baseline-dir",
        &bl,
        "--save-baseline",
        "--force",
        "--runs",
        "2",
    ];
    let output = common::quick_suite_run("launch", &out, &flags);
    assert_exit(&output, 0);
    let level = |path: &Path| common::read_doc(path)["noise"]["level"].as_f64();
    let runs = [1, 2].map(|k| dir.path().join(format!("x-run{k}.json")));
    let levels = runs
        .clone()
        .map(|path| level(&path).expect("each run has its noise level"));
    let quietest = if levels[0] <= levels[1] {
        &runs[0]
    } else {
        &runs[1]
    };
    let chosen = common::read_doc(&out);
    assert_eq!(
        chosen,
        common::read_doc(quietest),
        "--out holds the quietest run"
    );
    let recorded = json_files(&baselines).pop().expect("one baseline");
    assert_eq!(
        common::read_doc(&recorded)["started_at"],
        chosen["started_at"],
        "the baseline is that run"
    );

    for refused in [
        vec!["--runs", "2"],
        vec!["--save-baseline", "--runs", "2", "--noise-check", "off"],
    ] {
        let output = common::quick_suite_run("launch", &dir.path().join("y.json"), &refused);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{refused:?}: {}",
            text(&output.stderr)
        );
    }
}
