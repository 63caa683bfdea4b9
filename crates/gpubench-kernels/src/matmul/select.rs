//! Choosing a variant from tuning results: the fastest one that ran and verified.
//!
//! A pure function over results, so the rule is tested without a GPU: a variant whose status
//! is not ok, or that did not verify, is never chosen however fast it looked.

use gpubench_harness::{BenchResult, Status};
use serde_json::{Map, Value};

/// The index of the fastest verified ok result (highest median), if any. Ties go to the earlier
/// (simpler) variant.
pub fn select_fastest(results: &[BenchResult]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, result) in results.iter().enumerate() {
        if result.status != Status::Ok || !result.verified {
            continue;
        }
        let Some(median) = result.median().filter(|m| m.is_finite()) else {
            continue;
        };
        if best.is_none_or(|(_, b)| median > b) {
            best = Some((i, median));
        }
    }
    best.map(|(i, _)| i)
}

/// The tuning table as a JSON object: variant name to its median GFLOP/s, or to
/// "failed: reason" / "skipped: reason".
pub fn tuning_table(names: &[&str], results: &[BenchResult]) -> Value {
    let mut table = Map::new();
    for (name, result) in names.iter().zip(results) {
        let value = match (result.status, result.median()) {
            (Status::Ok, Some(median)) if result.verified => {
                Value::from((median * 1000.0).round() / 1000.0)
            }
            (status, _) => Value::from(format!(
                "{}: {}",
                status.as_str(),
                result.reason.as_deref().unwrap_or("no measurement")
            )),
        };
        table.insert((*name).to_string(), value);
    }
    Value::Object(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::stats::summarize;
    use gpubench_harness::{BenchmarkInfo, MetricKind};

    fn result(id: &str, status: Status, verified: bool, median: Option<f64>) -> BenchResult {
        let info = BenchmarkInfo::new(id, "matmul", MetricKind::Throughput, "flops");
        let mut r = BenchResult::empty(&info, status, None);
        r.verified = verified;
        if let Some(m) = median {
            r.summary = summarize(&[m, m]);
        }
        if status != Status::Ok {
            r.reason = Some("verification failed: 3 of 10 values outside tolerance".into());
        }
        r
    }

    #[test]
    fn picks_the_fastest_verified_and_never_a_failed_one() {
        let results = vec![
            result("tiled", Status::Ok, true, Some(1.0)),
            // Fastest of all, but wrong: must never win, even with numbers attached.
            result("broken", Status::Failed, false, Some(100.0)),
            result("reg", Status::Ok, true, Some(5.0)),
            result("skipped", Status::Skipped, false, None),
            // Ok but somehow unverified: not eligible either.
            result("unverified", Status::Ok, false, Some(50.0)),
            result("rows", Status::Ok, true, Some(4.0)),
        ];
        assert_eq!(select_fastest(&results), Some(2));
        let table = tuning_table(
            &["tiled", "broken", "reg", "skipped", "unverified", "rows"],
            &results,
        );
        assert_eq!(table["reg"], Value::from(5.0));
        assert!(
            table["broken"]
                .as_str()
                .expect("text")
                .starts_with("failed: ")
        );
        assert!(
            table["skipped"]
                .as_str()
                .expect("text")
                .starts_with("skipped: ")
        );
    }

    #[test]
    fn ties_go_to_the_simpler_variant_and_nothing_verified_means_none() {
        let tie = vec![
            result("a", Status::Ok, true, Some(2.0)),
            result("b", Status::Ok, true, Some(2.0)),
        ];
        assert_eq!(select_fastest(&tie), Some(0));
        let none = vec![
            result("a", Status::Failed, false, None),
            result("b", Status::Skipped, false, None),
        ];
        assert_eq!(select_fastest(&none), None);
        assert_eq!(select_fastest(&[]), None);
    }
}
