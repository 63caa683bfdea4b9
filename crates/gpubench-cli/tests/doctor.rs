//! `gpubench doctor` and the telemetry of `gpubench run` as a user meets them: on the software
//! adapter, with the sysfs root pointed at fixture trees (a healthy gen4 x16 card, a x8 link on
//! a x16 card, gen3 on a gen5 card, an AMD card with hwmon files) and with a scripted NVML-like
//! source in place of the platform's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{
    adapters, assert_exit_saying, assert_lacks, gpubench_command, quick_stream_command, read_doc,
    require_vulkan, vulkan_temp_dir,
};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../gpubench-telemetry/tests/fixtures")
        .join(name)
}

/// Runs `cmd` with sysfs at the fixture `tree` and, when given, the scripted source `script`
/// (none otherwise, whatever the caller's environment says).
fn output_on_fixtures(mut cmd: Command, tree: &str, script: Option<&str>) -> Output {
    cmd.env("GPUBENCH_SYSFS_ROOT", fixture("sysfs").join(tree))
        .env_remove("GPUBENCH_FAKE_TELEMETRY");
    if let Some(script) = script {
        cmd.env("GPUBENCH_FAKE_TELEMETRY", fixture(script));
    }
    cmd.output().expect("gpubench runs")
}

/// `gpubench doctor --backend vulkan [extra]` with sysfs at the fixture `tree` and, when given,
/// the scripted source `script`.
fn doctor(tree: &str, script: Option<&str>, extra: &[&str]) -> Output {
    let mut cmd = gpubench_command();
    cmd.args(["doctor", "--backend", "vulkan"]).args(extra);
    output_on_fixtures(cmd, tree, script)
}

/// The checklist `doctor` prints for `tree` (and `script`), asserting its exit code.
fn checklist(tree: &str, script: Option<&str>, code: i32) -> String {
    let out = doctor(tree, script, &[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(code), "{text}");
    text
}

/// The `--json` report of `doctor` for `tree`, asserting its exit code.
fn json_report(tree: &str, code: i32) -> Value {
    let out = doctor(tree, None, &["--json"]);
    assert_eq!(out.status.code(), Some(code));
    serde_json::from_slice(&out.stdout).expect("--json is JSON")
}

/// The check `name` of a `--json` report.
fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {report}"))
}

/// The line of the check `name` in the checklist.
fn line<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().nth(1) == Some(name))
        .unwrap_or_else(|| panic!("no {name} line in:\n{text}"))
}

/// Asserts that the check `name` has `status` and its line contains `words`.
fn assert_check(text: &str, name: &str, status: &str, words: &str) {
    let found = line(text, name);
    assert!(
        found.starts_with(status) && found.contains(words),
        "{name}: wanted {status} with {words:?}:\n{text}"
    );
}

#[test]
fn doctor_names_the_software_adapter_and_passes_a_healthy_host() {
    if !require_vulkan() {
        return;
    }
    let text = checklist("healthy-gen4-x16", None, 0);
    assert_check(&text, "software-adapter", "warn", "is a software adapter");
    assert!(
        text.contains("what to do: --adapter <index|name>: choose a GPU adapter"),
        "{text}"
    );
    assert_check(&text, "pcie-link@0000:01:00.0", "ok", "gen4 x16");
    assert_check(&text, "telemetry", "unknown", "not applicable");
}

