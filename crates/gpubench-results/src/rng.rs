//! A small deterministic generator (SplitMix64) for benchmark inputs and bootstrap resampling.
//!
//! Inputs must be incompressible and never zero (zero pages and compression make zeros fast);
//! resampling must repeat exactly for a given seed so that verdicts repeat. SplitMix64 gives both
//! in a dozen lines, with no state beyond one u64.

/// SplitMix64 (Steele, Lea and Flood, 2014): fast, full-period, good enough for test data.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform value in [0, 1) with 24 bits of precision (exact in f32).
    pub fn next_unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A uniform index in [0, n). `n` must be non-zero.
    pub fn next_below(&mut self, n: usize) -> usize {
        // Lemire's multiply-shift: unbiased enough for resampling (bias < n / 2^64).
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// `len` f32 values uniform in [lo, hi): never zero when lo > 0.
    pub fn f32_vec(&mut self, len: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..len)
            .map(|_| lo + (hi - lo) * self.next_unit_f32())
            .collect()
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(len);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_values_in_range() {
        let a = SplitMix64::new(7).f32_vec(1000, 0.5, 1.5);
        let b = SplitMix64::new(7).f32_vec(1000, 0.5, 1.5);
        assert_eq!(a, b);
        assert!(a.iter().all(|v| (0.5..1.5).contains(v)));
        let distinct: std::collections::BTreeSet<u32> = a.iter().map(|v| v.to_bits()).collect();
        assert!(distinct.len() > 990, "values should not repeat much");
    }

    #[test]
    fn next_below_stays_below() {
        let mut rng = SplitMix64::new(1);
        for n in [1usize, 2, 3, 10, 1000] {
            for _ in 0..1000 {
                assert!(rng.next_below(n) < n);
            }
        }
    }
}
