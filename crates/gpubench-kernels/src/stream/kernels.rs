//! The six bandwidth kernels of stream.wgsl, declared in one table ([`KERNELS`]) as BabelStream
//! declares its kernels' weights: what each reads and writes decides its bandwidth figure, the
//! same way for every kernel.

use gpubench_harness::rng::SplitMix64;
use gpubench_harness::units::format_size;
use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification,
    Work,
};

use crate::gpu::{
    DispatchKernel, check_binding_fits, compute_pipeline, f32_bytes, grid_workgroups, read_f32,
};
use crate::shaders;
use crate::verify::{Checker, Tolerance, compare_f32};

/// Bytes in one `vec4<f32>`.
pub const VEC4_BYTES: u64 = 16;
/// The scalar of scale and triad, as in BabelStream.
pub const SCALAR: f32 = 0.4;
const WORKGROUP: u32 = 256;

/// The six bandwidth kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKernel {
    /// c = a
    Copy,
    /// c = s * a
    Scale,
    /// c = a + b
    Add,
    /// c = a + s * b
    Triad,
    /// partial sums of a
    Read,
    /// c = f(i)
    Fill,
}

/// What a kernel writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// One full array, element for element.
    Array,
    /// One `vec4` partial sum per invocation (the read-only reduction).
    Partials,
}

/// One row of the kernel table.
#[derive(Debug, Clone, Copy)]
pub struct StreamSpec {
    /// Which kernel.
    pub kernel: StreamKernel,
    /// Name, as used in result ids.
    pub name: &'static str,
    /// The WGSL entry point in stream.wgsl.
    pub entry: &'static str,
    /// Input arrays read, each once per iteration.
    pub inputs: u64,
    /// What is written per iteration.
    pub output: Output,
    /// Elements each invocation handles (the grid is sized from it).
    pub per_invocation: u64,
    /// What the figure counts, in words.
    pub counts: &'static str,
}

/// Every stream kernel, in report order.
pub const KERNELS: [StreamSpec; 6] = [
    StreamSpec {
        kernel: StreamKernel::Copy,
        name: "copy",
        entry: "copy",
        inputs: 1,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes read + written per second (2 arrays)",
    },
    StreamSpec {
        kernel: StreamKernel::Scale,
        name: "scale",
        entry: "scale",
        inputs: 1,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes read + written per second (2 arrays)",
    },
    StreamSpec {
        kernel: StreamKernel::Add,
        name: "add",
        entry: "add",
        inputs: 2,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes read + written per second (3 arrays)",
    },
    StreamSpec {
        kernel: StreamKernel::Triad,
        name: "triad",
        entry: "triad",
        inputs: 2,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes read + written per second (3 arrays)",
    },
    StreamSpec {
        kernel: StreamKernel::Read,
        name: "read",
        // `read` is a WGSL access mode and cannot name a function.
        entry: "read_sum",
        inputs: 1,
        output: Output::Partials,
        // Few elements per invocation means many invocations: on lavapipe, 64 per invocation
        // read at 2.5 GB/s and 8 at 9.9 GB/s (64 MiB arrays), while the partials written stay
        // at 1/8 of the bytes read (and are counted).
        per_invocation: 8,
        counts: "bytes read per second (1 array) + partial sums written",
    },
    StreamSpec {
        kernel: StreamKernel::Fill,
        name: "fill",
        entry: "fill",
        inputs: 0,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes written per second (1 array)",
    },
];

impl StreamKernel {
    /// All kernels in report order.
    pub const ALL: [StreamKernel; 6] = [
        StreamKernel::Copy,
        StreamKernel::Scale,
        StreamKernel::Add,
        StreamKernel::Triad,
        StreamKernel::Read,
        StreamKernel::Fill,
    ];

