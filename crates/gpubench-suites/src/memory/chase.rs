//! Dependent-load latency over one working set: memory.wgsl's `chase`, and `chase_lanes`.
//!
//! The working set is cut into nodes of [`NODE_BYTES`] (one cache line of a CPU, half of a
//! GPU's 128-byte line), and one cycle through all of them (all but the last where their count
//! is even: [`cycle_nodes`]) is drawn at random with Sattolo's algorithm, so no prefetcher can
//! guess the next address and no node is visited twice before all have been. One invocation
//! follows it, one load at a time; the figure is a dispatch's time over its loads, in ns, so
//! the dispatch's fixed cost is spread over [`steps_for`] loads (about 2% on lavapipe, whose
//! loads from L1 take 10 ns).
//!
//! Each dispatch starts where the one before stopped, so the cycle is walked whole however
//! short a dispatch is; the CPU predicts the position after every load the runs made.
//!
//! Two forms ([`ChaseForm`]). `chase` is one invocation with a uniform index into a read-only
//! buffer: AMD's compiler loads that through the scalar cache (`s_buffer_load`, 16 KiB), whose
//! levels are not the vector caches the read curve sees (its ids, `memory/latency/<size>`, keep
//! that meaning). `chase_lanes` is a workgroup of one subgroup's lanes all following the cycle,
//! each index offset by `lane & zero_mask` (zero at run time): every lane loads the same address,
//! through the vector path (`memory/latency-lanes/<size>`).

use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, Outputs, SampleClock, Verification,
    Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::format_size;

use gpubench_harness::kit::gpu::{
    DispatchKernel, check_binding_fits, compute_pipeline_with, uniform_buffer,
};
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_harness::kit::verify::{Checker, Tolerance};

/// Bytes per node of the cycle.
pub const NODE_BYTES: u64 = 64;
/// `u32` words per node; a node's first word holds the next node's word index.
const NODE_WORDS: u32 = (NODE_BYTES / 4) as u32;

/// Dependent loads per dispatch on an adapter of `class`: 2^17 on a CPU (1.3 ms at lavapipe's
/// 10 ns a load from L1, 26 ms at 200 ns from DRAM), 2^16 on a GPU (2 ms at an L1 hit's 30 ns,
/// 40 ms at HBM's 600).
pub fn steps_for(class: AdapterClass) -> u32 {
    match class {
        AdapterClass::Software => 1 << 17,
        AdapterClass::Integrated | AdapterClass::Discrete => 1 << 16,
    }
}

/// Which invocations follow the cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChaseForm {
    /// One invocation, a uniform index (`chase`): AMD's scalar cache.
    Single,
    /// A workgroup of this many lanes (the adapter's subgroup), each index per lane at run time
    /// (`chase_lanes`): the vector path.
    Lanes(u32),
}

impl ChaseForm {
    /// The id's kind: `latency` or `latency-lanes`.
    pub fn id_kind(self) -> &'static str {
        match self {
            ChaseForm::Single => "latency",
            ChaseForm::Lanes(_) => "latency-lanes",
        }
    }

    /// The `kernel` param: `chase` (the one the latency levels are read from) or `chase-lanes`.
    pub fn kernel(self) -> &'static str {
        match self {
            ChaseForm::Single => "chase",
            ChaseForm::Lanes(_) => "chase-lanes",
        }
    }

    /// Its entry point in memory.wgsl.
    pub fn entry(self) -> &'static str {
        match self {
            ChaseForm::Single => "chase",
            ChaseForm::Lanes(_) => "chase_lanes",
        }
    }

    /// Its pipeline constants for `steps` loads per dispatch.
    pub fn constants(self, steps: u32) -> Vec<(&'static str, f64)> {
        let mut constants = vec![("STEPS", f64::from(steps))];
        if let ChaseForm::Lanes(lanes) = self {
            constants.push(("LANES", f64::from(lanes)));
        }
        constants
    }
}

/// memory.wgsl's binding of `chase_lanes`' zero mask.
const MASKS_BINDING: u32 = 5;

