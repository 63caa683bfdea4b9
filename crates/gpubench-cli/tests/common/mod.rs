//! Helpers shared by the CLI tests: the binary with a clean adapter environment, requiring a
//! Vulkan adapter (GPU tests fail where none is, unless skipped on purpose), quick runs, and
//! reading a results file and its results.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

use gpubench_baseline::testing::doc_with;
use gpubench_harness::RunDocument;
use gpubench_harness::testing::no_adapter;
use gpubench_results::results_file::save_document;
use serde_json::Value;

// The results crate's schema check, shared rather than written twice.
#[path = "../../../gpubench-results/tests/support/schema_check.rs"]
mod schema_check;
use schema_check::SchemaCheck;

/// The gpubench binary built for these tests.
pub fn gpubench_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("gpubench")
}

/// A command for the binary, without the caller's WGPU_* selection variables.
pub fn gpubench_command() -> Command {
    let mut cmd = Command::new(gpubench_path());
    for var in ["WGPU_BACKEND", "WGPU_ADAPTER_NAME", "WGPU_POWER_PREF"] {
        cmd.env_remove(var);
    }
    cmd
}

/// `gpubench ARGS`, run to its end.
pub fn gpubench_output(args: &[&str]) -> Output {
    gpubench_command()
        .args(args)
        .output()
        .expect("gpubench runs")
}

/// A temporary path as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temp path")
}

/// `doc` saved as `dir/name`; its path.
pub fn write_doc(dir: &Path, name: &str, doc: &RunDocument) -> PathBuf {
    let path = dir.join(name);
    save_document(&path, doc).expect("write fixture");
    path
}

/// A temporary directory holding the fixture run (`doc_with("NVIDIA Test", false)`) under each
/// of `names`; the directory and the files' paths, in the order of `names`.
pub fn dir_with_fixture_runs<const N: usize>(
    names: [&str; N],
) -> (tempfile::TempDir, [PathBuf; N]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = doc_with("NVIDIA Test", false);
    let paths = names.map(|name| write_doc(dir.path(), name, &doc));
    (dir, paths)
}

/// The `*.json` files in `dir` (a baseline directory holds lock files beside them); none when
/// it cannot be read.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default()
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

/// A temporary directory for a GPU test, or `None` where the test is not to run (see
/// [`require_vulkan`]).
pub fn vulkan_temp_dir() -> Option<tempfile::TempDir> {
    require_vulkan().then(|| tempfile::tempdir().expect("temp dir"))
}

/// Bytes a command wrote, as text (lossily: a test reads it, it is never parsed as data).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that a command exited with `code`, showing its stderr otherwise.
#[track_caller]
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stderr: {}",
        text(&out.stderr)
    );
}

/// Asserts that a command exited with `code` and said each of `needles` on stderr.
#[track_caller]
pub fn assert_exit_saying(out: &Output, code: i32, needles: &[&str]) {
    assert_exit(out, code);
    assert_has_all(&text(&out.stderr), needles);
}

/// Asserts that `haystack` contains `needle`, showing both otherwise.
#[track_caller]
pub fn assert_has(haystack: &str, needle: &str) {
    assert!(haystack.contains(needle), "{needle:?} not in:\n{haystack}");
}

/// Asserts that `haystack` contains each of `needles`.
#[track_caller]
pub fn assert_has_all(haystack: &str, needles: &[&str]) {
    for needle in needles {
        assert_has(haystack, needle);
    }
}

/// Asserts that `haystack` does not contain `needle`, showing both otherwise.
#[track_caller]
pub fn assert_lacks(haystack: &str, needle: &str) {
    assert!(!haystack.contains(needle), "{needle:?} in:\n{haystack}");
}

/// A results file, parsed.
pub fn read_doc(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("results file exists");
    let doc: Value = serde_json::from_str(&text).expect("results file is valid JSON");
    if doc.get("schema_version").is_some() {
        let errors = schema_validator().errors(&doc);
        assert!(
            errors.is_empty(),
            "{} does not validate against docs/results.schema.json: {errors:#?}",
            path.display()
        );
    }
    doc
}