    /// The kernel's row in [`KERNELS`].
    pub fn spec(self) -> &'static StreamSpec {
        &KERNELS[self as usize]
    }

    /// Name, as used in result ids.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The WGSL entry point in stream.wgsl.
    pub fn entry(self) -> &'static str {
        self.spec().entry
    }

    /// The expected output element `i`, component `k`, from the inputs (array kernels only).
    fn reference(self, i: usize, k: usize, a: &[f32], b: &[f32]) -> f64 {
        let x = 4 * i + k;
        let s = f64::from(SCALAR);
        match self {
            StreamKernel::Copy => f64::from(a[x]),
            StreamKernel::Scale => s * f64::from(a[x]),
            StreamKernel::Add => f64::from(a[x]) + f64::from(b[x]),
            StreamKernel::Triad => f64::from(a[x]) + s * f64::from(b[x]),
            StreamKernel::Fill => (f64::from((i & 0xffff) as u32) + k as f64) * s,
            StreamKernel::Read => unreachable!("read is verified by partial sums"),
        }
    }

    /// Tolerance of an array kernel: copy is bit-exact, the others allow one or two roundings.
    fn tolerance(self) -> Tolerance {
        match self {
            StreamKernel::Copy => Tolerance::EXACT,
            _ => Tolerance::f32_elementwise(),
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    scalar: f32,
    threads: u32,
    _pad: u32,
}

/// What set-up made: the dispatch, its output and the host copy of the inputs.
pub struct StreamState {
    dispatch: DispatchKernel,
    output: wgpu::Buffer,
    threads: u64,
    a: Vec<f32>,
    b: Vec<f32>,
    // Held so the bind group's buffers outlive every dispatch.
    _inputs: Vec<wgpu::Buffer>,
}

/// One bandwidth kernel over arrays of `bytes` each.
pub struct Stream {
    spec: &'static StreamSpec,
    bytes: u64,
    seed: u64,
    shader: &'static str,
    entry: &'static str,
    suite: &'static str,
}

impl Stream {
    /// `kernel` over arrays of `bytes` (a multiple of 16), inputs from `seed`.
    pub fn new(kernel: StreamKernel, bytes: u64, seed: u64) -> Self {
        Self::with_shader(
            kernel,
            bytes,
            seed,
            shaders::STREAM,
            kernel.entry(),
            "stream",
        )
    }

    /// The same kernel from another shader entry point that must produce the same output (the
    /// self-test suite's deliberately broken copy).
    pub fn with_shader(
        kernel: StreamKernel,
        bytes: u64,
        seed: u64,
        shader: &'static str,
        entry: &'static str,
        suite: &'static str,
    ) -> Self {
        Self {
            spec: kernel.spec(),
            bytes,
            seed,
            shader,
            entry,
            suite,
        }
    }

    fn elements(&self) -> u64 {
        self.bytes / VEC4_BYTES
    }

    /// The name in ids: the kernel's, or the entry point's when it runs another shader.
    fn name(&self) -> &'static str {
        if self.entry == self.spec.entry {
            self.spec.name
        } else {
            self.entry
        }
    }

    /// Buffers in binding order: params, then the inputs the kernel reads.
    fn input_buffers(
        &self,
        ctx: &GpuContext,
        params: &Params,
        a: &[f32],
        b: &[f32],
    ) -> Vec<wgpu::Buffer> {
        let storage = wgpu::BufferUsages::STORAGE;
        let mut inputs = vec![ctx.buffer_with_data(
            "stream params",
            bytemuck::bytes_of(params),
            wgpu::BufferUsages::UNIFORM,
        )];
        for (label, data) in [("stream a", a), ("stream b", b)] {
            if !data.is_empty() {
                inputs.push(ctx.buffer_with_data(label, f32_bytes(data), storage));
            }
        }
        inputs
    }
}

impl Kernel for Stream {
    type State = StreamState;

    fn info(&self) -> BenchmarkInfo {
        let id = format!(
            "{}/{}/vec4-f32/{}",
            self.suite,
            self.name(),
            format_size(self.bytes)
        );
        BenchmarkInfo::new(id, self.suite, MetricKind::Bandwidth, self.spec.counts)
            .param("kernel", self.name())
            .param("element", "vec4<f32>")
            .param("array_bytes", self.bytes)
            .param("array_size", format_size(self.bytes))
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        check_binding_fits(ctx, self.bytes, "--stream-size")
    }

