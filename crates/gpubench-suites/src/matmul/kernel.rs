//! One matmul kernel: a shape, a precision and a kernel variant.

use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification,
    Work,
};
use std::sync::Arc;

use super::inputs::{DeviceInputs, ProductInputs, Reference, element};
use super::shape::Shape;
use super::variant::{Kind, Variant};
use gpubench_harness::kit::gpu::{DispatchKernel, Precision};
use gpubench_harness::kit::verify::{Checker, DotTolerance, Tolerance};

/// What set-up made: the dispatches and the output (the inputs are the product's, shared).
pub struct MatmulState {
    dispatches: Vec<DispatchKernel>,
    c: wgpu::Buffer,
    // Held so the bind groups' buffers outlive every dispatch.
    _inputs: DeviceInputs,
    _partial_sums: Option<wgpu::Buffer>,
}

/// C = A x B for one shape, precision and variant.
pub struct Matmul {
    id: String,
    inputs: Arc<ProductInputs>,
    variant: Variant,
    extra_params: Vec<(String, serde_json::Value)>,
    turned_off: Option<String>,
}

impl Matmul {
    /// A kernel with result id `id` and inputs of its own; its parameters name the shape,
    /// precision and variant.
    pub fn new(
        id: String,
        shape: Shape,
        precision: Precision,
        variant: Variant,
        seed: u64,
    ) -> Self {
        Self::sharing(id, variant, ProductInputs::new(shape, precision, seed))
    }

    /// A kernel of `variant` over `inputs`, which other kernels of the same product share (the
    /// tuner's candidates and the chosen one).
    pub fn sharing(id: String, variant: Variant, inputs: Arc<ProductInputs>) -> Self {
        Self {
            id,
            inputs,
            variant,
            extra_params: Vec::new(),
            turned_off: None,
        }
    }

    /// Never runs: the runner reports it skipped with `reason` (an option, or the suite's own
    /// rule for the shape, turned it off).
    pub fn turned_off(mut self, reason: impl Into<String>) -> Self {
        self.turned_off = Some(reason.into());
        self
    }

    /// Adds a parameter (e.g. the tuning table) to the result.
    pub fn with_param(mut self, key: &str, value: serde_json::Value) -> Self {
        self.extra_params.push((key.to_string(), value));
        self
    }

    /// The variant this kernel runs.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    fn shape(&self) -> Shape {
        self.inputs.shape()
    }

    fn precision(&self) -> Precision {
        self.inputs.precision()
    }
}

impl Kernel for Matmul {
    type State = MatmulState;

    fn info(&self) -> BenchmarkInfo {
        let (shape, precision, variant) = (self.shape(), self.precision(), self.variant);
        let mut info = BenchmarkInfo::new(
            self.id.clone(),
            "matmul",
            MetricKind::Throughput,
            "floating-point operations per second (2 M N K per product)",
        )
        .param("m", shape.m)
        .param("n", shape.n)
        .param("k", shape.k)
        .param("shape", shape.label())
        .param("precision", precision.name())
        .param("inputs_outputs", precision.name())
        .param("accumulation", variant.accumulation(precision).name())
        .param("variant", variant.name)
        .param("variant_description", variant.describe())
        .param(
            "layout",
            "row-major; rows padded to a multiple of 4 elements",
        );
        for (key, value) in &self.extra_params {
            info.params.insert(key.clone(), value.clone());
        }
        info
    }

