//! Finding adapters on every backend and choosing one.
//!
//! Selection follows what wgpu users already know: `--adapter` / `WGPU_ADAPTER_NAME` (an index
//! into `gpubench list`, or a case-insensitive name substring), `--backend` / `WGPU_BACKEND`
//! (comma list), and `WGPU_POWER_PREF` (low or high). Flags win over the environment.

use std::collections::BTreeMap;

pub use gpubench_results::adapter::AdapterSummary;

use crate::error::HarnessError;

/// Device features gpubench uses when the adapter offers them.
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
    .union(wgpu::Features::SHADER_F16)
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::PIPELINE_CACHE)
    .union(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
    // The compute suite's number types beyond f32 and f16.
    .union(wgpu::Features::SHADER_F64)
    .union(wgpu::Features::SHADER_INT64)
    .union(wgpu::Features::SHADER_I16);

/// The summary of an adapter at position `index` in `gpubench list`.
pub fn summarize(index: usize, adapter: &wgpu::Adapter) -> AdapterSummary {
    let info = adapter.get_info();
    let limits = adapter.limits();
    let software = is_software(&info);
    let features = adapter.features() & interesting_features();
    AdapterSummary {
        index,
        name: info.name.clone(),
        vendor_id: info.vendor,
        device_id: info.device,
        device_type: device_type_name(info.device_type).to_string(),
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
        backend: info.backend.to_str().to_string(),
        software,
        limits: key_limits(&limits, &info),
        features: feature_names(features),
    }
}

/// Features worth showing in listings and results.
pub fn interesting_features() -> wgpu::Features {
    WANTED_FEATURES
}

/// Names of the flags set in `features`, e.g. `TIMESTAMP_QUERY`.
pub fn feature_names(features: wgpu::Features) -> Vec<String> {
    features
        .iter_names()
        .map(|(name, _)| name.to_string())
        .collect()
}

/// Why a device without the features `missing` cannot run a benchmark: the features named
/// and, where the cause is wgpu's and not the device's, that too. In a browser, wgpu 30's
/// WebGPU backend never requests `subgroups` (gfx-rs/wgpu#10146), though Chromium offers it
/// from version 134 on.
pub fn lacking(missing: wgpu::Features) -> String {
    lacking_in(missing, cfg!(target_arch = "wasm32"))
}

/// [`lacking`], in a browser or not.
fn lacking_in(missing: wgpu::Features, browser: bool) -> String {
    let mut why = format!("adapter lacks {}", feature_names(missing).join(", "));
    if browser && missing.contains(wgpu::Features::SUBGROUP) {
        why.push_str(
            ": wgpu 30's WebGPU backend does not request the browser's `subgroups` feature \
             (gfx-rs/wgpu#10146), whether or not the browser offers it",
        );
    }
    why
}

/// The limits gpubench depends on, keyed by wgpu's field names.
pub fn key_limits(limits: &wgpu::Limits, info: &wgpu::AdapterInfo) -> BTreeMap<String, u64> {
    [
        ("max_buffer_size", limits.max_buffer_size),
        (
            "max_storage_buffer_binding_size",
            limits.max_storage_buffer_binding_size,
        ),
        (
            "max_storage_buffers_per_shader_stage",
            u64::from(limits.max_storage_buffers_per_shader_stage),
        ),
        (
            "max_compute_workgroup_storage_size",
            u64::from(limits.max_compute_workgroup_storage_size),
        ),
        (
            "max_compute_invocations_per_workgroup",
            u64::from(limits.max_compute_invocations_per_workgroup),
        ),
        (
            "max_compute_workgroup_size_x",
            u64::from(limits.max_compute_workgroup_size_x),
        ),
        (
            "max_compute_workgroups_per_dimension",
            u64::from(limits.max_compute_workgroups_per_dimension),
        ),
        ("max_immediate_size", u64::from(limits.max_immediate_size)),
        ("subgroup_min_size", u64::from(info.subgroup_min_size)),
        ("subgroup_max_size", u64::from(info.subgroup_max_size)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Short name of a device type.
pub fn device_type_name(device_type: wgpu::DeviceType) -> &'static str {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

/// Software adapters: device type CPU, or a name every software rasteriser is known by.
pub fn is_software(info: &wgpu::AdapterInfo) -> bool {
    info.device_type == wgpu::DeviceType::Cpu || names_a_software_adapter(&info.name)
}

/// Whether `name` is one a software rasteriser is known by (llvmpipe, lavapipe, SwiftShader,
/// Microsoft Basic Render): also asked of a name given later, as a browser's page gives one
/// where WebGPU leaves wgpu's empty.
pub fn names_a_software_adapter(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "llvmpipe",
        "lavapipe",
        "swiftshader",
        "microsoft basic render",
    ]
    .iter()
    .any(|needle| name.contains(needle))
}

/// Parses a backend list such as `vulkan` or `vulkan,gl`.
pub fn parse_backends(text: &str) -> Result<wgpu::Backends, HarnessError> {
    let mut backends = wgpu::Backends::empty();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        backends |= match part.to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "gl" | "gles" | "opengl" => wgpu::Backends::GL,
            _ => return Err(HarnessError::UnknownBackend(part.to_string())),
        };
    }
    if backends.is_empty() {
        return Err(HarnessError::UnknownBackend(text.to_string()));
    }
    Ok(backends)
}

/// Names of the backends in a set, e.g. `vulkan, gl`.
pub fn backend_names(backends: wgpu::Backends) -> String {
    [
        (wgpu::Backends::VULKAN, "vulkan"),
        (wgpu::Backends::METAL, "metal"),
        (wgpu::Backends::DX12, "dx12"),
        (wgpu::Backends::GL, "gl"),
    ]
    .iter()
    .filter(|(flag, _)| backends.contains(*flag))
    .map(|(_, name)| *name)
    .collect::<Vec<_>>()
    .join(", ")
}

/// Every native backend gpubench knows.
pub fn all_backends() -> wgpu::Backends {
    wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12 | wgpu::Backends::GL
}

/// How the user asked for an adapter. Build it with [`Selection::resolve`].
///
/// Flags are strict (an unknown backend is an error); the `WGPU_*` variables mean what they mean
/// to wgpu itself: `WGPU_ADAPTER_NAME` is always a case-insensitive name substring (never an
/// index, so `15` matches "LLVM 15.0.6"), unknown `WGPU_BACKEND` entries and `WGPU_POWER_PREF`
/// values are ignored (wgpu logs and ignores them; here they become [`Selection::notes`]), and
/// `WGPU_POWER_PREF=none` is no preference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Index or name substring.
    pub adapter: Option<String>,
    /// Backend list as given.
    pub backend: Option<String>,
    /// `low`, `high` or `none`.
    pub power: Option<String>,
    /// The adapter came from `WGPU_ADAPTER_NAME`: a name substring only.
    pub adapter_from_env: bool,
    /// The backend list came from `WGPU_BACKEND`: unknown entries are ignored, as wgpu does.
    pub backend_from_env: bool,
}

