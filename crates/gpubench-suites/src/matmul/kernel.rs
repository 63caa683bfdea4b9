//! One matmul kernel: a shape, a precision and a kernel variant.

use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification,
    Work,
};
use std::sync::Arc;

use super::inputs::{DeviceInputs, ProductInputs, Reference};
use super::readback::ReadPlan;
use super::shape::Shape;
use super::variant::{Kind, Variant};
use gpubench_harness::kit::gpu::{DispatchKernel, Precision, fill_from_block};
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
    failed_while_tuning: Option<String>,
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
            failed_while_tuning: None,
        }
    }

    /// Never runs: the runner reports it skipped with `reason` (an option, or the suite's own
    /// rule for the shape, turned it off).
    pub fn turned_off(mut self, reason: impl Into<String>) -> Self {
        self.turned_off = Some(reason.into());
        self
    }

    /// Fails at set-up with the failure `reason` its run as a tuning candidate gave: a kernel
    /// that once returned a wrong C (or failed otherwise) is a failure, whatever a second run
    /// would give (an intermittent race can pass it).
    pub fn failed_while_tuning(mut self, reason: impl Into<String>) -> Self {
        self.failed_while_tuning = Some(reason.into());
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
        if let Some(reason) = &self.failed_while_tuning {
            return Err(BenchError::Setup(format!(
                "failed as a tuning candidate, not run again: {reason}"
            )));
        }
        let (s, precision) = (self.shape(), self.precision());
        let shaders = self
            .variant
            .shaders(precision, s.m)
            .map_err(BenchError::Setup)?;
        let inputs = self.inputs.device(ctx)?;
        let c = self.nan_c(ctx, &inputs).await?;
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
        let tolerance = DotTolerance {
            k: u64::from(s.k),
            accumulate: self.variant.accumulation(precision),
            output: precision,
        };
        let (plan, reference) = (self.inputs.read_plan(), self.inputs.reference());
        // Only the words holding the checked elements come back (all of C where every element
        // is checked): see the readback module for what reading all of C cost per candidate.
        ctx.read_spans_with(&state.c, plan.spans(), |read| {
            check_against(read, plan, reference, tolerance)
        })
        .await
    }
}

impl Matmul {
    /// A new C for one candidate, every element NaN (a value no kernel writes, so an element
    /// no invocation wrote cannot pass). It is filled on the GPU from the product's small NaN
    /// block: uploading a NaN array of C's size cost every candidate 64 MiB of host writes at
    /// 4096 x 4096 f32. Each set-up makes its own C, so the check after the first run sees
    /// only what this candidate wrote.
    async fn nan_c(&self, ctx: &GpuContext, inputs: &DeviceInputs) -> Outcome<wgpu::Buffer> {
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let bytes = self.shape().c_len() * self.precision().bytes();
        let c = ctx.try_buffer("matmul c", bytes, usage).await?;
        fill_from_block(ctx, &inputs.nan_block, &c);
        Ok(c)
    }
}

/// Compares the checked elements of the GPU's C, as `plan` read them back into `read`, with
/// `reference`.
fn check_against(
    read: &[u8],
    plan: &ReadPlan,
    reference: &Reference,
    tol: DotTolerance,
) -> Verification {
    let mut checker = Checker::new();
    let (held, expected) = (read.len() as u64, plan.bytes());
    if held < expected {
        checker.fail(format!("read back {held} bytes of C, expected {expected}"));
        return checker.finish();
    }
    let pairs = reference.picks.iter().zip(&reference.wants);
    for (index, (&(i, j), &(want, sum_abs))) in pairs.enumerate() {
        let bound = tol.bound(want, sum_abs, reference.rms);
        let exact = Tolerance {
            abs: bound,
            rel: 0.0,
        };
        let got = plan.element(read, index).unwrap_or(f64::NAN);
        checker.check(got, want, want, exact, || {
            format!("C[{i}][{j}] (bound {bound:.3e})")
        });
    }
    checker.finish()
}

#[cfg(test)]
mod on_an_adapter {
    //! On the Vulkan adapter (lavapipe in CI): the check reads back only the picked words of a
    //! sampled C and still catches a wrong or never-written element there, by name; the words
    //! it reads hold what a full read-back holds.
    use super::*;
    use crate::matmul::find_variant;
    use crate::matmul::readback::element;
    use gpubench_harness::testing::require_vulkan;
    use pollster::FutureExt as _;

    /// 260 x 256 = 66,560 elements: just over the whole-check limit, so the check samples.
    const SAMPLED: Shape = Shape {
        m: 260,
        n: 256,
        k: 8,
    };

    fn matmul(shape: Shape, precision: Precision, variant: &str) -> Matmul {
        let variant = find_variant(variant).expect("variant exists");
        let id = format!("test/{}/{}", precision.name(), shape.label());
        Matmul::new(id, shape, precision, variant, 5)
    }

