//! How long a bandwidth kernel runs and how large a bandwidth ceiling's array is, from what the
//! adapter's type lets us assume about it.
//!
//! wgpu puts a storage barrier between consecutive dispatches that write a buffer, so a kernel
//! over a cache-sized array (a 256 KiB triad lasts under 2 us on a large GPU) times the barrier
//! and the dispatch, not the memory. Such kernels walk their arrays `repeats` times in one
//! dispatch. The count comes from the bytes one walk moves and an assumed upper bound on the
//! adapter's bandwidth (cache bandwidth included), so that one dispatch lasts at least
//! [`TARGET_DISPATCH_S`] even at that bound: deterministic (the same run makes the same kernels,
//! so baselines compare like with like) and free (nothing is measured to choose it). Where the
//! bound is wrong the stream suite says so on the result ([`short_dispatch_warning`]).
//!
//! A bandwidth ceiling must come from arrays several times the last-level cache: on a GPU the
//! roofline's array is at least 4x an assumed last-level cache for the adapter's type
//! ([`AdapterClass::assumed_llc_bytes`]).

use crate::{BenchResult, GpuContext, MetricKind, Status};
use gpubench_results::units::MIB;
use gpubench_results::warnings::{WarningKind, WarningRecord};

/// One timed dispatch should last at least this long (seconds): well past the barrier and
/// dispatch cost between dispatches (a few microseconds on a GPU).
pub const TARGET_DISPATCH_S: f64 = 50e-6;

/// The most walks one dispatch makes: a 4 KiB array on a large GPU cannot reach the target
/// within it, and says so.
pub const MAX_REPEATS: u32 = 1 << 16;

/// What the adapter's type lets the suites assume about its caches and bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterClass {
    /// A software rasteriser on the CPU (lavapipe, SwiftShader, WARP).
    Software,
    /// An integrated GPU sharing the host's memory (Apple, Intel, AMD APUs).
    Integrated,
    /// A discrete GPU, or a virtual or unknown one (assumed as large as a discrete card).
    Discrete,
}

impl AdapterClass {
    /// The class of an adapter from its software flag and its reported device type.
    pub fn from_parts(software: bool, device_type: wgpu::DeviceType) -> Self {
        match (software, device_type) {
            (true, _) | (_, wgpu::DeviceType::Cpu) => AdapterClass::Software,
            (_, wgpu::DeviceType::IntegratedGpu) => AdapterClass::Integrated,
            _ => AdapterClass::Discrete,
        }
    }

    /// The class of `ctx`'s adapter.
    pub fn of(ctx: &GpuContext) -> Self {
        Self::from_parts(ctx.is_software(), ctx.adapter.get_info().device_type)
    }

    /// Name, as recorded in params.
    pub fn name(self) -> &'static str {
        match self {
            AdapterClass::Software => "software",
            AdapterClass::Integrated => "integrated",
            AdapterClass::Discrete => "discrete",
        }
    }

    /// An upper bound on the bandwidth a kernel can reach over a cache-resident array, in bytes
    /// per second: 20 TB/s on a discrete GPU (H200's HBM3e is 4.8 TB/s, its L2 and the L1s
    /// serving a small array several times that), 4 TB/s on an integrated GPU, and 100 GB/s on
    /// a software adapter (a CPU's caches through a shader compiler and a thread pool).
    pub fn assumed_peak_bandwidth(self) -> f64 {
        match self {
            AdapterClass::Software => 100e9,
            AdapterClass::Integrated => 4e12,
            AdapterClass::Discrete => 20e12,
        }
    }

    /// The largest last-level cache an adapter of this class is assumed to have: 256 MiB on a
    /// discrete GPU (MI300X's infinity cache; H200's L2 is 50 MiB, an RX 7900 XTX's infinity
    /// cache 96 MiB), 96 MiB on an integrated GPU (an Apple Ultra's system-level cache). `None`
    /// on a software adapter, whose sizes stay small so that CI stays fast.
    pub fn assumed_llc_bytes(self) -> Option<u64> {
        match self {
            AdapterClass::Software => None,
            AdapterClass::Integrated => Some(96 * MIB),
            AdapterClass::Discrete => Some(256 * MIB),
        }
    }
}

/// Walks per dispatch for a kernel that moves `bytes_per_walk` bytes each time it walks its
/// arrays: enough that one dispatch lasts [`TARGET_DISPATCH_S`] at the class's assumed peak
/// bandwidth, at least 1 and at most `cap`; once, whatever the time, where a walk's bytes
/// reach the class's assumed last-level cache. A repeated walk rereads what another
/// workgroup of the same wave read a moment before, from the L2: a second walk of a 512 MiB
/// array would count its bytes again at cache speed, not the memory's.
pub fn repeats_for(bytes_per_walk: u64, class: AdapterClass, cap: u32) -> u32 {
    if class
        .assumed_llc_bytes()
        .is_some_and(|llc| bytes_per_walk >= llc)
    {
        return 1;
    }
    let walk_s = bytes_per_walk.max(1) as f64 / class.assumed_peak_bandwidth();
    let wanted = (TARGET_DISPATCH_S / walk_s).ceil();
    wanted.clamp(1.0, f64::from(cap.max(1))) as u32
}

