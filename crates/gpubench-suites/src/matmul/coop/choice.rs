//! Which cooperative-matrix forms an adapter tunes over, from its facts alone (so `gpubench
//! kernels`, the shader tests and a run agree, and an Apple or AMD GPU's choice is tested
//! without one):
//!
//! - the configurations it offers (`EXPERIMENTAL_COOPERATIVE_MATRIX`'s list), at the subgroup
//!   size [`subgroup_for`] gives it;
//! - B staged K-contiguous (`-bcol`) where matrix loads cannot transpose, row-major B elsewhere.
//!   RDNA 3 has no transposing LDS load: a row-major B fragment, read by `coopLoadT`, is 16
//!   16-bit LDS reads a lane, 64 for the 16 WMMA of a 64 x 64 subgroup tile, and the LDS, not
//!   the matrix units, bounds the kernel (issue 47, read from RADV's `navi31` disassembly);
//! - no f16 sums on AMD: RADV spills them (docs/kernels/navi31.md) and they are no faster;
//! - 32 x 32 of C per subgroup (`-c32`) for 8 x 8 matrices, 64 x 64 for 16 x 16: at 8 x 8 a
//!   64 x 64 tile is 64 accumulators;
//! - the vendor's short list where there is one and it offers 16 x 16 with f32 sums
//!   ([`super::shortlist`]: NVIDIA's three forms).
//!
//! A form left out is kept as a pruned candidate with the reason, as the other matmul kernels'
//! are, so `gpubench kernels` still compiles it beside the form that replaced it.

use gpubench_harness::kit::facts::{AdapterFacts, VENDOR_AMD};
use gpubench_harness::kit::gpu::Precision;

use super::shortlist::{short_list_reason, tuned_for_vendor};
use super::{CoopParams, SUBGROUP_EDGE, subgroup_for};
use crate::matmul::{Candidate, Kind, catalogue};

/// Whether the adapter's matrix loads read a row-major B fragment without splitting it into
/// single elements. AMD's RDNA 3 cannot (RADV's `navi31` ISA); NVIDIA has `ldmatrix.trans`;
/// the rest are assumed to, which keeps their forms as they were.
pub fn transposing_load(facts: AdapterFacts) -> bool {
    facts.vendor != VENDOR_AMD
}

/// Why `p`, summed in `acc`, is left out on an adapter with `facts`, if it is.
fn pruned(facts: AdapterFacts, p: CoopParams, data: Precision, acc: Precision) -> Option<String> {
    let amd = facts.vendor == VENDOR_AMD;
    if amd && acc == Precision::F16 {
        return Some(
            "f16 sums on AMD: RADV spills them (docs/kernels/navi31.md) and the matrix units \
             are no faster for them"
                .to_string(),
        );
    }
    if p.b_kcontig == transposing_load(facts) {
        return Some(if p.b_kcontig {
            "B staged K-contiguous is for adapters whose matrix loads cannot transpose".to_string()
        } else {
            "B staged row-major: this adapter's matrix loads cannot transpose, so each lane \
             reads its B fragment one element at a time (the -bcol form stages it K-contiguous)"
                .to_string()
        });
    }
    let edge = if p.size == 8 { 32 } else { SUBGROUP_EDGE };
    if p.edge != edge {
        return Some(format!(
            "{0} x {0} matrices take {edge} x {edge} of C per subgroup ({1} accumulators at {2})",
            p.size,
            (p.edge / p.size).pow(2),
            p.edge
        ));
    }
    if facts.coop.offers(16, data, Precision::F32) && !tuned_for_vendor(facts.vendor, &p, acc) {
        return Some(short_list_reason(facts.vendor));
    }
    let bytes = p.workgroup_bytes(data, acc);
    (p.invocations() > facts.max_invocations || bytes > u64::from(facts.max_workgroup_bytes)).then(
        || {
            format!(
                "{} invocations and {bytes} bytes of workgroup memory exceed the adapter's limits",
                p.invocations()
            )
        },
    )
}

