//! Every compute pipeline the suites can build on an adapter, each as its pipeline compiles it
//! (source, entry point, pipeline constants), named and tagged with what the matmul tuner does
//! with it: the input of `gpubench kernels`, which hands each to a real GPU compiler.
//!
//! The list is built from the same constructors the suites use, so it cannot drift from what
//! runs: the compute peak in every number type and width, the roofline sweep, every stream entry
//! point, the launch and zero-copy transfer kernels, the memory suite's read and chase, and for
//! matmul every candidate the tuner
//! would consider for the default profile's shapes on an adapter with these facts, kept or
//! pruned (with the rule's reason). Cooperative-matrix kernels are left out: no compiler here
//! offers the extension they need.

use std::collections::BTreeSet;

use gpubench_harness::Kernel;

use crate::compute::PeakKernels;
use crate::compute::grid::PeakGrid;
use crate::gpu::{Precision, SpecialisedShader};
use crate::matmul::{AdapterFacts, Kind, candidates, profile_shapes, register_model, registers};
use crate::roofline::{FMAS_SWEEP, RooflinePoint};
use crate::shaders;
use crate::stream::{KERNELS, PER_TRIP};
use gpubench_results::{Profile, suite_names};

/// What the matmul tuner does with a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TunerRole {
    /// Not tuned: the suite always builds it.
    Fixed,
    /// A candidate the tuner measures.
    Kept,
    /// A candidate the tuner leaves out, and its rule's reason.
    Pruned(String),
}

impl TunerRole {
    /// `fixed`, `kept` or `pruned`.
    pub fn name(&self) -> &'static str {
        match self {
            TunerRole::Fixed => "fixed",
            TunerRole::Kept => "kept",
            TunerRole::Pruned(_) => "pruned",
        }
    }
}

/// One pipeline as a suite would build it.
#[derive(Debug, Clone)]
pub struct KernelForm {
    /// A stable name: the result id's kernel part, or the matmul variant, precision and pass.
    pub pipeline: String,
    /// The suite that builds it.
    pub suite: &'static str,
    /// What the tuner does with it.
    pub tuner: TunerRole,
    /// The shader as its pipeline compiles it.
    pub shader: SpecialisedShader,
    /// The tuner's estimate of the registers an invocation holds (matmul candidates only),
    /// to set beside what the compiler reports.
    pub estimated_registers: Option<u32>,
    /// Whether the pipeline zeroes workgroup memory before the kernel runs (wgpu's default;
    /// off for kernels that fill it before reading it).
    pub zero_init_workgroup: bool,
}

fn fixed(pipeline: String, suite: &'static str, shader: SpecialisedShader) -> KernelForm {
    KernelForm {
        pipeline,
        suite,
        tuner: TunerRole::Fixed,
        shader,
        estimated_registers: None,
        zero_init_workgroup: true,
    }
}

fn plain(source: &str, entry: &str) -> SpecialisedShader {
    SpecialisedShader {
        source: source.to_string(),
        entry: entry.to_string(),
        constants: Vec::new(),
    }
}

/// Every pipeline form for an adapter with `facts`, in suite order; the matmul candidates are
/// those of `profile`'s shapes (each variant once per precision and row block).
pub fn kernel_forms(facts: AdapterFacts, profile: Profile) -> Result<Vec<KernelForm>, String> {
    let mut forms = Vec::new();
    for (id, shader) in PeakKernels::new(&PeakGrid::fixed(1)).shaders()? {
        forms.push(fixed(id, suite_names::COMPUTE, shader));
    }
    for fmas in FMAS_SWEEP {
        let point = RooflinePoint::new(fmas, 1 << 20, 1);
        forms.push(fixed(
            point.info().id,
            suite_names::ROOFLINE,
            point.shader(),
        ));
    }
    for spec in &KERNELS {
        for entry in [spec.entry, spec.repeated_entry] {
            forms.push(fixed(
                format!("stream/{entry}"),
                suite_names::STREAM,
                plain(shaders::STREAM, entry),
            ));
        }
        let Some((once, repeated)) = spec.per_trip_entries else {
            continue;
        };
        for per_trip in PER_TRIP.into_iter().filter(|&p| p > 1) {
            for entry in [once, repeated] {
                let mut shader = plain(shaders::STREAM, entry);
                shader.constants = vec![("PER_TRIP", f64::from(per_trip))];
                forms.push(fixed(
                    format!("stream/{entry}-per-trip{per_trip}"),
                    suite_names::STREAM,
                    shader,
                ));
            }
        }
    }
    forms.push(fixed(
        "launch/bump".to_string(),
        suite_names::LAUNCH,
        plain(shaders::LAUNCH, "bump"),
    ));
    forms.push(fixed(
        "transfer/copy_words".to_string(),
        suite_names::TRANSFER,
        plain(shaders::TRANSFER, "copy_words"),
    ));
    forms.extend(memory_forms());
    forms.extend(matmul_forms(facts, profile)?);
    Ok(forms)
}

