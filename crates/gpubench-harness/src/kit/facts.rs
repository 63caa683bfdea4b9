//! What a suite may read from the adapter to choose its kernels: limits, subgroup sizes, whether
//! it is a CPU. Plain data, so the choices are tested without a GPU (an H200's or an M3's facts
//! written out in a test).

use crate::GpuContext;
use crate::kit::gpu::Precision;

/// The adapter's facts a suite chooses its kernels by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdapterFacts {
    /// The adapter is a CPU (`DeviceType::Cpu`).
    pub cpu: bool,
    /// SUBGROUP is enabled on the device.
    pub subgroups: bool,
    /// The largest subgroup size the adapter may use ([`subgroup_max_of`]: 32 on an Apple GPU,
    /// whatever wgpu's Metal backend reports).
    pub subgroup_max: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub max_invocations: u32,
    /// `max_compute_workgroup_storage_size`, bytes.
    pub max_workgroup_bytes: u32,
    /// The vendor as [`gpubench_results::AdapterSummary::vendor`] gives it (`0x1002` AMD, `0x10DE`
    /// NVIDIA, `0x106B` Apple, Metal included; 0 where unknown).
    pub vendor: u32,
    /// The backend (wgpu's Metal reports subgroup ranges that are not Apple's lane count).
    pub backend: wgpu::Backend,
    /// The square cooperative-matrix configurations the device was given.
    pub coop: CoopMatrices,
}

/// AMD's PCI vendor id.
pub const VENDOR_AMD: u32 = 0x1002;
/// NVIDIA's PCI vendor id.
pub const VENDOR_NVIDIA: u32 = 0x10DE;
/// Intel's PCI vendor id.
pub const VENDOR_INTEL: u32 = 0x8086;
/// Apple's vendor id (see [`gpubench_results::AdapterSummary::vendor`]).
pub use gpubench_results::adapter::VENDOR_APPLE;

/// The square cooperative-matrix configurations an adapter offers (S x S x S products, S of 8
/// or 16, f16 or f32 data, f16 or f32 sums): plain bits, so facts stay `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CoopMatrices(u8);

impl CoopMatrices {
    /// No configuration (no `EXPERIMENTAL_COOPERATIVE_MATRIX`).
    pub const NONE: Self = Self(0);

    fn bit(size: u32, data: Precision, acc: Precision) -> Option<u8> {
        let s = match size {
            8 => 0,
            16 => 1,
            _ => return None,
        };
        let d = u8::from(data == Precision::F32);
        let a = u8::from(acc == Precision::F32);
        Some(1 << (s * 4 + d * 2 + a))
    }

    /// These configurations and `size` x `size` products of `data` summed in `acc` (a size
    /// other than 8 or 16 adds nothing).
    pub fn with(self, size: u32, data: Precision, acc: Precision) -> Self {
        Self(self.0 | Self::bit(size, data, acc).unwrap_or(0))
    }

    /// Whether `size` x `size` products of `data` summed in `acc` are offered.
    pub fn offers(&self, size: u32, data: Precision, acc: Precision) -> bool {
        Self::bit(size, data, acc).is_some_and(|b| self.0 & b != 0)
    }

