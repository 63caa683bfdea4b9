//! The paired comparison: a base and a head build measured in alternating rounds on one machine,
//! each benchmark judged on its per-round ratios.
//!
//! Two runs taken minutes or days apart on a shared machine differ by whatever else the machine
//! did in between: on a 2-core CI runner that is 2-6x for CPU-bound figures, more than any band a
//! gate could use. Measured in rounds, base and head alternating (A B, B A, A B, ...), both see
//! the same minutes, and the ratio within a round cancels what the machine did to both. Each
//! round gives one ratio per benchmark, of the best samples (the fastest: noise only ever slows
//! a kernel down, so the best sample is the steadiest figure of a loaded run); the judgement is
//! on the median of those ratios, with a distribution-free interval from their order statistics
//! (the sign test's: no assumption about how the machine's noise is spread). The interval is
//! then read against the noise band as every comparison's is ([`verdict_for`]): wholly beyond it
//! is a regression or an improvement, wholly inside it unchanged, and astride an edge "too
//! noisy to judge", an outcome of its own, never a silent pass or a false failure.

use std::collections::BTreeMap;

use gpubench_results::stats::{median_ci_rank, percentile_sorted};
use gpubench_results::{BenchResult, MetricKind, RunDocument, Status};
use serde::{Deserialize, Serialize};

use crate::noise::band_for;
use crate::ratio::{RatioEstimate, oriented};
use crate::verdict::{
    HOST_CLOCK_NOTE, RATIO_ONLY_NOTE, Verdict, clock_changed, host_clock_samples, metric_changed,
    ratio_only, status_got_worse, untimed, verdict_for,
};

/// The least coverage a row's interval must have for a verdict; fewer rounds than give it
/// (five) leave the row too noisy to judge.
pub const COVERAGE: f64 = 0.90;

/// The fewest values whose median has an interval of [`COVERAGE`]: the range of five covers
/// 1 - 2/32 = 93.75%, of four 87.5% (`the_interval_is_the_sign_tests` holds both).
pub const FEWEST: usize = 5;

/// How the rounds are judged.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PairedOptions {
    /// Band override (a fraction) for every metric; the design's default per metric kind and
    /// adapter kind otherwise.
    pub noise: Option<f64>,
}

/// One benchmark over the rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedRow {
    /// The result id.
    pub id: String,
    /// Its suite.
    pub suite: String,
    /// What the values measure.
    pub metric: MetricKind,
    /// Unit of the values.
    pub unit: String,
    /// Whether larger values are better.
    pub higher_is_better: bool,
    /// Each round's oriented ratio of the best samples (above 1 the head is faster), over the
    /// rounds where both builds measured it.
    pub ratios: Vec<f64>,
    /// The median ratio, with the order-statistic interval of at least [`COVERAGE`] around it.
    pub estimate: Option<RatioEstimate>,
    /// The interval's coverage (the chance it holds the true median ratio), when there is one.
    pub coverage: Option<f64>,
    /// The noise band applied (a fraction).
    pub band: f64,
    /// The verdict; [`Verdict::Inconclusive`] reads "too noisy to judge".
    pub verdict: Verdict,
    /// Whether the row fails the gate: a regression, or a result the head lost (failed or
    /// skipped where the base measured it).
    pub regression: bool,
    /// Why, where the verdict alone does not say (a status change, too few rounds).
    pub note: Option<String>,
}

/// Every benchmark's judgement over the rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedComparison {
    /// How many rounds were judged.
    pub rounds: usize,
    /// Whether either build ran on a software adapter (its bands are the software band).
    pub software: bool,
    /// One row per benchmark, in the base's order, then those only the head has.
    pub rows: Vec<PairedRow>,
}

impl PairedComparison {
    /// The rows that fail the gate.
    pub fn regressions(&self) -> impl Iterator<Item = &PairedRow> {
        self.rows.iter().filter(|r| r.regression)
    }

