//! How many cards a target needs, from a saved run: among one workload's whole-request rows
//! (serial, overlapped, batched), those whose p95 latency meets the target; of those, the one
//! with the highest sustained throughput; and cards = ceil(rate / that throughput) + spare.
//! An arithmetic starting point, not a promise: it assumes every card runs as the measured one
//! did, that the host's CPU and memory feed all of them as they fed one, and that the cards do
//! not share a link the measured card had to itself.

use gpubench_harness::kit::derived::param_str;
use gpubench_harness::{BenchResult, RunDocument, Status};

/// What the user asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// Requests per second to serve.
    pub rate_per_s: f64,
    /// The p95 latency every request must meet, in seconds.
    pub p95_s: f64,
    /// Cards added beyond those the arithmetic needs.
    pub spare: u64,
    /// The workload to size (`None`: the only user-given one, else the only one).
    pub workload: Option<String>,
    /// The least time a row must have been measured for its throughput to count as sustained,
    /// in seconds (`None`: any).
    pub sustained_s: Option<f64>,
}

/// One arrangement of the workload, as measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The row's id.
    pub id: String,
    /// Requests per second one card sustained.
    pub per_card_per_s: f64,
    /// Its p95 latency in seconds, where enough requests were recorded to state one; for a
    /// batch, with the time its batch takes to fill at the target's rate per card added.
    pub p95_s: Option<f64>,
    /// Seconds of measurement behind it.
    pub measured_s: f64,
    /// Why it cannot be used, where it cannot.
    pub refused: Option<String>,
    /// Whether its p95 was held to the target: it measured, stated a p95 and ran long enough.
    /// A row refused before that (failed, too few latencies, too short) says nothing of whether
    /// the target can be met.
    pub judged: bool,
}

/// The answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Sizing {
    /// The workload sized.
    pub workload: String,
    /// Every arrangement considered, in the run's order.
    pub candidates: Vec<Candidate>,
    /// The index of the one chosen, where one meets the target.
    pub chosen: Option<usize>,
    /// Cards needed (with the spares), where one meets the target.
    pub cards: Option<u64>,
    /// What the arithmetic rests on, one line each.
    pub assumptions: Vec<String>,
}

/// Why a run cannot be sized.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SizingError {
    /// The run has no datapath rows.
    #[error(
        "the run has no datapath results: run the datapath suite first (it is a default suite)"
    )]
    NoRows,
    /// The workload asked for is not in the run.
    #[error("the run has no workload '{wanted}' (it has: {found})")]
    NoWorkload {
        /// What was asked for.
        wanted: String,
        /// What there is.
        found: String,
    },
    /// Several workloads and none chosen.
    #[error("the run has several workloads ({found}): name the one to size")]
    Ambiguous {
        /// What there is.
        found: String,
    },
    /// The rate and spares ask for more cards than a count can hold.
    #[error(
        "{rate_per_s} requests/s at {per_card_per_s:.3} per card plus {spare} spare is more cards than can be counted: give a smaller rate or fewer spares"
    )]
    TooManyCards {
        /// The rate asked for, requests per second.
        rate_per_s: f64,
        /// What one card serves, requests per second.
        per_card_per_s: f64,
        /// Spares asked for.
        spare: u64,
    },
}

