//! The FMA reference load: peak fused multiply-add chains in f32, f16 and f64, scalar, vec2 and
//! vec4, the kernel the compute suite times, the run's noise check measures and the sustained and
//! roofline suites build on.
//!
//! Why this shape of kernel: a multiply-add unit has a latency of several cycles, so one chain
//! per invocation measures latency, not throughput. Every invocation therefore runs [`LANES`]
//! independent scalar lanes (8 scalar chains, 4 vec2 or 2 vec4), and each loop iteration
//! advances every chain by [`UNROLL`] steps, so nothing but arithmetic is inside the loop.
//!
//! Why 8 lanes and 16 steps, on every adapter. On lavapipe one invocation is one lane of the
//! CPU's SIMD registers, so every scalar lane of an invocation is one 256-bit register: 8 of
//! them, plus `a` and `b`, fit AVX2's 16 registers, and 8 chains cover the FMA latency (4
//! cycles) of 2 FMA ports. 16 lanes, as this kernel had, spill; and a loop iteration of one step
//! pays the loop's own work (the counter, the exit test, the blend of every chain under the lane
//! mask) once per FMA, which halved the throughput: measured side by side on lavapipe, 16 lanes
//! stepped once per iteration reached half of vkpeak's vec4 figure, 8 lanes stepped 16 times
//! per iteration reach it. vkpeak's own kernel is this shape (2 vec4 chains, 16 steps per
//! iteration), and it and clpeak (one float4 chain) reach the vendors' peaks on GPUs, where
//! latency is hidden by the other resident invocations and 8 independent lanes per invocation
//! is ample: neighbouring instructions are independent, which dual issue (RDNA 3's VOPD) and
//! packed f16 (the vec2 form) need. So one shape serves CPUs and GPUs; the grid is what
//! depends on the adapter ([`grid`]).
//!
//! Why the answer is exact: the recurrence is `x = fma(x, a, b)` with `a = 1`, `b = 2^-10` read
//! from a uniform buffer, and start values that are multiples of 2^-10 near -1, so every
//! intermediate value is exactly representable in f32 and in f16. The CPU predicts each
//! invocation's output bit for bit; a step skipped or a wrong FMA cannot pass. A loop folded
//! into fewer operations that keep these exact values would (IEEE arithmetic forbids the
//! reassociation, but a compiler need not keep to it): the compiled code is checked for that
//! (`gpubench-isa/tests/compiled_forms.rs`).
//! (The multiplier being one costs the hardware nothing less: the compiler cannot know it.)
//!
//! Two recurrences ([`Chain`]). The reference load is `x = fma(x, a, b)` (the chain is the
//! multiplicand, `a` and `b` uniform). The accumulate form is `acc = fma(p, q, acc)` (the chain is
//! the addend, `p` per lane at run time, `q` uniform): RDNA 3 can dual-issue only that shape
//! (`v_fmac_f32`; the first compiles to VOP3 `v_fma_f32`), so on some GPUs it is the only form that
//! reaches the peak. Both move a chain by exactly `b` a step; each has its own ids and its own CPU
//! reference, and the peak other suites scale by is the best verified row of either. The
//! accumulate form is skipped on software adapters ([`SOFTWARE_SPLITS_FMA`]): llvmpipe splits
//! every fma and hoists the form's loop-invariant product, so its loop would only add.
//!
//! The roofline kernel has the same shape (a uniform block, an output that starts as NaN, an
//! exact CPU prediction), so both are built on [`FmaDispatch`].

pub mod grid;
pub mod plausible;

use crate::kit::derived::param_str;
use crate::kit::gpu::{
    DispatchKernel, Precision, SpecialisedShader, f32_bytes, read_f32, specialise,
};
use crate::kit::verify::{Checker, Tolerance};
use crate::{
    BenchError, BenchResult, BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock,
    Status, Verification, Work,
};
use grid::PeakGrid;

/// The FMA chain kernel (compute_peak.wgsl): the compute suite's peak, the run's noise
/// reference, the sustained load and the roofline's kernel are all built from it.
pub const SHADER: &str = include_str!("../../../../../shaders/compute_peak.wgsl");

/// Where the timed forms' result ids live (`compute/fma-peak/vec4-f32`, ...): ids keep their
/// meaning, so the run's noise reference and the peaks other suites scale by keep these names
/// whichever suite times the kernel.
pub const ID_PREFIX: &str = "compute/fma-peak";

