//! The transfer suite: moving data between host and device, the way a wgpu program actually
//! does it, over a geometric sweep of sizes, plus a fitted fixed cost and asymptotic bandwidth.
//!
//! Four paths, each timed end to end by the host clock (what an application waits for), one
//! transfer per sample so each sample is one transfer's latency:
//!
//! - `h2d-write-buffer`: `queue.write_buffer` into a device buffer, then a submit to flush it.
//!   wgpu copies through its own staging memory in a command buffer of its own, ahead of ours,
//!   so no timestamp of ours can bracket that copy: host time only.
//! - `h2d-mapped-staging`: `map_async(Write)` on a MAP_WRITE | COPY_SRC staging buffer and wait,
//!   write the data into the mapped range, unmap, `copy_buffer_to_buffer` into the device buffer.
//!   The map is inside the timed region because an application re-uploading must re-map; GPU
//!   timestamps bracket the copy.
//! - `h2d-mapped-at-creation`: a fresh device buffer created `mapped_at_creation`, written and
//!   unmapped, then a submit so the data lands. Creating the buffer is part of this path's cost
//!   (that is how `create_buffer_init` uploads). Host time only, as for write_buffer.
//! - `d2h-map-read`: `copy_buffer_to_buffer` from a device buffer into a MAP_READ buffer,
//!   `map_async(Read)` and wait, and read the bytes out into host memory; timestamps bracket the
//!   copy.
//!
//! Bandwidth counts the bytes moved once. Every transfer is verified byte for byte: the
//! destination starts with different random bytes, so a transfer that did not happen fails.
//! The suite derives, per path, the fit of `t = fixed + bytes / bandwidth` (see [`crate::fit`]).
//!
//! [`kernel`] holds the one [`Transfer`] kernel with a typed state per path; `derived` the fit.

use gpubench_harness::units::{KIB, MIB};
use gpubench_harness::{BenchResult, GpuContext, KernelBench, Profile};

use crate::{Benchmarks, BuildContext, Suite};

mod derived;
pub mod kernel;

pub use derived::fitted_model;
pub use kernel::{Transfer, TransferState};

/// Smallest size of every sweep.
pub const SMALLEST: u64 = 4 * KIB;
/// Each size is this many times the previous one.
pub const STEP: u64 = 4;
/// Largest size of the quick profile.
pub const QUICK_CAP: u64 = 4 * MIB;
/// Largest size of the default and full profiles (before the adapter's limit).
pub const DEFAULT_CAP: u64 = 256 * MIB;
/// Transfers per size and path (each is one sample): enough for a stable median and bootstrap.
pub const SAMPLES_PER_SIZE: usize = 20;
/// Resamples of the bootstrap of the fit.
const FIT_RESAMPLES: usize = 1000;
/// A fit whose worst point is further than this (relative) from the line gets a warning.
const POOR_FIT: f64 = 0.25;
/// Seed of that bootstrap, fixed so intervals repeat.
const FIT_SEED: u64 = 0x7472_616e_7366_6572; // "transfer"

/// A way to move bytes between host and device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferPath {
    /// `queue.write_buffer`.
    WriteBuffer,
    /// Mapped MAP_WRITE staging buffer plus `copy_buffer_to_buffer`.
    MappedStaging,
    /// A fresh buffer `mapped_at_creation`.
    MappedAtCreation,
    /// Copy into a MAP_READ buffer, map and read out.
    MapRead,
}

impl TransferPath {
    /// Every path in report order.
    pub const ALL: [TransferPath; 4] = [
        TransferPath::WriteBuffer,
        TransferPath::MappedStaging,
        TransferPath::MappedAtCreation,
        TransferPath::MapRead,
    ];

    /// Name, as used in result ids and the `path` parameter.
    pub fn name(self) -> &'static str {
        match self {
            TransferPath::WriteBuffer => "h2d-write-buffer",
            TransferPath::MappedStaging => "h2d-mapped-staging",
            TransferPath::MappedAtCreation => "h2d-mapped-at-creation",
            TransferPath::MapRead => "d2h-map-read",
        }
    }

    /// `h2d` or `d2h`.
    pub fn direction(self) -> &'static str {
        match self {
            TransferPath::MapRead => "d2h",
            _ => "h2d",
        }
    }

    /// Whether GPU timestamps can bracket this path's copy.
    pub fn gpu_timed(self) -> bool {
        matches!(self, TransferPath::MappedStaging | TransferPath::MapRead)
    }

    /// What the figure counts, in words.
    pub fn counts(self) -> &'static str {
        match self {
            TransferPath::WriteBuffer => {
                "bytes moved once per second, host to device: queue.write_buffer + submit until the GPU has the data (host clock; no GPU time: wgpu copies in its own command buffer)"
            }
            TransferPath::MappedStaging => {
                "bytes moved once per second, host to device: map_async(Write) + wait, write the mapped staging buffer, unmap, copy_buffer_to_buffer until done (host clock; GPU timestamps around the copy)"
            }
            TransferPath::MappedAtCreation => {
                "bytes moved once per second, host to device: create a fresh buffer mapped_at_creation (creation cost included), write, unmap, submit until the GPU has it (host clock; no GPU time)"
            }
            TransferPath::MapRead => {
                "bytes moved once per second, device to host: copy_buffer_to_buffer into a MAP_READ buffer, map_async(Read) + wait, read out into host memory (host clock; GPU timestamps around the copy)"
            }
        }
    }
}

/// The sizes of the sweep: 4 KiB, 16 KiB, ... up to the profile's cap (quick 4 MiB, else
/// 256 MiB), never above the adapter's `max_buffer_size`.
pub fn sweep_sizes(ctx: &GpuContext, profile: Profile) -> Vec<u64> {
    let wanted = match profile {
        Profile::Quick => QUICK_CAP,
        Profile::Default | Profile::Full => DEFAULT_CAP,
    };
    sizes_up_to(wanted.min(ctx.limits.max_buffer_size))
}

/// 4 KiB times powers of 4, up to and including `cap`.
pub fn sizes_up_to(cap: u64) -> Vec<u64> {
    std::iter::successors(Some(SMALLEST), |s| s.checked_mul(STEP))
        .take_while(|&s| s <= cap)
        .collect()
}

/// The transfer suite: every path over the size sweep, then the fitted model per path.
pub struct TransferSuite;

impl Suite for TransferSuite {
    fn name(&self) -> &'static str {
        gpubench_harness::suite_names::TRANSFER
    }

    fn benchmarks(&self, build: &mut BuildContext<'_>) -> Benchmarks {
        let (ctx, options) = (build.ctx, build.options);
        let sizes = sweep_sizes(ctx, options.profile);
        Ok(TransferPath::ALL
            .iter()
            .flat_map(|&path| {
                sizes
                    .iter()
                    .map(move |&bytes| KernelBench::boxed(Transfer::new(path, bytes, options.seed)))
            })
            .collect())
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        derived::derive(results, earlier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_is_geometric_from_4kib_to_the_cap() {
        assert_eq!(
            sizes_up_to(4 * MIB),
            vec![4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB, 4 * MIB]
        );
        assert_eq!(sizes_up_to(256 * MIB).len(), 9);
        assert_eq!(sizes_up_to(200 * MIB).last(), Some(&(64 * MIB)));
        assert!(sizes_up_to(KIB).is_empty());
    }
}
