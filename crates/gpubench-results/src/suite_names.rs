//! The names of the suites whose results other code looks up (charts, tables, derived results).
//!
//! A result's `suite` is one of these for the built-in suites. The suites use them as their
//! names, and readers compare with them, so a rename is one edit that the compiler follows.

/// Device-memory bandwidth.
pub const STREAM: &str = "stream";
/// Host-device transfers.
pub const TRANSFER: &str = "transfer";
/// Launch overhead.
pub const LAUNCH: &str = "launch";
/// Peak throughput per number type.
pub const COMPUTE: &str = "compute";
/// The memory hierarchy: bandwidth and latency against the working set.
pub const MEMORY: &str = "memory";
/// Matrix products.
pub const MATMUL: &str = "matmul";
/// Arithmetic-intensity sweep.
pub const ROOFLINE: &str = "roofline";
/// Largest allocations.
pub const CAPACITY: &str = "capacity";
/// FMA throughput over time.
pub const SUSTAINED: &str = "sustained";
