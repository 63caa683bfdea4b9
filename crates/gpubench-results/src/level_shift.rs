//! Whether a series of samples, in the order they were taken, did not stay at one level: a
//! boost clock that ended, a card that began to throttle, another process that started, a
//! driver that changed how it waits. Where such a series' median lands depends on how many
//! samples fell on each side of the move, so two runs of the same work can disagree by as much
//! as the move, and neither the spread (a clean 5% step is a cv of 2.5%) nor the outlier fences
//! need see it.
//!
//! Whether: a rank test, as Pettitt's change-point test. At every split leaving at least
//! [`MIN_SIDE`] samples on each side, the rank sum of the earlier part is standardised by its
//! spread under no change (the Mann-Whitney variance, ties corrected). The same ranks in
//! [`SHUFFLES`] seeded random orders (a series always gets the same answer), each searched the
//! same way, give how large the largest |z| of a series with no move gets: a split counts
//! where fewer than [`SHIFT_P`] of those orders reach its |z|, for any count and any ties (a
//! fixed |z| would be too strict for 20 samples and too loose for 1000). Ranks count one wild
//! sample as one sample, however wild, and two levels mixed in no order in time (a steady but
//! bimodal series) leave no split to find: high variation is the warning for that. The
//! permutations take the samples as independent around their level: samples that wander, each
//! near the one before, are reported more often, and rightly so in that such a series has no
//! one level either.
//!
//! Where: among the splits that count, the one where a median on each side fits the values
//! best (least absolute deviation), since the largest |z|, weighted toward the middle, would
//! place a step near either end a few samples too far in. The split reported is one the test
//! passed on its own evidence: a few wild samples at an end (a warm-up's tail) fit a level of
//! their own only where their ranks say so.
//!
//! Reported where the medians of the values either side differ by at least [`MIN_SHIFT`] and
//! by two steps of the clock that timed them (one tick of a 40-tick sample is 2.5%). Past
//! [`FIT_MAX`] samples the split is the rank statistic's largest, the fit costing the square of
//! the count.
//!
//! Independent noise was reported 3 to 7 times in 4000 series at 16, 20, 30 and 50 samples,
//! and 0 to 2 times in 1000 at 200 and at 1000 (two seeds each): about the 1 in 1000 asked. A perfect step at the middle is found from 16 samples on; among 20, one after any of
//! the 7th to 13th samples.

use crate::rng::SplitMix64;

/// The random orders of the same ranks the splits are judged against.
pub const SHUFFLES: usize = 2000;

/// The chance under no change below which a split counts: `(1 + r) / (1 + SHUFFLES)` under it,
/// for `r` random orders whose largest |z| reaches the split's (at most one of 2000).
pub const SHIFT_P: f64 = 0.001;

/// The smallest move reported, as a fraction of the earlier level's median: a smaller one
/// moves the median less than a run's noise does.
pub const MIN_SHIFT: f64 = 0.02;

/// The fewest samples a level is judged on, either side of a split.
pub const MIN_SIDE: usize = 5;

/// Past this many values the split is placed by the rank statistic alone: the best fit of two
/// medians costs the square of the count.
pub const FIT_MAX: usize = 4096;

/// The permutations' seed: fixed, so that a file's samples always get the same answer.
const SEED: u64 = 0x1e7e_15f7;

/// A move in a series' level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelShift {
    /// Index (from 0, among the finite values) of the first sample at the later level.
    pub at: usize,
    /// How many finite values the series had.
    pub of: usize,
    /// Median of the values before the split.
    pub before: f64,
    /// Median of the values from the split on.
    pub after: f64,
    /// The standardised rank sum of the earlier part at the split (negative: it ranked low).
    pub z: f64,
}

impl LevelShift {
    /// The move as a fraction of the earlier level: `after / before - 1`.
    pub fn change(&self) -> f64 {
        self.after / self.before - 1.0
    }
}

