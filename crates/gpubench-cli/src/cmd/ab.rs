//! `gpubench ab BASE_BIN HEAD_BIN -- RUN_FLAGS`: a base and a head build judged side by side,
//! on this machine, in the same minutes.
//!
//! Each round runs `BIN run RUN_FLAGS` once with each binary, in alternating order (base first
//! in odd rounds, head first in even ones, so a machine that slows down over the rounds weighs
//! on both alike), each into its own results file in one claimed directory. The rounds are then
//! judged by `gpubench_baseline::paired`: per benchmark, the median of the per-round ratios of
//! the best samples, with the sign test's interval, against the noise band. A benchmark that
//! looks regressed or too noisy is measured again (`--confirm-rounds` more rounds of its suites,
//! or of every suite where `--suite` cannot name one) before the verdict, so one bad minute
//! cannot fail a job; one still too noisy after that gets a second such set (a second look where
//! the rounds disagreed: on a shared machine a slowdown the scheduler hides in some rounds is
//! otherwise left undecided), so a judgement takes at most `--rounds` + 2 x `--confirm-rounds`
//! rounds, and only the undecided rows pay for them. Exit: 4 where the head lost a
//! result the base had (a wrong answer, an error), else 3 where a benchmark regressed, else 6
//! where one stayed too noisy to judge, else 0.
//!
//! The runs are each build's own `run`, with the flags and suites both builds accept (read from
//! each one's `run -h`, see [`accepted`]): an older base is judged on what it can run, what only
//! the head has is left out of both and said, and ids only the head reports are "new". Neither is compared with a stored baseline (each run gets an
//! empty `--baseline-dir` inside the results directory), nor records one.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use gpubench_baseline::paired::{PairedComparison, PairedOptions, PairedRow, judge_rounds};
use gpubench_baseline::verdict::Verdict;
use gpubench_engine::Included;
use gpubench_harness::RunDocument;
use gpubench_report::Format;

use crate::cli::AbArgs;
use crate::exit::{Exit, UsageError};
use crate::signals::StopSignal;
use crate::stdout::print_then;

mod accepted;

/// Flags each run gets from `ab` itself, which RUN_FLAGS may not set.
const OWN_FLAGS: [&str; 7] = [
    "--out",
    "--format",
    "--baseline",
    "--baseline-dir",
    "--save-baseline",
    "--runs",
    "--html",
];

/// Which build a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    Base,
    Head,
}

impl Build {
    fn name(self) -> &'static str {
        match self {
            Build::Base => "base",
            Build::Head => "head",
        }
    }
}

/// Runs the rounds, judges them, prints the verdicts; the exit status as the module says.
pub fn run(args: &AbArgs) -> anyhow::Result<Exit> {
    check_args(args)?;
    let hidden = hidden_flags();
    let common = accepted::common_flags(
        &args.run_flags,
        &accepted::Accepted::of(&args.base)?.with_hidden(&hidden),
        &accepted::Accepted::of(&args.head)?.with_hidden(&hidden),
    )?;
    for line in &common.left_out {
        note!("ab: {line}");
    }
    let (dir, created) = crate::cmd::fleet::claim_results_dir(args.out.as_deref(), "ab")?;
    note!("ab: round results go to {}", dir.display());
    let signals = StopSignal::install();
    let session = Session {
        args,
        flags: &common.flags,
        dir: &dir,
        signals: &signals,
    };
    let mut rounds = Vec::new();
    let played = session.play(0..args.rounds, None, &mut rounds);
    if played.is_err() && created {
        // Removed only while empty, and only if ab made it: a refusal before any round wrote a
        // file leaves nothing, and a folder the user made stays.
        let _ = std::fs::remove_dir(&dir);
    }
    if let Some(stopped) = played? {
        return Ok(stopped);
    }
    let options = PairedOptions { noise: args.noise };
    let mut cmp = judge(&rounds, options);
    for look in [Look::First, Look::Second] {
        if let Some(stopped) = confirm(&session, &cmp, look, &mut rounds)? {
            return Ok(stopped);
        }
        cmp = judge(&rounds, options);
    }
    let width = gpubench_report::layout::terminal_width();
    let text = gpubench_report::paired::render(&cmp, args.format, width)?;
    let exit = exit_for(&cmp);
    if !matches!(args.format, Format::Table | Format::Markdown) {
        // The text formats open with it; machine-readable stdout stays one document.
        note!("{}", gpubench_report::paired::summary_line(&cmp));
    }
    print_then(&text, exit)
}

