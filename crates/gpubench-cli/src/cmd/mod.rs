//! One module per subcommand.

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
