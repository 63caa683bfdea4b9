//! `run --adapter all`, and `report`/`compare` over directories: every adapter of this machine
//! in turn (llvmpipe through Vulkan and through GL in CI), one results file each, the cross-card
//! table at the end, and the directory read back as a fleet. Needs a Vulkan adapter.

use std::path::Path;
use std::process::Output;

mod common;
use common::{
    adapters, arg, assert_exit, assert_has, gpubench_command, require_vulkan, text, vulkan_temp_dir,
};

/// `gpubench run --adapter all --profile quick --suite launch --no-progress FLAGS --out DIR`.
fn quick_launch_fleet(results: &Path, flags: &[&str]) -> Output {
    gpubench_command()
        .args(["run", "--adapter", "all", "--profile", "quick"])
        .args(["--suite", "launch", "--no-progress"])
        .args(flags)
        .arg("--out")
        .arg(results)
        .output()
        .expect("runs")
}

/// A fleet whose every adapter is refused measures nothing and leaves no empty directory.
#[test]
fn a_fleet_that_measures_nothing_leaves_no_directory() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let results = dir.path().join("fleet");
    let out = quick_launch_fleet(&results, &["--expect-vendor", "apple"]);
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert_has(&stderr, "nothing was measured");
    assert!(!results.exists(), "{stderr}");
}

#[test]
fn every_adapter_in_turn_then_the_directory_as_a_fleet() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let results = dir.path().join("fleet");
    let baselines = dir.path().join("baselines");
    let flags = ["--format", "md", "--baseline-dir", arg(&baselines)];
    let out = quick_launch_fleet(&results, &flags);
    assert_exit(&out, 0);
    let files: Vec<_> = std::fs::read_dir(&results)
        .expect("results dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    let count = adapters().len();
    assert_eq!(
        files.len(),
        count,
        "one results file per adapter: {files:?}"
    );
    if count >= 2 {
        assert_has(&text(&out.stdout), "cross-card");
    }

    let html = dir.path().join("fleet.html");
    let report = gpubench_command()
        .arg("report")
        .arg(&results)
        .arg("--html")
        .arg(&html)
        .output()
        .expect("runs");
    assert_exit(&report, 0);
    assert!(
        std::fs::read_to_string(&html)
            .expect("page")
            .contains("<svg")
    );

    let compare = gpubench_command()
        .args(["compare", "--cross", "--format", "csv"])
        .arg(&results)
        .output()
        .expect("runs");
    if count >= 2 {
        assert_exit(&compare, 0);
        assert_has(&text(&compare.stdout), "launch/round-trip/one-dispatch");
    } else {
        assert_eq!(compare.status.code(), Some(2), "one run is no comparison");
    }
}

/// A machine-readable stdout stays one document for the whole fleet: the adapters' runs print
/// nothing of their own, and the last print holds every run, as the exports do.
#[test]
fn a_fleet_in_json_prints_one_document() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let results = dir.path().join("fleet");
    let out = quick_launch_fleet(&results, &["--format", "json", "--noise-check", "off"]);
    assert_exit(&out, 0);
    let parsed: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    let runs = match &parsed {
        serde_json::Value::Array(runs) => runs.len(),
        _ => 1,
    };
    assert_eq!(runs, adapters().len(), "every adapter's run");
}

#[test]
fn a_fleet_refuses_a_file_for_its_directory_and_a_single_html() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("taken.json");
    std::fs::write(&file, "{}").expect("write");
    // A directory below a file cannot be created: an output where none can be written.
    let below_file = file.join("results");
    for extra in [
        &["--out", file.to_str().expect("utf-8")][..],
        &["--out", below_file.to_str().expect("utf-8")][..],
        &["--html", "x.html"][..],
    ] {
        let out = gpubench_command()
            .args(["run", "--adapter", "all", "--suite", "launch"])
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{extra:?}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), "{}");
}

/// The fleet lists adapters by `--backend`, else by WGPU_BACKEND, and runs each on its own
/// backend: the variable can neither add an adapter the flag left out nor take one away.
#[test]
fn the_fleet_and_wgpu_backend_agree() {
    if !require_vulkan() {
        return;
    }
    let vulkan = adapters()
        .iter()
        .filter(|a| a["backend"] == "vulkan")
        .count();
    for (env, flag) in [("vulkan", None), ("gl", Some("vulkan"))] {
        let dir = tempfile::tempdir().expect("temp dir");
        let results = dir.path().join("fleet");
        let mut cmd = gpubench_command();
        cmd.env("WGPU_BACKEND", env)
            .args(["run", "--adapter", "all", "--profile", "quick"])
            .args(["--suite", "launch", "--no-progress", "--out"])
            .arg(&results)
            .arg("--baseline-dir")
            .arg(dir.path().join("baselines"));
        if let Some(flag) = flag {
            cmd.args(["--backend", flag]);
        }
        let out = cmd.output().expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "WGPU_BACKEND={env} --backend {flag:?}: {}",
            text(&out.stderr)
        );
        let files: Vec<String> = std::fs::read_dir(&results)
            .expect("results dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(files.len(), vulkan, "{files:?}");
        assert!(
            files.iter().all(|f| f.ends_with("-vulkan.json")),
            "{files:?}"
        );
    }
}
