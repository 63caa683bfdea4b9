//! One module per subcommand.

pub mod compare;
pub mod doctor;
pub mod list;
pub mod report;
pub mod run;
pub mod verdicts;