/// Pointer-chase latency over a working set of `bytes`.
pub struct PointerChase {
    bytes: u64,
    steps: u32,
    seed: u64,
    form: ChaseForm,
    pipeline: super::SharedPipeline,
    /// Sets up to this many bytes are walked whole once, untimed, at set-up.
    warm_within: u64,
}

/// Dispatches of the untimed walk per submit: a few hundred milliseconds of dependent loads
/// at the most, well inside any driver's watchdog.
const WARM_DISPATCHES_PER_SUBMIT: u64 = 4;

/// What set-up made, and how far the runs have walked.
pub struct ChaseState {
    dispatch: DispatchKernel,
    position: wgpu::Buffer,
    successor: Vec<u32>,
    loads_done: u64,
    /// The loads and the node of the last check, which the next one walks on from: a check
    /// after the timed samples walks only the loads made since, not the cycle from its start.
    checked: (u64, u32),
    _buffers: Vec<wgpu::Buffer>,
}

impl PointerChase {
    /// A cycle over `bytes` (a multiple of [`NODE_BYTES`], at least four nodes), `steps` loads
    /// per dispatch (a multiple of 8), drawn from `seed`.
    pub fn new(bytes: u64, steps: u32, seed: u64) -> Self {
        Self {
            bytes,
            steps: steps.max(8) / 8 * 8,
            seed,
            form: ChaseForm::Single,
            pipeline: super::SharedPipeline::default(),
            warm_within: 0,
        }
    }

    /// The same kernel walking its whole cycle once, untimed, at set-up when the set is no
    /// larger than `bytes` (twice the largest cache, say): a set a cache can hold is then in
    /// it before the first timed load. The runner's warm-up goes by time, and on a GPU, at
    /// 30-40 ms a dispatch from DRAM, it walked well under 100 MiB of nodes: a 96 MiB Infinity
    /// Cache's sets were timed on their first, cold pass and read as DRAM. Past every cache no
    /// pass is warm, and the walk would only cost time.
    pub fn warmed_within(mut self, bytes: u64) -> Self {
        self.warm_within = bytes;
        self
    }

    /// The same walk in `form` (a lane count is kept from 1 to 256).
    pub fn in_form(mut self, form: ChaseForm) -> Self {
        self.form = match form {
            ChaseForm::Lanes(lanes) => ChaseForm::Lanes(lanes.clamp(1, 256)),
            single => single,
        };
        self
    }

    /// The same kernel compiling its pipeline once with every other kernel given `pipeline`
    /// (all of them the same loads per dispatch).
    pub fn sharing(mut self, pipeline: &super::SharedPipeline) -> Self {
        self.pipeline = pipeline.clone();
        self
    }

    fn nodes(&self) -> u64 {
        self.bytes / NODE_BYTES
    }

    /// The cycle the kernel follows: `successor[k]` follows node k, over [`cycle_nodes`] of
    /// the set's nodes.
    fn cycle(&self) -> Vec<u32> {
        random_cycle(cycle_nodes(self.nodes() as u32), self.seed)
    }
}

/// How many of `nodes` nodes the cycle goes through: all of them where their count is odd,
/// else all but the last. An odd cycle shares no factor with the power-of-two loads a dispatch
/// makes, so every dispatch ends on another node than it started from: with a power-of-two
/// cycle of at most that many loads, every dispatch would end where it began, on node 0 (the
/// position's start value), and a chase that never ran, or lost dispatches, would pass its
/// check. One node of 64 bytes left out of the set changes no cache level it falls in.
pub fn cycle_nodes(nodes: u32) -> u32 {
    if nodes.is_multiple_of(2) {
        nodes - 1
    } else {
        nodes
    }
}

/// A random single cycle through `nodes` nodes (Sattolo's algorithm): `successor[k]` follows k.
pub fn random_cycle(nodes: u32, seed: u64) -> Vec<u32> {
    let mut successor: Vec<u32> = (0..nodes).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..nodes as usize).rev() {
        let j = rng.next_below(i);
        successor.swap(i, j);
    }
    successor
}

/// The node reached from node 0 after `loads` steps along `successor`.
pub fn position_after(successor: &[u32], loads: u64) -> u32 {
    position_from(successor, (0, 0), loads)
}

