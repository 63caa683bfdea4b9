//! A scripted source behind the same trait as NVML and sysfs: tests (and the CLI, given
//! `GPUBENCH_FAKE_TELEMETRY=FILE`) use it to exercise the sampler, the summaries and the
//! doctor's checks without a driver. It plays its readings in order and repeats the last.

use gpubench_results::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::TelemetryError;
use crate::source::{DeviceFacts, GpuProcess, Reading, TelemetrySource};

/// What the scripted source reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FakeScript {
    /// Name recorded as the source (default `fake`).
    pub name: Option<String>,
    /// Readings, played in order; the last repeats.
    pub readings: Vec<Reading>,
    /// Limits and versions.
    pub facts: DeviceFacts,
    /// Other processes on the device; `None` when the source "cannot tell".
    pub processes: Option<Vec<GpuProcess>>,
}

/// The scripted source.
#[derive(Debug, Clone)]
pub struct FakeSource {
    script: FakeScript,
    next: usize,
}

impl FakeSource {
    /// A source playing `script`.
    pub fn new(script: FakeScript) -> Self {
        Self { script, next: 0 }
    }

    /// A source playing the script in the JSON file at `path`.
    pub fn from_file(path: &Path) -> Result<Self, TelemetryError> {
        // A script is a few readings: the system-file limit is ample, and a device or FIFO
        // named in GPUBENCH_FAKE_TELEMETRY is refused instead of read forever.
        let text =
            read_text_bounded(path, SYSTEM_FILE_BYTES).map_err(|source| TelemetryError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        let script = serde_json::from_str(&text).map_err(|source| TelemetryError::Script {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self::new(script))
    }
}

impl TelemetrySource for FakeSource {
    fn name(&self) -> &str {
        self.script.name.as_deref().unwrap_or("fake")
    }

    fn sample(&mut self) -> Reading {
        let readings = &self.script.readings;
        let index = self.next.min(readings.len().saturating_sub(1));
        self.next += 1;
        readings.get(index).cloned().unwrap_or_default()
    }

    fn facts(&mut self) -> DeviceFacts {
        self.script.facts.clone()
    }

    fn other_processes(&mut self) -> Option<Vec<GpuProcess>> {
        self.script.processes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_play_in_order_and_the_last_repeats() {
        let reading = |mhz: f64| Reading {
            sensors: gpubench_results::telemetry::Sensors {
                sm_clock_mhz: Some(mhz),
                ..Default::default()
            },
            ..Reading::default()
        };
        let mut source = FakeSource::new(FakeScript {
            readings: vec![reading(1.0), reading(2.0)],
            ..FakeScript::default()
        });
        let clocks: Vec<Option<f64>> = (0..4)
            .map(|_| source.sample().sensors.sm_clock_mhz)
            .collect();
        assert_eq!(clocks, [Some(1.0), Some(2.0), Some(2.0), Some(2.0)]);
        assert_eq!(source.name(), "fake");
    }
}
