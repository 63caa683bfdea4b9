//! Datasheet figures (`data/nominal-gpus.json`, compiled in) matched to the adapter, and the
//! measured results as percentages of them: stream bandwidth of the memory bandwidth, FMA peaks
//! and matmul of the FP32/FP16 peaks, cooperative-matrix matmul of the FP16 matrix-unit peak,
//! host-device transfers whose bytes cross the link of the PCIe link's nominal bandwidth.
//! Where no row matches, or the row's figure may belong to another model sharing its name and
//! id, nothing is added: no result ever shows a guess.

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
    /// Figures (by field name, `memory_bandwidth_gbs`) that a cheaper model sharing this row's
    /// name and device id does not reach (an 8 GB Arc A770, a 30-core M3 Max): the adapter
    /// cannot tell which model it is, so these are never claimed for it.
    #[serde(default)]
    pub ambiguous: Vec<String>,
    /// Where the figures come from.
    pub source: String,
}

/// The figures a row may leave [`Card::ambiguous`].
pub const AMBIGUOUS_FIELDS: [&str; 6] = [
    "memory_bandwidth_gbs",
    "fp32_tflops",
    "fp16_tflops",
    "fp16_tensor_tflops",
    "fp64_tflops",
    "int8_tensor_tops",
];

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

/// The row's figures, less those it marks [`Card::ambiguous`].
fn figures(card: &Card, matched_by: &str) -> NominalFigures {
    let sure = |field: &str, value: Option<f64>| {
        value.filter(|_| !card.ambiguous.iter().any(|a| a == field))
    };
    NominalFigures {
        name: card.name.clone(),
        matched_by: matched_by.to_string(),
        memory_bandwidth_gbs: sure("memory_bandwidth_gbs", card.memory_bandwidth_gbs),
        fp32_tflops: sure("fp32_tflops", card.fp32_tflops),
        fp16_tflops: sure("fp16_tflops", card.fp16_tflops),
        fp16_tensor_tflops: sure("fp16_tensor_tflops", card.fp16_tensor_tflops),
        fp64_tflops: sure("fp64_tflops", card.fp64_tflops),
        int8_tensor_tops: sure("int8_tensor_tops", card.int8_tensor_tops),
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
        // A cooperative-matrix kernel runs on the matrix units, whose peak is a different
        // figure (989 against 134 TFLOP/s of FP16 on an H100 SXM); its emulated twin does not.
        ("matmul", MetricKind::Throughput) if on_matrix_units(param("variant")) => {
            match param("precision") {
                Some("f16") => Some(("fp16_tensor_tflops", nominal.fp16_tensor_tflops? * 1e3)),
                _ => None,
            }
        }
        ("matmul", MetricKind::Throughput) => peak(param("accumulation")),
        _ => None,
    }
}

/// Whether the matmul `variant` runs on the matrix units: a cooperative-matrix variant
/// (`coop16x16-sg32-w2x2-bk16-db`), not its emulated twin.
fn on_matrix_units(variant: Option<&str>) -> bool {
    variant.is_some_and(|v| v.starts_with("coop") && !v.split('-').any(|part| part == "emulated"))
}