/// The cooperative-matrix forms of `precision` an adapter with `facts` offers, each kept or
/// pruned with the reason (see the module docs); empty where it offers none.
pub fn candidates(facts: AdapterFacts, precision: Precision) -> Vec<Candidate> {
    let sg = subgroup_for(facts.subgroup_max);
    catalogue()
        .iter()
        .filter(|v| v.applies_to(precision))
        .filter_map(|v| match v.kind {
            Kind::Coop(p) => Some((v, p)),
            _ => None,
        })
        .filter(|(v, p)| {
            Some(p.sg) == sg
                && facts
                    .coop
                    .offers(p.size, precision, v.accumulation(precision))
        })
        .map(|(v, p)| Candidate {
            variant: *v,
            pruned: pruned(facts, p, precision, v.accumulation(precision)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Precision::{F16, F32};
    use gpubench_harness::kit::facts::{CoopMatrices, VENDOR_APPLE};

    fn kept(facts: AdapterFacts, precision: Precision) -> Vec<CoopParams> {
        candidates(facts, precision)
            .into_iter()
            .filter(|c| c.pruned.is_none())
            .filter_map(|c| match c.variant.kind {
                Kind::Coop(p) => Some(p),
                _ => None,
            })
            .collect()
    }

    /// RDNA 3 as RADV reports it: 16 x 16 f16 products summed in f16 or f32, subgroups of 64.
    fn rdna3() -> AdapterFacts {
        AdapterFacts {
            vendor: VENDOR_AMD,
            coop: CoopMatrices::NONE.with(16, F16, F16).with(16, F16, F32),
            ..AdapterFacts::vulkan_gpu(64, 1024, 65536)
        }
    }

    /// Matrix units summing in f16 are held to the same check as the FMA kernels: past K =
    /// 16384 their f16-sum forms are pruned, saying why, and their f32-sum forms kept.
    #[test]
    fn f16_sums_on_matrix_units_past_a_checkable_k_are_pruned() {
        let facts = AdapterFacts {
            vendor: VENDOR_APPLE,
            coop: CoopMatrices::NONE.with(8, F16, F16).with(8, F16, F32),
            ..AdapterFacts::vulkan_gpu(32, 1024, 32768)
        };
        let sums = |k: u32, acc: Precision| {
            crate::matmul::select::prune_unverifiable(candidates(facts, F16), F16, k)
                .into_iter()
                .filter(|c| c.variant.accumulation(F16) == acc)
                .map(|c| c.pruned)
                .collect::<Vec<_>>()
        };
        let long = sums(32768, F16);
        assert!(!long.is_empty());
        assert!(long.iter().all(|p| {
            p.as_deref()
                .is_some_and(|why| why.contains("could not be checked"))
        }));
        assert!(sums(32768, F32).iter().any(Option::is_none));
        assert!(sums(4096, F16).iter().any(Option::is_none));
    }

    #[test]
    fn amd_tunes_k_contiguous_b_with_f32_sums_only() {
        let facts = rdna3();
        let forms = kept(facts, F16);
        assert!(!forms.is_empty());
        assert!(
            forms
                .iter()
                .all(|p| p.b_kcontig && p.sg == 64 && p.size == 16)
        );
        let all = candidates(facts, F16);
        assert!(
            all.iter()
                .filter(|c| c.pruned.is_none())
                .all(|c| c.variant.f32_accumulate),
            "no f16 sums on AMD"
        );
        // The old row-major forms are still declared, pruned with the reason.
        assert!(all.iter().any(|c| {
            !c.variant.name.contains("-bcol")
                && c.pruned
                    .as_deref()
                    .is_some_and(|r| r.contains("cannot transpose"))
        }));
        assert!(kept(facts, F32).is_empty(), "no f32 configuration offered");
    }

    #[test]
    fn other_vendors_keep_their_forms() {
        let nvidia = AdapterFacts {
            vendor: 0x10DE,
            subgroup_max: 32,
            coop: CoopMatrices::NONE.with(16, F16, F16).with(16, F16, F32),
            ..AdapterFacts::vulkan_gpu(32, 1024, 49152)
        };
        let forms = kept(nvidia, F16);
        assert!(!forms.is_empty());
        assert!(
            forms
                .iter()
                .all(|p| !p.b_kcontig && p.edge == 64 && p.sg == 32)
        );
        // NVIDIA's short list: three forms, f32 sums; the rest pruned with the reason.
        assert_eq!(forms.len(), 3);
        let all = candidates(nvidia, F16);
        assert!(
            all.iter()
                .filter(|c| c.pruned.is_none())
                .all(|c| c.variant.f32_accumulate)
        );
        assert!(all.iter().any(|c| {
            c.pruned
                .as_deref()
                .is_some_and(|r| r.contains("NVIDIA's short list"))
        }));
        // A vendor with no list (Intel) keeps its f16 sums.
        let intel = AdapterFacts {
            vendor: 0x8086,
            ..nvidia
        };
        assert!(
            candidates(intel, F16)
                .iter()
                .any(|c| c.pruned.is_none() && !c.variant.f32_accumulate),
            "f16 sums stay elsewhere"
        );
    }

    /// An Apple GPU as wgpu's Metal backend reports it: subgroups of 4 to 64 (Apple's are 32,
    /// as its facts say), 32 KiB of workgroup memory, and 8 x 8 simdgroup matrices of f16 and
    /// f32.
    #[test]
    fn apple_s_8x8_matrices_pick_32x32_of_c_per_subgroup() {
        let metal = wgpu::Backend::Metal;
        let lanes = gpubench_harness::kit::facts::subgroup_max_of(metal, "Apple M2", 64);
        let apple = AdapterFacts {
            vendor: VENDOR_APPLE,
            backend: metal,
            coop: CoopMatrices::NONE
                .with(8, F16, F16)
                .with(8, F16, F32)
                .with(8, F32, F32),
            ..AdapterFacts::vulkan_gpu(lanes, 1024, 32768)
        };
        for precision in [F16, F32] {
            let forms = kept(apple, precision);
            assert!(!forms.is_empty(), "{}", precision.name());
            for p in &forms {
                assert_eq!((p.size, p.edge, p.sg), (8, 32, 32), "{}", p.label());
                assert!(!p.b_kcontig);
            }
        }
        let sixty_four = candidates(apple, F16)
            .into_iter()
            .find(|c| matches!(c.variant.kind, Kind::Coop(p) if p.edge == 64))
            .expect("the 64 x 64 forms are declared");
        assert!(sixty_four.pruned.is_some_and(|r| r.contains("32 x 32")));
    }

    #[test]
    fn no_configuration_no_candidates() {
        let plain = AdapterFacts::vulkan_gpu(64, 1024, 65536);
        assert!(candidates(plain, F16).is_empty());
    }
}
