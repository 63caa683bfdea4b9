//! `gpubench compare` end to end on result files written to a temporary directory (no GPU):
//! the regression gate, report-only software adapters, the cross-card table, and every kind of
//! bad input failing with one line that names the file, exit 1, and nothing written.

use std::path::{Path, PathBuf};

use gpubench_baseline::testing::{doc_with, not_ok_result, scaled};
use gpubench_harness::{RunDocument, Status};

mod common;
use common::{
    arg, assert_exit, assert_exit_saying, assert_has, assert_has_all, gpubench_output, text,
    write_doc,
};

/// `doc` written to `dir` as `base.json`, and beside it, for each `(name, factor)` of `slower`,
/// a copy `factor` times slower; their paths.
fn base_and_slower<const N: usize>(
    dir: &Path,
    doc: &RunDocument,
    slower: [(&str, f64); N],
) -> (PathBuf, [PathBuf; N]) {
    let base = write_doc(dir, "base.json", doc);
    (
        base,
        slower.map(|(name, factor)| write_doc(dir, name, &scaled(doc, factor))),
    )
}

#[test]
fn thirty_percent_slower_fails_and_one_percent_passes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = doc_with("NVIDIA Test", false);
    let (base, [slow, same]) =
        base_and_slower(dir.path(), &doc, [("slow.json", 1.3), ("same.json", 1.01)]);

    let out = gpubench_output(&["compare", arg(&base), arg(&slow)]);
    assert_exit_saying(&out, 3, &["regression"]);
    assert_has(&text(&out.stdout), "regressed");

    let out = gpubench_output(&["compare", arg(&base), arg(&same)]);
    assert_exit(&out, 0);
    let stdout = text(&out.stdout);
    // The summary line comes first and counts; no row below it regressed.
    assert!(
        stdout.starts_with("verdicts: 0 regressed, 0 improved, 2 unchanged"),
        "{stdout}"
    );
    assert!(
        stdout.contains("exit 0: nothing regressed")
            && !stdout.lines().skip(1).any(|l| l.contains("regressed")),
        "{stdout}"
    );

    let out = gpubench_output(&["compare", arg(&base), arg(&slow), "--no-fail"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("regressed"));

    // A band wider than the slowdown turns the verdict into "unchanged".
    let out = gpubench_output(&["compare", arg(&base), arg(&slow), "--noise", "40"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn failing_benchmark_is_a_regression() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base_doc = doc_with("NVIDIA Test", false);
    let mut broken = base_doc.clone();
    broken.results[0] = not_ok_result(
        &base_doc.results[0].id,
        Status::Failed,
        "verification failed",
    );
    let base = write_doc(dir.path(), "base.json", &base_doc);
    let new = write_doc(dir.path(), "new.json", &broken);
    let out = gpubench_output(&["compare", arg(&base), arg(&new)]);
    assert_eq!(out.status.code(), Some(3));
    assert_has_all(
        &text(&out.stdout),
        &[
            "status-changed (ok -> failed)",
            "failed: verification failed",
        ],
    );
}

#[test]
fn software_adapters_report_only_unless_strict() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = doc_with("llvmpipe (LLVM 15.0.6, 256 bits)", true);
    let (base, [slow]) = base_and_slower(dir.path(), &doc, [("slow.json", 1.5)]);
    let out = gpubench_output(&["compare", arg(&base), arg(&slow)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("report-only"));
    let out = gpubench_output(&["compare", arg(&base), arg(&slow), "--strict"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn different_adapters_and_many_files_give_ratios() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write_doc(dir.path(), "a.json", &doc_with("NVIDIA Test", false));
    let b = write_doc(
        dir.path(),
        "b.json",
        &scaled(&doc_with("AMD Test", false), 2.0),
    );
    let c = write_doc(dir.path(), "c.json", &doc_with("Intel Test", false));

    let out = gpubench_output(&["compare", arg(&a), arg(&b)]);
    assert_eq!(out.status.code(), Some(0), "cross-machine never gates");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("cross-machine") && stdout.contains("adapter: NVIDIA Test -> AMD Test")
    );
    assert_has_all(&stdout, &["ratio-only", "0.50x"]);

    let out = gpubench_output(&["compare", arg(&a), arg(&b), arg(&c), "--format", "csv"]);
    assert_exit(&out, 0);
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("id,metric,unit,higher_is_better,[1]"),
        "{stdout}"
    );

    let out = gpubench_output(&["compare", arg(&a), arg(&b), arg(&c), "--format", "bmf"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_folder_of_two_nodes_with_one_kind_of_card_is_set_side_by_side() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut node1 = doc_with("NVIDIA Test", false);
    node1.machine.hostname = Some("node1".to_string());
    let mut node2 = scaled(&node1, 2.0);
    node2.machine.hostname = Some("node2".to_string());
    write_doc(dir.path(), "node1.json", &node1);
    write_doc(dir.path(), "node2.json", &node2);
    // Which node is the base is no choice a folder makes: no verdict, no exit 3.
    let out = gpubench_output(&["compare", arg(dir.path()), "--format", "csv"]);
    assert_exit_saying(&out, 0, &["name two files to judge one against the other"]);
    assert!(
        text(&out.stdout).starts_with("id,metric,unit,higher_is_better,[1]"),
        "the cross-card table: {}",
        text(&out.stdout)
    );
    // Named as two files, they are judged, the first the base.
    let (one, two) = (dir.path().join("node1.json"), dir.path().join("node2.json"));
    let out = gpubench_output(&["compare", arg(&one), arg(&two)]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // One machine's runs of a folder (--all-runs) are no fleet: the older is the base.
    let solo = tempfile::tempdir().expect("temp dir");
    let mut later = node2.clone();
    later.machine.hostname = node1.machine.hostname.clone();
    later.started_at = "2099-01-01T00:00:00Z".to_string();
    write_doc(solo.path(), "before.json", &node1);
    write_doc(solo.path(), "after.json", &later);
    let out = gpubench_output(&["compare", "--all-runs", arg(solo.path())]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
}

#[test]
fn formats_and_exports() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = doc_with("NVIDIA Test", false);
    let (base, [new]) = base_and_slower(dir.path(), &doc, [("new.json", 1.01)]);
    let gab = dir.path().join("gab.json");
    let compared = |flags: &[&str]| {
        gpubench_output(&[&["compare", arg(&base), arg(&new)][..], flags].concat())
    };
    let out = compared(&["--format", "json", "--export-gab", arg(&gab)]);
    assert_exit(&out, 0);
    let parsed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json on stdout");
    assert_eq!(parsed["pairs"][0]["verdict"], "unchanged");
    let bigger: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&gab).expect("export")).expect("json");
    assert_eq!(bigger[0]["name"], "gpubench/run/verified-results");
    assert_eq!(bigger[1]["name"], "stream/triad/vec4-f32/64MiB");
    assert!(dir.path().join("gab-smaller.json").exists());

    for format in ["table", "csv", "md", "bmf"] {
        let out = compared(&["--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}");
        assert!(!out.stdout.is_empty(), "{format}");
    }
    // --export-adapter-names names BMF entries by the new run's adapter, on stdout and in
    // the export alike.
    let bmf = dir.path().join("bmf.json");
    let names = "--export-adapter-names";
    let out = compared(&["--format", "bmf", "--export-bmf", arg(&bmf), names]);
    assert_exit(&out, 0);
    let exported = std::fs::read(&bmf).expect("export");
    for bytes in [&out.stdout, &exported] {
        let parsed: serde_json::Value = serde_json::from_slice(bytes).expect("bmf");
        let names: Vec<&String> = parsed.as_object().expect("object").keys().collect();
        assert!(
            !names.is_empty() && names.iter().all(|n| n.starts_with("nvidia-test/")),
            "{names:?}"
        );
    }
    let out = gpubench_output(&["compare", arg(&base), arg(&new), "--noise", "0"]);
    assert_eq!(out.status.code(), Some(2), "bad --noise is a usage error");
}

/// Bad result files: name, contents (`None`: the file does not exist), what the error says.
type BadFile = (&'static str, Option<Vec<u8>>, &'static str);

/// One bad file of every kind, made from `good`.
fn bad_files(good: &RunDocument) -> Vec<BadFile> {
    let mut wrong_types = serde_json::to_value(good).expect("value");
    wrong_types["results"][0]["samples"] = serde_json::json!("many");
    let mut newer = serde_json::to_value(good).expect("value");
    newer["schema_version"] = serde_json::json!(99);
    let full = serde_json::to_vec_pretty(good).expect("bytes");
    vec![
        ("missing.json", None, "No such file"),
        ("empty.json", Some(Vec::new()), "empty"),
        (
            "truncated.json",
            Some(full[..full.len() / 2].to_vec()),
            "not valid JSON",
        ),
        (
            "types.json",
            Some(serde_json::to_vec(&wrong_types).expect("bytes")),
            "not a valid gpubench result",
        ),
        (
            "newer.json",
            Some(serde_json::to_vec(&newer).expect("bytes")),
            "newer",
        ),
        (
            "other.json",
            Some(br#"{"name": "some other tool", "values": [1, 2]}"#.to_vec()),
            "not a gpubench result",
        ),
        (
            "array.json",
            Some(b"[1, 2, 3]".to_vec()),
            "not a gpubench result",
        ),
    ]
}

/// Every command that reads the bad file `path` (next to `baseline` in `dir`) fails with one
/// line naming it and saying why, and writes nothing.
fn assert_every_reader_refuses(dir: &Path, baseline: &Path, path: &Path, expected: &str) {
    let name = path
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let export = dir.join(format!("export-{name}"));
    for args in [
        vec![
            "compare",
            arg(baseline),
            arg(path),
            "--export-gab",
            arg(&export),
        ],
        vec!["compare", arg(path), arg(baseline)],
        vec!["compare", arg(baseline), arg(baseline), arg(path)],
        // `run` reads --baseline before it looks for a GPU, so this needs none.
        vec![
            "run",
            "--baseline",
            arg(path),
            "--save-baseline",
            "--baseline-dir",
            arg(dir),
        ],
    ] {
        let out = gpubench_output(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name} {args:?}: {stderr}");
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{name}: one line: {stderr}"
        );
        assert!(stderr.contains(&name), "{name}: names the file: {stderr}");
        assert!(
            stderr.contains(expected),
            "{name}: says why ({expected}): {stderr}"
        );
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        assert!(!export.exists(), "{name}: nothing exported");
    }
}

#[test]
fn bad_inputs_fail_with_one_line_naming_the_file_and_write_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = doc_with("NVIDIA Test", false);
    let baseline = write_doc(dir.path(), "baseline.json", &good);
    let before = std::fs::read(&baseline).expect("read");

    for (name, contents, expected) in bad_files(&good) {
        let path = dir.path().join(name);
        if let Some(bytes) = &contents {
            std::fs::write(&path, bytes).expect("write bad file");
        }
        assert_every_reader_refuses(dir.path(), &baseline, &path, expected);
        assert_eq!(
            std::fs::read(&baseline).expect("read"),
            before,
            "{name}: baseline untouched"
        );
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("export-") || n.starts_with(".gpubench-"))
        .collect();
    assert!(names.is_empty(), "nothing written: {names:?}");
}

/// A gated comparison whose only regressions are timings, against a run that measured its own
/// noise above their band, is too noisy to judge: exit 6, said in the summary and the last
/// line, and --no-fail still reports it.
#[test]
fn timing_regressions_within_the_runs_own_noise_exit_6() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = doc_with("NVIDIA Test", false);
    let mut slow = scaled(&base, 1.3);
    let mut noise = gpubench_results::run_noise::RunNoise::new("ref", "GFLOP/s");
    noise.level = Some(0.4);
    slow.noise = Some(noise);
    let base = write_doc(dir.path(), "base.json", &base);
    let slow = write_doc(dir.path(), "slow.json", &slow);
    let out = gpubench_output(&["compare", arg(&base), arg(&slow)]);
    assert_exit_saying(&out, 6, &["too noisy to judge against"]);
    assert_has(
        &text(&out.stdout),
        "exit 6, too noisy to judge: run noise ±40% (over the ±10% band) as large as",
    );
    let out = gpubench_output(&["compare", arg(&base), arg(&slow), "--no-fail"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("else 6, too noisy to judge"));
}
