//! Where a transfer's buffers live, as far as wgpu lets anyone tell, recorded in every
//! transfer result's params so a figure can be read for what it is: a copy from host memory
//! across the bus, or a copy inside device memory after the host already crossed it.
//!
//! wgpu 30 chooses memory from a buffer's usage alone. On Vulkan, wgpu-hal's
//! `vulkan/device.rs` (`Device::create_buffer`) maps usage to a gpu-allocator location:
//! MAP_WRITE (with or without MAP_READ) is `CpuToGpu`, MAP_READ alone `GpuToCpu`, anything else
//! `GpuOnly`. gpu-allocator 0.28's `vulkan/mod.rs` (`Allocator::allocate`,
//! `find_memorytype_index`) then takes the first memory type, in index order, that the buffer's
//! `memoryTypeBits` allow and whose flags contain the location's preferred set
//! (`GpuOnly`: DEVICE_LOCAL; `CpuToGpu`: DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT;
//! `GpuToCpu`: HOST_VISIBLE | HOST_COHERENT | HOST_CACHED), else the required set
//! (HOST_VISIBLE | HOST_COHERENT for both host locations). A `CpuToGpu` allocation that fails
//! (a heap too small or full) is retried in the first HOST_VISIBLE | HOST_COHERENT type. wgpu-hal
//! hides types with flags it does not know (`known_memory_flags` in `vulkan/adapter.rs`, e.g.
//! AMD's device-coherent types).
//!
//! wgpu 30 does not say which memory a buffer got: `Buffer::as_hal` yields the `VkBuffer`, but
//! its allocation (`BufferMemoryBacking`) is private, and Vulkan cannot be asked what a buffer
//! is bound to. So on Vulkan this module reads the physical device's memory types and heaps
//! through `Device::as_hal`, asks Vulkan for the `memoryTypeBits` of a small probe buffer of
//! each usage (Vulkan guarantees the same bits for every buffer of the same usage and flags;
//! a probe gets TRANSFER_DST, as wgpu-core adds it to every buffer not mapped at creation, while
//! a staging buffer created mapped, wgpu's own included, lacks it: a difference the bits could in
//! principle reflect), and applies gpu-allocator's rules above: the placement the allocator chooses, not an
//! observation of it. Where a `CpuToGpu` buffer is larger than its heap, the fallback is
//! certain and reported as such; where it is over half the heap, the heap may be too full and
//! the fallback is reported as possible (wgpu does not report a fallback that happened).
//!
//! Elsewhere (Metal, DX12, GL) only the adapter type speaks: integrated GPUs and CPU adapters
//! share one memory with the host (unified), a discrete GPU's placement is unknown.

use gpubench_harness::{BenchmarkInfo, GpuContext};
use gpubench_results::units::{MIB, format_size};

/// Vulkan memory property bits (`VkMemoryPropertyFlagBits`, fixed by the Vulkan specification).
pub mod flags {
    /// `VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT`.
    pub const DEVICE_LOCAL: u32 = 0x1;
    /// `VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT`.
    pub const HOST_VISIBLE: u32 = 0x2;
    /// `VK_MEMORY_PROPERTY_HOST_COHERENT_BIT`.
    pub const HOST_COHERENT: u32 = 0x4;
    /// `VK_MEMORY_PROPERTY_HOST_CACHED_BIT`.
    pub const HOST_CACHED: u32 = 0x8;
    /// `VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT`.
    pub const LAZILY_ALLOCATED: u32 = 0x10;
    /// The flags wgpu-hal lets gpu-allocator use; a type with any other flag is hidden.
    pub const KNOWN: u32 =
        DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT | HOST_CACHED | LAZILY_ALLOCATED;

