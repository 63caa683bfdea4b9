//! One module per subcommand.

pub mod compare;
pub mod list;
pub mod run;
pub mod verdicts;
