//! Fault injection: a hidden suite of benchmarks that go wrong on purpose, so tests (and the
//! hidden `--inject-fault` flag, this suite's one option) can prove the harness reports each
//! fault cleanly and carries on. It runs after every other suite, and only when a fault is
//! asked for.

mod copy;
#[cfg(test)]
mod on_an_adapter;

pub use copy::CopyKernel;

use gpubench_harness::{
    Benchmark, BenchmarkInfo, GpuContext, Kernel, KernelBench, MetricKind, Outcome, SampleClock,
    Verification, Work,
};
use gpubench_results::units::format_size;

use gpubench_engine::SuiteOptions;
use gpubench_engine::{Arity, Benchmarks, Included, OptionSpec, Suite, SuiteInfo};
use gpubench_harness::kit::gpu::{self, DispatchKernel};
use serde_json::Value;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "benchmarks that fail on purpose (fault injection)";

/// selftest.wgsl: the deliberately wrong kernels.
pub const WGSL: &str = include_str!("selftest.wgsl");

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
    /// A benchmark whose sample is one dispatch that runs for minutes: a stop request must not
    /// wait for it.
    StallGpu,
    /// A benchmark whose sample spends a minute on the host without looking at the stop flag
    /// (as a large CPU reference does): the process must still end soon after a signal.
    StallHost,
    /// A benchmark whose sample records raw Vulkan commands behind wgpu's back: two fills of
    /// one buffer with no barrier between them (a write-after-write hazard) and a fill at an
    /// offset Vulkan forbids. The validation layers' positive control: a run with it must
    /// show a SYNC- and a VUID- message, or the layer was not live. Vulkan only.
    VulkanHazard,
    /// No fault: a correct 1 MiB copy, `selftest/pace/...`, the row the regression gate's
    /// error-rate harness judges.
    Pace,
    /// The same row at half its rate: each dispatch copies twice and counts once, a real 2x
    /// slowdown for the harness to catch.
    HalfPace,
    /// A correct copy dispatched in its first run only, as a driver that dropped the timed
    /// batches would leave it: the check after the samples must fail it, though the first
    /// run's output is right.
    DroppedWork,
}

/// Dependent steps per invocation of the stalling kernel, and its workgroups (of 64): one
/// dispatch then takes about 2^40 steps, an hour on a software adapter (lavapipe does a
/// workgroup's 2^31 steps in about a second) and long past any stop request's deadline on a
/// GPU (where a driver's watchdog may call the device lost instead, also a clean end).
const STALL_GPU_STEPS: u32 = 1 << 31;
const STALL_GPU_WORKGROUPS: u32 = 4096;

/// The paced copy's arrays.
const PACE_BYTES: u64 = 1 << 20;

/// How long the host stall lasts.
const STALL_HOST: std::time::Duration = std::time::Duration::from_secs(60);

impl Fault {
    /// Every fault, by name.
    pub const ALL: [(&'static str, Fault); 11] = [
        ("wrong-output", Fault::WrongOutput),
        ("device-lost", Fault::DeviceLost),
        ("over-limit", Fault::OverLimit),
        ("gpu-error", Fault::GpuError),
        ("panic", Fault::Panic),
        ("stall-gpu", Fault::StallGpu),
        ("stall-host", Fault::StallHost),
        ("vulkan-hazard", Fault::VulkanHazard),
        ("pace", Fault::Pace),
        ("half-pace", Fault::HalfPace),
        ("dropped-work", Fault::DroppedWork),
    ];

    /// Parses a fault name.
    pub fn parse(name: &str) -> Option<Fault> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    /// The benchmark that produces the fault.
    pub fn benchmark(self, seed: u64) -> Box<dyn Benchmark> {
        match self {
            Fault::WrongOutput => Box::new(broken_copy(64 * 1024, seed)),
            Fault::Pace => KernelBench::boxed(CopyKernel::paced(PACE_BYTES, seed, 1)),
            Fault::HalfPace => KernelBench::boxed(CopyKernel::paced(PACE_BYTES, seed, 2)),
            Fault::DroppedWork => KernelBench::boxed(CopyKernel::dropping(PACE_BYTES, seed)),
            other => KernelBench::boxed(FaultyKernel::new(other)),
        }
    }
}

/// A copy of `bytes` through the deliberately broken kernel of `selftest.wgsl`.
pub fn broken_copy(bytes: u64, seed: u64) -> KernelBench<CopyKernel> {
    KernelBench::new(CopyKernel::broken(bytes, seed))
}

/// A kernel that behaves until its fault strikes: it verifies, and then the fault happens on the
/// first timed sample (device loss, invalid work, panic) or at set-up (over the limit).
pub struct FaultyKernel {
    fault: Fault,
}

/// The buffer the kernel clears, how many times it has run (the fault strikes on the second),
/// and the stalling kernel where the fault is [`Fault::StallGpu`].
pub struct FaultyState {
    buffer: wgpu::Buffer,
    runs: u32,
    stall: Option<DispatchKernel>,
}

impl FaultyKernel {
    /// A kernel that produces `fault`.
    pub fn new(fault: Fault) -> Self {
        Self { fault }
    }

