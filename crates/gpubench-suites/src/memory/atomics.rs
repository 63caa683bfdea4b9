//! atomicAdd throughput: memory_shared.wgsl's `atomic_*`, on one word that every invocation
//! shares (contended) and on a word per invocation, in storage and in workgroup memory.
//!
//! Each invocation makes [`ADDS`] atomicAdds whose old values are not used, so a GPU may issue
//! them as reductions without a return (NVIDIA's RED, AMD's no-return atomics), and a compiler
//! may fold a subgroup's adds to one word into one (RADV and NVIDIA's do for uniform
//! addresses): the figure is what a kernel that counts this way gets, one per atomicAdd
//! written, not one per memory transaction.
//!
//! So the contended `one` rows measure aggregated atomics where the compiler folds them (a
//! 32-64x difference between vendors that is the compiler's, not the memory's). The
//! `one-lane-indexed` rows add to the same single word, addressed per lane as `lane &
//! zero_mask` with a zero mask from a uniform: no compiler can prove that address uniform, so
//! none folds the adds when it compiles them. A driver may still aggregate equal addresses at
//! run time, and NVIDIA's Vulkan driver does: on an H200 (driver 580.159) `storage-one-lane-
//! indexed` ran at 43.5 GIOP/s, the folded `storage-one`'s figure to three digits, where the
//! same kernel built by nvcc (scripts/cuda_memory.cu) ran at 1.37 and `workgroup-one-lane-
//! indexed` at 1383 against nvcc's 245. So these rows are true contention where the driver
//! issues every lane's atomic (nvcc's code, RADV's), and run-time aggregation on NVIDIA's
//! Vulkan driver; their ratio to the folded twin says which.

use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, Outputs, SampleClock, Verification,
    Work,
};

use gpubench_harness::kit::gpu::{
    DispatchKernel, OUTPUT, compute_pipeline_zeroing, uniform_buffer,
};
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::kit::verify::{Checker, Tolerance};

/// Invocations per workgroup (memory_shared.wgsl's `WORKGROUP`).
pub const WORKGROUP: u32 = 256;
/// atomicAdds per invocation per dispatch (memory_shared.wgsl's `ADDS`).
pub const ADDS: u32 = 64;
/// memory_shared.wgsl's binding of the lane-indexed forms' zero mask.
const MASKS_BINDING: u32 = 5;

/// Where the adds go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicTarget {
    /// One storage word for the whole grid.
    StorageOne,
    /// A storage word per invocation.
    StorageEach,
    /// One workgroup-memory word per workgroup.
    WorkgroupOne,
    /// A workgroup-memory word per invocation.
    WorkgroupEach,
    /// One storage word for the whole grid, addressed per lane (`lane & zero_mask`): no subgroup
    /// folding.
    StorageOneLanes,
    /// One workgroup-memory word per workgroup, addressed per lane.
    WorkgroupOneLanes,
}

impl AtomicTarget {
    /// Every target, in the order the suite runs them.
    pub const ALL: [AtomicTarget; 6] = [
        AtomicTarget::StorageOne,
        AtomicTarget::StorageEach,
        AtomicTarget::WorkgroupOne,
        AtomicTarget::WorkgroupEach,
        AtomicTarget::StorageOneLanes,
        AtomicTarget::WorkgroupOneLanes,
    ];

