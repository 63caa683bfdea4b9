//! Fault injection: benchmarks that go wrong on purpose, so tests (and `--inject-fault`) can
//! prove the harness reports them as failures and carries on.

use gpubench_harness::{Benchmark, GpuContext};

use crate::stream::{StreamBenchmark, StreamKernel};
use crate::{KernelError, Suite, SuiteOptions, Tuner, shaders};

/// A fault the CLI can inject into a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A copy kernel with an off-by-one bound and perturbed elements.
    WrongOutput,
}

impl Fault {
    /// Every fault, by name.
    pub const ALL: [(&'static str, Fault); 1] = [("wrong-output", Fault::WrongOutput)];

    /// Parses a fault name.
    pub fn parse(name: &str) -> Option<Fault> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    /// The benchmark that produces the fault.
    pub fn benchmark(self, seed: u64) -> Box<dyn Benchmark> {
        match self {
            Fault::WrongOutput => Box::new(broken_copy(64 * 1024, seed)),
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
