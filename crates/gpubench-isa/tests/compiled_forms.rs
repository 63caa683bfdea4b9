//! What AMD's compiler makes of the kernel forms that exist because of it, read from RADV's own
//! disassembly (RDNA 3, `gfx1100`, on null hardware: no GPU needed). Each claim is a check that
//! the new form passes and the older form it stands beside fails, so the test proves the
//! difference, not only the new code:
//!
//! - FMA peak, accumulate form: every step of the loop is `v_fmac_f32` (the accumulator as
//!   addend, dual-issuable on RDNA 3), 8 lanes x 16 steps = 128 per loop trip, with no VOP3
//!   `v_fma_f32` and no separate multiply or add (a split fma, or a product hoisted out of the
//!   loop, would show as adds; steps folded together, as NIR folded `fma(p, q, fma(p, q, acc))`
//!   into `fma(p, q + q, acc)` when every step used one operand pair, as fewer FMAs and adds).
//!   The multiply form `x = fma(x, a, b)` compiles to `v_fma_f32`.
//! - Integer, dot-product and f64 peaks: each step of each chain is one instruction of the kind
//!   the compute suite's README names (`v_dot4_i32_iu8`, `v_dot4_u32_u8`, `v_mul_lo_u32` with
//!   `v_add_nc_u32`, packed `v_pk_mad_u16`, `v_fma_f64`): none folded or split.
//! - Atomics, lane-indexed: every atomicAdd written is an atomic instruction every lane issues,
//!   with no instruction that moves data between lanes (DPP, lane reads and permutes, the lane
//!   counting of an elected lane): nothing of a subgroup reduction. The uniform-address form is
//!   a reduction and one lane's atomic.
//! - Latency chase, lanes form: its loop loads through the vector memory path (8
//!   `buffer_load`/`global_load` a trip, no scalar load); the single-invocation chase's loop is
//!   `s_buffer_load`s through the scalar cache.
//!
//! The pipelines are the ones the suites declare (`REGISTRY.pipelines`), compiled as
//! `gpubench kernels --isa gfx1100` compiles them. RADV comes with Debian's mesa-vulkan-drivers
//! (CI installs it): without it these tests fail, saying so; they never skip.

use std::sync::{Mutex, Once};

use gpubench_harness::Profile;
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::forms::KernelForm;
use gpubench_isa::asm::{Instruction, count, count_prefix, instructions, loops};
use gpubench_isa::{Compiler, PipelineSource, radv};

mod claims;
use claims::{F16, F32, PER_TRIP, accumulates, main_loop, unfolded, vector_chase};

/// The family the claims are about: RDNA 3, whose dual issue needs `v_fmac_f32`.
const FAMILY: &str = "gfx1100";

/// One test at a time opens the driver: the environment is set once, before any of them loads
/// Vulkan.
static DRIVER: Mutex<()> = Mutex::new(());

fn use_radv() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        // SAFETY: as below; the system's RADV (Mesa 22.3), whatever the caller's environment
        // names (Mesa 25's claims are tests/navi31.rs').
        unsafe { std::env::remove_var(radv::RADV_ICD) };
        let env = radv::null_hardware_environment(FAMILY).unwrap_or_else(|e| {
            panic!("{e} (these tests read RADV's disassembly; they do not skip)")
        });
        // SAFETY: every test of this binary calls this (under DRIVER's lock) before anything
        // loads Vulkan, and nothing else in the binary reads the environment concurrently.
        unsafe {
            for (key, value) in env.set {
                std::env::set_var(key, value);
            }
            std::env::remove_var(env.remove);
        }
    });
}

/// Every pipeline the suites declare, as a GPU with RADV's limits builds them.
fn forms() -> Vec<KernelForm> {
    let facts = AdapterFacts::vulkan_gpu(64, 1024, 65536);
    gpubench_suites::REGISTRY
        .pipelines(facts, Profile::Default)
        .expect("the suites' pipelines")
}

/// RADV, opened under [`DRIVER`]'s lock with its environment set, and the suites' pipelines,
/// lent to `f`.
fn with_radv<T>(f: impl FnOnce(&Compiler, &[KernelForm]) -> T) -> T {
    let _one = DRIVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    use_radv();
    let compiler = Compiler::open("RADV").unwrap_or_else(|e| panic!("{e}"));
    f(&compiler, &forms())
}

/// RADV's disassembly of each named pipeline, in order.
fn disassembly<S: AsRef<str>>(pipelines: &[S]) -> Vec<String> {
    with_radv(|compiler, forms| claims::disassemble_each(compiler, forms, pipelines))
}

#[test]
fn the_accumulate_fma_forms_are_v_fmac_and_the_multiply_forms_are_not() {
    let cases = [
        ("scalar-f32", F32),
        ("vec2-f32", F32),
        ("vec4-f32", F32),
        ("scalar-f16", F16),
    ];
    let names: Vec<String> = cases
        .iter()
        .flat_map(|(form, _)| {
            [
                format!("compute/fma-peak/acc-{form}"),
                format!("compute/fma-peak/{form}"),
            ]
        })
        .collect();
    let texts = disassembly(&names);
    for (pair, (form, ops)) in texts.chunks(2).zip(cases) {
        if let Err(why) = accumulates(&pair[0], ops, PER_TRIP) {
            panic!("acc-{form} is not in accumulate form: {why}\n{}", pair[0]);
        }
        assert!(
            accumulates(&pair[1], ops, PER_TRIP).is_err(),
            "{form} passes the accumulate check"
        );
        let body = main_loop(&pair[1]).expect("a loop");
        assert_eq!(
            count(&body, ops.1),
            PER_TRIP,
            "{form}: VOP3 {}\n{}",
            ops.1,
            pair[1]
        );
    }
}

