//! Every file a command reads or writes, checked before any work starts.
//!
//! An output may replace only a regular file, or take a path that does not exist yet in a
//! writable directory: a device node, a FIFO, a socket or a directory is refused (gpubench
//! writes its files atomically, by renaming a temporary file over the target, which would turn
//! `/dev/null` into a regular file). No output may be the same file as an input or as another
//! output: files are compared by identity (device and inode where the platform has them, else
//! the canonical path), not by spelling, so `./v.json`, `v.json` and `/abs/v.json` are one file.
//! Every refusal is a usage error (exit 2) naming the flag.

use std::path::{Path, PathBuf};

use crate::baseline_dir::BaselineDir;
use crate::exit::UsageError;

/// The inputs and outputs of one command, gathered so each new one is checked against all
/// earlier ones.
#[derive(Default, Clone)]
pub struct Files {
    entries: Vec<Entry>,
}

/// One file with what names it on the command line.
#[derive(Clone)]
struct Entry {
    role: String,
    path: PathBuf,
    identity: Identity,
    output: bool,
}

impl Files {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file the command reads; `role` names it in messages ("input", "--baseline").
    /// Two inputs may be one file; an input and an output may not.
    pub fn input(&mut self, role: &str, path: &Path) -> anyhow::Result<()> {
        self.add(role, path, false)
    }

    /// Adds a file the command writes after checking that it may be written (see the module
    /// docs); `flag` names it in messages.
    pub fn output(&mut self, flag: &str, path: &Path) -> anyhow::Result<()> {
        check_output(flag, path)?;
        self.add(flag, path, true)
    }

    /// Adds a file the command writes whose directory it creates itself (the default results
    /// path): only its identity is checked.
    pub fn planned_output(&mut self, role: &str, path: &Path) -> anyhow::Result<()> {
        self.add(role, path, true)
    }

    /// Refuses `path` when it is the same file as one already added.
    fn add(&mut self, role: &str, path: &Path, output: bool) -> anyhow::Result<()> {
        let identity = Identity::of(path);
        let clash = self
            .entries
            .iter()
            .find(|e| (output || e.output) && e.identity.same(&identity));
        if let Some(other) = clash {
            return Err(UsageError(format!(
                "{role} {} is the same file as {} {}: give each output its own path, never an input's",
                path.display(),
                other.role,
                other.path.display()
            ))
            .into());
        }
        self.entries.push(Entry {
            role: role.to_string(),
            path: path.to_path_buf(),
            identity,
            output,
        });
        Ok(())
    }
}

/// What makes two paths one file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    /// The canonical path: of the file when it exists, else of its directory joined with its
    /// name.
    canonical: PathBuf,
    /// Device and inode of an existing file (hard links share them).
    inode: Option<(u64, u64)>,
}

impl Identity {
    fn of(path: &Path) -> Self {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| {
            let dir = std::fs::canonicalize(parent_dir(path))
                .unwrap_or_else(|_| parent_dir(path).to_path_buf());
            match path.file_name() {
                Some(name) => dir.join(name),
                None => path.to_path_buf(),
            }
        });
        Self {
            canonical,
            inode: inode(path),
        }
    }

    fn same(&self, other: &Self) -> bool {
        self.canonical == other.canonical || (self.inode.is_some() && self.inode == other.inode)
    }
}

#[cfg(unix)]
fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// The directory a file is written into (`.` for a bare name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Refuses an output path that is not a regular file or a new name in an existing, writable
/// directory.
pub fn check_output(flag: &str, path: &Path) -> anyhow::Result<()> {
    let refuse = |why: String| Err(UsageError(format!("{flag} {}: {why}", path.display())).into());
    // `results/` names a directory: a file cannot be written there under that name. Nor
    // `new.json/.` or `x/..`, whose last component a `Path` drops or cannot name as a file (the
    // check below would look at `new.json` and the rename fail after the run).
    let raw = path.as_os_str().to_string_lossy();
    if raw.ends_with(std::path::is_separator) {
        return refuse(
            "ends with a path separator, so it names a directory; give a file name".into(),
        );
    }
    let last = raw
        .rsplit(std::path::is_separator)
        .next()
        .unwrap_or_default();
    if last == "." || last == ".." {
        return refuse(format!(
            "ends with `{last}`, so it names a directory; give a file name"
        ));
    }
    let dir = parent_dir(path);
    if dir.exists() && !dir.is_dir() {
        return refuse(format!(
            "{} is a file, not a directory: the results cannot go inside it",
            dir.display()
        ));
    }
    // The destination's own entry, not what a link there points at: a link is refused, so the
    // rename that writes the file can never replace it (`/dev/stdout` is one) or its target.
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return refuse(
                "is a symbolic link; gpubench writes only regular files and never replaces a link: give the path it points to, or another name"
                    .into(),
            );
        }
        Ok(meta) if meta.is_dir() => return refuse("is a directory; give a file name".into()),
        Ok(meta) if !meta.is_file() => {
            return refuse(
                "is not a regular file (a device, FIFO or socket); gpubench writes only regular files, give a file path"
                    .into(),
            );
        }
        Ok(_) => {}
        // A name the system refuses outright (longer than the file system allows, a loop of
        // links): said now, before any work, not when the first result is written.
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            return refuse(format!("cannot be written ({error})"));
        }
        Err(_) => {}
    }
    if !dir.is_dir() {
        return refuse(format!("directory {} does not exist", dir.display()));
    }
    if let Err(error) = writable(dir) {
        return refuse(format!(
            "directory {} is not writable ({error})",
            dir.display()
        ));
    }
    Ok(())
}

