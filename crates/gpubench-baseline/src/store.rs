//! The baseline store: one file per adapter, host CPU where it matters, and profile,
//! `<dir>/<key>.json` (see [`baseline_key`]).
//!
//! The adapter's fingerprint (backend, vendor, device, adapter name) is the heart of the key, so
//! a driver update is compared against the same baseline. On a software adapter the device is
//! the host's CPU, which the adapter's name does not say, so the CPU model joins the key; and a
//! `default` run is compared with a `default` baseline, never a `quick` one (the profile joins the
//! key too). Saving merges by suite: the suites of the new run replace theirs, the others stay. Writes go through the results crate's `write_atomic` (temporary
//! file in the same directory, fsync, rename): a crash or a concurrent reader never sees half a
//! baseline. A run with failed results or one that did not complete is refused before anything
//! is written, and so is replacing a stored baseline that cannot be read in full (a newer
//! schema, a damaged file). Savers of one baseline take turns under a lock file the store owns
//! ([`crate::lock`]), waiting a bounded time.
//!
//! The store itself is native-only: a browser page (wasm32) has no files, and keeps its
//! baselines as downloads (or local storage); [`baseline_key`] and [`check_recordable`] are
//! for it too.

#[cfg(not(target_arch = "wasm32"))]
use gpubench_results::warnings::{WarningKind, WarningRecord};
#[cfg(not(target_arch = "wasm32"))]
use std::path::{Path, PathBuf};

use gpubench_results::RunDocument;
#[cfg(not(target_arch = "wasm32"))]
use gpubench_results::results_file::{load_document, save_document};
use gpubench_results::schema::{MachineInfo, slug};

use crate::error::BaselineError;

/// Directory used when neither `--baseline-dir` nor the environment names one.
pub const DEFAULT_DIR: &str = "baselines";
/// Environment variable that overrides [`DEFAULT_DIR`].
pub const DIR_ENV: &str = "GPUBENCH_BASELINE_DIR";

/// How many failed ids an error message lists before eliding the rest.
const IDS_IN_MESSAGE: usize = 3;

/// The file name (without `.json`) of the baseline for runs of `profile` on `machine`:
/// `<fingerprint>[-cpu-<cpu model>]-<profile>`, the CPU only for software adapters.
pub fn baseline_key(machine: &MachineInfo, profile: &str) -> String {
    let mut key = machine.fingerprint.clone();
    if machine.software_adapter {
        key.push_str("-cpu-");
        key.push_str(&slug(&machine.cpu_model));
    }
    key.push('-');
    key.push_str(&slug(profile));
    key
}

#[cfg(not(target_arch = "wasm32"))]
/// What a save did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The file written.
    pub path: PathBuf,
    /// Suites kept from the baseline that was there, which this run did not measure.
    pub kept_suites: Vec<String>,
    /// Why none of the baseline there was kept, where it held other suites but was measured
    /// otherwise than this run (a build of another profile, another clock): kept beside this
    /// run's rows, they would be labelled with this run's build and clock.
    pub replaced_whole: Option<String>,
}

#[cfg(not(target_arch = "wasm32"))]
/// A directory of baselines keyed by [`baseline_key`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineStore {
    dir: PathBuf,
    /// How long a save waits for another saver of the same baseline.
    lock_wait: std::time::Duration,
}

