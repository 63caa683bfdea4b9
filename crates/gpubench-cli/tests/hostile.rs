//! The binary facing a careless or hostile user: outputs that are devices, FIFOs or an input
//! under another spelling, endless and oversized inputs, control bytes in ids, closed and
//! blocked stdout, signals after measuring, duplicate ids and suites. Each must end with the
//! documented exit code, one line on stderr, and no file lost or half-written. Most cases need
//! no GPU (they are refused before an adapter opens, or are file cases of `compare` and
//! `report`); the few real runs are quick stream runs on 64 KiB arrays.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use gpubench_baseline::testing::doc_with;

mod common;
use common::{
    arg, assert_exit, assert_exit_saying, assert_has, assert_has_all, assert_lacks,
    assert_status_reason, dir_with_fixture_runs, gpubench_command, gpubench_output, json_files,
    mkfifo, quick_stream_command, quick_stream_run, quick_suite_run, read_doc, result_with,
    send_signal, text, vulkan_temp_dir, wait_at_most, wait_until, write_doc,
};

/// Writes `bytes` to `dir/name`; its path.
fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

/// Asserts a usage error (exit 2) whose stderr contains `needle`, and no panic.
#[track_caller]
fn assert_usage(out: &Output, needle: &str) {
    assert_exit_saying(out, 2, &[needle]);
    assert_lacks(&text(&out.stderr), "panicked");
}

/// `gpubench compare BASE NEW --export-gab GAB`, run to its end.
fn compare_exporting_gab(base: &Path, new: &Path, gab: &str) -> Output {
    gpubench_output(&["compare", arg(base), arg(new), "--export-gab", gab])
}

/// Case 1: a device node or a FIFO is never replaced by a regular file.
#[cfg(unix)]
#[test]
fn outputs_that_are_not_regular_files_are_refused() {
    use std::os::unix::fs::FileTypeExt;
    let (dir, [input]) = dir_with_fixture_runs(["v.json"]);
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let out = gpubench_output(&["report", arg(&input), "--html", arg(&fifo)]);
    assert_usage(&out, "not a regular file");
    let out = gpubench_output(&["run", "--out", arg(&fifo), "--suite", "launch"]);
    assert_usage(&out, "not a regular file");
    let out = gpubench_output(&["run", "--html", "/dev/null", "--suite", "launch"]);
    assert_usage(&out, "--html /dev/null");
    let out = compare_exporting_gab(&input, &input, arg(&fifo));
    assert_usage(&out, "not a regular file");
    let kind = std::fs::symlink_metadata(&fifo)
        .expect("still there")
        .file_type();
    assert!(kind.is_fifo(), "the FIFO is still a FIFO");
}

/// Case 2: outputs are compared with inputs and with each other by identity, not spelling.
#[test]
fn an_output_may_not_be_an_input_or_another_output_under_any_spelling() {
    let (dir, [base, new]) = dir_with_fixture_runs(["base.json", "v.json"]);
    let before = std::fs::read(&new).expect("read");
    let dotted = dir.path().join(".").join("v.json");
    let out = gpubench_output(&["report", arg(&new), "--html", arg(&dotted)]);
    assert_usage(&out, "same file as input");
    let out = compare_exporting_gab(&base, &new, arg(&dotted));
    assert_usage(&out, "same file as input");
    let x = dir.path().join("x.json");
    let x_again = dir.path().join("sub").join("..").join("x.json");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    let out = gpubench_output(&["run", "--out", arg(&x), "--html", arg(&x_again)]);
    assert_usage(&out, "same file as --out");
    let out = gpubench_output(&["run", "--out", arg(&x), "--export-gab", arg(&x)]);
    assert_usage(&out, "same file as --out");
    let out = gpubench_output(&["run", "--out", arg(&new), "--baseline", arg(&dotted)]);
    assert_usage(&out, "same file as --baseline");
    assert_eq!(
        std::fs::read(&new).expect("read"),
        before,
        "input untouched"
    );
    assert!(!x.exists());
}

