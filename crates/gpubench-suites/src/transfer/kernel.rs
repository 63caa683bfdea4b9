//! The transfer kernel: one path at one size, its buffers in a typed state per path
//! ([`TransferState`]), verified byte for byte. How a row is timed follows from what its path
//! measures: end-to-end rows take one transfer per sample on the host clock, copy-engine rows
//! calibrated back-to-back copies on GPU timestamps, host-write rows calibrated memcpys on the
//! host clock.

use gpubench_harness::{
    BenchmarkInfo, GpuContext, IterationPolicy, Kernel, MetricKind, Outcome, Role, SampleClock,
    TimingPreference, Verification, Work,
};
use gpubench_results::units::format_size;

use super::{Measures, SAMPLES_PER_SIZE, TransferPath, TransferState};
use gpubench_harness::kit::placement::{MemoryMap, is_unified};

/// One path at one size.
pub struct Transfer {
    path: TransferPath,
    bytes: u64,
    seed: u64,
    memory: Option<MemoryMap>,
}

impl Transfer {
    /// Transfers of `bytes` (a multiple of 16) along `path`, data from `seed`.
    pub fn new(path: TransferPath, bytes: u64, seed: u64) -> Self {
        Self {
            path,
            bytes,
            seed,
            memory: None,
        }
    }

    /// The same transfer, its params saying where its buffers live according to `memory`.
    pub fn placed(mut self, memory: &MemoryMap) -> Self {
        self.memory = Some(memory.clone());
        self
    }

    /// The work of one transfer (or copy, or memcpy): the bytes moved once (read from the
    /// device for d2h, written to it for h2d). It does not depend on set-up.
    pub fn transfer_work(&self) -> Work {
        match self.path.direction() {
            "d2h" => Work::bytes(self.bytes, 0),
            _ => Work::bytes(0, self.bytes),
        }
    }
}

/// Whether the host-write path measures a write into memory the device reads, and if not, why:
/// in a browser (`browser`: the wasm32 build) a mapped range is a copy in the page's own
/// memory, written back to the mapping when it is dropped, so the row would time memcpys
/// within the page.
pub fn host_write_support(browser: bool) -> Result<(), String> {
    if browser {
        return Err("not run in a browser: a mapped range there is a copy in the page's memory, written back when it is released, so the row would time a copy within the page, not a write into memory the device reads".to_string());
    }
    Ok(())
}

/// Whether the zero-copy path can run on an adapter of `device_type` with `features`, and if
/// not, why: it needs unified memory (an integrated GPU or a CPU adapter) and
/// MAPPABLE_PRIMARY_BUFFERS, which the harness never requests on a discrete adapter.
pub fn zero_copy_support(
    device_type: wgpu::DeviceType,
    features: wgpu::Features,
) -> Result<(), String> {
    if device_type == wgpu::DeviceType::DiscreteGpu {
        return Err("discrete adapter: a host-writable storage buffer would sit in the BAR or in host memory, so every kernel access would cross the bus; MAPPABLE_PRIMARY_BUFFERS is not requested on discrete adapters (wgpu warns it is a performance footgun there)".into());
    }
    if !is_unified(device_type) {
        return Err(format!(
            "adapter type {device_type:?} is not known to share memory with the host: zero copy runs on integrated GPUs and CPU adapters"
        ));
    }
    if !features.contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS) {
        return Err("adapter lacks MAPPABLE_PRIMARY_BUFFERS (a STORAGE | MAP_WRITE buffer)".into());
    }
    Ok(())
}

impl Kernel for Transfer {
    type State = TransferState;

