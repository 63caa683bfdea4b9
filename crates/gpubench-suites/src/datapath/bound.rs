//! What bounds a workload, and the what-if arithmetic users do by hand, from the measured rows.
//! The overlapped path's steady interval cannot be shorter than preparing and checking
//! together (one host thread does both for every request), nor than the device's part: its
//! slowest stage where the device overlaps the stages of different requests, the sum of its
//! three stages where it runs them one after another. wgpu has one queue, so which of the two
//! a card does is read off the overlapped rows, not assumed: an interval that came no lower
//! than the device stages' sum (within the noise band) shows them in series. The larger of the
//! host's part and the device's is the bound. The serial path's own median against the sum of
//! the stage medians is the cost of the seams (submits, maps, waits); overlap achieved (serial
//! time over the best overlapped interval) stands beside the ideal (serial time over the
//! bound). The what-if makes what bounds twice as fast (the stage, both host stages, or the
//! slowest of the device's stages in series): the interval falls to the bound of the stages
//! then, the latency by what was saved.

use std::collections::BTreeMap;

use gpubench_harness::kit::derived::{derived_result, param_str};
use gpubench_harness::{BenchResult, MetricKind, Status};
use serde_json::Value;

use gpubench_results::warnings::{FigureUnit, OwnedKind, WarningRecord};

use super::energy;
use super::stage::Stage;

/// The serial span against the sum of the stages: below this, or above [`SEAMS_HIGH`], the
/// stages measured alone do not describe the path (seams cost at least nothing, and rarely
/// half the request).
pub const SEAMS_LOW: f64 = 0.9;
/// See [`SEAMS_LOW`].
pub const SEAMS_HIGH: f64 = 1.5;

/// A workload whose path does not add up: the serial span far from the sum of its stages, the
/// bound (the slowest stage, or prepare and check together) alone longer than the whole serial
/// request, or the overlapped interval below the bound or above the serial time, each by more
/// than the noise band. Its figure is the ratio out of bounds.
pub const PATH_MISMATCH: OwnedKind =
    OwnedKind::new("path-mismatch", "path does not add up", FigureUnit::Times);

/// A stage's median time per request, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageTime {
    /// The stage.
    pub stage: Stage,
    /// Its median, us.
    pub us: f64,
}

/// What bounds the overlapped interval from below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// One stage, the slowest, longer than preparing and checking together.
    Stage(Stage),
    /// Preparing and checking together: one host thread does both for every request, so their
    /// sum bounds the interval even where each is shorter than a device stage (which may
    /// overlap each other across requests).
    Host,
    /// The device's three stages in series (the overlapped rows show it ran them one after
    /// another), longer than preparing and checking together.
    Device,
}

impl Limit {
    /// As the finding and the row's `stage` param name it: the stage, `prepare+check` or
    /// `h2d+compute+d2h`.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Stage(stage) => stage.name(),
            Limit::Host => "prepare+check",
            Limit::Device => "h2d+compute+d2h",
        }
    }

    /// In a sentence: "the slowest stage (h2d)", or the host's two stages together.
    fn described(self) -> String {
        match self {
            Limit::Stage(stage) => format!("the slowest stage ({})", stage.name()),
            Limit::Host => "prepare and check together (one host thread does both)".to_string(),
            Limit::Device => "the device's stages in series (h2d, compute and d2h)".to_string(),
        }
    }
}

/// How the device ran the stages of requests in flight, as the overlapped rows show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceStages {
    /// One after another: the best overlapped interval came no lower than the sum of the
    /// device's stages (within the band).
    InSeries,
    /// Overlapped: the best overlapped interval came below that sum.
    Overlapped,
    /// Not told apart: no overlapped row ran, the device's sum does not bound the path beyond
    /// its slowest stage or the host's part (within the band), or the host thread's own work
    /// per request (preparing, checking and the seams: submits, maps, waits) could have set
    /// the interval as well. The bound is then the slowest stage's, the lowest any device can
    /// reach, and the what-if states its gain both ways.
    NotTold,
}

