//! Random inputs that sums and products of the suites' kernels keep exact: multiples of
//! [`INPUT_STEP`] in [0.5, 1.5), so a reduction over them is an integer multiple of the step
//! while it stays inside f32's integers, and the CPU predicts it bit for bit.

use gpubench_results::rng::SplitMix64;

/// The grain of every exact input: 2^-8.
pub const INPUT_STEP: f32 = 1.0 / 256.0;

/// Where every exact input lies: 128 to 383 steps.
pub const INPUT_RANGE: std::ops::Range<f32> = 0.5..1.5;

/// `len` inputs, multiples of [`INPUT_STEP`] in [`INPUT_RANGE`]: random, never zero, and summed
/// exactly by the reduction (and by the memory suite's read).
pub fn exact_inputs(rng: &mut SplitMix64, len: usize) -> Vec<f32> {
    // 128 steps to start from, 256 to choose among.
    let first = (INPUT_RANGE.start / INPUT_STEP) as usize;
    let steps = ((INPUT_RANGE.end - INPUT_RANGE.start) / INPUT_STEP) as usize;
    (0..len)
        .map(|_| (first + rng.next_below(steps)) as f32 * INPUT_STEP)
        .collect()
}
