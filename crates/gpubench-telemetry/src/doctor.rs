//! The checks of `gpubench doctor`: the checklist an engineer runs on a slow GPU, each item
//! judged ok, warn, fail or unknown from what was detected and measured, with what to do.
//! The judging is pure (a [`Findings`] in, [`Check`]s out) so every verdict is tested without
//! a device; the command gathers the findings with a short load.

use gpubench_results::telemetry::{NominalFigures, PcieLink, TelemetryStatus, TelemetrySummary};
use serde::Serialize;

use crate::source::GpuProcess;

/// A graphics clock under this fraction of the maximum while the GPU is busy is flagged.
pub const LOW_CLOCK_FRACTION: f64 = 0.7;
/// Utilisation (percent) from which the GPU counts as busy for the clock check.
pub const BUSY_UTILIZATION_PCT: f64 = 50.0;
/// Host-to-device copies under this percentage of the link's nominal bandwidth are flagged.
pub const LOW_LINK_PCT: f64 = 50.0;
/// Stream bandwidth under this percentage of the datasheet memory bandwidth is flagged.
pub const LOW_STREAM_PCT: f64 = 50.0;
/// Throttle reasons that mean the hardware itself pulled the clocks down: a failure.
pub const HARDWARE_REASONS: [&str; 3] = [
    "hw-slowdown",
    "hw-thermal-slowdown",
    "hw-power-brake-slowdown",
];
/// Throttle reasons the driver applies at its limits: worth a warning.
pub const LIMIT_REASONS: [&str; 2] = ["sw-power-cap", "sw-thermal-slowdown"];
/// The transfer path (the transfer suite's `h2d-staging-copy`) whose bytes a copy engine moves
/// from host memory over the link: the only host-to-device figure judged against the link.
pub const COPY_ENGINE_H2D_PATH: &str = "h2d-staging-copy";

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckStatus {
    /// Nothing wrong.
    Ok,
    /// Worth a look; the numbers may be off.
    Warn,
    /// Something is wrong: results on this machine do not represent the card.
    Fail,
    /// Could not be checked here; the detail says why.
    Unknown,
}

impl CheckStatus {
    /// The verdict as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Ok => "ok",
            CheckStatus::Warn => "warn",
            CheckStatus::Fail => "fail",
            CheckStatus::Unknown => "unknown",
        }
    }
}

/// One item of the checklist.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// Stable name (`software-adapter`, `pcie-link`, ...).
    pub name: String,
    /// The verdict.
    pub status: CheckStatus,
    /// What was found.
    pub detail: String,
    /// What to do about it, when anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

impl Check {
    fn new(name: &str, status: CheckStatus, detail: String) -> Self {
        Self {
            name: name.to_string(),
            status,
            detail,
            action: None,
        }
    }

    fn action(mut self, action: &str) -> Self {
        self.action = Some(action.to_string());
        self
    }
}

/// Everything the doctor detected and measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Findings {
    /// Adapter name.
    pub adapter: String,
    /// Whether it is a software adapter.
    pub software: bool,
    /// Driver name and details as wgpu reports them.
    pub driver: String,
    /// The telemetry source's driver version (NVML's), when there is one.
    pub driver_version: Option<String>,
    /// Whether telemetry was read, and why not.
    pub telemetry: Option<(TelemetryStatus, Option<String>)>,
    /// Telemetry over the short load.
    pub load: Option<TelemetrySummary>,
    /// Highest graphics clock the device reports, MHz.
    pub max_sm_clock_mhz: Option<f64>,
    /// Other processes on the device (`None`: the source cannot tell).
    pub processes: Option<Vec<GpuProcess>>,
    /// The adapter's link, when matched.
    pub link: Option<PcieLink>,
    /// Every display device's link, when the adapter matched none.
    pub other_links: Vec<PcieLink>,
    /// Measured host-to-device copy bandwidth, GB/s, or why it was not measured.
    pub h2d_gbs: Result<f64, String>,
    /// The transfer path that measured it: [`COPY_ENGINE_H2D_PATH`] where the staging buffer is
    /// host memory (a copy over the link), else the mapped upload (with a large BAR the staging
    /// buffer is device memory, and the host's stores into it are what is timed).
    pub h2d_path: String,
    /// Measured stream bandwidth, GB/s, or why it was not measured.
    pub stream_gbs: Result<f64, String>,
    /// The matched datasheet row.
    pub nominal: Option<NominalFigures>,
}