impl DeviceStages {
    /// As `extra.device_stages` records it.
    pub fn name(self) -> &'static str {
        match self {
            DeviceStages::InSeries => "in-series",
            DeviceStages::Overlapped => "overlapped",
            DeviceStages::NotTold => "not-told",
        }
    }
}

/// The shortest interval an overlapped path can reach with these stage times, and what sets
/// it: the device's part (its slowest stage, or with `in_series` its three stages' sum), or
/// preparing and checking together where they take longer.
fn floor_of(stages: &[StageTime], in_series: bool) -> Option<(f64, Limit)> {
    let slowest = stages.iter().max_by(|a, b| a.us.total_cmp(&b.us))?;
    let sum = |on_host: bool| -> f64 {
        stages
            .iter()
            .filter(|s| s.stage.on_host() == on_host)
            .map(|s| s.us)
            .sum()
    };
    let host = sum(true);
    let device = if in_series {
        (sum(false), Limit::Device)
    } else {
        (slowest.us, Limit::Stage(slowest.stage))
    };
    Some(if host > device.0 {
        (host, Limit::Host)
    } else {
        device
    })
}

/// The analysis of one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// What bounds the overlapped interval.
    pub limit: Limit,
    /// That bound, us: the slowest stage's median, or prepare's and check's together.
    pub limit_us: f64,
    /// Every stage's median.
    pub stages: Vec<StageTime>,
    /// The sum of the stage medians, us.
    pub stage_sum_us: f64,
    /// The serial path's median, us, where it ran.
    pub serial_us: Option<f64>,
    /// The shortest overlapped interval, us, and its depth, where one ran.
    pub best_overlap: Option<(f64, u64)>,
    /// How the device ran the stages of requests in flight.
    pub device_stages: DeviceStages,
}

impl Bound {
    /// From the stage times (at least one) and the serial and overlapped medians; `band` (the
    /// noise band) tells an interval at the device stages' sum from one below it.
    pub fn of(
        stages: &[StageTime],
        serial_us: Option<f64>,
        best_overlap: Option<(f64, u64)>,
        band: f64,
    ) -> Option<Bound> {
        let overlapped = floor_of(stages, false)?;
        let in_series = floor_of(stages, true)?;
        let stage_sum_us: f64 = stages.iter().map(|s| s.us).sum();
        // The one host thread's part of each request: preparing and checking, and at most the
        // seams the serial path showed (submits, maps and waits, some of them on the device).
        let host_us: f64 = stages
            .iter()
            .filter(|s| s.stage.on_host())
            .map(|s| s.us)
            .sum();
        let seams_us = serial_us.map_or(0.0, |serial| (serial - stage_sum_us).max(0.0));
        let device_stages = match best_overlap {
            Some((interval, _)) if in_series.0 > overlapped.0 * (1.0 + band) => {
                if interval < in_series.0 * (1.0 - band) {
                    DeviceStages::Overlapped
                } else if host_us + seams_us >= interval * (1.0 - band) {
                    DeviceStages::NotTold
                } else {
                    DeviceStages::InSeries
                }
            }
            _ => DeviceStages::NotTold,
        };
        let (limit_us, limit) = if device_stages == DeviceStages::InSeries {
            in_series
        } else {
            overlapped
        };
        Some(Bound {
            limit,
            limit_us,
            stages: stages.to_vec(),
            stage_sum_us,
            serial_us,
            best_overlap,
            device_stages,
        })
    }

    /// The stages the what-if halves: the bounding stage, both host stages, or the slowest of
    /// the device's stages in series (the largest part of their sum).
    fn halved(&self) -> Vec<Stage> {
        match self.limit {
            Limit::Stage(stage) => vec![stage],
            Limit::Host => Stage::ALL.into_iter().filter(|s| s.on_host()).collect(),
            Limit::Device => self
                .stages
                .iter()
                .filter(|s| !s.stage.on_host())
                .max_by(|a, b| a.us.total_cmp(&b.us))
                .map(|s| s.stage)
                .into_iter()
                .collect(),
        }
    }