/// Sizes `target` on `doc`'s rows.
pub fn size(doc: &RunDocument, target: &Target) -> Result<Sizing, SizingError> {
    let workload = pick_workload(&doc.results, target.workload.as_deref())?;
    let candidates: Vec<Candidate> = doc
        .results
        .iter()
        .filter(|r| param_str(r, "workload") == Some(workload.as_str()))
        .filter(|r| r.params.contains_key("flow"))
        .map(|r| candidate(r, target))
        .collect();
    let chosen = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.refused.is_none())
        .max_by(|a, b| a.1.per_card_per_s.total_cmp(&b.1.per_card_per_s))
        .map(|(i, _)| i);
    let cards = chosen
        .map(|i| {
            let per_card_per_s = candidates[i].per_card_per_s;
            cards_needed(target.rate_per_s, per_card_per_s, target.spare).ok_or(
                SizingError::TooManyCards {
                    rate_per_s: target.rate_per_s,
                    per_card_per_s,
                    spare: target.spare,
                },
            )
        })
        .transpose()?;
    let machine = &doc.machine;
    let assumptions = vec![
        format!(
            "every card serves as the measured one did ({}), fed by a host like this one ({}, {} CPUs)",
            machine.adapter.name, machine.cpu_model, machine.cpu_count
        ),
        "the host's CPU and memory prepare and check every card's requests as they did one card's"
            .to_string(),
        "the cards do not share a link (PCIe switch, NVLink, host memory bandwidth) the measured card had to itself"
            .to_string(),
        "requests come as steadily as the measured flow sent them: its p95 is that of a card fed the next request as one returns, up to the measured rate; requests that arrive at random queue near that rate, so size for headroom (a rate 1.4x the expected keeps a card under 70% busy)"
            .to_string(),
        "a batch's inputs are prepared once it is full, as the batch rows measured them: its p95 is the measured span of the batch plus the time it takes to fill; an application that prepares each input as it arrives hides all but the last preparation in that wait, so its p95 is lower by up to the batch's other preparations"
            .to_string(),
    ];
    Ok(Sizing {
        workload,
        candidates,
        chosen,
        cards,
        assumptions,
    })
}

/// ceil(rate / per card) + spare, or `None` where that is no count (too many to hold, or not a
/// number).
pub fn cards_needed(rate_per_s: f64, per_card_per_s: f64, spare: u64) -> Option<u64> {
    let cards = (rate_per_s / per_card_per_s).ceil();
    // 2^64 as f64: every smaller whole f64 converts exactly.
    if !(0.0..18_446_744_073_709_551_616.0).contains(&cards) {
        return None;
    }
    (cards as u64).checked_add(spare)
}

fn pick_workload(results: &[BenchResult], wanted: Option<&str>) -> Result<String, SizingError> {
    let names = super::bound::workloads_of(results);
    if names.is_empty() {
        return Err(SizingError::NoRows);
    }
    let found = names.join(", ");
    if let Some(wanted) = wanted {
        return names
            .iter()
            .find(|n| **n == wanted)
            .map(|n| (*n).to_string())
            .ok_or_else(|| SizingError::NoWorkload {
                wanted: wanted.to_string(),
                found,
            });
    }
    let custom: Vec<&&str> = names.iter().filter(|n| n.starts_with("custom")).collect();
    match (custom.as_slice(), names.as_slice()) {
        ([one], _) => Ok((**one).to_string()),
        (_, [one]) => Ok((*one).to_string()),
        _ => Err(SizingError::Ambiguous { found }),
    }
}

