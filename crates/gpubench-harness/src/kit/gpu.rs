//! Small helpers shared by the suites: pipelines, bind groups, the single-dispatch timed region,
//! dispatch geometry, limit checks and shader specialisation.
//!
//! # Runtime checks
//!
//! Every pipeline of every suite is built here, so this is where naga's runtime checks are
//! chosen. A module from plain `create_shader_module` carries them: a 64-bit loop counter,
//! emulated with a `vec2<u32>`, in every loop (`force_loop_bounding`), index clamping on
//! arrays and on buffers where the driver promises no robust access (`bounds_checks`, clamping
//! every storage access on Metal), and guards around integer division. All of it sits inside
//! the timed loops. gpubench therefore builds its modules with
//! `create_shader_module_trusted(.., ShaderRuntimeChecks::unchecked())`, unless the run asks
//! for the checks ([`ShaderChecks::On`], `--shader-checks on`, to measure what they cost).
//! Device-level robustness (Vulkan's `robustBufferAccess`, which wgpu enables when it creates
//! the device) is not a property of the module and stays as it is either way.
//!
//! Why unchecked is sound here. Its contract (wgpu's `create_shader_module_trusted`) is that the
//! shader indexes nothing out of bounds, has no infinite loop and divides no integer by zero or
//! `i32::MIN` by -1. gpubench's shaders are its own, never user input: every loop is bounded by
//! a constant or by a size from a uniform block, every access past a ragged edge is guarded by
//! the shader's own bound test (grid-stride loops, the matmul's edge tests), and integer
//! divisors are constants or sizes the host checked. And every kernel's output is verified
//! against a CPU reference before anything is timed: a kernel that strayed would be reported as
//! failed, never as a number.
//!
//! The choice is the context's ([`GpuContext::shader_checks`], set for a run by
//! [`ShaderChecksScope`]), and every kernel already receives the context, so every kernel of
//! every suite honours it; the context also counts the pipelines built, so a run records the
//! choice in its options and, through [`record_shader_checks`], in every result whose benchmark
//! built a pipeline.

use crate::{BenchError, BenchResult, GpuContext, SampleClock};
use gpubench_results::units::format_size;

pub use crate::shader_checks::ShaderChecks;

/// The usage of a kernel's output: storage the kernel writes, that its check reads back
/// (COPY_SRC) and that the runner overwrites between the first check and the timed runs (COPY_DST;
/// see [`crate::read_log`]), so the check after them sees what they wrote.
pub const OUTPUT: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// While it lives, pipelines built on `ctx` use `checks`; dropping it restores the choice in
/// force before.
#[must_use = "the choice lasts only while the scope lives"]
pub struct ShaderChecksScope<'a> {
    ctx: &'a GpuContext,
    previous: ShaderChecks,
}

impl<'a> ShaderChecksScope<'a> {
    /// Pipelines built on `ctx` use `checks` until the scope drops.
    pub fn enter(ctx: &'a GpuContext, checks: ShaderChecks) -> Self {
        Self {
            ctx,
            previous: ctx.set_shader_checks(checks),
        }
    }
}

impl Drop for ShaderChecksScope<'_> {
    fn drop(&mut self) {
        self.ctx.set_shader_checks(self.previous);
    }
}

/// Adds the `shader_checks` param to `result` when its benchmark built a pipeline on `ctx` since
/// the count was `before` (see [`GpuContext::pipelines_built`]): results are compared across
/// files, and the checks change what a kernel costs. Copies and host-side rows, which compile no
/// shader, do not carry it.
pub fn record_shader_checks(ctx: &GpuContext, result: &mut BenchResult, before: u64) {
    if ctx.pipelines_built() > before {
        result
            .params
            .insert("shader_checks".into(), ctx.shader_checks().name().into());
    }
}

/// The shader module for `source`, with the runtime checks of the current scope.
fn shader_module(ctx: &GpuContext, label: &str, source: &str) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    match ctx.shader_checks() {
        ShaderChecks::On => ctx.device.create_shader_module(desc),
        // SAFETY: gpubench's own shaders keep every access in bounds, bound every loop and
        // divide by no zero (see the module docs), and each kernel's output is verified
        // against a CPU reference before it is timed.
        ShaderChecks::Off => unsafe {
            ctx.device
                .create_shader_module_trusted(desc, ShaderChecks::Off.runtime_checks())
        },
    }
}

