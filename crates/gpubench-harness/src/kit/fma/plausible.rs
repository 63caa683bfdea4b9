//! Bounds on the accumulate form's rate: the check that stands where the values cannot tell a
//! folded loop from a real one.
//!
//! The accumulate rows' values are the multiply rows' (exact either way), so a compiler that
//! folded, split or hoisted the accumulate chain would still pass verification, and its figure
//! would be the compiler's, not the card's. Only RADV's disassembly is read for that (in
//! `crates/gpubench-isa`); NVIDIA's and Apple's compilers are not. But the two forms issue the
//! same fused multiply-adds over the same independent chains, and the one way a known GPU runs
//! the accumulate form faster is RDNA 3's dual issue of `v_fmac_f32` (twice the rate at most).
//! So an accumulate row more than [`ACCUMULATE_OVER_MULTIPLY_MAX`] times its multiply row fails
//! on every card, both figures in its reason. On NVIDIA's, Apple's and Intel's cards, and AMD's
//! before RDNA 3 (named so), where neither form issues faster, one more than [`ACCUMULATE_OVER_MULTIPLY_ONE_RATE`] times keeps
//! its figure with a [`FASTER_ACCUMULATE`] warning and stays out of the measured peak: a
//! compiler that halved the chain looks like that, but so would one that paired operations
//! (f16 pairs, Blackwell's paired f32) in one form only, which is real work. A fold of Mesa's
//! old kind (16 times the work) fails everywhere.
//!
//! The integer peaks have the same blind spot, wider: wrapping arithmetic composes exactly, so
//! a compiler may legally fold a chain's steps into fewer multiply-adds, and the check, which
//! predicts the output by that very composition, passes. No card issues 32- or 64-bit integer
//! multiply-adds faster than f32 FMAs, and packed 16-bit ones (AMD's `v_pk_mad_u16`, two a lane)
//! at twice the rate at most, so an integer peak more than [`INT_OVER_F32_MAX`] times the
//! fastest f32 multiply-form peak of its run fails.

use gpubench_results::warnings::{FigureUnit, OwnedKind};

use crate::kit::derived::param_str;
use crate::kit::facts::{VENDOR_AMD, VENDOR_APPLE, VENDOR_INTEL, VENDOR_NVIDIA};
use crate::{BenchResult, Status};

/// Most an accumulate-form row may run over the multiply-form row of its precision and form on
/// any card: RDNA 3's dual issue (2x), with room for the noise of two medians.
pub const ACCUMULATE_OVER_MULTIPLY_MAX: f64 = 2.2;

/// Past this, on a card where the two forms run at one rate ([`issues_both_forms_at_one_rate`]),
/// an accumulate row is marked: room for the noise of two medians and a clock that moved between
/// them, well short of the 2x of a halved chain.
pub const ACCUMULATE_OVER_MULTIPLY_ONE_RATE: f64 = 1.3;

/// Most an integer multiply-add peak may run over the fastest f32 multiply-form FMA peak of its
/// run (both count a multiply-add as two operations): packed 16-bit multiply-adds double it,
/// with room for the noise of two medians and a CPU's 16-bit lanes.
pub const INT_OVER_F32_MAX: f64 = 3.0;

/// The warning on an accumulate-form row that ran past its multiply row by more than its card
/// issues; its figure is the ratio.
pub const FASTER_ACCUMULATE: OwnedKind = OwnedKind::new(
    "faster-accumulate",
    "accumulate form past the card's one rate",
    FigureUnit::Times,
);

/// Names of AMD families that issue both forms at one rate (GCN, Vega, RDNA 1 and 2 have no
/// dual issue), as RADV (`NAVI21`, `GFX1030`) and AMD's drivers (`Radeon RX 6900 XT`,
/// `Radeon 680M`) name them; matched in upper case.
const AMD_SINGLE_ISSUE: &[&str] = &[
    "NAVI1", "NAVI2", "GFX10", "GFX9", "GFX8", "VEGA", "POLARIS", "RX 4", "RX 5", "RX 6", "PRO W5",
    "PRO W6", "680M", "660M", "610M",
];

