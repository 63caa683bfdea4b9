//! Which results the machine-readable exports carry, and under which names.
//!
//! Exports to tracking services (Bencher, github-action-benchmark) hold measured values only:
//! a fitted model, a ridge point, a fraction of peak or a roofline ceiling is computed from other
//! results (its "interval" is not one of repeated samples), and a tracker would chart it as if
//! it had been timed. Failed and skipped results carry no number at all.

use gpubench_baseline::PairComparison;
use gpubench_baseline::verdict::RATIO_ONLY_NOTE;
use gpubench_results::schema::legacy_role;
use gpubench_results::stats::Summary;
use gpubench_results::{BenchResult, Role, Status};

/// The summary of a result that was measured in its own right and is ok, else `None`.
pub fn measured(result: &BenchResult) -> Option<&Summary> {
    result
        .summary
        .as_ref()
        .filter(|_| measured_role(result.role) && result.status == Status::Ok)
}

/// Whether a result of `role` is measured in its own right (a kernel, a host reference, the
/// copy engine), not computed from other results: the test every tracking export applies.
pub fn measured_role(role: Role) -> bool {
    matches!(role, Role::Kernel | Role::HostReference | Role::CopyEngine)
}

/// Whether a compared pair is of a result measured in its own right, by [`measured_role`]:
/// each side's role, where the comparison recorded it; and for comparisons and files from
/// before it did, what the comparison found (a value it judged by ratio alone, with
/// [`RATIO_ONLY_NOTE`], has no timing of its own: derived, or probed) and the derived rows of
/// every suite that had them when results gained roles (fits, ridge point, fractions of peak,
/// ceilings) by their ids ([`legacy_role`]).
pub fn measured_pair(pair: &PairComparison) -> bool {
    let sides = [&pair.base, &pair.new].into_iter().flatten();
    sides.map(|side| side.role).all(measured_role)
        && pair.note.as_deref() != Some(RATIO_ONLY_NOTE)
        && measured_role(legacy_role(&pair.id))
}

/// A Bencher measure name for a metric in a unit: namespaced (`gpubench-`), so it never lands in
/// one of Bencher's built-in measures (`latency` in ns, `throughput` in operations/s), and
/// bearing its unit, since a measure Bencher creates on first sight has none:
/// `gpubench-bandwidth-gb-s`, `gpubench-throughput-gflop-s`, `gpubench-time-per-op-us`.
pub fn bencher_measure(metric: &str, unit: &str) -> String {
    let mut slug = String::new();
    for c in unit.chars() {
        match c {
            '%' => slug.push_str("pct"),
            c if c.is_ascii_alphanumeric() => slug.push(c.to_ascii_lowercase()),
            _ if !slug.ends_with('-') && !slug.is_empty() => slug.push('-'),
            _ => {}
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        format!("gpubench-{metric}")
    } else {
        format!("gpubench-{metric}-{slug}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_names_carry_the_namespace_and_the_unit() {
        assert_eq!(
            bencher_measure("bandwidth", "GB/s"),
            "gpubench-bandwidth-gb-s"
        );
        assert_eq!(
            bencher_measure("throughput", "GFLOP/s"),
            "gpubench-throughput-gflop-s"
        );
        assert_eq!(
            bencher_measure("time-per-op", "us"),
            "gpubench-time-per-op-us"
        );
        assert_eq!(
            bencher_measure("fraction-of-peak", "%"),
            "gpubench-fraction-of-peak-pct"
        );
        assert_eq!(bencher_measure("ratio", ""), "gpubench-ratio");
    }
}
