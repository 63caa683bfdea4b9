//! The reference behind a run's noise level ([`gpubench_results::run_noise`]): the kit's f32
//! vec4 FMA kernel (the compute suite's `compute/fma-peak/vec4-f32`) over the adapter's peak grid, measured with fixed settings (the
//! quick profile's sample length, a fixed number of samples) before the first suite and after
//! the last, whatever the run's own settings, so that the two checks, and the checks of any two
//! runs on one machine, measure the same thing the same way.
//!
//! An FMA chain is the steadiest work there is: no memory traffic, every invocation the same,
//! verified exactly. What moves it is what moves every other result: clocks, other work on
//! the machine (on a software adapter, the host's other processes), thermal state.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gpubench_harness::runner::Silent;
use gpubench_harness::{GpuContext, Kernel, KernelBench, Profile, Runner, Status};
use gpubench_results::run_noise::RunNoise;
use gpubench_results::stats::Summary;

use gpubench_harness::kit::fma::grid::peak_grid;
use gpubench_harness::kit::fma::{FmaPeak, PeakForm};
use gpubench_harness::kit::gpu::Precision;

/// Samples per check: enough for a median and a 5th-95th percentile spread that one sample
/// does not set (the 5th percentile of twenty lies next to the second smallest; of eight it
/// lay most of the way to the smallest, and one sample a hiccup slowed by 15% made the spread
/// about 10%, a level that excused every regression up to it), short enough to add well under
/// a second to a run on a software adapter.
pub const SAMPLES: usize = 20;

/// Measures the reference on one adapter.
pub struct NoiseCheck<'a> {
    ctx: &'a GpuContext,
    runner: Runner<'a>,
}

impl<'a> NoiseCheck<'a> {
    /// The check on `ctx`; `stop` ends a check between samples.
    pub fn new(ctx: &'a GpuContext, stop: Arc<AtomicBool>) -> Self {
        let mut settings = Profile::Quick.settings(ctx.is_software());
        settings.min_samples = SAMPLES;
        settings.max_samples = SAMPLES;
        settings.max_time = Duration::from_secs(2);
        Self {
            ctx,
            runner: Runner::new(ctx, settings).with_stop_flag(stop),
        }
    }

    fn kernel(&self) -> FmaPeak {
        FmaPeak::new(Precision::F32, PeakForm::Vec4, peak_grid(self.ctx))
    }

    /// An empty record naming the reference and its unit.
    pub fn record(&self) -> RunNoise {
        let info = self.kernel().info();
        RunNoise::new(info.id, info.metric.unit())
    }

    /// One check: the reference's summary, or why there is none (it failed, was skipped, or
    /// was cut short by a stop).
    pub async fn measure(&self) -> Result<Summary, String> {
        let mut bench = KernelBench::boxed(self.kernel());
        let result = self.runner.run(bench.as_mut(), &mut Silent).await;
        if self.runner.stop_requested() {
            return Err("a stop was requested".to_string());
        }
        match (result.status, result.summary) {
            // The time cap cut the check short (iterations of over 100 ms): fewer samples than
            // the spread assumes would read as quiet or noisy by chance.
            (Status::Ok, Some(summary)) if result.verified && summary.n < SAMPLES => Err(format!(
                "the reference gave {} of its {SAMPLES} samples within its time cap",
                summary.n
            )),
            (Status::Ok, Some(summary)) if result.verified => Ok(summary),
            (status, _) => Err(format!(
                "the reference was {}: {}",
                status.as_str(),
                result.reason.unwrap_or_else(|| "no summary".to_string())
            )),
        }
    }
}
