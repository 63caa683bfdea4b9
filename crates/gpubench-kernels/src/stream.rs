//! The stream suite: device-memory bandwidth of copy, scale, add, triad, a read-only reduction
//! and a write-only fill over `array<vec4<f32>>`, the copy engine (`copy_buffer_to_buffer`), and
//! the host's own memcpy as a reference row.
//!
//! Bandwidth counts bytes read plus bytes written per iteration (STREAM/BabelStream's
//! convention): copy and scale move 2 arrays, add and triad 3, read 1 (plus its small partial
//! sums), fill 1. Every element of every output is checked against a CPU replay.

use gpubench_harness::rng::SplitMix64;
use gpubench_harness::timing::Boundary;
use gpubench_harness::units::{MIB, format_size};
use gpubench_harness::{
    BenchError, Benchmark, BenchmarkInfo, GpuContext, MetricKind, SampleClock, TimingPreference,
    Verification, Work,
};

use crate::gpu::{
    bind_buffers, bytes_to_f32, compute_pipeline, f32_bytes, grid_workgroups, ready,
    submit_dispatches,
};
use crate::verify::{Checker, Tolerance, compare_f32};
use crate::{KernelError, Suite, SuiteOptions, Tuner, shaders};

/// Bytes in one `vec4<f32>`.
pub const VEC4_BYTES: u64 = 16;
/// The scalar of scale and triad, as in BabelStream.
pub const SCALAR: f32 = 0.4;
const WORKGROUP: u32 = 256;
/// Elements each invocation of the reduction sums before writing its partial. Few per invocation
/// means many invocations: on lavapipe, 64 per invocation read at 2.5 GB/s and 8 at 9.9 GB/s
/// (64 MiB arrays), while the partials written stay at 1/8 of the bytes read (and are counted).
const READ_PER_INVOCATION: u64 = 8;

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

    /// The WGSL entry point in stream.wgsl.
    pub fn entry(self) -> &'static str {
        match self {
            // `read` is a WGSL access mode and cannot name a function.
            StreamKernel::Read => "read_sum",
            other => other.name(),
        }
    }

    /// Name, as used in result ids.
    pub fn name(self) -> &'static str {
        match self {
            StreamKernel::Copy => "copy",
            StreamKernel::Scale => "scale",
            StreamKernel::Add => "add",
            StreamKernel::Triad => "triad",
            StreamKernel::Read => "read",
            StreamKernel::Fill => "fill",
        }
    }

    /// How many input arrays the kernel reads.
    fn inputs(self) -> usize {
        match self {
            StreamKernel::Fill => 0,
            StreamKernel::Copy | StreamKernel::Scale | StreamKernel::Read => 1,
            StreamKernel::Add | StreamKernel::Triad => 2,
        }
    }

    fn counts(self) -> &'static str {
        match self {
            StreamKernel::Copy | StreamKernel::Scale => {
                "bytes read + written per second (2 arrays)"
            }
            StreamKernel::Add | StreamKernel::Triad => "bytes read + written per second (3 arrays)",
            StreamKernel::Read => "bytes read per second (1 array) + partial sums written",
            StreamKernel::Fill => "bytes written per second (1 array)",
        }
    }

    /// The expected output element `i`, component `k`, from the inputs.
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
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    scalar: f32,
    threads: u32,
    _pad: u32,
}

struct StreamState {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    output: wgpu::Buffer,
    workgroups: u32,
    threads: u64,
    a: Vec<f32>,
    b: Vec<f32>,
    // Held so the bind group's buffers outlive every dispatch.
    _inputs: Vec<wgpu::Buffer>,
}

/// One bandwidth kernel over arrays of `bytes` each.
pub struct StreamBenchmark {
    info: BenchmarkInfo,
    kernel: StreamKernel,
    bytes: u64,
    seed: u64,
    shader: &'static str,
    entry: &'static str,
    state: Option<StreamState>,
}

impl StreamBenchmark {
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

    /// The same benchmark running another shader entry point that must produce the same output
    /// (used by the self-test suite with a deliberately broken kernel).
    pub fn with_shader(
        kernel: StreamKernel,
        bytes: u64,
        seed: u64,
        shader: &'static str,
        entry: &'static str,
        suite: &str,
    ) -> Self {
        let name = if entry == kernel.entry() {
            kernel.name()
        } else {
            entry
        };
        let id = format!("{suite}/{name}/vec4-f32/{}", format_size(bytes));
        let info = BenchmarkInfo::new(id, suite, MetricKind::Bandwidth, kernel.counts())
            .param("kernel", name)
            .param("element", "vec4<f32>")
            .param("array_bytes", bytes)
            .param("array_size", format_size(bytes));
        Self {
            info,
            kernel,
            bytes,
            seed,
            shader,
            entry,
            state: None,
        }
    }