    /// `DEVICE_LOCAL|HOST_VISIBLE|...` for the bits set in `value`.
    pub fn names(value: u32) -> String {
        let named = [
            (DEVICE_LOCAL, "DEVICE_LOCAL"),
            (HOST_VISIBLE, "HOST_VISIBLE"),
            (HOST_COHERENT, "HOST_COHERENT"),
            (HOST_CACHED, "HOST_CACHED"),
            (LAZILY_ALLOCATED, "LAZILY_ALLOCATED"),
        ];
        let mut parts: Vec<String> = named
            .iter()
            .filter(|(bit, _)| value & bit != 0)
            .map(|(_, name)| name.to_string())
            .collect();
        if value & !KNOWN != 0 {
            parts.push(format!("0x{:x}", value & !KNOWN));
        }
        if parts.is_empty() {
            parts.push("none".into());
        }
        parts.join("|")
    }
}

/// The classic BAR window: a device-local, host-visible heap larger than this means resizable
/// BAR is on (all of VRAM is host-visible).
pub const BAR_WINDOW: u64 = 256 * MIB;

/// One Vulkan memory type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryType {
    /// Its `VkMemoryPropertyFlags`.
    pub flags: u32,
    /// The heap it allocates from.
    pub heap: usize,
}

/// One Vulkan memory heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryHeap {
    /// Its size in bytes.
    pub size: u64,
    /// Whether it is `VK_MEMORY_HEAP_DEVICE_LOCAL_BIT`.
    pub device_local: bool,
}

/// A Vulkan physical device's memory types and heaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VulkanMemory {
    /// Memory types in index order (the order gpu-allocator searches).
    pub types: Vec<MemoryType>,
    /// Memory heaps.
    pub heaps: Vec<MemoryHeap>,
}

/// gpu-allocator's memory location, as wgpu-hal derives it from a buffer's usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// Neither MAP_READ nor MAP_WRITE.
    GpuOnly,
    /// MAP_WRITE (the upload heap: the BAR where there is one).
    CpuToGpu,
    /// MAP_READ without MAP_WRITE (cached host memory).
    GpuToCpu,
}

impl Location {
    /// The location wgpu-hal gives a buffer of `usage`.
    pub fn of(usage: wgpu::BufferUsages) -> Self {
        if usage.contains(wgpu::BufferUsages::MAP_WRITE) {
            Location::CpuToGpu
        } else if usage.contains(wgpu::BufferUsages::MAP_READ) {
            Location::GpuToCpu
        } else {
            Location::GpuOnly
        }
    }

    fn preferred(self) -> u32 {
        match self {
            Location::GpuOnly => flags::DEVICE_LOCAL,
            Location::CpuToGpu => flags::DEVICE_LOCAL | flags::HOST_VISIBLE | flags::HOST_COHERENT,
            Location::GpuToCpu => flags::HOST_VISIBLE | flags::HOST_COHERENT | flags::HOST_CACHED,
        }
    }

    fn required(self) -> u32 {
        match self {
            Location::GpuOnly => flags::DEVICE_LOCAL,
            Location::CpuToGpu | Location::GpuToCpu => flags::HOST_VISIBLE | flags::HOST_COHERENT,
        }
    }
}

/// Whether a `CpuToGpu` buffer leaves its first-choice memory type for host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// The first choice holds it.
    No,
    /// Over half its heap: the first choice fails when the heap is that full.
    Possible(usize),
    /// Larger than its heap: it goes to this type.
    Certain(usize),
}

/// The memory type gpu-allocator chooses for one buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// Index of the type it allocates from (after a certain fallback).
    pub type_index: usize,
    /// What happens when the first choice cannot hold it.
    pub fallback: Fallback,
}

impl VulkanMemory {
    /// `memoryTypeBits` restricted to the types wgpu-hal lets gpu-allocator use.
    fn usable(&self, bits: u32) -> u32 {
        self.types
            .iter()
            .enumerate()
            .filter(|(_, t)| flags::KNOWN & t.flags == t.flags)
            .fold(0, |mask, (i, _)| mask | (1u32 << i))
            & bits
    }

    /// The first type allowed by `bits` whose flags contain `wanted`.
    fn first(&self, bits: u32, wanted: u32) -> Option<usize> {
        (0..self.types.len().min(32))
            .find(|&i| bits & (1u32 << i) != 0 && self.types[i].flags & wanted == wanted)
    }

