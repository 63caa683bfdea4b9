//! The paired gate's two error rates, measured: `gpubench ab` judging a build against itself
//! (A/A: every "regressed" is a false alarm) and against the same build made twice as slow on
//! one row (A/B: every "regressed" is a catch), TRIALS times each, on this machine as it is.
//!
//! The judged row is the self-test suite's paced copy (`--inject-fault pace`, a correct 1 MiB
//! copy) against `--inject-fault half-pace`, the same row whose dispatches copy twice and count
//! once: a real 2x slowdown of the kernel, not a sleep. Both builds are the same binary behind
//! two wrapper scripts, each adding its fault to every `run`; the run is a quick 64 KiB stream
//! suite beside it. The second case of a slowdown is the unchanged build with CPU hogs (busy
//! shell loops, one per core, so the head gets about half of every core: the 2x slowdown the
//! bound is about; one hog on a 2-core machine slows a run by about 1.5x, inside the software
//! band's reach) running beside the head's runs only: the machine, not the code, made slower.
//! Each case's median per-trial ratio is printed with its tallies, so the slowdown judged is
//! stated, not assumed.
//! `cargo xtask gate-rates [TRIALS]` prints the three tallies and the machine's load; `cargo
//! xtask test` runs a 3 + 3 smoke of A/A and A/B, which fails only where the gate is plainly
//! broken (no catch at all, or a false alarm in most A/A trials).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workspace_root;

/// What one trial of `gpubench ab` said about the paced row.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Judged regressed.
    pub regressed: u32,
    /// Judged too noisy to judge.
    pub too_noisy: u32,
    /// Judged unchanged or improved.
    pub passed: u32,
    /// Each trial's median ratio of the judged row (head over base, above 1 faster), where
    /// the judgement had one.
    pub ratios: Vec<f64>,
}

impl Tally {
    fn add(&mut self, verdict: &Verdict) {
        match verdict.verdict.as_str() {
            "regressed" => self.regressed += 1,
            "inconclusive" => self.too_noisy += 1,
            _ => self.passed += 1,
        }
        self.ratios.extend(verdict.ratio);
    }

    /// The median of the trials' ratios, as text ("-" where none had one).
    fn median_ratio(&self) -> String {
        let mut sorted = self.ratios.clone();
        sorted.sort_by(f64::total_cmp);
        match sorted.len() {
            0 => "-".to_string(),
            n if n % 2 == 1 => format!("{:.2}", sorted[n / 2]),
            n => format!("{:.2}", (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
        }
    }
}

/// What one `gpubench ab` said about the judged row: its verdict and its median ratio.
#[derive(Debug, Clone, PartialEq)]
struct Verdict {
    verdict: String,
    ratio: Option<f64>,
}

/// The full measurement: `cargo xtask gate-rates [TRIALS] [CASES]` (20 trials of every case by
/// default; CASES a comma list of `same`, `slow`, `hog`).
pub fn measure(args: &[String]) -> Result<(), String> {
    let trials = match args.first() {
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("'{n}' is not a number of trials"))?,
        None => 20,
    };
    let cases = match args.get(1) {
        Some(list) => list
            .split(',')
            .map(Case::named)
            .collect::<Result<Vec<_>, _>>()?,
        None => ALL_CASES.to_vec(),
    };
    let tallies = run_trials(trials, &cases)?;
    report(trials, &tallies);
    Ok(())
}

/// One kind of trial: which build is the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    /// The base again: every "regressed" is a false alarm.
    Same,
    /// The judged kernel doing twice the work.
    SlowKernel,
    /// The base with a CPU hog beside each of the head's runs.
    Hog,
}

const ALL_CASES: [Case; 3] = [Case::Same, Case::SlowKernel, Case::Hog];

impl Case {
    fn named(name: &str) -> Result<Case, String> {
        match name {
            "same" => Ok(Case::Same),
            "slow" => Ok(Case::SlowKernel),
            "hog" => Ok(Case::Hog),
            other => Err(format!("'{other}' is not a case: same, slow or hog")),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Case::Same => "A/A",
            Case::SlowKernel => "A/B",
            Case::Hog => "A/hog",
        }
    }
}

/// The smoke `cargo xtask test` runs: 3 + 3 trials; fails only on a plainly broken gate.
pub fn smoke() -> Result<(), String> {
    let trials = 3;
    let tallies = run_trials(trials, &[Case::Same, Case::SlowKernel])?;
    report(trials, &tallies);
    let (same, slow) = (&tallies[0].1, &tallies[1].1);
    if slow.regressed == 0 {
        return Err("the paired gate caught none of 3 real 2x slowdowns".to_string());
    }
    if same.regressed >= 2 {
        return Err(format!(
            "the paired gate raised {} false alarms in 3 A/A trials",
            same.regressed
        ));
    }
    Ok(())
}

