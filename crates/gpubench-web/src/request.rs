//! What the page asks for, checked: which suites, which profile, and what the browser says of
//! itself.

use gpubench_engine::SuiteOptions;
use gpubench_results::profile::Profile;
use gpubench_results::schema::MachineInfo;
use serde::Deserialize;

/// The longest browser description kept (a user agent is a few hundred bytes).
const BROWSER_TEXT_MAX: usize = 512;

/// A run the page asked for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageRequest {
    /// The suites to run; none: the profile's defaults.
    #[serde(default)]
    suites: Vec<String>,
    /// `quick`, `default` or `full`.
    #[serde(default = "default_profile")]
    profile: String,
    /// The browser's description of itself (`navigator.userAgent`).
    #[serde(default)]
    browser: Option<String>,
    /// Logical processors the browser reports (`navigator.hardwareConcurrency`).
    #[serde(default)]
    cpu_count: Option<usize>,
    /// The adapter as WebGPU describes it (`GPUAdapterInfo`: vendor, architecture, device,
    /// description), which wgpu's adapter name leaves empty in a browser.
    #[serde(default)]
    adapter: Option<String>,
    /// Whether the page is cross-origin isolated (`crossOriginIsolated`), which decides how
    /// finely its clock steps (about 5 us isolated, 100 us not, in Chromium).
    #[serde(default)]
    cross_origin_isolated: Option<bool>,
}

fn default_profile() -> String {
    "quick".to_string()
}

impl PageRequest {
    /// The request in `text` (JSON), or why it is not one.
    pub fn parse(text: &str) -> Result<Self, String> {
        let request: Self =
            serde_json::from_str(text).map_err(|e| format!("the run request is not valid: {e}"))?;
        request.profile()?;
        Ok(request)
    }

    fn profile(&self) -> Result<Profile, String> {
        self.profile
            .parse()
            .map_err(|_| format!("unknown profile {:?}: quick, default or full", self.profile))
    }

    /// The adapter's name for the results: WebGPU's own description of it, "(WebGPU)" after
    /// it; `None` where the page gave none.
    pub fn adapter_name(&self) -> Option<String> {
        let text: String = self
            .adapter
            .as_deref()?
            .chars()
            .filter(|c| !c.is_control())
            .take(BROWSER_TEXT_MAX)
            .collect();
        let text = text.trim();
        (!text.is_empty()).then(|| format!("{text} (WebGPU)"))
    }

    /// The suites, as the plan takes them.
    pub fn suite_names(&self) -> Vec<&str> {
        self.suites.iter().map(String::as_str).collect()
    }

    /// The suites' options: the profile's, everything else at its default.
    pub fn options(&self) -> SuiteOptions {
        SuiteOptions::new(self.profile().unwrap_or(Profile::Quick))
    }

    /// The machine fields a browser run can fill: the browser's description as the operating
    /// system's (kept as text, cut to a bounded length) with whether the page was cross-origin
    /// isolated, the processors it reports, and "unknown (browser)" for what it cannot know.
    pub fn describe_machine(&self, machine: &mut MachineInfo) {
        let browser: String = self
            .browser
            .as_deref()
            .unwrap_or(gpubench_results::hostinfo::UNKNOWN_IN_BROWSER)
            .chars()
            .filter(|c| !c.is_control())
            .take(BROWSER_TEXT_MAX)
            .collect();
        let isolation = match self.cross_origin_isolated {
            Some(true) => " (cross-origin isolated)",
            Some(false) => " (not cross-origin isolated: its page clock is coarser)",
            None => "",
        };
        machine.os = format!("browser: {browser}{isolation}");
        machine.cpu_model = gpubench_results::hostinfo::UNKNOWN_IN_BROWSER.to_string();
        machine.hostname = None;
        if let Some(count) = self.cpu_count.filter(|&n| n > 0) {
            machine.cpu_count = count;
        }
    }
}