/// Creates a compute pipeline for `entry` in `source`, with the layout derived from the shader
/// and the runtime checks of the current [`ShaderChecksScope`].
pub fn compute_pipeline(
    ctx: &GpuContext,
    label: &str,
    source: &str,
    entry: &str,
) -> wgpu::ComputePipeline {
    compute_pipeline_with(ctx, label, source, entry, &[])
}

/// As [`compute_pipeline`], with values for the shader's `override` constants, by name.
pub fn compute_pipeline_with(
    ctx: &GpuContext,
    label: &str,
    source: &str,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    compute_pipeline_zeroing(ctx, label, (source, entry), constants, true)
}

/// As [`compute_pipeline_with`], zeroing workgroup memory before the kernel runs only when
/// `zero_init` says. A kernel that writes all of its workgroup memory before reading it turns
/// it off: the zeroing is wasted stores on every adapter, and on GL (naga writes it as one
/// constructor of every element) it costs llvmpipe minutes to compile for a 16 KiB array.
pub fn compute_pipeline_zeroing(
    ctx: &GpuContext,
    label: &str,
    (source, entry): (&str, &str),
    constants: &[(&str, f64)],
    zero_init: bool,
) -> wgpu::ComputePipeline {
    let module = shader_module(ctx, label, source);
    let pipeline = ctx
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                zero_initialize_workgroup_memory: zero_init,
            },
            cache: None,
        });
    ctx.count_pipeline_built();
    pipeline
}

/// A shader as one pipeline uses it: the WGSL source (after any alias rewriting by
/// [`specialise`]), the entry point, and the values of the shader's `override` constants.
///
/// Constants travel as pipeline constants, so the shader file itself is what runs: no text is
/// pasted into it, and naga checks that every name given is an `override` the shader declares.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecialisedShader {
    /// WGSL source.
    pub source: String,
    /// The entry point to compile.
    pub entry: String,
    /// `(name, value)` for each `override` the pipeline sets.
    pub constants: Vec<(&'static str, f64)>,
}

impl SpecialisedShader {
    /// `entry` of `source` with no pipeline constants.
    pub fn plain(source: &str, entry: &str) -> Self {
        Self {
            source: source.to_string(),
            entry: entry.to_string(),
            constants: Vec::new(),
        }
    }

    /// This shader with `constants` as its pipeline constants.
    pub fn with_constants(mut self, constants: Vec<(&'static str, f64)>) -> Self {
        self.constants = constants;
        self
    }

    /// The compute pipeline for this entry point with these constants, its layout derived
    /// from the shader.
    pub fn pipeline(&self, ctx: &GpuContext, label: &str) -> wgpu::ComputePipeline {
        compute_pipeline_with(ctx, label, &self.source, &self.entry, &self.constants)
    }

    /// [`Self::pipeline`] without wgpu's zeroing of workgroup memory, for a kernel that writes
    /// every workgroup element it reads first (see [`compute_pipeline_zeroing`]).
    pub fn pipeline_unzeroed(&self, ctx: &GpuContext, label: &str) -> wgpu::ComputePipeline {
        compute_pipeline_zeroing(
            ctx,
            label,
            (&self.source, &self.entry),
            &self.constants,
            false,
        )
    }
}

/// A bind group for group 0 of `pipeline` with `(binding, buffer)` pairs.
pub fn bind_buffers(
    ctx: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    buffers: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
        .iter()
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

/// One compute pipeline bound to its buffers and dispatched over a fixed grid: the common case
/// of a single-kernel benchmark's timed region.
pub struct DispatchKernel {
    /// The pipeline to run.
    pub pipeline: wgpu::ComputePipeline,
    /// Its group 0 bindings.
    pub bind_group: wgpu::BindGroup,
    /// Workgroups in x and y.
    pub grid: (u32, u32),
    /// Label of the compute pass (shows in GPU captures).
    pub label: String,
}

impl DispatchKernel {
    /// `pipeline` bound to `buffers` as `(binding, buffer)` pairs of group 0, over `grid`.
    pub fn new(
        ctx: &GpuContext,
        label: impl Into<String>,
        pipeline: wgpu::ComputePipeline,
        buffers: &[(u32, &wgpu::Buffer)],
        grid: (u32, u32),
    ) -> Self {
        let bind_group = bind_buffers(ctx, &pipeline, buffers);
        Self {
            pipeline,
            bind_group,
            grid,
            label: label.into(),
        }
    }

    /// Records `iterations` dispatches into `pass` (pipeline and bind group set once).
    pub fn encode(&self, pass: &mut wgpu::ComputePass<'_>, iterations: u32) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        for _ in 0..iterations {
            pass.dispatch_workgroups(self.grid.0, self.grid.1, 1);
        }
    }

    /// The timed region: `iterations` dispatches in one compute pass bracketed by the clock's
    /// timestamps, then one submit.
    pub fn submit(&self, ctx: &GpuContext, clock: &mut SampleClock<'_>, iterations: u32) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&self.label),
                timestamp_writes: clock.pass_timestamps(true, true),
            });
            self.encode(&mut pass, iterations);
        }
        clock.submit([encoder.finish()]);
    }

    /// `iterations` dispatches in one compute pass and one submit, untimed: work a kernel's
    /// set-up does before any sample (walking a cycle once so a cache holds it).
    pub fn submit_untimed(&self, ctx: &GpuContext, iterations: u32) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&self.label),
                timestamp_writes: None,
            });
            self.encode(&mut pass, iterations);
        }
        ctx.queue.submit([encoder.finish()]);
    }

    /// A single-dispatch kernel's whole `Kernel::run`: the sample's iterations through
    /// [`Self::submit`] on the clock's context.
    pub fn run(&self, clock: &mut SampleClock<'_>) -> crate::Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        self.submit(ctx, clock, iterations);
        Ok(())
    }
}