#[cfg(not(target_arch = "wasm32"))]
impl BaselineStore {
    /// A store in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            lock_wait: crate::lock::DEFAULT_WAIT,
        }
    }

    /// The same store, its saves waiting at most `wait` for another saver (see [`crate::lock`]).
    pub fn with_lock_wait(self, wait: std::time::Duration) -> Self {
        Self {
            lock_wait: wait,
            ..self
        }
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds the baseline for `fingerprint`.
    pub fn path_for(&self, fingerprint: &str) -> Result<PathBuf, BaselineError> {
        let safe = !fingerprint.is_empty()
            && !fingerprint.starts_with('.')
            && fingerprint
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !safe {
            return Err(BaselineError::BadFingerprint(fingerprint.to_string()));
        }
        Ok(self.dir.join(format!("{fingerprint}.json")))
    }

    /// The baseline for `fingerprint`, `None` when none was recorded. A file that exists but is
    /// not a readable gpubench result is an error, never silently ignored.
    pub fn load(&self, fingerprint: &str) -> Result<Option<RunDocument>, BaselineError> {
        let path = self.path_for(fingerprint)?;
        if !path.exists() {
            return Ok(None);
        }
        Ok(Some(load_document(&path)?))
    }

    /// Records `doc` as the baseline of its adapter and profile, atomically. The suites `doc`
    /// ran replace theirs; results of other suites in the baseline already there are kept (a
    /// one-suite run does not erase the rest). Refuses (writing nothing) a run with failed
    /// results or one that did not complete.
    pub fn save(&self, doc: &RunDocument) -> Result<Saved, BaselineError> {
        check_recordable(doc)?;
        let path = self.path_for(&baseline_key(&doc.machine, &doc.config.profile))?;
        std::fs::create_dir_all(&self.dir).map_err(|source| BaselineError::Io {
            path: self.dir.clone(),
            source,
        })?;
        // Load, merge and replace under one lock, so two savers of different suites cannot
        // both read the old file and each write it back without the other's suites.
        let _lock = crate::lock::acquire(&path, self.lock_wait)?;
        check_replaceable(&path)?;
        let mut replaced_whole = None;
        let (merged, kept_suites) = match path.exists().then(|| load_document(&path)) {
            Some(Ok(old)) => match measured_otherwise(&old, doc) {
                Some(why) => {
                    replaced_whole = Some(why);
                    (doc.clone(), Vec::new())
                }
                None => merge_by_suite(old, doc),
            },
            // What cannot be read in full (another gpubench's newer schema, a damaged file) is
            // never replaced: its other suites would be lost.
            Some(Err(error)) => {
                return Err(BaselineError::Unreplaceable {
                    path,
                    reason: error.to_string(),
                });
            }
            None => (doc.clone(), Vec::new()),
        };
        save_document(&path, &merged)?;
        Ok(Saved {
            path,
            kept_suites,
            replaced_whole,
        })
    }
}

/// Refuses a stored baseline at `path` that is a link, a FIFO or a directory: the save's
/// rename would replace the link itself (or fail on the rest), so a baseline shared through a
/// link would silently stop being shared. Nothing there, or a regular file, may be replaced.
#[cfg(not(target_arch = "wasm32"))]
pub fn check_replaceable(path: &Path) -> Result<(), BaselineError> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let kind = meta.file_type();
    let (what, advice) = if kind.is_symlink() {
        (
            "a symbolic link",
            "a save would replace the link with a file of its own and leave the file it points to as it was: record into the directory that file is in instead, or remove the link",
        )
    } else if kind.is_dir() {
        ("a directory", "move it away to record a baseline there")
    } else if !kind.is_file() {
        (
            "not a regular file (a FIFO, socket or device)",
            "move it away to record a baseline there",
        )
    } else {
        return Ok(());
    };
    Err(BaselineError::StoredNotRegular {
        path: path.to_path_buf(),
        what,
        advice,
    })
}

