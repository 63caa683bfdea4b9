//! The stream suite: device-memory bandwidth of copy, scale, add, triad, a read-only reduction
//! and a write-only fill over `array<vec4<f32>>` ([`kernels`]), the copy engine
//! ([`copy_engine`]), and the host's own memcpy as a reference row ([`host_memcpy`]).
//!
//! Bandwidth counts bytes read plus bytes written per iteration (STREAM/BabelStream's
//! convention): copy and scale move 2 arrays, add and triad 3, read 1 (plus its small partial
//! sums), fill 1. Every element of every output is checked against a CPU replay.
//!
//! Copy, scale, add and triad come in two forms, one element per invocation per loop trip or
//! 2 or 4 with all of a trip's loads issued first (more bytes in flight per invocation); a GPU
//! chooses by measuring the triad (`per_trip`, `tuning_gbps`), a CPU adapter keeps one. The
//! ids do not change with the form.
//!
//! Kernels over arrays small enough to live in a cache walk them several times per dispatch
//! ([`sizing`]), so that what is timed is the kernel rather than the barrier between dispatches;
//! a result whose dispatches are still shorter than the target says so.

pub mod copy_engine;
pub mod host_memcpy;
pub mod kernels;
#[cfg(test)]
mod on_an_adapter;
mod source;

use gpubench_harness::{
    BenchResult, Benchmark, BenchmarkInfo, GpuContext, KernelBench, MetricKind, Profile, Role,
};
use gpubench_results::units::{MIB, format_size};

pub use copy_engine::CopyEngine;
use gpubench_harness::kit::sizing::{self, AdapterClass};
pub use host_memcpy::HostMemcpy;
pub use kernels::{
    KERNELS, PER_TRIP, SCALAR, Stream, StreamInputs, StreamKernel, StreamSpec, VEC4_BYTES,
};
pub use source::source;

use gpubench_engine::SuiteInfo;
use gpubench_engine::{Arity, OptionSpec};
use gpubench_engine::{Benchmarks, BuildContext, PlanError, Suite, SuiteOptions};
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::forms::{KernelForm, KernelForms};
use gpubench_harness::kit::gpu::SpecialisedShader;
use serde_json::Value;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str =
    "device memory bandwidth (copy, scale, add, triad, read, fill), copy engine, host memcpy";

/// stream.wgsl: what the device-memory bandwidth kernels share, the reduction and the fill's
/// walk; the pipelines compile it with the templated walks and entry points appended
/// ([`source()`]).
pub const WGSL: &str = include_str!("stream.wgsl");

/// The stream suite: the six kernels, the copy engine and the host memcpy reference, all on
/// arrays of the same size; in the full profile, triad over smaller arrays too.
pub struct StreamSuite;