/// Runs `trials` judgements of each case, interleaved; their tallies, in the order of `cases`.
fn run_trials(trials: u32, cases: &[Case]) -> Result<Vec<(Case, Tally)>, String> {
    let root = workspace_root();
    let bin = crate::test_build::programs()?.gpubench;
    let dir = root.join("target/xtask/gate-rates");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let base = wrapper(&dir, "base", &bin, "pace", false)?;
    let slow = wrapper(&dir, "slow", &bin, "half-pace", false)?;
    let hogged = wrapper(&dir, "hogged", &bin, "pace", true)?;
    eprintln!("gate-rates: load before: {}", load());
    let mut tallies: Vec<(Case, Tally)> = cases.iter().map(|c| (*c, Tally::default())).collect();
    for k in 1..=trials {
        let mut said = Vec::new();
        for (case, tally) in &mut tallies {
            let head = match case {
                Case::Same => &base,
                Case::SlowKernel => &slow,
                Case::Hog => &hogged,
            };
            let out = dir.join(format!("{}-{k}", case.label().replace('/', "")));
            let verdict = judge(&bin, &base, head, &out)?;
            tally.add(&verdict);
            let ratio = verdict
                .ratio
                .map_or_else(String::new, |r| format!(" ({r:.2}x)"));
            said.push(format!("{} {}{ratio}", case.label(), verdict.verdict));
        }
        eprintln!("gate-rates: trial {k}/{trials}: {}", said.join(", "));
    }
    eprintln!("gate-rates: load after: {}", load());
    Ok(tallies)
}

/// A script that runs `bin` with `--inject-fault FAULT` added to every `run`, beside one CPU
/// hog per core (busy shell loops, ended with the run) where `hog` is set.
fn wrapper(dir: &Path, name: &str, bin: &Path, fault: &str, hog: bool) -> Result<PathBuf, String> {
    let path = dir.join(name);
    let bin = bin.display();
    let run = if hog {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        format!(
            "hogs=; for _ in $(seq {cores}); do (while :; do :; done) & hogs=\"$hogs $!\"; done\n  '{bin}' \"$@\" --inject-fault {fault}; rc=$?\n  kill $hogs; exit $rc"
        )
    } else {
        format!("exec '{bin}' \"$@\" --inject-fault {fault}")
    };
    let script =
        format!("#!/bin/sh\nif [ \"$1\" = run ]; then\n  {run}\nfi\nexec '{bin}' \"$@\"\n");
    std::fs::write(&path, script).map_err(|e| format!("writing {}: {e}", path.display()))?;
    let status = Command::new("chmod").arg("+x").arg(&path).status();
    match status {
        Ok(s) if s.success() => Ok(path),
        _ => Err(format!("chmod +x {}", path.display())),
    }
}

/// One `gpubench ab` of `base` and `head`; the paced row's verdict and median ratio.
fn judge(bin: &Path, base: &Path, head: &Path, out: &Path) -> Result<Verdict, String> {
    let output = Command::new(bin)
        .arg("ab")
        .arg(base)
        .arg(head)
        .args([
            "--rounds",
            "5",
            "--confirm-rounds",
            "4",
            "--format",
            "json",
            "--out",
        ])
        .arg(out)
        .args([
            "--",
            "--suite",
            "stream",
            "--stream-size",
            "64KiB",
            "--profile",
            "quick",
        ])
        .args(["--noise-check", "off"])
        .output()
        .map_err(|e| format!("running gpubench ab: {e}"))?;
    // 0, 3 and 6 are judgements; anything else is the harness failing.
    if !matches!(output.status.code(), Some(0 | 3 | 6)) {
        return Err(format!(
            "gpubench ab ended with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let cmp: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("gpubench ab's JSON: {e}"))?;
    cmp["rows"]
        .as_array()
        .and_then(|rows| {
            rows.iter().find(|r| {
                r["id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("selftest/pace/"))
            })
        })
        .and_then(|row| {
            Some(Verdict {
                verdict: row["verdict"].as_str()?.to_string(),
                ratio: row["estimate"]["ratio"].as_f64(),
            })
        })
        .ok_or_else(|| "no selftest/pace row in gpubench ab's judgement".to_string())
}

/// The machine's load averages, as /proc/loadavg says them.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_string())
}

fn report(trials: u32, tallies: &[(Case, Tally)]) {
    println!(
        "paired gate (gpubench ab, 5 rounds + 4 to confirm + 4 more where still too noisy), {trials} trials each:"
    );
    for (case, t) in tallies {
        match case {
            Case::Same => println!(
                "  A/A (unchanged build): {} false alarms, {} too noisy to judge, {} passed; median ratio {}",
                t.regressed,
                t.too_noisy,
                t.passed,
                t.median_ratio()
            ),
            Case::SlowKernel => println!(
                "  A/B (2x slower kernel): {} caught, {} too noisy to judge, {} missed; median ratio {}",
                t.regressed,
                t.too_noisy,
                t.passed,
                t.median_ratio()
            ),
            Case::Hog => println!(
                "  A/hog (unchanged build, a CPU hog per core beside the head): {} caught, {} too noisy to judge, {} missed; median ratio {}",
                t.regressed,
                t.too_noisy,
                t.passed,
                t.median_ratio()
            ),
        }
    }
}
