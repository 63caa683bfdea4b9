//! Baselines: the stored reference run per adapter fingerprint, and the comparison of a run
//! against it (docs/baselines.md).
//!
//! The store ([`store`]) only ever replaces a baseline atomically and refuses runs that must not
//! become one. The comparison ([`mod@compare`], [`cross`]) is a pure function of two (or more)
//! documents: ratios of medians oriented so that > 1 means faster, bootstrap intervals from the
//! raw samples with a fixed seed ([`ratio`]), and verdicts ([`verdict`]) against a noise band
//! chosen per metric kind ([`noise`]). Nothing here prints; the CLI and the report crate render
//! the values.

pub mod compare;
pub mod cross;
pub mod error;
#[cfg(not(target_arch = "wasm32"))]
pub mod lock;
pub mod machine;
pub mod noise;
pub mod paired;
pub mod ratio;
pub mod store;
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;
pub mod verdict;

pub use compare::{
    CompareOptions, Comparison, GateOutcome, Mode, PairComparison, ReportOnly, Side, compare,
};
pub use cross::{CrossCell, CrossColumn, CrossRow, CrossTable, cross_table, measured_otherwise};
pub use error::BaselineError;
pub use machine::{Difference, machine_differences};
pub use paired::{PairedComparison, PairedOptions, PairedRow, judge_rounds};
pub use ratio::{RatioEstimate, ratio_ci};
#[cfg(not(target_arch = "wasm32"))]
pub use store::{BaselineStore, Saved};
pub use store::{baseline_key, check_recordable};
pub use verdict::{Verdict, verdict_for};
