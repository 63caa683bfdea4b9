//! `gpubench ab` against stand-in builds: scripts that answer `run ... --out FILE` by copying
//! prepared results files in turn, so the rounds' figures are known and the verdicts and exit
//! codes can be asserted exactly (no adapter needed). A real A/A run on lavapipe is in the
//! gate's error-rate harness, not here: its figures move with the machine's load.

#![cfg(unix)]

use std::path::{Path, PathBuf};

use gpubench_baseline::testing::doc_with;
use gpubench_results::{RunDocument, Status};

mod common;
use common::{
    arg, assert_exit, assert_exit_saying, assert_has, assert_has_all, gpubench_command,
    gpubench_output, gpubench_path, send_signal, text, write_doc,
};

/// A stand-in build called `name` in `dir` whose k-th run writes `docs[k % docs.len()]`, and
/// records each run's arguments, one run per line, in `dir/name.args`. Its `run -h` is
/// `dir/name.help` where that exists, else the real build's.
fn stand_in(dir: &Path, name: &str, docs: &[RunDocument]) -> PathBuf {
    for (k, doc) in docs.iter().enumerate() {
        write_doc(dir, &format!("{name}-{k}.json"), doc);
    }
    let d = dir.display();
    let real = gpubench_path();
    let script = format!(
        "#!/bin/sh\nif [ \"$2\" = -h ]; then\n  if [ -f '{d}/{name}.help' ]; then cat '{d}/{name}.help'; exit 0; fi\n  exec '{}' run -h\nfi\n\
         out=''\nprev=''\nfor a in \"$@\"; do\n  if [ \"$prev\" = --out ]; then out=$a; fi\n  prev=$a\ndone\n\
         echo \"$*\" >> '{d}/{name}.args'\n\
         n=$(cat '{d}/{name}.count' 2>/dev/null || echo 0)\necho $((n + 1)) > '{d}/{name}.count'\n\
         cp \"{d}/{name}-$((n % {})).json\" \"$out\"\n",
        real.display(),
        docs.len()
    );
    write_script(&dir.join(name), &script)
}