    fn elements(&self) -> u64 {
        self.bytes / VEC4_BYTES
    }
}

impl Benchmark for StreamBenchmark {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        check_array_fits(ctx, self.bytes)
    }

    fn setup(&mut self, ctx: &GpuContext) -> Result<(), BenchError> {
        let n = self.elements();
        let floats = (n * 4) as usize;
        let mut rng = SplitMix64::new(self.seed);
        let storage = wgpu::BufferUsages::STORAGE;
        let per_invocation = if self.kernel == StreamKernel::Read {
            READ_PER_INVOCATION
        } else {
            1
        };
        let workgroups = grid_workgroups(ctx, n, WORKGROUP, per_invocation);
        let threads = u64::from(workgroups) * u64::from(WORKGROUP);
        let params = Params {
            n: u32::try_from(n)
                .map_err(|_| BenchError::Unsupported("array too long for u32 indexing".into()))?,
            scalar: SCALAR,
            threads: threads as u32,
            _pad: 0,
        };
        let params_buffer = ctx.buffer_with_data(
            "stream params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let a = if self.kernel.inputs() >= 1 {
            rng.f32_vec(floats, 0.5, 1.5)
        } else {
            Vec::new()
        };
        let b = if self.kernel.inputs() >= 2 {
            rng.f32_vec(floats, 0.5, 1.5)
        } else {
            Vec::new()
        };
        let output_bytes = if self.kernel == StreamKernel::Read {
            threads * VEC4_BYTES
        } else {
            self.bytes
        };
        // The output starts as random data too: a kernel that skips elements cannot pass by luck.
        let output_init = rng.f32_vec((output_bytes / 4) as usize, -2.0, -1.0);
        let output = ctx.buffer_with_data(
            "stream c",
            f32_bytes(&output_init),
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let pipeline = compute_pipeline(ctx, self.entry, self.shader, self.entry);
        let mut inputs = vec![params_buffer];
        if !a.is_empty() {
            inputs.push(ctx.buffer_with_data("stream a", f32_bytes(&a), storage));
        }
        if !b.is_empty() {
            inputs.push(ctx.buffer_with_data("stream b", f32_bytes(&b), storage));
        }
        let mut bindings: Vec<(u32, &wgpu::Buffer)> = vec![(0, &inputs[0])];
        for (slot, buffer) in inputs.iter().enumerate().skip(1) {
            bindings.push((slot as u32, buffer));
        }
        bindings.push((3, &output));
        let bind_group = bind_buffers(ctx, &pipeline, &bindings);
        self.state = Some(StreamState {
            pipeline,
            bind_group,
            output,
            workgroups,
            threads,
            a,
            b,
            _inputs: inputs,
        });
        Ok(())
    }

    fn work(&self) -> Work {
        let array = self.bytes;
        let threads = self.state.as_ref().map_or(0, |s| s.threads);
        let (read, written) = match self.kernel {
            StreamKernel::Copy | StreamKernel::Scale => (array, array),
            StreamKernel::Add | StreamKernel::Triad => (2 * array, array),
            StreamKernel::Read => (array, threads * VEC4_BYTES),
            StreamKernel::Fill => (0, array),
        };
        Work {
            bytes_read: read,
            bytes_written: written,
            flops: 0,
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
            self.entry,
            &state.pipeline,
            &state.bind_group,
            (state.workgroups, 1),
            iterations,
        );
        Ok(())
    }

    fn verify(&mut self, ctx: &GpuContext) -> Result<Verification, BenchError> {
        let state = ready(&self.state, "verify")?;
        let got = bytes_to_f32(&ctx.read_buffer(&state.output, state.output.size())?);
        if self.kernel == StreamKernel::Read {
            return Ok(verify_partial_sums(&got, &state.a, state.threads as usize));
        }
        let n = self.elements() as usize;
        let want: Vec<f64> = (0..n)
            .flat_map(|i| (0..4).map(move |k| (i, k)))
            .map(|(i, k)| self.kernel.reference(i, k, &state.a, &state.b))
            .collect();
        let tol = match self.kernel {
            StreamKernel::Copy => Tolerance::EXACT,
            _ => Tolerance::f32_elementwise(),
        };
        Ok(compare_f32(&got, &want, tol))
    }

    fn teardown(&mut self) {
        self.state = None;
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

/// Skips arrays larger than one storage binding or one buffer may be.
pub fn check_array_fits(ctx: &GpuContext, bytes: u64) -> Result<(), String> {
    let binding = ctx.limits.max_storage_buffer_binding_size;
    let buffer = ctx.limits.max_buffer_size;
    if bytes > binding || bytes > buffer {
        return Err(format!(
            "array of {} exceeds the adapter's limit (storage binding {}, buffer {}); pass a smaller --stream-size",
            format_size(bytes),
            format_size(binding),
            format_size(buffer)
        ));
    }
    Ok(())
}

/// `copy_buffer_to_buffer`: the copy engine (or whatever the driver uses for buffer copies).
pub struct CopyBufferBenchmark {
    info: BenchmarkInfo,
    bytes: u64,
    seed: u64,
    state: Option<(wgpu::Buffer, wgpu::Buffer, Vec<u8>)>,
}

impl CopyBufferBenchmark {
    /// Copies of `bytes` (a multiple of 4).
    pub fn new(bytes: u64, seed: u64) -> Self {
        let info = BenchmarkInfo::new(
            format!("stream/copy-buffer/bytes/{}", format_size(bytes)),
            "stream",
            MetricKind::Bandwidth,
            "bytes read + written per second by copy_buffer_to_buffer",
        )
        .param("kernel", "copy_buffer_to_buffer")
        .param("array_bytes", bytes)
        .param("array_size", format_size(bytes));
        Self {
            info,
            bytes,
            seed,
            state: None,
        }
    }
}

impl Benchmark for CopyBufferBenchmark {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        if self.bytes > ctx.limits.max_buffer_size {
            return Err(format!(
                "buffer of {} exceeds max_buffer_size",
                format_size(self.bytes)
            ));
        }
        Ok(())
    }

    fn setup(&mut self, ctx: &GpuContext) -> Result<(), BenchError> {
        let data = SplitMix64::new(self.seed).bytes(self.bytes as usize);
        let src = ctx.buffer_with_data("copy src", &data, wgpu::BufferUsages::COPY_SRC);
        let dst = ctx.buffer(
            "copy dst",
            self.bytes,
            wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        );
        self.state = Some((src, dst, data));
        Ok(())
    }

    fn work(&self) -> Work {
        Work {
            bytes_read: self.bytes,
            bytes_written: self.bytes,
            flops: 0,
            ops: 1,
        }
    }

    fn run(
        &mut self,
        ctx: &GpuContext,
        iterations: u32,
        clock: &mut SampleClock<'_>,
    ) -> Result<(), BenchError> {
        let (src, dst, _) = ready(&self.state, "run")?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        clock.write_timestamp(&mut encoder, Boundary::Begin);
        for _ in 0..iterations {
            encoder.copy_buffer_to_buffer(src, 0, dst, 0, self.bytes);
        }
        clock.write_timestamp(&mut encoder, Boundary::End);
        clock.submit([encoder.finish()]);
        Ok(())
    }

    fn verify(&mut self, ctx: &GpuContext) -> Result<Verification, BenchError> {
        let (_, dst, data) = ready(&self.state, "verify")?;
        let got = ctx.read_buffer(dst, self.bytes)?;
        Ok(compare_bytes(&got, data))
    }

    fn teardown(&mut self) {
        self.state = None;
    }
}

/// Compares bytes exactly, reporting the first differing offsets.
pub fn compare_bytes(got: &[u8], want: &[u8]) -> Verification {
    let mut checker = Checker::new();
    if got.len() != want.len() {
        checker.fail(format!(
            "{} bytes arrived, {} were sent",
            got.len(),
            want.len()
        ));
        return checker.finish();
    }
    // Compare in 4 KiB blocks so a long correct run costs one comparison per block.
    for (block, (g, w)) in got.chunks(4096).zip(want.chunks(4096)).enumerate() {
        if g == w {
            checker.check(0.0, 0.0, 0.0, Tolerance::EXACT, String::new);
            continue;
        }
        for (i, (x, y)) in g.iter().zip(w).enumerate() {
            let offset = block * 4096 + i;
            checker.check(f64::from(*x), f64::from(*y), 0.0, Tolerance::EXACT, || {
                format!("byte {offset}")
            });
        }
    }
    checker.finish()
}

/// The host's own memcpy between two buffers of `bytes`: the ceiling for staging copies, and on
/// a software adapter the physical limit of "device" memory too.
pub struct HostMemcpyBenchmark {
    info: BenchmarkInfo,
    bytes: u64,
    seed: u64,
    buffers: Option<(Vec<u8>, Vec<u8>)>,
}

impl HostMemcpyBenchmark {
    /// memcpy of `bytes`.
    pub fn new(bytes: u64, seed: u64) -> Self {
        let mut info = BenchmarkInfo::new(
            format!("stream/host-memcpy/bytes/{}", format_size(bytes)),
            "stream",
            MetricKind::Bandwidth,
            "bytes read + written per second by the host's memcpy (reference, not the GPU)",
        )
        .param("kernel", "host memcpy")
        .param("array_bytes", bytes)
        .param("array_size", format_size(bytes));
        info.timing = TimingPreference::Host;
        Self {
            info,
            bytes,
            seed,
            buffers: None,
        }
    }
}

impl Benchmark for HostMemcpyBenchmark {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
    }

    fn setup(&mut self, _ctx: &GpuContext) -> Result<(), BenchError> {
        let src = SplitMix64::new(self.seed).bytes(self.bytes as usize);
        // Touch the destination now so page faults are not timed.
        let dst = vec![0xA5u8; self.bytes as usize];
        self.buffers = Some((src, dst));
        Ok(())
    }

    fn work(&self) -> Work {
        Work {
            bytes_read: self.bytes,
            bytes_written: self.bytes,
            flops: 0,
            ops: 1,
        }
    }

    fn run(
        &mut self,
        _ctx: &GpuContext,
        iterations: u32,
        clock: &mut SampleClock<'_>,
    ) -> Result<(), BenchError> {
        let (src, dst) = self
            .buffers
            .as_mut()
            .ok_or_else(|| BenchError::Gpu("run before setup".into()))?;
        clock.start_host();
        for _ in 0..iterations {
            dst.copy_from_slice(std::hint::black_box(src.as_slice()));
            std::hint::black_box(dst.as_mut_slice());
        }
        Ok(())
    }

    fn verify(&mut self, _ctx: &GpuContext) -> Result<Verification, BenchError> {
        let (src, dst) = ready(&self.buffers, "verify")?;
        Ok(compare_bytes(dst, src))
    }

    fn teardown(&mut self) {
        self.buffers = None;
    }
}

