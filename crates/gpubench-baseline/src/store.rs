//! The baseline store: one file per adapter fingerprint, `<dir>/<fingerprint>.json`.
//!
//! The fingerprint (backend, vendor, device, adapter name) is the key, so a driver update is
//! compared against the same baseline. Writes go through the harness's `write_atomic` (temporary
//! file in the same directory, fsync, rename): a crash or a concurrent reader never sees half a
//! baseline. A run with failed results or one that did not complete is refused before anything
//! is written.

use std::path::{Path, PathBuf};

use gpubench_harness::RunDocument;
use gpubench_harness::results_file::{load_document, save_document};

use crate::error::BaselineError;

/// Directory used when neither `--baseline-dir` nor the environment names one.
pub const DEFAULT_DIR: &str = "baselines";
/// Environment variable that overrides [`DEFAULT_DIR`].
pub const DIR_ENV: &str = "GPUBENCH_BASELINE_DIR";

/// How many failed ids an error message lists before eliding the rest.
const IDS_IN_MESSAGE: usize = 3;

/// A directory of baselines keyed by fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineStore {
    dir: PathBuf,
}

impl BaselineStore {
    /// A store in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The store named by `flag`, else by `GPUBENCH_BASELINE_DIR`, else `baselines/`.
    pub fn resolve(flag: Option<&Path>) -> Self {
        match flag {
            Some(dir) => Self::new(dir),
            None => match std::env::var_os(DIR_ENV) {
                Some(dir) if !dir.is_empty() => Self::new(dir),
                _ => Self::new(DEFAULT_DIR),
            },
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

    /// Records `doc` as the baseline of its adapter, atomically, and returns the file written.
    /// Refuses (writing nothing) a run with failed results or one that did not complete.
    pub fn save(&self, doc: &RunDocument) -> Result<PathBuf, BaselineError> {
        check_recordable(doc)?;
        let path = self.path_for(&doc.machine.fingerprint)?;
        std::fs::create_dir_all(&self.dir).map_err(|source| BaselineError::Io {
            path: self.dir.clone(),
            source,
        })?;
        save_document(&path, doc)?;
        Ok(path)
    }
}

/// Whether `doc` may become a baseline: complete, and no result failed.
pub fn check_recordable(doc: &RunDocument) -> Result<(), BaselineError> {
    let failed: Vec<&str> = doc
        .results
        .iter()
        .filter(|r| r.status == gpubench_harness::Status::Failed)
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
    use gpubench_harness::Status;

    #[test]
    fn save_then_load_round_trips_under_the_fingerprint() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = BaselineStore::new(dir.path().join("nested"));
        let doc = doc_with("NVIDIA Test", false);
        assert!(
            store
                .load(&doc.machine.fingerprint)
                .expect("load")
                .is_none()
        );
        let path = store.save(&doc).expect("save");
        assert_eq!(
            path,
            dir.path()
                .join("nested")
                .join(format!("{}.json", doc.machine.fingerprint))
        );
        let loaded = store
            .load(&doc.machine.fingerprint)
            .expect("load")
            .expect("present");
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
        let path = store.save(&good).expect("save");
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
        let files = std::fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(files, 1, "nothing else written");
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
    fn flag_wins_over_default() {
        let store = BaselineStore::resolve(Some(Path::new("/tmp/x")));
        assert_eq!(store.dir(), Path::new("/tmp/x"));
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
}
