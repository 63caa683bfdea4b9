//! Energy per request, where the adapter reports board power: the median board power over the
//! row's samples times its time per request (for an overlapped row, the steady interval: the
//! energy the card spends per delivered request; for the serial row, the whole path's time,
//! idle gaps included). It is the board's energy, not the kernel's alone, and it is stated only
//! where telemetry sampled power; elsewhere the row says why there is none.

use gpubench_harness::BenchResult;
use gpubench_results::telemetry::TelemetryStatus;

/// The `extra` key of a whole-request row's energy per request, in joules.
pub const EXTRA_KEY: &str = "energy_per_request_j";

/// The `extra` key saying why a row has no energy per request.
pub const WHY_NOT_KEY: &str = "energy_per_request";

/// Fewest readings taken during a row's timed samples that its energy is stated from. A row
/// shorter than the sampler's period has no reading of its own: its summary then holds the
/// last one before it (the clocks of a short stretch are those read just before), a power
/// drawn before the row ran at all.
pub const MIN_POWER_READINGS: usize = 2;

/// Joules per request: `result`'s median board power times `us_per_request`; `None` where no
/// power was sampled during the row ([`MIN_POWER_READINGS`] readings or more).
pub fn per_request_j(result: &BenchResult, us_per_request: f64) -> Option<f64> {
    let telemetry = result.telemetry.as_ref()?;
    if telemetry.status != TelemetryStatus::Sampled || telemetry.readings < MIN_POWER_READINGS {
        return None;
    }
    let watts = telemetry.sensors.power_w.as_ref()?.median;
    (watts.is_finite() && watts > 0.0).then_some(watts * us_per_request * 1e-6)
}

/// Why `result` has no energy per request, in words.
pub fn why_not(result: &BenchResult) -> String {
    match result.telemetry.as_ref() {
        None => "not measured: no telemetry was taken for this row".to_string(),
        Some(t) if t.status == TelemetryStatus::Sampled && t.sensors.power_w.is_none() => {
            "not measured: the adapter's telemetry reports no board power".to_string()
        }
        Some(t) if t.status == TelemetryStatus::Sampled && t.readings < MIN_POWER_READINGS => {
            format!(
                "not measured: {} telemetry reading(s) fell within the row's samples, fewer than the {MIN_POWER_READINGS} its own board power is read from (the row is shorter than the sampler's period)",
                t.readings
            )
        }
        Some(t) if t.status == TelemetryStatus::Sampled => {
            "not measured: the board power telemetry read was zero or not a number".to_string()
        }
        Some(t) => format!(
            "not measured: telemetry {}{}",
            t.status.as_str(),
            t.reason
                .as_deref()
                .map_or(String::new(), |r| format!(" ({r})"))
        ),
    }
}

/// Records `result`'s energy per request in its `extra` (joules), or why there is none.
pub fn annotate(result: &mut BenchResult, us_per_request: f64) {
    match per_request_j(result, us_per_request) {
        Some(joules) => {
            result.extra.insert(EXTRA_KEY.into(), joules.into());
        }
        None => {
            let why = why_not(result);
            result.extra.insert(WHY_NOT_KEY.into(), why.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::telemetry::{Spread, TelemetrySummary};

    fn row(telemetry: Option<TelemetrySummary>) -> BenchResult {
        let info = gpubench_harness::BenchmarkInfo::new(
            "datapath/x/serial",
            "datapath",
            gpubench_harness::MetricKind::TimePerOp,
            "time of one request",
        );
        let mut result = BenchResult::empty(&info, gpubench_harness::Status::Ok, None);
        result.telemetry = telemetry.map(Box::new);
        result
    }

    #[test]
    fn energy_is_median_power_times_time_per_request_where_power_was_sampled() {
        let mut sampled = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
        sampled.readings = 3;
        sampled.sensors.power_w = Some(Spread {
            min: 300.0,
            median: 400.0,
            max: 500.0,
        });
        let mut result = row(Some(sampled.clone()));
        // 400 W for 2.5 ms a request: 1 J.
        annotate(&mut result, 2_500.0);
        let joules = result.extra[EXTRA_KEY].as_f64().expect("a number");
        assert!((joules - 1.0).abs() < 1e-12, "{joules}");
        assert!(!result.extra.contains_key(WHY_NOT_KEY));
        // A reading of no power, and one reading only (the row was shorter than the sampler's
        // period, and its one reading may be the last before it ran): no number, and why.
        let why_not = |summary: TelemetrySummary| {
            let mut result = row(Some(summary));
            annotate(&mut result, 2_500.0);
            assert!(!result.extra.contains_key(EXTRA_KEY), "{:?}", result.extra);
            result.extra[WHY_NOT_KEY]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let mut zero = sampled.clone();
        zero.sensors.power_w = Spread::of(&[0.0]);
        assert!(why_not(zero).contains("zero or not a number"));
        sampled.readings = 1;
        assert!(why_not(sampled).contains("shorter than the sampler's period"));
    }

    #[test]
    fn without_power_the_row_says_why_and_states_no_number() {
        let software = TelemetrySummary::without_readings(
            TelemetryStatus::NotApplicable,
            Some("a software adapter".to_string()),
        );
        let mut result = row(Some(software));
        annotate(&mut result, 2_500.0);
        assert!(!result.extra.contains_key(EXTRA_KEY));
        assert_eq!(
            result.extra[WHY_NOT_KEY],
            "not measured: telemetry not applicable (a software adapter)"
        );
        let mut bare = row(None);
        annotate(&mut bare, 1.0);
        assert!(
            bare.extra[WHY_NOT_KEY]
                .as_str()
                .is_some_and(|s| s.contains("no telemetry"))
        );
    }
}
