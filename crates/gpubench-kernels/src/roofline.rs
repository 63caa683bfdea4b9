//! The roofline suite: one kernel swept over arithmetic intensity, from memory-bound to
//! compute-bound, and the ceilings and ridge point derived from the sweep.
//!
//! Each point reads an array of `vec4<f32>` once and applies `FMAS` multiply-adds to every
//! element (intensity = 8 FMAS FLOP / 16 bytes). Its result is GFLOP/s with the intensity in
//! params. The derived results are the bandwidth ceiling (best GB/s of any point, or the stream
//! suite's best when it ran and did better), the compute ceiling (best GFLOP/s of any point,
//! or the compute suite's f32 peak when higher), and the ridge point: compute / bandwidth, the
//! intensity above which this adapter is compute-bound.

use std::collections::BTreeMap;

use gpubench_harness::rng::SplitMix64;
use gpubench_harness::units::{MIB, format_size};
use gpubench_harness::{
    BenchError, BenchResult, Benchmark, BenchmarkInfo, GpuContext, MetricKind, Profile,
    SampleClock, Status, Verification, Work,
};

use crate::compute::measured_peak;
use crate::derived::derived_result;
use crate::gpu::{
    Precision, bind_buffers, bytes_to_f32, compute_pipeline, grid_workgroups, ready, specialise,
    submit_dispatches,
};
use crate::verify::{Checker, Tolerance};
use crate::{KernelError, Suite, SuiteOptions, Tuner, shaders};

const WORKGROUP: u32 = 256;
/// Bytes per element.
const VEC4: u64 = 16;
/// The chain multiplier and addend (see roofline.wgsl: every value stays exact).
const A: f32 = 1.0;
const B: f32 = 1.0 / 1024.0;
/// Each invocation handles about this many groups of four elements. Few per invocation means
/// many invocations: on lavapipe 16 groups read at a fifth of the stream kernels' bandwidth, 2
/// groups (8 elements, as the stream read kernel) reach it.
const GROUPS_PER_INVOCATION: u64 = 2;