    /// The id's last part.
    pub fn name(self) -> &'static str {
        match self {
            AtomicTarget::StorageOne => "storage-one",
            AtomicTarget::StorageEach => "storage-each",
            AtomicTarget::WorkgroupOne => "workgroup-one",
            AtomicTarget::WorkgroupEach => "workgroup-each",
            AtomicTarget::StorageOneLanes => "storage-one-lane-indexed",
            AtomicTarget::WorkgroupOneLanes => "workgroup-one-lane-indexed",
        }
    }

    /// Its entry point.
    pub fn entry(self) -> &'static str {
        match self {
            AtomicTarget::StorageOne => "atomic_storage_one",
            AtomicTarget::StorageEach => "atomic_storage_each",
            AtomicTarget::WorkgroupOne => "atomic_workgroup_one",
            AtomicTarget::WorkgroupEach => "atomic_workgroup_each",
            AtomicTarget::StorageOneLanes => "atomic_storage_one_lanes",
            AtomicTarget::WorkgroupOneLanes => "atomic_workgroup_one_lanes",
        }
    }

    fn in_storage(self) -> bool {
        matches!(
            self,
            AtomicTarget::StorageOne | AtomicTarget::StorageEach | AtomicTarget::StorageOneLanes
        )
    }

    fn contended(self) -> bool {
        !matches!(
            self,
            AtomicTarget::StorageEach | AtomicTarget::WorkgroupEach
        )
    }

    /// Whether the word is addressed per lane (`lane & zero_mask`), which needs the mask's
    /// uniform buffer.
    pub fn lane_indexed(self) -> bool {
        matches!(
            self,
            AtomicTarget::StorageOneLanes | AtomicTarget::WorkgroupOneLanes
        )
    }

    /// How a subgroup's adds reach memory: `may-fold` where the address is the same in every
    /// lane as written (a compiler may sum a subgroup's adds and issue one atomic: aggregated
    /// atomics), `per-lane` where no compiler can prove it (a driver may still aggregate at run
    /// time: NVIDIA's Vulkan driver does, see the module docs).
    pub fn aggregation(self) -> &'static str {
        match self {
            AtomicTarget::StorageOne | AtomicTarget::WorkgroupOne => "may-fold",
            _ => "per-lane",
        }
    }

    /// The target whose words this one leaves: a lane-indexed form's folded twin.
    fn words_like(self) -> AtomicTarget {
        match self {
            AtomicTarget::StorageOneLanes => AtomicTarget::StorageOne,
            AtomicTarget::WorkgroupOneLanes => AtomicTarget::WorkgroupOne,
            other => other,
        }
    }

    /// Words the kernel leaves for checking: the counters (storage) or the totals written out
    /// (workgroup), for `groups` workgroups.
    pub fn words(self, groups: u32) -> usize {
        match self.words_like() {
            AtomicTarget::StorageOne => 1,
            AtomicTarget::WorkgroupOne => groups as usize,
            _ => (groups * WORKGROUP) as usize,
        }
    }
}

/// Workgroups per dispatch on an adapter of `class`: enough to fill it, few enough that a
/// software adapter's contended dispatch stays near a millisecond.
pub fn groups_for(class: AdapterClass) -> u32 {
    super::groups_by_class(class, 2, 256, 1024)
}

/// What invocation `g` (global index) adds each time (memory_shared.wgsl's `add_value`).
pub fn add_value(g: u32) -> u32 {
    1 + g % 7
}

/// What the kernel's words hold after `dispatches` dispatches over `groups` workgroups: the
/// storage words keep counting (modulo 2^32), the workgroup totals are one dispatch's.
pub fn expected_words(target: AtomicTarget, groups: u32, dispatches: u64) -> Vec<u32> {
    let invocations = groups * WORKGROUP;
    let per_dispatch = |g: u32| u64::from(ADDS) * u64::from(add_value(g));
    let wrap = |v: u64| v as u32;
    match target.words_like() {
        AtomicTarget::StorageOne => {
            let one: u64 = (0..invocations).map(per_dispatch).sum();
            vec![wrap(one.wrapping_mul(dispatches))]
        }
        AtomicTarget::StorageEach => (0..invocations)
            .map(|g| wrap(per_dispatch(g).wrapping_mul(dispatches)))
            .collect(),
        AtomicTarget::WorkgroupOne => (0..groups)
            .map(|w| {
                let lanes = w * WORKGROUP..(w + 1) * WORKGROUP;
                wrap(lanes.map(per_dispatch).sum())
            })
            .collect(),
        _ => (0..invocations).map(|g| wrap(per_dispatch(g))).collect(),
    }
}

/// atomicAdd throughput on `target` over `groups` workgroups.
pub struct AtomicAdds {
    target: AtomicTarget,
    groups: u32,
}

