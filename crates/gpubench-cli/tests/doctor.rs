//! `gpubench doctor` and the telemetry of `gpubench run` as a user meets them: on the software
//! adapter, with the sysfs root pointed at fixture trees (a healthy gen4 x16 card, a x8 link on
//! a x16 card, gen3 on a gen5 card, an AMD card with hwmon files) and with a scripted NVML-like
//! source in place of the platform's.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

mod common;
use common::{gpubench_command, quick_stream_args, read_doc, require_vulkan};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../gpubench-telemetry/tests/fixtures")
        .join(name)
}

/// `gpubench doctor --backend vulkan [extra]` with sysfs at the fixture `tree` and, when given,
/// the scripted source `script`.
fn doctor(tree: &str, script: Option<&str>, extra: &[&str]) -> Output {
    let mut cmd = gpubench_command();
    cmd.args(["doctor", "--backend", "vulkan"])
        .args(extra)
        .env("GPUBENCH_SYSFS_ROOT", fixture("sysfs").join(tree))
        .env_remove("GPUBENCH_FAKE_TELEMETRY");
    if let Some(script) = script {
        cmd.env("GPUBENCH_FAKE_TELEMETRY", fixture(script));
    }
    cmd.output().expect("gpubench runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The line of the check `name` in the checklist.
fn line<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().nth(1) == Some(name))
        .unwrap_or_else(|| panic!("no {name} line in:\n{text}"))
}

#[test]
fn doctor_names_the_software_adapter_and_passes_a_healthy_host() {
    if !require_vulkan() {
        return;
    }
    let out = doctor("healthy-gen4-x16", None, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let software = line(&text, "software-adapter");
    assert!(
        software.starts_with("warn") && software.contains("is a software adapter"),
        "{software}"
    );
    let link = line(&text, "pcie-link@0000:01:00.0");
    assert!(
        link.starts_with("ok") && link.contains("gen4 x16"),
        "{link}"
    );
    assert!(
        line(&text, "telemetry").contains("not applicable"),
        "{text}"
    );
}

#[test]
fn doctor_fails_a_x8_link_and_gen3_on_gen5_with_exit_5() {
    if !require_vulkan() {
        return;
    }
    let out = doctor("x8-in-x16", None, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(5), "{text}");
    assert!(
        line(&text, "pcie-link@0000:17:00.0").contains("8 of 16 lanes"),
        "{text}"
    );
    assert!(text.contains("what to do: reseat"), "{text}");

    let out = doctor("gen3-in-gen5", None, &["--json"]);
    assert_eq!(out.status.code(), Some(5));
    let report: Value = serde_json::from_slice(&out.stdout).expect("--json is JSON");
    assert_eq!(report["failed"], true);
    let failed: Vec<&Value> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == "fail")
        .collect();
    assert_eq!(failed.len(), 1, "{report}");
    assert_eq!(failed[0]["name"], "pcie-link@0000:c1:00.0");
    assert!(report["measured_stream_gbs"].as_f64().expect("measured") > 0.0);
}

#[test]
fn doctor_reads_an_amd_cards_link_from_its_fixture() {
    if !require_vulkan() {
        return;
    }
    let out = doctor("amd-hwmon", None, &["--json"]);
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let link = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "pcie-link@0000:03:00.0")
        .expect("the AMD card's link");
    assert_eq!(link["status"], "ok", "{link}");
    assert!(
        link["detail"]
            .as_str()
            .expect("detail")
            .contains("1002:744c")
    );
}

#[test]
fn doctor_fails_on_hardware_throttling_reported_by_a_scripted_nvml_source() {
    if !require_vulkan() {
        return;
    }
    let out = doctor("healthy-gen4-x16", Some("fake-nvml-throttled.json"), &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(5), "{text}");
    let throttling = line(&text, "throttling");
    assert!(
        throttling.starts_with("fail") && throttling.contains("hw-thermal-slowdown"),
        "{throttling}"
    );
    assert!(
        line(&text, "other-processes").contains("4242 (python3)"),
        "{text}"
    );
    assert!(line(&text, "driver").contains("570.86.15"), "{text}");
}

/// The measured results of a run (probes and derived rows have no measured region).
fn measured(doc: &Value) -> Vec<&Value> {
    doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["status"] == "ok" && r["iterations_per_sample"].as_u64() > Some(0))
        .collect()
}

#[test]
fn a_run_on_the_software_adapter_records_telemetry_as_not_applicable() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("run.json");
    let out = gpubench_command()
        .args(quick_stream_args(&out_path, "64KiB"))
        .env("GPUBENCH_SYSFS_ROOT", fixture("sysfs/healthy-gen4-x16"))
        .env_remove("GPUBENCH_FAKE_TELEMETRY")
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_doc(&out_path);
    let results = measured(&doc);
    assert!(!results.is_empty());
    for result in results {
        assert_eq!(
            result["telemetry"]["status"], "not-applicable",
            "{}",
            result["id"]
        );
    }
    assert_eq!(doc["telemetry"]["totals"]["status"], "not-applicable");
    assert!(
        doc["telemetry"].get("nominal").is_none(),
        "no datasheet row for llvmpipe"
    );
}

#[test]
fn a_run_with_a_scripted_source_samples_every_result_unless_turned_off() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (mode, sampled) in [("on", true), ("off", false)] {
        let out_path = dir.path().join(format!("{mode}.json"));
        let mut args = quick_stream_args(&out_path, "64KiB");
        args.extend(["--telemetry".to_string(), mode.to_string()]);
        let out = gpubench_command()
            .args(args)
            .env("GPUBENCH_FAKE_TELEMETRY", fixture("fake-nvml-healthy.json"))
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc = read_doc(&out_path);
        for result in measured(&doc) {
            if sampled {
                assert_eq!(result["telemetry"]["status"], "sampled", "{}", result["id"]);
                assert!(result["telemetry"]["readings"].as_u64() > Some(0));
                assert_eq!(result["telemetry"]["sm_clock_mhz"]["median"], 1980.0);
            } else {
                assert!(result.get("telemetry").is_none(), "{}", result["id"]);
            }
        }
        let expected = if sampled { "sampled" } else { "off" };
        assert_eq!(doc["telemetry"]["totals"]["status"], expected);
    }
}
