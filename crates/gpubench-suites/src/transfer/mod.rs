//! The transfer suite: moving data between host and device the way a wgpu program does, over a
//! geometric sweep of sizes, split into the parts a discrete GPU makes distinct: the copy
//! engine alone, the host writing mapped memory, and the whole transfer end to end; plus a
//! fitted fixed cost and asymptotic bandwidth per path.
//!
//! What each path times, and where wgpu puts its buffers on a discrete GPU, is the suite's page,
//! this folder's README.md; how wgpu 30 and gpu-allocator choose memory, with their source
//! files, is told once, in docs/notes/2026-12-01-wgpu-buffer-placement.md. Where each row's
//! buffers lie is recorded in its params (the kit's [`gpubench_harness::kit::placement`]), and
//! whether its bytes cross the link from the buffer its path names ([`placement`]).
//!
//! End-to-end rows take one transfer per sample, timed by the host clock from the start of the
//! host-side work to completion (each sample is one transfer's latency), with GPU timestamps
//! around the copy or kernel where there is one. Copy-engine rows calibrate the number of copies
//! per sample and report GPU time per copy; host-write rows calibrate memcpys per sample and
//! report host time per memcpy. Bandwidth counts the bytes moved once. Every row is verified
//! byte for byte: the destination starts with different random bytes, so a transfer that did not
//! happen fails. The suite derives, per path, the fit of `t = fixed + bytes / bandwidth` (see
//! [`crate::transfer::fit`]).
//!
//! [`kernel`] holds the one [`Transfer`] kernel, [`state`] its typed state per path, `derived`
//! the fit.

use gpubench_harness::{BenchResult, GpuContext, KernelBench, Profile};
use gpubench_results::units::{KIB, MIB};

use gpubench_engine::SuiteOptions;
use gpubench_engine::{Benchmarks, Suite};

mod derived;
pub mod fit;
pub mod kernel;
#[cfg(test)]
mod on_an_adapter;
pub mod placement;
pub mod state;

pub use derived::fitted_model;
use gpubench_engine::SuiteInfo;
pub use gpubench_harness::kit::placement::{BufferRole, MemoryKind, MemoryMap};
pub use kernel::{Transfer, zero_copy_support};
pub use state::TransferState;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "host-device transfers over a size sweep, with fitted fixed cost and bandwidth";

/// transfer.wgsl: the zero-copy upload, a kernel copying a host-written buffer, read in place, into device memory.
pub const WGSL: &str = include_str!("transfer.wgsl");

/// Smallest size of every sweep.
pub const SMALLEST: u64 = 4 * KIB;
/// Each size is this many times the previous one.
pub const STEP: u64 = 4;
/// Largest size of the quick profile.
pub const QUICK_CAP: u64 = 4 * MIB;
/// Largest size of the default and full profiles (before the adapter's limit).
pub const DEFAULT_CAP: u64 = 256 * MIB;
/// Transfers per size and path (each is one sample) of the end-to-end rows: enough for a stable
/// median and bootstrap.
pub const SAMPLES_PER_SIZE: usize = 20;
/// Resamples of the bootstrap of the fit.
const FIT_RESAMPLES: usize = 1000;
/// A fit whose worst point is further than this (relative) from the line does not describe the
/// sweep: its values are not resolved.
const POOR_FIT: f64 = 0.25;
/// The fewest sizes a fit is made over: a line through two points fits them whatever they are.
const MIN_FIT_SIZES: usize = 3;
/// Seed of that bootstrap, fixed so intervals repeat.
const FIT_SEED: u64 = 0x7472_616e_7366_6572; // "transfer"

/// What part of a transfer a row times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measures {
    /// The whole transfer as an application waits for it (host clock).
    EndToEnd,
    /// Copies alone, between GPU timestamps, no host work.
    CopyEngine,
    /// The host's memcpy into mapped memory alone.
    HostWrite,
}

impl Measures {
    /// Name, as used in the `measures` parameter.
    pub fn name(self) -> &'static str {
        match self {
            Measures::EndToEnd => "end-to-end",
            Measures::CopyEngine => "copy-engine",
            Measures::HostWrite => "host-write",
        }
    }
}

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
    /// Copies alone from a staging buffer filled once.
    StagingCopy,
    /// Copies alone into a MAP_READ buffer.
    ReadbackCopy,
    /// The host's memcpy into a mapped MAP_WRITE buffer alone.
    HostWrite,
    /// A host-written STORAGE | MAP_WRITE buffer read in place by a kernel (unified memory).
    ZeroCopy,
}

impl TransferPath {
    /// Every path in report order: the end-to-end paths first (their ids predate the others).
    pub const ALL: [TransferPath; 8] = [
        TransferPath::WriteBuffer,
        TransferPath::MappedStaging,
        TransferPath::MappedAtCreation,
        TransferPath::MapRead,
        TransferPath::StagingCopy,
        TransferPath::ReadbackCopy,
        TransferPath::HostWrite,
        TransferPath::ZeroCopy,
    ];