impl Suite for StreamSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("stream", ABOUT)
            .options(&[STREAM_SIZE])
            .shaders(&[("stream.wgsl", WGSL)])
    }

    fn pipelines(&self, _facts: AdapterFacts, _profile: Profile) -> KernelForms {
        let mut forms = Vec::new();
        for spec in &KERNELS {
            for entry in [spec.entry, spec.repeated_entry] {
                forms.push(KernelForm::plain("stream", source(), entry));
            }
            let Some((once, repeated)) = spec.per_trip_entries else {
                continue;
            };
            for per_trip in PER_TRIP.into_iter().filter(|&p| p > 1) {
                for entry in [once, repeated] {
                    let shader = SpecialisedShader::plain(source(), entry)
                        .with_constants(vec![("PER_TRIP", f64::from(per_trip))]);
                    let name = format!("stream/{entry}-per-trip{per_trip}");
                    forms.push(KernelForm::fixed(name, shader));
                }
            }
        }
        Ok(forms)
    }

    /// A stream size no stream row could run at is refused before anything runs: over the
    /// adapter's largest buffer, every kernel, the copy engine and the host memcpy beside them
    /// would be skipped (the full profile's size sweep aside, which runs the sizes below it).
    /// A size over the binding limit only still runs the copy engine, its kernel rows skipped
    /// with their reason.
    fn check_adapter(&self, ctx: &GpuContext, options: &SuiteOptions) -> Result<(), PlanError> {
        let Some(bytes) = options.get::<u64>(STREAM_SIZE_KEY) else {
            return Ok(());
        };
        if options.profile == Profile::Full {
            return Ok(());
        }
        gpubench_harness::kit::gpu::check_buffer_fits(ctx, bytes).map_err(|why| {
            let size = format_size(bytes);
            PlanError::bad(
                STREAM_SIZE_KEY,
                format!("{size}: no stream row can run: {why}"),
            )
        })
    }

    fn benchmarks<'a>(
        &'a self,
        build: &'a mut BuildContext<'_>,
    ) -> gpubench_harness::LocalFuture<'a, Benchmarks> {
        Box::pin(async move {
            let (ctx, options) = (build.ctx, build.options);
            let bytes = stream_array_bytes(ctx, options)?;
            let seed = options.seed;
            let class = AdapterClass::of(ctx);
            // One set of inputs for every kernel and tuning candidate over the main arrays:
            // made per row, they cost 1.8 s of host time a row at 512 MiB.
            let shared = StreamInputs::new(bytes, seed);
            let stream = |k: StreamKernel, size: u64, per_trip: u32| {
                let kernel = if size == bytes {
                    Stream::sharing(k, shared.clone())
                } else {
                    Stream::new(k, size, seed)
                };
                kernel.sized_for(class).with_per_trip(per_trip)
            };
            // Elements per invocation per loop trip: one on a CPU adapter (an invocation is a lane
            // of a SIMD register and the host's prefetchers keep the stream in flight: on lavapipe
            // the three forms came in no steady order, and measuring them doubled the suite's
            // time); on a GPU the triad, the kernel
            // with the most loads, chooses for the four kernels that have the form, so the choice
            // costs three candidates' set-ups (a GiB of inputs and its check each, on a large card).
            let mut benches: Vec<Box<dyn Benchmark>> = Vec::new();
            let choice = if ctx.is_software() {
                PerTripChoice::cpu()
            } else {
                tune_per_trip(build.tuner, &|u| stream(StreamKernel::Triad, bytes, u)).await
            };
            for spec in &KERNELS {
                let mut kernel = stream(spec.kernel, bytes, choice.per_trip);
                if spec.per_trip_entries.is_some() {
                    for (key, value) in &choice.params {
                        kernel = kernel.with_param(key, value.clone());
                    }
                }
                benches.push(KernelBench::boxed(kernel));
            }
            benches.extend(choice.failed);
            benches.push(KernelBench::boxed(CopyEngine { bytes, seed }));
            benches.push(KernelBench::boxed(HostMemcpy { bytes, seed }));
            if options.profile == Profile::Full {
                // Cache versus DRAM: triad over arrays from 256 KiB up to the main size.
                let mut size = 256 * 1024;
                while size < bytes {
                    let swept = stream(StreamKernel::Triad, size, choice.per_trip)
                        .with_param(CACHE_SWEEP, true.into());
                    benches.push(KernelBench::boxed(swept));
                    size *= 4;
                }
            }
            Ok(benches)
        })
    }

    /// A shader kernel's median time per dispatch (`dispatch_us`), and a warning when it is
    /// still under the target however many walks the dispatch made.
    fn annotate(&self, result: &mut BenchResult, _run: &gpubench_harness::RunDocument) {
        let Some(repeats) = result.params.get("repeats").and_then(|r| r.as_u64()) else {
            return;
        };
        if result.role != Role::Kernel {
            return;
        }
        let Some(dispatch_s) = sizing::median_dispatch_s(result) else {
            return;
        };
        result
            .extra
            .insert("dispatch_us".into(), (dispatch_s * 1e6).into());
        if let Some(warning) = sizing::short_dispatch_warning(dispatch_s, repeats) {
            result.warnings.push(warning);
        }
    }

    /// Every row is a bar of the stream chart (by kernel, at its largest array); its best
    /// shader kernel is a bandwidth ceiling candidate, but not a row of the full profile's
    /// cache sweep: a triad over 256 KiB sits in an L2, and drawn as the memory's ceiling it
    /// would put the roof at the cache's rate (31 TB/s against 4.8 on an H200).
    fn chart_hint(&self, result: &BenchResult) -> Option<gpubench_results::ChartHint> {
        use gpubench_results::chart::{ChartHint, Roof, group};
        let swept = result.params.get(CACHE_SWEEP).and_then(|v| v.as_bool()) == Some(true);
        let roof = (!swept).then_some(Roof::Ceiling);
        Some(ChartHint::bars(
            group::STREAM_KERNELS,
            &["kernel"],
            &["array_bytes"],
            roof,
        ))
    }
}

