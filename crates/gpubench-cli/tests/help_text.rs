//! `--help` says what a user needs: what the tool is (not the crate's description), value names
//! that say what to give, the WGPU_* variables behind the adapter flags, and the exit codes,
//! which are the README's. No adapter needed.

use std::path::Path;

mod common;
use common::gpubench_command;

fn help(args: &[&str]) -> String {
    let out = gpubench_command().args(args).output().expect("runs");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn help_names_values_variables_and_exit_codes() {
    let top = help(&["--help"]);
    assert!(
        top.starts_with("A cross-vendor GPU compute benchmark"),
        "{top}"
    );
    let run = help(&["run", "--help"]);
    for vague in [
        "<OUT>",
        "<HTML>",
        "<STREAM_SIZE>",
        "<CAPACITY_CAP>",
        "<SHADER_CHECKS>",
    ] {
        assert!(!run.contains(vague), "{vague} in run --help");
    }
    for wanted in [
        "--out <FILE>",
        "--stream-size <SIZE>",
        "WGPU_ADAPTER_NAME",
        "WGPU_BACKEND",
    ] {
        assert!(run.contains(wanted), "{wanted} missing from run --help");
    }
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README");
    let readme_codes = readme
        .split("Exit codes:")
        .nth(1)
        .and_then(|rest| rest.split("docs/RELIABILITY.md").next())
        .expect("the README's exit-code table");
    for text in [&top, &run] {
        let listed = text
            .split("Exit codes:")
            .nth(1)
            .expect("exit codes in --help");
        for line in listed.lines().filter(|l| !l.trim().is_empty()) {
            let code = line.split_whitespace().next().expect("a code");
            assert!(
                readme_codes.contains(code),
                "exit code {code} of --help is not in the README: {readme_codes}"
            );
        }
    }
}
