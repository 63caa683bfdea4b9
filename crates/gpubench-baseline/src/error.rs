//! Typed errors of the baseline store. Each message says why and what to do.

use std::path::PathBuf;

use gpubench_results::ResultsError;

/// Why a baseline could not be read or recorded.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The run has failed results; a wrong answer must never become the reference.
    #[error(
        "not recording a baseline: {count} result(s) failed ({ids}); fix the failures and run again, a run with failed results never becomes a baseline"
    )]
    FailedResults {
        /// How many results failed.
        count: usize,
        /// The first few failed ids, comma-separated.
        ids: String,
    },
    /// The run was interrupted (or is still running), so it is missing results.
    #[error(
        "not recording a baseline: the run did not complete (interrupted); run it again to the end"
    )]
    Incomplete,
    /// The results file holds no result at all: as a baseline it would replace the stored
    /// figures with nothing.
    #[error(
        "not recording a baseline: the results file holds no results; record a run that measured something"
    )]
    NoResults,
    /// The fingerprint cannot name a file safely (it came from a file someone could edit).
    #[error(
        "fingerprint '{0}' cannot name a baseline file (only letters, digits, '-', '_' and '.' are allowed)"
    )]
    BadFingerprint(String),
    /// Creating the baseline directory failed.
    #[error("{path}: {source}")]
    Io {
        /// The directory concerned.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Another saver held the baseline's lock for the whole bounded wait.
    #[error(
        "not recording a baseline: another gpubench{} holds the lock {path} and has for {waited_s:.1} s; a save takes milliseconds, so look for a stuck gpubench (or another program holding that file), then run again",
        holder.as_ref().map(|h| format!(" ({h})")).unwrap_or_default()
    )]
    LockBusy {
        /// The lock file.
        path: PathBuf,
        /// Who holds it, as its holder wrote it (`process N`), when that can be read.
        holder: Option<String>,
        /// How long this save waited, seconds.
        waited_s: f64,
    },
    /// Something that is not a regular file (a link, a FIFO) sits where the lock file goes.
    #[error(
        "not recording a baseline: {path} is not a regular file (a link or a FIFO); the store locks only a file it owns there: remove it, then run again"
    )]
    LockNotRegular {
        /// The lock file's path.
        path: PathBuf,
    },
    /// The stored baseline is a link, a directory or another thing than a regular file, which a
    /// save's rename would replace (a link: the file it points to would never change) or fail on.
    #[error("not recording a baseline: the stored baseline {path} is {what}; {advice}")]
    StoredNotRegular {
        /// The stored baseline's path.
        path: PathBuf,
        /// What is there ("a symbolic link", "a directory", ...).
        what: &'static str,
        /// What to do about it.
        advice: &'static str,
    },
    /// The stored baseline exists but cannot be read in full, so replacing it could lose
    /// suites this run did not measure.
    #[error(
        "not recording a baseline: the stored baseline {path} cannot be read in full ({reason}); it is left as it is: upgrade gpubench if a newer one wrote it, or move the file away to start a new baseline"
    )]
    Unreplaceable {
        /// The stored baseline.
        path: PathBuf,
        /// Why it cannot be read.
        reason: String,
    },
    /// Reading or writing the document failed (the message names the file).
    #[error(transparent)]
    Results(#[from] ResultsError),
}