/// Which set of confirmation rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// For every row that looks regressed or too noisy after the first rounds.
    First,
    /// For the rows still too noisy after the first set (a regression, once confirmed, stays).
    Second,
}

impl Look {
    /// Whether a row with `verdict` is a suspect for this look.
    fn suspects(self, verdict: Verdict) -> bool {
        match self {
            Look::First => matches!(verdict, Verdict::Regressed | Verdict::Inconclusive),
            Look::Second => verdict == Verdict::Inconclusive,
        }
    }
}

/// Plays `--confirm-rounds` more rounds where `cmp` has suspects for `look`, of their suites
/// alone where `--suite` can name each (a suite that joins a run by an option, the fault
/// injection's, cannot be: then of everything); the exit status where a signal stopped them.
fn confirm(
    session: &Session<'_>,
    cmp: &PairedComparison,
    look: Look,
    rounds: &mut Vec<(RunDocument, RunDocument)>,
) -> anyhow::Result<Option<Exit>> {
    let rows: Vec<&gpubench_baseline::PairedRow> = cmp
        .rows
        .iter()
        .filter(|r| look.suspects(r.verdict))
        .collect();
    let suspects: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let suites: BTreeSet<&str> = rows.iter().map(|r| r.suite.as_str()).collect();
    let args = session.args;
    if args.confirm_rounds == 0 || suspects.is_empty() {
        return Ok(None);
    }
    let nameable = suites.iter().all(|name| {
        gpubench_suites::REGISTRY
            .find(name)
            .is_ok_and(|suite| suite.info().included != Included::WhenItsOptionIsGiven)
    });
    let only = nameable.then(|| suites.iter().copied().collect::<Vec<_>>().join(","));
    let shown: Vec<&str> = suspects.iter().copied().take(5).collect();
    note!(
        "ab: {} {} suspect benchmarks ({}{}): {} more rounds of {}",
        match look {
            Look::First => "confirming",
            Look::Second => "still too noisy, a second look at",
        },
        suspects.len(),
        shown.join(", "),
        if suspects.len() > shown.len() {
            ", ..."
        } else {
            ""
        },
        args.confirm_rounds,
        only.as_deref().unwrap_or("every suite")
    );
    let first = u32::try_from(rounds.len()).unwrap_or(u32::MAX);
    let more = first..first.saturating_add(args.confirm_rounds);
    session.play(more, only.as_deref(), rounds)
}

/// The hidden run flags of this gpubench's suites, `--` included, each with whether it takes a
/// value.
fn hidden_flags() -> Vec<(String, bool)> {
    gpubench_suites::REGISTRY
        .options()
        .into_iter()
        .filter(|(_, spec)| spec.hidden)
        .map(|(_, spec)| {
            let takes_value = !matches!(spec.arity, gpubench_engine::Arity::Switch);
            (format!("--{}", spec.flag), takes_value)
        })
        .collect()
}

/// Refuses a round whose two builds did not run alike: on two adapters (a newer wgpu that picks
/// another), or as a debug and a release build. Their timings would differ by that, not by the
/// change, and every row would get a verdict all the same.
fn one_setup((base, head): &(RunDocument, RunDocument)) -> anyhow::Result<()> {
    let (b, h) = (&base.machine, &head.machine);
    if b.fingerprint != h.fingerprint {
        anyhow::bail!(
            "ab: the base build ran on {} ({}), the head build on {} ({}): an A/B compares two builds on one adapter; name it after `--` (`--adapter N`, `--backend B`)",
            b.adapter.name,
            b.fingerprint,
            h.adapter.name,
            h.fingerprint
        );
    }
    if b.build_profile != h.build_profile {
        anyhow::bail!(
            "ab: the base is a {} build and the head a {} build: their timings differ by the build, not the change; build both with the same profile (release)",
            b.build_profile,
            h.build_profile
        );
    }
    Ok(())
}

