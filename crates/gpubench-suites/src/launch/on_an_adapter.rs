//! The launch suite on a real adapter (lavapipe in CI): every launch mode verifies, the round
//! trips carry their percentiles, and each launch cost is timed by its own clock. Speed is
//! never asserted.

use pollster::FutureExt as _;

use super::{Launch, LaunchMode};
use gpubench_harness::runner::Silent;
use gpubench_harness::testing::{assert_ok, require_vulkan, short_settings};
use gpubench_harness::timing::HostSpan;
use gpubench_harness::{KernelBench, Runner, TimingSource};

#[test]
fn launch_modes_verify_and_round_trip_has_percentiles() {
    let Some(ctx) = require_vulkan() else { return };
    let runner = Runner::new(&ctx, short_settings());
    for mode in LaunchMode::ALL {
        let mut bench = KernelBench::new(Launch::new(mode, 50, 3));
        let result = runner.run(&mut bench, &mut Silent).block_on();
        assert_ok(&result);
        if mode.is_round_trip() {
            let latency = result.latency.as_ref().expect("latency percentiles");
            assert!(
                latency.n >= 50,
                "{}: {} round trips ({:?})",
                result.id,
                latency.n,
                result.warnings
            );
            assert!(latency.p50_us <= latency.p95_us && latency.p95_us <= latency.p99_us);
        } else if ctx.has_pass_timestamps() && !mode.host_timed() {
            assert!(
                result.host_summary.is_some(),
                "{}: host time missing",
                result.id
            );
        }
    }
}

/// The three launch costs come from three clocks: recording and the submit call on the host
/// alone (stopped before the device is waited for), the gap between dispatches on the GPU.
#[test]
fn launch_split_times_each_cost_with_its_own_clock() {
    let Some(ctx) = require_vulkan() else { return };
    assert!(ctx.has_pass_timestamps(), "lavapipe has timestamp queries");
    let runner = Runner::new(&ctx, short_settings());
    let sample = |mode: LaunchMode| {
        let mut bench = KernelBench::new(Launch::new(mode, 50, 5));
        runner.prepare(&mut bench).block_on().expect("prepare");
        // A round trip is one dispatch per sample; the others do 16.
        let iterations = if mode.is_round_trip() { 1 } else { 16 };
        let timing = runner
            .time_sample(&mut bench, iterations)
            .block_on()
            .expect("sample");
        let result = runner.run(&mut bench, &mut Silent).block_on();
        assert_ok(&result);
        (timing, result)
    };
    let (record, result) = sample(LaunchMode::Record);
    assert_eq!(record.host_span, HostSpan::HostOnly);
    assert_eq!(result.timing, Some(TimingSource::Host));
    assert!(record.gpu.is_none(), "recording alone writes no timestamps");

    let (submit, result) = sample(LaunchMode::SubmitCall);
    assert_eq!(submit.host_span, HostSpan::HostOnly);
    assert_eq!(result.timing, Some(TimingSource::Host));
    assert!(
        result.gpu_summary.is_some(),
        "the device's pace is recorded beside the submit calls"
    );

    let (gap, result) = sample(LaunchMode::GpuGap);
    assert_eq!(gap.host_span, HostSpan::OneSubmit);
    assert_eq!(result.timing, Some(TimingSource::GpuTimestamp));

    let (spin, result) = sample(LaunchMode::RoundTripSpin);
    assert_eq!(spin.host_span, HostSpan::OneSubmit);
    assert_eq!(
        result.params.get("wait").and_then(|w| w.as_str()),
        Some("spin (poll Wait with zero timeout in a loop, yielding)")
    );
    // The storms keep their meaning: the host clock from recording to completion.
    let (storm, _) = sample(LaunchMode::Submit);
    assert_eq!(storm.host_span, HostSpan::UntilComplete);
}

/// A browser's clock on a native adapter: with the host clock coarsened to 100 us, a round
/// trip (one dispatch a sample, tens of microseconds on lavapipe) spans too few of its steps
/// and is marked, with the resolution stated; at the clock's own step it is not.
#[test]
fn a_round_trip_on_a_coarse_clock_is_marked_with_the_clocks_resolution() {
    let Some(mut ctx) = require_vulkan() else {
        return;
    };
    let coarse_clock = gpubench_harness::host_clock::COARSE_CLOCK.kind();
    let round_trip = |ctx: &gpubench_harness::GpuContext| {
        let runner = Runner::new(ctx, short_settings());
        let mut bench = KernelBench::new(Launch::new(LaunchMode::RoundTrip, 50, 3));
        let result = runner.run(&mut bench, &mut Silent).block_on();
        assert_eq!(result.timing, Some(TimingSource::Host), "{}", result.id);
        result
    };
    let fine = round_trip(&ctx);
    let stated = fine.extra[gpubench_harness::host_clock::RESOLUTION_KEY]
        .as_f64()
        .expect("resolution");
    assert!(
        stated > 0.0 && stated < 1.0,
        "a native clock's step: {stated} us"
    );
    assert!(
        !fine.warnings.iter().any(|w| w.kind == coarse_clock),
        "{:?}",
        fine.warnings
    );

    ctx.coarsen_host_clock(std::time::Duration::from_micros(100));
    let coarse = round_trip(&ctx);
    assert_eq!(
        coarse.extra[gpubench_harness::host_clock::RESOLUTION_KEY].as_f64(),
        Some(100.0)
    );
    let warning = coarse
        .warnings
        .iter()
        .find(|w| w.kind == coarse_clock)
        .unwrap_or_else(|| panic!("no coarse-clock warning: {:?}", coarse.warnings));
    assert!(
        warning.figure.is_some_and(|steps| steps < 20.0),
        "{warning:?}"
    );
}
