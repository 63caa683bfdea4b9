//! The result reader facing hostile input: arbitrary bytes, mutated valid files, absurd sizes,
//! deep nesting; and the writer facing concurrent writers. No panic, every rejection a one-line
//! error, bounded time and memory.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use gpubench_harness::Role;
use gpubench_results::results_file::{
    MAX_DOCUMENT_BYTES, load_document, parse_document, write_atomic,
};
use proptest::prelude::*;

/// A small valid result document, as the tool writes it.
const VALID: &str = r#"{
  "schema_version": 1,
  "tool": { "name": "gpubench", "version": "0.1.0", "git_commit": null },
  "machine": {
    "adapter": { "index": 0, "name": "llvmpipe", "vendor_id": 65541, "device_id": 0,
      "device_type": "cpu", "driver": "llvmpipe", "driver_info": "Mesa", "backend": "vulkan",
      "software": true, "limits": { "max_buffer_size": 2147483647 }, "features": ["TIMESTAMP_QUERY"] },
    "software_adapter": true, "features_enabled": [], "os": "linux", "cpu_model": "cpu",
    "cpu_count": 2, "wgpu_version": "30.0.2", "build_profile": "release",
    "instance_flags": "InstanceFlags(0x0)", "timing_source": "gpu-timestamp",
    "timestamp_period_ns": 1.0, "fingerprint": "vulkan-10005-0000-llvmpipe"
  },
  "config": { "profile": "quick", "suites": ["stream"], "settings": {
      "target_sample": 10.0, "max_sample": 100.0, "warmup": 20.0, "min_warmup_samples": 2,
      "min_samples": 5, "max_samples": 12, "target_cv": 0.05, "max_time": 1500.0, "seed": 24301 } },
  "started_at": "2026-11-29T16:00:00Z", "finished_at": "2026-11-29T16:01:00Z", "complete": true,
  "warnings": [],
  "results": [ { "id": "stream/copy/vec4-f32/16MiB", "suite": "stream", "metric": "bandwidth",
    "unit": "GB/s", "higher_is_better": true, "status": "ok", "verified": true,
    "timing": "gpu-timestamp",
    "work": { "bytes_read": 16777216, "bytes_written": 16777216, "flops": 0, "ops": 1 },
    "iterations_per_sample": 2,
    "summary": { "median": 7.0, "mean": 7.1, "min": 6.5, "max": 7.9, "stddev": 0.3, "cv": 0.04,
      "p5": 6.6, "p95": 7.8, "ci_low": 6.9, "ci_high": 7.2, "n": 5, "outliers": 0 },
    "samples": [6.5, 7.0, 7.1, 7.0, 7.9] } ]
}"#;

#[test]
fn the_valid_fixture_parses() {
    let doc = parse_document(VALID.as_bytes()).expect("valid");
    assert_eq!(doc.results.len(), 1);
}

#[test]
fn results_written_before_roles_get_the_role_their_id_had() {
    let doc = parse_document(VALID.as_bytes()).expect("valid");
    assert_eq!(doc.results[0].role, Role::Kernel);
    let memcpy = VALID.replacen(
        "stream/copy/vec4-f32/16MiB",
        "stream/host-memcpy/bytes/16MiB",
        1,
    );
    let doc = parse_document(memcpy.as_bytes()).expect("valid");
    assert_eq!(doc.results[0].role, Role::HostReference);
    // A role the file states is kept, whatever the id says.
    let stated = memcpy.replacen(
        "\"suite\": \"stream\",",
        "\"suite\": \"stream\", \"role\": \"kernel\",",
        1,
    );
    let doc = parse_document(stated.as_bytes()).expect("valid");
    assert_eq!(doc.results[0].role, Role::Kernel);
}

