//! Faults as an unattended user meets them: a device lost mid-run, a signal while sampling,
//! a benchmark over the adapter's limits. Each must end cleanly, keep every finished result in a
//! valid file, and say so in the exit code.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{
    assert_exit, assert_has, assert_lacks, assert_status_reason, gpubench_command, json_files,
    quick_stream_command, quick_stream_run, read_doc, result_with, result_with_id, results_written,
    send_signal, temporary_files, vulkan_temp_dir, wait_until,
};

/// A quick stream run on 64 KiB arrays with the named faults injected after the suites.
fn run_with_faults(out: &Path, faults: &[&str]) -> Output {
    let flags: Vec<&str> = faults.iter().flat_map(|f| ["--inject-fault", f]).collect();
    quick_stream_run(out, "64KiB", &flags)
}

/// The results file of a run with `faults` injected (see [`run_with_faults`]), once the run
/// has exited with `code`; `None` where GPU tests are not to run (see `vulkan_temp_dir`).
fn faulted_run_document(faults: &[&str], code: i32) -> Option<Value> {
    let dir = vulkan_temp_dir()?;
    let out = dir.path().join("r.json");
    let output = run_with_faults(&out, faults);
    assert_exit(&output, code);
    Some(read_doc(&out))
}

/// Starts `command` with stdout dropped and stderr kept for the test to read.
#[cfg(unix)]
fn start_quietly(command: &mut Command) -> Child {
    command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

#[test]
fn device_lost_mid_run_keeps_results_and_exits_4() {
    // Faults run after the suites: lose the device, then one more fault that cannot run.
    let Some(doc) = faulted_run_document(&["device-lost", "wrong-output"], 4) else {
        return;
    };
    let results = doc["results"].as_array().expect("results");
    let ok = results.iter().filter(|r| r["status"] == "ok").count();
    assert_eq!(
        ok, 8,
        "every stream result measured before the loss is kept"
    );
    let lost = result_with_id(&doc, "selftest/device-lost");
    assert_status_reason(&lost, "failed", "device lost");
    let after = results.last().expect("a result after the loss");
    assert_status_reason(after, "skipped", "device was lost");
}

#[test]
fn a_benchmark_over_the_limit_is_skipped_and_the_run_goes_on() {
    // The GPU error fails its benchmark (exit 4); the over-limit one is only skipped.
    let Some(doc) = faulted_run_document(&["over-limit", "gpu-error"], 4) else {
        return;
    };
    let over = result_with_id(&doc, "selftest/over-limit");
    assert_status_reason(&over, "skipped", "max_buffer_size");
    let gpu = result_with_id(&doc, "selftest/gpu-error");
    assert_eq!(gpu["status"], "failed");
    assert_eq!(doc["complete"], true);
}

#[test]
fn timed_batches_a_driver_dropped_fail_the_row() {
    // The copy is dispatched in its first run only: its output is right when first checked,
    // and the check after the samples must still fail it (the run exits 4).
    let Some(doc) = faulted_run_document(&["dropped-work"], 4) else {
        return;
    };
    let dropped = result_with(&doc, "selftest/dropped-work/");
    assert_status_reason(&dropped, "failed", "wrong after the timed samples");
    assert!(dropped["summary"].is_null(), "no figure: {dropped}");
}

/// Sends `signal` to `child` and waits for it to exit, failing unless it does so within
/// `limit` (the message says `took … after {what}`); its output.
#[cfg(unix)]
fn signal_and_wait_within(child: Child, signal: &str, limit: Duration, what: &str) -> Output {
    send_signal(&child, signal);
    let sent = Instant::now();
    let output = child.wait_with_output().expect("exits");
    assert!(
        sent.elapsed() < limit,
        "took {:?} after {what}",
        sent.elapsed()
    );
    output
}

/// Every command but a run and an A/B comparison (which stop between samples and keep what they
/// measured) ends at the first signal with the shell's code, removing the temporary file of any
/// write in progress: `doctor`, which loads the adapter for two seconds, is signalled a second
/// after it starts. Killed the default way it would have no exit code at all.
#[cfg(unix)]
#[test]
fn a_signal_ends_any_other_command_with_the_shells_code() {
    for (signal, code) in [("-TERM", 143), ("-INT", 130)] {
        let Some(_dir) = vulkan_temp_dir() else {
            return;
        };
        let child = start_quietly(gpubench_command().args(["doctor", "--backend", "vulkan"]));
        std::thread::sleep(Duration::from_secs(1));
        let output = signal_and_wait_within(child, signal, Duration::from_secs(2), signal);
        assert_exit(&output, code);
    }
}

#[cfg(unix)]
fn interrupt_with(signal: &str, expected_code: i32) {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    // Many samples and a 1 s cap: each benchmark samples for about 2 s, so the signal lands
    // while sampling the second one.
    let flags = ["--samples", "100000", "--max-time", "1"];
    let child = start_quietly(&mut quick_stream_command(&out, "64KiB", &flags));
    wait_until(
        Duration::from_secs(60),
        "no result was finished in time",
        || results_written(&out) >= 1,
    );
    send_signal(&child, signal);
    let output = child.wait_with_output().expect("exits");
    assert_exit(&output, expected_code);
    let doc = read_doc(&out);
    assert_eq!(
        doc["complete"], false,
        "an interrupted run is marked incomplete"
    );
    let results = doc["results"].as_array().expect("results");
    assert!(!results.is_empty(), "finished results are kept");
    assert!(
        results.iter().all(|r| r["status"] == "ok"),
        "the cut-short benchmark is not recorded"
    );
    assert_has(&String::from_utf8_lossy(&output.stderr), "interrupted");
}

#[cfg(unix)]
#[test]
fn sigint_keeps_finished_results_and_exits_130() {
    interrupt_with("-INT", 130);
}

#[cfg(unix)]
#[test]
fn sigterm_keeps_finished_results_and_exits_143() {
    interrupt_with("-TERM", 143);
}

/// A signal during the second run of `--runs 2` keeps that run's finished results, records no
/// baseline, and names the first run's file, which stands as it was written.
#[cfg(unix)]
#[test]
fn a_signal_in_a_later_run_of_a_set_names_the_runs_that_finished() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let run = |k: u32| dir.path().join(format!("r-run{k}.json"));
    let (first, second) = (run(1), run(2));
    let baselines = dir.path().join("baselines");
    // Half a second of samples a benchmark: run 2 is still measuring when the signal lands.
    let flags = [
        "--save-baseline",
        "--runs",
        "2",
        "--baseline-dir",
        baselines.to_str().expect("utf-8"),
        "--samples",
        "100000",
        "--max-time",
        "0.5",
    ];
    let out = dir.path().join("r.json");
    let child = start_quietly(&mut quick_stream_command(&out, "64KiB", &flags));
    wait_until(
        Duration::from_secs(120),
        "the second run never finished a result",
        || results_written(&second) >= 1,
    );
    send_signal(&child, "-INT");
    let output = child.wait_with_output().expect("exits");
    assert_exit(&output, 130);
    assert_eq!(read_doc(&first)["complete"], true);
    assert_eq!(read_doc(&second)["complete"], false);
    let said = format!(
        "the runs that finished before it are kept in {}; none was recorded",
        first.display()
    );
    assert_has(&String::from_utf8_lossy(&output.stderr), &said);
    assert!(!baselines.exists() || json_files(&baselines).is_empty());
}

