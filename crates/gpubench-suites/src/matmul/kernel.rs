//! One matmul kernel: a shape, a precision and a kernel variant.

use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification,
    Work,
};
use gpubench_results::rng::SplitMix64;
use half::f16;

use super::reference::{MatrixRef, elements_to_check, reference_element};
use super::variant::{Kind, Variant};
use crate::gpu::{DispatchKernel, Precision};
use crate::verify::{Checker, DotTolerance, Tolerance};

/// A matmul shape: C (M x N) = A (M x K) x B (K x N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
}

impl Shape {
    /// M x N x K.
    pub fn new(m: u32, n: u32, k: u32) -> Self {
        Self { m, n, k }
    }

    /// `MxNxK`, as in ids and on the command line.
    pub fn label(&self) -> String {
        format!("{}x{}x{}", self.m, self.n, self.k)
    }

    /// Floating-point operations of one product: 2 M N K.
    pub fn flops(&self) -> u64 {
        2 * u64::from(self.m) * u64::from(self.n) * u64::from(self.k)
    }

    /// Leading dimension of A (K rounded up to 4): also the number of rows of B.
    pub fn lda(&self) -> u32 {
        self.k.div_ceil(4) * 4
    }

    /// Leading dimension of B and C (N rounded up to 4).
    pub fn ldb(&self) -> u32 {
        self.n.div_ceil(4) * 4
    }

    fn a_len(&self) -> u64 {
        u64::from(self.m) * u64::from(self.lda())
    }

    fn b_len(&self) -> u64 {
        u64::from(self.lda()) * u64::from(self.ldb())
    }

    fn c_len(&self) -> u64 {
        u64::from(self.m) * u64::from(self.ldb())
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    m: u32,
    n: u32,
    k: u32,
    lda: u32,
    ldb: u32,
    ldc: u32,
    _pad: [u32; 2],
}

/// What set-up made: the dispatches, the output and the host copy of the inputs.
pub struct MatmulState {
    dispatches: Vec<DispatchKernel>,
    c: wgpu::Buffer,
    a_host: Vec<f32>,
    b_host: Vec<f32>,
    // Held so the bind group's buffers outlive every dispatch.
    _inputs: Vec<wgpu::Buffer>,
}

/// C = A x B for one shape, precision and variant.
pub struct Matmul {
    id: String,
    shape: Shape,
    precision: Precision,
    variant: Variant,
    seed: u64,
    extra_params: Vec<(String, serde_json::Value)>,
}

impl Matmul {
    /// A kernel with result id `id`; its parameters name the shape, precision and variant.
    pub fn new(
        id: String,
        shape: Shape,
        precision: Precision,
        variant: Variant,
        seed: u64,
    ) -> Self {
        Self {
            id,
            shape,
            precision,
            variant,
            seed,
            extra_params: Vec::new(),
        }
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

    /// The uniform, A and B (B padded with zero rows up to `lda`), and C filled with NaN so an
    /// element no invocation wrote cannot pass.
    fn buffers(&self, ctx: &GpuContext, a_host: &[f32], b_host: &[f32]) -> [wgpu::Buffer; 4] {
        let s = self.shape;
        let params = Params {
            m: s.m,
            n: s.n,
            k: s.k,
            lda: s.lda(),
            ldb: s.ldb(),
            ldc: s.ldb(),
            _pad: [0; 2],
        };
        // B has lda rows: the rows past K are the zero padding the vec4 kernels read.
        let mut b_padded = b_host.to_vec();
        b_padded.resize(s.b_len() as usize, 0.0);
        let c_init = vec![f32::NAN; s.c_len() as usize];
        let storage = wgpu::BufferUsages::STORAGE;
        let p = self.precision;
        [
            ctx.buffer_with_data(
                "matmul params",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::UNIFORM,
            ),
            ctx.buffer_with_data("matmul a", &to_bytes(a_host, p), storage),
            ctx.buffer_with_data("matmul b", &to_bytes(&b_padded, p), storage),
            ctx.buffer_with_data(
                "matmul c",
                &to_bytes(&c_init, p),
                storage | wgpu::BufferUsages::COPY_SRC,
            ),
        ]
    }
}

/// `len` zero-mean random values in [-1, 1), rounded to `precision` (held as f32, exactly),
/// with the padding columns (index within a row >= `used`) zero.
fn random_matrix(
    rng: &mut SplitMix64,
    rows: u32,
    ld: u32,
    cols: u32,
    precision: Precision,
) -> Vec<f32> {
    let mut out = vec![0.0f32; rows as usize * ld as usize];
    for r in 0..rows as usize {
        for c in 0..cols as usize {
            let v = rng.next_unit_f32() * 2.0 - 1.0;
            out[r * ld as usize + c] = match precision {
                Precision::F32 => v,
                Precision::F16 => f16::from_f32(v).to_f32(),
            };
        }
    }
    out
}

fn to_bytes(values: &[f32], precision: Precision) -> Vec<u8> {
    match precision {
        Precision::F32 => bytemuck::cast_slice(values).to_vec(),
        Precision::F16 => {
            let halves: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
            bytemuck::cast_slice(&halves).to_vec()
        }
    }
}

fn from_bytes(bytes: &[u8], precision: Precision) -> Vec<f64> {
    match precision {
        Precision::F32 => bytes
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        Precision::F16 => bytes
            .chunks_exact(2)
            .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
    }
}

impl Kernel for Matmul {
    type State = MatmulState;