/// `script` written to `path` as an executable file; `path`.
fn write_script(path: &Path, script: &str) -> PathBuf {
    std::fs::write(path, script).expect("script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.to_path_buf()
}

/// A run whose two results' best samples are `scale` times the fixture's speed: the bandwidth
/// `scale` times higher, the time per operation `scale` times shorter.
fn at_speed(scale: f64) -> RunDocument {
    let mut doc = doc_with("NVIDIA Test", false);
    for result in &mut doc.results {
        let factor = if result.higher_is_better {
            scale
        } else {
            1.0 / scale
        };
        let summary = result.summary.as_mut().expect("summary");
        for v in [&mut summary.max, &mut summary.min, &mut summary.median] {
            *v *= factor;
        }
        for v in result
            .samples
            .iter_mut()
            .chain(result.host_samples.iter_mut())
        {
            *v *= factor;
        }
    }
    doc
}

/// `gpubench ab` of `base` and `head` with `flags` and RUN_FLAGS `--suite stream`, into
/// `dir/out`.
fn ab(dir: &Path, base: &Path, head: &Path, flags: &[&str]) -> std::process::Output {
    ab_running(dir, base, head, flags, &["--suite", "stream"])
}

/// `gpubench ab` of `base` and `head` with `flags` and RUN_FLAGS `run_flags`, into `dir/out`.
fn ab_running(
    dir: &Path,
    base: &Path,
    head: &Path,
    flags: &[&str],
    run_flags: &[&str],
) -> std::process::Output {
    let out = dir.join("out");
    let mut args = vec!["ab", arg(base), arg(head), "--out", arg(&out)];
    args.extend(flags);
    args.push("--");
    args.extend(run_flags);
    gpubench_output(&args)
}

/// `gpubench ab` (see [`ab`]) with `flags` of a base stand-in at the fixture's speed and a head
/// stand-in whose runs write `head_runs` in turn: the directory holding both stand-ins, their
/// `.args` records and the `out` folder; and the output.
fn ab_against_steady_base(
    head_runs: &[RunDocument],
    flags: &[&str],
) -> (tempfile::TempDir, std::process::Output) {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = stand_in(dir.path(), "base", &[at_speed(1.0)]);
    let head = stand_in(dir.path(), "head", head_runs);
    let out = ab(dir.path(), &base, &head, flags);
    (dir, out)
}

#[test]
fn the_same_build_twice_is_unchanged_and_exits_0() {
    let (dir, out) = ab_against_steady_base(&[at_speed(1.01), at_speed(0.99)], &["--rounds", "5"]);
    assert_exit(&out, 0);
    assert_has(
        &text(&out.stdout),
        "5 rounds, base and head in turn: 2 unchanged",
    );
    // Each round's two files, base first in odd rounds and head first in even ones.
    let files = dir.path().join("out");
    for k in 1..=5 {
        for build in ["base", "head"] {
            assert!(files.join(format!("round{k:02}-{build}.json")).is_file());
        }
    }
    let runs = std::fs::read_to_string(dir.path().join("base.args")).expect("args");
    assert_eq!(runs.lines().count(), 5);
    assert!(
        runs.lines()
            .all(|l| l.starts_with("run --suite stream --format json --out "))
    );
    assert!(
        !text(&out.stderr).contains("confirming"),
        "nothing to confirm"
    );
}

#[test]
fn builds_that_ran_on_two_adapters_or_two_build_profiles_are_refused() {
    let mut other_card = at_speed(1.0);
    other_card.machine.fingerprint = "another-card".to_string();
    let (_dir, out) = ab_against_steady_base(&[other_card], &["--rounds", "5"]);
    assert_exit_saying(&out, 1, &["an A/B compares two builds on one adapter"]);
    let mut debug = at_speed(1.0);
    debug.machine.build_profile = "debug".to_string();
    let (_dir, out) = ab_against_steady_base(&[debug], &["--rounds", "5"]);
    assert_exit_saying(&out, 1, &["differ by the build, not the change"]);
}

/// A stop sent to ab alone (`kill -TERM`, as a job scheduler does) reaches the build's run in
/// progress: it is not left measuring after ab ended.
#[test]
fn a_stop_sent_to_ab_alone_reaches_the_run_in_progress() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path().display();
    let base = write_script(
        &dir.path().join("base"),
        &format!(
            "#!/bin/sh\nif [ \"$2\" = -h ]; then exec '{}' run -h; fi\n\
             trap 'echo stopped > {d}/stopped; exit 143' TERM\n\
             echo started > {d}/started\nsleep 30 &\nwait $!\n",
            gpubench_path().display()
        ),
    );
    let mut ab = gpubench_command()
        .args(["ab", arg(&base), arg(&base), "--out"])
        .arg(dir.path().join("out"))
        .args(["--", "--suite", "stream"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ab starts");
    let started = dir.path().join("started");
    for _ in 0..200 {
        if started.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(started.exists(), "the first run started");
    send_signal(&ab, "-TERM");
    let status = ab.wait().expect("ab ends");
    assert_eq!(status.code(), Some(143));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("stopped")).expect("the run was stopped"),
        "stopped\n"
    );
}

/// A hidden flag (the fault injection's) is passed on, though `run -h` never lists it.
#[test]
fn a_hidden_run_flag_reaches_both_builds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = stand_in(dir.path(), "base", &[at_speed(1.0)]);
    let head = stand_in(dir.path(), "head", &[at_speed(1.0)]);
    let run_flags = ["--suite", "stream", "--inject-fault", "pace"];
    let out = ab_running(dir.path(), &base, &head, &["--rounds", "5"], &run_flags);
    assert_exit(&out, 0);
    for build in ["base", "head"] {
        let runs = std::fs::read_to_string(dir.path().join(format!("{build}.args"))).expect("ran");
        assert!(
            runs.lines().all(|l| l.contains("--inject-fault pace")),
            "{build}: {runs}"
        );
    }
}

#[test]
fn a_head_at_half_speed_is_confirmed_then_fails_with_3() {
    let (dir, out) = ab_against_steady_base(
        &[at_speed(0.5), at_speed(0.52)],
        &["--rounds", "5", "--confirm-rounds", "2"],
    );
    assert_exit_saying(&out, 3, &["confirming 2 suspect benchmarks"]);
    assert_has_all(&text(&out.stdout), &["7 rounds", "2 regressed"]);
    // The confirmation rounds run the suspects' suites only.
    let runs = std::fs::read_to_string(dir.path().join("head.args")).expect("args");
    assert_eq!(runs.lines().count(), 7);
    let confirm: Vec<&str> = runs.lines().skip(5).collect();
    assert!(
        confirm
            .iter()
            .all(|l| l.starts_with("run --suite launch,stream ")),
        "{confirm:?}"
    );
}

#[test]
fn a_slowdown_hidden_in_some_rounds_gets_a_second_look_and_fails_with_3() {
    // One round in five at full speed, as when the scheduler spares a hogged run now and then:
    // after 5 rounds and 2 to confirm the interval still reaches 1.0 (too noisy); 2 more, of
    // the rows still undecided only, settle it.
    let mut speeds = vec![at_speed(0.5); 4];
    speeds.push(at_speed(1.0));
    let (_dir, out) = ab_against_steady_base(&speeds, &["--rounds", "5", "--confirm-rounds", "2"]);
    assert_exit_saying(
        &out,
        3,
        &[
            "still too noisy, a second look at 2 suspect benchmarks",
            "confirmation round 4 (of at most 4)",
        ],
    );
    assert_has_all(&text(&out.stdout), &["9 rounds", "2 regressed"]);
}

