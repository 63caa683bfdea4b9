//! The [`Suite`] trait: everything the rest of the tool needs to know about a suite comes from
//! it (name, description, when it runs, what it runs after, options, shaders, pipelines), so a
//! suite is one folder plus one registry line, and no list elsewhere names it.

use std::time::Duration;

use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::forms::{KernelForm, KernelForms};
use gpubench_harness::{
    BenchResult, Benchmark, BenchmarkInfo, GpuContext, LocalFuture, Profile, RunDocument,
};
use gpubench_results::ChartHint;

use crate::{OptionSpec, PlanError, SuiteOptions};

/// When a suite runs without being named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Included {
    /// In every profile's default suites.
    Always,
    /// Only in the full profile's (long or memory-hungry suites).
    FullProfile,
    /// Only when named.
    WhenNamed,
    /// Never listed or named: it joins a run, after every other suite, when one of its options
    /// is given (the fault injection's benchmarks).
    WhenItsOptionIsGiven,
}

/// What a suite is, for the registry, `--suite` and `--help`, and what it declares (options,
/// WGSL files, plain pipelines). Built with [`SuiteInfo::new`] and the builder methods, so a
/// suite states only what differs from the defaults: always included, after no suite, no
/// options, no shaders, no plain pipelines.
#[derive(Debug, Clone, Copy)]
pub struct SuiteInfo {
    /// Name as given to `--suite`, and as results record it.
    pub name: &'static str,
    /// What it measures, in one line (shown by `--help`).
    pub about: &'static str,
    /// Which runs include it unnamed.
    pub included: Included,
    /// Suites whose results it reads when they ran (a ceiling, a reference row): the registry
    /// checks they come before it, and a run keeps registry order.
    pub after: &'static [&'static str],
    /// The options it takes ([`Suite::options`]).
    pub options: &'static [OptionSpec],
    /// Its WGSL files, (file name, source) ([`Suite::shaders`]).
    pub shaders: &'static [(&'static str, &'static str)],
    /// Its pipelines that are one entry point of a shader as written, (source, entry): by
    /// default [`Suite::pipelines`] is each as [`KernelForm::plain`] under the suite's name.
    pub plain_pipelines: &'static [(&'static str, &'static str)],
}

impl SuiteInfo {
    /// A suite called `name` that measures `about`, with the defaults.
    pub const fn new(name: &'static str, about: &'static str) -> Self {
        Self {
            name,
            about,
            included: Included::Always,
            after: &[],
            options: &[],
            shaders: &[],
            plain_pipelines: &[],
        }
    }

    /// This info, included unnamed by `included` instead of always.
    pub const fn included(self, included: Included) -> Self {
        Self { included, ..self }
    }

    /// This info, run after the suites `after`.
    pub const fn after(self, after: &'static [&'static str]) -> Self {
        Self { after, ..self }
    }

    /// This info, taking `options`.
    pub const fn options(self, options: &'static [OptionSpec]) -> Self {
        Self { options, ..self }
    }

    /// This info, with the WGSL files `shaders`, (file name, source).
    pub const fn shaders(self, shaders: &'static [(&'static str, &'static str)]) -> Self {
        Self { shaders, ..self }
    }

    /// This info, with the plain pipelines `pipelines`, (source, entry).
    pub const fn plain_pipelines(self, pipelines: &'static [(&'static str, &'static str)]) -> Self {
        Self {
            plain_pipelines: pipelines,
            ..self
        }
    }
}

/// Measures a candidate benchmark briefly (for autotuning). The session implements it with a
/// short-settings runner ([`crate::tuner::ShortRunTuner`]), so even tuning is timed by the
/// harness only. Measuring waits on the device, so both methods return futures.
pub trait Tuner {
    /// Runs `bench` (verify, then a few samples) and returns its result.
    fn measure<'a>(&'a mut self, bench: &'a mut dyn Benchmark) -> LocalFuture<'a, BenchResult>;

    /// As [`Tuner::measure`], but a candidate whose verified first run took longer than
    /// `bound` (or than the tuner's own time cap, whichever is longer) keeps that run as its
    /// only sample, marked `screened` (see `Runner::set_screen`). By default no screening.
    fn measure_within<'a>(
        &'a mut self,
        bench: &'a mut dyn Benchmark,
        bound: Option<Duration>,
    ) -> LocalFuture<'a, BenchResult> {
        let _ = bound;
        self.measure(bench)
    }
}

/// What a suite builds its benchmarks from: the adapter, the run's options, and a tuner for
/// measuring candidates.
pub struct BuildContext<'a> {
    /// The adapter the benchmarks will run on.
    pub ctx: &'a GpuContext,
    /// The run's options.
    pub options: &'a SuiteOptions,
    /// Measures candidates briefly, for suites that autotune.
    pub tuner: &'a mut dyn Tuner,
}

/// A suite's benchmarks, in the order they run, or why they could not be built.
pub type Benchmarks = Result<Vec<Box<dyn Benchmark>>, PlanError>;

