//! The suites a build knows, checked once: unique names, every `after` met by registry order,
//! every option key and flag owned by one suite. Everything a front end lists (the `--suite`
//! values, the option flags, the pipelines `gpubench kernels` compiles, the shaders the tests
//! validate) comes from here, so no other list names a suite.

use gpubench_harness::Profile;
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::forms::KernelForms;

use crate::{Included, OptionSpec, PlanError, Suite};

/// Why a set of suites is not a registry (a mistake in the code, found by its tests).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    /// Two suites share a name.
    #[error("two suites are called '{0}'")]
    DuplicateName(&'static str),
    /// A suite is listed before a suite it runs after, or after a suite that does not exist.
    #[error("suite '{suite}' runs after '{after}', which is not listed before it")]
    Order {
        /// The suite.
        suite: &'static str,
        /// The suite it names in `after`.
        after: &'static str,
    },
    /// Two options share a key or a flag.
    #[error("option '{0}' is declared twice (keys and flags are unique across suites)")]
    DuplicateOption(&'static str),
}

/// The name that asks for every suite a user may name (`--suite all`).
pub const ALL: &str = "all";

/// A constructor of one suite: a registry line.
pub type SuiteConstructor = fn() -> Box<dyn Suite>;

/// Every suite of a build, in the order a run takes them.
pub struct Registry {
    suites: Vec<Box<dyn Suite>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.all().map(|s| s.name()))
            .finish()
    }
}

impl Registry {
    /// The suites `lines` build, in order, checked.
    pub fn new(lines: &[SuiteConstructor]) -> Result<Self, RegistryError> {
        let suites: Vec<Box<dyn Suite>> = lines.iter().map(|build| build()).collect();
        let (mut keys, mut flags) = (Vec::new(), Vec::new());
        for (i, suite) in suites.iter().enumerate() {
            let info = suite.info();
            if info.name == ALL || suites[..i].iter().any(|s| s.name() == info.name) {
                return Err(RegistryError::DuplicateName(info.name));
            }
            for after in info.after {
                if !suites[..i].iter().any(|s| s.name() == *after) {
                    return Err(RegistryError::Order {
                        suite: info.name,
                        after,
                    });
                }
            }
            for spec in suite.options() {
                if keys.contains(&spec.key) || flags.contains(&spec.flag) {
                    return Err(RegistryError::DuplicateOption(spec.key));
                }
                keys.push(spec.key);
                flags.push(spec.flag);
            }
        }
        Ok(Self { suites })
    }

    /// Every suite, hidden ones included, in registry order.
    pub fn all(&self) -> impl Iterator<Item = &dyn Suite> {
        self.suites.iter().map(AsRef::as_ref)
    }

    /// The suites a user may name, in registry order.
    pub fn listed(&self) -> impl Iterator<Item = &dyn Suite> {
        self.all()
            .filter(|s| s.info().included != Included::WhenItsOptionIsGiven)
    }

    /// The names a user may give to `--suite`, in registry order.
    pub fn names(&self) -> Vec<&'static str> {
        self.listed().map(|s| s.name()).collect()
    }

    /// The listed suite called `name`.
    pub fn find(&self, name: &str) -> Result<&dyn Suite, PlanError> {
        self.listed()
            .find(|s| s.name() == name)
            .ok_or_else(|| PlanError::UnknownSuite {
                name: name.to_string(),
                known: self.names().join(", "),
            })
    }

    /// Suites a run of `profile` takes when none are named, in registry order.
    pub fn defaults(&self, profile: Profile) -> Vec<&'static str> {
        self.listed()
            .filter(|s| match s.info().included {
                Included::Always => true,
                Included::FullProfile => profile == Profile::Full,
                Included::WhenNamed | Included::WhenItsOptionIsGiven => false,
            })
            .map(|s| s.name())
            .collect()
    }

    /// Every suite's options, with the name of the suite that owns each.
    pub fn options(&self) -> Vec<(&'static str, &'static OptionSpec)> {
        self.all()
            .flat_map(|s| s.options().iter().map(move |spec| (s.name(), spec)))
            .collect()
    }

    /// The option whose key is `key`.
    pub fn option(&self, key: &str) -> Option<&'static OptionSpec> {
        self.all()
            .flat_map(|s| s.options().iter())
            .find(|spec| spec.key == key)
    }

    /// Every suite's WGSL files: (suite, file name, source).
    pub fn shaders(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        self.all()
            .flat_map(|s| {
                s.shaders()
                    .iter()
                    .map(move |(file, src)| (s.name(), *file, *src))
            })
            .collect()
    }

    /// Every pipeline every suite can build on an adapter with `facts` in a run of `profile`,
    /// in registry order, each named with its suite.
    pub fn pipelines(&self, facts: AdapterFacts, profile: Profile) -> KernelForms {
        let mut forms = Vec::new();
        for suite in self.all() {
            for mut form in suite.pipelines(facts, profile)? {
                form.suite = suite.name();
                forms.push(form);
            }
        }
        Ok(forms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Arity, Benchmarks, BuildContext, SuiteInfo};

    /// A suite that is only its info and options.
    struct Fake(SuiteInfo, &'static [OptionSpec]);

    impl Suite for Fake {
        fn info(&self) -> SuiteInfo {
            self.0.options(self.1)
        }

        fn benchmarks<'a>(
            &'a self,
            _build: &'a mut BuildContext<'_>,
        ) -> gpubench_harness::LocalFuture<'a, Benchmarks> {
            Box::pin(async { Ok(Vec::new()) })
        }
    }

    const fn info(name: &'static str, after: &'static [&'static str]) -> SuiteInfo {
        SuiteInfo::new(name, "a fake").after(after)
    }

    const SIZE: OptionSpec = OptionSpec {
        key: "size",
        flag: "size",
        value_name: "N",
        help: "a size",
        arity: Arity::One,
        default: || serde_json::Value::Null,
        parse: |text| Ok(serde_json::Value::from(text)),
        choices: None,
        hidden: false,
    };

    #[test]
    fn names_order_and_options_are_checked_once() {
        let ok = Registry::new(&[
            || Box::new(Fake(info("a", &[]), &[SIZE])),
            || Box::new(Fake(info("b", &["a"]), &[])),
        ])
        .expect("valid");
        assert_eq!(ok.names(), ["a", "b"]);
        assert_eq!(ok.option("size").map(|s| s.flag), Some("size"));
        assert!(matches!(ok.find("c"), Err(PlanError::UnknownSuite { .. })));
        assert_eq!(
            Registry::new(&[
                || Box::new(Fake(info("a", &[]), &[])),
                || { Box::new(Fake(info("a", &[]), &[])) }
            ])
            .err(),
            Some(RegistryError::DuplicateName("a"))
        );
        assert_eq!(
            Registry::new(&[
                || Box::new(Fake(info("b", &["a"]), &[])),
                || { Box::new(Fake(info("a", &[]), &[])) }
            ])
            .err(),
            Some(RegistryError::Order {
                suite: "b",
                after: "a"
            })
        );
        assert_eq!(
            Registry::new(&[
                || Box::new(Fake(info("a", &[]), &[SIZE])),
                || { Box::new(Fake(info("b", &[]), &[SIZE])) }
            ])
            .err(),
            Some(RegistryError::DuplicateOption("size"))
        );
        assert_eq!(
            Registry::new(&[|| Box::new(Fake(info(ALL, &[]), &[]))]).err(),
            Some(RegistryError::DuplicateName(ALL)),
            "`all` is the word for every suite"
        );
    }
}
