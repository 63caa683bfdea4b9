//! The capacity probe: how much memory the adapter really gives, next to what it reports.
//!
//! - Largest single buffer: start at the reported `max_buffer_size` and halve until a buffer
//!   can be allocated *and written* (a clear over its whole size, then a read-back of its last
//!   bytes): allocation alone proves little where memory is committed lazily.
//! - Total: allocate and write chunks until the device refuses one or the cap is reached
//!   (`--capacity-cap`; the default stays well under the machine's memory, since on a software
//!   adapter "device memory" is host RAM).
//!
//! Every allocation goes through error scopes (out of memory and validation), so a refusal is a
//! measurement, never a crash, and every buffer is freed before the next suite starts.

use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::{
    BenchError, BenchResult, BenchmarkInfo, GpuContext, MetricKind, Status, Work,
};
use gpubench_results::stats;
use gpubench_results::units::{GIB, MIB, format_size};
use gpubench_results::warnings::{FigureUnit, OwnedKind};

use gpubench_engine::options::parse_size_value;
use gpubench_engine::{Arity, OptionSpec};
use gpubench_engine::{Included, SuiteInfo};
use gpubench_engine::{Suite, SuiteOptions};

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "largest single buffer and total memory actually allocated and written";

/// This suite's warning: less memory could be allocated than the adapter reports; figure: the
/// bytes allocated.
pub const ALLOCATION_BELOW_LIMIT: OwnedKind = OwnedKind::new(
    "allocation-below-limit",
    "less could be allocated than reported",
    FigureUnit::Bytes,
);

/// This suite's note on the total-allocation probe: what stopped it.
pub const CAPACITY_STOPPED: OwnedKind = OwnedKind::new(
    "capacity-stopped",
    "capacity probe stopped",
    FigureUnit::Count,
);

/// The capacity suite's option: the upper bound of the total-allocation probe.
pub const CAPACITY_CAP: OptionSpec = OptionSpec {
    key: "capacity_cap",
    flag: "capacity-cap",
    value_name: "SIZE",
    help: "Upper bound of the capacity suite's total-allocation probe, e.g. 8GiB; where device memory is the host's RAM, also where its single-buffer probe starts.",
    arity: Arity::One,
    default: || serde_json::Value::Null,
    parse: parse_size_value,
    choices: None,
    hidden: false,
};

/// The smallest single buffer the probe tries before giving up.
const MIN_PROBE: u64 = MIB;

/// The capacity suite. Its results are probed, not timed.
pub struct CapacitySuite;

impl Suite for CapacitySuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("capacity", ABOUT)
            .included(Included::FullProfile)
            .options(&[CAPACITY_CAP])
    }

    fn probes<'a>(
        &'a self,
        ctx: &'a GpuContext,
        options: &'a SuiteOptions,
    ) -> gpubench_harness::LocalFuture<'a, Vec<BenchResult>> {
        Box::pin(async move {
            let cap = options
                .get::<u64>(CAPACITY_CAP.key)
                .unwrap_or_else(|| default_cap(ctx));
            let start = single_start(ctx, cap);
            let single = probe_single(ctx, start).await;
            let chunk = single.as_ref().map_or(0, |s| s.bytes).clamp(MIB, 256 * MIB);
            let total = if ctx.faults.device_lost() {
                // The single-buffer probe lost it, and its row says so.
                let reason = "not run: the device was lost by the single-buffer probe";
                BenchResult::empty(&total_info(), Status::Skipped, Some(reason.into()))
            } else {
                total_result(probe_total(ctx, cap, chunk).await, cap, chunk)
            };
            vec![single_result(ctx, single, start), total]
        })
    }

    fn probe_infos(&self) -> Vec<BenchmarkInfo> {
        vec![single_info(), total_info()]
    }
}

/// The default cap on the total probe: 16 GiB on a discrete GPU; where "device memory" is the
/// host's RAM (a software adapter: 4 GiB; an integrated or unified-memory GPU: 16 GiB), at
/// most a quarter of host RAM (2 GiB on an 8 GB Apple M3), and 4 GiB where that is not known,
/// so the probe never drives the host into swap.
pub fn default_cap(ctx: &GpuContext) -> u64 {
    let quarter_ram = || host_memory_bytes().map_or(4 * GIB, |m| m / 4);
    match AdapterClass::of(ctx) {
        AdapterClass::Software => (4 * GIB).min(quarter_ram()),
        AdapterClass::Integrated => (16 * GIB).min(quarter_ram()),
        AdapterClass::Discrete => 16 * GIB,
    }
}

