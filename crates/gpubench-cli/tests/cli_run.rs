//! The gpubench binary as a user runs it: listing, selecting, running, failing.

use std::path::Path;

use gpubench_harness::testing::no_adapter;
use serde_json::Value;

mod common;
use common::{
    adapters, assert_exit, assert_exit_saying, assert_has, assert_status_reason, gpubench_command,
    quick_stream_run, read_doc, result_with, text, vulkan_temp_dir,
};

/// A quick stream run into `out` on arrays of `stream_size` with `flags` that succeeds; the
/// results file it wrote.
fn successful_quick_run(out: &Path, stream_size: &str, flags: &[&str]) -> Value {
    let output = quick_stream_run(out, stream_size, flags);
    assert_exit(&output, 0);
    read_doc(out)
}

#[test]
fn list_json_describes_each_adapter() {
    let adapters = adapters();
    if adapters.is_empty() && no_adapter::<()>("`gpubench list` finds no adapter").is_none() {
        return;
    }
    for adapter in adapters {
        for key in [
            "index",
            "name",
            "vendor_id",
            "device_id",
            "device_type",
            "driver",
            "backend",
            "limits",
            "features",
        ] {
            assert!(
                adapter.get(key).is_some(),
                "adapter entry lacks {key}: {adapter}"
            );
        }
    }
}

#[test]
fn unknown_adapter_exits_1_lists_what_was_found_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    let output = gpubench_command()
        .args(["run", "--adapter", "no-such-gpu", "--out"])
        .arg(&out)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no adapter matches adapter 'no-such-gpu'")
            || stderr.contains("no GPU adapter found"),
        "{stderr}"
    );
    if !adapters().is_empty() {
        assert_has(&stderr, "Adapters found");
        assert_has(
            &stderr,
            "with --adapter <index|name> or --backend <vulkan|metal|dx12|gl>",
        );
    }
    assert!(!out.exists(), "no results file for a failed selection");
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 0);
}

#[test]
fn usage_errors_exit_2_and_name_the_argument() {
    for (flag, value) in [
        ("--suite", "nonsense"),
        ("--out", "/nonexistent-gpubench-dir/r.json"),
        ("--stream-size", "0"),
    ] {
        let output = gpubench_command()
            .args(["run", flag, value])
            .output()
            .expect("runs");
        assert_exit_saying(&output, 2, &[flag]);
    }
}

#[test]
fn quick_stream_run_writes_verified_gpu_timed_results() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    // Options of suites that do not run are recorded too: the file says how it was made.
    let flags = ["--capacity-cap", "1GiB", "--duration", "2.5"];
    let doc = successful_quick_run(&out, "1MiB", &flags);
    let options = &doc["config"]["options"];
    assert_eq!(options["stream_size"], 1 << 20, "{options}");
    assert_eq!(options["capacity_cap"], 1 << 30, "{options}");
    assert_eq!(options["duration"], 2.5, "{options}");
    assert_eq!(options["matmul_shapes"], serde_json::json!([]), "{options}");
    assert!(options["matmul_variant"].is_null(), "{options}");
    assert_eq!(options["seed"], 0x5eed, "{options}");
    assert_eq!(options["profile"], "quick", "{options}");
    assert_eq!(options["shader_checks"], "off", "{options}");
    assert_eq!(
        doc["schema_version"],
        gpubench_results::schema::SCHEMA_VERSION
    );
    assert_eq!(doc["complete"], true);
    assert!(
        doc["machine"]["fingerprint"]
            .as_str()
            .is_some_and(|f| f.starts_with("vulkan-"))
    );
    let results = doc["results"].as_array().expect("results");
    assert_eq!(
        results.len(),
        8,
        "six kernels, the copy engine and host memcpy"
    );
    for r in results {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"], true);
        let expected = if r["id"]
            .as_str()
            .is_some_and(|id| id.contains("host-memcpy"))
        {
            "host"
        } else {
            "gpu-timestamp"
        };
        assert_eq!(r["timing"], expected, "{}", r["id"]);
        // Shader kernels record the runtime-checks choice; copies and memcpy compile nothing.
        let id = r["id"].as_str().unwrap_or_default();
        let compiles = !id.contains("host-memcpy") && !id.contains("copy-buffer");
        let checks = &r["params"]["shader_checks"];
        assert_eq!(checks.as_str(), compiles.then_some("off"), "{id}");
        let summary = &r["summary"];
        assert!(summary["median"].as_f64().is_some_and(|m| m > 0.0));
        assert!(summary["ci_low"].as_f64().is_some() && summary["ci_high"].as_f64().is_some());
        assert!(r["samples"].as_array().is_some_and(|s| s.len() >= 2));
        assert_eq!(r["unit"], "GB/s");
    }
    // The run's own noise: the reference measured before the first suite and after the last.
    let noise = &doc["noise"];
    assert_eq!(noise["reference"], "compute/fma-peak/vec4-f32", "{noise}");
    for at in ["start", "end"] {
        assert!(
            noise[at]["median"].as_f64().is_some_and(|m| m > 0.0),
            "{noise}"
        );
        assert_eq!(noise[at]["n"], 20, "{noise}");
    }
    let (start, end) = (&noise["start"]["median"], &noise["end"]["median"]);
    let drift = end.as_f64().unwrap_or(f64::NAN) / start.as_f64().unwrap_or(f64::NAN) - 1.0;
    assert!(
        (noise["drift"].as_f64().unwrap_or(f64::NAN) - drift).abs() < 1e-9,
        "{noise}"
    );
    assert!(
        noise["level"].as_f64().is_some_and(|l| l >= drift.abs()),
        "{noise}"
    );
}

