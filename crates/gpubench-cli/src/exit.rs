//! Exit codes: one table, [`Exit`], from which `--help`'s list is made; the README's table says
//! the same, and a test compares the two as sets.

use std::process::ExitCode;

/// The process exit status of a command: every status gpubench exits with is one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything as expected.
    Success,
    /// An error that ended the command (an unreadable input, a device that failed, an adapter
    /// that is not the one expected).
    Error,
    /// A mistake in the command line (a bad flag or value, an output path that cannot be used);
    /// nothing is written.
    Usage,
    /// A regression was found against the baseline.
    Regression,
    /// A benchmark failed: wrong output or GPU error.
    BenchmarkFailed,
    /// A `doctor` check failed.
    CheckFailed,
    /// Too noisy to judge: the only regressions are timings, each within the noise the runs
    /// measured on themselves, or (`ab`) a benchmark's rounds disagree by more than the band even after
    /// its confirmation rounds. Nothing failed.
    TooNoisy,
    /// `sizing`: no measured arrangement meets the target.
    TargetNotMet,
    /// Stopped by SIGINT (128 + 2, as shells report it).
    Sigint,
    /// Stopped by SIGTERM (128 + 15).
    Sigterm,
    /// Stdout was closed before all of it was written (141 = 128 + SIGPIPE); everything that
    /// does not need stdout was done.
    StdoutClosed,
}

impl Exit {
    /// Every exit status, in the order `--help` lists them.
    pub const ALL: [Exit; 11] = [
        Exit::Success,
        Exit::Error,
        Exit::Usage,
        Exit::Regression,
        Exit::BenchmarkFailed,
        Exit::CheckFailed,
        Exit::TooNoisy,
        Exit::TargetNotMet,
        Exit::Sigint,
        Exit::Sigterm,
        Exit::StdoutClosed,
    ];

    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Error => 1,
            Exit::Usage => 2,
            Exit::Regression => 3,
            Exit::BenchmarkFailed => 4,
            Exit::CheckFailed => 5,
            Exit::TooNoisy => 6,
            Exit::TargetNotMet => 7,
            Exit::Sigint => 130,
            Exit::Sigterm => 143,
            Exit::StdoutClosed => 141,
        }
    }

    /// What the status means, as `--help` says it.
    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Success => "fine",
            Exit::Error => {
                "error (an adapter that is not the one expected, an unreadable file, a device that failed)"
            }
            Exit::Usage => "usage error (a bad flag or value; nothing is written)",
            Exit::Regression => "regression found against the baseline",
            Exit::BenchmarkFailed => "a benchmark failed (wrong output or GPU error)",
            Exit::CheckFailed => "a `gpubench doctor` check failed",
            Exit::TooNoisy => {
                "too noisy to judge (timing regressions only, within the runs' own noise)"
            }
            Exit::TargetNotMet => {
                "`gpubench sizing`: no measured arrangement meets the latency target"
            }
            Exit::Sigint => "interrupted by SIGINT (finished results kept, no baseline written)",
            Exit::Sigterm => "interrupted by SIGTERM (as SIGINT)",
            Exit::StdoutClosed => {
                "stdout was closed (a reader that went away) and nothing else went wrong; every file was still written"
            }
        }
    }

    /// Whether a signal stopped the command.
    pub fn interrupted(self) -> bool {
        matches!(self, Exit::Sigint | Exit::Sigterm)
    }
}

/// The exit-code table of `--help`, made from [`Exit::ALL`] (the README's table says the same;
/// a test compares the two).
pub fn help_table() -> String {
    let mut text = String::from("Exit codes:");
    for exit in Exit::ALL {
        text.push_str(&format!("\n  {:<4} {}", exit.code(), exit.meaning()));
    }
    text
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit.code())
    }
}

/// A mistake in the command line that clap could not catch ([`Exit::Usage`]).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The status of a command that ended in `error`: usage errors [`Exit::Usage`], everything
/// else [`Exit::Error`].
pub fn exit_for(error: &anyhow::Error) -> Exit {
    if error
        .chain()
        .any(|e| e.downcast_ref::<UsageError>().is_some())
    {
        Exit::Usage
    } else {
        Exit::Error
    }
}

/// The error on one line: each cause of the chain once, a cause that the message so far
/// already contains (a path error that embeds its I/O error) left out.
pub fn error_line(error: &anyhow::Error) -> String {
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
    fn every_status_has_its_own_code_and_a_row_in_the_help() {
        let codes: std::collections::BTreeSet<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes.len(), Exit::ALL.len());
        let help = help_table();
        for exit in Exit::ALL {
            assert!(
                help.lines()
                    .any(|l| l.split_whitespace().next() == Some(&exit.code().to_string())),
                "{exit:?} missing from {help}"
            );
        }
        let usage = anyhow::Error::new(UsageError("bad".into())).context("while parsing");
        assert_eq!(exit_for(&usage), Exit::Usage);
        assert_eq!(exit_for(&anyhow::anyhow!("disk")), Exit::Error);
    }

    #[test]
    fn a_cause_is_said_once() {
        let io = std::io::Error::from_raw_os_error(17);
        let text = io.to_string();
        let error = anyhow::Error::new(io).context(format!("b.json: {text}"));
        assert_eq!(error_line(&error), format!("b.json: {text}"));
        let chained = anyhow::anyhow!("root").context("while reading");
        assert_eq!(error_line(&chained), "while reading: root");
    }
}
