//! The stream suite on a real adapter (lavapipe in CI): every kernel verifies and is timed by
//! GPU timestamps; small arrays are walked several times per dispatch, and still verify; an
//! array over the binding limit is skipped with the reason; the triad tunes its elements per
//! trip over verified forms only.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{
    CopyEngine, HostMemcpy, PER_TRIP, PerTripChoice, Stream, StreamKernel, StreamSuite, VEC4_BYTES,
    tune_per_trip,
};
use gpubench_engine::{BuildContext, Suite, SuiteOptions, Tuner};
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::kit::sizing::{MAX_REPEATS, TARGET_DISPATCH_S, repeats_for};
use gpubench_harness::testing::{
    assert_host_time_beside_gpu, assert_status_reason, run_ok, run_short, short_settings,
};
use gpubench_harness::{Benchmark, GpuContext, KernelBench, Profile, Runner, Status, TimingSource};
use pollster::FutureExt as _;

fn context() -> Option<GpuContext> {
    gpubench_harness::testing::require_vulkan()
}

#[test]
fn every_stream_kernel_verifies_and_is_gpu_timed() {
    let Some(ctx) = context() else { return };
    let runner = Runner::new(&ctx, short_settings());
    let bytes = 256 * 1024;
    let mut benches: Vec<Box<dyn Benchmark>> = StreamKernel::ALL
        .iter()
        .map(|&k| KernelBench::boxed(Stream::new(k, bytes, 1)))
        .collect();
    benches.push(KernelBench::boxed(CopyEngine { bytes, seed: 1 }));
    benches.push(KernelBench::boxed(HostMemcpy { bytes, seed: 1 }));
    for bench in &mut benches {
        let result = run_ok(&runner, bench.as_mut());
        let summary = result.summary.as_ref().expect("ok results have a summary");
        assert!(summary.ci_low <= summary.median && summary.median <= summary.ci_high);
        assert_eq!(result.samples.len(), summary.n);
        assert_eq!(result.unit, "GB/s");
        let expected = if result.id.contains("host-memcpy") || !ctx.has_pass_timestamps() {
            TimingSource::Host
        } else {
            TimingSource::GpuTimestamp
        };
        assert_eq!(result.timing, Some(expected), "{}", result.id);
        assert_host_time_beside_gpu(&result);
    }
}

#[test]
fn declared_work_counts_bytes_read_plus_written() {
    let Some(ctx) = context() else { return };
    let bytes = 64 * 1024;
    let mut triad = KernelBench::new(Stream::new(StreamKernel::Triad, bytes, 3));
    triad.setup(&ctx).block_on().expect("setup");
    let work = triad.work();
    assert_eq!((work.bytes_read, work.bytes_written), (2 * bytes, bytes));
    let mut fill = KernelBench::new(Stream::new(StreamKernel::Fill, bytes, 3));
    fill.setup(&ctx).block_on().expect("setup");
    assert_eq!(fill.work().total_bytes(), bytes);
    // Every walk counts: five walks of a triad move five times the bytes, and write one word
    // an invocation saying how many walks it made.
    let mut five = KernelBench::new(Stream::new(StreamKernel::Triad, bytes, 3).with_repeats(5));
    five.setup(&ctx).block_on().expect("setup");
    let work = five.work();
    let threads = five.state().expect("set up").threads();
    assert_eq!(
        (work.bytes_read, work.bytes_written),
        (10 * bytes, 5 * bytes + 4 * threads)
    );
}

/// The stream suite builds from options alone: it measures no candidates.
struct NothingToTune;

impl Tuner for NothingToTune {
    fn measure<'a>(
        &'a mut self,
        bench: &'a mut dyn Benchmark,
    ) -> gpubench_harness::LocalFuture<'a, gpubench_harness::BenchResult> {
        Box::pin(async move { panic!("the stream suite measured {}", bench.info().id) })
    }
}