/// The move in `values` (in the order taken; non-finite ones are passed over), if there is
/// one the test above reports; `step` is the step of the clock that timed them, in their unit
/// (0 where it is fine enough not to matter).
pub fn level_shift(values: &[f64], step: f64) -> Option<LevelShift> {
    let values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let n = values.len();
    if n < 2 * MIN_SIDE {
        return None;
    }
    let (ranks, ties) = midranks(&values);
    let nf = n as f64;
    // Var of the rank sum of k of n values with no change: k(n-k)/12 * ((n+1) - ties/(n(n-1))).
    let spread = (nf + 1.0) - ties / (nf * (nf - 1.0));
    if spread <= 0.0 {
        return None;
    }
    let (largest_at, largest) = best_split(&ranks, spread);
    let threshold = null_threshold(&ranks, spread, largest)?;
    let counted = split_zs(&ranks, spread).filter(|&(_, z)| z.abs() > threshold);
    let (at, z) = if n <= FIT_MAX {
        let zs: Vec<(usize, f64)> = counted.collect();
        let best = two_medians_split(&values, zs.iter().map(|&(k, _)| k));
        zs.into_iter().find(|&(k, _)| k == best)?
    } else {
        (largest_at, rank_z(&ranks[..largest_at], n, spread))
    };
    let shift = LevelShift {
        at,
        of: n,
        before: crate::stats::median(&values[..at]),
        after: crate::stats::median(&values[at..]),
        z,
    };
    let moved = (shift.after - shift.before).abs();
    (shift.before > 0.0 && shift.change().abs() >= MIN_SHIFT && moved >= 2.0 * step)
        .then_some(shift)
}

/// The |z| a split must pass to count: the `keep`-th largest of the shuffled orders' largest
/// |z|, where `keep` orders reaching it still leave the chance under [`SHIFT_P`]. `None` once
/// it reaches `largest`, the series' own largest: no split can count.
fn null_threshold(ranks: &[f64], spread: f64, largest: f64) -> Option<f64> {
    let keep = (SHIFT_P * (SHUFFLES + 1) as f64).ceil() as usize - 1;
    let mut shuffled = ranks.to_vec();
    let mut rng = SplitMix64::new(SEED);
    // The `keep` largest so far, largest first.
    let mut top = vec![0.0_f64; keep.max(1)];
    for _ in 0..SHUFFLES {
        shuffle(&mut shuffled, &mut rng);
        let m = best_split(&shuffled, spread).1;
        if let Some(place) = top.iter().position(|&t| m > t) {
            top.insert(place, m);
            top.pop();
        }
        if top[top.len() - 1] >= largest {
            return None;
        }
    }
    Some(top[top.len() - 1])
}

/// Every split leaving [`MIN_SIDE`] on each side, with its earlier part's standardised rank sum.
fn split_zs(ranks: &[f64], spread: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
    let n = ranks.len();
    let mut rank_sum: f64 = ranks[..MIN_SIDE - 1].iter().sum();
    (MIN_SIDE..=n - MIN_SIDE).map(move |k| {
        rank_sum += ranks[k - 1];
        (k, standardised(rank_sum, k, n, spread))
    })
}

/// The split of `ranks` whose earlier part's standardised rank sum is furthest from zero:
/// where the later part begins, and that |z|.
fn best_split(ranks: &[f64], spread: f64) -> (usize, f64) {
    split_zs(ranks, spread)
        .map(|(k, z)| (k, z.abs()))
        .fold(
            (MIN_SIDE, 0.0),
            |best, (k, z)| if z > best.1 { (k, z) } else { best },
        )
}

/// The standardised rank sum of `earlier`, the first ranks of `n`.
fn rank_z(earlier: &[f64], n: usize, spread: f64) -> f64 {
    standardised(earlier.iter().sum(), earlier.len(), n, spread)
}

/// How far `rank_sum`, of the first `k` ranks of `n`, lies from its mean under no change, in
/// standard deviations.
fn standardised(rank_sum: f64, k: usize, n: usize, spread: f64) -> f64 {
    let (kf, nf) = (k as f64, n as f64);
    (rank_sum - kf * (nf + 1.0) / 2.0) / (kf * (nf - kf) / 12.0 * spread).sqrt()
}

/// Of `splits`, the one where a median on each side fits `values` best: the least sum of
/// absolute deviations from them.
fn two_medians_split(values: &[f64], splits: impl Iterator<Item = usize>) -> usize {
    let mut scratch = Vec::with_capacity(values.len());
    let mut deviation = |part: &[f64]| {
        scratch.clear();
        scratch.extend_from_slice(part);
        let median = crate::stats::median_in_place(&mut scratch);
        part.iter().map(|v| (v - median).abs()).sum::<f64>()
    };
    let mut best = (0, f64::INFINITY);
    for k in splits {
        let cost = deviation(&values[..k]) + deviation(&values[k..]);
        if cost < best.1 {
            best = (k, cost);
        }
    }
    best.0
}