/// Case 4 (and 15, 16): a refusal found from the flags alone writes nothing, and an existing
/// results file stays as it was.
#[test]
fn refused_flags_write_nothing_and_keep_the_old_results_file() {
    let (dir, [keep]) = dir_with_fixture_runs(["keep.json"]);
    let before = std::fs::read(&keep).expect("read");
    // clap refuses what a value parser can see; the library names its options and the CLI the
    // flag that set each (--stream-size, --matmul-variant reach the library).
    let cases: [(&[&str], &str); 8] = [
        (
            &["--stream-size", "100"],
            "--stream-size 100 bytes (100B) must be at least 4KiB",
        ),
        (&["--samples", "1"], "--samples <N>': 1 is not in 2"),
        (
            &["--sample-ms", "0"],
            "'0' is not a positive number of milliseconds",
        ),
        (
            &["--suite", "matmul", "--matmul-variant", "bogus"],
            "--matmul-variant bogus: unknown variant",
        ),
        (&["--suite", "stream,stream"], "named twice"),
        (
            &["--suite", "launch,all"],
            "'all' names every suite and stands alone",
        ),
        (&["--backend", "nonsense"], "nonsense"),
        (
            &["--export-gab", "/nonexistent-gpubench-dir/g.json"],
            "--export-gab",
        ),
    ];
    for (flags, needle) in cases {
        let mut args = vec!["run", "--out", arg(&keep)];
        args.extend(flags);
        let out = gpubench_command()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .expect("runs");
        assert_usage(&out, needle);
        assert_eq!(std::fs::read(&keep).expect("read"), before, "{flags:?}");
    }
    // Without --out nothing is left behind either: no results directory, no empty stub.
    let out = gpubench_command()
        .args(["run", "--stream-size", "100", "--suite", "stream"])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    assert_usage(&out, "--stream-size");
    assert!(!dir.path().join("results").exists());
}

/// Case 14: a baseline directory that is a file is refused before the run.
#[test]
fn a_baseline_dir_that_is_a_file_is_refused_up_front() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = write_bytes(dir.path(), "bl", b"not a directory");
    let out_path = dir.path().join("r.json");
    let out = gpubench_output(&[
        "run",
        "--out",
        arg(&out_path),
        "--baseline-dir",
        arg(&file),
        "--save-baseline",
    ]);
    assert_usage(&out, "--baseline-dir");
    assert!(!out_path.exists());
}

/// Case 16: report and compare refuse a bad output path as run does: a usage error.
#[test]
fn a_bad_output_path_is_a_usage_error_in_every_subcommand() {
    let (_dir, [input]) = dir_with_fixture_runs(["v.json"]);
    let missing = "/nonexistent-gpubench-dir/x";
    let out = gpubench_output(&["report", arg(&input), "--html", missing]);
    assert_usage(&out, "does not exist");
    let out = compare_exporting_gab(&input, &input, missing);
    assert_usage(&out, "does not exist");
    let out = gpubench_output(&["run", "--out", missing]);
    assert_usage(&out, "does not exist");
}

/// Case 7: an endless input is refused before a byte of it is read: it is not a regular file.
#[cfg(unix)]
#[test]
fn an_endless_input_is_refused_without_reading_it() {
    let (_dir, [base]) = dir_with_fixture_runs(["base.json"]);
    let child = gpubench_command()
        .args(["compare", arg(&base), "/dev/zero"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = wait_at_most(child, Duration::from_secs(60));
    assert_exit_saying(&out, 1, &["/dev/zero", "not a regular file"]);
}

/// Case 16: a byte-order mark is skipped; case 14: a cause is said once.
#[test]
fn a_bom_is_accepted_and_an_io_error_is_said_once() {
    let (dir, [base]) = dir_with_fixture_runs(["base.json"]);
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(&base).expect("read"));
    let bom = write_bytes(dir.path(), "bom.json", &bytes);
    let out = gpubench_output(&["compare", arg(&base), arg(&bom)]);
    assert_exit(&out, 0);
    // A path through a file (not a directory, ENOTDIR): an I/O error naming its cause once.
    // (A directory is no error: it stands for the runs in it.)
    let through_file = base.join("inner.json");
    let out = gpubench_output(&["compare", arg(&base), arg(&through_file)]);
    assert_exit(&out, 1);
    let stderr = text(&out.stderr);
    let cause = std::io::Error::from_raw_os_error(20).to_string();
    assert_eq!(stderr.matches(&cause).count(), 1, "{stderr}");
}

/// Case 15: a file with one id twice is refused, naming the id.
#[test]
fn compare_refuses_duplicate_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = doc_with("NVIDIA Test", false);
    let base = write_doc(dir.path(), "base.json", &doc);
    let mut twice = doc.clone();
    twice.results.push(doc.results[0].clone());
    let dup = write_doc(dir.path(), "dup.json", &twice);
    let out = gpubench_output(&["compare", arg(&base), arg(&dup)]);
    assert_exit_saying(&out, 1, &[&doc.results[0].id, "appears 2 times"]);
}

