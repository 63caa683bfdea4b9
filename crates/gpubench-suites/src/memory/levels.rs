//! Cache levels from a curve against working-set size (bandwidth or latency): where it holds a
//! plateau, and where it steps to the next one.
//!
//! The curve is read in log space (a fall from 100 to 50 GB/s weighs as one from 10 to 5),
//! through a running median of three (a lone outlier goes, a step between plateaus stays), and
//! the sweep is split by agglomerative merging: every point starts as its own segment, and the
//! two adjacent segments whose medians are closest merge, again and again, until every adjacent
//! pair differs by more than [`LEVEL_STEP`] the curve's way ([`Trend`]: a larger working set
//! cannot be faster, so a step the wrong way is noise and merges too). A segment of
//! [`MIN_POINTS`] points or more is a plateau; fewer points left between two of them are part
//! of the fall. The median resists a noisy point
//! inside a plateau, and a fall needs a step of a quarter, more than the run-to-run noise of a
//! shared host, to split one.
//!
//! A level need not be flat: where the level before it spills into it gradually (a victim
//! cache, or one shared with other tenants), its points climb step by step, each under a
//! quarter, to a cliff of [`CLIFF_STEP`] or more, and no plateau forms. The points of a fall up
//! to such a cliff are a level when there are [`MIN_POINTS`] of them, no step among them is
//! a level's step, they spread less than the cliff, and they sit a step beyond the plateau
//! before them. A curve that falls by halves all the way has no level.
//!
//! A plateau's size is its largest working set: the last size the level still served. The
//! last plateau is what lies beyond the caches (device memory) when its bandwidth is within
//! [`BEYOND_CACHES_WITHIN`] of the stream suite's read of the same run ([`serves_as_memory`]),
//! or, where stream did not run (and for the latency curve), when the sweep reached at least four
//! times the largest cache it was sized for.

/// Adjacent plateaus differ by more than this factor.
pub const LEVEL_STEP: f64 = 1.25;
/// The fewest points a plateau has: an octave and a half at two points an octave, so that two
/// noisy neighbours, or the two points of a fall, are not taken for a level.
pub const MIN_POINTS: usize = 3;
/// A step between two neighbouring points of this factor or more is a cliff: the edge of a
/// level, even when the points before it slope too much to merge into a plateau.
pub const CLIFF_STEP: f64 = 2.0;

/// How near the last read plateau's bandwidth must be to the stream suite's read of the same
/// run (as a fraction of it, either way) to be device memory: stream's read streams arrays four
/// times the last-level cache or more, so a plateau at its figure is served by the same memory;
/// 15% leaves room for the two kernels' different access patterns, and a cache level is
/// usually 1.5x or more faster than memory.
pub const BEYOND_CACHES_WITHIN: f64 = 0.15;

/// Whether a plateau of `bandwidth` is device memory, given the stream suite's read figure of
/// the same run (the same unit).
pub fn serves_as_memory(bandwidth: f64, stream_read: f64) -> bool {
    stream_read > 0.0 && (bandwidth / stream_read - 1.0).abs() <= BEYOND_CACHES_WITHIN
}

/// Which way a curve goes from one level to the next: bandwidth falls as the working set
/// leaves a cache, latency rises. A step the wrong way is noise, and is merged away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trend {
    /// Each level lower than the one before (bandwidth).
    Falling,
    /// Each level higher than the one before (latency).
    Rising,
}

/// One plateau of the curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Plateau {
    /// The smallest working set on it, bytes.
    pub first_bytes: u64,
    /// The largest working set on it: the level's detected size, bytes.
    pub last_bytes: u64,
    /// Median bandwidth over its points (the curve's unit).
    pub median: f64,
    /// Points on it.
    pub points: usize,
}

/// How far `curve` steps its `trend` way across a cache of `bytes` (a factor, above 1 the
/// curve's way): its value at the smallest working set of twice that or more against its value
/// at the largest of half that or less; `None` where the sweep has no point on one side.
pub fn step_across(curve: &[(u64, f64)], bytes: u64, trend: Trend) -> Option<f64> {
    let inside = curve
        .iter()
        .filter(|(set, _)| 2 * set <= bytes)
        .max_by_key(|p| p.0)?
        .1;
    let past = curve
        .iter()
        .filter(|(set, _)| *set >= 2 * bytes)
        .min_by_key(|p| p.0)?
        .1;
    Some(match trend {
        Trend::Falling => inside / past,
        Trend::Rising => past / inside,
    })
}

