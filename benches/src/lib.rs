//! Criterion support for GPU kernels: a [`Measurement`] whose values are GPU time.
//!
//! Criterion times a closure with its measurement's `start`/`end`; a GPU kernel's time is only
//! known after the work completes and its timestamps are resolved. So the benches use
//! `iter_custom`: for each criterion sample the harness runs the requested iterations through a
//! [`SampleClock`](gpubench_harness::SampleClock), and the value returned is the GPU time between
//! the timestamps (ticks converted with the queue's period), or the host time from submit to
//! completion when the adapter has no timestamp queries. `start`/`end` (used only by plain
//! `iter`) fall back to wall time. Criterion's own `--save-baseline` / `--baseline` then work on
//! GPU time.

use std::time::Instant;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Bencher, Throughput};
use gpubench_harness::device::Selection;
use gpubench_harness::{Benchmark, GpuContext, Profile, Runner};

/// Which clock the values came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// GPU timestamp queries.
    GpuTimestamps,
    /// Host wall time from submit to completion.
    Wall,
}

/// A criterion measurement in nanoseconds of GPU time (or wall time without timestamps).
pub struct GpuTime {
    clock: Clock,
}

impl GpuTime {
    /// A measurement reporting values from `clock`.
    pub fn new(clock: Clock) -> Self {
        Self { clock }
    }

    /// The measurement that fits the context's adapter.
    pub fn for_context(ctx: &GpuContext) -> Self {
        Self::new(if ctx.has_pass_timestamps() {
            Clock::GpuTimestamps
        } else {
            Clock::Wall
        })
    }
}

impl Measurement for GpuTime {
    type Intermediate = Instant;
    type Value = f64;

    fn start(&self) -> Instant {
        Instant::now()
    }

    fn end(&self, started: Instant) -> f64 {
        started.elapsed().as_nanos() as f64
    }

    fn add(&self, a: &f64, b: &f64) -> f64 {
        a + b
    }

    fn zero(&self) -> f64 {
        0.0
    }

    fn to_f64(&self, value: &f64) -> f64 {
        *value
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        match self.clock {
            Clock::GpuTimestamps => &GPU_FORMATTER,
            Clock::Wall => &WALL_FORMATTER,
        }
    }
}

/// Formats nanoseconds with the clock named in the unit, and throughput in decimal GB/s.
struct TimeFormatter {
    units: [&'static str; 4],
}

static GPU_FORMATTER: TimeFormatter = TimeFormatter {
    units: ["ns (gpu)", "us (gpu)", "ms (gpu)", "s (gpu)"],
};
static WALL_FORMATTER: TimeFormatter = TimeFormatter {
    units: ["ns (wall)", "us (wall)", "ms (wall)", "s (wall)"],
};

impl ValueFormatter for TimeFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (divisor, unit) = if typical < 1e3 {
            (1.0, self.units[0])
        } else if typical < 1e6 {
            (1e3, self.units[1])
        } else if typical < 1e9 {
            (1e6, self.units[2])
        } else {
            (1e9, self.units[3])
        };
        values.iter_mut().for_each(|v| *v /= divisor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (per_iteration, unit) = match throughput {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => (*b as f64, "GB/s"),
            Throughput::Bits(b) => (*b as f64, "Gbit/s"),
            Throughput::Elements(e) | Throughput::ElementsAndBytes { elements: e, .. } => {
                (*e as f64, "Gelem/s (FLOP/s for matmul)")
            }
        };
        // Values are nanoseconds per iteration: units per ns equals 10^9 units per second.
        values.iter_mut().for_each(|ns| *ns = per_iteration / *ns);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

/// The adapter the benches run on: `WGPU_BACKEND` / `WGPU_ADAPTER_NAME` as for the CLI. No
/// adapter is a panic (benches that pass without running hide a broken set-up) unless
/// `GPUBENCH_SKIP_GPU_TESTS=1` asks to skip; then `None`.
pub fn context() -> Option<GpuContext> {
    gpubench_harness::testing::require_adapter(&Selection::resolve(None, None))
}

/// Whether the benches run under CI (env `CI` set to anything but `false` or `0`, as CI
/// services set it): sizes shrink to keep them short.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.trim(), "" | "0" | "false"))
}

/// A runner for timing single samples (the profile's settings are not used by criterion).
pub fn runner(ctx: &GpuContext) -> Runner<'_> {
    Runner::new(ctx, Profile::Quick.settings(ctx.is_software()))
}

/// Times `bench` in criterion's loop by GPU time. `bench` must be set up and verified first
/// (see [`prepare`]). A failed sample panics: criterion has no error channel, and a number from
/// a failed run must never be reported.
pub fn iter_gpu(
    bencher: &mut Bencher<'_, GpuTime>,
    runner: &Runner<'_>,
    bench: &mut dyn Benchmark,
) {
    bencher.iter_custom(|iters| {
        let iterations = u32::try_from(iters).unwrap_or(u32::MAX);
        // Criterion's loop is synchronous: each sample is driven to its end here, the one
        // place the benches block on the device.
        match pollster::block_on(runner.time_sample(bench, iterations)) {
            Ok(timing) => {
                let elapsed = timing.gpu.unwrap_or(timing.host).as_nanos() as f64;
                elapsed * iters as f64 / f64::from(iterations)
            }
            Err(error) => panic!("{}: sample failed: {error}", bench.info().id),
        }
    });
}

/// Sets `bench` up, runs it once and verifies its output through the runner's own preparation
/// (support check, error scopes, fault log): a kernel that computes the wrong answer, or that
/// the adapter cannot run, is never benchmarked.
pub fn prepare(runner: &Runner<'_>, bench: &mut dyn Benchmark) -> Result<(), String> {
    pollster::block_on(runner.prepare(bench))
        .map(|_first| ())
        .map_err(|error| format!("{}: {error}", bench.info().id))
}
