//! Results computed from other results (ratios, ceilings, fitted points) rather than measured.
//!
//! A derived result is `ok` and `verified` only because every input it comes from was; it has
//! one "sample" (the derived value) and no timing source, so nobody mistakes it for a
//! measurement with its own variation.

use std::collections::BTreeMap;

use crate::{BenchResult, BenchmarkInfo, MetricKind, Role, Status};
use gpubench_results::stats::summarize;

/// A derived value as a result: `metric` says what it is (and its unit), `params` where it came
/// from. A value that is not a finite number (an input of zero, or none) is no figure: the
/// result is skipped, saying so, never an ok row without a number.
pub fn derived_result(
    id: String,
    suite: &str,
    metric: MetricKind,
    counts: &str,
    value: f64,
    params: BTreeMap<String, serde_json::Value>,
) -> BenchResult {
    if !value.is_finite() {
        let reason = format!(
            "not derived: the value came out as {value}, not a finite number (an input it \
             divides by was zero, or none was measured)"
        );
        return derived_skipped(id, suite, metric, counts, reason, params);
    }
    let mut info = BenchmarkInfo::new(id, suite, metric, counts).role(Role::Derived);
    info.params = params;
    let mut result = BenchResult::empty(&info, Status::Ok, None);
    result.verified = true;
    result.summary = summarize(&[value]);
    result.samples = vec![value];
    result
}

/// A derived value that could not be derived (not resolved by the sweep, or no number): skipped,
/// with `reason`, and `params` as [`derived_result`] keeps them.
pub fn derived_skipped(
    id: String,
    suite: &str,
    metric: MetricKind,
    counts: &str,
    reason: String,
    params: BTreeMap<String, serde_json::Value>,
) -> BenchResult {
    let mut info = BenchmarkInfo::new(id, suite, metric, counts).role(Role::Derived);
    info.params = params;
    BenchResult::empty(&info, Status::Skipped, Some(reason))
}

/// A string parameter of a result, when present.
pub fn param_str<'a>(result: &'a BenchResult, key: &str) -> Option<&'a str> {
    result.params.get(key).and_then(|v| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_is_no_number_is_skipped_and_a_number_is_ok() {
        let row = |value: f64| {
            derived_result(
                "s/x".into(),
                "s",
                MetricKind::Bandwidth,
                "test",
                value,
                BTreeMap::new(),
            )
        };
        let ok = row(2.5);
        assert_eq!(
            (ok.status, ok.median(), ok.verified),
            (Status::Ok, Some(2.5), true)
        );
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let r = row(value);
            assert_eq!(r.status, Status::Skipped, "{value}");
            assert_eq!(r.role, Role::Derived);
            assert!(r.summary.is_none() && r.samples.is_empty() && !r.verified);
            assert!(r.reason.expect("reason").contains("not a finite number"));
        }
    }
}