/// Why `old`'s other suites cannot stand beside `new`'s rows in one baseline: the file has one
/// machine record, one log filter and one set of options, `new`'s, and a debug build's timings,
/// a host clock's or a verbosely logged run's are not comparable with a release build's, a GPU
/// timestamp's or a quiet run's (a comparison reads them off that record), nor are ids made
/// with other options.
/// `None` where `old` holds no suite `new` lacks, or was measured the same way.
#[cfg(not(target_arch = "wasm32"))]
fn measured_otherwise(old: &RunDocument, new: &RunDocument) -> Option<String> {
    let mut others: Vec<&str> = Vec::new();
    for suite in old.results.iter().map(|r| r.suite.as_str()) {
        if !others.contains(&suite) && !new.results.iter().any(|r| r.suite == suite) {
            others.push(suite);
        }
    }
    let (was, now) = (&old.machine, &new.machine);
    let how = if was.build_profile != now.build_profile {
        format!(
            "it was a {} build, this run a {} build",
            was.build_profile, now.build_profile
        )
    } else if was.timing_source != now.timing_source {
        format!(
            "its timings came from {}, this run's from {}",
            was.timing_source.as_str(),
            now.timing_source.as_str()
        )
    } else if old.config.verbose_logging().is_some() != new.config.verbose_logging().is_some() {
        // The file keeps one log filter, this run's: a quiet suite kept under a verbose one
        // (or the reverse) would make every later comparison of it report-only.
        let said = |doc: &RunDocument| {
            doc.config
                .verbose_logging()
                .map_or("warn or quieter".to_string(), |f| format!("'{f}'"))
        };
        format!("it logged at {}, this run at {}", said(old), said(new))
    } else if !crate::compare::same_options(&old.config.options, &new.config.options) {
        // The file keeps one set of options, this run's: the kept suites' ids (a matmul
        // shape, a stream size) would read as lost by the next run with this run's options.
        "it was run with other options".to_string()
    } else {
        return None;
    };
    (!others.is_empty()).then(|| {
        format!(
            "the baseline there was replaced whole, its suites {} not kept: {how}",
            others.join(", ")
        )
    })
}

/// `new` with the results of `old`'s suites that `new` has no result of (not run, or listed
/// but without a row), after its own; the names of the suites kept. A suite is replaced only by
/// rows of that suite, so a file that names a suite it holds nothing of loses nothing.
#[cfg(not(target_arch = "wasm32"))]
fn merge_by_suite(old: RunDocument, new: &RunDocument) -> (RunDocument, Vec<String>) {
    let mut merged = new.clone();
    let mut kept = Vec::new();
    for result in old.results {
        if new.results.iter().any(|r| r.suite == result.suite) {
            continue;
        }
        if !kept.contains(&result.suite) {
            kept.push(result.suite.clone());
        }
        merged.results.push(result);
    }
    for suite in &kept {
        if !merged.config.suites.contains(suite) {
            merged.config.suites.push(suite.clone());
        }
    }
    if !kept.is_empty() {
        merged.warnings.push(WarningRecord::new(
            WarningKind::BaselineMerged,
            format!(
                "baseline merged: suites {} kept from the run of {}",
                kept.join(", "),
                old.started_at
            ),
            None,
        ));
    }
    (merged, kept)
}

