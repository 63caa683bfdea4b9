//! The FMA peak's grid, sized from the adapter.
//!
//! A peak is only a peak when every core of the device is busy for the whole dispatch, with
//! enough resident invocations per core to hide the FMA latency, and a dispatch long enough
//! that its ramp-up and tail do not count. A grid of about one wave (every core holding as many
//! invocations as it can, once) leaves the tail as long as the work; eight waves make it an
//! eighth at most. So the grid is at least [`GPU_WAVES`] waves of the largest device the
//! adapter could plausibly be.
//!
//! wgpu reports no core counts. What it does report is the vendor (PCI id), the device type and
//! the limits, so the adapter is mapped to a [`DeviceClass`]: its vendor's largest current
//! device, as cores times resident invocations per core (the table below names its sources).
//! Sizing for the largest device of the vendor costs a smaller one only a longer dispatch (an
//! RTX 4090 runs 8 waves of a 192-SM device, 51 GFLOP of f32 FMAs, in under a millisecond),
//! never a short one. A software
//! adapter is the host's own CPU, whose thread count is known: one workgroup per thread is its
//! wave, and it gets [`SOFTWARE_WAVES`] of them, because a dispatch there has a fixed cost
//! (waking the threads, the barrier after it) that a few workgroups per thread would not
//! amortise. Limits cap the result: a grid wider than `max_compute_workgroups_per_dimension`
//! becomes two-dimensional, and the output (one f32 per invocation) must fit one storage
//! binding.

use crate::GpuContext;
use crate::kit::facts::{VENDOR_AMD, VENDOR_APPLE, VENDOR_INTEL, VENDOR_NVIDIA};

/// Invocations per workgroup of the peak kernels (the shader's `@workgroup_size`).
pub const WORKGROUP: u32 = 64;
/// Waves of the largest plausible device a GPU grid holds at least.
pub const GPU_WAVES: u64 = 8;
/// Workgroups per host thread on a software adapter.
pub const SOFTWARE_WAVES: u64 = 32;

/// The largest current device of a vendor and type: how many compute units it has and how
/// many invocations each holds resident at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceClass {
    /// What the class stands for, as recorded in the results (`nvidia`, `amd`, ...).
    pub name: &'static str,
    /// Compute units (SMs, CUs, Xe-cores, GPU cores) of the largest device of the class.
    pub cores: u64,
    /// Invocations one compute unit holds resident at most.
    pub threads_per_core: u64,
}

impl DeviceClass {
    /// A class of `cores` compute units of `threads_per_core` resident invocations each.
    pub const fn new(name: &'static str, cores: u64, threads_per_core: u64) -> Self {
        Self {
            name,
            cores,
            threads_per_core,
        }
    }

    /// Invocations the whole device holds at once: one wave.
    pub fn wave(&self) -> u64 {
        self.cores * self.threads_per_core
    }
}

/// NVIDIA (0x10de): 192 SMs (the full GB202 die, NVIDIA RTX Blackwell GPU architecture
/// whitepaper; H100 and H200 have 132, B200 148) times 2048 resident threads per SM (CUDA C++
/// Programming Guide, compute capability 8.0 and 9.0; Ada and consumer Blackwell hold 1536).
pub const NVIDIA: DeviceClass = DeviceClass::new("nvidia", 192, 2048);
/// AMD (0x1002): 304 CUs (Instinct MI300X, AMD CDNA 3 architecture whitepaper; RX 7900 XTX has
/// 96) times 2560 resident work-items per CU (40 wavefronts of 64 on GCN and CDNA; RDNA 3 holds
/// 2048: philipturner/metal-benchmarks, "On-Chip Memory", Max Threads per core).
pub const AMD: DeviceClass = DeviceClass::new("amd", 304, 2560);
/// Apple (0x106b): 80 GPU cores (M3 Ultra, Apple's specifications) times 3072 resident threads
/// per core (philipturner/metal-benchmarks, Max Threads per core, Apple 7 and 8).
pub const APPLE: DeviceClass = DeviceClass::new("apple", 80, 3072);
/// Intel discrete (0x8086): 128 Xe-cores (Data Center GPU Max 1550, Intel's product brief)
/// times 2048 (8 vector engines of 8 threads, SIMD32 at most).
pub const INTEL_DISCRETE: DeviceClass = DeviceClass::new("intel-discrete", 128, 2048);
/// Any other integrated or mobile GPU (Intel Xe-LPG and Xe2 have 8 Xe-cores; Adreno, Mali and
/// PowerVR fewer): 16 cores of 2048, twice the largest of them.
pub const INTEGRATED: DeviceClass = DeviceClass::new("integrated", 16, 2048);