/// Whether the card of `vendor` (as [`gpubench_results::AdapterSummary::vendor`] gives it)
/// called `name` issues the accumulate and multiply forms at one rate: NVIDIA's, Apple's and
/// Intel's do, and AMD's of the families before RDNA 3 ([`AMD_SINGLE_ISSUE`]); RDNA 3 and later
/// dual-issue the accumulate form, and an AMD card not named as an older family, or another
/// vendor's, is not known here to issue at one rate.
pub fn issues_both_forms_at_one_rate(vendor: u32, name: &str) -> bool {
    match vendor {
        VENDOR_NVIDIA | VENDOR_APPLE | VENDOR_INTEL => true,
        VENDOR_AMD => {
            let name = name.to_uppercase();
            AMD_SINGLE_ISSUE.iter().any(|family| name.contains(family))
        }
        _ => false,
    }
}

/// Judges `result`, an accumulate-form FMA peak, against the multiply-form row of the same
/// precision and form among `earlier` (the compute suite runs that one first) on a card of
/// `vendor` called `name`: failed past [`ACCUMULATE_OVER_MULTIPLY_MAX`], marked with
/// [`FASTER_ACCUMULATE`] past [`ACCUMULATE_OVER_MULTIPLY_ONE_RATE`] where the card issues both
/// forms at one rate. Any other result, or one without an ok partner, is left as it is (the
/// latter stays out of the measured peak: [`is_unbounded_accumulate`]).
pub fn judge_accumulate(
    result: &mut BenchResult,
    earlier: &[BenchResult],
    (vendor, name): (u32, &str),
) {
    let Some(ratio) = over_multiply(result, earlier) else {
        return;
    };
    if ratio > ACCUMULATE_OVER_MULTIPLY_MAX {
        result.fail(format!(
            "ran {ratio:.2}x the multiply form of the same precision and width, more than the {ACCUMULATE_OVER_MULTIPLY_MAX}x that RDNA 3's dual issue allows at most on any card: the compiler folded, split or hoisted the chain, so the figure would be the compiler's, not the card's"
        ));
    } else if issues_both_forms_at_one_rate(vendor, name)
        && ratio > ACCUMULATE_OVER_MULTIPLY_ONE_RATE
    {
        result.warnings.push(FASTER_ACCUMULATE.record(
            format!(
                "ran {ratio:.2}x the multiply form of the same precision and width, where this card issues both forms at one rate (over {ACCUMULATE_OVER_MULTIPLY_ONE_RATE}x is marked): the compiler shortened the chain, or paired operations in this form only; read it beside the multiply row, which alone counts toward the measured peak"
            ),
            Some(ratio),
        ));
    }
}

/// Fails `result`, an ok integer multiply-add peak (`int-peak`), where it ran more than
/// [`INT_OVER_F32_MAX`] times the fastest ok f32 multiply-form FMA peak among `earlier` (the
/// compute suite runs those first). Any other result, or a run without that peak, is left as
/// it is.
pub fn judge_int(result: &mut BenchResult, earlier: &[BenchResult]) {
    if param_str(result, "kernel") != Some("int-peak") {
        return;
    }
    let fastest_f32 = multiply_peaks(earlier, "f32")
        .filter_map(BenchResult::median)
        .max_by(f64::total_cmp);
    let (Some(median), Some(f32_peak)) = (result.median(), fastest_f32) else {
        return;
    };
    let ratio = median / f32_peak;
    if ratio > INT_OVER_F32_MAX {
        result.fail(format!(
            "ran {ratio:.2}x the fastest f32 FMA peak of this run, more than the {INT_OVER_F32_MAX}x any card issues integer multiply-adds at (packed 16-bit ones double the rate at most): the compiler composed the chain's steps, which wrapping arithmetic allows and the exact check cannot see, so the figure would be the compiler's, not the card's"
        ));
    }
}

/// Whether `result` is an ok accumulate-form FMA peak with no ok multiply-form row of its
/// precision and form among `results` to bound it: nothing judged it, so its figure may be a
/// folded chain's and it stays out of the measured peak.
pub fn is_unbounded_accumulate(result: &BenchResult, results: &[BenchResult]) -> bool {
    param_str(result, "chain") == Some("accumulate") && over_multiply(result, results).is_none()
}

