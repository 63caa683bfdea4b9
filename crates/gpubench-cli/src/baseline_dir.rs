//! Where baselines live when `--baseline-dir` and `GPUBENCH_BASELINE_DIR` say nothing: the
//! `baselines/` directory of the working directory where there is one (a checkout of the
//! repository, a CI workspace), otherwise a per-user data directory, so that an installed
//! `gpubench` finds the baseline it recorded whatever directory it is run from.

use std::path::{Path, PathBuf};

/// The directory name looked for in the working directory.
pub const LOCAL: &str = "baselines";

/// The per-user data directory's `gpubench/baselines` for this platform, from the environment
/// `var` reads: `$XDG_DATA_HOME` or `~/.local/share` (Linux and other Unix), `~/Library/
/// Application Support` (macOS), `%APPDATA%` (Windows). `None` without a home to put it in.
/// A relative XDG_DATA_HOME is ignored, as the XDG Base Directory specification says.
pub fn user_dir(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let non_empty = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = if cfg!(windows) {
        non_empty("APPDATA")?
    } else if cfg!(target_os = "macos") {
        non_empty("HOME")?
            .join("Library")
            .join("Application Support")
    } else {
        non_empty("XDG_DATA_HOME")
            .filter(|dir| dir.is_absolute())
            .or_else(|| Some(non_empty("HOME")?.join(".local/share")))?
    };
    Some(base.join("gpubench").join("baselines"))
}

/// The directory to use: `explicit` when given; else `$GPUBENCH_BASELINE_DIR` when `var` finds
/// it set and not empty (an empty one counts as unset); else `baselines/` when the working
/// directory has one; else the per-user directory; else, with a warning (no home to put it
/// in), `baselines/` after all.
pub fn resolve(explicit: Option<&Path>, var: impl Fn(&str) -> Option<String>) -> PathBuf {
    if let Some(dir) = explicit {
        return dir.to_path_buf();
    }
    if let Some(dir) = var(gpubench_baseline::store::DIR_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if Path::new(LOCAL).is_dir() {
        return PathBuf::from(LOCAL);
    }
    user_dir(var).unwrap_or_else(|| {
        note!(
            "warning: no home directory to keep baselines in (HOME{} unset): using ./{LOCAL}; set {} or pass --baseline-dir",
            if cfg!(windows) { "/APPDATA" } else { "" },
            gpubench_baseline::store::DIR_ENV
        );
        PathBuf::from(LOCAL)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn the_user_directory_follows_xdg_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            user_dir(env(&[("XDG_DATA_HOME", "/data"), ("HOME", "/home/u")])),
            Some(PathBuf::from("/data/gpubench/baselines"))
        );
        assert_eq!(
            user_dir(env(&[("XDG_DATA_HOME", ""), ("HOME", "/home/u")])),
            Some(PathBuf::from("/home/u/.local/share/gpubench/baselines"))
        );
        assert_eq!(user_dir(env(&[])), None);
        // A relative XDG_DATA_HOME is not a place: the spec says ignore it.
        assert_eq!(
            user_dir(env(&[("XDG_DATA_HOME", "data"), ("HOME", "/home/u")])),
            Some(PathBuf::from("/home/u/.local/share/gpubench/baselines"))
        );
    }

    #[test]
    fn an_explicit_directory_wins_and_an_empty_variable_counts_as_unset() {
        let var = |value: &'static str| {
            move |name: &str| (name == gpubench_baseline::store::DIR_ENV).then(|| value.to_string())
        };
        assert_eq!(
            resolve(Some(Path::new("x/y")), var("z")),
            PathBuf::from("x/y")
        );
        assert_eq!(resolve(None, var("z")), PathBuf::from("z"));
        assert_ne!(resolve(None, var("")), PathBuf::from(""));
    }
}