/// What wgpu says about an adapter that the grid depends on, plus the host's thread count (the
/// device's own, for a software adapter).
#[derive(Debug, Clone, PartialEq)]
pub struct GridInputs {
    /// PCI vendor id.
    pub vendor_id: u32,
    /// Discrete, integrated, virtual, CPU or other.
    pub device_type: wgpu::DeviceType,
    /// A software adapter (lavapipe, SwiftShader, WARP) runs on the host's CPU.
    pub software: bool,
    /// Threads the host can run at once.
    pub host_threads: u64,
    /// `max_compute_workgroups_per_dimension`.
    pub max_workgroups_per_dimension: u32,
    /// The largest output buffer one storage binding can hold, in bytes.
    pub max_output_bytes: u64,
}

impl GridInputs {
    /// The inputs for the adapter of `ctx` on this host.
    pub fn from_context(ctx: &GpuContext) -> Self {
        let host_threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        Self {
            vendor_id: ctx.summary.vendor(),
            device_type: ctx.adapter.get_info().device_type,
            software: ctx.is_software(),
            host_threads,
            max_workgroups_per_dimension: ctx.limits.max_compute_workgroups_per_dimension,
            max_output_bytes: ctx
                .limits
                .max_storage_buffer_binding_size
                .min(ctx.limits.max_buffer_size),
        }
    }

    /// The class of device the adapter may be, or `None` for one that runs on the host's CPU.
    pub fn class(&self) -> Option<DeviceClass> {
        if self.software || self.device_type == wgpu::DeviceType::Cpu {
            return None;
        }
        let integrated = self.device_type == wgpu::DeviceType::IntegratedGpu;
        Some(match self.vendor_id {
            VENDOR_NVIDIA => NVIDIA,
            // AMD's APUs include MI300A (228 CUs): every AMD adapter is sized as the largest.
            VENDOR_AMD => AMD,
            VENDOR_APPLE => APPLE,
            VENDOR_INTEL if integrated => INTEGRATED,
            VENDOR_INTEL => INTEL_DISCRETE,
            _ if integrated => INTEGRATED,
            // An unknown discrete or virtual GPU: the largest class there is.
            _ => AMD,
        })
    }

    /// Invocations the grid should have before the limits cap it.
    pub fn wanted_invocations(&self) -> u64 {
        match self.class() {
            Some(class) => GPU_WAVES * class.wave(),
            None => SOFTWARE_WAVES * self.host_threads.max(1) * u64::from(WORKGROUP),
        }
    }
}

/// A grid of workgroups of [`WORKGROUP`] invocations, `(x, y)`, and why it is that size.
#[derive(Debug, Clone, PartialEq)]
pub struct PeakGrid {
    /// Workgroups in x and in y.
    pub workgroups: (u32, u32),
    /// What it was sized for, as recorded in the results (e.g. `8 waves of nvidia (192 x
    /// 2048)`, or `fixed` for a grid given by hand).
    pub sizing: String,
}

impl PeakGrid {
    /// A grid of `workgroups` workgroups in one row, given by hand (tests, benches).
    pub fn fixed(workgroups: u32) -> Self {
        Self {
            workgroups: (workgroups.max(1), 1),
            sizing: "fixed".to_string(),
        }
    }

