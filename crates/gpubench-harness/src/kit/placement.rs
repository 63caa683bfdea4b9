//! Where a benchmark's buffers live, as far as the adapter tells, and whether the bytes a row
//! times cross the host-device link: what a suite records in a row's params, so a figure can be
//! read for what it is: a copy from host memory across the bus, or a copy inside device memory
//! after the host already crossed it. The transfer suite records it on every row, the datapath
//! suite on the stages that move a request's bytes.
//!
//! On Vulkan this module records what Vulkan reports and nothing it has to guess: the physical
//! device's memory types and heaps (`memory_layout`), the `memoryTypeBits` of a probe buffer of
//! each usage (`<role>_memory_type_bits`; Vulkan gives every buffer of one usage and flags the
//! same bits), and each usage's *preferred type*: the first type, in index order, that those
//! bits allow and that has the flags the usage asks for. Vulkan orders types so that, of types
//! with the same flags, the first performs best (specification, `VkPhysicalDeviceMemoryProperties`),
//! which is why allocators search in index order. Which flags each usage asks for, and why the
//! allocation itself cannot be observed through wgpu 30, is told once, in
//! docs/notes/2026-12-01-wgpu-buffer-placement.md. A buffer larger than its preferred type's
//! heap cannot live there; that row says so and calls its placement unknown rather than
//! guess the allocator's fallback.
//!
//! Elsewhere (Metal, DX12, GL) only the adapter type speaks: integrated GPUs and CPU adapters
//! share one memory with the host (unified), a discrete GPU's placement is unknown.
//!
//! Whether a row's bytes cross the link follows from what it times ([`LinkAccess`]) and where
//! the buffer that decides it lives: a copy crosses where that buffer is host memory, the host's
//! writes into a mapped buffer where it is device memory behind the BAR. Where that buffer's
//! placement is unknown, so is whether its bytes cross the host-device link, and the row then
//! carries no `crosses_link` (nor its why): on DX12 a MAP_WRITE buffer is most likely an upload
//! heap in host memory, whose copy does cross, so a written `false` would be a guess, and a
//! wrong one.

use crate::{BenchmarkInfo, GpuContext};
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

    /// `DEVICE_LOCAL|HOST_VISIBLE|...` for the bits set in `value`; other bits in hex.
    pub fn names(value: u32) -> String {
        let named = [
            (DEVICE_LOCAL, "DEVICE_LOCAL"),
            (HOST_VISIBLE, "HOST_VISIBLE"),
            (HOST_COHERENT, "HOST_COHERENT"),
            (HOST_CACHED, "HOST_CACHED"),
            (LAZILY_ALLOCATED, "LAZILY_ALLOCATED"),
        ];
        let known = named.iter().fold(0, |all, (bit, _)| all | bit);
        let mut parts: Vec<String> = named
            .iter()
            .filter(|(bit, _)| value & bit != 0)
            .map(|(_, name)| name.to_string())
            .collect();
        if value & !known != 0 {
            parts.push(format!("0x{:x}", value & !known));
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

/// The param saying whether a row's bytes cross the host-device link (`true` or `false`),
/// written only where that is known ([`MemoryMap::link_crossing`]).
pub const CROSSES_LINK: &str = "crosses_link";
/// The param saying why [`CROSSES_LINK`] is what it is, written beside it and only with it.
pub const CROSSES_LINK_WHY: &str = "crosses_link_why";

/// Whether `key` is a param saying where a row's buffers live or whether its bytes cross the
/// link (what [`MemoryMap::annotate`] writes, and [`CROSSES_LINK`] with its why): the params a
/// row derived from several (the transfer suite's fit over sizes) takes from them where they all
/// agree.
pub fn is_placement_param(key: &str) -> bool {
    const WHOLE: [&str; 5] = [
        "memory_source",
        "unified_memory",
        "memory_layout",
        CROSSES_LINK,
        CROSSES_LINK_WHY,
    ];
    WHOLE.contains(&key)
        || BufferRole::ALL.iter().any(|role| {
            key.strip_prefix(role.name()).is_some_and(|rest| {
                matches!(rest, "_memory" | "_memory_detail" | "_memory_type_bits")
            })
        })
}

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

/// A Vulkan physical device's memory types and heaps, as `vkGetPhysicalDeviceMemoryProperties`
/// reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VulkanMemory {
    /// Memory types in index order.
    pub types: Vec<MemoryType>,
    /// Memory heaps.
    pub heaps: Vec<MemoryHeap>,
}

impl VulkanMemory {
    /// The preferred type of a buffer whose `memoryTypeBits` are `bits` and whose usage asks
    /// for `wanted` (flag sets, most wanted first): the first type, in index order, that the
    /// bits allow and that has every flag of the earliest set any allowed type satisfies.
    pub fn preferred(&self, bits: u32, wanted: &[u32]) -> Option<usize> {
        wanted.iter().find_map(|&want| {
            (0..self.types.len().min(32))
                .find(|&i| bits & (1u32 << i) != 0 && self.types[i].flags & want == want)
        })
    }

    /// `type 0 [..] heap 0; heap 0: 2GiB device-local`, for the params.
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
    /// The adapter does not tell.
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

/// The buffers that move bytes between host and device, by usage: the transfer suite uses
/// each, the datapath suite its staging and readback buffers.
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

    /// The memory flags wgpu asks for a buffer of this usage, most wanted first (the note on
    /// buffer placement says where this comes from): mapped-for-write buffers want the BAR,
    /// then any coherent host memory; mapped-for-read ones cached host memory; the rest VRAM.
    pub fn wanted(self) -> &'static [u32] {
        use flags::*;
        match self {
            BufferRole::Staging | BufferRole::Shared => &[
                DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT,
                HOST_VISIBLE | HOST_COHERENT,
            ],
            BufferRole::Readback => &[
                HOST_VISIBLE | HOST_COHERENT | HOST_CACHED,
                HOST_VISIBLE | HOST_COHERENT,
            ],
            BufferRole::Device => &[DEVICE_LOCAL],
        }
    }
}