    /// The rows too noisy to judge.
    pub fn too_noisy(&self) -> impl Iterator<Item = &PairedRow> {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Inconclusive)
    }

    /// How many rows have each verdict.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for row in &self.rows {
            *counts.entry(row.verdict.as_str()).or_default() += 1;
        }
        counts
    }
}

/// Judges `rounds` of (base, head) documents, measured in turn on one machine.
pub fn judge_rounds<'a>(
    rounds: &[(&'a RunDocument, &'a RunDocument)],
    options: PairedOptions,
) -> PairedComparison {
    let software = rounds
        .iter()
        .any(|(b, h)| b.machine.software_adapter || h.machine.software_adapter);
    let mut ids: Vec<&BenchResult> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (base, head) in rounds {
        for result in base.results.iter().chain(&head.results) {
            if seen.insert(result.id.as_str()) {
                ids.push(result);
            }
        }
    }
    // Each document indexed by id once, not searched once per row.
    let by_id = |doc: &'a RunDocument| -> BTreeMap<&'a str, &'a BenchResult> {
        doc.results.iter().map(|r| (r.id.as_str(), r)).collect()
    };
    let indexed: Vec<_> = rounds.iter().map(|(b, h)| (by_id(b), by_id(h))).collect();
    let rows = ids
        .into_iter()
        .map(|first| {
            let id = first.id.as_str();
            let sides: Vec<(Option<&BenchResult>, Option<&BenchResult>)> = indexed
                .iter()
                .map(|(b, h)| (b.get(id).copied(), h.get(id).copied()))
                .collect();
            judge_row(first, &sides, software, options)
        })
        .collect();
    PairedComparison {
        rounds: rounds.len(),
        software,
        rows,
    }
}

/// The (base, head) results of one id, round by round.
type Sides<'a> = [(Option<&'a BenchResult>, Option<&'a BenchResult>)];

/// One id's row from its (base, head) results, round by round.
fn judge_row(
    first: &BenchResult,
    sides: &Sides<'_>,
    software: bool,
    options: PairedOptions,
) -> PairedRow {
    let mut row = PairedRow {
        id: first.id.clone(),
        suite: first.suite.clone(),
        metric: first.metric,
        unit: first.unit.clone(),
        higher_is_better: first.higher_is_better,
        ratios: Vec::new(),
        estimate: None,
        coverage: None,
        band: band_for(first.metric, software, options.noise),
        verdict: Verdict::NotMeasured,
        regression: false,
        note: None,
    };
    if !settled_without_ratios(&mut row, sides) {
        judge_ratios(&mut row, sides);
    }
    row
}

/// Settles `row` where its rounds give no ratio to judge: a result the head lost, one only
/// the head has (failed there, or new), one only the base has, or a metric this build does not
/// know. `false` where the ratios are to be judged.
fn settled_without_ratios(row: &mut PairedRow, sides: &Sides<'_>) -> bool {
    // (verdict, note, whether it fails the gate)
    let (verdict, note, regression) = if let Some(lost) = lost_result(sides) {
        (Verdict::StatusChanged, Some(lost), true)
    } else if sides.iter().all(|(b, _)| b.is_none()) {
        // A result only the head has is new, unless it failed there: a wrong answer is a
        // failure, never merely new (as `compare` judges it).
        let failed = sides
            .iter()
            .position(|(_, h)| h.is_some_and(|h| h.status == Status::Failed));
        match failed {
            Some(k) => (
                Verdict::Failed,
                Some(format!(
                    "round {}: failed, and the base has no such result",
                    k + 1
                )),
                true,
            ),
            None => (Verdict::New, None, false),
        }
    } else if let Some(k) = sides
        .iter()
        .position(|(b, h)| b.is_some() && h.is_some_and(|h| h.status == Status::Failed))
    {
        // Failed in the head where the base failed too (the base having it ok is a lost
        // result, above): a wrong answer is a failure whatever the base did, as in `compare`.
        (
            Verdict::Failed,
            Some(format!("round {}: failed in both builds", k + 1)),
            true,
        )
    } else if sides.iter().all(|(_, h)| h.is_none()) {
        // Both builds ran with the same arguments on this machine: a result the base timed
        // and the head never wrote is lost, as a status change to skipped would be.
        let lost = sides
            .iter()
            .any(|(b, _)| b.is_some_and(|b| b.status == Status::Ok && !untimed(b)));
        let note = lost.then(|| "lost: the head build wrote no such result".to_string());
        (Verdict::Missing, note, lost)
    } else if !row.metric.is_known() {
        (Verdict::NotJudged, None, false)
    } else {
        return false;
    };
    row.regression = regression;
    row.verdict = verdict;
    row.note = note;
    true
}