/// Samples of 1 s (the longest allowed), and at least 4 s of them before a result: a run
/// signalled in its first seconds has no result yet.
const LONG_SAMPLES: [&str; 6] = [
    "--sample-ms",
    "1000",
    "--samples",
    "100000",
    "--max-time",
    "4",
];

/// A second SIGINT while the first waits for a 1 s sample to end stops the process at once, with
/// the same code; the results file on disk is whole (it is only ever replaced by a rename).
#[cfg(unix)]
#[test]
fn a_second_signal_ends_the_run_at_once() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let child = start_quietly(&mut quick_stream_command(&out, "16MiB", &LONG_SAMPLES));
    // Into the sampling of the first benchmark: calibration is over after a few seconds.
    std::thread::sleep(Duration::from_secs(5));
    send_signal(&child, "-INT");
    std::thread::sleep(Duration::from_millis(100));
    // One signal waits for the sample in flight (up to 1 s) and then writes and reports.
    let limit = Duration::from_millis(900);
    let output = signal_and_wait_within(child, "-INT", limit, "the second signal");
    assert_exit(&output, 130);
    if out.exists() {
        read_doc(&out);
    }
    assert_eq!(temporary_files(dir.path()), Vec::<PathBuf>::new());
}

/// A signal before the first result leaves the file `--out` names as it was: a run with
/// nothing measured replaces nothing.
#[cfg(unix)]
#[test]
fn a_signal_before_the_first_result_keeps_the_file_out_names() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("r.json");
    let earlier = "an earlier run's results";
    std::fs::write(&out, earlier).expect("write the earlier file");
    // The first result is 4 s of sampling away at the least.
    let child = start_quietly(&mut quick_stream_command(&out, "16MiB", &LONG_SAMPLES));
    std::thread::sleep(Duration::from_millis(1500));
    send_signal(&child, "-INT");
    let output = child.wait_with_output().expect("exits");
    assert_exit(&output, 130);
    let kept = std::fs::read_to_string(&out).expect("the file is still there");
    assert_eq!(kept, earlier);
    assert_has(&String::from_utf8_lossy(&output.stderr), "kept as it was");
    assert_eq!(temporary_files(dir.path()), Vec::<PathBuf>::new());
}

