//! One module per subcommand.

pub mod ab;
pub mod baseline;
pub mod baseline_gate;
pub mod compare;
pub mod doctor;
pub mod exports;
pub mod fleet;
pub mod inputs;
pub mod kernels;
pub mod list;
pub mod report;
pub mod run;
pub mod shell_files;
pub mod show;
pub mod sizing;

use gpubench_harness::device::Selection;
use gpubench_harness::{GpuContext, HarnessError};

/// The flags that choose an adapter, as the hint after a selection that matches none.
const ADAPTER_FLAGS: &str = "--adapter <index|name> or --backend <vulkan|metal|dx12|gl>";

/// Opens the adapter `selection` picks; see [`with_adapter_flags`].
pub fn open_adapter(selection: &Selection) -> anyhow::Result<GpuContext> {
    GpuContext::new(selection).map_err(with_adapter_flags)
}

/// The harness's error as the CLI shows it. The harness names no flag: a selection that matches
/// none gets the flags that choose one here (still an error, exit 1); a backend name it does not
/// know is a bad `--backend` value (exit 2), in every subcommand that opens an adapter.
fn with_adapter_flags(error: HarnessError) -> anyhow::Error {
    match error {
        HarnessError::NoMatch { .. } => anyhow::anyhow!("{error}, with {ADAPTER_FLAGS}"),
        HarnessError::UnknownBackend(_) => {
            crate::exit::UsageError(format!("--backend: {error}")).into()
        }
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_backend_is_a_usage_error() {
        let error = with_adapter_flags(HarnessError::UnknownBackend("bogus".into()));
        assert_eq!(crate::exit::exit_for(&error), crate::exit::Exit::Usage);
        assert!(crate::exit::error_line(&error).contains("--backend: "));
    }

    #[test]
    fn a_selection_matching_no_adapter_names_the_flags_and_exits_1() {
        let error = with_adapter_flags(HarnessError::NoMatch {
            selection: "adapter 'nope'".into(),
            found: "  0 lavapipe".into(),
        });
        let shown = crate::exit::error_line(&error);
        assert!(
            shown.starts_with("no adapter matches adapter 'nope'. Adapters found:\n  0 lavapipe\n")
                && shown.ends_with(&format!(
                    "another backend (vulkan, metal, dx12, gl), with {ADAPTER_FLAGS}"
                )),
            "{shown}"
        );
        assert_eq!(crate::exit::exit_for(&error), crate::exit::Exit::Error);
        let other = with_adapter_flags(HarnessError::UnknownBackend("x".into()));
        assert!(!crate::exit::error_line(&other).contains("--adapter"));
    }
}
