//! Read bandwidth over one working set: memory.wgsl's `read_window`.
//!
//! Every workgroup reads one window of [`WINDOW_ELEMENTS`] vec4s (1 MiB) from a circle of the
//! working set's elements. A set smaller than a window is walked several times by every
//! workgroup, so it is read from the caches nearest the cores (each core's or SM's own first
//! level where it fits there, the L2 beyond); a larger one is shared out window by window and the grid grows until the windows cover it, so the shared caches see all
//! of it. The figure counts the bytes the windows read (plus the small per-invocation sums
//! written), once per dispatch.

use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification,
    Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::format_size;

use gpubench_harness::kit::gpu::{
    DispatchKernel, OUTPUT, check_binding_fits, compute_pipeline_with, f32_bytes, read_f32,
    uniform_buffer,
};
use gpubench_harness::kit::inputs::{INPUT_RANGE, exact_inputs};
use gpubench_harness::kit::sizing::{AdapterClass, TARGET_DISPATCH_S, short_dispatch_record};
use gpubench_harness::kit::verify::{Checker, Tolerance};
use gpubench_results::warnings::WarningRecord;

/// Invocations per workgroup (memory.wgsl's `WORKGROUP`).
pub const WORKGROUP: u32 = 256;
/// Loop trips per invocation, four loads each (memory.wgsl's `WINDOW_TRIPS`).
pub const WINDOW_TRIPS: u32 = 64;
/// Elements (vec4<f32>) one workgroup reads per dispatch: 1 MiB.
pub const WINDOW_ELEMENTS: u32 = WINDOW_TRIPS * 4 * WORKGROUP;
/// Bytes in one element.
const ELEMENT_BYTES: u64 = 16;
/// Working sets this small are read from the caches nearest the cores (an H200 SM's first level
/// holds at most 256 KiB, an RDNA 3 CU's 32 KiB; the L2 serves the rest), which read faster
/// than the adapter class's assumed bound.
pub const L1_RESIDENT_BYTES: u64 = 1 << 20;
/// How much faster than the class's assumed peak bandwidth the cores' first-level caches read
/// together: 3x a discrete GPU's 20 TB/s is MI300X's 304 CUs x 64 B a clock at 2.1 GHz (41 TB/s)
/// with room to spare.
const L1_FACTOR: f64 = 3.0;
/// `chunk` halved until a trip's four loads (4 x chunk elements) divide the `elements` of the set,
/// at least 1: the kernel wraps its index once a trip, which needs that (memory.wgsl). A chunk
/// of 32 or less fits every size the sweep makes (2^k and 1.5 x 2^k of 4 KiB: multiples of 128
/// elements); 64 gives way to 32 at 6 KiB.
pub fn chunk_fitting(elements: u64, chunk: u32) -> u32 {
    let mut chunk = chunk.max(1);
    while chunk > 1 && !elements.is_multiple_of(4 * u64::from(chunk)) {
        chunk /= 2;
    }
    chunk
}

/// Workgroups whose every invocation is replayed on the CPU; a larger grid has this many,
/// spread evenly, the last among them.
const CHECKED_GROUPS: u32 = 64;

/// The fewest workgroups a dispatch has on an adapter of `class`: enough to fill it (H200's 132
/// SMs take 8 each, 1024; an integrated GPU's few dozen cores 256; a CPU 8 per host thread, so
/// that its thread pool stays busy and a dispatch lasts well past its fixed cost).
pub fn min_groups(class: AdapterClass) -> u32 {
    super::groups_by_class(class, 8, 256, 1024)
}