#[test]
fn small_arrays_are_walked_until_a_dispatch_is_long_enough() {
    let Some(ctx) = context() else { return };
    let bytes = 256 * 1024;
    let mut options = SuiteOptions::new(Profile::Quick);
    options.set("stream_size", bytes);
    let suite = StreamSuite;
    let tuner = &mut NothingToTune;
    let build = &mut BuildContext {
        ctx: &ctx,
        options: &options,
        tuner,
    };
    let mut benches = suite
        .benchmarks(build)
        .block_on()
        .expect("the suite builds");
    let runner = Runner::new(&ctx, short_settings());
    let class = AdapterClass::of(&ctx);
    let mut kernels = 0;
    for kernel in StreamKernel::ALL {
        let spec = kernel.spec();
        let id = format!("stream/{}/vec4-f32/256KiB", spec.name);
        let bench = benches.iter_mut().find(|b| b.info().id == id).expect(&id);
        let repeats = bench.info().params["repeats"].as_u64().expect("repeats");
        let want = repeats_for(spec.bytes_per_walk(bytes), class, spec.max_repeats());
        assert_eq!(repeats, u64::from(want), "{id}");
        assert!(
            repeats > 1 && repeats < u64::from(MAX_REPEATS),
            "{id}: {repeats}"
        );
        // The repeated kernel verifies (the reduction's sums exactly, walk by walk) ...
        let mut result = run_ok(&runner, bench.as_mut());
        assert!(result.work.total_bytes() >= repeats * spec.bytes_per_walk(bytes));
        // ... and a dispatch reaches the target, or the result says it did not.
        suite.annotate(
            &mut result,
            &gpubench_baseline::testing::doc_with("lavapipe", true),
        );
        let dispatch_us = result.extra["dispatch_us"].as_f64().expect("dispatch time");
        let warned = result
            .warnings
            .iter()
            .any(|w| w.kind == gpubench_results::warnings::WarningKind::ShortDispatches);
        assert_eq!(
            warned,
            dispatch_us < TARGET_DISPATCH_S * 1e6,
            "{id}: {dispatch_us} us"
        );
        kernels += 1;
    }
    assert_eq!(kernels, StreamKernel::ALL.len());
    // The copy engine and the host memcpy are no shader kernels: no walks, no dispatch time.
    let others = benches
        .iter()
        .filter(|b| !b.info().params.contains_key("repeats"));
    assert_eq!(others.count(), 2);
}

#[test]
fn an_array_over_the_binding_limit_is_skipped_with_the_reason() {
    let Some(ctx) = context() else { return };
    let too_big = ctx.limits.max_storage_buffer_binding_size.saturating_mul(2);
    let mut bench = KernelBench::new(Stream::new(StreamKernel::Copy, too_big, 1));
    let result = run_short(&ctx, &mut bench);
    assert_status_reason(&result, Status::Skipped, "exceeds the adapter's limit");
    assert!(result.summary.is_none());
}

#[test]
fn every_per_trip_form_verifies_at_odd_lengths_walked_once_and_repeated() {
    let Some(ctx) = context() else { return };
    let runner = Runner::new(&ctx, short_settings());
    // 4099 vec4s: no multiple of any trip of 2 or 4 strided elements, so the remainder loop
    // runs; 64 KiB + 48 B is walked several times per dispatch.
    for bytes in [4099 * 16, 64 * 1024 + 48] {
        for kernel in [
            StreamKernel::Copy,
            StreamKernel::Scale,
            StreamKernel::Add,
            StreamKernel::Triad,
        ] {
            for per_trip in [2, 4] {
                for repeats in [1, 3] {
                    let stream = Stream::new(kernel, bytes, 5)
                        .with_repeats(repeats)
                        .with_per_trip(per_trip);
                    assert_eq!(stream.per_trip(), per_trip);
                    let result = run_ok(&runner, &mut KernelBench::new(stream));
                    assert_eq!(result.params["per_trip"], per_trip, "{}", result.id);
                    assert!(
                        !result.id.contains("per-trip"),
                        "the id stays: {}",
                        result.id
                    );
                }
            }
        }
    }
    // Kernels without the form keep one element per trip.
    let read = Stream::new(StreamKernel::Read, 4099 * 16, 5).with_per_trip(4);
    assert_eq!(read.per_trip(), 1);
}

#[test]
fn the_triad_chooses_a_verified_form_and_says_what_it_measured() {
    let Some(ctx) = context() else { return };
    let stop = Arc::new(AtomicBool::new(false));
    let mut tuner = gpubench_engine::tuner::ShortRunTuner::new(&ctx, Profile::Quick, stop);
    let bytes = 4099 * VEC4_BYTES;
    let choice = pollster::block_on(tune_per_trip(&mut tuner, &|u| {
        Stream::new(StreamKernel::Triad, bytes, 7).with_per_trip(u)
    }));
    assert!(PER_TRIP.contains(&choice.per_trip));
    assert!(choice.failed.is_empty(), "every form verifies");
    let params: std::collections::BTreeMap<_, _> = choice.params.into_iter().collect();
    let table = params["tuning_gbps"].as_object().expect("a table");
    assert_eq!(table.len(), PER_TRIP.len());
    assert!(
        table.values().all(|v| v.as_f64().is_some_and(|g| g > 0.0)),
        "{table:?}"
    );
    assert_eq!(
        params["per_trip_tuned_on"], "stream/triad/vec4-f32/64.05KiB",
        "the candidates keep the figure's id"
    );
    assert_eq!(PerTripChoice::cpu().per_trip, 1);
}