/// The suite the timed forms' results name, with [`ID_PREFIX`].
const SUITE: &str = "compute";

/// Steps per chain, passed to compute_peak.wgsl as its `STEPS` pipeline constant.
pub const STEPS: u32 = 1024;
/// Steps of every chain per loop iteration, as written out in compute_peak.wgsl.
pub const UNROLL: u32 = 16;
/// Independent scalar lanes per invocation in every form (as written in compute_peak.wgsl).
pub const LANES: u32 = 8;
/// The multiplier of every chain.
pub const A: f32 = 1.0;
/// The addend of every chain: 2^-10, so STEPS steps move a chain by exactly 1.
pub const B: f32 = 1.0 / 1024.0;

/// Why the accumulate form is skipped on a software adapter. llvmpipe (lavapipe) lowers every
/// fma to a multiply and an add in NIR (`lower_ffma32`), and the accumulate form's product is the
/// same every step, so it leaves the loop and the loop adds: measured there, the form ran 1.5x
/// the multiply form's "GFLOP/s" while doing half the arithmetic it declares. The values cannot
/// show it (they are exact either way).
pub const SOFTWARE_SPLITS_FMA: &str = "not run on a software adapter: its shader compiler may split fma into a multiply and an add (llvmpipe does) and hoist the product, the same every step, out of the loop, so the row would count 2 FLOP for each add; the multiply-form rows are the peak here";

/// Scalar, vec2 or vec4 chains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeakForm {
    /// `T` chains.
    Scalar,
    /// `vec2<T>` chains (packed f16, dual issue).
    Vec2,
    /// `vec4<T>` chains.
    Vec4,
}

impl PeakForm {
    /// Every form, in report order.
    pub const ALL: [PeakForm; 3] = [PeakForm::Scalar, PeakForm::Vec2, PeakForm::Vec4];

    /// Name as used in ids.
    pub fn name(self) -> &'static str {
        match self {
            PeakForm::Scalar => "scalar",
            PeakForm::Vec2 => "vec2",
            PeakForm::Vec4 => "vec4",
        }
    }

    /// Scalars per chain.
    pub fn width(self) -> u32 {
        match self {
            PeakForm::Scalar => 1,
            PeakForm::Vec2 => 2,
            PeakForm::Vec4 => 4,
        }
    }

    /// Independent chains per invocation (must match the shader): [`LANES`] scalars in all.
    pub fn chains(self) -> u32 {
        LANES / self.width()
    }

    /// Independent scalar lanes per invocation.
    pub fn lanes(self) -> u32 {
        LANES
    }

    /// The entry point of compute_peak.wgsl that runs this form with `chain`.
    pub fn entry(self, chain: Chain) -> &'static str {
        match (chain, self) {
            (Chain::Multiply, PeakForm::Scalar) => "peak_scalar",
            (Chain::Multiply, PeakForm::Vec2) => "peak_vec2",
            (Chain::Multiply, PeakForm::Vec4) => "peak_vec4",
            (Chain::Accumulate, PeakForm::Scalar) => "peak_scalar_acc",
            (Chain::Accumulate, PeakForm::Vec2) => "peak_vec2_acc",
            (Chain::Accumulate, PeakForm::Vec4) => "peak_vec4_acc",
        }
    }
}

/// How a step of a chain uses the chain's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chain {
    /// `x = fma(x, a, b)`, `a` and `b` uniform: the chain is the multiplicand (the reference
    /// load, and the only form before the accumulate one; its ids have no prefix).
    Multiply,
    /// `acc = fma(p, q, acc)`, `p` per lane at run time and `q` uniform: the chain is the
    /// addend, the shape of a matmul's inner loop and the one RDNA 3 dual-issues.
    Accumulate,
}

impl Chain {
    /// Name as recorded in params.
    pub fn name(self) -> &'static str {
        match self {
            Chain::Multiply => "multiply",
            Chain::Accumulate => "accumulate",
        }
    }

    /// What the id's form part starts with: nothing for the reference form, `acc-` for the
    /// accumulate one (`compute/fma-peak/acc-vec4-f32`).
    fn id_prefix(self) -> &'static str {
        match self {
            Chain::Multiply => "",
            Chain::Accumulate => "acc-",
        }
    }
}