/// The fewest workgroups for a working set of `bytes` on an adapter of `class`: [`min_groups`],
/// and for a set of [`L1_RESIDENT_BYTES`] or less on a GPU enough 1 MiB windows that one
/// dispatch lasts [`TARGET_DISPATCH_S`] even at [`L1_FACTOR`] times the class's assumed peak
/// bandwidth, so that it outlasts the barrier before it (wgpu puts one between dispatches that
/// write a buffer). A dispatch that is still short is flagged ([`short_dispatch_warning`]).
pub fn groups_for(bytes: u64, class: AdapterClass) -> u32 {
    let floor = min_groups(class);
    if class == AdapterClass::Software || bytes > L1_RESIDENT_BYTES {
        return floor;
    }
    let window = f64::from(WINDOW_ELEMENTS) * ELEMENT_BYTES as f64;
    let wanted = TARGET_DISPATCH_S * L1_FACTOR * class.assumed_peak_bandwidth() / window;
    floor.max(wanted.ceil().min(f64::from(u32::MAX)) as u32)
}

/// The warning a read row gets when its median dispatch lasted under [`TARGET_DISPATCH_S`]
/// (`dispatch_s`): the barrier and dispatch cost between dispatches weigh in on its figure.
pub fn short_dispatch_warning(dispatch_s: f64, groups: u64) -> Option<WarningRecord> {
    short_dispatch_record(
        dispatch_s,
        &format!("over {groups} workgroups"),
        " on this working set's bandwidth; the grid is sized for an adapter of its class, and \
         this one is faster",
    )
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    window: u32,
    row: u32,
    epoch_groups: u32,
    phase: u32,
    _pad: [u32; 3],
}

/// How the windows of `groups` workgroups over a set of `n` elements, read in chunks of
/// `chunk`, are staggered (memory.wgsl's `epoch_groups` and `phase`): the workgroups whose
/// windows cover the set once form an epoch, and each epoch starts its windows a share of a
/// chunk's run past the one before (whole trips, at least one), so that the epochs, resident
/// together, do not read the same lines at the same moment.
pub fn epochs(n: u64, groups: u32, chunk: u32) -> (u32, u32) {
    let epoch_groups = (n / u64::from(WINDOW_ELEMENTS)).clamp(1, u64::from(groups.max(1)));
    let epochs = u64::from(groups.max(1)).div_ceil(epoch_groups);
    let trip = 4 * chunk;
    let run = trip * WINDOW_TRIPS;
    let phase = (u64::from(run) / epochs / u64::from(trip)).max(1) * u64::from(trip);
    (epoch_groups as u32, phase as u32)
}

/// Where invocation `lane` of workgroup `group` starts its walk over `n` elements: memory.wgsl's
/// first index, from the grid's [`epochs`].
fn walk_start(
    n: u64,
    (group, lane): (u32, u32),
    chunk: u32,
    (epoch_groups, phase): (u32, u32),
) -> u64 {
    let run =
        u64::from(lane / chunk) * u64::from(chunk * 4 * WINDOW_TRIPS) + u64::from(lane % chunk);
    let epoch = u64::from(group / epoch_groups);
    (u64::from(group) * u64::from(WINDOW_ELEMENTS) + epoch * u64::from(phase) + run) % n
}

/// Invocations that read adjacent elements (memory.wgsl's `CHUNK`) on `ctx`'s adapter: see
/// [`chunk_for_adapter`].
pub fn chunk_for(ctx: &GpuContext) -> u32 {
    let info = ctx.adapter.get_info();
    chunk_for_adapter(info.backend, info.subgroup_min_size)
}

/// The chunk when no real lane count is known: a warp of NVIDIA, a wave32 of RDNA, an Apple
/// SIMD-group.
pub const DEFAULT_CHUNK: u32 = 32;

