//! Which buffer decides whether a transfer path's timed bytes cross the host-device link, so
//! that every transfer row records it beside where its buffers live: a copy from host memory
//! across the bus, or a copy inside device memory after the host already crossed it.
//!
//! Where buffers live, how that is read (Vulkan's memory types and each usage's
//! `memoryTypeBits`, else the adapter type) and the rule of the crossing are the kit's
//! ([`gpubench_harness::kit::placement`]), shared with the datapath suite. This module says,
//! per path, what decides it: end-to-end rows start or end in the host's own memory;
//! copy-engine rows copy out of the staging buffer (h2d) or into the readback buffer (d2h);
//! host-write rows write the staging buffer. Where that buffer's placement is unknown, the row
//! carries no `crosses_link` (nor its why): on DX12 a MAP_WRITE buffer is most likely an upload
//! heap in host memory, whose copy does cross, so a written `false` would be a guess, and a
//! wrong one.

use super::{Measures, TransferPath};
use gpubench_harness::kit::placement::{BufferRole, LinkAccess};

/// What decides whether `path`'s timed bytes cross the link: the whole transfer end to end,
/// the copy out of the staging buffer (h2d) or into the readback buffer (d2h), or the host's
/// writes into the staging buffer.
impl From<TransferPath> for LinkAccess {
    fn from(path: TransferPath) -> Self {
        match (path.measures(), path.direction()) {
            (Measures::EndToEnd, _) => LinkAccess::EndToEnd,
            (Measures::CopyEngine, "d2h") => LinkAccess::Copy(BufferRole::Readback),
            (Measures::CopyEngine, _) => LinkAccess::Copy(BufferRole::Staging),
            (Measures::HostWrite, _) => LinkAccess::HostWrite(BufferRole::Staging),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::kit::placement::layouts::{discrete, lavapipe, probed};
    use gpubench_harness::kit::placement::{CROSSES_LINK, CROSSES_LINK_WHY, MemoryMap};
    use gpubench_results::units::MIB;

    #[test]
    fn only_rows_whose_bytes_cross_the_bus_count_as_crossing_the_link() {
        use TransferPath::*;
        let crosses = |map: &MemoryMap, path| map.crosses_link(path, MIB).0;
        // Resizable BAR (an H200's large BAR): the staging copy is VRAM to VRAM, the host's
        // memcpy into staging writes device memory over the bus.
        let rebar = probed(wgpu::DeviceType::DiscreteGpu, discrete(None));
        assert!(!crosses(&rebar, StagingCopy));
        assert!(
            rebar
                .crosses_link(StagingCopy, MIB)
                .1
                .contains("resizable-bar")
        );
        assert!(crosses(&rebar, HostWrite));
        for end_to_end in [WriteBuffer, MappedStaging, MappedAtCreation, MapRead] {
            assert!(crosses(&rebar, end_to_end), "{end_to_end:?}");
        }
        // Readback is cached host memory: the readback copy crosses.
        assert!(crosses(&rebar, ReadbackCopy));
        // No BAR: staging is host memory, so its copy crosses and the memcpy does not.
        let mut memory = discrete(Some(256 * MIB));
        memory.types.pop();
        let no_bar = probed(wgpu::DeviceType::DiscreteGpu, memory);
        assert!(crosses(&no_bar, StagingCopy));
        assert!(!crosses(&no_bar, HostWrite));
        // A backend that does not say where buffers live: only end-to-end rows count.
        let dx12 = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, None);
        assert!(!crosses(&dx12, StagingCopy));
        assert!(crosses(&dx12, WriteBuffer));
        // One memory: nothing crosses.
        let cpu = probed(wgpu::DeviceType::Cpu, lavapipe());
        assert!(TransferPath::ALL.iter().all(|&p| !crosses(&cpu, p)));
    }

    #[test]
    fn an_unknown_placement_leaves_the_link_crossing_unknown_and_unwritten() {
        use TransferPath::*;
        // DX12 (or Metal) on a discrete card: the backend does not say where buffers live.
        let dx12 = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, None);
        for path in [StagingCopy, ReadbackCopy, HostWrite] {
            let (crosses, why) = dx12.link_crossing(path, MIB);
            assert_eq!(crosses, None, "{path:?}: {why}");
            assert!(why.contains("not known"), "{why}");
            // The yes-or-no (doctor's choice of path) takes only a path known to cross.
            assert!(!dx12.crosses_link(path, MIB).0, "{path:?}");
        }
        assert_eq!(dx12.link_crossing(WriteBuffer, MIB).0, Some(true));
        // Vulkan, a staging buffer larger than the BAR heap it prefers: unknown at that size.
        let bar = probed(wgpu::DeviceType::DiscreteGpu, discrete(Some(256 * MIB)));
        assert_eq!(bar.link_crossing(StagingCopy, 512 * MIB).0, None);
        assert_eq!(bar.link_crossing(StagingCopy, MIB).0, Some(false));
        assert_eq!(bar.link_crossing(HostWrite, MIB).0, Some(true));
        // The row says nothing rather than "did not cross": no crosses_link, no why.
        let row = |map: &MemoryMap, bytes| {
            use gpubench_harness::Kernel as _;
            crate::transfer::Transfer::new(StagingCopy, bytes, 1)
                .placed(map)
                .info()
                .params
        };
        let unknown = row(&dx12, MIB);
        assert!(!unknown.contains_key(CROSSES_LINK), "{unknown:?}");
        assert!(!unknown.contains_key(CROSSES_LINK_WHY), "{unknown:?}");
        assert_eq!(unknown["staging_memory"], "unknown");
        assert!(!row(&bar, 512 * MIB).contains_key(CROSSES_LINK));
        let known = row(&bar, MIB);
        assert_eq!(known[CROSSES_LINK], false);
        assert_eq!(
            known[CROSSES_LINK_WHY],
            "the staging buffer is bar memory: the copy may never leave the device"
        );
    }
}
