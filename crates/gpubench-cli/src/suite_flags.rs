//! The suites' own options as `run` flags, built from the registry: each suite declares its
//! options ([`gpubench_engine::OptionSpec`]) and this module turns each into a flag with its
//! help, its value name and its one parser, so a new suite's option reaches `run --help`,
//! completions and the man page with no edit here.

use std::collections::BTreeMap;

use std::ffi::OsStr;

use clap::builder::TypedValueParser;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use gpubench_engine::Arity;
use gpubench_suites::REGISTRY;
use serde_json::Value;

use crate::values::invalid_value;

/// The suites' option values given on the command line, by `config.options` key, already
/// checked by each option's parser.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuiteFlags {
    /// Each given option's value (a list for options taken many times).
    pub values: BTreeMap<String, Value>,
}

/// An option's own parser as a flag's, its refusal worded as every flag's is:
/// `--FLAG VALUE: problem` (a usage error, exit 2, before any adapter is opened).
#[derive(Clone)]
struct SpecParser(&'static gpubench_engine::OptionSpec);

impl TypedValueParser for SpecParser {
    type Value = Value;

    fn parse_ref(
        &self,
        cmd: &Command,
        _arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<Self::Value, clap::Error> {
        let text = value.to_string_lossy();
        (self.0.parse)(&text).map_err(|problem| {
            let flag = self.0.flag;
            // A problem that starts with the value already names it.
            let message = if problem.starts_with(text.as_ref()) {
                format!("--{flag} {problem}")
            } else {
                format!("--{flag} {text}: {problem}")
            };
            invalid_value(cmd, message)
        })
    }
}

/// An option's help as the derived flags show theirs: a one-sentence help without its final
/// period (clap's derive drops it from such doc comments).
fn help_text(help: &'static str) -> &'static str {
    match help.strip_suffix('.') {
        Some(sentence) if !sentence.contains(". ") => sentence,
        _ => help,
    }
}

/// The flag of one option.
fn arg_of(spec: &'static gpubench_engine::OptionSpec) -> Arg {
    let arg = Arg::new(spec.key)
        .long(spec.flag)
        .help(help_text(spec.help))
        .hide(spec.hidden);
    match spec.arity {
        Arity::Switch => arg.action(ArgAction::SetTrue),
        // Given twice, the last wins, as the option's arity says.
        Arity::One => arg
            .value_name(spec.value_name)
            .value_parser(SpecParser(spec))
            .action(ArgAction::Set)
            .overrides_with(spec.key),
        Arity::Many => arg
            .value_name(spec.value_name)
            .value_parser(SpecParser(spec))
            .action(ArgAction::Append),
    }
}

impl Args for SuiteFlags {
    fn augment_args(cmd: Command) -> Command {
        REGISTRY
            .options()
            .into_iter()
            .fold(cmd, |cmd, (_, spec)| cmd.arg(arg_of(spec)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for SuiteFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = Self::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for (_, spec) in REGISTRY.options() {
            let value = match spec.arity {
                Arity::Switch => matches
                    .get_flag(spec.key)
                    .then(|| spec.value_of(&[String::new()]))
                    .transpose()
                    .map_err(|e| clap::Error::raw(clap::error::ErrorKind::InvalidValue, e))?,
                Arity::One => matches.get_one::<Value>(spec.key).cloned(),
                Arity::Many => matches
                    .get_many::<Value>(spec.key)
                    .map(|values| Value::Array(values.cloned().collect())),
            };
            if let Some(value) = value {
                self.values.insert(spec.key.to_string(), value);
            }
        }
        Ok(())
    }
}

/// The flag that sets the option or sampling setting `key`, with its dashes.
pub fn flag_of(key: &str) -> String {
    match key {
        "samples" => "--samples".to_string(),
        "sample_length" => "--sample-ms".to_string(),
        "max_time" => "--max-time".to_string(),
        _ => REGISTRY
            .option(key)
            .map_or_else(|| key.to_string(), |spec| format!("--{}", spec.flag)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_option_is_a_flag_and_maps_back_to_it() {
        let cmd = SuiteFlags::augment_args(Command::new("run"));
        for (suite, spec) in REGISTRY.options() {
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(spec.flag))
                .unwrap_or_else(|| panic!("{suite}'s {} has no flag", spec.key));
            assert_eq!(arg.is_hide_set(), spec.hidden, "{}", spec.key);
            assert_eq!(flag_of(spec.key), format!("--{}", spec.flag));
        }
        assert_eq!(flag_of("sample_length"), "--sample-ms");
        assert_eq!(help_text("One sentence."), "One sentence");
        assert_eq!(help_text("Two. Sentences."), "Two. Sentences.");
    }

    #[test]
    fn given_values_are_parsed_once_and_kept_by_key() {
        let cmd = SuiteFlags::augment_args(Command::new("run"));
        let matches = cmd
            .try_get_matches_from([
                "run",
                "--matmul-shape",
                "1x2x3",
                "--matmul-shape",
                "4X5x6",
                "--no-coop-matrix",
                "--stream-size",
                "1MiB",
                "--stream-size",
                "64KiB",
            ])
            .expect("parses");
        let flags = SuiteFlags::from_arg_matches(&matches).expect("values");
        assert_eq!(
            flags.values["matmul_shapes"],
            serde_json::json!(["1x2x3", "4x5x6"])
        );
        assert_eq!(flags.values["coop_matrix"], Value::Bool(false));
        assert_eq!(flags.values["stream_size"], Value::from(65536u64));
        assert!(!flags.values.contains_key("duration"), "not given, not set");
    }
}