/// The plateaus of `curve` (working set in bytes, value), in order of size, each the `trend`
/// way from the one before. Points with a non-finite or non-positive value are left out; a
/// curve with fewer than two points has none.
pub fn plateaus(curve: &[(u64, f64)], trend: Trend) -> Vec<Plateau> {
    let mut points: Vec<(u64, f64)> = curve
        .iter()
        .copied()
        .filter(|(_, v)| v.is_finite() && *v > 0.0)
        .collect();
    points.sort_by_key(|p| p.0);
    let raw: Vec<f64> = points.iter().map(|p| p.1.ln()).collect();
    let smooth: Vec<f64> = (0..raw.len())
        .map(|i| match (i.checked_sub(1), raw.get(i + 1)) {
            (Some(before), Some(&after)) => median_of_three(raw[before], raw[i], after),
            _ => raw[i],
        })
        .collect();
    // Segments as index ranges [start, end) into `points`.
    let mut segments: Vec<(usize, usize)> = (0..points.len()).map(|i| (i, i + 1)).collect();
    let log_median = |(start, end): (usize, usize)| {
        let mut values: Vec<f64> = smooth[start..end].to_vec();
        values.sort_by(f64::total_cmp);
        let mid = values.len() / 2;
        if values.len() % 2 == 1 {
            values[mid]
        } else {
            (values[mid - 1] + values[mid]) / 2.0
        }
    };
    // The step from one segment to the next, positive the curve's way.
    let step = |a: (usize, usize), b: (usize, usize)| match trend {
        Trend::Falling => log_median(a) - log_median(b),
        Trend::Rising => log_median(b) - log_median(a),
    };
    loop {
        // Pairs too close to be two levels, or stepping the wrong way; the smallest step first.
        let closest = segments
            .windows(2)
            .enumerate()
            .map(|(i, pair)| (i, step(pair[0], pair[1])))
            .filter(|(_, step)| *step <= LEVEL_STEP.ln())
            .min_by(|a, b| a.1.abs().total_cmp(&b.1.abs()));
        match closest {
            Some((i, _)) => {
                segments[i].1 = segments[i + 1].1;
                segments.remove(i + 1);
            }
            None => break,
        }
    }
    let segments = with_sloped_levels(&segments, &smooth, trend);
    segments
        .into_iter()
        .filter(|(start, end)| end - start >= MIN_POINTS)
        .map(|segment| Plateau {
            first_bytes: points[segment.0].0,
            last_bytes: points[segment.1 - 1].0,
            median: log_median(segment).exp(),
            points: segment.1 - segment.0,
        })
        .collect()
}