/// Whether `doc` may become a baseline: complete, with results, and none of them failed.
pub fn check_recordable(doc: &RunDocument) -> Result<(), BaselineError> {
    if doc.results.is_empty() {
        return Err(BaselineError::NoResults);
    }
    let failed: Vec<&str> = doc
        .results
        .iter()
        .filter(|r| r.status == gpubench_results::Status::Failed)
        .map(|r| r.id.as_str())
        .collect();
    if !failed.is_empty() {
        let mut ids = failed
            .iter()
            .take(IDS_IN_MESSAGE)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if failed.len() > IDS_IN_MESSAGE {
            ids.push_str(", ...");
        }
        return Err(BaselineError::FailedResults {
            count: failed.len(),
            ids,
        });
    }
    if !doc.complete {
        return Err(BaselineError::Incomplete);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{doc_with, not_ok_result};
    use gpubench_results::Status;

    fn key(doc: &RunDocument) -> String {
        baseline_key(&doc.machine, &doc.config.profile)
    }

    #[test]
    fn save_then_load_round_trips_under_the_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = BaselineStore::new(dir.path().join("nested"));
        let doc = doc_with("NVIDIA Test", false);
        assert!(store.load(&key(&doc)).expect("load").is_none());
        let saved = store.save(&doc).expect("save");
        assert_eq!(
            saved.path,
            dir.path()
                .join("nested")
                .join(format!("{}.json", key(&doc)))
        );
        let loaded = store.load(&key(&doc)).expect("load").expect("present");
        // JSON keeps values to the last few ulps, so compare what identifies the run.
        assert_eq!(loaded.machine, doc.machine);
        assert_eq!(loaded.results.len(), doc.results.len());
        assert_eq!(loaded.results[0].samples, doc.results[0].samples);
    }

    #[test]
    fn refuses_failed_and_interrupted_runs_and_keeps_the_old_baseline() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = BaselineStore::new(dir.path());
        let good = doc_with("NVIDIA Test", false);
        let path = store.save(&good).expect("save").path;
        let before = std::fs::read(&path).expect("read");

        let mut failed = good.clone();
        failed.results.push(not_ok_result(
            "stream/copy",
            Status::Failed,
            "verification failed",
        ));
        let err = store.save(&failed).expect_err("failed run refused");
        assert!(matches!(err, BaselineError::FailedResults { count: 1, .. }));
        assert!(err.to_string().contains("stream/copy"), "{err}");

        let mut interrupted = good.clone();
        interrupted.complete = false;
        let err = store
            .save(&interrupted)
            .expect_err("interrupted run refused");
        assert!(err.to_string().contains("did not complete"), "{err}");

        assert_eq!(std::fs::read(&path).expect("read"), before);
        let files: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").path())
            .collect();
        assert_eq!(
            files.len(),
            2,
            "nothing written but the baseline and its lock: {files:?}"
        );
        assert!(files.contains(&crate::lock::lock_path(&path)));

        // A stored baseline that cannot be read in full is never replaced: its other suites
        // would be lost.
        for stored in [
            // Written by a newer gpubench, with suites this one cannot read.
            "{\"schema_version\": 99, \"results\": [{\"suite\": \"future\"}]}",
            // Damaged.
            "{\"schema_version\": 1",
        ] {
            std::fs::write(&path, stored).expect("write");
            let err = store.save(&good).expect_err("refused");
            let message = err.to_string();
            assert!(message.contains("left as it is"), "{message}");
            assert_eq!(std::fs::read_to_string(&path).expect("read"), stored);
        }
    }

    #[test]
    fn the_key_holds_the_profile_and_on_software_adapters_the_cpu() {
        let gpu = doc_with("NVIDIA Test", false);
        let k = key(&gpu);
        assert!(
            k.starts_with(&gpu.machine.fingerprint)
                && k.ends_with(&format!("-{}", gpu.config.profile))
        );
        assert!(
            !k.contains("-cpu-"),
            "a GPU's baseline does not depend on the host CPU: {k}"
        );
        let mut soft = doc_with("llvmpipe (LLVM 15.0.6, 256 bits)", true);
        let on_epyc = key(&soft);
        assert!(on_epyc.contains("-cpu-test-cpu-"), "{on_epyc}");
        soft.machine.cpu_model = "Intel(R) Xeon(R) Processor".to_string();
        assert_ne!(
            key(&soft),
            on_epyc,
            "another CPU is another software device"
        );
        soft.config.profile = "default".to_string();
        assert!(key(&soft).ends_with("-default"));
        assert!(BaselineStore::new("b").path_for(&key(&soft)).is_ok());
    }

    /// A store holding a baseline of two suites, stream and launch, and that baseline's run.
    fn two_suite_store() -> (tempfile::TempDir, BaselineStore, RunDocument) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = BaselineStore::new(dir.path());
        let mut full = doc_with("NVIDIA Test", false);
        full.config.suites = vec!["stream".to_string(), "launch".to_string()];
        // Every option is recorded, at its default where not given.
        full.config
            .options
            .insert("stream_size".to_string(), serde_json::Value::Null);
        store.save(&full).expect("save");
        (dir, store, full)
    }

    /// A stored baseline that is a link (a team's shared file) is not replaced by a file of
    /// the store's own: the save is refused, the link and its target left as they were.
    #[cfg(unix)]
    #[test]
    fn a_linked_stored_baseline_is_refused_and_left_as_it_is() {
        let (dir, store, full) = two_suite_store();
        let path = store.path_for(&key(&full)).expect("path");
        let shared = dir.path().join("shared.json");
        std::fs::rename(&path, &shared).expect("move");
        std::os::unix::fs::symlink(&shared, &path).expect("link");
        let before = std::fs::read(&shared).expect("read");
        let error = store.save(&full).expect_err("refused");
        assert!(
            matches!(error, BaselineError::StoredNotRegular { .. }),
            "{error}"
        );
        assert!(
            error.to_string().contains("is a symbolic link")
                && error
                    .to_string()
                    .contains("record into the directory that file is in"),
            "{error}"
        );
        let link = std::fs::symlink_metadata(&path).expect("the link is there");
        assert!(link.file_type().is_symlink());
        assert_eq!(std::fs::read(&shared).expect("read"), before);
        // A directory there is named as one.
        std::fs::remove_file(&path).expect("unlink");
        std::fs::create_dir(&path).expect("mkdir");
        let error = store.save(&full).expect_err("refused");
        assert!(error.to_string().contains("is a directory"), "{error}");
    }

    #[test]
    fn a_one_suite_run_replaces_its_suite_and_keeps_the_others() {
        let (_dir, store, full) = two_suite_store();
        let mut stream_only = full.clone();
        stream_only.config.suites = vec!["stream".to_string()];
        stream_only.results.retain(|r| r.suite == "stream");
        assert!(!stream_only.results.is_empty() && stream_only.results.len() < full.results.len());
        let saved = store.save(&stream_only).expect("save");
        assert_eq!(saved.kept_suites, vec!["launch".to_string()]);
        let merged = store.load(&key(&full)).expect("load").expect("present");
        assert_eq!(merged.results.len(), full.results.len());
        assert!(merged.config.suites.contains(&"launch".to_string()));
        assert!(
            merged
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::BaselineMerged && w.message.contains("kept"))
        );
    }

    #[test]
    fn a_run_measured_otherwise_replaces_the_baseline_whole_and_says_so() {
        let (_dir, store, full) = two_suite_store();
        let mut debug_stream = full.clone();
        debug_stream.machine.build_profile = "debug".to_string();
        debug_stream.results.retain(|r| r.suite == "stream");
        let saved = store.save(&debug_stream).expect("save");
        assert!(saved.kept_suites.is_empty());
        let why = saved.replaced_whole.expect("said why launch went");
        assert!(
            why.contains("launch") && why.contains("release build"),
            "{why}"
        );
        let stored = store.load(&key(&full)).expect("load").expect("present");
        assert!(stored.results.iter().all(|r| r.suite == "stream"));

        // Another clock likewise; the same clock and build keep the other suites.
        let (_dir, store, full) = two_suite_store();
        let mut host_timed = full.clone();
        host_timed.machine.timing_source = gpubench_results::TimingSource::Host;
        host_timed.results.retain(|r| r.suite == "launch");
        let saved = store.save(&host_timed).expect("save");
        assert!(saved.replaced_whole.is_some_and(|w| w.contains("stream")));
        // Other options likewise: the kept suites' ids were made with the old ones.
        let (_dir, store, full) = two_suite_store();
        let mut other_options = full.clone();
        other_options
            .config
            .options
            .insert("stream_size".to_string(), serde_json::json!(1 << 20));
        other_options.results.retain(|r| r.suite == "stream");
        let saved = store.save(&other_options).expect("save");
        assert!(
            saved
                .replaced_whole
                .is_some_and(|w| w.contains("other options"))
        );
        // A verbosely logged run likewise: the kept suites would inherit its log filter.
        let (_dir, store, full) = two_suite_store();
        let mut logged = full.clone();
        logged.config.log_filter = Some("debug".into());
        logged.results.retain(|r| r.suite == "stream");
        let saved = store.save(&logged).expect("save");
        let why = saved.replaced_whole.unwrap_or_default();
        assert!(
            why.contains("warn or quieter, this run at 'debug'"),
            "{why}"
        );
        let (_dir, store, full) = two_suite_store();
        let mut same = full.clone();
        same.results.retain(|r| r.suite == "launch");
        let saved = store.save(&same).expect("save");
        assert_eq!((saved.kept_suites.len(), saved.replaced_whole), (1, None));
    }

    #[test]
    fn a_file_with_no_rows_of_a_suite_it_names_keeps_that_suite() {
        let (_dir, store, full) = two_suite_store();
        let path = store.path_for(&key(&full)).expect("a safe key");
        let before = std::fs::read(&path).expect("read");

        let mut empty = full.clone();
        empty.results.clear();
        let err = store
            .save(&empty)
            .expect_err("a file with no results is refused");
        assert!(matches!(err, BaselineError::NoResults), "{err}");
        assert_eq!(std::fs::read(&path).expect("read"), before);

        // Names both suites but holds rows of stream only: launch's stored rows stay.
        let mut stream_rows = full.clone();
        stream_rows.results.retain(|r| r.suite == "stream");
        let saved = store.save(&stream_rows).expect("save");
        assert_eq!(saved.kept_suites, vec!["launch".to_string()]);
        let merged = store.load(&key(&full)).expect("load").expect("present");
        assert_eq!(merged.results.len(), full.results.len());
    }

    #[test]
    fn skipped_results_may_be_recorded() {
        let mut doc = doc_with("NVIDIA Test", false);
        doc.results.push(not_ok_result(
            "stream/f16",
            Status::Skipped,
            "no SHADER_F16",
        ));
        assert!(check_recordable(&doc).is_ok());
    }

    #[test]
    fn unsafe_fingerprints_never_name_files() {
        let store = BaselineStore::new("b");
        for bad in ["", "../etc/passwd", ".hidden", "a/b", "a b"] {
            assert!(store.path_for(bad).is_err(), "{bad}");
        }
        assert!(store.path_for("vulkan-10de-2335-nvidia-h200").is_ok());
    }

    #[test]
    fn unreadable_baseline_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = BaselineStore::new(dir.path());
        let path = store.path_for("fp").expect("path");
        std::fs::write(&path, b"{\"schema_version\": 1").expect("write");
        let err = store.load("fp").expect_err("truncated");
        assert!(err.to_string().contains("fp.json"), "{err}");
    }

    #[test]
    fn concurrent_savers_of_different_suites_keep_both() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = BaselineStore::new(dir.path());
        let base = doc_with("gpu", false);
        // Two one-suite runs of the same adapter: each saver's suite must survive the other's.
        let one_suite = |suite: &str| {
            let mut doc = base.clone();
            for r in &mut doc.results {
                r.suite = suite.to_string();
                r.id = format!("{suite}/{}", r.id);
            }
            doc.config.suites = vec![suite.to_string()];
            doc
        };
        let (a, b) = (one_suite("stream"), one_suite("launch"));
        for _ in 0..20 {
            std::thread::scope(|scope| {
                for doc in [&a, &b] {
                    let store = &store;
                    scope.spawn(move || store.save(doc).expect("save"));
                }
            });
            let key = baseline_key(&base.machine, &base.config.profile);
            let saved = store.load(&key).expect("load").expect("stored");
            let mut suites: Vec<&str> = saved.results.iter().map(|r| r.suite.as_str()).collect();
            suites.dedup();
            suites.sort_unstable();
            assert_eq!(suites, ["launch", "stream"]);
        }
    }
}
