//! The reusable GitHub workflow's run steps, executed the way GitHub executes them: with the
//! shell the workflow declares (`shell: bash` is `bash --noprofile --norc -eo pipefail {0}`; no
//! shell is `bash -e {0}`, where a pipe takes its last command's status), the job's environment,
//! and the step's inputs as GitHub would expand them. A wrong answer must fail the step whatever
//! it pipes its output through, and with the timing gate a 2.2x slowdown must fail it too.
//! Needs a Vulkan adapter (lavapipe in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

use gpubench_baseline::testing::scaled;
use gpubench_results::results_file::{load_document, save_document};

mod common;
use common::{gpubench_path, require_vulkan};

const WORKFLOW: &str = "../../.github/workflows/gpubench-reusable.yml";

fn workflow() -> Yaml {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(WORKFLOW);
    let text = std::fs::read_to_string(&path).expect("the workflow exists");
    YamlLoader::load_from_str(&text)
        .expect("the workflow is YAML")
        .into_iter()
        .next()
        .expect("one document")
}

/// The command line GitHub runs a step's script with, for the shell in force.
fn github_shell(shell: Option<&str>) -> Vec<&'static str> {
    match shell {
        Some("bash") => vec!["bash", "--noprofile", "--norc", "-eo", "pipefail"],
        None => vec!["bash", "-e"],
        Some(other) => panic!("shell {other} is not one this test knows how GitHub runs"),
    }
}

/// The one job's step named `name`: its script and the shell GitHub would run it with.
fn step(doc: &Yaml, name: &str) -> (String, Option<String>) {
    let default_shell = doc["defaults"]["run"]["shell"].as_str().map(str::to_string);
    let jobs = doc["jobs"].as_hash().expect("jobs");
    let (_, job) = jobs.iter().next().expect("a job");
    let job_shell = job["defaults"]["run"]["shell"].as_str().map(str::to_string);
    let steps = job["steps"].as_vec().expect("steps");
    let step = steps
        .iter()
        .find(|s| s["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no step named {name}"));
    let script = step["run"].as_str().expect("a run step").to_string();
    let shell = step["shell"]
        .as_str()
        .map(str::to_string)
        .or(job_shell)
        .or(default_shell);
    (script, shell)
}

/// The job's `$GPUBENCH` (gpubench-src/target/release/gpubench) as the test binary, kept to
/// one quick stream size (the stream suite where a run names none), with `extra` appended to
/// `run`.
fn shim(dir: &Path, extra: &str) -> PathBuf {
    let release = dir.join("gpubench-src/target/release");
    std::fs::create_dir_all(&release).expect("mkdir");
    let path = release.join("gpubench");
    let script = format!(
        "#!/usr/bin/env bash\nif [ \"$1\" = run ]; then\n  shift\n  case \" $* \" in *' --suite '*) exec '{0}' run \"$@\" --stream-size 64KiB {extra};; esac\n  exec '{0}' run \"$@\" --suite stream --stream-size 64KiB {extra}\nfi\nexec '{0}' \"$@\"\n",
        gpubench_path().display()
    );
    std::fs::write(&path, script).expect("write shim");
    let status = Command::new("chmod").arg("+x").arg(&path).status();
    assert!(status.expect("chmod").success());
    path
}

/// The step's inputs as GitHub expands them for a pull request of the quick profile: no timing
/// gate, no saving; `inputs` replaces some.
fn step_env<'a>(inputs: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut env = vec![
        ("PROFILE", "quick"),
        ("SUITES", ""),
        ("BASELINE_FILE", ""),
        ("GATE_FLAGS", ""),
        ("EXPORT_FLAGS", ""),
        ("SAVE_FLAGS", ""),
    ];
    for (key, value) in inputs {
        env.retain(|(k, _)| k != key);
        env.push((key, value));
    }
    env
}

