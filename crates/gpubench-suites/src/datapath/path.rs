//! What every datapath benchmark sets up (the kernel, its slots, the CPU reference) and the one
//! whole request it runs untimed: in set-up, so the output buffers hold a real answer, and in
//! verification, where every output word is compared.

use gpubench_harness::kit::gpu::check_binding_fits;
use gpubench_harness::{BenchError, GpuContext, Outcome, Verification};

use super::reference::{Mismatches, Reference};
use super::request::Request;
use super::slot::{RequestKernel, Slot};
use super::stage::Stage;

/// A benchmark's set-up state.
pub struct Prepared {
    /// The compiled request kernel.
    pub kernel: RequestKernel,
    /// One slot per request in flight.
    pub slots: Vec<Slot>,
    /// The inputs and answers.
    pub reference: Reference,
    /// The salt of the request whose output slot 0's readback buffer holds.
    pub last_salt: u32,
    /// The number of the next request (each request gets the salt of its number).
    pub next: u64,
}

impl Prepared {
    /// The salt of the next request, counted.
    pub fn next_salt(&mut self) -> u32 {
        let salt = Reference::salt(self.next);
        self.next += 1;
        salt
    }
}

/// The state for `request` with `slots` slots, after one whole request through slot 0. A
/// request over the adapter's binding limits is skipped, saying which.
pub async fn prepared(
    ctx: &GpuContext,
    request: &Request,
    seed: u64,
    slots: usize,
) -> Outcome<Prepared> {
    for (bytes, what) in [
        (request.input_bytes, "the request's input"),
        (request.output_bytes, "the request's output"),
    ] {
        check_binding_fits(ctx, bytes, what).map_err(BenchError::Unsupported)?;
    }
    let kernel = RequestKernel::new(ctx, request);
    let mut built = Vec::with_capacity(slots);
    for _ in 0..slots {
        built.push(Slot::new(ctx, request, &kernel).await?);
    }
    let mut state = Prepared {
        kernel,
        slots: built,
        reference: Reference::new(request, seed),
        last_salt: 0,
        next: 0,
    };
    whole_request(ctx, &mut state, false).await?;
    Ok(state)
}

/// One request through slot 0, untimed: prepare, one submit of upload, kernel and download,
/// map, check (every word when `every_word`).
pub async fn whole_request(
    ctx: &GpuContext,
    state: &mut Prepared,
    every_word: bool,
) -> Result<Mismatches, BenchError> {
    let salt = state.next_salt();
    let slot = &mut state.slots[0];
    slot.prepare(ctx, &state.reference, salt).await?;
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    slot.encode_request(&mut encoder, &state.kernel);
    slot.last_submission = Some(ctx.queue.submit([encoder.finish()]));
    slot.map_output(ctx).await?;
    let found = slot.check_output(&state.reference, salt, every_word)?;
    state.last_salt = salt;
    Ok(found)
}

/// A new request, every output word compared with its answer.
pub async fn verify_one_request(
    ctx: &GpuContext,
    state: &mut Prepared,
) -> Result<Verification, BenchError> {
    let found = whole_request(ctx, state, true).await?;
    Ok(verification(&found))
}

/// What `stage`, run alone, left on slot 0: the device stages after it run once, untimed, and
/// every output word is compared with the answer of the request whose input the slot holds.
/// The buffer `stage` writes is noted in the context's read log (`gpubench_harness::read_log`),
/// so the runner overwrites it after the first check and the check after the timed samples sees
/// only what they wrote: a dropped timed upload, kernel or download fails. The host's stages
/// (prepare, check) write nothing a device could drop: a new request is checked for them.
pub async fn verify_stage(
    ctx: &GpuContext,
    state: &mut Prepared,
    stage: Stage,
) -> Result<Verification, BenchError> {
    let slot = &mut state.slots[0];
    let Some(written) = slot.written_by(stage) else {
        return verify_one_request(ctx, state).await;
    };
    ctx.read_log().note(written, &[(0, written.size())]);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    slot.encode_after(&mut encoder, &state.kernel, stage);
    slot.last_submission = Some(ctx.queue.submit([encoder.finish()]));
    slot.map_output(ctx).await?;
    let found = slot.check_output(&state.reference, state.last_salt, true)?;
    Ok(verification(&found))
}

fn verification(found: &Mismatches) -> Verification {
    Verification {
        checked: found.checked as u64,
        mismatches: found.wrong as u64,
        first_mismatches: found.failure().into_iter().collect(),
    }
}