    /// The grid for the adapter `inputs` describe: at least the wanted invocations, in as
    /// few rows as `max_workgroups_per_dimension` allows, capped so the output fits a binding.
    pub fn sized(inputs: &GridInputs) -> Self {
        let group = u64::from(WORKGROUP);
        let per_dim = u64::from(inputs.max_workgroups_per_dimension.max(1));
        let by_output = (inputs.max_output_bytes / (4 * group)).max(1);
        let wanted = inputs.wanted_invocations().div_ceil(group);
        let groups = wanted.min(by_output).min(per_dim * per_dim);
        let rows = groups.div_ceil(per_dim);
        // Rows of equal width covering `groups`, trimmed so the output still fits.
        let mut width = groups.div_ceil(rows);
        while width * rows > by_output && width > 1 {
            width -= 1;
        }
        let sizing = match inputs.class() {
            Some(class) => format!(
                "{GPU_WAVES} waves of {} ({} x {})",
                class.name, class.cores, class.threads_per_core
            ),
            None => format!(
                "{SOFTWARE_WAVES} workgroups per host thread ({} threads)",
                inputs.host_threads
            ),
        };
        Self {
            workgroups: (width as u32, rows as u32),
            sizing,
        }
    }

    /// Every invocation of the grid.
    pub fn invocations(&self) -> u64 {
        u64::from(self.workgroups.0) * u64::from(self.workgroups.1) * u64::from(WORKGROUP)
    }
}

