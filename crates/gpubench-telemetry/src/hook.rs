//! [`Telemetry`]: the harness's telemetry hook. One is opened per run for the adapter; the
//! runner calls it around every measured region, and at the end it writes the run's totals,
//! time line, link and nominal figures into the document.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use gpubench_harness::{BenchResult, GpuContext, RunDocument, TelemetryHook};
use gpubench_results::telemetry::{
    NominalFigures, PcieLink, RunTelemetry, TelemetryStatus, TelemetrySummary,
};

use crate::clocks;
use crate::fake::FakeSource;
use crate::pcie::{self, DisplayDevice, SysfsRoot};
use crate::sampler::{self, Sampler, SharedSource, Timed};
use crate::source::{DeviceFacts, GpuProcess, Opened};
use crate::{AdapterIdentity, TelemetryError, nominal};

/// How telemetry is read for a run.
#[derive(Debug, Clone, PartialEq)]
pub struct TelemetryOptions {
    /// Whether to sample at all (`--telemetry off` turns the sampler thread off; the link and
    /// nominal figures are still recorded).
    pub enabled: bool,
    /// Where sysfs is.
    pub sysfs: SysfsRoot,
    /// A scripted source to use instead of the platform's (`GPUBENCH_FAKE_TELEMETRY`), for tests.
    pub fake_script: Option<PathBuf>,
    /// Time between readings.
    pub period: Duration,
}

impl TelemetryOptions {
    /// Sampling `enabled` or not, sysfs from `GPUBENCH_SYSFS_ROOT`, a scripted source from
    /// `GPUBENCH_FAKE_TELEMETRY`, 20 Hz.
    pub fn from_env(enabled: bool) -> Self {
        Self {
            enabled,
            sysfs: SysfsRoot::from_env(),
            fake_script: std::env::var_os("GPUBENCH_FAKE_TELEMETRY")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            period: sampler::DEFAULT_PERIOD,
        }
    }
}

enum Mode {
    Sampling {
        source: SharedSource,
        name: String,
    },
    Absent {
        status: TelemetryStatus,
        reason: Option<String>,
    },
}

#[derive(Default)]
struct State {
    running: Option<Sampler>,
    spawn_error: Option<String>,
    all: Vec<Timed>,
    /// When the running region's timed samples started.
    sampling_from: Option<Instant>,
}

/// The telemetry of one run on one adapter.
pub struct Telemetry {
    mode: Mode,
    period: Duration,
    state: Mutex<State>,
    facts: DeviceFacts,
    devices: Vec<DisplayDevice>,
    matched: Option<(usize, &'static str)>,
    link: Mutex<Option<PcieLink>>,
    nominal: Option<NominalFigures>,
}

impl Telemetry {
    /// Telemetry for the adapter behind `ctx`.
    pub fn open(ctx: &GpuContext, options: &TelemetryOptions) -> Result<Self, TelemetryError> {
        Self::for_adapter(&AdapterIdentity::of(ctx), options)
    }

    /// Telemetry for `adapter`: the scripted source when one is given, else the platform's.
    pub fn for_adapter(
        adapter: &AdapterIdentity,
        options: &TelemetryOptions,
    ) -> Result<Self, TelemetryError> {
        let opened = match &options.fake_script {
            Some(path) => Opened::Source(Box::new(FakeSource::from_file(path)?)),
            None => crate::open_source(adapter, &options.sysfs),
        };
        Self::with_source(adapter, options, opened)
    }

    /// Telemetry for `adapter` read from `opened`.
    pub fn with_source(
        adapter: &AdapterIdentity,
        options: &TelemetryOptions,
        opened: Opened,
    ) -> Result<Self, TelemetryError> {
        let devices = pcie::display_devices(&options.sysfs);
        let matched = pcie::match_adapter(
            &devices,
            adapter.vendor_id,
            adapter.device_id,
            adapter.pci_bus_id.as_deref(),
        )
        .map(|(device, by)| (devices.iter().position(|d| d == device).unwrap_or(0), by));
        let link = matched.map(|(index, by)| pcie::read_link(&devices[index], by));
        let nominal = nominal::find(
            &nominal::table()?,
            adapter.vendor_id,
            adapter.device_id,
            &adapter.name,
        );
        let (mode, facts) = mode_of(opened, options.enabled);
        Ok(Self {
            mode,
            period: options.period,
            state: Mutex::new(State::default()),
            facts,
            devices,
            matched,
            link: Mutex::new(link),
            nominal,
        })
    }

    /// Whether readings are taken, and why not when they are not.
    pub fn status(&self) -> (TelemetryStatus, Option<&str>) {
        match &self.mode {
            Mode::Sampling { .. } => (TelemetryStatus::Sampled, None),
            Mode::Absent { status, reason } => (*status, reason.as_deref()),
        }
    }

    /// The source's name, when readings are taken.
    pub fn source_name(&self) -> Option<&str> {
        match &self.mode {
            Mode::Sampling { name, .. } => Some(name),
            Mode::Absent { .. } => None,
        }
    }

    /// Limits and versions the source reported.
    pub fn facts(&self) -> &DeviceFacts {
        &self.facts
    }

    /// The datasheet row matched to the adapter.
    pub fn nominal(&self) -> Option<&NominalFigures> {
        self.nominal.as_ref()
    }

    /// The adapter's link: the best state read so far (links slow down when idle).
    pub fn link(&self) -> Option<PcieLink> {
        lock(&self.link).clone()
    }

