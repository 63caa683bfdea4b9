//! The memory suite's pipelines as `gpubench kernels` and the shader tests see them.

use gpubench_harness::kit::forms::KernelForm;
use gpubench_harness::kit::gpu::SpecialisedShader;
use gpubench_harness::kit::sizing::AdapterClass;

use super::{SHARED_WGSL, WGSL, atomics, chase, read, shared};

/// The memory suite's pipelines, as a GPU builds them: read and the two chases (chunks and lanes
/// of 32 invocations, the GPU's loads per dispatch), the workgroup-memory reads (vec4, and the
/// word form at a conflict-free and a 32-way stride) and every atomic kernel.
pub fn memory_forms() -> Vec<KernelForm> {
    let read = SpecialisedShader::plain(WGSL, "read_window").with_constants(vec![
        ("WINDOW_TRIPS", f64::from(read::WINDOW_TRIPS)),
        ("CHUNK", 32.0),
    ]);
    let steps = chase::steps_for(AdapterClass::Discrete);
    let mut forms = vec![KernelForm::fixed("memory/read_window", read)];
    for form in [chase::ChaseForm::Single, chase::ChaseForm::Lanes(32)] {
        let shader =
            SpecialisedShader::plain(WGSL, form.entry()).with_constants(form.constants(steps));
        forms.push(KernelForm::fixed(
            format!("memory/{}", form.entry()),
            shader,
        ));
    }
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