/// The judgement of `rounds` of (base, head) documents.
fn judge(rounds: &[(RunDocument, RunDocument)], options: PairedOptions) -> PairedComparison {
    let pairs: Vec<(&RunDocument, &RunDocument)> = rounds.iter().map(|(b, h)| (b, h)).collect();
    judge_rounds(&pairs, options)
}

/// 4 where the head lost a result or failed one (the base lacking it or failing it too), 3
/// where one regressed, 6 where one is too noisy, else 0.
fn exit_for(cmp: &PairedComparison) -> Exit {
    // A result the head never wrote, that the base measured, is lost as one it skipped is.
    let failed = |r: &PairedRow| {
        matches!(r.verdict, Verdict::StatusChanged | Verdict::Failed)
            || (r.verdict == Verdict::Missing && r.regression)
    };
    if cmp.rows.iter().any(failed) {
        Exit::BenchmarkFailed
    } else if cmp.regressions().next().is_some() {
        Exit::Regression
    } else if cmp.too_noisy().next().is_some() {
        Exit::TooNoisy
    } else {
        Exit::Success
    }
}

/// Runs `command` to its end, its stderr collected, passing a SIGTERM ab receives on to the run
/// once: one sent to ab alone (a scheduler's `kill -TERM`) would otherwise leave the run
/// measuring on the GPU, and writing its round's file, after ab had ended. The run stays in
/// ab's process group, so a terminal's Ctrl-C and hang-up reach it as they reach ab, once.
fn run_passing_stops(
    command: &mut Command,
    signals: &StopSignal,
) -> std::io::Result<std::process::Output> {
    let mut child = command.spawn()?;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(pipe) = stderr.as_mut() {
            let _ = std::io::Read::read_to_end(pipe, &mut bytes);
        }
        bytes
    });
    let mut passed_on = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if signals.received() == Some(Exit::Sigterm) && !passed_on {
            pass_on_sigterm(&mut child);
            passed_on = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Ok(std::process::Output {
        status,
        stdout: Vec::new(),
        stderr: reader.join().unwrap_or_default(),
    })
}

/// Sends `child` SIGTERM; elsewhere ends it.
fn pass_on_sigterm(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a child's pid and a signal number has no memory effects.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    #[cfg(not(unix))]
    {
        let _ = child.kill();
    }
}

/// A command that runs the file `bin` names: a bare name (`gpubench-copy`) is the file in the
/// current directory that [`check_args`] found, never a program of that name on PATH, where
/// `Command::new` would look for it.
fn binary(bin: &Path) -> Command {
    let mut parts = bin.components();
    let bare = matches!(
        (parts.next(), parts.next()),
        (Some(std::path::Component::Normal(_)), None)
    );
    Command::new(if bare {
        Path::new(".").join(bin)
    } else {
        bin.to_path_buf()
    })
}