/// The start value of scalar chain `c` of invocation `id` (the shader's `start`).
pub fn chain_start(id: u32, c: u32) -> f64 {
    -1.5 + f64::from((id.wrapping_mul(7).wrapping_add(c.wrapping_mul(13))) & 511) / 1024.0
}

/// What invocation `id` of the accumulate form writes: the sum of its `lanes` accumulators after
/// `steps` steps of `acc = fma(p, q, acc)`, the steps taking the pairs `(p0, q0)` and `(p1, q1)`
/// in turn, `p0 = p1 = b` (the host's zero mask is 0) and `q0 = q1 = a`. Every value on the way
/// is a multiple of 2^-10 in [-1.5, 0.5) (exact in f32 and f16), so the tolerance is none: the
/// sum is compared bit for bit.
///
/// Every step adds the same exact product `b * a`, so the accumulator after `steps` steps is its
/// start plus `steps` products: a closed form, one operation per lane. The reference's cost must
/// not grow with the GPU's work: replaying every step of every lane on the host is 25.8 billion
/// fused multiply-adds for the grid an H200 is given (3,145,728 invocations of 8 lanes, 1024
/// steps each), minutes of one host core, and it stopped the first run on one before a single
/// f16 or matmul result. A test replays the chains step by step against this form.
pub fn accumulated_output(id: u32, lanes: u32, steps: u32, a: f64, b: f64) -> f64 {
    let added = f64::from(steps) * (b * a);
    (0..lanes).map(|c| chain_start(id, c) + added).sum()
}

/// What invocation `id` writes: the sum of its `lanes` chains after `steps` steps of
/// `x = x * a + b`, in closed form.
pub fn expected_output(id: u32, lanes: u32, steps: u32, a: f64, b: f64) -> f64 {
    (0..lanes)
        .map(|c| {
            let x0 = chain_start(id, c);
            if a == 1.0 {
                x0 + f64::from(steps) * b
            } else {
                let an = a.powi(steps as i32);
                an * x0 + b * (1.0 - an) / (1.0 - a)
            }
        })
        .sum()
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    a: f32,
    b: f32,
    /// 0: the accumulate forms' per-lane multiplier is `1 + ((lid >> shift) & zero_mask)`.
    zero_mask: u32,
    /// The accumulate forms' second uniform multiplier: [`A`], like `a`.
    a2: f32,
}

/// What an FMA kernel's set-up made: its dispatch, bound to a uniform block, any storage inputs
/// and an output of f32 values that starts as NaN (a value these kernels never write, so an
/// invocation that did nothing shows). The peak and the roofline kernels share it.
pub struct FmaDispatch {
    dispatch: DispatchKernel,
    output: wgpu::Buffer,
    // Held so the bind group's buffers outlive every dispatch.
    _inputs: Vec<wgpu::Buffer>,
}

impl FmaDispatch {
    /// `shader` bound to `params` (binding 0), one storage buffer per slice of `inputs`
    /// (bindings 1, 2, ...) and an output of `output_floats` values (the next binding), over
    /// `grid`. `label` names the pipeline, the pass and the buffers.
    pub fn new(
        ctx: &GpuContext,
        label: &str,
        shader: &SpecialisedShader,
        params: &[u8],
        inputs: &[&[f32]],
        output_floats: usize,
        grid: (u32, u32),
    ) -> Self {
        let init = vec![f32::NAN; output_floats];
        Self::with_output(ctx, label, shader, params, inputs, f32_bytes(&init), grid)
    }

    /// [`FmaDispatch::new`] with an output of 32-bit words that starts as `init` (the integer
    /// kernels, whose every bit pattern is a possible answer, start each word as the complement
    /// of the one they should write).
    pub fn with_output(
        ctx: &GpuContext,
        label: &str,
        shader: &SpecialisedShader,
        params: &[u8],
        inputs: &[&[f32]],
        init: &[u8],
        grid: (u32, u32),
    ) -> Self {
        let pipeline = shader.pipeline(ctx, label);
        let params_label = format!("{label} params");
        let mut buffers =
            vec![ctx.buffer_with_data(&params_label, params, wgpu::BufferUsages::UNIFORM)];
        for data in inputs {
            let usage = wgpu::BufferUsages::STORAGE;
            buffers.push(ctx.buffer_with_data(&format!("{label} input"), f32_bytes(data), usage));
        }
        let output = ctx.buffer_with_data(&format!("{label} out"), init, crate::kit::gpu::OUTPUT);
        let mut bindings: Vec<(u32, &wgpu::Buffer)> = (0u32..).zip(&buffers).collect();
        bindings.push((bindings.len() as u32, &output));
        let dispatch = DispatchKernel::new(ctx, label, pipeline, &bindings, grid);
        Self {
            dispatch,
            output,
            _inputs: buffers,
        }
    }

