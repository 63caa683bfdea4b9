//! Small fixed result documents for tests (this crate's and, through the `testing` feature, the
//! report's and the CLI's). Not part of the stable API.

use std::collections::BTreeMap;
use std::time::Duration;

use gpubench_results::AdapterSummary;
use gpubench_results::schema::{MachineInfo, RunConfig, SCHEMA_VERSION, ToolInfo, fingerprint};
use gpubench_results::stats::summarize;
use gpubench_results::telemetry::{
    PcieLink, RunTelemetry, Spread, TelemetryPoint, TelemetryStatus, TelemetrySummary,
};
use gpubench_results::{
    BenchResult, BenchmarkInfo, MetricKind, RunDocument, RunSettings, Status, TimingSource, Work,
};

/// Twenty samples around `center`, spread about ±1% in a fixed pattern.
pub fn samples_around(center: f64) -> Vec<f64> {
    (0..20)
        .map(|i| center * (1.0 + 0.01 * (((i * 7) % 11) as f64 - 5.0) / 5.0))
        .collect()
}

/// An ok result with samples around `center`.
pub fn ok_result(id: &str, metric: &str, unit: &str, center: f64) -> BenchResult {
    let samples = samples_around(center);
    let suite = id.split('/').next().unwrap_or("stream");
    let kind: MetricKind = metric.parse().expect("a known metric");
    let mut result = BenchResult::empty(&BenchmarkInfo::new(id, suite, kind, ""), Status::Ok, None);
    result.unit = unit.to_string();
    result.verified = true;
    result.timing = Some(TimingSource::GpuTimestamp);
    result.work = Work::bytes(1 << 20, 1 << 20);
    result.iterations_per_sample = 10;
    result.summary = summarize(&samples);
    result.samples = samples;
    result
}

/// A result that did not produce a number.
pub fn not_ok_result(id: &str, status: Status, reason: &str) -> BenchResult {
    let mut result = ok_result(id, "bandwidth", "GB/s", 1.0);
    result.status = status;
    result.reason = Some(reason.to_string());
    result.verified = false;
    result.timing = None;
    result.summary = None;
    result.samples.clear();
    result
}

/// A complete document on a made-up adapter (`name`), software or not, with two ok results:
/// a bandwidth (higher is better) and a time per operation (lower is better).
pub fn doc_with(name: &str, software: bool) -> RunDocument {
    let adapter = AdapterSummary {
        index: 0,
        name: name.to_string(),
        vendor_id: if software { 0x10005 } else { 0x10de },
        device_id: if software { 0 } else { 0x2335 },
        device_type: if software { "cpu" } else { "discrete" }.to_string(),
        driver: "test-driver".to_string(),
        driver_info: "1.0".to_string(),
        backend: "vulkan".to_string(),
        software,
        limits: BTreeMap::new(),
        features: Vec::new(),
    };
    let machine = MachineInfo {
        fingerprint: fingerprint(&adapter),
        adapter,
        software_adapter: software,
        features_enabled: Vec::new(),
        os: "Linux".to_string(),
        cpu_model: "Test CPU".to_string(),
        hostname: None,
        cpu_count: 8,
        wgpu_version: "30.0.2".to_string(),
        build_profile: "release".to_string(),
        instance_flags: "InstanceFlags(0x0)".to_string(),
        timing_source: TimingSource::GpuTimestamp,
        timestamp_period_ns: Some(1.0),
    };
    RunDocument {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: "gpubench".to_string(),
            version: "0.1.0".to_string(),
            git_commit: None,
        },
        machine,
        config: RunConfig {
            profile: "quick".to_string(),
            // The suites its results are of, as a run records them.
            suites: vec!["stream".to_string(), "launch".to_string()],
            settings: RunSettings {
                target_sample: Duration::from_millis(5),
                max_sample: Duration::from_millis(50),
                warmup: Duration::from_millis(100),
                min_warmup_samples: 3,
                min_samples: 20,
                max_samples: 20,
                target_cv: 0.01,
                max_time: Duration::from_secs(1),
                seed: 1,
            },
            options: BTreeMap::new(),
            log_filter: None,
        },
        started_at: "2026-01-01T00:00:00Z".to_string(),
        finished_at: Some("2026-01-01T00:01:00Z".to_string()),
        complete: true,
        warnings: Vec::new(),
        results: vec![
            ok_result("stream/triad/vec4-f32/64MiB", "bandwidth", "GB/s", 800.0),
            ok_result("launch/dispatch/1", "time-per-op", "us", 4.0),
        ],
        telemetry: None,
        noise: None,
    }
}

