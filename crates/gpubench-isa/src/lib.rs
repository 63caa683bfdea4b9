//! What a real GPU compiler makes of a kernel, without the GPU: the WGSL goes through naga to
//! SPIR-V as wgpu's Vulkan backend writes it for gpubench's timed pipelines (pipeline
//! constants applied, no runtime checks), and a Vulkan driver compiles it into a compute
//! pipeline and reports its own statistics for it (`VK_KHR_pipeline_executable_properties`).
//!
//! Mesa's RADV does this for real AMD GPUs on a machine without one ("null hardware", chosen
//! with `RADV_FORCE_FAMILY`, [`radv`]): the statistics are those of the code the same driver
//! would run on that GPU. Nothing is ever submitted: these are compiler outputs, not
//! measurements.
//!
//! The same extension returns the driver's internal representations of a pipeline (RADV: its
//! NIR, ACO's IR and the disassembly, [`InternalRepresentations`]); [`asm`] reads a
//! disassembly's loops and instructions, so tests can hold a kernel to the instructions it
//! compiles to.

pub mod asm;
mod driver;
pub mod radv;
mod representation;
mod spirv;

pub use driver::{Compiler, DeviceFacts, MatrixConfig};
pub use representation::{InternalRepresentations, Representation};
pub use spirv::{Bindings, PipelineSource, spirv_for};

use serde::Serialize;

/// Why a kernel could not be compiled or its statistics read.
#[derive(Debug, thiserror::Error)]
pub enum IsaError {
    /// The Vulkan loader could not be opened.
    #[error("the Vulkan loader could not be loaded ({0}): install libvulkan1 (Debian/Ubuntu)")]
    Loader(String),
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The call.
        call: &'static str,
        /// What it returned.
        result: ash::vk::Result,
    },
    /// No device's name contains what was asked for.
    #[error(
        "no Vulkan device named like '{wanted}' (found: {found}); for RADV on null hardware set RADV_FORCE_FAMILY and point VK_ICD_FILENAMES at radeon_icd.x86_64.json"
    )]
    NoDevice {
        /// What the name had to contain.
        wanted: String,
        /// The devices there were.
        found: String,
    },
    /// The device cannot report pipeline statistics.
    #[error(
        "{0} does not offer VK_KHR_pipeline_executable_properties, so it reports no statistics"
    )]
    NoStatistics(String),
    /// RADV's driver manifest is not where a Vulkan loader looks.
    #[error(
        "RADV's driver manifest ({manifest}) is not installed: apt-get install mesa-vulkan-drivers (`cargo xtask setup` does)"
    )]
    NoRadv {
        /// The manifest's file name.
        manifest: String,
    },
    /// The variable naming another RADV names no file.
    #[error(
        "{variable}={path}: no such file; point it at a RADV driver manifest (`cargo xtask radv25` unpacks Mesa 25.0.7's and sets it), or unset it for the system's RADV"
    )]
    NoRadvOverride {
        /// The variable.
        variable: &'static str,
        /// What it names.
        path: String,
    },
    /// An AMD family this RADV does not know (an unknown name aborts the driver).
    #[error("unknown AMD family '{family}'; known: {known}")]
    UnknownFamily {
        /// What was asked for.
        family: String,
        /// The families there are.
        known: String,
    },
    /// The driver returned no internal representation of the kind asked for.
    #[error(
        "{kernel}: the driver returned no {wanted} (it returned: {found}); RADV returns its disassembly, other drivers may return none: compile with RADV on null hardware"
    )]
    NoRepresentation {
        /// The pipeline.
        kernel: String,
        /// What was looked for.
        wanted: String,
        /// The representations' names it did return.
        found: String,
    },
    /// naga refused the kernel (it validates in CI: a bug in a generator).
    #[error("{kernel}: {reason}")]
    Shader {
        /// The pipeline.
        kernel: String,
        /// naga's reason.
        reason: String,
    },
}

/// One statistic as the driver names and reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statistic {
    /// The driver's name for it ("VGPRs", "Spilled SGPRs", "Subgroups per SIMD").
    pub name: String,
    /// Its value.
    pub value: f64,
}

/// What the driver reported for one pipeline: each executable (one for a compute pipeline) and
/// its statistics, by the driver's names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipelineStatistics {
    /// The executables' names as the driver gives them ("Compute Shader").
    pub executables: Vec<String>,
    /// The statistics of every executable, in the driver's order.
    pub statistics: Vec<Statistic>,
}

impl PipelineStatistics {
    /// The statistic called `name` (the first executable's, where several have it).
    pub fn get(&self, name: &str) -> Option<f64> {
        self.statistics
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.value)
    }
}