/// Multiply-adds per loaded vec4 for each point of the sweep.
pub const FMAS_SWEEP: [u32; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// FLOP per byte read at `fmas` multiply-adds per vec4.
pub fn intensity(fmas: u32) -> f64 {
    f64::from(fmas) * 8.0 / VEC4 as f64
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    groups: u32,
    threads: u32,
    a: f32,
    b: f32,
}

struct RooflineState {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    out: wgpu::Buffer,
    workgroups: u32,
    input: Vec<f32>,
    _buffers: Vec<wgpu::Buffer>,
}

/// One point of the sweep: `fmas` multiply-adds per vec4 over an array of `bytes`.
pub struct RooflinePoint {
    info: BenchmarkInfo,
    fmas: u32,
    bytes: u64,
    seed: u64,
    state: Option<RooflineState>,
}

impl RooflinePoint {
    /// A point over `bytes` (a multiple of 64) with `fmas` multiply-adds per element.
    pub fn new(fmas: u32, bytes: u64, seed: u64) -> Self {
        let info = BenchmarkInfo::new(
            format!("roofline/fma{fmas}/vec4-f32/{}", format_size(bytes)),
            "roofline",
            MetricKind::Throughput,
            "floating-point operations per second (an FMA counts as 2) at a fixed FLOP per byte",
        )
        .param("fmas_per_vec4", fmas)
        .param("intensity_flop_per_byte", intensity(fmas))
        .param("precision", Precision::F32.name())
        .param("array_bytes", bytes)
        .param("array_size", format_size(bytes));
        Self {
            info,
            fmas,
            bytes,
            seed,
            state: None,
        }
    }

    fn groups(&self) -> u64 {
        self.bytes / VEC4 / 4
    }
}

impl Benchmark for RooflinePoint {
    fn info(&self) -> &BenchmarkInfo {
        &self.info
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        crate::gpu::check_binding_fits(ctx, self.bytes, "--stream-size")
    }

    fn setup(&mut self, ctx: &GpuContext) -> Result<(), BenchError> {
        let groups = u32::try_from(self.groups())
            .map_err(|_| BenchError::Unsupported("array too long for u32 indexing".into()))?;
        let workgroups = grid_workgroups(ctx, u64::from(groups), WORKGROUP, GROUPS_PER_INVOCATION);
        let threads = workgroups * WORKGROUP;
        let mut rng = SplitMix64::new(self.seed);
        // Multiples of 2^-10 in [-1, 1): random, never all zero, and exact through the chain.
        let input: Vec<f32> = (0..self.bytes / 4)
            .map(|_| (rng.next_below(2048) as f32 - 1024.0) / 1024.0)
            .collect();
        let source = specialise(
            shaders::ROOFLINE,
            Precision::F32,
            &[],
            &[("FMAS", self.fmas)],
        )
        .map_err(BenchError::Gpu)?;
        let pipeline = compute_pipeline(ctx, &self.info.id, &source, "roofline");
        let params = Params {
            groups,
            threads,
            a: A,
            b: B,
        };
        let params = ctx.buffer_with_data(
            "roofline params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let data = ctx.buffer_with_data(
            "roofline input",
            bytemuck::cast_slice(&input),
            wgpu::BufferUsages::STORAGE,
        );
        let init = vec![f32::NAN; threads as usize * 4];
        let out = ctx.buffer_with_data(
            "roofline out",
            bytemuck::cast_slice(&init),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let bind_group = bind_buffers(ctx, &pipeline, &[(0, &params), (1, &data), (2, &out)]);
        self.state = Some(RooflineState {
            pipeline,
            bind_group,
            out,
            workgroups,
            input,
            _buffers: vec![params, data],
        });
        Ok(())
    }

    fn work(&self) -> Work {
        let threads = self
            .state
            .as_ref()
            .map_or(0, |s| u64::from(s.workgroups) * u64::from(WORKGROUP));
        let elements = self.bytes / VEC4;
        Work {
            bytes_read: self.bytes,
            bytes_written: threads * VEC4,
            flops: elements * 4 * 2 * u64::from(self.fmas),
            ops: 1,
        }
    }

    fn run(
        &mut self,
        ctx: &GpuContext,
        iterations: u32,
        clock: &mut SampleClock<'_>,
    ) -> Result<(), BenchError> {
        let state = ready(&self.state, "run")?;
        submit_dispatches(
            ctx,
            clock,
            "roofline",
            &state.pipeline,
            &state.bind_group,
            (state.workgroups, 1),
            iterations,
        );
        Ok(())
    }

    fn verify(&mut self, ctx: &GpuContext) -> Result<Verification, BenchError> {
        let state = ready(&self.state, "verify")?;
        let got = bytes_to_f32(&ctx.read_buffer(&state.out, state.out.size())?);
        let threads = state.workgroups as usize * WORKGROUP as usize;
        let want = expected_sums(&state.input, threads, self.fmas);
        let mut checker = Checker::new();
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            checker.check(f64::from(g), w, w, Tolerance::EXACT, || {
                format!("invocation {}, component {}", i / 4, i % 4)
            });
        }
        Ok(checker.finish())
    }

    fn teardown(&mut self) {
        self.state = None;
    }
}

/// What each invocation writes: for each component, the sum over its elements of
/// `x + fmas * b` (a = 1), for `threads` invocations striding over groups of four.
pub fn expected_sums(input: &[f32], threads: usize, fmas: u32) -> Vec<f64> {
    let groups = input.len() / 16;
    let shift = f64::from(fmas) * f64::from(B);
    let mut want = vec![0.0f64; threads * 4];
    for i in 0..groups {
        let t = i % threads;
        for part in 0..4 {
            let element = i + part * groups;
            for c in 0..4 {
                want[t * 4 + c] += f64::from(input[element * 4 + c]) + shift;
            }
        }
    }
    want
}

/// Bytes of the swept array: 16 MiB for quick runs, otherwise 64 MiB on a software adapter and
/// 256 MiB on a GPU (past any cache), capped by the adapter's binding limit.
pub fn roofline_bytes(ctx: &GpuContext, profile: Profile) -> u64 {
    let wanted = match (profile, ctx.is_software()) {
        (Profile::Quick, _) => 16 * MIB,
        (_, true) => 64 * MIB,
        (_, false) => 256 * MIB,
    };
    let cap = wanted
        .min(ctx.limits.max_storage_buffer_binding_size)
        .min(ctx.limits.max_buffer_size)
        .max(64 * 1024);
    1u64 << (63 - cap.leading_zeros())
}

/// The roofline suite.
pub struct RooflineSuite;

impl Suite for RooflineSuite {
    fn name(&self) -> &'static str {
        "roofline"
    }

    fn benchmarks(
        &self,
        ctx: &GpuContext,
        options: &SuiteOptions,
        _tuner: &mut dyn Tuner,
    ) -> Result<Vec<Box<dyn Benchmark>>, KernelError> {
        let bytes = roofline_bytes(ctx, options.profile);
        Ok(FMAS_SWEEP
            .iter()
            .map(|&f| Box::new(RooflinePoint::new(f, bytes, options.seed)) as Box<dyn Benchmark>)
            .collect())
    }

    fn derive(&self, results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
        derive_ceilings(results, earlier)
    }
}

