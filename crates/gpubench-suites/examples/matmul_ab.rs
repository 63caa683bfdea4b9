//! Interleaved A/B of matmul variants on one shape, in one process: every round measures each
//! variant once (set-up, verification, the quick profile's sampling), in turn, so a machine
//! that moves between minutes moves every variant alike; the per-round ratios against the first
//! variant, and their median, are what to compare. The comparison the tuner makes, with rounds.
//!
//! `cargo run -p gpubench-suites --example matmul_ab -- SHAPE PRECISION ROUNDS VARIANT...`,
//! e.g. `8x1024x1024 f32 9 cols8x8 gemv-x8-c4-wg8-ks1-wgmem` (the first Vulkan adapter). With
//! `stream-read` among the names, each round also measures the stream read kernel over an
//! array the size of B and prints each variant's bytes of B read per second as a share of it:
//! the memory roofline of a small-M product, in the same round.

use gpubench_harness::kit::gpu::Precision;
use gpubench_harness::runner::Silent;
use gpubench_harness::{KernelBench, Profile, Runner, Status};
use gpubench_results::stats::median;
use gpubench_suites::matmul::options::parse_matmul_shape;
use gpubench_suites::matmul::{Matmul, Shape, Variant, find_variant};
use gpubench_suites::stream::{Stream, StreamKernel};
use pollster::FutureExt as _;

/// The name that adds the stream read kernel to every round.
const STREAM_READ: &str = "stream-read";

/// What to measure, from the command line.
struct Plan {
    shape: Shape,
    precision: Precision,
    rounds: usize,
    variants: Vec<Variant>,
    stream_read: bool,
}

fn plan() -> Result<Plan, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [shape, precision, rounds, variants @ ..] = args.as_slice() else {
        return Err("usage: matmul_ab SHAPE f32|f16 ROUNDS VARIANT...".to_string());
    };
    let (m, n, k) = parse_matmul_shape(shape)?;
    let precision = match precision.as_str() {
        "f32" => Precision::F32,
        "f16" => Precision::F16,
        other => return Err(format!("precision {other}: f32 or f16")),
    };
    Ok(Plan {
        shape: Shape { m, n, k },
        precision,
        rounds: rounds.parse().map_err(|e| format!("rounds: {e}"))?,
        variants: variants
            .iter()
            .filter(|name| *name != STREAM_READ)
            .map(|name| find_variant(name).ok_or_else(|| format!("unknown variant {name}")))
            .collect::<Result<_, _>>()?,
        stream_read: variants.iter().any(|name| name == STREAM_READ),
    })
}

fn main() -> Result<(), String> {
    let plan = plan()?;
    let ctx = gpubench_harness::testing::require_vulkan().ok_or("no Vulkan adapter")?;
    let runner = Runner::new(&ctx, Profile::Quick.settings(ctx.is_software()));
    let mut medians = vec![Vec::new(); plan.variants.len()];
    for round in 0..plan.rounds {
        let mut line = format!("round {round}:");
        for (i, variant) in plan.variants.iter().enumerate() {
            let id = format!("ab/{}", variant.name);
            let kernel = Matmul::new(id, plan.shape, plan.precision, *variant, 11);
            let result = runner
                .run(&mut KernelBench::new(kernel), &mut Silent)
                .block_on();
            match (result.status, result.median()) {
                (Status::Ok, Some(v)) if result.verified => {
                    medians[i].push(v);
                    line.push_str(&format!(" {v:.3}"));
                }
                (status, _) => return Err(format!("{}: {}", variant.name, status.as_str())),
            }
        }
        line.push_str(" GFLOP/s");
        if plan.stream_read {
            let b_bytes = u64::from(plan.shape.k)
                * u64::from(plan.shape.n.next_multiple_of(4))
                * plan.precision.bytes();
            let mut read = KernelBench::new(Stream::new(StreamKernel::Read, b_bytes, 11));
            let gbs = runner
                .run(&mut read, &mut Silent)
                .block_on()
                .median()
                .unwrap_or(f64::NAN);
            // B is read once per product: its bytes per second are GFLOP/s x bytes / (2 M).
            let per_flop = plan.precision.bytes() as f64 / (2.0 * f64::from(plan.shape.m));
            let shares: Vec<String> = medians
                .iter()
                .map(|m| format!("{:.0}%", 100.0 * m[round] * per_flop / gbs))
                .collect();
            line.push_str(&format!(
                " | stream read {gbs:.3} GB/s, B read {}",
                shares.join(" ")
            ));
        }
        println!("{line}");
    }
    let first = &plan.variants[0].name;
    for (variant, values) in plan.variants.iter().zip(&medians) {
        let ratios: Vec<f64> = values.iter().zip(&medians[0]).map(|(v, a)| v / a).collect();
        let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
            (lo.min(*r), hi.max(*r))
        });
        println!(
            "{:<32} median {:.3} GFLOP/s; per-round ratio to {first}: median {:.3} (min {lo:.3}, max {hi:.3})",
            variant.name,
            median(values),
            median(&ratios),
        );
    }
    Ok(())
}
