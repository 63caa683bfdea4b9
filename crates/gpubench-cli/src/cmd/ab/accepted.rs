//! What each build's `run` accepts, so that an older base is judged on what both builds can
//! run: the flags and suites are read from each binary's own `run -h` (the one interface every
//! gpubench build has), and RUN_FLAGS are cut to what both accept. A flag or suite only the
//! head has is left out of both builds' runs, and said; one the head does not accept is the
//! user's mistake and refused, as the head's own `run` would refuse it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Stdio;

use crate::exit::UsageError;

/// The flags (with whether each takes a value) and suites one build's `run` accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Accepted {
    /// Long flag names, `--` included, and whether each takes a value.
    flags: BTreeMap<String, bool>,
    /// The values `--suite` accepts, where its help lists them.
    suites: BTreeSet<String>,
}

impl Accepted {
    /// With the hidden flags of this gpubench's suites (`--inject-fault`), each with whether it
    /// takes a value: `run -h` never lists them, though a build of this generation takes them.
    /// A build that does not refuses its run with exit 2, which ab reports as such.
    pub fn with_hidden(mut self, hidden: &[(String, bool)]) -> Self {
        if self.understood() {
            self.flags.extend(hidden.iter().cloned());
        }
        self
    }

    /// What `bin run -h` lists; an error where the binary does not answer it.
    pub fn of(bin: &Path) -> anyhow::Result<Accepted> {
        let output = super::binary(bin)
            .args(["run", "-h"])
            // One line per flag: clap wraps its help at COLUMNS.
            .env("COLUMNS", "100000")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(|e| anyhow::anyhow!("running {} run -h: {e}", bin.display()))?;
        if !output.status.success() {
            anyhow::bail!(
                "{} run -h ended with {}: is it a gpubench binary?",
                bin.display(),
                output.status
            );
        }
        Ok(Accepted::parse(&String::from_utf8_lossy(&output.stdout)))
    }

    /// The flags and suites of a `run -h` text: each option line's long name, whether a
    /// `<VALUE>` follows it, and the `[possible values: ...]` of `--suite`.
    pub fn parse(help: &str) -> Accepted {
        let mut accepted = Accepted::default();
        let lines: Vec<&str> = help.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(start) = line.find("--") else {
                continue;
            };
            // An option line starts with its flags: `  -h, --help` or `      --suite <SUITE>`.
            let head = line[..start].trim();
            let short = head.len() == 3 && head.starts_with('-') && head.ends_with(',');
            if !head.is_empty() && !short {
                continue;
            }
            let rest = &line[start..];
            let name: String = rest
                .chars()
                .take_while(|c| *c == '-' || c.is_ascii_alphanumeric())
                .collect();
            if name.len() <= 2 {
                continue;
            }
            let takes_value = rest[name.len()..].starts_with(" <");
            if name == "--suite" {
                // The list may wrap onto the description's next lines.
                let mut text = rest.to_string();
                for next in lines.iter().skip(i + 1).take(8) {
                    if text.contains(']') || next.trim_start().starts_with('-') {
                        break;
                    }
                    text.push(' ');
                    text.push_str(next.trim());
                }
                accepted.suites = possible_values(&text);
            }
            accepted.flags.insert(name, takes_value);
        }
        accepted
    }

    /// Whether the help text was read as a gpubench `run`'s (it names `--suite`).
    fn understood(&self) -> bool {
        self.flags.contains_key("--suite")
    }
}

/// The names inside `[possible values: a, b, c]`, where the line has them.
fn possible_values(line: &str) -> BTreeSet<String> {
    const OPEN: &str = "[possible values: ";
    let Some(start) = line.find(OPEN) else {
        return BTreeSet::new();
    };
    let inner = &line[start + OPEN.len()..];
    let inner = inner.split(']').next().unwrap_or("");
    inner
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

/// RUN_FLAGS cut to what both builds accept, and a line for each thing left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommonFlags {
    /// The flags both runs get.
    pub flags: Vec<String>,
    /// What was left out, and why, one line each.
    pub left_out: Vec<String>,
}

/// `run_flags` cut to what `base` and `head` both accept. A flag or suite the head refuses is
/// a usage error; one only the base refuses is left out of both runs. Where either help text
/// could not be read (not a gpubench `run -h`), the flags pass unchanged, and it is said.
pub fn common_flags(
    run_flags: &[String],
    base: &Accepted,
    head: &Accepted,
) -> Result<CommonFlags, UsageError> {
    let mut common = CommonFlags {
        flags: Vec::new(),
        left_out: Vec::new(),
    };
    if !base.understood() || !head.understood() {
        common.flags = run_flags.to_vec();
        common.left_out.push(
            "the builds' `run -h` could not be read: every flag goes to both as given".to_string(),
        );
        return Ok(common);
    }
    let mut tokens = run_flags.iter();
    while let Some(token) = tokens.next() {
        let Some((name, inline)) = long_flag(token) else {
            common.flags.push(token.clone());
            continue;
        };
        let Some(&takes_value) = head.flags.get(name) else {
            return Err(UsageError(format!(
                "{name} after `--`: the head build's `run` does not accept it (see HEAD_BIN run --help)"
            )));
        };
        let value = match (inline, takes_value) {
            (Some(v), _) => Some(v.to_string()),
            (None, true) => tokens.next().cloned(),
            (None, false) => None,
        };
        if !base.flags.contains_key(name) {
            common.left_out.push(format!(
                "{token}{}: the base build does not accept it, so neither run gets it",
                if inline.is_none() && takes_value {
                    value
                        .as_deref()
                        .map(|v| format!(" {v}"))
                        .unwrap_or_default()
                } else {
                    String::new()
                }
            ));
            continue;
        }
        let value = match (name, value) {
            ("--suite", Some(list)) => Some(common_suites(&list, base, head, &mut common)?),
            (_, value) => value,
        };
        common.flags.push(name.to_string());
        common.flags.extend(value);
    }
    Ok(common)
}

