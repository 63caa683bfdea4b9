//! The memory suite on the Vulkan adapter (lavapipe in CI), whose memory hierarchy is the host
//! CPU's: every read and chase row verifies, the chase sees memory far slower than the smallest
//! working set, and a level it detects lands within 2x of the host's L2 as `lscpu -C` reports
//! it; the workgroup-memory and atomic rows all verify. (lavapipe's shader loads cost more than the host's L1 and L2 deliver, so its read curve
//! is flat and its chase merges L1 into L2; see docs/suites/memory.md.)

mod common;

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use common::run_ok;
use gpubench_harness::testing::{require_vulkan, short_settings};
use gpubench_harness::{BenchResult, MetricKind, Profile, Runner};
use gpubench_suites::memory::{HostCache, MemorySuite, derive_levels, host_data_caches};
use gpubench_suites::session::ShortRunTuner;
use gpubench_suites::{BuildContext, Suite, SuiteOptions};

/// The host's data and unified caches as `lscpu -C` prints them (`NAME ONE-SIZE TYPE LEVEL`,
/// sizes in bytes), or sysfs's where lscpu is missing.
fn lscpu_caches() -> Vec<HostCache> {
    let output = Command::new("lscpu")
        .args(["-C=NAME,ONE-SIZE,TYPE,LEVEL", "--bytes"])
        .output();
    let Ok(output) = output.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()) else {
        return host_data_caches();
    };
    let caches: Vec<HostCache> = output
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, bytes, kind, level] if *kind != "Instruction" => Some(HostCache {
                    level: level.parse().ok()?,
                    bytes: bytes.parse().ok()?,
                }),
                _ => None,
            }
        })
        .collect();
    if caches.is_empty() {
        host_data_caches()
    } else {
        caches
    }
}

fn median_of(results: &[BenchResult], id: &str) -> f64 {
    results
        .iter()
        .find(|r| r.id == id)
        .and_then(BenchResult::median)
        .unwrap_or_else(|| panic!("{id} measured"))
}

#[test]
fn the_sweeps_verify_and_the_chase_finds_the_hosts_l2() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let host = lscpu_caches();
    let l2 = host
        .iter()
        .find(|c| c.level == 2)
        .copied()
        .expect("the host reports its caches (lscpu -C or sysfs)");
    assert_eq!(
        host,
        host_data_caches(),
        "lscpu and the suite's sysfs reader agree"
    );
    let options = SuiteOptions::new(Profile::Quick);
    let stop = Arc::new(AtomicBool::new(false));
    let mut tuner = ShortRunTuner::new(&ctx, Profile::Quick, stop);
    let mut build = BuildContext {
        ctx: &ctx,
        options: &options,
        tuner: &mut tuner,
    };
    let mut benches = MemorySuite.benchmarks(&mut build).expect("planned");
    let runner = Runner::new(&ctx, short_settings());
    let results: Vec<BenchResult> = benches
        .iter_mut()
        .map(|bench| run_ok(&runner, bench.as_mut()))
        .collect();
    let last = results
        .iter()
        .rfind(|r| r.id.starts_with("memory/latency/"))
        .expect("latency rows")
        .params["working_set"]
        .clone();
    let top = host.last().expect("caches").bytes;
    assert_eq!(
        results[0].params["sweep_top_bytes"],
        (2 * top).min(512 << 20),
        "the quick sweep reaches twice the host's largest cache"
    );
    let smallest = median_of(&results, "memory/latency/4KiB");
    let largest = median_of(
        &results,
        &format!("memory/latency/{}", last.as_str().unwrap_or("")),
    );
    assert!(
        largest > 5.0 * smallest,
        "memory is slower than the smallest working set: {smallest} ns, then {largest} ns"
    );
    // Workgroup memory and atomics: every row measured and verified (run_ok), each form once.
    let mut shared: Vec<&str> = results
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| id.starts_with("memory/workgroup/") || id.starts_with("memory/atomic-add/"))
        .collect();
    shared.sort_unstable();
    assert_eq!(
        shared,
        [
            "memory/atomic-add/storage-each",
            "memory/atomic-add/storage-one",
            "memory/atomic-add/workgroup-each",
            "memory/atomic-add/workgroup-one",
            "memory/workgroup/read-vec4",
            "memory/workgroup/stride-1",
            "memory/workgroup/stride-16",
            "memory/workgroup/stride-2",
            "memory/workgroup/stride-32",
            "memory/workgroup/stride-33",
            "memory/workgroup/stride-4",
            "memory/workgroup/stride-8",
        ]
    );
    let levels = derive_levels(&results, &host);
    let sizes: Vec<f64> = levels
        .iter()
        .filter(|r| r.id.starts_with("memory/latency-level-") && r.metric == MetricKind::Size)
        .filter_map(BenchResult::median)
        .map(|kib| kib * 1024.0)
        .collect();
    let l2_bytes = l2.bytes as f64;
    assert!(
        sizes
            .iter()
            .any(|&s| s >= l2_bytes / 2.0 && s <= l2_bytes * 2.0),
        "a latency level within 2x of the host's L2 ({} bytes): {sizes:?}",
        l2.bytes
    );
}
