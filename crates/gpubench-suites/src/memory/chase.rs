//! Dependent-load latency over one working set: memory.wgsl's `chase`.
//!
//! The working set is cut into nodes of [`NODE_BYTES`] (one cache line of a CPU, half of a
//! GPU's 128-byte line: every line of the set is touched), and one cycle through all of them is
//! drawn at random with Sattolo's algorithm, so no prefetcher can guess the next address and no
//! node is visited twice before all have been. One invocation follows it, one load at a time;
//! the figure is a dispatch's time over its loads, in ns, so the dispatch's fixed cost is spread
//! over [`steps_for`] loads (about 2% on lavapipe, whose loads from L1 take 10 ns).
//!
//! Each dispatch starts where the one before stopped, so the cycle is walked whole however
//! short a dispatch is; the CPU predicts the position after every load the runs made.

use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification, Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::format_size;

use gpubench_harness::kit::gpu::{DispatchKernel, check_binding_fits, compute_pipeline_with};
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

/// Pointer-chase latency over a working set of `bytes`.
pub struct PointerChase {
    bytes: u64,
    steps: u32,
    seed: u64,
    pipeline: super::SharedPipeline,
}

/// What set-up made, and how far the runs have walked.
pub struct ChaseState {
    dispatch: DispatchKernel,
    position: wgpu::Buffer,
    successor: Vec<u32>,
    loads_done: u64,
    _next: wgpu::Buffer,
}

impl PointerChase {
    /// A cycle over `bytes` (a multiple of [`NODE_BYTES`], at least two nodes), `steps` loads
    /// per dispatch (a multiple of 8), drawn from `seed`.
    pub fn new(bytes: u64, steps: u32, seed: u64) -> Self {
        Self {
            bytes,
            steps: steps.max(8) / 8 * 8,
            seed,
            pipeline: super::SharedPipeline::default(),
        }
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
    let mut p = 0u32;
    for _ in 0..loads % successor.len().max(1) as u64 {
        p = successor[p as usize];
    }
    p
}

impl Kernel for PointerChase {
    type State = ChaseState;

    fn info(&self) -> BenchmarkInfo {
        BenchmarkInfo::new(
            format!("memory/latency/{}", format_size(self.bytes)),
            gpubench_results::suite_names::MEMORY,
            MetricKind::Latency,
            "ns per dependent 4-byte load, following a random cycle through the working set in 64-byte nodes",
        )
        .param("kernel", "chase")
        .param("working_set_bytes", self.bytes)
        .param("working_set", format_size(self.bytes))
        .param("node_bytes", NODE_BYTES)
        .param("loads_per_dispatch", self.steps)
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        let nodes = self.nodes();
        if nodes < 2 || !self.bytes.is_multiple_of(NODE_BYTES) {
            return Err(format!(
                "a working set of {} is not two or more whole {NODE_BYTES}-byte nodes",
                format_size(self.bytes)
            ));
        }
        if self.bytes / 4 > u64::from(u32::MAX) {
            return Err("working set too large for 32-bit indices".into());
        }
        check_binding_fits(ctx, self.bytes, "working set")
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<ChaseState> {
        let nodes = self.nodes() as u32;
        let successor = random_cycle(nodes, self.seed);
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
        let constants = [("STEPS", f64::from(self.steps))];
        let pipeline = self.pipeline.get_or_build(|| {
            compute_pipeline_with(ctx, "chase", crate::memory::WGSL, "chase", &constants)
        });
        let dispatch = DispatchKernel::new(
            ctx,
            "chase",
            pipeline,
            &[(3, &next), (4, &position)],
            (1, 1),
        );
        Ok(ChaseState {
            dispatch,
            position,
            successor,
            loads_done: 0,
            _next: next,
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
        let want = position_after(&state.successor, state.loads_done) * NODE_WORDS;
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

    #[test]
    fn positions_wrap_round_the_cycle() {
        let successor = random_cycle(100, 5);
        assert_eq!(position_after(&successor, 0), 0);
        assert_eq!(position_after(&successor, 100), 0);
        assert_eq!(position_after(&successor, 1), successor[0]);
        assert_eq!(position_after(&successor, 101), successor[0]);
        assert_eq!(PointerChase::new(4096, 13, 1).steps, 8);
    }
}