/// Refuses, before any run, binaries that are not files and RUN_FLAGS that set what `ab` sets.
fn check_args(args: &AbArgs) -> anyhow::Result<()> {
    for (what, bin) in [("BASE_BIN", &args.base), ("HEAD_BIN", &args.head)] {
        if !bin.is_file() {
            return Err(UsageError(format!(
                "{what} {}: not a file; give the path of a gpubench binary (e.g. target/release/gpubench of each build)",
                bin.display()
            ))
            .into());
        }
    }
    if args.format == Format::Bmf {
        return Err(UsageError(
            "--format bmf holds one run's values, not a paired comparison: use table, json, csv or md"
                .to_string(),
        )
        .into());
    }
    let is_all = |value: &str| value.eq_ignore_ascii_case("all");
    let flags = &args.run_flags;
    for (k, flag) in flags.iter().enumerate() {
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (flag.as_str(), None),
        };
        let every_adapter = name == "--adapter"
            && inline
                .or_else(|| flags.get(k + 1).map(String::as_str))
                .is_some_and(is_all);
        if name == "--export-adapter-names" {
            return Err(UsageError(format!(
                "{name} after `--`: it names the entries of an export, and ab's runs write none; ab prints the paired comparison (--format json, csv or md)"
            ))
            .into());
        }
        // Every export flag (every format's, present and future), which every round's run would
        // write over in turn.
        if name.starts_with("--export-") {
            return Err(UsageError(format!(
                "{name} after `--`: every round's run would write over it, leaving one build's single run; ab prints the paired comparison (--format json, csv or md; redirect it to a file) and keeps every round's results file under --out"
            ))
            .into());
        }
        if OWN_FLAGS.contains(&name) || every_adapter {
            let what = if every_adapter {
                "--adapter all"
            } else {
                flag.as_str()
            };
            return Err(UsageError(format!(
                "{what} after `--`: ab sets each run's results file, format and baselines itself (and runs one adapter)"
            ))
            .into());
        }
    }
    Ok(())
}

/// What every round needs.
struct Session<'a> {
    args: &'a AbArgs,
    /// RUN_FLAGS as both builds accept them.
    flags: &'a [String],
    dir: &'a Path,
    signals: &'a StopSignal,
}

impl Session<'_> {
    /// Plays the rounds `ks` of `suites` (all of RUN_FLAGS' where `None`) into `rounds`; the
    /// exit status where a signal stopped them (the rounds so far stay in their files).
    fn play(
        &self,
        ks: std::ops::Range<u32>,
        suites: Option<&str>,
        rounds: &mut Vec<(RunDocument, RunDocument)>,
    ) -> anyhow::Result<Option<Exit>> {
        for k in ks {
            match self.round(k, suites) {
                Ok(round) => {
                    one_setup(&round)?;
                    rounds.push(round);
                }
                Err(error) => {
                    if let Some(Interrupted(code)) = error.downcast_ref::<Interrupted>() {
                        note!("ab: {error}");
                        self.signals.reported();
                        return Ok(Some(*code));
                    }
                    return Err(error);
                }
            }
        }
        Ok(None)
    }

    /// Round `k` (from 0): both builds, in this round's order, of `suites` where given.
    fn round(&self, k: u32, suites: Option<&str>) -> anyhow::Result<(RunDocument, RunDocument)> {
        let order = if k.is_multiple_of(2) {
            [Build::Base, Build::Head]
        } else {
            [Build::Head, Build::Base]
        };
        let (mut base, mut head) = (None, None);
        for build in order {
            let doc = self.one_run(build, k, suites)?;
            match build {
                Build::Base => base = Some(doc),
                Build::Head => head = Some(doc),
            }
        }
        match (base, head) {
            (Some(base), Some(head)) => Ok((base, head)),
            _ => anyhow::bail!("round {}: a build did not run", k + 1),
        }
    }

    /// One run of `build` in round `k`; its results document.
    fn one_run(&self, build: Build, k: u32, suites: Option<&str>) -> anyhow::Result<RunDocument> {
        let bin = match build {
            Build::Base => &self.args.base,
            Build::Head => &self.args.head,
        };
        let out = self
            .dir
            .join(format!("round{:02}-{}.json", k + 1, build.name()));
        let mut command = binary(bin);
        command.arg("run").args(self.run_flags(suites));
        command
            .args(["--format", "json", "--out"])
            .arg(&out)
            .arg("--baseline-dir")
            .arg(self.dir.join(".no-baselines"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let (rounds, confirm) = (self.args.rounds, self.args.confirm_rounds);
        let which = if k < rounds {
            format!("round {}/{rounds}", k + 1)
        } else {
            format!(
                "confirmation round {} (of at most {})",
                k + 1 - rounds,
                2 * confirm
            )
        };
        note!("ab: {which}: {} ({})", build.name(), bin.display());
        let output = run_passing_stops(&mut command, self.signals)
            .map_err(|e| anyhow::anyhow!("running {} {}: {e}", build.name(), bin.display()))?;
        if let Some(signal) = self.signals.received() {
            anyhow::bail!(Interrupted(signal));
        }
        // 0, or 3 and 4 (a regression against a baseline, a failed benchmark): the file holds
        // the run either way, and the judgement sees its failures.
        if !matches!(output.status.code(), Some(0 | 3 | 4)) {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let said = what_the_run_said(&stderr);
            if output.status.code() == Some(2) {
                return Err(UsageError(format!(
                    "the {} build refused the run flags in {which}: {said}",
                    build.name()
                ))
                .into());
            }
            anyhow::bail!(
                "the {} build's run in {which} ended with {}: {said}",
                build.name(),
                output.status
            );
        }
        gpubench_results::results_file::load_document(&out)
            .map_err(|e| anyhow::anyhow!("the {} build's run {}: {e}", build.name(), k + 1))
    }

    /// The common flags, with `--suite` replaced by `suites` where given.
    fn run_flags(&self, suites: Option<&str>) -> Vec<String> {
        let Some(suites) = suites else {
            return self.flags.to_vec();
        };
        let mut flags = Vec::new();
        let mut skip = false;
        for flag in self.flags {
            if std::mem::take(&mut skip) {
                continue;
            }
            if flag == "--suite" {
                skip = true;
                continue;
            }
            if flag.starts_with("--suite=") {
                continue;
            }
            flags.push(flag.clone());
        }
        flags.extend(["--suite".to_string(), suites.to_string()]);
        flags
    }
}

/// A signal stopped the rounds.
#[derive(Debug)]
struct Interrupted(Exit);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted: the rounds so far are in their files, not judged"
        )
    }
}