/// The stream suite: the six kernels, the copy engine and the host memcpy reference, all on
/// arrays of the same size.
pub struct StreamSuite;

impl Suite for StreamSuite {
    fn name(&self) -> &'static str {
        "stream"
    }

    fn benchmarks(
        &self,
        ctx: &GpuContext,
        options: &SuiteOptions,
        _tuner: &mut dyn Tuner,
    ) -> Result<Vec<Box<dyn Benchmark>>, KernelError> {
        let bytes = stream_array_bytes(ctx, options)?;
        let mut benches: Vec<Box<dyn Benchmark>> = StreamKernel::ALL
            .iter()
            .map(|&k| Box::new(StreamBenchmark::new(k, bytes, options.seed)) as Box<dyn Benchmark>)
            .collect();
        benches.push(Box::new(CopyBufferBenchmark::new(bytes, options.seed)));
        benches.push(Box::new(HostMemcpyBenchmark::new(bytes, options.seed)));
        if options.profile == gpubench_harness::Profile::Full {
            // Cache versus DRAM: triad over arrays from 256 KiB up to the main size.
            let mut size = 256 * 1024;
            while size < bytes {
                benches.push(Box::new(StreamBenchmark::new(
                    StreamKernel::Triad,
                    size,
                    options.seed,
                )));
                size *= 4;
            }
        }
        Ok(benches)
    }
}

