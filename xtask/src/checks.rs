//! The GPU check's dress rehearsal at the end of `cargo xtask test`: the real
//! `scripts/gpu-check.sh --rehearsal`, whose gpubench run is the whole quick profile on the
//! software adapter (the quick run this step always was) and whose CUDA side runs through the
//! repo's test doubles. Then a check of gpubench's JSON that a person would otherwise do by
//! eye, and of the one archive the real check brings back from a GPU machine.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::workspace_root;

/// What the archive must hold for the check's window not to be wasted (budget.md: each step's
/// time beside the card's prediction; peers.json: the Vulkan peers' rows, from their test
/// doubles in the rehearsal; gpubench-memory.json: the memory suite's own step).
const ARCHIVED: [&str; 6] = [
    "side-by-side.md",
    "gpubench.json",
    "cuda.json",
    "budget.md",
    "peers.json",
    "gpubench-memory.json",
];

/// Runs the rehearsal, then checks gpubench's results file and the archive.
pub fn rehearsal() -> Result<(), String> {
    let root = workspace_root();
    let bin = crate::test_build::programs()?.gpubench;
    let out: PathBuf = root.join("target/xtask/rehearsal");
    match std::fs::remove_dir_all(&out) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("clearing {}: {e}", out.display())),
    }
    eprintln!(
        "$ scripts/gpu-check.sh --rehearsal {} {}",
        out.display(),
        bin.display()
    );
    // The quick profile's run takes minutes here: far more time than the real check's default.
    let status = Command::new("bash")
        .arg(root.join("scripts/gpu-check.sh"))
        .arg("--rehearsal")
        .arg(&out)
        .arg(&bin)
        .env("GPUBENCH_TIMEOUT", "1500")
        .env("GPUBENCH_MEMORY_TIMEOUT", "600")
        .current_dir(&root)
        .status()
        .map_err(|e| format!("could not start bash: {e}"))?;
    if !status.success() {
        return Err(format!(
            "the rehearsal exited with {status}: see {}",
            out.join("check.log").display()
        ));
    }
    check_archive(&out.join("gpu-check.tar.gz"))?;
    let results = out.join("gpubench.json");
    let doc = read_checked_document(&results)?;
    crate::ids::check(&doc)?;
    validate_schema(&results)?;
    let count = doc["results"].as_array().map_or(0, Vec::len);
    eprintln!(
        "rehearsal: {count} results, all ok or skipped with a reason, every ok result verified; the archive holds {}",
        ARCHIVED.join(", ")
    );
    Ok(())
}

/// The archive lists every file the check's window must bring back.
fn check_archive(archive: &Path) -> Result<(), String> {
    let listed = Command::new("tar")
        .arg("tzf")
        .arg(archive)
        .output()
        .map_err(|e| format!("could not start tar: {e}"))?;
    if !listed.status.success() {
        return Err(format!(
            "{} is not a readable archive: {}",
            archive.display(),
            String::from_utf8_lossy(&listed.stderr)
        ));
    }
    let names = String::from_utf8_lossy(&listed.stdout);
    let names: Vec<&str> = names.lines().map(|n| n.trim_start_matches("./")).collect();
    for wanted in ARCHIVED {
        if !names.contains(&wanted) {
            return Err(format!(
                "{} lacks {wanted} (it holds {})",
                archive.display(),
                names.join(", ")
            ));
        }
    }
    Ok(())
}

/// The results file at `path`, read, parsed and held to [`check_document`].
pub fn read_checked_document(path: &Path) -> Result<Value, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {shown}: {e}"))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| format!("{shown} is not JSON: {e}"))?;
    check_document(&doc).map_err(|e| format!("{shown}: {e}"))?;
    Ok(doc)
}

/// The published contract: the results file at `path` validates against
/// docs/results.schema.json (the results crate's schema test, run on that file). Selected over
/// the workspace, not with `-p`, so the features are the workspace tests' and nothing rebuilds.
pub fn validate_schema(path: &Path) -> Result<(), String> {
    let path = path.to_string_lossy().to_string();
    crate::cargo_with_env(
        &[
            "test",
            "--quiet",
            "--workspace",
            "--test",
            "json_schema",
            "a_fresh_run",
            "--",
            "--ignored",
        ],
        &[("GPUBENCH_VALIDATE_RESULTS", &path)],
    )
}

pub fn check_document(doc: &Value) -> Result<(), String> {
    if doc["complete"] != Value::Bool(true) {
        return Err("run is not marked complete".to_string());
    }
    let results = doc["results"].as_array().ok_or("no results array")?;
    if results.is_empty() {
        return Err("no results".to_string());
    }
    for r in results {
        let id = r["id"].as_str().unwrap_or("?");
        match r["status"].as_str() {
            Some("ok") => {
                if r["verified"] != Value::Bool(true) {
                    return Err(format!("{id} is ok but not verified"));
                }
                if !r["summary"]["median"]
                    .as_f64()
                    .is_some_and(|m| m.is_finite() && m > 0.0)
                {
                    return Err(format!("{id} is ok without a positive median"));
                }
            }
            Some("skipped") if r["reason"].as_str().is_some_and(|s| !s.is_empty()) => {}
            other => {
                return Err(format!(
                    "{id} has status {other:?}: {}",
                    r["reason"].as_str().unwrap_or("no reason")
                ));
            }
        }
    }
    Ok(())
}

/// The toolchain rust-toolchain.toml pins is the workspace's declared rust-version, so the
/// minimum Cargo.toml promises is the release every lint and test runs on.
pub fn toolchain_matches_rust_version() -> Result<(), String> {
    let root = workspace_root();
    let read = |name: &str| {
        std::fs::read_to_string(root.join(name)).map_err(|e| format!("reading {name}: {e}"))
    };
    let quoted = |text: &str, key: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .and_then(|rest| rest.trim().strip_prefix('='))
            .map(|v| v.trim().trim_matches('"').to_string())
    };
    let channel = quoted(&read("rust-toolchain.toml")?, "channel")
        .ok_or("rust-toolchain.toml names no channel")?;
    let declared = quoted(&read("Cargo.toml")?, "rust-version")
        .ok_or("Cargo.toml declares no rust-version")?;
    if channel == declared || channel.starts_with(&format!("{declared}.")) {
        Ok(())
    } else {
        Err(format!(
            "rust-toolchain.toml pins {channel} but Cargo.toml declares rust-version {declared}: \
             the declared minimum must be the toolchain that is tested"
        ))
    }
}
