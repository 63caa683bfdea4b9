//! Results computed from other results (ratios, ceilings, fitted points) rather than measured.
//!
//! A derived result is `ok` and `verified` only because every input it comes from was; it has
//! one "sample" (the derived value) and no timing source, so nobody mistakes it for a
//! measurement with its own variation.

use std::collections::BTreeMap;

use crate::{BenchResult, BenchmarkInfo, MetricKind, Role, Status};
use gpubench_results::stats::summarize;

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
    let mut info = BenchmarkInfo::new(id, suite, metric, counts).role(Role::Derived);
    info.params = params;
    let mut result = BenchResult::empty(&info, Status::Ok, None);
    result.verified = true;
    result.summary = summarize(&[value]);
    result.samples = vec![value];
    result
}

/// A string parameter of a result, when present.
pub fn param_str<'a>(result: &'a BenchResult, key: &str) -> Option<&'a str> {
    result.params.get(key).and_then(|v| v.as_str())
}
