//! `gpubench kernels --isa`: every kernel compiled by Mesa's RADV for real AMD GPUs on null
//! hardware. The committed summaries (`docs/kernels/*.md`, written by `cargo xtask kernels`)
//! must be what this tree's kernels compile to, and the matmul tuner is held to the compiler
//! (on fresh `--json` rows): no candidate it keeps may spill, and every candidate it prunes for
//! registers must spill or fall to 8 waves per SIMD or fewer. Those are Debian 12's Mesa 22.3;
//! `navi31` is Mesa 25.0.7's RADV (named by `GPUBENCH_RADV_ICD`), whose test `cargo xtask
//! radv25` runs (ignored by a plain `cargo test`, failing without that RADV).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// What `gpubench kernels --isa family` writes.
struct Compiled {
    /// The `--json` rows.
    rows: Vec<Value>,
    /// The `--summary` page.
    summary: String,
    /// Its stdout.
    stdout: String,
}

/// The variable naming another RADV than the system's.
const RADV_ICD: &str = "GPUBENCH_RADV_ICD";

/// `gpubench kernels --isa family`'s outputs, with the system's RADV unless `mesa25`.
fn compile_with(family: &str, mesa25: bool) -> Compiled {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("k.json");
    let summary = dir.path().join("k.md");
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpubench"));
    if mesa25 {
        assert!(
            std::env::var_os(RADV_ICD).is_some(),
            "{RADV_ICD} is not set: `cargo xtask radv25` unpacks Mesa 25.0.7's RADV and runs this"
        );
    } else {
        command.env_remove(RADV_ICD);
    }
    let output = command
        .args(["kernels", "--isa", family, "--json"])
        .arg(&json)
        .arg("--summary")
        .arg(&summary)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "gpubench kernels --isa {family} failed (RADV comes with mesa-vulkan-drivers, which `cargo xtask test` installs on Debian as root): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&json).expect("json written");
    let rows: Value = serde_json::from_str(&text).expect("valid JSON");
    Compiled {
        rows: rows.as_array().expect("a list").clone(),
        summary: std::fs::read_to_string(&summary).expect("summary written"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
    }
}

fn compile(family: &str) -> Compiled {
    compile_with(family, false)
}

fn number(row: &Value, key: &str) -> f64 {
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

fn spills(row: &Value) -> bool {
    number(row, "spilled_vgprs") + number(row, "spilled_sgprs") + number(row, "scratch_bytes") > 0.0
}

/// No candidate the tuner keeps spills on `family`'s compiler.
fn assert_no_kept_spills(family: &str, rows: &[Value]) {
    let kept_spilling: Vec<&str> = rows
        .iter()
        .filter(|r| r["tuner"] == "kept" && spills(r))
        .filter_map(|r| r["pipeline"].as_str())
        .collect();
    assert!(
        kept_spilling.is_empty(),
        "{family}: the tuner keeps candidates the compiler spills: {kept_spilling:?}"
    );
}

/// The waves per SIMD a register prune must fall to when it does not spill.
const PRUNED_WAVES: f64 = 8.0;

/// The committed summary of `family`.
fn committed(family: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/kernels")
        .join(format!("{family}.md"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("committed summary {}: {e}", path.display()))
}

/// Whether a summary line is a table row of the example suite (its second cell).
fn example_row(line: &str) -> bool {
    line.starts_with('|') && line.split('|').nth(2).map(str::trim) == Some("example")
}

/// Where `committed` and `fresh` differ: the first few lines only one of them has.
fn differences(committed: &str, fresh: &str) -> String {
    let only = |a: &str, b: &str| -> Vec<String> {
        let others: std::collections::HashSet<&str> = b.lines().collect();
        a.lines()
            .filter(|l| !others.contains(l))
            .take(5)
            .map(str::to_string)
            .collect()
    };
    let (committed_only, fresh_only) = (only(committed, fresh), only(fresh, committed));
    if committed_only.is_empty() && fresh_only.is_empty() {
        return "the same lines, in another order or count".to_string();
    }
    format!("committed only: {committed_only:#?}\nfresh only: {fresh_only:#?}")
}

/// Asserts that `summary`, less the example suite's rows (compiled into the test binary only),
/// is the committed `docs/kernels/{family}.md`.
fn assert_summary_is_committed(family: &str, summary: &str) {
    let fresh: String = summary
        .lines()
        .filter(|l| !example_row(l))
        .flat_map(|l| [l, "\n"])
        .collect();
    let committed = committed(family);
    assert!(
        committed == fresh,
        "docs/kernels/{family}.md no longer matches what the kernels compile to: regenerate it with `cargo xtask kernels`\n{}",
        differences(&committed, &fresh)
    );
}

/// The matmul candidates (main passes) pruned for registers that the compiler says neither
/// spill nor lose occupancy: on `rows`, unless `sibling` (a family the same register rule
/// serves, which nothing wgpu reports tells apart) shows the candidate spilling.
fn unjustified_prunes(rows: &[Value], sibling: &[Value]) -> Vec<String> {
    let spills_on_sibling = |pipeline: &Value| {
        sibling
            .iter()
            .any(|r| &r["pipeline"] == pipeline && spills(r))
    };
    rows.iter()
        .filter(|r| !r["estimated_registers"].is_null())
        .filter(|r| {
            r["pruned_because"]
                .as_str()
                .is_some_and(|why| why.contains("registers"))
        })
        .filter(|r| !spills(r) && number(r, "subgroups_per_simd") > PRUNED_WAVES)
        .filter(|r| !spills_on_sibling(&r["pipeline"]))
        .filter_map(|r| r["pipeline"].as_str().map(str::to_string))
        .collect()
}

fn check_family(family: &str, sibling: &str) {
    let Compiled {
        rows,
        summary,
        stdout,
    } = compile(family);
    for key in [
        "pipeline",
        "suite",
        "tuner",
        "vgprs",
        "sgprs",
        "spilled_vgprs",
        "spilled_sgprs",
        "lds_bytes",
        "scratch_bytes",
        "subgroups_per_simd",
        "instructions",
    ] {
        assert!(
            rows.iter().all(|r| !r[key].is_null()),
            "every row has {key}"
        );
    }
    assert_no_kept_spills(family, &rows);
    assert!(stdout.contains("0 kept candidate(s) spill"), "{stdout}");
    let unjustified = unjustified_prunes(&rows, &compile(sibling).rows);
    assert!(
        unjustified.is_empty(),
        "{family}: the tuner prunes for registers candidates the compiler neither spills nor limits to {PRUNED_WAVES} waves/SIMD: {unjustified:?}"
    );
    // The example suite (compiled into the test binary only) reaches the compiler too; the
    // committed summaries are the shipped suites'.
    assert!(
        rows.iter()
            .any(|r| r["pipeline"] == "example/scale_add" && r["suite"] == "example"),
        "the example suite's pipeline is compiled"
    );
    assert!(
        summary
            .lines()
            .any(|l| example_row(l) && l.starts_with("| example/scale_add |")),
        "the example suite's pipeline is in the summary: {summary}"
    );
    assert_summary_is_committed(family, &summary);
}

#[test]
fn rdna3_statistics_match_and_the_tuner_agrees_with_the_compiler() {
    check_family("gfx1100", "gfx1030");
}

#[test]
fn rdna2_statistics_match_and_the_tuner_agrees_with_the_compiler() {
    check_family("gfx1030", "gfx1100");
}

/// Mesa 25.0.7's RDNA 3: the committed navi31.md is what the kernels compile to, the
/// cooperative-matrix forms among them, and no candidate the tuner keeps spills. (The register
/// prunes are held to Mesa 22.3 above: the rule is tuned to the compiler most users run.)
#[test]
#[ignore = "needs Mesa 25's RADV: cargo xtask radv25 runs it"]
fn navi31_statistics_on_mesa_25_match_and_no_kept_candidate_spills() {
    let Compiled { rows, summary, .. } = compile_with("navi31", true);
    assert!(
        summary.starts_with("# Kernel statistics: Null hardware (RADV NAVI31), radv Mesa 25."),
        "{}",
        summary.lines().next().unwrap_or_default()
    );
    let coop: Vec<&Value> = rows
        .iter()
        .filter(|r| r["pipeline"].as_str().is_some_and(|p| p.contains("/coop")))
        .collect();
    assert!(
        coop.iter().any(|r| r["tuner"] == "kept"),
        "no cooperative-matrix form kept on navi31"
    );
    assert_no_kept_spills("navi31", &rows);
    assert_summary_is_committed("navi31", &summary);
}

#[test]
fn an_unknown_family_is_a_usage_error_before_the_driver_sees_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_gpubench"))
        .args(["kernels", "--isa", "navi99"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("known: gfx1010"));
}