    /// As the what-if names what it halves: a stage, or `prepare+check`.
    fn halved_name(&self) -> &'static str {
        match (self.limit, self.halved().as_slice()) {
            (Limit::Device, [stage]) => stage.name(),
            (limit, _) => limit.name(),
        }
    }

    /// Serial time over the best overlapped interval.
    pub fn overlap_achieved(&self) -> Option<f64> {
        Some(self.serial_us? / self.best_overlap?.0)
    }

    /// Serial time over the bound: the most overlap can give.
    pub fn overlap_ideal(&self) -> Option<f64> {
        Some(self.serial_us? / self.limit_us)
    }

    /// The bound alone over the whole serial request, where it took longer: the stages
    /// measured alone then do not describe the path, and no latency what-if follows from them.
    pub fn stage_over_serial(&self) -> Option<f64> {
        self.serial_us
            .map(|s| self.limit_us / s)
            .filter(|ratio| *ratio > 1.0)
    }

    /// With what bounds twice as fast (the stage, both host stages, or the slowest device
    /// stage in series): the throughput gain of the overlapped path and the latency change of
    /// the serial one, in percent; no latency change where the bound alone took longer than
    /// the serial request it is part of.
    pub fn what_if_twice_as_fast(&self) -> (f64, Option<f64>) {
        let (faster, saved) = self.faster();
        let in_series = self.device_stages == DeviceStages::InSeries;
        let new_interval = floor_of(&faster, in_series).map_or(self.limit_us, |(us, _)| us);
        let throughput = (self.limit_us / new_interval - 1.0) * 100.0;
        let latency = self
            .serial_us
            .filter(|_| self.stage_over_serial().is_none())
            .map(|s| -saved / s * 100.0);
        (throughput, latency)
    }

    /// Where the device's stages were not told apart ([`DeviceStages::NotTold`]): the
    /// throughput gain, in percent, were the device running them one after another. The
    /// what-if's own figure assumes they overlap (the lowest bound any device reaches); halving
    /// what bounds then may leave the device's sum as the new bound, and this is what is left.
    pub fn what_if_in_series(&self) -> Option<f64> {
        if self.device_stages != DeviceStages::NotTold {
            return None;
        }
        let (faster, _) = self.faster();
        let (now, _) = floor_of(&self.stages, true)?;
        let (then, _) = floor_of(&faster, true)?;
        Some((now / then - 1.0) * 100.0)
    }

    /// The stages with what the what-if halves at half its time, and the time saved.
    fn faster(&self) -> (Vec<StageTime>, f64) {
        let halved = self.halved();
        let mut saved = 0.0;
        let faster = self
            .stages
            .iter()
            .map(|&s| {
                if halved.contains(&s.stage) {
                    saved += s.us / 2.0;
                    StageTime {
                        us: s.us / 2.0,
                        ..s
                    }
                } else {
                    s
                }
            })
            .collect();
        (faster, saved)
    }

    /// Where the measured path does not add up, within `band` (the noise band of the run's
    /// adapter): the warnings to attach. Each says which relation failed and by how much.
    pub fn mismatches(&self, band: f64) -> Vec<WarningRecord> {
        let mut out = Vec::new();
        if let Some(ratio) = self.stage_over_serial().filter(|r| *r > 1.0 + band) {
            out.push(PATH_MISMATCH.record(
                format!(
                    "{} alone took {ratio:.2}x the whole serial request it is part of: the stages measured alone do not describe this path (a noisy machine, or a stage slower alone than in the path), so the finding states no latency what-if",
                    self.limit.described()
                ),
                Some(ratio),
            ));
        }
        if let Some(serial) = self.serial_us {
            let ratio = serial / self.stage_sum_us;
            if ratio < SEAMS_LOW * (1.0 - band) || ratio > SEAMS_HIGH * (1.0 + band) {
                out.push(PATH_MISMATCH.record(
                    format!(
                        "the serial request took {ratio:.2}x the sum of its stages measured alone (expected {SEAMS_LOW} to {SEAMS_HIGH}x within the +-{:.0}% band): a noisy machine, or stages that cost differently alone than in the path",
                        band * 100.0
                    ),
                    Some(ratio),
                ));
            }
        }
        if let Some((interval, depth)) = self.best_overlap {
            out.extend(self.interval_mismatches(interval, depth, band));
        }
        out
    }

    /// An overlapped `interval` with `depth` in flight below the bound, or above the serial
    /// time, by more than `band`.
    fn interval_mismatches(&self, interval: f64, depth: u64, band: f64) -> Vec<WarningRecord> {
        let mut out = Vec::new();
        let below = interval / self.limit_us;
        if below < 1.0 - band {
            out.push(PATH_MISMATCH.record(
                format!(
                    "with {depth} in flight the interval was {below:.2}x {}, which should bound it: the stages alone ran slower than in the path",
                    self.limit.described()
                ),
                Some(below),
            ));
        }
        if let Some(serial) = self.serial_us.filter(|s| interval > s * (1.0 + band)) {
            out.push(PATH_MISMATCH.record(
                format!(
                    "with {depth} in flight the interval was {:.2}x the serial time: requests in flight slowed each other (on a software adapter they share the host's cores)",
                    interval / serial
                ),
                Some(interval / serial),
            ));
        }
        out
    }

    /// The sentence the tables show: "h2d bounds: 40 ms of 70 ms; h2d 2x faster: throughput
    /// +x%, latency -y%".
    pub fn sentence(&self) -> String {
        let (throughput, latency) = self.what_if_twice_as_fast();
        let of = match (self.serial_us, self.stage_over_serial()) {
            (Some(s), None) => format!(" of {} per request", micros(s)),
            (Some(s), Some(_)) => format!(
                " alone, longer than the whole serial request ({})",
                micros(s)
            ),
            (None, _) => String::new(),
        };
        let latency = latency
            .map(|l| format!(", latency {l:+.0}%"))
            .unwrap_or_default();
        // Not told whether the device overlaps its stages: the gain both ways, where they differ.
        let throughput = match self.what_if_in_series() {
            Some(other) if format!("{other:+.0}") != format!("{throughput:+.0}") => format!(
                "{:+.0}% to {:+.0}% (the overlapped rows did not tell whether the device runs its stages one after another)",
                other.min(throughput),
                other.max(throughput)
            ),
            _ => format!("{throughput:+.0}%"),
        };
        format!(
            "{} bounds: {}{of}; {} 2x faster: throughput {throughput}{latency}",
            self.limit.name(),
            micros(self.limit_us),
            self.halved_name()
        )
    }
}

