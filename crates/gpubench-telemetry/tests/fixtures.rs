//! The link reader, the amdgpu source, the hook and the doctor's checks against fixture sysfs
//! trees (a healthy gen4 x16 card, a x8 link on a x16 card, gen3 on a gen5 card, an AMD card
//! with hwmon files, an AMD card behind its on-board switch in a gen3 x4 slot with junction and
//! edge sensors, an Instinct accelerator of PCI class 0x12) and against scripted NVML-like
//! sources behind the same trait.

use std::path::PathBuf;
use std::time::Duration;

use gpubench_harness::TelemetryHook;
use gpubench_harness::{BenchResult, BenchmarkInfo, MetricKind, Status};
use gpubench_results::telemetry::{PcieLink, Sensors, TelemetryStatus};
use gpubench_telemetry::doctor::{self, CheckStatus, Findings};
use gpubench_telemetry::fake::FakeSource;
use gpubench_telemetry::pcie::{self, SysfsRoot};
use gpubench_telemetry::{AdapterIdentity, Opened, Telemetry, TelemetryOptions};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn root(tree: &str) -> SysfsRoot {
    SysfsRoot(fixture("sysfs").join(tree))
}

fn options(tree: &str) -> TelemetryOptions {
    TelemetryOptions {
        enabled: true,
        sysfs: root(tree),
        fake_script: None,
        period: Duration::from_millis(5),
    }
}

fn adapter(name: &str, vendor_id: u32, device_id: u32) -> AdapterIdentity {
    AdapterIdentity {
        name: name.to_string(),
        vendor_id,
        device_id,
        pci_bus_id: None,
        software: false,
    }
}

/// The H200 the scripted NVML-like sources describe.
fn h200() -> AdapterIdentity {
    adapter("NVIDIA H200", 0x10de, 0x2335)
}

/// Asserts a link's (generation, width) as it runs now and at the best both ends support.
fn assert_now_and_best(link: &PcieLink, now: (u8, u32), best: (u8, u32)) {
    let read = |generation: Option<u8>, width: Option<u32>| generation.zip(width);
    let current = read(link.current_generation, link.current_width);
    let max = read(link.max_generation, link.max_width);
    assert_eq!([current, max], [Some(now), Some(best)], "{link:?}");
}

/// The link of the only display device of `tree`, matched by its ids.
fn link_of(tree: &str, vendor_id: u32, device_id: u32) -> PcieLink {
    let devices = pcie::display_devices(&root(tree));
    assert_eq!(
        devices.len(),
        1,
        "{tree}: one display device, the audio function left out"
    );
    let (device, by) = pcie::match_adapter(&devices, vendor_id, device_id, None).expect("matched");
    assert_eq!(by, "vendor-device-id");
    pcie::read_link(device, by)
}

/// The doctor's check of `link`, asserted to have `status` and a detail with `words` in it.
fn assert_link_check(link: &PcieLink, status: CheckStatus, words: &str) -> doctor::Check {
    let check = doctor::link_check("pcie-link", link);
    assert_eq!(check.status, status, "{check:?}");
    assert!(check.detail.contains(words), "{}", check.detail);
    check
}

/// Asserts that `link` runs at `ratio` of the card's top nominal bandwidth.
fn assert_bandwidth_ratio(link: &PcieLink, ratio: f64) {
    let current = link.current_nominal_gbs.expect("current") / link.max_nominal_gbs.expect("max");
    assert!((current - ratio).abs() < 1e-9, "{current} of the top speed");
}

#[test]
fn a_healthy_gen4_x16_card_reads_as_such_and_passes() {
    let link = link_of("healthy-gen4-x16", 0x10de, 0x2684);
    assert_eq!(link.address, "0000:01:00.0");
    assert_now_and_best(&link, (4, 16), (4, 16));
    assert_eq!(link.current_nominal_gbs, link.max_nominal_gbs);
    assert_link_check(&link, CheckStatus::Ok, "gen4 x16 (31.5 GB/s one way)");
}