    /// The type gpu-allocator 0.28 chooses for a buffer of `bytes` whose `memoryTypeBits` are
    /// `bits` at `location`; `None` when no type qualifies (the allocation fails).
    pub fn choose(&self, bits: u32, location: Location, bytes: u64) -> Option<Choice> {
        let bits = self.usable(bits);
        let first = self
            .first(bits, location.preferred())
            .or_else(|| self.first(bits, location.required()))?;
        let heap = self.heaps.get(self.types[first].heap)?.size;
        let retry = (location == Location::CpuToGpu)
            .then(|| self.first(bits, flags::HOST_VISIBLE | flags::HOST_COHERENT))
            .flatten()
            .filter(|&t| t != first);
        let fallback = match retry {
            Some(t) if bytes > heap => Fallback::Certain(t),
            Some(t) if bytes > heap / 2 => Fallback::Possible(t),
            _ => Fallback::No,
        };
        let type_index = match fallback {
            Fallback::Certain(t) => t,
            _ => first,
        };
        Some(Choice {
            type_index,
            fallback,
        })
    }

    /// `type 0 [..] on heap 0; heap 0: 2GiB device-local`, for the params.
    pub fn layout(&self) -> String {
        let types = self
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| format!("type {i} [{}] heap {}", flags::names(t.flags), t.heap));
        let heaps = self.heaps.iter().enumerate().map(|(i, h)| {
            let local = if h.device_local { " device-local" } else { "" };
            format!("heap {i}: {}{local}", format_size(h.size))
        });
        types.chain(heaps).collect::<Vec<_>>().join("; ")
    }
}

/// Where a buffer lives, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// Device memory the host cannot map (VRAM).
    DeviceLocal,
    /// Device-local and host-visible in the classic 256 MiB BAR window: host writes cross the
    /// bus, copies from it stay in VRAM.
    Bar,
    /// Device-local and host-visible on a heap larger than the BAR window (resizable BAR).
    ResizableBar,
    /// Host memory the device reads or writes across the bus.
    Host,
    /// One memory shared by host and device (integrated GPUs, Apple, CPU adapters).
    Unified,
    /// wgpu cannot tell.
    Unknown,
}

impl MemoryKind {
    /// Name as written in params.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::DeviceLocal => "device-local",
            MemoryKind::Bar => "bar",
            MemoryKind::ResizableBar => "resizable-bar",
            MemoryKind::Host => "host",
            MemoryKind::Unified => "unified",
            MemoryKind::Unknown => "unknown",
        }
    }

    /// The kind of a Vulkan memory type with `flags` on a heap of `heap_size` bytes.
    pub fn of_type(flags: u32, heap_size: u64, unified: bool) -> Self {
        let local = flags & flags::DEVICE_LOCAL != 0;
        let visible = flags & flags::HOST_VISIBLE != 0;
        match (unified, local, visible) {
            (true, _, _) => MemoryKind::Unified,
            (false, true, true) if heap_size > BAR_WINDOW => MemoryKind::ResizableBar,
            (false, true, true) => MemoryKind::Bar,
            (false, true, false) => MemoryKind::DeviceLocal,
            (false, false, true) => MemoryKind::Host,
            (false, false, false) => MemoryKind::Unknown,
        }
    }
}

/// The buffers transfers use, by usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferRole {
    /// MAP_WRITE | COPY_SRC: an upload staging buffer (ours or wgpu's own).
    Staging,
    /// STORAGE | COPY_DST | COPY_SRC: a device buffer.
    Device,
    /// MAP_READ | COPY_DST: a readback buffer.
    Readback,
    /// STORAGE | MAP_WRITE: a host-written buffer kernels read in place (zero copy).
    Shared,
}

impl BufferRole {
    /// Every role.
    pub const ALL: [BufferRole; 4] = [
        BufferRole::Staging,
        BufferRole::Device,
        BufferRole::Readback,
        BufferRole::Shared,
    ];

