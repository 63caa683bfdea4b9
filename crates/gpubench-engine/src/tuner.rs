//! The tuner the session hands to suites that autotune: candidates measured with the quick
//! profile's settings, capped short, so even tuning is timed by the harness's runner.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gpubench_harness::runner::Silent;
use gpubench_harness::{BenchResult, Benchmark, GpuContext, LocalFuture, Profile, Runner, Status};

use crate::Tuner;

/// Measures autotuning candidates with the quick profile's settings, capped short, so even
/// tuning is timed by the harness's runner.
pub struct ShortRunTuner<'a> {
    runner: Runner<'a>,
}

impl<'a> ShortRunTuner<'a> {
    /// A tuner on `ctx` for a run of `profile` (quick runs tune shorter); `stop` ends tuning
    /// between samples.
    pub fn new(ctx: &'a GpuContext, profile: Profile, stop: Arc<AtomicBool>) -> Self {
        let mut settings = Profile::Quick.settings(ctx.is_software());
        settings.min_samples = 3;
        settings.max_samples = 5;
        settings.max_time = if profile == Profile::Quick {
            Duration::from_millis(200)
        } else {
            Duration::from_millis(500)
        };
        settings.warmup = Duration::from_millis(10);
        Self {
            runner: Runner::new(ctx, settings).with_stop_flag(stop),
        }
    }
}

impl Tuner for ShortRunTuner<'_> {
    /// Once a stop is requested, every further candidate is skipped without its set-up (the
    /// shader compile and verification are what make each one take a while), so an autotune
    /// loop of any suite ends within one candidate of the signal.
    fn measure<'a>(&'a mut self, bench: &'a mut dyn Benchmark) -> LocalFuture<'a, BenchResult> {
        Box::pin(async move {
            if self.runner.stop_requested() {
                let reason = "not run: a stop was requested during autotuning".to_string();
                return BenchResult::empty(bench.info(), Status::Skipped, Some(reason));
            }
            self.runner.run(bench, &mut Silent).await
        })
    }

    /// Screens at `bound`, never below the tuner's own time cap: a candidate that fits in
    /// the cap is always sampled in full.
    fn measure_within<'a>(
        &'a mut self,
        bench: &'a mut dyn Benchmark,
        bound: Option<Duration>,
    ) -> LocalFuture<'a, BenchResult> {
        Box::pin(async move {
            let cap = self.runner.settings().max_time;
            self.runner.set_screen(bound.map(|b| b.max(cap)));
            let result = self.measure(bench).await;
            self.runner.set_screen(None);
            result
        })
    }
}
