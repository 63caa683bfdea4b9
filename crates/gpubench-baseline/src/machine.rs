//! What differs between the machines (and set-ups) of two runs.
//!
//! With different fingerprints the comparison is across machines and these differences are the
//! label that says why no verdict is given. With the same fingerprint they are context: a driver
//! update, another OS or tool version, a different profile, the things a reader checks first
//! when a number moves.

use gpubench_results::RunDocument;
use serde::{Deserialize, Serialize};

/// One field that differs between two runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// What differs, e.g. `adapter`, `driver`, `backend`.
    pub field: String,
    /// The value in the base run.
    pub base: String,
    /// The value in the new run.
    pub new: String,
}

impl Difference {
    /// Whether this difference slows one run's timings and not the other's: one run logged
    /// above `warn` (logging slows short kernels 2-3x) and the other did not. Two verbose
    /// filters differ too, but slow both runs alike.
    pub fn slows_one_run(&self) -> bool {
        self.field == LOGGING && (self.base == QUIET_LOGGING) != (self.new == QUIET_LOGGING)
    }
}

/// The field of a [`Difference`] in how the runs logged.
pub const LOGGING: &str = "logging";

/// How [`logging`] names every filter that lets no more than warnings through.
const QUIET_LOGGING: &str = "warn or quieter";

/// How a run logged, as far as its timings are concerned: its filter when it let more than
/// warnings through, else [`QUIET_LOGGING`].
pub fn logging(doc: &RunDocument) -> &str {
    doc.config.verbose_logging().unwrap_or(QUIET_LOGGING)
}

/// Every compared field whose value differs between `base` and `new`, key fields first.
pub fn machine_differences(base: &RunDocument, new: &RunDocument) -> Vec<Difference> {
    let facts = |doc: &RunDocument| -> Vec<(&'static str, String)> {
        let m = &doc.machine;
        let a = &m.adapter;
        vec![
            ("adapter", a.name.clone()),
            ("vendor id", format!("0x{:04x}", a.vendor_id)),
            ("device id", format!("0x{:04x}", a.device_id)),
            ("backend", a.backend.clone()),
            ("device type", a.device_type.clone()),
            (
                "driver",
                format!("{} {}", a.driver, a.driver_info).trim().to_string(),
            ),
            ("os", m.os.clone()),
            ("cpu", m.cpu_model.clone()),
            ("wgpu", m.wgpu_version.clone()),
            ("gpubench", doc.tool.version.clone()),
            ("build", m.build_profile.clone()),
            ("timing", m.timing_source.as_str().to_string()),
            ("profile", doc.config.profile.clone()),
            (LOGGING, logging(doc).to_string()),
            (
                "shader checks",
                doc.config
                    .options
                    .get("shader_checks")
                    .and_then(|v| v.as_str())
                    .unwrap_or("-")
                    .to_string(),
            ),
        ]
    };
    facts(base)
        .into_iter()
        .zip(facts(new))
        .filter(|((_, b), (_, n))| b != n)
        .map(|((field, b), (_, n))| Difference {
            field: field.to_string(),
            base: b,
            new: n,
        })
        .collect()
}
