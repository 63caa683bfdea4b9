//! `cargo bench -p gpubench-benches [-- FILTER]`: the kernels under criterion, in GPU time.
//! Under CI (env `CI` set) sizes shrink; `cargo test -p gpubench-benches --benches` runs each
//! bench once in criterion's test mode so they keep compiling and running.

use std::time::Duration;

use criterion::{Criterion, Throughput};
use gpubench_benches::{GpuTime, context, in_ci, iter_gpu, prepare, runner};
use gpubench_harness::kit::gpu::Precision;
use gpubench_harness::{Benchmark, KernelBench};
use gpubench_results::units::{MIB, format_size};
use gpubench_suites::launch::{Launch, LaunchMode};
use gpubench_suites::matmul::{Matmul, Shape, find_variant};
use gpubench_suites::stream::{Stream, StreamKernel};

fn stream(c: &mut Criterion<GpuTime>, ctx: &gpubench_harness::GpuContext) {
    let bytes = if in_ci() { MIB } else { 64 * MIB };
    let runner = runner(ctx);
    let mut group = c.benchmark_group("stream");
    for kernel in [StreamKernel::Copy, StreamKernel::Triad, StreamKernel::Read] {
        let mut bench = KernelBench::new(Stream::new(kernel, bytes, 1));
        if let Err(reason) = prepare(&runner, &mut bench) {
            eprintln!("skipping {reason}");
            continue;
        }
        group.throughput(Throughput::BytesDecimal(bench.work().total_bytes()));
        group.bench_function(format!("{}/{}", kernel.name(), format_size(bytes)), |b| {
            iter_gpu(b, &runner, &mut bench)
        });
        bench.teardown();
    }
    group.finish();
}

/// The register-blocked matmul variants that win on most adapters, and the simplest tiled one
/// as the reference point, at one square size.
fn matmul(c: &mut Criterion<GpuTime>, ctx: &gpubench_harness::GpuContext) {
    let size = if in_ci() { 64 } else { 512 };
    let shape = Shape::new(size, size, size);
    let runner = runner(ctx);
    let mut group = c.benchmark_group("matmul");
    for name in ["tiled16", "unrolled32x32"] {
        let Some(variant) = find_variant(name) else {
            continue;
        };
        let id = format!("matmul/{name}/f32/{size}");
        let mut bench = KernelBench::new(Matmul::new(id, shape, Precision::F32, variant, 1));
        if let Err(reason) = prepare(&runner, &mut bench) {
            eprintln!("skipping {reason}");
            continue;
        }
        group.throughput(Throughput::Elements(bench.work().flops));
        group.bench_function(format!("{name}/f32/{size}"), |b| {
            iter_gpu(b, &runner, &mut bench)
        });
        bench.teardown();
    }
    group.finish();
}

/// Launch overhead: one iteration is one dispatch, pass or submit.
fn launch(c: &mut Criterion<GpuTime>, ctx: &gpubench_harness::GpuContext) {
    let runner = runner(ctx);
    let mut group = c.benchmark_group("launch");
    for mode in [
        LaunchMode::DispatchInPass,
        LaunchMode::PassInEncoder,
        LaunchMode::Submit,
    ] {
        let mut bench = KernelBench::new(Launch::new(mode, 1, 1));
        if let Err(reason) = prepare(&runner, &mut bench) {
            eprintln!("skipping {reason}");
            continue;
        }
        group.bench_function(mode.name(), |b| iter_gpu(b, &runner, &mut bench));
        bench.teardown();
    }
    group.finish();
}

fn main() {
    let Some(ctx) = context() else {
        return;
    };
    let mut criterion = Criterion::default()
        .with_measurement(GpuTime::for_context(&ctx))
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    stream(&mut criterion, &ctx);
    matmul(&mut criterion, &ctx);
    launch(&mut criterion, &ctx);
    criterion.final_summary();
}
