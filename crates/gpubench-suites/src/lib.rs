//! The gpubench suites: plug-ins only. Each folder is one suite, holding its WGSL, kernels,
//! CPU references, verification, tests and the [`gpubench_engine::Suite`] that says what it
//! is, which options it takes and which shaders and pipelines it builds. A suite imports the
//! engine (the trait) and the harness's kit (what suites share), never another suite.
//!
//! [`REGISTRY`] is the one list: adding a suite is its folder, a `mod` line and a line in
//! [`SUITES`]. Nothing here prints: the harness's runner times, and the caller reports.

pub mod capacity;
pub mod compute;
pub mod datapath;
#[cfg(feature = "example-suite")]
pub mod example;
pub mod launch;
pub mod matmul;
pub mod memory;
pub mod roofline;
pub mod selftest;
pub mod stream;
pub mod sustained;
pub mod transfer;

use std::sync::LazyLock;

use gpubench_engine::Registry;
use gpubench_engine::registry::SuiteConstructor;

/// Every suite, in the order a run takes them (each after the suites its `after` names). Of
/// the default suites matmul comes last: its autotuning is the longest part of a run on a GPU,
/// so a run stopped by a time limit loses only matmul's smallest products (it runs its largest
/// first), never another suite.
pub const SUITES: &[SuiteConstructor] = &[
    || Box::new(stream::StreamSuite),
    || Box::new(transfer::TransferSuite),
    || Box::new(launch::LaunchSuite),
    || Box::new(compute::ComputeSuite),
    || Box::new(memory::MemorySuite),
    || Box::new(roofline::RooflineSuite),
    || Box::new(datapath::DatapathSuite),
    || Box::new(matmul::MatmulSuite),
    || Box::new(capacity::CapacitySuite),
    || Box::new(sustained::SustainedSuite),
    || Box::new(selftest::SelfTestSuite),
    #[cfg(feature = "example-suite")]
    || Box::new(example::ExampleSuite),
];

/// The registry of [`SUITES`], checked once.
pub static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
    // The lines above are code, not input: `registry_is_valid` below fails on a mistake.
    Registry::new(SUITES).unwrap_or_else(|error| panic!("the suite registry is invalid: {error}"))
});

#[cfg(test)]
mod tests {
    use gpubench_harness::Profile;

    use super::*;

    #[test]
    fn registry_is_valid_and_its_defaults_are_the_profiles() {
        let registry = Registry::new(SUITES).expect("valid registry");
        let defaults = [
            "stream", "transfer", "launch", "compute", "memory", "roofline", "datapath", "matmul",
        ];
        assert_eq!(registry.defaults(Profile::Quick), defaults);
        assert_eq!(registry.defaults(Profile::Default), defaults);
        let mut full = defaults.to_vec();
        full.extend(["capacity", "sustained"]);
        assert_eq!(registry.defaults(Profile::Full), full);
        assert!(!registry.names().contains(&"selftest"), "hidden");
        assert!(registry.find("selftest").is_err());
    }
}
