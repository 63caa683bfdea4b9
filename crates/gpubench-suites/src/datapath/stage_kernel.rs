//! The five stages of a request, each timed alone over the request's own buffers: what each
//! costs without the seams between them (the submits, maps and waits the whole path adds,
//! which the serial row's own span includes and this one leaves out).
//!
//! - `prepare`: the host writes the input into the mapped staging buffer (host clock; the map
//!   itself is a seam);
//! - `h2d`: the copy from the staging buffer to the device buffer (GPU timestamps around the
//!   copies where the adapter has them, and the host clock from submit to completion);
//! - `compute`: the kernel (timestamps on its pass, and the host clock);
//! - `d2h`: the copy of the output into the mappable buffer (as `h2d`);
//! - `check`: the host compares the mapped output with the predicted answer (host clock).
//!
//! Calibrated: a sample repeats its stage until it is long enough to time, so each figure is
//! the stage's steady cost per request.
//!
//! Which of these crosses the host-device link depends on where wgpu put the buffer the stage
//! touches, so `prepare`, `h2d` and `d2h` record it ([`Stage::link_access`](super::stage::Stage::link_access), the kit's
//! [`placement`](gpubench_harness::kit::placement)): on a discrete GPU with a large BAR the
//! write-mapped staging buffer is device memory, `h2d` is a copy inside the card, and it is
//! `prepare`'s writes that cross the link.

use gpubench_harness::kit::placement::MemoryMap;
use gpubench_harness::timing::Boundary;
use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, Outcome, SampleClock, TimingPreference,
    Verification, Work,
};

use super::path::{self, Prepared};
use super::reference::Reference;
use super::request::Request;
use super::stage::Stage;

/// One stage of one workload's request, timed alone.
pub struct StageKernel {
    request: Request,
    stage: Stage,
    seed: u64,
    memory: Option<MemoryMap>,
}

impl StageKernel {
    /// `stage` of `request`.
    pub fn new(request: Request, stage: Stage, seed: u64) -> Self {
        Self {
            request,
            stage,
            seed,
            memory: None,
        }
    }

    /// The same stage, its params saying, according to `memory`, where the buffer that decides
    /// whether its bytes cross the link lives and whether they do.
    pub fn placed(mut self, memory: &MemoryMap) -> Self {
        self.memory = Some(memory.clone());
        self
    }

    /// `info` with the placement params of the buffer the stage touches (`staging_memory` for
    /// `prepare` and `h2d`, `readback_memory` for `d2h`, with their detail) and `crosses_link`
    /// with its why, where that is known; stages that move no bytes, and a stage not placed,
    /// get none.
    fn with_placement(&self, info: BenchmarkInfo) -> BenchmarkInfo {
        let (Some(memory), Some(access)) = (&self.memory, self.stage.link_access()) else {
            return info;
        };
        let bytes = self.stage.bytes(&self.request);
        let info = memory.annotate(info, access.role().as_slice(), bytes);
        memory.annotate_link(info, access, bytes)
    }
}

impl Kernel for StageKernel {
    type State = Prepared;