impl Selection {
    /// Combines flags with the environment: a flag wins over its variable.
    pub fn resolve(adapter_flag: Option<String>, backend_flag: Option<String>) -> Self {
        Self::resolve_with(adapter_flag, backend_flag, |name| std::env::var(name).ok())
    }

    /// [`Selection::resolve`] over any source of variables (tests pass a map).
    pub fn resolve_with(
        adapter_flag: Option<String>,
        backend_flag: Option<String>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let env = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        Self {
            adapter_from_env: adapter_flag.is_none() && env("WGPU_ADAPTER_NAME").is_some(),
            backend_from_env: backend_flag.is_none() && env("WGPU_BACKEND").is_some(),
            adapter: adapter_flag.or_else(|| env("WGPU_ADAPTER_NAME")),
            backend: backend_flag.or_else(|| env("WGPU_BACKEND")),
            power: env("WGPU_POWER_PREF"),
        }
    }

    /// Backends to search.
    pub fn backends(&self) -> Result<wgpu::Backends, HarnessError> {
        match &self.backend {
            Some(text) if self.backend_from_env => {
                // Nothing native in the variable (`webgpu`, a typo): ignored, every backend.
                let (backends, _) = parse_backends_leniently(text);
                Ok(if backends.is_empty() {
                    all_backends()
                } else {
                    backends
                })
            }
            Some(text) => parse_backends(text),
            None => Ok(all_backends()),
        }
    }

    /// Whether the high-power ranking is inverted (`WGPU_POWER_PREF=low`).
    fn low_power(&self) -> bool {
        self.power
            .as_deref()
            .is_some_and(|p| matches!(p.trim().to_ascii_lowercase().as_str(), "low" | "low-power"))
    }