fn candidate(r: &BenchResult, target: &Target) -> Candidate {
    let median_us = r.summary.as_ref().map(|s| s.median).filter(|m| *m > 0.0);
    let per_card_per_s = median_us.map_or(0.0, |m| 1e6 / m);
    let measured_p95_s = r.latency.as_ref().and_then(|l| l.p95()).map(|us| us / 1e6);
    let fill_s = batch_fill_s(r, target.rate_per_s, per_card_per_s);
    let p95_s = measured_p95_s.map(|p| p + fill_s.unwrap_or(0.0));
    // Seconds measured: every sample's time per request, times the requests a sample holds.
    let per_sample = f64::from(r.iterations_per_sample.max(1)) * r.work.ops.max(1) as f64;
    let measured_s = r.samples.iter().sum::<f64>() * per_sample / 1e6;
    let mut judged = false;
    let refused = if r.status != Status::Ok || median_us.is_none() {
        Some(format!(
            "{}: {}",
            r.status.as_str(),
            r.reason.as_deref().unwrap_or("no measurement")
        ))
    } else if let Some(n) = r.latency.as_ref().map(|l| l.n).filter(|_| p95_s.is_none()) {
        Some(format!(
            "p95 n/a (n = {n} latencies, one per request or per batch): too few to state one"
        ))
    } else if r.latency.is_none() {
        Some("no latency recorded".to_string())
    } else if let Some(need) = target.sustained_s.filter(|need| measured_s < *need) {
        Some(format!(
            "measured for {measured_s:.1} s, under the {need:.1} s asked for: run a longer profile"
        ))
    } else if p95_s.is_some_and(|p| p > target.p95_s) {
        judged = true;
        let fill = fill_s.map_or(String::new(), |fill| {
            format!(
                " ({:.3} ms measured, {:.3} ms to fill a batch at the target's rate per card)",
                measured_p95_s.unwrap_or(0.0) * 1e3,
                fill * 1e3
            )
        });
        Some(format!(
            "p95 {:.3} ms{fill} is over the {:.3} ms target",
            p95_s.unwrap_or(0.0) * 1e3,
            target.p95_s * 1e3
        ))
    } else {
        judged = true;
        None
    };
    Candidate {
        id: r.id.clone(),
        per_card_per_s,
        p95_s,
        measured_s,
        refused,
        judged,
    }
}

