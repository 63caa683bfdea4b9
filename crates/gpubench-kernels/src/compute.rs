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

use gpubench_harness::{
    BenchError, BenchResult, Benchmark, BenchmarkInfo, GpuContext, MetricKind, SampleClock, Status,
    Verification, Work,
};

use crate::gpu::{
    Precision, bind_buffers, bytes_to_f32, compute_pipeline, ready, specialise, submit_dispatches,
};
use crate::verify::{Checker, Tolerance};
use crate::{KernelError, Suite, SuiteOptions, Tuner, shaders};

/// Steps per chain; must equal `STEPS` in compute_peak.wgsl (the shader is specialised with it).
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

struct PeakState {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    output: wgpu::Buffer,
    _params: wgpu::Buffer,
}

/// Peak FMA throughput of one precision and form.
pub struct PeakBenchmark {
    info: BenchmarkInfo,
    precision: Precision,
    form: PeakForm,
    workgroups: u32,
    state: Option<PeakState>,
}

impl PeakBenchmark {
    /// `form` chains in `precision`, over `workgroups` workgroups of 64 invocations.
    pub fn new(precision: Precision, form: PeakForm, workgroups: u32) -> Self {
        let workgroups = workgroups.max(1);
        let info = BenchmarkInfo::new(
            format!("compute/fma-peak/{}-{}", form.name(), precision.name()),
            "compute",
            MetricKind::Throughput,
            "floating-point operations per second (an FMA counts as 2)",
        )
        .param("kernel", "fma-peak")
        .param("precision", precision.name())
        .param("form", form.name())
        .param("chains_lanes_per_invocation", form.lanes())
        .param("steps_per_chain", STEPS)
        .param("invocations", workgroups * WORKGROUP);
        Self {
            info,
            precision,
            form,
            workgroups,
            state: None,
        }
    }

    /// The benchmark's description, for suites that run the same kernel under another name
    /// and sampling policy (the sustained run).
    pub fn info_mut(&mut self) -> &mut BenchmarkInfo {
        &mut self.info
    }

    fn invocations(&self) -> u32 {
        self.workgroups * WORKGROUP
    }
}

impl Benchmark for PeakBenchmark {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
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

    fn setup(&mut self, ctx: &GpuContext) -> Result<(), BenchError> {
        let source = specialise(
            shaders::COMPUTE_PEAK,
            self.precision,
            &[],
            &[("STEPS", STEPS)],
        )
        .map_err(BenchError::Gpu)?;
        let pipeline = compute_pipeline(ctx, &self.info.id, &source, self.form.entry());
        let params = Params {
            a: A,
            b: B,
            _pad: [0; 2],
        };
        let params = ctx.buffer_with_data(
            "peak params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        // Start from a value the kernel never writes, so an invocation that did nothing shows.
        let init = vec![f32::NAN; self.invocations() as usize];
        let output = ctx.buffer_with_data(
            "peak out",
            bytemuck::cast_slice(&init),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let bind_group = bind_buffers(ctx, &pipeline, &[(0, &params), (1, &output)]);
        self.state = Some(PeakState {
            pipeline,
            bind_group,
            output,
            _params: params,
        });
        Ok(())
    }

    fn work(&self) -> Work {
        let fmas = u64::from(self.invocations()) * u64::from(self.form.lanes()) * u64::from(STEPS);
        Work {
            bytes_read: 0,
            bytes_written: u64::from(self.invocations()) * 4,
            flops: 2 * fmas,
            ops: 1,
        }
    }

    fn run(
        &mut self,
        ctx: &GpuContext,
        iterations: u32,
        clock: &mut SampleClock<'_>,
    ) -> Result<(), BenchError> {
        let state = ready(&self.state, "run")?;
        submit_dispatches(
            ctx,
            clock,
            "fma peak",
            &state.pipeline,
            &state.bind_group,
            (self.workgroups, 1),
            iterations,
        );
        Ok(())
    }

    fn verify(&mut self, ctx: &GpuContext) -> Result<Verification, BenchError> {
        let state = ready(&self.state, "verify")?;
        let got = bytes_to_f32(&ctx.read_buffer(&state.output, state.output.size())?);
        let mut checker = Checker::new();
        for (id, &g) in got.iter().enumerate() {
            let want = expected_output(
                id as u32,
                self.form.lanes(),
                STEPS,
                f64::from(A),
                f64::from(B),
            );
            // Every value on the way is exactly representable: no tolerance at all.
            checker.check(f64::from(g), want, want, Tolerance::EXACT, || {
                format!("invocation {id}")
            });
        }
        Ok(checker.finish())
    }

    fn teardown(&mut self) {
        self.state = None;
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
        "compute"
    }

    fn benchmarks(
        &self,
        ctx: &GpuContext,
        _options: &SuiteOptions,
        _tuner: &mut dyn Tuner,
    ) -> Result<Vec<Box<dyn Benchmark>>, KernelError> {
        let workgroups = peak_workgroups(ctx);
        let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
        for precision in [Precision::F32, Precision::F16] {
            for form in PeakForm::ALL {
                benches.push(Box::new(PeakBenchmark::new(precision, form, workgroups)));
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
        .filter(|r| r.suite == "compute" && r.status == Status::Ok)
        .filter(|r| r.params.get("kernel").and_then(|v| v.as_str()) == Some("fma-peak"))
        .filter(|r| r.params.get("precision").and_then(|v| v.as_str()) == Some(precision.name()))
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

    /// The f16 form exists only after specialisation, so the shaders/ naga test never sees it.
    #[test]
    fn f16_specialisation_validates() {
        let source = specialise(
            shaders::COMPUTE_PEAK,
            Precision::F16,
            &[],
            &[("STEPS", STEPS)],
        )
        .expect("ok");
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
        for form in PeakForm::ALL {
            assert!(module.entry_points.iter().any(|e| e.name == form.entry()));
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
