//! Comparing two runs: pair results by id, estimate the oriented ratio of medians with its
//! bootstrap interval, and give each pair a verdict (docs/baselines.md, "Pairs, ratios and verdicts").
//!
//! As criterion does for change detection, a change counts only when the whole 95% interval lies
//! beyond the noise band: **regressed** when it lies entirely below `1 - band` (slower),
//! **improved** when entirely above `1 + band`, **unchanged** when it lies inside the band, and
//! **inconclusive** otherwise (it straddles an edge or is wider than the band). Status changes
//! are verdicts of their own; a result that was ok and now fails or is skipped is a regression
//! whatever the timing noise, so report-only mode never hides it. A metric this gpubench does
//! not know (a newer gpubench wrote it) is **not judged**: its values are shown, with no ratio
//! and no verdict, since which way is better for it is not known here.
//!
//! Runs of different adapters (fingerprints) are compared across machines: ratios only, no
//! verdicts, labelled with what differs.

use std::collections::BTreeMap;

use gpubench_results::schema::{MachineInfo, slug};
use gpubench_results::{BenchResult, MetricKind, RunDocument, Status};
use serde::{Deserialize, Serialize};

use crate::machine::{Difference, machine_differences};
use crate::noise::band_for;
use crate::paired::FEWEST;
use crate::ratio::{RatioEstimate, ratio_ci_with, ratio_from_intervals};
pub use crate::verdict::Verdict;
use crate::verdict::{
    HOST_CLOCK_NOTE, RATIO_ONLY_NOTE, checks_changed, clock_changed, host_clock_samples,
    metric_changed, ratio_only, status_got_worse, untimed, verdict_for,
};
use gpubench_results::stats::{BOOTSTRAP_MAX_SAMPLES, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED};

/// How to compare.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CompareOptions {
    /// Noise band for every metric (a fraction: 0.05 = 5%), overriding the per-metric defaults.
    pub noise: Option<f64>,
    /// Give software adapters' verdicts full weight instead of reporting only.
    pub strict: bool,
}

/// Whether the two runs come from the same adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Same fingerprint: verdicts against the noise band.
    SameMachine,
    /// Different fingerprints: ratios only, no verdicts.
    CrossMachine,
}

/// One run's side of a pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// ok, skipped or failed.
    pub status: Status,
    /// Why it was skipped or failed.
    pub reason: Option<String>,
    /// The median, only when the status is ok.
    pub median: Option<f64>,
    /// Lower end of the median's own 95% interval, when the status is ok and there is one.
    pub ci_low: Option<f64>,
    /// Upper end of the median's own 95% interval, when the status is ok and there is one.
    pub ci_high: Option<f64>,
    /// Number of raw samples.
    pub samples: usize,
    /// What part the result plays (measured in its own right, or derived from others): what
    /// the tracking exports go by.
    #[serde(default)]
    pub role: gpubench_results::Role,
    /// The clock that timed the result's headline samples, where it was timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<gpubench_results::TimingSource>,
}

impl Side {
    fn of(result: &BenchResult) -> Self {
        // A single value (a probe, a derived figure) has no interval.
        let interval = result
            .summary
            .as_ref()
            .filter(|s| result.status == Status::Ok && s.has_interval());
        Self {
            status: result.status,
            reason: result.reason.clone(),
            median: result.median(),
            ci_low: interval.map(|s| s.ci_low),
            ci_high: interval.map(|s| s.ci_high),
            samples: result.samples.len(),
            role: result.role,
            timing: result.timing,
        }
    }

    /// As [`Side::of`], with the median and interval of `host` (the result's samples by the
    /// host clock): the side a pair judged by the host clock shows, so the medians printed
    /// are the ones its ratio divides.
    fn by_host_clock(result: &BenchResult, host: &[f64]) -> Self {
        let summary = gpubench_results::stats::summarize(host);
        let interval = summary.as_ref().filter(|s| s.has_interval());
        Self {
            median: summary.as_ref().map(|s| s.median),
            ci_low: interval.map(|s| s.ci_low),
            ci_high: interval.map(|s| s.ci_high),
            samples: host.len(),
            ..Self::of(result)
        }
    }
}

/// The comparison of one benchmark id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairComparison {
    /// The result id both runs share.
    pub id: String,
    /// Suite name.
    pub suite: String,
    /// What the numbers measure.
    pub metric: gpubench_results::MetricKind,
    /// Unit of the medians.
    pub unit: String,
    /// Whether larger values are better.
    pub higher_is_better: bool,
    /// The base run's result; absent when the id is new.
    pub base: Option<Side>,
    /// The new run's result; absent when the id is missing.
    pub new: Option<Side>,
    /// Oriented ratio (> 1 faster) and its interval, when both sides have numbers.
    pub ratio: Option<RatioEstimate>,
    /// The noise band applied (a fraction).
    pub band: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// Whether this pair counts as a regression (before report-only and --no-fail apply).
    pub regression: bool,
    /// Extra explanation (e.g. the status change, or a changed unit).
    #[serde(default)]
    pub note: Option<String>,
    /// A timing change (improved or regressed) no larger than the noise either run measured
    /// on itself ([`Comparison::run_noise`]): the machine moved that much during a run, so the
    /// change alone is no evidence. The verdict and the gate are unchanged; readers are told.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub within_run_noise: bool,
}

/// What a comparison's gate concludes ([`Comparison::outcome`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GateOutcome {
    /// Nothing gates.
    Pass,
    /// A result got worse, or a timing regressed beyond the band on a machine quiet enough
    /// to tell.
    Regressed,
    /// Timing regressions only, on a run noisier than their band: too noisy to judge.
    TooNoisy {
        /// The larger run's own noise level (a fraction).
        level: f64,
        /// The widest band of the regressions (a fraction).
        band: f64,
    },
}

/// A run as named in a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunLabel {
    /// The label the caller gave (usually the file path).
    pub label: String,
    /// Adapter name.
    pub adapter: String,
    /// Adapter fingerprint.
    pub fingerprint: String,
    /// When the run started.
    pub started_at: String,
    /// Whether the adapter is a software adapter.
    pub software_adapter: bool,
    /// Whether the run finished: an interrupted run lacks the results it never reached.
    #[serde(default = "finished")]
    pub complete: bool,
}

/// Comparisons written before `complete` was recorded compared finished runs only.
fn finished() -> bool {
    true
}

impl RunLabel {
    /// The label of `doc`, called `label`.
    pub fn of(label: &str, doc: &RunDocument) -> Self {
        Self {
            label: label.to_string(),
            adapter: doc.machine.adapter.name.clone(),
            fingerprint: doc.machine.fingerprint.clone(),
            started_at: doc.started_at.clone(),
            software_adapter: doc.machine.software_adapter,
            complete: doc.complete,
        }
    }
}

