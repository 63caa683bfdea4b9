//! The quick CLI run at the end of `cargo xtask test`: the whole quick profile on the software
//! adapter, and a check of its JSON that a person would otherwise do by eye.

use std::path::PathBuf;

use serde_json::Value;

use crate::{cargo, workspace_root};

/// Runs `gpubench run --profile quick` on Vulkan and checks the results file.
pub fn quick_run() -> Result<(), String> {
    let out: PathBuf = workspace_root().join("target/xtask/quick.json");
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    let out_text = out.to_string_lossy().to_string();
    cargo(&[
        "run",
        "--quiet",
        "-p",
        "gpubench-cli",
        "--",
        "run",
        "--profile",
        "quick",
        "--backend",
        "vulkan",
        "--no-progress",
        "--out",
        &out_text,
    ])?;
    let text = std::fs::read_to_string(&out).map_err(|e| format!("reading {out_text}: {e}"))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| format!("{out_text} is not JSON: {e}"))?;
    check_document(&doc).map_err(|e| format!("{out_text}: {e}"))?;
    // The published contract: the fresh file validates against docs/results.schema.json.
    crate::cargo_with_env(
        &[
            "test",
            "--quiet",
            "-p",
            "gpubench-results",
            "--test",
            "json_schema",
            "a_fresh_run",
            "--",
            "--ignored",
        ],
        &[("GPUBENCH_VALIDATE_RESULTS", &out_text)],
    )?;
    let results = doc["results"].as_array().map_or(0, Vec::len);
    eprintln!(
        "quick run: {results} results, all ok or skipped with a reason, every ok result verified"
    );
    Ok(())
}

fn check_document(doc: &Value) -> Result<(), String> {
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