/// What set-up made, and how many dispatches have run.
pub struct AtomicState {
    dispatch: DispatchKernel,
    words: wgpu::Buffer,
    dispatches: u64,
    // Held so the bind group's uniform outlives every dispatch.
    _masks: Option<wgpu::Buffer>,
}

impl AtomicAdds {
    /// `target`'s kernel over `groups` workgroups.
    pub fn new(target: AtomicTarget, groups: u32) -> Self {
        Self {
            target,
            groups: groups.max(1),
        }
    }
}

impl Kernel for AtomicAdds {
    type State = AtomicState;

    fn info(&self) -> BenchmarkInfo {
        let place = if self.target.in_storage() {
            "storage"
        } else {
            "workgroup memory"
        };
        let counts = if self.target.contended() {
            let scope = if self.target.in_storage() {
                "the whole grid"
            } else {
                "its workgroup"
            };
            let how = if self.target.lane_indexed() {
                "addressed per lane (lane & zero_mask, 0 at run time), so no compiler can fold a subgroup's adds as it compiles them; a driver may still aggregate equal addresses at run time (NVIDIA's Vulkan driver does: compare with the folded row)"
            } else {
                "at one address in every lane, so a compiler may fold a subgroup's adds into one atomic (RADV does): aggregated atomics"
            };
            format!(
                "atomicAdds per second (GIOP/s, one per atomicAdd) to one {place} word shared by {scope} (contended), {how}; old values unused"
            )
        } else {
            format!(
                "atomicAdds per second (GIOP/s, one per atomicAdd), each invocation to its own {place} word (uncontended); old values unused"
            )
        };
        // Every run adds to the storage words; the check counts the dispatches since set-up.
        let outputs = if self.target.in_storage() {
            Outputs::Accumulated
        } else {
            Outputs::Rewritten
        };
        BenchmarkInfo::new(
            format!("memory/atomic-add/{}", self.target.name()),
            gpubench_results::suite_names::MEMORY,
            MetricKind::IntThroughput,
            &counts,
        )
        .outputs(outputs)
        .param("kernel", "atomic")
        .param("target", self.target.name())
        .param("aggregation", self.target.aggregation())
        .param("workgroups", self.groups)
        .param("adds_per_invocation", ADDS)
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        if self.groups > ctx.limits.max_compute_workgroups_per_dimension {
            return Err(format!(
                "{} workgroups exceed max_compute_workgroups_per_dimension",
                self.groups
            ));
        }
        if ctx.limits.max_compute_invocations_per_workgroup < WORKGROUP {
            return Err(format!("workgroups of {WORKGROUP} invocations not offered"));
        }
        Ok(())
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<AtomicState> {
        let count = self.target.words(self.groups);
        // Storage counters start at zero (they count); totals start at a value no dispatch
        // writes, so a workgroup that writes nothing cannot pass.
        let init = if self.target.in_storage() {
            vec![0u32; count]
        } else {
            vec![u32::MAX; count]
        };
        let words = ctx.buffer_with_data("atomic words", bytemuck::cast_slice(&init), OUTPUT);
        let entry = self.target.entry();
        let constants = [("ADDS", f64::from(ADDS))];
        // The workgroup forms zero their words themselves (memory_shared.wgsl).
        let source = (crate::memory::SHARED_WGSL, entry);
        let pipeline = compute_pipeline_zeroing(ctx, entry, source, &constants, false);
        let binding = if self.target.in_storage() { 3 } else { 4 };
        let mut bindings = vec![(binding, &words)];
        // The lane-indexed forms read their zero mask (all four words 0) from a uniform.
        let masks = self
            .target
            .lane_indexed()
            .then(|| uniform_buffer(ctx, "atomic masks", &[0u32; 4]));
        if let Some(masks) = &masks {
            bindings.push((MASKS_BINDING, masks));
        }
        let dispatch = DispatchKernel::new(ctx, entry, pipeline, &bindings, (self.groups, 1));
        Ok(AtomicState {
            dispatch,
            words,
            dispatches: 0,
            _masks: masks,
        })
    }

    fn work(&self, _state: &AtomicState) -> Work {
        Work::int_ops(u64::from(self.groups) * u64::from(WORKGROUP) * u64::from(ADDS))
    }

    async fn run(&self, state: &mut AtomicState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        state.dispatch.submit(ctx, clock, iterations);
        state.dispatches += u64::from(iterations);
        Ok(())
    }

    async fn verify(&self, state: &mut AtomicState, ctx: &GpuContext) -> Outcome<Verification> {
        let bytes = ctx.read_buffer(&state.words, state.words.size()).await?;
        let got: Vec<u32> = bytes
            .chunks_exact(4)
            .map(bytemuck::pod_read_unaligned::<u32>)
            .collect();
        let want = expected_words(self.target, self.groups, state.dispatches);
        Ok(check_words(&got, &want, state.dispatches))
    }
}

/// Every word against its expected value, exactly.
fn check_words(got: &[u32], want: &[u32], dispatches: u64) -> Verification {
    let mut checker = Checker::new();
    if got.len() != want.len() {
        checker.fail(format!("{} words, expected {}", got.len(), want.len()));
        return checker.finish();
    }
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        checker.check(
            f64::from(g),
            f64::from(w),
            f64::from(w),
            Tolerance::EXACT,
            || format!("word {k} after {dispatches} dispatches"),
        );
    }
    checker.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_words_count_across_dispatches_and_workgroup_totals_do_not() {
        let groups = 3;
        let one = expected_words(AtomicTarget::StorageOne, groups, 1);
        // 768 invocations adding 1..=7 in turn, ADDS times each.
        let sum: u64 = (0..768u64).map(|g| 1 + g % 7).sum();
        assert_eq!(one, vec![(sum * u64::from(ADDS)) as u32]);
        assert_eq!(
            expected_words(AtomicTarget::StorageOne, groups, 5),
            vec![(5 * sum * u64::from(ADDS)) as u32]
        );
        let each = expected_words(AtomicTarget::StorageEach, groups, 2);
        assert_eq!((each.len(), each[0], each[8]), (768, 2 * ADDS, 4 * ADDS));
        let totals = expected_words(AtomicTarget::WorkgroupOne, groups, 9);
        let first: u64 = (0..256u64).map(|g| 1 + g % 7).sum();
        assert_eq!(totals[0], (first * u64::from(ADDS)) as u32);
        assert_ne!(totals[0], totals[1], "workgroups start at different values");
        assert_eq!(
            expected_words(AtomicTarget::WorkgroupEach, groups, 9),
            expected_words(AtomicTarget::StorageEach, groups, 1)
        );
        // The lane-indexed forms leave their folded twins' words (the zero mask is 0).
        for (lanes, twin) in [
            (AtomicTarget::StorageOneLanes, AtomicTarget::StorageOne),
            (AtomicTarget::WorkgroupOneLanes, AtomicTarget::WorkgroupOne),
        ] {
            assert_eq!(
                expected_words(lanes, groups, 4),
                expected_words(twin, groups, 4)
            );
            assert_eq!(lanes.words(groups), twin.words(groups));
            assert_eq!(
                (lanes.aggregation(), twin.aggregation()),
                ("per-lane", "may-fold")
            );
        }
        // Large counts wrap as the GPU's 32-bit words do.
        let big = 1u64 << 40;
        let wrapped = expected_words(AtomicTarget::StorageOne, groups, big)[0];
        assert_eq!(
            u64::from(wrapped),
            (sum * u64::from(ADDS)).wrapping_mul(big) % (1 << 32)
        );
    }

    #[test]
    fn a_lost_add_or_a_missing_word_fails() {
        let want = expected_words(AtomicTarget::StorageEach, 2, 3);
        assert!(check_words(&want, &want, 3).passed());
        let mut got = want.clone();
        got[100] -= 1;
        assert!(!check_words(&got, &want, 3).passed());
        assert!(!check_words(&want[1..], &want, 3).passed());
    }
}
