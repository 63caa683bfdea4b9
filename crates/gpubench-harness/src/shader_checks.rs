//! Whether naga's runtime checks are compiled into gpubench's shaders: a property of the
//! [`GpuContext`](crate::GpuContext) every kernel builds its pipelines on. Why they are off by
//! default, and why that is sound, is in the suites' `gpu` module.

use serde::{Deserialize, Serialize};

/// Whether naga's runtime checks are compiled into the shaders of timed kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ShaderChecks {
    /// wgpu's default: bounds clamping, loop bounding and integer-division guards.
    On,
    /// None of them (the default): every kernel's output is verified before it is timed.
    #[default]
    Off,
}

impl ShaderChecks {
    /// [`ShaderChecks::On`] when `on`, else [`ShaderChecks::Off`].
    pub fn when(on: bool) -> Self {
        if on {
            ShaderChecks::On
        } else {
            ShaderChecks::Off
        }
    }

    /// Both choices.
    pub const ALL: [ShaderChecks; 2] = [ShaderChecks::On, ShaderChecks::Off];

    /// Name as written in options and params (`on`, `off`).
    pub fn name(self) -> &'static str {
        match self {
            ShaderChecks::On => "on",
            ShaderChecks::Off => "off",
        }
    }

    /// The checks a module is created with.
    pub fn runtime_checks(self) -> wgpu::ShaderRuntimeChecks {
        match self {
            ShaderChecks::On => wgpu::ShaderRuntimeChecks::checked(),
            ShaderChecks::Off => wgpu::ShaderRuntimeChecks::unchecked(),
        }
    }
}