/// Case 13: control bytes in ids and adapter names reach no terminal raw, in any text format.
#[test]
fn control_bytes_in_ids_and_names_are_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut doc = doc_with("evil\x1b]0;title\x07\x1b[2J\r\0name", false);
    doc.results[0].id = "stream/\x1b[2Jcopy\r\0".to_string();
    let base = write_doc(dir.path(), "base.json", &doc);
    let third = write_doc(dir.path(), "third.json", &doc);
    for format in ["table", "md", "csv"] {
        for files in [vec![&base, &base], vec![&base, &base, &third]] {
            let mut args = vec!["compare", "--format", format];
            args.extend(files.iter().map(|p| arg(p)));
            let out = gpubench_output(&args);
            assert_exit(&out, 0);
            let stdout = text(&out.stdout);
            assert!(
                !stdout.contains(['\x1b', '\r', '\0', '\x07']),
                "{format}: {stdout:?}"
            );
            assert!(stdout.contains("\\u{1b}"), "{format}: {stdout}");
        }
    }
}

/// Case 13: what gpubench says on stderr goes through the terminal's one rule too: a file name
/// with escape sequences is shown escaped; Markdown and HTML keep a hostile id as text.
#[cfg(unix)]
#[test]
fn control_bytes_and_markup_reach_no_terminal_page_or_comment_raw() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_bytes(dir.path(), "x\x1b[2J\u{202e}.json", b"[]");
    let mut doc = doc_with("NVIDIA Test", false);
    doc.results[0].id =
        "stream/<img src=x onerror=alert(1)>[x](javascript:alert(1))\0\u{202e}".into();
    let base = write_doc(dir.path(), "base.json", &doc);
    let out = gpubench_output(&["compare", arg(dir.path()), "--format", "md"]);
    let stderr = text(&out.stderr);
    assert_has(&stderr, "passed over");
    assert!(!stderr.contains(['\x1b', '\u{202e}']), "{stderr:?}");
    let md = gpubench_output(&["compare", arg(&base), arg(&base), "--format", "md"]);
    let md = text(&md.stdout);
    assert_lacks(&md, "<img");
    assert_lacks(&md, "[x](");
    assert_has_all(&md, &["&lt;img", "\\[x\\]"]);
    let html = dir.path().join("r.html");
    let page = gpubench_output(&["report", arg(&base), "--html", arg(&html)]);
    assert_exit(&page, 0);
    let page = std::fs::read_to_string(&html).expect("page");
    assert!(
        !page.contains(['\0', '\u{202e}']) && !page.contains("<img src=x"),
        "raw bytes in the page"
    );
}

/// `show`'s per-run headings name files: a name with an escape sequence, a line break or markup
/// reaches neither the terminal nor a Markdown comment raw.
#[test]
fn file_names_in_shows_headings_are_shown_literally() {
    let (_dir, [a, b]) = dir_with_fixture_runs([
        "a\x1b[2J\n== forged ==.json",
        "<img src=x onerror=alert(1)>.json",
    ]);
    let table = gpubench_output(&["show", arg(&a), arg(&b)]);
    assert_exit(&table, 0);
    let table = text(&table.stdout);
    assert!(!table.contains('\x1b'), "{table:?}");
    assert!(
        !table.contains("\n== forged"),
        "a name is one heading line: {table}"
    );
    let md = gpubench_output(&["show", arg(&a), arg(&b), "--format", "md"]);
    let md = text(&md.stdout);
    assert!(!md.contains("<img") && md.contains("&lt;img"), "{md}");
    assert!(!md.contains('\x1b'), "{md:?}");
}