/// Reads all of `buffer` (which needs COPY_SRC) back as f32 values (one copy, straight from
/// the mapped range).
pub async fn read_f32(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<f32>, BenchError> {
    ctx.read_buffer_with(buffer, buffer.size(), bytes_to_f32)
        .await
}

/// Reads all of `buffer` (which needs COPY_SRC) back and lends it to `read` as f32 values,
/// without copying them where the mapped range is aligned for f32 (it is on every backend
/// seen so far; a misaligned one is copied once). A check over a large GPU's 1 GiB arrays
/// must not pay for copies it does not need.
pub async fn with_f32<T>(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    read: impl FnOnce(&[f32]) -> T,
) -> Result<T, BenchError> {
    ctx.read_buffer_with(buffer, buffer.size(), |bytes| {
        let whole = &bytes[..bytes.len() / 4 * 4];
        match bytemuck::try_cast_slice::<u8, f32>(whole) {
            Ok(floats) => read(floats),
            Err(_) => read(&bytes_to_f32(whole)),
        }
    })
    .await
}

/// A buffer of `len` f32 values, every one `value`, written in place while it is mapped at
/// creation: no host array of the buffer's size is made for a pattern (a GiB on a large
/// GPU).
pub fn filled_f32_buffer(
    ctx: &GpuContext,
    label: &str,
    len: u64,
    value: f32,
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, BenchError> {
    filled_buffer(ctx, label, len * 4, &value.to_ne_bytes(), usage)
}

/// A buffer of `size` bytes holding `pattern` over and over (the last copy cut short where
/// `size` is not a multiple of it), written in place while it is mapped at creation: no host
/// array of the buffer's size is made. `size` must be a multiple of 4 (wgpu's mapping
/// alignment).
pub fn filled_buffer(
    ctx: &GpuContext,
    label: &str,
    size: u64,
    pattern: &[u8],
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer, BenchError> {
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: true,
    });
    {
        // The mapping is write-only (it may be write-combining memory): the pattern is copied
        // in from one small block, about a MiB at a time.
        let block: Vec<u8> = pattern.repeat(((1 << 20) / pattern.len().max(1)).max(1));
        let mut view = buffer.get_mapped_range_mut(..)?;
        let mut start = 0;
        while start < view.len() && !block.is_empty() {
            let end = (start + block.len()).min(view.len());
            view.slice(start..end)
                .copy_from_slice(&block[..end - start]);
            start = end;
        }
    }
    buffer.unmap();
    Ok(buffer)
}

/// Fills all of `target` (which needs COPY_DST) with copies of `block` (which needs COPY_SRC)
/// on the GPU, one copy command per block's length and the last one cut short, and submits
/// them: a pattern fill of a large buffer costs the host one small block and a few commands,
/// not a host array of the target's size. Both sizes must be multiples of 4 (wgpu's copy
/// alignment); a repeating pattern must fit the block a whole number of times.
pub fn fill_from_block(ctx: &GpuContext, block: &wgpu::Buffer, target: &wgpu::Buffer) {
    let step = block.size();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let mut start = 0;
    while start < target.size() && step > 0 {
        let size = step.min(target.size() - start);
        encoder.copy_buffer_to_buffer(block, 0, target, start, size);
        start += size;
    }
    ctx.queue.submit([encoder.finish()]);
}

/// Skips arrays larger than one storage binding or one buffer may be; `what` says what is
/// bound (`stream array`, `working set`), and a caller whose size an option sets adds that
/// option to the reason.
pub fn check_binding_fits(ctx: &GpuContext, bytes: u64, what: &str) -> Result<(), String> {
    let binding = ctx.limits.max_storage_buffer_binding_size;
    let buffer = ctx.limits.max_buffer_size;
    if bytes > binding || bytes > buffer {
        return Err(format!(
            "{what} of {} exceeds the adapter's limit (storage binding {}, buffer {})",
            format_size(bytes),
            format_size(binding),
            format_size(buffer)
        ));
    }
    Ok(())
}

/// Skips a buffer larger than the adapter's `max_buffer_size`.
pub fn check_buffer_fits(ctx: &GpuContext, bytes: u64) -> Result<(), String> {
    if bytes > ctx.limits.max_buffer_size {
        return Err(format!(
            "buffer of {} exceeds max_buffer_size ({})",
            format_size(bytes),
            format_size(ctx.limits.max_buffer_size)
        ));
    }
    Ok(())
}

/// A uniform buffer holding `params` (a kernel's uniform block, laid out as its WGSL struct).
pub fn uniform_buffer<T: bytemuck::Pod>(ctx: &GpuContext, label: &str, params: &T) -> wgpu::Buffer {
    ctx.buffer_with_data(
        label,
        bytemuck::bytes_of(params),
        wgpu::BufferUsages::UNIFORM,
    )
}

/// The geometry of a grid-stride kernel over `items`: what its uniform block says (the item
/// count and the invocations in the whole dispatch, both u32) and the workgroups to dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrideGrid {
    /// Items the kernel walks.
    pub items: u32,
    /// Workgroups in the dispatch ([`grid_workgroups`]).
    pub workgroups: u32,
    /// Invocations in the whole dispatch, the loop's stride.
    pub threads: u32,
}

