//! The datapath suite: where one request's time goes, what overlaps, and what bounds
//! throughput. A request is described by its bytes and its work ([`request`]): the host
//! prepares its input, a copy uploads it, a kernel computes, a copy returns the output and the
//! host checks it. Each stage is timed alone ([`stage`]); whole requests are timed one at a
//! time, with several in flight, and in batches ([`flow`]); and the stage that bounds the
//! workload is named with the what-if arithmetic ([`bound`]). Every request's output is
//! checked against an exact prediction ([`reference`]); a wrong one fails its row.
//! [`sizing`] turns a saved run into the number of cards a target needs.

pub mod bound;
pub mod energy;
pub mod flow;
#[cfg(test)]
mod on_an_adapter;
mod path;
pub mod reference;
pub mod request;
pub mod sizing;
mod slot;
pub mod stage;
pub mod stage_kernel;

use gpubench_engine::{Arity, Benchmarks, OptionSpec, Suite, SuiteInfo, SuiteOptions};
use gpubench_harness::kit::placement::MemoryMap;
use gpubench_harness::{BenchResult, GpuContext, KernelBench, Profile, Status};
use gpubench_results::ChartHint;
use serde_json::Value;

use flow::{Flow, FlowKernel};
use request::Request;
use stage::Stage;
use stage_kernel::StageKernel;

/// What the suite measures, in one line, as `--help` shows it.
const ABOUT: &str = "one request's whole path (prepare, upload, compute, download, check): stage \
                     times, serial and overlapped requests, batches, and the bounding stage";

/// datapath.wgsl: one request's device work.
pub const WGSL: &str = include_str!("datapath.wgsl");

/// `config.options` key of `--request`.
pub const REQUEST_KEY: &str = "datapath_requests";

/// `--request in=SIZE,out=SIZE,flops=COUNT` (repeatable): a workload of the user's own.
pub const REQUEST: OptionSpec = OptionSpec {
    key: REQUEST_KEY,
    flag: "request",
    value_name: "in=SIZE,out=SIZE,flops=N",
    help: "A request of your own for the datapath suite, e.g. in=256MiB,out=4MiB,flops=20G: \
           input and output in binary units, device work in FLOPs with k, M, G or T (repeatable).",
    arity: Arity::Many,
    default: || Value::Array(Vec::new()),
    parse: request::parse_request_value,
    choices: None,
    hidden: false,
};

/// Samples of each arrangement, by profile: (serial, overlapped, batch).
fn samples(profile: Profile) -> (usize, usize, usize) {
    match profile {
        // 100 serial requests state a p99; 5 x 16 overlapped ones a p95.
        Profile::Quick => (100, 5, 5),
        Profile::Default => (200, 8, 5),
        Profile::Full => (400, 16, 20),
    }
}

/// The arrangements of whole requests, by profile.
fn flows(profile: Profile) -> Vec<Flow> {
    let mut flows = vec![
        Flow::Serial,
        Flow::Overlap(2),
        Flow::Overlap(3),
        Flow::Batch(4),
    ];
    if profile != Profile::Quick {
        flows.extend([Flow::Batch(16), Flow::Batch(64)]);
    }
    flows
}

/// Why `flow` is left out on this adapter, where it is: a batch of 64 on a software adapter in
/// the default profile (about 10 s a row there, where a GPU takes well under one; the full
/// profile runs it).
fn too_long_here(ctx: &GpuContext, profile: Profile, flow: Flow) -> Option<String> {
    (ctx.is_software() && profile == Profile::Default && flow == Flow::Batch(64)).then(|| {
        "a batch of 64 requests takes about 10 s a row on a software adapter: the full profile runs it"
            .to_string()
    })
}

/// The workloads of a run: the built-ins, then `--request`'s.
pub fn workloads(options: &SuiteOptions) -> Result<Vec<Request>, String> {
    let mut all = request::builtins(options.profile);
    let given: Vec<String> = options.get(REQUEST_KEY).unwrap_or_default();
    for (k, text) in given.iter().enumerate() {
        let mut custom = request::parse_request(text)?;
        if given.len() > 1 {
            custom.name = format!("custom-{}", k + 1);
        }
        all.push(custom);
    }
    Ok(all)
}

/// The datapath suite.
pub struct DatapathSuite;

impl Suite for DatapathSuite {
    fn info(&self) -> SuiteInfo {
        SuiteInfo::new("datapath", ABOUT)
            .options(&[REQUEST])
            .shaders(&[("datapath.wgsl", WGSL)])
            .plain_pipelines(&[(WGSL, "request")])
    }