/// Median seconds per dispatch of a measured stream kernel: its declared bytes over its median
/// bandwidth (one iteration is one dispatch).
pub fn median_dispatch_s(result: &BenchResult) -> Option<f64> {
    if result.status != Status::Ok || result.metric != MetricKind::Bandwidth {
        return None;
    }
    let gbs = result.median().filter(|m| *m > 0.0)?;
    Some(result.work.total_bytes() as f64 / (gbs * 1e9))
}

/// The warning a stream kernel's result gets when its median dispatch is still shorter than
/// [`TARGET_DISPATCH_S`]: the figure then includes the barrier and dispatch cost.
pub fn short_dispatch_warning(dispatch_s: f64, repeats: u64) -> Option<WarningRecord> {
    short_dispatch_record(
        dispatch_s,
        &format!("at {repeats} walks of the array per dispatch"),
        "; choose a larger stream size (the `stream_size` option)",
    )
}

/// The warning a kernel's result gets when its median dispatch (`dispatch_s`) is shorter than
/// [`TARGET_DISPATCH_S`], whatever sized the dispatch: `made` says how it was made (`at 7
/// walks of the array per dispatch`), `then` ends the sentence that says the barrier and
/// dispatch cost weigh in (what they weigh on, what to do).
pub fn short_dispatch_record(dispatch_s: f64, made: &str, then: &str) -> Option<WarningRecord> {
    (dispatch_s < TARGET_DISPATCH_S).then(|| {
        let message = format!(
            "dispatches are short ({:.1} us median {made}, target {:.0} us): the barrier and \
             dispatch cost between dispatches weigh in{then}",
            dispatch_s * 1e6,
            TARGET_DISPATCH_S * 1e6
        );
        WarningRecord::new(
            WarningKind::ShortDispatches,
            message,
            Some(dispatch_s * 1e6),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BenchmarkInfo, Work};
    use gpubench_results::stats::summarize;

    #[test]
    fn classes_come_from_the_device_type() {
        use wgpu::DeviceType::*;
        for (software, device_type, class) in [
            (false, DiscreteGpu, AdapterClass::Discrete),
            (false, VirtualGpu, AdapterClass::Discrete),
            (false, Other, AdapterClass::Discrete),
            (false, IntegratedGpu, AdapterClass::Integrated),
            (false, Cpu, AdapterClass::Software),
            (true, DiscreteGpu, AdapterClass::Software),
        ] {
            let got = AdapterClass::from_parts(software, device_type);
            assert_eq!(got, class, "{software} {device_type:?}");
        }
    }

    #[test]
    fn repeats_reach_the_target_at_the_assumed_bandwidth() {
        // A 256 KiB triad moves 768 KiB per walk: 39 ns at 20 TB/s, so 1272 walks make 50 us.
        let walk = 3 * 256 * 1024;
        let r = repeats_for(walk, AdapterClass::Discrete, MAX_REPEATS);
        assert_eq!(r, 1272);
        let at =
            |r: u32| f64::from(r) * walk as f64 / AdapterClass::Discrete.assumed_peak_bandwidth();
        assert!(at(r) >= TARGET_DISPATCH_S && at(r - 1) < TARGET_DISPATCH_S);
        // 100 GB/s on a software adapter: 7.9 us per walk, 7 walks.
        assert_eq!(repeats_for(walk, AdapterClass::Software, MAX_REPEATS), 7);
        // Arrays past any cache run once; the cap holds for tiny ones.
        assert_eq!(repeats_for(3 << 30, AdapterClass::Discrete, MAX_REPEATS), 1);
        // A walk as large as the class's last-level cache runs once, though one walk lasts under
        // the target at the assumed bandwidth (a 512 MiB read, 27 us at 20 TB/s); one under it
        // still repeats.
        for (class, llc) in [
            (AdapterClass::Discrete, 256),
            (AdapterClass::Integrated, 96),
        ] {
            assert_eq!(repeats_for(llc * MIB, class, MAX_REPEATS), 1, "{class:?}");
            assert!(
                repeats_for(llc * MIB / 4, class, MAX_REPEATS) > 1,
                "{class:?}"
            );
        }
        assert_eq!(
            repeats_for(512 * MIB, AdapterClass::Discrete, MAX_REPEATS),
            1
        );
        assert_eq!(repeats_for(16, AdapterClass::Discrete, 100), 100);
        assert_eq!(repeats_for(0, AdapterClass::Software, 0), 1);
    }

    fn measured(bytes: u64, gbs: f64) -> BenchResult {
        let info = BenchmarkInfo::new("stream/triad/x", "stream", MetricKind::Bandwidth, "b");
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        r.work = Work::bytes(bytes, 0);
        r.summary = summarize(&[gbs, gbs]);
        r
    }

    #[test]
    fn short_dispatches_are_flagged() {
        // 1 MB at 100 GB/s: 10 us per dispatch, short; at 10 GB/s, 100 us, long enough.
        let short = median_dispatch_s(&measured(1_000_000, 100.0)).expect("ok");
        assert!((short - 10e-6).abs() < 1e-12);
        let warning = short_dispatch_warning(short, 7).expect("short");
        assert_eq!(warning.kind, WarningKind::ShortDispatches);
        let warning = warning.message;
        assert!(
            warning.contains("10.0 us") && warning.contains("7 walks"),
            "{warning}"
        );
        let long = median_dispatch_s(&measured(1_000_000, 10.0)).expect("ok");
        assert_eq!(short_dispatch_warning(long, 7), None);
        let mut failed = measured(1_000_000, 10.0);
        failed.status = Status::Failed;
        assert_eq!(median_dispatch_s(&failed), None);
    }
}
