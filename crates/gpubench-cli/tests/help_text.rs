//! `--help` says what a user needs: what the tool is (not the crate's description), value names
//! that say what to give, the WGPU_* variables behind the adapter flags, and the exit codes,
//! which are the README's. No adapter needed.

use std::collections::BTreeSet;
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
    let readme_codes = readme_exit_codes(&readme);
    assert!(
        readme_codes.contains(&0) && readme_codes.contains(&143),
        "{readme_codes:?}"
    );
    // Every command that exits with a status says which, in its own --help.
    let commands: [&[&str]; 10] = [
        &["list"],
        &["report"],
        &["compare"],
        &["ab"],
        &["doctor"],
        &["kernels"],
        &["show"],
        &["man"],
        &["baseline", "save"],
        &["sizing"],
    ];
    let mut texts = vec![top, run];
    texts.extend(commands.iter().map(|c| help(&[*c, &["--help"]].concat())));
    for text in &texts {
        let listed = help_exit_codes(text);
        assert_eq!(
            listed,
            readme_codes,
            "--help's exit codes and the README's table differ: {}",
            text.lines().next().unwrap_or_default()
        );
    }
}

/// The codes in the first column of the README's exit-code table (`130 / 143` is two).
fn readme_exit_codes(readme: &str) -> BTreeSet<u16> {
    let table = readme
        .split("Exit codes:")
        .nth(1)
        .and_then(|rest| rest.split("docs/RELIABILITY.md").next())
        .expect("the README's exit-code table");
    table
        .lines()
        .filter_map(|line| line.strip_prefix('|'))
        .filter_map(|row| row.split('|').next())
        .flat_map(|cell| cell.split('/').map(str::trim).collect::<Vec<_>>())
        .filter_map(|code| code.parse().ok())
        .collect()
}

/// The codes `--help` lists after "Exit codes:", one per line (a meaning wrapped to the
/// terminal continues on lines that start with a word, not a code).
fn help_exit_codes(help: &str) -> BTreeSet<u16> {
    help.split("Exit codes:")
        .nth(1)
        .expect("exit codes in --help")
        .lines()
        .filter_map(|line| line.split_whitespace().next()?.parse().ok())
        .collect()
}

#[test]
fn the_exit_code_readers_see_a_missing_row() {
    let table = "Exit codes:\n\n| code | meaning |\n| --- | --- |\n| 0 | fine |\n| 130 / 143 | stop |\n\ndocs/RELIABILITY.md";
    assert_eq!(readme_exit_codes(table), BTreeSet::from([0, 130, 143]));
    let help = "Exit codes:\n  0    fine\n  130  stop\n";
    assert_eq!(help_exit_codes(help), BTreeSet::from([0, 130]));
    assert_ne!(help_exit_codes(help), readme_exit_codes(table));
}

/// Every command's `--help` fits an 80-column terminal, wrapped at words (clap's wrap_help,
/// which reads the terminal's width, or `COLUMNS`).
#[test]
fn help_wraps_to_an_80_column_terminal() {
    for command in [
        "", "run", "compare", "ab", "show", "report", "doctor", "kernels",
    ] {
        let mut args: Vec<&str> = command.split_whitespace().collect();
        args.push("--help");
        let out = gpubench_command()
            .args(&args)
            .env("COLUMNS", "80")
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest <= 80, "{args:?}: a {widest}-column line:\n{text}");
        assert!(text.lines().count() > 3, "{args:?}: {text}");
    }
}
