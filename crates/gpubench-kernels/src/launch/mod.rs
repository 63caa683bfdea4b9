//! The launch suite (the launch storm): what it costs to get tiny work onto the device.
//!
//! A one-invocation kernel bumps a counter (`shaders/launch.wgsl`), launched in five ways:
//!
//! - `dispatch-in-pass`: N dispatches in one compute pass (cost per dispatch);
//! - `dispatch-indirect`: the same with `dispatch_workgroups_indirect` (wgpu validates indirect
//!   arguments with a compute pass of its own, so this includes that cost);
//! - `pass-in-encoder`: N compute passes of one dispatch each in one encoder (cost per pass);
//! - `submit`: N command buffers of one dispatch each, each submitted by its own
//!   `queue.submit`, back to back (cost per submit);
//! - `round-trip`: one dispatch submitted and waited for, repeated hundreds of times, recorded in
//!   an HDR histogram (p50, p95, p99, max).
//!
//! The storms are timed both ways: GPU timestamps on the first and last pass give device time
//! per operation; the host clock from the start of recording until the GPU is done gives what
//! the application pays per operation (recording, wgpu's validation and tracking, the driver,
//! submit and wait, amortised over N). The round trip is timed by the host clock from submit to
//! completion, which is what "latency" means to an application.
//!
//! Every dispatch here writes a read-write storage buffer, and wgpu on Vulkan orders only
//! read-only uses without a barrier, so each dispatch is preceded by a pipeline barrier: the
//! per-dispatch cost includes it, as it would for any real kernel that writes memory.
//!
//! Verified: the counter starts at a random value and must equal that plus every dispatch made
//! since set-up (wrapping), so a dropped or doubled dispatch fails.
//!
//! [`mode`] names the five ways; [`kernel`] is the one [`Launch`] kernel that records them all.

pub mod kernel;
pub mod mode;

use gpubench_harness::{KernelBench, Profile};

pub use kernel::{Launch, LaunchState};
pub use mode::LaunchMode;

use crate::{Benchmarks, BuildContext, Suite};

/// Round trips recorded by the quick profile.
pub const QUICK_ROUND_TRIPS: usize = 200;
/// Round trips recorded by the default and full profiles.
pub const DEFAULT_ROUND_TRIPS: usize = 1000;

/// The launch suite: the four storms and the round trip.
pub struct LaunchSuite;

impl Suite for LaunchSuite {
    fn name(&self) -> &'static str {
        gpubench_harness::suite_names::LAUNCH
    }

    fn benchmarks(&self, build: &mut BuildContext<'_>) -> Benchmarks {
        let options = build.options;
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
            ]
        );
        let rt = Launch::new(LaunchMode::RoundTrip, 200, 1).info();
        assert_eq!(rt.iterations, IterationPolicy::Fixed(1));
        assert_eq!(rt.min_samples, Some(200));
        assert_eq!(rt.timing, TimingPreference::Host);
        let storm = Launch::new(LaunchMode::Submit, 200, 1).info();
        assert_eq!(storm.iterations, IterationPolicy::Calibrate);
    }
}