    /// Reads the adapter's link again and keeps the better of this and the earlier readings.
    pub fn refresh_link(&self) -> Option<PcieLink> {
        let (index, by) = self.matched?;
        let now = pcie::read_link(&self.devices[index], by);
        let mut link = lock(&self.link);
        let best = match link.take() {
            Some(before) => pcie::best_of(before, now),
            None => now,
        };
        *link = Some(best.clone());
        Some(best)
    }

    /// The links of every PCI display device on the host, for when the adapter matched none.
    pub fn all_links(&self) -> Vec<PcieLink> {
        self.devices
            .iter()
            .map(|d| pcie::read_link(d, "unmatched"))
            .collect()
    }

    /// Processes other than this one on the device; `None` when the source cannot tell.
    pub fn other_processes(&self) -> Option<Vec<GpuProcess>> {
        match &self.mode {
            Mode::Sampling { source, .. } => source.lock().ok()?.other_processes(),
            Mode::Absent { .. } => None,
        }
    }

    /// Every reading so far, summarised (the run's totals).
    pub fn totals(&self) -> TelemetrySummary {
        match &self.mode {
            Mode::Sampling { name, .. } => sampler::summarise(name, &lock(&self.state).all),
            Mode::Absent { status, reason } => {
                TelemetrySummary::without_readings(*status, reason.clone())
            }
        }
    }

    fn stop_running(&self, state: &mut State) -> Option<Vec<Timed>> {
        let readings = state.running.take()?.stop();
        state.all.extend(readings.iter().cloned());
        Some(readings)
    }
}

/// The mode and the facts of an opened source.
fn mode_of(opened: Opened, enabled: bool) -> (Mode, DeviceFacts) {
    let absent =
        |status, reason: Option<String>| (Mode::Absent { status, reason }, DeviceFacts::default());
    match opened {
        Opened::NotApplicable(reason) => absent(TelemetryStatus::NotApplicable, Some(reason)),
        Opened::Unavailable(reason) => absent(TelemetryStatus::Unavailable, Some(reason)),
        Opened::Source(mut source) => {
            let facts = source.facts();
            if !enabled {
                let reason = Some("turned off for this run".to_string());
                return (
                    Mode::Absent {
                        status: TelemetryStatus::Off,
                        reason,
                    },
                    facts,
                );
            }
            let name = source.name().to_string();
            let source: SharedSource = Arc::new(Mutex::new(source));
            (Mode::Sampling { source, name }, facts)
        }
    }
}

/// A lock that survives a panicked holder (the data are readings: still usable).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl TelemetryHook for Telemetry {
    fn begin(&self, _id: &str) {
        let Mode::Sampling { source, .. } = &self.mode else {
            return;
        };
        let mut state = lock(&self.state);
        // A region whose benchmark panicked never ended: close it first.
        self.stop_running(&mut state);
        state.sampling_from = None;
        match Sampler::start(Arc::clone(source), self.period) {
            Ok(sampler) => state.running = Some(sampler),
            Err(error) => state.spawn_error = Some(error.to_string()),
        }
    }

    fn end(&self) -> Option<TelemetrySummary> {
        match &self.mode {
            Mode::Absent {
                status: TelemetryStatus::Off,
                ..
            } => None,
            Mode::Absent { status, reason } => {
                // The link is sysfs's, not the sampler's: read after the load in every mode
                // (an idle card lowers its link speed, and a judge of the link needs it busy).
                self.refresh_link();
                Some(TelemetrySummary::without_readings(*status, reason.clone()))
            }
            Mode::Sampling { name, .. } => {
                let mut state = lock(&self.state);
                let from = state.sampling_from.take();
                let summary = match self.stop_running(&mut state) {
                    Some(readings) => match from {
                        Some(from) => sampler::summarise(name, sampler::since(&readings, from)),
                        None => sampler::summarise(name, &readings),
                    },
                    None => TelemetrySummary::without_readings(
                        TelemetryStatus::Unavailable,
                        state
                            .spawn_error
                            .take()
                            .map(|e| format!("the sampler thread could not start: {e}")),
                    ),
                };
                drop(state);
                self.refresh_link();
                Some(summary)
            }
        }
    }

    fn finish(&self, doc: &mut RunDocument) {
        let all = {
            let mut state = lock(&self.state);
            self.stop_running(&mut state);
            state.all.clone()
        };
        let link = self.refresh_link();
        for result in &mut doc.results {
            nominal::annotate(result, self.nominal.as_ref(), link.as_ref());
        }
        doc.telemetry = Some(RunTelemetry {
            totals: self.totals(),
            trace: sampler::trace(&all, sampler::MAX_TRACE_POINTS),
            max_sm_clock_mhz: self.facts.max_sm_clock_mhz,
            max_memory_clock_mhz: self.facts.max_memory_clock_mhz,
            driver_version: self.facts.driver_version.clone(),
            link,
            nominal: self.nominal.clone(),
        });
    }

    fn sampling(&self) {
        lock(&self.state).sampling_from = Some(Instant::now());
    }

    fn clocks_settled(&self) -> Option<bool> {
        let latest = lock(&self.state).running.as_ref()?.latest()?;
        clocks::settled(&latest, self.facts.max_sm_clock_mhz)
    }

    fn annotate(&self, result: &mut BenchResult) {
        let link = self.link();
        nominal::annotate(result, self.nominal.as_ref(), link.as_ref());
        clocks::annotate(result, self.facts.max_sm_clock_mhz);
    }
}
