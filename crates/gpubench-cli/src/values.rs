//! Flag values that name something from a fixed list: profiles, faults, suites, matmul
//! variants, shader checks. Each list comes from where the things are defined (the profile enum, the fault
//! table, the suite registry, the variant table), so `--help` lists them and a typo is a usage
//! error (exit 2) naming the known values, before any adapter is opened.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, Command, ValueEnum};
use gpubench_harness::Profile;
use gpubench_suites::faults::Fault;
use gpubench_suites::gpu::ShaderChecks;
use gpubench_suites::{Included, REGISTRY};

/// A `--profile` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileArg(pub Profile);

impl ValueEnum for ProfileArg {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            ProfileArg(Profile::Quick),
            ProfileArg(Profile::Default),
            ProfileArg(Profile::Full),
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self.0 {
            Profile::Quick => "CI and smoke tests: small sizes, few samples",
            Profile::Default => "a real machine in a few minutes",
            Profile::Full => "size sweeps, longer sampling, and the capacity and sustained suites",
        };
        Some(PossibleValue::new(self.0.name()).help(help))
    }
}

/// A `--shader-checks` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShaderChecksArg(pub ShaderChecks);

impl ValueEnum for ShaderChecksArg {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            ShaderChecksArg(ShaderChecks::On),
            ShaderChecksArg(ShaderChecks::Off),
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self.0 {
            ShaderChecks::On => "wgpu's bounds clamping, loop bounding and division guards",
            ShaderChecks::Off => "none of them: every kernel's output is verified before timing",
        };
        Some(PossibleValue::new(self.0.name()).help(help))
    }
}

/// Every fault of the fault table, in its order.
const FAULT_ARGS: [FaultArg; Fault::ALL.len()] = {
    let mut out = [FaultArg(Fault::ALL[0].1); Fault::ALL.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = FaultArg(Fault::ALL[i].1);
        i += 1;
    }
    out
};

/// An `--inject-fault` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultArg(pub Fault);

impl ValueEnum for FaultArg {
    fn value_variants<'a>() -> &'a [Self] {
        &FAULT_ARGS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Fault::ALL
            .iter()
            .find(|(_, fault)| *fault == self.0)
            .map(|(name, _)| PossibleValue::new(*name))
    }
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
                .iter()
                .map(|entry| {
                    let when = match entry.included {
                        Included::Always => "",
                        Included::FullProfile => " (default in the full profile only)",
                        Included::WhenNamed => " (only when named)",
                    };
                    (entry.name, Some(format!("{}{when}", entry.about)))
                })
                .collect()
        },
    }
}

/// `--matmul-variant`: a matmul kernel variant.
pub fn matmul_variant_parser() -> Known {
    Known {
        noun: "variant",
        choices: || {
            gpubench_suites::matmul::variant_names()
                .into_iter()
                .map(|name| (name, None))
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
        // Formatted against the command so the usage line and the `--help` hint follow.
        Err(clap::Error::raw(ErrorKind::InvalidValue, message).format(&mut cmd.clone()))
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

    #[test]
    fn every_fault_and_suite_is_a_value() {
        let faults: Vec<Fault> = FaultArg::value_variants().iter().map(|f| f.0).collect();
        let table: Vec<Fault> = Fault::ALL.iter().map(|(_, f)| *f).collect();
        assert_eq!(faults, table);
        let suites: Vec<String> = suite_parser()
            .possible_values()
            .expect("listed")
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(suites, gpubench_suites::SUITES);
        let checks: Vec<ShaderChecks> = ShaderChecksArg::value_variants()
            .iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(checks, ShaderChecks::ALL);
    }
}
