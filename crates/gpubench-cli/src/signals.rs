//! SIGINT and SIGTERM stop a run between samples. The handler only sets flags (nothing else is
//! safe in a signal handler); the run loop sees them, keeps every finished result, marks the file
//! incomplete and exits 130 (SIGINT) or 143 (SIGTERM), as shells do. A second signal, while the
//! first is still being honoured (a blocked write, a wait that will not end), ends the process
//! at once with the same code, as common command-line tools do: every results file on disk is
//! whole already (they are only ever replaced by a rename).
//!
//! Every wait for the GPU ends within a tenth of a second of the first signal (the context's
//! waits come in slices), but CPU work (building a large input, checking a large product) does
//! not look at the flag. So a watchdog thread gives the run [`STOP_GRACE`] after the first
//! signal to write its file and say what it kept; past that it ends the process itself, saying
//! so. The results file then holds what the last save wrote: every result finished before the
//! step that would not stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::exit::Exit;

/// How long after the first signal the run may take to stop by itself before the watchdog
/// ends the process: well inside the 3 s a user (or a CI step's timeout) waits.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// How often the watchdog looks at the flag.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// Flags set by the signal handlers.
pub struct StopSignal {
    flag: Arc<AtomicBool>,
    exit_code: Arc<AtomicUsize>,
    /// Set once the run has said what an interrupt kept: the watchdog then ends the process
    /// without a word of its own.
    reported: Arc<AtomicBool>,
}

impl StopSignal {
    /// Installs handlers for SIGINT and SIGTERM. If installing fails, the run goes on without
    /// them (a signal then ends the process the default way).
    pub fn install() -> Self {
        let flag = Arc::new(AtomicBool::new(false));
        let exit_code = Arc::new(AtomicUsize::new(0));
        for (signal, code) in [
            (signal_hook::consts::SIGINT, Exit::Sigint),
            (signal_hook::consts::SIGTERM, Exit::Sigterm),
        ] {
            // First, so that it sees the flag as the earlier signal left it: set means this is
            // the second one.
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                i32::from(code.code()),
                Arc::clone(&flag),
            );
            let _ = signal_hook::flag::register_usize(
                signal,
                Arc::clone(&exit_code),
                usize::from(code.code()),
            );
            let _ = signal_hook::flag::register(signal, Arc::clone(&flag));
        }
        let signals = Self {
            flag,
            exit_code,
            reported: Arc::new(AtomicBool::new(false)),
        };
        signals.start_watchdog();
        signals
    }

    /// Starts the thread that ends the process [`STOP_GRACE`] after the first signal, if the
    /// run has not ended by then. Without a thread (none could be started) a second signal
    /// still ends it.
    fn start_watchdog(&self) {
        let flag = Arc::clone(&self.flag);
        let exit_code = Arc::clone(&self.exit_code);
        let reported = Arc::clone(&self.reported);
        let _ = std::thread::Builder::new()
            .name("gpubench-stop-watchdog".to_string())
            .spawn(move || {
                while !flag.load(Ordering::SeqCst) {
                    std::thread::sleep(WATCH_EVERY);
                }
                std::thread::sleep(STOP_GRACE);
                if !reported.load(Ordering::SeqCst) {
                    note!(
                        "interrupted: the step in progress did not stop within {} s; stopping \
                         now (every result finished before the signal is in the results file, \
                         where one was written)",
                        STOP_GRACE.as_secs()
                    );
                }
                let code = exit_code.load(Ordering::SeqCst);
                let code = i32::try_from(code).unwrap_or(i32::from(Exit::Sigint.code()));
                // Not std::process::exit: the main thread may be inside the driver, and exit's
                // handlers would tear the driver down under it.
                signal_hook::low_level::exit(code)
            });
    }

    /// Says that the run has reported what the interrupt kept; from now on the watchdog ends
    /// the process silently (a driver still finishing work in flight cannot hold it).
    pub fn reported(&self) {
        self.reported.store(true, Ordering::SeqCst);
    }

    /// The flag the runner polls between samples.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.flag)
    }

    /// The exit status for the signal received, if any.
    pub fn received(&self) -> Option<Exit> {
        if !self.flag.load(Ordering::SeqCst) {
            return None;
        }
        match self.exit_code.load(Ordering::SeqCst) {
            code if code == usize::from(Exit::Sigterm.code()) => Some(Exit::Sigterm),
            _ => Some(Exit::Sigint),
        }
    }
}