/// Whether a transfer row's bytes cross the link, as its params say: only a row the suite found
/// crossing (`crosses_link: true`), and never the host's write into mapped memory alone
/// (`measures: host-write`, paced by the CPU's stores). A row whose buffers lie on one side
/// (`crosses_link: false`: with a large BAR the staging copy runs between two buffers in device
/// memory, 672% of the link) is not compared, and neither is one whose placement is not known
/// (no `crosses_link`: a buffer over half a classic BAR, DX12's upload heap), which might be
/// either.
fn crosses_link(result: &BenchResult) -> bool {
    let param = |key: &str| result.params.get(key);
    let host_write = param("measures").and_then(|v| v.as_str()) == Some("host-write");
    let crosses = param("crosses_link").and_then(serde_json::Value::as_bool) == Some(true);
    !host_write && crosses
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
    let transfer = result.suite == "transfer"
        && result.metric == MetricKind::Bandwidth
        && crosses_link(result);
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
    use std::collections::BTreeMap;

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
            for field in &card.ambiguous {
                assert!(
                    AMBIGUOUS_FIELDS.contains(&field.as_str()),
                    "{}: {field} is no figure",
                    card.name
                );
            }
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

    /// A matmul row of `variant` over `precision` data with `accumulation`, measured at `v`.
    fn matmul(variant: &str, precision: &str, accumulation: &str, v: f64) -> BenchResult {
        let params = [
            ("variant", variant),
            ("precision", precision),
            ("accumulation", accumulation),
        ];
        ok("matmul/x", "matmul", MetricKind::Throughput, &params, v)
    }

    #[test]
    fn cooperative_matrix_rows_are_compared_with_the_matrix_unit_peak() {
        let table = table().expect("parses");
        let h200 = find(&table, 0x10de, 0x2335, "NVIDIA H200").expect("h200");
        let mut coop = matmul("coop16x16-sg32-w2x2-bk16-db", "f16", "f16", 494_750.0);
        annotate(&mut coop, Some(&h200), None);
        assert_eq!(coop.extra["nominal_figure"], "fp16_tensor_tflops");
        assert_eq!(coop.extra["pct_of_nominal"], 50.0);
        // The emulated twin runs on the vector units: the vector FP16 peak.
        let mut emulated = matmul("coop16x16-sg32-w2x4-bk32-db-emulated", "f16", "f16", 1.0);
        annotate(&mut emulated, Some(&h200), None);
        assert_eq!(emulated.extra["nominal_figure"], "fp16_tflops");
        // No matrix-unit figure: no percentage, never the vector peak in its place.
        let vector_only = NominalFigures {
            fp16_tensor_tflops: None,
            ..h200.clone()
        };
        let mut coop = matmul("coop16x16-sg32-w2x2-bk16-db-acc32", "f16", "f32", 1.0);
        annotate(&mut coop, Some(&vector_only), None);
        assert!(
            !coop.extra.contains_key("pct_of_nominal"),
            "{:?}",
            coop.extra
        );
        let mut tiled = matmul("unrolled16x16", "f32", "f32", 1.0);
        annotate(&mut tiled, Some(&h200), None);
        assert_eq!(tiled.extra["nominal_figure"], "fp32_tflops");
    }

    fn gen5_x16() -> PcieLink {
        gpubench_baseline::testing::gen5_x16_link("pci-bus-id")
    }

    /// A host-to-device transfer row with `params` measured at `v`, annotated on a gen5 x16
    /// link: its extras.
    fn h2d_on_gen5(params: &[(&str, &str)], v: f64) -> BTreeMap<String, serde_json::Value> {
        let mut all = vec![("direction", "h2d")];
        all.extend_from_slice(params);
        let mut row = ok("transfer/x", "transfer", MetricKind::Bandwidth, &all, v);
        annotate(&mut row, None, Some(&gen5_x16()));
        row.extra
    }

    #[test]
    fn a_transfer_that_may_never_leave_the_device_is_not_compared_with_the_link() {
        let mut on_device = ok(
            "transfer/h2d-staging-copy/bytes/256MiB",
            "transfer",
            MetricKind::Bandwidth,
            &[("direction", "h2d"), ("measures", "copy-engine")],
            423.0,
        );
        on_device.params.insert("crosses_link".into(), false.into());
        annotate(&mut on_device, None, Some(&gen5_x16()));
        assert!(
            !on_device.extra.contains_key("pct_of_link"),
            "{:?}",
            on_device.extra
        );
        let mut over_link = on_device.clone();
        over_link.extra.clear();
        over_link.params.insert("crosses_link".into(), true.into());
        annotate(&mut over_link, None, Some(&gen5_x16()));
        assert!(over_link.extra.contains_key("pct_of_link"));
        // A row whose placement the suite could not tell (no `crosses_link`) might be either,
        // and is not compared; a host write alone never is.
        let unknown = h2d_on_gen5(&[("measures", "copy-engine")], 31.5);
        assert!(!unknown.contains_key("pct_of_link"), "{unknown:?}");
        assert!(!h2d_on_gen5(&[("measures", "host-write")], 1.0).contains_key("pct_of_link"));
    }

    #[test]
    fn a_figure_a_cheaper_model_of_the_same_name_misses_is_never_claimed() {
        let table = table().expect("parses");
        for (vendor, device, name) in [
            (0x8086, 0x56a0, "Intel(R) Arc(TM) A770 Graphics"),
            (0, 0, "Apple M3 Max"),
            (0, 0, "Apple M4 Max"),
        ] {
            let row = find(&table, vendor, device, name).expect(name);
            assert_eq!(row.memory_bandwidth_gbs, None, "{name}: {row:?}");
            let mut stream = ok("stream/triad", "stream", MetricKind::Bandwidth, &[], 1.0);
            stream.role = Role::Kernel;
            annotate(&mut stream, Some(&row), None);
            assert!(!stream.extra.contains_key("pct_of_nominal"), "{name}");
        }
        // A row without the mark keeps its figure.
        let m2 = find(&table, 0, 0, "Apple M2 Max").expect("m2 max");
        assert_eq!(m2.memory_bandwidth_gbs, Some(400.0));
    }
}
