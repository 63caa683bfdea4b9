//! The matmul tuner's candidates as `gpubench kernels` and the shader tests see them: every
//! variant the tuner would consider for the default profile's shapes, kept or pruned with the
//! rule's reason, and the cooperative-matrix forms the adapter's configurations choose
//! ([`super::coop::candidates`]; none where it offers none, as Mesa 22.3's RADV does).

use std::collections::BTreeSet;

use gpubench_harness::Profile;
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::forms::{KernelForm, KernelForms, TunerRole};
use gpubench_harness::kit::gpu::Precision;

use super::{Candidate, Kind, candidates, coop, profile_shapes, register_model, registers};

/// The matmul tuner's candidates over `profile`'s shapes, each variant's shaders once per
/// precision and the row block its kernel is generated for.
pub fn matmul_forms(facts: AdapterFacts, profile: Profile) -> KernelForms {
    let mut seen = BTreeSet::new();
    let mut forms = Vec::new();
    let model = register_model(facts);
    for precision in [Precision::F32, Precision::F16] {
        let shapes = profile_shapes(profile, facts.cpu);
        // The cooperative-matrix forms do not depend on the shape: listed with the first.
        let coop_forms = coop::candidates(facts, precision);
        for (at, shape) in shapes.into_iter().enumerate() {
            let mut space: Vec<Candidate> = candidates(facts, precision, shape);
            if at == 0 {
                space.extend(coop_forms.iter().cloned());
            }
            for candidate in space {
                let shaders = candidate.variant.shaders(precision, shape.m)?;
                // Small-M kernels are generated per row block and differ by M; the others are
                // the same for every shape and are listed once.
                let per_block = matches!(candidate.variant.kind, Kind::Gemv(_));
                let sources: String = shaders.iter().map(|s| s.source.as_str()).collect();
                if !seen.insert((precision.name(), candidate.variant.name, sources)) {
                    continue;
                }
                let tuner = match &candidate.pruned {
                    Some(reason) => TunerRole::Pruned(reason.clone()),
                    None => TunerRole::Kept,
                };
                let passes = shaders.len();
                for (i, shader) in shaders.into_iter().enumerate() {
                    let mut pipeline =
                        format!("matmul/{}/{}", precision.name(), candidate.variant.name);
                    if per_block {
                        pipeline.push_str(&format!("/m{}", shape.m));
                    }
                    if passes > 1 {
                        pipeline.push_str(&format!("/pass{i}"));
                    }
                    forms.push(KernelForm {
                        pipeline,
                        suite: "",
                        tuner: tuner.clone(),
                        shader,
                        // The estimate is the main pass's; a split-K reduction pass is pruned
                        // with its variant but holds nothing the estimate counts.
                        estimated_registers: (i == 0)
                            .then(|| registers(&candidate.variant, precision, shape.m, model)),
                        // As `matmul::ProductInputs::pipeline` builds them.
                        zero_init_workgroup: false,
                    });
                }
            }
        }
    }
    Ok(forms)
}
