//! Result files named on the command line, with directories expanded: every gpubench results
//! file below a directory, grouped by machine and adapter, the newest run of each (all of them
//! with `--all-runs`). A file named explicitly is always taken as it is.
//!
//! A directory of a fleet run holds other JSON too (exports, a baseline copy): files that are
//! not gpubench results are passed over and counted, never an error, while a named file that is
//! not one stays an error. A scan reads only each file's header (machine, start time), never
//! its results, and holds no document: memory stays near the largest file's size however many
//! runs a directory holds; only the runs chosen are read whole, when they are used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gpubench_harness::RunDocument;
use gpubench_results::ResultsError;
use gpubench_results::hostinfo::parse_rfc3339;
use gpubench_results::results_file::{RunHeader, load_header};

/// How deep below a named directory files are looked for.
const MAX_DEPTH: usize = 8;

/// One input: its path, and its header where a directory's scan read it.
#[derive(Debug)]
pub struct Input {
    /// Where it is.
    pub path: PathBuf,
    header: Option<RunHeader>,
    /// The folder it was found in, where a folder named on the command line gave it with
    /// runs of other machines or adapters: a fleet, not a pair to judge.
    pub fleet_folder: Option<PathBuf>,
}

impl Input {
    /// The document, read now (with `baseline_gate::load`'s checks).
    pub fn load(self) -> anyhow::Result<(PathBuf, RunDocument)> {
        let doc = crate::cmd::baseline_gate::load(&self.path)?;
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
            // Several machines' or adapters' runs; one machine's runs (`--all-runs`) are no
            // fleet.
            let machines: std::collections::BTreeSet<_> = found
                .iter()
                .filter_map(|input| input.header.as_ref().map(machine_key))
                .collect();
            let fleet = (machines.len() > 1).then(|| path.clone());
            out.extend(found.into_iter().map(|input| Input {
                fleet_folder: fleet.clone(),
                ..input
            }));
        } else {
            out.push(Input {
                path: path.clone(),
                header: None,
                fleet_folder: None,
            });
        }
    }
    Ok(out)
}

/// The run below `dir` that started last, of any machine and adapter (`show` with no file).
pub fn latest_run(dir: &Path) -> anyhow::Result<Input> {
    let none = || {
        anyhow::anyhow!(
            "no run found under {}/ (where runs without --out are written): name a results file or directory, or run one first",
            dir.display()
        )
    };
    if !dir.is_dir() {
        return Err(none());
    }
    runs_below(dir, true)?
        .into_iter()
        .max_by(|a, b| (started(a), &a.path).cmp(&(started(b), &b.path)))
        .ok_or_else(none)
}

/// The machine a run was made on and its adapter: the key runs are grouped by.
fn machine_key(header: &RunHeader) -> (String, String) {
    let m = &header.machine;
    let host = m
        .hostname
        .clone()
        .unwrap_or_else(|| format!("{} / {}", m.cpu_model, m.os));
    (host, m.fingerprint.clone())
}

fn runs_below(dir: &Path, all_runs: bool) -> anyhow::Result<Vec<Input>> {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("reading directory {}: {e}", dir.display()))?;
    collect_json(entries, 1, &mut files, &mut unreadable);
    files.sort();
    let mut groups: BTreeMap<(String, String), Vec<Input>> = BTreeMap::new();
    let (mut passed_over, mut newer) = (Vec::new(), Vec::new());
    for path in files {
        match load_header(&path) {
            Ok(header) => groups.entry(machine_key(&header)).or_default().push(Input {
                path,
                header: Some(header),
                fleet_folder: None,
            }),
            Err(ResultsError::Io { .. }) => unreadable.push(path),
            Err(ResultsError::NewerSchema { .. }) => newer.push(path),
            Err(_) => passed_over.push(path),
        }
    }
    let say = |what: &str, paths: &[PathBuf]| {
        if let Some(first) = paths.first() {
            note!(
                "{}: passed over {} {what} (first: {})",
                dir.display(),
                paths.len(),
                first.display()
            );
        }
    };
    say(
        "JSON file(s) that are not gpubench results, or are damaged",
        &passed_over,
    );
    say(
        "results file(s) of a newer gpubench: upgrade gpubench to read them",
        &newer,
    );
    say("file(s) or folder(s) that could not be read", &unreadable);
    let mut out = Vec::new();
    for (_, mut runs) in groups {
        // By the instant each run started (RFC 3339 times with offsets or fractions do not sort
        // as text); a run whose time cannot be read counts as the oldest, and the path breaks
        // ties, so the choice is stable.
        for run in &runs {
            if started(run).is_none() {
                note!(
                    "{}: started_at is not an RFC 3339 time; taken as the oldest run",
                    run.path.display()
                );
            }
        }
        runs.sort_by(|a, b| (started(a), &a.path).cmp(&(started(b), &b.path)));
        if all_runs {
            out.extend(runs);
        } else if let Some(newest) = runs.pop() {
            out.push(newest);
        }
    }
    Ok(out)
}

/// When a run found in a directory started, in nanoseconds since 1970 (every such input holds
/// its header); `None` when its `started_at` is not an RFC 3339 time.
fn started(input: &Input) -> Option<i128> {
    input
        .header
        .as_ref()
        .and_then(|h| parse_rfc3339(&h.started_at))
}

