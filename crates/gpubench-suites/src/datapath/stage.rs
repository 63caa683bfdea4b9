//! The five stages of a request's path (`prepare`, `h2d`, `compute`, `d2h`, `check`): their
//! names, what each moves and does for one request, and which buffer decides whether its bytes
//! cross the host-device link. [`super::stage_kernel`] times each alone.

use gpubench_harness::Work;
use gpubench_harness::kit::placement::{BufferRole, LinkAccess};

use super::request::Request;

/// One stage of a request's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Host writes the input where the upload reads it.
    Prepare,
    /// Host-to-device copy.
    Upload,
    /// The kernel.
    Compute,
    /// Device-to-host copy.
    Download,
    /// Host checks the output.
    Check,
}

impl Stage {
    /// The stages in the order of the path.
    pub const ALL: [Stage; 5] = [
        Stage::Prepare,
        Stage::Upload,
        Stage::Compute,
        Stage::Download,
        Stage::Check,
    ];

    /// Its name in ids and tables.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Prepare => "prepare",
            Stage::Upload => "h2d",
            Stage::Compute => "compute",
            Stage::Download => "d2h",
            Stage::Check => "check",
        }
    }

    /// Whether the host does it (no device work to time).
    pub fn on_host(self) -> bool {
        matches!(self, Stage::Prepare | Stage::Check)
    }

    /// The stage named `name`.
    pub fn named(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name)
    }

    /// What its row counts, as the result declares it.
    pub fn counts(self) -> &'static str {
        match self {
            Stage::Prepare => "host time to write one request's input into mapped memory",
            Stage::Upload => "time of one request's host-to-device copy",
            Stage::Compute => "time of one request's kernel",
            Stage::Download => "time of one request's device-to-host copy",
            Stage::Check => "host time to check one request's output (sampled words)",
        }
    }

    /// What decides whether the bytes the stage moves cross the host-device link, for the
    /// stages that move them: `prepare` is the host writing the staging buffer, `h2d` a copy
    /// out of it, `d2h` a copy into the readback buffer; `compute` and `check` move none.
    pub fn link_access(self) -> Option<LinkAccess> {
        match self {
            Stage::Prepare => Some(LinkAccess::HostWrite(BufferRole::Staging)),
            Stage::Upload => Some(LinkAccess::Copy(BufferRole::Staging)),
            Stage::Download => Some(LinkAccess::Copy(BufferRole::Readback)),
            Stage::Compute | Stage::Check => None,
        }
    }

    /// The bytes the stage moves, for its GB/s.
    pub fn bytes(self, request: &Request) -> u64 {
        self.moved(request.input_bytes, request.output_bytes)
    }

    /// The bytes the stage moves once of a request of `input` and `output` bytes: the input
    /// (`prepare` writes it into the staging buffer, `h2d` copies it to the device) or the
    /// output (`d2h` copies it back); `compute` and `check` move none between host and device.
    pub fn moved(self, input: u64, output: u64) -> u64 {
        match self {
            Stage::Prepare | Stage::Upload => input,
            Stage::Download => output,
            Stage::Compute | Stage::Check => 0,
        }
    }

    /// What the stage does for one request, as its result declares it: the bytes it moves
    /// counted once, as the transfer suite counts them (toward the device written, back from
    /// it read); the kernel's FLOP with the input it reads and the output it writes; the check
    /// one operation.
    pub fn work(self, request: &Request) -> Work {
        let (input, output) = (request.input_bytes, request.output_bytes);
        match self {
            Stage::Prepare | Stage::Upload => Work::bytes(0, input),
            Stage::Download => Work::bytes(output, 0),
            Stage::Compute => Work::flops(request.flops()).with_bytes(input, output),
            Stage::Check => Work::ops(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datapath::request::builtins;
    use gpubench_harness::Profile;

    #[test]
    fn each_stage_declares_the_bytes_it_moves_once() {
        for request in builtins(Profile::Quick) {
            for stage in Stage::ALL {
                let work = stage.work(&request);
                assert_eq!(work.ops, 1);
                if stage != Stage::Compute {
                    assert_eq!(
                        work.total_bytes(),
                        stage.bytes(&request),
                        "{}",
                        stage.name()
                    );
                }
            }
            let (up, down) = (Stage::Upload.work(&request), Stage::Download.work(&request));
            assert_eq!((up.bytes_read, up.bytes_written), (0, request.input_bytes));
            assert_eq!(
                (down.bytes_read, down.bytes_written),
                (request.output_bytes, 0)
            );
            let compute = Stage::Compute.work(&request);
            let declared = (compute.bytes_read, compute.bytes_written, compute.flops);
            let kernel = (request.input_bytes, request.output_bytes, request.flops());
            assert_eq!(declared, kernel, "{}", request.name);
        }
    }
}
