//! The six bandwidth kernels of stream.wgsl, declared in one table ([`KERNELS`]) as BabelStream
//! declares its kernels' weights: what each reads and writes decides its bandwidth figure, the
//! same way for every kernel.

use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification, Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::format_size;
use std::sync::{Arc, OnceLock};

use gpubench_harness::kit::gpu::{
    DispatchKernel, OUTPUT, StrideGrid, StrideParams, compute_pipeline_with, f32_bytes,
    filled_f32_buffer, uniform_buffer, with_f32,
};
use gpubench_harness::kit::verify::{Checker, Tolerance, compare_f32_at, compare_f32_with};

use gpubench_harness::kit::inputs::exact_inputs;
use gpubench_harness::kit::sizing::{AdapterClass, MAX_REPEATS, repeats_for};

/// Bytes in one `vec4<f32>`.
pub const VEC4_BYTES: u64 = 16;
/// The scalar of scale and triad, as in BabelStream.
pub const SCALAR: f32 = 0.4;
const WORKGROUP: u32 = 256;
/// The most terms a partial sum may have and stay exact in f32: each term is below 1.5 = 384
/// steps, and the sum must stay below 2^24 steps.
pub const EXACT_SUM_TERMS: u64 = (1 << 24) / 384;

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
    /// The WGSL entry point of the stream shader that walks the arrays once.
    pub entry: &'static str,
    /// The entry point that walks them `repeats` times per dispatch.
    pub repeated_entry: &'static str,
    /// The entry points (once, repeated) of the form that takes [`PER_TRIP`]-many elements per
    /// invocation per loop trip, where the kernel has one.
    pub per_trip_entries: Option<(&'static str, &'static str)>,
    /// Input arrays read, each once per iteration.
    pub inputs: u64,
    /// What is written per iteration.
    pub output: Output,
    /// Elements each invocation handles (the grid is sized from it).
    pub per_invocation: u64,
    /// What the figure counts, in words.
    pub counts: &'static str,
}

/// The elements per invocation per loop trip the stream suite tries (the `_x` entry points take
/// 2 and 4: stream.wgsl's `PER_TRIP`, at most its `MAX_PER_TRIP`).
pub const PER_TRIP: [u32; 3] = [1, 2, 4];

/// Every stream kernel, in report order.
pub const KERNELS: [StreamSpec; 6] = [
    StreamSpec {
        kernel: StreamKernel::Copy,
        name: "copy",
        entry: "copy",
        repeated_entry: "copy_repeated",
        per_trip_entries: Some(("copy_x", "copy_x_repeated")),
        inputs: 1,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes read + written per second (2 arrays)",
    },
    StreamSpec {
        kernel: StreamKernel::Scale,
        name: "scale",
        entry: "scale",
        repeated_entry: "scale_repeated",
        per_trip_entries: Some(("scale_x", "scale_x_repeated")),
        inputs: 1,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes read + written per second (2 arrays)",
    },
    StreamSpec {
        kernel: StreamKernel::Add,
        name: "add",
        entry: "add",
        repeated_entry: "add_repeated",
        per_trip_entries: Some(("add_x", "add_x_repeated")),
        inputs: 2,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes read + written per second (3 arrays)",
    },
    StreamSpec {
        kernel: StreamKernel::Triad,
        name: "triad",
        entry: "triad",
        repeated_entry: "triad_repeated",
        per_trip_entries: Some(("triad_x", "triad_x_repeated")),
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
        repeated_entry: "read_sum_repeated",
        per_trip_entries: None,
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
        repeated_entry: "fill_repeated",
        per_trip_entries: None,
        inputs: 0,
        output: Output::Array,
        per_invocation: 1,
        counts: "bytes written per second (1 array)",
    },
];

impl StreamSpec {
    /// Bytes one walk over arrays of `array_bytes` moves: the inputs read and the array
    /// written (the reduction's partial sums are written once per dispatch, and are few).
    pub fn bytes_per_walk(&self, array_bytes: u64) -> u64 {
        let written = u64::from(self.output == Output::Array);
        (self.inputs + written) * array_bytes
    }

    /// The most walks one dispatch may make: [`MAX_REPEATS`], and for the reduction as many as
    /// keep its partial sums exact (about `per_invocation` terms per walk).
    pub fn max_repeats(&self) -> u32 {
        match self.output {
            Output::Array => MAX_REPEATS,
            Output::Partials => (EXACT_SUM_TERMS / self.per_invocation) as u32,
        }
    }
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

