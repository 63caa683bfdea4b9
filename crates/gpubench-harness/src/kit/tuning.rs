//! Choosing among candidates a suite measured: the fastest one that ran and verified, and the
//! tuning table a result carries (each candidate's median, or why it has none). A candidate whose
//! status is not ok, or that did not verify, is never chosen however fast it looked.

use serde_json::{Map, Value};

use crate::{BenchResult, Status};

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

/// A GFLOP/s figure as the tuning tables keep it: three decimals.
pub fn table_value(gflops: f64) -> f64 {
    (gflops * 1000.0).round() / 1000.0
}

/// The tuning table as a JSON object: variant name to its median GFLOP/s, or to
/// "failed: reason" / "skipped: reason".
pub fn tuning_table(names: &[&str], results: &[BenchResult]) -> Value {
    let mut table = Map::new();
    for (name, result) in names.iter().zip(results) {
        let value = match (result.status, result.median()) {
            (Status::Ok, Some(median)) if result.verified => Value::from(table_value(median)),
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