/// Bytes per stream array: the option when given, else the profile's size (quick: 256 MiB on a
/// GPU, 16 MiB on a software adapter; otherwise 512 MiB on a GPU, at least 4x the last-level
/// cache of current cards, and 128 MiB on a software adapter, 4x a typical server L3), capped by the adapter's binding and buffer
/// limits and rounded down to a power of two.
pub fn stream_array_bytes(ctx: &GpuContext, options: &SuiteOptions) -> Result<u64, KernelError> {
    if let Some(bytes) = options.stream_size {
        if bytes < 4096 || bytes % VEC4_BYTES != 0 {
            return Err(KernelError::BadOption(format!(
                "--stream-size {} must be at least 4KiB and a multiple of 16 bytes",
                format_size(bytes)
            )));
        }
        return Ok(bytes);
    }
    let wanted = match (options.profile, ctx.is_software()) {
        // Quick stays small on a software adapter (a CPU runs it); on a GPU even a smoke test
        // needs arrays beyond the last-level cache (50-96 MiB on current large cards).
        (gpubench_harness::Profile::Quick, true) => 16 * MIB,
        (gpubench_harness::Profile::Quick, false) => 256 * MIB,
        (_, true) => 128 * MIB,
        (_, false) => 512 * MIB,
    };
    let cap = wanted
        .min(ctx.limits.max_storage_buffer_binding_size)
        .min(ctx.limits.max_buffer_size);
    Ok(1u64 << (63 - cap.max(4096).leading_zeros()))
}