#[test]
fn unknown_fields_are_ignored() {
    let with_extra = VALID.replacen(
        "\"complete\": true,",
        "\"complete\": true, \"future_field\": {\"x\": 1},",
        1,
    );
    assert!(parse_document(with_extra.as_bytes()).is_ok());
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!(
        "{{\"schema_version\": 1, \"x\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = parse_document(deep.as_bytes()).expect_err("rejected");
    assert!(!err.contains('\n'));
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_parsing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("huge.json");
    let file = std::fs::File::create(&path).expect("create");
    // Sparse: no disk space used, and the reader must not try to read it.
    file.set_len(MAX_DOCUMENT_BYTES + 1).expect("set_len");
    let started = std::time::Instant::now();
    let err = load_document(&path).expect_err("refused").to_string();
    assert!(err.contains("limit"), "{err}");
    assert!(err.contains("huge.json"), "the error names the file: {err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn concurrent_writers_leave_one_whole_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = Arc::new(dir.path().join("baseline.json"));
    let payloads: Vec<Vec<u8>> = (0..4u8).map(|w| vec![b'a' + w; 256 * 1024]).collect();
    write_atomic(&path, &payloads[0]).expect("first write");
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (path, done, payloads) = (Arc::clone(&path), Arc::clone(&done), payloads.clone());
        std::thread::spawn(move || {
            let mut reads = 0;
            while !done.load(Ordering::SeqCst) {
                let bytes = std::fs::read(&*path).expect("the file always exists");
                assert!(
                    payloads.contains(&bytes),
                    "a reader saw a torn file ({} bytes)",
                    bytes.len()
                );
                reads += 1;
            }
            reads
        })
    };
    let writers: Vec<_> = payloads
        .iter()
        .cloned()
        .map(|payload| {
            let path = Arc::clone(&path);
            std::thread::spawn(move || {
                for _ in 0..25 {
                    write_atomic(&path, &payload).expect("write");
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().expect("writer finished");
    }
    done.store(true, Ordering::SeqCst);
    assert!(reader.join().expect("reader finished") > 0);
    let last = std::fs::read(&*path).expect("read");
    assert!(payloads.contains(&last));
    let leftovers = std::fs::read_dir(dir.path()).expect("list").count();
    assert_eq!(leftovers, 1, "no temporary files left behind");
}

#[test]
fn missing_and_empty_files_name_the_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("nope.json");
    assert!(
        load_document(&missing)
            .expect_err("missing")
            .to_string()
            .contains("nope.json")
    );
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, b"").expect("write");
    let err = load_document(&empty).expect_err("empty").to_string();
    assert!(err.contains("empty.json") && err.contains("empty"), "{err}");
}

fn check_rejection(bytes: &[u8]) {
    if let Err(reason) = parse_document(bytes) {
        assert!(!reason.is_empty());
        assert!(!reason.contains('\n'), "one-line reason: {reason}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_rejection(&bytes);
    }

    #[test]
    fn truncated_valid_files_are_clean_errors(cut in 0usize..VALID.len()) {
        prop_assert!(parse_document(&VALID.as_bytes()[..cut]).is_err());
        check_rejection(&VALID.as_bytes()[..cut]);
    }

    #[test]
    fn mutated_valid_files_never_panic(position in 0usize..VALID.len(), byte in any::<u8>(), insert in any::<bool>()) {
        let mut bytes = VALID.as_bytes().to_vec();
        if insert { bytes.insert(position, byte) } else { bytes[position] = byte }
        check_rejection(&bytes);
    }

    #[test]
    fn type_confusion_is_a_clean_error(
        field in prop::sample::select(vec!["\"median\": 7.0", "\"status\": \"ok\"", "\"n\": 5", "\"samples\": [6.5, 7.0, 7.1, 7.0, 7.9]"]),
        replacement in prop::sample::select(vec!["\"x\"", "null", "[]", "{}", "-1", "1e999", "true"]),
    ) {
        let key = field.split(':').next().unwrap_or_default();
        let mutated = VALID.replacen(field, &format!("{key}: {replacement}"), 1);
        check_rejection(mutated.as_bytes());
    }
}