    /// The timed region: the sample's iterations as dispatches (a whole `Kernel::run`).
    pub fn run(&self, clock: &mut SampleClock<'_>) -> crate::Outcome {
        self.dispatch.run(clock)
    }

    /// The output, read back as 32-bit words.
    pub async fn read_words(&self, ctx: &GpuContext) -> Result<Vec<u32>, BenchError> {
        let bytes = ctx.read_buffer(&self.output, self.output.size()).await?;
        Ok(bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    }

    /// Reads the output back and compares it bit for bit with `want` (every value on the way is
    /// exactly representable: no tolerance at all); `what` names value `i` in the report.
    pub async fn verify_exact(
        &self,
        ctx: &GpuContext,
        want: &[f64],
        what: impl Fn(usize) -> String,
    ) -> Result<Verification, BenchError> {
        let got = read_f32(ctx, &self.output).await?;
        let mut checker = Checker::new();
        // Values never read back, or never predicted, are never checked: a failure.
        checker.same_length(got.len(), want.len());
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            checker.check(f64::from(g), w, w, Tolerance::EXACT, || what(i));
        }
        Ok(checker.finish())
    }
}

/// `info` with what every chain kernel over `grid` records (the FMA peaks here, the integer and
/// dot-product peaks of the compute suite): the steps per chain ([`STEPS`]) and per loop
/// iteration ([`UNROLL`]), the grid's invocations and workgroups, and what it was sized for.
pub fn chain_params(info: BenchmarkInfo, grid: &PeakGrid) -> BenchmarkInfo {
    let invocations = u32::try_from(grid.invocations()).unwrap_or(u32::MAX);
    info.param("steps_per_chain", STEPS)
        .param("steps_per_iteration", UNROLL)
        .param("invocations", invocations)
        .param("workgroups", vec![grid.workgroups.0, grid.workgroups.1])
        .param("grid_sizing", grid.sizing.as_str())
}

/// A chain kernel's shader: `entry` of `source`, with [`STEPS`] as its `STEPS` pipeline
/// constant.
pub fn chain_shader(source: String, entry: &str) -> SpecialisedShader {
    SpecialisedShader {
        source,
        entry: entry.to_string(),
        constants: vec![("STEPS", f64::from(STEPS))],
    }
}

/// The floating-point type of an FMA peak: f32 and f16 (the [`Precision`]s the other suites
/// share), or f64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatType {
    /// 32-bit IEEE floats.
    F32,
    /// 16-bit IEEE floats (SHADER_F16).
    F16,
    /// 64-bit IEEE floats (SHADER_F64).
    F64,
}

impl FloatType {
    /// Name as used in ids and params (`f32`, `f16`, `f64`).
    pub fn name(self) -> &'static str {
        match self {
            FloatType::F32 => "f32",
            FloatType::F16 => "f16",
            FloatType::F64 => "f64",
        }
    }

    /// Device features the type needs.
    pub fn features(self) -> wgpu::Features {
        match self {
            FloatType::F32 => wgpu::Features::empty(),
            FloatType::F16 => wgpu::Features::SHADER_F16,
            FloatType::F64 => wgpu::Features::SHADER_F64,
        }
    }

    /// compute_peak.wgsl with its `T` made this type.
    fn source(self) -> Result<String, String> {
        match self {
            FloatType::F32 => specialise(SHADER, Precision::F32, &[], &[]),
            FloatType::F16 => specialise(SHADER, Precision::F16, &[], &[]),
            FloatType::F64 => {
                let (from, to) = ("alias T = f32;", "alias T = f64;");
                if !SHADER.contains(from) {
                    return Err(format!("compute_peak.wgsl has no '{from}' to make f64"));
                }
                Ok(SHADER.replace(from, to))
            }
        }
    }
}