    /// Prefix of the role's params (`staging_memory`, ...).
    pub fn name(self) -> &'static str {
        match self {
            BufferRole::Staging => "staging",
            BufferRole::Device => "device",
            BufferRole::Readback => "readback",
            BufferRole::Shared => "shared",
        }
    }

    /// The buffer usage of the role.
    pub fn usage(self) -> wgpu::BufferUsages {
        use wgpu::BufferUsages as U;
        match self {
            BufferRole::Staging => U::MAP_WRITE | U::COPY_SRC,
            BufferRole::Device => U::STORAGE | U::COPY_DST | U::COPY_SRC,
            BufferRole::Readback => U::MAP_READ | U::COPY_DST,
            BufferRole::Shared => U::STORAGE | U::MAP_WRITE,
        }
    }
}

/// Where one buffer of a transfer lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// In one word.
    pub kind: MemoryKind,
    /// Memory type, flags, heap and fallback, or how the kind was decided.
    pub detail: String,
}

/// What the adapter says about its memory: the Vulkan layout with each role's
/// `memoryTypeBits` where the backend is Vulkan, else the adapter type alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryMap {
    unified: bool,
    device_type: wgpu::DeviceType,
    vulkan: Option<(VulkanMemory, Vec<(BufferRole, u32)>)>,
}

/// Whether host and device share one memory: integrated GPUs (Apple's included) and CPU
/// adapters such as lavapipe.
pub fn is_unified(device_type: wgpu::DeviceType) -> bool {
    matches!(
        device_type,
        wgpu::DeviceType::IntegratedGpu | wgpu::DeviceType::Cpu
    )
}

impl MemoryMap {
    /// Reads the memory layout of `ctx`'s adapter (see the module docs).
    pub fn probe(ctx: &GpuContext) -> Self {
        let device_type = ctx.adapter.get_info().device_type;
        Self::new(device_type, vulkan::probe(ctx))
    }

    /// A map from an adapter type and, on Vulkan, the memory layout with each role's
    /// `memoryTypeBits` (for tests, or layouts read elsewhere).
    pub fn new(
        device_type: wgpu::DeviceType,
        vulkan: Option<(VulkanMemory, Vec<(BufferRole, u32)>)>,
    ) -> Self {
        Self {
            unified: is_unified(device_type),
            device_type,
            vulkan,
        }
    }

    /// Where the facts come from: `vulkan` (memory properties through `as_hal` and
    /// gpu-allocator's rules) or `adapter-type`.
    pub fn source(&self) -> &'static str {
        if self.vulkan.is_some() {
            "vulkan"
        } else {
            "adapter-type"
        }
    }

    /// Where a buffer of `role` and `bytes` lives.
    pub fn placement(&self, role: BufferRole, bytes: u64) -> Placement {
        let Some((memory, bits)) = &self.vulkan else {
            let kind = if self.unified {
                MemoryKind::Unified
            } else {
                MemoryKind::Unknown
            };
            let detail = format!(
                "from the adapter type ({:?}); wgpu does not say where this backend places buffers",
                self.device_type
            );
            return Placement { kind, detail };
        };
        let Some(&(_, type_bits)) = bits.iter().find(|(r, _)| *r == role) else {
            return Placement {
                kind: MemoryKind::Unknown,
                detail: "no probe buffer of this usage (the device cannot create one)".into(),
            };
        };
        let location = Location::of(role.usage());
        match memory.choose(type_bits, location, bytes) {
            Some(choice) => self.described(memory, choice),
            None => Placement {
                kind: MemoryKind::Unknown,
                detail: format!("no memory type qualifies (memoryTypeBits 0x{type_bits:x})"),
            },
        }
    }

    /// The `memoryTypeBits` Vulkan reported for a buffer of `role`'s usage (Vulkan only).
    pub fn type_bits(&self, role: BufferRole) -> Option<u32> {
        let (_, bits) = self.vulkan.as_ref()?;
        bits.iter().find(|(r, _)| *r == role).map(|&(_, b)| b)
    }

    /// The placement of a chosen type, with its flags, heap and fallback in words.
    fn described(&self, memory: &VulkanMemory, choice: Choice) -> Placement {
        let ty = memory.types[choice.type_index];
        let heap = memory.heaps.get(ty.heap).map_or(0, |h| h.size);
        let mut detail = format!(
            "memory type {} [{}] on heap {} ({})",
            choice.type_index,
            flags::names(ty.flags),
            ty.heap,
            format_size(heap)
        );
        match choice.fallback {
            Fallback::No => {}
            Fallback::Certain(_) => {
                detail.push_str("; larger than the first choice's heap, so gpu-allocator falls back here")
            }
            Fallback::Possible(t) => detail.push_str(&format!(
                "; over half the heap: when the heap is that full gpu-allocator falls back to type {t} [{}]",
                flags::names(memory.types[t].flags)
            )),
        }
        Placement {
            kind: MemoryKind::of_type(ty.flags, heap, self.unified),
            detail,
        }
    }

    /// The info with params saying where each of `roles` lives at `bytes`: `memory_source`,
    /// `unified_memory`, `memory_layout` (Vulkan), `<role>_memory` / `<role>_memory_detail`, and
    /// on Vulkan `<role>_memory_type_bits`: what Vulkan reported for a buffer of that usage.
    pub fn annotate(&self, info: BenchmarkInfo, roles: &[BufferRole], bytes: u64) -> BenchmarkInfo {
        let mut info = info
            .param("memory_source", self.source())
            .param("unified_memory", self.unified);
        if let Some((memory, _)) = &self.vulkan {
            info = info.param("memory_layout", memory.layout());
        }
        for &role in roles {
            let placement = self.placement(role, bytes);
            info = info
                .param(&format!("{}_memory", role.name()), placement.kind.name())
                .param(&format!("{}_memory_detail", role.name()), placement.detail);
            // What Vulkan itself reported for a buffer of this usage, beside the choice made
            // from it: the memory types it may live in.
            if let Some(bits) = self.type_bits(role) {
                info = info.param(
                    &format!("{}_memory_type_bits", role.name()),
                    format!("0x{bits:x}"),
                );
            }
        }
        info
    }
}