    /// The kernel's row in [`KERNELS`].
    pub fn spec(self) -> &'static StreamSpec {
        &KERNELS[self as usize]
    }

    /// Name, as used in result ids.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The WGSL entry point of the stream shader.
    pub fn entry(self) -> &'static str {
        self.spec().entry
    }

    /// Tolerance of an array kernel: copy is bit-exact, the others allow one or two roundings.
    fn tolerance(self) -> Tolerance {
        match self {
            StreamKernel::Copy => Tolerance::EXACT,
            _ => Tolerance::f32_elementwise(),
        }
    }
}

/// Checks every element of an array kernel's `got` (`len` floats) against the kernel applied
/// to the inputs `a` and `b`, exactly as the old per-element reference did, but with the
/// match on the kernel outside the loop and no vector of expected values: the reference must
/// not cost more than the GPU work it checks, and at an H200's 1 GiB arrays the old one
/// (a 2 GiB f64 vector built per row) took 13 s per row where this takes a fraction of one.
pub fn check_array(
    kernel: StreamKernel,
    got: &[f32],
    len: usize,
    inputs: (&[f32], &[f32]),
) -> Verification {
    check_array_as(Check::Full, kernel, got, len, inputs)
}

/// How much of an array kernel's output its check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Every element: a reported row.
    Full,
    /// [`spread_sample`]: a tuning candidate, whose figure only ranks the forms; the form
    /// chosen is checked in full when its rows run, and a candidate that fails is re-run and
    /// reported with the full check.
    Sample,
}

/// Floats in 4 KiB: a sampled check reads each block's first and last.
const BLOCK_FLOATS: usize = 1024;
/// About this many floats of a sampled check are spread evenly over the array.
const SPREAD: usize = 1 << 20;

/// The floats a sampled check reads: both ends, about [`SPREAD`] spread evenly, and the first
/// and last of each 4 KiB block (a block a kernel skipped or misplaced shows at its edges).
fn spread_sample(len: usize) -> impl Iterator<Item = usize> {
    let stride = (len / SPREAD).max(1);
    let blocks = (0..len)
        .step_by(BLOCK_FLOATS)
        .flat_map(move |first| [first, (first + BLOCK_FLOATS).min(len) - 1]);
    (0..len)
        .step_by(stride)
        .chain(blocks)
        .chain(len.checked_sub(1))
}

/// [`compare_f32_with`] or, for a sample, [`compare_f32_at`] over [`spread_sample`].
fn compare(
    check: Check,
    (got, len): (&[f32], usize),
    tol: Tolerance,
    want: impl Fn(usize) -> f64,
) -> Verification {
    match check {
        Check::Full => compare_f32_with(got, len, tol, want),
        Check::Sample => compare_f32_at(got, len, tol, spread_sample(len), want),
    }
}

/// [`check_array`], reading every element or a sample as `check` says.
fn check_array_as(
    check: Check,
    kernel: StreamKernel,
    got: &[f32],
    len: usize,
    (a, b): (&[f32], &[f32]),
) -> Verification {
    let s = f64::from(SCALAR);
    let (tol, out) = (kernel.tolerance(), (got, len));
    match kernel {
        StreamKernel::Copy => compare(check, out, tol, |x| f64::from(a[x])),
        StreamKernel::Scale => compare(check, out, tol, |x| s * f64::from(a[x])),
        StreamKernel::Add => compare(check, out, tol, |x| f64::from(a[x]) + f64::from(b[x])),
        StreamKernel::Triad => compare(check, out, tol, |x| f64::from(a[x]) + s * f64::from(b[x])),
        // Element i holds (i mod 2^16 + k) x scalar in component k (stream.wgsl's fill).
        StreamKernel::Fill => compare(check, out, tol, |x| {
            (f64::from(((x / 4) & 0xffff) as u32) + (x % 4) as f64) * s
        }),
        StreamKernel::Read => {
            let mut checker = Checker::new();
            checker.fail("the reduction is checked by its partial sums, not as an array".into());
            checker.finish()
        }
    }
}