    /// Name, as used in result ids and the `path` parameter.
    pub fn name(self) -> &'static str {
        match self {
            TransferPath::WriteBuffer => "h2d-write-buffer",
            TransferPath::MappedStaging => "h2d-mapped-staging",
            TransferPath::MappedAtCreation => "h2d-mapped-at-creation",
            TransferPath::MapRead => "d2h-map-read",
            TransferPath::StagingCopy => "h2d-staging-copy",
            TransferPath::ReadbackCopy => "d2h-readback-copy",
            TransferPath::HostWrite => "h2d-host-write",
            TransferPath::ZeroCopy => "h2d-zero-copy",
        }
    }

    /// `h2d` or `d2h`.
    pub fn direction(self) -> &'static str {
        match self {
            TransferPath::MapRead | TransferPath::ReadbackCopy => "d2h",
            _ => "h2d",
        }
    }

    /// What part of the transfer the row times.
    pub fn measures(self) -> Measures {
        match self {
            TransferPath::StagingCopy | TransferPath::ReadbackCopy => Measures::CopyEngine,
            TransferPath::HostWrite => Measures::HostWrite,
            _ => Measures::EndToEnd,
        }
    }

    /// Whether GPU timestamps bracket the copy (or kernel) inside an end-to-end transfer.
    pub fn gpu_timed(self) -> bool {
        matches!(
            self,
            TransferPath::MappedStaging | TransferPath::MapRead | TransferPath::ZeroCopy
        )
    }

    /// The buffers the path moves bytes through, whose placement its params record (the
    /// staging of write_buffer and mapped_at_creation is wgpu's own, of the same usage).
    pub fn roles(self) -> &'static [BufferRole] {
        use BufferRole::{Device, Readback, Shared, Staging};
        match self {
            TransferPath::WriteBuffer
            | TransferPath::MappedStaging
            | TransferPath::MappedAtCreation
            | TransferPath::StagingCopy => &[Staging, Device],
            TransferPath::MapRead | TransferPath::ReadbackCopy => &[Device, Readback],
            TransferPath::HostWrite => &[Staging],
            TransferPath::ZeroCopy => &[Shared, Device],
        }
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
            TransferPath::StagingCopy => {
                "bytes moved once per second by copy_buffer_to_buffer alone, MAP_WRITE staging (filled once at set-up) to a device buffer, back-to-back copies between GPU timestamps, per copy (host clock where the adapter has no encoder timestamps); staging_memory says whether the source is host memory or the BAR"
            }
            TransferPath::ReadbackCopy => {
                "bytes moved once per second by copy_buffer_to_buffer alone, device buffer to a MAP_READ buffer, back-to-back copies between GPU timestamps, per copy (host clock where the adapter has no encoder timestamps); no map, no host read"
            }
            TransferPath::HostWrite => {
                "bytes written once per second by the host's memcpy into the mapped range of a MAP_WRITE staging buffer (mapped once, outside the clock), per memcpy (host clock; no GPU work)"
            }
            TransferPath::ZeroCopy => {
                "bytes moved once per second, host to device without a copy: map_async(Write) + wait, write a STORAGE | MAP_WRITE buffer, unmap, a kernel reads it in place (copying it into a device buffer) until done (host clock; GPU timestamps around the kernel)"
            }
        }
    }

    /// What the fitted model of this path is fitted to.
    pub fn fitted_from(self) -> &'static str {
        match self.measures() {
            Measures::EndToEnd => "host time, start of the transfer to completion",
            Measures::CopyEngine => {
                "GPU time per copy of back-to-back copies (host time where the adapter has no encoder timestamps)"
            }
            Measures::HostWrite => "host time per memcpy into mapped memory",
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
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("transfer", ABOUT)
            .after(&["stream"])
            .shaders(&[("transfer.wgsl", WGSL)])
            .plain_pipelines(&[(WGSL, "copy_words")])
    }

    fn build(&self, ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let sizes = sweep_sizes(ctx, options.profile);
        let memory = MemoryMap::probe(ctx);
        Ok(TransferPath::ALL
            .iter()
            .flat_map(|&path| {
                let memory = &memory;
                sizes.iter().map(move |&bytes| {
                    KernelBench::boxed(Transfer::new(path, bytes, options.seed).placed(memory))
                })
            })
            .collect())
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        derived::derive(results, earlier)
    }

    /// Each path's rows (its fitted model's too) are a curve against size on log axes.
    fn chart_hint(&self, result: &BenchResult) -> Option<gpubench_results::ChartHint> {
        use gpubench_results::chart::{ChartHint, group};
        (result.params.contains_key("path"))
            .then(|| ChartHint::log_curve(group::TRANSFER_SIZES, "bytes", "path"))
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

    #[test]
    fn paths_have_distinct_names_and_the_old_ids_keep_theirs() {
        let names: std::collections::BTreeSet<&str> =
            TransferPath::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names.len(), TransferPath::ALL.len());
        // Results are paired by id across runs: these four predate the split and must not move.
        let old: Vec<&str> = TransferPath::ALL[..4].iter().map(|p| p.name()).collect();
        assert_eq!(
            old,
            [
                "h2d-write-buffer",
                "h2d-mapped-staging",
                "h2d-mapped-at-creation",
                "d2h-map-read"
            ]
        );
        assert!(
            TransferPath::ALL[..4]
                .iter()
                .all(|p| p.measures() == Measures::EndToEnd)
        );
    }
}