    fn info(&self) -> BenchmarkInfo {
        let name = self.stage.name();
        let row = format!("stage/{name}");
        let mut info = self
            .request
            .info(&row, self.stage.counts(), ("stage", name));
        if self.stage.on_host() {
            info.timing = TimingPreference::Host;
        }
        self.with_placement(info)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<Prepared> {
        path::prepared(ctx, &self.request, self.seed, 1).await
    }

    fn work(&self, _state: &Prepared) -> Work {
        self.stage.work(&self.request)
    }

    async fn run(&self, state: &mut Prepared, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, n) = (clock.ctx(), clock.iterations());
        let slot = &state.slots[0];
        match self.stage {
            Stage::Prepare => {
                ctx.map_after(&slot.staging, wgpu::MapMode::Write, None)
                    .await?;
                {
                    let mut range = slot.staging.get_mapped_range_mut(..)?;
                    clock.start_host();
                    for k in 0..n {
                        state
                            .reference
                            .prepare(range.slice(..), Reference::salt(u64::from(k)));
                    }
                    clock.stop_host();
                }
                slot.staging.unmap();
            }
            Stage::Check => {
                // Each check reads an output downloaded afresh, untimed, as a request's check
                // reads one the device has just written (its lines not in the CPU's caches
                // where the copy came over the link): checks repeated over one readback would
                // be timed from the caches after the first. Only the checks are timed.
                let (slot, salt) = (&mut state.slots[0], state.last_salt);
                for _ in 0..n {
                    // The untimed downloads make a sample's wall time many times its checks':
                    // a stop is honoured between checks, not only between samples.
                    if ctx.stop_requested() {
                        return Err(BenchError::Interrupted);
                    }
                    let mut encoder = ctx.device.create_command_encoder(&Default::default());
                    slot.encode_download(&mut encoder);
                    slot.last_submission = Some(ctx.queue.submit([encoder.finish()]));
                    slot.map_output(ctx).await?;
                    let found = {
                        let range = slot.readback.get_mapped_range(..)?;
                        clock.time_on_host(|| state.reference.mismatches(&range, salt, false))
                    };
                    slot.readback.unmap();
                    if let Some(reason) = found.failure() {
                        return Err(BenchError::Gpu(format!("the output changed: {reason}")));
                    }
                }
            }
            Stage::Upload | Stage::Download | Stage::Compute => {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                if self.stage == Stage::Compute {
                    for k in 0..n {
                        let writes = clock.pass_timestamps(k == 0, k + 1 == n);
                        slot.encode_compute(&mut encoder, &state.kernel, writes);
                    }
                } else {
                    clock.write_timestamp(&mut encoder, Boundary::Begin);
                    for _ in 0..n {
                        if self.stage == Stage::Upload {
                            slot.encode_upload(&mut encoder);
                        } else {
                            slot.encode_download(&mut encoder);
                        }
                    }
                    clock.write_timestamp(&mut encoder, Boundary::End);
                }
                clock.submit([encoder.finish()]);
            }
        }
        Ok(())
    }

