//! Support for tests that need a real adapter (lavapipe in CI).
//!
//! A GPU test that passes when no adapter exists hides a broken CI: the driver was not installed,
//! nothing ran, and everything is green. So [`require_adapter`] panics when no adapter matches,
//! unless the person running the tests said on purpose that GPU tests are to be skipped, by
//! setting `GPUBENCH_SKIP_GPU_TESTS=1`; then it returns `None` and says so on stderr.

use std::time::Duration;

use crate::context::GpuContext;
use crate::device::Selection;
use gpubench_results::profile::{Profile, RunSettings};

/// The variable that, set to `1`, lets GPU tests skip where no adapter exists.
pub const SKIP_GPU_TESTS: &str = "GPUBENCH_SKIP_GPU_TESTS";

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

/// A context on the adapter `selection` picks, or a panic (see the module docs).
pub fn require_adapter(selection: &Selection) -> Option<GpuContext> {
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
