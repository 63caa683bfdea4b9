//! Small helpers shared by the suites: pipelines, bind groups, dispatch geometry.

use gpubench_harness::{BenchError, GpuContext};

/// Creates a compute pipeline for `entry` in `source`, with the layout derived from the shader.
pub fn compute_pipeline(
    ctx: &GpuContext,
    label: &str,
    source: &str,
    entry: &str,
) -> wgpu::ComputePipeline {
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
    ctx.device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
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

/// Bytes read back from the GPU as f32 values (copied: mapped ranges need not be aligned).
pub fn bytes_to_f32(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Maps all of `buffer` for `mode` and blocks until the mapping is ready (or failed). Used
/// inside timed regions by the transfer paths, where waiting for the map is part of the cost.
pub fn map_and_wait(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    mode: wgpu::MapMode,
) -> Result<(), BenchError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.map_async(mode, .., move |result| {
        // The receiver is alive until the poll below has answered; nothing to do if not.
        let _ = sender.send(result);
    });
    ctx.device.poll(wgpu::PollType::wait_indefinitely())?;
    receiver
        .recv()
        .map_err(|_| BenchError::Readback("buffer mapping was never answered".to_string()))??;
    Ok(())
}