/// The host copies of the stream kernels' inputs over arrays of one size from one seed, each
/// made on first use and then shared by every kernel and tuning candidate over those arrays:
/// they were made again, identically, for every row, 1.8 s of host time per row at 512 MiB.
pub struct StreamInputs {
    bytes: u64,
    seed: u64,
    // `a`, and the generator as `a` left it: `b` continues from there.
    a: OnceLock<(Vec<f32>, SplitMix64)>,
    b: OnceLock<Vec<f32>>,
}

impl StreamInputs {
    /// The inputs of arrays of `bytes` from `seed` (made when first asked for), shared
    /// through the `Arc`.
    pub fn new(bytes: u64, seed: u64) -> Arc<Self> {
        Arc::new(Self {
            bytes,
            seed,
            a: OnceLock::new(),
            b: OnceLock::new(),
        })
    }

    /// Bytes per array.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn floats(&self) -> usize {
        (self.bytes / 4) as usize
    }

    fn a_and_rng(&self) -> &(Vec<f32>, SplitMix64) {
        self.a.get_or_init(|| {
            let mut rng = SplitMix64::new(self.seed);
            let a = exact_inputs(&mut rng, self.floats());
            (a, rng)
        })
    }

    /// The first input array: [`exact_inputs`] from the seed.
    pub fn a(&self) -> &[f32] {
        &self.a_and_rng().0
    }

    /// The second input array: [`exact_inputs`] continuing the generator after [`Self::a`].
    pub fn b(&self) -> &[f32] {
        self.b.get_or_init(|| {
            let mut rng = self.a_and_rng().1.clone();
            exact_inputs(&mut rng, self.floats())
        })
    }
}

/// What set-up made: the dispatch and its output.
pub struct StreamState {
    dispatch: DispatchKernel,
    output: wgpu::Buffer,
    /// The walks each invocation made, where an array kernel walks more than once.
    walks: Option<wgpu::Buffer>,
    threads: u64,
    // Held so the bind group's buffers outlive every dispatch.
    _inputs: Vec<wgpu::Buffer>,
}

impl StreamState {
    /// Invocations in each dispatch.
    pub fn threads(&self) -> u64 {
        self.threads
    }
}

/// One bandwidth kernel over arrays of `bytes` each.
pub struct Stream {
    spec: &'static StreamSpec,
    bytes: u64,
    inputs: Arc<StreamInputs>,
    repeats: u32,
    per_trip: u32,
    shader: &'static str,
    entry: &'static str,
    suite: &'static str,
    extra_params: Vec<(String, serde_json::Value)>,
    id_suffix: Option<String>,
    check: Check,
}

impl Stream {
    /// `kernel` over arrays of `bytes` (a multiple of 16), inputs from `seed`.
    pub fn new(kernel: StreamKernel, bytes: u64, seed: u64) -> Self {
        Self::sharing(kernel, StreamInputs::new(bytes, seed))
    }

    /// `kernel` over the arrays of `inputs`, which other kernels may share.
    pub fn sharing(kernel: StreamKernel, inputs: Arc<StreamInputs>) -> Self {
        Self::shared_with_shader(kernel, inputs, super::source(), kernel.entry(), "stream")
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
        Self::shared_with_shader(kernel, StreamInputs::new(bytes, seed), shader, entry, suite)
    }

    fn shared_with_shader(
        kernel: StreamKernel,
        inputs: Arc<StreamInputs>,
        shader: &'static str,
        entry: &'static str,
        suite: &'static str,
    ) -> Self {
        Self {
            spec: kernel.spec(),
            bytes: inputs.bytes(),
            inputs,
            repeats: 1,
            per_trip: 1,
            shader,
            entry,
            suite,
            extra_params: Vec::new(),
            id_suffix: None,
            check: Check::Full,
        }
    }

    /// The same kernel under its id with `/per-trip-N` appended: a tuning candidate reported
    /// on its own (one that failed verification).
    pub fn as_candidate(mut self) -> Self {
        self.id_suffix = Some(format!("per-trip-{}", self.per_trip));
        self
    }

    /// The same kernel taking `per_trip` elements per invocation per loop trip (one of
    /// [`PER_TRIP`]; 1 for a kernel without that form or from another shader).
    pub fn with_per_trip(mut self, per_trip: u32) -> Self {
        let offered = self.spec.per_trip_entries.is_some() && self.is_own_entry();
        self.per_trip = if offered && PER_TRIP.contains(&per_trip) {
            per_trip
        } else {
            1
        };
        self
    }