/// The param marking a row of the full profile's cache-versus-DRAM triad sweep (arrays under
/// the main size, some of them in a cache).
pub const CACHE_SWEEP: &str = "cache_sweep";

/// How many elements an invocation takes per loop trip, why, and the candidates that failed
/// verification (each a failing result of its own: a wrong answer is a defect to see, not a
/// footnote in a table).
struct PerTripChoice {
    per_trip: u32,
    params: Vec<(&'static str, serde_json::Value)>,
    failed: Vec<Box<dyn Benchmark>>,
}

impl PerTripChoice {
    /// A CPU adapter's rule: one element per trip, nothing measured.
    fn cpu() -> Self {
        Self {
            per_trip: 1,
            params: vec![(
                "per_trip_rule",
                "CPU adapter: one element per trip (its prefetchers keep the stream in flight)"
                    .into(),
            )],
            failed: Vec::new(),
        }
    }
}

/// Measures `make(u)` for every `u` of [`PER_TRIP`] with `tuner` and keeps the fastest that
/// verified; one element per trip where none did. The figures' ids are the same whichever
/// form runs; `per_trip`, `per_trip_tuned_on` and `tuning_gbps` say which and why.
async fn tune_per_trip(
    tuner: &mut dyn gpubench_engine::Tuner,
    make: &dyn Fn(u32) -> Stream,
) -> PerTripChoice {
    let mut measured: Vec<BenchResult> = Vec::with_capacity(PER_TRIP.len());
    for &u in &PER_TRIP {
        // A candidate's figure only ranks the forms: a spread sample of its output is checked
        // (the chosen form's rows, and any candidate that fails, are checked in full).
        let mut candidate = KernelBench::new(make(u).checking_a_sample());
        measured.push(tuner.measure(&mut candidate).await);
    }
    let names: Vec<String> = PER_TRIP.iter().map(|u| u.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let table = gpubench_harness::kit::tuning::tuning_table(&names, &measured);
    let per_trip =
        gpubench_harness::kit::tuning::select_fastest(&measured).map_or(1, |i| PER_TRIP[i]);
    let failed = PER_TRIP
        .iter()
        .zip(&measured)
        .filter(|(_, r)| r.status == gpubench_harness::Status::Failed)
        .map(|(&u, _)| {
            KernelBench::boxed(
                make(u)
                    .as_candidate()
                    .with_param("tuning_gbps", table.clone()),
            )
        })
        .collect();
    let tuned_on = gpubench_harness::Kernel::info(&make(1)).id;
    PerTripChoice {
        per_trip,
        params: vec![
            ("per_trip_tuned_on", tuned_on.into()),
            ("tuning_gbps", table),
        ],
        failed,
    }
}

/// The description of a row that copies one stream array of `bytes` without a shader (the copy
/// engine, the host's memcpy): the id `stream/{name}/bytes/{size}`, a bandwidth that `counts`,
/// its `role`, and the `kernel`, `array_bytes` and `array_size` params.
fn copy_info(name: &str, kernel: &str, role: Role, counts: &str, bytes: u64) -> BenchmarkInfo {
    let size = format_size(bytes);
    BenchmarkInfo::new(
        format!("stream/{name}/bytes/{size}"),
        "stream",
        MetricKind::Bandwidth,
        counts,
    )
    .role(role)
    .param("kernel", kernel)
    .param("array_bytes", bytes)
    .param("array_size", size)
}

/// `config.options` key of the bytes per stream array.
pub const STREAM_SIZE_KEY: &str = "stream_size";

/// The stream suite's option: bytes per stream array.
pub const STREAM_SIZE: OptionSpec = OptionSpec {
    key: STREAM_SIZE_KEY,
    flag: "stream-size",
    value_name: "SIZE",
    help: "Bytes per stream array, e.g. 64MiB (binary units).",
    arity: Arity::One,
    default: || Value::Null,
    parse: |text| {
        let bytes = gpubench_results::units::parse_size(text)?;
        check_stream_size(bytes)
            .map(|()| Value::from(bytes))
            .map_err(|error| match error {
                PlanError::BadOption { problem, .. } => problem,
                other => other.to_string(),
            })
    },
    choices: None,
    hidden: false,
};

/// Refuses a stream size no stream kernel can take: under 4 KiB, or not whole vec4s. Needs
/// no adapter, so it is checked before anything runs.
pub fn check_stream_size(bytes: u64) -> Result<(), PlanError> {
    if bytes < 4096 || !bytes.is_multiple_of(VEC4_BYTES) {
        return Err(PlanError::bad(
            STREAM_SIZE_KEY,
            format!(
                "{bytes} bytes ({}) must be at least 4KiB and a multiple of 16 bytes",
                format_size(bytes)
            ),
        ));
    }
    Ok(())
}

/// What to do about a stream array the adapter or the host cannot hold, for a skip's reason.
pub const SMALLER_STREAM_SIZE: &str = "choose a smaller stream size (the `stream_size` option)";

/// Skips a stream array of `bytes` over the adapter's binding or buffer limit, saying which
/// option sets its size.
pub fn check_stream_array_fits(ctx: &GpuContext, bytes: u64) -> Result<(), String> {
    gpubench_harness::kit::gpu::check_binding_fits(ctx, bytes, "stream array")
        .map_err(|why| format!("{why}; {SMALLER_STREAM_SIZE}"))
}

/// Bytes per stream array: the option when given, else the profile's size (quick: 256 MiB on a
/// GPU, 16 MiB on a software adapter; otherwise 512 MiB on a GPU, 10x H200's L2 and 2x
/// MI300X's infinity cache, and 128 MiB on a software adapter, 4x a small server's 32 MiB L3), capped
/// by the adapter's binding and buffer limits and rounded down to a power of two.
pub fn stream_array_bytes(ctx: &GpuContext, options: &SuiteOptions) -> Result<u64, PlanError> {
    if let Some(bytes) = options.get::<u64>(STREAM_SIZE_KEY) {
        check_stream_size(bytes)?;
        return Ok(bytes);
    }
    let wanted = match (options.profile, ctx.is_software()) {
        // Quick stays small on a software adapter (a CPU runs it); on a GPU even a smoke test
        // needs arrays beyond the last-level cache (50-256 MiB on current large cards).
        (Profile::Quick, true) => 16 * MIB,
        (Profile::Quick, false) => 256 * MIB,
        (_, true) => 128 * MIB,
        (_, false) => 512 * MIB,
    };
    let cap = wanted
        .min(ctx.limits.max_storage_buffer_binding_size)
        .min(ctx.limits.max_buffer_size);
    Ok(1u64 << (63 - cap.max(4096).leading_zeros()))
}