/// Sampled telemetry of three readings half a second apart: the graphics clock falling from
/// 1980 MHz (the device's maximum) to 1200 MHz while the last two, at 90 degrees C, report
/// `hw-thermal-slowdown`. No driver, link or datasheet row.
pub fn sampled_telemetry() -> RunTelemetry {
    let throttle = "hw-thermal-slowdown".to_string();
    let point = |t_s: f64, mhz: f64, hot: bool| TelemetryPoint {
        t_s,
        sm_clock_mhz: Some(mhz),
        temperature_c: Some(if hot { 90.0 } else { 60.0 }),
        power_w: None,
        throttle_reasons: if hot {
            vec![throttle.clone()]
        } else {
            Vec::new()
        },
    };
    let mut totals = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
    totals.readings = 3;
    totals.sensors.sm_clock_mhz = Spread::of(&[1980.0, 1500.0, 1200.0]);
    totals.throttle_reasons = vec![throttle.clone()];
    RunTelemetry {
        totals,
        trace: vec![
            point(0.0, 1980.0, false),
            point(0.5, 1500.0, true),
            point(1.0, 1200.0, true),
        ],
        max_sm_clock_mhz: Some(1980.0),
        max_memory_clock_mhz: None,
        driver_version: None,
        link: None,
        nominal: None,
    }
}

/// An H200's PCIe link (NVIDIA 0x2335 at 0000:01:00.0), running at its full gen5 x16: 63 GB/s
/// nominal each way. Matched by `matched_by`.
pub fn gen5_x16_link(matched_by: &str) -> PcieLink {
    PcieLink {
        address: "0000:01:00.0".into(),
        vendor_id: 0x10de,
        device_id: 0x2335,
        matched_by: matched_by.into(),
        current_speed_gts: Some(32.0),
        current_width: Some(16),
        max_speed_gts: Some(32.0),
        max_width: Some(16),
        current_generation: Some(5),
        max_generation: Some(5),
        current_nominal_gbs: Some(63.0),
        max_nominal_gbs: Some(63.0),
    }
}

/// `result` timed by GPU timestamps, with host-clock samples beside them `host_factor` times
/// its own (the submit and the wait the host clock adds).
pub fn gpu_timed(result: &mut BenchResult, host_factor: f64) {
    result.timing = Some(gpubench_results::TimingSource::GpuTimestamp);
    result.host_samples = result.samples.iter().map(|s| s * host_factor).collect();
}

/// `result`, timed as [`gpu_timed`] leaves it, as a run that lost its timestamps has it: timed
/// by the host clock alone, its host-clock samples `slowdown` times slower its only samples.
pub fn lost_timestamps(result: &mut BenchResult, slowdown: f64) {
    result.timing = Some(gpubench_results::TimingSource::Host);
    result.samples = result.host_samples.iter().map(|s| s * slowdown).collect();
    result.host_samples.clear();
    result.summary = summarize(&result.samples);
}

/// `doc` with every ok result made `slowdown` times slower: times multiplied, rates divided.
pub fn scaled(doc: &RunDocument, slowdown: f64) -> RunDocument {
    let mut out = doc.clone();
    for result in &mut out.results {
        let factor = if result.higher_is_better {
            1.0 / slowdown
        } else {
            slowdown
        };
        for sample in &mut result.samples {
            *sample *= factor;
        }
        if result.status == Status::Ok {
            result.summary = summarize(&result.samples);
        }
    }
    out
}

/// `doc` with every value twice as large (samples and their summary), whichever way its metric
/// points.
pub fn doubled(doc: &RunDocument) -> RunDocument {
    let mut out = doc.clone();
    for r in &mut out.results {
        for sample in &mut r.samples {
            *sample *= 2.0;
        }
        r.summary = summarize(&r.samples);
    }
    out
}

/// The results file of a newer gpubench, with a metric kind and a warning kind this one does
/// not know (`gpubench-results/tests/fixtures/unknown-kinds.json`).
pub fn unknown_kinds_fixture() -> RunDocument {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpubench-results/tests/fixtures/unknown-kinds.json");
    gpubench_results::results_file::load_document(&path).unwrap_or_else(|e| panic!("{e}"))
}
