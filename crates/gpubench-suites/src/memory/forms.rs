//! The memory suite's pipelines as `gpubench kernels` and the shader tests see them.

use gpubench_harness::kit::forms::KernelForm;
use gpubench_harness::kit::gpu::SpecialisedShader;
use gpubench_harness::kit::sizing::AdapterClass;

use super::{SHARED_WGSL, WGSL, atomics, chase, read, shared};

/// The memory suite's pipelines, as a GPU builds them: read and chase (chunks of 32
/// invocations, the GPU's loads per dispatch), the workgroup-memory reads (vec4, and the word
/// form at a conflict-free and a 32-way stride) and the four atomic kernels.
pub fn memory_forms() -> Vec<KernelForm> {
    let read = SpecialisedShader::plain(WGSL, "read_window").with_constants(vec![
        ("WINDOW_TRIPS", f64::from(read::WINDOW_TRIPS)),
        ("CHUNK", 32.0),
    ]);
    let steps = chase::steps_for(AdapterClass::Discrete);
    let chase =
        SpecialisedShader::plain(WGSL, "chase").with_constants(vec![("STEPS", f64::from(steps))]);
    let mut forms = vec![
        KernelForm::fixed("memory/read_window", read),
        KernelForm::fixed("memory/chase", chase),
    ];
    for tile in [
        shared::TileRead::Vec4,
        shared::TileRead::Stride(1),
        shared::TileRead::Stride(32),
    ] {
        let shader =
            SpecialisedShader::plain(SHARED_WGSL, tile.entry()).with_constants(tile.constants());
        let id = format!("memory/workgroup/{}", tile.name());
        forms.push(KernelForm::fixed(id, shader).unzeroed());
    }
    for target in atomics::AtomicTarget::ALL {
        let shader = SpecialisedShader::plain(SHARED_WGSL, target.entry())
            .with_constants(vec![("ADDS", f64::from(atomics::ADDS))]);
        let id = format!("memory/atomic-add/{}", target.name());
        forms.push(KernelForm::fixed(id, shader).unzeroed());
    }
    forms
}