/// The comparison of a new run against a base run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The reference run.
    pub base: RunLabel,
    /// The run being judged.
    pub new: RunLabel,
    /// Same machine (verdicts) or across machines (ratios only).
    pub mode: Mode,
    /// What differs between the two runs' machines and set-ups.
    pub differences: Vec<Difference>,
    /// Timing verdicts are reported but never fail: a software adapter without `--strict`, or
    /// set-ups that differ in build profile or logging ([`Comparison::report_only_reason`]).
    pub report_only: bool,
    /// The `--noise` override in force, as a fraction.
    pub noise_override: Option<f64>,
    /// One entry per id, in the base run's order, then ids only in the new run.
    pub pairs: Vec<PairComparison>,
    /// Each run's own noise level, where it measured one.
    #[serde(default, skip_serializing_if = "RunNoiseLevels::is_empty")]
    pub run_noise: RunNoiseLevels,
    /// Bootstrap resamples behind every ratio interval: `BOOTSTRAP_RESAMPLES`, or fewer where
    /// the files are large enough that the full count would take minutes.
    #[serde(default = "full_resamples")]
    pub bootstrap_resamples: usize,
}

/// Comparisons written before the count was recorded used the full count.
fn full_resamples() -> usize {
    BOOTSTRAP_RESAMPLES
}

/// The noise levels two runs measured on themselves (their `noise.level`, a fraction).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RunNoiseLevels {
    /// The base run's level.
    pub base: Option<f64>,
    /// The new run's level.
    pub new: Option<f64>,
}

impl RunNoiseLevels {
    /// The levels of `base` and `new`.
    pub fn of(base: &RunDocument, new: &RunDocument) -> Self {
        let level = |doc: &RunDocument| doc.noise.as_ref().and_then(|n| n.level);
        Self {
            base: level(base),
            new: level(new),
        }
    }

    /// Whether neither run measured its noise.
    pub fn is_empty(&self) -> bool {
        self.base.is_none() && self.new.is_none()
    }

    /// The larger of the two levels, where either was measured.
    pub fn worst(&self) -> Option<f64> {
        self.base.into_iter().chain(self.new).reduce(f64::max)
    }
}

/// Whether `pair`'s timing change is no larger than `level`, both as factors either way: a
/// machine that moved 2x (level 1.0) explains a result 2x slower, not 10x.
fn within_noise(pair: &PairComparison, level: Option<f64>) -> bool {
    let (Some(level), Some(ratio)) = (level, &pair.ratio) else {
        return false;
    };
    let factor = ratio.ratio.max(1.0 / ratio.ratio);
    matches!(pair.verdict, Verdict::Improved | Verdict::Regressed) && factor - 1.0 <= level
}

impl Comparison {
    /// Pairs that count as regressions, before report-only applies.
    pub fn regressions(&self) -> impl Iterator<Item = &PairComparison> {
        self.pairs.iter().filter(|p| p.regression)
    }

    /// Why timing verdicts only report, where they do: the set-up that differs first, else the
    /// software adapter.
    pub fn report_only_reason(&self) -> Option<ReportOnly<'_>> {
        if !self.report_only {
            return None;
        }
        let field = |name: &str| self.differences.iter().find(|d| d.field == name);
        Some(if let Some(build) = field("build") {
            ReportOnly::Build(build)
        } else if let Some(profile) = field("profile") {
            ReportOnly::Profile(profile)
        } else if let Some(logging) = self.differences.iter().find(|d| d.slows_one_run()) {
            ReportOnly::Logging(logging)
        } else {
            ReportOnly::SoftwareAdapter
        })
    }

    /// Whether the comparison should fail a gate (exit 3): a status change to worse always does;
    /// a timing regression does unless the comparison is report-only.
    pub fn fails_gate(&self) -> bool {
        self.gating().next().is_some()
    }

    /// The regressions that fail the gate: every status change to worse and every new result
    /// that failed, and timing regressions unless the comparison is report-only.
    pub fn gating(&self) -> impl Iterator<Item = &PairComparison> {
        self.regressions().filter(|p| {
            matches!(
                p.verdict,
                Verdict::StatusChanged | Verdict::Failed | Verdict::Missing
            ) || !self.report_only
        })
    }

    /// What the gate concludes: [`GateOutcome::Pass`] when nothing gates; a regression when
    /// a result got worse (failed, lost) or a timing regression is larger than the runs' own
    /// noise; and [`GateOutcome::TooNoisy`] when the only gating regressions are timings, each
    /// no larger than the noise either run measured on itself (which is then above their band):
    /// that machine could not tell them from its own drift, so the gate neither passes nor
    /// fails them.
    pub fn outcome(&self) -> GateOutcome {
        let gating: Vec<&PairComparison> = self.gating().collect();
        if gating.is_empty() {
            return GateOutcome::Pass;
        }
        let within_noise = gating
            .iter()
            .all(|p| p.verdict == Verdict::Regressed && p.within_run_noise);
        match self.run_noise.worst() {
            Some(level) if within_noise => GateOutcome::TooNoisy {
                level,
                band: gating.iter().map(|p| p.band).fold(0.0, f64::max),
            },
            _ => GateOutcome::Regressed,
        }
    }

    /// How many pairs have each verdict, in a stable order.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for pair in &self.pairs {
            *counts.entry(pair.verdict.as_str()).or_insert(0) += 1;
        }
        counts
    }
}

