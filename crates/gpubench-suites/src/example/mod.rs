//! The example suite: the smallest whole suite, and the proof that a suite is one folder and
//! one registry line. It is compiled only with the `example-suite` feature, which the CLI's
//! tests turn on: they show that it reaches `--suite`, `run --help` (its option), the results
//! file, every export, the HTML report, `gpubench kernels` and the shader tests without an edit
//! anywhere else.
//!
//! Its kernel is `z = a * x + y` over f32 arrays (`example.wgsl`), verified exactly: the
//! inputs are the kit's exact inputs (multiples of 2^-8 in [0.5, 1.5)) and `a` is 0.5, so every
//! output is representable and the CPU predicts it bit for bit.

use gpubench_engine::options::parse_size_value;
use gpubench_engine::{Arity, Benchmarks, Included, OptionSpec, Suite, SuiteInfo, SuiteOptions};
use gpubench_harness::kit::gpu::{
    DispatchKernel, OUTPUT, StrideGrid, check_binding_fits, compute_pipeline, f32_bytes, read_f32,
    uniform_buffer,
};
use gpubench_harness::kit::inputs::exact_inputs;
use gpubench_harness::kit::verify::{Tolerance, compare_f32};
use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, KernelBench, MetricKind, Outcome, SampleClock, Verification,
    Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::{MIB, format_size};
use serde_json::Value;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "the example suite: z = a * x + y over f32 arrays";

/// example.wgsl: `z = a * x + y`.
pub const WGSL: &str = include_str!("example.wgsl");

/// The multiplier: a power of two, so every product of an exact input is exact.
const A: f32 = 0.5;
/// Invocations per workgroup, as `scale_add` declares.
const WORKGROUP: u32 = 64;
/// Bytes per array when the option is not given.
const DEFAULT_BYTES: u64 = 4 * MIB;

/// The example suite's option: bytes per array.
pub const EXAMPLE_SIZE: OptionSpec = OptionSpec {
    key: "example_size",
    flag: "example-size",
    value_name: "SIZE",
    help: "Bytes per array of the example suite, e.g. 1MiB (binary units).",
    arity: Arity::One,
    default: || Value::Null,
    parse: parse_size_value,
    choices: None,
    hidden: false,
};

/// The example suite.
pub struct ExampleSuite;

impl Suite for ExampleSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("example", ABOUT)
            .included(Included::WhenNamed)
            .options(&[EXAMPLE_SIZE])
            .shaders(&[("example.wgsl", WGSL)])
            .plain_pipelines(&[(WGSL, "scale_add")])
    }

    fn build(&self, _ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let bytes = array_bytes(options);
        Ok(vec![KernelBench::boxed(ScaleAdd {
            bytes,
            seed: options.seed,
        })])
    }

    /// Its row is a bar of its own chart, named by its kernel.
    fn chart_hint(
        &self,
        _result: &gpubench_harness::BenchResult,
    ) -> Option<gpubench_results::ChartHint> {
        use gpubench_results::ChartHint;
        Some(ChartHint::bars(
            "example",
            &["kernel"],
            &["array_bytes"],
            None,
        ))
    }
}

/// Bytes per array: the option, else [`DEFAULT_BYTES`]; whole f32s.
fn array_bytes(options: &SuiteOptions) -> u64 {
    let bytes = options
        .get::<u64>(EXAMPLE_SIZE.key)
        .unwrap_or(DEFAULT_BYTES);
    (bytes / 4).max(1) * 4
}

/// `z = a * x + y` over arrays of `bytes`.
pub struct ScaleAdd {
    bytes: u64,
    seed: u64,
}

/// The buffers, the dispatch and the inputs the CPU predicts from.
pub struct ScaleAddState {
    dispatch: DispatchKernel,
    z: wgpu::Buffer,
    x: Vec<f32>,
    y: Vec<f32>,
    // Held so the bind group's buffers outlive every dispatch.
    _inputs: [wgpu::Buffer; 3],
}

impl Kernel for ScaleAdd {
    type State = ScaleAddState;

    fn info(&self) -> BenchmarkInfo {
        BenchmarkInfo::new(
            format!("example/scale_add/f32/{}", format_size(self.bytes)),
            "example",
            MetricKind::Bandwidth,
            "bytes read plus bytes written per second",
        )
        .param("kernel", "scale_add")
        .param("array_bytes", self.bytes)
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        check_binding_fits(ctx, self.bytes, "example array")
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<ScaleAddState> {
        let grid = StrideGrid::new(ctx, self.bytes / 4, WORKGROUP, 1)?;
        // example.wgsl's uniform block: n, a, threads and padding.
        let params = grid.params(A, 0);
        let mut rng = SplitMix64::new(self.seed);
        let n = grid.items as usize;
        let (x, y) = (exact_inputs(&mut rng, n), exact_inputs(&mut rng, n));
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let uniform = uniform_buffer(ctx, "example params", &params);
        let xs = ctx.buffer_with_data("example x", f32_bytes(&x), storage);
        let ys = ctx.buffer_with_data("example y", f32_bytes(&y), storage);
        // The output starts as something no answer is: an element left unwritten cannot pass.
        let z = ctx.buffer_with_data("example z", &vec![0u8; self.bytes as usize], OUTPUT);
        let pipeline = compute_pipeline(ctx, "example scale_add", WGSL, "scale_add");
        let bindings = [(0, &uniform), (1, &xs), (2, &ys), (3, &z)];
        let grid = (grid.workgroups, 1);
        let dispatch = DispatchKernel::new(ctx, "scale_add", pipeline, &bindings, grid);
        Ok(ScaleAddState {
            dispatch,
            z,
            x,
            y,
            _inputs: [uniform, xs, ys],
        })
    }

    fn work(&self, _state: &ScaleAddState) -> Work {
        Work::bytes(2 * self.bytes, self.bytes)
    }

    async fn run(&self, state: &mut ScaleAddState, clock: &mut SampleClock<'_>) -> Outcome {
        state.dispatch.run(clock)
    }

    async fn verify(&self, state: &mut ScaleAddState, ctx: &GpuContext) -> Outcome<Verification> {
        let got = read_f32(ctx, &state.z).await?;
        let want: Vec<f64> = state
            .x
            .iter()
            .zip(&state.y)
            .map(|(&x, &y)| f64::from(A) * f64::from(x) + f64::from(y))
            .collect();
        Ok(compare_f32(&got, &want, Tolerance::EXACT))
    }
}
