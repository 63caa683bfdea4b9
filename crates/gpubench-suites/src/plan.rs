//! What a run is to do, checked before any adapter is opened: the suites in order, the options
//! they are built with, the injected faults, and the overrides of the profile's sampling. A
//! mistake found here costs nothing; found after the adapter is open and the results file is
//! started, it would leave a useless file behind.

use std::collections::BTreeMap;
use std::time::Duration;

use gpubench_harness::{GpuContext, RunSettings};
use gpubench_results::schema::RunConfig;
use gpubench_results::units::format_size;

use crate::faults::Fault;
use crate::{PlanError, SuiteEntry, SuiteOption, SuiteOptions, default_suites, find_suite, matmul};

/// Largest matmul dimension accepted: a 2^20 x 4 f16 matrix already needs 8 MiB, and every
/// product of two dimensions stays far inside u64 and every padded stride inside u32.
pub const MAX_MATMUL_DIM: u32 = 1 << 20;

/// Parses a matmul shape `MxNxK` (each a positive integer up to [`MAX_MATMUL_DIM`]; `x` or `X`
/// between them).
pub fn parse_matmul_shape(text: &str) -> Result<(u32, u32, u32), String> {
    let parts: Vec<&str> = text.split(['x', 'X']).collect();
    let bad =
        || format!("'{text}' is not a matmul shape MxNxK of positive integers, e.g. 127x255x63");
    if parts.len() != 3 {
        return Err(bad());
    }
    let too_large = || {
        format!(
            "'{text}': each dimension must be at most {MAX_MATMUL_DIM} (a matrix must fit one storage binding)"
        )
    };
    let mut dims = [0u32; 3];
    for (dim, part) in dims.iter_mut().zip(&parts) {
        let part = part.trim();
        // Digits beyond u32 are a dimension too large, not a malformed shape.
        let value: u64 = match part.parse() {
            Ok(value) => value,
            Err(_) if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(too_large());
            }
            Err(_) => return Err(bad()),
        };
        if value == 0 {
            return Err(bad());
        }
        *dim = u32::try_from(value)
            .ok()
            .filter(|&d| d <= MAX_MATMUL_DIM)
            .ok_or_else(too_large)?;
    }
    Ok((dims[0], dims[1], dims[2]))
}

/// A matmul shape as `--matmul-shape` takes it and results files record it: `MxNxK`.
pub fn format_matmul_shape((m, n, k): (u32, u32, u32)) -> String {
    format!("{m}x{n}x{k}")
}

/// Serde for a list of matmul shapes as `"MxNxK"` strings (how `config.options` records them).
pub mod shape_strings {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes each shape as `"MxNxK"`.
    pub fn serialize<S: Serializer>(shapes: &[(u32, u32, u32)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            shapes
                .iter()
                .map(|&shape| super::format_matmul_shape(shape)),
        )
    }

    /// Reads `"MxNxK"` strings back.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(u32, u32, u32)>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|text| super::parse_matmul_shape(text).map_err(serde::de::Error::custom))
            .collect()
    }
}

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
                SuiteOption::Samples,
                "must be at least 2 (an interval needs two samples)",
            ));
        }
        check_seconds(SuiteOption::SampleLength, self.sample_ms.map(|ms| ms / 1e3))?;
        if self.sample_ms.is_some_and(|ms| ms > MAX_SAMPLE_MS) {
            return Err(PlanError::bad(
                SuiteOption::SampleLength,
                format!(
                    "must be at most {MAX_SAMPLE_MS} ms: one sample is one submission, which a signal cannot cut short; for more time per benchmark raise the sample count or the time cap"
                ),
            ));
        }
        check_seconds(SuiteOption::MaxTime, self.max_time)
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

/// Longest sample `--sample-ms` may ask for. The runner looks for a stop between samples, so
/// this bounds how long SIGINT or SIGTERM waits (a submission cannot be interrupted); every
/// profile's samples are far shorter.
pub const MAX_SAMPLE_MS: f64 = 2000.0;

/// Refuses a time that is not a positive, representable number of seconds.
fn check_seconds(option: SuiteOption, seconds: Option<f64>) -> Result<(), PlanError> {
    match seconds {
        Some(s) if !(s > 0.0 && Duration::try_from_secs_f64(s).is_ok()) => {
            Err(PlanError::bad(option, "must be a positive, finite time"))
        }
        _ => Ok(()),
    }
}

/// A checked run: which suites, in which order, with which options, faults and sampling.
#[derive(Debug, Clone)]
pub struct RunPlan {
    suites: Vec<&'static SuiteEntry>,
    options: SuiteOptions,
    faults: Vec<Fault>,
    sampling: SampleOverrides,
    noise_check: bool,
}

