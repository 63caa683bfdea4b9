//! Result files named on the command line, with directories expanded: every gpubench results
//! file below a directory, grouped by machine and adapter, the newest run of each (all of them
//! with `--all-runs`). A file named explicitly is always taken as it is.
//!
//! A directory of a fleet run holds other JSON too (exports, a baseline copy): files that are
//! not gpubench results are passed over and counted, never an error, while a named file that is
//! not one stays an error. A run found in a directory was read to be grouped; it keeps that
//! document, so no file is read twice.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gpubench_harness::RunDocument;
use gpubench_results::results_file::load_document;

/// How deep below a named directory files are looked for.
const MAX_DEPTH: usize = 8;

/// One input: its path, and its document where a directory's scan already read it.
#[derive(Debug)]
pub struct Input {
    /// Where it is.
    pub path: PathBuf,
    doc: Option<RunDocument>,
}

impl Input {
    /// The document: the one already read, else read now (with `baseline_gate::load`'s checks).
    pub fn load(self) -> anyhow::Result<(PathBuf, RunDocument)> {
        let doc = match self.doc {
            Some(doc) => crate::cmd::baseline_gate::check_unique_ids(&self.path, doc)?,
            None => crate::cmd::baseline_gate::load(&self.path)?,
        };
        Ok((self.path, doc))
    }
}

/// The inputs, in order: named files where they were named, each directory's newest run per
/// machine and adapter (sorted by machine, then adapter) in its place.
pub fn expand(paths: &[PathBuf], all_runs: bool) -> anyhow::Result<Vec<Input>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let found = runs_below(path, all_runs)?;
            if found.is_empty() {
                anyhow::bail!(
                    "{} holds no gpubench results file (looked {MAX_DEPTH} levels down)",
                    path.display()
                );
            }
            out.extend(found);
        } else {
            out.push(Input {
                path: path.clone(),
                doc: None,
            });
        }
    }
    Ok(out)
}

/// The machine a run was made on and its adapter: the key runs are grouped by.
fn machine_key(doc: &RunDocument) -> (String, String) {
    let m = &doc.machine;
    let host = m
        .hostname
        .clone()
        .unwrap_or_else(|| format!("{} / {}", m.cpu_model, m.os));
    (host, m.fingerprint.clone())
}

fn runs_below(dir: &Path, all_runs: bool) -> anyhow::Result<Vec<Input>> {
    let mut files = Vec::new();
    collect_json(dir, 0, &mut files)?;
    files.sort();
    let mut groups: BTreeMap<(String, String), Vec<Input>> = BTreeMap::new();
    let mut passed_over = Vec::new();
    for path in files {
        match load_document(&path) {
            Ok(doc) => groups.entry(machine_key(&doc)).or_default().push(Input {
                path,
                doc: Some(doc),
            }),
            Err(_) => passed_over.push(path),
        }
    }
    if let Some(first) = passed_over.first() {
        note!(
            "{}: passed over {} JSON file(s) that are not gpubench results (first: {})",
            dir.display(),
            passed_over.len(),
            first.display()
        );
    }
    let mut out = Vec::new();
    for (_, mut runs) in groups {
        // RFC 3339 UTC times sort as text; the path breaks ties, so the choice is stable.
        runs.sort_by(|a, b| (started(a), &a.path).cmp(&(started(b), &b.path)));
        if all_runs {
            out.extend(runs);
        } else if let Some(newest) = runs.pop() {
            out.push(newest);
        }
    }
    Ok(out)
}

/// When a run found in a directory started (every such input holds its document).
fn started(input: &Input) -> &str {
    input.doc.as_ref().map_or("", |d| d.started_at.as_str())
}

/// Every `*.json` file below `dir`, not following links to directories (no cycles).
fn collect_json(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("reading directory {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            collect_json(&path, depth + 1, out)?;
        } else if path.extension().is_some_and(|e| e == "json") && path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::doc_with;
    use gpubench_results::results_file::save_document;

    fn write(dir: &Path, name: &str, adapter: &str, host: &str, started: &str) -> PathBuf {
        let mut doc = doc_with(adapter, false);
        doc.machine.hostname = Some(host.to_string());
        doc.started_at = started.to_string();
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        save_document(&path, &doc).expect("save");
        path
    }

    #[test]
    fn directories_give_the_newest_run_per_machine_and_adapter() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let old = write(d, "a/old.json", "Card A", "node1", "2026-01-01T00:00:00Z");
        let new = write(d, "a/new.json", "Card A", "node1", "2026-02-01T00:00:00Z");
        let other_host = write(d, "b/x.json", "Card A", "node2", "2026-01-01T00:00:00Z");
        let other_card = write(d, "b/y.json", "Card B", "node1", "2026-01-01T00:00:00Z");
        std::fs::write(d.join("export.json"), "[]").expect("write");
        let paths =
            |inputs: Vec<Input>| -> Vec<PathBuf> { inputs.into_iter().map(|i| i.path).collect() };
        let found = paths(expand(&[d.to_path_buf()], false).expect("expand"));
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.contains(&new) && !found.contains(&old));
        assert!(found.contains(&other_host) && found.contains(&other_card));
        let all = paths(expand(&[d.to_path_buf()], true).expect("expand"));
        assert_eq!(all.len(), 4);
    }

    #[test]
    fn named_files_stay_and_an_empty_directory_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let named = dir.path().join("not-results.json");
        std::fs::write(&named, "{}").expect("write");
        let kept = expand(std::slice::from_ref(&named), false).expect("a named file is kept");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].path, named);
        assert!(
            kept[0].doc.is_none(),
            "a named file is read by the command, with its errors"
        );
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).expect("mkdir");
        let err = expand(&[empty], false).expect_err("no results below");
        assert!(err.to_string().contains("holds no gpubench results file"));
    }
}
