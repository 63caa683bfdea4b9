//! Support for tests that need a real adapter (lavapipe in CI).
//!
//! A GPU test that passes when no adapter exists hides a broken CI: the driver was not installed,
//! nothing ran, and everything is green. So [`require_adapter`] panics when no adapter matches,
//! unless the person running the tests said on purpose that GPU tests are to be skipped, by
//! setting `GPUBENCH_SKIP_GPU_TESTS=1`; then it returns `None` and says so on stderr.

use std::time::Duration;

use pollster::FutureExt as _;

use crate::benchmark::Benchmark;
use crate::context::GpuContext;
use crate::device::Selection;
use crate::runner::{Runner, Silent};
use gpubench_results::{BenchResult, Status, TimingSource};
use gpubench_results::{Profile, RunSettings};

/// The variable that, set to `1`, lets GPU tests skip where no adapter exists.
pub const SKIP_GPU_TESTS: &str = "GPUBENCH_SKIP_GPU_TESTS";

/// The variable `cargo xtask check` sets: that check promises to run no test that needs an
/// adapter, so an adapter asked for under it is a test in the wrong place, and fails.
pub const NO_ADAPTER_CHECK: &str = "GPUBENCH_NO_ADAPTER_CHECK";

/// The word every library (unit) test that needs an adapter has in its name, so a check that
/// runs no adapter test can leave them out (`cargo test -- --skip on_an_adapter`).
pub const ADAPTER_TEST_MARK: &str = "on_an_adapter";

/// Whether GPU tests were asked to skip (`GPUBENCH_SKIP_GPU_TESTS=1`).
pub fn gpu_tests_skipped() -> bool {
    std::env::var(SKIP_GPU_TESTS).is_ok_and(|v| v == "1")
}

/// Called by a GPU test that found no adapter: `None` (and a note) when skipping was asked for,
/// else a panic that says how to install one or skip.
pub fn no_adapter<T>(why: &str) -> Option<T> {
    if gpu_tests_skipped() {
        eprintln!("{SKIP_GPU_TESTS}=1: GPU test not run ({why})");
        return None;
    }
    panic!(
        "GPU test needs an adapter: {why}. Install one (`cargo xtask setup` installs lavapipe on \
         Debian/Ubuntu), or set {SKIP_GPU_TESTS}=1 to skip GPU tests on purpose"
    );
}

/// A context on the adapter `selection` picks, or a panic (see the module docs). Under the
/// adapter-free check ([`NO_ADAPTER_CHECK`]) it panics before looking: such a test needs
/// [`ADAPTER_TEST_MARK`] in its name, or a place in `tests/`.
pub fn require_adapter(selection: &Selection) -> Option<GpuContext> {
    assert!(
        std::env::var_os(NO_ADAPTER_CHECK).is_none(),
        "this test needs an adapter but runs in the adapter-free check: put `{ADAPTER_TEST_MARK}` in its name or move it to tests/"
    );
    match GpuContext::new(selection) {
        Ok(ctx) => Some(ctx),
        Err(error) => no_adapter(&error.to_string()),
    }
}

/// A context on the first Vulkan adapter (lavapipe in CI), or a panic (see the module docs).
pub fn require_vulkan() -> Option<GpuContext> {
    require_adapter(&Selection {
        backend: Some("vulkan".into()),
        ..Default::default()
    })
}

/// Settings that take a few samples of a few milliseconds: enough to exercise the whole
/// protocol on a software adapter in well under a second per benchmark. Tests that use them
/// check correctness and which clock timed, never speed.
pub fn short_settings() -> RunSettings {
    let mut settings = Profile::Quick.settings(true);
    settings.target_sample = Duration::from_millis(2);
    settings.warmup = Duration::from_millis(2);
    settings.min_warmup_samples = 1;
    settings.min_samples = 3;
    settings.max_samples = 5;
    settings.max_time = Duration::from_millis(200);
    settings
}