#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
mod vulkan {
    //! The Vulkan half of the probe: memory properties and `memoryTypeBits` through wgpu-hal.

    use gpubench_harness::GpuContext;
    use wgpu::hal::api::Vulkan;

    use super::{BufferRole, MemoryHeap, MemoryType, VulkanMemory};

    /// `VK_MEMORY_HEAP_DEVICE_LOCAL_BIT`.
    const HEAP_DEVICE_LOCAL: u32 = 0x1;

    /// The memory layout and each creatable role's `memoryTypeBits`; `None` off Vulkan.
    pub(super) fn probe(ctx: &GpuContext) -> Option<(VulkanMemory, Vec<(BufferRole, u32)>)> {
        // Probe buffers first: they are dropped last, after every guard below is released (a
        // buffer guard holds wgpu's destruction lock, which dropping a buffer takes).
        let probes: Vec<(BufferRole, wgpu::Buffer)> = BufferRole::ALL
            .into_iter()
            .filter(|&role| {
                role != BufferRole::Shared
                    || ctx
                        .features
                        .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
            })
            .map(|role| (role, ctx.buffer("transfer memory probe", 256, role.usage())))
            .collect();
        // SAFETY: the guard gives the wgpu-hal Vulkan device; it is only read (its physical
        // device, instance and device handles), nothing is created or destroyed through it,
        // and it is dropped before this function returns, while wgpu's device still lives.
        let device = unsafe { ctx.device.as_hal::<Vulkan>() }?;
        let physical = device.raw_physical_device();
        // SAFETY: vkGetPhysicalDeviceMemoryProperties only writes the returned struct; the
        // physical device belongs to the instance the device keeps alive, and the call needs no
        // external synchronisation.
        let properties = unsafe {
            device
                .shared_instance()
                .raw_instance()
                .get_physical_device_memory_properties(physical)
        };
        let memory = VulkanMemory {
            types: properties
                .memory_types_as_slice()
                .iter()
                .map(|t| MemoryType {
                    flags: t.property_flags.as_raw(),
                    heap: t.heap_index as usize,
                })
                .collect(),
            heaps: properties
                .memory_heaps_as_slice()
                .iter()
                .map(|h| MemoryHeap {
                    size: h.size,
                    device_local: h.flags.as_raw() & HEAP_DEVICE_LOCAL != 0,
                })
                .collect(),
        };
        let bits = probes
            .iter()
            .filter_map(|(role, buffer)| {
                // SAFETY: the guard only lends the VkBuffer of a buffer this function owns; the
                // buffer is neither destroyed nor in use while the guard lives, and
                // vkGetBufferMemoryRequirements only reads the handle (no external
                // synchronisation is required on it).
                let hal = unsafe { buffer.as_hal::<Vulkan>() }?;
                let requirements = unsafe {
                    device
                        .raw_device()
                        .get_buffer_memory_requirements(hal.raw_handle())
                };
                Some((*role, requirements.memory_type_bits))
            })
            .collect();
        drop(device);
        Some((memory, bits))
    }
}

