//! Whether the device has left its idle clocks, and whether a result was measured at them.
//!
//! A discrete card idles at a fraction of its clock and raises it only after its governor has
//! seen sustained load. On the first run on an NVIDIA H200 the SM clock stayed at its 345 MHz
//! idle clock (NVML reason `gpu-idle`) through the whole warm-up and every sample of the 1 GiB
//! stream copy: 1701 GB/s, stable to 0.2%, where the same kernel reached 4361 GB/s once the
//! clock rose to 1980 MHz half-way through the triad's samples. A stable figure is not a
//! settled one: the runner keeps warming up while [`settled`] says the device still idles, and
//! [`annotate`] marks a GPU-timed result whose samples ran at idle clocks all the same.

use gpubench_harness::BenchResult;
use gpubench_results::schema::{Status, TimingSource};
use gpubench_results::warnings::{FigureUnit, OwnedKind};

use crate::doctor::HARDWARE_REASONS;
use crate::source::Reading;

/// NVML's reason for clocks the driver lowers at its thermal limit.
const THERMAL_REASON: &str = "sw-thermal-slowdown";

/// The reason NVML gives while the device idles (its clocks at their floor).
pub const IDLE_REASON: &str = "gpu-idle";

/// A graphics clock under this fraction of the device's highest is an idle clock. Power and
/// thermal limits hold a busy card well above it (the H200 ran its tensor-core GEMMs at 1680 of
/// 1980 MHz, 85%); its idle clock is 17% of its highest.
pub const IDLE_FRACTION: f64 = 0.5;

/// The warning on a GPU-timed result whose samples ran at idle clocks; its figure is the median
/// graphics clock as a percentage of the highest.
pub const IDLE_CLOCK: OwnedKind =
    OwnedKind::new("idle-clock", "measured at idle clocks", FigureUnit::Percent).worst_at_lowest();

/// The warning on a GPU-timed result whose samples ran under [`IDLE_FRACTION`] of the highest
/// graphics clock because the hardware or the driver's thermal limit held it there (NVML's
/// hardware slowdown cuts the clock by half or more): not idle, and no warm-up raises it. Its
/// figure is the median graphics clock as a percentage of the highest.
pub const HELD_CLOCK: OwnedKind = OwnedKind::new(
    "held-clock",
    "measured at held-down clocks",
    FigureUnit::Percent,
)
.worst_at_lowest();

/// The reasons among `reasons` that pull the clocks down whatever the load: the hardware's
/// slowdowns and the driver's thermal one.
fn holding_down(reasons: &[String]) -> Vec<&str> {
    reasons
        .iter()
        .map(String::as_str)
        .filter(|r| HARDWARE_REASONS.contains(r) || *r == THERMAL_REASON)
        .collect()
}

/// Whether `reading` shows a device that has left its idle clocks: `Some(false)` while its
/// graphics clock is under [`IDLE_FRACTION`] of `max_sm_mhz` with no reason holding it down,
/// or the source gives the idle reason and the clock cannot be judged; `Some(true)` when the
/// clock is above that fraction (whatever the reasons say), held down by the hardware or a
/// thermal limit (more warm-up would not raise it), or reasons without the idle one come with
/// no clock to judge; `None` when it gives neither.
pub fn settled(reading: &Reading, max_sm_mhz: Option<f64>) -> Option<bool> {
    let idle_reason = reading.throttle_reasons.iter().any(|r| r == IDLE_REASON);
    let held = !holding_down(&reading.throttle_reasons).is_empty();
    match (reading.sensors.sm_clock_mhz, max_sm_mhz) {
        // The clock decides where it can be judged: an H200 under load reports `gpu-idle`
        // beside its top clock at 99% busy, so the reason alone would hold every warm-up to
        // its cap.
        (Some(clock), Some(max)) if max > 0.0 => Some(held || clock >= IDLE_FRACTION * max),
        _ if idle_reason => Some(false),
        _ if !reading.throttle_reasons.is_empty() => Some(true),
        _ => None,
    }
}

