//! SIGINT and SIGTERM stop a run between samples. The handler only sets flags (nothing else is
//! safe in a signal handler); the run loop sees them, keeps every finished result, marks the file
//! incomplete and exits 130 (SIGINT) or 143 (SIGTERM), as shells do. A second signal, while the
//! first is still being honoured (a blocked write, a wait that will not end), ends the process
//! at once with the same code, as common command-line tools do: every results file on disk is
//! whole already (they are only ever replaced by a rename).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::exit::Exit;

/// Flags set by the signal handlers.
pub struct StopSignal {
    flag: Arc<AtomicBool>,
    exit_code: Arc<AtomicUsize>,
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
        Self { flag, exit_code }
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
