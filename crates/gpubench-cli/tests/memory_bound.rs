//! Memory is bounded per command, not only per file: comparing a file of many small results
//! with itself (the largest input `compare` takes is two files at the 256 MiB cap) peaks within
//! a few times the inputs' size. Each input is read in one typed pass, the documents are
//! dropped once compared, and the terminal table is drawn in slices; before those, a 245 MB
//! file compared with itself peaked at 4.8 GB. Alone in its test binary: the peak is read from
//! `getrusage(RUSAGE_CHILDREN)`, the largest child this process has waited for.

#![cfg(target_os = "linux")]

use std::io::Write as _;

mod common;
use common::{arg, assert_exit, assert_has, gpubench_output, text};

/// Results in the file: about 64 MiB of them, at about 350 bytes each.
const RESULTS: usize = 190_000;

/// Writes a schema-3 results file of `RESULTS` small results, built as text (a document of
/// this size built as a value would cost the test several times the file).
fn write_many_results(path: &std::path::Path) -> u64 {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpubench-report/tests/fixtures/lavapipe-quick.json");
    let mut head: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture).expect("fixture")).expect("JSON");
    head["schema_version"] = 3.into();
    head["results"] = serde_json::Value::Array(Vec::new());
    let head = serde_json::to_string(&head).expect("JSON");
    let (before, after) = head.split_at(head.find("\"results\":[]").expect("results") + 11);
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    file.write_all(before.as_bytes()).expect("write");
    for i in 0..RESULTS {
        let comma = if i == 0 { "" } else { "," };
        write!(
            file,
            "{comma}{{\"id\":\"s/k/{i}\",\"suite\":\"s\",\"metric\":\"throughput\",\"unit\":\"GB/s\",\
             \"higher_is_better\":true,\"status\":\"ok\",\"verified\":true,\"work\":{{\"bytes_read\":0,\
             \"bytes_written\":0,\"flops\":0,\"ops\":0}},\"iterations_per_sample\":1,\"summary\":{{\
             \"median\":1.0,\"mean\":1.0,\"min\":1.0,\"max\":1.0,\"stddev\":0.0,\"cv\":0.0,\"p5\":1.0,\
             \"p95\":1.0,\"ci_low\":1.0,\"ci_high\":1.0,\"n\":1,\"outliers\":0}}}}"
        )
        .expect("write");
    }
    file.write_all(after.as_bytes()).expect("write");
    file.flush().expect("flush");
    std::fs::metadata(path).expect("written").len()
}

/// The largest resident size of any child waited for so far, in bytes.
fn children_peak_bytes() -> u64 {
    // SAFETY: getrusage writes into the struct it is given and reads nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    u64::try_from(usage.ru_maxrss).expect("a size") * 1024
}

#[test]
fn comparing_a_large_file_with_itself_peaks_within_a_few_times_its_size() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("many.json");
    let bytes = write_many_results(&path);
    assert!(bytes > 60 << 20, "{bytes} bytes");
    let out = gpubench_output(&["compare", arg(&path), arg(&path), "--no-fail"]);
    assert_exit(&out, 0);
    assert_has(&text(&out.stdout), &format!("s/k/{}", RESULTS - 1));
    let peak = children_peak_bytes();
    // Two inputs read: measured about 3x their total; 4.8 GB for 2 x 245 MB before (10x).
    let bound = 4 * 2 * bytes + (64 << 20);
    assert!(
        peak < bound,
        "compare peaked at {} MiB for two {} MiB inputs (bound {} MiB)",
        peak >> 20,
        bytes >> 20,
        bound >> 20
    );
}
