//! A compute pipeline as a suite would build it, named and tagged with what a tuner does with
//! it: what a suite declares through its `pipelines`, and what `gpubench kernels` hands to a
//! real GPU compiler and the shader tests to naga.

use crate::kit::gpu::SpecialisedShader;

/// What a suite's tuner does with a pipeline.
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

/// A suite's pipelines, or why it cannot list them for such an adapter and profile.
pub type KernelForms = Result<Vec<KernelForm>, String>;

/// One pipeline as a suite would build it.
#[derive(Debug, Clone)]
pub struct KernelForm {
    /// A stable name: the result id's kernel part, or the matmul variant, precision and pass.
    pub pipeline: String,
    /// The suite that builds it (the registry fills it in from the suite's name).
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

impl KernelForm {
    /// A pipeline the suite always builds, named `pipeline`, zeroing workgroup memory.
    pub fn fixed(pipeline: impl Into<String>, shader: SpecialisedShader) -> Self {
        Self {
            pipeline: pipeline.into(),
            suite: "",
            tuner: TunerRole::Fixed,
            shader,
            estimated_registers: None,
            zero_init_workgroup: true,
        }
    }

    /// The fixed form of `entry` of `source` as written (no pipeline constants), named
    /// `{suite}/{entry}`: a suite's kernel that is one entry point of its shader file.
    pub fn plain(suite: &str, source: &str, entry: &str) -> Self {
        Self::fixed(
            format!("{suite}/{entry}"),
            SpecialisedShader::plain(source, entry),
        )
    }

    /// This form, its pipeline built without zeroing workgroup memory.
    pub fn unzeroed(mut self) -> Self {
        self.zero_init_workgroup = false;
        self
    }
}