/// Whether `result` carries the [`FASTER_ACCUMULATE`] warning.
pub fn is_faster_accumulate(result: &BenchResult) -> bool {
    let kind = FASTER_ACCUMULATE.kind();
    result.warnings.iter().any(|w| w.kind == kind)
}

/// `result`'s median over the multiply-form row of its precision and form in `earlier`, where
/// `result` is an ok accumulate-form FMA peak and that row is ok too.
fn over_multiply(result: &BenchResult, earlier: &[BenchResult]) -> Option<f64> {
    if param_str(result, "kernel") != Some("fma-peak")
        || param_str(result, "chain") != Some("accumulate")
    {
        return None;
    }
    let form = param_str(result, "form")?.strip_prefix("acc-")?;
    let precision = param_str(result, "precision")?;
    let partner =
        multiply_peaks(earlier, precision).find(|r| param_str(r, "form") == Some(form))?;
    Some(result.median()? / partner.median()?)
}

/// The compute suite's ok multiply-form FMA peaks (`x = fma(x, a, b)`) in `precision` among
/// `earlier`: what both bounds judge by, in that suite and in any other that runs the kernel
/// (the sustained run's accumulate chain).
fn multiply_peaks<'a>(
    earlier: &'a [BenchResult],
    precision: &'a str,
) -> impl Iterator<Item = &'a BenchResult> {
    earlier.iter().filter(move |r| {
        r.suite == super::SUITE
            && r.status == Status::Ok
            && param_str(r, "kernel") == Some("fma-peak")
            && param_str(r, "chain") == Some("multiply")
            && param_str(r, "precision") == Some(precision)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MetricKind;
    use crate::kit::gpu::Precision;

    /// An ok compute-suite FMA peak of `form` (its chain by the `acc-` prefix) in f32 at
    /// `gflops`.
    fn peak(form: &str, gflops: f64) -> BenchResult {
        crate::testing::fma_peak_row("compute", form, gflops)
    }

    #[test]
    fn an_accumulate_row_past_what_dual_issue_allows_fails_without_a_figure() {
        let earlier = [peak("vec4", 30_000.0), peak("scalar", 10_000.0)];
        // RDNA 3's dual issue: twice the multiply form stands.
        let mut dual = peak("acc-vec4", 60_000.0);
        judge_accumulate(&mut dual, &earlier, (VENDOR_AMD, "a card"));
        assert_eq!(dual.status, Status::Ok);
        assert!(dual.warnings.is_empty());
        // A loop folded to a sixteenth of its work, as Mesa once did: fails, no figure, on
        // every vendor's card.
        for vendor in [VENDOR_AMD, VENDOR_NVIDIA, 0x5143] {
            let mut folded = peak("acc-vec4", 480_000.0);
            judge_accumulate(&mut folded, &earlier, (vendor, "a card"));
            assert_eq!(folded.status, Status::Failed);
            assert!(folded.summary.is_none() && folded.samples.is_empty());
            assert!(folded.timing.is_none() && folded.iterations_per_sample == 0);
            let reason = folded.reason.unwrap_or_default();
            assert!(reason.contains("ran 16.00x the multiply form"), "{reason}");
        }
        // Judged against its own form: 48 TFLOP/s beside the scalar row's 10 would fail.
        let mut vec4 = peak("acc-vec4", 48_000.0);
        judge_accumulate(&mut vec4, &earlier, (VENDOR_AMD, "a card"));
        assert_eq!(vec4.status, Status::Ok);
    }

    #[test]
    fn an_integer_peak_past_what_packed_16_bit_allows_fails() {
        let int_peak = |ty: &str, giops: f64| {
            let mut r = peak("vec4", giops);
            r.id = format!("compute/int-peak/vec4-{ty}");
            r.metric = MetricKind::IntThroughput;
            for key in ["chain", "precision"] {
                r.params.remove(key);
            }
            r.params.insert("kernel".into(), "int-peak".into());
            r.params.insert("type".into(), ty.into());
            r
        };
        let mut f16 = peak("vec4", 90_000.0);
        f16.params.insert("precision".into(), "f16".into());
        let earlier = [
            peak("scalar", 10_000.0),
            peak("vec4", 30_000.0),
            peak("acc-vec4", 60_000.0),
            f16,
        ];
        // Packed 16-bit multiply-adds at twice the fastest f32 multiply form stand.
        let mut packed = int_peak("i16", 60_000.0);
        judge_int(&mut packed, &earlier);
        assert_eq!(packed.status, Status::Ok);
        // A chain composed to a quarter of its steps fails: the f16, accumulate and scalar
        // rows are not what it is judged by.
        let mut folded = int_peak("i32", 120_000.0);
        judge_int(&mut folded, &earlier);
        assert_eq!(folded.status, Status::Failed);
        let reason = folded.reason.unwrap_or_default();
        assert!(
            reason.contains("ran 4.00x the fastest f32 FMA peak"),
            "{reason}"
        );
        // Without an f32 peak in the run there is nothing to judge by.
        let mut alone = int_peak("i32", 120_000.0);
        judge_int(&mut alone, &[]);
        assert_eq!(alone.status, Status::Ok);
        // An FMA row is not an integer row.
        let mut fma = peak("vec4", 1e9);
        judge_int(&mut fma, &earlier);
        assert_eq!(fma.status, Status::Ok);
    }

    #[test]
    fn a_halved_chain_is_marked_and_kept_out_of_the_peak_where_both_forms_run_at_one_rate() {
        let earlier = [peak("scalar", 10_000.0)];
        for vendor in [VENDOR_NVIDIA, VENDOR_APPLE, VENDOR_INTEL] {
            // Noise and a clock step between the two rows stand unmarked.
            let mut noisy = peak("acc-scalar", 12_000.0);
            judge_accumulate(&mut noisy, &earlier, (vendor, "a card"));
            assert!(noisy.status == Status::Ok && noisy.warnings.is_empty());
            // Twice the multiply row: kept, marked, and no longer the peak.
            let mut halved = peak("acc-scalar", 20_000.0);
            judge_accumulate(&mut halved, &earlier, (vendor, "a card"));
            assert_eq!(halved.status, Status::Ok, "{vendor:#x}");
            assert!(is_faster_accumulate(&halved), "{vendor:#x}");
            let message = &halved.warnings[0].message;
            assert!(message.contains("ran 2.00x the multiply form"), "{message}");
            let rows = [earlier[0].clone(), halved];
            let (peak, id) = super::super::measured_peak(&rows, Precision::F32).expect("a peak");
            assert_eq!(
                (peak, id.as_str()),
                (10_000.0, "compute/fma-peak/scalar-f32")
            );
        }
        // On AMD's RDNA 3 and a vendor not known here, twice is what dual issue can do.
        for card in [
            (VENDOR_AMD, "AMD Radeon RX 7900 XTX (RADV NAVI31)"),
            (VENDOR_AMD, "AMD Radeon Graphics"),
            (0x5143, "a card"),
        ] {
            let mut dual = peak("acc-scalar", 20_000.0);
            judge_accumulate(&mut dual, &earlier, card);
            assert!(dual.status == Status::Ok && !is_faster_accumulate(&dual));
        }
        // AMD's families before RDNA 3 have no dual issue: twice is a halved chain there.
        for name in [
            "AMD Radeon RX 6900 XT",
            "AMD Radeon RX 6800 (RADV NAVI21)",
            "Radeon 680M",
        ] {
            let mut halved = peak("acc-scalar", 20_000.0);
            judge_accumulate(&mut halved, &earlier, (VENDOR_AMD, name));
            assert!(is_faster_accumulate(&halved), "{name}");
        }
    }

    #[test]
    fn without_an_ok_multiply_row_or_outside_the_accumulate_form_nothing_changes() {
        let mut alone = peak("acc-scalar", 1e9);
        judge_accumulate(&mut alone, &[], (VENDOR_NVIDIA, "a card"));
        assert_eq!(alone.status, Status::Ok);
        let mut failed = peak("scalar", 1.0);
        failed.status = Status::Failed;
        judge_accumulate(&mut alone, &[failed], (VENDOR_NVIDIA, "a card"));
        assert_eq!(alone.status, Status::Ok);
        let mut multiply = peak("scalar", 1e9);
        let slow = [peak("scalar", 1.0)];
        judge_accumulate(&mut multiply, &slow, (VENDOR_NVIDIA, "a card"));
        assert_eq!(multiply.status, Status::Ok);
    }
}