/// Why a round's two results measure different things (another unit or direction), where both
/// are ok: `compare` judges no such pair, and its ratio is left out. Two clocks are no such
/// difference: the round is judged by the host clock ([`round_ratio`]).
fn round_differs(base: Option<&BenchResult>, head: Option<&BenchResult>) -> Option<String> {
    let (b, h) = (
        base.filter(|r| r.status == Status::Ok)?,
        head.filter(|r| r.status == Status::Ok)?,
    );
    metric_changed(b, h)
}

/// Judges `row` on its rounds' ratios of the best samples, leaving out the rounds whose two
/// results measure different things (not judged where no other round is left): a ratio and no
/// verdict for a derived value, else the verdict of the median's interval against the band.
fn judge_ratios(row: &mut PairedRow, sides: &Sides<'_>) {
    let mut differ: Vec<String> = Vec::new();
    let mut by_host_clock = 0;
    for &(b, h) in sides {
        match round_differs(b, h) {
            Some(why) => differ.push(why),
            None => {
                by_host_clock += usize::from(b.zip(h).is_some_and(|(b, h)| two_clocks(b, h)));
                row.ratios.extend(round_ratio(b, h, row.higher_is_better));
            }
        }
    }
    if by_host_clock > 0 {
        row.note = Some(format!("{by_host_clock} rounds: {HOST_CLOCK_NOTE}"));
        if row.ratios.is_empty() {
            row.verdict = Verdict::NotJudged;
            row.note = Some(format!(
                "{HOST_CLOCK_NOTE}, but a side kept no host-clock samples"
            ));
            return;
        }
    }
    if let Some(why) = differ.first() {
        if row.ratios.is_empty() {
            row.verdict = Verdict::NotJudged;
            row.note = Some(why.clone());
            return;
        }
        row.note = Some(format!("{} rounds left out: {why}", differ.len()));
    }
    if row.ratios.is_empty() {
        return;
    }
    let interval = median_interval(&row.ratios, COVERAGE);
    if let Some((estimate, coverage)) = interval {
        row.estimate = Some(estimate);
        row.coverage = Some(coverage);
    }
    let derived = sides
        .iter()
        .any(|(b, h)| [b, h].into_iter().flatten().any(|r| ratio_only(r)));
    if derived {
        row.verdict = Verdict::RatioOnly;
        row.note = Some(RATIO_ONLY_NOTE.to_string());
        return;
    }
    match interval {
        Some((estimate, _)) => {
            row.verdict = verdict_for(&estimate, row.band);
            row.regression = row.verdict == Verdict::Regressed;
        }
        None => {
            row.verdict = Verdict::Inconclusive;
            row.note = Some(format!(
                "{} rounds measured it: a {:.0}% interval of the median needs {FEWEST}",
                row.ratios.len(),
                COVERAGE * 100.0
            ));
        }
    }
}

/// Whether a round's two results are both ok and were timed by different clocks (a build or
/// driver that lost its timestamps): judged by the host clock ([`round_ratio`]).
fn two_clocks(base: &BenchResult, head: &BenchResult) -> bool {
    base.status == Status::Ok && head.status == Status::Ok && clock_changed(base, head).is_some()
}