impl RunPlan {
    /// A plan for the suites `names` (none: the profile's defaults) built with `options`.
    /// Refuses an unknown suite or matmul variant, a matmul dimension out of range, and a
    /// sustained duration that is not a positive time.
    pub fn new(names: &[&str], options: SuiteOptions) -> Result<Self, PlanError> {
        let names = if names.is_empty() {
            default_suites(options.profile)
        } else {
            names.to_vec()
        };
        let suites = names
            .iter()
            .map(|name| find_suite(name).ok_or_else(|| PlanError::UnknownSuite(name.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        check_options(&options)?;
        Ok(Self {
            suites,
            options,
            faults: Vec::new(),
            sampling: SampleOverrides::default(),
            noise_check: true,
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

    /// Adds benchmarks that fail on purpose, run after every suite under `selftest`.
    pub fn with_faults(mut self, faults: Vec<Fault>) -> Self {
        self.faults = faults;
        self
    }

    /// Overrides the profile's sampling; refuses overrides the runner cannot follow.
    pub fn with_sampling(mut self, sampling: SampleOverrides) -> Result<Self, PlanError> {
        sampling.check()?;
        self.sampling = sampling;
        Ok(self)
    }

    /// The suites, in the order they run.
    pub fn suites(&self) -> &[&'static SuiteEntry] {
        &self.suites
    }

    /// The suites' names, in the order they run.
    pub fn suite_names(&self) -> Vec<String> {
        self.suites.iter().map(|s| s.name.to_string()).collect()
    }

    /// The options every suite is built with.
    pub fn options(&self) -> &SuiteOptions {
        &self.options
    }

    /// The injected faults.
    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    /// The sample settings on an adapter that is (or is not) `software`: the profile's, with the
    /// overrides and the seed applied.
    pub fn settings(&self, software: bool) -> RunSettings {
        let mut settings = self.sampling.apply(self.options.profile.settings(software));
        settings.seed = self.options.seed;
        settings
    }

    /// Refuses, once the adapter is open and before anything runs, a `--matmul-shape` whose
    /// matrices cannot be bound on it even in f16 (a shape that fits in f16 only is run in f16
    /// and skipped in f32).
    pub fn check_adapter(&self, ctx: &GpuContext) -> Result<(), PlanError> {
        let limit = ctx
            .limits
            .max_storage_buffer_binding_size
            .min(ctx.limits.max_buffer_size);
        for &(m, n, k) in &self.options.matmul_shapes {
            let (m64, n64, k64) = (u64::from(m), u64::from(n), u64::from(k));
            let largest = (m64 * k64).max(k64 * n64).max(m64 * n64) * 2;
            if largest > limit {
                return Err(PlanError::bad(
                    SuiteOption::MatmulShape,
                    format!(
                        "{}: its largest matrix needs {} even in f16, over the adapter's storage binding limit of {}",
                        format_matmul_shape((m, n, k)),
                        format_size(largest),
                        format_size(limit)
                    ),
                ));
            }
        }
        Ok(())
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
        })
    }
}

/// Refuses options no suite can work with.
fn check_options(options: &SuiteOptions) -> Result<(), PlanError> {
    if let Some(name) = &options.matmul_variant
        && matmul::find_variant(name).is_none()
    {
        return Err(PlanError::bad(
            SuiteOption::MatmulVariant,
            format!(
                "{name}: unknown variant (known: {})",
                matmul::variant_names().join(", ")
            ),
        ));
    }
    for &(m, n, k) in &options.matmul_shapes {
        if [m, n, k]
            .iter()
            .any(|&dim| dim == 0 || dim > MAX_MATMUL_DIM)
        {
            return Err(PlanError::bad(
                SuiteOption::MatmulShape,
                format!(
                    "{}: every dimension must be from 1 to {MAX_MATMUL_DIM}",
                    format_matmul_shape((m, n, k))
                ),
            ));
        }
    }
    check_seconds(SuiteOption::Duration, options.duration)
}

#[cfg(test)]
mod tests {
    use gpubench_harness::Profile;

    use super::*;

    #[test]
    fn matmul_shapes_parse_and_reject_nonsense() {
        assert_eq!(parse_matmul_shape("127x255x63"), Ok((127, 255, 63)));
        assert_eq!(parse_matmul_shape("1X2x3"), Ok((1, 2, 3)));
        for bad in ["0x1x1", "1x2", "1x2x3x4", "ax2x3", "-1x2x3", ""] {
            assert!(parse_matmul_shape(bad).is_err(), "{bad}");
        }
        assert!(parse_matmul_shape(&format!("{}x1x1", MAX_MATMUL_DIM + 1)).is_err());
        // Beyond u32 is still "too large", not "not a shape".
        for huge in ["4294967296x1x1", "1x99999999999999999999x1"] {
            let err = parse_matmul_shape(huge).expect_err(huge);
            assert!(err.contains("at most"), "{err}");
        }
    }

    #[test]
    fn no_suites_named_means_the_profiles_defaults() {
        let plan = RunPlan::new(&[], SuiteOptions::new(Profile::Quick)).expect("plan");
        assert_eq!(plan.suite_names(), default_suites(Profile::Quick));
        let full = RunPlan::new(&[], SuiteOptions::new(Profile::Full)).expect("plan");
        assert_eq!(full.suite_names(), crate::SUITES);
    }

    #[test]
    fn mistakes_are_refused_before_anything_runs() {
        let options = SuiteOptions::new(Profile::Quick);
        assert!(matches!(
            RunPlan::new(&["stream", "nonsense"], options.clone()),
            Err(PlanError::UnknownSuite(name)) if name == "nonsense"
        ));
        let mut bad_variant = options.clone();
        bad_variant.matmul_variant = Some("bogus".to_string());
        let error = RunPlan::new(&["matmul"], bad_variant).expect_err("refused");
        assert!(
            matches!(&error, PlanError::BadOption { option: SuiteOption::MatmulVariant, problem }
                if problem.starts_with("bogus: unknown variant")),
            "{error}"
        );
        let mut bad_shape = options.clone();
        bad_shape.matmul_shapes = vec![(0, 4, 4)];
        assert!(RunPlan::new(&["matmul"], bad_shape).is_err());
        let mut bad_duration = options.clone();
        bad_duration.duration = Some(f64::NAN);
        assert!(RunPlan::new(&["sustained"], bad_duration).is_err());
        let plan = RunPlan::new(&["stream"], options).expect("plan");
        let too_few = SampleOverrides {
            samples: Some(1),
            ..SampleOverrides::default()
        };
        assert!(plan.with_sampling(too_few).is_err());
    }

    #[test]
    fn every_option_is_recorded_and_reads_back() {
        let mut options = SuiteOptions::new(Profile::Quick);
        options.stream_size = Some(1 << 20);
        options.matmul_shapes = vec![(127, 255, 63)];
        options.matmul_variant = Some(matmul::variant_names()[0].to_string());
        options.capacity_cap = Some(1 << 30);
        options.duration = Some(2.5);
        options.seed = 7;
        options.shader_checks = crate::gpu::ShaderChecks::On;
        let plan = RunPlan::new(&["stream"], options.clone()).expect("plan");
        let config = plan.config(plan.settings(true)).expect("config");
        let recorded = &config.options;
        for key in [
            "profile",
            "stream_size",
            "matmul_shapes",
            "matmul_variant",
            "capacity_cap",
            "duration",
            "seed",
            "shader_checks",
        ] {
            assert!(
                recorded.contains_key(key),
                "{key} missing from {recorded:?}"
            );
        }
        assert_eq!(recorded["matmul_shapes"], serde_json::json!(["127x255x63"]));
        assert_eq!(recorded["profile"], "quick");
        assert_eq!(recorded["shader_checks"], "on");
        assert_eq!(config.settings.seed, 7);
        let map: serde_json::Map<_, _> = recorded.clone().into_iter().collect();
        let back: SuiteOptions =
            serde_json::from_value(serde_json::Value::Object(map)).expect("reads back");
        assert_eq!(back, options);
        let empty: SuiteOptions = serde_json::from_str("{}").expect("defaults");
        assert_eq!(empty, SuiteOptions::default());
    }

    #[test]
    fn overrides_replace_the_profiles_sampling() {
        let sampling = SampleOverrides {
            samples: Some(40),
            sample_ms: Some(250.0),
            max_time: Some(3.0),
        };
        let plan = RunPlan::new(&["stream"], SuiteOptions::new(Profile::Quick))
            .expect("plan")
            .with_sampling(sampling)
            .expect("valid overrides");
        let settings = plan.settings(false);
        assert_eq!(settings.min_samples, 40);
        assert!(settings.max_samples >= 40);
        assert_eq!(settings.target_sample, Duration::from_millis(250));
        assert!(settings.max_sample >= settings.target_sample);
        assert_eq!(settings.max_time, Duration::from_secs(3));
        assert_eq!(settings.seed, 0x5eed);
    }

    #[test]
    fn a_sample_a_signal_would_wait_for_too_long_is_refused() {
        let plan = || RunPlan::new(&["stream"], SuiteOptions::new(Profile::Quick)).expect("plan");
        let with_ms = |ms| SampleOverrides {
            samples: None,
            sample_ms: Some(ms),
            max_time: None,
        };
        plan()
            .with_sampling(with_ms(MAX_SAMPLE_MS))
            .expect("at the cap");
        let refused = plan()
            .with_sampling(with_ms(1_000_000.0))
            .expect_err("a 1000 s submission");
        assert!(
            matches!(&refused, PlanError::BadOption { option: SuiteOption::SampleLength, problem } if problem.contains("at most 2000 ms")),
            "{refused}"
        );
    }
}
