//! The roofline suite on the Vulkan adapter (lavapipe in CI): the lightest and the heaviest
//! point verify, and every point records how its array was sized.

use super::{FMAS_SWEEP, RooflinePoint, RooflineSuite, roofline_size};
use gpubench_engine::{Suite, SuiteOptions};
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::testing::{assert_all_ok, require_vulkan};
use gpubench_harness::{KernelBench, Profile};

#[test]
fn roofline_points_verify_on_the_adapter() {
    // The lightest and the heaviest point: FMAS reaches the shader as a pipeline constant, and
    // a wrong count fails the exact check.
    assert_all_ok(|_| {
        [FMAS_SWEEP[0], FMAS_SWEEP[FMAS_SWEEP.len() - 1]]
            .iter()
            .map(|&fmas| KernelBench::boxed(RooflinePoint::new(fmas, 256 * 1024, 7)))
            .collect()
    });
}

#[test]
fn roofline_points_record_how_their_array_was_sized() {
    let Some(ctx) = require_vulkan() else {
        return;
    };
    let options = SuiteOptions::new(Profile::Quick);
    let benches = RooflineSuite
        .build(&ctx, &options)
        .expect("the roofline suite builds");
    let limit = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
    let size = roofline_size(AdapterClass::of(&ctx), Profile::Quick, limit);
    assert_eq!(benches.len(), FMAS_SWEEP.len());
    for bench in &benches {
        let params = &bench.info().params;
        assert_eq!(params["array_bytes"].as_u64(), Some(size.bytes));
        assert_eq!(params["size_rule"].as_str(), Some(size.rule.as_str()));
    }
    if ctx.is_software() {
        // Software adapters keep CI's sizes.
        assert_eq!(size.bytes, 16 << 20);
    }
}