/// Invocations that read adjacent elements on an adapter of `backend` whose smallest subgroup
/// wgpu reports as `subgroup_min`: that size where it is a lane count the driver reported, a
/// power of two from 4 to 128 (8 on lavapipe with AVX2, 32 on NVIDIA and RDNA, 4 on
/// SwiftShader), else [`DEFAULT_CHUNK`]. wgpu's Metal and GL backends have no such query and
/// report 4 whatever the GPU (Apple's SIMD-groups are 32 wide), so there the figure is not a
/// lane count and [`DEFAULT_CHUNK`] is used: 4-lane chunks would read 64-byte runs, a quarter of
/// a GPU's coalesced row.
pub fn chunk_for_adapter(backend: wgpu::Backend, subgroup_min: u32) -> u32 {
    let reported = matches!(backend, wgpu::Backend::Vulkan | wgpu::Backend::Dx12);
    if reported && subgroup_min.is_power_of_two() && (4..=128).contains(&subgroup_min) {
        subgroup_min
    } else {
        DEFAULT_CHUNK
    }
}

/// Read bandwidth over a working set of `bytes`.
pub struct WorkingSetRead {
    bytes: u64,
    groups_at_least: u32,
    chunk: u32,
    seed: u64,
    pipeline: super::SharedPipeline,
}

/// What set-up made.
pub struct ReadState {
    dispatch: DispatchKernel,
    sums: wgpu::Buffer,
    data: Vec<f32>,
    groups: u32,
    _buffers: Vec<wgpu::Buffer>,
}

impl WorkingSetRead {
    /// A working set of `bytes` (a multiple of 16, at least 4 KiB), read by at least
    /// `groups_at_least` workgroups in chunks of `chunk` invocations (a power of two, at most
    /// 256; see [`chunk_for`]), inputs from `seed`.
    pub fn new(bytes: u64, groups_at_least: u32, chunk: u32, seed: u64) -> Self {
        let chunk = if chunk.is_power_of_two() {
            chunk.min(WORKGROUP)
        } else {
            32
        };
        let chunk = chunk_fitting(bytes / ELEMENT_BYTES, chunk);
        Self {
            bytes,
            groups_at_least,
            chunk,
            seed,
            pipeline: super::SharedPipeline::default(),
        }
    }

    /// The same kernel compiling its pipeline once with every other kernel given `pipeline`
    /// (all of them the same chunk width).
    pub fn sharing(mut self, pipeline: &super::SharedPipeline) -> Self {
        self.pipeline = pipeline.clone();
        self
    }

    fn elements(&self) -> u64 {
        self.bytes / ELEMENT_BYTES
    }

    /// Invocations per chunk (see [`chunk_fitting`]): kernels share a pipeline only with kernels
    /// of the same chunk.
    pub fn chunk(&self) -> u32 {
        self.chunk
    }

    /// Workgroups in the grid: the floor, or as many windows as cover the set.
    pub fn groups(&self) -> u32 {
        let windows = self.elements().div_ceil(u64::from(WINDOW_ELEMENTS));
        u32::try_from(windows)
            .unwrap_or(u32::MAX)
            .max(self.groups_at_least.max(1))
    }
}

impl Kernel for WorkingSetRead {
    type State = ReadState;

