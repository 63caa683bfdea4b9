//! A bound on the accumulate form's rate that no GPU can pass: the check that stands where the
//! values cannot tell a folded loop from a real one.
//!
//! The accumulate rows' values are the multiply rows' (exact either way), so a compiler that
//! folded, split or hoisted the accumulate chain would still pass verification, and its figure
//! would be the compiler's, not the card's. Only RADV's disassembly is read for that (in
//! `crates/gpubench-isa`); NVIDIA's and Apple's compilers are not. But the two forms issue the
//! same fused multiply-adds with the same independent chains, and the one way a known GPU runs
//! the accumulate form faster is RDNA 3's dual issue of `v_fmac_f32` (twice the rate at most).
//! So an accumulate row fails, with both figures in its reason, where it runs more than
//! [`ACCUMULATE_OVER_MULTIPLY_MAX`] times its multiply row on an AMD card or one of a vendor not
//! known here, and more than [`ACCUMULATE_OVER_MULTIPLY_ONE_RATE`] times on NVIDIA's, Apple's
//! and Intel's cards, where neither form issues faster than the other. A fold of Mesa's old
//! kind (16 times the work) fails everywhere; a single halving (2x) fails on those three
//! vendors' cards and stays the disassembly's to catch on AMD's.

use crate::kit::derived::param_str;
use crate::kit::facts::{VENDOR_AMD, VENDOR_APPLE};
use crate::{BenchResult, Status};

/// Most an accumulate-form row may run over the multiply-form row of its precision and form on
/// an AMD card (or one of an unknown vendor): RDNA 3's dual issue (2x), with room for the
/// noise of two medians.
pub const ACCUMULATE_OVER_MULTIPLY_MAX: f64 = 2.2;

/// The same bound on NVIDIA's, Apple's and Intel's cards, where the two forms run at one rate:
/// room for the noise of two medians and a clock that moved between them, well short of the
/// 2x a compiler that halved the chain would show.
pub const ACCUMULATE_OVER_MULTIPLY_ONE_RATE: f64 = 1.3;

/// NVIDIA's PCI vendor id.
const VENDOR_NVIDIA: u32 = 0x10DE;
/// Intel's PCI vendor id.
const VENDOR_INTEL: u32 = 0x8086;

/// How far an accumulate-form row may run past its multiply row on a card of `vendor` (as
/// [`gpubench_results::AdapterSummary::vendor`] gives it), and why, for a failure's reason.
pub fn accumulate_bound(vendor: u32) -> (f64, &'static str) {
    match vendor {
        VENDOR_NVIDIA | VENDOR_APPLE | VENDOR_INTEL => (
            ACCUMULATE_OVER_MULTIPLY_ONE_RATE,
            "this vendor's cards issue both forms at one rate",
        ),
        VENDOR_AMD => (
            ACCUMULATE_OVER_MULTIPLY_MAX,
            "RDNA 3's dual issue allows at most",
        ),
        _ => (
            ACCUMULATE_OVER_MULTIPLY_MAX,
            "any known card allows at most (RDNA 3's dual issue)",
        ),
    }
}

/// Fails `result`, an accumulate-form FMA peak, where it ran more than [`accumulate_bound`]
/// allows on a card of `vendor` over the multiply-form row of the same precision and form
/// among `earlier` (the compute suite runs that one first); any other result, or one without
/// an ok partner, is left as it is.
pub fn fail_implausible_accumulate(result: &mut BenchResult, earlier: &[BenchResult], vendor: u32) {
    let Some(ratio) = over_multiply(result, earlier) else {
        return;
    };
    let (bound, why) = accumulate_bound(vendor);
    if ratio <= bound {
        return;
    }
    let reason = format!(
        "ran {ratio:.2}x the multiply form of the same precision and width, more than the {bound}x {why}: the compiler folded, split or hoisted the chain, so the figure would be the compiler's, not the card's"
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
    fn an_accumulate_row_past_what_dual_issue_allows_fails_without_a_figure_on_amd() {
        let earlier = [
            peak("multiply", "vec4", 30_000.0),
            peak("multiply", "scalar", 10_000.0),
        ];
        // RDNA 3's dual issue: twice the multiply form stands.
        let mut dual = peak("accumulate", "acc-vec4", 60_000.0);
        fail_implausible_accumulate(&mut dual, &earlier, VENDOR_AMD);
        assert_eq!(dual.status, Status::Ok);
        // A loop folded to a sixteenth of its work, as Mesa once did: fails, no figure.
        let mut folded = peak("accumulate", "acc-vec4", 480_000.0);
        fail_implausible_accumulate(&mut folded, &earlier, VENDOR_AMD);
        assert_eq!(folded.status, Status::Failed);
        assert!(folded.summary.is_none() && folded.samples.is_empty());
        assert!(folded.timing.is_none() && folded.iterations_per_sample == 0);
        let reason = folded.reason.unwrap_or_default();
        assert!(reason.contains("ran 16.00x the multiply form"), "{reason}");
        assert!(reason.contains("2.2x RDNA 3's dual issue"), "{reason}");
        // Judged against its own form: 48 TFLOP/s beside the scalar row's 10 would fail.
        let mut vec4 = peak("accumulate", "acc-vec4", 48_000.0);
        fail_implausible_accumulate(&mut vec4, &earlier, VENDOR_AMD);
        assert_eq!(vec4.status, Status::Ok);
    }

    #[test]
    fn a_halved_chain_fails_where_both_forms_run_at_one_rate() {
        let earlier = [peak("multiply", "scalar", 10_000.0)];
        for vendor in [VENDOR_NVIDIA, VENDOR_APPLE, VENDOR_INTEL] {
            // Noise and a clock step between the two rows stand.
            let mut noisy = peak("accumulate", "acc-scalar", 12_000.0);
            fail_implausible_accumulate(&mut noisy, &earlier, vendor);
            assert_eq!(noisy.status, Status::Ok, "{vendor:#x}");
            // Half the chain's work counted twice: fails here, though not on AMD's cards.
            let mut halved = peak("accumulate", "acc-scalar", 20_000.0);
            fail_implausible_accumulate(&mut halved, &earlier, vendor);
            assert_eq!(halved.status, Status::Failed, "{vendor:#x}");
            let reason = halved.reason.unwrap_or_default();
            assert!(reason.contains("1.3x this vendor's cards"), "{reason}");
        }
        // A vendor not known here gets the bound that holds on every known card.
        let mut unknown = peak("accumulate", "acc-scalar", 20_000.0);
        fail_implausible_accumulate(&mut unknown, &earlier, 0x5143);
        assert_eq!(unknown.status, Status::Ok);
    }

    #[test]
    fn without_an_ok_multiply_row_or_outside_the_accumulate_form_nothing_changes() {
        let mut alone = peak("accumulate", "acc-scalar", 1e9);
        fail_implausible_accumulate(&mut alone, &[], VENDOR_NVIDIA);
        assert_eq!(alone.status, Status::Ok);
        let mut failed = peak("multiply", "scalar", 1.0);
        failed.status = Status::Failed;
        fail_implausible_accumulate(&mut alone, &[failed], VENDOR_NVIDIA);
        assert_eq!(alone.status, Status::Ok);
        let mut multiply = peak("multiply", "scalar", 1e9);
        let slow = [peak("multiply", "scalar", 1.0)];
        fail_implausible_accumulate(&mut multiply, &slow, VENDOR_NVIDIA);
        assert_eq!(multiply.status, Status::Ok);
    }
}
