//! Helpers shared by the CLI tests: the binary with a clean adapter environment, requiring a
//! Vulkan adapter (GPU tests fail where none is, unless skipped on purpose), and reading a
//! results file.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

use gpubench_harness::testing::no_adapter;
use serde_json::Value;

/// The gpubench binary built for these tests.
pub fn gpubench_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("gpubench")
}

/// A command for the binary, without the caller's WGPU_* selection variables.
pub fn gpubench_command() -> std::process::Command {
    let mut cmd = std::process::Command::new(gpubench_path());
    for var in ["WGPU_BACKEND", "WGPU_ADAPTER_NAME", "WGPU_POWER_PREF"] {
        cmd.env_remove(var);
    }
    cmd
}

/// Every adapter `gpubench list --json` reports.
pub fn adapters() -> Vec<Value> {
    let out = gpubench_command()
        .args(["list", "--json"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "list --json succeeds");
    let list: Value = serde_json::from_slice(&out.stdout).expect("list --json is JSON");
    list.as_array().cloned().expect("an array")
}

/// Whether a GPU test is to run: true when `gpubench list` finds a Vulkan adapter. Where none
/// is, the test fails (a CI without its driver must not pass), unless GPU tests were skipped on
/// purpose with `GPUBENCH_SKIP_GPU_TESTS=1`: then false, with a note.
pub fn require_vulkan() -> bool {
    adapters().iter().any(|a| a["backend"] == "vulkan")
        || no_adapter::<()>("`gpubench list` finds no Vulkan adapter").is_some()
}

/// Bytes a command wrote, as text (lossily: a test reads it, it is never parsed as data).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A results file, parsed.
pub fn read_doc(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("results file exists");
    let doc: Value = serde_json::from_str(&text).expect("results file is valid JSON");
    if doc.get("schema_version").is_some() {
        let errors: Vec<String> = schema_validator()
            .iter_errors(&doc)
            .take(5)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{} does not validate against docs/results.schema.json: {errors:#?}",
            path.display()
        );
    }
    doc
}

/// A validator of the published results schema (docs/results.schema.json).
fn schema_validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results.schema.json");
    let text = std::fs::read_to_string(&path).expect("docs/results.schema.json exists");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a JSON Schema")
}

/// Arguments of a quick run of `suite` on Vulkan without progress bars, writing to `out`;
/// tests append what they exercise.
pub fn quick_suite_args(suite: &str, out: &Path) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--suite",
        suite,
        "--profile",
        "quick",
        "--backend",
        "vulkan",
        "--no-progress",
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    args.extend(["--out".to_string(), out.to_string_lossy().to_string()]);
    args
}

/// Arguments of a quick stream run on Vulkan with arrays of `stream_size`, writing to `out`;
/// tests append what they exercise.
pub fn quick_stream_args(out: &Path, stream_size: &str) -> Vec<String> {
    let mut args = quick_suite_args("stream", out);
    args.extend(["--stream-size".to_string(), stream_size.to_string()]);
    args
}

/// Runs the binary with `args` and waits for it.
pub fn run_gpubench(args: &[String]) -> std::process::Output {
    gpubench_command()
        .args(args)
        .output()
        .expect("gpubench runs")
}
