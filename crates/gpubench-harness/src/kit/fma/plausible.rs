//! A bound on the accumulate form's rate that no GPU can pass: the check that stands where the
//! values cannot tell a folded loop from a real one.
//!
//! The accumulate rows' values are the multiply rows' (exact either way), so a compiler that
//! folded, split or hoisted the accumulate chain would still pass verification, and its figure
//! would be the compiler's, not the card's. Only RADV's disassembly is read for that (in
//! `crates/gpubench-isa`); NVIDIA's and Apple's compilers are not. But the only way any known GPU
//! runs the accumulate form faster than the multiply form is RDNA 3's dual issue of `v_fmac_f32`
//! (twice the rate at most), so an accumulate row more than [`ACCUMULATE_OVER_MULTIPLY_MAX`]
//! times its multiply row measured fewer operations than it counts, on any card: it fails with
//! both figures in its reason. A fold of Mesa's old kind (16 times the work) is far past it; a
//! single halving on a card without dual issue is not, and stays the disassembly's to catch.

use crate::kit::derived::param_str;
use crate::{BenchResult, Status};

/// Most an accumulate-form row may run over the multiply-form row of its precision and form:
/// RDNA 3's dual issue (2x), with room for the noise of two medians.
pub const ACCUMULATE_OVER_MULTIPLY_MAX: f64 = 2.2;

/// Fails `result`, an accumulate-form FMA peak, where it ran more than
/// [`ACCUMULATE_OVER_MULTIPLY_MAX`] times the multiply-form row of the same precision and form
/// among `earlier` (the compute suite runs that one first); any other result, or one without
/// an ok partner, is left as it is.
pub fn fail_beyond_dual_issue(result: &mut BenchResult, earlier: &[BenchResult]) {
    let Some(ratio) = over_multiply(result, earlier) else {
        return;
    };
    if ratio <= ACCUMULATE_OVER_MULTIPLY_MAX {
        return;
    }
    let reason = format!(
        "ran {ratio:.2}x the multiply form of the same precision and width, more than the {ACCUMULATE_OVER_MULTIPLY_MAX}x that RDNA 3's dual issue allows at most: the compiler folded, split or hoisted the chain, so the figure would be the compiler's, not the card's"
    );
    result.fail(reason);
}

/// `result`'s median over the multiply-form row of its precision and form in `earlier`, where
/// `result` is an ok accumulate-form FMA peak and that row is ok too.
fn over_multiply(result: &BenchResult, earlier: &[BenchResult]) -> Option<f64> {
    let is_peak =
        |r: &BenchResult| param_str(r, "kernel") == Some("fma-peak") && r.suite == result.suite;
    if !is_peak(result) || param_str(result, "chain") != Some("accumulate") {
        return None;
    }
    let form = param_str(result, "form")?.strip_prefix("acc-")?;
    let precision = param_str(result, "precision")?;
    let partner = earlier.iter().find(|r| {
        is_peak(r)
            && param_str(r, "chain") == Some("multiply")
            && param_str(r, "form") == Some(form)
            && param_str(r, "precision") == Some(precision)
            && r.status == Status::Ok
    })?;
    Some(result.median()? / partner.median()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BenchmarkInfo, MetricKind};
    use gpubench_results::stats::summarize;

    /// An ok compute-suite FMA peak of `chain` and `form` in f32 at `gflops`.
    fn peak(chain: &str, form: &str, gflops: f64) -> BenchResult {
        let info = BenchmarkInfo::new(
            format!("compute/fma-peak/{form}-f32"),
            "compute",
            MetricKind::Throughput,
            "flops",
        )
        .param("kernel", "fma-peak")
        .param("precision", "f32")
        .param("form", form)
        .param("chain", chain);
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        r.samples = vec![gflops * 0.99, gflops, gflops * 1.01];
        r.summary = summarize(&r.samples);
        r.verified = true;
        r.timing = Some(crate::TimingSource::GpuTimestamp);
        r.iterations_per_sample = 4;
        r
    }

    #[test]
    fn an_accumulate_row_past_twice_its_multiply_row_fails_without_a_figure() {
        let earlier = [
            peak("multiply", "vec4", 30_000.0),
            peak("multiply", "scalar", 10_000.0),
        ];
        // RDNA 3's dual issue: twice the multiply form stands.
        let mut dual = peak("accumulate", "acc-vec4", 60_000.0);
        fail_beyond_dual_issue(&mut dual, &earlier);
        assert_eq!(dual.status, Status::Ok);
        // A loop folded to a sixteenth of its work, as Mesa once did: fails, no figure.
        let mut folded = peak("accumulate", "acc-vec4", 480_000.0);
        fail_beyond_dual_issue(&mut folded, &earlier);
        assert_eq!(folded.status, Status::Failed);
        assert!(folded.summary.is_none() && folded.samples.is_empty());
        assert!(folded.timing.is_none() && folded.iterations_per_sample == 0);
        let reason = folded.reason.unwrap_or_default();
        assert!(reason.contains("ran 16.00x the multiply form"), "{reason}");
        // Judged against its own form: 48 TFLOP/s beside the scalar row's 10 would fail.
        let mut vec4 = peak("accumulate", "acc-vec4", 48_000.0);
        fail_beyond_dual_issue(&mut vec4, &earlier);
        assert_eq!(vec4.status, Status::Ok);
    }

    #[test]
    fn without_an_ok_multiply_row_or_outside_the_accumulate_form_nothing_changes() {
        let mut alone = peak("accumulate", "acc-scalar", 1e9);
        fail_beyond_dual_issue(&mut alone, &[]);
        assert_eq!(alone.status, Status::Ok);
        let mut failed = peak("multiply", "scalar", 1.0);
        failed.status = Status::Failed;
        fail_beyond_dual_issue(&mut alone, &[failed]);
        assert_eq!(alone.status, Status::Ok);
        let mut multiply = peak("multiply", "scalar", 1e9);
        fail_beyond_dual_issue(&mut multiply, &[peak("multiply", "scalar", 1.0)]);
        assert_eq!(multiply.status, Status::Ok);
    }
}
