//! What a run is to do, checked before any adapter is opened: the suites in order, the options
//! they are built with, and the overrides of the profile's sampling. A mistake found here costs
//! nothing; found after the adapter is open and the results file is started, it would leave a
//! useless file behind.

use std::collections::BTreeMap;
use std::time::Duration;

use gpubench_harness::{GpuContext, RunSettings};
use gpubench_results::schema::RunConfig;

use crate::{Included, PlanError, Registry, Suite, SuiteOptions};

/// Overrides of the profile's sample settings (`--samples`, `--sample-ms`, `--max-time`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SampleOverrides {
    /// Minimum timed samples per benchmark (at least 2).
    pub samples: Option<u32>,
    /// Target length of one sample, in milliseconds.
    pub sample_ms: Option<f64>,
    /// Time cap for sampling one benchmark, in seconds.
    pub max_time: Option<f64>,
}

impl SampleOverrides {
    /// Refuses overrides the runner cannot follow.
    fn check(&self) -> Result<(), PlanError> {
        if self.samples.is_some_and(|n| n < 2) {
            return Err(PlanError::bad(
                "samples",
                "must be at least 2 (an interval needs two samples)",
            ));
        }
        check_seconds("sample_length", self.sample_ms.map(|ms| ms / 1e3))?;
        if self.sample_ms.is_some_and(|ms| ms > MAX_SAMPLE_MS) {
            return Err(PlanError::bad(
                "sample_length",
                format!(
                    "must be at most {MAX_SAMPLE_MS} ms: one sample is one submission, which a signal cannot cut short and a driver's watchdog ends (Windows' after 2 s; calibration can overshoot its target); for more time per benchmark raise the sample count or the time cap"
                ),
            ));
        }
        check_seconds("max_time", self.max_time)
    }

    /// `settings` with these overrides applied.
    fn apply(&self, mut settings: RunSettings) -> RunSettings {
        if let Some(samples) = self.samples {
            settings.min_samples = samples as usize;
            settings.max_samples = settings.max_samples.max(samples as usize);
        }
        if let Some(ms) = self.sample_ms {
            settings.target_sample = Duration::from_secs_f64(ms / 1e3);
            settings.max_sample = settings.max_sample.max(settings.target_sample);
        }
        if let Some(seconds) = self.max_time {
            settings.max_time = Duration::from_secs_f64(seconds);
        }
        settings
    }
}

/// Longest sample `--sample-ms` may ask for. A sample is one submission, calibrated from one
/// earlier sample's time (a few percent of noise overshoots the target): half of Windows' 2 s
/// watchdog (TDR), the shortest of the desktop drivers', leaves room for that. The runner
/// looks for a stop between samples, so this also bounds how long SIGINT or SIGTERM waits;
/// every profile's samples are far shorter.
pub const MAX_SAMPLE_MS: f64 = 1000.0;

/// Refuses a time that is not a positive, representable number of seconds.
fn check_seconds(option: &'static str, seconds: Option<f64>) -> Result<(), PlanError> {
    match seconds {
        Some(s) if !(s > 0.0 && Duration::try_from_secs_f64(s).is_ok()) => {
            Err(PlanError::bad(option, "must be a positive, finite time"))
        }
        _ => Ok(()),
    }
}

/// A checked run: which suites, in which order, with which options and sampling.
#[derive(Clone)]
pub struct RunPlan {
    suites: Vec<&'static dyn Suite>,
    options: SuiteOptions,
    sampling: SampleOverrides,
    noise_check: bool,
    log_filter: Option<String>,
}

impl std::fmt::Debug for RunPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunPlan")
            .field("suites", &self.suite_names())
            .field("options", &self.options)
            .field("sampling", &self.sampling)
            .field("noise_check", &self.noise_check)
            .field("log_filter", &self.log_filter)
            .finish()
    }
}

