//! The GPU context handed to every benchmark: adapter, device, queue, and what was learned about
//! them. Tests build one on lavapipe and hand it in, as the CLI does for a real adapter.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use wgpu::util::DeviceExt;

use gpubench_results::schema::{MachineInfo, TimingSource};

use crate::device::{self, AdapterSummary, Selection};
use crate::error::{BenchError, HarnessError};
use crate::host_clock::HostClock;
use crate::read_log::{self, ReadLog, ReadSpan};
use crate::shader_checks::ShaderChecks;
use crate::timestamp_step::TimestampStep;

/// Errors the device reported outside any error scope, and whether it was lost. Filled by wgpu's
/// callbacks; the runner drains it after each phase and fails the benchmark that caused it.
#[derive(Debug, Default)]
pub struct FaultLog {
    lost: AtomicBool,
    messages: Mutex<Vec<String>>,
    /// What the driver said when the device was lost, kept after the messages are drained.
    lost_message: Mutex<Option<String>>,
}

impl FaultLog {
    /// Whether the device has been lost.
    pub fn device_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    /// What the driver said when the device was lost (`device lost (reason): message`), or
    /// that it said nothing.
    pub fn lost_reason(&self) -> String {
        let said = match self.lost_message.lock() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        said.unwrap_or_else(|| "device lost, the driver gave no message".to_string())
    }

    /// Records the device's loss and what the driver said.
    fn lose(&self, message: String) {
        match self.lost_message.lock() {
            Ok(mut guard) => *guard = Some(message.clone()),
            Err(poisoned) => *poisoned.into_inner() = Some(message.clone()),
        }
        self.lost.store(true, Ordering::SeqCst);
        self.push(message);
    }

    /// Takes the messages recorded since the last call.
    pub fn drain(&self) -> Vec<String> {
        match self.messages.lock() {
            Ok(mut guard) => std::mem::take(&mut *guard),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
    }

    fn push(&self, message: String) {
        match self.messages.lock() {
            Ok(mut guard) => guard.push(message),
            Err(poisoned) => poisoned.into_inner().push(message),
        }
    }
}

/// Adapter, device and queue, plus the facts the runner and results need.
pub struct GpuContext {
    /// The instance the adapter came from (kept alive with it).
    pub instance: wgpu::Instance,
    /// The adapter.
    pub adapter: wgpu::Adapter,
    /// The device, created with the adapter's own limits.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// What `gpubench list` says about the adapter.
    pub summary: AdapterSummary,
    /// Features enabled on the device.
    pub features: wgpu::Features,
    /// Limits of the device (the adapter's own).
    pub limits: wgpu::Limits,
    /// Nanoseconds per timestamp tick, when the device can write timestamps.
    pub timestamp_period_ns: Option<f64>,
    /// Instance flags in force (validation, debug), recorded in results.
    pub instance_flags: wgpu::InstanceFlags,
    /// Uncaptured errors and device loss.
    pub faults: Arc<FaultLog>,
    /// Whether pipelines built now get naga's runtime checks (true: `ShaderChecks::On`).
    shader_checks_on: AtomicBool,
    /// How many compute pipelines have been built on this context.
    pipelines_built: AtomicU64,
    /// Set (by a signal handler) to end every wait for the GPU early; see
    /// [`GpuContext::stop_waits_on`].
    stop: Mutex<Option<Arc<AtomicBool>>>,
    /// The host clock as samples read it (its resolution is recorded with each result).
    host_clock: HostClock,
    /// A coarser step forced on GPU timestamps, for a test ([`GpuContext::quantize_timestamps`]).
    timestamp_quantum: Option<std::time::Duration>,
    /// The step GPU timestamps were seen to take, over every runner on this context.
    timestamp_step: Arc<TimestampStep>,
    /// What checks read back, while the runner records it ([`crate::read_log`]).
    reads: ReadLog,
}

/// How long one slice of a wait for the GPU lasts before the stop flag is looked at again: a
/// stop request ends a wait within this, however long the work in flight takes.
pub const WAIT_SLICE: std::time::Duration = std::time::Duration::from_millis(100);

impl GpuContext {
    /// Selects an adapter as `selection` asks and creates a device on it (blocking: native-only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(selection: &Selection) -> Result<Self, HarnessError> {
        let (instance, adapter, summary) = device::select_adapter(selection)?;
        Self::from_adapter(instance, adapter, summary)
    }

