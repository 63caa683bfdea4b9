//! Exit codes (as the README lists them): 0 fine, 1 error, 2 usage error, 3 regression found,
//! 4 a benchmark failed (wrong output or GPU error), 5 a `doctor` check failed, 130/143
//! interrupted by SIGINT/SIGTERM, 141 stdout was closed (as SIGPIPE would end a shell tool;
//! everything else was done).

use std::process::ExitCode;

/// The exit codes as `--help` lists them (the README's table says the same).
pub const EXIT_CODES_HELP: &str = "Exit codes:
  0    fine
  1    error (an adapter that is not the one expected, an unreadable file, a device that failed)
  2    usage error (a bad flag or value; nothing is written)
  3    regression found against the baseline
  4    a benchmark failed (wrong output or GPU error)
  5    a `gpubench doctor` check failed
  130  interrupted by SIGINT, 143 by SIGTERM (finished results kept, no baseline written)
  141  stdout was closed (a reader that went away); every file was still written";

/// The process exit status of a finished command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything as expected.
    Success,
    /// An error that ended the command (a fleet whose adapter could not be run).
    Error,
    /// A regression was found against the baseline.
    Regression,
    /// A benchmark failed: wrong output or GPU error.
    BenchmarkFailed,
    /// A `doctor` check failed.
    CheckFailed,
    /// Stopped by a signal: 130 for SIGINT, 143 for SIGTERM.
    Interrupted(u8),
    /// Stdout was closed before all of it was written (141 = 128 + SIGPIPE); everything that
    /// does not need stdout was done.
    StdoutClosed,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Error => 1,
            Exit::Regression => 3,
            Exit::BenchmarkFailed => 4,
            Exit::CheckFailed => 5,
            Exit::Interrupted(code) => code,
            Exit::StdoutClosed => 141,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
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

/// The error on one line: each cause of the chain once, a cause that the message so far
/// already contains (a path error that embeds its I/O error) left out.
pub fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_is_said_once() {
        let io = std::io::Error::from_raw_os_error(17);
        let text = io.to_string();
        let error = anyhow::Error::new(io).context(format!("b.json: {text}"));
        assert_eq!(one_line(&error), format!("b.json: {text}"));
        let chained = anyhow::anyhow!("root").context("while reading");
        assert_eq!(one_line(&chained), "while reading: root");
    }
}
