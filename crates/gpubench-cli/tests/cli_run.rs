//! The gpubench binary as a user runs it: listing, selecting, running, failing.

use assert_cmd::Command;
use gpubench_harness::testing::no_adapter;

mod common;
use common::{adapters, quick_stream_args, read_doc, require_vulkan};

fn gpubench() -> Command {
    let mut cmd = Command::cargo_bin("gpubench").expect("binary built");
    for var in ["WGPU_BACKEND", "WGPU_ADAPTER_NAME", "WGPU_POWER_PREF"] {
        cmd.env_remove(var);
    }
    cmd
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
    let output = gpubench()
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
        assert!(stderr.contains("Adapters found"), "{stderr}");
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
        let output = gpubench()
            .args(["run", flag, value])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{flag}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(flag),
            "{flag}"
        );
    }
}

#[test]
fn quick_stream_run_writes_verified_gpu_timed_results() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    let mut args = quick_stream_args(&out, "1MiB");
    // Options of suites that do not run are recorded too: the file says how it was made.
    args.extend(["--capacity-cap", "1GiB", "--duration", "2.5"].map(String::from));
    gpubench().args(args).assert().success();
    let doc = read_doc(&out);
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
        assert_eq!(noise[at]["n"], 8, "{noise}");
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
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    let mut args = quick_stream_args(&out, "64KiB");
    args.extend(["--noise-check", "off"].map(String::from));
    gpubench().args(args).assert().success();
    let doc = read_doc(&out);
    assert!(doc.get("noise").is_none(), "{}", doc["noise"]);
}

#[test]
fn a_wrong_answer_fails_the_run_with_exit_4_and_no_number() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("r.json");
    let mut args = quick_stream_args(&out, "64KiB");
    args.extend(["--inject-fault".to_string(), "wrong-output".to_string()]);
    let output = gpubench().args(&args).output().expect("runs");
    assert_eq!(output.status.code(), Some(4));
    let doc = read_doc(&out);
    let broken = doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| {
            r["id"]
                .as_str()
                .is_some_and(|id| id.contains("broken_copy"))
        })
        .expect("the broken kernel has a result")
        .clone();
    assert_eq!(broken["status"], "failed");
    assert_eq!(broken["verified"], false);
    assert!(broken["summary"].is_null());
    assert!(
        broken["reason"]
            .as_str()
            .is_some_and(|r| r.contains("verification failed"))
    );
    // The table shows the failure, never a number for it.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let row = stdout
        .lines()
        .find(|l| l.contains("broken_copy"))
        .expect("row for the broken kernel");
    assert!(row.contains("failed") && !row.contains("GB/s"), "{row}");
}
