//! The datapath suite on a real adapter (lavapipe in CI): each workload names the bound its
//! name promises, every arrangement of whole requests verifies with its latencies, and the
//! bound row is made from the rows measured (its relations judged as `bound` says).

use pollster::FutureExt as _;

use super::bound::{self, Bound, StageTime};
use super::flow::{Flow, FlowKernel, STAGES};
use super::request::{Request, builtins};
use super::stage::Stage;
use super::stage_kernel::StageKernel;
use gpubench_harness::runner::Silent;
use gpubench_harness::testing::{assert_ok, require_vulkan, short_settings};
use gpubench_harness::{BenchResult, KernelBench, Profile, Runner};
use gpubench_results::item_timeline::{ItemTimeline, MAX_ITEMS, TimelineItem};

/// The noise band of a software adapter's timings (as the comparison uses it).
const BAND: f64 = 0.25;

fn workload(name: &str) -> Request {
    builtins(Profile::Quick)
        .into_iter()
        .find(|r| r.name == name)
        .expect("a built-in workload")
}

fn stages(runner: &Runner<'_>, request: &Request) -> Vec<BenchResult> {
    Stage::ALL
        .iter()
        .map(|&stage| {
            let mut bench = KernelBench::new(StageKernel::new(request.clone(), stage, 7));
            let result = runner.run(&mut bench, &mut Silent).block_on();
            assert_ok(&result);
            result
        })
        .collect()
}

fn median(result: &BenchResult) -> f64 {
    result.summary.as_ref().expect("a summary").median
}

/// Each stage row's stage and median, as the bound is worked out from them.
fn stage_times(rows: &[BenchResult]) -> Vec<StageTime> {
    rows.iter()
        .map(|r| StageTime {
            stage: Stage::named(r.params["stage"].as_str().expect("stage")).expect("known"),
            us: median(r),
        })
        .collect()
}

/// Each workload's bound row is made from its five stage rows, and names the bound its name
/// promises where that holds whatever the host's load. compute-bound does: 0.54 GFLOP against
/// 64 KiB each way is compute-bound by orders of magnitude on any adapter. transfer-bound is
/// held to its name only across a link: on a CPU adapter an upload is a memcpy and the compute
/// stage reads the same bytes from the same memory, so which of the two is slower depends on
/// the host's load at that moment (lavapipe's compute threads slow most); there its promise is
/// its arithmetic intensity (`the_builtins_are_what_their_names_say`).
#[test]
fn each_workload_names_the_bound_its_name_promises() {
    let Some(ctx) = require_vulkan() else { return };
    let runner = Runner::new(&ctx, short_settings());
    for (name, promised) in [
        (
            "transfer-bound",
            &["prepare", "h2d", "d2h", "check", "prepare+check"][..],
        ),
        ("compute-bound", &["compute"][..]),
    ] {
        let results = stages(&runner, &workload(name));
        let rows = bound::derive(&results, BAND);
        assert_eq!(rows.len(), 1, "{name}: one bound row");
        let stage = rows[0].params["stage"].as_str().expect("a stage");
        let times = stage_times(&results);
        let from_rows = Bound::of(&times, None, None, BAND).expect("a bound");
        assert_eq!(stage, from_rows.limit.name(), "{name}: {times:?}");
        if name == "compute-bound" || !ctx.is_software() {
            assert!(
                promised.contains(&stage),
                "{name} is bounded by {stage}: {times:?}"
            );
        }
    }
}

#[test]
fn whole_requests_verify_and_the_path_adds_up() {
    let Some(ctx) = require_vulkan() else { return };
    let runner = Runner::new(&ctx, short_settings());
    let request = workload("balanced");
    let stage_rows = stages(&runner, &request);
    let run = |flow: Flow, samples: usize| {
        let mut bench = KernelBench::new(FlowKernel::new(request.clone(), flow, 7, samples));
        let result = runner.run(&mut bench, &mut Silent).block_on();
        assert_ok(&result);
        result
    };
    let serial = run(Flow::Serial, 30);
    let overlap = run(Flow::Overlap(2), 3);
    let batch = run(Flow::Batch(4), 3);
    for row in [&serial, &overlap, &batch] {
        let latency = row.latency.as_ref().expect("latencies");
        assert!(latency.p50_us <= latency.max_us, "{}", row.id);
    }
    // The overlapped row's percentiles are over its requests, not its samples.
    let requests = overlap.latency.as_ref().map_or(0, |l| l.n);
    let per_sample = u64::from(super::flow::REQUESTS);
    assert!(
        requests >= 2 * per_sample && requests.is_multiple_of(per_sample),
        "{requests} request latencies"
    );
    assert!(
        serial.gpu_summary.is_some(),
        "timestamps bracket the device part"
    );
    timelines_show_what_overlapped(&serial, &overlap, &batch);

    // The path's relations (serial span against the stage sum, the overlapped interval
    // between the slowest stage and the serial time) depend on the machine's load at each
    // moment, so they are not asserted here: the bound row carries a warning when they do not
    // hold, and that judgement is tested on known figures in `bound`. Here: the row is made
    // from these rows, and its figures are the rows' own.
    let mut all = stage_rows.clone();
    all.extend([serial.clone(), overlap.clone(), batch]);
    let rows = bound::derive(&all, BAND);
    let row = rows.first().expect("a bound row");
    let times = stage_times(&stage_rows);
    let bound = Bound::of(
        &times,
        Some(median(&serial)),
        Some((median(&overlap), 2)),
        BAND,
    )
    .expect("a bound");
    assert_eq!(row.extra["serial_us"], median(&serial));
    assert_eq!(row.extra["best_interval_us"], median(&overlap));
    assert_eq!(row.extra["stage_sum_us"], bound.stage_sum_us);
    assert_eq!(row.warnings, bound.mismatches(BAND));
}

