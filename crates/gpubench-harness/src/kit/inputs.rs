//! Random inputs that sums and products of the suites' kernels keep exact: multiples of
//! [`INPUT_STEP`] in [0.5, 1.5), so a reduction over them is an integer multiple of the step
//! while it stays inside f32's integers, and the CPU predicts it bit for bit.

use gpubench_results::rng::SplitMix64;

/// The grain of every exact input: 2^-8.
pub const INPUT_STEP: f32 = 1.0 / 256.0;

/// `len` inputs, multiples of [`INPUT_STEP`] in [0.5, 1.5): random, never zero, and summed
/// exactly by the reduction (and by the memory suite's read).
pub fn exact_inputs(rng: &mut SplitMix64, len: usize) -> Vec<f32> {
    (0..len)
        .map(|_| (128 + rng.next_below(256)) as f32 * INPUT_STEP)
        .collect()
}
