//! Where baselines live when `--baseline-dir` and `GPUBENCH_BASELINE_DIR` say nothing: the
//! `baselines/` directory of the working directory where there is one (a checkout of the
//! repository, a CI workspace), otherwise a per-user data directory, so that an installed
//! `gpubench` finds the baseline it recorded whatever directory it is run from.

use std::path::{Path, PathBuf};

/// The directory name looked for in the working directory.
pub const LOCAL: &str = "baselines";

/// The per-user data directory's `gpubench/baselines` for this platform: `$XDG_DATA_HOME` (when
/// absolute, as the XDG Base Directory specification says) or `~/.local/share` (Linux and
/// other Unix), `~/Library/Application Support` (macOS), `%APPDATA%` (Windows). `None` without
/// a home to put it in. The platform rules are etcetera's (a well-kept crate that follows each
/// platform's convention), not written again here.
pub fn user_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy as _;
    let base = etcetera::base_strategy::choose_native_strategy().ok()?;
    Some(base.data_dir().join("gpubench").join("baselines"))
}

/// A baseline directory and what named it, for what is said about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineDir {
    /// The directory.
    pub path: PathBuf,
    /// `--baseline-dir`, the environment variable, or "baseline directory" where gpubench
    /// chose it.
    pub named_by: &'static str,
}

/// The directory to use: `explicit` when given; else `$GPUBENCH_BASELINE_DIR` when `var` finds
/// it set and not empty (an empty one counts as unset); else `baselines/` when the working
/// directory has one; else the per-user directory; else, with a warning (no home to put it
/// in), `baselines/` after all.
pub fn resolve(explicit: Option<&Path>, var: impl Fn(&str) -> Option<String>) -> BaselineDir {
    let chosen = |path: PathBuf| BaselineDir {
        path,
        named_by: "baseline directory",
    };
    if let Some(dir) = explicit {
        return BaselineDir {
            path: dir.to_path_buf(),
            named_by: "--baseline-dir",
        };
    }
    if let Some(dir) = var(gpubench_baseline::store::DIR_ENV).filter(|v| !v.is_empty()) {
        return BaselineDir {
            path: PathBuf::from(dir),
            named_by: gpubench_baseline::store::DIR_ENV,
        };
    }
    if Path::new(LOCAL).is_dir() {
        return chosen(PathBuf::from(LOCAL));
    }
    chosen(user_dir().unwrap_or_else(|| {
        note!(
            "warning: no home directory to keep baselines in (HOME{} unset): using ./{LOCAL}; set {} or pass --baseline-dir",
            if cfg!(windows) { "/APPDATA" } else { "" },
            gpubench_baseline::store::DIR_ENV
        );
        PathBuf::from(LOCAL)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directory the hand-written rules gave before etcetera: resolved baselines must
    /// stay where users have them.
    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn the_user_directory_is_where_it_always_was() {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let before = var("XDG_DATA_HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".local/share")))
            .map(|base| base.join("gpubench").join("baselines"));
        if let Some(before) = before {
            assert_eq!(user_dir(), Some(before));
        }
        assert!(user_dir().is_some_and(|dir| dir.ends_with("gpubench/baselines")));
    }

    #[test]
    fn an_explicit_directory_wins_and_an_empty_variable_counts_as_unset() {
        let var = |value: &'static str| {
            move |name: &str| (name == gpubench_baseline::store::DIR_ENV).then(|| value.to_string())
        };
        let flag = resolve(Some(Path::new("x/y")), var("z"));
        assert_eq!(
            (flag.path, flag.named_by),
            (PathBuf::from("x/y"), "--baseline-dir")
        );
        let from_env = resolve(None, var("z"));
        assert_eq!(from_env.path, PathBuf::from("z"));
        assert_eq!(from_env.named_by, gpubench_baseline::store::DIR_ENV);
        let unset = resolve(None, var(""));
        assert_ne!(unset.path, PathBuf::from(""));
        assert_eq!(unset.named_by, "baseline directory");
    }
}
