//! The launch suite (the launch storm): what it costs to get tiny work onto the device.
//!
//! A one-invocation kernel bumps a counter (`launch.wgsl`), launched in ten ways. Five
//! are each one figure that mixes several costs:
//!
//! - `dispatch-in-pass`: N dispatches in one compute pass (cost per dispatch);
//! - `dispatch-indirect`: the same with `dispatch_workgroups_indirect`; wgpu validates each
//!   indirect dispatch's arguments in the same pass (a dispatch of its own, two buffer barriers,
//!   the pipeline and bind groups set again), so this includes that cost: wgpu's, not the
//!   hardware's;
//! - `pass-in-encoder`: N compute passes of one dispatch each in one encoder (cost per pass);
//! - `submit`: N command buffers of one dispatch each, each submitted by its own
//!   `queue.submit`, back to back (cost per submit);
//! - `round-trip`: one dispatch submitted and waited for with a blocking wait, repeated hundreds
//!   of times, recorded in an HDR histogram (p50, p95, p99, max).
//!
//! Five split launching into the costs a user has to tell apart, each timed by the clock that
//! covers that cost alone:
//!
//! - `record`: host time to record N dispatches into one pass, `finish()` included (wgpu 30
//!   buffers a pass's commands and encodes the driver's at `finish`); nothing is submitted;
//! - `submit-call`: host time of N `queue.submit` calls of command buffers recorded before the
//!   clock starts (wgpu's validation, its transit command buffer, the driver's submit, and the
//!   non-blocking maintenance every submit ends with); GPU time beside it is the device's pace
//!   when nothing but submits stands between its passes;
//! - `gpu-gap`: GPU time per dispatch of N back-to-back dispatches in one pass, recorded before
//!   the clock starts, nothing subtracted (barrier, launch and the tiny kernel itself). Between
//!   passes there is no better figure to take: on Vulkan both ends of a pass write their
//!   timestamps once all earlier work is done, so a dispatch's launch falls inside its own pass;
//! - `gpu-gap-independent`: the same with no dependency between the dispatches (below);
//! - `round-trip-spin`: the round trip with the host polling (`Wait` with a zero timeout,
//!   yielding between polls) instead of sleeping in the driver.
//!
//! The storms are timed both ways: GPU timestamps on the first and last pass give device time
//! per operation; the host clock from the start of recording until the GPU is done gives what
//! the application pays per operation. When the host cannot feed the device as fast as the
//! device drains (always on lavapipe, whose device shares the host's cores), a storm's GPU time
//! is the host's pace, not a device cost: `submit`'s GPU time per submit equals its host time
//! per submit within a few percent, and exceeds a whole round trip because it includes the
//! recording the round trip leaves out. The round trips are timed by the host clock from
//! submit to completion, which is what "latency" means to an application, and their pass
//! carries no timestamps (writing them is work the application's dispatch would not do).
//!
//! Every dispatch here writes a read-write storage buffer, and wgpu tracks usage per buffer and
//! orders only read-only uses without a barrier, so where dispatches share the counter each is
//! preceded by a pipeline barrier (on NVIDIA a wait for idle, a few microseconds): the
//! per-dispatch cost includes it, as it does for a chain of kernels that depend on each other.
//! `gpu-gap-independent` gives each of its 4096 dispatches a buffer of its own, so none depends
//! on another and wgpu records no barrier between them: the device may run them concurrently,
//! so its figure is an issue rate, not one launch's cost. Both rows are kept, named for what
//! they pay.
//!
//! `submit`'s GPU time spans N passes the host submits one at a time, from the first's start to
//! the last's end: where the device waits for the host between them it is the host's pace, and
//! where it does not it is the device's; both read near the host's time. What tells them apart
//! is a pass's own GPU time (`pass-in-encoder`, passes back to back in one command buffer): a
//! submit many times that long left the device idle (the H200: 64.9 us a submit against 8.6 a
//! pass; lavapipe about 2x), and [`HOST_PACED`] says so.
//!
//! Verified: the counter starts at a random value and must equal that plus every dispatch made
//! since set-up (wrapping), so a dropped or doubled dispatch fails; `gpu-gap-independent` checks
//! each of its buffers so.
//!
//! [`mode`] names the ten ways; [`kernel`] is the one [`Launch`] kernel that records them all.