/// Every check, in checklist order.
pub fn checks(f: &Findings) -> Vec<Check> {
    let mut checks = vec![software_adapter(f)];
    checks.extend(link_checks(f));
    checks.push(telemetry(f));
    checks.push(clocks(f));
    checks.push(throttling(f));
    checks.push(processes(f));
    checks.push(driver(f));
    checks.push(h2d_vs_link(f));
    checks.push(stream_vs_nominal(f));
    checks
}

/// Whether any check failed (the command then exits 5).
pub fn any_failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.status == CheckStatus::Fail)
}

fn software_adapter(f: &Findings) -> Check {
    if f.software {
        return Check::new(
            "software-adapter",
            CheckStatus::Warn,
            format!("{} is a software adapter: the host's CPU does the work, so every number is a CPU number", f.adapter),
        )
        .action("choose a GPU adapter by its index or name (`gpubench list` shows them); if none is listed, install its Vulkan, Metal or DX12 driver");
    }
    Check::new(
        "software-adapter",
        CheckStatus::Ok,
        format!("{} is a hardware adapter", f.adapter),
    )
}

/// `gen4 x16 (31.5 GB/s one way)` for the current or the maximum state.
fn describe(generation: Option<u8>, width: Option<u32>, gbs: Option<f64>) -> String {
    let generation = generation.map_or("gen ?".to_string(), |g| format!("gen{g}"));
    let width = width.map_or("x?".to_string(), |w| format!("x{w}"));
    match gbs {
        Some(gbs) => format!("{generation} {width} ({gbs:.1} GB/s one way)"),
        None => format!("{generation} {width}"),
    }
}

/// The verdict on one link, read just after this run's load.
pub fn link_check(name: &str, link: &PcieLink) -> Check {
    judged_link(name, link, true)
}

/// The verdict on one link; `loaded` where this run's load was on its device. A speed under the
/// top one fails only there: an idle GPU lowers its link speed.
fn judged_link(name: &str, link: &PcieLink, loaded: bool) -> Check {
    let current = describe(
        link.current_generation,
        link.current_width,
        link.current_nominal_gbs,
    );
    let max = describe(link.max_generation, link.max_width, link.max_nominal_gbs);
    let detail = format!(
        "{} ({:04x}:{:04x}) runs {current}; the device supports {max}",
        link.address, link.vendor_id, link.device_id
    );
    let (Some(speed), Some(width), Some(max_speed), Some(max_width)) = (
        link.current_speed_gts,
        link.current_width,
        link.max_speed_gts,
        link.max_width,
    ) else {
        return Check::new(
            name,
            CheckStatus::Unknown,
            format!("{detail}: sysfs does not give every link field"),
        );
    };
    if width < max_width {
        return Check::new(name, CheckStatus::Fail, format!("{detail}: {width} of {max_width} lanes"))
            .action("reseat the card in a slot wired for all its lanes (check the board manual and any riser); a narrow link divides host-device bandwidth");
    }
    if speed < max_speed && !loaded {
        return Check::new(
            name,
            CheckStatus::Unknown,
            format!(
                "{detail}: below its top speed, read while idle (this run loaded another adapter, and an idle GPU lowers its link speed)"
            ),
        );
    }
    if speed < max_speed {
        return Check::new(name, CheckStatus::Fail, format!("{detail}: trained below its top speed, read just after a load"))
            .action("use a slot (and riser) of the card's generation and check the BIOS PCIe speed setting; an idle GPU lowers its link speed, so re-run doctor if the GPU was idle");
    }
    Check::new(name, CheckStatus::Ok, detail)
}

fn link_checks(f: &Findings) -> Vec<Check> {
    if let Some(link) = &f.link {
        return vec![link_check("pcie-link", link)];
    }
    if f.other_links.is_empty() {
        return vec![Check::new(
            "pcie-link",
            CheckStatus::Unknown,
            "no PCI display or accelerator device found in sysfs (not Linux, or an integrated or virtual adapter)"
                .to_string(),
        )];
    }
    let mut checks = vec![Check::new(
        "pcie-link",
        CheckStatus::Unknown,
        format!(
            "{} matches none of the host's {} PCI display or accelerator device(s); their links follow",
            f.adapter,
            f.other_links.len()
        ),
    )];
    checks.extend(
        f.other_links
            .iter()
            .map(|link| judged_link(&format!("pcie-link@{}", link.address), link, false)),
    );
    checks
}