    /// The square configurations among `(m, n, k, data, sums)`, the types named as Vulkan
    /// tools print them (`"f16"`, `"f32"`); the rest (other sizes, shapes or types) are left
    /// out, as WGSL cannot write them.
    pub fn from_named<'a>(
        configs: impl IntoIterator<Item = (u32, u32, u32, &'a str, &'a str)>,
    ) -> Self {
        let precision = |name: &str| match name {
            "f16" => Some(Precision::F16),
            "f32" => Some(Precision::F32),
            _ => None,
        };
        configs
            .into_iter()
            .filter(|&(m, n, k, _, _)| m == n && n == k)
            .filter_map(|(s, _, _, data, sums)| Some((s, precision(data)?, precision(sums)?)))
            .fold(Self::NONE, |all, (s, d, a)| all.with(s, d, a))
    }

    /// Whether none is offered.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The matrix sizes offered for any types, smallest first.
    pub fn sizes(&self) -> Vec<u32> {
        [8, 16]
            .into_iter()
            .filter(|&s| {
                [Precision::F16, Precision::F32].iter().any(|&d| {
                    [Precision::F16, Precision::F32]
                        .iter()
                        .any(|&a| self.offers(s, d, a))
                })
            })
            .collect()
    }

    /// The square configurations of wgpu's list (empty where the device was not given
    /// `EXPERIMENTAL_COOPERATIVE_MATRIX`).
    pub fn of(ctx: &GpuContext) -> Self {
        if !ctx
            .features
            .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
        {
            return Self::NONE;
        }
        let scalar = |ty: wgpu::CooperativeScalarType| match ty {
            wgpu::CooperativeScalarType::F32 => Some(Precision::F32),
            wgpu::CooperativeScalarType::F16 => Some(Precision::F16),
            _ => None,
        };
        ctx.adapter
            .cooperative_matrix_properties()
            .iter()
            .filter(|p| p.m_size == p.n_size && p.n_size == p.k_size)
            .filter_map(|p| Some((p.m_size, scalar(p.ab_type)?, scalar(p.cr_type)?)))
            .fold(Self::NONE, |all, (s, d, a)| all.with(s, d, a))
    }
}

/// The largest subgroup an adapter runs, from what wgpu reports (`reported`): that, except for
/// an Apple GPU on Metal (`name` "Apple M3 Max" and the like), whose SIMD-groups are 32 wide
/// while wgpu's Metal backend reports every GPU's range as 4 to 64 (an AMD GPU in an Intel
/// Mac is 64 wide, as reported). At least 1.
pub fn subgroup_max_of(backend: wgpu::Backend, name: &str, reported: u32) -> u32 {
    if backend == wgpu::Backend::Metal && name.starts_with("Apple") {
        32
    } else {
        reported.max(1)
    }
}

impl AdapterFacts {
    /// A GPU's facts on Vulkan, vendor unknown (0), no cooperative matrices: the base that
    /// tests and `gpubench kernels` fill in.
    pub const fn vulkan_gpu(
        subgroup_max: u32,
        max_invocations: u32,
        max_workgroup_bytes: u32,
    ) -> Self {
        Self {
            cpu: false,
            subgroups: true,
            subgroup_max,
            max_invocations,
            max_workgroup_bytes,
            vendor: 0,
            backend: wgpu::Backend::Vulkan,
            coop: CoopMatrices::NONE,
        }
    }

    /// The facts of `ctx`'s adapter and device.
    pub fn of(ctx: &GpuContext) -> Self {
        let info = ctx.adapter.get_info();
        Self {
            cpu: info.device_type == wgpu::DeviceType::Cpu,
            subgroups: ctx.features.contains(wgpu::Features::SUBGROUP),
            subgroup_max: subgroup_max_of(info.backend, &info.name, info.subgroup_max_size),
            max_invocations: ctx.limits.max_compute_invocations_per_workgroup,
            max_workgroup_bytes: ctx.limits.max_compute_workgroup_storage_size,
            vendor: ctx.summary.vendor(),
            backend: info.backend,
            coop: CoopMatrices::of(ctx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_square_f16_and_f32_configurations_are_read() {
        let coop = CoopMatrices::from_named([
            (16, 16, 16, "f16", "f32"),
            (16, 8, 16, "f16", "f16"),
            (8, 8, 8, "bf16", "f32"),
            (32, 32, 32, "f16", "f32"),
            (8, 8, 8, "f32", "f32"),
        ]);
        assert!(coop.offers(16, Precision::F16, Precision::F32));
        assert!(
            !coop.offers(16, Precision::F16, Precision::F16),
            "not square"
        );
        assert!(coop.offers(8, Precision::F32, Precision::F32));
        assert!(
            !coop.offers(8, Precision::F16, Precision::F32),
            "bf16 is not f16"
        );
        assert!(CoopMatrices::from_named([]).is_empty());
    }
}
