//! Which bytes of C a check reads back.
//!
//! The tuner runs every candidate through the full runner (set-up, first run, check, samples),
//! and each check used to read back all of C: 64 MiB at 4096 x 4096 f32, an estimated 0.03 to
//! 0.1 s of host time per candidate on a fast host, 18 to 60 s of an H200's 594-candidate plan,
//! though a sampled check compares one element of each 16 x 16 tile, all in one row of each
//! band of 16 rows (a 16th of C). A [`ReadPlan`] copies only the
//! 4-byte words that hold the checked elements (wgpu copies whole multiples of
//! [`wgpu::COPY_BUFFER_ALIGNMENT`]; an f16 element is half a word), neighbours merged into
//! one copy. Where every element is checked (small products) the words run together into one
//! copy of the whole of C, as before.

use gpubench_harness::kit::gpu::Precision;
use half::f16;

/// Words closer than this many bytes are read as one span: a few hundred bytes more cost less
/// than another copy command, and a whole checked matrix (rows apart by their padding of at
/// most three elements) becomes one copy.
const MERGE_GAP: u64 = 256;

/// The spans of C a check reads back and where each checked element lands in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPlan {
    /// (byte offset in C, bytes) of each copy, in order of offset; the bytes read back are
    /// these spans back to back.
    spans: Vec<(u64, u64)>,
    /// For each pick, in the order given, the index of its element in the bytes read back.
    at: Vec<usize>,
    precision: Precision,
}

impl ReadPlan {
    /// The plan for `picks` ((row, column) of C) of a C with `ldc` elements per row of
    /// `precision` values.
    pub fn new(picks: &[(usize, usize)], ldc: usize, precision: Precision) -> Self {
        let width = precision.bytes();
        let align = wgpu::COPY_BUFFER_ALIGNMENT;
        let offset = |p: usize| (picks[p].0 * ldc + picks[p].1) as u64 * width;
        let mut order: Vec<usize> = (0..picks.len()).collect();
        order.sort_by_key(|&p| offset(p));
        let mut spans: Vec<(u64, u64)> = Vec::new();
        // The span each pick is read in.
        let mut span_of = vec![0; picks.len()];
        for p in order {
            let start = offset(p) / align * align;
            let end = (offset(p) + width).div_ceil(align) * align;
            match spans.last_mut() {
                Some((first, size)) if start <= *first + *size + MERGE_GAP => {
                    *size = (*first + *size).max(end) - *first;
                }
                _ => spans.push((start, end - start)),
            }
            span_of[p] = spans.len() - 1;
        }
        let mut read_before = Vec::with_capacity(spans.len());
        let mut total = 0;
        for &(_, size) in &spans {
            read_before.push(total);
            total += size;
        }
        let at = (0..picks.len())
            .map(|p| {
                let span = span_of[p];
                ((read_before[span] + offset(p) - spans[span].0) / width) as usize
            })
            .collect();
        Self {
            spans,
            at,
            precision,
        }
    }

    /// (byte offset in C, bytes) of each copy, for [`GpuContext::read_spans_with`].
    ///
    /// [`GpuContext::read_spans_with`]: gpubench_harness::GpuContext::read_spans_with
    pub fn spans(&self) -> &[(u64, u64)] {
        &self.spans
    }

    /// The bytes the plan reads back.
    pub fn bytes(&self) -> u64 {
        self.spans.iter().map(|&(_, size)| size).sum()
    }

    /// Pick `index`'s element in `read` (the spans' bytes back to back), or `None` where
    /// `read` is too short to hold it.
    pub fn element(&self, read: &[u8], index: usize) -> Option<f64> {
        element(read, *self.at.get(index)?, self.precision)
    }
}

/// Element `index` of a buffer of `precision` values, or `None` past its end.
pub fn element(bytes: &[u8], index: usize, precision: Precision) -> Option<f64> {
    let width = precision.bytes() as usize;
    let raw = bytes.get(index * width..(index + 1) * width)?;
    Some(match precision {
        Precision::F32 => f64::from(f32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]])),
        Precision::F16 => f16::from_le_bytes([raw[0], raw[1]]).to_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::inputs::to_bytes;

    /// C (`rows` x `ldc`) with element (i, j) = i * 1000 + j, in `precision` (exact in f16 for
    /// the small indices used).
    fn numbered(rows: usize, ldc: usize, precision: Precision) -> Vec<u8> {
        let values: Vec<f32> = (0..rows * ldc)
            .map(|e| ((e / ldc) * 1000 + e % ldc) as f32)
            .collect();
        to_bytes(&values, precision)
    }

    /// What copying `plan`'s spans out of `c` back to back gives.
    fn gather(plan: &ReadPlan, c: &[u8]) -> Vec<u8> {
        plan.spans()
            .iter()
            .flat_map(|&(offset, size)| c[offset as usize..(offset + size) as usize].to_vec())
            .collect()
    }

    #[test]
    fn every_pick_is_found_where_the_spans_put_it_in_either_precision() {
        // Unsorted, repeated and neighbouring picks, odd columns (half a word in f16), rows
        // far apart (separate spans) and the last element of the last row.
        let picks = [
            (7, 3),
            (0, 0),
            (0, 1),
            (3, 5),
            (7, 3),
            (2, 2),
            (9, 11),
            (0, 2),
        ];
        let ldc = 12;
        for precision in [Precision::F32, Precision::F16] {
            let c = numbered(10, ldc, precision);
            let plan = ReadPlan::new(&picks, ldc, precision);
            let align = wgpu::COPY_BUFFER_ALIGNMENT;
            assert!(
                plan.spans()
                    .iter()
                    .all(|&(o, s)| o % align == 0 && s % align == 0)
            );
            assert!(plan.spans().iter().all(|&(o, s)| o + s <= c.len() as u64));
            let read = gather(&plan, &c);
            assert_eq!(read.len() as u64, plan.bytes());
            for (index, &(i, j)) in picks.iter().enumerate() {
                let want = element(&c, i * ldc + j, precision);
                assert_eq!(plan.element(&read, index), want, "C[{i}][{j}]");
            }
            assert_eq!(plan.element(&read[..0], 0), None, "short read");
        }
    }

    #[test]
    fn a_sampled_check_reads_words_and_a_whole_check_reads_all_of_c_at_once() {
        // Two picks a row apart in a 4096-wide f32 C: two one-word copies, not two rows.
        let far = ReadPlan::new(&[(5, 7), (900, 4095)], 4096, Precision::F32);
        let words = vec![((5 * 4096 + 7) * 4, 4), ((900 * 4096 + 4095) * 4, 4)];
        assert_eq!(far.spans(), words.as_slice());
        // Every element of a 5 x 6 C with rows of 8: one copy from the start to the last word.
        let every: Vec<(usize, usize)> = (0..5).flat_map(|i| (0..6).map(move |j| (i, j))).collect();
        let whole = ReadPlan::new(&every, 8, Precision::F16);
        assert_eq!(whole.spans(), &[(0, (4 * 8 + 6) * 2)]);
    }

    #[test]
    fn elements_read_from_bytes_in_either_precision() {
        let values = [1.5f32, -2.25, 3.0];
        for precision in [Precision::F32, Precision::F16] {
            let bytes = to_bytes(&values, precision);
            assert_eq!(element(&bytes, 1, precision), Some(-2.25));
            assert_eq!(element(&bytes, 3, precision), None);
        }
    }
}