/// Every `*.json` file among `entries` and below, not following links to directories (no
/// cycles); folders below that cannot be read go to `unreadable`, so one of them does not
/// hide the rest.
fn collect_json(
    entries: std::fs::ReadDir,
    depth: usize,
    out: &mut Vec<PathBuf>,
    unreadable: &mut Vec<PathBuf>,
) {
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth <= MAX_DEPTH {
            match std::fs::read_dir(&path) {
                Ok(below) => collect_json(below, depth + 1, out, unreadable),
                Err(_) => unreadable.push(path),
            }
        } else if path.extension().is_some_and(|e| e == "json") && path.is_file() {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod latest_tests {
    use super::*;

    #[test]
    fn the_latest_run_is_the_one_that_started_last_of_any_adapter() {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = |name: &str, adapter: &str, started: &str| {
            let mut doc = gpubench_baseline::testing::doc_with(adapter, false);
            doc.started_at = started.to_string();
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            gpubench_results::results_file::save_document(&path, &doc).expect("write");
            path
        };
        write("a.json", "Card A", "2026-12-01T00:00:00Z");
        let newest = write("sub/b.json", "Card B", "2026-12-03T00:00:00Z");
        write("c.json", "Card A", "2026-12-02T00:00:00Z");
        assert_eq!(latest_run(dir.path()).expect("found").path, newest);
        let error = latest_run(&dir.path().join("none")).expect_err("no directory");
        assert!(error.to_string().contains("no run found"), "{error}");
    }
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

    /// The inputs found in `dir`, newest only or all, as paths.
    fn found(dir: &Path, all_runs: bool) -> Vec<PathBuf> {
        let inputs = expand(&[dir.to_path_buf()], all_runs).expect("expand");
        inputs.into_iter().map(|i| i.path).collect()
    }

    /// A temporary directory holding one run per `(name, adapter, host, started_at)`.
    fn runs_in_a_dir(runs: &[(&str, &str, &str, &str)]) -> (tempfile::TempDir, Vec<PathBuf>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = runs
            .iter()
            .map(|&(name, adapter, host, started)| write(dir.path(), name, adapter, host, started))
            .collect();
        (dir, paths)
    }

    #[test]
    fn directories_give_the_newest_run_per_machine_and_adapter() {
        let (dir, paths) = runs_in_a_dir(&[
            ("a/old.json", "Card A", "node1", "2026-01-01T00:00:00Z"),
            ("a/new.json", "Card A", "node1", "2026-02-01T00:00:00Z"),
            ("b/x.json", "Card A", "node2", "2026-01-01T00:00:00Z"),
            ("b/y.json", "Card B", "node1", "2026-01-01T00:00:00Z"),
        ]);
        let d = dir.path();
        let (old, new, other_host, other_card) = (&paths[0], &paths[1], &paths[2], &paths[3]);
        std::fs::write(d.join("export.json"), "[]").expect("write");
        let newest = found(d, false);
        assert_eq!(newest.len(), 3, "{newest:?}");
        assert!(newest.contains(new) && !newest.contains(old));
        assert!(newest.contains(other_host) && newest.contains(other_card));
        assert_eq!(found(d, true).len(), 4);
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
            kept[0].header.is_none(),
            "a named file is read by the command, with its errors"
        );
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).expect("mkdir");
        let err = expand(&[empty], false).expect_err("no results below");
        assert!(err.to_string().contains("holds no gpubench results file"));
    }

    #[test]
    fn the_newest_run_is_the_latest_instant_and_an_unreadable_folder_hides_nothing() {
        // 01:30+02:00 is 23:30Z the day before: older, although it sorts later as text.
        let (dir, paths) = runs_in_a_dir(&[
            ("a.json", "Card A", "node1", "2026-12-02T00:00:00Z"),
            ("b.json", "Card A", "node1", "2026-12-02T01:30:00+02:00"),
            ("c.json", "Card A", "node1", "not a time"),
        ]);
        let d = dir.path();
        let (newer, older, garbled) = (paths[0].clone(), paths[1].clone(), paths[2].clone());
        assert_eq!(found(d, false), std::slice::from_ref(&newer));
        let all = found(d, true);
        assert_eq!(
            all,
            [garbled, older, newer.clone()],
            "oldest first, unreadable time first"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let locked = d.join("locked");
            std::fs::create_dir(&locked).expect("mkdir");
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000))
                .expect("chmod");
            // Root reads it anyway (CI runs as root): the case exists only where it is refused.
            let refused = std::fs::read_dir(&locked).is_err();
            let newest = expand(&[d.to_path_buf()], false);
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
            if refused {
                let newest = newest.expect("an unreadable folder below is passed over");
                assert_eq!(newest[0].path, newer);
            }
        }
    }

    /// The scan keeps each run's header (what it groups and orders by), never its document:
    /// the header says what the document says, and the document is read only when the run is
    /// used. A file whose header reads but whose results do not is chosen by the scan and
    /// refused, naming it, when it is loaded.
    #[test]
    fn a_scan_keeps_headers_and_reads_documents_only_when_used() {
        let (dir, paths) = runs_in_a_dir(&[("a.json", "Card A", "node1", "2026-03-01T00:00:00Z")]);
        let inputs = expand(&[dir.path().to_path_buf()], false).expect("expand");
        let header = inputs[0]
            .header
            .clone()
            .expect("a scanned input has its header");
        let (_, doc) = inputs
            .into_iter()
            .next()
            .expect("one")
            .load()
            .expect("loads");
        assert_eq!(header.machine, doc.machine);
        assert_eq!(header.started_at, doc.started_at);

        let text = std::fs::read_to_string(&paths[0]).expect("read");
        let mut value: serde_json::Value = serde_json::from_str(&text).expect("json");
        value["results"] = serde_json::json!([{"id": 7}]);
        std::fs::write(&paths[0], value.to_string()).expect("write");
        let inputs = expand(&[dir.path().to_path_buf()], false).expect("the header still reads");
        let error = inputs
            .into_iter()
            .next()
            .expect("one")
            .load()
            .expect_err("bad results");
        assert!(format!("{error:#}").contains("a.json"), "{error:#}");
    }
}
