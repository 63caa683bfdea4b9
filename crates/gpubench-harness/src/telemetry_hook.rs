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
    /// The region ends; what was seen during it, or `None` when nothing is recorded.
    fn end(&self) -> Option<TelemetrySummary>;
    /// The run is over (or stopped): add the run's totals, link and nominal figures to `doc`
    /// and compare its results with them.
    fn finish(&self, _doc: &mut RunDocument) {}
    /// A result was just measured (after its suite annotated it).
    fn annotate(&self, _result: &mut BenchResult) {}
}