/// The node reached after `loads` steps along `successor`, given the node reached after
/// `from.0` of them (`from.1`; `loads` at least `from.0`): only the steps between are walked.
pub fn position_from(successor: &[u32], from: (u64, u32), loads: u64) -> u32 {
    let mut p = from.1;
    for _ in 0..loads.saturating_sub(from.0) % successor.len().max(1) as u64 {
        p = successor[p as usize];
    }
    p
}

impl Kernel for PointerChase {
    type State = ChaseState;

    fn info(&self) -> BenchmarkInfo {
        let counts = match self.form {
            ChaseForm::Single => {
                "ns per dependent 4-byte load, following a random cycle through the working set in 64-byte nodes (one invocation, a uniform index)".to_string()
            }
            ChaseForm::Lanes(lanes) => format!(
                "ns per dependent 4-byte load, following a random cycle through the working set in 64-byte nodes ({lanes} lanes loading the same address with a per-lane index: the vector path)"
            ),
        };
        let info = BenchmarkInfo::new(
            format!("memory/{}/{}", self.form.id_kind(), format_size(self.bytes)),
            gpubench_results::suite_names::MEMORY,
            MetricKind::Latency,
            &counts,
        )
        .param("kernel", self.form.kernel())
        .param("working_set_bytes", self.bytes)
        .param("working_set", format_size(self.bytes))
        .param("node_bytes", NODE_BYTES)
        .param("loads_per_dispatch", self.steps)
        // Every run goes on from the position the last one reached; the check follows every
        // load since set-up.
        .outputs(Outputs::Accumulated);
        match self.form {
            ChaseForm::Single => info,
            ChaseForm::Lanes(lanes) => info.param("lanes", lanes),
        }
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        let nodes = self.nodes();
        if nodes < 4 || !self.bytes.is_multiple_of(NODE_BYTES) {
            return Err(format!(
                "a working set of {} is not four or more whole {NODE_BYTES}-byte nodes",
                format_size(self.bytes)
            ));
        }
        if self.bytes / 4 > u64::from(u32::MAX) {
            return Err("working set too large for 32-bit indices".into());
        }
        check_binding_fits(ctx, self.bytes, "working set")
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<ChaseState> {
        let successor = self.cycle();
        let mut words = vec![0u32; (self.bytes / 4) as usize];
        for (k, &next) in successor.iter().enumerate() {
            words[k * NODE_WORDS as usize] = next * NODE_WORDS;
        }
        let next = ctx.buffer_with_data(
            "memory chase cycle",
            bytemuck::cast_slice(&words),
            wgpu::BufferUsages::STORAGE,
        );
        let position = ctx.buffer_with_data(
            "memory chase position",
            bytemuck::bytes_of(&0u32),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let constants = self.form.constants(self.steps);
        let entry = self.form.entry();
        let pipeline = self.pipeline.get_or_build(|| {
            compute_pipeline_with(ctx, entry, crate::memory::WGSL, entry, &constants)
        });
        let masks = uniform_buffer(ctx, "memory chase masks", &[0u32; 4]);
        let mut bindings = vec![(3, &next), (4, &position)];
        if self.form != ChaseForm::Single {
            bindings.push((MASKS_BINDING, &masks));
        }
        let dispatch = DispatchKernel::new(ctx, entry, pipeline, &bindings, (1, 1));
        let mut loads_done = 0;
        if self.bytes <= self.warm_within {
            let mut left = self.nodes().div_ceil(u64::from(self.steps));
            while left > 0 {
                let now = left.min(WARM_DISPATCHES_PER_SUBMIT);
                dispatch.submit_untimed(ctx, now as u32);
                left -= now;
                loads_done += now * u64::from(self.steps);
            }
            ctx.wait_idle().await?;
        }
        Ok(ChaseState {
            dispatch,
            position,
            successor,
            loads_done,
            checked: (0, 0),
            _buffers: vec![next, masks],
        })
    }

    fn work(&self, _state: &ChaseState) -> Work {
        Work {
            bytes_read: u64::from(self.steps) * 4,
            bytes_written: 4,
            flops: 0,
            ops: u64::from(self.steps),
            int_ops: 0,
        }
    }

    async fn run(&self, state: &mut ChaseState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        state.dispatch.submit(ctx, clock, iterations);
        state.loads_done += u64::from(iterations) * u64::from(self.steps);
        Ok(())
    }

    async fn verify(&self, state: &mut ChaseState, ctx: &GpuContext) -> Outcome<Verification> {
        let bytes = ctx.read_buffer(&state.position, 4).await?;
        let got = bytemuck::pod_read_unaligned::<u32>(&bytes[..4]);
        let node = position_from(&state.successor, state.checked, state.loads_done);
        state.checked = (state.loads_done, node);
        let want = node * NODE_WORDS;
        let mut checker = Checker::new();
        checker.check(
            f64::from(got),
            f64::from(want),
            f64::from(want),
            Tolerance::EXACT,
            || format!("position after {} loads", state.loads_done),
        );
        Ok(checker.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_visits_every_node_once_before_returning() {
        for nodes in [2u32, 3, 64, 1000] {
            let successor = random_cycle(nodes, 11);
            let mut seen = vec![false; nodes as usize];
            let mut p = 0u32;
            for _ in 0..nodes {
                assert!(!seen[p as usize], "node {p} twice in a cycle of {nodes}");
                seen[p as usize] = true;
                p = successor[p as usize];
            }
            assert_eq!(p, 0, "back at the start after {nodes} loads");
            assert!(seen.iter().all(|&s| s));
        }
        // Seeds give different cycles, so the order is not a fixed stride.
        assert_ne!(random_cycle(64, 1), random_cycle(64, 2));
    }

    /// At every power-of-two set the sweep takes (4 KiB to 64 MiB here), each dispatch of
    /// either class's loads ends on a node other than the one it started from, so a chase
    /// that did not run, or ran one dispatch fewer, fails its check.
    #[test]
    fn no_dispatch_ends_where_it_started() {
        for shift in 12..=26 {
            for class in [AdapterClass::Software, AdapterClass::Discrete] {
                let steps = u64::from(steps_for(class));
                let successor = PointerChase::new(1 << shift, steps as u32, 3).cycle();
                let nodes = successor.len();
                let mut seen = std::collections::HashSet::new();
                for dispatches in 0..4 {
                    let at = position_after(&successor, dispatches * steps);
                    assert!(
                        seen.insert(at),
                        "{nodes} nodes: dispatch {dispatches} at {at}"
                    );
                }
            }
        }
        assert_eq!(cycle_nodes(64), 63);
        assert_eq!(cycle_nodes(65), 65);
    }

    #[test]
    fn positions_wrap_round_the_cycle() {
        let successor = random_cycle(100, 5);
        assert_eq!(position_after(&successor, 0), 0);
        assert_eq!(position_after(&successor, 100), 0);
        assert_eq!(position_after(&successor, 1), successor[0]);
        assert_eq!(position_after(&successor, 101), successor[0]);
        // Walking on from an earlier check lands where walking from the start does.
        let at_37 = (37, position_after(&successor, 37));
        for loads in [37, 38, 99, 100, 250] {
            assert_eq!(
                position_from(&successor, at_37, loads),
                position_after(&successor, loads)
            );
        }
        assert_eq!(PointerChase::new(4096, 13, 1).steps, 8);
    }

    #[test]
    fn the_lanes_form_has_its_own_ids_and_constants() {
        let single = PointerChase::new(4096, 64, 1).info();
        assert_eq!(single.id, "memory/latency/4KiB");
        assert_eq!(single.params["kernel"], "chase");
        let lanes = PointerChase::new(4096, 64, 1).in_form(ChaseForm::Lanes(32));
        let info = lanes.info();
        assert_eq!(info.id, "memory/latency-lanes/4KiB");
        assert_eq!(info.params["kernel"], "chase-lanes");
        assert_eq!(info.params["lanes"], 32);
        assert_eq!(
            ChaseForm::Lanes(32).constants(64),
            [("STEPS", 64.0), ("LANES", 32.0)]
        );
        assert_eq!(ChaseForm::Single.constants(64), [("STEPS", 64.0)]);
    }
}