    fn info(&self) -> BenchmarkInfo {
        let path = self.path;
        let measures = path.measures();
        let mut info = BenchmarkInfo::new(
            format!("transfer/{}/bytes/{}", path.name(), format_size(self.bytes)),
            "transfer",
            MetricKind::Bandwidth,
            path.counts(),
        )
        .param("path", path.name())
        .param("direction", path.direction())
        .param("measures", measures.name())
        .param("bytes", self.bytes)
        .param("size", format_size(self.bytes));
        if let Some(memory) = &self.memory {
            info = memory.annotate(info, path.roles(), self.bytes);
            // Where that is not known, neither param is written: a reader sees no answer
            // rather than a guessed "no".
            info = memory.annotate_link(info, path, self.bytes);
        }
        match measures {
            Measures::EndToEnd => {
                info.timing = TimingPreference::Host;
                // One transfer per sample: each sample is one transfer's end-to-end latency,
                // and the GPU timestamps bracket exactly that transfer's copy or kernel.
                info.iterations = IterationPolicy::Fixed(1);
                info.min_samples = Some(SAMPLES_PER_SIZE);
            }
            Measures::CopyEngine => info = info.role(Role::CopyEngine),
            Measures::HostWrite => info.timing = TimingPreference::Host,
        }
        info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        let limit = |what: &str, limit: u64| {
            format!(
                "transfer of {} exceeds {what} ({})",
                format_size(self.bytes),
                format_size(limit)
            )
        };
        if self.bytes > ctx.limits.max_buffer_size {
            return Err(limit("max_buffer_size", ctx.limits.max_buffer_size));
        }
        if self.path == TransferPath::HostWrite {
            host_write_support(cfg!(target_arch = "wasm32"))?;
        }
        if self.path == TransferPath::ZeroCopy {
            zero_copy_support(ctx.adapter.get_info().device_type, ctx.features)?;
            let binding = ctx.limits.max_storage_buffer_binding_size;
            if self.bytes > binding {
                return Err(limit(
                    "max_storage_buffer_binding_size (the kernel binds the buffer whole)",
                    binding,
                ));
            }
        }
        Ok(())
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<TransferState> {
        TransferState::new(ctx, self.path, self.bytes, self.seed).await
    }

    fn work(&self, _state: &TransferState) -> Work {
        self.transfer_work()
    }

    async fn run(&self, state: &mut TransferState, clock: &mut SampleClock<'_>) -> Outcome {
        let iterations = clock.iterations();
        state.sample(clock, self.bytes, iterations).await
    }

    async fn verify(&self, state: &mut TransferState, ctx: &GpuContext) -> Outcome<Verification> {
        state.verify(ctx, self.bytes).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_copy_runs_only_on_unified_memory_with_the_feature() {
        let feature = wgpu::Features::MAPPABLE_PRIMARY_BUFFERS;
        let discrete = zero_copy_support(wgpu::DeviceType::DiscreteGpu, feature);
        let reason = discrete.expect_err("discrete adapters are skipped");
        assert!(reason.starts_with("discrete adapter"), "{reason}");
        assert!(zero_copy_support(wgpu::DeviceType::Cpu, feature).is_ok());
        assert!(zero_copy_support(wgpu::DeviceType::IntegratedGpu, feature).is_ok());
        let without = zero_copy_support(wgpu::DeviceType::IntegratedGpu, wgpu::Features::empty());
        assert!(without.is_err_and(|r| r.contains("MAPPABLE_PRIMARY_BUFFERS")));
        assert!(zero_copy_support(wgpu::DeviceType::VirtualGpu, feature).is_err());
    }

    #[test]
    fn host_writes_are_not_timed_where_a_mapping_is_a_copy() {
        assert!(host_write_support(false).is_ok());
        let reason = host_write_support(true).expect_err("a browser's mapping is a copy");
        assert!(reason.starts_with("not run in a browser"), "{reason}");
    }

    #[test]
    fn each_kind_of_row_is_timed_for_what_it_measures() {
        let info = |path| Transfer::new(path, 4096, 1).info();
        let end_to_end = info(TransferPath::MappedStaging);
        assert_eq!(end_to_end.timing, TimingPreference::Host);
        assert_eq!(end_to_end.iterations, IterationPolicy::Fixed(1));
        assert_eq!(end_to_end.params["measures"], "end-to-end");
        let copy = info(TransferPath::StagingCopy);
        assert_eq!(copy.role, Role::CopyEngine);
        assert_eq!(copy.timing, TimingPreference::GpuWhenAvailable);
        assert_eq!(copy.iterations, IterationPolicy::Calibrate);
        assert_eq!(copy.id, "transfer/h2d-staging-copy/bytes/4KiB");
        let write = info(TransferPath::HostWrite);
        assert_eq!(write.timing, TimingPreference::Host);
        assert_eq!(write.iterations, IterationPolicy::Calibrate);
        assert_eq!(write.role, Role::Kernel);
        assert_eq!(
            Transfer::new(TransferPath::ReadbackCopy, 4096, 1).transfer_work(),
            Work::bytes(4096, 0)
        );
    }
}