/// Where one buffer lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// In one word.
    pub kind: MemoryKind,
    /// The preferred memory type, its flags and heap, or how the kind was decided.
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

/// What decides whether the bytes a row times cross the host-device link: the whole transfer,
/// or one buffer and what is done with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkAccess {
    /// The data starts or ends in the host's own memory (a whole transfer, end to end): it
    /// crosses on every adapter whose memory is not unified.
    EndToEnd,
    /// A device copy out of or into a buffer of this role: it crosses where that buffer is host
    /// memory and stays on the device where it is device memory (the BAR included).
    Copy(BufferRole),
    /// The host writing into a mapped buffer of this role: it crosses where that buffer is
    /// device memory behind the BAR, and is a memcpy within host memory where it is host memory.
    HostWrite(BufferRole),
}

impl LinkAccess {
    /// The buffer that decides the crossing (`None` end to end).
    pub fn role(self) -> Option<BufferRole> {
        match self {
            LinkAccess::EndToEnd => None,
            LinkAccess::Copy(role) | LinkAccess::HostWrite(role) => Some(role),
        }
    }
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

    /// Where the facts come from: `vulkan` (memory properties and `memoryTypeBits` through
    /// `as_hal`) or `adapter-type`.
    pub fn source(&self) -> &'static str {
        if self.vulkan.is_some() {
            "vulkan"
        } else {
            "adapter-type"
        }
    }

    /// Where a buffer of `role` and `bytes` lives: its preferred type on Vulkan.
    pub fn placement(&self, role: BufferRole, bytes: u64) -> Placement {
        let unknown = |detail: String| Placement {
            kind: MemoryKind::Unknown,
            detail,
        };
        let Some((memory, _)) = &self.vulkan else {
            let kind = if self.unified {
                MemoryKind::Unified
            } else {
                MemoryKind::Unknown
            };
            let detail = format!(
                "from the adapter type ({:?}); this backend does not say where buffers live",
                self.device_type
            );
            return Placement { kind, detail };
        };
        let Some(bits) = self.type_bits(role) else {
            return unknown("no probe buffer of this usage (the device cannot create one)".into());
        };
        let Some(index) = memory.preferred(bits, role.wanted()) else {
            return unknown(format!(
                "no memory type has the flags this usage asks for (memoryTypeBits 0x{bits:x})"
            ));
        };
        let ty = memory.types[index];
        let heap = memory.heaps.get(ty.heap).map_or(0, |h| h.size);
        let detail = format!(
            "memory type {index} [{}] on heap {} ({}), preferred for this usage",
            flags::names(ty.flags),
            ty.heap,
            format_size(heap)
        );
        if bytes > heap {
            return unknown(format!(
                "{detail}; larger than that heap, so it lives elsewhere (see the note on buffer placement)"
            ));
        }
        let kind = MemoryKind::of_type(ty.flags, heap, self.unified);
        if kind == MemoryKind::Bar && bytes > heap / 2 {
            // A classic BAR window is shared with every other host-visible device allocation,
            // and the allocator moves what no longer fits to host memory without a word: over
            // half of it, the buffer may be either side of the link.
            return unknown(format!(
                "{detail}; over half of that BAR window, which other allocations share: where it \
                 is full the allocator places the buffer in host memory instead, so where it \
                 lives is not known"
            ));
        }
        Placement { kind, detail }
    }

    /// The `memoryTypeBits` Vulkan reported for a buffer of `role`'s usage (Vulkan only).
    pub fn type_bits(&self, role: BufferRole) -> Option<u32> {
        let (_, bits) = self.vulkan.as_ref()?;
        bits.iter().find(|(r, _)| *r == role).map(|&(_, b)| b)
    }

    /// Whether the bytes `access` moves at `bytes` go between host memory and device memory
    /// over the bus, as a yes or no: `false` both where they do not and where that is not
    /// known ([`MemoryMap::link_crossing`] tells the two apart), so a caller choosing a path
    /// that must cross (doctor's link check) takes only one known to.
    pub fn crosses_link(&self, access: impl Into<LinkAccess>, bytes: u64) -> (bool, String) {
        let (crosses, why) = self.link_crossing(access, bytes);
        (crosses == Some(true), why)
    }

    /// Whether the bytes `access` moves at `bytes` go between host memory and device memory
    /// over the bus, and why (or why not), from where its buffer lives: `None` where the buffer
    /// that decides it has an unknown placement (a discrete adapter off Vulkan, a buffer larger
    /// than its preferred heap). Comparisons with a link's bandwidth (CUDA's pinned copies,
    /// doctor's link check) take only the rows that do: with a large BAR, wgpu's write-mapped
    /// staging lands in device memory, and the staging copy is then a VRAM-to-VRAM copy (about
    /// 2 TB/s on an H200), not a transfer.
    pub fn link_crossing(
        &self,
        access: impl Into<LinkAccess>,
        bytes: u64,
    ) -> (Option<bool>, String) {
        if self.unified {
            return (
                Some(false),
                "host and device share one memory: no link to cross".to_string(),
            );
        }
        let access = access.into();
        let role = match access {
            // An adapter of no stated type (WebGPU's every adapter, GL's unclassified renderers)
            // may be integrated, with no link at all.
            LinkAccess::EndToEnd if self.device_type == wgpu::DeviceType::Other => {
                return (
                    None,
                    "the adapter does not say whether it is integrated or discrete".to_string(),
                );
            }
            LinkAccess::EndToEnd => {
                return (
                    Some(true),
                    "end to end: the data starts or ends in the host's own memory".to_string(),
                );
            }
            LinkAccess::Copy(role) | LinkAccess::HostWrite(role) => role,
        };
        let kind = self.placement(role, bytes).kind;
        let crosses = match (access, kind) {
            (_, MemoryKind::Unknown) => None,
            (LinkAccess::HostWrite(_), bar) => {
                Some(matches!(bar, MemoryKind::Bar | MemoryKind::ResizableBar))
            }
            (_, host) => Some(host == MemoryKind::Host),
        };
        (crosses, link_why(access, role, kind, crosses))
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
            if let Some(bits) = self.type_bits(role) {
                info = info.param(
                    &format!("{}_memory_type_bits", role.name()),
                    format!("0x{bits:x}"),
                );
            }
        }
        info
    }

    /// The info with [`CROSSES_LINK`] and [`CROSSES_LINK_WHY`] for `access` at `bytes`
    /// ([`MemoryMap::link_crossing`]), or unchanged where that is not known: a reader sees no
    /// answer rather than a guessed "no".
    pub fn annotate_link(
        &self,
        info: BenchmarkInfo,
        access: impl Into<LinkAccess>,
        bytes: u64,
    ) -> BenchmarkInfo {
        match self.link_crossing(access, bytes) {
            (Some(crosses), why) => info
                .param(CROSSES_LINK, crosses)
                .param(CROSSES_LINK_WHY, why),
            (None, _) => info,
        }
    }
}

