//! Faults as an unattended user meets them: a device lost mid-run, a signal while sampling,
//! a benchmark over the adapter's limits. Each must end cleanly, keep every finished result in a
//! valid file, and say so in the exit code.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{gpubench_path, quick_stream_args, read_doc, require_vulkan, run_gpubench};

/// A quick stream run on 64 KiB arrays with the named faults injected after the suites.
fn run_with_faults(out: &Path, faults: &[&str]) -> std::process::Output {
    let mut args = quick_stream_args(out, "64KiB");
    for fault in faults {
        args.extend(["--inject-fault".to_string(), fault.to_string()]);
    }
    run_gpubench(&args)
}

#[test]
fn device_lost_mid_run_keeps_results_and_exits_4() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    // Faults run after the suites: lose the device, then one more fault that cannot run.
    let output = run_with_faults(&out, &["device-lost", "wrong-output"]);
    assert_eq!(
        output.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc = read_doc(&out);
    let results = doc["results"].as_array().expect("results");
    let ok = results.iter().filter(|r| r["status"] == "ok").count();
    assert_eq!(
        ok, 8,
        "every stream result measured before the loss is kept"
    );
    let lost = results
        .iter()
        .find(|r| r["id"] == "selftest/device-lost")
        .expect("lost result");
    assert_eq!(lost["status"], "failed");
    assert!(
        lost["reason"]
            .as_str()
            .is_some_and(|r| r.contains("device lost"))
    );
    let after = results.last().expect("a result after the loss");
    assert_eq!(after["status"], "skipped");
    assert!(
        after["reason"]
            .as_str()
            .is_some_and(|r| r.contains("device was lost"))
    );
}

#[test]
fn a_benchmark_over_the_limit_is_skipped_and_the_run_goes_on() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    let output = run_with_faults(&out, &["over-limit", "gpu-error"]);
    // The GPU error fails its benchmark (exit 4); the over-limit one is only skipped.
    assert_eq!(output.status.code(), Some(4));
    let doc = read_doc(&out);
    let results = doc["results"].as_array().expect("results");
    let over = results
        .iter()
        .find(|r| r["id"] == "selftest/over-limit")
        .expect("result");
    assert_eq!(over["status"], "skipped");
    assert!(
        over["reason"]
            .as_str()
            .is_some_and(|r| r.contains("max_buffer_size"))
    );
    let gpu = results
        .iter()
        .find(|r| r["id"] == "selftest/gpu-error")
        .expect("result");
    assert_eq!(gpu["status"], "failed");
    assert_eq!(doc["complete"], true);
}

#[cfg(unix)]
fn interrupt_with(signal: &str, expected_code: i32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    let mut args = quick_stream_args(&out, "64KiB");
    // Many samples and a 1 s cap: each benchmark samples for about 2 s, so the signal lands
    // while sampling the second one.
    args.extend(["--samples", "100000", "--max-time", "1"].map(String::from));
    let child = std::process::Command::new(gpubench_path())
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "no result was finished in time");
        if out.exists()
            && let Ok(text) = std::fs::read_to_string(&out)
            && let Ok(doc) = serde_json::from_str::<Value>(&text)
            && doc["results"].as_array().is_some_and(|r| !r.is_empty())
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let output = child.wait_with_output().expect("exits");
    assert_eq!(output.status.code(), Some(expected_code));
    let doc = read_doc(&out);
    assert_eq!(
        doc["complete"], false,
        "an interrupted run is marked incomplete"
    );
    let results = doc["results"].as_array().expect("results");
    assert!(!results.is_empty(), "finished results are kept");
    assert!(
        results.iter().all(|r| r["status"] == "ok"),
        "the cut-short benchmark is not recorded"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("interrupted"));
}

#[cfg(unix)]
#[test]
fn sigint_keeps_finished_results_and_exits_130() {
    if require_vulkan() {
        interrupt_with("-INT", 130);
    }
}

#[cfg(unix)]
#[test]
fn sigterm_keeps_finished_results_and_exits_143() {
    if require_vulkan() {
        interrupt_with("-TERM", 143);
    }
}
