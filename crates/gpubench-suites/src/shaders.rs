//! The one place that brings in `shaders/*.wgsl`. Every file is listed in [`ALL`], which the
//! CPU-only naga test walks, so a shader error shows up without an adapter.

/// Device-memory bandwidth kernels (copy, scale, add, triad, read, fill).
pub const STREAM: &str = include_str!("../../../shaders/stream.wgsl");
/// The launch-overhead kernel: one invocation bumping a counter.
pub const LAUNCH: &str = include_str!("../../../shaders/launch.wgsl");
/// Deliberately wrong kernels for fault-injection tests.
pub const SELFTEST: &str = include_str!("../../../shaders/selftest.wgsl");

/// Peak FMA throughput: scalar and vec4 chains (f32 as written; f16 by specialisation).
pub const COMPUTE_PEAK: &str = include_str!("../../../shaders/compute_peak.wgsl");

/// Peak integer multiply-add throughput: scalar and vec4 chains (i32 as written; u32, i64 and
/// i16 by rewriting its type).
pub const COMPUTE_INT: &str = include_str!("../../../shaders/compute_int.wgsl");
/// Peak packed 8-bit dot-product throughput (dot4I8Packed, dot4U8Packed).
pub const COMPUTE_DOT: &str = include_str!("../../../shaders/compute_dot.wgsl");

/// Workgroup-tiled matmul (shared-memory tiles, one output per invocation; the tile edge is a
/// pipeline constant). The unrolled matmul kernels are generated (`matmul::unrolled`).
pub const MATMUL_TILED: &str = include_str!("../../../shaders/matmul_tiled.wgsl");
/// Register-blocked vec4 matmul without workgroup memory.
pub const MATMUL_REG: &str = include_str!("../../../shaders/matmul_reg.wgsl");

/// The roofline kernel: FMAS multiply-adds per vec4 read.
pub const ROOFLINE: &str = include_str!("../../../shaders/roofline.wgsl");

/// The memory hierarchy: read bandwidth and pointer-chase latency against the working set.
pub const MEMORY: &str = include_str!("../../../shaders/memory.wgsl");
/// Workgroup (shared) memory bandwidth with a bank-conflict stride sweep, and atomicAdd
/// throughput on storage and workgroup memory.
pub const MEMORY_SHARED: &str = include_str!("../../../shaders/memory_shared.wgsl");

/// Zero-copy upload: a kernel copying a host-written buffer, read in place, into device memory.
pub const TRANSFER: &str = include_str!("../../../shaders/transfer.wgsl");

/// Every shader, by file name.
pub const ALL: &[(&str, &str)] = &[
    ("stream.wgsl", STREAM),
    ("launch.wgsl", LAUNCH),
    ("selftest.wgsl", SELFTEST),
    ("compute_peak.wgsl", COMPUTE_PEAK),
    ("compute_int.wgsl", COMPUTE_INT),
    ("compute_dot.wgsl", COMPUTE_DOT),
    ("matmul_tiled.wgsl", MATMUL_TILED),
    ("matmul_reg.wgsl", MATMUL_REG),
    ("roofline.wgsl", ROOFLINE),
    ("transfer.wgsl", TRANSFER),
    ("memory.wgsl", MEMORY),
    ("memory_shared.wgsl", MEMORY_SHARED),
];
