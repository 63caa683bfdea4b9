//! The compute suite: peak throughput per number type. The FMA chains (f32, f16, f64) are the
//! kit's reference load ([`gpubench_harness::kit::fma`]); the integer multiply-add chains and the
//! packed 8-bit dot products are this suite's own ([`types`]).

#[cfg(test)]
mod on_an_adapter;
pub mod types;

use gpubench_engine::SuiteInfo;
use gpubench_engine::SuiteOptions;
use gpubench_engine::{Benchmarks, Suite};
use gpubench_harness::GpuContext;
use gpubench_harness::Profile;
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::fma::grid::{PeakGrid, peak_grid};
use gpubench_harness::kit::fma::{Chain, FloatType, FmaPeak, PeakForm, plausible};
use gpubench_harness::kit::forms::{KernelForm, KernelForms};
use gpubench_harness::kit::gpu::{Precision, SpecialisedShader};
use gpubench_harness::{Benchmark, Kernel, KernelBench, RunDocument};
use types::{DotPeak, DotType, IntForm, IntPeak, IntType};

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "peak throughput per number type: f32, f16, f64 FMA; i32, u32, i64, i16 \
                     multiply-add; 8-bit dot products";

/// compute_int.wgsl: peak integer multiply-add chains (i32 as written; u32, i64 and i16 by rewriting its type).
pub const INT_WGSL: &str = include_str!("compute_int.wgsl");
/// compute_dot.wgsl: peak packed 8-bit dot products (dot4I8Packed, dot4U8Packed).
pub const DOT_WGSL: &str = include_str!("compute_dot.wgsl");

/// The compute suite: f32 and f16, scalar, vec2 and vec4, each as `x = fma(x, a, b)` and in
/// accumulate form; f64 scalar and vec4; the integer
/// types and the packed 8-bit dot products ([`types`]); all over one grid sized from the adapter.
pub struct ComputeSuite;

impl Suite for ComputeSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("compute", ABOUT).shaders(&[
            ("compute_peak.wgsl", gpubench_harness::kit::fma::SHADER),
            ("compute_int.wgsl", INT_WGSL),
            ("compute_dot.wgsl", DOT_WGSL),
        ])
    }

    fn pipelines(&self, _facts: AdapterFacts, _profile: Profile) -> KernelForms {
        let kernels = PeakKernels::new(&PeakGrid::fixed(1));
        Ok(kernels
            .shaders()?
            .into_iter()
            .map(|(id, shader)| KernelForm::fixed(id, shader))
            .collect())
    }

    fn build(&self, ctx: &GpuContext, _options: &SuiteOptions) -> Benchmarks {
        let kernels = PeakKernels::new(&peak_grid(ctx));
        let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
        benches.extend(kernels.float.into_iter().map(KernelBench::boxed));
        benches.extend(kernels.int.into_iter().map(KernelBench::boxed));
        benches.extend(kernels.dot.into_iter().map(KernelBench::boxed));
        benches.push(KernelBench::boxed(types::BF16));
        Ok(benches)
    }

    /// An accumulate-form FMA peak faster beside its multiply-form row than any card allows
    /// fails, and one faster than the adapter (by its vendor and name) issues is marked
    /// ([`gpubench_harness::kit::fma::plausible`]).
    fn annotate(&self, result: &mut gpubench_harness::BenchResult, run: &RunDocument) {
        let adapter = &run.machine.adapter;
        plausible::judge_accumulate(result, &run.results, (adapter.vendor(), &adapter.name));
        plausible::judge_int(result, &run.results);
    }

    /// Every peak is a bar by precision and width, and a compute ceiling candidate.
    fn chart_hint(
        &self,
        _result: &gpubench_harness::BenchResult,
    ) -> Option<gpubench_results::ChartHint> {
        use gpubench_results::chart::{ChartHint, Roof, group};
        let label = ["kernel", "precision", "form"];
        Some(ChartHint::bars(
            group::PEAKS,
            &label,
            &[],
            Some(Roof::Ceiling),
        ))
    }
}

/// Every kernel of the compute suite over one grid, in report order: f32 and f16 in every form,
/// each in both chains (`x = fma(x, a, b)`, then the accumulate form `acc = fma(p, q, acc)`),
/// f64 scalar and vec4, each integer type scalar and vec4, the two dot products.
pub struct PeakKernels {
    /// The FMA peaks.
    pub float: Vec<FmaPeak>,
    /// The integer multiply-add peaks.
    pub int: Vec<IntPeak>,
    /// The packed 8-bit dot-product peaks.
    pub dot: Vec<DotPeak>,
}

