//! What wgpu and its drivers report through the `log` crate (validation-layer messages, driver
//! warnings, device loss details) as stderr lines. Quiet by default: a benchmark's stderr is for
//! its own progress. The filter, first found wins: `--log`, then `GPUBENCH_LOG`, then `RUST_LOG`
//! (both in env_logger's syntax, `warn` or `wgpu_hal=info,warn`), then `warn` where
//! `WGPU_VALIDATION` asks for validation (whoever asks for it wants to see what it finds), else
//! nothing. Lines go through the terminal's escaping rule like every other stderr line.

use std::io::Write as _;

/// The filter from the environment when no `--log` is given: `GPUBENCH_LOG`, `RUST_LOG`, then
/// `warn` when `WGPU_VALIDATION` is set to anything but `0`.
fn filter_from_env(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    set("GPUBENCH_LOG").or_else(|| set("RUST_LOG")).or_else(|| {
        set("WGPU_VALIDATION")
            .filter(|v| v.trim() != "0")
            .map(|_| "warn".to_string())
    })
}

/// The levels a filter names.
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// `--log`'s value, checked: comma-separated directives (empty ones are passed over), each a
/// level, a target (a module path: letters, digits, `_` and `::`) or `target=level`, then
/// optionally env_logger's `/text` message filter. env_logger passes over what it cannot parse
/// with at most a warning, so `--log verbose=1` or `--log wgpu=loud` would log nothing and say
/// so only in passing; here they are refused with what is accepted.
pub fn checked_filter(text: &str) -> Result<String, String> {
    let is_level = |word: &str| LEVELS.contains(&word.to_ascii_lowercase().as_str());
    let is_target = |word: &str| {
        !word.is_empty()
            && word.split("::").all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    };
    let directives = text
        .split_once('/')
        .map_or(text, |(directives, _)| directives);
    for directive in directives
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        let ok = match directive.split_once('=') {
            Some((target, level)) => is_target(target.trim()) && is_level(level.trim()),
            None => is_level(directive) || is_target(directive),
        };
        if !ok {
            return Err(format!(
                "'{directive}' is not a log directive: give a level ({}), a module such as wgpu_hal, or module=level",
                LEVELS.join(", ")
            ));
        }
    }
    Ok(text.to_string())
}

/// The filter in force for `flag` (`--log`) and the process's environment; `None`: no logging.
pub fn filter(flag: Option<&str>) -> Option<String> {
    flag.map(str::to_string)
        .or_else(|| filter_from_env(|name| std::env::var(name).ok()))
        .filter(|f| f.trim() != "off")
}

/// The filter installed by [`init`], for the run's record; `None` before it or without one.
static IN_FORCE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// The log filter in force (see [`init`]).
pub fn in_force() -> Option<String> {
    IN_FORCE.get().cloned().flatten()
}

/// Installs the logger for `filter` (see [`filter`]); nothing when it is `None`.
pub fn init(filter: Option<String>) {
    let _ = IN_FORCE.set(filter.clone());
    let Some(filter) = filter else {
        return;
    };
    let mut builder = env_logger::Builder::new();
    builder.parse_filters(&filter);
    builder.format(|out, record| {
        let line = gpubench_report::numbers::printable(&format!(
            "{}: {}: {}",
            record.level().as_str().to_lowercase(),
            record.target(),
            record.args()
        ));
        writeln!(out, "{line}")
    });
    // Fails only when a logger is already installed: then that one stays.
    let _ = builder.try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Option<String> {
        filter_from_env(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn a_filter_is_levels_modules_and_module_levels() {
        for good in [
            "warn",
            "WARN",
            "wgpu_hal=info,warn",
            "wgpu_core::device=debug",
            "off",
            "warn,",
            "info/wgpu",
        ] {
            assert_eq!(checked_filter(good).as_deref(), Ok(good));
        }
        for bad in ["wgpu=loud", "bad[[[", "=info", "a b", "loud=x/y"] {
            let error = checked_filter(bad).expect_err(bad);
            assert!(error.contains("not a log directive"), "{error}");
        }
    }

    #[test]
    fn the_first_setting_found_wins_and_validation_asks_for_warnings() {
        assert_eq!(from(&[]), None, "quiet by default");
        assert_eq!(from(&[("RUST_LOG", "info")]).as_deref(), Some("info"));
        let both = [("GPUBENCH_LOG", "error"), ("RUST_LOG", "info")];
        assert_eq!(from(&both).as_deref(), Some("error"));
        assert_eq!(from(&[("WGPU_VALIDATION", "1")]).as_deref(), Some("warn"));
        assert_eq!(from(&[("WGPU_VALIDATION", "0")]), None);
        let chosen = [("WGPU_VALIDATION", "1"), ("RUST_LOG", "error")];
        assert_eq!(from(&chosen).as_deref(), Some("error"));
        assert_eq!(from(&[("RUST_LOG", " ")]), None, "blank is unset");
    }
}
