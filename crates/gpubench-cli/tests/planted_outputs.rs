//! A symlink and a FIFO planted under every name gpubench writes: each command refuses the
//! destination before any work (exit 2), leaves the link and the file it points to as they
//! were, never opens the FIFO (so nothing hangs), and writes none of its other outputs. The
//! names: a run's results file and its `-runK` siblings, every export (and the
//! github-action-benchmark `-smaller.json` beside one), the HTML page, `kernels --json` and
//! `--summary`, and the man pages. Needs no adapter: every refusal comes before one opens.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use gpubench_baseline::testing::doc_with;

mod common;
use common::{arg, gpubench_command, mkfifo, text, wait_at_most, write_doc};

/// What a planted link points to: a file whose bytes must survive.
const VICTIM: &[u8] = b"the victim's own bytes\n";

/// A command and the destination (inside the output directory) it writes.
struct Case {
    what: &'static str,
    args: Vec<String>,
    planted: PathBuf,
}

/// Every writing command, each with the name planted in `out` and the input it reads.
fn cases(input: &Path, out: &Path) -> Vec<Case> {
    let s = |p: &Path| arg(p).to_string();
    let path = |name: &str| out.join(name);
    let case = |what: &'static str, args: &[&str], planted: &str| Case {
        what,
        args: args.iter().map(|a| a.to_string()).collect(),
        planted: path(planted),
    };
    let (input, out_dir) = (s(input), s(out));
    let (baselines, run_out, gab) = (
        s(&path("baselines")),
        s(&path("r.json")),
        s(&path("gab.json")),
    );
    let mut cases = vec![
        case(
            "run --out",
            &["run", "--suite", "launch", "--out"],
            "r.json",
        ),
        case(
            "run --runs 2: the second run's file",
            &[
                "run",
                "--suite",
                "launch",
                "--runs",
                "2",
                "--save-baseline",
                "--baseline-dir",
                &baselines,
                "--out",
                &run_out,
            ],
            "r-run2.json",
        ),
        case("report --html", &["report", &input, "--html"], "page.html"),
        case(
            "kernels --json",
            &["kernels", "--isa", "gfx1100", "--json"],
            "kernels.json",
        ),
        case(
            "kernels --summary",
            &["kernels", "--isa", "gfx1100", "--summary"],
            "kernels.md",
        ),
        case("man --dir", &["man", "--dir", &out_dir], "gpubench-run.1"),
        case(
            "compare --export-gab: the smaller-is-better file",
            &["compare", &input, &input, "--export-gab", &gab],
            "gab-smaller.json",
        ),
    ];
    for export in ["json", "csv", "md", "bmf", "gab"] {
        let flag = format!("--export-{export}");
        for args in [
            &["run", "--suite", "launch"][..],
            &["show", &input],
            &["compare", &input, &input],
        ] {
            let command = args[0];
            let what = Box::leak(format!("{command} {flag}").into_boxed_str());
            let args: Vec<&str> = args.iter().copied().chain([flag.as_str()]).collect();
            cases.push(case(what, &args, &format!("{command}.{export}")));
        }
    }
    cases
}

/// Runs `case` with `planted` in place; the command must refuse it with exit 2, naming it,
/// and write nothing into `out` beside what was there.
fn assert_refused(case: &Case, out: &Path, kind: &str) {
    let before = listing(out);
    let mut args = case.args.clone();
    // The destination goes last unless the command names it itself (a directory, a sibling).
    let named = args.iter().any(|a| Path::new(a) == case.planted)
        || case.what.starts_with("man")
        || case.what.contains("runs 2")
        || case.what.contains("smaller");
    if !named {
        args.push(arg(&case.planted).to_string());
    }
    let child = gpubench_command()
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let output = wait_at_most(child, Duration::from_secs(60));
    let stderr = text(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{} with a {kind} planted: {stderr}",
        case.what
    );
    let name = case.planted.file_name().expect("name").to_string_lossy();
    assert!(
        stderr.contains(name.as_ref()),
        "{}: the refusal names {name}: {stderr}",
        case.what
    );
    assert_eq!(
        listing(out),
        before,
        "{}: wrote beside the {kind}",
        case.what
    );
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_link_or_a_fifo_under_any_name_gpubench_writes_is_refused_and_left_alone() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let input = write_doc(dir.path(), "in.json", &doc_with("NVIDIA Test", false));
    let victim = dir.path().join("victim");
    std::fs::write(&victim, VICTIM).expect("victim");
    for case in cases(&input, &dir.path().join("out")) {
        let out = dir.path().join("out");
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir(&out).expect("out dir");
        std::os::unix::fs::symlink(&victim, &case.planted).expect("link");
        assert_refused(&case, &out, "symlink");
        let link = std::fs::symlink_metadata(&case.planted).expect("link kept");
        assert!(
            link.file_type().is_symlink(),
            "{}: link replaced",
            case.what
        );
        assert_eq!(
            std::fs::read(&victim).expect("victim"),
            VICTIM,
            "{}",
            case.what
        );

        std::fs::remove_file(&case.planted).expect("unlink");
        mkfifo(&case.planted);
        assert_refused(&case, &out, "FIFO");
        let fifo = std::fs::symlink_metadata(&case.planted).expect("FIFO kept");
        assert!(fifo.file_type().is_fifo(), "{}: FIFO replaced", case.what);
    }
}