impl PeakKernels {
    /// Every kernel over `grid`.
    pub fn new(grid: &PeakGrid) -> Self {
        let mut float = Vec::new();
        for precision in [Precision::F32, Precision::F16] {
            for chain in [Chain::Multiply, Chain::Accumulate] {
                for form in PeakForm::ALL {
                    let peak = FmaPeak::new(precision, form, grid.clone()).with_chain(chain);
                    float.push(peak);
                }
            }
        }
        for form in [PeakForm::Scalar, PeakForm::Vec4] {
            float.push(FmaPeak::new(FloatType::F64, form, grid.clone()));
        }
        let int = IntType::ALL
            .into_iter()
            .flat_map(|ty| IntForm::ALL.map(|form| IntPeak::new(ty, form, grid.clone())))
            .collect();
        let dot = DotType::ALL.map(|ty| DotPeak::new(ty, grid.clone())).into();
        Self { float, int, dot }
    }

    /// Every kernel's result id and the shader its pipeline compiles.
    pub fn shaders(&self) -> Result<Vec<(String, SpecialisedShader)>, String> {
        let mut out = Vec::new();
        for kernel in &self.float {
            out.push((
                kernel.info().id,
                kernel.shader().map_err(|e| e.to_string())?,
            ));
        }
        for kernel in &self.int {
            out.push((kernel.info().id, kernel.shader()?));
        }
        for kernel in &self.dot {
            out.push((kernel.info().id, kernel.shader()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::{BenchResult, Status};

    /// The suite's own f32 scalar rows, each ok at `gflops` (multiply form first).
    fn scalar_f32_rows(multiply: f64, accumulate: f64) -> (BenchResult, BenchResult) {
        let kernels = PeakKernels::new(&PeakGrid::fixed(1));
        let row = |id: &str, gflops: f64| {
            let peak = kernels
                .float
                .iter()
                .find(|k| k.info().id == id)
                .expect("the suite builds it");
            let mut r = BenchResult::empty(&peak.info(), Status::Ok, None);
            r.samples = vec![gflops; 3];
            r.summary = gpubench_results::stats::summarize(&r.samples);
            r
        };
        (
            row("compute/fma-peak/scalar-f32", multiply),
            row("compute/fma-peak/acc-scalar-f32", accumulate),
        )
    }

    /// The suite judges an accumulate row by the run's adapter: twice its multiply row stands
    /// on an AMD card (RDNA 3's dual issue) and is marked on an NVIDIA card; sixteen times
    /// fails on both.
    #[test]
    fn an_accumulate_peak_past_what_the_adapter_allows_beside_its_multiply_row_fails() {
        let run = |vendor: u32, multiply: BenchResult| {
            let mut doc = gpubench_baseline::testing::doc_with("a card", false);
            doc.machine.adapter.vendor_id = vendor;
            doc.results = vec![multiply];
            doc
        };
        for vendor in [0x1002, 0x10de] {
            let (multiply, mut folded) = scalar_f32_rows(10_000.0, 160_000.0);
            ComputeSuite.annotate(&mut folded, &run(vendor, multiply));
            assert_eq!(folded.status, Status::Failed, "{:?}", folded.reason);
            assert!(folded.summary.is_none());
        }
        let (multiply, mut dual) = scalar_f32_rows(10_000.0, 20_000.0);
        ComputeSuite.annotate(&mut dual, &run(0x1002, multiply));
        assert_eq!(dual.status, Status::Ok);
        assert!(!plausible::is_faster_accumulate(&dual));
        let (multiply, mut halved) = scalar_f32_rows(10_000.0, 20_000.0);
        ComputeSuite.annotate(&mut halved, &run(0x10de, multiply));
        assert_eq!(halved.status, Status::Ok, "{:?}", halved.reason);
        assert!(plausible::is_faster_accumulate(&halved));
        // An AMD card of a family before RDNA 3, by the adapter's name: no dual issue there.
        let (multiply, mut older) = scalar_f32_rows(10_000.0, 20_000.0);
        let mut rdna2 = run(0x1002, multiply);
        rdna2.machine.adapter.name = "AMD Radeon RX 6800 (RADV NAVI21)".into();
        ComputeSuite.annotate(&mut older, &rdna2);
        assert!(plausible::is_faster_accumulate(&older));
    }
}