impl StrideGrid {
    /// The grid of [`grid_workgroups`] for `items`, `workgroup` invocations per workgroup and
    /// about `per_invocation` items each; unsupported where `items` or the invocations do not
    /// fit the u32 a shader indexes with.
    pub fn new(
        ctx: &GpuContext,
        items: u64,
        workgroup: u32,
        per_invocation: u64,
    ) -> Result<Self, BenchError> {
        let too_long = || BenchError::Unsupported("array too long for u32 indexing".into());
        let workgroups = grid_workgroups(ctx, items, workgroup, per_invocation);
        let threads = u64::from(workgroups) * u64::from(workgroup);
        Ok(Self {
            items: u32::try_from(items).map_err(|_| too_long())?,
            workgroups,
            threads: u32::try_from(threads).map_err(|_| too_long())?,
        })
    }
}

impl StrideGrid {
    /// The uniform block of a grid-stride kernel over this grid that takes one scalar: the
    /// item count, `scalar`, the invocations, and `word`, the kernel's own last word.
    pub fn params(&self, scalar: f32, word: u32) -> StrideParams {
        StrideParams {
            n: self.items,
            scalar,
            threads: self.threads,
            word,
        }
    }
}

/// The uniform block the grid-stride kernels over vec4 or f32 arrays share (stream's, the
/// example's, the self-test's broken copy): in WGSL `struct Params { n: u32, scalar: f32,
/// threads: u32, word: u32 }`, whatever each shader names its fields.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StrideParams {
    /// Items in each array.
    pub n: u32,
    /// The kernel's scalar (stream's scale and triad, the example's `a`).
    pub scalar: f32,
    /// Invocations in the whole dispatch, the loop's stride.
    pub threads: u32,
    /// The kernel's own last word (stream's walks per dispatch; padding elsewhere).
    pub word: u32,
}

/// Workgroups for a grid-stride kernel over `items` with `workgroup` invocations each: enough
/// to give every invocation about `per_invocation` items, capped by the adapter's limit.
pub fn grid_workgroups(ctx: &GpuContext, items: u64, workgroup: u32, per_invocation: u64) -> u32 {
    let invocations = items.div_ceil(per_invocation.max(1));
    let groups = invocations.div_ceil(u64::from(workgroup)).max(1);
    groups.min(u64::from(ctx.limits.max_compute_workgroups_per_dimension)) as u32
}

