//! The PCIe link of every PCI display device (class 0x03xxxx) and processing accelerator
//! (class 0x12xxxx) from sysfs, for any vendor on Linux, matched to the adapter by PCI bus id or
//! by vendor and device id, with the nominal one-way bandwidth of its generation and width.
//!
//! Nominal bandwidth per lane and direction, after line encoding, from the transfer rates and
//! encodings of the PCI Express Base Specifications (PCI-SIG, revisions 1.0a to 6.0):
//! gen 1 and 2 use 8b/10b (80% of the raw rate carries data), gen 3 to 5 use 128b/130b, gen 6
//! sends 256-byte FLITs of which 242 bytes carry data (the rest is CRC and FEC) over PAM4.
//! Packet headers and flow control take a further 5-15% in practice, so measured host-device
//! copies reach about 80-90% of these figures at best.
//!
//! A device's `max_link_*` files are what the device supports; `current_link_*` what the link
//! trained to. GPUs lower their link speed when idle to save power, so a speed below maximum
//! means something only when read under load.
//!
//! A GPU may not sit on the slot's link itself: AMD's Navi 2x and 3x cards carry a PCIe switch
//! on the board, and server GPUs sit behind PCIe switches, so the GPU function reports only its
//! link to the switch (gen4 x16 on the card) while the slot above trained to gen3 x4. The link
//! reported is therefore the narrowest point of the path from the device up to its root port.

use gpubench_results::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};
use std::path::{Path, PathBuf};

use gpubench_results::telemetry::PcieLink;

/// One PCIe generation: number, transfer rate per lane (GT/s), encoding, and the resulting
/// nominal bandwidth per lane and direction (GB/s, 10^9 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Generation {
    /// Generation number.
    pub number: u8,
    /// Transfer rate, GT/s per lane.
    pub gts: f64,
    /// Line encoding.
    pub encoding: &'static str,
    /// Data bandwidth per lane and direction, GB/s.
    pub lane_gbs: f64,
}

impl Generation {
    /// Generation `number` at `gts` GT/s per lane whose `encoding` carries `payload` data bits
    /// in every `line` bits on the wire.
    const fn new(number: u8, gts: f64, encoding: &'static str, payload: f64, line: f64) -> Self {
        Self {
            number,
            gts,
            encoding,
            lane_gbs: gts * payload / line / 8.0,
        }
    }
}

/// The generations, with their per-lane one-way bandwidth (see the module docs for the source).
pub const GENERATIONS: [Generation; 6] = [
    Generation::new(1, 2.5, "8b/10b", 8.0, 10.0),
    Generation::new(2, 5.0, "8b/10b", 8.0, 10.0),
    Generation::new(3, 8.0, "128b/130b", 128.0, 130.0),
    Generation::new(4, 16.0, "128b/130b", 128.0, 130.0),
    Generation::new(5, 32.0, "128b/130b", 128.0, 130.0),
    Generation::new(6, 64.0, "PAM4, 242/256-byte FLIT", 242.0, 256.0),
];

/// The generation running at `gts` GT/s per lane.
pub fn generation(gts: f64) -> Option<&'static Generation> {
    GENERATIONS.iter().find(|g| (g.gts - gts).abs() < 0.05)
}

/// Nominal one-way bandwidth of a link of `width` lanes at `gts`, GB/s.
pub fn nominal_gbs(gts: f64, width: u32) -> Option<f64> {
    Some(generation(gts)?.lane_gbs * f64::from(width))
}

/// Where sysfs is: `GPUBENCH_SYSFS_ROOT` when set (tests point it at fixture trees), else `/sys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SysfsRoot(pub PathBuf);

impl SysfsRoot {
    /// The root from `GPUBENCH_SYSFS_ROOT`, else `/sys`.
    pub fn from_env() -> Self {
        match std::env::var_os("GPUBENCH_SYSFS_ROOT") {
            Some(root) if !root.is_empty() => Self(PathBuf::from(root)),
            _ => Self(PathBuf::from("/sys")),
        }
    }

    /// The directory of PCI devices.
    pub fn pci_devices(&self) -> PathBuf {
        self.0.join("bus/pci/devices")
    }
}

/// PCI base class of display controllers.
pub const CLASS_DISPLAY: u32 = 0x03;
/// PCI base class of processing accelerators: amdgpu binds AMD Instinct MI200 and MI300 as one.
pub const CLASS_ACCELERATOR: u32 = 0x12;