/// The best bandwidth among `earlier` stream results of shader kernels (not the copy engine or
/// the host's memcpy, which no kernel can use), with its id.
fn stream_best(earlier: &[BenchResult]) -> Option<(f64, String)> {
    earlier
        .iter()
        .filter(|r| {
            r.suite == "stream" && r.metric == MetricKind::Bandwidth && r.status == Status::Ok
        })
        .filter(|r| !r.id.contains("host-memcpy") && !r.id.contains("copy-buffer"))
        .filter_map(|r| Some((r.median()?, r.id.clone())))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

/// Bandwidth ceiling, compute ceiling and ridge point from the sweep's `results` (and the
/// stream and compute suites' results in `earlier` when they ran).
pub fn derive_ceilings(results: &[BenchResult], earlier: &[BenchResult]) -> Vec<BenchResult> {
    let points: Vec<(f64, f64, &str)> = results
        .iter()
        .filter_map(|r| {
            let gflops = r.median()?;
            let fi = r.params.get("intensity_flop_per_byte")?.as_f64()?;
            Some((fi, gflops, r.id.as_str()))
        })
        .collect();
    let Some(&(bw_fi, bw_gflops, bw_id)) = points
        .iter()
        .max_by(|a, b| (a.1 / a.0).total_cmp(&(b.1 / b.0)))
    else {
        return Vec::new();
    };
    let Some(&(_, top_gflops, top_id)) = points.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Vec::new();
    };
    let mut bandwidth = (bw_gflops / bw_fi, bw_id.to_string());
    if let Some(stream) = stream_best(earlier).filter(|s| s.0 > bandwidth.0) {
        bandwidth = stream;
    }
    let mut compute = (top_gflops, top_id.to_string());
    if let Some(peak) = measured_peak(earlier, Precision::F32).filter(|p| p.0 > compute.0) {
        compute = peak;
    }
    let from = |id: &str| {
        let mut params = BTreeMap::new();
        params.insert("from".to_string(), serde_json::Value::from(id));
        params
    };
    let mut ridge_params = BTreeMap::new();
    ridge_params.insert("bandwidth_gbs".to_string(), bandwidth.0.into());
    ridge_params.insert("compute_gflops".to_string(), compute.0.into());
    vec![
        derived_result(
            "roofline/ceiling/bandwidth".to_string(),
            "roofline",
            MetricKind::Bandwidth,
            "best measured bytes read + written per second (the roofline's slanted ceiling)",
            bandwidth.0,
            from(&bandwidth.1),
        ),
        derived_result(
            "roofline/ceiling/compute".to_string(),
            "roofline",
            MetricKind::Throughput,
            "best measured f32 FLOP per second (the roofline's flat ceiling)",
            compute.0,
            from(&compute.1),
        ),
        derived_result(
            "roofline/ridge-point".to_string(),
            "roofline",
            MetricKind::ArithmeticIntensity,
            "intensity where the ceilings meet: compute ceiling / bandwidth ceiling",
            compute.0 / bandwidth.0,
            ridge_params,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::stats::summarize;

    fn point(fmas: u32, gflops: f64) -> BenchResult {
        let bench = RooflinePoint::new(fmas, 1 << 20, 1);
        let mut r = BenchResult::empty(bench.info(), Status::Ok, None);
        r.verified = true;
        r.summary = summarize(&[gflops, gflops]);
        r
    }

    #[test]
    fn ceilings_and_ridge_come_from_the_sweep() {
        // 0.5 FLOP/B at 5 GFLOP/s = 10 GB/s; 128 FLOP/B at 40 GFLOP/s: ridge 4 FLOP/B.
        let results = vec![point(1, 5.0), point(2, 9.0), point(256, 40.0)];
        let derived = derive_ceilings(&results, &[]);
        let value = |id: &str| {
            derived
                .iter()
                .find(|r| r.id == id)
                .and_then(|r| r.median())
                .expect("derived")
        };
        assert!((value("roofline/ceiling/bandwidth") - 10.0).abs() < 1e-9);
        assert!((value("roofline/ceiling/compute") - 40.0).abs() < 1e-9);
        assert!((value("roofline/ridge-point") - 4.0).abs() < 1e-9);
        assert!(derive_ceilings(&[], &[]).is_empty());
    }

    #[test]
    fn expected_sums_replay_the_chains() {
        // 2 groups of four vec4 (32 floats), 1 invocation: each component sums 8 elements.
        let input: Vec<f32> = (0..32).map(|i| i as f32 / 1024.0).collect();
        let want = expected_sums(&input, 1, 4);
        let shift = 4.0 / 1024.0;
        for c in 0..4 {
            let direct: f64 = (0..8).map(|e| f64::from(input[e * 4 + c]) + shift).sum();
            assert_eq!(want[c], direct);
        }
    }
}