/// One round's oriented ratio of the best samples, where both builds measured the result.
fn round_ratio(
    base: Option<&BenchResult>,
    head: Option<&BenchResult>,
    higher_is_better: bool,
) -> Option<f64> {
    let (base, head) = (base?, head?);
    if base.status != Status::Ok || head.status != Status::Ok {
        return None;
    }
    let (b, h) = if two_clocks(base, head) {
        // A build that lost its timestamps is judged all the same, as `compare` judges it: by
        // the best host-clock sample of both.
        let (b, h) = (host_clock_samples(base)?, host_clock_samples(head)?);
        best_of_equal_counts(b, h, higher_is_better)?
    } else if base.samples.is_empty() || head.samples.is_empty() {
        // A file that kept no samples has its summary's extremes.
        (best(base)?, best(head)?)
    } else {
        best_of_equal_counts(&base.samples, &head.samples, higher_is_better)?
    };
    oriented(b, h, higher_is_better)
}

/// The best finite sample of each side among its first `k`, `k` the smaller side's count of
/// finite samples: the best of more samples is better by chance alone (and the stop rule may
/// take more on a noisier side), so both sides get the same number of draws.
fn best_of_equal_counts(base: &[f64], head: &[f64], higher_is_better: bool) -> Option<(f64, f64)> {
    let finite =
        |values: &[f64]| -> Vec<f64> { values.iter().copied().filter(|v| v.is_finite()).collect() };
    let (base, head) = (finite(base), finite(head));
    let k = base.len().min(head.len());
    let best = |values: &[f64]| {
        let first = values.iter().copied().take(k);
        if higher_is_better {
            first.max_by(f64::total_cmp)
        } else {
            first.min_by(f64::total_cmp)
        }
    };
    Some((best(&base)?, best(&head)?))
}

/// What the head lost where the base had it, in the first round it did: a result that failed
/// or was skipped in the head while ok (or merely skipped) in the base.
fn lost_result(sides: &Sides<'_>) -> Option<String> {
    sides.iter().enumerate().find_map(|(k, (b, h))| {
        let (b, h) = (b.as_ref()?, h.as_ref()?);
        status_got_worse(b, h).then(|| {
            format!(
                "round {}: {} -> {}{}",
                k + 1,
                b.status.as_str(),
                h.status.as_str(),
                h.reason
                    .as_deref()
                    .map_or(String::new(), |r| format!(" ({r})"))
            )
        })
    })
}

/// The best sample of an ok result: the largest rate, or the shortest time.
fn best(result: &BenchResult) -> Option<f64> {
    let summary = result
        .summary
        .as_ref()
        .filter(|_| result.status == Status::Ok)?;
    Some(if result.higher_is_better {
        summary.max
    } else {
        summary.min
    })
}

