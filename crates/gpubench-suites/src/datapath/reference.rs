//! The CPU side of a request: the input the host prepares (a seeded base pattern, the first
//! word of the first 16-byte group of every output word's share xored with a salt that differs
//! per request, so no two requests carry the same bytes and no two return the same answer) and
//! the output the device must return, predicted exactly from the input without replaying the
//! device's work.
//!
//! Why the prediction is cheap: output word t is `h ^ bits(sum)`, where h is the xor of every
//! word of the input groups t, t + n_out, ... and the sum depends on h and the step count alone
//! (see `datapath.wgsl`). Xor is linear, so h for request k is the base pattern's h (computed
//! once) xored with the salt, which exactly one group of the share carries (group t), whatever
//! the share's size: salting every group would cancel in a share of an even number of groups,
//! and every request of such a workload would return the same answer, a stale output passing
//! the check. Checking a word costs a few operations, whatever the request's size or work, so
//! the check never becomes the bounding stage of a fast device.

use super::request::Request;

/// The step added by each FMA, as the kernel's uniform block holds it (2^-10).
pub const STEP: f32 = 1.0 / 1024.0;
/// Output words the timed check compares per request, evenly spaced (the first verification
/// compares every word).
pub const CHECKED_WORDS: usize = 4096;

/// What the host keeps to prepare a request and check its answer.
pub struct Reference {
    /// The base input pattern, one word per input word.
    base: Vec<u32>,
    /// The xor fold of the base pattern's share of each output word.
    folds: Vec<u32>,
    /// Input groups of four words.
    groups: usize,
    /// Output words.
    n_out: usize,
    /// Steps of each chain.
    steps: u64,
}

impl Reference {
    /// The reference of `request`, its base pattern seeded with `seed`.
    pub fn new(request: &Request, seed: u64) -> Self {
        let n_in = request.input_words() as usize;
        let n_out = request.output_words() as usize;
        let mut state = seed;
        let base: Vec<u32> = (0..n_in).map(|_| splitmix(&mut state) as u32).collect();
        let mut folds = vec![0u32; n_out];
        for (g, group) in base.chunks_exact(4).enumerate() {
            folds[g % n_out] ^= group.iter().fold(0, |h, w| h ^ w);
        }
        Self {
            groups: n_in / 4,
            base,
            folds,
            n_out,
            steps: request.steps,
        }
    }

    /// The salt of request number `k`: never zero, so every request's input differs from the
    /// base pattern.
    pub fn salt(k: u64) -> u32 {
        let mut state = k ^ 0x9e37_79b9_7f4a_7c15;
        (splitmix(&mut state) as u32) | 1
    }

    /// Writes request `salt`'s input into `out` (mapped memory, which may be write-combining:
    /// written once, in order, never read), exactly as many bytes as the input has: the host's
    /// preparation of a request.
    pub fn prepare(&self, mut out: wgpu::WriteOnly<'_, [u8]>, salt: u32) {
        // Built a cache-sized block at a time, then written out with one copy each: mapped
        // memory sees long sequential writes, as from a memcpy.
        const BLOCK_WORDS: usize = 16 * 1024;
        let mut block = vec![0u8; BLOCK_WORDS * 4];
        // The first word of groups 0 .. n_out (the first group of each output word's share).
        let salted_words = 4 * self.n_out;
        for (i, words) in self.base.chunks(BLOCK_WORDS).enumerate() {
            let bytes = words.len() * 4;
            for (j, (dst, word)) in block.chunks_exact_mut(4).zip(words).enumerate() {
                let index = i * BLOCK_WORDS + j;
                let salted = index.is_multiple_of(4) && index < salted_words;
                let word = if salted { word ^ salt } else { *word };
                dst.copy_from_slice(&word.to_le_bytes());
            }
            let start = i * BLOCK_WORDS * 4;
            out.slice(start..start + bytes)
                .copy_from_slice(&block[..bytes]);
        }
    }

    /// The output word `t` of the request with `salt`.
    pub fn expected(&self, t: usize, salt: u32) -> u32 {
        // Group t, the first of the word's share, carries the salt (a word with no share has
        // none).
        let h = self.folds[t] ^ if t < self.groups { salt } else { 0 };
        h ^ chains_sum(h, self.steps).to_bits()
    }