/// The memory suite's pipelines, as a GPU builds them: read and chase (chunks of 32
/// invocations, the GPU's loads per dispatch), the workgroup-memory reads (vec4, and the word
/// form at a conflict-free and a 32-way stride) and the four atomic kernels.
fn memory_forms() -> Vec<KernelForm> {
    use crate::memory::{atomics, shared};
    let mut read = plain(shaders::MEMORY, "read_window");
    read.constants = vec![
        ("WINDOW_TRIPS", f64::from(crate::memory::read::WINDOW_TRIPS)),
        ("CHUNK", 32.0),
    ];
    let mut chase = plain(shaders::MEMORY, "chase");
    let steps = crate::memory::chase::steps_for(crate::stream::AdapterClass::Discrete);
    chase.constants = vec![("STEPS", f64::from(steps))];
    let mut forms = vec![
        fixed("memory/read_window".to_string(), suite_names::MEMORY, read),
        fixed("memory/chase".to_string(), suite_names::MEMORY, chase),
    ];
    for tile in [
        shared::TileRead::Vec4,
        shared::TileRead::Stride(1),
        shared::TileRead::Stride(32),
    ] {
        let mut shader = plain(shaders::MEMORY_SHARED, tile.entry());
        shader.constants = tile.constants();
        let id = format!("memory/workgroup/{}", tile.name());
        let mut form = fixed(id, suite_names::MEMORY, shader);
        form.zero_init_workgroup = false;
        forms.push(form);
    }
    for target in atomics::AtomicTarget::ALL {
        let mut shader = plain(shaders::MEMORY_SHARED, target.entry());
        shader.constants = vec![("ADDS", f64::from(atomics::ADDS))];
        let id = format!("memory/atomic-add/{}", target.name());
        let mut form = fixed(id, suite_names::MEMORY, shader);
        form.zero_init_workgroup = false;
        forms.push(form);
    }
    forms
}

/// The matmul tuner's candidates over `profile`'s shapes, each variant's shaders once per
/// precision and the row block its kernel is generated for.
fn matmul_forms(facts: AdapterFacts, profile: Profile) -> Result<Vec<KernelForm>, String> {
    let mut seen = BTreeSet::new();
    let mut forms = Vec::new();
    let model = register_model(facts);
    for precision in [Precision::F32, Precision::F16] {
        for shape in profile_shapes(profile, facts.cpu) {
            for candidate in candidates(facts, precision, shape) {
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
                        suite: suite_names::MATMUL,
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

#[cfg(test)]
mod tests {
    use super::*;

    const RDNA3: AdapterFacts = AdapterFacts {
        cpu: false,
        subgroups: true,
        subgroup_max: 64,
        max_invocations: 1024,
        max_workgroup_bytes: 65536,
    };

    #[test]
    fn every_suite_and_tuner_role_is_listed_once_per_name() {
        let forms = kernel_forms(RDNA3, Profile::Default).expect("forms");
        let suites: BTreeSet<&str> = forms.iter().map(|f| f.suite).collect();
        assert_eq!(
            suites,
            BTreeSet::from([
                "compute", "roofline", "stream", "launch", "transfer", "memory", "matmul"
            ])
        );
        let roles: BTreeSet<&str> = forms.iter().map(|f| f.tuner.name()).collect();
        assert_eq!(roles, BTreeSet::from(["fixed", "kept", "pruned"]));
        let names: BTreeSet<&str> = forms.iter().map(|f| f.pipeline.as_str()).collect();
        assert_eq!(names.len(), forms.len(), "pipeline names are unique");
    }
}