/// The median of `values` and the narrowest interval of order statistics around it whose
/// coverage is at least `coverage` (the sign test's interval: `[x(k), x(n+1-k)]` holds the true
/// median with probability `1 - 2 P(Bin(n, 1/2) < k)`), with that coverage; `None` where even
/// the whole range falls short (fewer than five values for 90%).
pub fn median_interval(values: &[f64], coverage: f64) -> Option<(RatioEstimate, f64)> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let (k, covered) = median_ci_rank(n, coverage).filter(|&(_, c)| c >= coverage)?;
    Some((
        RatioEstimate {
            ratio: percentile_sorted(&sorted, 50.0),
            ci_low: sorted[k - 1],
            ci_high: sorted[n - k],
        },
        covered,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::doc_with;
    use gpubench_results::TimingSource;

    #[test]
    fn the_interval_is_the_sign_tests() {
        // Five values: the whole range covers 1 - 2/32 = 93.75%.
        let (estimate, coverage) =
            median_interval(&[1.0, 0.9, 1.1, 0.95, 1.05], 0.90).expect("five suffice");
        assert_eq!(
            (estimate.ratio, estimate.ci_low, estimate.ci_high),
            (1.0, 0.9, 1.1)
        );
        assert!((coverage - 0.9375).abs() < 1e-12);
        // Four never reach 90% (87.5% at most).
        assert!(median_interval(&[1.0, 0.9, 1.1, 0.95], 0.90).is_none());
        // Ten: [x(2), x(9)] covers 97.9%, [x(3), x(8)] 89.1%.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        let (estimate, coverage) = median_interval(&ten, 0.90).expect("ten");
        assert_eq!((estimate.ci_low, estimate.ci_high), (2.0, 9.0));
        assert!((coverage - (1.0 - 2.0 * 11.0 / 1024.0)).abs() < 1e-12);
        assert_eq!(estimate.ratio, 5.5);
    }

    /// Rounds of (base, head) where each result's best sample is `base` and `head[k]`.
    fn rounds(base: f64, head: &[f64]) -> Vec<(RunDocument, RunDocument)> {
        head.iter()
            .map(|&h| {
                let mut b = doc_with("NVIDIA Test", false);
                b.results.truncate(1);
                let mut n = b.clone();
                for (doc, value) in [(&mut b, base), (&mut n, h)] {
                    let summary = doc.results[0].summary.as_mut().expect("summary");
                    summary.max = value;
                    summary.min = value;
                    summary.median = value;
                    doc.results[0].samples = vec![value; 5];
                }
                (b, n)
            })
            .collect()
    }

    fn judge(base: f64, head: &[f64]) -> PairedRow {
        let rounds = rounds(base, head);
        let pairs: Vec<(&RunDocument, &RunDocument)> = rounds.iter().map(|(b, h)| (b, h)).collect();
        let mut cmp = judge_rounds(&pairs, PairedOptions::default());
        assert_eq!(cmp.rows.len(), 1);
        cmp.rows.remove(0)
    }

    #[test]
    fn rounds_are_judged_on_the_median_ratio_and_its_interval() {
        // A rate (bigger is better) in the fixture: a head at half speed regressed.
        let half = judge(100.0, &[50.0, 52.0, 49.0, 51.0, 50.0]);
        assert!(half.higher_is_better);
        assert_eq!(half.verdict, Verdict::Regressed);
        assert!(half.regression);
        assert_eq!(half.estimate.expect("estimate").ratio, 0.5);
        // The same speed within a percent: unchanged.
        let same = judge(100.0, &[99.0, 101.0, 100.5, 99.5, 100.0]);
        assert_eq!(same.verdict, Verdict::Unchanged);
        // Rounds that disagree by more than the band: too noisy, not a failure.
        let noisy = judge(100.0, &[60.0, 140.0, 95.0, 105.0, 100.0]);
        assert_eq!(noisy.verdict, Verdict::Inconclusive);
        assert!(!noisy.regression);
        // Too few rounds for an interval: too noisy, saying why.
        let few = judge(100.0, &[50.0, 50.0]);
        assert_eq!(few.verdict, Verdict::Inconclusive);
        assert!(few.note.expect("note").contains("needs 5"));
    }

    #[test]
    fn the_best_sample_is_taken_of_as_many_samples_on_each_side() {
        // The head took twenty samples where the base took five (its stop rule ran longer):
        // its best of twenty would beat the base's best of five by chance alone.
        let mut more_drawn = rounds(100.0, &[50.0; 5]);
        for (_, h) in &mut more_drawn {
            let head = &mut h.results[0];
            head.samples.extend([101.0; 15]);
            head.summary = gpubench_results::stats::summarize(&head.samples);
        }
        let pairs: Vec<(&RunDocument, &RunDocument)> =
            more_drawn.iter().map(|(b, h)| (b, h)).collect();
        let row = &judge_rounds(&pairs, PairedOptions::default()).rows[0];
        // The best of all twenty (101) would read 1.01, unchanged.
        assert_eq!(row.estimate.expect("a ratio").ratio, 0.5);
        assert_eq!(row.verdict, Verdict::Regressed);
        // The same by the host clock, where the head lost its timestamps.
        let mut by_host = rounds(100.0, &[50.0; 5]);
        for (b, h) in &mut by_host {
            b.results[0].timing = Some(TimingSource::GpuTimestamp);
            // Its GPU samples differ from its host-clock ones: 0.5 only by the host clock.
            b.results[0].samples = vec![90.0; 5];
            b.results[0].host_samples = vec![100.0; 5];
            let head = &mut h.results[0];
            head.timing = Some(TimingSource::Host);
            head.samples = [vec![50.0; 5], vec![101.0; 15]].concat();
        }
        let pairs: Vec<(&RunDocument, &RunDocument)> =
            by_host.iter().map(|(b, h)| (b, h)).collect();
        let row = &judge_rounds(&pairs, PairedOptions::default()).rows[0];
        assert_eq!(row.estimate.expect("a ratio").ratio, 0.5);
    }

    #[test]
    fn a_derived_value_gets_its_ratio_and_no_verdict() {
        // A fraction of peak that fell by half, because the peak it divides by got faster.
        let mut rounds = rounds(100.0, &[50.0; 5]);
        for (b, h) in &mut rounds {
            b.results[0].timing = None;
            h.results[0].timing = None;
        }
        let pairs: Vec<(&RunDocument, &RunDocument)> = rounds.iter().map(|(b, h)| (b, h)).collect();
        let row = &judge_rounds(&pairs, PairedOptions::default()).rows[0];
        assert_eq!(row.verdict, Verdict::RatioOnly);
        assert!(!row.regression);
        assert_eq!(row.estimate.expect("a ratio").ratio, 0.5);
    }

    #[test]
    fn a_row_another_unit_measures_is_not_judged_and_another_clock_is_judged_by_the_host() {
        let judged = |change: &dyn Fn(&mut BenchResult, &mut BenchResult)| {
            let mut rounds = rounds(100.0, &[50.0; 5]);
            for (b, h) in &mut rounds {
                change(&mut b.results[0], &mut h.results[0]);
            }
            let pairs: Vec<(&RunDocument, &RunDocument)> =
                rounds.iter().map(|(b, h)| (b, h)).collect();
            judge_rounds(&pairs, PairedOptions::default())
                .rows
                .remove(0)
        };
        let unit = judged(&|_, h| h.unit = "MB/s".into());
        assert_eq!(unit.verdict, Verdict::NotJudged);
        assert!(unit.note.expect("note").starts_with("metric changed"));
        assert_eq!(judged(&|_, _| ()).verdict, Verdict::Regressed);
        // A head build that lost its timestamps and runs at half speed by the host clock:
        // judged by the host clock on both sides (the base kept its host samples), regressed.
        let lost_timestamps = judged(&|b, h| {
            b.timing = Some(TimingSource::GpuTimestamp);
            b.host_samples = vec![80.0, 79.0, 78.0];
            h.timing = Some(TimingSource::Host);
            h.samples = vec![40.0, 39.0, 41.0];
        });
        assert_eq!(lost_timestamps.verdict, Verdict::Regressed);
        assert!(lost_timestamps.regression);
        assert_eq!(
            lost_timestamps.estimate.expect("a ratio").ratio,
            41.0 / 80.0
        );
        let note = lost_timestamps.note.expect("note");
        assert!(note.contains("judged by the host clock"), "{note}");
        // Without host-clock samples on the timestamped side there is nothing to judge by.
        let no_host = judged(&|b, h| {
            b.timing = Some(TimingSource::GpuTimestamp);
            b.host_samples.clear();
            h.timing = Some(TimingSource::Host);
        });
        assert_eq!(no_host.verdict, Verdict::NotJudged);
        assert!(!no_host.regression);
        // A base that skipped the row (no timing) is no other clock: nothing says so.
        let base_skipped = judged(&|b, _| {
            b.status = Status::Skipped;
            b.timing = None;
        });
        let note = base_skipped.note.unwrap_or_default();
        assert!(!note.contains("host clock"), "{note}");
    }

    #[test]
    fn a_result_only_the_head_has_that_fails_is_a_failure_not_new() {
        let mut rounds = rounds(100.0, &[100.0; 5]);
        for (b, h) in &mut rounds {
            let mut extra = h.results[0].clone();
            extra.id = "stream/extra".into();
            h.results.push(extra);
            b.results.truncate(1);
        }
        let judged = |rounds: &[(RunDocument, RunDocument)]| {
            let pairs: Vec<(&RunDocument, &RunDocument)> =
                rounds.iter().map(|(b, h)| (b, h)).collect();
            let cmp = judge_rounds(&pairs, PairedOptions::default());
            let row = cmp.rows.iter().find(|r| r.id == "stream/extra").cloned();
            row.expect("the head's row")
        };
        assert_eq!(judged(&rounds).verdict, Verdict::New);
        // Absent from the head's first round, failed in its third.
        rounds[0].1.results.truncate(1);
        rounds[2].1.results[1].status = Status::Failed;
        let row = judged(&rounds);
        assert_eq!(row.verdict, Verdict::Failed);
        assert!(row.regression);
        assert!(row.note.expect("note").starts_with("round 3: failed"));
    }

    /// A result both builds failed fails `ab` as it fails `compare`: a wrong answer is a
    /// failure whatever the base did.
    #[test]
    fn a_result_both_builds_failed_is_a_failure() {
        let mut rounds = rounds(100.0, &[100.0; 5]);
        for (b, h) in &mut rounds {
            b.results[0].status = Status::Failed;
            h.results[0].status = Status::Failed;
        }
        let pairs: Vec<(&RunDocument, &RunDocument)> = rounds.iter().map(|(b, h)| (b, h)).collect();
        let row = judge_rounds(&pairs, PairedOptions::default())
            .rows
            .remove(0);
        assert_eq!((row.verdict, row.regression), (Verdict::Failed, true));
        assert!(row.note.expect("note").contains("failed in both builds"));
    }

    #[test]
    fn a_result_the_head_never_wrote_is_lost_unless_the_base_never_measured_it() {
        let mut rounds = rounds(100.0, &[100.0; 5]);
        for (_, head) in &mut rounds {
            head.results.clear();
        }
        let judged = |rounds: &[(RunDocument, RunDocument)]| {
            let pairs: Vec<(&RunDocument, &RunDocument)> =
                rounds.iter().map(|(b, h)| (b, h)).collect();
            judge_rounds(&pairs, PairedOptions::default())
                .rows
                .remove(0)
        };
        let row = judged(&rounds);
        assert_eq!(row.verdict, Verdict::Missing);
        assert!(row.regression, "{row:?}");
        // A derived value (a cache level a sweep did not find this time) is no loss.
        let mut derived = rounds.clone();
        for (base, _) in &mut derived {
            base.results[0].role = gpubench_results::Role::Derived;
        }
        assert!(!judged(&derived).regression);
        for (base, _) in &mut rounds {
            base.results[0].status = Status::Skipped;
            base.results[0].summary = None;
        }
        let row = judged(&rounds);
        assert_eq!(row.verdict, Verdict::Missing);
        assert!(!row.regression, "{row:?}");
    }

    #[test]
    fn a_result_the_head_lost_fails_the_gate_naming_the_round() {
        let mut rounds = rounds(100.0, &[100.0; 5]);
        rounds[2].1.results[0].status = Status::Failed;
        rounds[2].1.results[0].reason = Some("verification failed".into());
        let pairs: Vec<(&RunDocument, &RunDocument)> = rounds.iter().map(|(b, h)| (b, h)).collect();
        let cmp = judge_rounds(&pairs, PairedOptions::default());
        let row = &cmp.rows[0];
        assert_eq!(row.verdict, Verdict::StatusChanged);
        assert!(row.regression);
        assert_eq!(
            row.note.as_deref(),
            Some("round 3: ok -> failed (verification failed)")
        );
        assert_eq!(cmp.regressions().count(), 1);
    }
}