    /// What the environment asked for that wgpu would ignore, one line each, for the caller to
    /// show as warnings.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let (Some(text), true) = (&self.backend, self.backend_from_env) {
            let (backends, ignored) = parse_backends_leniently(text);
            for part in ignored {
                notes.push(format!(
                    "WGPU_BACKEND: '{part}' ignored (gpubench measures vulkan, metal, dx12 and gl)"
                ));
            }
            if backends.is_empty() {
                notes.push(format!(
                    "WGPU_BACKEND='{text}' names no native backend: searching every backend"
                ));
            }
        }
        if let Some(power) = &self.power {
            let known = ["low", "low-power", "high", "high-performance", "none"];
            if !known.contains(&power.trim().to_ascii_lowercase().as_str()) {
                notes.push(format!(
                    "WGPU_POWER_PREF: '{power}' ignored, as wgpu ignores it (use low, high or none)"
                ));
            }
        }
        notes
    }

    /// Where a search over `backends` looked, for the no-adapter message.
    fn searched(&self, backends: wgpu::Backends) -> String {
        match (&self.backend, self.backend_from_env) {
            (None, _) => "on any backend".to_string(),
            (Some(_), from_env) => format!(
                "on {} {}{}",
                if backends.bits().count_ones() > 1 {
                    "backends"
                } else {
                    "backend"
                },
                backend_names(backends),
                if from_env { " (from WGPU_BACKEND)" } else { "" }
            ),
        }
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.adapter {
            parts.push(format!("adapter '{a}'"));
        }
        if let Some(b) = &self.backend {
            parts.push(format!("backend '{b}'"));
        }
        if parts.is_empty() {
            "the default selection".to_string()
        } else {
            parts.join(" and ")
        }
    }
}

/// A `WGPU_BACKEND` list read as wgpu reads it: the native backends named, and the entries that
/// are ignored (unknown names, and `webgpu`/`noop`, which are no native backend to measure).
pub fn parse_backends_leniently(text: &str) -> (wgpu::Backends, Vec<String>) {
    let mut backends = wgpu::Backends::empty();
    let mut ignored = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match parse_backends(part) {
            Ok(b) => backends |= b,
            Err(_) => ignored.push(part.to_string()),
        }
    }
    (backends, ignored)
}

/// The instance flags gpubench uses: wgpu's build-configuration defaults (validation in debug
/// builds, none in release) adjusted by `WGPU_VALIDATION` / `WGPU_DEBUG`. Recorded in results.
pub fn instance_flags() -> wgpu::InstanceFlags {
    wgpu::InstanceFlags::from_build_config().with_env()
}

/// A wgpu instance over `backends`.
pub fn create_instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    desc.flags = instance_flags();
    // WGPU_DX12_COMPILER, WGPU_GLES_MINOR_VERSION and the other backend options, as wgpu reads
    // them; the backend set is not taken from the environment here, since a flag wins over it.
    desc.backend_options = wgpu::BackendOptions::from_env_or_default();
    wgpu::Instance::new(desc)
}

/// Every adapter on `backends`, in a stable order (Vulkan, Metal, DX12, GL; driver order within).
/// Native-only: it blocks, which a browser page (wasm32) must not; see [`enumerate_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn enumerate(instance: &wgpu::Instance, backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    pollster::block_on(enumerate_async(instance, backends))
}

/// [`enumerate`] as a future (WebGPU answers with the one adapter the browser offers).
pub async fn enumerate_async(
    instance: &wgpu::Instance,
    backends: wgpu::Backends,
) -> Vec<wgpu::Adapter> {
    let mut adapters = instance.enumerate_adapters(backends).await;
    adapters.sort_by_key(|a| backend_rank(a.get_info().backend));
    adapters
}

fn backend_rank(backend: wgpu::Backend) -> u8 {
    match backend {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 3,
        _ => 4,
    }
}

fn type_rank(device_type: wgpu::DeviceType, low_power: bool) -> u8 {
    use wgpu::DeviceType::*;
    match (device_type, low_power) {
        (DiscreteGpu, false) | (IntegratedGpu, true) => 0,
        (IntegratedGpu, false) | (DiscreteGpu, true) => 1,
        (VirtualGpu, _) => 2,
        (Other, _) => 3,
        (Cpu, _) => 4,
    }
}

/// `backends` and every backend listed before the last of them (Vulkan, Metal, DX12, GL), so
/// that positions in the enumeration are the indices `gpubench list` shows (`--backend gl`
/// finds llvmpipe GL at `[1]` after Vulkan's `[0]`, not at 0) without probing a backend listed
/// after all of them (GL, slow and noisy on headless machines, only when asked for).
fn with_earlier_backends(backends: wgpu::Backends) -> wgpu::Backends {
    let order = [
        wgpu::Backends::VULKAN,
        wgpu::Backends::METAL,
        wgpu::Backends::DX12,
        wgpu::Backends::GL,
    ];
    let last = order.iter().rposition(|b| backends.contains(*b));
    order
        .iter()
        .take(last.map_or(0, |i| i + 1))
        .fold(backends, |all, b| all | *b)
}

