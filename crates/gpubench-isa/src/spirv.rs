//! WGSL to SPIR-V as wgpu's Vulkan backend writes it for a pipeline built with runtime checks
//! off (gpubench's timed kernels, `ShaderChecks::Off`): pipeline constants substituted by naga's
//! own override processing, SPIR-V 1.6 for a Vulkan 1.3 device, no bounds checks and no loop
//! bounding, workgroup memory zeroed by the driver (native on Vulkan 1.3) unless the pipeline
//! turns that off (kernels that fill their workgroup memory before reading it), integer division
//! checks kept as wgpu keeps them. Also the resources the entry point binds, for the pipeline
//! layout.

use std::collections::BTreeMap;

use crate::IsaError;

/// The buffers an entry point binds: `(group, binding)` to whether it is a uniform buffer
/// (else a storage buffer).
pub type Bindings = BTreeMap<(u32, u32), bool>;

/// One compute pipeline to compile: its WGSL, entry point and pipeline constants, whether its
/// workgroup memory is zeroed before the kernel runs, and the name messages give it.
#[derive(Debug, Clone, Copy)]
pub struct PipelineSource<'a> {
    /// The name errors and statistics give the pipeline.
    pub name: &'a str,
    /// The WGSL source.
    pub wgsl: &'a str,
    /// The entry point to compile.
    pub entry: &'a str,
    /// `(name, value)` for each `override` the pipeline sets.
    pub constants: &'a [(&'a str, f64)],
    /// Whether workgroup memory is zeroed before the kernel runs (wgpu's default).
    pub zero_init: bool,
}

/// The SPIR-V words for `pipeline` (its constants applied, its workgroup memory zeroed first
/// when it says) and the buffers it binds.
pub fn spirv_for(pipeline: &PipelineSource<'_>) -> Result<(Vec<u32>, Bindings), IsaError> {
    let PipelineSource {
        name,
        wgsl: source,
        entry,
        constants,
        zero_init,
    } = *pipeline;
    let fail = |reason: String| IsaError::Shader {
        kernel: name.to_string(),
        reason,
    };
    let module =
        naga::front::wgsl::parse_str(source).map_err(|e| fail(e.emit_to_string(source)))?;
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    let info = validator
        .validate(&module)
        .map_err(|e| fail(e.emit_to_string(source)))?;
    let constants: naga::back::PipelineConstants =
        constants.iter().map(|&(k, v)| (k.to_string(), v)).collect();
    let stage_entry = Some((naga::ShaderStage::Compute, entry));
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(&module, &info, stage_entry, &constants)
            .map_err(|e| fail(e.to_string()))?;
    let options = naga::back::spv::Options {
        lang_version: (1, 6),
        flags: naga::back::spv::WriterFlags::empty(),
        // Group and binding become descriptor set and binding, as in the layout wgpu derives.
        fake_missing_bindings: true,
        bounds_check_policies: naga::proc::BoundsCheckPolicies::default(),
        zero_initialize_workgroup_memory: if zero_init {
            naga::back::spv::ZeroInitializeWorkgroupMemoryMode::Native
        } else {
            naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None
        },
        force_loop_bounding: false,
        ..Default::default()
    };
    let pipeline = naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry.to_string(),
    };
    let words = naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline))
        .map_err(|e| fail(e.to_string()))?;
    Ok((words, bindings_of(&module, &info, entry)))
}

/// The buffers `entry` uses (only those: the layout wgpu derives has no others).
fn bindings_of(module: &naga::Module, info: &naga::valid::ModuleInfo, entry: &str) -> Bindings {
    let Some(index) = module.entry_points.iter().position(|e| e.name == entry) else {
        return Bindings::new();
    };
    let used = info.get_entry_point(index);
    module
        .global_variables
        .iter()
        .filter(|(handle, _)| !used[*handle].is_empty())
        .filter_map(|(_, var)| {
            let binding = var.binding.as_ref()?;
            let uniform = match var.space {
                naga::AddressSpace::Uniform => true,
                naga::AddressSpace::Storage { .. } => false,
                _ => return None,
            };
            Some(((binding.group, binding.binding), uniform))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `entry` of [`KERNEL`] with `constants`.
    fn main_of<'a>(entry: &'a str, constants: &'a [(&'a str, f64)]) -> PipelineSource<'a> {
        PipelineSource {
            name: "test",
            wgsl: KERNEL,
            entry,
            constants,
            zero_init: true,
        }
    }

    const KERNEL: &str = "
        override BLOCK: u32 = 1u;
        @group(0) @binding(0) var<uniform> n: u32;
        @group(0) @binding(2) var<storage, read_write> out: array<f32>;
        @group(1) @binding(0) var<storage, read> unused: array<f32>;
        @compute @workgroup_size(64)
        fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            if (id.x < n) { out[id.x] = f32(BLOCK); }
        }";

    #[test]
    fn constants_are_applied_and_only_used_buffers_are_bound() {
        let constants = [("BLOCK", 4.0)];
        let (words, bindings) = spirv_for(&main_of("main", &constants)).expect("compiles");
        assert_eq!(words[0], 0x0723_0203, "SPIR-V magic number");
        assert_eq!(
            bindings.into_iter().collect::<Vec<_>>(),
            [((0, 0), true), ((0, 2), false)]
        );
        let unknown = [("NOT_THERE", 1.0)];
        assert!(spirv_for(&main_of("main", &unknown)).is_err());
        assert!(spirv_for(&main_of("missing", &[])).is_err());
    }
}
