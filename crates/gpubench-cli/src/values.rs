//! Flag values that name something from a list: the suites (from the registry) and the on/off
//! switches. The profile and the shader checks are the library's own enums (their `clap`
//! feature). Each list comes from where the things are defined, so `--help` lists them and a
//! typo is a usage error (exit 2) naming the known values, before any adapter is opened.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, Command, ValueEnum};
use gpubench_engine::Included;
use gpubench_suites::REGISTRY;

/// A switch given as a value, `on` or `off` (`--telemetry`, `--noise-check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    // No doc comments on the variants: clap would list them as help under `--help`, where
    // `[possible values: on, off]` says all there is.
    On,
    Off,
}

impl OnOff {
    /// Whether the switch is on.
    pub fn is_on(self) -> bool {
        self == OnOff::On
    }
}

/// A flag value refused with `message`, a usage error (exit 2) formatted against `cmd` so
/// that its usage line and the `--help` hint follow.
pub fn invalid_value(cmd: &Command, message: String) -> clap::Error {
    clap::Error::raw(ErrorKind::InvalidValue, message).format(&mut cmd.clone())
}

/// One known name and what `--help` says about it.
type Choice = (&'static str, Option<String>);

/// Parses a name from a list known at run time into the list's own `&'static str`. A wrong
/// name is refused as `--FLAG VALUE: unknown NOUN (known: ...)`.
#[derive(Clone)]
pub struct Known {
    noun: &'static str,
    choices: fn() -> Vec<Choice>,
}

/// `--suite`: a suite of the registry.
pub fn suite_parser() -> Known {
    Known {
        noun: "suite",
        choices: || {
            REGISTRY
                .listed()
                .map(|suite| {
                    let info = suite.info();
                    let when = match info.included {
                        Included::Always => "",
                        Included::FullProfile => " (default in the full profile only)",
                        Included::WhenNamed | Included::WhenItsOptionIsGiven => {
                            " (only when named)"
                        }
                    };
                    (info.name, Some(format!("{}{when}", info.about)))
                })
                .chain([(
                    gpubench_engine::registry::ALL,
                    Some("every suite above, whatever the profile".to_string()),
                )])
                .collect()
        },
    }
}

impl TypedValueParser for Known {
    type Value = &'static str;

    fn parse_ref(
        &self,
        cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<Self::Value, clap::Error> {
        let text = value.to_string_lossy();
        let choices = (self.choices)();
        if let Some(&(name, _)) = choices.iter().find(|(name, _)| *name == text) {
            return Ok(name);
        }
        let flag = arg
            .and_then(Arg::get_long)
            .map_or_else(String::new, |long| format!("--{long} "));
        let known: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
        let message = format!(
            "{flag}{text}: unknown {} (known: {})",
            self.noun,
            known.join(", ")
        );
        Err(invalid_value(cmd, message))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let values = (self.choices)().into_iter().map(|(name, help)| match help {
            Some(help) => PossibleValue::new(name).help(help),
            None => PossibleValue::new(name),
        });
        Some(Box::new(values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::shader_checks::ShaderChecks;

    #[test]
    fn every_suite_is_a_value() {
        let suites: Vec<String> = suite_parser()
            .possible_values()
            .expect("listed")
            .map(|v| v.get_name().to_string())
            .collect();
        let mut named = REGISTRY.names();
        named.push("all");
        assert_eq!(suites, named);
        let checks: Vec<ShaderChecks> = ShaderChecks::value_variants().to_vec();
        assert_eq!(checks, ShaderChecks::ALL);
    }
}
