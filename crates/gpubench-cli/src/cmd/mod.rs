//! One module per subcommand.

pub mod list;
pub mod report;
pub mod run;