    fn name(&self) -> &'static str {
        Fault::ALL
            .iter()
            .find(|(_, f)| *f == self.fault)
            .map_or("fault", |(n, _)| *n)
    }
}

const CLEAR_BYTES: u64 = 64 * 1024;

impl Kernel for FaultyKernel {
    type State = FaultyState;

    fn info(&self) -> BenchmarkInfo {
        BenchmarkInfo::new(
            format!("selftest/{}", self.name()),
            "selftest",
            MetricKind::Bandwidth,
            "bytes cleared per second (fault injection)",
        )
        .param("fault", self.name())
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        if self.fault == Fault::VulkanHazard && ctx.summary.backend != "vulkan" {
            return Err("records raw Vulkan commands: a Vulkan adapter only".to_string());
        }
        // A browser page (wasm32) has one thread, and std cannot sleep there.
        if self.fault == Fault::StallHost && cfg!(target_arch = "wasm32") {
            return Err("blocks the host thread: not in a browser, whose page has only one".into());
        }
        Ok(())
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<FaultyState> {
        let size = if self.fault == Fault::OverLimit {
            ctx.limits.max_buffer_size.saturating_add(4)
        } else {
            CLEAR_BYTES
        };
        let buffer = ctx
            .try_buffer(
                "fault target",
                size,
                wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            )
            .await?;
        let stall = (self.fault == Fault::StallGpu).then(|| stall_kernel(ctx));
        Ok(FaultyState {
            buffer,
            runs: 0,
            stall,
        })
    }

    fn work(&self, _state: &FaultyState) -> Work {
        Work::bytes(0, CLEAR_BYTES)
    }

    async fn run(&self, state: &mut FaultyState, clock: &mut SampleClock<'_>) -> Outcome {
        let (ctx, iterations) = (clock.ctx(), clock.iterations());
        state.runs += 1;
        let buffer = &state.buffer;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..iterations {
            encoder.clear_buffer(buffer, 0, None);
        }
        if state.runs > 1 {
            match self.fault {
                Fault::DeviceLost => ctx.device.destroy(),
                Fault::GpuError => {
                    // Clearing past the end of the buffer is invalid: wgpu reports it when the
                    // encoder finishes, to the uncaptured-error handler (no scope is open).
                    encoder.clear_buffer(buffer, 0, Some(buffer.size() * 2));
                }
                Fault::Panic => panic!("injected panic while sampling"),
                Fault::StallGpu => {
                    if let Some(stall) = &state.stall {
                        let mut pass = encoder.begin_compute_pass(&Default::default());
                        stall.encode(&mut pass, 1);
                    }
                }
                Fault::StallHost => std::thread::sleep(STALL_HOST),
                Fault::VulkanHazard => {
                    // wgpu refuses raw commands in an encoder its own API recorded into.
                    let mut raw = ctx.device.create_command_encoder(&Default::default());
                    record_hazard(ctx, &mut raw, buffer);
                    clock.submit([raw.finish()]);
                }
                Fault::WrongOutput
                | Fault::OverLimit
                | Fault::Pace
                | Fault::HalfPace
                | Fault::DroppedWork => {}
            }
        }
        clock.submit([encoder.finish()]);
        Ok(())
    }

    async fn verify(&self, state: &mut FaultyState, ctx: &GpuContext) -> Outcome<Verification> {
        let bytes = ctx.read_buffer(&state.buffer, CLEAR_BYTES).await?;
        let wrong = bytes.iter().filter(|b| **b != 0).count() as u64;
        Ok(Verification {
            checked: bytes.len() as u64,
            mismatches: wrong,
            first_mismatches: if wrong == 0 {
                Vec::new()
            } else {
                vec![format!(
                    "{wrong} of {} bytes not cleared",
                    format_size(CLEAR_BYTES)
                )]
            },
        })
    }
}

/// Records, behind wgpu's back, two fills of `buffer` with no barrier between them and a fill
/// at an offset that is not a multiple of 4 (see [`Fault::VulkanHazard`]).
#[cfg(not(target_arch = "wasm32"))]
fn record_hazard(ctx: &GpuContext, encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer) {
    use wgpu::hal::api::Vulkan;
    // SAFETY: the device is a Vulkan one (check_support), the handles are wgpu's own and are
    // not destroyed, and the commands go into the encoder's open command buffer, which wgpu
    // ends. The misuse is deliberate and only under `--inject-fault vulkan-hazard`: fills of a
    // buffer this benchmark owns, which every driver executes (the hazard and the offset are
    // what the validation layer is there to report).
    unsafe {
        let Some(device) = ctx
            .device
            .as_hal::<Vulkan>()
            .map(|d| d.raw_device().clone())
        else {
            return;
        };
        let Some(raw) = buffer.as_hal::<Vulkan>().map(|b| b.raw_handle()) else {
            return;
        };
        encoder.as_hal_mut::<Vulkan, _, _>(|hal| {
            if let Some(hal) = hal {
                let commands = hal.raw_handle();
                device.cmd_fill_buffer(commands, raw, 0, CLEAR_BYTES, 1);
                device.cmd_fill_buffer(commands, raw, 0, CLEAR_BYTES, 2);
                // VUID-vkCmdFillBuffer-dstOffset-00025: the offset must be a multiple of 4.
                device.cmd_fill_buffer(commands, raw, 2, 4, 3);
            }
        });
    }
}

/// A browser (wasm32) has no Vulkan device to misuse (wgpu has no `hal` there), and
/// `check_support` skips the fault on any other device, so nothing is recorded.
#[cfg(target_arch = "wasm32")]
fn record_hazard(_: &GpuContext, _: &mut wgpu::CommandEncoder, _: &wgpu::Buffer) {}

/// The stalling kernel of `selftest.wgsl`: [`STALL_GPU_WORKGROUPS`] workgroups,
/// [`STALL_GPU_STEPS`] steps per invocation.
fn stall_kernel(ctx: &GpuContext) -> DispatchKernel {
    let params: [u32; 4] = [STALL_GPU_STEPS, 0, 0, 0];
    let params = gpu::uniform_buffer(ctx, "stall params", &params);
    let values = ctx.buffer_with_data(
        "stall values",
        &vec![0u8; 64 * 16 * STALL_GPU_WORKGROUPS as usize],
        wgpu::BufferUsages::STORAGE,
    );
    let pipeline = gpu::compute_pipeline(ctx, "selftest stall", crate::selftest::WGSL, "spin");
    DispatchKernel::new(
        ctx,
        "selftest stall",
        pipeline,
        &[(0, &params), (3, &values)],
        (STALL_GPU_WORKGROUPS, 1),
    )
}

/// The option that asks for faults: a list of [`Fault::ALL`]'s names.
pub const INJECT_FAULT: OptionSpec = OptionSpec {
    key: "inject_fault",
    flag: "inject-fault",
    value_name: "FAULT",
    help: "Add a deliberately faulty benchmark (for testing the harness), run after the suites.",
    arity: Arity::Many,
    default: || Value::Array(Vec::new()),
    parse: |text| match Fault::parse(text) {
        Some(_) => Ok(Value::from(text)),
        None => Err(format!(
            "'{text}' is not a fault (known: {})",
            Fault::ALL.map(|(name, _)| name).join(", ")
        )),
    },
    choices: Some(|| Fault::ALL.iter().map(|(name, _)| *name).collect()),
    hidden: true,
};

/// The suite injected faults run under: one benchmark per fault asked for, in order.
pub struct SelfTestSuite;

impl Suite for SelfTestSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("selftest", ABOUT)
            .included(Included::WhenItsOptionIsGiven)
            .options(&[INJECT_FAULT])
            .shaders(&[("selftest.wgsl", WGSL)])
    }

    fn build(&self, _ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let names: Vec<String> = options.get(INJECT_FAULT.key).unwrap_or_default();
        Ok(names
            .iter()
            .filter_map(|name| Fault::parse(name))
            .map(|fault| fault.benchmark(options.seed))
            .collect())
    }
}
