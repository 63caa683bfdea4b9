//! The ways the launch suite gets its one-invocation kernel onto the device, with the names and
//! descriptions its results carry.
//!
//! The first five are the storms and the round trip, each one figure; `record`, `submit-call`
//! and `gpu-gap` split launching into the three costs a user has to tell apart (recording on
//! the CPU, the submit call on the CPU, the device's time per back-to-back dispatch), and
//! `round-trip-spin` is the round trip with the host polling instead of sleeping, and
//! `gpu-gap-independent` is the GPU gap without the dependency between dispatches (and so
//! without wgpu's barrier before each).

/// How the storm launches its dispatches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchMode {
    /// N dispatches in one pass.
    DispatchInPass,
    /// N indirect dispatches in one pass.
    DispatchIndirect,
    /// N passes of one dispatch in one encoder.
    PassInEncoder,
    /// N submits of one command buffer each.
    Submit,
    /// One dispatch submitted and waited for (blocking wait).
    RoundTrip,
    /// Host time of recording N dispatches into one pass, nothing else.
    Record,
    /// Host time of N `queue.submit` calls of pre-recorded command buffers, nothing else.
    SubmitCall,
    /// GPU time per dispatch of N dispatches in one pass, recorded before the clock starts.
    GpuGap,
    /// One dispatch submitted and waited for by polling in a loop.
    RoundTripSpin,
    /// GPU time per dispatch of N dispatches in one pass, each bumping its own buffer: no
    /// write hazard between them, so no barrier.
    GpuGapIndependent,
}

impl LaunchMode {
    /// Every mode in report order.
    pub const ALL: [LaunchMode; 10] = [
        LaunchMode::DispatchInPass,
        LaunchMode::DispatchIndirect,
        LaunchMode::PassInEncoder,
        LaunchMode::Submit,
        LaunchMode::RoundTrip,
        LaunchMode::Record,
        LaunchMode::SubmitCall,
        LaunchMode::GpuGap,
        LaunchMode::GpuGapIndependent,
        LaunchMode::RoundTripSpin,
    ];

    /// Name, as used in result ids.
    pub fn name(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass => "dispatch-in-pass",
            LaunchMode::DispatchIndirect => "dispatch-indirect",
            LaunchMode::PassInEncoder => "pass-in-encoder",
            LaunchMode::Submit => "submit",
            LaunchMode::RoundTrip => "round-trip",
            LaunchMode::Record => "record",
            LaunchMode::SubmitCall => "submit-call",
            LaunchMode::GpuGap => "gpu-gap",
            LaunchMode::RoundTripSpin => "round-trip-spin",
            LaunchMode::GpuGapIndependent => "gpu-gap-independent",
        }
    }

    /// What one operation is, the last part of the id.
    pub fn per(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass
            | LaunchMode::DispatchIndirect
            | LaunchMode::Record
            | LaunchMode::GpuGap
            | LaunchMode::GpuGapIndependent => "per-dispatch",
            LaunchMode::PassInEncoder => "per-pass",
            LaunchMode::Submit | LaunchMode::SubmitCall => "per-submit",
            LaunchMode::RoundTrip | LaunchMode::RoundTripSpin => "one-dispatch",
        }
    }

    /// Whether this is a round trip: one dispatch per sample, host-timed, waited for.
    pub fn is_round_trip(self) -> bool {
        matches!(self, LaunchMode::RoundTrip | LaunchMode::RoundTripSpin)
    }

    /// Whether the headline is the host clock: the round trips and the two CPU costs.
    pub fn host_timed(self) -> bool {
        self.is_round_trip() || matches!(self, LaunchMode::Record | LaunchMode::SubmitCall)
    }

    /// What the figure counts, in words.
    pub fn counts(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass => {
                "microseconds per dispatch of a 1-invocation kernel, N dispatches in one pass (value: GPU timestamps; host: recording to completion, per dispatch)"
            }
            LaunchMode::DispatchIndirect => {
                "microseconds per dispatch_workgroups_indirect, N in one pass, wgpu's indirect validation included (value: GPU timestamps; host: recording to completion)"
            }
            LaunchMode::PassInEncoder => {
                "microseconds per compute pass of one dispatch, N passes in one encoder (value: GPU timestamps; host: recording to completion)"
            }
            LaunchMode::Submit => {
                "microseconds per queue.submit of one command buffer of one dispatch, N back to back (value: GPU timestamps; host: recording to completion)"
            }
            LaunchMode::RoundTrip => {
                "microseconds from queue.submit of one dispatch until the host sees it complete, blocking wait (device.poll Wait: the thread sleeps until the fence signals); host clock; no timestamps in the timed pass"
            }
            LaunchMode::Record => {
                "microseconds of host (CPU) time per dispatch to record N dispatches into one compute pass: encoder, pass, pipeline and bind group, the dispatches and finish(), amortised over N; submit, execution and wait not counted (host clock)"
            }
            LaunchMode::SubmitCall => {
                "microseconds of host (CPU) time per queue.submit call, N command buffers of one dispatch each recorded before the clock starts, submitted back to back; recording and wait not counted (host clock; GPU time recorded: first pass's start to last pass's end, per submit)"
            }
            LaunchMode::GpuGap => {
                "microseconds of GPU time per dispatch, N dispatches of a 1-invocation kernel back to back in one pass, a bind group set before each (all binding the one counter, as gpu-gap-independent sets its own) (GPU timestamps at the pass's start and end, nothing subtracted: wgpu's barrier before each dispatch, the launch and the kernel itself); recording is outside the host clock (host: submit to completion)"
            }
            LaunchMode::GpuGapIndependent => {
                "microseconds of GPU time per dispatch, N dispatches of a 1-invocation kernel back to back in one pass, each bumping a buffer of its own, so no dispatch depends on another and wgpu puts no barrier between them (GPU timestamps at the pass's start and end): an issue rate, since the device may run such dispatches concurrently and the figure can fall below one dispatch's own latency; beside gpu-gap, the difference is what a dependency costs (the barrier and the wait for the dispatch before), not the barrier alone"
            }
            LaunchMode::RoundTripSpin => {
                "microseconds from queue.submit of one dispatch until the host sees it complete, spinning (device.poll Wait with a zero timeout in a loop, yielding the core between polls: the thread never sleeps in the driver); host clock; no timestamps in the timed pass"
            }
        }
    }

    /// The label of the compute passes this mode records (shows in GPU captures).
    pub fn pass_label(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass | LaunchMode::DispatchIndirect => "launch storm",
            LaunchMode::PassInEncoder => "launch pass",
            LaunchMode::Submit => "launch submit",
            LaunchMode::RoundTrip | LaunchMode::RoundTripSpin => "launch round trip",
            LaunchMode::Record => "launch record",
            LaunchMode::SubmitCall => "launch submit call",
            LaunchMode::GpuGap => "launch gap",
            LaunchMode::GpuGapIndependent => "launch gap independent",
        }
    }
}