/// One step of a suite's work: builds the benchmarks it runs (autotuning first where the suite
/// does) when its turn comes, so that every earlier step's results are measured and saved
/// before it starts. A suite that tunes per product (matmul) has a stage per product: a stop or
/// a timeout during one product's tuning keeps every product before it.
/// Building waits on the device where the suite tunes, so a stage returns a future.
pub type Stage = Box<
    dyn for<'b, 'c> FnOnce(&'b mut BuildContext<'c>) -> LocalFuture<'b, Vec<Box<dyn Benchmark>>>,
>;

/// A suite's stages, in the order they run, or why they could not be planned.
pub type Stages = Result<Vec<Stage>, PlanError>;

/// A suite: what it is, what it takes, what it compiles, the benchmarks it runs, and the
/// results it derives from them.
pub trait Suite: Send + Sync {
    /// Its name, description, inclusion and order, and what it declares.
    fn info(&self) -> SuiteInfo;

    /// Its name (the same as [`Suite::info`]'s).
    fn name(&self) -> &'static str {
        self.info().name
    }

    /// The options it takes ([`Suite::info`]'s): a front end offers each (the CLI as a flag),
    /// the options' own parsers check the values, and the run records every one in
    /// `config.options`.
    fn options(&self) -> &'static [OptionSpec] {
        self.info().options
    }

    /// Its WGSL files, by file name ([`Suite::info`]'s): the CPU-only shader tests validate each.
    fn shaders(&self) -> &'static [(&'static str, &'static str)] {
        self.info().shaders
    }

    /// Every compute pipeline it can build on an adapter with `facts` in a run of `profile`,
    /// as its pipelines compile them: `gpubench kernels` and the validation-layer run iterate
    /// them, and the shader tests validate each form. By default [`SuiteInfo::plain_pipelines`].
    fn pipelines(&self, _facts: AdapterFacts, _profile: Profile) -> KernelForms {
        let info = self.info();
        Ok(info
            .plain_pipelines
            .iter()
            .map(|(source, entry)| KernelForm::plain(info.name, source, entry))
            .collect())
    }

    /// Refuses, once the adapter is open and before anything runs, option values the adapter
    /// cannot honour (a matrix over its binding limit).
    fn check_adapter(&self, _ctx: &GpuContext, _options: &SuiteOptions) -> Result<(), PlanError> {
        Ok(())
    }

    /// The benchmarks to run, in order, for a suite that builds them without measuring
    /// anything first (most suites; none by default). A suite that measures candidates with
    /// the tuner, which waits on the device, overrides [`Suite::benchmarks`] instead.
    fn build(&self, _ctx: &GpuContext, _options: &SuiteOptions) -> Benchmarks {
        Ok(Vec::new())
    }

    /// The benchmarks to run, in order: [`Suite::build`]'s by default. A suite may measure
    /// candidates with `build.tuner` first (e.g. to pick the fastest verified kernel variant),
    /// which waits on the device.
    fn benchmarks<'a>(&'a self, build: &'a mut BuildContext<'_>) -> LocalFuture<'a, Benchmarks> {
        let built = self.build(build.ctx, build.options);
        Box::pin(async move { built })
    }

    /// The benchmarks in stages, each built when its turn comes (see [`Stage`]); options are
    /// checked here, before the first stage. By default one stage holding [`Suite::benchmarks`].
    fn stages<'a>(&'a self, build: &'a mut BuildContext<'_>) -> LocalFuture<'a, Stages> {
        Box::pin(async move {
            let benches = self.benchmarks(build).await?;
            let stage: Stage = Box::new(move |_| Box::pin(async move { benches }));
            Ok(vec![stage])
        })
    }

    /// Results that are probed rather than timed (capacity), produced before the suite's
    /// benchmarks run. Every resource they use is freed before they return. Probing waits on
    /// the device, so it returns a future.
    fn probes<'a>(
        &'a self,
        _ctx: &'a GpuContext,
        _options: &'a SuiteOptions,
    ) -> LocalFuture<'a, Vec<BenchResult>> {
        Box::pin(async { Vec::new() })
    }

    /// What [`Suite::probes`] produces, one benchmark a result: where the device was lost
    /// before the suite's turn, the probes do not run and each is recorded as not run, with
    /// the reason, as a benchmark is.
    fn probe_infos(&self) -> Vec<BenchmarkInfo> {
        Vec::new()
    }

    /// Adds suite-specific analysis to one of its measured results (flags, series metadata),
    /// right after it was measured and before it is recorded, given the run so far (`run`: its
    /// machine and every result recorded before): a result implausible on that adapter or
    /// beside an earlier one may be failed here.
    fn annotate(&self, _result: &mut BenchResult, _run: &RunDocument) {}

    /// Results computed from this suite's measured `results` (fitted models, ceilings, ratios),
    /// given everything measured so far in the run (`earlier`, other suites included).
    fn derive(&self, _results: &[BenchResult], _earlier: &[BenchResult]) -> Vec<BenchResult> {
        Vec::new()
    }

    /// How one of its results (measured, probed, derived or recorded as not run) asks to be
    /// charted: the session stamps every result the suite produced that has no hint yet, so
    /// the reports chart it by role, metric and hint, never by suite name. By default none:
    /// the result is listed in the tables and no chart draws it.
    fn chart_hint(&self, _result: &BenchResult) -> Option<ChartHint> {
        None
    }
}
