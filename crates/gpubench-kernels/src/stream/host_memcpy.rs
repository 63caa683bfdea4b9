//! The host's own memcpy between two buffers: the ceiling for staging copies, and on a software
//! adapter the physical limit of "device" memory too. A reference row, never a GPU figure.

use gpubench_harness::rng::SplitMix64;
use gpubench_harness::units::format_size;
use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, Role, SampleClock, TimingPreference,
    Verification, Work,
};

use crate::verify::compare_bytes;

/// memcpy of `bytes`, timed by the host clock.
pub struct HostMemcpy {
    bytes: u64,
    seed: u64,
}

/// Source and destination, both touched before timing so page faults are not timed.
pub struct HostMemcpyState {
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl HostMemcpy {
    /// memcpy of `bytes`.
    pub fn new(bytes: u64, seed: u64) -> Self {
        Self { bytes, seed }
    }
}

impl Kernel for HostMemcpy {
    type State = HostMemcpyState;

    fn info(&self) -> BenchmarkInfo {
        let mut info = BenchmarkInfo::new(
            format!("stream/host-memcpy/bytes/{}", format_size(self.bytes)),
            "stream",
            MetricKind::Bandwidth,
            "bytes read + written per second by the host's memcpy (reference, not the GPU)",
        )
        .role(Role::HostReference)
        .param("kernel", "host memcpy")
        .param("array_bytes", self.bytes)
        .param("array_size", format_size(self.bytes));
        info.timing = TimingPreference::Host;
        info
    }

    fn setup(&self, _ctx: &GpuContext) -> Outcome<HostMemcpyState> {
        let src = SplitMix64::new(self.seed).bytes(self.bytes as usize);
        let dst = vec![0xA5u8; self.bytes as usize];
        Ok(HostMemcpyState { src, dst })
    }

    fn work(&self, _state: &HostMemcpyState) -> Work {
        Work::bytes(self.bytes, self.bytes)
    }

    fn run(&self, state: &mut HostMemcpyState, clock: &mut SampleClock<'_>) -> Outcome {
        let iterations = clock.iterations();
        clock.start_host();
        for _ in 0..iterations {
            state
                .dst
                .copy_from_slice(std::hint::black_box(state.src.as_slice()));
            std::hint::black_box(state.dst.as_mut_slice());
        }
        Ok(())
    }

    fn verify(&self, state: &mut HostMemcpyState, _ctx: &GpuContext) -> Outcome<Verification> {
        Ok(compare_bytes(&state.dst, &state.src))
    }
}