/// For a batch row (`flow` `batch-B`), how long its first request waits for the other B - 1
/// to arrive when requests come at `rate_per_s` spread over the cards this row needs: the
/// measured span starts with the batch's first input, so a deployment's request waits that
/// much longer. `None` for other rows.
fn batch_fill_s(r: &BenchResult, rate_per_s: f64, per_card_per_s: f64) -> Option<f64> {
    let flow = param_str(r, "flow")?;
    let batch: u64 = flow.strip_prefix("batch-")?.parse().ok()?;
    // The spares stand idle: the rate is spread over the cards that serve it.
    let cards = cards_needed(rate_per_s, per_card_per_s, 0)?.max(1);
    let per_card = rate_per_s / cards as f64;
    (batch > 1 && per_card > 0.0).then(|| (batch - 1) as f64 / per_card)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::{BenchmarkInfo, MetricKind, Work};
    use gpubench_results::stats::{LatencySummary, summarize};

    /// A whole-request row of `workload` that sustained `per_s` with a p95 of `p95_ms`.
    fn row(workload: &str, flow: &str, per_s: f64, p95_ms: f64) -> BenchResult {
        let info = BenchmarkInfo::new(
            format!("datapath/{workload}/{flow}"),
            "datapath",
            MetricKind::TimePerOp,
            "time per request",
        )
        .param("workload", workload)
        .param("flow", flow);
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        let us = 1e6 / per_s;
        r.samples = vec![us; 200];
        r.summary = summarize(&r.samples);
        r.iterations_per_sample = 1;
        r.work = Work::ops(1);
        r.latency = Some(Box::new(LatencySummary {
            p50_us: us,
            p95_us: p95_ms * 1e3,
            p99_us: p95_ms * 1e3,
            max_us: p95_ms * 1e3,
            n: 200,
        }));
        r
    }

    fn doc(results: Vec<BenchResult>) -> RunDocument {
        let mut doc = gpubench_baseline::testing::doc_with("Test GPU", false);
        doc.results = results;
        doc
    }

    fn target(rate: f64, p95_ms: f64, spare: u64) -> Target {
        Target {
            rate_per_s: rate,
            p95_s: p95_ms / 1e3,
            spare,
            workload: None,
            sustained_s: None,
        }
    }

    #[test]
    fn forty_per_card_for_ninety_is_three_cards_and_a_spare_makes_four() {
        let run = doc(vec![
            row("custom", "serial", 25.0, 45.0),
            row("custom", "overlap-2", 40.0, 48.0),
            // Faster, but over the latency target: not chosen.
            row("custom", "batch-16", 120.0, 140.0),
        ]);
        let sized = size(&run, &target(90.0, 50.0, 0)).expect("sized");
        assert_eq!(sized.chosen, Some(1));
        assert_eq!(sized.cards, Some(3));
        assert_eq!(cards_needed(90.0, 101.0, u64::MAX), None, "no wrap to 0");
        assert_eq!(cards_needed(1e300, 101.0, 0), None, "no saturation");
        assert_eq!(cards_needed(90.0, 101.0, u64::MAX - 1), Some(u64::MAX));
        assert!(
            sized.candidates[2]
                .refused
                .as_deref()
                .is_some_and(|r| r.contains("over the"))
        );
        let spare = size(&run, &target(90.0, 50.0, 1)).expect("sized");
        assert_eq!(spare.cards, Some(4));
        assert_eq!(sized.assumptions.len(), 5);
    }

    #[test]
    fn a_batch_waits_for_its_batch_to_fill_at_the_targets_rate() {
        // 1280 requests a second with a 13 ms p95 measured, batches of 16: at 90 a second one
        // card serves them all, and a batch's first request waits 15 / 90 s = 167 ms for its
        // last, so a 50 ms target is not met.
        let run = doc(vec![
            row("custom", "batch-16", 1280.0, 13.0),
            row("custom", "serial", 25.0, 45.0),
        ]);
        let sized = size(&run, &target(90.0, 50.0, 0)).expect("sized");
        assert_eq!(sized.chosen, Some(1));
        let batch = &sized.candidates[0];
        let p95 = batch.p95_s.expect("a p95");
        assert!((p95 - (0.013 + 15.0 / 90.0)).abs() < 1e-9, "{p95}");
        let why = batch.refused.as_deref().unwrap_or_default();
        assert!(why.contains("to fill a batch"), "{why}");
        // At 20000 a second over 16 cards a batch fills in 12 ms: the target is met.
        let busy = size(&run, &target(20_000.0, 50.0, 0)).expect("sized");
        assert_eq!(busy.chosen, Some(0));
    }

    #[test]
    fn an_impossible_target_meets_no_arrangement() {
        let run = doc(vec![row("custom", "serial", 25.0, 45.0)]);
        let sized = size(&run, &target(90.0, 10.0, 0)).expect("sized");
        assert_eq!((sized.chosen, sized.cards), (None, None));
        // Held to the target and found over it: the target cannot be met on this card.
        assert!(sized.candidates[0].judged);
    }

    #[test]
    fn a_short_run_a_thin_tail_and_a_missing_workload_are_refused() {
        let mut thin = row("custom", "overlap-2", 40.0, 48.0);
        thin.latency.as_mut().expect("latency").n = 12;
        let run = doc(vec![row("custom", "serial", 25.0, 45.0), thin]);
        let mut long = target(90.0, 50.0, 0);
        long.sustained_s = Some(60.0);
        let sized = size(&run, &long).expect("sized");
        assert!(
            sized.candidates[0]
                .refused
                .as_deref()
                .is_some_and(|r| r.contains("measured for 8.0 s"))
        );
        assert!(
            sized.candidates[1]
                .refused
                .as_deref()
                .is_some_and(|r| r.contains("n = 12"))
        );
        assert_eq!(sized.cards, None);
        // Neither was held to the target: the run says nothing of whether a card meets it.
        assert!(sized.candidates.iter().all(|c| !c.judged));
        let mut other = target(90.0, 50.0, 0);
        other.workload = Some("balanced".into());
        assert!(matches!(
            size(&run, &other),
            Err(SizingError::NoWorkload { .. })
        ));
        assert_eq!(size(&doc(Vec::new()), &other), Err(SizingError::NoRows));
        let two = doc(vec![
            row("balanced", "serial", 1.0, 1.0),
            row("compute-bound", "serial", 1.0, 1.0),
        ]);
        assert!(matches!(
            size(&two, &target(1.0, 1.0, 0)),
            Err(SizingError::Ambiguous { .. })
        ));
    }
}