    /// Runs every dispatch of `state` once and waits for it.
    fn run_once(ctx: &GpuContext, state: &MatmulState) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for dispatch in &state.dispatches {
                dispatch.encode(&mut pass, 1);
            }
        }
        ctx.queue.submit([encoder.finish()]);
    }

    fn verify(kernel: &Matmul, state: &mut MatmulState, ctx: &GpuContext) -> Verification {
        kernel.verify(state, ctx).block_on().expect("read back")
    }

    #[test]
    fn a_wrong_or_unwritten_element_at_a_pick_fails_and_is_named() {
        let Some(ctx) = require_vulkan() else {
            return;
        };
        let kernel = matmul(SAMPLED, Precision::F32, "reg8x8");
        let picks = &kernel.inputs.reference().picks;
        assert!(picks.len() < 2000, "sampled: {} picks", picks.len());
        let mut state = kernel.setup(&ctx).block_on().expect("set-up");
        run_once(&ctx, &state);
        assert!(verify(&kernel, &mut state, &ctx).passed());
        let (i, j) = picks[picks.len() / 2];
        let offset = (i * SAMPLED.ldb() as usize + j) as u64 * 4;
        for (bad, shown) in [(1.0e3f32, "got 1000"), (f32::NAN, "got NaN")] {
            ctx.queue.write_buffer(&state.c, offset, &bad.to_le_bytes());
            let verdict = verify(&kernel, &mut state, &ctx);
            assert_eq!(verdict.mismatches, 1, "{}", verdict.failure_reason());
            assert_eq!(verdict.checked, picks.len() as u64);
            let first = &verdict.first_mismatches[0];
            assert!(
                first.starts_with(&format!("C[{i}][{j}] (bound ")),
                "{first}"
            );
            assert!(first.contains(shown), "{first}");
        }
    }

    #[test]
    fn a_c_no_kernel_wrote_is_nan_everywhere_and_fails_at_every_pick() {
        let Some(ctx) = require_vulkan() else {
            return;
        };
        // 4.4 MiB of f32: more than one NaN block, the last copy cut short.
        let mut cases = vec![(Shape::new(1100, 1024, 4), Precision::F32)];
        if ctx.features.contains(wgpu::Features::SHADER_F16) {
            cases.push((SAMPLED, Precision::F16));
        }
        for (shape, precision) in cases {
            let kernel = matmul(shape, precision, "tiled16");
            let mut state = kernel.setup(&ctx).block_on().expect("set-up");
            let c = ctx.read_buffer(&state.c, state.c.size()).block_on();
            let c = c.expect("read back");
            let len = shape.c_len() as usize;
            assert!((0..len).all(|e| element(&c, e, precision).is_some_and(f64::is_nan)));
            let verdict = verify(&kernel, &mut state, &ctx);
            assert_eq!(verdict.mismatches, verdict.checked, "{}", shape.label());
            let (i, j) = kernel.inputs.reference().picks[0];
            let first = &verdict.first_mismatches[0];
            assert!(
                first.starts_with(&format!("C[{i}][{j}] (bound ")),
                "{first}"
            );
            assert!(first.contains("got NaN"), "{first}");
        }
    }

    #[test]
    fn the_picked_words_hold_what_a_full_read_back_holds() {
        let Some(ctx) = require_vulkan() else {
            return;
        };
        let shape = Shape::new(61, 67, 45);
        let mut precisions = vec![Precision::F32];
        if ctx.features.contains(wgpu::Features::SHADER_F16) {
            precisions.push(Precision::F16);
        }
        for precision in precisions {
            let kernel = matmul(shape, precision, "tiled16");
            let mut state = kernel.setup(&ctx).block_on().expect("set-up");
            run_once(&ctx, &state);
            assert!(verify(&kernel, &mut state, &ctx).passed());
            let full = ctx.read_buffer(&state.c, state.c.size()).block_on();
            let full = full.expect("read back");
            // Every element is checked at this size (one copy of all of C); a sample of them,
            // odd columns included and too far apart to merge, is read as one word each.
            let every = kernel.inputs.reference().picks.clone();
            assert_eq!(kernel.inputs.read_plan().spans().len(), 1);
            let some: Vec<_> = every.iter().copied().step_by(211).collect();
            for (picks, copies) in [(every, 1), (some.clone(), some.len())] {
                let plan = ReadPlan::new(&picks, shape.ldb() as usize, precision);
                assert_eq!(plan.spans().len(), copies);
                let read = ctx.read_spans_with(&state.c, plan.spans(), <[u8]>::to_vec);
                let read = read.block_on().expect("read back");
                for (index, &(i, j)) in picks.iter().enumerate() {
                    let want = element(&full, i * shape.ldb() as usize + j, precision);
                    assert!(want.is_some_and(f64::is_finite), "C[{i}][{j}] written");
                    assert_eq!(plan.element(&read, index), want, "C[{i}][{j}]");
                }
            }
        }
    }
}