/// Why a comparison's timing verdicts only report ([`Comparison::report_only_reason`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportOnly<'a> {
    /// The runs are builds of different profiles (a debug build's timings say little about a
    /// release build's): never gated, strict or not.
    Build(&'a Difference),
    /// The runs used different profiles, which time their samples differently (warm-up, sample
    /// length, the variation aimed at): never gated, strict or not.
    Profile(&'a Difference),
    /// One run logged above warn and the other did not: never gated, strict or not.
    Logging(&'a Difference),
    /// A software adapter, whose timings swing with the host's load: gated only when strict.
    SoftwareAdapter,
}

/// Compares `new` against `base`. Pure: the same documents and options always give the same
/// comparison (the bootstrap seed is fixed).
pub fn compare(
    base_label: &str,
    base: &RunDocument,
    new_label: &str,
    new: &RunDocument,
    options: &CompareOptions,
) -> Comparison {
    let mode = if same_machine(&base.machine, &new.machine) {
        Mode::SameMachine
    } else {
        Mode::CrossMachine
    };
    let software = base.machine.software_adapter || new.machine.software_adapter;
    // A debug build's timings say little about a release build's (and the reverse): across
    // build profiles timing verdicts never gate, --strict or not; status changes still do.
    let build_differs = base.machine.build_profile != new.machine.build_profile;
    // Likewise across profiles: quick's 20 ms warm-up and 2 ms samples time a kernel otherwise
    // than default's 200 ms and 5 ms (a clock still ramping, per-submit costs over a shorter
    // sample), so an id both profiles run is not measured alike.
    let profile_differs = base.config.profile != new.config.profile;
    // Likewise when one run logged above warn and the other did not.
    let differences = machine_differences(base, new);
    let logging_differs = differences.iter().any(Difference::slows_one_run);
    let report_only = mode == Mode::SameMachine
        && ((software && !options.strict) || build_differs || profile_differs || logging_differs);
    let new_by_id: BTreeMap<&str, &BenchResult> =
        new.results.iter().map(|r| (r.id.as_str(), r)).collect();
    let bootstrap_resamples = resamples_within_budget(base, &new_by_id);
    let band_options = BandOptions {
        software,
        same_device: same_device(base, new),
        noise: options.noise,
        resamples: bootstrap_resamples,
    };

    let base_ids: std::collections::BTreeSet<&str> =
        base.results.iter().map(|r| r.id.as_str()).collect();
    let mut pairs: Vec<PairComparison> = base
        .results
        .iter()
        .map(|b| match new_by_id.get(b.id.as_str()) {
            Some(n) => judge_pair(b, n, mode, band_options),
            None => {
                let mut missing = one_sided(b, None, band_options);
                if should_have_measured(b, base, new, mode, band_options.same_device) {
                    missing.regression = true;
                    missing.note = Some(LOST_RESULT.to_string());
                }
                missing
            }
        })
        .collect();
    pairs.extend(
        new.results
            .iter()
            .filter(|n| !base_ids.contains(n.id.as_str()))
            .map(|n| one_sided(n, Some(n), band_options)),
    );
    let run_noise = RunNoiseLevels::of(base, new);
    for pair in &mut pairs {
        pair.within_run_noise = within_noise(pair, run_noise.worst());
    }

    Comparison {
        base: RunLabel::of(base_label, base),
        new: RunLabel::of(new_label, new),
        mode,
        differences,
        report_only,
        noise_override: options.noise,
        pairs,
        run_noise,
        bootstrap_resamples,
    }
}

/// Most samples the bootstrap of one comparison draws in all (each resample of a pair draws
/// as many as both sides keep, at most `BOOTSTRAP_MAX_SAMPLES` each): a few seconds of work.
pub const BOOTSTRAP_DRAW_BUDGET: u64 = 400_000_000;

/// Fewest resamples an interval gets, however large the files.
pub const MIN_BOOTSTRAP_RESAMPLES: usize = 200;

/// The resamples every pair's interval gets: `BOOTSTRAP_RESAMPLES`, or fewer (never under
/// [`MIN_BOOTSTRAP_RESAMPLES`]) where the files' results and samples would draw more than
/// [`BOOTSTRAP_DRAW_BUDGET`] samples, so that no file costs minutes to compare. The count
/// depends only on the files, so the same files always give the same intervals.
fn resamples_within_budget(base: &RunDocument, new_by_id: &BTreeMap<&str, &BenchResult>) -> usize {
    let kept = |r: &BenchResult| r.samples.len().min(BOOTSTRAP_MAX_SAMPLES) as u64;
    let per_resample: u64 = base
        .results
        .iter()
        .filter_map(|b| Some(kept(b) + kept(new_by_id.get(b.id.as_str())?)))
        .sum();
    let affordable = BOOTSTRAP_DRAW_BUDGET / per_resample.max(1);
    usize::try_from(affordable)
        .unwrap_or(usize::MAX)
        .clamp(MIN_BOOTSTRAP_RESAMPLES, BOOTSTRAP_RESAMPLES)
}

#[derive(Debug, Clone, Copy)]
struct BandOptions {
    software: bool,
    /// Both runs are of the same kind of device (PCI vendor and device id, backend), though
    /// not the same machine: a newer driver, another host CPU under a software adapter.
    same_device: bool,
    noise: Option<f64>,
    /// Bootstrap resamples per interval ([`resamples_within_budget`]).
    resamples: usize,
}

/// Whether a status change fails the gate. On one machine, any loss does (ok -> failed, ok ->
/// skipped, skipped -> failed; a derived value left unresolved is none, [`status_got_worse`]).
/// Across machines, a new failure always does (a wrong answer is wrong on every adapter), and
/// ok -> skipped does where both are the same kind of device (a CI runner with another driver
/// or host CPU that lost a feature); between different cards a skipped result is a fact about
/// the cards.
fn status_regressed(base: &BenchResult, new: &BenchResult, mode: Mode, same_device: bool) -> bool {
    match mode {
        Mode::SameMachine => status_got_worse(base, new),
        Mode::CrossMachine => {
            (new.status == Status::Failed && base.status != Status::Failed)
                || (same_device && status_got_worse(base, new))
        }
    }
}

/// Whether two runs are of one machine, as the baseline store keys them: the same adapter
/// (its fingerprint), and on a software adapter, whose device is the host's CPU, the same CPU
/// model too (lavapipe on an EPYC and on a Xeon are two machines, with one adapter name).
fn same_machine(base: &MachineInfo, new: &MachineInfo) -> bool {
    let software = base.software_adapter || new.software_adapter;
    base.fingerprint == new.fingerprint
        && (!software || slug(&base.cpu_model) == slug(&new.cpu_model))
}

/// Both runs' adapters are the same kind of device: PCI vendor and device id, and backend.
fn same_device(base: &RunDocument, new: &RunDocument) -> bool {
    let (b, n) = (&base.machine.adapter, &new.machine.adapter);
    b.vendor_id == n.vendor_id && b.device_id == n.device_id && b.backend == n.backend
}

/// Why a missing result fails the gate.
const LOST_RESULT: &str =
    "lost: the new run ran its suite with the same profile and options on this kind of device";

/// Whether the new run lost `result`, a base result it lacks: the base timed it (status ok,
/// not derived or probed: a cache level or a fit the sweep did not find this time is no loss),
/// and the new run was to measure the same ids: it ran the result's suite, with the same
/// profile and options, on the same machine, or on the same kind of device where that device
/// is not the host's CPU (ids carry sizes chosen for the card, and a software adapter's memory
/// sweep is sized by the host's caches, so another card's or another CPU's ids differ by
/// design). A run stopped part way lacks the rest of its planned suites' results, and loses
/// them too.
fn should_have_measured(
    result: &BenchResult,
    base: &RunDocument,
    new: &RunDocument,
    mode: Mode,
    same_device: bool,
) -> bool {
    let software = base.machine.software_adapter || new.machine.software_adapter;
    result.status == Status::Ok
        && !untimed(result)
        && (mode == Mode::SameMachine || (same_device && !software))
        && new.config.suites.contains(&result.suite)
        && base.config.profile == new.config.profile
        && same_options(&base.config.options, &new.config.options)
}

/// Whether two runs' options are the same, over the options both record. An option one run
/// does not record was no option of the gpubench that made it, and a newer gpubench records
/// every option at its default (`coop_matrix: true`, `datapath_requests: []`), which is what
/// the older one did: read as a difference, every comparison against an older baseline would
/// let a lost result pass.
pub(crate) fn same_options(
    a: &BTreeMap<String, serde_json::Value>,
    b: &BTreeMap<String, serde_json::Value>,
) -> bool {
    a.iter()
        .all(|(key, value)| b.get(key).is_none_or(|other| other == value))
}

/// A result present in one run only: `new` is `Some` when it is the new run's.
fn one_sided(result: &BenchResult, new: Option<&BenchResult>, band: BandOptions) -> PairComparison {
    let side = Some(Side::of(result));
    let (base_side, new_side, verdict) = match new {
        Some(_) if result.status == Status::Failed => (None, side, Verdict::Failed),
        Some(_) => (None, side, Verdict::New),
        None => (side, None, Verdict::Missing),
    };
    PairComparison {
        id: result.id.clone(),
        suite: result.suite.clone(),
        metric: result.metric,
        unit: result.unit.clone(),
        higher_is_better: result.higher_is_better,
        base: base_side,
        new: new_side,
        ratio: None,
        band: band_for(result.metric, band.software, band.noise),
        verdict,
        regression: verdict == Verdict::Failed,
        note: None,
        within_run_noise: false,
    }
}

/// The verdict on a result present in both runs.
fn judge_pair(
    base: &BenchResult,
    new: &BenchResult,
    mode: Mode,
    band: BandOptions,
) -> PairComparison {
    // The base run defines what the number means; the new run is judged against it.
    let band_value = band_for(base.metric, band.software, band.noise);
    let mut pair = PairComparison {
        id: base.id.clone(),
        suite: base.suite.clone(),
        metric: base.metric,
        unit: base.unit.clone(),
        higher_is_better: base.higher_is_better,
        base: Some(Side::of(base)),
        new: Some(Side::of(new)),
        ratio: None,
        band: band_value,
        verdict: Verdict::Inconclusive,
        regression: false,
        note: None,
        within_run_noise: false,
    };
    if settled_without_ratio(&mut pair, base, new, mode, band.same_device) {
        return pair;
    }
    judge_values(&mut pair, base, new, mode, band);
    pair
}

/// Settles `pair` where no ratio can be judged: a status that changed (judged as such), a
/// result not measured, a metric this build does not know or that changed meaning. `false`
/// where the values are to be judged.
fn settled_without_ratio(
    pair: &mut PairComparison,
    base: &BenchResult,
    new: &BenchResult,
    mode: Mode,
    same_device: bool,
) -> bool {
    if base.status != new.status {
        pair.verdict = Verdict::StatusChanged;
        pair.note = Some(format!(
            "{} -> {}",
            base.status.as_str(),
            new.status.as_str()
        ));
        pair.regression = status_regressed(base, new, mode, same_device);
        return true;
    }
    if new.status == Status::Failed {
        // Failed in both runs: still a failure of the new run, whatever the base said.
        pair.verdict = Verdict::Failed;
        pair.regression = true;
        pair.note = Some("failed in both runs".to_string());
        return true;
    }
    if base.status != Status::Ok {
        pair.verdict = Verdict::NotMeasured;
        return true;
    }
    if let Some(unknown) = unknown_metric(base, new) {
        // Which way is better for a metric this build does not know is not known here: the
        // file's `higher_is_better` is shown, but a ratio "oriented so > 1 is faster" or a
        // verdict would take it on trust. Status changes above are judged all the same: a
        // failure is one whatever the metric.
        pair.verdict = Verdict::NotJudged;
        pair.note = Some(format!(
            "not judged: metric kind '{unknown}' unknown to this gpubench"
        ));
        return true;
    }
    if let Some(changed) = metric_changed(base, new) {
        pair.note = Some(changed);
        return true;
    }
    false
}

/// Judges the values of a pair both runs measured with one metric: ratio only for derived
/// values, for kernels built with different shader checks and across machines, inconclusive
/// across clocks, else the verdict of the ratio's
/// interval against the band.
fn judge_values(
    pair: &mut PairComparison,
    base: &BenchResult,
    new: &BenchResult,
    mode: Mode,
    band: BandOptions,
) {
    let band_value = pair.band;
    if ratio_only(base) || ratio_only(new) {
        pair.ratio = estimate(base, new, band.resamples);
        pair.verdict = Verdict::RatioOnly;
        pair.note = Some(RATIO_ONLY_NOTE.to_string());
        return;
    }
    if let Some(checks) = checks_changed(base, new) {
        pair.ratio = estimate(base, new, band.resamples);
        pair.verdict = Verdict::RatioOnly;
        pair.note = Some(checks);
        return;
    }
    let mut by_host_clock = None;
    if let Some(clocks) = clock_changed(base, new) {
        let Some(sides) = host_clock_pair(base, new) else {
            // No ratio: GPU time over host time (submit to completion) says nothing about
            // the runs, as the cross-card table says too.
            pair.verdict = Verdict::Inconclusive;
            pair.note = Some(clocks);
            return;
        };
        // A run that lost its timestamps (a driver, a backend) is judged all the same: the
        // timestamped run kept its host-clock samples, so both sides are the same clock, and
        // both show that clock's medians.
        pair.base = Some(Side::by_host_clock(base, sides.0));
        pair.new = Some(Side::by_host_clock(new, sides.1));
        by_host_clock = Some(sides);
        pair.note = Some(HOST_CLOCK_NOTE.to_string());
    }
    pair.ratio = match by_host_clock {
        Some((b, n)) => ratio_ci_with(b, n, new.higher_is_better, band.resamples, BOOTSTRAP_SEED),
        None => estimate(base, new, band.resamples),
    };
    let too_few = too_few_samples(base, "base").or_else(|| too_few_samples(new, "new"));
    pair.verdict = match (mode, pair.ratio) {
        (Mode::CrossMachine, _) => Verdict::RatioOnly,
        (Mode::SameMachine, Some(_)) if too_few.is_some() => {
            // Beside the host-clock note, where the pair has one.
            pair.note = match (pair.note.take(), too_few) {
                (Some(note), Some(few)) => Some(format!("{note}; {few}")),
                (note, few) => few.or(note),
            };
            Verdict::Inconclusive
        }
        (Mode::SameMachine, Some(ratio)) => verdict_for(&ratio, band_value),
        (Mode::SameMachine, None) => {
            pair.note = Some(no_ratio_reason(base, new));
            Verdict::Inconclusive
        }
    };
    pair.regression = pair.verdict == Verdict::Regressed;
}

/// Why `side`'s result has too few samples for a verdict: fewer than give its median an
/// interval of the coverage `ab` asks of its rounds ([`FEWEST`], whose range covers 93.75%;
/// the runner's profiles take six or more, but `--samples 2` and a time cap can leave fewer),
/// where one or two samples would turn any difference into a verdict. `None` where they
/// suffice.
fn too_few_samples(r: &BenchResult, side: &str) -> Option<String> {
    let n = r.summary.as_ref()?.n;
    (n < FEWEST).then(|| {
        format!("too few samples to judge: the {side} run has {n}, a verdict needs {FEWEST} a side")
    })
}

/// Both sides' samples by the host clock (submit to completion), where one run timed a result
/// by GPU timestamps and the other by the host: the timestamped run keeps its host-clock
/// samples beside its headline ones. `None` without two such samples a side.
fn host_clock_pair<'a>(
    base: &'a BenchResult,
    new: &'a BenchResult,
) -> Option<(&'a [f64], &'a [f64])> {
    let (b, n) = (host_clock_samples(base)?, host_clock_samples(new)?);
    (b.len() >= 2 && n.len() >= 2).then_some((b, n))
}

/// The metric of `base` or `new` that this gpubench does not know, if either is one.
fn unknown_metric(base: &BenchResult, new: &BenchResult) -> Option<MetricKind> {
    [base.metric, new.metric]
        .into_iter()
        .find(|m| !m.is_known())
}

/// Why two ok results have no ratio.
fn no_ratio_reason(base: &BenchResult, new: &BenchResult) -> String {
    let zero = |r: &BenchResult| r.median() == Some(0.0);
    if zero(base) {
        "no ratio: the base median is zero, nothing to compare against".to_string()
    } else if zero(new) && !new.higher_is_better {
        "no ratio: the new median is a time of zero, not a measurement".to_string()
    } else {
        "no ratio: samples missing, negative or not finite".to_string()
    }
}

/// The ratio from raw samples, or from the summaries' intervals when samples were not kept.
fn estimate(base: &BenchResult, new: &BenchResult, resamples: usize) -> Option<RatioEstimate> {
    if base.samples.len() >= 2 && new.samples.len() >= 2 {
        return ratio_ci_with(
            &base.samples,
            &new.samples,
            new.higher_is_better,
            resamples,
            BOOTSTRAP_SEED,
        );
    }
    let (b, n) = (base.summary.as_ref()?, new.summary.as_ref()?);
    ratio_from_intervals(
        (b.median, b.ci_low, b.ci_high),
        (n.median, n.ci_low, n.ci_high),
        new.higher_is_better,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{doc_with, gpu_timed, lost_timestamps, not_ok_result, ok_result, scaled};
    use gpubench_results::Role;
    use proptest::prelude::*;

    #[test]
    fn large_files_get_fewer_resamples_within_the_budget_and_small_ones_all() {
        let base = doc_with("gpu", false);
        let small = compare("a", &base, "b", &base, &CompareOptions::default());
        assert_eq!(small.bootstrap_resamples, BOOTSTRAP_RESAMPLES);
        // 200 results of 4096 samples a side: the full count would draw 3.3e9 samples.
        let mut big = base.clone();
        let template = big.results[0].clone();
        big.results = (0..200)
            .map(|i| {
                let mut r = template.clone();
                r.id = format!("stream/r{i}");
                r.samples = (0..4096).map(|k| 100.0 + f64::from(k % 7)).collect();
                r
            })
            .collect();
        let cmp = compare("a", &big, "b", &big, &CompareOptions::default());
        let draws = 200 * 2 * 4096;
        assert_eq!(
            cmp.bootstrap_resamples,
            (BOOTSTRAP_DRAW_BUDGET / draws) as usize
        );
        assert!(cmp.bootstrap_resamples < BOOTSTRAP_RESAMPLES);
        assert!(cmp.pairs.iter().all(|p| p.verdict == Verdict::Unchanged));
    }

    /// One or two samples a side give no verdict, however far apart: their "interval" is the
    /// samples themselves. Five a side (the fewest whose range covers 90%: 93.75%) do.
    #[test]
    fn too_few_samples_a_side_are_too_noisy_to_judge() {
        let base = doc_with("gpu", false);
        let judged = |n: usize| {
            let keep = |doc: &mut RunDocument, scale: f64| {
                let r = &mut doc.results[0];
                r.samples = r.samples.iter().take(n).map(|v| v * scale).collect();
                r.summary = gpubench_results::stats::summarize(&r.samples);
            };
            let (mut b, mut slower) = (base.clone(), base.clone());
            keep(&mut b, 1.0);
            keep(&mut slower, 0.5);
            compare("a", &b, "b", &slower, &CompareOptions::default()).pairs[0].clone()
        };
        for n in [1, 2, 4] {
            let pair = judged(n);
            assert_eq!(pair.verdict, Verdict::Inconclusive, "{n} a side");
            assert!(!pair.regression);
            let note = pair.note.unwrap_or_default();
            assert!(
                note.contains(&format!("has {n}, a verdict needs 5")),
                "{note}"
            );
        }
        assert_eq!(judged(5).verdict, Verdict::Regressed);
    }

    #[test]
    fn a_flipped_direction_is_named_in_the_note() {
        let base = doc_with("gpu", false);
        let mut flipped = base.clone();
        flipped.results[0].higher_is_better = !flipped.results[0].higher_is_better;
        let cmp = compare("a", &base, "b", &flipped, &CompareOptions::default());
        let note = cmp.pairs[0].note.as_deref().unwrap_or_default();
        let unit = &base.results[0].unit;
        assert_eq!(
            note,
            format!(
                "metric changed ({unit}, higher is better -> {unit}, lower is better): not comparable"
            )
        );
    }

    #[test]
    fn a_run_that_lost_its_timestamps_is_judged_by_the_host_clock_on_both_sides() {
        let mut base = doc_with("gpu", false);
        // The host clock adds its submit and wake-up overhead to every sample.
        gpu_timed(&mut base.results[1], 1.5);
        let host_timed = |slowdown: f64| {
            let mut new = base.clone();
            lost_timestamps(&mut new.results[1], slowdown);
            compare("b", &base, "n", &new, &CompareOptions::default())
        };
        // The same speed by the host clock: unchanged, though the headline clocks differ 1.5x.
        let same = host_timed(1.0);
        assert_eq!(
            same.pairs[1].verdict,
            Verdict::Unchanged,
            "{:?}",
            same.pairs[1]
        );
        assert_eq!(same.pairs[1].note.as_deref(), Some(HOST_CLOCK_NOTE));
        // Both sides show the host clock's medians, the ones the ratio divides.
        let median = |side: &Option<Side>| side.as_ref().and_then(|s| s.median);
        let host_median = gpubench_results::stats::median(&base.results[1].host_samples);
        assert_eq!(median(&same.pairs[1].base), Some(host_median));
        assert_eq!(median(&same.pairs[1].new), Some(host_median));
        // Three times slower by the host clock: a regression, which fails the gate.
        let slow = host_timed(3.0);
        assert_eq!(slow.pairs[1].verdict, Verdict::Regressed);
        assert!(slow.fails_gate());
    }

    #[test]
    fn derived_values_get_ratios_and_mixed_clocks_no_verdict() {
        let mut base = doc_with("gpu", false);
        base.results[0].timing = None; // a derived value (fit, ceiling, fraction of peak)
        base.results[1].timing = Some(gpubench_results::TimingSource::Host);
        let mut slow = scaled(&base, 1.3);
        slow.results[1].timing = Some(gpubench_results::TimingSource::GpuTimestamp);
        let cmp = compare("base", &base, "slow", &slow, &CompareOptions::default());
        let derived = &cmp.pairs[0];
        assert_eq!(derived.verdict, Verdict::RatioOnly);
        assert!(derived.ratio.is_some() && !derived.regression);
        let mixed = &cmp.pairs[1];
        assert_eq!(mixed.verdict, Verdict::Inconclusive);
        // No host samples on one side: no ratio of GPU time to host time either.
        assert_eq!(mixed.ratio, None);
        assert!(
            mixed
                .note
                .as_deref()
                .is_some_and(|n| n.contains("not comparable"))
        );
        // The remaining results were measured by the same clock and regressed as usual.
        assert!(
            cmp.pairs[2..]
                .iter()
                .all(|p| p.verdict == Verdict::Regressed)
        );
    }

    #[test]
    fn thirty_percent_slower_regresses_and_one_percent_does_not() {
        let base = doc_with("gpu", false);
        let slow = scaled(&base, 1.3);
        let cmp = compare("base", &base, "slow", &slow, &CompareOptions::default());
        assert_eq!(cmp.mode, Mode::SameMachine);
        assert!(
            cmp.pairs.iter().all(|p| p.verdict == Verdict::Regressed),
            "{cmp:#?}"
        );
        assert!(cmp.fails_gate());
        let same = scaled(&base, 1.01);
        let cmp = compare("base", &base, "same", &same, &CompareOptions::default());
        assert!(
            cmp.pairs.iter().all(|p| p.verdict == Verdict::Unchanged),
            "{cmp:#?}"
        );
        assert!(!cmp.fails_gate());
    }

    /// A run noise level of `level` (a fraction) on `doc`.
    fn with_noise(mut doc: RunDocument, level: f64) -> RunDocument {
        let mut noise = gpubench_results::run_noise::RunNoise::new("ref", "GFLOP/s");
        noise.level = Some(level);
        doc.noise = Some(noise);
        doc
    }

    #[test]
    fn changes_no_larger_than_the_runs_own_noise_are_marked_but_still_judged() {
        let base = doc_with("gpu", false);
        let slow = scaled(&base, 1.3);
        // No noise measured: nothing is marked.
        let cmp = compare("base", &base, "slow", &slow, &CompareOptions::default());
        assert_eq!(cmp.run_noise.worst(), None);
        assert!(cmp.pairs.iter().all(|p| !p.within_run_noise));
        // The new run moved 40% on itself: a 23% slower rate is within it, still regressed.
        let noisy = with_noise(slow.clone(), 0.4);
        let cmp = compare("base", &base, "slow", &noisy, &CompareOptions::default());
        assert_eq!(cmp.run_noise.new, Some(0.4));
        assert!(cmp.pairs.iter().all(|p| p.verdict == Verdict::Regressed));
        assert!(cmp.pairs.iter().all(|p| p.within_run_noise), "{cmp:#?}");
        assert!(cmp.fails_gate(), "the gate is unchanged");
        // A machine that moved 2x (level 1.0) explains a result 2x slower, not 10x.
        let moved = |factor: f64| {
            let noisy = with_noise(scaled(&base, factor), 1.0);
            let cmp = compare("base", &base, "slow", &noisy, &CompareOptions::default());
            cmp.pairs.iter().all(|p| p.within_run_noise)
        };
        assert!(moved(1.9));
        assert!(!moved(10.0));
        // A quiet pair of runs (2%): the same change is beyond it.
        let cmp = compare(
            "base",
            &with_noise(base.clone(), 0.02),
            "slow",
            &with_noise(slow, 0.01),
            &CompareOptions::default(),
        );
        assert_eq!(cmp.run_noise.worst(), Some(0.02));
        assert!(cmp.pairs.iter().all(|p| !p.within_run_noise));
    }

    #[test]
    fn timing_regressions_on_a_run_noisier_than_their_band_are_too_noisy_to_judge() {
        let base = doc_with("gpu", false);
        let slow = scaled(&base, 1.3);
        let judge = |new: &RunDocument| {
            compare("base", &base, "slow", new, &CompareOptions::default()).outcome()
        };
        // No noise measured, or a quiet run: a regression.
        assert_eq!(judge(&slow), GateOutcome::Regressed);
        assert_eq!(
            judge(&with_noise(slow.clone(), 0.02)),
            GateOutcome::Regressed
        );
        // The run moved 40% on itself, over both bands (5% and 10%): too noisy to judge.
        assert_eq!(
            judge(&with_noise(slow.clone(), 0.4)),
            GateOutcome::TooNoisy {
                level: 0.4,
                band: 0.10
            }
        );
        // Noise above both bands but below the change (23%): judged, a regression.
        assert_eq!(
            judge(&with_noise(slow.clone(), 0.15)),
            GateOutcome::Regressed
        );
        // A 2.2x slowdown is far beyond 40% of noise: judged too.
        let halved = with_noise(scaled(&base, 2.2), 0.4);
        assert_eq!(judge(&halved), GateOutcome::Regressed);
        // A result that got worse is a regression however noisy the run.
        let mut lost = with_noise(slow, 0.4);
        lost.results[0].status = Status::Failed;
        lost.results[0].summary = None;
        assert_eq!(judge(&lost), GateOutcome::Regressed);
        // Unchanged: nothing to judge.
        assert_eq!(judge(&with_noise(base.clone(), 0.4)), GateOutcome::Pass);
    }

    /// Options that give timings on a software adapter full weight (`--strict`).
    fn strict() -> CompareOptions {
        CompareOptions {
            strict: true,
            ..CompareOptions::default()
        }
    }

    #[test]
    fn software_adapters_report_only_unless_strict() {
        let base = doc_with("lavapipe", true);
        let slow = scaled(&base, 1.5);
        let cmp = compare("b", &base, "n", &slow, &CompareOptions::default());
        assert!(cmp.report_only);
        assert!(cmp.regressions().count() > 0);
        assert!(!cmp.fails_gate());
        let strict = strict();
        assert!(compare("b", &base, "n", &slow, &strict).fails_gate());
    }

    #[test]
    fn a_derived_value_left_unresolved_is_shown_but_fails_no_gate() {
        // A fitted fixed cost the new run's sweep did not resolve (its fit went through the
        // origin), on a software adapter where only status changes gate.
        let mut base = doc_with("lavapipe", true);
        let mut fit = ok_result("transfer/fit/fixed-cost", "time-per-op", "us", 70.0);
        fit.role = Role::Derived;
        fit.timing = None;
        base.results.push(fit);
        let mut new = base.clone();
        let last = new.results.len() - 1;
        new.results[last] =
            not_ok_result("transfer/fit/fixed-cost", Status::Skipped, "not resolved");
        new.results[last].role = Role::Derived;
        let cmp = compare("b", &base, "n", &new, &CompareOptions::default());
        let pair = cmp.pairs.iter().find(|p| p.id == "transfer/fit/fixed-cost");
        let pair = pair.expect("paired");
        assert_eq!(pair.verdict, Verdict::StatusChanged);
        assert!(!pair.regression && !cmp.fails_gate(), "{pair:?}");
        // A kernel row skipped where the base measured it still fails the gate.
        let mut lost = base.clone();
        lost.results[0] = not_ok_result(&base.results[0].id, Status::Skipped, "feature lost");
        assert!(compare("b", &base, "n", &lost, &CompareOptions::default()).fails_gate());
    }

    #[test]
    fn a_software_adapter_on_another_cpu_is_another_machine() {
        // lavapipe, 2.2x slower on another CPU model: timings across CPUs are ratios only.
        let base = doc_with("llvmpipe", true);
        let on_cpu = |doc: &RunDocument, cpu: &str| {
            let mut moved = scaled(doc, 2.2);
            moved.machine.cpu_model = cpu.into();
            compare("b", doc, "n", &moved, &strict())
        };
        let xeon = on_cpu(&base, "Intel(R) Xeon(R) Processor");
        assert_eq!(xeon.mode, Mode::CrossMachine);
        assert!(!xeon.fails_gate());
        // The same CPU is the same machine: --strict judges the slowdown.
        let same = on_cpu(&base, &base.machine.cpu_model);
        assert_eq!(same.mode, Mode::SameMachine);
        assert!(same.fails_gate());
        // A GPU is its card, whatever host it sits in.
        let gpu = doc_with("gpu", false);
        assert_eq!(on_cpu(&gpu, "another host").mode, Mode::SameMachine);
    }

    #[test]
    fn a_result_the_new_run_should_have_measured_and_lacks_fails_the_gate() {
        let mut base = doc_with("gpu", false);
        // Every option is recorded, at its default where not given.
        base.config
            .options
            .insert("stream_size".to_string(), serde_json::Value::Null);
        let mut new = base.clone();
        let gone = new.results.remove(1);
        let cmp = compare("b", &base, "n", &new, &CompareOptions::default());
        let pair = cmp.pairs.iter().find(|p| p.id == gone.id).expect("paired");
        assert_eq!(pair.verdict, Verdict::Missing);
        assert!(pair.regression && cmp.fails_gate(), "{pair:?}");
        assert!(pair.note.as_deref().is_some_and(|n| n.starts_with("lost")));
        // Even where timings only report (a software adapter without --strict).
        let (mut soft_base, mut soft_new) = (base.clone(), new.clone());
        soft_base.machine.software_adapter = true;
        soft_new.machine.software_adapter = true;
        let soft = compare("b", &soft_base, "n", &soft_new, &CompareOptions::default());
        assert!(soft.report_only && soft.fails_gate());

        // A run of other suites, with other options or profile, or on another card was never
        // to measure the same ids: the result is missing, and nothing is lost.
        let mut other_suites = new.clone();
        other_suites.config.suites = vec!["stream".to_string()];
        let mut other_options = new.clone();
        other_options
            .config
            .options
            .insert("stream_size".to_string(), serde_json::json!(1 << 20));
        let mut other_profile = new.clone();
        other_profile.config.profile = "full".to_string();
        let mut other_card = new.clone();
        other_card.machine.adapter.device_id = 0x2330;
        other_card.machine.fingerprint = "another-card".to_string();
        for other in [other_suites, other_options, other_profile, other_card] {
            let cmp = compare("b", &base, "n", &other, &CompareOptions::default());
            let pair = cmp.pairs.iter().find(|p| p.id == gone.id).expect("paired");
            assert_eq!(pair.verdict, Verdict::Missing);
            assert!(!pair.regression && !cmp.fails_gate(), "{pair:?}");
        }

        // A software adapter on another CPU sizes its memory sweep by that CPU's caches: its
        // ids differ by design, though it is the same kind of device.
        let (mut epyc, mut xeon) = (soft_base.clone(), soft_new.clone());
        epyc.machine.cpu_model = "AMD EPYC".to_string();
        xeon.machine.cpu_model = "Intel Xeon".to_string();
        assert!(!compare("b", &epyc, "n", &xeon, &CompareOptions::default()).fails_gate());
        // An option one run does not record was no option of the gpubench that made it: a
        // newer gpubench records its new options at their defaults, whatever they are, and
        // still loses the result, against the older run or from it.
        let mut newer = new.clone();
        for (key, default) in [
            ("a_new_option", serde_json::Value::Null),
            ("coop_matrix", serde_json::json!(true)),
            ("datapath_requests", serde_json::json!([])),
        ] {
            newer.config.options.insert(key.to_string(), default);
        }
        assert!(compare("b", &base, "n", &newer, &CompareOptions::default()).fails_gate());
        let mut newer_base = base.clone();
        newer_base.config.options = newer.config.options.clone();
        assert!(compare("b", &newer_base, "n", &new, &CompareOptions::default()).fails_gate());
        // A derived value (a cache level the sweep did not find this time) is no loss.
        let mut derived_base = base.clone();
        derived_base.results[1].role = gpubench_results::Role::Derived;
        let cmp = compare("b", &derived_base, "n", &new, &CompareOptions::default());
        assert!(!cmp.fails_gate());

        // A result the base never measured (skipped there) loses nothing when it goes.
        let mut skipped_base = base.clone();
        skipped_base.results[1].status = Status::Skipped;
        skipped_base.results[1].summary = None;
        let cmp = compare("b", &skipped_base, "n", &new, &CompareOptions::default());
        assert!(!cmp.fails_gate());
    }

    #[test]
    fn status_changes_new_and_missing() {
        let base = doc_with("gpu", false);
        let mut new = base.clone();
        new.results[0].status = Status::Failed;
        new.results[0].reason = Some("verification failed".to_string());
        new.results[0].summary = None;
        let gone = new.results.remove(1);
        let mut extra = gone.clone();
        extra.id = "stream/extra".to_string();
        new.results.push(extra);
        let mut soft = new.clone();
        soft.machine.software_adapter = true;
        let cmp = compare("b", &base, "n", &new, &CompareOptions::default());
        let verdict = |id: &str| cmp.pairs.iter().find(|p| p.id == id).map(|p| p.verdict);
        assert_eq!(verdict(&base.results[0].id), Some(Verdict::StatusChanged));
        assert_eq!(verdict(&gone.id), Some(Verdict::Missing));
        assert_eq!(verdict("stream/extra"), Some(Verdict::New));
        assert!(cmp.fails_gate());

        // A result only the new run has, that failed there, is a failure, never merely new,
        // and it fails the gate even where timings only report.
        let mut broken_extra = new.clone();
        let last = broken_extra.results.len() - 1;
        broken_extra.results[last].status = Status::Failed;
        broken_extra.results[last].summary = None;
        broken_extra.results[0] = base.results[0].clone();
        let mut soft_base = base.clone();
        soft_base.machine.software_adapter = true;
        broken_extra.machine.software_adapter = true;
        let cmp = compare(
            "b",
            &soft_base,
            "n",
            &broken_extra,
            &CompareOptions::default(),
        );
        let pair = cmp
            .pairs
            .iter()
            .find(|p| p.id == "stream/extra")
            .expect("pair");
        assert_eq!(pair.verdict, Verdict::Failed);
        assert!(cmp.report_only);
        let gating: Vec<&str> = cmp.gating().map(|p| p.id.as_str()).collect();
        // The launch result the new run lacks is lost, and gates too.
        assert_eq!(gating, ["launch/dispatch/1", "stream/extra"]);
        // Report-only never hides a benchmark that started failing.
        let mut soft_base = base.clone();
        soft_base.machine.software_adapter = true;
        let cmp = compare("b", &soft_base, "n", &soft, &CompareOptions::default());
        assert!(cmp.report_only && cmp.fails_gate());
        // A result the base failed too is still a failure of the new run.
        let mut both = soft_base.clone();
        both.results[0].status = Status::Failed;
        let cmp = compare("b", &both, "n", &both, &CompareOptions::default());
        let pair = &cmp.pairs[0];
        assert_eq!((pair.verdict, pair.regression), (Verdict::Failed, true));
        assert_eq!(pair.note.as_deref(), Some("failed in both runs"));
        assert!(cmp.fails_gate());
    }

    #[test]
    fn set_ups_that_differ_in_shader_checks_or_logging_never_gate_on_timings() {
        let base = doc_with("NVIDIA Test", false);
        let mut new = scaled(&base, 1.5);
        let checks = |doc: &mut RunDocument, value: &str| {
            for r in &mut doc.results {
                r.params.insert("shader_checks".into(), value.into());
            }
        };
        let mut checked_base = base.clone();
        checks(&mut checked_base, "off");
        checks(&mut new, "on");
        let cmp = compare("base", &checked_base, "new", &new, &strict());
        assert!(!cmp.fails_gate(), "{:?}", cmp.pairs[0]);
        let pair = &cmp.pairs[0];
        assert_eq!(pair.verdict, Verdict::RatioOnly);
        assert!(pair.ratio.is_some());
        assert_eq!(
            pair.note.as_deref(),
            Some("kernels built with shader checks off then on: different code, ratio only")
        );
        // The same checks on both sides are judged as ever.
        checks(&mut new, "off");
        assert!(compare("base", &checked_base, "new", &new, &strict()).fails_gate());

        let mut logged = scaled(&base, 1.5);
        logged.config.log_filter = Some("wgpu_hal=debug".into());
        let cmp = compare("base", &base, "new", &logged, &strict());
        assert!(!cmp.fails_gate(), "logging slows timings: they only report");
        let Some(ReportOnly::Logging(d)) = cmp.report_only_reason() else {
            panic!("{:?}", cmp.report_only_reason());
        };
        assert_eq!(
            (d.base.as_str(), d.new.as_str()),
            ("warn or quieter", "wgpu_hal=debug")
        );
        // Warnings alone are as quiet as no logging at all.
        logged.config.log_filter = Some("warn".into());
        assert!(compare("base", &base, "new", &logged, &strict()).fails_gate());
        // Two verbose filters slow both runs alike: judged, the difference shown.
        let mut verbose_base = base.clone();
        verbose_base.config.log_filter = Some("info".into());
        logged.config.log_filter = Some("wgpu_hal=debug".into());
        let cmp = compare("base", &verbose_base, "new", &logged, &strict());
        assert!(cmp.fails_gate() && cmp.report_only_reason().is_none());
        assert!(cmp.differences.iter().any(|d| d.field == "logging"));
    }

    /// A run of another build profile, or of another run profile, measures otherwise (a
    /// debug build; other warm-up and sample lengths): its slower figures are found and
    /// reported, say why, and never gate, strict or not; a result that failed still does.
    #[test]
    fn another_build_or_profile_is_never_gated_on_timings_but_status_changes_are() {
        let base = doc_with("NVIDIA Test", false);
        let other_build = |doc: &mut RunDocument| doc.machine.build_profile = "debug".into();
        let other_profile = |doc: &mut RunDocument| doc.config.profile = "default".into();
        for (differ, field) in [
            (&other_build as &dyn Fn(&mut RunDocument), "build"),
            (&other_profile, "profile"),
        ] {
            let mut new = scaled(&base, 1.5);
            differ(&mut new);
            let cmp = compare("base", &base, "new", &new, &strict());
            assert!(cmp.regressions().next().is_some(), "{field}: found");
            assert!(
                cmp.report_only && !cmp.fails_gate(),
                "{field}: only reported"
            );
            let said = match cmp.report_only_reason() {
                Some(ReportOnly::Build(d) | ReportOnly::Profile(d)) => d,
                other => panic!("{field}: {other:?}"),
            };
            assert_eq!(said.field, field);
            new.results[0].status = Status::Failed;
            let cmp = compare("base", &base, "new", &new, &strict());
            assert!(
                cmp.fails_gate(),
                "{field}: ok -> failed fails whatever differs"
            );
        }
    }

    /// The comparison with `base` of `base` run `slowdown` times slower on the machine of
    /// `fingerprint` (its record otherwise changed by `machine`), its first result skipped
    /// there, which must be found to be another machine.
    fn skipped_elsewhere(
        base: &RunDocument,
        slowdown: f64,
        fingerprint: &str,
        machine: impl Fn(&mut gpubench_results::schema::MachineInfo),
    ) -> Comparison {
        let mut other = scaled(base, slowdown);
        other.machine.fingerprint = fingerprint.to_string();
        machine(&mut other.machine);
        other.results[0].status = Status::Skipped;
        let cmp = compare("a", base, "b", &other, &CompareOptions::default());
        assert_eq!(cmp.mode, Mode::CrossMachine);
        cmp
    }

    #[test]
    fn different_fingerprints_give_ratios_and_name_differences() {
        let base = doc_with("gpu", false);
        let cmp = skipped_elsewhere(&base, 0.5, "vulkan-1002-73bf-amd-test", |m| {
            m.adapter.name = "AMD Test".to_string();
            (m.adapter.vendor_id, m.adapter.device_id) = (0x1002, 0x73bf);
        });
        assert!(cmp.differences.iter().any(|d| d.field == "adapter"));
        assert!(
            cmp.pairs
                .iter()
                .skip(1)
                .all(|p| p.verdict == Verdict::RatioOnly && p.ratio.is_some())
        );
        assert!(
            !cmp.fails_gate(),
            "another card skipping a result is a fact about it"
        );
    }

    #[test]
    fn across_machines_a_new_failure_always_gates_and_a_skip_gates_on_the_same_device() {
        let base = doc_with("llvmpipe (LLVM 15.0.6, 256 bits)", true);
        // The same software adapter on a runner with another Mesa: another fingerprint.
        let fingerprint = "vulkan-10005-0000-llvmpipe-llvm-19";
        let cmp = skipped_elsewhere(&base, 2.2, fingerprint, |_| {});
        assert_eq!(
            cmp.gating().count(),
            1,
            "ok -> skipped on the same device gates"
        );
        assert!(
            cmp.pairs.iter().skip(1).all(|p| !p.regression),
            "2.2x slower: ratio only"
        );

        let mut other_card = scaled(&base, 1.0);
        other_card.machine.fingerprint = "vulkan-10de-2335-nvidia".to_string();
        other_card.machine.adapter.vendor_id = 0x10de;
        other_card.results[0].status = Status::Failed;
        let cmp = compare("a", &base, "b", &other_card, &CompareOptions::default());
        assert_eq!(
            cmp.gating().count(),
            1,
            "a wrong answer fails on any adapter"
        );
        other_card.results[0].status = Status::Skipped;
        let cmp = compare("a", &base, "b", &other_card, &CompareOptions::default());
        assert!(!cmp.fails_gate(), "another card's skip does not gate");
    }

    proptest! {
        #[test]
        fn comparison_is_deterministic(factor in 0.5f64..2.0) {
            let base = doc_with("gpu", false);
            let new = scaled(&base, factor);
            let a = compare("b", &base, "n", &new, &CompareOptions::default());
            let b = compare("b", &base, "n", &new, &CompareOptions::default());
            prop_assert_eq!(a, b);
        }

        #[test]
        fn clear_slowdowns_always_regress(factor in 1.2f64..5.0) {
            let base = doc_with("gpu", false);
            let cmp = compare("b", &base, "n", &scaled(&base, factor), &CompareOptions::default());
            prop_assert!(cmp.pairs.iter().all(|p| p.verdict == Verdict::Regressed));
        }
    }
}
