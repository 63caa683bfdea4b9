//! One request's buffers on the device, and the four steps of its path as an application writes
//! them with wgpu: the host prepares the input in a mapped staging buffer, a copy uploads it,
//! the kernel computes, a copy returns the output into a mappable buffer, and the host maps it
//! and checks it. Requests in flight at once each have a slot of their own, so no buffer (and
//! therefore no barrier) orders one request after another.

use gpubench_harness::kit::gpu::{OUTPUT, SpecialisedShader, bind_buffers, uniform_buffer};
use gpubench_harness::{BenchError, GpuContext};

use super::reference::{Mismatches, Reference, STEP};
use super::request::Request;
use super::stage::Stage;

/// The kernel's uniform block, laid out as `Params` in `datapath.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n_in: u32,
    n_out: u32,
    steps: u32,
    _pad: u32,
    a: f32,
    b: f32,
    _pad1: u32,
    _pad2: u32,
}

/// Workgroup size of `datapath.wgsl`.
const WORKGROUP: u64 = 64;

/// The compiled request kernel, shared by every slot of a benchmark.
pub struct RequestKernel {
    pipeline: wgpu::ComputePipeline,
    grid: (u32, u32),
}

impl RequestKernel {
    /// The pipeline, and the grid that gives every output word one invocation.
    pub fn new(ctx: &GpuContext, request: &Request) -> Self {
        let shader = SpecialisedShader::plain(super::WGSL, "request");
        let groups = request.output_words().div_ceil(WORKGROUP).max(1);
        let max = u64::from(ctx.limits.max_compute_workgroups_per_dimension).max(1);
        let grid = if groups <= max {
            (groups as u32, 1)
        } else {
            (max as u32, groups.div_ceil(max) as u32)
        };
        Self {
            pipeline: shader.pipeline(ctx, "datapath request"),
            grid,
        }
    }
}

/// The buffers of one request in flight.
pub struct Slot {
    /// Where the host writes the input (MAP_WRITE, COPY_SRC).
    pub staging: wgpu::Buffer,
    input: wgpu::Buffer,
    output: wgpu::Buffer,
    /// Where the output comes back (MAP_READ, COPY_DST).
    pub readback: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    input_bytes: u64,
    output_bytes: u64,
    /// The last submission that used this slot's buffers.
    pub last_submission: Option<wgpu::SubmissionIndex>,
}

impl Slot {
    /// A slot for `request` (allocation failures skip the benchmark, as out of memory).
    pub async fn new(
        ctx: &GpuContext,
        request: &Request,
        kernel: &RequestKernel,
    ) -> Result<Slot, BenchError> {
        use wgpu::BufferUsages as U;
        let (input_bytes, output_bytes) = (request.input_bytes, request.output_bytes);
        let staging = ctx
            .try_buffer("datapath staging", input_bytes, U::MAP_WRITE | U::COPY_SRC)
            .await?;
        let input = ctx
            .try_buffer("datapath input", input_bytes, U::STORAGE | U::COPY_DST)
            .await?;
        let output = ctx
            .try_buffer("datapath output", output_bytes, OUTPUT)
            .await?;
        let readback = ctx
            .try_buffer("datapath readback", output_bytes, U::MAP_READ | U::COPY_DST)
            .await?;
        let params = Params {
            n_in: request.input_groups() as u32,
            n_out: request.output_words() as u32,
            steps: request.steps as u32,
            _pad: 0,
            a: 1.0,
            b: STEP,
            _pad1: 0,
            _pad2: 0,
        };
        let uniform = uniform_buffer(ctx, "datapath params", &params);
        let bind_group = bind_buffers(
            ctx,
            &kernel.pipeline,
            &[(0, &uniform), (1, &input), (2, &output)],
        );
        Ok(Slot {
            staging,
            input,
            output,
            readback,
            bind_group,
            input_bytes,
            output_bytes,
            last_submission: None,
        })
    }

    /// Prepares request `salt`'s input in the staging buffer: maps it once the slot's last
    /// submission is done (other slots' work stays in flight), writes, unmaps.
    pub async fn prepare(
        &self,
        ctx: &GpuContext,
        reference: &Reference,
        salt: u32,
    ) -> Result<(), BenchError> {
        ctx.map_after(
            &self.staging,
            wgpu::MapMode::Write,
            self.last_submission.clone(),
        )
        .await?;
        {
            let mut range = self.staging.get_mapped_range_mut(..)?;
            reference.prepare(range.slice(..), salt);
        }
        self.staging.unmap();
        Ok(())
    }

    /// Records the upload.
    pub fn encode_upload(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_buffer_to_buffer(&self.staging, 0, &self.input, 0, self.input_bytes);
    }

    /// Records the kernel, with `timestamps` on its pass where given.
    pub fn encode_compute<'a>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        kernel: &RequestKernel,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'a>>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("datapath request"),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(kernel.grid.0, kernel.grid.1, 1);
    }

    /// Records the whole device part of a request: upload, kernel, download.
    pub fn encode_request(&self, encoder: &mut wgpu::CommandEncoder, kernel: &RequestKernel) {
        self.encode_upload(encoder);
        self.encode_compute(encoder, kernel, None);
        self.encode_download(encoder);
    }

    /// Records the return of the output into the mappable buffer.
    pub fn encode_download(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_buffer_to_buffer(&self.output, 0, &self.readback, 0, self.output_bytes);
    }

    /// The device buffer `stage` writes: the input for the upload, the output for the
    /// kernel, the readback for the download; none for the host's stages.
    pub fn written_by(&self, stage: Stage) -> Option<&wgpu::Buffer> {
        match stage {
            Stage::Upload => Some(&self.input),
            Stage::Compute => Some(&self.output),
            Stage::Download => Some(&self.readback),
            Stage::Prepare | Stage::Check => None,
        }
    }

    /// Records the device stages of a request that come after `stage` (all of them after the
    /// prepare, none after the download).
    pub fn encode_after(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        kernel: &RequestKernel,
        stage: Stage,
    ) {
        if stage < Stage::Upload {
            self.encode_upload(encoder);
        }
        if stage < Stage::Compute {
            self.encode_compute(encoder, kernel, None);
        }
        if stage < Stage::Download {
            self.encode_download(encoder);
        }
    }

    /// Maps the returned output once the slot's last submission is done.
    pub async fn map_output(&self, ctx: &GpuContext) -> Result<(), BenchError> {
        ctx.map_after(
            &self.readback,
            wgpu::MapMode::Read,
            self.last_submission.clone(),
        )
        .await
    }

    /// Checks the mapped output against request `salt`'s answer (every word, or the sample of
    /// [`super::reference::CHECKED_WORDS`]), then unmaps it.
    pub fn check_output(
        &self,
        reference: &Reference,
        salt: u32,
        every_word: bool,
    ) -> Result<Mismatches, BenchError> {
        let found = {
            let range = self.readback.get_mapped_range(..)?;
            reference.mismatches(&range, salt, every_word)
        };
        self.readback.unmap();
        Ok(found)
    }
}
