//! The temporary files being written right now. Every file gpubench writes is written to a
//! temporary file beside its destination and renamed over it, so a reader never sees half a
//! file. A process ended between the two (a second Ctrl-C, the stop watchdog) would leave the
//! temporary file behind; the binary calls [`remove_all`] before such an exit, so nothing is
//! left but the destination as it was before, or as it is after.

use std::path::PathBuf;
use std::sync::Mutex;

/// The temporary files now being written, by path.
static WRITING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file listed while it is written; dropping it (after the rename, or on an
/// error, when the temporary file removes itself) takes it off the list.
pub struct Writing(PathBuf);

impl Writing {
    /// Lists `path` as being written.
    pub fn start(path: PathBuf) -> Self {
        if let Ok(mut writing) = WRITING.lock() {
            writing.push(path.clone());
        }
        Self(path)
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        if let Ok(mut writing) = WRITING.lock()
            && let Some(at) = writing.iter().position(|p| *p == self.0)
        {
            writing.swap_remove(at);
        }
    }
}

/// Removes every temporary file now being written (a process about to end without unwinding
/// calls this); the number removed. Never waits for a writer: where the list is busy, it is
/// left as it is.
pub fn remove_all() -> usize {
    let Ok(writing) = WRITING.try_lock() else {
        return 0;
    };
    writing
        .iter()
        .filter(|path| std::fs::remove_file(path).is_ok())
        .count()
}