/// A PCI display device or processing accelerator as sysfs lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayDevice {
    /// Its sysfs directory.
    pub dir: PathBuf,
    /// PCI address, `domain:bus:device.function`.
    pub address: String,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// PCI class code, its top byte [`CLASS_DISPLAY`] or [`CLASS_ACCELERATOR`].
    pub class: u32,
}

/// Every PCI display device and processing accelerator under `root`, in address order; none
/// where the directory is missing (not Linux, or no sysfs).
pub fn display_devices(root: &SysfsRoot) -> Vec<DisplayDevice> {
    let Ok(entries) = std::fs::read_dir(root.pci_devices()) else {
        return Vec::new();
    };
    let mut devices: Vec<DisplayDevice> = entries
        .flatten()
        .filter_map(|entry| {
            let dir = entry.path();
            let class = read_hex(&dir.join("class"))?;
            if ![CLASS_DISPLAY, CLASS_ACCELERATOR].contains(&(class >> 16)) {
                return None;
            }
            Some(DisplayDevice {
                address: entry.file_name().to_string_lossy().into_owned(),
                vendor_id: read_hex(&dir.join("vendor"))?,
                device_id: read_hex(&dir.join("device"))?,
                class,
                dir,
            })
        })
        .collect();
    devices.sort_by(|a, b| a.address.cmp(&b.address));
    devices
}

/// A PCI address normalised to (domain, bus, device, function), from `0000:01:00.0` or NVML's
/// `00000000:01:00.0`.
pub fn parse_address(text: &str) -> Option<(u32, u32, u32, u32)> {
    let text = text.trim();
    let (domain, rest) = text.rsplit_once(':').and_then(|(head, tail)| {
        let (domain, bus) = head.split_once(':')?;
        Some((domain, (bus, tail)))
    })?;
    let (bus, device_function) = rest;
    let (device, function) = device_function.split_once('.')?;
    let hex = |s: &str| u32::from_str_radix(s, 16).ok();
    Some((hex(domain)?, hex(bus)?, hex(device)?, hex(function)?))
}

/// The display device of the adapter: by PCI bus id when the adapter reports one, else the
/// first with its vendor and device id. Returns it with how it was matched.
pub fn match_adapter<'d>(
    devices: &'d [DisplayDevice],
    vendor_id: u32,
    device_id: u32,
    pci_bus_id: Option<&str>,
) -> Option<(&'d DisplayDevice, &'static str)> {
    if let Some(wanted) = pci_bus_id.and_then(parse_address)
        && let Some(device) = devices
            .iter()
            .find(|d| parse_address(&d.address) == Some(wanted))
    {
        return Some((device, "pci-bus-id"));
    }
    devices
        .iter()
        .find(|d| d.vendor_id == vendor_id && d.device_id == device_id)
        .map(|d| (d, "vendor-device-id"))
}

/// The link of `device` as sysfs reports it now: its own supported (maximum) speed and width,
/// and the slowest current speed and narrowest current width along its path to the root port
/// ([`upstream_path`]), which is what the host's bytes cross.
pub fn read_link(device: &DisplayDevice, matched_by: &str) -> PcieLink {
    let speed = |name: &str| read_speed(&device.dir.join(name));
    let width = |name: &str| read_trimmed(&device.dir.join(name))?.parse::<u32>().ok();
    let (current_speed, current_width) = bottleneck(&upstream_path(&device.dir));
    let (max_speed, max_width) = (speed("max_link_speed"), width("max_link_width"));
    let nominal = |s: Option<f64>, w: Option<u32>| nominal_gbs(s?, w?);
    PcieLink {
        address: device.address.clone(),
        vendor_id: device.vendor_id,
        device_id: device.device_id,
        matched_by: matched_by.to_string(),
        current_speed_gts: current_speed,
        current_width,
        max_speed_gts: max_speed,
        max_width,
        current_generation: current_speed.and_then(generation).map(|g| g.number),
        max_generation: max_speed.and_then(generation).map(|g| g.number),
        current_nominal_gbs: nominal(current_speed, current_width),
        max_nominal_gbs: nominal(max_speed, max_width),
    }
}

/// Bridges and ports between a device and its root port never number more than this; the walk
/// stops there whatever the tree says.
const MAX_PATH_DEPTH: usize = 16;