/// Refuses a baseline directory that is not one: an existing non-directory always, and, when
/// the run is to record a baseline, a directory that cannot be created or written. The message
/// names what named it (the flag, the environment variable).
pub fn check_baseline_dir(dir: &BaselineDir, saving: bool) -> anyhow::Result<()> {
    check_dir(
        dir.named_by,
        &dir.path,
        "the directory that holds baselines",
        saving,
    )
}

/// Refuses an output directory (`flag`'s value, files are to be written into it) that is not
/// one, or that cannot be created or written.
pub fn check_output_dir(flag: &str, dir: &Path, holds: &str) -> anyhow::Result<()> {
    check_dir(flag, dir, holds, true)
}

/// An existing non-directory is refused always; where files are to be `written`, a directory
/// that cannot be created or written too. `holds` says what the directory is for.
fn check_dir(flag: &str, dir: &Path, holds: &str, written: bool) -> anyhow::Result<()> {
    let refuse = |why: String| Err(UsageError(format!("{flag} {}: {why}", dir.display())).into());
    if dir.exists() && !dir.is_dir() {
        return refuse(format!("is not a directory; give {holds}"));
    }
    if !written {
        return Ok(());
    }
    // A name the system refuses outright (a component longer than the file system allows):
    // said now, not after the run, when the baseline would be written.
    if let Err(error) = std::fs::symlink_metadata(dir)
        && error.kind() != std::io::ErrorKind::NotFound
    {
        return refuse(format!("cannot be created ({error})"));
    }
    // The nearest existing ancestor is where the directory (or the file) gets created.
    let existing = dir
        .ancestors()
        .find(|a| a.is_dir() || a.as_os_str().is_empty());
    let existing = match existing {
        Some(a) if a.as_os_str().is_empty() => Path::new("."),
        Some(a) => a,
        None => return refuse("no existing directory above it".into()),
    };
    if let Some(blocker) = dir
        .ancestors()
        .take_while(|a| *a != existing)
        .find(|a| a.exists())
    {
        return refuse(format!("{} is not a directory", blocker.display()));
    }
    match writable(existing) {
        Ok(()) => Ok(()),
        Err(error) => refuse(format!(
            "directory {} is not writable ({error})",
            existing.display()
        )),
    }
}

