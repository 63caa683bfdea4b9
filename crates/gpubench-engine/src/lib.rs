//! The gpubench engine: what drives a run, knowing no suite by name.
//!
//! A suite is a [`Suite`]: it says what it is ([`SuiteInfo`]), which options it takes
//! ([`OptionSpec`]), which shaders and pipelines it builds, and builds its benchmarks in stages.
//! The suites crate hands the engine a [`Registry`] of them; the engine checks it (unique names,
//! declared order, one owner per option), turns a front end's choices into a checked
//! [`plan::RunPlan`], and [`session::Session`] drives the plan on one adapter, with the run's
//! [`noise_check`] at its start and end and a [`tuner::ShortRunTuner`] for suites that tune.
//!
//! The boundary is the crate's: the engine does not depend on the suites crate, so it cannot
//! name a suite, and nothing a suite needs from another suite can hide here.

pub mod error;
pub mod noise_check;
pub mod options;
pub mod plan;
pub mod registry;
pub mod session;
pub mod suite;
pub mod tuner;

pub use error::PlanError;
pub use gpubench_results::{ChartHint, Roof};
pub use options::{Arity, OptionSpec, SuiteOptions};
pub use registry::Registry;
pub use suite::{Benchmarks, BuildContext, Included, Stage, Stages, Suite, SuiteInfo, Tuner};