/// `segments` with each fall that ends in a cliff split in two: the points before the cliff,
/// when there are [`MIN_POINTS`] or more of them, no step between neighbours exceeds
/// [`LEVEL_STEP`], they spread less than the cliff and sit a step beyond the plateau before
/// them, become one segment (a level whose curve slopes, as a victim cache's does when the
/// level before it spills into it gradually); the rest stays a fall, its segments unchanged. A cliff is one step between neighbouring
/// points of [`CLIFF_STEP`] or more the curve's way, into the next plateau or within the fall.
fn with_sloped_levels(
    segments: &[(usize, usize)],
    smooth: &[f64],
    trend: Trend,
) -> Vec<(usize, usize)> {
    let towards = |from: f64, to: f64| match trend {
        Trend::Falling => from - to,
        Trend::Rising => to - from,
    };
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(segments.len());
    let mut k = 0;
    while k < segments.len() {
        if segments[k].1 - segments[k].0 >= MIN_POINTS {
            out.push(segments[k]);
            k += 1;
            continue;
        }
        // A fall: the run of short segments from here to the next plateau (or the end).
        let start = segments[k].0;
        let mut next = k;
        while next < segments.len() && segments[next].1 - segments[next].0 < MIN_POINTS {
            next += 1;
        }
        let end = segments[next - 1].1;
        // The steepest step from a point of the fall to its neighbour, which may be the first
        // point of the plateau after it.
        let last_step = end.min(smooth.len() - 1);
        let cliff = (start..last_step)
            .map(|i| (i, towards(smooth[i], smooth[i + 1])))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let previous_level = out.last().map(|&(s, e)| {
            let mut values: Vec<f64> = smooth[s..e].to_vec();
            values.sort_by(f64::total_cmp);
            values[values.len() / 2]
        });
        match cliff {
            Some((i, step)) if step >= CLIFF_STEP.ln() && i + 1 - start >= MIN_POINTS => {
                let level = &smooth[start..=i];
                let spread = level.iter().copied().fold(f64::MIN, f64::max)
                    - level.iter().copied().fold(f64::MAX, f64::min);
                let mut sorted = level.to_vec();
                sorted.sort_by(f64::total_cmp);
                let middle = sorted[sorted.len() / 2];
                let apart = previous_level.is_none_or(|p| towards(p, middle) > LEVEL_STEP.ln());
                let gradual = level
                    .windows(2)
                    .all(|w| towards(w[0], w[1]).abs() <= LEVEL_STEP.ln());
                if spread < step && apart && gradual {
                    out.push((start, i + 1));
                    if i + 1 < end {
                        out.push((i + 1, end));
                    }
                } else {
                    out.extend_from_slice(&segments[k..next]);
                }
            }
            _ => out.extend_from_slice(&segments[k..next]),
        }
        k = next;
    }
    out
}

