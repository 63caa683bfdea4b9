//! Typed errors of reading and writing results. Each message says what to do about it.

use std::path::PathBuf;

/// Errors from reading, writing and serialising result documents.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A results file could not be read as a gpubench document.
    #[error("{path}: {reason}")]
    BadDocument {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A results file written by a newer gpubench, whose schema this one does not read.
    #[error(
        "{path}: schema_version {version} is newer than this gpubench reads ({}): upgrade gpubench",
        crate::schema::SCHEMA_VERSION
    )]
    NewerSchema {
        /// The file concerned.
        path: PathBuf,
        /// The schema version it was written with.
        version: u64,
    },
    /// A result document could not be serialised.
    #[error("could not serialise results: {0}")]
    Serialize(#[from] serde_json::Error),
}

impl ResultsError {
    /// Whether this is a write that found a file already at its path
    /// ([`crate::results_file::save_new_document`]).
    pub fn already_exists(&self) -> bool {
        matches!(self, ResultsError::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists)
    }
}