    fn info(&self) -> BenchmarkInfo {
        BenchmarkInfo::new(
            format!("memory/read/{}", format_size(self.bytes)),
            gpubench_results::suite_names::MEMORY,
            MetricKind::Bandwidth,
            "bytes read per second from a working set of this size (1 MiB windows per workgroup) + sums written",
        )
        .param("kernel", "read")
        .param("working_set_bytes", self.bytes)
        .param("working_set", format_size(self.bytes))
        .param("workgroups", self.groups())
        .param("window_bytes", u64::from(WINDOW_ELEMENTS) * ELEMENT_BYTES)
        .param("chunk_invocations", self.chunk)
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        let groups = self.groups();
        // The kernel's start index, before its modulo, in 32 bits: the last workgroup's window,
        // its epoch's phase and the furthest run within the window.
        let (epoch_groups, phase) = epochs(self.elements(), groups, self.chunk);
        let last = u64::from(groups.saturating_sub(1));
        let largest_index = last * u64::from(WINDOW_ELEMENTS)
            + last / u64::from(epoch_groups) * u64::from(phase)
            + u64::from(WINDOW_ELEMENTS);
        if largest_index > u64::from(u32::MAX) {
            return Err(format!(
                "{} needs {groups} windows, more than 32-bit indices reach",
                format_size(self.bytes)
            ));
        }
        if groups > ctx.limits.max_compute_workgroups_per_dimension {
            return Err(format!(
                "{groups} workgroups exceed max_compute_workgroups_per_dimension"
            ));
        }
        check_binding_fits(ctx, self.bytes, "working set")
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<ReadState> {
        let n = u32::try_from(self.elements()).map_err(|_| {
            BenchError::Unsupported("working set too large for u32 indexing".into())
        })?;
        let trip = 4 * self.chunk;
        if n < WORKGROUP || !self.bytes.is_multiple_of(ELEMENT_BYTES) || !n.is_multiple_of(trip) {
            return Err(BenchError::Unsupported(format!(
                "a working set of {} is under 4 KiB, not whole vec4s or not whole trips of {trip}",
                format_size(self.bytes)
            )));
        }
        let groups = self.groups();
        let mut rng = SplitMix64::new(self.seed);
        let data = exact_inputs(&mut rng, n as usize * 4);
        let (epoch_groups, phase) = epochs(u64::from(n), groups, self.chunk);
        let params = Params {
            n,
            window: WINDOW_ELEMENTS,
            row: groups,
            epoch_groups,
            phase,
            _pad: [0; 3],
        };
        let uniform = uniform_buffer(ctx, "memory read params", &params);
        let input = ctx.buffer_with_data(
            "memory working set",
            f32_bytes(&data),
            wgpu::BufferUsages::STORAGE,
        );
        // Sums start as random negatives: an invocation that writes nothing cannot pass.
        let sums_init = rng.f32_vec((groups * WORKGROUP * 4) as usize, -2.0, -1.0);
        let sums = ctx.buffer_with_data("memory sums", f32_bytes(&sums_init), OUTPUT);
        let constants = [
            ("WINDOW_TRIPS", f64::from(WINDOW_TRIPS)),
            ("CHUNK", f64::from(self.chunk)),
        ];
        let pipeline = self.pipeline.get_or_build(|| {
            compute_pipeline_with(
                ctx,
                "read_window",
                crate::memory::WGSL,
                "read_window",
                &constants,
            )
        });
        let dispatch = DispatchKernel::new(
            ctx,
            "read_window",
            pipeline,
            &[(0, &uniform), (1, &input), (2, &sums)],
            (groups, 1),
        );
        Ok(ReadState {
            dispatch,
            sums,
            data,
            groups,
            _buffers: vec![uniform, input],
        })
    }

    fn work(&self, state: &ReadState) -> Work {
        let groups = u64::from(state.groups);
        Work::bytes(
            groups * u64::from(WINDOW_ELEMENTS) * ELEMENT_BYTES,
            groups * u64::from(WORKGROUP) * ELEMENT_BYTES,
        )
    }

    async fn run(&self, state: &mut ReadState, clock: &mut SampleClock<'_>) -> Outcome {
        state.dispatch.run(clock)
    }

    async fn verify(&self, state: &mut ReadState, ctx: &GpuContext) -> Outcome<Verification> {
        let got = read_f32(ctx, &state.sums).await?;
        Ok(verify_sums(&got, &state.data, state.groups, self.chunk))
    }
}

/// The workgroups whose sums are replayed: all of a small grid, else [`CHECKED_GROUPS`] spread
/// over it with the last among them.
fn checked_groups(groups: u32) -> Vec<u32> {
    if groups <= CHECKED_GROUPS {
        return (0..groups).collect();
    }
    let mut picked: Vec<u32> = (0..CHECKED_GROUPS)
        .map(|k| (u64::from(k) * u64::from(groups) / u64::from(CHECKED_GROUPS)) as u32)
        .collect();
    picked.push(groups - 1);
    picked.dedup();
    picked
}

/// Where one component of an invocation's sum lies: each of its `WINDOW_TRIPS * 4` loads is an
/// exact input, in [`INPUT_RANGE`].
fn sum_range() -> std::ops::Range<f64> {
    let loads = f64::from(WINDOW_TRIPS * 4);
    f64::from(INPUT_RANGE.start) * loads..f64::from(INPUT_RANGE.end) * loads
}

/// The sum invocation `lane` of workgroup `group` makes over `data` (vec4s as 4 floats) with
/// chunks of `chunk` invocations: memory.wgsl's walk, replayed exactly.
fn replay(data: &[f32], at: (u32, u32), chunk: u32, epochs: (u32, u32)) -> [f64; 4] {
    let n = (data.len() / 4) as u64;
    let mut i = walk_start(n, at, chunk, epochs);
    let mut sum = [0.0f64; 4];
    for _ in 0..WINDOW_TRIPS * 4 {
        for (k, s) in sum.iter_mut().enumerate() {
            *s += f64::from(data[4 * i as usize + k]);
        }
        i += u64::from(chunk);
        if i >= n {
            i -= n;
        }
    }
    sum
}

/// Checks every invocation's sum in the [`checked_groups`] against [`replay`]; exact, since
/// every partial sum is an f32 integer of 1/256 steps. The other workgroups' sums (all but 65
/// of the thousands a GPU's grid has) are not replayed, which would cost seconds a check, but
/// each must lie where a sum of its loads can ([`sum_range`]): a workgroup that never ran
/// (its sums still the poison, NaN, after the timed runs) or read past its data fails.
fn verify_sums(got: &[f32], data: &[f32], groups: u32, chunk: u32) -> Verification {
    let mut checker = Checker::new();
    if got.len() != (groups * WORKGROUP * 4) as usize {
        checker.fail(format!(
            "{} sums, expected {}",
            got.len() / 4,
            groups * WORKGROUP
        ));
        return checker.finish();
    }
    let staggered = epochs((data.len() / 4) as u64, groups, chunk);
    let checked = checked_groups(groups);
    let range = sum_range();
    for group in (0..groups).filter(|g| checked.binary_search(g).is_err()) {
        let at = 4 * (group * WORKGROUP) as usize;
        let sums = &got[at..at + 4 * WORKGROUP as usize];
        if let Some(k) = sums.iter().position(|s| !range.contains(&f64::from(*s))) {
            checker.fail(format!(
                "workgroup {group}, invocation {}, component {}: sum {}, where its loads can only sum to {} .. {}",
                k / 4,
                k % 4,
                sums[k],
                range.start,
                range.end
            ));
        }
    }
    for group in checked {
        for lane in 0..WORKGROUP {
            let want = replay(data, (group, lane), chunk, staggered);
            let at = 4 * (group * WORKGROUP + lane) as usize;
            for (k, &w) in want.iter().enumerate() {
                checker.check(f64::from(got[at + k]), w, w, Tolerance::EXACT, || {
                    format!("workgroup {group}, invocation {lane}, component {k}")
                });
            }
        }
    }
    checker.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sets_are_walked_by_every_workgroup_and_large_ones_shared_out() {
        // 4 KiB is 256 elements: in chunks of 32, invocation 5 steps by 32 from element 5 and
        // reads each element that is 5 mod 32, 32 times.
        let data: Vec<f32> = (0..1024).map(|x| (x % 7 + 1) as f32).collect();
        let component = |k: usize, chunk: usize, times: f64| -> f64 {
            (0..data.len() / 4)
                .filter(|e| e % chunk == 5 % chunk)
                .map(|e| times * f64::from(data[4 * e + k]))
                .sum()
        };
        let want = [0, 1, 2, 3].map(|k| component(k, 32, 32.0));
        assert_eq!(replay(&data, (3, 5), 32, (1, 128)), want);
        // In chunks of 8, invocation 13 (chunk 1, lane 5) starts at 2048 + 5 = 5 mod 256 and
        // reads each element that is 5 mod 8, 8 times.
        let want = [0, 1, 2, 3].map(|k| component(k, 8, 8.0));
        assert_eq!(replay(&data, (0, 13), 8, (1, 32)), want);
        let floor = 16;
        assert_eq!(WorkingSetRead::new(4096, floor, 32, 1).groups(), floor);
        let window = u64::from(WINDOW_ELEMENTS) * ELEMENT_BYTES;
        assert_eq!(WorkingSetRead::new(64 * window, floor, 32, 1).groups(), 64);
        assert_eq!(
            WorkingSetRead::new(64 * window + 16, floor, 32, 1).groups(),
            65
        );
    }

    #[test]
    fn small_sets_on_a_gpu_get_enough_workgroups_to_outlast_the_barrier() {
        for class in [AdapterClass::Discrete, AdapterClass::Integrated] {
            let window = f64::from(WINDOW_ELEMENTS) * ELEMENT_BYTES as f64;
            let groups = groups_for(4096, class);
            let dispatch_s =
                f64::from(groups) * window / (L1_FACTOR * class.assumed_peak_bandwidth());
            assert!(dispatch_s >= TARGET_DISPATCH_S, "{class:?}: {groups}");
            assert!(groups > min_groups(class), "{class:?}: {groups}");
            assert_eq!(groups_for(L1_RESIDENT_BYTES, class), groups);
            assert_eq!(groups_for(2 * L1_RESIDENT_BYTES, class), min_groups(class));
        }
        let software = AdapterClass::Software;
        assert_eq!(groups_for(4096, software), min_groups(software));
        let warning = short_dispatch_warning(20e-6, 2861).expect("short");
        assert!(warning.message.contains("20.0 us"), "{}", warning.message);
        assert_eq!(short_dispatch_warning(60e-6, 2861), None);
    }

    #[test]
    fn workgroups_covering_the_set_again_start_elsewhere() {
        // 1024 workgroups of 1 MiB windows over a 128 MiB set: eight covers. Unstaggered, the
        // eight readers of each window would all start at its first element together.
        let mib = u64::from(WINDOW_ELEMENTS);
        assert_eq!(epochs(128 * mib, 1024, 32), (128, 1024));
        assert_eq!(
            walk_start(128 * mib, (128, 0), 32, epochs(128 * mib, 1024, 32)),
            1024,
            "the next cover starts eight trips (of 128 elements) on"
        );
        for (n, groups) in [
            (mib, 2861),
            (2 * mib, 1024),
            (16 * mib, 1024),
            (96 * mib, 1024),
            (128 * mib, 1024),
            (512 * mib, 1024),
            (1024 * mib, 1024),
        ] {
            let staggered = epochs(n, groups, 32);
            assert_eq!(staggered.1 % 128, 0, "whole trips: {staggered:?}");
            let starts: std::collections::BTreeSet<u64> = (0..groups)
                .map(|g| walk_start(n, (g, 0), 32, staggered))
                .collect();
            let places = (n / 128).min(u64::from(groups));
            assert_eq!(starts.len() as u64, places, "{n} elements, {groups} groups");
        }
    }

    #[test]
    fn chunks_fit_whole_trips_of_every_swept_size() {
        for bytes in crate::memory::working_sets(1 << 30) {
            let elements = bytes / ELEMENT_BYTES;
            for chunk in [4, 8, 16, 32] {
                assert_eq!(chunk_fitting(elements, chunk), chunk, "{bytes}");
            }
            let wide = chunk_fitting(elements, 64);
            assert!(elements.is_multiple_of(4 * u64::from(wide)), "{bytes}");
        }
        assert_eq!(chunk_fitting(6 * 1024 / ELEMENT_BYTES, 64), 32);
        assert_eq!(chunk_fitting(8 * 1024 / ELEMENT_BYTES, 64), 64);
        assert_eq!(WorkingSetRead::new(6 * 1024, 1, 64, 1).chunk(), 32);
    }

    #[test]
    fn chunks_are_real_lane_counts_or_thirty_two() {
        use wgpu::Backend;
        // Metal and GL report a minimum of 4 whatever the GPU: not a lane count.
        assert_eq!(chunk_for_adapter(Backend::Metal, 4), 32);
        assert_eq!(chunk_for_adapter(Backend::Gl, 4), 32);
        // Vulkan's and DX12's minimum is the driver's own: lavapipe 8, SwiftShader 4, RDNA 32.
        assert_eq!(chunk_for_adapter(Backend::Vulkan, 8), 8);
        assert_eq!(chunk_for_adapter(Backend::Vulkan, 4), 4);
        assert_eq!(chunk_for_adapter(Backend::Dx12, 32), 32);
        // Nothing usable reported.
        assert_eq!(chunk_for_adapter(Backend::Vulkan, 0), 32);
        assert_eq!(chunk_for_adapter(Backend::Vulkan, 256), 32);
    }

    #[test]
    fn a_wrong_or_missing_sum_fails_and_the_checked_groups_include_the_last() {
        let mut rng = SplitMix64::new(4);
        let data = exact_inputs(&mut rng, 384 * 4);
        let groups = 2;
        let mut got: Vec<f32> = Vec::new();
        for g in 0..groups {
            for l in 0..WORKGROUP {
                got.extend(
                    replay(&data, (g, l), 8, epochs((data.len() / 4) as u64, groups, 8))
                        .map(|v| v as f32),
                );
            }
        }
        assert!(verify_sums(&got, &data, groups, 8).passed());
        assert!(
            !verify_sums(&got, &data, groups, 32).passed(),
            "another walk"
        );
        got[4 * (WORKGROUP + 9) as usize + 2] += 1.0 / 256.0;
        assert!(!verify_sums(&got, &data, groups, 8).passed());
        assert!(!verify_sums(&got[4..], &data, groups, 8).passed());
        let picked = checked_groups(1000);
        assert_eq!(
            (picked.len(), picked[0], picked.last()),
            (65, 0, Some(&999))
        );
    }

    /// On a grid of more workgroups than are replayed, one that never ran after the poison
    /// (NaN sums) or summed out of range fails, though it is not among those replayed.
    #[test]
    fn a_workgroup_that_is_not_replayed_still_fails_when_it_did_not_run() {
        let mut rng = SplitMix64::new(5);
        let data = exact_inputs(&mut rng, 4096 * 4);
        let (groups, chunk) = (CHECKED_GROUPS * 2, 8);
        let staggered = epochs((data.len() / 4) as u64, groups, chunk);
        let got: Vec<f32> = (0..groups)
            .flat_map(|g| (0..WORKGROUP).map(move |l| (g, l)))
            .flat_map(|at| replay(&data, at, chunk, staggered).map(|v| v as f32))
            .collect();
        assert!(verify_sums(&got, &data, groups, chunk).passed());
        let unchecked = (0..groups)
            .find(|g| !checked_groups(groups).contains(g))
            .expect("a workgroup not replayed");
        let at = 4 * (unchecked * WORKGROUP + 3) as usize;
        for wrong in [f32::NAN, 0.0, got[at] * 2.0] {
            let mut lost = got.clone();
            lost[at + 1] = wrong;
            let verdict = verify_sums(&lost, &data, groups, chunk);
            assert!(!verdict.passed(), "{wrong}");
            let said = &verdict.first_mismatches[0];
            assert!(
                said.starts_with(&format!("workgroup {unchecked}, invocation 3, component 1")),
                "{said}"
            );
        }
    }
}