#[test]
fn noise_check_off_measures_no_reference() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let doc = successful_quick_run(&out, "64KiB", &["--noise-check", "off"]);
    assert!(doc.get("noise").is_none(), "{}", doc["noise"]);
}

#[test]
fn a_wrong_answer_fails_the_run_with_exit_4_and_no_number() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let output = quick_stream_run(&out, "64KiB", &["--inject-fault", "wrong-output"]);
    assert_exit(&output, 4);
    let broken = result_with(&read_doc(&out), "broken_copy");
    assert_status_reason(&broken, "failed", "verification failed");
    assert_eq!(broken["verified"], false);
    assert!(broken["summary"].is_null());
    // The table shows the failure, never a number for it.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let row = stdout
        .lines()
        .find(|l| l.contains("broken_copy"))
        .expect("row for the broken kernel");
    assert!(row.contains("failed") && !row.contains("GB/s"), "{row}");
    // The last line on stderr says the exit code and what caused it.
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("exit 4: 1 benchmark failed (selftest/broken_copy"),
        "{last}"
    );
}

/// A quick launch run on Vulkan writing `out`, without the noise check or telemetry (the fewest
/// lines on stderr); tests add what they exercise.
fn quiet_launch_command(out: &Path) -> std::process::Command {
    let mut cmd = gpubench_command();
    cmd.args([
        "run",
        "--suite",
        "launch",
        "--profile",
        "quick",
        "--backend",
        "vulkan",
    ])
    .args(["--noise-check", "off", "--telemetry", "off", "--out"])
    .arg(out);
    cmd
}

/// A quick launch run with `progress` (`--progress` values) and stderr piped, as a CI log takes
/// it: its stderr, and the ids of the results it wrote.
fn piped_launch_run(progress: &str) -> (String, Vec<String>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    let output = quiet_launch_command(&out)
        .args(["--progress", progress])
        .output()
        .expect("runs");
    assert_exit(&output, 0);
    let doc = read_doc(&out);
    let ids = doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    (text(&output.stderr), ids)
}

#[test]
fn a_piped_run_prints_a_line_per_finished_benchmark_and_off_prints_none() {
    if !common::require_vulkan() {
        return;
    }
    let (stderr, ids) = piped_launch_run("auto");
    assert!(ids.len() >= 5, "{ids:?}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with('[')).collect();
    assert!(
        lines[0].ends_with("suite 1/1 launch: preparing (autotuning where the suite does)"),
        "{stderr}"
    );
    for (n, id) in ids.iter().enumerate() {
        let line = lines
            .iter()
            .find(|l| l.contains(&format!(" {id}: ")))
            .unwrap_or_else(|| panic!("no progress line for {id}: {stderr}"));
        assert!(
            line.contains(&format!("launch {}/{} {id}: ok, median ", n + 1, ids.len())),
            "{line}"
        );
    }
    assert_eq!(lines.len(), ids.len() + 1, "{stderr}");
    let (quiet, _) = piped_launch_run("off");
    assert!(!quiet.lines().any(|l| l.starts_with('[')), "{quiet}");
}

#[test]
fn a_run_writes_every_export_in_one_pass_and_each_matches_its_format() {
    let Some(dir) = common::vulkan_temp_dir() else {
        return;
    };
    let path = |name: &str| dir.path().join(name);
    let (out, json, csv, md) = (path("r.json"), path("e.json"), path("e.csv"), path("e.md"));
    let output = quiet_launch_command(&out)
        .args(["--format", "csv"])
        .arg("--export-json")
        .arg(&json)
        .arg("--export-csv")
        .arg(&csv)
        .arg("--export-md")
        .arg(&md)
        .output()
        .expect("runs");
    assert_exit(&output, 0);
    assert_eq!(
        read_doc(&json),
        read_doc(&out),
        "--export-json is the results document"
    );
    let csv = std::fs::read_to_string(&csv).expect("csv export");
    assert_eq!(
        csv,
        text(&output.stdout),
        "--export-csv is what --format csv prints"
    );
    let adapter = read_doc(&out)["machine"]["adapter"]["name"].clone();
    let adapter = adapter.as_str().expect("adapter name");
    assert!(
        csv.lines().skip(1).all(|row| row.contains(adapter)),
        "{csv}"
    );
    let md = std::fs::read_to_string(&md).expect("md export");
    assert!(md.contains("| ") && md.contains("launch"), "{md}");
}
