//! `gpubench show` and the `--export-*` flags end to end on result files in a temporary
//! directory (no GPU): several exports in one pass, each what `--format` of its name prints,
//! several runs in one CSV table and one JSON array, BMF and github-action-benchmark names by
//! adapter; and the build information, completions and man pages (no GPU either).

use std::path::{Path, PathBuf};

use gpubench_baseline::testing::doc_with;

mod common;
use common::{arg, assert_exit, assert_exit_saying, assert_has, gpubench_output, text, write_doc};

/// Two runs of two machines: an H200 on node-a and an RX 7900 on node-b.
fn two_machines(dir: &Path) -> (PathBuf, PathBuf) {
    let mut a = doc_with("NVIDIA H200", false);
    a.machine.hostname = Some("node-a".to_string());
    let mut b = doc_with("AMD Radeon RX 7900 XTX", false);
    b.machine.hostname = Some("node-b".to_string());
    (write_doc(dir, "a.json", &a), write_doc(dir, "b.json", &b))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_export_in_one_pass_holds_what_its_format_prints() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, _) = two_machines(dir.path());
    let out_path = |name: &str| dir.path().join(name);
    let (json, csv, md, bmf, gab) = (
        out_path("x.json"),
        out_path("x.csv"),
        out_path("x.md"),
        out_path("x.bmf.json"),
        out_path("gab.json"),
    );
    let out = gpubench_output(&[
        "show",
        arg(&a),
        "--export-json",
        arg(&json),
        "--export-csv",
        arg(&csv),
        "--export-md",
        arg(&md),
        "--export-bmf",
        arg(&bmf),
        "--export-gab",
        arg(&gab),
    ]);
    assert_exit(&out, 0);
    assert_has(&text(&out.stdout), "triad/vec4-f32/64MiB");
    for (format, path) in [("json", &json), ("csv", &csv), ("md", &md), ("bmf", &bmf)] {
        let printed = gpubench_output(&["show", arg(&a), "--format", format]);
        assert_eq!(printed.status.code(), Some(0), "{format}");
        assert_eq!(read(path), text(&printed.stdout), "--export-{format}");
    }
    let bigger: serde_json::Value = serde_json::from_str(&read(&gab)).expect("gab json");
    assert_eq!(bigger[0]["name"], "gpubench/run/verified-results");
    assert!(dir.path().join("gab-smaller.json").exists());
}

#[test]
fn several_runs_are_one_csv_table_and_one_json_array() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = two_machines(dir.path());
    let csv = gpubench_output(&["show", arg(&a), arg(&b), "--format", "csv"]);
    assert_exit(&csv, 0);
    let csv = text(&csv.stdout);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    for column in ["adapter", "driver", "host", "run_started"] {
        assert!(header.contains(&column), "{column} in {header:?}");
    }
    let rows: Vec<&str> = lines.collect();
    assert!(rows.iter().all(|row| !row.starts_with("id,")), "one header");
    assert!(
        rows.iter()
            .any(|r| r.contains("NVIDIA H200") && r.contains("node-a"))
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("RX 7900") && r.contains("node-b"))
    );

    let json = gpubench_output(&["show", arg(&a), arg(&b), "--format", "json"]);
    let docs: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json array");
    assert_eq!(docs.as_array().map(Vec::len), Some(2));
    assert_eq!(docs[1]["machine"]["hostname"], "node-b");

    let table = text(&gpubench_output(&["show", arg(&a), arg(&b)]).stdout);
    assert!(table.contains("== ") && table.contains("NVIDIA H200") && table.contains("RX 7900"));
}

#[test]
fn keyed_exports_of_several_runs_need_adapter_names_and_then_do_not_collide() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = two_machines(dir.path());
    let bmf = dir.path().join("bmf.json");
    let refused = gpubench_output(&["show", arg(&a), arg(&b), "--export-bmf", arg(&bmf)]);
    assert_exit_saying(&refused, 2, &["--export-adapter-names"]);
    assert!(!bmf.exists(), "nothing written on a refusal");

    let gab = dir.path().join("gab.json");
    let out = gpubench_output(&[
        "show",
        arg(&a),
        arg(&b),
        "--export-bmf",
        arg(&bmf),
        "--export-gab",
        arg(&gab),
        "--export-adapter-names",
    ]);
    assert_exit(&out, 0);
    let bmf: serde_json::Value = serde_json::from_str(&read(&bmf)).expect("bmf");
    let names: Vec<&String> = bmf.as_object().expect("object").keys().collect();
    assert!(names.contains(&&"node-a/nvidia-h200/stream/triad/vec4-f32/64MiB".to_string()));
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("node-b/amd-radeon-rx-7900-xtx/"))
    );
    let gab: serde_json::Value = serde_json::from_str(&read(&gab)).expect("gab");
    let gab_names: Vec<&str> = gab
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(gab_names.contains(&"node-a/nvidia-h200/gpubench/run/verified-results"));
    assert!(gab_names.contains(&"node-b/amd-radeon-rx-7900-xtx/gpubench/run/verified-results"));
    let unique: std::collections::BTreeSet<&&str> = gab_names.iter().collect();
    assert_eq!(unique.len(), gab_names.len(), "no two entries share a name");
}

