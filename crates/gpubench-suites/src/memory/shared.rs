//! Workgroup (shared) memory bandwidth: memory_shared.wgsl's `workgroup_vec4`, and the stride
//! sweep of `workgroup_stride` that shows bank conflicts.
//!
//! Every workgroup fills a 16 KiB tile from storage once and then reads it [`TRIPS`] x 4 times
//! per invocation. The figure counts the workgroup-memory bytes those reads load, per second;
//! the fill (16 KiB of storage per workgroup, under 0.4% of the vec4 form's bytes and 1.6% of
//! the word form's) is not counted. On a GPU with 32 banks of 4 bytes, stride `s` serialises a
//! subgroup's load gcd(s, 32) ways; on a software adapter workgroup memory is ordinary host
//! memory in the cache nearest the core, and the strides show the host's loads, not banks.

use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification, Work,
};
use gpubench_results::rng::SplitMix64;

use gpubench_harness::kit::gpu::{
    DispatchKernel, OUTPUT, compute_pipeline_zeroing, f32_bytes, read_f32,
};
use gpubench_harness::kit::inputs::exact_inputs;
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::kit::verify::{Checker, Tolerance};

/// Invocations per workgroup (memory_shared.wgsl's `WORKGROUP`).
pub const WORKGROUP: u32 = 256;
/// Loop trips per invocation, four loads each (memory_shared.wgsl's `TRIPS`).
pub const TRIPS: u32 = 256;
/// vec4 elements in the tile: 16 KiB.
pub const TILE_VEC4: u32 = 1024;
/// The tile as 4-byte words.
pub const TILE_WORDS: u32 = 4 * TILE_VEC4;
/// The strides of the word sweep: powers of two up to a 32-bank row (1- to 32-way conflicts),
/// and 33, odd, which is conflict-free again.
pub const STRIDES: [u32; 7] = [1, 2, 4, 8, 16, 32, 33];
/// Workgroups whose every invocation is replayed on the CPU; the others are checked by
/// comparison with them (every workgroup reads the same tile, so all must agree).
const CHECKED_GROUPS: u32 = 4;

/// Workgroups per dispatch on an adapter of `class`: several per core or SM, so every one is
/// busy (an H200's 132 SMs hold 8 such workgroups each), and on a CPU 4 per host thread.
pub fn groups_for(class: AdapterClass) -> u32 {
    super::groups_by_class(class, 4, 512, 4096)
}

/// How each lane reads the tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileRead {
    /// 16 bytes a lane, consecutive lanes consecutive vec4s.
    Vec4,
    /// 4 bytes a lane, lane k at word k x stride.
    Stride(u32),
}

impl TileRead {
    /// The entry point that reads this way.
    pub fn entry(self) -> &'static str {
        match self {
            TileRead::Vec4 => "workgroup_vec4",
            TileRead::Stride(_) => "workgroup_stride",
        }
    }

    /// The id's last part.
    pub fn name(self) -> String {
        match self {
            TileRead::Vec4 => "read-vec4".to_string(),
            TileRead::Stride(s) => format!("stride-{s}"),
        }
    }

    /// Bytes one load of one lane moves.
    pub fn load_bytes(self) -> u64 {
        match self {
            TileRead::Vec4 => 16,
            TileRead::Stride(_) => 4,
        }
    }

    /// f32 values each lane's sum has: a vec4's four, or one.
    pub fn sum_floats_per_lane(self) -> usize {
        match self {
            TileRead::Vec4 => 4,
            TileRead::Stride(_) => 1,
        }
    }

    /// The override constants of its pipeline.
    pub fn constants(self) -> Vec<(&'static str, f64)> {
        let mut constants = vec![("TRIPS", f64::from(TRIPS))];
        if let TileRead::Stride(s) = self {
            constants.push(("STRIDE", f64::from(s)));
        }
        constants
    }

    /// The most lanes of a 32-lane subgroup that one load puts in one of 32 four-byte banks.
    pub fn conflict_ways(self) -> u32 {
        let banks = 32u32;
        match self {
            // Eight lanes cover the 32 banks once (16 bytes each); a subgroup's 512 bytes
            // are served in four such passes, the minimum: no conflict.
            TileRead::Vec4 => 1,
            TileRead::Stride(s) => (0..banks)
                .map(|bank| {
                    (0..32u32)
                        .filter(|lane| lane.wrapping_mul(s) % banks == bank)
                        .count() as u32
                })
                .max()
                .unwrap_or(1),
        }
    }
}

/// Workgroup-memory read bandwidth, read as `read` says, over `groups` workgroups.
pub struct WorkgroupRead {
    read: TileRead,
    groups: u32,
    seed: u64,
}

/// What set-up made.
pub struct WorkgroupState {
    dispatch: DispatchKernel,
    sums: wgpu::Buffer,
    tile: Vec<f32>,
    _buffers: Vec<wgpu::Buffer>,
}

