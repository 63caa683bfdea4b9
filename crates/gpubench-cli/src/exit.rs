//! Exit codes (as the README lists them): 0 fine, 1 error, 2 usage error, 3 regression found,
//! 4 a benchmark failed (wrong output or GPU error), 5 a `doctor` check failed, 130/143
//! interrupted by SIGINT/SIGTERM.

use std::process::ExitCode;

/// The process exit status of a finished command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything as expected.
    Success,
    /// A regression was found against the baseline.
    Regression,
    /// A benchmark failed: wrong output or GPU error.
    BenchmarkFailed,
    /// A `doctor` check failed.
    CheckFailed,
    /// Stopped by a signal: 130 for SIGINT, 143 for SIGTERM.
    Interrupted(u8),
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(match exit {
            Exit::Success => 0,
            Exit::Regression => 3,
            Exit::BenchmarkFailed => 4,
            Exit::CheckFailed => 5,
            Exit::Interrupted(code) => code,
        })
    }
}

/// A mistake in the command line that clap could not catch (exit 2).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Usage errors exit 2, everything else 1.
pub fn code_for(error: &anyhow::Error) -> ExitCode {
    if error
        .chain()
        .any(|e| e.downcast_ref::<UsageError>().is_some())
    {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}