fn telemetry(f: &Findings) -> Check {
    match &f.telemetry {
        Some((TelemetryStatus::Sampled, _)) => {
            let source = f
                .load
                .as_ref()
                .and_then(|l| l.source.clone())
                .unwrap_or_default();
            Check::new(
                "telemetry",
                CheckStatus::Ok,
                format!("read through {source}"),
            )
        }
        Some((status, reason)) => Check::new(
            "telemetry",
            CheckStatus::Unknown,
            format!(
                "{}: {}",
                status.as_str(),
                reason.clone().unwrap_or_default()
            ),
        ),
        None => Check::new("telemetry", CheckStatus::Unknown, "not read".to_string()),
    }
}

/// The telemetry reason, for checks that need readings and got none.
fn no_readings(f: &Findings) -> String {
    match &f.telemetry {
        Some((status, _)) => format!(
            "no telemetry readings (telemetry {}: see the telemetry check)",
            status.as_str()
        ),
        None => "no telemetry readings".to_string(),
    }
}

fn clocks(f: &Findings) -> Check {
    let load = f.load.as_ref();
    let (Some(clock), Some(max)) = (
        load.and_then(|l| l.sensors.sm_clock_mhz),
        f.max_sm_clock_mhz,
    ) else {
        return Check::new("clocks", CheckStatus::Unknown, no_readings(f));
    };
    let busy = load
        .and_then(|l| l.sensors.utilization_pct)
        .map(|u| u.median);
    let detail = format!(
        "graphics clock under load: median {:.0} MHz (range {:.0}-{:.0}) of {max:.0} MHz maximum{}",
        clock.median,
        clock.min,
        clock.max,
        busy.map_or(String::new(), |u| format!(", {u:.0}% busy"))
    );
    if busy.is_some_and(|u| u < BUSY_UTILIZATION_PCT) {
        return Check::new(
            "clocks",
            CheckStatus::Unknown,
            format!("{detail}: too idle to judge"),
        );
    }
    if clock.median < LOW_CLOCK_FRACTION * max {
        return Check::new("clocks", CheckStatus::Warn, detail)
            .action("look for power or thermal limits (the throttling check), locked application clocks, or a power-saving mode");
    }
    Check::new("clocks", CheckStatus::Ok, detail)
}

fn throttling(f: &Findings) -> Check {
    let Some(load) = f.load.as_ref().filter(|l| l.readings > 0) else {
        return Check::new("throttling", CheckStatus::Unknown, no_readings(f));
    };
    if !load.throttle_reasons_known() {
        let source = load.source.as_deref().unwrap_or("?");
        // An empty list from such a source is silence, not health: an RX 7900 XTX held at 1500
        // of 2526 MHz read as "none" here.
        return Check::new(
            "throttling",
            CheckStatus::Unknown,
            format!(
                "throttle reasons unknown: this driver does not report clock-limit reasons (read through {source}); the clocks and temperature checks are what is left"
            ),
        );
    }
    let seen = &load.throttle_reasons;
    let listed = if seen.is_empty() {
        "none".to_string()
    } else {
        seen.join(", ")
    };
    let detail = format!("throttle reasons during the load: {listed}");
    if seen.iter().any(|r| HARDWARE_REASONS.contains(&r.as_str())) {
        return Check::new("throttling", CheckStatus::Fail, detail)
            .action("the hardware slowed itself: check cooling (fans, airflow, dust), the power supply and its cables");
    }
    if seen.iter().any(|r| LIMIT_REASONS.contains(&r.as_str())) {
        return Check::new("throttling", CheckStatus::Warn, detail)
            .action("the card runs at its power or temperature limit: check the power limit (nvidia-smi -q -d POWER) and cooling");
    }
    Check::new("throttling", CheckStatus::Ok, detail)
}

