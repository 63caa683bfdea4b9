//! Everything a command prints on stdout goes through here, so a closed stdout (`gpubench list
//! | head -0`, a reader that went away) ends the command quietly with the shells' exit for
//! SIGPIPE (141) instead of a panic, and a stdout nobody reads cannot hold a signal back.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::exit::Exit;

/// What became of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printed {
    /// All of it was written.
    Written,
    /// The reader had gone (the write failed with a broken pipe).
    Closed,
    /// A stop was requested while the write was still blocked.
    Stopped,
}

/// Writes `text` to stdout and flushes it; a broken pipe is [`Printed::Closed`], any other
/// failure an error.
pub fn print(text: &str) -> anyhow::Result<Printed> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(Printed::Written),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(Printed::Closed),
        Err(error) => Err(anyhow::Error::new(error).context("writing to stdout")),
    }
}

/// Prints a command's output and gives its status: [`exit_after`]. Every command that prints
/// and then ends goes through here.
pub fn print_then(text: &str, exit: Exit) -> anyhow::Result<Exit> {
    Ok(exit_after(print(text)?, exit))
}

/// The status of a command that printed and then ended with `exit`: a closed stdout (141) only
/// where nothing else went wrong. A failure, a regression or any other verdict keeps its own
/// code, so `gpubench run | head` still exits 4 when a benchmark failed.
pub fn exit_after(printed: Printed, exit: Exit) -> Exit {
    match printed {
        Printed::Closed if exit == Exit::Success => Exit::StdoutClosed,
        Printed::Closed | Printed::Written | Printed::Stopped => exit,
    }
}

/// [`print`] on a thread of its own, watched: when `stop` is set while the write is still
/// blocked (a pipe nobody reads), gives up waiting and says so within a poll interval. The
/// blocked thread ends with the process.
pub fn print_unless_stopped(text: String, stop: &Arc<AtomicBool>) -> anyhow::Result<Printed> {
    let writer = std::thread::spawn(move || print(&text));
    while !writer.is_finished() {
        if stop.load(Ordering::SeqCst) {
            return Ok(Printed::Stopped);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    writer
        .join()
        .unwrap_or_else(|_| Err(anyhow::anyhow!("writing to stdout panicked")))
}