/// A time in us, ms or s, three figures.
fn micros(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.3} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.3} ms", us / 1e3)
    } else {
        format!("{us:.1} us")
    }
}

/// The bound rows of every workload in `results` (this suite's rows).
pub fn derive(results: &[BenchResult], band: f64) -> Vec<BenchResult> {
    workloads_of(results)
        .into_iter()
        .filter_map(|w| bound_row(w, results, band))
        .collect()
}

/// The workloads `results` hold rows of, each once, in the order they first appear.
pub fn workloads_of(results: &[BenchResult]) -> Vec<&str> {
    let mut workloads: Vec<&str> = Vec::new();
    for w in results.iter().filter_map(|r| param_str(r, "workload")) {
        if !workloads.contains(&w) {
            workloads.push(w);
        }
    }
    workloads
}

fn median(r: &BenchResult) -> Option<f64> {
    (r.status == Status::Ok)
        .then_some(())
        .and(r.summary.as_ref())
        .map(|s| s.median)
}

/// The energy per request of the whole-request row with the most requests per second that
/// has one, with that row's flow; or why there is none (the serial row's reason).
fn energy_of(rows: &[&BenchResult]) -> Result<(f64, String), String> {
    let flows = || rows.iter().filter(|r| param_str(r, "flow").is_some());
    flows()
        .filter_map(|r| {
            let joules = r.extra.get(energy::EXTRA_KEY)?.as_f64()?;
            Some((median(r)?, joules, param_str(r, "flow")?.to_string()))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, joules, flow)| (joules, flow))
        .ok_or_else(|| {
            flows()
                .find_map(|r| {
                    r.extra
                        .get(energy::WHY_NOT_KEY)?
                        .as_str()
                        .map(str::to_string)
                })
                .unwrap_or_else(|| "not measured: no whole-request row ran".to_string())
        })
}

