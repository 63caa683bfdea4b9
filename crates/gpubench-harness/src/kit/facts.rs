//! What a suite may read from the adapter to choose its kernels: limits, subgroup sizes, whether
//! it is a CPU. Plain data, so the choices are tested without a GPU (an H200's or an M3's facts
//! written out in a test).

use crate::GpuContext;

/// The adapter's facts a suite chooses its kernels by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdapterFacts {
    /// The adapter is a CPU (`DeviceType::Cpu`).
    pub cpu: bool,
    /// SUBGROUP is enabled on the device.
    pub subgroups: bool,
    /// The largest subgroup size the adapter may use.
    pub subgroup_max: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub max_invocations: u32,
    /// `max_compute_workgroup_storage_size`, bytes.
    pub max_workgroup_bytes: u32,
}

impl AdapterFacts {
    /// The facts of `ctx`'s adapter and device.
    pub fn of(ctx: &GpuContext) -> Self {
        let info = ctx.adapter.get_info();
        Self {
            cpu: info.device_type == wgpu::DeviceType::Cpu,
            subgroups: ctx.features.contains(wgpu::Features::SUBGROUP),
            subgroup_max: info.subgroup_max_size.max(1),
            max_invocations: ctx.limits.max_compute_invocations_per_workgroup,
            max_workgroup_bytes: ctx.limits.max_compute_workgroup_storage_size,
        }
    }
}
