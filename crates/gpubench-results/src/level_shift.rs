//! Whether a series of samples, in the order they were taken, moved to another level part-way:
//! a boost clock that ended, a card that began to throttle, another process that started. The
//! median of such a series lies between its levels, where the share of samples on each side put
//! it, so two runs of the same work can disagree by as much as the move, and neither the spread
//! (a clean 5% step is a cv of 2.5%) nor the outlier fences need see it.
//!
//! The test is on ranks, as Pettitt's change-point test: for every split leaving at least
//! [`MIN_SIDE`] samples, and a tenth of them, on each side, the rank sum of the earlier part is
//! standardised by its spread under no change (the Mann-Whitney variance, ties corrected); the
//! split of largest |z| is the candidate. Its chance under no change is found by permutation:
//! the same ranks in [`SHUFFLES`] seeded random orders (so a series always gets the same
//! answer), each searched the same way; a move is reported when at most one order reaches the
//! observed |z| (p under [`SHIFT_P`], for any count and any ties, where a fixed |z| would
//! be too strict for 20 samples and too loose for 1000) and the medians either side of the
//! split differ by at least [`MIN_SHIFT`]. Ranks count one wild sample as one sample, however
//! wild, and two levels mixed in no order in time (a steady but bimodal series) leave no split
//! to find: high variation is the warning for that. A perfect step is found from 16 samples
//! on. Series of independent noise were reported 4 to 7 times in 4000 at 16, 20, 30 and 50
//! samples, and none of 1000 at 200 and 1000.

use crate::rng::SplitMix64;

/// The permutations a candidate is judged against.
pub const SHUFFLES: usize = 2000;

/// The chance under no change below which a move is reported: at most one of [`SHUFFLES`]
/// random orders reaching the series' own |z|.
pub const SHIFT_P: f64 = 0.001;

/// The smallest move reported, as a fraction of the earlier level's median: a smaller one
/// moves the median less than a run's noise does.
pub const MIN_SHIFT: f64 = 0.02;

/// The fewest samples a level is judged on, either side of a split.
pub const MIN_SIDE: usize = 5;

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
/// one the test above reports.
pub fn level_shift(values: &[f64]) -> Option<LevelShift> {
    let values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let n = values.len();
    let side = MIN_SIDE.max(n.div_ceil(10));
    if n < 2 * side {
        return None;
    }
    let (mut ranks, ties) = midranks(&values);
    let nf = n as f64;
    // Var of the rank sum of k of n values with no change: k(n-k)/12 * ((n+1) - ties/(n(n-1))).
    let spread = (nf + 1.0) - ties / (nf * (nf - 1.0));
    if spread <= 0.0 {
        return None;
    }
    let (at, z) = best_split(&ranks, side, spread);
    let shift = LevelShift {
        at,
        of: n,
        before: crate::stats::median(&values[..at]),
        after: crate::stats::median(&values[at..]),
        z,
    };
    if !(shift.before > 0.0 && shift.change().abs() >= MIN_SHIFT) {
        return None;
    }
    let mut rng = SplitMix64::new(SEED);
    let mut reached = 0;
    for _ in 0..SHUFFLES {
        shuffle(&mut ranks, &mut rng);
        if best_split(&ranks, side, spread).1.abs() >= z.abs() {
            reached += 1;
            if reached > 1 {
                return None;
            }
        }
    }
    Some(shift)
}