/// Joules with three figures, in mJ below one joule.
fn joules_text(joules: f64) -> String {
    if joules < 1.0 {
        format!("{:.3} mJ", joules * 1e3)
    } else {
        format!("{joules:.3} J")
    }
}

fn bound_row(workload: &str, results: &[BenchResult], band: f64) -> Option<BenchResult> {
    let rows: Vec<&BenchResult> = results
        .iter()
        .filter(|r| param_str(r, "workload") == Some(workload))
        .collect();
    let bound = analyse(&rows, band)?;
    let mut params: BTreeMap<String, Value> = BTreeMap::new();
    let first = rows.first()?;
    for key in [
        "workload",
        "request",
        "input_bytes",
        "output_bytes",
        "flops",
    ] {
        if let Some(v) = first.params.get(key) {
            params.insert(key.to_string(), v.clone());
        }
    }
    params.insert("stage".into(), bound.limit.name().into());
    let mut row = derived_result(
        format!("datapath/{workload}/bound"),
        "datapath",
        MetricKind::TimePerOp,
        "the shortest interval an overlapped path can reach: prepare's and check's medians together (one host thread does both), or the device's part where longer: its slowest stage, or its three stages' sum where the overlapped rows show it ran them in series",
        bound.limit_us,
        params,
    );
    state(&bound, energy_of(&rows), &mut row.extra);
    row.warnings = bound.mismatches(band);
    Some(row)
}

