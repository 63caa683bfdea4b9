//! Progress on stderr: the elapsed time, a bar that never moves backwards, an estimate of the
//! time left, and the suite, benchmark and phase being worked on. indicatif hides it when stderr
//! is not a terminal.
//!
//! Suites build their benchmarks (and autotune) only when their turn comes, so the number of
//! benchmarks is not known up front. The bar therefore gives each suite an equal share and
//! fills a suite's share as its benchmarks finish; the estimate is as good as that assumption.
//! A steady tick (twice a second) keeps the spinner and the clock moving while a phase blocks
//! (autotuning a suite, a long sample); a redraw costs microseconds of one CPU core, far below
//! the run-to-run noise of any measurement here.

use std::time::Duration;

use gpubench_harness::runner::{Phase, RunObserver};
use gpubench_harness::{BenchResult, BenchmarkInfo};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Bar units per suite.
const SHARE: u64 = 1000;

/// Where the bar stands: suites started, and the current suite's benchmarks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Position {
    suites: u64,
    suite: u64,
    planned: u64,
    finished: u64,
    /// The current suite announced itself as preparing and has not planned yet.
    preparing: bool,
}

impl Position {
    fn length(&self) -> u64 {
        self.suites.max(self.suite) * SHARE
    }

    fn units(&self) -> u64 {
        let done_suites = self.suite.saturating_sub(1) * SHARE;
        let within = match self.planned {
            0 => 0,
            n => self.finished.min(n) * SHARE / n,
        };
        done_suites + within
    }

    fn next_suite(&mut self) {
        self.suite += 1;
        self.planned = 0;
        self.finished = 0;
    }

    fn preparing(&mut self) {
        self.next_suite();
        self.preparing = true;
    }

    /// A suite's benchmarks are built; a suite that did not announce itself starts here.
    fn planned(&mut self, count: usize) {
        if !self.preparing {
            self.next_suite();
        }
        self.preparing = false;
        self.planned = count as u64;
    }

    fn finished(&mut self) {
        self.finished += 1;
    }
}

/// A bar over the whole run, its message naming the suite, benchmark and phase.
pub struct Progress {
    bar: ProgressBar,
    position: Position,
    suite_name: String,
    current: String,
}

impl Progress {
    /// A bar for a run of `suites` suites; hidden when `enabled` is false or stderr is no
    /// terminal.
    pub fn new(suites: usize, enabled: bool) -> Self {
        let target = if enabled {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let position = Position {
            suites: suites as u64,
            ..Position::default()
        };
        let bar = ProgressBar::with_draw_target(Some(position.length()), target);
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} {elapsed_precise} [{bar:24}] {percent:>3}% ~{eta} left  {msg}",
        ) {
            bar.set_style(style);
        }
        if enabled {
            bar.enable_steady_tick(Duration::from_millis(500));
        }
        Self {
            bar,
            position,
            suite_name: String::new(),
            current: String::new(),
        }
    }

    fn redraw(&self, what: &str) {
        self.bar.set_length(self.position.length());
        self.bar.set_position(self.position.units());
        let within = match self.position.planned {
            0 => String::new(),
            n => format!(" {}/{n}", self.position.finished),
        };
        self.bar.set_message(format!(
            "suite {}/{} {}{within}: {what}",
            self.position.suite,
            self.position.suites.max(self.position.suite),
            self.suite_name
        ));
    }

    /// Says which suite is preparing (building, autotuning) its benchmarks.
    pub fn preparing(&mut self, suite: &str) {
        self.position.preparing();
        self.suite_name = suite.to_string();
        self.redraw("preparing (autotuning where the suite does)");
    }

    /// A suite has built its `count` benchmarks.
    pub fn add_benchmarks(&mut self, count: usize) {
        self.position.planned(count);
        self.redraw("starting");
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl RunObserver for Progress {
    fn started(&mut self, _index: usize, _total: usize, info: &BenchmarkInfo) {
        self.current = info.id.clone();
        if self.suite_name.is_empty() {
            self.suite_name = info.suite.clone();
        }
        self.redraw(&self.current.clone());
    }

    fn phase(&mut self, phase: Phase) {
        let name = match phase {
            Phase::Setup => "set-up",
            Phase::Verify => "verifying",
            Phase::Calibrate => "calibrating",
            Phase::WarmUp => "warming up",
            Phase::Sample => "sampling",
        };
        self.redraw(&format!("{} ({name})", self.current));
    }

    fn sampled(&mut self, taken: usize, max: usize) {
        self.redraw(&format!("{} (sample {taken}/{max})", self.current));
    }

    fn finished(&mut self, result: &BenchResult) {
        self.position.finished();
        self.redraw(&self.current.clone());
        if result.status != gpubench_harness::Status::Ok {
            self.bar.println(format!(
                "{} {}: {}",
                result.id,
                result.status.as_str(),
                result.reason.as_deref().unwrap_or("")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step of a run, with the bar's units after it.
    fn walk(suites: u64, steps: &[&str]) -> Vec<(u64, u64)> {
        let mut p = Position {
            suites,
            ..Position::default()
        };
        steps
            .iter()
            .map(|step| {
                match *step {
                    "prepare" => p.preparing(),
                    "plan2" => p.planned(2),
                    "plan0" => p.planned(0),
                    "plan40" => p.planned(40),
                    "done" => p.finished(),
                    other => panic!("{other}"),
                }
                (p.units(), p.length())
            })
            .collect()
    }

    #[test]
    fn the_bar_never_moves_backwards_and_ends_full() {
        let steps = [
            "prepare", "plan2", "done", "done", // a suite of two
            "prepare", "plan40", "done", // a big suite, one done
            "prepare", "plan0", // a suite with nothing to run
        ];
        let trace = walk(3, &steps);
        let units: Vec<u64> = trace.iter().map(|(u, _)| *u).collect();
        assert!(units.windows(2).all(|w| w[0] <= w[1]), "{units:?}");
        assert!(trace.iter().all(|(u, len)| u <= len && *len == 3 * SHARE));
        assert_eq!(units[3], SHARE, "the first suite fills its share");
        assert_eq!(units[6], SHARE + SHARE / 40);
    }

    #[test]
    fn a_suite_that_does_not_announce_itself_still_advances_and_grows_the_bar() {
        // Injected faults run as one more step that builds without preparing.
        let trace = walk(1, &["prepare", "plan2", "done", "done", "plan2", "done"]);
        assert_eq!(trace[3], (SHARE, SHARE));
        assert_eq!(
            trace[4],
            (SHARE, 2 * SHARE),
            "the bar grows, the position stays"
        );
        assert_eq!(trace[5], (SHARE + SHARE / 2, 2 * SHARE));
    }
}