    /// The same kernel checking a spread sample of its output instead of every element: for a
    /// tuning candidate, whose figure only ranks the forms (the rows of the form chosen are
    /// checked in full). Three candidates over a large GPU's 1 GiB arrays each paid a full
    /// check. The reduction's partial sums are always checked in full.
    pub fn checking_a_sample(mut self) -> Self {
        self.check = Check::Sample;
        self
    }

    /// Elements each invocation takes per loop trip.
    pub fn per_trip(&self) -> u32 {
        self.per_trip
    }

    /// Adds a parameter (e.g. the tuning table) to the result.
    pub fn with_param(mut self, key: &str, value: serde_json::Value) -> Self {
        self.extra_params.push((key.to_string(), value));
        self
    }

    /// The entry point that runs and its pipeline constants: the one-element walk, or the
    /// `_x` form with `PER_TRIP` set.
    fn pipeline_entry(&self) -> (&'static str, Vec<(&'static str, f64)>) {
        match self.spec.per_trip_entries {
            Some((once, repeated)) if self.per_trip > 1 => {
                let entry = if self.repeats > 1 { repeated } else { once };
                (entry, vec![("PER_TRIP", f64::from(self.per_trip))])
            }
            _ => (self.entry, Vec::new()),
        }
    }

    /// The same kernel walking its arrays `repeats` times (at least once) in each dispatch,
    /// through the shader's repeating entry point when there is more than one walk. A kernel
    /// from another shader entry point walks once.
    pub fn with_repeats(mut self, repeats: u32) -> Self {
        if !self.is_own_entry() {
            return self;
        }
        self.repeats = repeats.max(1);
        self.entry = if self.repeats > 1 {
            self.spec.repeated_entry
        } else {
            self.spec.entry
        };
        self
    }

    /// The same kernel with as many walks per dispatch as make one dispatch last the target
    /// time at `class`'s assumed peak bandwidth ([`repeats_for`]).
    pub fn sized_for(self, class: AdapterClass) -> Self {
        let walk = self.spec.bytes_per_walk(self.bytes);
        let repeats = repeats_for(walk, class, self.spec.max_repeats());
        self.with_repeats(repeats)
    }

    /// Walks of the arrays per dispatch.
    pub fn repeats(&self) -> u32 {
        self.repeats
    }

    fn elements(&self) -> u64 {
        self.bytes / VEC4_BYTES
    }

    /// Input array `index` (0: a, 1: b) when the kernel reads it, else empty.
    fn input(&self, index: u64) -> &[f32] {
        match index {
            _ if self.spec.inputs <= index => &[],
            0 => self.inputs.a(),
            _ => self.inputs.b(),
        }
    }

    /// Whether the kernel writes how many walks each invocation made: an array kernel of the
    /// stream shader's own that walks more than once.
    fn counts_walks(&self) -> bool {
        self.repeats > 1 && self.spec.output == Output::Array && self.is_own_entry()
    }

    /// Whether the kernel runs one of the stream shader's own entry points for it.
    fn is_own_entry(&self) -> bool {
        self.entry == self.spec.entry || self.entry == self.spec.repeated_entry
    }

    /// The name in ids: the kernel's, or the entry point's when it runs another shader.
    fn name(&self) -> &'static str {
        if self.is_own_entry() {
            self.spec.name
        } else {
            self.entry
        }
    }

    /// Buffers in binding order: params, then the inputs the kernel reads.
    fn input_buffers(
        &self,
        ctx: &GpuContext,
        params: &StrideParams,
        a: &[f32],
        b: &[f32],
    ) -> Vec<wgpu::Buffer> {
        let storage = wgpu::BufferUsages::STORAGE;
        let mut inputs = vec![uniform_buffer(ctx, "stream params", params)];
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
        let mut id = format!(
            "{}/{}/vec4-f32/{}",
            self.suite,
            self.name(),
            format_size(self.bytes)
        );
        if let Some(suffix) = &self.id_suffix {
            id = format!("{id}/{suffix}");
        }
        let mut info = BenchmarkInfo::new(id, self.suite, MetricKind::Bandwidth, self.spec.counts)
            .param("kernel", self.name())
            .param("element", "vec4<f32>")
            .param("array_bytes", self.bytes)
            .param("array_size", format_size(self.bytes))
            .param("repeats", self.repeats)
            .param("per_trip", self.per_trip);
        for (key, value) in &self.extra_params {
            info.params.insert(key.clone(), value.clone());
        }
        info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        super::check_stream_array_fits(ctx, self.bytes)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<StreamState> {
        let n = self.elements();
        let per_invocation = self.spec.per_invocation * u64::from(self.per_trip);
        let grid = StrideGrid::new(ctx, n, WORKGROUP, per_invocation)?;
        let threads = u64::from(grid.threads);
        // stream.wgsl's uniform block: n, scalar, threads and the walks per dispatch.
        let params = grid.params(SCALAR, self.repeats);
        let output_bytes = match self.spec.output {
            Output::Array => self.bytes,
            Output::Partials => threads * VEC4_BYTES,
        };
        // The output starts as NaN, which no kernel writes and no check accepts (it asks for
        // a finite value): an element a kernel skips fails. (It was random data, made per row
        // with the inputs at seconds per row on a large GPU; NaN costs a fill.)
        let output = filled_f32_buffer(ctx, "stream c", output_bytes / 4, f32::NAN, OUTPUT)?;
        let inputs = self.input_buffers(ctx, &params, self.input(0), self.input(1));
        let mut bindings: Vec<(u32, &wgpu::Buffer)> = inputs
            .iter()
            .enumerate()
            .map(|(slot, buffer)| (slot as u32, buffer))
            .collect();
        bindings.push((3, &output));
        // Starts as NaN's bits, which no walk count is: an invocation that never ran fails.
        let walks = self
            .counts_walks()
            .then(|| filled_f32_buffer(ctx, "stream walks", threads, f32::NAN, OUTPUT))
            .transpose()?;
        if let Some(walks) = &walks {
            bindings.push((4, walks));
        }
        let (entry, constants) = self.pipeline_entry();
        let pipeline = compute_pipeline_with(ctx, entry, self.shader, entry, &constants);
        let dispatch = DispatchKernel::new(ctx, entry, pipeline, &bindings, (grid.workgroups, 1));
        Ok(StreamState {
            dispatch,
            output,
            walks,
            threads,
            _inputs: inputs,
        })
    }

    /// Every walk's bytes: each reads the inputs and writes the output array again (and a
    /// repeating kernel one word of walks an invocation); the reduction writes its partial sums
    /// once per dispatch.
    fn work(&self, state: &StreamState) -> Work {
        let repeats = u64::from(self.repeats);
        let counts = if state.walks.is_some() {
            state.threads * 4
        } else {
            0
        };
        let written = match self.spec.output {
            Output::Array => repeats * self.bytes + counts,
            Output::Partials => state.threads * VEC4_BYTES,
        };
        Work::bytes(repeats * self.spec.inputs * self.bytes, written)
    }

    async fn run(&self, state: &mut StreamState, clock: &mut SampleClock<'_>) -> Outcome {
        state.dispatch.run(clock)
    }

    /// Every element of the output, read where it was mapped.
    async fn verify(&self, state: &mut StreamState, ctx: &GpuContext) -> Outcome<Verification> {
        let kernel = self.spec.kernel;
        let a = self.input(0);
        if self.spec.output == Output::Partials {
            let walks = (state.threads as usize, self.repeats);
            return with_f32(ctx, &state.output, |got| verify_partial_sums(got, a, walks)).await;
        }
        let (len, b) = (self.elements() as usize * 4, self.input(1));
        let check = self.check;
        let array = with_f32(ctx, &state.output, |got| {
            check_array_as(check, kernel, got, len, (a, b))
        })
        .await?;
        let Some(walks) = &state.walks else {
            return Ok(array);
        };
        let repeats = self.repeats;
        with_f32(ctx, walks, |got| {
            check_walks(Checker::continuing(array), got, repeats)
        })
        .await
    }
}