    fn setup(&self, ctx: &GpuContext) -> Outcome<StreamState> {
        let n = self.elements();
        let floats = (n * 4) as usize;
        let mut rng = SplitMix64::new(self.seed);
        let workgroups = grid_workgroups(ctx, n, WORKGROUP, self.spec.per_invocation);
        let threads = u64::from(workgroups) * u64::from(WORKGROUP);
        let params = Params {
            n: u32::try_from(n)
                .map_err(|_| BenchError::Unsupported("array too long for u32 indexing".into()))?,
            scalar: SCALAR,
            threads: threads as u32,
            _pad: 0,
        };
        let mut input = |index: u64| {
            if self.spec.inputs > index {
                rng.f32_vec(floats, 0.5, 1.5)
            } else {
                Vec::new()
            }
        };
        let (a, b) = (input(0), input(1));
        let output_bytes = match self.spec.output {
            Output::Array => self.bytes,
            Output::Partials => threads * VEC4_BYTES,
        };
        // The output starts as random data too: a kernel that skips elements cannot pass by luck.
        let output_init = rng.f32_vec((output_bytes / 4) as usize, -2.0, -1.0);
        let output = ctx.buffer_with_data(
            "stream c",
            f32_bytes(&output_init),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let inputs = self.input_buffers(ctx, &params, &a, &b);
        let mut bindings: Vec<(u32, &wgpu::Buffer)> = inputs
            .iter()
            .enumerate()
            .map(|(slot, buffer)| (slot as u32, buffer))
            .collect();
        bindings.push((3, &output));
        let pipeline = compute_pipeline(ctx, self.entry, self.shader, self.entry);
        let dispatch = DispatchKernel::new(ctx, self.entry, pipeline, &bindings, (workgroups, 1));
        Ok(StreamState {
            dispatch,
            output,
            threads,
            a,
            b,
            _inputs: inputs,
        })
    }

    fn work(&self, state: &StreamState) -> Work {
        let written = match self.spec.output {
            Output::Array => self.bytes,
            Output::Partials => state.threads * VEC4_BYTES,
        };
        Work::bytes(self.spec.inputs * self.bytes, written)
    }

    fn run(&self, state: &mut StreamState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        state.dispatch.submit(ctx, clock, iterations);
        Ok(())
    }

    fn verify(&self, state: &mut StreamState, ctx: &GpuContext) -> Outcome<Verification> {
        let got = read_f32(ctx, &state.output)?;
        let kernel = self.spec.kernel;
        if self.spec.output == Output::Partials {
            return Ok(verify_partial_sums(&got, &state.a, state.threads as usize));
        }
        let want: Vec<f64> = (0..self.elements() as usize)
            .flat_map(|i| (0..4).map(move |k| (i, k)))
            .map(|(i, k)| kernel.reference(i, k, &state.a, &state.b))
            .collect();
        Ok(compare_f32(&got, &want, kernel.tolerance()))
    }
}

/// Checks the reduction's partials: invocation t summed elements t, t + threads, ... of `a`.
fn verify_partial_sums(got: &[f32], a: &[f32], threads: usize) -> Verification {
    let n = a.len() / 4;
    let mut want = vec![[0.0f64; 4]; threads];
    let mut terms = vec![0u64; threads];
    for i in 0..n {
        let t = i % threads;
        terms[t] += 1;
        for k in 0..4 {
            want[t][k] += f64::from(a[4 * i + k]);
        }
    }
    let mut checker = Checker::new();
    for t in 0..threads {
        let tol = Tolerance::f32_sum(terms[t]);
        for k in 0..4 {
            let w = want[t][k];
            // Inputs are positive, so the sum of magnitudes is the sum itself.
            checker.check(f64::from(got[4 * t + k]), w, w, tol, || {
                format!("partial sum {t}.{k}")
            });
        }
    }
    checker.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_indexed_by_its_kernels() {
        for kernel in StreamKernel::ALL {
            assert_eq!(kernel.spec().kernel, kernel);
        }
    }

    #[test]
    fn partial_sums_catch_a_dropped_element() {
        let a: Vec<f32> = (0..64).map(|i| 0.5 + (i % 7) as f32 / 8.0).collect();
        let threads = 4;
        let mut sums = vec![0.0f32; threads * 4];
        for i in 0..a.len() / 4 {
            for k in 0..4 {
                sums[4 * (i % threads) + k] += a[4 * i + k];
            }
        }
        assert!(verify_partial_sums(&sums, &a, threads).passed());
        sums[5] -= a[5];
        assert!(!verify_partial_sums(&sums, &a, threads).passed());
    }
}
