//! `gpubench kernels --isa`: every kernel compiled by Mesa's RADV for real AMD GPUs on null
//! hardware. The committed statistics (`docs/kernels/*.json`) must be what this tree's kernels
//! compile to, and the matmul tuner is held to the compiler: no candidate it keeps may spill,
//! and every candidate it prunes for registers must spill or fall to 8 waves per SIMD or fewer.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The rows `gpubench kernels --isa family` writes, and its stdout.
fn compile(family: &str) -> (Vec<Value>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("k.json");
    let output = Command::new(env!("CARGO_BIN_EXE_gpubench"))
        .args(["kernels", "--isa", family, "--json"])
        .arg(&json)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "gpubench kernels --isa {family} failed (RADV comes with mesa-vulkan-drivers, which `cargo xtask setup` installs): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&json).expect("json written");
    let rows: Value = serde_json::from_str(&text).expect("valid JSON");
    let rows = rows.as_array().expect("a list").clone();
    (rows, String::from_utf8_lossy(&output.stdout).into_owned())
}

fn number(row: &Value, key: &str) -> f64 {
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

fn spills(row: &Value) -> bool {
    number(row, "spilled_vgprs") + number(row, "spilled_sgprs") + number(row, "scratch_bytes") > 0.0
}

/// The waves per SIMD a register prune must fall to when it does not spill.
const PRUNED_WAVES: f64 = 8.0;

/// The committed rows of `family`, by pipeline.
fn committed(family: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/kernels")
        .join(format!("{family}.json"));
    let text = std::fs::read_to_string(&path).expect("committed statistics");
    let rows: Value = serde_json::from_str(&text).expect("valid JSON");
    rows.as_array().expect("a list").clone()
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
    let (rows, stdout) = compile(family);
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
    let kept_spilling: Vec<&str> = rows
        .iter()
        .filter(|r| r["tuner"] == "kept" && spills(r))
        .filter_map(|r| r["pipeline"].as_str())
        .collect();
    assert!(
        kept_spilling.is_empty(),
        "{family}: the tuner keeps candidates the compiler spills: {kept_spilling:?}"
    );
    assert!(stdout.contains("0 kept candidate(s) spill"), "{stdout}");
    let unjustified = unjustified_prunes(&rows, &committed(sibling));
    assert!(
        unjustified.is_empty(),
        "{family}: the tuner prunes for registers candidates the compiler neither spills nor limits to {PRUNED_WAVES} waves/SIMD: {unjustified:?}"
    );
    assert!(
        committed(family) == rows,
        "{} no longer matches what the kernels compile to: regenerate it with `gpubench kernels --isa {family} --json {}`",
        committed_name(family),
        committed_name(family)
    );
}

fn committed_name(family: &str) -> String {
    format!("docs/kernels/{family}.json")
}

#[test]
fn rdna3_statistics_match_and_the_tuner_agrees_with_the_compiler() {
    check_family("gfx1100", "gfx1030");
}

#[test]
fn rdna2_statistics_match_and_the_tuner_agrees_with_the_compiler() {
    check_family("gfx1030", "gfx1100");
}

#[test]
fn an_unknown_family_is_a_usage_error_before_the_driver_sees_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_gpubench"))
        .args(["kernels", "--isa", "navi31"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("known: gfx1010"));
}
