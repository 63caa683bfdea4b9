//! What a check read back, so that the runner can clear it before the timed runs.
//!
//! The check before timing sees one run; the check after the timed samples sees what the last
//! of them left. Most kernels write the same output on every run, so a timed batch that a
//! driver dropped would leave the first run's output in place and the second check would pass
//! on it. The context notes every span a check reads back while a [`ReadLog`] records (through
//! [`crate::GpuContext::read_spans_with`] and [`crate::GpuContext::map_and_read`], which every
//! read-back goes through); the runner clears those spans once the first check passed, so the
//! second check sees only what the runs after it wrote. A span of a buffer without COPY_DST
//! cannot be cleared by the device and is left as it is.

use std::sync::Mutex;

use crate::context::GpuContext;
use crate::error::BenchError;

/// One span a check read: `size` bytes at `offset` of `buffer`.
#[derive(Debug, Clone)]
pub struct ReadSpan {
    /// The buffer read (a handle: the buffer stays alive until the span is dropped).
    pub buffer: wgpu::Buffer,
    /// Where the span starts, in bytes (a multiple of 4, as every read-back's is).
    pub offset: u64,
    /// Its length in bytes (a multiple of 4).
    pub size: u64,
}

impl ReadSpan {
    /// Whether the device can clear this span: its buffer takes COPY_DST (a read-back leaves
    /// the buffer it mapped unmapped again, so none read is mapped).
    pub fn clearable(&self) -> bool {
        self.buffer.usage().contains(wgpu::BufferUsages::COPY_DST) && self.size > 0
    }
}

/// The spans read back while recording; nothing is kept while not.
#[derive(Debug, Default)]
pub struct ReadLog {
    spans: Mutex<Option<Vec<ReadSpan>>>,
}

impl ReadLog {
    /// Starts recording, forgetting anything recorded before.
    pub fn start(&self) {
        *self.lock() = Some(Vec::new());
    }

    /// Stops recording and returns what was read since [`ReadLog::start`].
    pub fn finish(&self) -> Vec<ReadSpan> {
        self.lock().take().unwrap_or_default()
    }

    /// Notes that `spans` of `buffer` were read, where recording.
    pub fn note(&self, buffer: &wgpu::Buffer, spans: &[(u64, u64)]) {
        if let Some(read) = self.lock().as_mut() {
            read.extend(spans.iter().map(|&(offset, size)| ReadSpan {
                buffer: buffer.clone(),
                offset,
                size,
            }));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<ReadSpan>>> {
        self.spans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Clears every span of `spans` the device can clear (see [`ReadSpan::clearable`]) to zero and
/// waits until that is done; returns how many spans were cleared.
pub async fn clear(ctx: &GpuContext, spans: &[ReadSpan]) -> Result<usize, BenchError> {
    let clearable: Vec<&ReadSpan> = spans.iter().filter(|s| s.clearable()).collect();
    if clearable.is_empty() {
        return Ok(0);
    }
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for span in &clearable {
        encoder.clear_buffer(&span.buffer, span.offset, Some(span.size));
    }
    ctx.queue.submit([encoder.finish()]);
    ctx.wait_idle().await?;
    Ok(clearable.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only what was read while recording is cleared, and only where the buffer takes
    /// COPY_DST: the rest of the buffer, and a buffer the device cannot clear, keep their bytes.
    #[test]
    fn spans_read_while_recording_are_cleared_where_the_device_can_on_an_adapter() {
        let Some(ctx) = crate::testing::require_vulkan() else {
            return;
        };
        use wgpu::BufferUsages as U;
        let ones = vec![1u8; 64];
        let output = ctx.buffer_with_data("output", &ones, U::STORAGE | U::COPY_SRC | U::COPY_DST);
        let fixed = ctx.buffer_with_data("fixed", &ones, U::STORAGE | U::COPY_SRC);
        let read = |buffer, spans: &[(u64, u64)]| {
            pollster::block_on(ctx.read_spans_with(buffer, spans, <[u8]>::to_vec)).expect("read")
        };
        read(&output, &[(0, 16)]);
        ctx.read_log().start();
        read(&output, &[(16, 16), (48, 16)]);
        read(&fixed, &[(0, 64)]);
        let spans = ctx.read_log().finish();
        assert_eq!(spans.len(), 3);
        assert!(ctx.read_log().finish().is_empty(), "recording stopped");
        let cleared = pollster::block_on(clear(&ctx, &spans)).expect("clear");
        assert_eq!(cleared, 2);
        let mut want = ones.clone();
        want[16..32].fill(0);
        want[48..].fill(0);
        assert_eq!(read(&output, &[(0, 64)]), want);
        assert_eq!(read(&fixed, &[(0, 64)]), ones);
    }
}