/// One workload's bound from its rows: every stage's median, the serial median and the best
/// overlapped interval; `None` where a stage has no median (failed or skipped).
fn analyse(rows: &[&BenchResult], band: f64) -> Option<Bound> {
    let stages: Vec<StageTime> = rows
        .iter()
        .filter_map(|r| {
            let stage = Stage::named(param_str(r, "stage")?)?;
            Some(StageTime {
                stage,
                us: median(r)?,
            })
        })
        .collect();
    if stages.len() < Stage::ALL.len() {
        return None;
    }
    let serial_us = rows
        .iter()
        .find(|r| param_str(r, "flow") == Some("serial"))
        .and_then(|r| median(r));
    let best_overlap = rows
        .iter()
        .filter_map(|r| {
            let depth = r.params.get("in_flight")?.as_u64().filter(|d| *d > 1)?;
            Some((median(r)?, depth))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    Bound::of(&stages, serial_us, best_overlap, band)
}

/// What the bound row states in `extra`: the finding (the what-if, with the energy per request
/// where board power was sampled), the energy or why there is none, the stage sum, the seams,
/// the best interval, the overlap achieved beside the ideal, and the what-if figures.
fn state(
    bound: &Bound,
    energy: Result<(f64, String), String>,
    extra: &mut BTreeMap<String, Value>,
) {
    let finding = match &energy {
        Ok((joules, flow)) => format!(
            "{}; energy {} per request (board power, {flow})",
            bound.sentence(),
            joules_text(*joules)
        ),
        Err(_) => bound.sentence(),
    };
    extra.insert(gpubench_results::chart::FINDING.into(), finding.into());
    match energy {
        Ok((joules, _)) => extra.insert(energy::EXTRA_KEY.into(), joules.into()),
        Err(why) => extra.insert(energy::WHY_NOT_KEY.into(), why.into()),
    };
    extra.insert("stage_sum_us".into(), bound.stage_sum_us.into());
    extra.insert("device_stages".into(), bound.device_stages.name().into());
    if let Some(serial) = bound.serial_us {
        extra.insert("serial_us".into(), serial.into());
        extra.insert("seams_us".into(), (serial - bound.stage_sum_us).into());
    }
    if let Some((interval, depth)) = bound.best_overlap {
        extra.insert("best_interval_us".into(), interval.into());
        extra.insert("best_in_flight".into(), depth.into());
        extra.insert("requests_per_s".into(), (1e6 / interval).into());
    }
    if let (Some(achieved), Some(ideal)) = (bound.overlap_achieved(), bound.overlap_ideal()) {
        extra.insert("overlap_achieved".into(), achieved.into());
        extra.insert("overlap_ideal".into(), ideal.into());
    }
    let (throughput, latency) = bound.what_if_twice_as_fast();
    extra.insert("what_if_2x_throughput_pct".into(), throughput.into());
    if let Some(in_series) = bound.what_if_in_series() {
        extra.insert(
            "what_if_2x_throughput_in_series_pct".into(),
            in_series.into(),
        );
    }
    if let Some(latency) = latency {
        extra.insert("what_if_2x_latency_pct".into(), latency.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound of a workload with stage medians `us` (prepare, h2d, compute, d2h, check), a
    /// serial median and the best overlapped interval, in a band of 5%.
    fn bound_of(us: [f64; 5], serial: Option<f64>, overlap: Option<(f64, u64)>) -> Bound {
        Bound::of(&times(us), serial, overlap, 0.05).expect("bound")
    }

    fn times(us: [f64; 5]) -> Vec<StageTime> {
        Stage::ALL
            .iter()
            .zip(us)
            .map(|(&stage, us)| StageTime { stage, us })
            .collect()
    }

    #[test]
    fn the_slowest_stage_bounds_and_the_what_if_is_the_users_arithmetic() {
        // 70 ms a request: upload 40, compute 20, the rest 10.
        let stages = [4_000.0, 40_000.0, 20_000.0, 3_000.0, 3_000.0];
        let bound = bound_of(stages, Some(72_000.0), Some((41_000.0, 2)));
        assert_eq!(bound.limit, Limit::Stage(Stage::Upload));
        // 41 ms with two in flight, well under the device stages' 63: they overlapped.
        assert_eq!(bound.device_stages, DeviceStages::Overlapped);
        assert_eq!(bound.stage_sum_us, 70_000.0);
        // Upload halved: 20 ms, tied with compute: the interval 40 -> 20 ms, +100%.
        let (throughput, latency) = bound.what_if_twice_as_fast();
        assert!((throughput - 100.0).abs() < 1e-9);
        assert!((latency.expect("serial ran") + 20_000.0 / 72_000.0 * 100.0).abs() < 1e-9);
        assert!((bound.overlap_ideal().expect("ideal") - 1.8).abs() < 1e-9);
        assert!((bound.overlap_achieved().expect("achieved") - 72.0 / 41.0).abs() < 1e-9);
        assert_eq!(
            bound.sentence(),
            "h2d bounds: 40.000 ms of 72.000 ms per request; h2d 2x faster: throughput +100%, latency -28%"
        );
        // A stage far ahead of the rest: halving it halves the interval.
        let compute = [10.0, 10.0, 1_000.0, 10.0, 10.0];
        let bound = bound_of(compute, None, None);
        assert_eq!(bound.limit, Limit::Stage(Stage::Compute));
        assert!((bound.what_if_twice_as_fast().0 - 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_device_that_ran_its_stages_in_series_is_bound_by_their_sum() {
        // Upload 40 ms and compute 39: overlapping stages would be bound by the upload, and
        // halving it would gain under 3%; two in flight took 83 ms, the device's 82 in series.
        let stages = [4_000.0, 40_000.0, 39_000.0, 3_000.0, 3_000.0];
        let bound = bound_of(stages, Some(92_000.0), Some((83_000.0, 2)));
        assert_eq!(bound.device_stages, DeviceStages::InSeries);
        assert_eq!(bound.limit, Limit::Device);
        assert_eq!(bound.limit_us, 82_000.0);
        // Upload halved: the series falls from 82 to 62 ms, +32%; the request loses 20 of 92.
        let (throughput, latency) = bound.what_if_twice_as_fast();
        assert!(
            (throughput - (82.0 / 62.0 - 1.0) * 100.0).abs() < 1e-9,
            "{throughput}"
        );
        assert!((latency.expect("serial ran") + 20.0 / 92.0 * 100.0).abs() < 1e-9);
        assert_eq!(
            bound.sentence(),
            "h2d+compute+d2h bounds: 82.000 ms of 92.000 ms per request; h2d 2x faster: throughput +32%, latency -22%"
        );
        assert!(bound.mismatches(0.05).is_empty());
        // 60 ms in flight is under the series: the stages overlapped, the upload bounds.
        let overlapped = bound_of(stages, Some(92_000.0), Some((60_000.0, 2)));
        assert_eq!(overlapped.device_stages, DeviceStages::Overlapped);
        assert_eq!(overlapped.limit, Limit::Stage(Stage::Upload));
        // Without an overlapped row nothing tells: the lowest any device reaches, the upload.
        let untold = bound_of(stages, Some(92_000.0), None);
        assert_eq!(untold.device_stages, DeviceStages::NotTold);
        assert_eq!(untold.limit, Limit::Stage(Stage::Upload));
    }

    /// Prepare 40, upload 25, compute 25, download 12, check 20 us: the host's 60 against the
    /// device's 62 in series, within the band, so two in flight at 64 us cannot tell whether
    /// the device overlaps its stages. Halving prepare and check gains +100% if it does, and
    /// nothing if it runs them one after another (its 62 then bound): both are said.
    #[test]
    fn a_what_if_the_overlapped_rows_cannot_settle_states_both_gains() {
        let bound = bound_of([40.0, 25.0, 25.0, 12.0, 20.0], Some(130.0), Some((64.0, 2)));
        assert_eq!(bound.device_stages, DeviceStages::NotTold);
        assert_eq!(bound.limit, Limit::Host);
        assert!((bound.what_if_twice_as_fast().0 - 100.0).abs() < 1e-9);
        assert!(bound.what_if_in_series().expect("not told").abs() < 1e-9);
        assert!(
            bound
                .sentence()
                .ends_with("prepare+check 2x faster: throughput +0% to +100% (the overlapped rows did not tell whether the device runs its stages one after another), latency -23%"),
            "{}",
            bound.sentence()
        );
        let mut extra = BTreeMap::new();
        state(&bound, Err("no power".into()), &mut extra);
        assert_eq!(extra["what_if_2x_throughput_in_series_pct"], 0.0);
        // Told apart, the what-if has one figure.
        let told = [4_000.0, 40_000.0, 39_000.0, 3_000.0, 3_000.0];
        let series = bound_of(told, Some(92_000.0), Some((83_000.0, 2)));
        assert_eq!(series.what_if_in_series(), None);
    }

    /// Prepare 20, upload 30, compute 30, download 5, check 10 us, 135 a serial request (40 of
    /// seams): two in flight took 70 us, at the device's 65 in series, but the one host thread's
    /// own part (30, and up to 40 of seams) could have set that interval as well, so it shows
    /// nothing about the device.
    #[test]
    fn an_interval_the_host_thread_could_have_set_does_not_show_the_device_in_series() {
        let stages = [20.0, 30.0, 30.0, 5.0, 10.0];
        let bound = bound_of(stages, Some(135.0), Some((70.0, 2)));
        assert_eq!(bound.device_stages, DeviceStages::NotTold);
        // With a quick host (no seams), the same interval shows the device in series.
        let quick = bound_of(stages, Some(95.0), Some((70.0, 2)));
        assert_eq!(quick.device_stages, DeviceStages::InSeries);
        assert_eq!(quick.limit, Limit::Device);
    }

    #[test]
    fn preparing_and_checking_together_bound_where_they_outlast_every_stage() {
        // Prepare 30 and check 30 us on the one host thread, upload 40: the host's 60 bound.
        let stages = [30.0, 40.0, 10.0, 10.0, 30.0];
        let bound = bound_of(stages, Some(125.0), Some((45.0, 2)));
        assert_eq!(bound.limit, Limit::Host);
        assert_eq!(bound.limit_us, 60.0);
        // Both halved: 30 against the upload's 40, so the interval falls from 60 to 40: +50%.
        let (throughput, latency) = bound.what_if_twice_as_fast();
        assert!((throughput - 50.0).abs() < 1e-9, "{throughput}");
        assert!((latency.expect("serial ran") + 30.0 / 125.0 * 100.0).abs() < 1e-9);
        assert!(
            bound
                .sentence()
                .starts_with("prepare+check bounds: 60.0 us of 125.0 us"),
            "{}",
            bound.sentence()
        );
        // An interval of 45 us beats the upload alone but not the host's 60: said.
        let warned = bound.mismatches(0.05);
        assert_eq!(warned.len(), 1, "{warned:?}");
        assert!(
            warned[0]
                .message
                .contains("0.75x prepare and check together (one host thread does both)"),
            "{}",
            warned[0].message
        );
    }

    #[test]
    fn a_path_that_does_not_add_up_is_warned_about_within_the_band() {
        let stages = [4_000.0, 40_000.0, 20_000.0, 3_000.0, 3_000.0];
        let fine = bound_of(stages, Some(80_000.0), Some((42_000.0, 2)));
        assert!(fine.mismatches(0.05).is_empty());
        // Serial at twice the stage sum, and an interval below the slowest stage.
        let odd = bound_of(stages, Some(140_000.0), Some((20_000.0, 3)));
        let warned = odd.mismatches(0.05);
        assert_eq!(warned.len(), 2, "{warned:?}");
        assert!(warned[0].message.contains("2.00x the sum"));
        assert!(
            warned[1].message.contains("0.50x the slowest stage (h2d)"),
            "{}",
            warned[1].message
        );
        // The slowest stage alone longer than the whole request: said, and no latency what-if.
        let over = bound_of(stages, Some(30_000.0), None);
        assert!((over.stage_over_serial().expect("over") - 4.0 / 3.0).abs() < 1e-9);
        assert_eq!(over.what_if_twice_as_fast().1, None);
        assert_eq!(
            over.sentence(),
            "h2d bounds: 40.000 ms alone, longer than the whole serial request (30.000 ms); h2d 2x faster: throughput +47% to +100% (the overlapped rows did not tell whether the device runs its stages one after another)"
        );
        let said = over.mismatches(0.25);
        assert!(
            said.iter()
                .any(|w| w.message.contains("1.33x the whole serial request")),
            "{said:?}"
        );
        assert!(
            !bound_of(stages, Some(36_000.0), None)
                .mismatches(0.25)
                .iter()
                .any(|w| w.message.contains("the whole serial request"))
        );
        // Requests in flight slower than one at a time.
        let slow =
            Bound::of(&times(stages), Some(70_000.0), Some((140_000.0, 2)), 0.25).expect("bound");
        assert!(
            slow.mismatches(0.25)[0]
                .message
                .contains("2.00x the serial time")
        );
    }
}
