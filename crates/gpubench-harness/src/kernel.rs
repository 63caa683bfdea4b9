//! Kernels with typed set-up state, and the one adapter that runs them as [`Benchmark`]s.
//!
//! A [`Kernel`] describes itself ([`Kernel::info`]) and builds its state in
//! [`Kernel::setup`]: buffers, pipelines, the host copy of its inputs. The runner's
//! [`Benchmark`] interface needs somewhere to keep that state between set-up, the timed runs,
//! verification and teardown; [`KernelBench`] is that place, for every kernel. A kernel therefore
//! never checks "was I set up?" by hand: `run` and `verify` receive the state, and cannot be called
//! without it (the adapter reports [`BenchError::NotSetUp`] if the runner's order is broken).
//!
//! This is the shape of cubecl's `prepare -> input` split, applied to gpubench's protocol.

use crate::LocalFuture;
use crate::benchmark::{Benchmark, Verification};
use crate::context::GpuContext;
use crate::error::{BenchError, Outcome};
use crate::timing::SampleClock;
use gpubench_results::{BenchmarkInfo, Work};

/// One measurable piece of GPU (or host) work with typed set-up state.
///
/// The runner's order, through [`KernelBench`]: [`Kernel::check_support`], [`Kernel::setup`],
/// [`Kernel::run`] once and [`Kernel::verify`], then `run` for calibration, warm-up and samples,
/// then `verify` again (what the timed runs left); the state is dropped afterwards (which frees
/// its buffers). `run` must be idempotent: any number of runs leaves output that `verify`
/// accepts. Between the first check and the timed runs the runner overwrites what `verify` read
/// back ([`crate::read_log`]), so each run must write all of it again, unless the kernel's info
/// says its runs add to it ([`crate::Outputs::Accumulated`]: the check counts every run).
///
/// `setup`, `run` and `verify` are `async fn`s: each wait on the device in them is awaited, and
/// the native binaries block once, on the whole run.
#[allow(
    async_fn_in_trait,
    reason = "a run is driven on one thread: no Send bound is wanted on these futures"
)]
pub trait Kernel {
    /// Everything `setup` creates and the later steps use.
    type State;

    /// Id, suite, parameters, metric and timing policy. Called once, when the kernel is wrapped.
    fn info(&self) -> BenchmarkInfo;

    /// Device features this kernel needs; missing ones make it "skipped".
    fn required_features(&self) -> wgpu::Features {
        wgpu::Features::empty()
    }

    /// Checks limits and anything else the adapter must offer. `Err` carries the skip reason.
    fn check_support(&self, _ctx: &GpuContext) -> Result<(), String> {
        Ok(())
    }

    /// Creates buffers and pipelines and fills inputs. Not timed.
    async fn setup(&self, ctx: &GpuContext) -> Outcome<Self::State>;

    /// The work one iteration does (it may depend on what set-up chose, e.g. the grid).
    fn work(&self, state: &Self::State) -> Work;

    /// Records and submits `clock.iterations()` iterations through `clock` (which also gives the
    /// context): the timed region.
    async fn run(&self, state: &mut Self::State, clock: &mut SampleClock<'_>) -> Outcome;

    /// Reads the output back and compares it with the CPU reference.
    async fn verify(
        &self,
        state: &mut Self::State,
        ctx: &GpuContext,
    ) -> Result<Verification, BenchError>;
}

/// Runs any [`Kernel`] as a [`Benchmark`]: owns its description and its set-up state.
pub struct KernelBench<K: Kernel> {
    info: BenchmarkInfo,
    kernel: K,
    state: Option<K::State>,
}

impl<K: Kernel> KernelBench<K> {
    /// Wraps `kernel`, taking its description once.
    pub fn new(kernel: K) -> Self {
        Self {
            info: kernel.info(),
            kernel,
            state: None,
        }
    }

    /// Wraps `kernel`, boxed for a suite's list of benchmarks.
    pub fn boxed(kernel: K) -> Box<dyn Benchmark>
    where
        K: 'static,
    {
        Box::new(Self::new(kernel))
    }

    /// The description, for suites that run a kernel under another id or sampling policy (the
    /// sustained run reuses the FMA peak kernel).
    pub fn info_mut(&mut self) -> &mut BenchmarkInfo {
        &mut self.info
    }

    /// The wrapped kernel.
    pub fn kernel(&self) -> &K {
        &self.kernel
    }

    /// The state set-up created, while the benchmark is set up (for tests that look inside).
    pub fn state(&self) -> Option<&K::State> {
        self.state.as_ref()
    }
}

impl<K: Kernel> KernelBench<K> {
    /// The kernel and its set-up state, or the error naming `step`, which came before set-up.
    fn ready(&mut self, step: &'static str) -> Result<(&K, &mut K::State), BenchError> {
        let Self {
            kernel,
            state,
            info,
        } = self;
        let state = state.as_mut().ok_or_else(|| BenchError::NotSetUp {
            id: info.id.clone(),
            step,
        })?;
        Ok((kernel, state))
    }
}

impl<K: Kernel> Benchmark for KernelBench<K> {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
    }

    fn required_features(&self) -> wgpu::Features {
        self.kernel.required_features()
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        self.kernel.check_support(ctx)
    }

    fn setup<'a>(&'a mut self, ctx: &'a GpuContext) -> LocalFuture<'a, Result<(), BenchError>> {
        Box::pin(async move {
            // A second set-up starts from nothing: the old state's buffers go first.
            self.state = None;
            self.state = Some(self.kernel.setup(ctx).await?);
            Ok(())
        })
    }

    /// The declared work; before set-up (or after a failed one) nothing was done, so zero.
    fn work(&self) -> Work {
        self.state
            .as_ref()
            .map_or_else(Work::default, |state| self.kernel.work(state))
    }

    fn run<'a>(
        &'a mut self,
        clock: &'a mut SampleClock<'_>,
    ) -> LocalFuture<'a, Result<(), BenchError>> {
        Box::pin(async move {
            let (kernel, state) = self.ready("run")?;
            kernel.run(state, clock).await
        })
    }

    fn verify<'a>(
        &'a mut self,
        ctx: &'a GpuContext,
    ) -> LocalFuture<'a, Result<Verification, BenchError>> {
        Box::pin(async move {
            let (kernel, state) = self.ready("verify")?;
            kernel.verify(state, ctx).await
        })
    }

    fn teardown(&mut self) {
        self.state = None;
    }
}
