//! Datasheet figures (`data/nominal-gpus.json`, compiled in) matched to the adapter, and the
//! measured results as percentages of them: stream bandwidth of the memory bandwidth, FMA peaks
//! and matmul of the FP32/FP16 peaks, host-device transfers of the PCIe link's nominal
//! bandwidth. Where no row matches nothing is added: no result ever shows a guess.

use gpubench_harness::{BenchResult, MetricKind, Role, Status};
use gpubench_results::telemetry::{NominalFigures, PcieLink};
use serde::Deserialize;

use crate::TelemetryError;

/// The curated table, as shipped.
pub const TABLE_JSON: &str = include_str!("../../../data/nominal-gpus.json");

/// The table file.
#[derive(Debug, Clone, Deserialize)]
pub struct Table {
    /// Every card.
    pub cards: Vec<Card>,
}

/// One card's row.
#[derive(Debug, Clone, Deserialize)]
pub struct Card {
    /// Card name.
    pub name: String,
    /// PCI vendor id, hexadecimal.
    pub vendor_id: Option<String>,
    /// PCI device ids, hexadecimal.
    #[serde(default)]
    pub device_ids: Vec<String>,
    /// Whether the device id is shared with other cards (then the name must match too).
    #[serde(default)]
    pub device_id_shared: bool,
    /// Lower-case name patterns, matched as whole words in the adapter's name.
    #[serde(default)]
    pub names: Vec<String>,
    /// Memory bandwidth, GB/s.
    pub memory_bandwidth_gbs: Option<f64>,
    /// FP32 peak without tensor units, TFLOP/s.
    pub fp32_tflops: Option<f64>,
    /// FP16 peak without tensor units, TFLOP/s.
    pub fp16_tflops: Option<f64>,
    /// Dense FP16 tensor peak with FP32 accumulation, TFLOP/s.
    pub fp16_tensor_tflops: Option<f64>,
    /// FP64 peak without tensor units, TFLOP/s.
    pub fp64_tflops: Option<f64>,
    /// Dense INT8 tensor peak, 10^12 operations/s.
    pub int8_tensor_tops: Option<f64>,
    /// PCIe generation.
    pub pcie_generation: Option<u8>,
    /// Where the figures come from.
    pub source: String,
}

/// The shipped table.
pub fn table() -> Result<Table, TelemetryError> {
    serde_json::from_str(TABLE_JSON).map_err(TelemetryError::Table)
}

fn hex(text: &str) -> Option<u32> {
    u32::from_str_radix(text.trim().trim_start_matches("0x"), 16).ok()
}