#[cfg(not(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
)))]
mod vulkan {
    //! No Vulkan backend on this platform: the adapter type is all there is.

    use gpubench_harness::GpuContext;

    use super::{BufferRole, VulkanMemory};

    /// Always `None`: wgpu has no Vulkan backend here.
    pub(super) fn probe(_ctx: &GpuContext) -> Option<(VulkanMemory, Vec<(BufferRole, u32)>)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::flags::*;
    use super::*;
    use gpubench_results::units::GIB;

    const ALL_TYPES: u32 = u32::MAX;

    /// An RTX 4090-like layout (NVIDIA's order): VRAM, host, cached host, and the BAR window of
    /// `bar` bytes on a heap of its own (or on VRAM's heap, with resizable BAR).
    fn discrete(bar: Option<u64>) -> VulkanMemory {
        let mut heaps = vec![
            MemoryHeap {
                size: 24 * GIB,
                device_local: true,
            },
            MemoryHeap {
                size: 64 * GIB,
                device_local: false,
            },
        ];
        let bar_heap = match bar {
            Some(size) => {
                heaps.push(MemoryHeap {
                    size,
                    device_local: true,
                });
                2
            }
            None => 0,
        };
        VulkanMemory {
            types: vec![
                MemoryType {
                    flags: DEVICE_LOCAL,
                    heap: 0,
                },
                MemoryType {
                    flags: HOST_VISIBLE | HOST_COHERENT,
                    heap: 1,
                },
                MemoryType {
                    flags: HOST_VISIBLE | HOST_COHERENT | HOST_CACHED,
                    heap: 1,
                },
                MemoryType {
                    flags: DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT,
                    heap: bar_heap,
                },
            ],
            heaps,
        }
    }

    fn lavapipe() -> VulkanMemory {
        VulkanMemory {
            types: vec![MemoryType {
                flags: DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT | HOST_CACHED,
                heap: 0,
            }],
            heaps: vec![MemoryHeap {
                size: 2 * GIB,
                device_local: true,
            }],
        }
    }

    fn all_roles() -> Vec<(BufferRole, u32)> {
        BufferRole::ALL.iter().map(|&r| (r, ALL_TYPES)).collect()
    }

    #[test]
    fn uploads_go_to_the_bar_and_fall_back_to_host_memory_when_it_cannot_hold_them() {
        let memory = discrete(Some(256 * MIB));
        let map = MemoryMap::new(
            wgpu::DeviceType::DiscreteGpu,
            Some((memory.clone(), all_roles())),
        );
        let staging = |bytes| map.placement(BufferRole::Staging, bytes);
        assert_eq!(staging(MIB).kind, MemoryKind::Bar);
        assert!(
            staging(MIB).detail.starts_with("memory type 3 "),
            "{}",
            staging(MIB).detail
        );
        // Over half the 256 MiB window: possibly full; larger than it: certainly host memory.
        let possible = memory.choose(ALL_TYPES, Location::CpuToGpu, 200 * MIB);
        assert_eq!(possible.map(|c| c.fallback), Some(Fallback::Possible(1)));
        assert_eq!(staging(200 * MIB).kind, MemoryKind::Bar);
        assert!(staging(200 * MIB).detail.contains("falls back to type 1"));
        assert_eq!(staging(512 * MIB).kind, MemoryKind::Host);
        // Device buffers are VRAM; readback is cached host memory.
        assert_eq!(
            map.placement(BufferRole::Device, GIB).kind,
            MemoryKind::DeviceLocal
        );
        let readback = memory.choose(ALL_TYPES, Location::GpuToCpu, GIB);
        assert_eq!(readback.map(|c| c.type_index), Some(2));
        assert_eq!(
            map.placement(BufferRole::Readback, MIB).kind,
            MemoryKind::Host
        );
    }