impl From<Precision> for FloatType {
    fn from(precision: Precision) -> Self {
        match precision {
            Precision::F32 => FloatType::F32,
            Precision::F16 => FloatType::F16,
        }
    }
}

/// Peak FMA throughput of one floating-point type and form.
pub struct FmaPeak {
    precision: FloatType,
    form: PeakForm,
    chain: Chain,
    grid: PeakGrid,
}

impl FmaPeak {
    /// `form` chains in `precision`, over `grid` (workgroups of 64 invocations).
    pub fn new(precision: impl Into<FloatType>, form: PeakForm, grid: PeakGrid) -> Self {
        Self {
            precision: precision.into(),
            form,
            chain: Chain::Multiply,
            grid,
        }
    }

    /// The same chains stepped as `chain` says.
    pub fn with_chain(mut self, chain: Chain) -> Self {
        self.chain = chain;
        self
    }

    fn invocations(&self) -> u32 {
        u32::try_from(self.grid.invocations()).unwrap_or(u32::MAX)
    }

    fn id(&self) -> String {
        format!("{ID_PREFIX}/{}", self.form_name())
    }

    /// The id's form part: `vec4-f32`, `acc-vec4-f32`.
    pub fn form_name(&self) -> String {
        format!(
            "{}{}-{}",
            self.chain.id_prefix(),
            self.form.name(),
            self.precision.name()
        )
    }

    /// The shader its pipeline compiles: the precision by alias rewriting, [`STEPS`] as the
    /// `STEPS` pipeline constant.
    pub fn shader(&self) -> Result<SpecialisedShader, BenchError> {
        let source = self.precision.source().map_err(BenchError::Setup)?;
        Ok(chain_shader(source, self.form.entry(self.chain)))
    }
}

impl Kernel for FmaPeak {
    type State = FmaDispatch;

    fn info(&self) -> BenchmarkInfo {
        let info = BenchmarkInfo::new(
            self.id(),
            SUITE,
            MetricKind::Throughput,
            "floating-point operations per second (an FMA counts as 2)",
        )
        .param("kernel", "fma-peak")
        .param("precision", self.precision.name())
        .param(
            "form",
            format!("{}{}", self.chain.id_prefix(), self.form.name()),
        )
        .param("chain", self.chain.name())
        .param("chains_per_invocation", self.form.chains())
        .param("chains_lanes_per_invocation", self.form.lanes());
        chain_params(info, &self.grid)
    }

