//! The compute suite: peak fused multiply-add throughput in f32 and f16, scalar and vec4.
//!
//! Why this shape of kernel: a multiply-add unit has a latency of several cycles, so one chain
//! per invocation measures latency, not throughput. Every invocation therefore runs many
//! independent chains ([`PeakForm::lanes`] scalar lanes), enough to keep the pipelines of a GPU
//! or of a CPU's SIMD units (lavapipe) full, and nothing but arithmetic inside the loop.
//!
//! Why the answer is exact: the recurrence is `x = fma(x, a, b)` with `a = 1`, `b = 2^-10` read
//! from a uniform buffer, and start values that are multiples of 2^-10 near -1, so every
//! intermediate value is exactly representable in f32 and in f16. The CPU predicts each
//! invocation's output bit for bit; a step skipped, a loop folded or a wrong FMA cannot pass.
//! (The multiplier being one costs the hardware nothing less: the compiler cannot know it.)
//!
//! The roofline kernel has the same shape (a uniform block, an output that starts as NaN, an
//! exact CPU prediction), so both are built on [`FmaDispatch`].

use gpubench_harness::{
    BenchError, BenchResult, Benchmark, BenchmarkInfo, GpuContext, Kernel, KernelBench, MetricKind,
    Outcome, SampleClock, Status, Verification, Work,
};

use crate::derived::param_str;
use crate::gpu::{DispatchKernel, Precision, SpecialisedShader, f32_bytes, read_f32, specialise};
use crate::verify::{Checker, Tolerance};
use crate::{Benchmarks, BuildContext, Suite, shaders};

/// Steps per chain, passed to compute_peak.wgsl as its `STEPS` pipeline constant.
pub const STEPS: u32 = 1024;
/// The multiplier of every chain.
pub const A: f32 = 1.0;
/// The addend of every chain: 2^-10, so STEPS steps move a chain by exactly 1.
pub const B: f32 = 1.0 / 1024.0;
const WORKGROUP: u32 = 64;

/// Scalar chains or vec4 chains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeakForm {
    /// `T` chains.
    Scalar,
    /// `vec4<T>` chains.
    Vec4,
}

impl PeakForm {
    /// Both forms, in report order.
    pub const ALL: [PeakForm; 2] = [PeakForm::Scalar, PeakForm::Vec4];

    /// Name as used in ids.
    pub fn name(self) -> &'static str {
        match self {
            PeakForm::Scalar => "scalar",
            PeakForm::Vec4 => "vec4",
        }
    }

    /// Independent scalar lanes per invocation (must match the shader).
    pub fn lanes(self) -> u32 {
        match self {
            PeakForm::Scalar => 16,
            PeakForm::Vec4 => 16,
        }
    }

    fn entry(self) -> &'static str {
        match self {
            PeakForm::Scalar => "peak_scalar",
            PeakForm::Vec4 => "peak_vec4",
        }
    }
}

/// The start value of scalar chain `c` of invocation `id` (the shader's `start`).
pub fn chain_start(id: u32, c: u32) -> f64 {
    -1.5 + f64::from((id.wrapping_mul(7).wrapping_add(c.wrapping_mul(13))) & 511) / 1024.0
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
    _pad: [u32; 2],
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
    pub(crate) fn new(
        ctx: &GpuContext,
        label: &str,
        shader: &SpecialisedShader,
        params: &[u8],
        inputs: &[&[f32]],
        output_floats: usize,
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
        let init = vec![f32::NAN; output_floats];
        let output = ctx.buffer_with_data(
            &format!("{label} out"),
            f32_bytes(&init),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let mut bindings: Vec<(u32, &wgpu::Buffer)> = (0u32..).zip(&buffers).collect();
        bindings.push((bindings.len() as u32, &output));
        let dispatch = DispatchKernel::new(ctx, label, pipeline, &bindings, grid);
        Self {
            dispatch,
            output,
            _inputs: buffers,
        }
    }

    /// The timed region: `iterations` dispatches.
    pub(crate) fn submit(&self, ctx: &GpuContext, clock: &mut SampleClock<'_>, iterations: u32) {
        self.dispatch.submit(ctx, clock, iterations);
    }

    /// Reads the output back and compares it bit for bit with `want` (every value on the way is
    /// exactly representable: no tolerance at all); `what` names value `i` in the report.
    pub(crate) fn verify_exact(
        &self,
        ctx: &GpuContext,
        want: &[f64],
        what: impl Fn(usize) -> String,
    ) -> Result<Verification, BenchError> {
        let got = read_f32(ctx, &self.output)?;
        let mut checker = Checker::new();
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            checker.check(f64::from(g), w, w, Tolerance::EXACT, || what(i));
        }
        Ok(checker.finish())
    }
}

/// Peak FMA throughput of one precision and form.
pub struct FmaPeak {
    precision: Precision,
    form: PeakForm,
    workgroups: u32,
}

