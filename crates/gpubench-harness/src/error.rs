//! Typed errors of the harness. Each message says what to do about it.

/// Errors from device discovery and context creation.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// No adapter was found on the backends searched.
    #[error(
        "no GPU adapter found {searched}. Install a Vulkan driver; for a software adapter on Debian/Ubuntu run `apt-get install mesa-vulkan-drivers` (or `cargo xtask setup`)"
    )]
    NoAdapters {
        /// Where it looked: `on any backend`, or `on backend metal (from WGPU_BACKEND)`.
        searched: String,
    },
    /// Adapters exist, but none matches the selection.
    #[error(
        "no adapter matches {selection}. Adapters found:\n{found}\nChoose one of them by its index or name, or another backend (vulkan, metal, dx12, gl)"
    )]
    NoMatch {
        /// The selection as the user gave it.
        selection: String,
        /// One line per adapter that was found.
        found: String,
    },
    /// A backend name that wgpu does not know.
    #[error("unknown backend '{0}': use one of vulkan, metal, dx12, gl")]
    UnknownBackend(String),
    /// The adapter refused to create a device.
    #[error("could not create a device on '{adapter}': {source}")]
    RequestDevice {
        /// Adapter name.
        adapter: String,
        /// wgpu's error.
        #[source]
        source: wgpu::RequestDeviceError,
    },
    /// Reading or writing a results file failed.
    #[error(transparent)]
    Results(#[from] gpubench_results::ResultsError),
}

/// What a benchmark step returns: its value, or why the benchmark gets no number.
pub type Outcome<T = ()> = Result<T, BenchError>;

/// Why a benchmark did not produce a number. The runner turns these into result statuses.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BenchError {
    /// The adapter cannot run this benchmark (feature missing, limit too small, out of memory).
    #[error("{0}")]
    Unsupported(String),
    /// The GPU reported an error while setting up or running the benchmark.
    #[error("GPU error: {0}")]
    Gpu(String),
    /// The device was lost.
    #[error("device lost: {0}")]
    DeviceLost(String),
    /// Mapping a buffer or waiting for the queue failed.
    #[error("{0}")]
    Readback(String),
    /// A benchmark was run or verified before its set-up: a bug in the caller's order of steps.
    #[error(
        "{id}: {step} was called before set-up; drive benchmarks through the runner (or call setup first)"
    )]
    NotSetUp {
        /// The benchmark's id.
        id: String,
        /// The step that came too early.
        step: &'static str,
    },
    /// A kernel's own set-up could not be built (a shader specialisation that does not apply).
    #[error("{0}")]
    Setup(String),
    /// A stop was requested (a signal) while waiting for the GPU; the work in flight was left.
    #[error("interrupted")]
    Interrupted,
}

impl From<wgpu::PollError> for BenchError {
    fn from(err: wgpu::PollError) -> Self {
        BenchError::Readback(format!("waiting for the GPU failed: {err}"))
    }
}

impl From<wgpu::BufferAsyncError> for BenchError {
    fn from(err: wgpu::BufferAsyncError) -> Self {
        BenchError::Readback(format!("mapping a buffer failed: {err}"))
    }
}

impl From<wgpu::MapRangeError> for BenchError {
    fn from(err: wgpu::MapRangeError) -> Self {
        BenchError::Readback(format!("reading a mapped buffer failed: {err}"))
    }
}

/// Folds a multi-line driver or wgpu message ("Validation Error\n\nCaused by:\n  ...") into
/// one line, so reasons fit a table cell and a log line.
pub fn fold_lines(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