/// Summaries of every adapter on every backend gpubench knows (for `gpubench list`).
#[cfg(not(target_arch = "wasm32"))]
pub fn list_adapters() -> Vec<AdapterSummary> {
    let instance = create_instance(all_backends());
    enumerate(&instance, all_backends())
        .iter()
        .enumerate()
        .map(|(i, a)| summarize(i, a))
        .collect()
}

/// Chooses the adapter `selection` asks for. Indices refer to the full listing (all backends),
/// so `--adapter 2` means the same adapter as `[2]` in `gpubench list`. Blocks: native-only
/// (see [`select_adapter_async`]).
#[cfg(not(target_arch = "wasm32"))]
pub fn select_adapter(
    selection: &Selection,
) -> Result<(wgpu::Instance, wgpu::Adapter, AdapterSummary), HarnessError> {
    pollster::block_on(select_adapter_async(selection))
}

/// [`select_adapter`] as a future, for a browser page (wasm32), which must not block.
pub async fn select_adapter_async(
    selection: &Selection,
) -> Result<(wgpu::Instance, wgpu::Adapter, AdapterSummary), HarnessError> {
    let backends = selection.backends()?;
    let low_power = selection.low_power();
    // An index refers to the full listing, so enumerate everything; otherwise only the backends
    // asked for (probing GL without a display is slow and noisy on headless machines).
    let index = selection
        .adapter
        .as_deref()
        .filter(|_| !selection.adapter_from_env)
        .and_then(|a| a.trim().parse::<usize>().ok());
    let searched = if index.is_some() {
        all_backends()
    } else {
        with_earlier_backends(backends)
    };
    let instance = create_instance(searched);
    let adapters = enumerate_async(&instance, searched).await;
    if !adapters
        .iter()
        .any(|a| backends.contains(wgpu::Backends::from(a.get_info().backend)))
    {
        return Err(HarnessError::NoAdapters {
            searched: selection.searched(backends),
        });
    }
    let summaries: Vec<AdapterSummary> = adapters
        .iter()
        .enumerate()
        .map(|(i, a)| summarize(i, a))
        .collect();

    let mut candidates: Vec<usize> = (0..adapters.len())
        .filter(|&i| backends.contains(wgpu::Backends::from(adapters[i].get_info().backend)))
        .collect();
    if let Some(wanted) = selection.adapter.as_deref().map(str::trim) {
        candidates.retain(|&i| match index {
            Some(index) => index == i,
            None => summaries[i]
                .name
                .to_ascii_lowercase()
                .contains(&wanted.to_ascii_lowercase()),
        });
    }
    // Best first: by device type for the power preference, then native backends before GL.
    candidates.sort_by_key(|&i| {
        let info = adapters[i].get_info();
        (
            type_rank(info.device_type, low_power),
            backend_rank(info.backend),
            i,
        )
    });
    let Some(&chosen) = candidates.first() else {
        let found = summaries
            .iter()
            .map(|s| format!("  {}", s.listing_line()))
            .collect::<Vec<_>>();
        return Err(HarnessError::NoMatch {
            selection: selection.describe(),
            found: found.join("\n"),
        });
    };
    let summary = summaries[chosen].clone();
    let adapter = adapters
        .into_iter()
        .nth(chosen)
        .ok_or_else(|| HarnessError::NoAdapters {
            searched: selection.searched(backends),
        })?;
    Ok((instance, adapter, summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_software_rasteriser_is_known_by_the_name_a_page_gives_it() {
        // What the page makes of GPUAdapterInfo for Chrome's fallback adapter.
        assert!(names_a_software_adapter("google swiftshader (WebGPU)"));
        assert!(names_a_software_adapter("llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(!names_a_software_adapter("nvidia ampere (WebGPU)"));
    }

    #[test]
    fn backends_parse_from_names_and_lists() {
        assert_eq!(parse_backends("vulkan").ok(), Some(wgpu::Backends::VULKAN));
        assert_eq!(
            parse_backends("Vulkan, gl").ok(),
            Some(wgpu::Backends::VULKAN | wgpu::Backends::GL)
        );
        assert!(
            matches!(parse_backends("cuda"), Err(HarnessError::UnknownBackend(b)) if b == "cuda")
        );
        assert!(parse_backends(" , ").is_err());
    }

    #[test]
    fn a_backend_is_searched_with_those_listed_before_it_so_indices_match_the_listing() {
        use wgpu::Backends as B;
        assert_eq!(with_earlier_backends(B::VULKAN), B::VULKAN);
        assert_eq!(with_earlier_backends(B::GL), all_backends());
        assert_eq!(with_earlier_backends(B::METAL), B::VULKAN | B::METAL);
    }

    #[test]
    fn a_wgpu_backend_with_nothing_native_is_ignored_with_a_warning() {
        let env = |value: &'static str| {
            move |name: &str| (name == "WGPU_BACKEND").then(|| value.to_string())
        };
        let webgpu = Selection::resolve_with(None, None, env("webgpu"));
        assert_eq!(webgpu.backends().ok(), Some(all_backends()));
        let notes = webgpu.notes();
        assert!(
            notes.iter().any(|n| n.contains("'webgpu' ignored")),
            "{notes:?}"
        );
        assert!(
            notes.iter().any(|n| n.contains("searching every backend")),
            "{notes:?}"
        );
        let metal = Selection::resolve_with(None, None, env("metal"));
        assert_eq!(
            metal.searched(wgpu::Backends::METAL),
            "on backend metal (from WGPU_BACKEND)"
        );
        assert_eq!(
            Selection::default().searched(all_backends()),
            "on any backend"
        );
        let flag = Selection::resolve_with(None, Some("vulkan,gl".into()), env(""));
        assert_eq!(
            flag.searched(wgpu::Backends::VULKAN | wgpu::Backends::GL),
            "on backends vulkan, gl"
        );
    }

    #[test]
    fn flags_win_over_environment() {
        // Only the flag path is checked here: tests must not depend on the caller's environment.
        let s = Selection::resolve(Some("llvmpipe".into()), Some("vulkan".into()));
        assert_eq!(s.adapter.as_deref(), Some("llvmpipe"));
        assert_eq!(s.backend.as_deref(), Some("vulkan"));
    }

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn environment_means_what_it_means_to_wgpu() {
        let s = Selection::resolve_with(None, None, vars(&[("WGPU_ADAPTER_NAME", "15")]));
        assert!(
            s.adapter_from_env,
            "a number in WGPU_ADAPTER_NAME is a name substring"
        );
        let s = Selection::resolve_with(Some("15".into()), None, vars(&[]));
        assert!(!s.adapter_from_env, "a number in --adapter is an index");

        let s = Selection::resolve_with(None, None, vars(&[("WGPU_BACKEND", "vulkan,webgpu")]));
        assert_eq!(s.backends().ok(), Some(wgpu::Backends::VULKAN));
        assert_eq!(s.notes().len(), 1, "{:?}", s.notes());
        let s = Selection::resolve_with(None, None, vars(&[("WGPU_BACKEND", "webgpu")]));
        assert_eq!(
            s.backends().ok(),
            Some(all_backends()),
            "nothing native: the variable is ignored"
        );
        let s = Selection::resolve_with(None, Some("vulkan,webgpu".into()), vars(&[]));
        assert!(s.backends().is_err(), "a flag stays strict");

        for (value, low, notes) in [("none", false, 0), ("low", true, 0), ("fast", false, 1)] {
            let s = Selection::resolve_with(None, None, vars(&[("WGPU_POWER_PREF", value)]));
            assert_eq!((s.low_power(), s.notes().len()), (low, notes), "{value}");
        }
    }

    #[test]
    fn discrete_first_unless_low_power() {
        use wgpu::DeviceType::*;
        assert!(type_rank(DiscreteGpu, false) < type_rank(IntegratedGpu, false));
        assert!(type_rank(IntegratedGpu, true) < type_rank(DiscreteGpu, true));
        assert!(type_rank(IntegratedGpu, false) < type_rank(Cpu, false));
    }

    #[test]
    fn a_missing_feature_is_named_and_wgpus_part_in_a_browser_said() {
        let f16 = wgpu::Features::SHADER_F16;
        assert_eq!(lacking_in(f16, true), "adapter lacks SHADER_F16");
        let subgroups = wgpu::Features::SUBGROUP;
        assert_eq!(lacking_in(subgroups, false), "adapter lacks SUBGROUP");
        let web = lacking_in(subgroups | f16, true);
        assert!(
            web.starts_with("adapter lacks SUBGROUP, SHADER_F16: wgpu 30")
                && web.contains("#10146"),
            "{web}"
        );
    }
}