/// `values` in a random order (Fisher-Yates).
fn shuffle(values: &mut [f64], rng: &mut SplitMix64) {
    for i in (1..values.len()).rev() {
        values.swap(i, rng.next_below(i + 1));
    }
}

/// Each value's rank from 1, equal values sharing the mean of their ranks, and the tie term
/// the rank-sum variance loses to them: the sum over groups of equal values of `t^3 - t`.
fn midranks(values: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut ties = 0.0;
    let mut start = 0;
    while start < order.len() {
        let value = values[order[start]];
        let end = start + order[start..].partition_point(|&i| values[i] == value);
        let shared = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = shared;
        }
        let t = (end - start) as f64;
        ties += t * t * t - t;
        start = end;
    }
    (ranks, ties)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` values around `level`, spread uniformly by `noise` either side, in no order.
    fn noisy(rng: &mut SplitMix64, n: usize, level: f64, noise: f64) -> Vec<f64> {
        (0..n)
            .map(|_| level * (1.0 + noise * (2.0 * f64::from(rng.next_unit_f32()) - 1.0)))
            .collect()
    }

    /// `before` values at 1.0 and `after` at `1.0 + step`, each with `noise` in no order.
    fn stepped(rng: &mut SplitMix64, (before, after): (usize, usize), step: f64) -> Vec<f64> {
        let mut series = noisy(rng, before, 1.0, 0.01);
        series.extend(noisy(rng, after, 1.0 + step, 0.01));
        series
    }

    #[test]
    fn a_step_is_found_where_it_is_with_both_levels() {
        let mut rng = SplitMix64::new(7);
        let mut series = stepped(&mut rng, (25, 25), 0.05);
        let shift = level_shift(&series, 0.0).expect("a 5% step in 1% noise");
        assert_eq!((shift.at, shift.of), (25, 50));
        assert!((shift.change() - 0.05).abs() < 0.01, "{shift:?}");
        assert!(shift.z < -5.0, "the earlier part ranked low: {shift:?}");
        // A step down is found as well, with its sign.
        series.reverse();
        let down = level_shift(&series, 0.0).expect("a step down");
        assert!(down.change() < -0.03 && down.z > 5.0, "{down:?}");
    }

    #[test]
    fn a_step_near_either_end_is_placed_where_it_is_not_nearer_the_middle() {
        // Levels that never overlap: the rank statistic alone leans toward the middle when
        // the first samples of the later level happen to be its lowest.
        let mut rng = SplitMix64::new(21);
        for (n, at) in [(50, 8), (50, 15), (50, 42), (30, 8), (200, 30), (200, 170)] {
            for _ in 0..20 {
                let series = stepped(&mut rng, (at, n - at), 0.05);
                let found = level_shift(&series, 0.0).map(|s| s.at);
                assert_eq!(found, Some(at), "a step at {at} of {n}");
            }
        }
    }

    #[test]
    fn a_perfect_step_at_the_middle_is_found_from_sixteen_samples_on() {
        let mut rng = SplitMix64::new(5);
        // 12 samples: two orders in 924 split them so (either way), more with the other splits.
        assert_eq!(level_shift(&stepped(&mut rng, (6, 6), 0.1), 0.0), None);
        let found = level_shift(&stepped(&mut rng, (8, 8), 0.1), 0.0).expect("16 samples");
        assert_eq!(found.at, 8);
        // At 20 samples, from sample 7 to 13; not at 6, too near the start to tell.
        for at in 7..=13 {
            let found = level_shift(&stepped(&mut rng, (at, 20 - at), 0.1), 0.0);
            assert_eq!(found.map(|s| s.at), Some(at));
        }
        assert_eq!(level_shift(&stepped(&mut rng, (5, 15), 0.1), 0.0), None);
    }

    #[test]
    fn a_steady_drift_is_a_move() {
        let mut rng = SplitMix64::new(11);
        let drift: Vec<f64> = noisy(&mut rng, 60, 1.0, 0.01)
            .iter()
            .enumerate()
            .map(|(i, v)| v * (1.0 + 0.1 * i as f64 / 60.0))
            .collect();
        let shift = level_shift(&drift, 0.0).expect("a 10% drift");
        assert!(shift.change() > 0.04, "{shift:?}");
    }

    #[test]
    fn what_is_not_a_move_is_not_reported() {
        let mut rng = SplitMix64::new(3);
        // One wild sample, however wild, is one rank.
        let mut spike = noisy(&mut rng, 40, 1.0, 0.01);
        spike[20] = 1000.0;
        assert_eq!(level_shift(&spike, 0.0), None);
        // Two levels mixed in no order: bimodal, not a move.
        let mixed: Vec<f64> = (0..60)
            .map(|_| {
                if rng.next_u64().is_multiple_of(2) {
                    1.0
                } else {
                    1.5
                }
            })
            .collect();
        assert_eq!(level_shift(&mixed, 0.0), None);
        // A clear step too small to matter, and one in too few samples to tell.
        let mut small = noisy(&mut rng, 30, 1.0, 0.001);
        small.extend(noisy(&mut rng, 30, 1.01, 0.001));
        assert_eq!(level_shift(&small, 0.0), None);
        let few = [1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0];
        assert_eq!(level_shift(&few, 0.0), None);
        // Every value equal (a coarse clock): no ranks to tell apart.
        assert_eq!(level_shift(&[5.0; 40], 0.0), None);
    }

    #[test]
    fn a_warm_up_tail_is_a_level_only_when_it_is_one() {
        let mut rng = SplitMix64::new(17);
        // Three wild samples first, then a step of 1.5%: under the floor, and the wild three
        // are no level of their own.
        let mut tail = vec![2.0; 3];
        tail.extend(noisy(&mut rng, 22, 1.0, 0.001));
        tail.extend(noisy(&mut rng, 25, 1.015, 0.001));
        assert_eq!(level_shift(&tail, 0.0), None);
        // Eight slow samples first: the warm-up ended inside the samples.
        let mut long_tail = vec![2.0; 8];
        long_tail.extend(noisy(&mut rng, 42, 1.0, 0.01));
        let shift = level_shift(&long_tail, 0.0).expect("eight slow samples");
        assert_eq!((shift.at, shift.before), (8, 2.0));
        // Two steady levels with nothing between them are a move, however few values they take.
        let mut two = vec![100.0; 20];
        two.extend(vec![200.0; 20]);
        assert_eq!(level_shift(&two, 1.0).map(|s| s.at), Some(20));
    }

    #[test]
    fn a_coarse_clock_must_move_two_of_its_steps() {
        // Samples of 40 or 41 ticks, then 41 or 42: one tick, 2.5%, is the clock's own step.
        let ticks = |from: f64, n: usize| -> Vec<f64> {
            (0..n).map(|i| from + (i * 7 % 3).min(1) as f64).collect()
        };
        let mut one_tick = ticks(40.0, 20);
        one_tick.extend(ticks(41.0, 20));
        assert_eq!(level_shift(&one_tick, 1.0), None);
        // Four ticks is a move, NaN and infinity among the samples passed over.
        let mut four = ticks(40.0, 20);
        four.extend([f64::NAN, f64::INFINITY]);
        four.extend(ticks(44.0, 20));
        let shift = level_shift(&four, 1.0).expect("a move of four ticks");
        assert_eq!((shift.at, shift.of), (20, 40));
        assert_eq!((shift.before, shift.after), (41.0, 45.0));
    }

    #[test]
    fn ties_share_their_ranks() {
        let (ranks, ties) = midranks(&[3.0, 1.0, 3.0, 2.0]);
        assert_eq!(ranks, [3.5, 1.0, 3.5, 2.0]);
        assert_eq!(ties, 6.0);
    }

    #[test]
    fn series_with_no_move_are_rarely_reported() {
        // The false-alarm rate the module states: independent noise, 2000 series each of 30 and
        // 120 samples, at most a few reports (about 1 in 1000 expected).
        let mut rng = SplitMix64::new(0x5eed);
        for n in [30, 120] {
            let reported = (0..2000)
                .filter(|_| level_shift(&noisy(&mut rng, n, 1.0, 0.2), 0.0).is_some())
                .count();
            assert!(reported <= 8, "{reported} of 2000 series of {n} reported");
        }
    }
}
