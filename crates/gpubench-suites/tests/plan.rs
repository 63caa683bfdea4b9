//! The run plan over the real registry: defaults per profile, mistakes refused before anything
//! runs, every declared option recorded under its key, sampling overrides. No adapter needed.

use std::time::Duration;

use gpubench_engine::plan::{MAX_SAMPLE_MS, RunPlan, SampleOverrides};
use gpubench_engine::{PlanError, SuiteOptions};
use gpubench_harness::Profile;
use gpubench_harness::shader_checks::ShaderChecks;
use gpubench_suites::REGISTRY;

#[test]
fn no_suites_named_means_the_profiles_defaults_and_all_means_every_suite() {
    let plan = RunPlan::new(&REGISTRY, &[], SuiteOptions::new(Profile::Quick)).expect("plan");
    assert_eq!(plan.suite_names(), REGISTRY.defaults(Profile::Quick));
    let full = RunPlan::new(&REGISTRY, &[], SuiteOptions::new(Profile::Full)).expect("plan");
    assert_eq!(full.suite_names(), REGISTRY.defaults(Profile::Full));
    let all = RunPlan::new(&REGISTRY, &["all"], SuiteOptions::new(Profile::Quick)).expect("plan");
    assert_eq!(all.suite_names(), REGISTRY.names());
    // Named suites run in registry order, each after the suites it reads.
    let named = RunPlan::new(&REGISTRY, &["roofline", "stream"], SuiteOptions::default());
    assert_eq!(named.expect("plan").suite_names(), ["stream", "roofline"]);
}

#[test]
fn mistakes_are_refused_before_anything_runs() {
    let options = SuiteOptions::new(Profile::Quick);
    assert!(matches!(
        RunPlan::new(&REGISTRY, &["stream", "nonsense"], options.clone()),
        Err(PlanError::UnknownSuite { name, .. }) if name == "nonsense"
    ));
    assert!(matches!(
        RunPlan::new(&REGISTRY, &["launch", "all"], options.clone()),
        Err(PlanError::AllAmongOthers)
    ));
    assert!(matches!(
        RunPlan::new(&REGISTRY, &["stream", "stream"], options.clone()),
        Err(PlanError::NamedTwice(name)) if name == "stream"
    ));
    assert!(
        matches!(
            RunPlan::new(&REGISTRY, &["selftest"], options.clone()),
            Err(PlanError::UnknownSuite { .. })
        ),
        "a hidden suite cannot be named"
    );
    let unknown = options.clone().with("no_such_option", 1);
    assert!(matches!(
        RunPlan::new(&REGISTRY, &["stream"], unknown),
        Err(PlanError::UnknownOption(key)) if key == "no_such_option"
    ));
    let plan = RunPlan::new(&REGISTRY, &["stream"], options).expect("plan");
    let too_few = SampleOverrides {
        samples: Some(1),
        ..SampleOverrides::default()
    };
    assert!(plan.with_sampling(too_few).is_err());
}

#[test]
fn every_declared_option_is_recorded_under_its_key_and_reads_back() {
    let mut options = SuiteOptions::new(Profile::Quick)
        .with("stream_size", 1u64 << 20)
        .with("matmul_shapes", serde_json::json!(["127x255x63"]))
        .with("capacity_cap", 1u64 << 30)
        .with("duration", 2.5);
    options.seed = 7;
    options.shader_checks = ShaderChecks::On;
    let plan = RunPlan::new(&REGISTRY, &["stream"], options).expect("plan");
    let config = plan.config(plan.settings(true)).expect("config");
    let recorded = &config.options;
    // The keys results files have always had, and every option a suite declares.
    let mut keys = vec!["profile", "seed", "shader_checks"];
    keys.extend(
        REGISTRY
            .options()
            .into_iter()
            .filter(|(_, spec)| !spec.hidden)
            .map(|(_, spec)| spec.key),
    );
    for key in keys {
        assert!(
            recorded.contains_key(key),
            "{key} missing from {recorded:?}"
        );
    }
    for key in [
        "stream_size",
        "matmul_shapes",
        "matmul_variant",
        "coop_matrix",
        "capacity_cap",
        "duration",
    ] {
        assert!(
            recorded.contains_key(key),
            "{key}: a key files have always had"
        );
    }
    assert!(
        !recorded.contains_key("inject_fault"),
        "hidden and not given: not recorded"
    );
    assert_eq!(recorded["matmul_shapes"], serde_json::json!(["127x255x63"]));
    assert_eq!(recorded["coop_matrix"], true, "a default is recorded");
    assert_eq!(recorded["matmul_variant"], serde_json::Value::Null);
    assert_eq!(recorded["profile"], "quick");
    assert_eq!(recorded["shader_checks"], "on");
    assert_eq!(config.settings.seed, 7);
    let map: serde_json::Map<_, _> = recorded.clone().into_iter().collect();
    let back: SuiteOptions =
        serde_json::from_value(serde_json::Value::Object(map)).expect("reads back");
    assert_eq!(&back, plan.options());
}

#[test]
fn a_fault_brings_in_the_hidden_suite_last() {
    let options =
        SuiteOptions::new(Profile::Quick).with("inject_fault", serde_json::json!(["wrong-output"]));
    let plan = RunPlan::new(&REGISTRY, &["stream"], options).expect("plan");
    assert_eq!(plan.suite_names(), ["stream", "selftest"]);
}

#[test]
fn overrides_replace_the_profiles_sampling() {
    let sampling = SampleOverrides {
        samples: Some(40),
        sample_ms: Some(250.0),
        max_time: Some(3.0),
    };
    let plan = RunPlan::new(&REGISTRY, &["stream"], SuiteOptions::new(Profile::Quick))
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
    let plan =
        || RunPlan::new(&REGISTRY, &["stream"], SuiteOptions::new(Profile::Quick)).expect("plan");
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
        matches!(&refused, PlanError::BadOption { option: "sample_length", problem } if problem.contains("at most 1000 ms")),
        "{refused}"
    );
}