pub mod kernel;
pub mod mode;
#[cfg(test)]
mod on_an_adapter;

use gpubench_harness::kit::derived::param_str;
use gpubench_harness::{BenchResult, KernelBench, Profile, RunDocument, Status, TimingSource};
use gpubench_results::warnings::{FigureUnit, OwnedKind};

pub use kernel::{Launch, LaunchState};
pub use mode::LaunchMode;

use gpubench_engine::SuiteInfo;
use gpubench_engine::SuiteOptions;
use gpubench_engine::{Benchmarks, Suite};
use gpubench_harness::GpuContext;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "cost of tiny dispatches, passes and submits, and the submit round trip";

/// launch.wgsl: the launch-overhead kernel, one invocation bumping a counter.
pub const WGSL: &str = include_str!("launch.wgsl");

/// This suite's warning: `submit`'s GPU time per submit is many times a pass's own GPU time,
/// so the device waited on the host between submits; figure: the ratio.
pub const HOST_PACED: OwnedKind = OwnedKind::new(
    "host-paced",
    "GPU time set by the host's pace",
    FigureUnit::Times,
);

/// `submit`'s GPU time per submit over `pass-in-encoder`'s GPU time per pass above which the
/// device idled between submits at least a third of the time.
pub const HOST_PACED_OVER_PASS: f64 = 1.5;

/// Round trips recorded by the quick profile.
pub const QUICK_ROUND_TRIPS: usize = 200;
/// Round trips recorded by the default and full profiles.
pub const DEFAULT_ROUND_TRIPS: usize = 1000;

/// The launch suite: the four storms, the two round trips and the four split costs.
pub struct LaunchSuite;

impl Suite for LaunchSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("launch", ABOUT)
            .shaders(&[("launch.wgsl", WGSL)])
            .plain_pipelines(&[(WGSL, "bump")])
    }

    /// `submit`'s GPU time is marked [`HOST_PACED`] where it is many times a pass's own.
    fn annotate(&self, result: &mut BenchResult, run: &RunDocument) {
        mark_host_paced(result, &run.results);
    }

    fn build(&self, _ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let round_trips = match options.profile {
            Profile::Quick => QUICK_ROUND_TRIPS,
            Profile::Default | Profile::Full => DEFAULT_ROUND_TRIPS,
        };
        Ok(LaunchMode::ALL
            .iter()
            .map(|&mode| KernelBench::boxed(Launch::new(mode, round_trips, options.seed)))
            .collect())
    }
}

/// Marks a GPU-timed `submit` row whose GPU time per submit is more than
/// [`HOST_PACED_OVER_PASS`] times `pass-in-encoder`'s GPU time per pass among `earlier` (it
/// runs first): the device ran each submit's pass in a fraction of the time between them and
/// waited for the next, so the figure is how fast the host records and submits.
fn mark_host_paced(result: &mut BenchResult, earlier: &[BenchResult]) {
    let of_mode = |r: &BenchResult, mode: LaunchMode| {
        param_str(r, "mode") == Some(mode.name())
            && r.status == Status::Ok
            && r.timing == Some(TimingSource::GpuTimestamp)
    };
    if !of_mode(result, LaunchMode::Submit) {
        return;
    }
    let pass = earlier
        .iter()
        .find(|r| r.suite == result.suite && of_mode(r, LaunchMode::PassInEncoder))
        .and_then(BenchResult::median);
    let (Some(submit), Some(pass)) = (result.median(), pass) else {
        return;
    };
    if pass > 0.0 && submit / pass > HOST_PACED_OVER_PASS {
        let ratio = submit / pass;
        let message = format!(
            "GPU time per submit is {ratio:.1}x a pass's own ({submit:.3} us against pass-in-encoder's {pass:.3}): the device idled between submits, waiting for the host, so this is the host's pace of recording and submitting, not a device cost; submit-call and record split the host's part"
        );
        result
            .warnings
            .push(HOST_PACED.record(message, Some(ratio)));
    }
}

