//! Progress on stderr. Drawn only from runner callbacks, which come between samples, so no
//! redraw happens inside a timed region; indicatif hides it when stderr is not a terminal.

use gpubench_harness::runner::{Phase, RunObserver};
use gpubench_harness::{BenchResult, BenchmarkInfo};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over the whole run, its message naming the benchmark and phase.
pub struct Progress {
    bar: ProgressBar,
    current: String,
}

impl Progress {
    /// A bar for `total` benchmarks; hidden when `enabled` is false or stderr is no terminal.
    pub fn new(total: usize, enabled: bool) -> Self {
        let target = if enabled {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        Self {
            bar,
            current: String::new(),
        }
    }

    /// Says which suite is preparing (building, autotuning) its benchmarks.
    pub fn preparing(&self, suite: &str) {
        self.bar.set_message(format!(
            "{suite}: preparing (autotuning where the suite does)"
        ));
    }

    /// Grows the bar by a suite's benchmarks once it has built them.
    pub fn add_benchmarks(&self, count: usize) {
        self.bar.inc_length(count as u64);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl RunObserver for Progress {
    fn started(&mut self, _index: usize, _total: usize, info: &BenchmarkInfo) {
        self.current = info.id.clone();
        self.bar.set_message(self.current.clone());
    }

    fn phase(&mut self, phase: Phase) {
        let name = match phase {
            Phase::Setup => "set-up",
            Phase::Verify => "verifying",
            Phase::Calibrate => "calibrating",
            Phase::WarmUp => "warming up",
            Phase::Sample => "sampling",
        };
        self.bar.set_message(format!("{} ({name})", self.current));
    }

    fn sampled(&mut self, taken: usize, max: usize) {
        self.bar
            .set_message(format!("{} (sample {taken}/{max})", self.current));
    }

    fn finished(&mut self, result: &BenchResult) {
        self.bar.inc(1);
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