#[test]
fn a_x8_link_on_a_x16_card_fails_with_half_the_bandwidth() {
    let link = link_of("x8-in-x16", 0x10de, 0x2330);
    assert_now_and_best(&link, (5, 8), (5, 16));
    assert_bandwidth_ratio(&link, 0.5);
    let check = assert_link_check(&link, CheckStatus::Fail, "8 of 16 lanes");
    assert!(check.action.expect("what to do").contains("reseat"));
}

#[test]
fn gen3_on_a_gen5_card_fails_with_a_quarter_of_the_bandwidth() {
    let link = link_of("gen3-in-gen5", 0x10de, 0x2b85);
    assert_now_and_best(&link, (3, 16), (5, 16));
    assert_bandwidth_ratio(&link, 0.25);
    assert_link_check(&link, CheckStatus::Fail, "below its top speed");
}

#[test]
fn a_bus_id_match_beats_an_id_match_and_no_match_is_none() {
    let devices = pcie::display_devices(&root("healthy-gen4-x16"));
    let by_bus = pcie::match_adapter(&devices, 0, 0, Some("00000000:01:00.0"));
    assert_eq!(by_bus.map(|(_, by)| by), Some("pci-bus-id"));
    assert!(pcie::match_adapter(&devices, 0x10005, 0, None).is_none());
    assert!(pcie::display_devices(&SysfsRoot(fixture("no-such-tree"))).is_empty());
}

fn measured(id: &str, suite: &str) -> BenchResult {
    let info = BenchmarkInfo::new(id, suite, MetricKind::Bandwidth, "test");
    let mut result = BenchResult::empty(&info, Status::Ok, None);
    result.summary = gpubench_results::stats::summarize(&[480.0, 480.0]);
    result
}

#[test]
fn an_amd_card_is_read_from_its_hwmon_files_around_a_region() {
    let amd = adapter("AMD Radeon RX 7900 XTX", 0x1002, 0x744c);
    let telemetry = Telemetry::for_adapter(&amd, &options("amd-hwmon")).expect("opens");
    assert_eq!(telemetry.status().0, TelemetryStatus::Sampled);
    assert_eq!(telemetry.source_name(), Some("amdgpu-sysfs"));
    assert_eq!(telemetry.facts().max_sm_clock_mhz, Some(2500.0));
    telemetry.begin("stream/triad");
    std::thread::sleep(Duration::from_millis(20));
    let summary = telemetry.end().expect("a summary");
    assert!(summary.readings >= 1);
    assert_eq!(summary.sensors.sm_clock_mhz.map(|s| s.median), Some(1900.0));
    assert_eq!(
        summary.sensors.memory_clock_mhz.map(|s| s.median),
        Some(1249.0)
    );
    assert_eq!(summary.sensors.temperature_c.map(|s| s.median), Some(65.0));
    assert_eq!(summary.sensors.power_w.map(|s| s.median), Some(320.0));
    assert_eq!(
        summary.sensors.utilization_pct.map(|s| s.median),
        Some(97.0)
    );
    // At the end the document gets the totals, the link and the datasheet row, and the stream
    // result its percentage of the RX 7900 XTX's 960 GB/s.
    let mut doc = gpubench_baseline::testing::doc_with("AMD Radeon RX 7900 XTX", false);
    doc.results = vec![measured("stream/triad/vec4-f32/64MiB", "stream")];
    doc.results[0].role = gpubench_harness::Role::Kernel;
    telemetry.finish(&mut doc);
    let run = doc.telemetry.expect("run telemetry");
    assert_eq!(run.totals.readings, summary.readings);
    assert_eq!(run.link.expect("link").current_generation, Some(4));
    assert_eq!(run.nominal.expect("nominal").name, "AMD Radeon RX 7900 XTX");
    assert_eq!(doc.results[0].extra["pct_of_nominal"], 50.0);
}

/// Telemetry of `card` from the scripted source `script`, with sysfs at the fixture `tree`.
fn scripted(script: &str, tree: &str, card: &AdapterIdentity) -> Telemetry {
    let source = FakeSource::from_file(&fixture(script)).expect("script");
    Telemetry::with_source(card, &options(tree), Opened::Source(Box::new(source))).expect("opens")
}

