//! Timing one sample: GPU timestamps at the boundaries of the benchmark's work, and the host
//! clock from the start of the work until the GPU has finished it.
//!
//! The flow for GPU time: a query set of two timestamps; the benchmark asks the clock for
//! pass timestamp writes (begin on its first pass, end on its last) or writes them between
//! encoder commands; after the sample completes, the runner resolves the two queries into a
//! buffer, copies that into a mappable one, maps it and converts ticks to nanoseconds with the
//! queue's timestamp period. A pair whose end is not after its start is rejected.
//!
//! Host time starts at [`SampleClock::start_host`] (or at the first submit if the benchmark never
//! called it) and ends when the device reports the last submission complete. So both clocks time
//! completion, never mere submission.

use std::time::{Duration, Instant};

use crate::context::GpuContext;
use crate::error::BenchError;

/// Which end of the timed work a timestamp marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// Before the first timed command.
    Begin,
    /// After the last timed command.
    End,
}

const BEGIN_QUERY: u32 = 0;
const END_QUERY: u32 = 1;

/// The query set and buffers for one pair of timestamps, reused across samples.
pub struct TimestampQueries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
    inside_encoders: bool,
}

impl TimestampQueries {
    /// Creates the queries when the device can write timestamps; `None` otherwise.
    pub fn new(ctx: &GpuContext) -> Option<Self> {
        let period_ns = ctx.timestamp_period_ns?;
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpubench timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let size = 2 * wgpu::QUERY_SIZE as u64;
        let resolve = ctx.buffer(
            "gpubench timestamp resolve",
            size,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let readback = ctx.buffer(
            "gpubench timestamp readback",
            size,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        Some(Self {
            set,
            resolve,
            readback,
            period_ns,
            inside_encoders: ctx.has_encoder_timestamps(),
        })
    }

    /// Resolves both queries and returns the elapsed GPU time, or `None` when the pair is not
    /// usable (end not after start).
    fn read(&self, ctx: &GpuContext) -> Result<Option<Duration>, BenchError> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.resolve_query_set(&self.set, BEGIN_QUERY..END_QUERY + 1, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, self.resolve.size());
        ctx.queue.submit([encoder.finish()]);
        let bytes = ctx.map_and_read(&self.readback)?;
        let ticks: &[u64] = bytemuck::try_cast_slice(&bytes)
            .map_err(|e| BenchError::Readback(format!("timestamp buffer: {e}")))?;
        Ok(ticks_to_duration(ticks[0], ticks[1], self.period_ns))
    }
}

/// Elapsed time between two timestamps, or `None` when end is not after start (a reset
/// counter, a driver that reorders, or an unwritten query).
pub fn ticks_to_duration(begin: u64, end: u64, period_ns: f64) -> Option<Duration> {
    if end <= begin {
        return None;
    }
    let nanos = (end - begin) as f64 * period_ns;
    // At least 1 ns: a pair one tick apart on a sub-nanosecond clock is a real, short interval.
    (nanos.is_finite() && nanos > 0.0).then(|| Duration::from_nanos((nanos.round() as u64).max(1)))
}

/// What one sample measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleTiming {
    /// Host clock: start of the work until the GPU finished it.
    pub host: Duration,
    /// GPU timestamps around the work, when both were written and valid.
    pub gpu: Option<Duration>,
    /// Whether the benchmark wrote both timestamps but the pair was rejected.
    pub gpu_rejected: bool,
}

/// One sample as a benchmark records it: the context to record on, how many iterations to do,
/// and the clocks (timestamps at the boundaries the benchmark marks, the host clock until the
/// device finishes). Created by the runner for each sample.
pub struct SampleClock<'a> {
    ctx: &'a GpuContext,
    iterations: u32,
    queries: Option<&'a TimestampQueries>,
    host_start: Option<Instant>,
    last_submission: Option<wgpu::SubmissionIndex>,
    wrote_begin: bool,
    wrote_end: bool,
}