/// Cases 5 and 16: values near the top of f64 print in exponent form and chart in bounded time.
#[test]
fn the_largest_finite_values_print_short_and_chart_quickly() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut doc = doc_with("NVIDIA Test", false);
    for result in &mut doc.results {
        result.samples = vec![1.7e308; 5];
        if let Some(summary) = &mut result.summary {
            summary.median = 1.7e308;
            summary.ci_low = 1.7e308;
            summary.ci_high = 1.7e308;
        }
    }
    let big = write_doc(dir.path(), "big.json", &doc);
    let html = dir.path().join("x.html");
    let child = gpubench_command()
        .args(["report", arg(&big), "--html", arg(&html)])
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = wait_at_most(child, Duration::from_secs(60));
    assert_exit(&out, 0);
    assert!(html.exists());
    let out = gpubench_output(&["compare", arg(&big), arg(&big), "--format", "table"]);
    let stdout = text(&out.stdout);
    assert_lacks(&stdout, "0000000000");
}

/// Case 8: a results file with millions of samples in one result compares in seconds, not
/// minutes (the bootstrap draws from a bounded, evenly strided subset).
#[test]
fn millions_of_samples_compare_in_bounded_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut doc = doc_with("NVIDIA Test", false);
    doc.results.truncate(1);
    doc.results[0].samples = (0..3_000_000)
        .map(|i| 100.0 + f64::from(i % 1000) * 1e-3)
        .collect();
    let huge = write_doc(dir.path(), "huge.json", &doc);
    let child = gpubench_command()
        .args(["compare", arg(&huge), arg(&huge)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Unbounded, this took well over a minute on a 2-core host; bounded, a few seconds.
    let out = wait_at_most(child, Duration::from_secs(45));
    assert_exit(&out, 0);
    assert_has(&text(&out.stdout), "unchanged");
}

/// A pipe whose reader is already gone: every write to it fails with EPIPE.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    writer
}

/// Case 6: a closed stdout ends quietly with 141 in every subcommand that prints.
#[test]
fn a_closed_stdout_ends_quietly_with_141() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = doc_with("NVIDIA Test", false);
    let base = write_doc(dir.path(), "base.json", &doc);
    let gab = dir.path().join("g.json");
    let compare = ["compare", arg(&base), arg(&base), "--export-gab", arg(&gab)];
    let help_and_version = [&["--help"][..], &["--version"][..], &["run", "--help"][..]];
    for args in [&["list"][..], &["list", "--json"][..], &compare[..]]
        .into_iter()
        .chain(help_and_version)
    {
        let out = gpubench_command()
            .args(args)
            .stdout(closed_pipe())
            .output()
            .expect("runs");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert_lacks(&stderr, "panicked");
    }
    assert!(gab.exists(), "the export is written before stdout");
    // With stderr closed too, the messages nobody can read stop nothing; and a regression
    // keeps its own exit, which a closed stdout never hides.
    let slow = write_doc(
        dir.path(),
        "slow.json",
        &gpubench_baseline::testing::scaled(&doc, 1.3),
    );
    let html = dir.path().join("r.html");
    let cases: [(&[&str], i32); 2] = [
        (&["compare", arg(&base), arg(&slow)], 3),
        (&["report", arg(&base), "--html", arg(&html)], 0),
    ];
    for (args, code) in cases {
        let out = gpubench_command()
            .args(args)
            .stdout(closed_pipe())
            .stderr(closed_pipe())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
    assert!(html.exists());
}

/// Case 6 in `run`: with stdout and stderr closed, the HTML, the export and the baseline are still written.
#[test]
fn a_run_with_a_closed_stdout_still_writes_every_file() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let (html, gab, bl) = (
        dir.path().join("r.html"),
        dir.path().join("g.json"),
        dir.path().join("bl"),
    );
    let flags = [
        "--html",
        arg(&html),
        "--export-gab",
        arg(&gab),
        "--baseline-dir",
        arg(&bl),
        "--save-baseline",
        "--force",
    ];
    // Stderr closed as well (`2>&1 | head`): its messages must not stop the work either.
    let output = quick_stream_command(&out, "64KiB", &flags)
        .stdout(closed_pipe())
        .stderr(closed_pipe())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(141));
    assert!(html.exists() && gab.exists());
    assert_eq!(json_files(&bl).len(), 1);
    assert_eq!(read_doc(&out)["complete"], true);
    // A closed stdout never hides a failure: the run still exits 4.
    let broken = dir.path().join("broken.json");
    let output = quick_stream_command(&broken, "64KiB", &["--inject-fault", "wrong-output"])
        .stdout(closed_pipe())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(4), "{}", text(&output.stderr));
}

