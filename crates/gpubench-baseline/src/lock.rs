//! The store's lock: savers of one baseline take turns under an advisory lock on a file the
//! store owns, `.<baseline>.lock` beside the baseline, never on the directory itself (anyone who
//! can open a directory can lock it, and would hang every save there).
//!
//! The lock file is opened without following a link and without blocking (a FIFO planted there
//! neither redirects nor hangs it), and must be a regular file. The wait for another saver is
//! bounded: a save takes milliseconds, so a lock held for [`DEFAULT_WAIT`] is someone else's
//! problem, said with the lock's path, and the save gives up. Advisory locks cannot stop a
//! writer who ignores them; the aim is that no save hangs and none loses data (the baseline
//! itself is always replaced atomically). The system releases the lock when the process ends
//! however it ends, so a killed saver leaves no stale lock.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::BaselineError;

/// How long a save waits for another saver of the same baseline before giving up.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// How often a waiting save tries again.
const RETRY: Duration = Duration::from_millis(50);

/// The lock file of the baseline at `baseline`: `.<name>.lock` beside it.
pub fn lock_path(baseline: &Path) -> PathBuf {
    let name = baseline
        .file_name()
        .map_or_else(|| "baseline".into(), |n| n.to_string_lossy().into_owned());
    baseline.with_file_name(format!(".{name}.lock"))
}

/// Takes the lock of the baseline at `baseline`, waiting at most `wait` for another saver;
/// held until the returned file is dropped.
pub fn acquire(baseline: &Path, wait: Duration) -> Result<File, BaselineError> {
    let path = lock_path(baseline);
    let file = open_lock_file(&path)?;
    let started = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => {
                say_who_holds(&file);
                return Ok(file);
            }
            Err(TryLockError::WouldBlock) if started.elapsed() < wait => std::thread::sleep(RETRY),
            Err(TryLockError::WouldBlock) => {
                return Err(BaselineError::LockBusy {
                    holder: holder(&path),
                    path,
                    waited_s: wait.as_secs_f64(),
                });
            }
            Err(TryLockError::Error(source)) => return Err(BaselineError::Io { path, source }),
        }
    }
}

/// Writes this process's id into the lock it holds, so a saver kept waiting can say who holds
/// it. Best effort: the lock works without it.
fn say_who_holds(mut file: &File) {
    use std::io::{Seek, Write};
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| write!(file, "{}", std::process::id()));
}

/// Who holds the lock at `path`, as its holder wrote it: `process N`; `None` when it cannot be
/// read (the file is bounded and read without blocking, like every file gpubench reads).
fn holder(path: &Path) -> Option<String> {
    let text = gpubench_results::bounded::read_text_bounded(path, 64).ok()?;
    let pid: u32 = text.trim().parse().ok()?;
    Some(format!("process {pid}"))
}

/// Opens (creating) the lock file: never through a link, never blocking on a FIFO, and only a
/// regular file.
fn open_lock_file(path: &Path) -> Result<File, BaselineError> {
    let not_regular = || BaselineError::LockNotRegular {
        path: path.to_path_buf(),
    };
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(not_regular());
    }
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The check above can race with a link planted after it: O_NOFOLLOW refuses one then.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|source| {
        if source.raw_os_error() == Some(ELOOP) {
            return not_regular();
        }
        BaselineError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    match file.metadata() {
        Ok(meta) if meta.is_file() => Ok(file),
        Ok(_) => Err(not_regular()),
        Err(source) => Err(BaselineError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The error a no-follow open gives for a link.
#[cfg(unix)]
const ELOOP: i32 = libc::ELOOP;
#[cfg(not(unix))]
const ELOOP: i32 = -1;

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_waited_for_a_bounded_time_then_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let baseline = dir.path().join("key.json");
        let held = acquire(&baseline, DEFAULT_WAIT).expect("first");
        let started = Instant::now();
        let error = acquire(&baseline, Duration::from_millis(200)).expect_err("busy");
        assert!(started.elapsed() < Duration::from_secs(5));
        let text = error.to_string();
        assert!(
            text.contains(".key.json.lock") && text.contains("0.2 s"),
            "{text}"
        );
        drop(held);
        acquire(&baseline, Duration::ZERO).expect("free again");
    }

    #[test]
    fn a_locked_directory_does_not_stop_a_save() {
        let dir = tempfile::tempdir().expect("temp dir");
        let other = File::open(dir.path()).expect("open the directory");
        other.lock().expect("someone locks the directory itself");
        acquire(&dir.path().join("key.json"), Duration::ZERO).expect("not the store's lock");
    }

    #[test]
    fn a_link_or_fifo_at_the_lock_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().expect("temp dir");
        let baseline = dir.path().join("key.json");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").expect("write");
        std::os::unix::fs::symlink(&victim, lock_path(&baseline)).expect("symlink");
        let error = acquire(&baseline, Duration::ZERO).expect_err("a link");
        assert!(
            matches!(error, BaselineError::LockNotRegular { .. }),
            "{error}"
        );
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep");

        let other = dir.path().join("other.json");
        let status = std::process::Command::new("mkfifo")
            .arg(lock_path(&other))
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
        let started = Instant::now();
        assert!(acquire(&other, Duration::ZERO).is_err());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no hang on a FIFO"
        );
    }
}