/// What the doctor would find with `telemetry` after one region of load.
fn findings(telemetry: &Telemetry, h2d_gbs: f64, stream_gbs: f64) -> Findings {
    telemetry.begin("load");
    std::thread::sleep(Duration::from_millis(30));
    let load = telemetry.end();
    Findings {
        adapter: "NVIDIA H200".to_string(),
        software: false,
        driver: "NVIDIA 570.86.15".to_string(),
        driver_version: telemetry.facts().driver_version.clone(),
        telemetry: Some((telemetry.status().0, telemetry.status().1.map(String::from))),
        load,
        max_sm_clock_mhz: telemetry.facts().max_sm_clock_mhz,
        processes: telemetry.other_processes(),
        link: telemetry.link(),
        other_links: Vec::new(),
        h2d_gbs: Ok(h2d_gbs),
        h2d_path: "h2d-staging-copy".to_string(),
        stream_gbs: Ok(stream_gbs),
        nominal: telemetry.nominal().cloned(),
    }
}

fn status_of(checks: &[doctor::Check], name: &str) -> CheckStatus {
    check_named(checks, name).status
}

/// The doctor's check of `name`.
fn check_named<'c>(checks: &'c [doctor::Check], name: &str) -> &'c doctor::Check {
    checks.iter().find(|c| c.name == name).expect(name)
}

#[test]
fn a_throttled_busy_nvml_device_fails_the_doctor() {
    let telemetry = scripted("fake-nvml-throttled.json", "no-such-tree", &h200());
    let checks = doctor::checks(&findings(&telemetry, 10.0, 1000.0));
    assert_eq!(status_of(&checks, "throttling"), CheckStatus::Fail);
    assert_eq!(status_of(&checks, "other-processes"), CheckStatus::Warn);
    assert_eq!(
        status_of(&checks, "stream-vs-nominal"),
        CheckStatus::Warn,
        "1000 of 4800 GB/s"
    );
    assert_eq!(
        status_of(&checks, "pcie-link"),
        CheckStatus::Unknown,
        "no sysfs"
    );
    assert!(doctor::any_failed(&checks));
    let driver = check_named(&checks, "driver");
    assert!(driver.detail.contains("570.86.15"));
}

#[test]
fn a_healthy_nvml_device_on_a_healthy_link_passes_every_check() {
    // The healthy tree's card is an RTX 4090: match the H200 identity to it by bus id.
    let mut card = h200();
    card.pci_bus_id = Some("0000:01:00.0".to_string());
    let telemetry = scripted("fake-nvml-healthy.json", "healthy-gen4-x16", &card);
    let checks = doctor::checks(&findings(&telemetry, 25.0, 4300.0));
    for check in &checks {
        assert_eq!(check.status, CheckStatus::Ok, "{check:?}");
    }
    let h2d = check_named(&checks, "h2d-vs-link");
    assert!(
        h2d.detail.contains("79% of the link's nominal 31.5 GB/s"),
        "{}",
        h2d.detail
    );
}

#[test]
fn a_software_adapter_records_not_applicable_and_is_named() {
    let mut lavapipe = adapter("llvmpipe (LLVM 19.1.7, 256 bits)", 0x10005, 0);
    lavapipe.software = true;
    let telemetry = Telemetry::for_adapter(&lavapipe, &options("x8-in-x16")).expect("opens");
    telemetry.begin("stream/triad");
    let summary = telemetry.end().expect("a summary");
    assert_eq!(summary.status, TelemetryStatus::NotApplicable);
    assert!(summary.reason.expect("reason").contains("software adapter"));
    let mut f = findings(&telemetry, 1.0, 1.0);
    f.adapter = lavapipe.name.clone();
    f.software = true;
    f.other_links = telemetry.all_links();
    let checks = doctor::checks(&f);
    let software = &checks[0];
    assert_eq!(software.status, CheckStatus::Warn);
    assert!(software.detail.contains("llvmpipe") && software.detail.contains("software adapter"));
    // The adapter matches no PCI device, so the host's display devices are checked instead.
    assert_eq!(
        status_of(&checks, "pcie-link@0000:17:00.0"),
        CheckStatus::Fail
    );
    assert_eq!(status_of(&checks, "clocks"), CheckStatus::Unknown);
}