/// Case 3 and 14: `--out` onto the adapter's stored baseline is refused before the run, and a
/// corrupt stored baseline is found before the run, not after it.
#[test]
fn the_stored_baseline_is_neither_an_output_nor_read_too_late() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let bl = dir.path().join("bl");
    let first = quick_stream_run(
        &dir.path().join("first.json"),
        "64KiB",
        &["--baseline-dir", arg(&bl), "--save-baseline", "--force"],
    );
    assert_exit(&first, 0);
    // The baseline, not the lock file beside it: the directory's order is the filesystem's.
    let [stored] = json_files(&bl).try_into().expect("one baseline");
    let before = std::fs::read(&stored).expect("read");

    let out = quick_stream_run(&stored, "64KiB", &["--baseline-dir", arg(&bl)]);
    assert_usage(&out, "same file as --out");
    assert_eq!(
        std::fs::read(&stored).expect("read"),
        before,
        "baseline untouched"
    );

    std::fs::write(&stored, b"{\"schema_version\": 1").expect("corrupt it");
    let later = dir.path().join("later.json");
    let out = quick_stream_run(&later, "64KiB", &["--baseline-dir", arg(&bl)]);
    assert_exit_saying(&out, 1, &["stored baseline"]);
    assert!(!later.exists(), "refused before the run");
}

/// Case 11: a signal while stdout is blocked (a pipe nobody reads) after measuring still means
/// exit 130 and no baseline, promptly.
#[cfg(unix)]
#[test]
fn a_signal_while_stdout_is_blocked_means_no_baseline() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let bl = dir.path().join("bl");
    let (reader, writer) = std::io::pipe().expect("pipe");
    // Fill the pipe so the run's first write to stdout blocks: a thread writes more than any
    // pipe holds and stays blocked (it ends with the test).
    let mut filler = writer.try_clone().expect("clone");
    std::thread::spawn(move || filler.write_all(&vec![b'x'; 16 << 20]));
    std::thread::sleep(Duration::from_millis(300));
    let saving = ["--baseline-dir", arg(&bl), "--save-baseline", "--force"];
    let child = quick_stream_command(&out, "64KiB", &saving)
        .stdout(writer.try_clone().expect("clone"))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    wait_until(Duration::from_secs(120), "run never finished", || {
        out.exists() && read_doc(&out)["complete"] == true
    });
    std::thread::sleep(Duration::from_millis(500));
    let signalled = Instant::now();
    send_signal(&child, "-INT");
    let output = wait_at_most(child, Duration::from_secs(10));
    assert!(signalled.elapsed() < Duration::from_secs(3));
    assert_exit(&output, 130);
    assert!(!bl.exists() || std::fs::read_dir(&bl).expect("dir").count() == 0);
    drop(reader);
}

/// A quick run of `suite` with `flags` ends well (exit 0) and skips the result with `id_part` in
/// its id, with `words` in its reason.
fn assert_a_quick_run_skips(suite: &str, flags: &[&str], id_part: &str, words: &str) {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let output = quick_suite_run(suite, &out, flags);
    assert_exit(&output, 0);
    let skipped = result_with(&read_doc(&out), id_part);
    assert_status_reason(&skipped, "skipped", words);
}

/// Case 9: arrays over the adapter's largest buffer are refused before anything runs (every
/// stream row would be skipped), naming the flag, the size and the limit; no file is written.
#[test]
fn a_stream_size_over_the_adapters_limits_is_refused_up_front() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let output = quick_suite_run("stream", &out, &["--stream-size", "64GiB"]);
    let words = [
        "--stream-size 64GiB: no stream row can run",
        "exceeds max_buffer_size",
    ];
    assert_exit_saying(&output, 2, &words);
    assert!(!out.exists(), "nothing ran");
}

/// Case 12: a capacity cap below one chunk is a skip with its reason, not a failure (exit 0).
#[test]
fn a_capacity_cap_below_one_chunk_is_a_skip() {
    let flags = ["--capacity-cap", "4KiB"];
    assert_a_quick_run_skips(
        "capacity",
        &flags,
        "total-allocation",
        "capacity cap (`capacity_cap`) of 4KiB",
    );
}
