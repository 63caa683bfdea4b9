//! The five ways the launch suite gets its one-invocation kernel onto the device, with the
//! names and descriptions its results carry.

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
    /// One dispatch submitted and waited for.
    RoundTrip,
}

impl LaunchMode {
    /// Every mode in report order.
    pub const ALL: [LaunchMode; 5] = [
        LaunchMode::DispatchInPass,
        LaunchMode::DispatchIndirect,
        LaunchMode::PassInEncoder,
        LaunchMode::Submit,
        LaunchMode::RoundTrip,
    ];

    /// Name, as used in result ids.
    pub fn name(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass => "dispatch-in-pass",
            LaunchMode::DispatchIndirect => "dispatch-indirect",
            LaunchMode::PassInEncoder => "pass-in-encoder",
            LaunchMode::Submit => "submit",
            LaunchMode::RoundTrip => "round-trip",
        }
    }

    /// What one operation is, the last part of the id.
    pub fn per(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass | LaunchMode::DispatchIndirect => "per-dispatch",
            LaunchMode::PassInEncoder => "per-pass",
            LaunchMode::Submit => "per-submit",
            LaunchMode::RoundTrip => "one-dispatch",
        }
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
                "microseconds from queue.submit of one dispatch until the host sees it complete (host clock; GPU time recorded)"
            }
        }
    }

    /// The label of the compute passes this mode records (shows in GPU captures).
    pub fn pass_label(self) -> &'static str {
        match self {
            LaunchMode::DispatchInPass | LaunchMode::DispatchIndirect => "launch storm",
            LaunchMode::PassInEncoder => "launch pass",
            LaunchMode::Submit => "launch submit",
            LaunchMode::RoundTrip => "launch round trip",
        }
    }
}