    fn info(&self) -> BenchmarkInfo {
        let (shape, precision, variant) = (self.shape, self.precision, self.variant);
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
        self.precision.features() | self.variant.features()
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        let s = self.shape;
        if let Some(reason) = self.variant.unsupported(ctx, self.precision, s.m, s.n) {
            return Err(reason);
        }
        let largest = s.a_len().max(s.b_len()).max(s.c_len()) * self.precision.bytes();
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

    fn setup(&self, ctx: &GpuContext) -> Outcome<MatmulState> {
        let s = self.shape;
        let mut rng = SplitMix64::new(self.seed);
        let a_host = random_matrix(&mut rng, s.m, s.lda(), s.k, self.precision);
        let b_host = random_matrix(&mut rng, s.k, s.ldb(), s.n, self.precision);
        let shaders = self
            .variant
            .shaders(self.precision, s.m)
            .map_err(BenchError::Setup)?;
        let [params, a, b, c] = self.buffers(ctx, &a_host, &b_host);
        let grids = self.variant.grids(s.m, s.n);
        let mut dispatches = Vec::new();
        let mut inputs = vec![params, a, b];
        if let [main, reduce] = shaders.as_slice() {
            // Split-K: the product writes partial sums, in the accumulation precision, that the
            // reduction adds into C.
            let splits = match self.variant.kind {
                Kind::Gemv(p) => p.ks,
                _ => 1,
            };
            let acc = self.variant.accumulation(self.precision);
            let bytes = u64::from(splits) * s.c_len() * acc.bytes();
            let part = ctx.try_buffer("matmul partial sums", bytes, wgpu::BufferUsages::STORAGE)?;
            let [params, a, b] = [&inputs[0], &inputs[1], &inputs[2]];
            let pipeline = main.pipeline(ctx, &self.id);
            let bindings = [(0, params), (1, a), (2, b), (3, &part)];
            dispatches.push(DispatchKernel::new(
                ctx, "matmul", pipeline, &bindings, grids[0],
            ));
            let pipeline = reduce.pipeline(ctx, &self.id);
            let bindings = [(0, params), (1, &part), (3, &c)];
            dispatches.push(DispatchKernel::new(
                ctx,
                "matmul reduce",
                pipeline,
                &bindings,
                grids[1],
            ));
            inputs.push(part);
        } else {
            let [params, a, b] = [&inputs[0], &inputs[1], &inputs[2]];
            let bindings = [(0, params), (1, a), (2, b), (3, &c)];
            for (shader, grid) in shaders.iter().zip(&grids) {
                let pipeline = shader.pipeline(ctx, &self.id);
                dispatches.push(DispatchKernel::new(
                    ctx, "matmul", pipeline, &bindings, *grid,
                ));
            }
        }
        Ok(MatmulState {
            dispatches,
            c,
            a_host,
            b_host,
            _inputs: inputs,
        })
    }

    fn work(&self, _state: &MatmulState) -> Work {
        let s = self.shape;
        let bytes = self.precision.bytes();
        let (m, n, k) = (u64::from(s.m), u64::from(s.n), u64::from(s.k));
        Work::flops(s.flops()).with_bytes((m * k + k * n) * bytes, m * n * bytes)
    }

    fn run(&self, state: &mut MatmulState, clock: &mut SampleClock<'_>) -> Outcome {
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

    fn verify(&self, state: &mut MatmulState, ctx: &GpuContext) -> Outcome<Verification> {
        let s = self.shape;
        let bytes = ctx.read_buffer(&state.c, state.c.size())?;
        let got = from_bytes(&bytes, self.precision);
        let tolerance = DotTolerance {
            k: u64::from(s.k),
            accumulate: self.variant.accumulation(self.precision),
            output: self.precision,
        };
        Ok(check_product(
            &got,
            &state.a_host,
            &state.b_host,
            s,
            tolerance,
            self.seed,
        ))
    }
}

/// Compares the GPU's C (row stride `ldb`) with the f64 reference on the elements
/// [`elements_to_check`] picks.
pub fn check_product(
    got: &[f64],
    a: &[f32],
    b: &[f32],
    s: Shape,
    tol: DotTolerance,
    seed: u64,
) -> Verification {
    let a = MatrixRef {
        data: a,
        rows: s.m as usize,
        cols: s.k as usize,
        ld: s.lda() as usize,
    };
    let b = MatrixRef {
        data: b,
        rows: s.k as usize,
        cols: s.n as usize,
        ld: s.ldb() as usize,
    };
    let picks = elements_to_check(s.m as usize, s.n as usize, seed);
    let wants: Vec<(f64, f64)> = picks
        .iter()
        .map(|&(i, j)| reference_element(a, b, i, j))
        .collect();
    let rms = (wants.iter().map(|(w, _)| w * w).sum::<f64>() / wants.len().max(1) as f64).sqrt();
    let ldc = s.ldb() as usize;
    let mut checker = Checker::new();
    if got.len() < s.m as usize * ldc {
        checker.fail(format!(
            "C has {} elements, expected {}",
            got.len(),
            s.m as usize * ldc
        ));
        return checker.finish();
    }
    for (&(i, j), &(want, sum_abs)) in picks.iter().zip(&wants) {
        let bound = tol.bound(want, sum_abs, rms);
        let exact = Tolerance {
            abs: bound,
            rel: 0.0,
        };
        checker.check(got[i * ldc + j], want, want, exact, || {
            format!("C[{i}][{j}] (bound {bound:.3e})")
        });
    }
    checker.finish()
}