/// The peak kernels' grid on the adapter of `ctx`.
pub fn peak_grid(ctx: &GpuContext) -> PeakGrid {
    PeakGrid::sized(&GridInputs::from_context(ctx))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real card: its vendor, type and wgpu limits, and its actual compute units and
    /// resident invocations per unit (which wgpu cannot report, so the sizing never sees them).
    struct Card {
        name: &'static str,
        inputs: GridInputs,
        cores: u64,
        threads_per_core: u64,
    }

    /// wgpu's Vulkan limits for a discrete card: 65535 workgroups per dimension (every desktop
    /// driver reports it for y and z), storage bindings capped at 2 GiB - 1 by wgpu-hal.
    fn gpu(vendor_id: u32, device_type: wgpu::DeviceType) -> GridInputs {
        GridInputs {
            vendor_id,
            device_type,
            software: false,
            host_threads: 64,
            max_workgroups_per_dimension: 65_535,
            max_output_bytes: (1 << 31) - 1,
        }
    }

    fn cards() -> Vec<Card> {
        use wgpu::DeviceType::{Cpu, DiscreteGpu, IntegratedGpu};
        vec![
            // NVIDIA H200 datasheet: 132 SMs (GH100); 2048 threads per SM (CUDA guide, 9.0).
            Card {
                name: "H200",
                inputs: gpu(0x10de, DiscreteGpu),
                cores: 132,
                threads_per_core: 2048,
            },
            // NVIDIA Ada GPU architecture whitepaper: RTX 4090 has 128 SMs; 1536 threads per
            // SM (CUDA guide, compute capability 8.9).
            Card {
                name: "RTX 4090",
                inputs: gpu(0x10de, DiscreteGpu),
                cores: 128,
                threads_per_core: 1536,
            },
            // AMD CDNA 3 whitepaper: MI300X has 304 CUs; 2048 work-items per CU (4 SIMDs of
            // 8 wavefronts of 64).
            Card {
                name: "MI300X",
                inputs: gpu(0x1002, DiscreteGpu),
                cores: 304,
                threads_per_core: 2048,
            },
            // AMD RDNA 3 instruction set guide: RX 7900 XTX has 96 CUs; 2 SIMDs of 16 waves
            // of 64 per CU.
            Card {
                name: "RX 7900 XTX",
                inputs: gpu(0x1002, DiscreteGpu),
                cores: 96,
                threads_per_core: 2048,
            },
            // Apple M3 Max: 40 GPU cores (Apple); 3072 threads per core (metal-benchmarks).
            // wgpu's Metal limits: 65535 workgroups per dimension, storage bindings as large
            // as Metal's maxBufferLength (tens of GiB).
            Card {
                name: "Apple M3 Max",
                inputs: GridInputs {
                    max_output_bytes: 32 << 30,
                    ..gpu(0x106b, IntegratedGpu)
                },
                cores: 40,
                threads_per_core: 3072,
            },
            // lavapipe on a 2-core host: one workgroup per thread at a time; Mesa's llvmpipe
            // limits: 65535 workgroups per dimension, storage bindings of 128 MiB.
            Card {
                name: "llvmpipe",
                inputs: GridInputs {
                    vendor_id: 0x10005,
                    device_type: Cpu,
                    software: true,
                    host_threads: 2,
                    max_workgroups_per_dimension: 65_535,
                    max_output_bytes: 128 << 20,
                },
                cores: 2,
                threads_per_core: u64::from(WORKGROUP),
            },
        ]
    }

    #[test]
    fn every_card_gets_eight_waves_within_its_limits() {
        for card in cards() {
            let grid = PeakGrid::sized(&card.inputs);
            let (x, y) = grid.workgroups;
            let limit = card.inputs.max_workgroups_per_dimension;
            assert!(
                x >= 1 && y >= 1 && x <= limit && y <= limit,
                "{}",
                card.name
            );
            assert!(
                grid.invocations() * 4 <= card.inputs.max_output_bytes,
                "{}",
                card.name
            );
            let waves = grid.invocations() / (card.cores * card.threads_per_core);
            assert!(waves >= GPU_WAVES, "{}: {waves} waves", card.name);
        }
    }

    #[test]
    fn a_large_amd_grid_becomes_two_dimensional() {
        // 8 waves of 304 x 2560 need 97,280 workgroups: more than one dimension holds.
        let grid = PeakGrid::sized(&gpu(0x1002, wgpu::DeviceType::DiscreteGpu));
        assert_eq!(grid.workgroups, (48_640, 2));
        assert_eq!(grid.sizing, "8 waves of amd (304 x 2560)");
        let nvidia = PeakGrid::sized(&gpu(0x10de, wgpu::DeviceType::DiscreteGpu));
        assert_eq!(nvidia.workgroups, (49_152, 1));
    }

    #[test]
    fn a_software_adapter_gets_workgroups_per_host_thread() {
        let card = cards().pop().expect("llvmpipe is the last fixture");
        let grid = PeakGrid::sized(&card.inputs);
        assert_eq!(grid.workgroups, (64, 1));
        let many = GridInputs {
            host_threads: 96,
            ..card.inputs.clone()
        };
        assert_eq!(PeakGrid::sized(&many).workgroups, (96 * 32, 1));
        // A software adapter that says it is a GPU is still sized by the host.
        let odd = GridInputs {
            device_type: wgpu::DeviceType::VirtualGpu,
            ..card.inputs
        };
        assert_eq!(odd.class(), None);
    }

    #[test]
    fn limits_cap_the_grid() {
        // A narrow dimension: the grid takes rows instead.
        let narrow = GridInputs {
            max_workgroups_per_dimension: 1024,
            ..gpu(0x10de, wgpu::DeviceType::DiscreteGpu)
        };
        let grid = PeakGrid::sized(&narrow);
        assert_eq!(grid.workgroups, (1024, 48));
        // A small binding: the output decides (1 MiB holds 4096 workgroups of f32 outputs).
        let small = GridInputs {
            max_output_bytes: 1 << 20,
            ..gpu(0x10de, wgpu::DeviceType::DiscreteGpu)
        };
        let grid = PeakGrid::sized(&small);
        assert_eq!(grid.invocations() * 4, 1 << 20);
        // Both at once: rows of the dimension's width, the output still within the binding.
        let both = GridInputs {
            max_workgroups_per_dimension: 1000,
            max_output_bytes: 10 << 20,
            ..gpu(0x1002, wgpu::DeviceType::DiscreteGpu)
        };
        let grid = PeakGrid::sized(&both);
        assert!(grid.workgroups.0 <= 1000 && grid.invocations() * 4 <= 10 << 20);
        assert!(grid.invocations() * 4 > (10 << 20) - 1000 * 64 * 4 * 2);
    }

    #[test]
    fn vendors_and_types_map_to_classes() {
        use wgpu::DeviceType::{DiscreteGpu, IntegratedGpu, Other, VirtualGpu};
        assert_eq!(gpu(0x8086, DiscreteGpu).class(), Some(INTEL_DISCRETE));
        assert_eq!(gpu(0x8086, IntegratedGpu).class(), Some(INTEGRATED));
        assert_eq!(gpu(0x5143, IntegratedGpu).class(), Some(INTEGRATED));
        assert_eq!(gpu(0x1002, IntegratedGpu).class(), Some(AMD));
        assert_eq!(gpu(0x1234, VirtualGpu).class(), Some(AMD));
        assert_eq!(gpu(0x1234, Other).class(), Some(AMD));
        assert_eq!(PeakGrid::fixed(0).workgroups, (1, 1));
    }
}