/// Every invocation's walk count (the words read back as f32 bits) against `repeats`, after
/// what `checker` compared already: one that made fewer walks, or never ran (its word still
/// NaN's bits), fails.
fn check_walks(mut checker: Checker, got: &[f32], repeats: u32) -> Verification {
    let want = f64::from(repeats);
    for (t, word) in got.iter().enumerate() {
        let made = f64::from(word.to_bits());
        checker.check(made, want, want, Tolerance::EXACT, || {
            format!("invocation {t}'s walks")
        });
    }
    checker.finish()
}

/// The first element invocation `t` handles in walk `r`: that of invocation `t + r x WORKGROUP`,
/// modulo the grid (stream.wgsl's `next_first` steps it walk after walk).
fn first(t: usize, r: u32, threads: usize) -> usize {
    let shift = (r as usize * WORKGROUP as usize) % threads;
    (t + shift) % threads
}

/// A partial sum of `terms` inputs: exact while it cannot leave f32's integers of
/// [`gpubench_harness::kit::inputs::INPUT_STEP`], else the classic bound for a sum in any order.
pub fn partial_sum_tolerance(terms: u64) -> Tolerance {
    if terms <= EXACT_SUM_TERMS {
        Tolerance::EXACT
    } else {
        Tolerance::f32_sum(terms)
    }
}