/// Whether `pattern` occurs in `name` (both lower case) bounded by non-alphanumerics.
fn contains_word(name: &str, pattern: &str) -> bool {
    name.match_indices(pattern).any(|(at, _)| {
        let before = name[..at].chars().next_back();
        let after = name[at + pattern.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric())
            && !after.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// The row for an adapter: by vendor and device id (with the name too where the id is shared),
/// else by the longest name pattern found in its name.
pub fn find(table: &Table, vendor_id: u32, device_id: u32, name: &str) -> Option<NominalFigures> {
    let name = name.to_lowercase();
    let name_len = |card: &Card| {
        card.names
            .iter()
            .filter(|p| contains_word(&name, p))
            .map(String::len)
            .max()
    };
    let id_match = |card: &Card| {
        card.vendor_id.as_deref().and_then(hex) == Some(vendor_id)
            && card.device_ids.iter().any(|d| hex(d) == Some(device_id))
            && (!card.device_id_shared || name_len(card).is_some())
    };
    if let Some(card) = table.cards.iter().find(|c| id_match(c)) {
        return Some(figures(card, "device-id"));
    }
    table
        .cards
        .iter()
        .filter_map(|card| Some((name_len(card)?, card)))
        .max_by_key(|(len, _)| *len)
        .map(|(_, card)| figures(card, "name"))
}

fn figures(card: &Card, matched_by: &str) -> NominalFigures {
    NominalFigures {
        name: card.name.clone(),
        matched_by: matched_by.to_string(),
        memory_bandwidth_gbs: card.memory_bandwidth_gbs,
        fp32_tflops: card.fp32_tflops,
        fp16_tflops: card.fp16_tflops,
        fp16_tensor_tflops: card.fp16_tensor_tflops,
        fp64_tflops: card.fp64_tflops,
        int8_tensor_tops: card.int8_tensor_tops,
        pcie_generation: card.pcie_generation,
        source: card.source.clone(),
    }
}

/// What a result is compared with: the figure's name and its value in the result's unit.
fn nominal_for(result: &BenchResult, nominal: &NominalFigures) -> Option<(&'static str, f64)> {
    let param = |key: &str| result.params.get(key).and_then(|v| v.as_str());
    let peak = |precision: Option<&str>| match precision {
        Some("f32") => Some(("fp32_tflops", nominal.fp32_tflops? * 1e3)),
        Some("f16") => Some(("fp16_tflops", nominal.fp16_tflops? * 1e3)),
        Some("f64") => Some(("fp64_tflops", nominal.fp64_tflops? * 1e3)),
        _ => None,
    };
    match (result.suite.as_str(), result.metric) {
        ("stream", MetricKind::Bandwidth) if result.role == Role::Kernel => {
            Some(("memory_bandwidth_gbs", nominal.memory_bandwidth_gbs?))
        }
        ("compute", MetricKind::Throughput) if param("kernel") == Some("fma-peak") => {
            peak(param("precision"))
        }
        ("matmul", MetricKind::Throughput) => peak(param("accumulation")),
        _ => None,
    }
}

/// Adds `pct_of_nominal` (and the figure compared with) to an ok result that has a matching
/// datasheet figure, and `pct_of_link` to a host-device transfer when the link is known.
pub fn annotate(
    result: &mut BenchResult,
    nominal: Option<&NominalFigures>,
    link: Option<&PcieLink>,
) {
    let Some(median) = result.median() else {
        return;
    };
    if result.status != Status::Ok {
        return;
    }
    if let Some((figure, value)) = nominal.and_then(|n| nominal_for(result, n)) {
        result.extra.insert("nominal_figure".into(), figure.into());
        result.extra.insert("nominal_value".into(), value.into());
        result
            .extra
            .insert("pct_of_nominal".into(), (100.0 * median / value).into());
    }
    // The host's memcpy into mapped memory alone never crosses the link.
    let over_link = result.params.get("measures").and_then(|v| v.as_str()) != Some("host-write");
    let transfer =
        result.suite == "transfer" && result.metric == MetricKind::Bandwidth && over_link;
    let direction = result.params.get("direction").and_then(|v| v.as_str());
    let link_gbs = link.and_then(|l| l.current_nominal_gbs);
    if let (true, Some("h2d" | "d2h"), Some(gbs)) = (transfer, direction, link_gbs) {
        result.extra.insert("link_nominal_gbs".into(), gbs.into());
        result
            .extra
            .insert("pct_of_link".into(), (100.0 * median / gbs).into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::BenchmarkInfo;
    use gpubench_results::stats::summarize;

    #[test]
    fn the_shipped_table_parses_and_every_row_has_a_source_and_a_figure() {
        let table = table().expect("parses");
        for card in &table.cards {
            assert!(
                !card.source.trim().is_empty(),
                "{} has no source",
                card.name
            );
            assert!(
                card.memory_bandwidth_gbs.is_some() || card.fp32_tflops.is_some(),
                "{} has no figure",
                card.name
            );
            assert!(!card.device_ids.is_empty() || !card.names.is_empty());
        }
        for wanted in [
            "H100", "H200", "A100", "L4", "RTX 3090", "RTX 4090", "RTX 5090",
        ] {
            assert!(
                table.cards.iter().any(|c| c.name.contains(wanted)),
                "{wanted}"
            );
        }
        for wanted in ["MI300X", "RX 7900 XTX", "Arc A770", "Apple M1", "Apple M4"] {
            assert!(
                table.cards.iter().any(|c| c.name.contains(wanted)),
                "{wanted}"
            );
        }
    }

    #[test]
    fn rows_match_by_id_then_by_whole_word_name() {
        let table = table().expect("parses");
        let h200 = find(&table, 0x10de, 0x2335, "NVIDIA H200").expect("h200");
        assert_eq!(
            (h200.name.as_str(), h200.matched_by.as_str()),
            ("NVIDIA H200 SXM 141GB", "device-id")
        );
        // The NVL's name contains the SXM's pattern; its own, longer one wins.
        let nvl = find(&table, 0x10de, 0x233b, "NVIDIA H200 NVL").expect("h200 nvl");
        assert_eq!(
            (nvl.name.as_str(), nvl.fp32_tflops),
            ("NVIDIA H200 NVL 141GB", Some(60.0))
        );
        let max = find(&table, 0, 0, "Apple M2 Max").expect("by name");
        assert_eq!(
            (max.name.as_str(), max.matched_by.as_str()),
            ("Apple M2 Max", "name")
        );
        // "NVIDIA L4" must not match an L40S, and a shared id needs its name.
        assert!(find(&table, 0x10de, 0x26b9, "NVIDIA L40S").is_none());
        assert!(find(&table, 0x1002, 0x744c, "AMD Radeon RX 7900 XT").is_none());
        assert!(find(&table, 0x1002, 0x744c, "AMD Radeon RX 7900 XTX").is_some());
        assert!(find(&table, 0x10005, 0, "llvmpipe (LLVM 19.1.7, 256 bits)").is_none());
    }

    fn ok(
        id: &str,
        suite: &str,
        metric: MetricKind,
        params: &[(&str, &str)],
        v: f64,
    ) -> BenchResult {
        let mut info = BenchmarkInfo::new(id, suite, metric, "test");
        for (k, value) in params {
            info = info.param(k, *value);
        }
        let mut result = BenchResult::empty(&info, Status::Ok, None);
        result.summary = summarize(&[v, v, v]);
        result
    }

    #[test]
    fn results_get_percentages_of_the_matching_figures_only() {
        let table = table().expect("parses");
        let h200 = find(&table, 0x10de, 0x2335, "NVIDIA H200");
        let mut stream = ok("stream/triad", "stream", MetricKind::Bandwidth, &[], 4320.0);
        annotate(&mut stream, h200.as_ref(), None);
        assert_eq!(stream.extra["pct_of_nominal"], 90.0);
        assert_eq!(stream.extra["nominal_figure"], "memory_bandwidth_gbs");
        // A compute row of `kernel` over `form` (precision or type) measured at `v`, annotated
        // against `row`: its extras.
        let compute = |row: Option<&NominalFigures>, kernel: &str, form: (&str, &str), v| {
            let metric = match kernel {
                "dot-peak" => MetricKind::IntThroughput,
                _ => MetricKind::Throughput,
            };
            let id = format!("compute/{kernel}/{}", form.1);
            let mut result = ok(&id, "compute", metric, &[("kernel", kernel), form], v);
            annotate(&mut result, row, None);
            result.extra
        };
        let fma = compute(h200.as_ref(), "fma-peak", ("precision", "f32"), 33500.0);
        assert_eq!(fma["pct_of_nominal"], 50.0);
        // The FP16 non-tensor peak where the table has it; nothing where it has none.
        let half = compute(h200.as_ref(), "fma-peak", ("precision", "f16"), 66900.0);
        assert_eq!(half["pct_of_nominal"], 50.0);
        let h100_pcie = find(&table, 0x10de, 0x2331, "NVIDIA H100 PCIe");
        let half = compute(h100_pcie.as_ref(), "fma-peak", ("precision", "f16"), 1.0);
        assert!(!half.contains_key("pct_of_nominal"));
        // FP64 against the non-tensor FP64 figure; integer rows against nothing (the INT8
        // figure is the tensor units', which a packed dot product does not run on).
        let double = compute(h200.as_ref(), "fma-peak", ("precision", "f64"), 17000.0);
        assert_eq!(double["pct_of_nominal"], 50.0);
        assert_eq!(double["nominal_figure"], "fp64_tflops");
        let dot = compute(h200.as_ref(), "dot-peak", ("type", "i8"), 1.0);
        assert!(!dot.contains_key("pct_of_nominal"));
        assert_eq!(h200.as_ref().and_then(|n| n.int8_tensor_tops), Some(1979.0));
        let mut unmatched = ok("stream/triad", "stream", MetricKind::Bandwidth, &[], 1.0);
        annotate(&mut unmatched, None, None);
        assert!(unmatched.extra.is_empty());
    }
}
