//! The host's own memcpy between two buffers, on one thread: the comparison for staging copies,
//! and on a software adapter a reference for its "device" memory (one thread's copy, where
//! lavapipe's kernels run on every core, so not its limit). A reference row, never a GPU figure.
//!
//! It runs on the arrays the GPU rows use, so it is skipped where they are (an array over the
//! adapter's limits), and its two host arrays are allocated fallibly: a size that the host
//! cannot hold is a skip with the reason, never an abort.

use gpubench_harness::{
    BenchError, BenchmarkInfo, GpuContext, Kernel, Outcome, Role, SampleClock, TimingPreference,
    Verification, Work,
};
use gpubench_results::rng::SplitMix64;
use gpubench_results::units::format_size;

use super::{SMALLER_STREAM_SIZE, check_stream_array_fits};
use gpubench_harness::kit::verify::compare_bytes;

/// memcpy of `bytes`, timed by the host clock.
pub struct HostMemcpy {
    /// Bytes a copy moves.
    pub bytes: u64,
    /// Seeds the source's contents.
    pub seed: u64,
}

/// Source and destination, both touched before timing so page faults are not timed.
pub struct HostMemcpyState {
    src: Vec<u8>,
    dst: Vec<u8>,
}

impl Kernel for HostMemcpy {
    type State = HostMemcpyState;

    fn info(&self) -> BenchmarkInfo {
        let mut info = super::copy_info(
            "host-memcpy",
            "host memcpy",
            Role::HostReference,
            "bytes read + written per second by the host's memcpy (reference, not the GPU)",
            self.bytes,
        );
        info.timing = TimingPreference::Host;
        info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        check_stream_array_fits(ctx, self.bytes)
            .map_err(|why| format!("{why} (skipped with the GPU rows it is the reference for)"))
    }

    async fn setup(&self, _ctx: &GpuContext) -> Outcome<HostMemcpyState> {
        let mut rng = SplitMix64::new(self.seed);
        let (mut src, len) = host_array(self.bytes)?;
        while src.len() < len {
            let word = rng.next_u64().to_le_bytes();
            let take = word.len().min(len - src.len());
            src.extend_from_slice(&word[..take]);
        }
        let (mut dst, _) = host_array(self.bytes)?;
        dst.resize(len, 0xA5);
        Ok(HostMemcpyState { src, dst })
    }

    fn work(&self, _state: &HostMemcpyState) -> Work {
        Work::bytes(self.bytes, self.bytes)
    }

    async fn run(&self, state: &mut HostMemcpyState, clock: &mut SampleClock<'_>) -> Outcome {
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

    async fn verify(
        &self,
        state: &mut HostMemcpyState,
        _ctx: &GpuContext,
    ) -> Outcome<Verification> {
        Ok(compare_bytes(&state.dst, &state.src))
    }
}

/// An empty vector with room for `bytes`, and that length, or the skip that says the host
/// lacks it.
fn host_array(bytes: u64) -> Outcome<(Vec<u8>, usize)> {
    let unsupported = || {
        BenchError::Unsupported(format!(
            "the host could not allocate {} for memcpy; {SMALLER_STREAM_SIZE}",
            format_size(bytes)
        ))
    };
    let len = usize::try_from(bytes).map_err(|_| unsupported())?;
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| unsupported())?;
    Ok((out, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_the_host_cannot_hold_is_a_skip_not_an_abort() {
        let error = host_array(u64::MAX / 2).expect_err("no host has that much");
        assert!(
            error.to_string().contains("`stream_size` option"),
            "{error}"
        );
        let (array, len) = host_array(4096).expect("small");
        assert!(len == 4096 && array.capacity() >= 4096);
    }
}