impl std::error::Error for Interrupted {}

/// What a run that failed said: its `error:` line (clap and gpubench both start with it), not
/// the hint after it ("For more information, try '--help'."); else its last line.
fn what_the_run_said(stderr: &str) -> &str {
    let lines = || stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| l.starts_with("error:"))
        .or_else(|| lines().next_back())
        .unwrap_or("no message")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bare name runs the file in the current directory, as the check found it; a path runs
    /// as written.
    #[test]
    fn a_bare_binary_name_is_the_file_here_not_a_program_on_path() {
        let program = |bin: &str| binary(Path::new(bin)).get_program().to_owned();
        assert_eq!(program("true"), Path::new(".").join("true").as_os_str());
        assert_eq!(program("target/gpubench"), "target/gpubench");
        assert_eq!(program("./gpubench"), "./gpubench");
        assert_eq!(program("/usr/bin/gpubench"), "/usr/bin/gpubench");
    }

    #[test]
    fn a_failed_run_is_quoted_by_its_error_not_its_hint() {
        let clap = "error: invalid value '0' for '--stream-size <SIZE>': must be at least 1 byte\n\nFor more information, try '--help'.\n";
        assert!(what_the_run_said(clap).starts_with("error: invalid value '0'"));
        assert_eq!(what_the_run_said("panicked\nat the end\n"), "at the end");
        assert_eq!(what_the_run_said(""), "no message");
    }

    #[test]
    fn a_result_the_head_never_wrote_exits_4_as_a_lost_one() {
        let mut base = gpubench_baseline::testing::doc_with("Card", false);
        base.results.truncate(1);
        let mut head = base.clone();
        head.results.clear();
        let rounds: Vec<(RunDocument, RunDocument)> =
            (0..5).map(|_| (base.clone(), head.clone())).collect();
        let cmp = judge(&rounds, PairedOptions::default());
        assert_eq!(exit_for(&cmp), Exit::BenchmarkFailed);
        // Where the base never measured it either, nothing is lost.
        base.results[0].status = gpubench_results::Status::Skipped;
        base.results[0].summary = None;
        let rounds: Vec<(RunDocument, RunDocument)> =
            (0..5).map(|_| (base.clone(), head.clone())).collect();
        assert_eq!(
            exit_for(&judge(&rounds, PairedOptions::default())),
            Exit::Success
        );
    }
}