/// Starts a quick 64 KiB stream run with `fault` injected after it, and waits until the stream
/// results are in the file and the fault's benchmark has had a second to start stalling.
#[cfg(unix)]
fn stalled_run(out: &Path, fault: &str) -> Child {
    let flags = ["--inject-fault", fault];
    let child = start_quietly(&mut quick_stream_command(out, "64KiB", &flags));
    wait_until(
        Duration::from_secs(120),
        "the stream results never came",
        || results_written(out) >= 8,
    );
    std::thread::sleep(Duration::from_secs(2));
    child
}

/// Sends `signal` to a run stalled by `fault` and checks that it ended within 3 s with
/// `code`, its file holding the 8 stream results, marked incomplete; its stderr.
#[cfg(unix)]
fn signal_a_stalled_run(fault: &str, signal: &str, code: i32) -> String {
    let Some(dir) = vulkan_temp_dir() else {
        return String::new();
    };
    let out = dir.path().join("r.json");
    let child = stalled_run(&out, fault);
    let what = format!("the signal to a run stalled by {fault}");
    let output = signal_and_wait_within(child, signal, Duration::from_secs(3), &what);
    assert_exit(&output, code);
    let doc = read_doc(&out);
    assert_eq!(doc["complete"], false);
    assert_eq!(doc["results"].as_array().map(Vec::len), Some(8));
    assert_eq!(temporary_files(dir.path()), Vec::<PathBuf>::new());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// One signal during a dispatch that would run for an hour ends the run within 3 s, by the
/// run's own path (the wait for the GPU gives up, the file is written and the run says what
/// it kept), not by the watchdog.
#[cfg(unix)]
#[test]
fn one_signal_ends_a_wait_for_an_endless_dispatch() {
    let stderr = signal_a_stalled_run("stall-gpu", "-INT", 130);
    assert_has(&stderr, "8 finished results kept");
    assert_lacks(&stderr, "did not stop within");
}

/// One signal while the host is busy with work that never looks at the flag (a minute's
/// stall) still ends the process within 3 s: the watchdog says so and exits 143, and the file
/// on disk holds every result finished before, marked incomplete.
#[cfg(unix)]
#[test]
fn one_signal_ends_the_process_while_the_host_is_busy() {
    let stderr = signal_a_stalled_run("stall-host", "-TERM", 143);
    assert_has(&stderr, "did not stop within 2 s");
}