impl WorkgroupRead {
    /// Reads of the tile as `read` says, over `groups` workgroups, tile from `seed`.
    pub fn new(read: TileRead, groups: u32, seed: u64) -> Self {
        Self {
            read,
            groups: groups.max(1),
            seed,
        }
    }

    fn loads(&self) -> u64 {
        u64::from(self.groups) * u64::from(WORKGROUP) * u64::from(TRIPS) * 4
    }

    fn sum_floats(&self) -> usize {
        (self.groups * WORKGROUP) as usize * self.read.sum_floats_per_lane()
    }
}

impl Kernel for WorkgroupRead {
    type State = WorkgroupState;

    fn info(&self) -> BenchmarkInfo {
        let counts = match self.read {
            TileRead::Vec4 => "workgroup-memory bytes read per second, 16 B per lane, consecutive lanes consecutive (conflict-free); the tile's fill from storage not counted".to_string(),
            TileRead::Stride(s) => format!(
                "workgroup-memory bytes read per second, 4 B per lane at a {s}-word stride ({}-way bank conflict with 32 banks); the tile's fill from storage not counted",
                self.read.conflict_ways()
            ),
        };
        let mut info = BenchmarkInfo::new(
            format!("memory/workgroup/{}", self.read.name()),
            gpubench_results::suite_names::MEMORY,
            MetricKind::Bandwidth,
            &counts,
        )
        .param("kernel", "workgroup")
        .param("tile_bytes", u64::from(TILE_WORDS) * 4)
        .param("workgroups", self.groups)
        .param("loads_per_invocation", TRIPS * 4)
        .param("load_bytes", self.read.load_bytes())
        .param("bank_conflict_ways_32", self.read.conflict_ways());
        if let TileRead::Stride(s) = self.read {
            info = info.param("stride_words", s);
        }
        info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        let needed = TILE_WORDS * 4;
        if ctx.limits.max_compute_workgroup_storage_size < needed {
            return Err(format!(
                "the tile needs {needed} bytes of workgroup memory, the adapter offers {}",
                ctx.limits.max_compute_workgroup_storage_size
            ));
        }
        if ctx.limits.max_compute_invocations_per_workgroup < WORKGROUP {
            return Err(format!("workgroups of {WORKGROUP} invocations not offered"));
        }
        if self.groups > ctx.limits.max_compute_workgroups_per_dimension {
            return Err(format!(
                "{} workgroups exceed max_compute_workgroups_per_dimension",
                self.groups
            ));
        }
        Ok(())
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<WorkgroupState> {
        let mut rng = SplitMix64::new(self.seed);
        let tile = exact_inputs(&mut rng, TILE_WORDS as usize);
        let fill = ctx.buffer_with_data(
            "workgroup tile fill",
            f32_bytes(&tile),
            wgpu::BufferUsages::STORAGE,
        );
        // Sums start as random negatives: an invocation that writes nothing cannot pass.
        let sums_init = rng.f32_vec(self.sum_floats(), -2.0, -1.0);
        let sums = ctx.buffer_with_data("workgroup sums", f32_bytes(&sums_init), OUTPUT);
        let entry = self.read.entry();
        // The tile is written whole before it is read: no zeroing first.
        let pipeline = compute_pipeline_zeroing(
            ctx,
            entry,
            (crate::memory::SHARED_WGSL, entry),
            &self.read.constants(),
            false,
        );
        let sums_binding = match self.read {
            TileRead::Vec4 => 1,
            TileRead::Stride(_) => 2,
        };
        let dispatch = DispatchKernel::new(
            ctx,
            entry,
            pipeline,
            &[(0, &fill), (sums_binding, &sums)],
            (self.groups, 1),
        );
        Ok(WorkgroupState {
            dispatch,
            sums,
            tile,
            _buffers: vec![fill],
        })
    }

    fn work(&self, _state: &WorkgroupState) -> Work {
        Work::bytes(self.loads() * self.read.load_bytes(), 0)
    }

    async fn run(&self, state: &mut WorkgroupState, clock: &mut SampleClock<'_>) -> Outcome {
        state.dispatch.run(clock)
    }

    async fn verify(&self, state: &mut WorkgroupState, ctx: &GpuContext) -> Outcome<Verification> {
        let got = read_f32(ctx, &state.sums).await?;
        Ok(verify_sums(&got, &state.tile, self.read, self.groups))
    }
}

/// What lane `lane` sums over `tile` (4096 words) reading as `read` says: the shader's walk,
/// replayed (the vec4 form's four quarter sums weighted 1 to 4, as the shader writes them).
/// Every partial sum is an f32 integer of 1/256 steps, so the sum is exact in any order.
pub fn replay(tile: &[f32], read: TileRead, lane: u32) -> Vec<f64> {
    match read {
        TileRead::Vec4 => {
            let mut sum = vec![0.0f64; 4];
            let mut j = lane;
            for _ in 0..TRIPS {
                for quarter in 0..4 {
                    let e = (j + quarter * TILE_VEC4 / 4) & (TILE_VEC4 - 1);
                    // The shader weights quarter q's sum by q + 1.
                    let weight = f64::from(quarter + 1);
                    for (k, s) in sum.iter_mut().enumerate() {
                        *s += weight * f64::from(tile[4 * e as usize + k]);
                    }
                }
                j = (j + 1) & (TILE_VEC4 - 1);
            }
            sum
        }
        TileRead::Stride(s) => {
            let mut sum = 0.0f64;
            let mut j = lane.wrapping_mul(s);
            for _ in 0..TRIPS {
                for quarter in 0..4 {
                    let w = j.wrapping_add(quarter * TILE_WORDS / 4) & (TILE_WORDS - 1);
                    sum += f64::from(tile[w as usize]);
                }
                j = j.wrapping_add(1);
            }
            vec![sum]
        }
    }
}

/// Every lane of the first [`CHECKED_GROUPS`] workgroups and of the last against [`replay`];
/// every other workgroup read the same tile and must match the first exactly.
fn verify_sums(got: &[f32], tile: &[f32], read: TileRead, groups: u32) -> Verification {
    let per_group = WORKGROUP as usize * read.sum_floats_per_lane();
    let want: Vec<f64> = (0..WORKGROUP)
        .flat_map(|lane| replay(tile, read, lane))
        .collect();
    let mut checker = Checker::new();
    if got.len() != per_group * groups as usize {
        checker.fail(format!(
            "{} sums read back, expected {}",
            got.len(),
            per_group * groups as usize
        ));
        return checker.finish();
    }
    for group in 0..groups as usize {
        let replayed = group < CHECKED_GROUPS as usize || group + 1 == groups as usize;
        let at = group * per_group;
        for (k, &w) in want.iter().enumerate() {
            let value = f64::from(got[at + k]);
            if replayed {
                checker.check(value, w, w, Tolerance::EXACT, || {
                    format!("workgroup {group}, value {k}")
                });
            } else if value != w {
                // Report once per workgroup rather than once per lane.
                checker.check(value, w, w, Tolerance::EXACT, || {
                    format!("workgroup {group}, value {k} (differs from workgroup 0's)")
                });
                break;
            }
        }
    }
    checker.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_conflict_by_their_common_factor_with_the_banks() {
        let ways: Vec<u32> = STRIDES
            .iter()
            .map(|&s| TileRead::Stride(s).conflict_ways())
            .collect();
        assert_eq!(ways, [1, 2, 4, 8, 16, 32, 1]);
        assert_eq!(TileRead::Vec4.conflict_ways(), 1);
        assert_eq!(TileRead::Stride(6).conflict_ways(), 2);
    }

    #[test]
    fn the_replay_reads_every_quarter_and_a_wrong_sum_fails() {
        // A tile of ones: every lane sums TRIPS loads of 1 per component a quarter, the vec4
        // form weighting quarter q by q + 1 (256 x 10).
        let ones = vec![1.0f32; TILE_WORDS as usize];
        assert_eq!(replay(&ones, TileRead::Vec4, 7), vec![2560.0; 4]);
        // Each vec4 holding its index: every lane reads every vec4 once, but the weighted
        // totals differ from lane to lane, so a lane reading another's addresses fails.
        let at: Vec<f32> = (0..TILE_WORDS).map(|w| (w / 4) as f32).collect();
        assert_ne!(
            replay(&at, TileRead::Vec4, 0),
            replay(&at, TileRead::Vec4, 1)
        );
        assert_eq!(replay(&ones, TileRead::Stride(33), 255), vec![1024.0]);
        // Word w holding w: stride 1 lane 0 reads words t + q x 1024 for t < 256, q < 4.
        let index: Vec<f32> = (0..TILE_WORDS).map(|w| w as f32).collect();
        let want: f64 = (0..256u32)
            .flat_map(|t| (0..4u32).map(move |q| f64::from(t + q * 1024)))
            .sum();
        assert_eq!(replay(&index, TileRead::Stride(1), 0), vec![want]);

        let mut rng = SplitMix64::new(3);
        let tile = exact_inputs(&mut rng, TILE_WORDS as usize);
        let read = TileRead::Stride(4);
        let groups = 6;
        let mut got: Vec<f32> = Vec::new();
        for _ in 0..groups {
            for lane in 0..WORKGROUP {
                got.extend(replay(&tile, read, lane).iter().map(|&v| v as f32));
            }
        }
        assert!(verify_sums(&got, &tile, read, groups).passed());
        assert!(!verify_sums(&got, &tile, TileRead::Stride(8), groups).passed());
        // A workgroup that is neither replayed nor the last still has to agree.
        got[4 * WORKGROUP as usize + 17] += 1.0 / 256.0;
        assert!(!verify_sums(&got, &tile, read, groups).passed());
    }
}