fn median_of_three(a: f64, b: f64, c: f64) -> f64 {
    a.max(b).min(a.min(b).max(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A curve at two points per octave from 4 KiB to `top`, with `level(bytes)` its value.
    fn curve(top: u64, mut level: impl FnMut(u64) -> f64) -> Vec<(u64, f64)> {
        let mut out = Vec::new();
        let mut size = 4096u64;
        while size <= top {
            out.push((size, level(size)));
            out.push((size * 3 / 2, level(size * 3 / 2)));
            size *= 2;
        }
        out
    }

    #[test]
    fn three_caches_and_memory_are_found_at_their_sizes() {
        // L1 32 KiB, L2 1 MiB, L3 32 MiB, with +-8% noise and a soft edge after L3.
        let noise = [1.0, 1.08, 0.93, 1.05, 0.96, 1.02];
        let mut k = 0;
        let points = curve(128 << 20, |b| {
            k += 1;
            let base = match b {
                b if b <= 32 << 10 => 200.0,
                b if b <= 1 << 20 => 90.0,
                b if b <= 32 << 20 => 45.0,
                b if b <= 48 << 20 => 30.0,
                _ => 14.0,
            };
            base * noise[k % noise.len()]
        });
        let found = plateaus(&points, Trend::Falling);
        let sizes: Vec<u64> = found.iter().map(|p| p.last_bytes).collect();
        assert_eq!(sizes, [32 << 10, 1 << 20, 32 << 20, 192 << 20], "{found:?}");
        let medians: Vec<f64> = found.iter().map(|p| p.median).collect();
        for (got, want) in medians.iter().zip([200.0, 90.0, 45.0, 14.0]) {
            assert!((got / want - 1.0).abs() < 0.1, "{medians:?}");
        }
    }

    #[test]
    fn a_sloped_level_before_a_cliff_is_a_level() {
        // lavapipe's chase on a guest that holds 4 MiB of its host's L3: 7 ns to 16 KiB, 11 ns to
        // 512 KiB, a climb from 14 to 24 ns to 3 MiB with no two points a plateau, then memory.
        let points: Vec<(u64, f64)> = [
            (4 << 10, 9.8),
            (6 << 10, 6.9),
            (8 << 10, 7.0),
            (12 << 10, 6.6),
            (16 << 10, 7.1),
            (24 << 10, 11.3),
            (32 << 10, 10.7),
            (64 << 10, 10.9),
            (128 << 10, 11.1),
            (256 << 10, 11.2),
            (512 << 10, 11.8),
            (768 << 10, 15.2),
            (1 << 20, 13.8),
            (3 << 19, 18.0),
            (2 << 20, 19.5),
            (3 << 20, 24.0),
            (4 << 20, 159.0),
            (6 << 20, 153.0),
            (8 << 20, 164.0),
            (16 << 20, 168.0),
        ]
        .to_vec();
        let found = plateaus(&points, Trend::Rising);
        let sizes: Vec<u64> = found.iter().map(|p| p.last_bytes).collect();
        assert_eq!(sizes, [16 << 10, 512 << 10, 3 << 20, 16 << 20], "{found:?}");
        assert_eq!(found[2].first_bytes, 768 << 10);
        assert!((found[2].median / 18.0 - 1.0).abs() < 0.05, "{found:?}");
        // Without the cliff (memory only twice as slow as the climb's top, 1.9x) the climb stays
        // a fall.
        let soft: Vec<(u64, f64)> = points
            .iter()
            .map(|&(b, v)| (b, if b >= 4 << 20 { 45.0 } else { v }))
            .collect();
        let sizes: Vec<u64> = plateaus(&soft, Trend::Rising)
            .iter()
            .map(|p| p.last_bytes)
            .collect();
        assert_eq!(sizes, [16 << 10, 512 << 10, 16 << 20]);
    }

    #[test]
    fn a_plateau_within_the_constant_of_streams_read_is_memory() {
        // H200: stream reads 4300 GB/s; the sweep's last plateau at 3900 (9% under) is HBM, a
        // plateau at 2x stream is a cache.
        assert!(serves_as_memory(3900.0, 4300.0));
        assert!(serves_as_memory(
            4300.0 * (1.0 + BEYOND_CACHES_WITHIN),
            4300.0
        ));
        assert!(!serves_as_memory(
            4300.0 * (1.0 - 1.01 * BEYOND_CACHES_WITHIN),
            4300.0
        ));
        assert!(!serves_as_memory(8600.0, 4300.0));
        assert!(!serves_as_memory(10.0, 0.0));
    }

    #[test]
    fn a_flat_curve_is_one_plateau_and_a_single_outlier_does_not_split_it() {
        let mut points = curve(1 << 20, |_| 50.0);
        points[5].1 = 20.0;
        let found = plateaus(&points, Trend::Falling);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].points, points.len());
        assert_eq!(
            (found[0].first_bytes, found[0].last_bytes),
            (4096, 1 << 20 | 1 << 19)
        );
    }

    #[test]
    fn too_few_or_unusable_points_give_no_plateau() {
        assert!(plateaus(&[], Trend::Falling).is_empty());
        assert!(plateaus(&[(4096, 10.0)], Trend::Falling).is_empty());
        assert!(plateaus(&[(4096, f64::NAN), (8192, 0.0)], Trend::Falling).is_empty());
        // A steady decline with no plateau: no two neighbours within a step of each other.
        let falling: Vec<(u64, f64)> = (0..8).map(|i| (4096 << i, 1000.0 / 2f64.powi(i))).collect();
        assert!(plateaus(&falling, Trend::Falling).is_empty());
    }

    #[test]
    fn a_step_the_wrong_way_is_noise_and_a_rising_curve_has_rising_levels() {
        // Latency: 10 ns to 16 KiB, a dip to 7.5 ns at 32-64 KiB (noise: a larger set cannot be
        // faster), 20 ns to 1 MiB, then 150 ns.
        let ns = |b: u64| match b {
            b if b <= 16 << 10 => 10.0,
            b if b <= 64 << 10 => 7.5,
            b if b <= 1 << 20 => 20.0,
            _ => 150.0,
        };
        let points: Vec<(u64, f64)> = (12..=24).map(|k| (1u64 << k, ns(1 << k))).collect();
        let found = plateaus(&points, Trend::Rising);
        let sizes: Vec<u64> = found.iter().map(|p| p.last_bytes).collect();
        assert_eq!(sizes, [64 << 10, 1 << 20, 16 << 20], "{found:?}");
        // Read as bandwidth, the same curve's rises are the wrong way and merge.
        assert!(plateaus(&points, Trend::Falling).len() < found.len());
    }
}