    /// [`GpuContext::new`] as a future, for a browser page (wasm32), which must not block.
    pub async fn new_async(selection: &Selection) -> Result<Self, HarnessError> {
        let (instance, adapter, summary) = device::select_adapter_async(selection).await?;
        Self::from_adapter_async(instance, adapter, summary).await
    }

    /// Creates a device on `adapter` with its own limits and every wanted feature it offers,
    /// blocking until it is ready (native-only; see [`GpuContext::from_adapter_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_adapter(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        summary: AdapterSummary,
    ) -> Result<Self, HarnessError> {
        pollster::block_on(Self::from_adapter_async(instance, adapter, summary))
    }

    /// [`GpuContext::from_adapter`] as a future, for a browser page (wasm32), which must not
    /// block its only thread.
    pub async fn from_adapter_async(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        summary: AdapterSummary,
    ) -> Result<Self, HarnessError> {
        let mut features = adapter.features() & device::WANTED_FEATURES;
        // Host-mappable storage buffers (the zero-copy transfer) only where the adapter is not
        // discrete: on a discrete GPU they sit in the BAR or in host memory, and wgpu warns the
        // feature is a performance footgun there.
        if adapter.get_info().device_type == wgpu::DeviceType::DiscreteGpu {
            features.remove(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
        }
        // Cooperative matrices (the matmul suite's tensor-core rows) are experimental in wgpu:
        // requested only where the adapter offers them, so no other device changes. Enabled,
        // the feature is listed in the results' `features_enabled` like any other.
        let coop = wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX;
        let experimental = if adapter.features().contains(coop) {
            features |= coop;
            // SAFETY: only the cooperative-matrix feature is requested, and only the matmul
            // suite's coop kernels use it; their products are verified before they are timed.
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("gpubench"),
                required_features: features,
                required_limits: limits.clone(),
                experimental_features: experimental,
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|source| HarnessError::RequestDevice {
                adapter: summary.name.clone(),
                source,
            })?;

        let faults = Arc::new(FaultLog::default());
        let on_error = Arc::clone(&faults);
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            on_error.push(crate::error::fold_lines(&error.to_string()));
        }));
        let on_lost = Arc::clone(&faults);
        device.set_device_lost_callback(move |reason, message| {
            on_lost.lose(format!(
                "device lost ({reason:?}): {}",
                crate::error::fold_lines(&message)
            ));
        });

        let timestamp_period_ns = features
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| f64::from(queue.get_timestamp_period()))
            .filter(|p| *p > 0.0);
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            summary,
            features,
            limits,
            timestamp_period_ns,
            instance_flags: device::instance_flags(),
            faults,
            shader_checks_on: AtomicBool::new(false),
            pipelines_built: AtomicU64::new(0),
            stop: Mutex::new(None),
            host_clock: HostClock::measure(),
            timestamp_quantum: None,
            timestamp_step: Arc::default(),
            reads: ReadLog::default(),
        })
    }

    /// What checks read back, while the runner records it ([`crate::read_log`]).
    pub fn read_log(&self) -> &ReadLog {
        &self.reads
    }

    /// Overwrites every span of `spans` the device can write (see [`ReadSpan::writable`]) with
    /// [`POISON`](crate::read_log::POISON) bytes, copied from one small buffer of them, and waits until that is done;
    /// returns how many spans were overwritten.
    pub async fn poison_reads(&self, spans: &[ReadSpan]) -> Result<usize, BenchError> {
        let writable: Vec<&ReadSpan> = spans.iter().filter(|s| s.writable()).collect();
        let Some(largest) = writable.iter().map(|s| s.size).max() else {
            return Ok(0);
        };
        let piece = largest.min(read_log::POISON_PIECE);
        let bytes = vec![read_log::POISON; usize::try_from(piece).unwrap_or(usize::MAX)];
        let source = self.buffer_with_data("gpubench poison", &bytes, wgpu::BufferUsages::COPY_SRC);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for span in &writable {
            let mut at = 0;
            while at < span.size {
                let size = (span.size - at).min(piece);
                encoder.copy_buffer_to_buffer(&source, 0, &span.buffer, span.offset + at, size);
                at += size;
            }
        }
        self.queue.submit([encoder.finish()]);
        self.wait_idle().await?;
        Ok(writable.len())
    }

    /// Whether this is a software adapter (lavapipe, SwiftShader, WARP).
    pub fn is_software(&self) -> bool {
        self.summary.software
    }

    /// Whether compute passes can carry timestamps.
    pub fn has_pass_timestamps(&self) -> bool {
        self.timestamp_period_ns.is_some()
    }

    /// Whether timestamps can be written between commands of an encoder.
    pub fn has_encoder_timestamps(&self) -> bool {
        self.has_pass_timestamps()
            && self
                .features
                .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    }

    /// Treats the device from now on as having timestamps only at pass boundaries (no
    /// TIMESTAMP_QUERY_INSIDE_ENCODERS), as Apple GPUs do, so that path can be tested on an
    /// adapter that has both. Runners created afterwards time copies on empty compute passes.
    pub fn use_pass_timestamps_only(&mut self) {
        self.features
            .remove(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
    }

    /// The host clock as samples read it.
    pub fn host_clock(&self) -> HostClock {
        self.host_clock
    }

    /// Makes the host clock step by `quantum` from now on, as a browser's coarse clock does, so
    /// a test sees on a native adapter what a coarse clock does to results.
    pub fn coarsen_host_clock(&mut self, quantum: std::time::Duration) {
        self.host_clock = HostClock::coarsened(quantum);
    }

    /// Makes GPU timestamps step by `quantum` for runners created from now on, as a browser's
    /// quantized timestamps do, so a test sees on a native adapter what they do to results. The
    /// step seen so far is forgotten: it was the unquantized clock's.
    pub fn quantize_timestamps(&mut self, quantum: std::time::Duration) {
        self.timestamp_quantum = Some(quantum);
        self.timestamp_step = Arc::default();
    }

    /// The step forced on GPU timestamps, if any ([`GpuContext::quantize_timestamps`]).
    pub fn timestamp_quantum(&self) -> Option<std::time::Duration> {
        self.timestamp_quantum
    }

    /// The step GPU timestamps on this device were seen to take ([`crate::timestamp_step`]).
    pub fn timestamp_step(&self) -> &Arc<TimestampStep> {
        &self.timestamp_step
    }

    /// Waits until all submitted work is done (or a stop is requested).
    pub async fn wait_idle(&self) -> Result<(), BenchError> {
        self.wait_for(None).await
    }

    /// Makes every wait for the GPU on this context end with [`BenchError::Interrupted`]
    /// within [`WAIT_SLICE`] once `flag` is set, instead of lasting as long as the work in
    /// flight (one huge dispatch can take minutes).
    pub fn stop_waits_on(&self, flag: Arc<AtomicBool>) {
        if let Ok(mut stop) = self.stop.lock() {
            *stop = Some(flag);
        }
    }

    /// Whether a stop was requested through the flag given to [`GpuContext::stop_waits_on`].
    pub fn stop_requested(&self) -> bool {
        self.stop
            .lock()
            .ok()
            .and_then(|stop| stop.as_ref().map(|flag| flag.load(Ordering::SeqCst)))
            .unwrap_or(false)
    }

    /// Waits until the submission `index` (every submission when `None`) is done, in slices of
    /// [`WAIT_SLICE`]; [`BenchError::Interrupted`] when a stop is requested first. The wait
    /// returns as soon as the work completes, so timing through it is as through one wait. On
    /// native each slice is a blocking `device.poll(Wait)`, as it always was.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn wait_for(&self, index: Option<wgpu::SubmissionIndex>) -> Result<(), BenchError> {
        loop {
            let poll = wgpu::PollType::Wait {
                submission_index: index.clone(),
                timeout: Some(WAIT_SLICE),
            };
            match self.device.poll(poll) {
                Ok(_) => return Ok(()),
                Err(wgpu::PollError::Timeout) if self.stop_requested() => {
                    return Err(BenchError::Interrupted);
                }
                Err(wgpu::PollError::Timeout) => {}
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// Waits until the submitted work is done (all of it: WebGPU tells no finer), awaiting the
    /// queue's callback: a browser's device is polled by the page's event loop, and a
    /// blocking wait there would never return. A stop requested meanwhile is seen after it.
    #[cfg(target_arch = "wasm32")]
    pub async fn wait_for(&self, _index: Option<wgpu::SubmissionIndex>) -> Result<(), BenchError> {
        let (sender, done) = crate::oneshot::channel();
        self.queue.on_submitted_work_done(move || sender.send(()));
        done.await.ok_or_else(|| {
            BenchError::Readback("the queue never said its work was done".to_string())
        })?;
        if self.stop_requested() {
            return Err(BenchError::Interrupted);
        }
        Ok(())
    }

    /// A buffer initialised with `contents`.
    pub fn buffer_with_data(
        &self,
        label: &str,
        contents: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
    }

    /// An uninitialised buffer of `size` bytes.
    pub fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    /// A buffer of `size` bytes, or [`BenchError::Unsupported`] (the benchmark is skipped) when
    /// it exceeds `max_buffer_size` or the device is out of memory. Use it for every allocation
    /// whose size comes from the user or the profile.
    pub async fn try_buffer(
        &self,
        label: &str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, BenchError> {
        if size > self.limits.max_buffer_size {
            return Err(BenchError::Unsupported(format!(
                "{label}: {} exceeds the adapter's max_buffer_size of {}",
                gpubench_results::units::format_size(size),
                gpubench_results::units::format_size(self.limits.max_buffer_size)
            )));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffer = self.buffer(label, size, usage);
        if let Some(error) = scope.pop().await {
            return Err(BenchError::Unsupported(format!(
                "{label}: out of memory allocating {}: {}",
                gpubench_results::units::format_size(size),
                crate::error::fold_lines(&error.to_string())
            )));
        }
        Ok(buffer)
    }

    /// Copies `size` bytes from the start of `source` (which needs COPY_SRC) back to the host.
    pub async fn read_buffer(
        &self,
        source: &wgpu::Buffer,
        size: u64,
    ) -> Result<Vec<u8>, BenchError> {
        self.read_buffer_with(source, size, <[u8]>::to_vec).await
    }

    /// Copies the first `size` bytes of `source` (which needs COPY_SRC) into a staging buffer
    /// and lends its mapped bytes to `read`, returning what `read` makes of them. A check
    /// that only looks at the bytes reads them where they were mapped: at a large GPU's 1 GiB
    /// arrays each copy of the readback costs a noticeable part of a second of host time. The
    /// one span `(0, size)` of [`GpuContext::read_spans_with`], with its checks.
    pub async fn read_buffer_with<T>(
        &self,
        source: &wgpu::Buffer,
        size: u64,
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, BenchError> {
        self.read_spans_with(source, &[(0, size)], read).await
    }

    /// Copies each `(offset, size)` span of `source` (which needs COPY_SRC), in order, into
    /// one staging buffer and lends `read` their bytes back to back. A check that looks at a
    /// few scattered elements of a large output reads back those, not the whole output (a
    /// 4096 x 4096 f32 product is 64 MiB per candidate). Every offset and size must be a
    /// multiple of [`wgpu::COPY_BUFFER_ALIGNMENT`] and every span inside `source`; one that
    /// is not is a [`BenchError::Readback`].
    pub async fn read_spans_with<T>(
        &self,
        source: &wgpu::Buffer,
        spans: &[(u64, u64)],
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, BenchError> {
        let align = wgpu::COPY_BUFFER_ALIGNMENT;
        if let Some(&(offset, size)) = spans.iter().find(|&&(offset, size)| {
            offset % align != 0 || size % align != 0 || offset.saturating_add(size) > source.size()
        }) {
            return Err(BenchError::Readback(format!(
                "cannot read back {size} bytes at {offset} of a {}-byte buffer: spans must lie \
                 inside it at multiples of {align} bytes",
                source.size()
            )));
        }
        self.reads.note(source, spans);
        let total: u64 = spans.iter().map(|&(_, size)| size).sum();
        if total == 0 {
            return Ok(read(&[]));
        }
        let staging = self.buffer(
            "gpubench readback",
            total,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let mut at = 0;
        for &(offset, size) in spans.iter().filter(|&&(_, size)| size > 0) {
            encoder.copy_buffer_to_buffer(source, offset, &staging, at, size);
            at += size;
        }
        self.queue.submit([encoder.finish()]);
        self.map_and_wait(&staging, wgpu::MapMode::Read).await?;
        let value = {
            let view = staging.get_mapped_range(..)?;
            read(&view)
        };
        staging.unmap();
        Ok(value)
    }

    /// Maps all of `buffer` for `mode` and waits until the mapping is ready (or failed): once
    /// every submission is done.
    pub async fn map_and_wait(
        &self,
        buffer: &wgpu::Buffer,
        mode: wgpu::MapMode,
    ) -> Result<(), BenchError> {
        self.map_after(buffer, mode, None).await
    }

    /// Maps all of `buffer` for `mode` once the submission `after` is done (every submission
    /// when `None`), waiting for that submission only: work submitted after it stays in
    /// flight, so one request's buffers can be mapped while another request computes.
    pub async fn map_after(
        &self,
        buffer: &wgpu::Buffer,
        mode: wgpu::MapMode,
        after: Option<wgpu::SubmissionIndex>,
    ) -> Result<(), BenchError> {
        let (sender, answer) = crate::oneshot::channel();
        buffer.map_async(mode, .., move |result| sender.send(result));
        self.drive_mapping(after, &answer).await?;
        answer.await.ok_or_else(|| {
            BenchError::Readback("buffer mapping was never answered".to_string())
        })??;
        Ok(())
    }

    /// Natively a mapping's callback runs only inside a wait on the device: waits for `after`
    /// and looks for the answer, then, where a later use of the buffer still holds it, for
    /// everything submitted.
    #[cfg(not(target_arch = "wasm32"))]
    async fn drive_mapping<T>(
        &self,
        after: Option<wgpu::SubmissionIndex>,
        answer: &crate::oneshot::Receiver<T>,
    ) -> Result<(), BenchError> {
        if after.is_some() {
            self.wait_for(after).await?;
            let _ = self.device.poll(wgpu::PollType::Poll);
            if answer.is_answered() {
                return Ok(());
            }
        }
        self.wait_for(None).await
    }

    /// In a browser (wasm32) the mapping itself waits for the work using the buffer, and its
    /// callback wakes the awaiting task: nothing to drive (and nothing may block there).
    #[cfg(target_arch = "wasm32")]
    async fn drive_mapping<T>(
        &self,
        _after: Option<wgpu::SubmissionIndex>,
        _answer: &crate::oneshot::Receiver<T>,
    ) -> Result<(), BenchError> {
        Ok(())
    }

    /// Maps a MAP_READ buffer, waits, and copies its whole contents out.
    pub async fn map_and_read(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, BenchError> {
        self.map_and_read_with(buffer, <[u8]>::to_vec).await
    }

    /// Maps a MAP_READ buffer, waits, and lends its whole contents to `read` where they were
    /// mapped (a check that only compares them copies nothing), returning what `read` makes
    /// of them; the buffer is unmapped after.
    pub async fn map_and_read_with<T>(
        &self,
        buffer: &wgpu::Buffer,
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, BenchError> {
        self.reads.note(buffer, &[(0, buffer.size())]);
        self.map_and_wait(buffer, wgpu::MapMode::Read).await?;
        let value = read(&buffer.get_mapped_range(..)?);
        buffer.unmap();
        Ok(value)
    }

    /// Runs `work` (a future, which does nothing until awaited here) inside out-of-memory and
    /// validation error scopes. Out of memory becomes [`BenchError::Unsupported`] (the
    /// benchmark is skipped), a validation error [`BenchError::Gpu`] (it failed).
    pub async fn scoped<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, BenchError>>,
    ) -> Result<T, BenchError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = work.await;
        let validation_error = validation.pop().await;
        let oom_error = oom.pop().await;
        if let Some(error) = oom_error {
            return Err(BenchError::Unsupported(format!(
                "out of memory: {}",
                crate::error::fold_lines(&error.to_string())
            )));
        }
        if let Some(error) = validation_error {
            return Err(BenchError::Gpu(crate::error::fold_lines(
                &error.to_string(),
            )));
        }
        value
    }
}

impl GpuContext {
    /// Whether pipelines built now get naga's runtime checks (off unless a run asked for them).
    pub fn shader_checks(&self) -> ShaderChecks {
        ShaderChecks::when(self.shader_checks_on.load(Ordering::SeqCst))
    }

    /// Sets the runtime-checks choice for pipelines built from now on; returns the one before.
    pub fn set_shader_checks(&self, checks: ShaderChecks) -> ShaderChecks {
        ShaderChecks::when(
            self.shader_checks_on
                .swap(checks == ShaderChecks::On, Ordering::SeqCst),
        )
    }

    /// How many compute pipelines have been built on this context so far, each use of one kept
    /// from an earlier build (a suite's pipeline cache) counted again.
    pub fn pipelines_built(&self) -> u64 {
        self.pipelines_built.load(Ordering::SeqCst)
    }

    /// Counts one more compute pipeline built, or reused from a suite's cache of pipelines
    /// built on this context under the same shader checks (by the suites' pipeline helpers).
    pub fn count_pipeline_built(&self) {
        self.pipelines_built.fetch_add(1, Ordering::SeqCst);
    }
}

/// The wgpu version this build links, from the workspace lock file.
pub const WGPU_VERSION: &str = env!("GPUBENCH_WGPU_VERSION");

impl GpuContext {
    /// Everything detected about this adapter and the host, for the results' `machine`.
    pub fn machine_info(&self) -> MachineInfo {
        let ctx = self;
        MachineInfo {
            adapter: ctx.summary.clone(),
            software_adapter: ctx.is_software(),
            features_enabled: device::feature_names(ctx.features),
            os: gpubench_results::hostinfo::os_description(),
            cpu_model: gpubench_results::hostinfo::cpu_model(),
            hostname: gpubench_results::hostinfo::hostname(),
            cpu_count: gpubench_results::hostinfo::cpu_count(),
            wgpu_version: WGPU_VERSION.to_string(),
            build_profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .to_string(),
            instance_flags: format!("{:?}", ctx.instance_flags),
            timing_source: if ctx.has_pass_timestamps() {
                TimingSource::GpuTimestamp
            } else {
                TimingSource::Host
            },
            timestamp_period_ns: ctx.timestamp_period_ns,
            fingerprint: gpubench_results::schema::fingerprint(&ctx.summary),
        }
    }
}
