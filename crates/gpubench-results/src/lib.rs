//! The results contract of gpubench: what a run writes and what every reader (baselines,
//! reports, other tools) reads. Plain serde data and pure functions, with no GPU dependency, so
//! the crates that judge and render results build and test without wgpu or an adapter.
//!
//! The file format is published as a JSON Schema in `docs/results.schema.json`; the rules for
//! `schema_version` are in [`schema`].

pub mod adapter;
pub mod bounded;
pub mod chart;
pub mod chart_of;
pub mod clock_tally;
pub mod error;
pub mod hostinfo;
pub mod in_flight;
pub mod item_timeline;
pub mod kind_name;
pub mod level_shift;
pub mod log_filter;
pub mod metric;
pub mod profile;
pub mod results_file;
pub mod rng;
pub mod run_noise;
pub mod schema;
pub mod stats;
pub mod suite_names;
pub mod telemetry;
pub mod units;
pub mod warnings;

pub use adapter::AdapterSummary;
pub use chart::{ChartHint, Roof};
pub use error::ResultsError;
pub use kind_name::KindName;
pub use metric::{
    BenchmarkInfo, IterationPolicy, MetricKind, Outputs, Role, TimingPreference, Work,
};
pub use profile::{Profile, RunSettings};
pub use schema::{BenchResult, RunDocument, Status, TimingSource};