/// A validator of the published results schema (docs/results.schema.json).
fn schema_validator() -> SchemaCheck {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results.schema.json");
    let text = std::fs::read_to_string(&path).expect("docs/results.schema.json exists");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    SchemaCheck::new(&schema)
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
pub fn run_gpubench(args: &[String]) -> Output {
    gpubench_command()
        .args(args)
        .output()
        .expect("gpubench runs")
}

/// The command of a quick run of `suite` (see [`quick_suite_args`]) with `flags` appended.
pub fn quick_suite_command(suite: &str, out: &Path, flags: &[&str]) -> Command {
    let mut cmd = gpubench_command();
    cmd.args(quick_suite_args(suite, out)).args(flags);
    cmd
}

/// The command of a quick stream run (see [`quick_stream_args`]) with `flags` appended.
pub fn quick_stream_command(out: &Path, stream_size: &str, flags: &[&str]) -> Command {
    let mut cmd = gpubench_command();
    cmd.args(quick_stream_args(out, stream_size)).args(flags);
    cmd
}

/// Runs `--suite SUITE` quickly on Vulkan with `flags`, writing to `out`, and waits for it.
pub fn quick_suite_run(suite: &str, out: &Path, flags: &[&str]) -> Output {
    quick_suite_command(suite, out, flags)
        .output()
        .expect("gpubench runs")
}

/// Runs a quick stream run on arrays of `stream_size` with `flags`, writing to `out`, and
/// waits for it.
pub fn quick_stream_run(out: &Path, stream_size: &str, flags: &[&str]) -> Output {
    quick_stream_command(out, stream_size, flags)
        .output()
        .expect("gpubench runs")
}

/// Sends `signal` (as `kill` spells it: `-INT`, `-TERM`) to `child`.
pub fn send_signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// The result of `doc` whose id is `id`.
pub fn result_with_id(doc: &Value, id: &str) -> Value {
    find_result(doc, |r| r == id).unwrap_or_else(|| panic!("no result {id}"))
}

/// The result of `doc` with `id_part` in its id.
pub fn result_with(doc: &Value, id_part: &str) -> Value {
    find_result(doc, |r| r.contains(id_part)).unwrap_or_else(|| panic!("no result with {id_part}"))
}

/// The first result of `doc` whose id passes `id`.
fn find_result(doc: &Value, id: impl Fn(&str) -> bool) -> Option<Value> {
    doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["id"].as_str().is_some_and(&id))
        .cloned()
}

/// Asserts that `result` has `status` and a reason that contains `words`.
pub fn assert_status_reason(result: &Value, status: &str, words: &str) {
    assert_eq!(result["status"], status, "{result}");
    assert!(
        result["reason"].as_str().is_some_and(|r| r.contains(words)),
        "{words:?} not in {result}"
    );
}

/// The temporary files gpubench writes beside a destination (`.gpubench-*.tmp`) left in `dir`.
pub fn temporary_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(".gpubench-") && n.ends_with(".tmp"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `child`'s output, killing it (and failing) after `limit`: a command that opened a FIFO
/// would wait for a writer or a reader for ever.
pub fn wait_at_most(mut child: std::process::Child, limit: std::time::Duration) -> Output {
    let start = std::time::Instant::now();
    while child.try_wait().expect("poll").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// Checks `done` every 20 ms until it holds, failing with `what` once `limit` has passed.
#[track_caller]
pub fn wait_until(limit: std::time::Duration, what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// How many results the results file at `path` holds; 0 while it is missing or not yet JSON.
pub fn results_written(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|doc| doc["results"].as_array().map(Vec::len))
        .unwrap_or(0)
}

/// Makes a FIFO at `path`.
#[cfg(unix)]
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}
