//! SIGINT and SIGTERM stop a run between samples. The handler only sets flags (nothing else is
//! safe in a signal handler); the run loop sees them, keeps every finished result, marks the file
//! incomplete and exits 130 (SIGINT) or 143 (SIGTERM), as shells do. A second signal, while the
//! first is still being honoured (a blocked write, a wait that will not end), ends the process
//! at once (within [`WATCH_EVERY`]) with the same code, as common command-line tools do: every
//! results file on disk is whole already (they are only ever replaced by a rename), and the
//! temporary file of a write cut short is removed first.
//!
//! Every wait for the GPU ends within a tenth of a second of the first signal (the context's
//! waits come in slices), but CPU work (building a large input, checking a large product) does
//! not look at the flag. So a watchdog thread gives the run [`STOP_GRACE`] after the first
//! signal to write its file and say what it kept; past that it ends the process itself, saying
//! so. The results file then holds what the last save wrote: every result finished before the
//! step that would not stop.
//!
//! Every other command (report, show, compare, doctor, ...) measures nothing worth keeping, so
//! its first signal ends it at once ([`end_cleanly_on_signal`]), the temporary file of a write
//! in progress removed first.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::exit::Exit;

/// How long after the first signal the run may take to stop by itself before the watchdog
/// ends the process: well inside the 3 s a user (or a CI step's timeout) waits.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// How often the watchdog looks at the flag.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// For every command that installs no [`StopSignal`] (report, show, compare, doctor, ...): the
/// first SIGINT or SIGTERM removes the temporary file of any write in progress and ends the
/// process with the shell's code (130 or 143). Without it the default action would end the
/// process between writing a temporary file and renaming it, leaving the temporary file beside
/// the destination. Where the handler cannot be installed, a signal ends the process the
/// default way.
pub fn end_cleanly_on_signal() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut received) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("gpubench-signal".to_string())
        .spawn(move || {
            if let Some(signal) = received.forever().next() {
                gpubench_results::in_flight::remove_all();
                let code = if signal == SIGTERM {
                    Exit::Sigterm
                } else {
                    Exit::Sigint
                };
                signal_hook::low_level::exit(i32::from(code.code()))
            }
        });
}

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
        let signals = Self {
            flag: Arc::new(AtomicBool::new(false)),
            exit_code: Arc::new(AtomicUsize::new(0)),
            reported: Arc::new(AtomicBool::new(false)),
        };
        let watched = signals.start_watchdog();
        for (signal, code) in [
            (signal_hook::consts::SIGINT, Exit::Sigint),
            (signal_hook::consts::SIGTERM, Exit::Sigterm),
        ] {
            if !watched {
                // No watchdog to count signals: the handler ends the process at the second
                // one itself. First, so that it sees the flag as the earlier signal left it.
                let _ = signal_hook::flag::register_conditional_shutdown(
                    signal,
                    i32::from(code.code()),
                    Arc::clone(&signals.flag),
                );
            }
            let _ = signal_hook::flag::register_usize(
                signal,
                Arc::clone(&signals.exit_code),
                usize::from(code.code()),
            );
            let _ = signal_hook::flag::register(signal, Arc::clone(&signals.flag));
        }
        signals
    }

    /// Starts the thread that counts the signals and ends the process at the second one, or
    /// [`STOP_GRACE`] after the first if the run has not ended by then; whether it started.
    /// Before it ends the process it removes the temporary files of any write in progress
    /// (the destination keeps its last whole version).
    fn start_watchdog(&self) -> bool {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut received) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
            return false;
        };
        let exit_code = Arc::clone(&self.exit_code);
        let reported = Arc::clone(&self.reported);
        std::thread::Builder::new()
            .name("gpubench-stop-watchdog".to_string())
            .spawn(move || {
                let mut count = 0;
                let mut first_at: Option<Instant> = None;
                let second = loop {
                    count += received.pending().count();
                    if count >= 2 {
                        break true;
                    }
                    if count > 0 && first_at.is_none() {
                        first_at = Some(Instant::now());
                    }
                    if first_at.is_some_and(|at| at.elapsed() >= STOP_GRACE) {
                        break false;
                    }
                    std::thread::sleep(WATCH_EVERY);
                };
                if !second && !reported.load(Ordering::SeqCst) {
                    note!(
                        "interrupted: the step in progress did not stop within {} s; stopping \
                         now (every result finished before the signal is in the results file, \
                         where one was written)",
                        STOP_GRACE.as_secs()
                    );
                }
                gpubench_results::in_flight::remove_all();
                let code = exit_code.load(Ordering::SeqCst);
                let code = i32::try_from(code).unwrap_or(i32::from(Exit::Sigint.code()));
                // Not std::process::exit: the main thread may be inside the driver, and exit's
                // handlers would tear the driver down under it.
                signal_hook::low_level::exit(code)
            })
            .is_ok()
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
