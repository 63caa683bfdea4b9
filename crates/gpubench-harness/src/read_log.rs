//! What a check read back, so that the runner can overwrite it before the timed runs.
//!
//! The check before timing sees one run; the check after the timed samples sees what the last
//! of them left. Most kernels write the same output on every run, so a timed batch that a
//! driver dropped would leave the first run's output in place and the second check would pass
//! on it. The context notes every span a check reads back through it while a [`Recording`]
//! lives ([`crate::GpuContext::read_spans_with`], [`crate::GpuContext::map_and_read_with`] and
//! what is built on them, or [`ReadLog::note`] for a buffer a check depends on but reads
//! otherwise); the runner overwrites those spans with [`POISON`] bytes once the first check
//! passed, so the second check sees only what the runs after it wrote.
//!
//! Not covered, and why: a kernel whose runs add to what its check reads (a counter of
//! dispatches, a chase that goes on from where it stopped) says so in its info
//! ([`crate::Outputs::Accumulated`]) and is left as it is, its check counting every run; a span
//! of a buffer without COPY_DST cannot be written by the device (a MAP_WRITE buffer, which wgpu
//! allows only COPY_SRC beside) and is left as it is; and a check that maps a buffer itself, or
//! compares host memory, notes nothing unless it says so.

use std::sync::Mutex;

/// The byte a read span is overwritten with: all ones, a NaN as f32 and f16, `u32::MAX` as a
/// word, so an element the timed runs left unwritten reads as no answer a kernel gives (zero
/// would be a right answer for some elements).
pub const POISON: u8 = 0xFF;

/// The most bytes of poison uploaded at once: larger spans are written in pieces of it.
pub(crate) const POISON_PIECE: u64 = 4 << 20;

/// One span a check read: `size` bytes at `offset` of `buffer`.
#[derive(Debug, Clone)]
pub struct ReadSpan {
    /// The buffer read (a handle: the buffer stays alive until the span is dropped).
    pub buffer: wgpu::Buffer,
    /// Where the span starts, in bytes.
    pub offset: u64,
    /// Its length in bytes.
    pub size: u64,
}

impl ReadSpan {
    /// Whether the device can overwrite this span: its buffer takes COPY_DST (a read-back
    /// leaves the buffer it mapped unmapped again) and it lies at multiples of
    /// [`wgpu::COPY_BUFFER_ALIGNMENT`].
    pub fn writable(&self) -> bool {
        let align = wgpu::COPY_BUFFER_ALIGNMENT;
        self.buffer.usage().contains(wgpu::BufferUsages::COPY_DST)
            && self.size > 0
            && self.offset.is_multiple_of(align)
            && self.size.is_multiple_of(align)
    }
}

/// The spans read back while a [`Recording`] lives; nothing is kept otherwise.
#[derive(Debug, Default)]
pub struct ReadLog {
    spans: Mutex<Option<Vec<ReadSpan>>>,
}

/// Notes what checks read back until it is finished or dropped (a check that panics leaves
/// nothing recording, and no buffer kept alive).
#[must_use = "reads are recorded only while the recording lives"]
pub struct Recording<'a> {
    log: &'a ReadLog,
}

impl Recording<'_> {
    /// Stops recording and returns what was read since it started.
    pub fn finish(self) -> Vec<ReadSpan> {
        self.log.lock().take().unwrap_or_default()
    }
}

impl Drop for Recording<'_> {
    fn drop(&mut self) {
        self.log.lock().take();
    }
}

impl ReadLog {
    /// Starts recording, forgetting anything recorded before.
    pub fn record(&self) -> Recording<'_> {
        *self.lock() = Some(Vec::new());
        Recording { log: self }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Only what was read while recording is overwritten, and only where the buffer takes
    /// COPY_DST: the rest of the buffer, and a buffer the device cannot write, keep their bytes.
    #[test]
    fn spans_read_while_recording_are_poisoned_where_the_device_can_on_an_adapter() {
        let Some(ctx) = crate::testing::require_vulkan() else {
            return;
        };
        use wgpu::BufferUsages as U;
        let zeros = vec![0u8; 64];
        let output = ctx.buffer_with_data("output", &zeros, U::STORAGE | U::COPY_SRC | U::COPY_DST);
        let fixed = ctx.buffer_with_data("fixed", &zeros, U::STORAGE | U::COPY_SRC);
        let read = |buffer, spans: &[(u64, u64)]| {
            pollster::block_on(ctx.read_spans_with(buffer, spans, <[u8]>::to_vec)).expect("read")
        };
        read(&output, &[(0, 16)]);
        let recording = ctx.read_log().record();
        read(&output, &[(16, 16), (48, 16)]);
        read(&fixed, &[(0, 64)]);
        let spans = recording.finish();
        assert_eq!(spans.len(), 3);
        let poisoned = pollster::block_on(ctx.poison_reads(&spans)).expect("poison");
        assert_eq!(poisoned, 2);
        let mut want = zeros.clone();
        want[16..32].fill(POISON);
        want[48..].fill(POISON);
        assert_eq!(read(&output, &[(0, 64)]), want);
        assert_eq!(read(&fixed, &[(0, 64)]), zeros);
        // Nothing is kept once the recording is gone, finished or dropped (as by a panic).
        assert!(ctx.read_log().lock().is_none());
        let dropped = ctx.read_log().record();
        read(&output, &[(0, 16)]);
        assert!(ctx.read_log().lock().as_ref().is_some_and(|s| s.len() == 1));
        drop(dropped);
        assert!(ctx.read_log().lock().is_none());
    }

    /// A span larger than one piece of poison is written whole, piece by piece.
    #[test]
    fn a_span_larger_than_a_piece_is_poisoned_whole_on_an_adapter() {
        let Some(ctx) = crate::testing::require_vulkan() else {
            return;
        };
        let size = POISON_PIECE * 2 + 256;
        let usage = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let buffer = ctx.buffer_with_data("large", &vec![0u8; size as usize], usage);
        let span = ReadSpan {
            buffer: buffer.clone(),
            offset: 0,
            size,
        };
        pollster::block_on(ctx.poison_reads(&[span])).expect("poison");
        let bytes = pollster::block_on(ctx.read_buffer(&buffer, size)).expect("read");
        assert!(bytes.iter().all(|&b| b == POISON));
    }
}