/// Why a copy or host write whose deciding buffer (`role`, of `kind`) does or does not cross
/// the link (`crosses`, `None` where not known) is said to.
fn link_why(
    access: LinkAccess,
    role: BufferRole,
    kind: MemoryKind,
    crosses: Option<bool>,
) -> String {
    let role = role.name();
    let host_write = matches!(access, LinkAccess::HostWrite(_));
    match (host_write, crosses) {
        (_, None) => format!(
            "where the {role} buffer lives is not known (its {role}_memory_detail says why), so neither is whether the bytes cross the link"
        ),
        (true, Some(true)) => "the host writes through the BAR into device memory".to_string(),
        (true, Some(false)) => format!(
            "the host writes {} memory: a memcpy that never crosses the bus",
            kind.name()
        ),
        (false, Some(true)) => format!("the {role} buffer is host memory"),
        (false, Some(false)) => format!(
            "the {role} buffer is {} memory: the copy may never leave the device",
            kind.name()
        ),
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

    use crate::GpuContext;
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
            .map(|role| {
                (
                    role,
                    ctx.buffer("memory placement probe", 256, role.usage()),
                )
            })
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

    use crate::GpuContext;

    use super::{BufferRole, VulkanMemory};

    /// Always `None`: wgpu has no Vulkan backend here.
    pub(super) fn probe(_ctx: &GpuContext) -> Option<(VulkanMemory, Vec<(BufferRole, u32)>)> {
        None
    }
}

pub mod layouts {
    //! Memory layouts as Vulkan reports them on kinds of adapter, for tests of what a suite
    //! records from a [`MemoryMap`] without the adapter itself.

    use super::flags::{DEVICE_LOCAL, HOST_CACHED, HOST_COHERENT, HOST_VISIBLE};
    use super::{BufferRole, MemoryHeap, MemoryMap, MemoryType, VulkanMemory};
    use gpubench_results::units::GIB;

    /// An RTX 4090-like layout (NVIDIA's order): VRAM, host, cached host, and the BAR window of
    /// `bar` bytes on a heap of its own, or with `None` on VRAM's heap (resizable BAR, or an
    /// H200's large BAR).
    pub fn discrete(bar: Option<u64>) -> VulkanMemory {
        let heap = |size, device_local| MemoryHeap { size, device_local };
        let mut heaps = vec![heap(24 * GIB, true), heap(64 * GIB, false)];
        let bar_heap = bar.map_or(0, |size| {
            heaps.push(heap(size, true));
            2
        });
        let ty = |flags, heap| MemoryType { flags, heap };
        VulkanMemory {
            types: vec![
                ty(DEVICE_LOCAL, 0),
                ty(HOST_VISIBLE | HOST_COHERENT, 1),
                ty(HOST_VISIBLE | HOST_COHERENT | HOST_CACHED, 1),
                ty(DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT, bar_heap),
            ],
            heaps,
        }
    }

    /// lavapipe's layout: one memory type, every flag, on one 2 GiB heap.
    pub fn lavapipe() -> VulkanMemory {
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

    /// A map of `memory` on an adapter of `device_type` whose every role's `memoryTypeBits`
    /// allow every type.
    pub fn probed(device_type: wgpu::DeviceType, memory: VulkanMemory) -> MemoryMap {
        let bits = BufferRole::ALL.iter().map(|&r| (r, u32::MAX)).collect();
        MemoryMap::new(device_type, Some((memory, bits)))
    }
}

#[cfg(test)]
mod tests {
    use super::flags::*;
    use super::layouts::{discrete, lavapipe, probed};
    use super::*;
    use gpubench_results::units::GIB;

    const ALL_TYPES: u32 = u32::MAX;

    /// Asserts that a buffer of `role` and `bytes` is of `kind`, its detail containing `says`.
    fn expect(map: &MemoryMap, (role, bytes): (BufferRole, u64), kind: MemoryKind, says: &str) {
        let placed = map.placement(role, bytes);
        assert_eq!(
            placed.kind, kind,
            "{role:?} at {bytes} B: {}",
            placed.detail
        );
        assert!(placed.detail.contains(says), "{role:?}: {}", placed.detail);
    }

    #[test]
    fn each_usage_gets_its_preferred_type_and_a_buffer_larger_than_its_heap_is_unknown() {
        use BufferRole::*;
        let map = probed(wgpu::DeviceType::DiscreteGpu, discrete(Some(256 * MIB)));
        expect(&map, (Staging, MIB), MemoryKind::Bar, "memory type 3 ");
        let too_big = (Staging, 512 * MIB);
        expect(&map, too_big, MemoryKind::Unknown, "larger than that heap");
        // 256 MiB in a 256 MiB BAR shared with other allocations: either side of the link.
        let filling = (Staging, 256 * MIB);
        expect(
            &map,
            filling,
            MemoryKind::Unknown,
            "over half of that BAR window",
        );
        expect(
            &map,
            (Staging, 128 * MIB),
            MemoryKind::Bar,
            "memory type 3 ",
        );
        expect(
            &map,
            (Device, GIB),
            MemoryKind::DeviceLocal,
            "memory type 0 ",
        );
        // Readback prefers cached host memory: type 2, not the uncached type 1 before it.
        expect(&map, (Readback, MIB), MemoryKind::Host, "memory type 2 ");
        // Resizable BAR: the BAR type lies on VRAM's heap, which holds every upload.
        let rebar = probed(wgpu::DeviceType::DiscreteGpu, discrete(None));
        expect(
            &rebar,
            (Staging, 256 * MIB),
            MemoryKind::ResizableBar,
            "type 3 ",
        );
        // No BAR type at all: uploads prefer coherent host memory.
        let mut memory = discrete(Some(256 * MIB));
        memory.types.pop();
        let no_bar = probed(wgpu::DeviceType::DiscreteGpu, memory);
        expect(&no_bar, (Staging, MIB), MemoryKind::Host, "memory type 1 ");
    }

    #[test]
    fn copies_cross_where_their_buffer_is_host_memory_and_host_writes_where_it_is_the_bar() {
        use LinkAccess::*;
        let crosses = |map: &MemoryMap, access| map.link_crossing(access, MIB).0;
        let (staging, readback) = (BufferRole::Staging, BufferRole::Readback);
        // A large BAR: the staging copy stays on the card, the host's writes cross.
        let rebar = probed(wgpu::DeviceType::DiscreteGpu, discrete(None));
        assert_eq!(crosses(&rebar, Copy(staging)), Some(false));
        assert_eq!(crosses(&rebar, HostWrite(staging)), Some(true));
        assert_eq!(crosses(&rebar, Copy(readback)), Some(true));
        assert_eq!(crosses(&rebar, EndToEnd), Some(true));
        // Unified memory: nothing crosses, whatever is timed.
        let cpu = probed(wgpu::DeviceType::Cpu, lavapipe());
        for access in [EndToEnd, Copy(staging), HostWrite(staging), Copy(readback)] {
            assert_eq!(crosses(&cpu, access), Some(false), "{access:?}");
        }
        // Unknown placement: the params are left out, not written as "no".
        let dx12 = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, None);
        assert_eq!(crosses(&dx12, Copy(staging)), None);
        // An adapter of no stated type (a browser's) may be integrated: not even a whole
        // transfer is known to cross.
        let web = MemoryMap::new(wgpu::DeviceType::Other, None);
        for access in [EndToEnd, Copy(staging), HostWrite(staging)] {
            assert_eq!(crosses(&web, access), None, "{access:?}");
        }
        let info = BenchmarkInfo::new("t", "s", crate::MetricKind::TimePerOp, "us");
        let unknown = dx12.annotate_link(info.clone(), HostWrite(staging), MIB);
        assert!(!unknown.params.contains_key(CROSSES_LINK), "{unknown:?}");
        let known = rebar.annotate_link(info, HostWrite(staging), MIB);
        assert_eq!(known.params[CROSSES_LINK], true);
        assert_eq!(
            known.params[CROSSES_LINK_WHY],
            "the host writes through the BAR into device memory"
        );
    }

    #[test]
    fn placement_params_are_those_annotate_and_the_link_crossing_write() {
        let map = probed(wgpu::DeviceType::DiscreteGpu, discrete(None));
        let info = BenchmarkInfo::new("t", "transfer", crate::MetricKind::Bandwidth, "bytes")
            .param("path", "p")
            .param("bytes", 1);
        let info = map
            .annotate(info, &BufferRole::ALL, MIB)
            .param(CROSSES_LINK, true)
            .param(CROSSES_LINK_WHY, "why");
        let placement: Vec<&str> = info
            .params
            .keys()
            .map(String::as_str)
            .filter(|k| is_placement_param(k))
            .collect();
        assert_eq!(placement.len(), info.params.len() - 2, "{placement:?}");
        assert!(!is_placement_param("path") && !is_placement_param("bytes"));
        assert!(!is_placement_param("measures") && !is_placement_param("direction"));
    }

    #[test]
    fn memory_type_bits_limit_the_preferred_type() {
        let memory = discrete(Some(256 * MIB));
        let upload = BufferRole::Staging.wanted();
        assert_eq!(memory.preferred(ALL_TYPES, upload), Some(3));
        // Bits that exclude the BAR type leave the first coherent host type.
        assert_eq!(memory.preferred(0b0111, upload), Some(1));
        assert_eq!(memory.preferred(0, BufferRole::Device.wanted()), None);
        let map = MemoryMap::new(
            wgpu::DeviceType::DiscreteGpu,
            Some((memory, vec![(BufferRole::Device, 0b0010)])),
        );
        let device = (BufferRole::Device, MIB);
        expect(&map, device, MemoryKind::Unknown, "memoryTypeBits 0x2");
        let staging = (BufferRole::Staging, MIB);
        expect(&map, staging, MemoryKind::Unknown, "no probe buffer");
    }

    #[test]
    fn unified_adapters_are_unified_whatever_the_backend() {
        let map = probed(wgpu::DeviceType::Cpu, lavapipe());
        let p = map.placement(BufferRole::Staging, 256 * MIB);
        assert_eq!(p.kind, MemoryKind::Unified);
        assert!(p.detail.starts_with("memory type 0 [DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED] on heap 0 (2GiB)"), "{}", p.detail);
        let metal = MemoryMap::new(wgpu::DeviceType::IntegratedGpu, None);
        let shared = (BufferRole::Shared, MIB);
        expect(&metal, shared, MemoryKind::Unified, "IntegratedGpu");
        assert_eq!(metal.source(), "adapter-type");
        let dx12 = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, None);
        let staging = (BufferRole::Staging, MIB);
        expect(&dx12, staging, MemoryKind::Unknown, "does not say");
    }

    #[test]
    fn annotate_records_every_role_asked_for() {
        let map = probed(wgpu::DeviceType::Cpu, lavapipe());
        let info = BenchmarkInfo::new("t", "transfer", crate::MetricKind::Bandwidth, "bytes");
        let info = map.annotate(info, &[BufferRole::Staging, BufferRole::Device], MIB);
        assert_eq!(info.params["memory_source"], "vulkan");
        assert_eq!(info.params["unified_memory"], true);
        assert_eq!(info.params["staging_memory"], "unified");
        assert_eq!(info.params["device_memory"], "unified");
        assert!(!info.params.contains_key("readback_memory"));
        assert_eq!(info.params["staging_memory_type_bits"], "0xffffffff");
        assert!(!info.params.contains_key("readback_memory_type_bits"));
        assert_eq!(
            info.params["memory_layout"],
            "type 0 [DEVICE_LOCAL|HOST_VISIBLE|HOST_COHERENT|HOST_CACHED] heap 0; heap 0: 2GiB device-local"
        );
        assert_eq!(names(0x41), "DEVICE_LOCAL|0x40");
    }
}