/// An ok, verified, GPU-timed row of the FMA kernel in f32 in `suite`, of `form` as its id names
/// it (`vec4`, `acc-vec4`: the chain follows the `acc-` prefix), over 30 samples within 1% of
/// `gflops` (its median).
pub fn fma_peak_row(suite: &str, form: &str, gflops: f64) -> BenchResult {
    let chain = if form.starts_with("acc-") {
        "accumulate"
    } else {
        "multiply"
    };
    let info = crate::BenchmarkInfo::new(
        format!("{suite}/fma-peak/{form}-f32"),
        suite,
        crate::MetricKind::Throughput,
        "floating-point operations per second",
    )
    .param("kernel", "fma-peak")
    .param("precision", "f32")
    .param("form", form)
    .param("chain", chain);
    let mut row = BenchResult::empty(&info, Status::Ok, None);
    row.samples = [0.99, 1.0, 1.01]
        .repeat(10)
        .iter()
        .map(|f| f * gflops)
        .collect();
    row.summary = gpubench_results::stats::summarize(&row.samples);
    row.verified = true;
    row.timing = Some(TimingSource::GpuTimestamp);
    row.iterations_per_sample = 4;
    row
}

/// The result is ok, verified and has a positive, finite median.
pub fn assert_ok(result: &BenchResult) {
    assert_eq!(
        result.status,
        Status::Ok,
        "{}: {:?}",
        result.id,
        result.reason
    );
    assert!(result.verified, "{} not verified", result.id);
    assert!(
        result.median().is_some_and(|m| m.is_finite() && m > 0.0),
        "{}: median {:?}",
        result.id,
        result.median()
    );
}

/// Runs `bench` through `runner` and asserts [`assert_ok`]; returns the result.
pub fn run_ok(runner: &Runner<'_>, bench: &mut dyn Benchmark) -> BenchResult {
    let result = runner.run(bench, &mut Silent).block_on();
    assert_ok(&result);
    result
}

/// Runs `bench` on `ctx` with [`short_settings`] and returns its result, whatever the outcome.
pub fn run_short(ctx: &GpuContext, bench: &mut dyn Benchmark) -> BenchResult {
    Runner::new(ctx, short_settings())
        .run(bench, &mut Silent)
        .block_on()
}

/// Runs the benchmarks `build` makes on the Vulkan adapter with [`short_settings`]; each must
/// pass [`assert_ok`].
pub fn assert_all_ok(build: impl FnOnce(&GpuContext) -> Vec<Box<dyn Benchmark>>) {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let runner = Runner::new(&ctx, short_settings());
    for mut bench in build(&ctx) {
        run_ok(&runner, bench.as_mut());
    }
}

/// The result ended with `status` and a reason that contains `words`.
pub fn assert_status_reason(result: &BenchResult, status: Status, words: &str) {
    assert_eq!(result.status, status, "{}: {:?}", result.id, result.reason);
    let reason = result.reason.as_deref().expect("reason");
    assert!(reason.contains(words), "{}: {reason}", result.id);
}

/// A GPU-timed result also carries the host clock's samples (what an application waits for).
pub fn assert_host_time_beside_gpu(result: &BenchResult) {
    if result.timing == Some(TimingSource::GpuTimestamp) {
        assert!(
            result.host_summary.is_some(),
            "{}: host time recorded beside GPU time",
            result.id
        );
    }
}

/// Whether the source file `file` is a test module of its own: one its folder's `mod.rs` (or
/// `lib.rs`) declares `#[cfg(test)] mod NAME;`, such as a suite's `on_an_adapter.rs`. The tests
/// that read library sources (no blocking waits, no CLI flags in messages) leave such files
/// out, as they leave out a `#[cfg(test)]` module at the end of a file.
pub fn test_only_source(file: &std::path::Path) -> bool {
    let (Some(folder), Some(stem)) = (file.parent(), file.file_stem()) else {
        return false;
    };
    let declaration = format!("#[cfg(test)]\nmod {};", stem.to_string_lossy());
    ["mod.rs", "lib.rs"].iter().any(|parent| {
        std::fs::read_to_string(folder.join(parent)).is_ok_and(|text| text.contains(&declaration))
    })
}