/// The split of `ranks` (each side at least `side` long) whose earlier part's standardised rank
/// sum is furthest from zero: where the later part begins, and that z.
fn best_split(ranks: &[f64], side: usize, spread: f64) -> (usize, f64) {
    let nf = ranks.len() as f64;
    let mut best = (side, 0.0_f64);
    let mut rank_sum: f64 = ranks[..side - 1].iter().sum();
    for (k, rank) in ranks
        .iter()
        .enumerate()
        .take(ranks.len() - side)
        .skip(side - 1)
    {
        rank_sum += rank;
        let kf = (k + 1) as f64;
        let z = (rank_sum - kf * (nf + 1.0) / 2.0) / (kf * (nf - kf) / 12.0 * spread).sqrt();
        if z.abs() > best.1.abs() {
            best = (k + 1, z);
        }
    }
    best
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

    /// `n` values around `level`, spread uniformly by `noise` either side.
    fn noisy(rng: &mut SplitMix64, n: usize, level: f64, noise: f64) -> Vec<f64> {
        (0..n)
            .map(|_| level * (1.0 + noise * (2.0 * f64::from(rng.next_unit_f32()) - 1.0)))
            .collect()
    }

    #[test]
    fn a_step_is_found_where_it_is_with_both_levels() {
        let mut rng = SplitMix64::new(7);
        let mut series = noisy(&mut rng, 25, 1.0e-3, 0.01);
        series.extend(noisy(&mut rng, 25, 1.05e-3, 0.01));
        let shift = level_shift(&series).expect("a 5% step in 1% noise");
        assert_eq!((shift.at, shift.of), (25, 50));
        assert!((shift.change() - 0.05).abs() < 0.01, "{shift:?}");
        assert!(shift.z < -5.0, "the earlier part ranked low: {shift:?}");
        // A step down is found as well, with its sign.
        series.reverse();
        let down = level_shift(&series).expect("a step down");
        assert!(down.change() < -0.03 && down.z > 5.0, "{down:?}");
    }

    #[test]
    fn a_perfect_step_is_found_from_sixteen_samples_on() {
        let step = |n: usize| -> Vec<f64> {
            (0..n)
                .map(|i| if i < n / 2 { 1.0 } else { 1.1 } + i as f64 * 1e-6)
                .collect()
        };
        // 12 samples: two orders in 924 split them so (either way), more with the other splits.
        assert_eq!(level_shift(&step(12)), None);
        let found = level_shift(&step(16)).expect("16 samples");
        assert_eq!(found.at, 8);
        assert!(level_shift(&step(20)).is_some());
    }

    #[test]
    fn a_steady_drift_is_a_move() {
        let mut rng = SplitMix64::new(11);
        let drift: Vec<f64> = noisy(&mut rng, 60, 1.0, 0.01)
            .iter()
            .enumerate()
            .map(|(i, v)| v * (1.0 + 0.1 * i as f64 / 60.0))
            .collect();
        let shift = level_shift(&drift).expect("a 10% drift");
        assert!(shift.change() > 0.04, "{shift:?}");
    }

    #[test]
    fn what_is_not_a_move_is_not_reported() {
        let mut rng = SplitMix64::new(3);
        // One wild sample, however wild, is one rank.
        let mut spike = noisy(&mut rng, 40, 1.0, 0.01);
        spike[20] = 1000.0;
        assert_eq!(level_shift(&spike), None);
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
        assert_eq!(level_shift(&mixed), None);
        // A clear step too small to matter, and one in too few samples to tell.
        let mut small = noisy(&mut rng, 30, 1.0, 0.001);
        small.extend(noisy(&mut rng, 30, 1.01, 0.001));
        assert_eq!(level_shift(&small), None);
        let few = [1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0];
        assert_eq!(level_shift(&few), None);
        // Every value equal (a coarse clock): no ranks to tell apart.
        assert_eq!(level_shift(&[5.0; 40]), None);
    }

    #[test]
    fn ties_and_non_finite_values_are_handled() {
        let (ranks, ties) = midranks(&[3.0, 1.0, 3.0, 2.0]);
        assert_eq!(ranks, [3.5, 1.0, 3.5, 2.0]);
        assert_eq!(ties, 6.0);
        // A quantised clock: two levels of repeated ticks, NaN and infinity among them.
        let mut series = vec![1.0; 20];
        series.extend([f64::NAN, f64::INFINITY]);
        series.extend(vec![2.0; 20]);
        let shift = level_shift(&series).expect("a step in ticks");
        assert_eq!((shift.at, shift.of), (20, 40));
        assert_eq!((shift.before, shift.after), (1.0, 2.0));
    }

    #[test]
    fn series_with_no_move_are_rarely_reported() {
        // The false-alarm rate the module states: independent noise, 2000 series each of 30 and
        // 120 samples, at most a few reports (about 1 in 1000 expected).
        let mut rng = SplitMix64::new(0x5eed);
        for n in [30, 120] {
            let reported = (0..2000)
                .filter(|_| level_shift(&noisy(&mut rng, n, 1.0, 0.2)).is_some())
                .count();
            assert!(reported <= 8, "{reported} of 2000 series of {n} reported");
        }
    }
}