    /// The words of `output` (little-endian, as read back) that differ from request `salt`'s
    /// answer, checking every word or [`CHECKED_WORDS`] evenly spaced ones (the last included).
    pub fn mismatches(&self, output: &[u8], salt: u32, every_word: bool) -> Mismatches {
        let words = output.len() / 4;
        let word = |t: usize| {
            let b = &output[t * 4..t * 4 + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        let indices: Box<dyn Iterator<Item = usize>> = if every_word || words <= CHECKED_WORDS {
            Box::new(0..words)
        } else {
            let last = words - 1;
            Box::new((0..CHECKED_WORDS).map(move |i| i * last / (CHECKED_WORDS - 1)))
        };
        let mut result = Mismatches::default();
        for t in indices {
            result.checked += 1;
            let (got, want) = (word(t), self.expected(t, salt));
            if got != want {
                result.first.get_or_insert((t, got, want));
                result.wrong += 1;
            }
        }
        result
    }
}

/// What a check found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Mismatches {
    /// Words compared.
    pub checked: usize,
    /// Words that differed.
    pub wrong: usize,
    /// The first that differed: index, got, wanted.
    pub first: Option<(usize, u32, u32)>,
}

impl Mismatches {
    /// Why the output is wrong, or `None` when it is right.
    pub fn failure(&self) -> Option<String> {
        let (t, got, want) = self.first?;
        Some(format!(
            "{} of {} output words wrong; word {t} is {got:#010x}, expected {want:#010x}",
            self.wrong, self.checked
        ))
    }
}

/// The f32 sum `(x0 + x1) + (x2 + x3)` of the four chains started from the bytes of `h`,
/// after `steps` steps: exact, as every value is a multiple of 2^-10 below 2^14.
pub fn chains_sum(h: u32, steps: u64) -> f32 {
    let chain = |c: u32| -1.5 + f64::from((h >> (8 * c)) & 255) / 1024.0 + steps as f64 / 1024.0;
    ((chain(0) + chain(1)) + (chain(2) + chain(3))) as f32
}

/// splitmix64: a small, well-mixed sequence from a seed.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The device's work replayed word by word on the CPU, in f32 FMAs, as the kernel does it.
    fn replay(input: &[u8], n_out: usize, steps: u64) -> Vec<u32> {
        let words: Vec<u32> = input
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        (0..n_out)
            .map(|t| {
                let h = words
                    .chunks_exact(4)
                    .skip(t)
                    .step_by(n_out)
                    .flatten()
                    .fold(0, |h, w| h ^ w);
                let mut x = [0u32, 1, 2, 3].map(|c| -1.5 + ((h >> (8 * c)) & 255) as f32 * STEP);
                for _ in 0..steps {
                    x = x.map(|v| v.mul_add(1.0, STEP));
                }
                h ^ ((x[0] + x[1]) + (x[2] + x[3])).to_bits()
            })
            .collect()
    }

    #[test]
    fn the_prediction_is_the_replayed_work_for_every_salt_and_ragged_share() {
        // 37 input groups over 8 output words: shares of 5 and 4 groups (odd and even).
        // (64, 8, 2): every share holds 8 groups, an even number, as the transfer-bound
        // workload's 32 do.
        for (groups, n_out, steps) in [(37, 8, 4), (8, 8, 100), (4, 16, 8), (64, 8, 2)] {
            let n_in = groups * 4;
            let request = Request::new("t", n_in * 4, n_out * 4, steps);
            let reference = Reference::new(&request, 42);
            for k in 0..3 {
                let salt = Reference::salt(k);
                let mut input = vec![0u8; n_in as usize * 4];
                reference.prepare(wgpu::WriteOnly::from_mut(&mut input[..]), salt);
                let output: Vec<u8> = replay(&input, n_out as usize, steps)
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect();
                let found = reference.mismatches(&output, salt, true);
                assert_eq!(found.failure(), None, "{n_in}/{n_out}/{steps}");
                assert_eq!(found.checked, n_out as usize);
                // Another request's answer is wrong for this one, in every word with a share.
                let other = reference.mismatches(&output, Reference::salt(k + 7), true);
                assert_eq!(
                    other.wrong,
                    n_out.min(groups) as usize,
                    "{n_in}/{n_out}/{steps}"
                );
            }
        }
    }

    #[test]
    fn a_sampled_check_sees_the_ends_and_a_bad_word_in_the_sample() {
        let request = Request::new("t", 64 * 1024, 64 * 1024, 1);
        let reference = Reference::new(&request, 1);
        let salt = Reference::salt(0);
        let mut output: Vec<u8> = (0..16 * 1024)
            .flat_map(|t| reference.expected(t, salt).to_le_bytes())
            .collect();
        let last = output.len() - 4;
        output[last] ^= 1;
        let found = reference.mismatches(&output, salt, false);
        assert_eq!(found.checked, CHECKED_WORDS);
        assert_eq!(found.wrong, 1);
        assert!(found.failure().is_some_and(|f| f.contains("word 16383")));
    }
}
