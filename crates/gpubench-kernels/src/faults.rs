//! Fault injection: benchmarks that go wrong on purpose, so tests (and the hidden
//! `--inject-fault` flag) can prove the harness reports each fault cleanly and carries on.

use gpubench_harness::units::format_size;
use gpubench_harness::{
    BenchError, Benchmark, BenchmarkInfo, GpuContext, MetricKind, SampleClock, Verification, Work,
};

use crate::gpu::ready;
use crate::stream::{StreamBenchmark, StreamKernel};
use crate::{KernelError, Suite, SuiteOptions, Tuner, shaders};

/// A fault the CLI can inject into a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A copy kernel with an off-by-one bound and perturbed elements: verification must fail.
    WrongOutput,
    /// A benchmark that destroys its device while sampling: "device lost".
    DeviceLost,
    /// A benchmark asking for a buffer larger than the adapter allows: "skipped".
    OverLimit,
    /// A benchmark that submits invalid GPU work outside any error scope: an uncaptured error.
    GpuError,
    /// A benchmark whose code panics while sampling.
    Panic,
}

impl Fault {
    /// Every fault, by name.
    pub const ALL: [(&'static str, Fault); 5] = [
        ("wrong-output", Fault::WrongOutput),
        ("device-lost", Fault::DeviceLost),
        ("over-limit", Fault::OverLimit),
        ("gpu-error", Fault::GpuError),
        ("panic", Fault::Panic),
    ];

    /// Parses a fault name.
    pub fn parse(name: &str) -> Option<Fault> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    /// The benchmark that produces the fault.
    pub fn benchmark(self, seed: u64) -> Box<dyn Benchmark> {
        match self {
            Fault::WrongOutput => Box::new(broken_copy(64 * 1024, seed)),
            other => Box::new(FaultyBenchmark::new(other)),
        }
    }
}

/// A copy of `bytes` through the deliberately broken kernel of `selftest.wgsl`.
pub fn broken_copy(bytes: u64, seed: u64) -> StreamBenchmark {
    StreamBenchmark::with_shader(
        StreamKernel::Copy,
        bytes,
        seed,
        shaders::SELFTEST,
        "broken_copy",
        "selftest",
    )
}

/// A benchmark that behaves until its fault strikes: it verifies, and then the fault happens on
/// the first timed sample (device loss, invalid work, panic) or at set-up (over the limit).
pub struct FaultyBenchmark {
    info: BenchmarkInfo,
    fault: Fault,
    runs: u32,
    buffer: Option<wgpu::Buffer>,
}

impl FaultyBenchmark {
    /// A benchmark that produces `fault`.
    pub fn new(fault: Fault) -> Self {
        let name = Fault::ALL
            .iter()
            .find(|(_, f)| *f == fault)
            .map_or("fault", |(n, _)| *n);
        let info = BenchmarkInfo::new(
            format!("selftest/{name}"),
            "selftest",
            MetricKind::Bandwidth,
            "bytes cleared per second (fault injection)",
        )
        .param("fault", name);
        Self {
            info,
            fault,
            runs: 0,
            buffer: None,
        }
    }
}

const CLEAR_BYTES: u64 = 64 * 1024;

impl Benchmark for FaultyBenchmark {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
    }

    fn setup(&mut self, ctx: &GpuContext) -> Result<(), BenchError> {
        let size = if self.fault == Fault::OverLimit {
            ctx.limits.max_buffer_size.saturating_add(4)
        } else {
            CLEAR_BYTES
        };
        let buffer = ctx.try_buffer(
            "fault target",
            size,
            wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        )?;
        self.buffer = Some(buffer);
        Ok(())
    }

    fn work(&self) -> Work {
        Work {
            bytes_written: CLEAR_BYTES,
            ops: 1,
            ..Work::default()
        }
    }

    fn run(
        &mut self,
        ctx: &GpuContext,
        iterations: u32,
        clock: &mut SampleClock<'_>,
    ) -> Result<(), BenchError> {
        let buffer = ready(&self.buffer, "run")?;
        self.runs += 1;
        let strike = self.runs > 1;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..iterations {
            encoder.clear_buffer(buffer, 0, None);
        }
        if strike {
            match self.fault {
                Fault::DeviceLost => ctx.device.destroy(),
                Fault::GpuError => {
                    // Clearing past the end of the buffer is invalid: wgpu reports it when the
                    // encoder finishes, to the uncaptured-error handler (no scope is open).
                    encoder.clear_buffer(buffer, 0, Some(buffer.size() * 2));
                }
                Fault::Panic => panic!("injected panic while sampling"),
                Fault::WrongOutput | Fault::OverLimit => {}
            }
        }
        clock.submit([encoder.finish()]);
        Ok(())
    }

    fn verify(&mut self, ctx: &GpuContext) -> Result<Verification, BenchError> {
        let buffer = ready(&self.buffer, "verify")?;
        let bytes = ctx.read_buffer(buffer, CLEAR_BYTES)?;
        let zeros = bytes.iter().filter(|b| **b == 0).count() as u64;
        Ok(Verification {
            checked: bytes.len() as u64,
            mismatches: bytes.len() as u64 - zeros,
            first_mismatches: if zeros == bytes.len() as u64 {
                Vec::new()
            } else {
                vec![format!(
                    "{} of {} bytes not cleared",
                    bytes.len() as u64 - zeros,
                    format_size(CLEAR_BYTES)
                )]
            },
        })
    }

    fn teardown(&mut self) {
        self.buffer = None;
    }
}

/// The suite injected faults run under: it builds nothing itself (the CLI hands it the faulty
/// benchmarks) and derives nothing.
pub struct SelfTestSuite;

impl Suite for SelfTestSuite {
    fn name(&self) -> &'static str {
        "selftest"
    }

    fn benchmarks(
        &self,
        _ctx: &GpuContext,
        _options: &SuiteOptions,
        _tuner: &mut dyn Tuner,
    ) -> Result<Vec<Box<dyn Benchmark>>, KernelError> {
        Ok(Vec::new())
    }
}
