//! Which cooperative-matrix configurations a product tunes, so that the tensor-core figure is
//! measured where it means something and within a GPU window's time.
//!
//! Two limits:
//! - **Rows of A.** A coop workgroup owns a block of C 128 or 256 rows tall (2 or 4 subgroups
//!   of [`super::SUBGROUP_EDGE`] rows). At M = 1, 8 and 64 it leaves 127/128, 15/16 and 1/2 of
//!   that block's matrix work idle, so a coop row there times mostly padding; the tuned row of
//!   the same product (`matmul/f16/...`, the small-M kernels) is its figure. Coop is tuned from
//!   [`COOP_MIN_M`] rows; below, the row is kept and reported not run, with the reason.
//! - **Per vendor.** Each configuration is its own pipeline of 800 to 1700 instructions, and a
//!   product tunes every one the adapter offers (18 on an adapter with two accumulations).
//!   Where the vendor's matrix units are known, only the forms that can win are tuned:
//!   - NVIDIA: 16 x 16 with f32 accumulation, double-buffered, in the 2 x 4 grid with BK 16 and
//!     the 2 x 2 grid with BK 16 or 32. Datacenter tensor cores (A100, H100, H200) run f16
//!     products at the same rate with f16 or f32 accumulation (NVIDIA's datasheets give one
//!     dense FP16 figure for both), so f16 accumulation buys no speed and loses precision; the
//!     4 x 2 grid and single staging reload A or wait on one barrier more per K-step.
//!   - Any other vendor: every offered configuration (no list yet).

use gpubench_harness::kit::facts::VENDOR_NVIDIA as NVIDIA;
use gpubench_harness::kit::gpu::Precision;

use super::CoopParams;

/// The fewest rows of A for which a cooperative-matrix product is tuned.
pub const COOP_MIN_M: u32 = 512;

/// NVIDIA's short list: (subgroups along M, along N, BK), each 16 x 16, double-buffered, with
/// f32 accumulation.
const NVIDIA_FORMS: [(u32, u32, u32); 3] = [(2, 4, 16), (2, 2, 32), (2, 2, 16)];

/// Why a product with `m` rows tunes no cooperative-matrix kernel, or `None` where it does.
pub fn too_few_rows(m: u32) -> Option<String> {
    (m < COOP_MIN_M).then(|| {
        format!(
            "not tuned at M = {m}: a cooperative-matrix workgroup owns a block of C at least \
             128 rows tall, so fewer than {COOP_MIN_M} rows leave most of its matrix work idle; \
             this shape's tuned row (without cooperative matrices) is its figure"
        )
    })
}

/// Whether a product on an adapter of PCI vendor `vendor` tunes the configuration `p`, with
/// `accumulation` the precision its sums are kept in.
pub fn tuned_for_vendor(vendor: u32, p: &CoopParams, accumulation: Precision) -> bool {
    match vendor {
        NVIDIA => {
            accumulation == Precision::F32
                && p.size == 16
                && p.stages == 2
                && !p.b_kcontig
                && p.edge == super::SUBGROUP_EDGE
                && NVIDIA_FORMS.contains(&(p.warps.0, p.warps.1, p.bk))
        }
        _ => true,
    }
}

/// Why a configuration off the vendor's short list is not tuned.
pub fn short_list_reason(vendor: u32) -> String {
    match vendor {
        NVIDIA => "not on NVIDIA's short list (16 x 16, double-buffered, f32 sums: w2x4-bk16, \
                   w2x2-bk32, w2x2-bk16); its tensor cores run f16 products at one rate with \
                   f16 or f32 sums"
            .to_string(),
        _ => "not on this vendor's short list".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::{Kind, catalogue};

    /// The coop variants of the catalogue a vendor's f16 product would tune at subgroup 32.
    fn tuned_f16(vendor: u32) -> Vec<&'static str> {
        catalogue()
            .iter()
            .filter(|v| v.applies_to(Precision::F16))
            .filter(|v| match v.kind {
                Kind::Coop(p) => {
                    p.sg == 32 && tuned_for_vendor(vendor, &p, v.accumulation(Precision::F16))
                }
                _ => false,
            })
            .map(|v| v.name)
            .collect()
    }

    #[test]
    fn nvidia_tunes_three_forms_with_f32_accumulation() {
        let mut names = tuned_f16(NVIDIA);
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "coop16x16-sg32-w2x2-bk16-db-acc32",
                "coop16x16-sg32-w2x2-bk32-db-acc32",
                "coop16x16-sg32-w2x4-bk16-db-acc32",
            ]
        );
    }

    #[test]
    fn other_vendors_keep_every_form() {
        let all = tuned_f16(0x1002);
        assert!(all.len() > 3 * 2, "{all:?}");
        assert!(all.iter().any(|n| !n.ends_with("-acc32")));
    }

    #[test]
    fn coop_is_tuned_from_512_rows() {
        for m in [1, 8, 64, 511] {
            let why = too_few_rows(m).expect("too few rows");
            assert!(why.contains(&format!("M = {m}")), "{why}");
        }
        assert_eq!(too_few_rows(512), None);
        assert_eq!(too_few_rows(4096), None);
    }
}
