//! The GitHub workflow's run steps, executed the way GitHub executes them: with the shell the
//! workflow declares (`shell: bash` is `bash --noprofile --norc -eo pipefail {0}`; no shell is
//! `bash -e {0}`, where a pipe takes its last command's status). A wrong answer must fail the
//! step, whatever the step pipes its output through. Needs a Vulkan adapter (lavapipe in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

mod common;
use common::{gpubench_path, require_vulkan};

const WORKFLOW: &str = "../../.github/workflows/gpubench.yml";

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

/// A `target/release/gpubench` that is the test binary, kept to one quick stream size, with
/// `extra` appended to `run`.
fn shim(dir: &Path, extra: &str) -> PathBuf {
    let release = dir.join("target/release");
    std::fs::create_dir_all(&release).expect("mkdir");
    let path = release.join("gpubench");
    let script = format!(
        "#!/usr/bin/env bash\nif [ \"$1\" = run ]; then shift; exec '{}' run \"$@\" --suite stream --stream-size 64KiB {extra}; fi\nexec '{}' \"$@\"\n",
        gpubench_path().display(),
        gpubench_path().display()
    );
    std::fs::write(&path, script).expect("write shim");
    let status = Command::new("chmod").arg("+x").arg(&path).status();
    assert!(status.expect("chmod").success());
    path
}

fn run_step(name: &str, extra: &str) -> (Option<i32>, String) {
    let doc = workflow();
    let (script, shell) = step(&doc, name);
    let dir = tempfile::tempdir().expect("temp dir");
    shim(dir.path(), extra);
    let script_path = dir.path().join("step.sh");
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
    cmd.args(&argv[1..])
        .arg(&script_path)
        .current_dir(dir.path());
    for (key, value) in env.as_hash().into_iter().flatten() {
        if let (Some(k), Some(v)) = (key.as_str(), value.as_str()) {
            cmd.env(k, v);
        }
    }
    cmd.env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"));
    cmd.env("GPUBENCH_BASELINE_DIR", dir.path().join("baselines"));
    let out = cmd.output().expect("the step runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_workflow_runs_its_steps_with_pipefail() {
    let (_, shell) = step(&workflow(), "Run the quick suite");
    assert_eq!(
        shell.as_deref(),
        Some("bash"),
        "without `shell: bash` GitHub runs `bash -e`, and `| tee` hides gpubench's exit status"
    );
}

#[test]
fn a_wrong_answer_fails_the_quick_suite_step() {
    if !require_vulkan() {
        return;
    }
    let (code, stderr) = run_step("Run the quick suite", "--inject-fault wrong-output");
    assert_eq!(code, Some(4), "wrong output must fail the step: {stderr}");
    let (code, stderr) = run_step("Run the quick suite", "");
    assert_eq!(code, Some(0), "a good run passes the step: {stderr}");
}