#[test]
fn the_packed_f16_accumulate_forms_run_every_step() {
    // RDNA 3 has no VOP2 packed FMA: both forms are v_pk_fma_f16, two lanes an instruction. The
    // accumulate form's claim here is that no step was folded, split or hoisted.
    let names = [
        "compute/fma-peak/acc-vec2-f16",
        "compute/fma-peak/acc-vec4-f16",
    ];
    for (name, text) in names.iter().zip(disassembly(&names)) {
        let body = main_loop(&text).expect("a loop");
        let packed = count(&body, "v_pk_fma_f16");
        let split = count(&body, "v_pk_mul_f16") + count(&body, "v_pk_add_f16");
        assert_eq!((packed, split), (PER_TRIP / 2, 0), "{name}\n{text}");
    }
}

#[test]
fn steps_sharing_an_operand_pair_are_folded_and_the_check_catches_it() {
    // The accumulate form with one operand pair for every step (the first version of it):
    // NIR turns fma(p, q, fma(p, q, acc)) into fma(p, q + q, acc), so RADV runs 8 FMAs a trip
    // for the 128 written, and the figure would be 16 times the work done.
    let one_pair =
        |source: &str| source.replace("x = acc_scalar(x, p1, q1);", "x = acc_scalar(x, p0, q0);");
    let text = with_radv(|compiler, forms| {
        let form = forms
            .iter()
            .find(|f| f.pipeline == "compute/fma-peak/acc-scalar-f32")
            .expect("declared");
        let source = one_pair(&form.shader.source);
        assert_ne!(source, form.shader.source, "the steps name their pairs");
        let pipeline = PipelineSource {
            name: "one pair",
            wgsl: &source,
            ..claims::source_of(form)
        };
        let reps = compiler
            .internal_representations(&pipeline)
            .unwrap_or_else(|e| panic!("{e}"));
        let text = reps.disassembly().unwrap_or_else(|e| panic!("{e}"));
        text.to_string()
    });
    let folded = accumulates(&text, F32, PER_TRIP);
    assert!(folded.is_err(), "one pair is not folded any more:\n{text}");
}

#[test]
fn the_lane_indexed_atomics_are_not_a_subgroup_reduction_and_the_uniform_ones_are() {
    let cases = [
        ("storage-one", "buffer_atomic_add"),
        ("workgroup-one", "ds_add"),
    ];
    let names: Vec<String> = cases
        .iter()
        .flat_map(|(target, _)| {
            let name = format!("memory/atomic-add/{target}");
            [format!("{name}-lane-indexed"), name]
        })
        .collect();
    let texts = disassembly(&names);
    // memory_shared.wgsl's ADDS: 64 atomicAdds an invocation, the loop unrolled or not; a
    // rolled loop holds them as 16 trips of 4.
    for (pair, (target, kind)) in texts.chunks(2).zip(cases) {
        let adds = if loops(&pair[0]).is_empty() { 64 } else { 4 };
        if let Err(why) = unfolded(&pair[0], kind, adds) {
            panic!("{target}-lane-indexed: {why}\n{}", pair[0]);
        }
        let folded = instructions(&pair[1]);
        assert!(
            folded.iter().any(Instruction::crosses_lanes),
            "{target}: no subgroup reduction any more; its docs say it is aggregated\n{}",
            pair[1]
        );
        let adds = if loops(&pair[1]).is_empty() { 64 } else { 4 };
        assert!(unfolded(&pair[1], kind, adds).is_err());
    }
}

#[test]
fn the_lanes_chase_loads_through_the_vector_path_and_the_single_one_does_not() {
    let texts = disassembly(&["memory/chase_lanes", "memory/chase"]);
    if let Err(why) = vector_chase(&texts[0]) {
        panic!("chase_lanes: {why}\n{}", texts[0]);
    }
    assert!(vector_chase(&texts[1]).is_err(), "{}", texts[1]);
    let body = main_loop(&texts[1]).expect("a loop");
    assert_eq!(
        count_prefix(&body, "s_buffer_load"),
        8,
        "chase: the scalar cache\n{}",
        texts[1]
    );
}

/// The compute suite's README names what RDNA 3 runs for each integer, dot and f64 form: every
/// step of every chain one instruction of that kind (two 16-bit lanes to a packed one), so the
/// figure is the instruction's rate, not a folded or split chain's.
#[test]
fn the_integer_dot_and_f64_forms_are_the_instructions_the_readme_names() {
    let cases: [(&str, &[(&str, usize)]); 5] = [
        (
            "compute/dot-peak/packed-i8",
            &[("v_dot4_i32_iu8", PER_TRIP)],
        ),
        ("compute/dot-peak/packed-u8", &[("v_dot4_u32_u8", PER_TRIP)]),
        (
            "compute/int-peak/scalar-i32",
            &[("v_mul_lo_u32", PER_TRIP), ("v_add_nc_u32", PER_TRIP)],
        ),
        (
            "compute/int-peak/vec4-i16",
            &[("v_pk_mad_u16", PER_TRIP / 2)],
        ),
        ("compute/fma-peak/scalar-f64", &[("v_fma_f64", PER_TRIP)]),
    ];
    let names: Vec<&str> = cases.iter().map(|(name, _)| *name).collect();
    for ((name, wanted), text) in cases.iter().zip(disassembly(&names)) {
        let body = main_loop(&text).expect("a loop");
        for &(mnemonic, per_trip) in *wanted {
            assert_eq!(
                count(&body, mnemonic),
                per_trip,
                "{name}: {mnemonic} a loop trip\n{text}"
            );
        }
    }
}
