//! The quick profile's ids, metrics and units on the software adapter, held to a committed list
//! (`docs/results/lavapipe-quick-ids.tsv`): a change that renames, drops or re-units a row
//! (which would break every stored baseline and dashboard series) fails CI instead of passing
//! quietly. A new row fails too, until the list is regenerated with `cargo xtask ids FILE` and
//! the addition is reviewed.
//!
//! Some rows depend on the host rather than on gpubench, and are written in the list by their
//! shape: the memory suite's working-set sweep runs to twice the host's largest cache (its read
//! and both chases' rows' sizes become `*`), and its detected levels (`memory/level-N/...`, `memory/beyond-caches/...`
//! and their latency twins) are as many as the host shows, so they are left out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::workspace_root;

/// The committed list, relative to the workspace root.
const LIST: &str = "docs/results/lavapipe-quick-ids.tsv";

/// What the list's header says.
const HEADER: &str = "# id\tmetric\tunit (the quick profile on lavapipe; `cargo xtask ids FILE` \
                      regenerates it from a results file)";

/// The row of `result` as the list writes it, or `None` for a row the host decides.
fn row(result: &Value) -> Option<String> {
    let id = result["id"].as_str()?;
    let parts: Vec<&str> = id.split('/').collect();
    let id = match parts.as_slice() {
        ["memory", kind, _size] if ["read", "latency", "latency-lanes"].contains(kind) => {
            format!("memory/{kind}/*")
        }
        ["memory", level, ..]
            if level.starts_with("level-")
                || level.starts_with("latency-level-")
                || level.ends_with("beyond-caches") =>
        {
            return None;
        }
        _ => id.to_string(),
    };
    let metric = result["metric"].as_str().unwrap_or("?");
    let unit = result["unit"].as_str().unwrap_or("?");
    Some(format!("{id}\t{metric}\t{unit}"))
}

/// The rows of a results document, sorted and once each.
fn rows(doc: &Value) -> BTreeSet<String> {
    doc["results"]
        .as_array()
        .map(|results| results.iter().filter_map(row).collect())
        .unwrap_or_default()
}

/// The committed rows.
fn committed() -> Result<BTreeSet<String>, String> {
    let path = workspace_root().join(LIST);
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect())
}

/// The suites `doc` ran (its `config.suites`).
fn suites_run(doc: &Value) -> Vec<&str> {
    doc["config"]["suites"]
        .as_array()
        .map(|suites| suites.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Holds `doc` (a quick run on the software adapter) to the committed list, over the suites it
/// ran (the GPU check's rehearsal runs a chosen few; every id starts with its suite's name).
pub fn check(doc: &Value) -> Result<(), String> {
    let fresh = rows(doc);
    let suites = suites_run(doc);
    if suites.is_empty() {
        return Err("the quick run names no suites in its config".to_string());
    }
    let listed: BTreeSet<String> = committed()?
        .into_iter()
        .filter(|row| suites.iter().any(|s| row.starts_with(&format!("{s}/"))))
        .collect();
    let gone: Vec<&String> = listed.difference(&fresh).collect();
    let new: Vec<&String> = fresh.difference(&listed).collect();
    if gone.is_empty() && new.is_empty() {
        eprintln!(
            "ids: the quick run's {} rows match {LIST} over its suites ({})",
            fresh.len(),
            suites.join(", ")
        );
        return Ok(());
    }
    Err(format!(
        "the quick run's ids, metrics and units differ from {LIST}: gone {gone:?}, new {new:?}; \
         an id keeps its meaning (docs: Compatibility), so a renamed or re-united row is a bug; \
         for a new row, review it and regenerate the list with `cargo xtask ids RESULTS.json`"
    ))
}

/// `cargo xtask ids FILE`: writes the committed list from the results file `FILE`.
pub fn write(args: &[String]) -> Result<(), String> {
    let [file] = args else {
        return Err("usage: cargo xtask ids RESULTS.json (a quick run on lavapipe)".to_string());
    };
    let path = PathBuf::from(file);
    let doc = read(&path)?;
    let mut text = format!("{HEADER}\n");
    for line in rows(&doc) {
        text.push_str(&line);
        text.push('\n');
    }
    let out = workspace_root().join(LIST);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    std::fs::write(&out, text).map_err(|e| format!("writing {}: {e}", out.display()))?;
    eprintln!("ids: wrote {}", out.display());
    Ok(())
}

/// A results file, parsed.
fn read(path: &Path) -> Result<Value, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_held_over_the_suites_the_run_ran() {
        let listed = committed().expect("the committed list");
        assert!(listed.iter().any(|r| r.starts_with("memory/")));
        let doc = serde_json::json!({"config": {"suites": ["launch"]}, "results": []});
        let error = check(&doc).expect_err("no launch rows");
        assert!(
            error.contains("launch/") && !error.contains("memory/"),
            "{error}"
        );
        assert!(check(&serde_json::json!({"results": []})).is_err());
    }

    #[test]
    fn host_sized_rows_are_written_by_their_shape_and_levels_left_out() {
        let doc = serde_json::json!({"results": [
            {"id": "memory/read/48MiB", "metric": "bandwidth", "unit": "GB/s"},
            {"id": "memory/latency/4KiB", "metric": "latency", "unit": "ns"},
            {"id": "memory/latency-lanes/6KiB", "metric": "latency", "unit": "ns"},
            {"id": "memory/level-2/size", "metric": "size", "unit": "KiB"},
            {"id": "memory/latency-beyond-caches/latency", "metric": "latency", "unit": "ns"},
            {"id": "memory/workgroup/stride-1", "metric": "bandwidth", "unit": "GB/s"},
            {"id": "stream/triad/vec4-f32/16MiB", "metric": "bandwidth", "unit": "GB/s"},
        ]});
        let rows: Vec<String> = rows(&doc).into_iter().collect();
        assert_eq!(
            rows,
            [
                "memory/latency-lanes/*\tlatency\tns",
                "memory/latency/*\tlatency\tns",
                "memory/read/*\tbandwidth\tGB/s",
                "memory/workgroup/stride-1\tbandwidth\tGB/s",
                "stream/triad/vec4-f32/16MiB\tbandwidth\tGB/s",
            ]
        );
    }
}