#[test]
fn a_slow_link_on_a_device_the_run_did_not_load_is_no_failure() {
    let mut lavapipe = adapter("llvmpipe (LLVM 19.1.7, 256 bits)", 0x10005, 0);
    lavapipe.software = true;
    let telemetry = Telemetry::for_adapter(&lavapipe, &options("gen3-in-gen5")).expect("opens");
    let mut f = findings(&telemetry, 1.0, 1.0);
    f.adapter = lavapipe.name.clone();
    f.software = true;
    f.other_links = telemetry.all_links();
    let checks = doctor::checks(&f);
    let name = format!("pcie-link@{}", f.other_links[0].address);
    let check = checks.iter().find(|c| c.name == name).expect("checked");
    // Idle, it may have lowered its speed: said, not failed.
    assert_eq!(check.status, CheckStatus::Unknown);
    assert!(check.detail.contains("read while idle"), "{}", check.detail);
}

#[test]
fn turned_off_telemetry_records_nothing_per_result() {
    let mut off = options("amd-hwmon");
    off.enabled = false;
    let amd = adapter("AMD Radeon RX 7900 XTX", 0x1002, 0x744c);
    let telemetry = Telemetry::for_adapter(&amd, &off).expect("opens");
    telemetry.begin("x");
    assert_eq!(telemetry.end(), None);
    assert_eq!(telemetry.status().0, TelemetryStatus::Off);
}

#[test]
fn an_nvidia_adapter_without_nvml_is_unavailable_never_an_error() {
    match gpubench_telemetry::open_source(&h200(), &root("no-such-tree")) {
        // Where the library is installed but the device is absent or not matched, NVML says so.
        Opened::Unavailable(reason) => assert!(reason.contains("NVML"), "{reason}"),
        Opened::Source(source) => assert_eq!(source.name(), "nvml"),
        Opened::NotApplicable(reason) => panic!("a hardware adapter is never n/a: {reason}"),
    }
    let other = adapter("Intel(R) Arc(TM) A770 Graphics", 0x8086, 0x56a0);
    let Opened::Unavailable(reason) = gpubench_telemetry::open_source(&other, &root("x8-in-x16"))
    else {
        panic!("no reader for Intel");
    };
    assert!(reason.contains("0x8086"), "{reason}");
}