impl<'a> SampleClock<'a> {
    pub(crate) fn new(
        ctx: &'a GpuContext,
        queries: Option<&'a TimestampQueries>,
        iterations: u32,
    ) -> Self {
        Self {
            ctx,
            iterations,
            queries,
            host_start: None,
            last_submission: None,
            wrote_begin: false,
            wrote_end: false,
        }
    }

    /// The context the sample runs on.
    pub fn ctx(&self) -> &'a GpuContext {
        self.ctx
    }

    /// Iterations this sample does: the benchmark repeats its work this many times.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Starts the host clock now (for work that begins on the host, e.g. filling a staging
    /// buffer). Calling it again has no effect.
    pub fn start_host(&mut self) {
        self.host_start.get_or_insert_with(Instant::now);
    }

    /// Timestamp writes for a compute pass: `begin` on the first timed pass, `end` on the last
    /// (both on a single pass). `None` when the device has no timestamps.
    pub fn pass_timestamps(
        &mut self,
        begin: bool,
        end: bool,
    ) -> Option<wgpu::ComputePassTimestampWrites<'a>> {
        let queries = self.queries?;
        if !begin && !end {
            return None;
        }
        self.wrote_begin |= begin;
        self.wrote_end |= end;
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &queries.set,
            beginning_of_pass_write_index: begin.then_some(BEGIN_QUERY),
            end_of_pass_write_index: end.then_some(END_QUERY),
        })
    }

    /// Writes a timestamp between encoder commands (for copies, which have no pass). Does
    /// nothing when the device lacks TIMESTAMP_QUERY_INSIDE_ENCODERS; the sample then has host
    /// time only.
    pub fn write_timestamp(&mut self, encoder: &mut wgpu::CommandEncoder, boundary: Boundary) {
        let Some(queries) = self.queries.filter(|q| q.inside_encoders) else {
            return;
        };
        match boundary {
            Boundary::Begin => {
                encoder.write_timestamp(&queries.set, BEGIN_QUERY);
                self.wrote_begin = true;
            }
            Boundary::End => {
                encoder.write_timestamp(&queries.set, END_QUERY);
                self.wrote_end = true;
            }
        }
    }

    /// Submits command buffers. Starts the host clock if the benchmark has not.
    pub fn submit<I: IntoIterator<Item = wgpu::CommandBuffer>>(&mut self, buffers: I) {
        self.start_host();
        self.last_submission = Some(self.ctx.queue.submit(buffers));
    }

    /// Waits for the last submission (if any), stops the host clock and reads the timestamps.
    pub(crate) fn finish(self) -> Result<SampleTiming, BenchError> {
        let start = self.host_start.unwrap_or_else(Instant::now);
        if let Some(index) = self.last_submission {
            let waited = self.ctx.device.poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            });
            if let Err(error) = waited {
                // A failed submit (e.g. on a destroyed device) makes the wait fail. One more
                // non-blocking poll lets wgpu run its maintenance, which reports device loss to
                // the callback, so the runner can say "device lost" instead of "wait failed".
                let _ = self.ctx.device.poll(wgpu::PollType::Poll);
                return Err(error.into());
            }
        }
        let host = start.elapsed();
        let (gpu, gpu_rejected) = match self.queries {
            Some(queries) if self.wrote_begin && self.wrote_end => {
                let gpu = queries.read(self.ctx)?;
                (gpu, gpu.is_none())
            }
            _ => (None, false),
        };
        Ok(SampleTiming {
            host,
            gpu,
            gpu_rejected,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_convert_with_period_and_reject_backwards_pairs() {
        assert_eq!(
            ticks_to_duration(100, 1100, 1.0),
            Some(Duration::from_nanos(1000))
        );
        assert_eq!(
            ticks_to_duration(0, 1000, 83.333),
            Some(Duration::from_nanos(83_333))
        );
        assert_eq!(ticks_to_duration(500, 500, 1.0), None);
        assert_eq!(ticks_to_duration(500, 400, 1.0), None);
    }
}
