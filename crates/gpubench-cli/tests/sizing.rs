//! `gpubench sizing` end to end on a saved run whose datapath rows have known figures: the
//! worked example (40 requests/s per card, 90/s wanted: 3 cards, 4 with a spare), a target
//! nothing meets (exit 7), and bad values (exit 2).

use gpubench_baseline::testing::doc_with;
use gpubench_results::stats::{LatencySummary, summarize};
use gpubench_results::{BenchResult, BenchmarkInfo, MetricKind, Status, Work};

mod common;
use common::{arg, assert_exit, assert_has, assert_has_all, gpubench_output, text, write_doc};

/// A whole-request row that sustained `per_s` requests/s with a p95 of `p95_ms`.
fn row(flow: &str, per_s: f64, p95_ms: f64) -> BenchResult {
    let info = BenchmarkInfo::new(
        format!("datapath/custom/{flow}"),
        "datapath",
        MetricKind::TimePerOp,
        "time per request",
    )
    .param("workload", "custom")
    .param("request", "in=256MiB,out=4MiB,flops=20G")
    .param("flow", flow);
    let mut r = BenchResult::empty(&info, Status::Ok, None);
    r.samples = vec![1e6 / per_s; 200];
    r.summary = summarize(&r.samples);
    r.iterations_per_sample = 1;
    r.work = Work::ops(1);
    r.latency = Some(Box::new(LatencySummary {
        p50_us: 1e6 / per_s,
        p95_us: p95_ms * 1e3,
        p99_us: p95_ms * 1e3,
        max_us: p95_ms * 1e3,
        n: 200,
    }));
    r
}

#[test]
fn the_worked_example_a_target_nothing_meets_and_bad_values() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut doc = doc_with("NVIDIA Test", false);
    doc.results = vec![row("serial", 25.0, 45.0), row("overlap-2", 40.0, 48.0)];
    let file = write_doc(dir.path(), "run.json", &doc);
    let sizing = |extra: &[&str]| {
        let mut args = vec!["sizing", arg(&file), "--rate", "90/s"];
        args.extend(extra);
        gpubench_output(&args)
    };
    let three = sizing(&["--p95", "50ms"]);
    assert_exit(&three, 0);
    assert_has_all(
        &text(&three.stdout),
        &[
            "cards: ceil(90.0 / 40.0) = 3",
            "in=256MiB,out=4MiB,flops=20G",
        ],
    );
    let four = sizing(&["--p95", "50ms", "--spare", "1"]);
    assert_has(&text(&four.stdout), "+ 1 spare = 4");
    let none = sizing(&["--p95", "20ms"]);
    assert_exit(&none, 7);
    assert_has(&text(&none.stdout), "no measured arrangement meets");
    // Every row too short for the time asked for: nothing was held to the target, and the
    // answer says so rather than asking for a faster card.
    let unjudged = sizing(&["--p95", "50ms", "--sustained", "3600s"]);
    assert_exit(&unjudged, 7);
    assert_has(&text(&unjudged.stdout), "could be held to the target");
    for bad in [
        &["--p95", "50"][..],
        &["--p95", "50ms", "--workload", "fft"],
    ] {
        let refused = sizing(bad);
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{bad:?}: {}",
            text(&refused.stderr)
        );
    }
}