/// The suites of a `--suite` list both builds accept; a usage error where none is left or the
/// head refuses one.
fn common_suites(
    list: &str,
    base: &Accepted,
    head: &Accepted,
    common: &mut CommonFlags,
) -> Result<String, UsageError> {
    let mut kept = Vec::new();
    for suite in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !head.suites.is_empty() && !head.suites.contains(suite) {
            return Err(UsageError(format!(
                "--suite {suite} after `--`: the head build has no such suite (see HEAD_BIN run --help)"
            )));
        }
        if !base.suites.is_empty() && !base.suites.contains(suite) {
            common.left_out.push(format!(
                "suite {suite}: the base build has no such suite, so neither run has it"
            ));
            continue;
        }
        kept.push(suite);
    }
    if kept.is_empty() {
        return Err(UsageError(format!(
            "--suite {list} after `--`: no suite of it is in both builds, so there is nothing to judge side by side"
        )));
    }
    Ok(kept.join(","))
}

/// A long flag's name and its `=value`, where `token` is one.
fn long_flag(token: &str) -> Option<(&str, Option<&str>)> {
    if !token.starts_with("--") || token.len() <= 2 {
        return None;
    }
    Some(match token.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (token, None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW_HELP: &str = "Run benchmark suites\n\nUsage: gpubench run [OPTIONS]\n\nOptions:\n      --suite <SUITE>              Suites to run [possible values: stream, transfer, datapath, all]\n      --profile <PROFILE>          Sizes [default: default] [possible values: quick, default, full]\n      --stream-size <SIZE>         Bytes per stream array, e.g. 64MiB (binary units).\n      --no-coop-matrix             Leave out the cooperative-matrix kernels\n                                   (or set `--shader-checks on`)\n      --request <REQUEST>          A request, e.g. in=256MiB\n  -h, --help                       Print help (see more with '--help')\n";
    const OLD_HELP: &str = "Run benchmark suites\n\nUsage: gpubench run [OPTIONS]\n\nOptions:\n      --suite <SUITE>              Suites to run [possible values: stream,\n                                   transfer, all]\n      --profile <PROFILE>          Sizes [default: default] [possible values: quick, default, full]\n      --stream-size <SIZE>         Bytes per stream array, e.g. 64MiB (binary units).\n  -h, --help                       Print help (see more with '--help')\n";

    fn flags(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn a_help_text_gives_flags_their_values_and_the_suites() {
        let new = Accepted::parse(NEW_HELP);
        assert_eq!(new.flags.get("--suite"), Some(&true));
        assert_eq!(new.flags.get("--no-coop-matrix"), Some(&false));
        assert_eq!(new.flags.get("--help"), Some(&false));
        // A flag named in a description's wrapped line is not an option.
        assert!(!new.flags.contains_key("--shader-checks"));
        assert_eq!(
            new.suites.iter().map(String::as_str).collect::<Vec<_>>(),
            ["all", "datapath", "stream", "transfer"]
        );
    }

    #[test]
    fn what_only_the_head_has_is_left_out_of_both_runs_and_said() {
        let (old, new) = (Accepted::parse(OLD_HELP), Accepted::parse(NEW_HELP));
        let given = flags(&[
            "--profile",
            "quick",
            "--request",
            "in=1MiB",
            "--suite=stream,datapath",
            "--no-coop-matrix",
        ]);
        let common = common_flags(&given, &old, &new).expect("both accept some");
        assert_eq!(
            common.flags,
            flags(&["--profile", "quick", "--suite", "stream"])
        );
        assert_eq!(common.left_out.len(), 3, "{:?}", common.left_out);
        assert!(common.left_out[0].starts_with("--request in=1MiB:"));
        assert!(common.left_out[1].contains("suite datapath"));
        assert!(common.left_out[2].starts_with("--no-coop-matrix:"));
    }

    #[test]
    fn the_same_build_twice_keeps_every_flag() {
        let new = Accepted::parse(NEW_HELP);
        let given = flags(&[
            "--suite",
            "datapath",
            "--request=in=1MiB",
            "--profile",
            "quick",
        ]);
        let common = common_flags(&given, &new, &new).expect("accepted");
        assert_eq!(
            common.flags,
            flags(&[
                "--suite",
                "datapath",
                "--request",
                "in=1MiB",
                "--profile",
                "quick"
            ])
        );
        assert!(common.left_out.is_empty());
    }

    #[test]
    fn what_the_head_refuses_or_nothing_in_common_is_a_usage_error() {
        let (old, new) = (Accepted::parse(OLD_HELP), Accepted::parse(NEW_HELP));
        let typo = common_flags(&flags(&["--profle", "quick"]), &old, &new);
        assert!(typo.is_err_and(|e| e.0.contains("--profle")));
        let unknown = common_flags(&flags(&["--suite", "fft"]), &old, &new);
        assert!(unknown.is_err_and(|e| e.0.contains("no such suite")));
        let none = common_flags(&flags(&["--suite", "datapath"]), &old, &new);
        assert!(none.is_err_and(|e| e.0.contains("nothing to judge")));
    }

    #[test]
    fn an_unreadable_help_passes_the_flags_unchanged_and_says_so() {
        let new = Accepted::parse(NEW_HELP);
        let odd = Accepted::parse("usage: something else entirely");
        let given = flags(&["--profile", "quick"]);
        let common = common_flags(&given, &odd, &new).expect("passed through");
        assert_eq!(common.flags, given);
        assert_eq!(common.left_out.len(), 1);
    }
}
