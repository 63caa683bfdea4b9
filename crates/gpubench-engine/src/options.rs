//! Suite options: each suite declares the options it takes ([`OptionSpec`]); a front end offers
//! them (the CLI builds a flag from each), the option's own parser checks a value once, and the
//! run records every declared option in `config.options` under its key, so a results file says
//! how it was made. The keys are the files' contract: a key keeps its name and meaning.

use std::collections::BTreeMap;

use gpubench_harness::Profile;
use gpubench_harness::shader_checks::ShaderChecks;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How many values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// One value (`--stream-size 64MiB`); the last given wins.
    One,
    /// Any number, in order (`--matmul-shape A --matmul-shape B`): recorded as a list.
    Many,
    /// No value: given, it records what its parser returns for the empty text
    /// (`--no-coop-matrix` records `coop_matrix: false`).
    Switch,
}

/// One option a suite takes.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    /// The key in `config.options` (`matmul_shapes`); unique across suites.
    pub key: &'static str,
    /// The CLI flag without its dashes (`matmul-shape`); unique across suites.
    pub flag: &'static str,
    /// What a value looks like in `--help` (`MxNxK`).
    pub value_name: &'static str,
    /// One or two sentences for `--help`.
    pub help: &'static str,
    /// How many values it takes.
    pub arity: Arity,
    /// What is recorded when it is not given.
    pub default: fn() -> Value,
    /// The option's one check: a value's text to the value recorded, or why it is refused
    /// (a sentence that names no flag).
    pub parse: fn(&str) -> Result<Value, String>,
    /// The values it accepts, where they are a list (`--help` shows them on request).
    pub choices: Option<fn() -> Vec<&'static str>>,
    /// Left out of `--help` (the fault injection), and recorded only when given.
    pub hidden: bool,
}

impl OptionSpec {
    /// Parses every text given for the option into the value recorded: one value, a list, or
    /// a switch's value (`texts` holds one empty text per time it was given).
    pub fn value_of(&self, texts: &[String]) -> Result<Value, String> {
        match self.arity {
            Arity::Many => texts
                .iter()
                .map(|text| (self.parse)(text))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            Arity::One | Arity::Switch => match texts.last() {
                Some(text) => (self.parse)(text),
                None => Ok((self.default)()),
            },
        }
    }
}

/// What shapes the benchmarks a run builds: the profile, the seed, the shader checks, and every
/// suite's options by key. Recorded whole, as given, in the results file's `config.options`
/// (absent keys read back as their defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SuiteOptions {
    /// Sizes follow the profile.
    pub profile: Profile,
    /// Seed for random inputs.
    pub seed: u64,
    /// naga's runtime checks in the timed kernels' shaders (off unless asked for: see the
    /// kit's `gpu` module docs).
    pub shader_checks: ShaderChecks,
    /// The suites' options, by key.
    #[serde(flatten)]
    pub values: BTreeMap<String, Value>,
}

impl SuiteOptions {
    /// Options for `profile` with everything else at its default.
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            seed: 0x5eed,
            shader_checks: ShaderChecks::Off,
            values: BTreeMap::new(),
        }
    }

    /// These options with `key` set to `value` (for code and tests; a front end parses text
    /// through the option's [`OptionSpec::parse`]).
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.values.insert(key.to_string(), value.into());
        self
    }

    /// Sets `key` to `value`.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.values.insert(key.to_string(), value.into());
    }

    /// The value of `key` as a `T`; `None` when it is absent, null, or not a `T`.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        match self.values.get(key) {
            None | Some(Value::Null) => None,
            Some(value) => serde_json::from_value(value.clone()).ok(),
        }
    }

    /// The value of `key` as a flag: `default` where it is absent or not a boolean.
    pub fn flag(&self, key: &str, default: bool) -> bool {
        self.get(key).unwrap_or(default)
    }

    /// Whether `key` holds something other than its default: a value, a non-empty list.
    pub fn is_given(&self, key: &str) -> bool {
        match self.values.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Array(items)) => !items.is_empty(),
            Some(_) => true,
        }
    }
}

impl Default for SuiteOptions {
    /// The default profile's options.
    fn default() -> Self {
        Self::new(Profile::Default)
    }
}

/// A parser for a size in binary units (`64MiB`), recorded as bytes.
pub fn parse_size_value(text: &str) -> Result<Value, String> {
    gpubench_results::units::parse_size(text).map(Value::from)
}

/// Longest time an option accepts: a week, in seconds.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// A parser for a positive time in seconds, up to [`MAX_SECONDS`].
pub fn parse_seconds_value(text: &str) -> Result<Value, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s <= MAX_SECONDS => Ok(Value::from(s)),
        Ok(s) if s.is_finite() && s > 0.0 => Err(format!("'{text}' seconds is longer than a week")),
        _ => Err(format!("'{text}' is not a positive number of seconds")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> OptionSpec {
        OptionSpec {
            key: "things",
            flag: "thing",
            value_name: "N",
            help: "a thing",
            arity: Arity::Many,
            default: || Value::Array(Vec::new()),
            parse: |text| {
                text.parse::<u32>()
                    .map(Value::from)
                    .map_err(|_| format!("'{text}' is not a count"))
            },
            choices: None,
            hidden: false,
        }
    }

    #[test]
    fn values_are_parsed_by_their_own_check_and_read_back_typed() {
        let spec = shapes();
        let texts = vec!["3".to_string(), "5".to_string()];
        let value = spec.value_of(&texts).expect("counts");
        let options = SuiteOptions::new(Profile::Quick).with("things", value);
        assert_eq!(options.get::<Vec<u32>>("things"), Some(vec![3, 5]));
        assert!(options.is_given("things"));
        assert_eq!(
            spec.value_of(&["x".to_string()]),
            Err("'x' is not a count".to_string())
        );
        let one = OptionSpec {
            arity: Arity::One,
            default: || Value::Null,
            ..spec
        };
        assert_eq!(one.value_of(&[]), Ok(Value::Null));
        assert_eq!(one.value_of(&texts), Ok(Value::from(5)));
        assert_eq!(options.get::<String>("things"), None, "not a string");
        assert!(!options.is_given("absent"));
    }

    #[test]
    fn options_round_trip_through_their_recorded_form() {
        let options = SuiteOptions::new(Profile::Quick)
            .with("stream_size", 1u64 << 20)
            .with("coop_matrix", false);
        let json = serde_json::to_value(&options).expect("serialises");
        assert_eq!(json["stream_size"], 1 << 20);
        assert_eq!(json["profile"], "quick");
        let back: SuiteOptions = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, options);
        let empty: SuiteOptions = serde_json::from_str("{}").expect("defaults");
        assert_eq!(empty, SuiteOptions::default());
        assert_eq!(parse_seconds_value("2.5"), Ok(Value::from(2.5)));
        assert!(parse_seconds_value("0").is_err());
        assert!(parse_seconds_value("nan").is_err());
    }
}