/// Checks the reduction's partials: in each of `repeats` walks, invocation t summed elements
/// v, v + threads, ... of `a` with v = [`first`]`(t, walk)`, and wrote the sum over the walks.
fn verify_partial_sums(got: &[f32], a: &[f32], (threads, repeats): (usize, u32)) -> Verification {
    let mut checker = Checker::new();
    if got.len() != threads * 4 {
        checker.fail(format!(
            "{} partial sums, expected {}",
            got.len() / 4,
            threads
        ));
        return checker.finish();
    }
    // What one walk gives each invocation's slot, and how many terms it adds.
    let mut walk = vec![[0.0f64; 4]; threads];
    let mut terms = vec![0u64; threads];
    for i in 0..a.len() / 4 {
        let v = i % threads;
        terms[v] += 1;
        for k in 0..4 {
            walk[v][k] += f64::from(a[4 * i + k]);
        }
    }
    for t in 0..threads {
        let mut want = [0.0f64; 4];
        let mut count = 0;
        for r in 0..repeats {
            let v = first(t, r, threads);
            count += terms[v];
            for k in 0..4 {
                want[k] += walk[v][k];
            }
        }
        let tol = partial_sum_tolerance(count);
        for (k, &w) in want.iter().enumerate() {
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

    /// Every invocation must have made every walk: one that made fewer, or never ran (its word
    /// still NaN's bits), fails, named; the array's check and this one count as one.
    #[test]
    fn every_invocation_must_make_every_walk() {
        let all = check_walks(Checker::new(), &[f32::from_bits(3); 4], 3);
        assert!(all.passed());
        assert_eq!(all.checked, 4);
        let got = [3, 3, 1, f32::NAN.to_bits()].map(f32::from_bits);
        let short = check_walks(Checker::new(), &got, 3);
        assert_eq!((short.checked, short.mismatches), (4, 2));
        assert_eq!(
            short.first_mismatches[0],
            "invocation 2's walks: got 1, expected 3"
        );
        let both = check_walks(Checker::continuing(all), &got, 3);
        assert_eq!((both.checked, both.mismatches), (8, 2));
        assert!(!both.passed());
    }

    #[test]
    fn the_table_is_indexed_by_its_kernels() {
        for kernel in StreamKernel::ALL {
            assert_eq!(kernel.spec().kernel, kernel);
        }
    }

    /// What the reduction writes, replayed in f32 on the CPU: invocation t sums, walk by walk,
    /// the elements of invocation `slot(t, r)`.
    fn replay(
        a: &[f32],
        threads: usize,
        repeats: u32,
        slot: impl Fn(usize, u32) -> usize,
    ) -> Vec<f32> {
        let n = a.len() / 4;
        let mut sums = vec![0.0f32; threads * 4];
        for t in 0..threads {
            for r in 0..repeats {
                for i in (slot(t, r)..n).step_by(threads) {
                    for k in 0..4 {
                        sums[4 * t + k] += a[4 * i + k];
                    }
                }
            }
        }
        sums
    }

    /// The old reference, element `i`, component `k`, as it was built into a vector per row.
    fn reference(kernel: StreamKernel, i: usize, k: usize, a: &[f32], b: &[f32]) -> f64 {
        let x = 4 * i + k;
        let s = f64::from(SCALAR);
        match kernel {
            StreamKernel::Copy => f64::from(a[x]),
            StreamKernel::Scale => s * f64::from(a[x]),
            StreamKernel::Add => f64::from(a[x]) + f64::from(b[x]),
            StreamKernel::Triad => f64::from(a[x]) + s * f64::from(b[x]),
            StreamKernel::Fill => (f64::from((i & 0xffff) as u32) + k as f64) * s,
            StreamKernel::Read => unreachable!("read is verified by partial sums"),
        }
    }

    /// What the GPU writes for an array kernel, in f32 as stream.wgsl computes it.
    fn gpu_output(kernel: StreamKernel, a: &[f32], b: &[f32], len: usize) -> Vec<f32> {
        (0..len)
            .map(|x| match kernel {
                StreamKernel::Copy => a[x],
                StreamKernel::Scale => SCALAR * a[x],
                StreamKernel::Add => a[x] + b[x],
                StreamKernel::Triad => a[x] + SCALAR * b[x],
                StreamKernel::Fill => (((x / 4) & 0xffff) as f32 + (x % 4) as f32) * SCALAR,
                StreamKernel::Read => f32::NAN,
            })
            .collect()
    }

    #[test]
    fn the_fast_check_passes_right_answers_and_names_a_wrong_element() {
        // More than 2^16 elements, so the fill's index wraps.
        let len = 4 * 70_000;
        let inputs = StreamInputs::new(len as u64 * 4, 11);
        let (a, b) = (inputs.a(), inputs.b());
        for kernel in StreamKernel::ALL
            .into_iter()
            .filter(|&k| k != StreamKernel::Read)
        {
            let mut got = gpu_output(kernel, a, b, len);
            let v = check_array(kernel, &got, len, (a, b));
            assert!(v.passed(), "{kernel:?}: {:?}", v.first_mismatches);
            assert_eq!(v.checked, len as u64);
            // It accepts what the old reference accepted, element for element.
            let want: Vec<f64> = (0..len)
                .map(|x| reference(kernel, x / 4, x % 4, a, b))
                .collect();
            let old = gpubench_harness::kit::verify::compare_f32(&got, &want, kernel.tolerance());
            assert_eq!(old.passed(), v.passed());
            // A wrong element fails, named; so does one never written (the NaN pre-fill).
            got[123_457] = got[123_457] * 1.5 + 0.25;
            got[200_000] = f32::NAN;
            let v = check_array(kernel, &got, len, (a, b));
            assert_eq!(v.mismatches, 2, "{kernel:?}");
            assert!(
                v.first_mismatches[0].starts_with("element 123457:"),
                "{v:?}"
            );
            assert!(
                v.first_mismatches[1].starts_with("element 200000: got NaN"),
                "{v:?}"
            );
            assert!(!check_array(kernel, &got[4..], len, (a, b)).passed());
        }
        assert!(!check_array(StreamKernel::Read, &[], 0, (a, b)).passed());
    }

    #[test]
    fn a_sampled_check_reads_the_edges_a_spread_and_every_block_edge() {
        let len = 3 * SPREAD + 5 * BLOCK_FLOATS + 7;
        let inputs = StreamInputs::new(len as u64 * 4, 2);
        let (a, b) = (inputs.a(), inputs.b());
        let mut got = gpu_output(StreamKernel::Triad, a, b, len);
        let sample =
            |got: &[f32]| check_array_as(Check::Sample, StreamKernel::Triad, got, len, (a, b));
        let v = sample(&got);
        assert!(v.passed());
        assert!(
            v.checked > SPREAD as u64 && v.checked < len as u64 / 2,
            "{}",
            v.checked
        );
        // Between the spread's points and the block edges nothing is read...
        got[BLOCK_FLOATS + 1] = f32::NAN;
        assert!(sample(&got).passed());
        assert!(!check_array(StreamKernel::Triad, &got, len, (a, b)).passed());
        // ...but a block's edge, the spread, and both ends are.
        for x in [0, 3, 2 * BLOCK_FLOATS - 1, 6 * BLOCK_FLOATS, len - 1] {
            let mut wrong = got.clone();
            wrong[x] = f32::NAN;
            let v = sample(&wrong);
            assert!(
                v.first_mismatches[0].starts_with(&format!("element {x}:")),
                "{v:?}"
            );
        }
    }

    #[test]
    fn shared_inputs_are_what_each_row_made_for_itself() {
        let (bytes, seed) = (4096 * VEC4_BYTES, 21);
        // Each row's set-up before: a, then b, from one generator at the seed.
        let mut rng = SplitMix64::new(seed);
        let a = exact_inputs(&mut rng, (bytes / 4) as usize);
        let b = exact_inputs(&mut rng, (bytes / 4) as usize);
        let shared = StreamInputs::new(bytes, seed);
        // b first: it must still continue the generator after a.
        assert_eq!(shared.b(), b.as_slice());
        assert_eq!(shared.a(), a.as_slice());
        let triad = Stream::sharing(StreamKernel::Triad, shared.clone());
        assert_eq!(
            (triad.input(0), triad.input(1)),
            (a.as_slice(), b.as_slice())
        );
        let copy = Stream::sharing(StreamKernel::Copy, shared.clone());
        assert_eq!((copy.input(0), copy.input(1)), (a.as_slice(), &[][..]));
        assert!(
            Stream::sharing(StreamKernel::Fill, shared)
                .input(0)
                .is_empty()
        );
        let own = Stream::new(StreamKernel::Add, bytes, seed);
        assert_eq!((own.input(0), own.input(1)), (a.as_slice(), b.as_slice()));
        assert_eq!(own.info().id, "stream/add/vec4-f32/64KiB");
    }

    #[test]
    fn partial_sums_catch_a_dropped_element() {
        let mut rng = SplitMix64::new(9);
        let a = exact_inputs(&mut rng, 64);
        let threads = 4;
        let mut sums = replay(&a, threads, 1, |t, _| t);
        assert!(verify_partial_sums(&sums, &a, (threads, 1)).passed());
        sums[5] -= a[5];
        assert!(!verify_partial_sums(&sums, &a, (threads, 1)).passed());
    }

    #[test]
    fn repeated_walks_are_checked_exactly_with_their_rotation() {
        // Two workgroups, four elements per invocation, three walks: exact sums of 12 terms.
        let threads = 2 * WORKGROUP as usize;
        let mut rng = SplitMix64::new(3);
        let a = exact_inputs(&mut rng, 4 * threads * 4);
        let repeats = 3;
        let mut sums = replay(&a, threads, repeats, |t, r| first(t, r, threads));
        assert!(verify_partial_sums(&sums, &a, (threads, repeats)).passed());
        // One walk short, or every walk over the invocation's own elements (no rotation),
        // or one element dropped: each fails.
        let once = replay(&a, threads, repeats - 1, |t, r| first(t, r, threads));
        assert!(!verify_partial_sums(&once, &a, (threads, repeats)).passed());
        let unrotated = replay(&a, threads, repeats, |t, _| t);
        assert!(!verify_partial_sums(&unrotated, &a, (threads, repeats)).passed());
        sums[7] -= a[7];
        assert!(!verify_partial_sums(&sums, &a, (threads, repeats)).passed());
        assert!(!verify_partial_sums(&sums[4..], &a, (threads, repeats)).passed());
    }

    #[test]
    fn repeats_choose_the_repeating_entry_point_and_keep_the_id() {
        let once = Stream::new(StreamKernel::Read, 1 << 20, 1);
        let id = once.info().id;
        let many = once.with_repeats(4);
        assert_eq!((many.entry, many.repeats()), ("read_sum_repeated", 4));
        assert_eq!(many.info().id, id);
        assert_eq!(many.info().params["repeats"], 4);
        let back = many.with_repeats(0);
        assert_eq!((back.entry, back.repeats()), ("read_sum", 1));
        // Another shader's kernel has no repeating form: it walks once.
        let other = Stream::with_shader(StreamKernel::Copy, 4096, 1, "", "broken", "selftest");
        assert_eq!(other.with_repeats(8).repeats(), 1);
    }

    #[test]
    fn the_reduction_stays_exact_at_its_repeat_cap() {
        let read = StreamKernel::Read.spec();
        let terms = u64::from(read.max_repeats()) * read.per_invocation;
        assert!(terms <= EXACT_SUM_TERMS);
        assert_eq!(partial_sum_tolerance(terms), Tolerance::EXACT);
        assert_ne!(partial_sum_tolerance(EXACT_SUM_TERMS + 1), Tolerance::EXACT);
        // The largest exact sum: every term at its maximum, still an f32 integer of steps.
        let top =
            (1.5 - f64::from(gpubench_harness::kit::inputs::INPUT_STEP)) * EXACT_SUM_TERMS as f64;
        assert_eq!(f64::from(top as f32), top);
        assert_eq!(StreamKernel::Triad.spec().max_repeats(), MAX_REPEATS);
        assert_eq!(StreamKernel::Triad.spec().bytes_per_walk(1024), 3 * 1024);
        assert_eq!(read.bytes_per_walk(1024), 1024);
        assert_eq!(StreamKernel::Fill.spec().bytes_per_walk(1024), 1024);
    }
}