/// Adds the [`IDLE_CLOCK`] warning to `result` when it is ok, was timed by the GPU's clock
/// (whose work the graphics clock paces) and its samples' median graphics clock is under
/// [`IDLE_FRACTION`] of `max_sm_mhz`. Host-timed results (a host write into mapped memory, a
/// round trip) are left alone: the GPU's clock is not what they measure.
pub fn annotate(result: &mut BenchResult, max_sm_mhz: Option<f64>) {
    if result.status != Status::Ok || result.timing != Some(TimingSource::GpuTimestamp) {
        return;
    }
    let (Some(max), Some(clock)) = (
        max_sm_mhz.filter(|&m| m > 0.0),
        result
            .telemetry
            .as_ref()
            .and_then(|t| t.sensors.sm_clock_mhz.as_ref())
            .map(|s| s.median),
    ) else {
        return;
    };
    if clock >= IDLE_FRACTION * max {
        return;
    }
    let reasons = result
        .telemetry
        .as_ref()
        .map(|t| holding_down(&t.throttle_reasons).join(", "))
        .unwrap_or_default();
    let (kind, message) = if reasons.is_empty() {
        (
            IDLE_CLOCK,
            format!(
                "the graphics clock was at {clock:.0} MHz (median while sampling) of the {max:.0} MHz the device reaches: the figure is the idle clock's, not the card's; the warm-up did not bring the device out of idle (see the telemetry's reasons)"
            ),
        )
    } else {
        (
            HELD_CLOCK,
            format!(
                "the graphics clock was at {clock:.0} MHz (median while sampling) of the {max:.0} MHz the device reaches, held down by {reasons}: the figure is the held-down card's, not its rated one (check its cooling and power delivery)"
            ),
        )
    };
    if !result.warnings.iter().any(|w| w.kind == kind.kind()) {
        result
            .warnings
            .push(kind.record(message, Some(100.0 * clock / max)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::BenchmarkInfo;
    use gpubench_results::metric::MetricKind;
    use gpubench_results::telemetry::{Sensors, Spread, TelemetryStatus, TelemetrySummary};

    fn reading(mhz: Option<f64>, reasons: &[&str]) -> Reading {
        Reading {
            sensors: Sensors {
                sm_clock_mhz: mhz,
                ..Sensors::default()
            },
            throttle_reasons: reasons.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn a_low_clock_or_the_idle_reason_without_one_is_not_settled() {
        let max = Some(1980.0);
        assert_eq!(
            settled(&reading(Some(345.0), &["gpu-idle"]), max),
            Some(false)
        );
        assert_eq!(settled(&reading(Some(345.0), &[]), max), Some(false));
        assert_eq!(
            settled(&reading(Some(1680.0), &["sw-power-cap"]), max),
            Some(true)
        );
        assert_eq!(settled(&reading(Some(990.0), &[]), max), Some(true));
        // Held down by the hardware (a slowdown halves the clock or more): not idle, and no
        // warm-up raises it.
        assert_eq!(
            settled(&reading(Some(700.0), &["hw-slowdown"]), max),
            Some(true)
        );
        // An H200 at 99% busy reported `gpu-idle` beside its top clock: the clock decides.
        assert_eq!(
            settled(&reading(Some(1980.0), &["gpu-idle"]), max),
            Some(true)
        );
        // No maximum: only the reasons can tell.
        assert_eq!(settled(&reading(Some(345.0), &[]), None), None);
        assert_eq!(
            settled(&reading(Some(345.0), &["gpu-idle"]), None),
            Some(false)
        );
        assert_eq!(settled(&reading(None, &["gpu-idle"]), max), Some(false));
        assert_eq!(settled(&reading(None, &["sw-power-cap"]), None), Some(true));
        assert_eq!(settled(&reading(None, &[]), max), None);
    }

    fn result(timing: TimingSource, clock_median: f64) -> BenchResult {
        let info = BenchmarkInfo::new("stream/copy/x", "stream", MetricKind::Bandwidth, "GB/s");
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        r.timing = Some(timing);
        let mut t = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
        t.sensors.sm_clock_mhz = Spread::of(&[clock_median]);
        r.telemetry = Some(Box::new(t));
        r
    }

    #[test]
    fn a_gpu_timed_result_at_idle_clocks_is_warned_once() {
        let mut r = result(TimingSource::GpuTimestamp, 345.0);
        annotate(&mut r, Some(1980.0));
        annotate(&mut r, Some(1980.0));
        assert_eq!(r.warnings.len(), 1);
        assert_eq!(r.warnings[0].kind, IDLE_CLOCK.kind());
        let figure = r.warnings[0].figure.expect("figure");
        assert!((figure - 17.4).abs() < 0.1, "{figure}");
        assert!(r.warnings[0].message.contains("345 MHz"));
    }

    #[test]
    fn a_clock_the_hardware_held_down_is_said_so_not_called_idle() {
        let mut r = result(TimingSource::GpuTimestamp, 700.0);
        if let Some(t) = r.telemetry.as_mut() {
            t.throttle_reasons = vec!["sw-power-cap".to_string(), "hw-slowdown".to_string()];
        }
        annotate(&mut r, Some(1980.0));
        assert_eq!(r.warnings.len(), 1);
        assert_eq!(r.warnings[0].kind, HELD_CLOCK.kind());
        assert!(
            r.warnings[0].message.contains("held down by hw-slowdown:"),
            "{}",
            r.warnings[0].message
        );
    }

    #[test]
    fn busy_clocks_host_timing_and_unknown_maxima_are_not_warned() {
        let mut busy = result(TimingSource::GpuTimestamp, 1680.0);
        annotate(&mut busy, Some(1980.0));
        let mut host = result(TimingSource::Host, 345.0);
        annotate(&mut host, Some(1980.0));
        let mut unknown = result(TimingSource::GpuTimestamp, 345.0);
        annotate(&mut unknown, None);
        for r in [busy, host, unknown] {
            assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        }
    }
}