    fn required_features(&self) -> wgpu::Features {
        self.precision.features()
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        if self.chain == Chain::Accumulate && ctx.is_software() {
            return Err(SOFTWARE_SPLITS_FMA.to_string());
        }
        let (x, y) = self.grid.workgroups;
        if x.max(y) > ctx.limits.max_compute_workgroups_per_dimension {
            return Err(format!(
                "a grid of {x} x {y} workgroups exceeds max_compute_workgroups_per_dimension"
            ));
        }
        crate::kit::gpu::check_binding_fits(ctx, self.grid.invocations() * 4, "grid output")
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<FmaDispatch> {
        let params = Params {
            a: A,
            b: B,
            zero_mask: 0,
            a2: A,
        };
        Ok(FmaDispatch::new(
            ctx,
            &self.id(),
            &self.shader()?,
            bytemuck::bytes_of(&params),
            &[],
            self.invocations() as usize,
            self.grid.workgroups,
        ))
    }

    fn work(&self, _state: &FmaDispatch) -> Work {
        let invocations = u64::from(self.invocations());
        let fmas = invocations * u64::from(self.form.lanes()) * u64::from(STEPS);
        Work::flops(2 * fmas).with_bytes(0, invocations * 4)
    }

    async fn run(&self, state: &mut FmaDispatch, clock: &mut SampleClock<'_>) -> Outcome {
        state.run(clock)
    }

    async fn verify(&self, state: &mut FmaDispatch, ctx: &GpuContext) -> Outcome<Verification> {
        let (lanes, a, b) = (self.form.lanes(), f64::from(A), f64::from(B));
        let want: Vec<f64> = (0..self.invocations())
            .map(|id| match self.chain {
                Chain::Multiply => expected_output(id, lanes, STEPS, a, b),
                Chain::Accumulate => accumulated_output(id, lanes, STEPS, a, b),
            })
            .collect();
        state
            .verify_exact(ctx, &want, |id| format!("invocation {id}"))
            .await
    }
}

/// The measured peak of `precision`: the best median over the ok and verified results of this
/// kernel's timed forms (the compute suite's `fma-peak` rows, both [`Chain`]s), when they ran,
/// leaving out an accumulate row marked as faster than its card issues
/// ([`plausible::FASTER_ACCUMULATE`]). Other suites express their throughput as a fraction of
/// it.
pub fn measured_peak(results: &[BenchResult], precision: Precision) -> Option<(f64, String)> {
    best_peak(results, precision, |_| true)
}

/// The measured peak of `precision` over the rows of one [`Chain`] only: the ceiling of a kernel
/// whose inner loop has that chain's instruction form (RDNA 3 dual-issues only the accumulate
/// form, so there the two peaks differ by up to 2x).
pub fn measured_peak_of_chain(
    results: &[BenchResult],
    precision: Precision,
    chain: Chain,
) -> Option<(f64, String)> {
    best_peak(results, precision, |r| {
        param_str(r, "chain") == Some(chain.name())
    })
}

fn best_peak(
    results: &[BenchResult],
    precision: Precision,
    keep: impl Fn(&BenchResult) -> bool,
) -> Option<(f64, String)> {
    results
        .iter()
        .filter(|r| r.status == Status::Ok && r.verified && r.suite == SUITE)
        .filter(|r| param_str(r, "kernel") == Some("fma-peak"))
        .filter(|r| param_str(r, "precision") == Some(precision.name()))
        .filter(|r| keep(r) && !plausible::is_faster_accumulate(r))
        .filter(|r| !plausible::is_unbounded_accumulate(r, results))
        .filter_map(|r| Some((r.median()?, r.id.clone())))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

#[cfg(test)]
mod tests {
    use super::grid::WORKGROUP;
    use super::*;

    #[test]
    fn chains_stay_exact_and_in_range() {
        // Replay one invocation step by step in f32 and in f16-representable values: the
        // closed form must match exactly, and every value must stay in [-1.5, 0.5).
        for form in PeakForm::ALL {
            let id = 12_345;
            let mut sum = 0.0f32;
            for c in 0..form.lanes() {
                let mut x = chain_start(id, c) as f32;
                for _ in 0..STEPS {
                    x = x.mul_add(A, B);
                    assert!((-1.5..0.5).contains(&x));
                    // Multiples of 2^-10 below 2 in magnitude fit f16's 11-bit significand.
                    assert_eq!((x * 1024.0).fract(), 0.0);
                }
                sum += x;
            }
            let want = expected_output(id, form.lanes(), STEPS, f64::from(A), f64::from(B));
            assert_eq!(f64::from(sum), want);
        }
    }

    #[test]
    fn the_accumulate_closed_form_is_the_step_by_step_chain() {
        // The kernel's own order: the pairs (p0, q0) and (p1, q1) in turn, each step one fma,
        // in f32 as the GPU computes it; the sum of the lanes in f32 too.
        let (a, b) = (A, B);
        let pairs = [(b, a), (b, a)];
        let replay = |id: u32, steps: u32| -> f32 {
            (0..LANES)
                .map(|c| {
                    let mut acc = chain_start(id, c) as f32;
                    for step in 0..steps {
                        let (p, q) = pairs[step as usize % 2];
                        acc = p.mul_add(q, acc);
                        assert_eq!((acc * 1024.0).fract(), 0.0, "inexact at step {step}");
                    }
                    acc
                })
                .sum()
        };
        for id in [0, 1, 511, 12_345, 3_145_727, u32::MAX] {
            for steps in [0, 1, 2, 3, 16, 1000, STEPS] {
                let want = accumulated_output(id, LANES, steps, f64::from(a), f64::from(b));
                assert_eq!(f64::from(replay(id, steps)), want, "id {id} steps {steps}");
            }
        }
    }

    #[test]
    fn every_form_has_the_lanes_the_shader_writes() {
        // The loop runs STEPS / 16 iterations of 16 written-out steps.
        assert_eq!(STEPS % UNROLL, 0);
        let source = SHADER;
        for step in ["step_scalar", "step_vec2", "step_vec4"] {
            let call = format!("x = {step}(x, a, b);");
            assert_eq!(source.matches(&call).count(), UNROLL as usize, "{call}");
        }
        // The accumulate forms take their two operand pairs in turn, half the steps each.
        for step in ["acc_scalar", "acc_vec2", "acc_vec4"] {
            for pair in ["p0, q0", "p1, q1"] {
                let call = format!("x = {step}(x, {pair});");
                assert_eq!(source.matches(&call).count(), UNROLL as usize / 2, "{call}");
            }
        }
        for form in PeakForm::ALL {
            assert_eq!(form.chains() * form.width(), LANES);
            for chain in [Chain::Multiply, Chain::Accumulate] {
                let entry = format!("fn {}(", form.entry(chain));
                assert!(source.contains(&entry), "{entry}");
            }
        }
        assert!(source.contains(&format!("@workgroup_size({WORKGROUP})")));
        assert!(source.contains("struct Scalar8 {") && source.contains("struct Vec2x4 {"));
        assert!(source.contains("struct Vec4x2 {"));
    }

    #[test]
    fn the_accumulate_form_has_its_own_ids_and_reference() {
        let grid = PeakGrid::fixed(1);
        let peak = FmaPeak::new(Precision::F16, PeakForm::Vec4, grid).with_chain(Chain::Accumulate);
        let info = peak.info();
        assert_eq!(info.id, "compute/fma-peak/acc-vec4-f16");
        assert_eq!(info.params["chain"], "accumulate");
        assert_eq!(
            info.params["kernel"], "fma-peak",
            "a candidate for the measured peak"
        );
        let shader = peak.shader().expect("specialises");
        assert_eq!(shader.entry, "peak_vec4_acc");
        let reference = FmaPeak::new(Precision::F32, PeakForm::Vec4, PeakGrid::fixed(1));
        assert_eq!(reference.info().id, "compute/fma-peak/vec4-f32");
        // Both recurrences move a chain by exactly b a step: the replay of fma(p, q, acc)
        // agrees with the multiply form's closed form, bit for bit.
        for id in [0, 77, 4095] {
            let (a, b) = (f64::from(A), f64::from(B));
            assert_eq!(
                accumulated_output(id, LANES, STEPS, a, b),
                expected_output(id, LANES, STEPS, a, b)
            );
        }
    }

    #[test]
    fn the_peak_is_the_best_verified_row_of_either_chain() {
        let row = |chain: Chain, median: f64, verified: bool| {
            let peak =
                FmaPeak::new(Precision::F32, PeakForm::Vec4, PeakGrid::fixed(1)).with_chain(chain);
            let mut r = BenchResult::empty(&peak.info(), Status::Ok, None);
            r.summary = gpubench_results::stats::summarize(&[median, median]);
            r.verified = verified;
            r
        };
        let results = [
            row(Chain::Multiply, 100.0, true),
            row(Chain::Accumulate, 190.0, true),
        ];
        let peak = measured_peak(&results, Precision::F32).expect("a peak");
        assert_eq!(peak, (190.0, "compute/fma-peak/acc-vec4-f32".to_string()));
        let multiply = measured_peak_of_chain(&results, Precision::F32, Chain::Multiply);
        assert_eq!(
            multiply,
            Some((100.0, "compute/fma-peak/vec4-f32".to_string()))
        );
        // A faster row that did not verify is no peak.
        let unverified = [
            row(Chain::Multiply, 100.0, true),
            row(Chain::Accumulate, 400.0, false),
        ];
        let peak = measured_peak(&unverified, Precision::F32).expect("a peak");
        assert_eq!(peak.1, "compute/fma-peak/vec4-f32");
        // An accumulate row whose multiply row did not measure has nothing bounding it (a
        // folded chain passes its check): no peak.
        let mut failed = row(Chain::Multiply, 100.0, true);
        failed.status = Status::Failed;
        let unbounded = [failed, row(Chain::Accumulate, 1600.0, true)];
        assert_eq!(measured_peak(&unbounded, Precision::F32), None);
        assert_eq!(
            measured_peak_of_chain(&unbounded, Precision::F32, Chain::Accumulate),
            None
        );
    }

    #[test]
    fn closed_form_handles_a_general_multiplier() {
        let (a, b, x0) = (0.5f64, 0.25f64, chain_start(3, 0));
        let mut x = x0;
        for _ in 0..10 {
            x = x * a + b;
        }
        assert!((expected_output(3, 1, 10, a, b) - x).abs() < 1e-12);
    }
}