/// Runs the step `name` in `dir` (the job's workspace) with `extra` appended to gpubench run
/// and the step's `inputs`: its exit status and its stdout and stderr.
fn run_step_in(
    dir: &Path,
    name: &str,
    extra: &str,
    inputs: &[(&str, &str)],
) -> (Option<i32>, String) {
    let doc = workflow();
    let (script, shell) = step(&doc, name);
    shim(dir, extra);
    let script_path = dir.join("step.sh");
    std::fs::write(&script_path, script).expect("write step");
    let argv = github_shell(shell.as_deref());
    let env = &doc["jobs"]
        .as_hash()
        .expect("jobs")
        .iter()
        .next()
        .expect("job")
        .1["env"];
    let mut cmd = Command::new(argv[0]);
    cmd.args(&argv[1..]).arg(&script_path).current_dir(dir);
    for (key, value) in env.as_hash().into_iter().flatten() {
        if let (Some(k), Some(v)) = (key.as_str(), value.as_str()) {
            cmd.env(k, v);
        }
    }
    for (key, value) in step_env(inputs) {
        cmd.env(key, value);
    }
    cmd.env("GITHUB_STEP_SUMMARY", dir.join("summary.md"));
    let out = cmd.output().expect("the step runs");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn run_step(name: &str, extra: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    run_step_in(dir.path(), name, extra, &[])
}

#[test]
fn the_workflow_runs_its_steps_with_pipefail() {
    let (_, shell) = step(&workflow(), "Run the suite");
    assert_eq!(
        shell.as_deref(),
        Some("bash"),
        "without `shell: bash` GitHub runs `bash -e`, and `| tee` hides gpubench's exit status"
    );
}

#[test]
fn a_wrong_answer_fails_the_suite_step() {
    if !require_vulkan() {
        return;
    }
    let (code, output) = run_step("Run the suite", "--inject-fault wrong-output");
    assert_eq!(code, Some(4), "wrong output must fail the step: {output}");
    let (code, output) = run_step("Run the suite", "");
    assert_eq!(code, Some(0), "a good run passes the step: {output}");
    assert!(output.contains("no baseline yet"), "{output}");
}

#[test]
fn with_the_timing_gate_a_slowdown_fails_the_step_and_without_it_only_reports() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, output) = run_step_in(dir.path(), "Run the suite", "", &[]);
    assert_eq!(code, Some(0), "{output}");
    // A baseline 2.2x faster than this machine: this run is then a 2.2x slowdown, the size of
    // the one (26.8 -> 59.9 us) a report-only gate let through.
    let run = load_document(&dir.path().join("gpubench-out/results.json")).expect("results");
    let fast = dir.path().join("fast-baseline.json");
    save_document(&fast, &scaled(&run, 1.0 / 2.2)).expect("write the baseline");
    let fast = fast.to_str().expect("utf-8 path");

    // The comparing runs take no noise check of their own: on a loaded host it rightly makes
    // every timing verdict too noisy to judge (exit 6, tested in compare.rs), and this test is
    // about the step a regression fails.
    let quiet = "--noise-check off";
    let gated = [("BASELINE_FILE", fast), ("GATE_FLAGS", "--strict")];
    let (code, output) = run_step_in(dir.path(), "Run the suite", quiet, &gated);
    assert_eq!(
        code,
        Some(3),
        "the timing gate fails a 2.2x slowdown: {output}"
    );
    assert!(
        output.contains("exit 3: "),
        "the summary says why: {output}"
    );

    let (code, output) = run_step_in(
        dir.path(),
        "Run the suite",
        quiet,
        &[("BASELINE_FILE", fast)],
    );
    assert_eq!(
        code,
        Some(0),
        "without the gate a software adapter reports: {output}"
    );
    assert!(
        output.contains("timing regressions do not fail the gate"),
        "{output}"
    );
}

#[test]
fn the_caller_workflow_builds_the_commit_under_test_with_the_reusable_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.github/workflows/gpubench.yml");
    let text = std::fs::read_to_string(path).expect("the caller exists");
    let doc = YamlLoader::load_from_str(&text).expect("YAML").remove(0);
    let job = &doc["jobs"]["quick-suite-lavapipe"];
    assert_eq!(
        job["uses"].as_str(),
        Some("./.github/workflows/gpubench-reusable.yml")
    );
    assert_eq!(
        job["with"]["gpubench-ref"].as_str(),
        Some("${{ github.sha }}")
    );
    let reusable = workflow();
    let inputs = &reusable["on"]["workflow_call"]["inputs"];
    for input in [
        "gpubench-ref",
        "runs-on",
        "timing-gate",
        "baseline-file",
        "bencher-project",
    ] {
        assert!(!inputs[input].is_badvalue(), "input {input}");
    }
    // Every action on a release that runs on Node 24.
    for line in text.lines().chain(
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(WORKFLOW))
            .expect("read")
            .lines(),
    ) {
        for old in [
            "actions/checkout@v4",
            "actions/cache/restore@v4",
            "actions/cache/save@v4",
            "actions/upload-artifact@v4",
        ] {
            assert!(!line.contains(old), "{old} runs on the deprecated Node 20");
        }
    }
}

/// The paired gate's step with one build as both base and head (an A/A run of five rounds of a
/// quick 64 KiB stream): it passes, a summary of the rounds reaches the job summary, and rounds
/// too noisy to judge leave a warning, not a failure.
#[test]
fn the_paired_gate_step_judges_a_build_against_itself_and_passes() {
    if !require_vulkan() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let base = shim(dir.path(), "");
    let base = base.to_str().expect("utf-8 path");
    let inputs = [("ROUNDS", "5"), ("BASE_GPUBENCH", base)];
    let (code, output) = run_step_in(
        dir.path(),
        "Paired gate (base and head in alternating rounds)",
        "",
        &inputs,
    );
    assert_eq!(code, Some(0), "an A/A run passes the step: {output}");
    assert!(output.contains("rounds, base and head in turn"), "{output}");
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).expect("job summary");
    assert!(summary.contains("| benchmark | rounds |"), "{summary}");
    let verdicts = output.contains("unchanged") || output.contains("::warning title=gpubench ab::");
    assert!(verdicts, "{output}");
}