/// The first size the single-buffer probe tries: the reported `max_buffer_size`, or on an
/// adapter whose device memory is the host's RAM (a software adapter, an integrated or
/// unified-memory GPU) the total probe's `cap` where that is smaller: Metal reports a buffer
/// limit near an 8 GB M3's whole RAM, and a buffer that size, cleared in full, would drive it
/// into swap.
fn single_start(ctx: &GpuContext, cap: u64) -> u64 {
    let reported = ctx.limits.max_buffer_size / 4 * 4;
    match AdapterClass::of(ctx) {
        AdapterClass::Discrete => reported,
        AdapterClass::Software | AdapterClass::Integrated => {
            reported.min((cap / 4 * 4).max(MIN_PROBE))
        }
    }
}

/// The host's RAM in bytes: `/proc/meminfo` on Linux, `sysctl hw.memsize` on macOS.
fn host_memory_bytes() -> Option<u64> {
    if cfg!(target_os = "macos") {
        let out = std::process::Command::new("sysctl")
            .args(["-n", "hw.memsize"])
            .output()
            .ok()?;
        return String::from_utf8_lossy(&out.stdout).trim().parse().ok();
    }
    let text = gpubench_results::bounded::read_text_bounded(
        std::path::Path::new("/proc/meminfo"),
        gpubench_results::bounded::SYSTEM_FILE_BYTES,
    )
    .ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A buffer that was allocated, written over its whole size and read back.
struct Probe {
    bytes: u64,
    attempts: Vec<String>,
}

/// Allocates `bytes` and proves it is usable over its whole size: a non-zero pattern is written
/// at both ends, the whole buffer is cleared (which touches every page), and both ends must read
/// back as zeros, so the clear really covered the buffer.
async fn allocate_and_touch(ctx: &GpuContext, bytes: u64) -> Result<wgpu::Buffer, BenchError> {
    let edge = 4096.min(bytes / 2) / 4 * 4;
    let ends = [0, bytes - edge];
    let buffer = ctx
        .scoped(async {
            let buffer = ctx
                .try_buffer(
                    "capacity probe",
                    bytes,
                    wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                )
                .await?;
            let pattern = vec![0xA5u8; edge as usize];
            for offset in ends {
                ctx.queue.write_buffer(&buffer, offset, &pattern);
            }
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            encoder.clear_buffer(&buffer, 0, None);
            ctx.queue.submit([encoder.finish()]);
            ctx.wait_idle().await?;
            Ok(buffer)
        })
        .await?;
    let staging = ctx.buffer(
        "capacity readback",
        2 * edge,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for (i, offset) in ends.into_iter().enumerate() {
        encoder.copy_buffer_to_buffer(&buffer, offset, &staging, i as u64 * edge, edge);
    }
    ctx.queue.submit([encoder.finish()]);
    let read = ctx.map_and_read(&staging).await?;
    if read.iter().all(|b| *b == 0) {
        Ok(buffer)
    } else {
        Err(BenchError::Gpu(
            "the buffer's ends did not read back cleared: the clear did not cover it".to_string(),
        ))
    }
}

async fn release(ctx: &GpuContext, buffers: Vec<wgpu::Buffer>) {
    for buffer in buffers {
        buffer.destroy();
    }
    let _ = ctx.wait_idle().await;
}

/// How many bisection steps narrow the largest single buffer between the size found by halving
/// and the one refused before it: the result is then within 1/16 (6.25%) of the largest size
/// that works, where halving alone could report half of it.
const REFINE_STEPS: u32 = 4;

async fn probe_single(ctx: &GpuContext, start: u64) -> Result<Probe, String> {
    let mut bytes = start;
    let mut refused = None;
    let mut attempts = Vec::new();
    while bytes >= MIN_PROBE {
        if try_size(ctx, bytes, &mut attempts).await? {
            let bytes = match refused {
                Some(refused) => {
                    let attempts = &mut attempts;
                    bisect(bytes, refused, async |size| {
                        try_size(ctx, size, attempts).await
                    })
                    .await?
                }
                None => bytes,
            };
            return Ok(Probe { bytes, attempts });
        }
        refused = Some(bytes);
        // Halved in whole words: a buffer that is cleared and written is a multiple of 4
        // bytes (wgpu's limits put max_buffer_size at 2^31 - 1 on many adapters).
        bytes = half_in_words(bytes);
    }
    Err(format!(
        "no buffer of at least {} could be allocated: {}",
        format_size(MIN_PROBE),
        attempts.join("; ")
    ))
}

/// Half of `bytes`, rounded down to a multiple of 4.
fn half_in_words(bytes: u64) -> u64 {
    bytes / 2 / 4 * 4
}

/// Bisects between a size that works and a larger one refused, [`REFINE_STEPS`] times, sizes
/// kept to whole words: the largest size `fits` found to work.
async fn bisect(
    mut works: u64,
    mut refused: u64,
    mut fits: impl AsyncFnMut(u64) -> Result<bool, String>,
) -> Result<u64, String> {
    for _ in 0..REFINE_STEPS {
        let mid = (works + (refused - works) / 2) / 4 * 4;
        if mid <= works {
            break;
        }
        if fits(mid).await? {
            works = mid;
        } else {
            refused = mid;
        }
    }
    Ok(works)
}

/// Whether a buffer of `bytes` can be allocated and written, noted in `attempts`; a lost device
/// ends the probe with every attempt named.
async fn try_size(
    ctx: &GpuContext,
    bytes: u64,
    attempts: &mut Vec<String>,
) -> Result<bool, String> {
    match allocate_and_touch(ctx, bytes).await {
        Ok(buffer) => {
            release(ctx, vec![buffer]).await;
            attempts.push(format!("{}: ok", format_size(bytes)));
            Ok(true)
        }
        Err(error) => {
            attempts.push(format!("{}: {error}", format_size(bytes)));
            if ctx.faults.device_lost() {
                return Err(format!(
                    "device lost while probing: {}",
                    attempts.join("; ")
                ));
            }
            Ok(false)
        }
    }
}

/// What ended the total probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The user's cap, before the device refused anything.
    Cap,
    /// The device refused a chunk: the total it gives.
    Refused,
    /// The device was lost: what was allocated before says nothing of its memory.
    DeviceLost,
}

/// How the total probe ended.
struct Total {
    bytes: u64,
    chunks: usize,
    stopped_by: String,
    end: End,
}

async fn probe_total(ctx: &GpuContext, cap: u64, chunk: u64) -> Total {
    let mut held = Vec::new();
    let mut bytes = 0;
    let (stopped_by, end) = loop {
        if bytes + chunk > cap {
            let why = format!(
                "the cap of {} (raise it with the `capacity_cap` option)",
                format_size(cap)
            );
            break (why, End::Cap);
        }
        match allocate_and_touch(ctx, chunk).await {
            Ok(buffer) => {
                bytes += chunk;
                held.push(buffer);
            }
            Err(error) if ctx.faults.device_lost() => {
                break (format!("the device being lost: {error}"), End::DeviceLost);
            }
            Err(error) => {
                break (
                    format!("the device refusing another chunk: {error}"),
                    End::Refused,
                );
            }
        }
    };
    let chunks = held.len();
    release(ctx, held).await;
    Total {
        bytes,
        chunks,
        stopped_by,
        end,
    }
}

/// The single-buffer probe's benchmark.
fn single_info() -> BenchmarkInfo {
    BenchmarkInfo::new(
        "capacity/max-single-buffer",
        "capacity",
        MetricKind::Capacity,
        "largest single buffer allocated, cleared in full and checked at both ends (GiB = 2^30 bytes)",
    )
}

/// The total probe's benchmark.
fn total_info() -> BenchmarkInfo {
    BenchmarkInfo::new(TOTAL_ID, "capacity", MetricKind::Capacity, TOTAL_COUNTS)
}

/// A probed result: `Ok(bytes)` gives its value (bytes as written work, in GiB), `Err(reason)`
/// a failure. The caller adds what the probe reports beside it.
fn probed(info: &BenchmarkInfo, outcome: Result<u64, String>) -> BenchResult {
    let bytes = match outcome {
        Ok(bytes) => bytes,
        Err(reason) => return BenchResult::empty(info, Status::Failed, Some(reason)),
    };
    let mut r = BenchResult::empty(info, Status::Ok, None);
    // Written bytes, no operation: a probe is not timed.
    r.work = Work::default().with_bytes(0, bytes);
    r.samples = vec![MetricKind::Capacity.value(&r.work, 1.0)];
    r.summary = stats::summarize(&r.samples);
    r.verified = true;
    r
}

fn single_result(ctx: &GpuContext, probe: Result<Probe, String>, start: u64) -> BenchResult {
    let max_buffer = ctx.limits.max_buffer_size;
    let mut r = probed(
        &single_info(),
        probe.as_ref().map(|p| p.bytes).map_err(Clone::clone),
    );
    r.extra
        .insert("reported_max_buffer_size".into(), max_buffer.into());
    r.extra.insert(
        "reported_max_storage_buffer_binding_size".into(),
        ctx.limits.max_storage_buffer_binding_size.into(),
    );
    if let Ok(probe) = probe {
        r.params
            .insert("size".into(), format_size(probe.bytes).into());
        r.extra.insert("attempts".into(), probe.attempts.into());
        if start < max_buffer / 4 * 4 && probe.bytes == start {
            // Larger buffers were not tried: a figure at the cap is a floor, not the limit.
            r.extra.insert("started_at_cap".into(), start.into());
            r.warnings.push(CAPACITY_STOPPED.record(
                format!(
                    "the probe started at {}, the capacity cap (`capacity_cap`, at least {}: device memory is the host's RAM here), below the reported max_buffer_size {}: larger buffers were not tried; a higher cap tries them",
                    format_size(start),
                    format_size(MIN_PROBE),
                    format_size(max_buffer)
                ),
                None,
            ));
        } else if probe.bytes < max_buffer / 4 * 4 {
            r.warnings.push(ALLOCATION_BELOW_LIMIT.record(
                format!(
                    "the adapter reports max_buffer_size {} but only {} could be allocated",
                    format_size(max_buffer),
                    format_size(probe.bytes)
                ),
                Some(probe.bytes as f64),
            ));
        }
    }
    r
}

/// The total probe's id.
const TOTAL_ID: &str = "capacity/total-allocation";
/// What the total probe counts.
const TOTAL_COUNTS: &str =
    "memory allocated and written in chunks until refused or capped (GiB = 2^30 bytes)";

/// The total probe's result: the bytes allocated where the device refused more, skipped with
/// the reason where the cap stopped it ([`capped_total`]), failed where the device was lost.
fn total_result(total: Total, cap: u64, chunk: u64) -> BenchResult {
    if total.end == End::Cap {
        return capped_total(total, cap, chunk);
    }
    let outcome = if total.end == End::DeviceLost {
        Err(format!(
            "stopped after {} in {} chunks by {}; a lost device's total says nothing of its memory",
            format_size(total.bytes),
            total.chunks,
            total.stopped_by
        ))
    } else if total.bytes == 0 {
        Err(format!(
            "no chunk of {} could be allocated: stopped by {}",
            format_size(chunk),
            total.stopped_by
        ))
    } else {
        Ok(total.bytes)
    };
    let mut r = probed(&total_info(), outcome);
    r.params.insert("cap".into(), format_size(cap).into());
    r.params.insert("chunk".into(), format_size(chunk).into());
    r.extra.insert("chunks".into(), total.chunks.into());
    if r.status == Status::Ok {
        r.warnings
            .push(CAPACITY_STOPPED.record(format!("stopped by {}", total.stopped_by), None));
    }
    r.extra.insert("stopped_by".into(), total.stopped_by.into());
    r
}

/// A total probe the cap stopped before the device refused a chunk: skipped. A cap below one
/// chunk is the user's choice, not the device's failure; above it the device's total is not
/// resolved, only that it gives at least the bytes allocated (a capped figure would read as the
/// card's memory, and two cards capped alike as equal).
fn capped_total(total: Total, cap: u64, chunk: u64) -> BenchResult {
    let reason = if total.bytes == 0 {
        format!(
            "the capacity cap (`capacity_cap`) of {} is below one chunk of {}; give at least {} to measure",
            format_size(cap),
            format_size(chunk),
            format_size(chunk)
        )
    } else {
        format!(
            "not resolved by this probe: {} was allocated and written before the cap of {} \
             stopped it, and the device had refused nothing, so it gives at least that much; \
             raise the cap with the `capacity_cap` option to find its limit",
            format_size(total.bytes),
            format_size(cap)
        )
    };
    let mut r = BenchResult::empty(&total_info(), Status::Skipped, Some(reason));
    r.params.insert("cap".into(), format_size(cap).into());
    r.params.insert("chunk".into(), format_size(chunk).into());
    r.extra.insert("chunks".into(), total.chunks.into());
    r.extra.insert("allocated_bytes".into(), total.bytes.into());
    r.extra.insert("stopped_by".into(), total.stopped_by.into());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `r` failed with `reason`, with no figure, no check and no warning.
    fn assert_failed_saying(r: &BenchResult, reason: &str) {
        assert_eq!(r.status, Status::Failed);
        assert!(!r.verified && r.samples.is_empty() && r.warnings.is_empty());
        assert_eq!(r.reason.as_deref(), Some(reason));
    }

    #[test]
    fn total_result_reports_the_bytes_or_why_there_are_none() {
        let total = |bytes, chunks| Total {
            bytes,
            chunks,
            stopped_by: "the device refusing another chunk: out of memory".into(),
            end: End::Refused,
        };
        let r = total_result(total(2 * GIB, 8), 4 * GIB, 256 * MIB);
        assert_eq!(r.status, Status::Ok);
        assert!(r.verified);
        assert_eq!(r.samples, vec![2.0]);
        assert_eq!(r.work.bytes_written, 2 * GIB);
        assert_eq!(r.work.ops, 0);
        assert_eq!(r.params["chunk"], "256MiB");
        assert_eq!(r.extra["chunks"], 8);
        assert_eq!(r.warnings.len(), 1);
        assert_eq!(r.warnings[0].kind, CAPACITY_STOPPED.kind());
        assert_eq!(
            r.warnings[0].message,
            "stopped by the device refusing another chunk: out of memory"
        );

        // The cap, not the device, stopped it: no total is resolved, only a lower bound.
        let capped = Total {
            stopped_by: "the cap of 16GiB".into(),
            end: End::Cap,
            ..total(16 * GIB, 64)
        };
        let r = total_result(capped, 16 * GIB, 256 * MIB);
        assert_eq!(r.status, Status::Skipped);
        assert!(r.samples.is_empty() && r.summary.is_none());
        let reason = r.reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("16GiB was allocated and written before the cap of 16GiB")
                && reason.contains("at least that much")
                && reason.contains("`capacity_cap` option"),
            "{reason}"
        );
        assert_eq!(r.extra["allocated_bytes"], 16 * GIB);

        let refused = Total {
            bytes: 0,
            chunks: 0,
            stopped_by: "the device refusing another chunk: out of memory".into(),
            end: End::Refused,
        };
        assert_failed_saying(
            &total_result(refused, 4 * GIB, 256 * MIB),
            "no chunk of 256MiB could be allocated: stopped by the device refusing another chunk: out of memory",
        );

        // A device lost part way: what it held before is no figure of its memory.
        let lost = Total {
            stopped_by: "the device being lost: device lost (injected)".into(),
            end: End::DeviceLost,
            ..total(3 * GIB, 12)
        };
        assert_failed_saying(
            &total_result(lost, 16 * GIB, 256 * MIB),
            "stopped after 3GiB in 12 chunks by the device being lost: device lost (injected); a lost device's total says nothing of its memory",
        );
    }

    #[test]
    fn halving_from_a_limit_of_2_to_the_31_minus_1_keeps_whole_words() {
        let mut bytes = (i32::MAX as u64) / 4 * 4;
        while bytes >= MIN_PROBE {
            assert_eq!(bytes % 4, 0, "{bytes}");
            bytes = half_in_words(bytes);
        }
    }

    #[test]
    fn the_largest_buffer_is_bisected_to_within_a_sixteenth() {
        // Halving from a reported 128 GiB found 64 GiB; the device takes up to 79 GiB.
        let limit = 79 * GIB;
        let mut tried = Vec::new();
        let fits = async |size: u64| {
            tried.push(size);
            Ok(size <= limit)
        };
        let found = pollster::block_on(bisect(64 * GIB, 128 * GIB, fits)).expect("bisects");
        assert!(
            found <= limit && found as f64 >= limit as f64 * 15.0 / 16.0,
            "{found}"
        );
        assert_eq!(tried.len(), REFINE_STEPS as usize);
        assert!(tried.iter().all(|size| size % 4 == 0));
        // A lost device ends it with the probe's error.
        let lost = pollster::block_on(bisect(MIB, 2 * MIB, async |_| Err("lost".to_string())));
        assert_eq!(lost, Err("lost".to_string()));
    }

    /// A cap below one chunk is the user's choice: skipped with the reason, never a failure.
    #[test]
    fn a_cap_below_one_chunk_is_a_skip_naming_the_option() {
        let capped = Total {
            bytes: 0,
            chunks: 0,
            stopped_by: "the cap of 4KiB".into(),
            end: End::Cap,
        };
        let r = total_result(capped, 4096, 256 * MIB);
        assert_eq!(r.status, Status::Skipped);
        let reason = r.reason.as_deref().unwrap_or_default();
        assert!(
            reason.contains("`capacity_cap`) of 4KiB") && reason.contains("256MiB"),
            "{reason}"
        );
    }
}