    #[test]
    fn resizable_bar_holds_every_upload_in_vram() {
        let map = MemoryMap::new(
            wgpu::DeviceType::DiscreteGpu,
            Some((discrete(None), all_roles())),
        );
        let staging = map.placement(BufferRole::Staging, 256 * MIB);
        assert_eq!(staging.kind, MemoryKind::ResizableBar);
        assert!(!staging.detail.contains("falls back"), "{}", staging.detail);
    }

    #[test]
    fn without_a_bar_type_uploads_are_host_memory() {
        let mut memory = discrete(Some(256 * MIB));
        memory.types.pop();
        let map = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, Some((memory, all_roles())));
        assert_eq!(
            map.placement(BufferRole::Staging, MIB).kind,
            MemoryKind::Host
        );
    }

    #[test]
    fn memory_type_bits_and_unknown_flags_limit_the_choice() {
        let mut memory = discrete(Some(256 * MIB));
        // A buffer whose memoryTypeBits exclude the BAR type goes to host memory.
        let choice = memory.choose(0b0111, Location::CpuToGpu, MIB);
        assert_eq!(choice.map(|c| c.type_index), Some(1));
        // A type with a flag wgpu-hal does not know (AMD's device-coherent bit) is never used.
        memory.types[3].flags |= 0x40;
        let choice = memory.choose(ALL_TYPES, Location::CpuToGpu, MIB);
        assert_eq!(choice.map(|c| c.type_index), Some(1));
        assert_eq!(memory.choose(0, Location::GpuOnly, MIB), None);
    }

    #[test]
    fn unified_adapters_are_unified_whatever_the_backend() {
        let map = MemoryMap::new(wgpu::DeviceType::Cpu, Some((lavapipe(), all_roles())));
        let p = map.placement(BufferRole::Staging, 256 * MIB);
        assert_eq!(p.kind, MemoryKind::Unified);
        assert!(p.detail.starts_with("memory type 0 [DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED] on heap 0 (2GiB)"), "{}", p.detail);
        let metal = MemoryMap::new(wgpu::DeviceType::IntegratedGpu, None);
        assert_eq!(
            metal.placement(BufferRole::Shared, MIB).kind,
            MemoryKind::Unified
        );
        assert_eq!(metal.source(), "adapter-type");
        let dx12 = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, None);
        assert_eq!(
            dx12.placement(BufferRole::Staging, MIB).kind,
            MemoryKind::Unknown
        );
    }

    #[test]
    fn annotate_records_every_role_asked_for() {
        let map = MemoryMap::new(wgpu::DeviceType::Cpu, Some((lavapipe(), all_roles())));
        let info = BenchmarkInfo::new(
            "t",
            "transfer",
            gpubench_harness::MetricKind::Bandwidth,
            "bytes",
        );
        let info = map.annotate(info, &[BufferRole::Staging, BufferRole::Device], MIB);
        assert_eq!(info.params["memory_source"], "vulkan");
        assert_eq!(info.params["unified_memory"], true);
        assert_eq!(info.params["staging_memory"], "unified");
        assert_eq!(info.params["device_memory"], "unified");
        assert!(!info.params.contains_key("readback_memory"));
        let bits = map.type_bits(BufferRole::Staging).expect("probed");
        assert_eq!(
            info.params["staging_memory_type_bits"],
            format!("0x{bits:x}").as_str()
        );
        assert!(!info.params.contains_key("readback_memory_type_bits"));
        assert_eq!(
            info.params["memory_layout"],
            "type 0 [DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED] heap 0; heap 0: 2GiB device-local"
        );
        assert_eq!(names(0x41), "DEVICE_LOCAL|0x40");
    }
}