fn processes(f: &Findings) -> Check {
    match &f.processes {
        None => Check::new(
            "other-processes",
            CheckStatus::Unknown,
            format!(
                "the telemetry source cannot list processes; {}",
                no_readings(f)
            ),
        ),
        Some(list) if list.is_empty() => Check::new(
            "other-processes",
            CheckStatus::Ok,
            "no other process uses the GPU".to_string(),
        ),
        Some(list) => {
            let names: Vec<String> = list
                .iter()
                .map(|p| format!("{} ({})", p.pid, p.name.as_deref().unwrap_or("?")))
                .collect();
            Check::new(
                "other-processes",
                CheckStatus::Warn,
                format!(
                    "{} other process(es) on the GPU: {}",
                    list.len(),
                    names.join(", ")
                ),
            )
            .action("stop them or wait for them: they share the GPU with the benchmark")
        }
    }
}

fn driver(f: &Findings) -> Check {
    let version = f
        .driver_version
        .as_ref()
        .map_or(String::new(), |v| format!(", kernel driver {v}"));
    if f.driver.trim().is_empty() && version.is_empty() {
        return Check::new(
            "driver",
            CheckStatus::Unknown,
            "the backend reports no driver".to_string(),
        );
    }
    Check::new(
        "driver",
        CheckStatus::Ok,
        format!("{}{version}", f.driver.trim()),
    )
}

fn h2d_vs_link(f: &Findings) -> Check {
    let gbs = match &f.h2d_gbs {
        Ok(gbs) => *gbs,
        Err(why) => return Check::new("h2d-vs-link", CheckStatus::Unknown, why.clone()),
    };
    let Some(nominal) = f.link.as_ref().and_then(|l| l.current_nominal_gbs) else {
        return Check::new(
            "h2d-vs-link",
            CheckStatus::Unknown,
            format!("measured {gbs:.2} GB/s host to device; no link to compare with"),
        );
    };
    if f.h2d_path != COPY_ENGINE_H2D_PATH {
        // With a large BAR the doctor times the mapped upload, whose pace is the CPU's stores
        // into mapped memory: 10.81 GB/s on a gen5 x16 link is that, not a slow link.
        return Check::new(
            "h2d-vs-link",
            CheckStatus::Unknown,
            format!(
                "measured {gbs:.2} GB/s host to device ({}): this path measures the host's stores into mapped memory, not a copy over the link, so it is not judged against the link's nominal {nominal:.1} GB/s",
                f.h2d_path
            ),
        );
    }
    share_of_nominal(
        "h2d-vs-link",
        (gbs, nominal, LOW_LINK_PCT),
        |pct| {
            format!(
                "measured {gbs:.2} GB/s host to device ({}), {pct:.0}% of the link's nominal {nominal:.1} GB/s",
                f.h2d_path
            )
        },
        "run on the CPU socket the GPU is attached to (numactl), check IOMMU settings and the link check above",
    )
}

/// The check `name` of a measured figure against its nominal one, (measured, nominal, lowest
/// percentage that passes): `detail` of the percentage, and a warning with `action` below it.
fn share_of_nominal(
    name: &'static str,
    (measured, nominal, low_pct): (f64, f64, f64),
    detail: impl FnOnce(f64) -> String,
    action: &str,
) -> Check {
    let pct = 100.0 * measured / nominal;
    if pct < low_pct {
        return Check::new(name, CheckStatus::Warn, detail(pct)).action(action);
    }
    Check::new(name, CheckStatus::Ok, detail(pct))
}

fn stream_vs_nominal(f: &Findings) -> Check {
    let gbs = match &f.stream_gbs {
        Ok(gbs) => *gbs,
        Err(why) => return Check::new("stream-vs-nominal", CheckStatus::Unknown, why.clone()),
    };
    let Some((card, nominal)) = f
        .nominal
        .as_ref()
        .and_then(|n| Some((n.name.as_str(), n.memory_bandwidth_gbs?)))
    else {
        return Check::new(
            "stream-vs-nominal",
            CheckStatus::Unknown,
            format!(
                "measured {gbs:.1} GB/s stream triad; no datasheet figure for {} in the nominal table",
                f.adapter
            ),
        );
    };
    share_of_nominal(
        "stream-vs-nominal",
        (gbs, nominal, LOW_STREAM_PCT),
        |pct| {
            format!(
                "measured {gbs:.1} GB/s stream triad, {pct:.0}% of the {card}'s nominal {nominal:.0} GB/s"
            )
        },
        "check the clocks and throttling checks; memory clocks held low (power saving, ECC scrubbing, another process) show here",
    )
}