/// f32 values as little-endian bytes.
pub fn f32_bytes(values: &[f32]) -> &[u8] {
    bytemuck::cast_slice(values)
}

/// Bytes read back from the GPU as f32 values (copied: mapped ranges need not be aligned); a
/// trailing partial word is dropped. One bulk copy in the host's byte order, as [`f32_bytes`]
/// uploads them: a value at a time took seconds per GiB.
pub fn bytes_to_f32(bytes: &[u8]) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(&bytes[..bytes.len() / 4 * 4])
}

/// Element type of a kernel's arithmetic and data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    /// 32-bit IEEE floats.
    F32,
    /// 16-bit IEEE floats (needs SHADER_F16).
    F16,
}

impl Precision {
    /// Name as used in ids and params.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F16 => "f16",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Precision::F32 => 4,
            Precision::F16 => 2,
        }
    }

    /// Device features this precision needs.
    pub fn features(self) -> wgpu::Features {
        match self {
            Precision::F32 => wgpu::Features::empty(),
            Precision::F16 => wgpu::Features::SHADER_F16,
        }
    }

    /// Unit roundoff (half the machine epsilon).
    pub fn unit_roundoff(self) -> f64 {
        match self {
            Precision::F32 => f64::from(f32::EPSILON) / 2.0,
            Precision::F16 => 2f64.powi(-11),
        }
    }

    /// The smallest positive normal number (below it values are subnormal, which WGSL lets an
    /// implementation flush to zero).
    pub fn smallest_normal(self) -> f64 {
        match self {
            Precision::F32 => f64::from(f32::MIN_POSITIVE),
            Precision::F16 => 2f64.powi(-14),
        }
    }
}

/// Specialises a shader written for f32 with type aliases and `const NAME: u32 = ...;` lines.
///
/// Shader sources stay valid WGSL on their own (the naga test validates each as its suite
/// declares it, in its f32 form); a variant is made by rewriting whole declaration lines, never
/// by pasting fragments: every `alias NAME = f32;` or `alias NAME = vec4<f32>;` line names its
/// type `f16` when
/// `precision` is [`Precision::F16`] (and `enable f16;` is prepended), except aliases listed in
/// `keep_f32` (e.g. an f32 accumulator); every constant in `consts` replaces its declaration.
/// A constant that the source does not declare is an error, so a typo cannot go unnoticed.
pub fn specialise(
    source: &str,
    precision: Precision,
    keep_f32: &[&str],
    consts: &[(&str, u32)],
) -> Result<String, String> {
    let mut found = vec![false; consts.len()];
    let mut out = String::with_capacity(source.len() + 16);
    if precision == Precision::F16 {
        out.push_str("enable f16;\n");
    }
    for line in source.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("alias ") {
            let name = rest.split('=').next().unwrap_or("").trim();
            if precision == Precision::F16 && !keep_f32.contains(&name) {
                out.push_str(&line.replace("f32", "f16"));
                out.push('\n');
                continue;
            }
        }
        if let Some(rest) = trimmed.strip_prefix("const ") {
            let name = rest.split(':').next().unwrap_or("").trim();
            if let Some(i) = consts.iter().position(|(n, _)| *n == name) {
                found[i] = true;
                out.push_str(&format!("const {name}: u32 = {}u;\n", consts[i].1));
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    if let Some(i) = found.iter().position(|f| !f) {
        return Err(format!("shader declares no constant {}", consts[i].0));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specialise_rewrites_aliases_and_constants() {
        let src = "alias T = f32;\nalias ACC = f32;\nconst TM: u32 = 4u;\nfn f() {}\n";
        let out = specialise(src, Precision::F16, &["ACC"], &[("TM", 8)]).expect("ok");
        assert!(out.starts_with("enable f16;\n"));
        assert!(out.contains("alias T = f16;"));
        assert!(out.contains("alias ACC = f32;"));
        assert!(out.contains("const TM: u32 = 8u;"));
        let same = specialise(src, Precision::F32, &[], &[]).expect("ok");
        assert_eq!(same, src);
        assert!(specialise(src, Precision::F32, &[], &[("TN", 2)]).is_err());
    }
}
