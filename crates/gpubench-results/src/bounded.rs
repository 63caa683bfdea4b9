//! The one way gpubench reads a file: opened without blocking, refused unless it is a regular
//! file, and never read past a limit. sysfs attributes, `/proc` entries, telemetry scripts and
//! results files all come through here, so a FIFO where a file should be cannot hang a run,
//! and a link to `/dev/zero` cannot fill memory (both are things any local user can arrange
//! under `GPUBENCH_SYSFS_ROOT` or a results directory).

use std::io::Read;
use std::path::Path;

/// Limit for small system files (sysfs attributes, `/proc` entries, `/etc/os-release`): far
/// above any real one (`/proc/cpuinfo` on a 256-thread host is about 400 KiB).
pub const SYSTEM_FILE_BYTES: u64 = 4 << 20;

/// The bytes of the regular file at `path`, at most `limit` of them: an error of kind
/// `InvalidInput` for anything else (a FIFO, a device, a socket, a directory) and
/// `FileTooLarge` past the limit. The open does not block, whatever the file is.
pub fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = open_nonblocking(path)?;
    // The kind is that of the file opened, not of a name that may have changed since.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, device, socket or directory): refused",
        ));
    }
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than the {limit}-byte limit for this file"),
        )
    };
    // A file that says it is too large is refused before a byte is read; one that grows while
    // read (or reports no size, as /proc does) is cut off one byte past the limit.
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_bounded`] as text (invalid UTF-8 replaced: these are names and numbers to show).
pub fn read_text_bounded(path: &Path, limit: u64) -> std::io::Result<String> {
    read_bounded(path, limit).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
    // It changes nothing for regular files.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A FIFO named `name` in `dir`, which nobody writes.
    #[cfg(unix)]
    pub(crate) fn fifo_in(dir: &Path, name: &str) -> std::path::PathBuf {
        let fifo = dir.join(name);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {}", fifo.display());
        fifo
    }

    #[test]
    fn regular_files_are_read_up_to_the_limit_and_nothing_else_is_opened() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").expect("write");
        assert_eq!(read_bounded(&file, 5).expect("at the limit"), b"12345");
        let err = read_bounded(&file, 4).expect_err("over");
        assert_eq!(err.kind(), std::io::ErrorKind::FileTooLarge);
        let err = read_bounded(dir.path(), 10).expect_err("a directory");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        #[cfg(unix)]
        {
            // A device behind a link, and a FIFO nobody writes: refused at once.
            let zero = dir.path().join("zero");
            std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
            let err = read_bounded(&zero, 1 << 30).expect_err("a device");
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
            let fifo = fifo_in(dir.path(), "fifo");
            let err = read_bounded(&fifo, 10).expect_err("a FIFO");
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        }
    }
}
