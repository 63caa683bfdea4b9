//! The sustained suite on the Vulkan adapter (lavapipe in CI): a short run reuses the compute
//! peak's kernel and verifies.

use super::SustainedSuite;
use gpubench_engine::{Suite, SuiteOptions};
use gpubench_harness::Profile;
use gpubench_harness::testing::assert_all_ok;

#[test]
fn sustained_run_reuses_the_peak_kernel_on_the_adapter() {
    assert_all_ok(|ctx| {
        let mut options = SuiteOptions::new(Profile::Quick);
        options.set("duration", 0.2);
        let benches = SustainedSuite
            .build(ctx, &options)
            .expect("the sustained suite builds");
        assert_eq!(benches.len(), 1);
        // The multiply chain on a software adapter, the accumulate chain on a GPU.
        let want = if ctx.is_software() {
            "sustained/fma-peak/vec4-f32"
        } else {
            "sustained/fma-peak/acc-vec4-f32"
        };
        assert_eq!(benches[0].info().id, want);
        assert_eq!(benches[0].info().suite, "sustained");
        benches
    });
}