    async fn verify(&self, state: &mut Prepared, ctx: &GpuContext) -> Outcome<Verification> {
        path::verify_stage(ctx, state, self.stage).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datapath::request::builtins;
    use gpubench_harness::Profile;
    use gpubench_harness::kit::placement::layouts::{discrete, lavapipe, probed};
    use gpubench_harness::kit::placement::{BufferRole, CROSSES_LINK, CROSSES_LINK_WHY};
    use gpubench_results::units::{GIB, MIB};
    use serde_json::Value;
    use std::collections::BTreeMap;

    /// Each stage's params for the balanced workload (4 MiB in, 1 MiB out), placed by `memory`
    /// where given.
    fn rows(memory: Option<&MemoryMap>) -> Vec<BTreeMap<String, Value>> {
        let request = builtins(Profile::Quick)
            .into_iter()
            .find(|r| r.name == "balanced")
            .expect("a built-in workload");
        Stage::ALL
            .iter()
            .map(|&stage| {
                let kernel = StageKernel::new(request.clone(), stage, 1);
                let kernel = match memory {
                    Some(memory) => kernel.placed(memory),
                    None => kernel,
                };
                kernel.info().params
            })
            .collect()
    }

    /// The H200 of docs/results/nvidia-h200-2026-12-05, as its transfer rows recorded it
    /// (`memory_layout`, every usage's `memoryTypeBits` 0x1f): its large BAR is a
    /// device-local, host-visible type on VRAM's own heap.
    fn h200() -> MemoryMap {
        use gpubench_harness::kit::placement::flags::*;
        use gpubench_harness::kit::placement::{MemoryHeap, MemoryType, VulkanMemory};
        let ty = |flags, heap| MemoryType { flags, heap };
        let memory = VulkanMemory {
            types: vec![
                ty(0, 1),
                ty(DEVICE_LOCAL, 0),
                ty(HOST_VISIBLE | HOST_COHERENT, 1),
                ty(HOST_VISIBLE | HOST_COHERENT | HOST_CACHED, 1),
                ty(DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT, 0),
            ],
            heaps: vec![
                MemoryHeap {
                    size: 140 * GIB,
                    device_local: true,
                },
                MemoryHeap {
                    size: 94 * GIB,
                    device_local: false,
                },
            ],
        };
        let bits = BufferRole::ALL.iter().map(|&role| (role, 0x1f)).collect();
        MemoryMap::new(wgpu::DeviceType::DiscreteGpu, Some((memory, bits)))
    }

    /// Whether a row carries any placement or link param.
    fn placed(params: &BTreeMap<String, Value>) -> bool {
        params
            .keys()
            .any(|k| gpubench_harness::kit::placement::is_placement_param(k))
    }

    /// A stage that moves a request's bytes declares them once, as its GB/s counts them (the
    /// transfer suite's convention: toward the device written, back read); the kernel declares
    /// its FLOP over the input it reads and the output it writes.
    #[test]
    fn on_a_large_bar_card_prepare_crosses_the_link_and_h2d_stays_on_the_card() {
        // An H200: its large BAR puts the write-mapped staging in device memory; the readback
        // buffer prefers cached host memory.
        let stages = rows(Some(&h200()));
        let [prepare, h2d, compute, d2h, check] = &stages[..] else {
            panic!("five stages");
        };
        assert_eq!(prepare["staging_memory"], "resizable-bar");
        assert_eq!(prepare[CROSSES_LINK], true);
        assert_eq!(
            prepare[CROSSES_LINK_WHY],
            "the host writes through the BAR into device memory"
        );
        assert_eq!(h2d["staging_memory"], "resizable-bar");
        assert_eq!(h2d[CROSSES_LINK], false);
        assert_eq!(
            h2d[CROSSES_LINK_WHY],
            "the staging buffer is resizable-bar memory: the copy may never leave the device"
        );
        assert_eq!(h2d["memory_source"], "vulkan");
        assert_eq!(h2d["staging_memory_type_bits"], "0x1f");
        assert!(
            h2d["staging_memory_detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("memory type 4 ")),
            "{h2d:?}"
        );
        assert!(!h2d.contains_key("readback_memory") && !h2d.contains_key("device_memory"));
        assert_eq!(d2h["readback_memory"], "host");
        assert_eq!(d2h[CROSSES_LINK], true);
        assert_eq!(d2h[CROSSES_LINK_WHY], "the readback buffer is host memory");
        assert!(!d2h.contains_key("staging_memory"));
        assert!(!placed(compute) && !placed(check), "{compute:?} {check:?}");
        // The same with the RTX 4090-like layout of the kit's tests under resizable BAR.
        let rebar = rows(Some(&probed(wgpu::DeviceType::DiscreteGpu, discrete(None))));
        assert_eq!(rebar[1]["staging_memory"], "resizable-bar");
        assert_eq!(rebar[0][CROSSES_LINK], true);
        assert_eq!(rebar[1][CROSSES_LINK], false);
        // A card whose only BAR window (256 MiB) holds the staging: the same, named `bar`.
        let window = probed(wgpu::DeviceType::DiscreteGpu, discrete(Some(256 * MIB)));
        let in_window = rows(Some(&window));
        assert_eq!(in_window[1]["staging_memory"], "bar");
        assert_eq!(in_window[1][CROSSES_LINK], false);
        // No BAR at all: staging is host memory, so the copy crosses and prepare does not.
        let mut memory = discrete(Some(256 * MIB));
        memory.types.pop();
        let no_bar = probed(wgpu::DeviceType::DiscreteGpu, memory);
        let host = rows(Some(&no_bar));
        assert_eq!(host[0]["staging_memory"], "host");
        assert_eq!(host[0][CROSSES_LINK], false);
        assert_eq!(host[1][CROSSES_LINK], true);
    }

    #[test]
    fn an_unknown_placement_is_recorded_with_no_link_crossing() {
        // A discrete card off Vulkan (DX12, Metal): the backend does not say where buffers live.
        let dx12 = MemoryMap::new(wgpu::DeviceType::DiscreteGpu, None);
        let unknown = rows(Some(&dx12));
        let deciding = [(&unknown[0], "staging"), (&unknown[1], "staging")];
        for (row, role) in deciding.into_iter().chain([(&unknown[3], "readback")]) {
            assert_eq!(row[&format!("{role}_memory")], "unknown", "{row:?}");
            assert_eq!(row["memory_source"], "adapter-type");
            assert!(!row.contains_key(CROSSES_LINK), "{row:?}");
            assert!(!row.contains_key(CROSSES_LINK_WHY), "{row:?}");
        }
        // One memory (lavapipe): nothing crosses.
        let cpu = probed(wgpu::DeviceType::Cpu, lavapipe());
        let unified = rows(Some(&cpu));
        for row in [&unified[0], &unified[1], &unified[3]] {
            assert_eq!(row[CROSSES_LINK], false, "{row:?}");
        }
        assert_eq!(unified[1]["staging_memory"], "unified");
    }

    #[test]
    fn placement_only_adds_params() {
        let bare = rows(None);
        for (plain, placed_row) in bare.iter().zip(rows(Some(&h200()))) {
            assert!(!placed(plain), "{plain:?}");
            for (key, value) in plain {
                assert_eq!(placed_row.get(key), Some(value), "{key}");
            }
        }
    }
}