impl FmaPeak {
    /// `form` chains in `precision`, over `workgroups` workgroups of 64 invocations.
    pub fn new(precision: Precision, form: PeakForm, workgroups: u32) -> Self {
        Self {
            precision,
            form,
            workgroups: workgroups.max(1),
        }
    }

    fn invocations(&self) -> u32 {
        self.workgroups * WORKGROUP
    }

    fn id(&self) -> String {
        format!(
            "compute/fma-peak/{}-{}",
            self.form.name(),
            self.precision.name()
        )
    }

    /// The shader its pipeline compiles: the precision by alias rewriting, [`STEPS`] as the
    /// `STEPS` pipeline constant.
    pub fn shader(&self) -> Result<SpecialisedShader, BenchError> {
        let source = specialise(shaders::COMPUTE_PEAK, self.precision, &[], &[])
            .map_err(BenchError::Setup)?;
        Ok(SpecialisedShader {
            source,
            entry: self.form.entry().to_string(),
            constants: vec![("STEPS", f64::from(STEPS))],
        })
    }
}

impl Kernel for FmaPeak {
    type State = FmaDispatch;

    fn info(&self) -> BenchmarkInfo {
        BenchmarkInfo::new(
            self.id(),
            "compute",
            MetricKind::Throughput,
            "floating-point operations per second (an FMA counts as 2)",
        )
        .param("kernel", "fma-peak")
        .param("precision", self.precision.name())
        .param("form", self.form.name())
        .param("chains_lanes_per_invocation", self.form.lanes())
        .param("steps_per_chain", STEPS)
        .param("invocations", self.invocations())
    }

    fn required_features(&self) -> wgpu::Features {
        self.precision.features()
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        if self.workgroups > ctx.limits.max_compute_workgroups_per_dimension {
            return Err(format!(
                "{} workgroups exceed max_compute_workgroups_per_dimension",
                self.workgroups
            ));
        }
        Ok(())
    }

    fn setup(&self, ctx: &GpuContext) -> Outcome<FmaDispatch> {
        let params = Params {
            a: A,
            b: B,
            _pad: [0; 2],
        };
        Ok(FmaDispatch::new(
            ctx,
            &self.id(),
            &self.shader()?,
            bytemuck::bytes_of(&params),
            &[],
            self.invocations() as usize,
            (self.workgroups, 1),
        ))
    }

    fn work(&self, _state: &FmaDispatch) -> Work {
        let invocations = u64::from(self.invocations());
        let fmas = invocations * u64::from(self.form.lanes()) * u64::from(STEPS);
        Work::flops(2 * fmas).with_bytes(0, invocations * 4)
    }

    fn run(&self, state: &mut FmaDispatch, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        state.submit(ctx, clock, iterations);
        Ok(())
    }

    fn verify(&self, state: &mut FmaDispatch, ctx: &GpuContext) -> Outcome<Verification> {
        let (lanes, a, b) = (self.form.lanes(), f64::from(A), f64::from(B));
        let want: Vec<f64> = (0..self.invocations())
            .map(|id| expected_output(id, lanes, STEPS, a, b))
            .collect();
        state.verify_exact(ctx, &want, |id| format!("invocation {id}"))
    }
}

/// Workgroups of 64 per dispatch: enough to fill a large GPU (262k invocations), or a few per
/// core on a software adapter so one dispatch stays near 10 ms there.
pub fn peak_workgroups(ctx: &GpuContext) -> u32 {
    if ctx.is_software() { 64 } else { 4096 }
}

/// The compute suite: f32 and f16, scalar and vec4.
pub struct ComputeSuite;

impl Suite for ComputeSuite {
    fn name(&self) -> &'static str {
        gpubench_harness::suite_names::COMPUTE
    }

    fn benchmarks(&self, build: &mut BuildContext<'_>) -> Benchmarks {
        let ctx = build.ctx;
        let workgroups = peak_workgroups(ctx);
        let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
        for precision in [Precision::F32, Precision::F16] {
            for form in PeakForm::ALL {
                benches.push(KernelBench::boxed(FmaPeak::new(
                    precision, form, workgroups,
                )));
            }
        }
        Ok(benches)
    }
}

/// The measured peak of `precision`: the best median over the compute suite's ok results, when
/// the compute suite ran. Other suites express their throughput as a fraction of it.
pub fn measured_peak(results: &[BenchResult], precision: Precision) -> Option<(f64, String)> {
    results
        .iter()
        .filter(|r| r.suite == gpubench_harness::suite_names::COMPUTE && r.status == Status::Ok)
        .filter(|r| param_str(r, "kernel") == Some("fma-peak"))
        .filter(|r| param_str(r, "precision") == Some(precision.name()))
        .filter_map(|r| Some((r.median()?, r.id.clone())))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

#[cfg(test)]
mod tests {
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
    fn closed_form_handles_a_general_multiplier() {
        let (a, b, x0) = (0.5f64, 0.25f64, chain_start(3, 0));
        let mut x = x0;
        for _ in 0..10 {
            x = x * a + b;
        }
        assert!((expected_output(3, 1, 10, a, b) - x).abs() < 1e-12);
    }
}