#[test]
fn rounds_that_disagree_are_too_noisy_and_exit_6() {
    let (_dir, out) = ab_against_steady_base(
        &[at_speed(0.6), at_speed(1.5), at_speed(1.0)],
        &["--rounds", "6", "--confirm-rounds", "0"],
    );
    assert_exit(&out, 6);
    assert_has(&text(&out.stdout), "too noisy to judge");
}

#[test]
fn a_result_the_head_lost_fails_with_4_naming_the_round() {
    let mut broken = at_speed(1.0);
    broken.results[0].status = Status::Failed;
    broken.results[0].reason = Some("verification failed".into());
    broken.results[0].summary = None;
    let (_dir, out) = ab_against_steady_base(
        &[at_speed(1.0), broken],
        &["--rounds", "5", "--format", "json"],
    );
    assert_exit(&out, 4);
    let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let lost = &cmp["rows"][0];
    assert_eq!(lost["verdict"], "status-changed");
    assert_eq!(lost["note"], "round 2: ok -> failed (verification failed)");
}

#[test]
fn what_ab_sets_itself_and_missing_builds_are_usage_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = stand_in(dir.path(), "base", &[at_speed(1.0)]);
    let missing = dir.path().join("no-such-gpubench");
    let out = gpubench_output(&["ab", arg(&base), arg(&missing)]);
    assert_exit_saying(&out, 2, &["HEAD_BIN"]);
    for (flags, named) in [
        (&["--out", "x.json"][..], "--out"),
        (&["--save-baseline"], "--save-baseline"),
        (&["--adapter", "all"], "--adapter all"),
        // Named as the run's parser takes it, and for what it is, not for a flag before it.
        (&["--profile", "quick", "--adapter", "ALL"], "--adapter all"),
        (&["--adapter=All"], "--adapter all"),
        (&["--export-json", "ab.json"], "--export-json"),
        (&["--export-gab=g.json"], "--export-gab"),
        (&["--export-adapter-names"], "--export-adapter-names"),
    ] {
        let mut args = vec!["ab", arg(&base), arg(&base), "--"];
        args.extend(flags);
        let out = gpubench_output(&args);
        assert_exit_saying(&out, 2, &[&format!("{named} after `--`")]);
    }
    assert!(!dir.path().join("base.args").exists(), "nothing ran");
}

#[test]
fn an_older_base_is_judged_on_the_flags_and_suites_both_builds_accept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = stand_in(dir.path(), "base", &[at_speed(1.0)]);
    let head = stand_in(dir.path(), "head", &[at_speed(1.0)]);
    // The base's `run -h` as an older build's: no `--stream-size`, no transfer suite.
    let help = common::gpubench_command()
        .args(["run", "-h"])
        .env("COLUMNS", "100000")
        .output()
        .expect("run -h");
    let help: String = text(&help.stdout)
        .lines()
        .filter(|line| !line.contains("--stream-size"))
        .map(|line| line.replace("transfer, ", ""))
        .collect::<Vec<_>>()
        .join("\n");
    assert_has(&help, "[possible values: stream,");
    std::fs::write(dir.path().join("base.help"), help).expect("help");
    let run_flags = ["--suite", "stream,transfer", "--stream-size", "64KiB"];
    let run = ab_running(dir.path(), &base, &head, &["--rounds", "5"], &run_flags);
    assert_exit_saying(
        &run,
        0,
        &[
            "--stream-size 64KiB: the base build does not accept it",
            "suite transfer: the base build has no such suite",
        ],
    );
    for build in ["base", "head"] {
        let runs = std::fs::read_to_string(dir.path().join(format!("{build}.args"))).expect("args");
        assert_eq!(runs.lines().count(), 5, "{runs}");
        for line in runs.lines() {
            assert!(
                line.starts_with("run --suite stream --format json"),
                "{line}"
            );
            assert!(!line.contains("--stream-size"), "{line}");
        }
    }
    // A flag the head does not accept is the user's mistake, refused before any run.
    let typo = gpubench_output(&["ab", arg(&base), arg(&head), "--", "--stream-sise", "1MiB"]);
    assert_exit_saying(&typo, 2, &["--stream-sise"]);
}

/// A run flag the builds accept in `run -h` but refuse in a run (a value out of range) is a
/// usage error: exit 2, the run's own error quoted, and no empty results folder left behind.
#[test]
fn a_value_the_runs_refuse_is_a_usage_error_that_leaves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = format!(
        "#!/bin/sh\nif [ \"$2\" = -h ]; then exec '{}' run -h; fi\n\
         echo \"error: invalid value '0' for '--stream-size <SIZE>': must be at least 4KiB\" >&2\n\
         echo >&2\necho \"For more information, try '--help'.\" >&2\nexit 2\n",
        gpubench_path().display()
    );
    let refusing = write_script(&dir.path().join("refusing"), &script);
    let out = ab(dir.path(), &refusing, &refusing, &[]);
    assert_exit_saying(
        &out,
        2,
        &["refused the run flags", "error: invalid value '0'"],
    );
    assert!(!dir.path().join("out").exists(), "no results folder left");
}