/// Whether `dir` takes a new file, asked of the system without writing one: write and search
/// permission for this process's effective ids, on a file system mounted writable
/// (`faccessat` with `AT_EACCESS`). No probe file, so nothing another user planted in a shared
/// directory (a link, a FIFO) is ever opened by the check.
#[cfg(unix)]
fn writable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: faccessat reads the NUL-terminated path it is given and nothing else.
    let status = unsafe {
        libc::faccessat(
            libc::AT_FDCWD,
            path.as_ptr(),
            libc::W_OK | libc::X_OK,
            libc::AT_EACCESS,
        )
    };
    match status {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Whether `dir` takes a new file: one is created there under a random name, exclusively
/// (create-new: never through a link or into a FIFO another user planted), and removed at
/// once (where the system has no access check by effective ids).
#[cfg(not(unix))]
fn writable(dir: &Path) -> std::io::Result<()> {
    tempfile::Builder::new()
        .prefix(".gpubench-")
        .suffix(".tmp")
        .tempfile_in(dir)?
        .close()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A baseline directory given by `--baseline-dir`.
    fn flag(path: PathBuf) -> BaselineDir {
        BaselineDir {
            path,
            named_by: "--baseline-dir",
        }
    }

    #[test]
    fn one_file_under_two_spellings_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("v.json");
        std::fs::write(&file, b"{}").expect("write");
        let dotted = dir.path().join(".").join("v.json");
        let mut files = Files::new();
        files.input("input", &file).expect("first");
        files.input("input", &dotted).expect("one file read twice");
        let error = files.output("--html", &dotted).expect_err("same file");
        assert!(error.to_string().contains("same file as input"), "{error}");
        let new = dir.path().join("new.json");
        files.output("--out", &new).expect("a new name");
        let again = dir.path().join("sub").join("..").join("new.json");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        assert!(
            files.output("--html", &again).is_err(),
            "two outputs, one path"
        );
    }

    /// A temporary directory holding `victim.json`, a file that says `keep` and that nothing
    /// may write through a link to; the directory and the file's path.
    #[cfg(unix)]
    fn dir_with_victim() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let victim = dir.path().join("victim.json");
        std::fs::write(&victim, b"keep").expect("write");
        (dir, victim)
    }

    #[cfg(unix)]
    #[test]
    fn a_link_at_the_destination_is_refused_and_left_with_its_target() {
        let (dir, target) = dir_with_victim();
        let link = dir.path().join("out.json");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let error = check_output("--export-json", &link).expect_err("a link");
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(std::fs::read(&target).expect("read"), b"keep");
        // A dangling link too: writing through it would create a file elsewhere.
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("nowhere.json"), &dangling).expect("symlink");
        assert!(check_output("--out", &dangling).is_err());
        // A link above the destination is a directory like any other.
        let linked_dir = dir.path().join("results");
        std::os::unix::fs::symlink(dir.path(), &linked_dir).expect("symlink");
        check_output("--out", &linked_dir.join("new.json")).expect("a linked directory");
    }

    #[cfg(unix)]
    #[test]
    fn the_writability_check_writes_nothing_and_follows_no_link() {
        let (dir, victim) = dir_with_victim();
        // The names an earlier gpubench probed with, all taken by links to the victim.
        for pid in [std::process::id(), 1, 2] {
            let planted = dir.path().join(format!(".gpubench-write-test-{pid}"));
            std::os::unix::fs::symlink(&victim, planted).expect("symlink");
        }
        let listing = || {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .expect("list")
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        let before = listing();
        check_output("--out", &dir.path().join("r.json")).expect("writable");
        check_baseline_dir(&flag(dir.path().join("baselines")), true).expect("creatable");
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep");
        assert_eq!(listing(), before, "the check writes no file at all");
    }

    #[test]
    fn names_the_system_would_refuse_are_refused_up_front() {
        let dir = tempfile::tempdir().expect("temp dir");
        let slash = format!(
            "{}{}",
            dir.path().join("r").display(),
            std::path::MAIN_SEPARATOR
        );
        let error = check_output("--out", Path::new(&slash)).expect_err("a directory name");
        assert!(error.to_string().contains("path separator"), "{error}");
        // With the platform's separator, and with `/`, which separates on every platform.
        for (separator, last) in [(std::path::MAIN_SEPARATOR, "."), ('/', ".."), ('/', ".")] {
            let named = format!("{}{separator}{last}", dir.path().join("new.json").display());
            let error = check_output("--out", Path::new(&named)).expect_err("a directory name");
            assert!(error.to_string().contains("names a directory"), "{error}");
        }
        let error = check_output("--out", Path::new(".")).expect_err("this directory");
        assert!(error.to_string().contains("names a directory"), "{error}");
        let long = dir.path().join("b".repeat(300));
        let error = check_baseline_dir(&flag(long.clone()), true).expect_err("too long");
        assert!(error.to_string().contains("cannot be created"), "{error}");
        check_baseline_dir(&flag(long), false).expect("not saving: never written");
    }

    #[test]
    fn a_hard_link_is_the_same_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("v.json");
        std::fs::write(&file, b"{}").expect("write");
        let link = dir.path().join("link.json");
        std::fs::hard_link(&file, &link).expect("link");
        let mut files = Files::new();
        files.input("input", &file).expect("first");
        assert!(files.output("--out", &link).is_err());
    }

    #[test]
    fn only_regular_files_may_be_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(check_output("--out", dir.path()).is_err());
        #[cfg(unix)]
        {
            let error = check_output("--out", Path::new("/dev/null")).expect_err("a device");
            assert!(error.to_string().contains("not a regular file"), "{error}");
        }
        let regular = dir.path().join("r.json");
        std::fs::write(&regular, b"x").expect("write");
        check_output("--out", &regular).expect("a regular file");
        // A name longer than any file system allows is refused at once.
        let long = dir.path().join(format!("{}.json", "n".repeat(300)));
        let error = check_output("--html", &long).expect_err("too long");
        assert!(error.to_string().contains("cannot be written"), "{error}");
        // Below a file: the message says it is a file, not that a directory is missing.
        let error = check_output("--out", &regular.join("x.json")).expect_err("below a file");
        assert!(
            error.to_string().contains("is a file, not a directory"),
            "{error}"
        );
    }

    #[test]
    fn a_baseline_dir_that_is_a_file_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").expect("write");
        assert!(check_baseline_dir(&flag(file.clone()), false).is_err());
        assert!(check_baseline_dir(&flag(file.join("below")), true).is_err());
        let deeper = dir.path().join("new").join("deeper");
        check_baseline_dir(&flag(deeper), true).expect("creatable");
        // Named by the environment, the message names the variable, not a flag never given.
        let from_env = BaselineDir {
            path: file.clone(),
            named_by: gpubench_baseline::store::DIR_ENV,
        };
        let error = check_baseline_dir(&from_env, false).expect_err("a file");
        assert!(
            error.to_string().starts_with("GPUBENCH_BASELINE_DIR "),
            "{error}"
        );
        let refused = check_output_dir("--dir", &file, "the directory for the pages")
            .expect_err("a file is no directory");
        assert_eq!(crate::exit::exit_for(&refused), crate::exit::Exit::Usage);
        assert!(refused.to_string().starts_with("--dir "), "{refused}");
    }
}