#[cfg(test)]
mod tests {
    use gpubench_harness::{IterationPolicy, Kernel, TimingPreference};

    use super::*;

    #[test]
    fn ids_and_policies() {
        let ids: Vec<String> = LaunchMode::ALL
            .iter()
            .map(|&m| Launch::new(m, 200, 1).info().id)
            .collect();
        assert_eq!(
            ids,
            [
                "launch/dispatch-in-pass/per-dispatch",
                "launch/dispatch-indirect/per-dispatch",
                "launch/pass-in-encoder/per-pass",
                "launch/submit/per-submit",
                "launch/round-trip/one-dispatch",
                "launch/record/per-dispatch",
                "launch/submit-call/per-submit",
                "launch/gpu-gap/per-dispatch",
                "launch/gpu-gap-independent/per-dispatch",
                "launch/round-trip-spin/one-dispatch",
            ]
        );
        for mode in [LaunchMode::RoundTrip, LaunchMode::RoundTripSpin] {
            let rt = Launch::new(mode, 200, 1).info();
            assert_eq!(rt.iterations, IterationPolicy::Fixed(1));
            assert_eq!(rt.min_samples, Some(200));
            assert_eq!(rt.timing, TimingPreference::Host);
        }
        // The two CPU costs are host-timed; the GPU gap is GPU time or nothing; all calibrate N.
        for (mode, timing) in [
            (LaunchMode::Submit, TimingPreference::GpuWhenAvailable),
            (LaunchMode::Record, TimingPreference::Host),
            (LaunchMode::SubmitCall, TimingPreference::Host),
            (LaunchMode::GpuGap, TimingPreference::GpuOnly),
        ] {
            let storm = Launch::new(mode, 200, 1).info();
            assert_eq!(storm.iterations, IterationPolicy::Calibrate, "{mode:?}");
            assert_eq!(storm.timing, timing, "{mode:?}");
        }
        // The independent gap is one dispatch per buffer: a fixed count, GPU time or nothing.
        let independent = Launch::new(LaunchMode::GpuGapIndependent, 200, 1).info();
        assert_eq!(
            independent.iterations,
            IterationPolicy::Fixed(kernel::INDEPENDENT_SLOTS)
        );
        assert_eq!(independent.timing, TimingPreference::GpuOnly);
    }

    #[test]
    fn a_submit_storm_the_host_paced_is_marked_and_one_the_device_kept_busy_is_not() {
        let row = |mode: LaunchMode, gpu_us: f64| {
            let info = Launch::new(mode, 200, 1).info();
            let mut r = BenchResult::empty(&info, Status::Ok, None);
            r.timing = Some(TimingSource::GpuTimestamp);
            r.summary = gpubench_results::stats::summarize(&[gpu_us, gpu_us]);
            r
        };
        // The H200's: 64.9 us a submit by GPU time, 8.56 a pass back to back.
        let earlier = [row(LaunchMode::PassInEncoder, 8.56)];
        let mut paced = row(LaunchMode::Submit, 64.9);
        mark_host_paced(&mut paced, &earlier);
        let warning = paced.warnings.first().expect("marked");
        assert!(
            warning.message.contains("7.6x a pass's own"),
            "{}",
            warning.message
        );
        // A device whose passes take as long as the submits is the device's pace.
        let mut busy = row(LaunchMode::Submit, 10.0);
        mark_host_paced(&mut busy, &earlier);
        assert!(busy.warnings.is_empty());
        // Without a pass-in-encoder row there is nothing to tell them apart by.
        let mut alone = row(LaunchMode::Submit, 64.9);
        mark_host_paced(&mut alone, &[]);
        assert!(alone.warnings.is_empty());
        // Only the submit storm.
        let mut other = row(LaunchMode::DispatchInPass, 64.9);
        mark_host_paced(&mut other, &earlier);
        assert!(other.warnings.is_empty());
    }
}