/// The H200's first minutes, scripted: three readings at its idle clock, then busy at its top.
fn ramping_h200() -> Telemetry {
    let clock = |mhz: f64| Sensors {
        sm_clock_mhz: Some(mhz),
        ..Default::default()
    };
    let idle = gpubench_telemetry::Reading {
        sensors: clock(345.0),
        throttle_reasons: vec!["gpu-idle".into()],
    };
    let busy = gpubench_telemetry::Reading {
        sensors: clock(1980.0),
        ..Default::default()
    };
    let script = gpubench_telemetry::fake::FakeScript {
        readings: vec![idle.clone(), idle.clone(), idle, busy],
        facts: gpubench_telemetry::DeviceFacts {
            max_sm_clock_mhz: Some(1980.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let source = FakeSource::new(script);
    Telemetry::with_source(&h200(), &options("none"), Opened::Source(Box::new(source)))
        .expect("opens")
}

#[test]
fn the_clocks_settle_once_the_idle_readings_end_and_the_summary_covers_the_samples_only() {
    let telemetry = ramping_h200();
    telemetry.begin("stream/copy/vec4-f32/1GiB");
    let first = std::time::Instant::now();
    let mut said = Vec::new();
    while said.last() != Some(&Some(true)) && first.elapsed() < Duration::from_secs(5) {
        said.push(telemetry.clocks_settled());
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(said.contains(&Some(false)), "{said:?}");
    assert_eq!(said.last(), Some(&Some(true)), "{said:?}");
    telemetry.sampling();
    std::thread::sleep(Duration::from_millis(30));
    let summary = telemetry.end().expect("sampled");
    let clock = summary.sensors.sm_clock_mhz.expect("clock");
    // The warm-up's idle readings are not the clock the samples ran at.
    assert_eq!((clock.min, clock.max), (1980.0, 1980.0));
    assert!(!summary.throttle_reasons.contains(&"gpu-idle".to_string()));
    // Outside a region there is nothing to tell.
    assert_eq!(telemetry.clocks_settled(), None);
}

#[test]
fn a_card_behind_an_on_board_switch_reports_the_slots_narrower_link() {
    // GPU (gen4 x16 to the card's own switch) <- switch downstream <- switch upstream (gen3
    // x4 into the slot) <- root port.
    let devices = pcie::display_devices(&root("navi-behind-switch"));
    assert_eq!(devices.len(), 1, "the bridges are not display devices");
    assert_eq!(pcie::upstream_path(&devices[0].dir).len(), 4);
    let link = link_of("navi-behind-switch", 0x1002, 0x744c);
    assert_eq!(link.address, "0000:03:00.0");
    assert_now_and_best(&link, (3, 4), (4, 16));
    assert_link_check(&link, CheckStatus::Fail, "4 of 16 lanes");
}

#[test]
fn an_instinct_accelerator_is_found_by_its_processing_accelerator_class() {
    let link = link_of("mi300x-accelerator", 0x1002, 0x74a1);
    assert_now_and_best(&link, (5, 16), (5, 16));
    let mi300x = adapter("AMD Instinct MI300X", 0x1002, 0x74a1);
    match gpubench_telemetry::open_source(&mi300x, &root("mi300x-accelerator")) {
        Opened::Source(source) => assert_eq!(source.name(), "amdgpu-sysfs"),
        other => panic!("amdgpu reads an accelerator: {other:?}"),
    }
}

#[test]
fn an_amd_card_reads_its_junction_sensor_and_its_throttling_is_unknown() {
    let amd = adapter("AMD Radeon RX 7900 XTX", 0x1002, 0x744c);
    let telemetry = Telemetry::for_adapter(&amd, &options("navi-behind-switch")).expect("opens");
    let mut f = findings(&telemetry, 10.0, 900.0);
    let load = f.load.clone().expect("sampled");
    // Junction 95 C, not the edge sensor's 60 C.
    assert_eq!(load.sensors.temperature_c.map(|s| s.median), Some(95.0));
    f.adapter = amd.name.clone();
    let checks = doctor::checks(&f);
    let throttling = check_named(&checks, "throttling");
    assert_eq!(throttling.status, CheckStatus::Unknown, "{throttling:?}");
    assert!(
        throttling
            .detail
            .contains("does not report clock-limit reasons"),
        "{}",
        throttling.detail
    );
    // 1500 of 2526 MHz at 99% busy is still flagged by the clocks.
    assert_eq!(status_of(&checks, "clocks"), CheckStatus::Warn);
}

#[test]
fn a_mapped_upload_is_not_judged_against_the_link() {
    let mut card = h200();
    card.pci_bus_id = Some("0000:01:00.0".to_string());
    let telemetry = scripted("fake-nvml-healthy.json", "healthy-gen4-x16", &card);
    let mut f = findings(&telemetry, 10.81, 4300.0);
    f.h2d_path = "h2d-mapped-staging".to_string();
    let checks = doctor::checks(&f);
    let h2d = check_named(&checks, "h2d-vs-link");
    assert_eq!(h2d.status, CheckStatus::Unknown, "{h2d:?}");
    assert!(
        h2d.detail.contains("host's stores into mapped memory"),
        "{}",
        h2d.detail
    );
    assert!(!h2d.detail.contains('%') && h2d.action.is_none(), "{h2d:?}");
}