/// Each whole-request row keeps a typical sample's requests stage by stage: serial one request,
/// its stages end to end; two in flight, each request prepared while the one before it was
/// still in flight; a batch, every request in flight from one submit.
fn timelines_show_what_overlapped(
    serial: &BenchResult,
    overlap: &BenchResult,
    batch: &BenchResult,
) {
    let timeline = |row: &BenchResult| ItemTimeline::of(row).expect("an item timeline");
    let span = |item: &TimelineItem, stage: &str| {
        item.spans
            .iter()
            .find(|s| s.stage == stage)
            .cloned()
            .expect("every stage recorded")
    };
    for row in [serial, overlap, batch] {
        for item in &timeline(row).items {
            let stages: Vec<&str> = item.spans.iter().map(|s| s.stage.as_str()).collect();
            assert_eq!(stages, STAGES, "{}", row.id);
            assert!(
                item.spans.iter().all(|s| s.end_us >= s.start_us),
                "{}",
                row.id
            );
        }
    }
    assert_eq!(timeline(serial).items.len(), 1);
    let pipelined = timeline(overlap);
    assert_eq!(pipelined.items.len(), MAX_ITEMS, "a sample carries more");
    for pair in pipelined.items.windows(2) {
        let (before, next) = (&pair[0], &pair[1]);
        assert!(
            span(next, "prepare").start_us < span(before, "in-flight").end_us,
            "request {} was prepared only after request {} returned: {pipelined:?}",
            next.item,
            before.item
        );
    }
    let batched = timeline(batch);
    assert_eq!(batched.items.len(), 4);
    let submit = span(&batched.items[0], "in-flight").start_us;
    for item in &batched.items {
        assert!(
            (span(item, "in-flight").start_us - submit).abs() < 1e-6,
            "{batched:?}"
        );
    }
}

#[test]
fn the_suite_records_where_the_stage_rows_buffers_live() {
    let Some(ctx) = require_vulkan() else { return };
    let options = gpubench_engine::SuiteOptions::new(Profile::Quick);
    let benches = gpubench_engine::Suite::build(&super::DatapathSuite, &ctx, &options)
        .expect("the datapath suite builds");
    let mut placed = 0;
    for bench in &benches {
        let info = bench.info();
        let Some(stage) = info.params.get("stage").and_then(|s| s.as_str()) else {
            assert!(!info.params.contains_key("crosses_link"), "{}", info.id);
            continue;
        };
        let role = match stage {
            "prepare" | "h2d" => "staging",
            "d2h" => "readback",
            _ => {
                assert!(!info.params.contains_key("crosses_link"), "{}", info.id);
                continue;
            }
        };
        // lavapipe: Vulkan's memory properties, one memory shared with the host.
        assert_eq!(info.params["memory_source"], "vulkan", "{}", info.id);
        assert_eq!(
            info.params[&format!("{role}_memory")],
            "unified",
            "{}",
            info.id
        );
        assert_eq!(info.params["crosses_link"], false, "{}", info.id);
        placed += 1;
    }
    assert_eq!(placed, 3 * builtins(Profile::Quick).len());
}

/// A device stage row checks what the stage itself left, not a new request: once the runner
/// has overwritten the buffer the stage writes (as after the first check), the check fails
/// until the stage runs again, so a dropped timed upload, kernel or download cannot pass.
#[test]
fn a_device_stage_row_fails_where_its_timed_stage_was_dropped() {
    let Some(ctx) = require_vulkan() else { return };
    let request = workload("balanced");
    for stage in [Stage::Upload, Stage::Compute, Stage::Download] {
        let mut state = super::path::prepared(&ctx, &request, 7, 1)
            .block_on()
            .expect("set up");
        let recording = ctx.read_log().record();
        let first = super::path::verify_stage(&ctx, &mut state, stage).block_on();
        let read = recording.finish();
        assert!(
            first.expect("a check").passed(),
            "{stage:?}: right after set-up"
        );
        let poisoned = ctx.poison_reads(&read).block_on();
        assert_eq!(
            poisoned.expect("poisoned"),
            1,
            "{stage:?}: the buffer it writes"
        );
        let dropped = super::path::verify_stage(&ctx, &mut state, stage).block_on();
        assert!(
            !dropped.expect("a check").passed(),
            "{stage:?}: dropped passed"
        );
        // The stage run again (as a timed sample does) makes it right.
        let slot = &state.slots[0];
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        match stage {
            Stage::Upload => slot.encode_upload(&mut encoder),
            Stage::Compute => slot.encode_compute(&mut encoder, &state.kernel, None),
            _ => slot.encode_download(&mut encoder),
        }
        ctx.queue.submit([encoder.finish()]);
        let again = super::path::verify_stage(&ctx, &mut state, stage).block_on();
        assert!(again.expect("a check").passed(), "{stage:?}: after a run");
    }
}
