//! Why a plan was refused. Messages name options by the library's names; a front end names
//! its own flags instead (the CLI maps an option's key to its flag through the registry).

/// Errors in choosing or configuring suites.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A suite name that does not exist.
    #[error("unknown suite '{name}': choose from {known}")]
    UnknownSuite {
        /// The name asked for.
        name: String,
        /// Every suite that can be asked for, comma-separated.
        known: String,
    },
    /// `all` among other suite names: it already names every suite.
    #[error("'all' names every suite and stands alone: give it by itself, or list the suites")]
    AllAmongOthers,
    /// A suite named twice: its results would carry the same ids twice.
    #[error("suite '{0}' is named twice; name each suite once")]
    NamedTwice(String),
    /// An option no suite of the registry declares.
    #[error("unknown option '{0}': no suite takes it")]
    UnknownOption(String),
    /// An option value that cannot work.
    #[error("{} {problem}", option.replace('_', " "))]
    BadOption {
        /// The option's key (as `config.options` records it, or a sampling setting's name).
        option: &'static str,
        /// What is wrong with its value, e.g. `0x4x4: every dimension must be from 1 to 65536`.
        problem: String,
    },
}

impl PlanError {
    /// `option`'s value is wrong: `problem` says how.
    pub fn bad(option: &'static str, problem: impl Into<String>) -> Self {
        PlanError::BadOption {
            option,
            problem: problem.into(),
        }
    }
}