    fn required_features(&self) -> wgpu::Features {
        if self.turned_off.is_some() {
            // Reported as turned off, not as whatever the adapter lacks.
            return wgpu::Features::empty();
        }
        self.precision().features() | self.variant.features()
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        if let Some(reason) = &self.turned_off {
            return Err(reason.clone());
        }
        let (s, precision) = (self.shape(), self.precision());
        if let Some(reason) = self.variant.unsupported(ctx, precision, s.m, s.n) {
            return Err(reason);
        }
        let largest = s.a_len().max(s.b_len()).max(s.c_len()) * precision.bytes();
        let limit = ctx
            .limits
            .max_storage_buffer_binding_size
            .min(ctx.limits.max_buffer_size);
        if largest > limit {
            return Err(format!(
                "a {largest}-byte matrix exceeds the adapter's storage binding limit of {limit} bytes"
            ));
        }
        Ok(())
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<MatmulState> {
        let (s, precision) = (self.shape(), self.precision());
        let shaders = self
            .variant
            .shaders(precision, s.m)
            .map_err(BenchError::Setup)?;
        let inputs = self.inputs.device(ctx)?;
        // C starts as NaN, so an element no invocation wrote cannot pass.
        let c = ctx.buffer_with_data(
            "matmul c",
            self.inputs.nan_output(),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let grids = self.variant.grids(s.m, s.n);
        let mut dispatches = Vec::new();
        let mut partial_sums = None;
        let (params, a, b) = (&inputs.params, &inputs.a, &inputs.b);
        if let [main, reduce] = shaders.as_slice() {
            // Split-K: the product writes partial sums, in the accumulation precision, that the
            // reduction adds into C.
            let splits = match self.variant.kind {
                Kind::Gemv(p) => p.ks,
                _ => 1,
            };
            let acc = self.variant.accumulation(precision);
            let bytes = u64::from(splits) * s.c_len() * acc.bytes();
            let part = ctx
                .try_buffer("matmul partial sums", bytes, wgpu::BufferUsages::STORAGE)
                .await?;
            let pipeline = self.inputs.pipeline(ctx, main, &self.id);
            let bindings = [(0, params), (1, a), (2, b), (3, &part)];
            dispatches.push(DispatchKernel::new(
                ctx, "matmul", pipeline, &bindings, grids[0],
            ));
            let pipeline = self.inputs.pipeline(ctx, reduce, &self.id);
            let bindings = [(0, params), (1, &part), (3, &c)];
            dispatches.push(DispatchKernel::new(
                ctx,
                "matmul reduce",
                pipeline,
                &bindings,
                grids[1],
            ));
            partial_sums = Some(part);
        } else {
            let bindings = [(0, params), (1, a), (2, b), (3, &c)];
            for (shader, grid) in shaders.iter().zip(&grids) {
                let pipeline = self.inputs.pipeline(ctx, shader, &self.id);
                dispatches.push(DispatchKernel::new(
                    ctx, "matmul", pipeline, &bindings, *grid,
                ));
            }
        }
        Ok(MatmulState {
            dispatches,
            c,
            _inputs: inputs,
            _partial_sums: partial_sums,
        })
    }

    fn work(&self, _state: &MatmulState) -> Work {
        let s = self.shape();
        let bytes = self.precision().bytes();
        let (m, n, k) = (u64::from(s.m), u64::from(s.n), u64::from(s.k));
        Work::flops(s.flops()).with_bytes((m * k + k * n) * bytes, m * n * bytes)
    }

    async fn run(&self, state: &mut MatmulState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        if let [one] = state.dispatches.as_slice() {
            one.submit(ctx, clock, iterations);
            return Ok(());
        }
        // Several dispatches per product (split-K): every iteration runs them all, in order,
        // in one timed compute pass (wgpu orders a dispatch after the writes it reads).
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("matmul"),
                timestamp_writes: clock.pass_timestamps(true, true),
            });
            for _ in 0..iterations {
                for dispatch in &state.dispatches {
                    dispatch.encode(&mut pass, 1);
                }
            }
        }
        clock.submit([encoder.finish()]);
        Ok(())
    }

    async fn verify(&self, state: &mut MatmulState, ctx: &GpuContext) -> Outcome<Verification> {
        let (s, precision) = (self.shape(), self.precision());
        let bytes = ctx.read_buffer(&state.c, state.c.size()).await?;
        let tolerance = DotTolerance {
            k: u64::from(s.k),
            accumulate: self.variant.accumulation(precision),
            output: precision,
        };
        Ok(check_against(
            &bytes,
            precision,
            self.inputs.reference(),
            s,
            tolerance,
        ))
    }
}

/// Compares the GPU's C (row stride `ldb`, as `precision` bytes) with `reference`.
fn check_against(
    c: &[u8],
    precision: Precision,
    reference: &Reference,
    s: Shape,
    tol: DotTolerance,
) -> Verification {
    let ldc = s.ldb() as usize;
    let mut checker = Checker::new();
    let expected = s.m as usize * ldc;
    let held = c.len() / precision.bytes() as usize;
    if held < expected {
        checker.fail(format!("C has {held} elements, expected {expected}"));
        return checker.finish();
    }
    for (&(i, j), &(want, sum_abs)) in reference.picks.iter().zip(&reference.wants) {
        let bound = tol.bound(want, sum_abs, reference.rms);
        let exact = Tolerance {
            abs: bound,
            rel: 0.0,
        };
        let got = element(c, i * ldc + j, precision).unwrap_or(f64::NAN);
        checker.check(got, want, want, exact, || {
            format!("C[{i}][{j}] (bound {bound:.3e})")
        });
    }
    checker.finish()
}