    fn build(&self, ctx: &GpuContext, options: &SuiteOptions) -> Benchmarks {
        let workloads =
            workloads(options).map_err(|problem| gpubench_engine::PlanError::BadOption {
                option: REQUEST.flag,
                problem,
            })?;
        let (serial, overlapped, batched) = samples(options.profile);
        // Where the staging and readback buffers live: read once, recorded on the stage rows.
        let memory = MemoryMap::probe(ctx);
        let mut benches: Vec<Box<dyn gpubench_harness::Benchmark>> = Vec::new();
        for request in workloads {
            for stage in Stage::ALL {
                let kernel = StageKernel::new(request.clone(), stage, options.seed).placed(&memory);
                benches.push(KernelBench::boxed(kernel));
            }
            for flow in flows(options.profile) {
                let n = match flow {
                    Flow::Serial => serial,
                    Flow::Overlap(_) => overlapped,
                    Flow::Batch(_) => batched,
                };
                let mut kernel = FlowKernel::new(request.clone(), flow, options.seed, n);
                if let Some(reason) = too_long_here(ctx, options.profile, flow) {
                    kernel = kernel.skipped(reason);
                }
                benches.push(KernelBench::boxed(kernel));
            }
        }
        Ok(benches)
    }

    /// Requests per second beside every whole-request row, GB/s beside every stage that moves
    /// bytes.
    fn annotate(&self, result: &mut BenchResult, _run: &gpubench_harness::RunDocument) {
        let Some(median) = result.summary.as_ref().map(|s| s.median) else {
            return;
        };
        if result.status != Status::Ok || median <= 0.0 {
            return;
        }
        if result.params.contains_key("flow") {
            result.extra.insert(
                gpubench_results::chart::ITEMS_PER_S.into(),
                (1e6 / median).into(),
            );
            energy::annotate(result, median);
        }
        let bytes = result
            .params
            .get("stage")
            .and_then(Value::as_str)
            .and_then(Stage::named)
            .map(|stage| {
                stage.moved(
                    param_u64(result, "input_bytes"),
                    param_u64(result, "output_bytes"),
                )
            })
            .unwrap_or(0);
        if bytes > 0 {
            result
                .extra
                .insert("gb_per_s".into(), (bytes as f64 / median / 1e3).into());
        }
    }

    fn derive(&self, results: &[BenchResult], _earlier: &[BenchResult]) -> Vec<BenchResult> {
        bound::derive(results, NOISE_BAND)
    }

    /// Stage rows: a timeline per workload (one request, stage by stage). Whole requests: time
    /// per request against requests in flight (serial is 1) and against the batch size, a
    /// series per workload, on log axes.
    fn chart_hint(&self, result: &BenchResult) -> Option<ChartHint> {
        if result.params.contains_key("stage") && result.role != gpubench_harness::Role::Derived {
            return Some(ChartHint::Timeline {
                group: "datapath: one request, stage by stage".to_string(),
                item: "workload".to_string(),
                stage: "stage".to_string(),
            });
        }
        if result.params.contains_key("batch") {
            return Some(ChartHint::log_curve(
                "datapath: time per request against batch size",
                "batch",
                "workload",
            ));
        }
        if result.params.contains_key("in_flight") {
            return Some(ChartHint::log_curve(
                "datapath: time per request against requests in flight",
                "in_flight",
                "workload",
            ));
        }
        None
    }
}

/// The band the path's relations are held to: the comparison's band for time per operation.
/// It is not widened on a software adapter: there the stages alone and the path share the
/// host's cores, and a path that does not add up is worth saying.
const NOISE_BAND: f64 = 0.10;

fn param_u64(result: &BenchResult, key: &str) -> u64 {
    result.params.get(key).and_then(Value::as_u64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_the_workload_the_stage_and_the_flow() {
        let options = SuiteOptions::new(Profile::Quick).with(
            REQUEST_KEY,
            Value::Array(vec!["in=1MiB,out=4KiB,flops=1M".into()]),
        );
        let workloads = workloads(&options).expect("valid");
        let names: Vec<&str> = workloads.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(
            names,
            ["transfer-bound", "compute-bound", "balanced", "custom"]
        );
        let flows: Vec<String> = flows(Profile::Quick).iter().map(|f| f.name()).collect();
        assert_eq!(flows, ["serial", "overlap-2", "overlap-3", "batch-4"]);
        assert!(flows.iter().all(|f| !f.contains('/')));
        assert_eq!(
            Stage::ALL.map(Stage::name),
            ["prepare", "h2d", "compute", "d2h", "check"]
        );
    }
}