impl RunPlan {
    /// A plan for the suites `names` of `registry` (none: the profile's defaults; `all` alone:
    /// every suite a user may name) built with `options`. The suites run in registry order, so
    /// each runs after those it reads ([`crate::SuiteInfo::after`]); a suite whose option is
    /// given joins at the end when it runs only then. Refuses an unknown suite, `all` among
    /// others, a suite named twice and an option no suite declares; every declared option that
    /// was not given is recorded at its default.
    pub fn new(
        registry: &'static Registry,
        names: &[&str],
        mut options: SuiteOptions,
    ) -> Result<Self, PlanError> {
        let names = if names.is_empty() {
            registry.defaults(options.profile)
        } else if names == [crate::registry::ALL] {
            registry.names()
        } else if names.contains(&crate::registry::ALL) {
            return Err(PlanError::AllAmongOthers);
        } else {
            names.to_vec()
        };
        let mut chosen: Vec<&'static dyn Suite> = Vec::new();
        for name in &names {
            let suite = registry.find(name)?;
            if chosen.iter().any(|s| s.name() == suite.name()) {
                return Err(PlanError::NamedTwice(suite.name().to_string()));
            }
            chosen.push(suite);
        }
        for key in options.values.keys() {
            if registry.option(key).is_none() {
                return Err(PlanError::UnknownOption(key.clone()));
            }
        }
        let mut suites: Vec<&'static dyn Suite> = registry
            .all()
            .filter(|s| chosen.iter().any(|c| c.name() == s.name()))
            .collect();
        suites.extend(registry.all().filter(|s| {
            s.info().included == Included::WhenItsOptionIsGiven
                && s.options().iter().any(|spec| options.is_given(spec.key))
        }));
        for (_, spec) in registry.options() {
            if !spec.hidden && !options.values.contains_key(spec.key) {
                options
                    .values
                    .insert(spec.key.to_string(), (spec.default)());
            }
        }
        Ok(Self {
            suites,
            options,
            sampling: SampleOverrides::default(),
            noise_check: true,
            log_filter: None,
        })
    }

    /// Whether the run measures its noise reference at its start and end
    /// ([`crate::noise_check`]); on unless turned off.
    pub fn with_noise_check(mut self, on: bool) -> Self {
        self.noise_check = on;
        self
    }

    /// Whether the run measures its noise reference.
    pub fn noise_check(&self) -> bool {
        self.noise_check
    }

    /// The log filter in force during the run, recorded in its configuration (logging above
    /// `warn` slows short kernels' timings).
    pub fn with_log_filter(mut self, filter: Option<String>) -> Self {
        self.log_filter = filter;
        self
    }

    /// Overrides the profile's sampling; refuses overrides the runner cannot follow.
    pub fn with_sampling(mut self, sampling: SampleOverrides) -> Result<Self, PlanError> {
        sampling.check()?;
        self.sampling = sampling;
        Ok(self)
    }

    /// The suites, in the order they run.
    pub fn suites(&self) -> &[&'static dyn Suite] {
        &self.suites
    }

    /// The suites' names, in the order they run.
    pub fn suite_names(&self) -> Vec<String> {
        self.suites.iter().map(|s| s.name().to_string()).collect()
    }

    /// The options every suite is built with.
    pub fn options(&self) -> &SuiteOptions {
        &self.options
    }

    /// The sample settings on an adapter that is (or is not) `software`: the profile's, with the
    /// overrides and the seed applied.
    pub fn settings(&self, software: bool) -> RunSettings {
        let mut settings = self.sampling.apply(self.options.profile.settings(software));
        settings.seed = self.options.seed;
        settings
    }

    /// Refuses, once the adapter is open and before anything runs, option values a suite of the
    /// plan cannot honour on it ([`Suite::check_adapter`]).
    pub fn check_adapter(&self, ctx: &GpuContext) -> Result<(), PlanError> {
        self.suites
            .iter()
            .try_for_each(|suite| suite.check_adapter(ctx, &self.options))
    }

    /// The run's configuration as the results file records it: profile, suites, `settings`, and
    /// every option as given.
    pub fn config(&self, settings: RunSettings) -> Result<RunConfig, serde_json::Error> {
        let options = match serde_json::to_value(&self.options)? {
            serde_json::Value::Object(map) => map.into_iter().collect(),
            other => BTreeMap::from([("options".to_string(), other)]),
        };
        Ok(RunConfig {
            profile: self.options.profile.name().to_string(),
            suites: self.suite_names(),
            settings,
            options,
            log_filter: self.log_filter.clone(),
        })
    }
}
