//! The runner's seam for telemetry: reading clocks, power and temperature (NVML, sysfs) lives
//! outside the harness, so the runner works the same with no hook and no vendor library is
//! needed to build or run it. What a hook records is plain data in
//! [`gpubench_results::telemetry`].

use gpubench_results::schema::{BenchResult, RunDocument};
use gpubench_results::telemetry::TelemetrySummary;

/// Called by the runner around each measured region (warm-up and timed samples), never inside
/// timed GPU work: `begin` before the first warm-up sample, `end` after the last timed one.
pub trait TelemetryHook: Send + Sync {
    /// A measured region of the benchmark `id` starts.
    fn begin(&self, id: &str);
    /// The region's warm-up is over and its timed samples start: what `end` summarises is
    /// what was seen from here (the clocks the figure was measured at, not the warm-up's).
    fn sampling(&self) {}
    /// Whether the device has left its idle clocks, by the newest reading of the region begun
    /// last: `Some(false)` while it still idles, `None` when the hook cannot tell. The runner
    /// warms up for longer while this says `Some(false)`.
    fn clocks_settled(&self) -> Option<bool> {
        None
    }
    /// The region ends; what was seen during it, or `None` when nothing is recorded.
    fn end(&self) -> Option<TelemetrySummary>;
    /// The run is over (or stopped): add the run's totals, link and nominal figures to `doc`
    /// and compare its results with them.
    fn finish(&self, _doc: &mut RunDocument) {}
    /// A result was just measured (after its suite annotated it).
    fn annotate(&self, _result: &mut BenchResult) {}
}