/// Vulkan and GL on one card (and identical cards in one host) share host and adapter name:
/// their names get the backend (and then the adapter's index) only where they would collide,
/// so every result is kept; the same run twice can never be told apart and is refused.
#[test]
fn adapter_names_add_what_tells_runs_of_one_card_apart_and_refuse_the_rest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut vulkan = doc_with("NVIDIA H200", false);
    vulkan.machine.hostname = Some("node".to_string());
    let mut gl = vulkan.clone();
    gl.machine.adapter.backend = "gl".to_string();
    gl.machine.adapter.index = 1;
    let (v, g) = (
        write_doc(dir.path(), "v.json", &vulkan),
        write_doc(dir.path(), "g.json", &gl),
    );
    let bmf = dir.path().join("bmf.json");
    let flags = ["--export-bmf", arg(&bmf), "--export-adapter-names"];
    let out = gpubench_output(&[&["show", arg(&v), arg(&g)][..], &flags].concat());
    assert_exit(&out, 0);
    let bmf_doc: serde_json::Value = serde_json::from_str(&read(&bmf)).expect("bmf");
    let names: Vec<&String> = bmf_doc.as_object().expect("object").keys().collect();
    let measured = 2; // doc_with's ok results, beside the run's own counts
    assert_eq!(
        names.len(),
        2 * (measured + 1),
        "every run's results kept: {names:?}"
    );
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("node/nvidia-h200-vulkan/"))
    );
    assert!(names.iter().any(|n| n.starts_with("node/nvidia-h200-gl/")));

    std::fs::remove_file(&bmf).expect("remove");
    let twice = write_doc(dir.path(), "v2.json", &vulkan);
    let out = gpubench_output(&[&["show", arg(&v), arg(&twice)][..], &flags].concat());
    assert_exit_saying(&out, 2, &["the same name"]);
    assert!(!bmf.exists(), "nothing written on a refusal");
}

#[test]
fn an_export_that_is_an_input_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, _) = two_machines(dir.path());
    let before = read(&a);
    let csv = dir.path().join("out.csv");
    let out = gpubench_output(&[
        "show",
        arg(&a),
        "--export-csv",
        arg(&csv),
        "--export-json",
        arg(&a),
    ]);
    assert_exit(&out, 2);
    assert_eq!(read(&a), before, "the input is untouched");
    assert!(!csv.exists(), "no export before every output is checked");
}

#[test]
fn compare_writes_its_verdicts_in_every_export_format() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, _) = two_machines(dir.path());
    let (json, md) = (dir.path().join("cmp.json"), dir.path().join("cmp.md"));
    let out = gpubench_output(&[
        "compare",
        arg(&a),
        arg(&a),
        "--export-json",
        arg(&json),
        "--export-md",
        arg(&md),
    ]);
    assert_exit(&out, 0);
    let cmp: serde_json::Value = serde_json::from_str(&read(&json)).expect("json");
    assert_eq!(cmp["pairs"][0]["verdict"], "unchanged");
    let printed = gpubench_output(&["compare", arg(&a), arg(&a), "--format", "md"]);
    assert_eq!(read(&md), text(&printed.stdout));
}

#[test]
fn the_version_names_the_commit_and_completions_and_man_pages_cover_every_subcommand() {
    let version = text(&gpubench_output(&["--version"]).stdout);
    assert!(version.starts_with("gpubench 0.1.0\n"), "{version}");
    for fact in ["commit:", "rustc:", "target:"] {
        assert!(version.contains(fact), "{fact} in {version}");
    }
    // Built inside the repository's checkout: the commit is the checkout's HEAD.
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout).trim().to_string());
    if let Some(head) = head {
        assert!(
            version.contains(&format!("commit:      {head}")),
            "{version} vs {head}"
        );
    }

    let bash = text(&gpubench_output(&["completions", "bash"]).stdout);
    for word in ["show", "compare", "--export-csv", "--progress"] {
        assert!(bash.contains(word), "{word} in the bash completions");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let man = dir.path().join("man1");
    let out = gpubench_output(&["man", "--dir", arg(&man)]);
    assert_exit(&out, 0);
    for page in [
        "gpubench.1",
        "gpubench-run.1",
        "gpubench-show.1",
        "gpubench-compare.1",
    ] {
        let page = read(&man.join(page));
        assert!(
            page.starts_with(".ie") || page.contains(".TH"),
            "a roff page"
        );
    }
    assert!(read(&man.join("gpubench-run.1")).contains("export\\-json"));

    // A page whose name is taken by a directory is refused before any page is written.
    let blocked = dir.path().join("blocked");
    std::fs::create_dir_all(blocked.join("gpubench-show.1")).expect("mkdir");
    let out = gpubench_output(&["man", "--dir", arg(&blocked)]);
    assert_exit(&out, 2);
    assert!(!blocked.join("gpubench.1").exists(), "nothing written");
}

/// A folder's files that cannot be read are passed over with a note that says why: a newer
/// gpubench's file asks for an upgrade, apart from JSON that is not results or is damaged.
#[test]
fn a_folder_says_which_files_a_newer_gpubench_wrote() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_doc(dir.path(), "good.json", &doc_with("NVIDIA Test", false));
    std::fs::write(
        dir.path().join("newer.json"),
        r#"{"schema_version": 99, "results": []}"#,
    )
    .expect("write");
    std::fs::write(dir.path().join("other.json"), r#"{"name": "x"}"#).expect("write");
    let out = common::gpubench_output(&["show", arg(dir.path())]);
    assert_exit(&out, 0);
    let stderr = text(&out.stderr);
    assert_has(
        &stderr,
        "passed over 1 results file(s) of a newer gpubench: upgrade gpubench",
    );
    assert_has(
        &stderr,
        "passed over 1 JSON file(s) that are not gpubench results",
    );
}
