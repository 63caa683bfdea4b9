//! Results computed from other results (ratios, ceilings, fitted points) rather than measured.
//!
//! A derived result is `ok` and `verified` only because every input it comes from was; it has
//! one "sample" (the derived value) and no timing source, so nobody mistakes it for a
//! measurement with its own variation.

use std::collections::BTreeMap;

use gpubench_harness::stats::summarize;
use gpubench_harness::{BenchResult, MetricKind, Role, Status, Work};

/// A derived value as a result: `metric` says what it is (and its unit), `params` where it came
/// from.
pub fn derived_result(
    id: String,
    suite: &str,
    metric: MetricKind,
    counts: &str,
    value: f64,
    params: BTreeMap<String, serde_json::Value>,
) -> BenchResult {
    BenchResult {
        id,
        suite: suite.to_string(),
        params,
        metric,
        unit: metric.unit().to_string(),
        higher_is_better: metric.higher_is_better(),
        role: Role::Derived,
        counts: counts.to_string(),
        status: Status::Ok,
        reason: None,
        verified: true,
        timing: None,
        work: Work::default(),
        iterations_per_sample: 0,
        summary: summarize(&[value]),
        samples: vec![value],
        host_summary: None,
        host_samples: Vec::new(),
        gpu_summary: None,
        gpu_samples: Vec::new(),
        latency: None,
        extra: BTreeMap::new(),
        warnings: Vec::new(),
    }
}

/// A string parameter of a result, when present.
pub fn param_str<'a>(result: &'a BenchResult, key: &str) -> Option<&'a str> {
    result.params.get(key).and_then(|v| v.as_str())
}
