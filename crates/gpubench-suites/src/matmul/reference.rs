//! The CPU reference for C = A x B and the choice of elements to check.
//!
//! Matrices are row-major with a leading dimension (`ld`, elements between rows), as the GPU
//! buffers hold them. The reference sums in f64, in order, and also returns the sum of the
//! magnitudes of the terms, which bounds the rounding error of any summation order.

use gpubench_results::rng::SplitMix64;

/// A row-major matrix view: `rows` x `cols` elements, `ld` elements between row starts.
#[derive(Debug, Clone, Copy)]
pub struct MatrixRef<'a> {
    /// Elements, row after row.
    pub data: &'a [f32],
    /// Rows.
    pub rows: usize,
    /// Columns in use.
    pub cols: usize,
    /// Leading dimension (>= cols).
    pub ld: usize,
}

impl MatrixRef<'_> {
    /// Element (i, j).
    pub fn at(&self, i: usize, j: usize) -> f64 {
        f64::from(self.data[i * self.ld + j])
    }
}

/// One element of A x B in f64: the value and the sum of |a_ik * b_kj|.
pub fn reference_element(a: MatrixRef<'_>, b: MatrixRef<'_>, i: usize, j: usize) -> (f64, f64) {
    let mut sum = 0.0;
    let mut sum_abs = 0.0;
    for k in 0..a.cols {
        let term = a.at(i, k) * b.at(k, j);
        sum += term;
        sum_abs += term.abs();
    }
    (sum, sum_abs)
}

/// Every element of C is checked up to this many elements; larger products are sampled.
pub const FULL_CHECK_ELEMENTS: usize = 64 * 1024;
/// Side of the tiles of C that each hold a checked element in a large product: the smallest
/// block a matmul kernel writes as a unit (a cooperative-matrix fragment, a workgroup's
/// sub-tile: 16 to 128 on a side, aligned to multiples of their size), so a block left wrong or
/// unwritten (a race in the staging of A and B, a fragment no workgroup owns) is found wherever
/// it lies. One random row of every band of this many rows holds the band's checks, so the
/// check reads 1/16 of C back.
pub const CHECK_TILE: usize = 16;

/// The (row, column) pairs to verify for an `m` x `n` result: all of them when small, else one
/// random element of every [`CHECK_TILE`]-square tile (in one random row per band of tiles),
/// plus the four corners and a walk along the last row and last column, where bounds bugs live.
pub fn elements_to_check(m: usize, n: usize, seed: u64) -> Vec<(usize, usize)> {
    if m * n <= FULL_CHECK_ELEMENTS {
        return (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).collect();
    }
    let mut rng = SplitMix64::new(seed ^ 0x6d61_746d_756c);
    let mut picks: Vec<(usize, usize)> = Vec::new();
    for band in (0..m).step_by(CHECK_TILE) {
        let row = band + rng.next_below(CHECK_TILE.min(m - band));
        for tile in (0..n).step_by(CHECK_TILE) {
            picks.push((row, tile + rng.next_below(CHECK_TILE.min(n - tile))));
        }
    }
    picks.extend([(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)]);
    for t in 0..32 {
        picks.push((m - 1, rng.next_below(n)));
        picks.push((rng.next_below(m), n - 1));
        picks.push(((t * 7919) % m, (t * 104_729) % n));
    }
    picks.sort_unstable();
    picks.dedup();
    picks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_multiplies_a_known_product() {
        // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154], with a padded ld.
        let a = [1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0];
        let b = [
            7.0, 8.0, 0.0, 0.0, 9.0, 10.0, 0.0, 0.0, 11.0, 12.0, 0.0, 0.0,
        ];
        let a = MatrixRef {
            data: &a,
            rows: 2,
            cols: 3,
            ld: 4,
        };
        let b = MatrixRef {
            data: &b,
            rows: 3,
            cols: 2,
            ld: 4,
        };
        assert_eq!(reference_element(a, b, 0, 0), (58.0, 58.0));
        assert_eq!(reference_element(a, b, 0, 1).0, 64.0);
        assert_eq!(reference_element(a, b, 1, 0).0, 139.0);
        assert_eq!(reference_element(a, b, 1, 1).0, 154.0);
        let neg = [-1.0, 2.0];
        let one = [1.0, 1.0];
        let (v, s) = reference_element(
            MatrixRef {
                data: &neg,
                rows: 1,
                cols: 2,
                ld: 2,
            },
            MatrixRef {
                data: &one,
                rows: 2,
                cols: 1,
                ld: 1,
            },
            0,
            0,
        );
        assert_eq!((v, s), (1.0, 3.0));
    }

    #[test]
    fn small_products_are_checked_whole_and_large_ones_sampled_with_edges() {
        assert_eq!(elements_to_check(3, 5, 1).len(), 15);
        let picks = elements_to_check(1000, 1000, 1);
        // Every 16 x 16 tile (the last ones 8 wide) holds a check: 63 x 63 of them.
        let tiles: std::collections::BTreeSet<(usize, usize)> = picks
            .iter()
            .map(|&(i, j)| (i / CHECK_TILE, j / CHECK_TILE))
            .collect();
        assert_eq!(tiles.len(), 63 * 63);
        // In one row a band, plus the edge walks' rows: about a 16th of C is read back.
        let rows: std::collections::BTreeSet<usize> = picks.iter().map(|&(i, _)| i).collect();
        assert!(rows.len() < 63 + 2 * 32 + 2, "{} rows", rows.len());
        assert!(picks.len() < 63 * 63 + 4 + 3 * 32);
        for corner in [(0, 0), (0, 999), (999, 0), (999, 999)] {
            assert!(picks.contains(&corner));
        }
        assert!(picks.iter().all(|&(i, j)| i < 1000 && j < 1000));
        assert_eq!(picks, elements_to_check(1000, 1000, 1), "sampling repeats");
    }
}
