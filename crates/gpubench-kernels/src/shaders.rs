//! The one place that brings in `shaders/*.wgsl`. Every file is listed in [`ALL`], which the
//! CPU-only naga test walks, so a shader error shows up without an adapter.

/// Device-memory bandwidth kernels (copy, scale, add, triad, read, fill).
pub const STREAM: &str = include_str!("../../../shaders/stream.wgsl");
/// The launch-overhead kernel: one invocation bumping a counter.
pub const LAUNCH: &str = include_str!("../../../shaders/launch.wgsl");
/// Deliberately wrong kernels for fault-injection tests.
pub const SELFTEST: &str = include_str!("../../../shaders/selftest.wgsl");

/// Every shader, by file name.
pub const ALL: &[(&str, &str)] = &[
    ("stream.wgsl", STREAM),
    ("launch.wgsl", LAUNCH),
    ("selftest.wgsl", SELFTEST),
];
