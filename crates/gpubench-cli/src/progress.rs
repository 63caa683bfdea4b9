//! Progress on stderr, in one of two forms:
//!
//! - **bar** (on a terminal): the elapsed time, a bar that never moves backwards, and the suite,
//!   benchmark and phase being worked on. A steady tick (twice a second) keeps the spinner and
//!   the clock moving while a phase blocks (autotuning a suite, a long sample); a redraw costs
//!   microseconds of one CPU core, far below the run-to-run noise of any measurement here.
//! - **plain** (stderr piped or logged, as in CI): one line when a suite starts and one per
//!   finished benchmark, with its status and median, as hyperfine and criterion print; and a
//!   "still working" line after a minute without one (a long autotune), because CI systems end
//!   steps that are silent for ten minutes.
//!
//! Suites build their benchmarks (and autotune) only when their turn comes, so the number of
//! benchmarks is not known up front. The bar therefore gives each suite an equal share and
//! fills a suite's share as its benchmarks finish. It shows no estimate of the time left: the
//! suites' durations differ by more than ten times (autotuned matmul is most of a default run
//! on a CPU adapter, a small share on a GPU), so any estimate from equal shares is wrong by
//! several times.

use std::io::Write as _;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gpubench_harness::runner::{Phase, RunObserver};
use gpubench_harness::{BenchResult, BenchmarkInfo, Status};
use gpubench_report::numbers::{printable, sig3};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How progress is shown (`--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// A bar when stderr is a terminal, plain lines otherwise.
    Auto,
    /// A bar (drawn only when stderr is a terminal).
    Bar,
    /// One line per suite and per finished benchmark.
    Plain,
    /// Nothing.
    Off,
}

impl ProgressMode {
    /// The form `self` takes when stderr is (or is not) a terminal: never `Auto`.
    pub fn resolve(self, stderr_is_terminal: bool) -> Self {
        match self {
            Self::Auto if stderr_is_terminal => Self::Bar,
            Self::Auto => Self::Plain,
            other => other,
        }
    }
}

/// How long plain progress may stay silent before it says what it is still doing.
const HEARTBEAT: Duration = Duration::from_secs(60);

/// Bar units per suite.
const SHARE: u64 = 1000;

/// Where the bar stands: suites started, the current suite's stages (one per autotuned matmul
/// product, one for most suites) and the current stage's benchmarks. A suite's share is split
/// evenly between its stages, so a stage that adds benchmarks never moves the bar backwards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Position {
    suites: u64,
    suite: u64,
    /// Stages the current suite announced (1 when it did not say).
    stages: u64,
    /// Stages of the current suite that have built their benchmarks.
    stage: u64,
    /// Benchmarks of the current stage, and how many of them finished.
    planned: u64,
    finished: u64,
    /// Benchmarks of the current suite so far, over all its stages, and how many finished.
    suite_planned: u64,
    suite_finished: u64,
    /// The current suite announced itself as preparing.
    announced: bool,
}

impl Position {
    fn length(&self) -> u64 {
        self.suites.max(self.suite) * SHARE
    }

    fn units(&self) -> u64 {
        let done_suites = self.suite.saturating_sub(1) * SHARE;
        let stages = self.stages.max(1);
        let done_stages = self.stage.saturating_sub(1).min(stages) * SHARE;
        let within = match self.planned {
            0 if self.stage > 0 => SHARE,
            0 => 0,
            n => self.finished.min(n) * SHARE / n,
        };
        done_suites + (done_stages + within).min(stages * SHARE) / stages
    }

    fn next_suite(&mut self) {
        self.suite += 1;
        self.stages = 1;
        self.stage = 0;
        self.planned = 0;
        self.finished = 0;
        self.suite_planned = 0;
        self.suite_finished = 0;
        self.announced = false;
    }

    fn preparing(&mut self) {
        self.next_suite();
        self.announced = true;
    }

    /// The announced suite builds its benchmarks in `count` stages.
    fn stages(&mut self, count: usize) {
        self.stages = (count as u64).max(1);
    }

    /// A stage's benchmarks are built; a suite that did not announce itself, or that has built
    /// all the stages it announced, starts a new suite here.
    fn planned(&mut self, count: usize) {
        if !self.announced || self.stage >= self.stages {
            self.next_suite();
        }
        self.stage += 1;
        self.planned = count as u64;
        self.finished = 0;
        self.suite_planned += count as u64;
    }

    fn finished(&mut self) {
        self.finished += 1;
        self.suite_finished += 1;
    }

    /// Where the current suite stands, in words that never read like a restart: `k/n` of a
    /// suite built at once; of a suite built in stages (an autotuned matmul product each),
    /// the stage and the place within it (`stage 2/10, 1/2`), since the suite's total is not
    /// known before its last stage is built.
    fn place(&self) -> String {
        if self.stages > 1 {
            return format!(
                "stage {}/{}, {}/{}",
                self.stage,
                self.stages.max(self.stage),
                self.finished,
                self.planned.max(self.finished)
            );
        }
        format!(
            "{}/{}",
            self.suite_finished,
            self.suite_planned.max(self.suite_finished)
        )
    }
}

/// Progress over the whole run: a bar, plain lines, or nothing.
pub struct Progress {
    bar: ProgressBar,
    plain: Option<PlainLines>,
    position: Position,
    suite_name: String,
    current: String,
}

impl Progress {
    /// Progress for a run of `suites` suites, shown as `mode` says (resolved against whether
    /// stderr is a terminal).
    pub fn new(suites: usize, mode: ProgressMode) -> Self {
        use std::io::IsTerminal as _;
        let mode = mode.resolve(std::io::stderr().is_terminal());
        let target = if mode == ProgressMode::Bar {
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
            "{spinner} {elapsed_precise} [{bar:24}] {percent:>3}%  {msg}",
        ) {
            bar.set_style(style);
        }
        if mode == ProgressMode::Bar {
            bar.enable_steady_tick(Duration::from_millis(500));
        }
        Self {
            bar,
            plain: (mode == ProgressMode::Plain).then(PlainLines::start),
            position,
            suite_name: String::new(),
            current: String::new(),
        }
    }

    fn redraw(&self, what: &str) {
        self.bar.set_length(self.position.length());
        self.bar.set_position(self.position.units());
        let within = match self.position.suite_planned {
            0 => String::new(),
            _ => format!(" {}", self.position.place()),
        };
        self.bar.set_message(format!(
            "{} {}{within}: {what}",
            self.suite_place(),
            self.suite_name
        ));
        if let Some(plain) = &self.plain {
            plain.doing(&format!("{} {what}", self.suite_name));
        }
    }

    /// `suite k/n`: the current suite's place in the run.
    fn suite_place(&self) -> String {
        let p = &self.position;
        format!("suite {}/{}", p.suite, p.suites.max(p.suite))
    }

    /// Says which suite is preparing (building, autotuning) its benchmarks.
    pub fn preparing(&mut self, suite: &str) {
        self.position.preparing();
        self.suite_name = suite.to_string();
        self.redraw("preparing (autotuning where the suite does)");
        if let Some(plain) = &self.plain {
            plain.line(&format!(
                "{} {suite}: preparing (autotuning where the suite does)",
                self.suite_place()
            ));
        }
    }

    /// The suite that is preparing builds its benchmarks in `count` stages.
    pub fn stages(&mut self, count: usize) {
        self.position.stages(count);
    }

    /// A suite (or a stage of one) has built its `count` benchmarks.
    pub fn add_benchmarks(&mut self, count: usize) {
        self.position.planned(count);
        self.redraw("starting");
    }

    /// Removes the bar, or stops the plain lines' clock.
    pub fn finish(&mut self) {
        self.bar.finish_and_clear();
        if let Some(plain) = self.plain.take() {
            plain.stop();
        }
    }
}

/// The line plain progress prints for a finished benchmark: its place in the suite, id, status
/// and median (or reason).
fn finished_line(position: &Position, result: &BenchResult) -> String {
    let place = position.place();
    let outcome = match (result.status, result.median()) {
        (Status::Ok, Some(median)) => {
            format!("ok, median {} {}", sig3(median), result.unit)
        }
        (status, _) => format!(
            "{}: {}",
            status.as_str(),
            result.reason.as_deref().unwrap_or("no reason given")
        ),
    };
    format!("{} {place} {}: {outcome}", result.suite, result.id)
}

/// Plain progress lines, each stamped with the time since the run started, and the thread that
/// says what is still running when nothing has been printed for [`HEARTBEAT`].
struct PlainLines {
    started: Instant,
    state: Arc<Mutex<PlainState>>,
    stop: Sender<()>,
    heartbeat: Option<JoinHandle<()>>,
}

/// What the heartbeat reads: when the last line went out, and what is being worked on.
struct PlainState {
    last_line: Instant,
    doing: String,
}

impl PlainLines {
    fn start() -> Self {
        let started = Instant::now();
        let state = Arc::new(Mutex::new(PlainState {
            last_line: started,
            doing: String::new(),
        }));
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = Arc::clone(&state);
        let heartbeat = std::thread::Builder::new()
            .name("gpubench-progress".to_string())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(Duration::from_secs(1))
                {
                    let mut state = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    if state.last_line.elapsed() >= HEARTBEAT {
                        let silent = state.last_line.elapsed().as_secs();
                        let doing = state.doing.clone();
                        emit(
                            started,
                            &format!("still working ({silent} s since the last line): {doing}"),
                        );
                        state.last_line = Instant::now();
                    }
                }
            })
            .ok();
        Self {
            started,
            state,
            stop,
            heartbeat,
        }
    }

    fn line(&self, text: &str) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        emit(self.started, text);
        state.last_line = Instant::now();
    }

    fn doing(&self, what: &str) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.doing = what.to_string();
    }

    fn stop(mut self) {
        let _ = self.stop.send(());
        if let Some(thread) = self.heartbeat.take() {
            let _ = thread.join();
        }
    }
}

/// Writes `text` to stderr stamped with the time since `started`.
fn emit(started: Instant, text: &str) {
    let secs = started.elapsed().as_secs();
    let stamp = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    let _ = writeln!(std::io::stderr(), "[{stamp}] {}", printable(text));
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
        if let Some(plain) = &self.plain {
            plain.line(&finished_line(&self.position, result));
        } else if result.status != Status::Ok {
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
                    "stages3" => p.stages(3),
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
    fn a_suite_in_stages_fills_its_share_stage_by_stage() {
        // Three matmul products: two benchmarks, then forty (a failed candidate each), then one.
        let steps = [
            "prepare", "stages3", "plan2", "done", "done", "plan40", "done", "plan2", "done",
            "done", "prepare", "plan2",
        ];
        let trace = walk(2, &steps);
        let units: Vec<u64> = trace.iter().map(|(u, _)| *u).collect();
        assert!(units.windows(2).all(|w| w[0] <= w[1]), "{units:?}");
        assert_eq!(units[4], SHARE / 3, "the first stage fills a third");
        assert_eq!(units[6], (SHARE + SHARE / 40) / 3);
        assert_eq!(units[9], SHARE, "the last stage fills the suite");
        assert_eq!(
            trace[11],
            (SHARE, 2 * SHARE),
            "a new suite, not a fourth stage"
        );
    }

    #[test]
    fn a_staged_suites_place_counts_within_its_stage_and_never_restarts() {
        let mut p = Position {
            suites: 1,
            ..Position::default()
        };
        p.preparing();
        p.stages(3);
        p.planned(1);
        p.finished();
        assert_eq!(p.place(), "stage 1/3, 1/1");
        p.planned(2);
        p.finished();
        assert_eq!(p.place(), "stage 2/3, 1/2");
        p.finished();
        assert_eq!(p.place(), "stage 2/3, 2/2");

        let mut single = Position {
            suites: 1,
            ..Position::default()
        };
        single.preparing();
        single.planned(8);
        single.finished();
        assert_eq!(single.place(), "1/8");
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