/// `--adapter all` checks every adapter of the node in turn (here lavapipe on Vulkan and
/// llvmpipe on GL), each under its heading, and in JSON one report per adapter.
#[test]
fn doctor_checks_every_adapter_with_adapter_all() {
    if !require_vulkan() {
        return;
    }
    let all = |extra: &[&str]| {
        let mut cmd = gpubench_command();
        cmd.args(["doctor", "--adapter", "all"]).args(extra);
        output_on_fixtures(cmd, "healthy-gen4-x16", None)
    };
    let listed = adapters().len();
    let out = all(&[]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let headings = text.lines().filter(|l| l.starts_with("== [")).count();
    assert_eq!(headings, listed, "{text}");
    let out = all(&["--json"]);
    assert_eq!(out.status.code(), Some(0));
    let reports: Value = serde_json::from_slice(&out.stdout).expect("--json is JSON");
    let reports = reports.as_array().expect("one report per adapter");
    assert_eq!(reports.len(), listed);
    assert!(
        reports.iter().all(|r| r["checks"].is_array()),
        "{reports:?}"
    );
}

/// doctor writes stdout through the one path every subcommand uses: a closed pipe ends quietly
/// with 141, a full disk is an error line, never a panic.
#[cfg(unix)]
#[test]
fn doctor_on_a_closed_or_full_stdout_ends_without_a_panic() {
    for extra in [&[][..], &["--json"][..]] {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let mut cmd = gpubench_command();
        cmd.args(["doctor", "--backend", "vulkan"])
            .args(extra)
            .stdout(writer);
        let out = output_on_fixtures(cmd, "healthy-gen4-x16", None);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(141), "{extra:?}: {stderr}");
        assert_lacks(&stderr, "panicked");
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let mut cmd = gpubench_command();
    cmd.args(["doctor", "--backend", "vulkan"]).stdout(full);
    let out = output_on_fixtures(cmd, "healthy-gen4-x16", None);
    assert_exit_saying(&out, 1, &["No space left"]);
    assert_lacks(&String::from_utf8_lossy(&out.stderr), "panicked");
}

/// sysfs files any local user can arrange under GPUBENCH_SYSFS_ROOT: a FIFO nobody writes and
/// a link to /dev/zero, and a telemetry script that is /dev/zero. Each is refused by the bounded
/// reader at once: doctor finishes promptly, in little memory, and says what it could not read.
#[cfg(unix)]
#[test]
fn fifos_and_endless_devices_among_the_inputs_hang_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = dir.path().join("sysfs");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(fixture("sysfs").join("healthy-gen4-x16"))
        .arg(&tree)
        .status()
        .expect("cp runs");
    assert!(copied.success());
    let card = tree.join("bus/pci/devices/0000:01:00.0");
    std::fs::remove_file(card.join("current_link_speed")).expect("rm");
    let fifo = Command::new("mkfifo")
        .arg(card.join("current_link_speed"))
        .status()
        .expect("mkfifo runs");
    assert!(fifo.success());
    std::fs::remove_file(card.join("class")).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", card.join("class")).expect("link");
    let start = std::time::Instant::now();
    let out = gpubench_command()
        .args(["doctor", "--backend", "vulkan"])
        .env("GPUBENCH_SYSFS_ROOT", &tree)
        .env("GPUBENCH_FAKE_TELEMETRY", "/dev/zero")
        .output()
        .expect("gpubench runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

#[test]
fn doctor_fails_a_x8_link_and_does_not_judge_an_idle_cards_speed() {
    if !require_vulkan() {
        return;
    }
    let text = checklist("x8-in-x16", None, 5);
    assert!(
        line(&text, "pcie-link@0000:17:00.0").contains("8 of 16 lanes"),
        "{text}"
    );
    assert!(text.contains("what to do: reseat"), "{text}");

    // The software adapter loaded the host's CPU, not the card: an idle card lowers its link
    // speed, so gen3 on a gen5 card is said, not failed.
    let report = json_report("gen3-in-gen5", 0);
    assert_eq!(report["failed"], false);
    let link = check(&report, "pcie-link@0000:c1:00.0");
    assert_eq!(link["status"], "unknown", "{report}");
    assert!(
        link["detail"]
            .as_str()
            .is_some_and(|d| d.contains("read while idle")),
        "{report}"
    );
    assert!(report["measured_stream_gbs"].as_f64().expect("measured") > 0.0);
}

#[test]
fn doctor_reads_an_amd_cards_link_from_its_fixture() {
    if !require_vulkan() {
        return;
    }
    let report = json_report("amd-hwmon", 0);
    let link = check(&report, "pcie-link@0000:03:00.0");
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
    let text = checklist("healthy-gen4-x16", Some("fake-nvml-throttled.json"), 5);
    assert_check(&text, "throttling", "fail", "hw-thermal-slowdown");
    assert_check(&text, "other-processes", "warn", "4242 (python3)");
    assert_check(&text, "driver", "ok", "570.86.15");
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

/// A quick stream run into `dir/NAME.json` with `extra` flags and the scripted source `script`
/// (or none), sysfs at the healthy fixture; its document.
fn quick_run(dir: &Path, name: &str, extra: &[&str], script: Option<&str>) -> Value {
    let out_path = dir.join(format!("{name}.json"));
    let cmd = quick_stream_command(&out_path, "64KiB", extra);
    let out = output_on_fixtures(cmd, "healthy-gen4-x16", script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_doc(&out_path)
}

#[test]
fn a_run_on_the_software_adapter_records_telemetry_as_not_applicable() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let doc = quick_run(dir.path(), "run", &[], None);
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
    let Some(dir) = vulkan_temp_dir() else { return };
    for (mode, sampled) in [("on", true), ("off", false)] {
        let flags = ["--telemetry", mode];
        let doc = quick_run(dir.path(), mode, &flags, Some("fake-nvml-healthy.json"));
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