/// `dir` and, through its canonical sysfs path (`/sys/devices/pci0000:00/0000:00:01.1/...`),
/// every PCI bridge and port above it that has a link, up to the root port (the host bridge
/// above it has no link files, which ends the walk). Just `dir` where the path cannot be
/// resolved.
pub fn upstream_path(dir: &Path) -> Vec<PathBuf> {
    let mut path = vec![dir.to_path_buf()];
    let Ok(canonical) = dir.canonicalize() else {
        return path;
    };
    path.extend(
        canonical
            .ancestors()
            .skip(1)
            .take(MAX_PATH_DEPTH)
            .take_while(|d| has_link(d))
            .map(Path::to_path_buf),
    );
    path
}

fn has_link(dir: &Path) -> bool {
    ["current_link_speed", "current_link_width"]
        .iter()
        .any(|name| dir.join(name).is_file())
}

/// The current speed and width of the hop among `devices` with the least nominal bandwidth:
/// one link's pair, never the speed of one hop with the width of another. Where no hop gives
/// both, the slowest speed and the narrowest width known.
fn bottleneck(devices: &[PathBuf]) -> (Option<f64>, Option<u32>) {
    let hops: Vec<(Option<f64>, Option<u32>)> = devices
        .iter()
        .map(|d| {
            let width =
                read_trimmed(&d.join("current_link_width")).and_then(|w| w.parse::<u32>().ok());
            (read_speed(&d.join("current_link_speed")), width)
        })
        .collect();
    let narrowest = hops
        .iter()
        .filter_map(|&(speed, width)| Some((speed?, width?, nominal_gbs(speed?, width?)?)))
        .min_by(|a, b| a.2.total_cmp(&b.2));
    match narrowest {
        Some((speed, width, _)) => (Some(speed), Some(width)),
        None => (
            hops.iter().filter_map(|h| h.0).reduce(f64::min),
            hops.iter().filter_map(|h| h.1).min(),
        ),
    }
}

/// Whichever of two readings of one link trained higher (speed, then width): GPUs drop their
/// link speed when idle, so the best reading over a load is the link's real state.
pub fn best_of(a: PcieLink, b: PcieLink) -> PcieLink {
    let key = |l: &PcieLink| (l.current_nominal_gbs.unwrap_or(0.0), l.current_width);
    if key(&b) > key(&a) { b } else { a }
}

/// A link speed file: `16.0 GT/s PCIe`, `8 GT/s`, `2.5 GT/s`; `None` for `Unknown`.
fn read_speed(path: &Path) -> Option<f64> {
    let text = read_trimmed(path)?;
    text.split_whitespace().next()?.parse::<f64>().ok()
}

fn read_hex(path: &Path) -> Option<u32> {
    let text = read_trimmed(path)?;
    u32::from_str_radix(text.trim_start_matches("0x"), 16).ok()
}

/// A sysfs file's text without surrounding white space; `None` when it cannot be read.
pub(crate) fn read_trimmed(path: &Path) -> Option<String> {
    read_text_bounded(path, SYSTEM_FILE_BYTES)
        .ok()
        .map(|text| text.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nominal_bandwidth_follows_rate_encoding_and_width() {
        // Gen 4 x16: 16 GT/s * 128/130 / 8 * 16 = 31.5 GB/s one way.
        let gen4 = nominal_gbs(16.0, 16).expect("gen 4");
        assert!((gen4 - 31.508).abs() < 0.01, "{gen4}");
        // Gen 2's 8b/10b: 5 GT/s carries 4 Gb/s of data per lane.
        assert_eq!(nominal_gbs(5.0, 1), Some(0.5));
        // Gen 3 in a gen 5 slot is a quarter of the bandwidth.
        let ratio = nominal_gbs(8.0, 16).expect("gen 3") / nominal_gbs(32.0, 16).expect("gen 5");
        assert!((ratio - 0.25).abs() < 1e-9);
        assert_eq!(nominal_gbs(3.0, 16), None);
    }

    #[test]
    fn addresses_parse_in_both_spellings() {
        assert_eq!(parse_address("0000:01:00.0"), Some((0, 1, 0, 0)));
        assert_eq!(parse_address("00000000:c1:00.1"), Some((0, 0xc1, 0, 1)));
        assert_eq!(parse_address("garbage"), None);
    }
}
