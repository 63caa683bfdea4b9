//! What Mesa 25.0.7's RADV makes of the kernels on RDNA 3 (`navi31`, null hardware), the first
//! RADV here with `VK_KHR_cooperative_matrix`. Each claim passes on the new form and fails on
//! the form it stands beside:
//!
//! - Cooperative matrix, B staged K-contiguous (`-bcol`): the main loop runs `v_wmma` fed by
//!   wide LDS loads (128 bits) and no 16-bit ones; the row-major form it replaces on AMD reads
//!   its B fragments one 16-bit element at a time, at least 64 reads per 16 WMMA.
//! - Items 1-3 of issue 47 again on this compiler: the accumulate FMA forms are `v_fmac_f32`,
//!   the lane-indexed atomics are no subgroup reduction, the lanes chase loads through the
//!   vector path (the claims of `compiled_forms`, which reads Mesa 22.3).
//!
//! The pipelines are the ones the suites declare (`REGISTRY.pipelines`) for the facts this
//! RADV reports (its cooperative-matrix configurations and AMD's vendor id), as `gpubench
//! kernels --isa navi31` compiles them. The RADV is the one `GPUBENCH_RADV_ICD` names, which
//! `cargo xtask radv25` unpacks and sets: these tests are ignored by a plain `cargo test`, and
//! fail, never skip, without it.

use std::sync::{Mutex, Once};

use gpubench_harness::Profile;
use gpubench_harness::kit::facts::{AdapterFacts, CoopMatrices, VENDOR_AMD};
use gpubench_harness::kit::forms::KernelForm;
use gpubench_harness::kit::gpu::Precision;
use gpubench_isa::asm::{Instruction, count, count_prefix, instructions};
use gpubench_isa::{Compiler, radv};

mod claims;
use claims::{F32, PER_TRIP, accumulates, main_loop, unfolded, vector_chase};

/// RDNA 3 as Mesa 25 names it.
const FAMILY: &str = "navi31";

/// One test at a time opens the driver: the environment is set once, before any of them loads
/// Vulkan.
static DRIVER: Mutex<()> = Mutex::new(());

fn use_radv() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        assert!(
            std::env::var_os(radv::RADV_ICD).is_some(),
            "{} is not set: `cargo xtask radv25` unpacks Mesa 25.0.7's RADV and runs these \
             tests with it (they do not skip)",
            radv::RADV_ICD
        );
        let env = radv::null_hardware_environment(FAMILY).unwrap_or_else(|e| panic!("{e}"));
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

/// The facts wgpu would report for the compiler's device: its square f16/f32 configurations.
fn facts_of(compiler: &Compiler) -> AdapterFacts {
    let facts = compiler.facts();
    let coop = CoopMatrices::from_named(facts.named_matrices());
    AdapterFacts {
        vendor: facts.vendor,
        coop,
        ..AdapterFacts::vulkan_gpu(facts.max_subgroup_size, 1024, facts.max_workgroup_bytes)
    }
}

/// RADV's disassembly of each named pipeline, in order.
fn disassembly(pipelines: &[&str]) -> Vec<String> {
    let _one = DRIVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    use_radv();
    let compiler = Compiler::open("RADV").unwrap_or_else(|e| panic!("{e}"));
    let facts = facts_of(&compiler);
    assert_eq!(facts.vendor, VENDOR_AMD);
    assert!(
        facts.coop.offers(16, Precision::F16, Precision::F32),
        "{} offers no 16 x 16 f16 cooperative matrices: not Mesa 25's RADV?",
        compiler.facts().driver
    );
    let forms: Vec<KernelForm> = gpubench_suites::REGISTRY
        .pipelines(facts, Profile::Default)
        .expect("the suites' pipelines");
    claims::disassemble_each(&compiler, &forms, pipelines)
}

/// What one K-step of a cooperative-matrix kernel's main loop reads from LDS for its WMMA:
/// `(wmma, wide, narrow)`: WMMA instructions, 128-bit LDS loads, 16-bit LDS loads.
fn lds_feed(text: &str) -> Result<(usize, usize, usize), String> {
    let body = main_loop(text)?;
    let wmma = count_prefix(&body, "v_wmma_");
    let wide = count(&body, "ds_load_b128");
    let narrow = count_prefix(&body, "ds_load_u16") + count_prefix(&body, "ds_load_i16");
    Ok((wmma, wide, narrow))
}

/// The K-contiguous claim: WMMA fed by wide LDS loads only, none of 16 bits.
fn fed_wide(text: &str) -> Result<(), String> {
    let (wmma, wide, narrow) = lds_feed(text)?;
    if wmma > 0 && wide > 0 && narrow == 0 {
        Ok(())
    } else {
        Err(format!(
            "loop: {wmma} v_wmma, {wide} ds_load_b128, {narrow} 16-bit LDS loads (want some, some, 0)"
        ))
    }
}

#[test]
#[ignore = "needs Mesa 25's RADV: cargo xtask radv25 runs it"]
fn k_contiguous_b_feeds_wmma_with_wide_lds_loads_and_row_major_b_does_not() {
    let forms = [
        "matmul/f16/coop16x16-sg64-w2x2-bk16-db-bcol-acc32",
        "matmul/f16/coop16x16-sg64-w2x2-bk16-db-acc32",
    ];
    let texts = disassembly(&forms);
    if let Err(why) = fed_wide(&texts[0]) {
        panic!("{}: {why}\n{}", forms[0], texts[0]);
    }
    assert!(fed_wide(&texts[1]).is_err(), "{}", texts[1]);
    // Row-major B on RDNA 3: each lane's B column read one 16-bit element at a time, at least
    // 64 reads for the 16 WMMA of a 64 x 64 subgroup tile (16 x 16 x 16 products).
    let (wmma, _, narrow) = lds_feed(&texts[1]).expect("a loop");
    assert_eq!(wmma, 16, "{}", texts[1]);
    assert!(narrow >= 64, "{narrow} 16-bit LDS loads\n{}", texts[1]);
    let all = instructions(&texts[0]);
    assert!(
        all.iter()
            .all(|i: &Instruction<'_>| !i.mnemonic.starts_with("scratch_")),
        "the kept form spills"
    );
}

#[test]
#[ignore = "needs Mesa 25's RADV: cargo xtask radv25 runs it"]
fn items_1_to_3_hold_on_mesa_25() {
    let names = [
        "compute/fma-peak/acc-scalar-f32",
        "compute/fma-peak/acc-vec4-f32",
        "compute/fma-peak/vec4-f32",
        "memory/atomic-add/storage-one-lane-indexed",
        "memory/chase_lanes",
        "memory/chase",
    ];
    let texts = disassembly(&names);
    for at in 0..2 {
        if let Err(why) = accumulates(&texts[at], F32, PER_TRIP) {
            panic!("{}: {why}\n{}", names[at], texts[at]);
        }
    }
    assert!(
        accumulates(&texts[2], F32, PER_TRIP).is_err(),
        "{}",
        texts[2]
    );
    let adds = if claims::loops_in(&texts[3]) { 4 } else { 64 };
    if let Err(why) = unfolded(&texts[3], "buffer_atomic_add", adds) {
        panic!("{}: {why}\n{}", names[3], texts[3]);
    }
    if let Err(why) = vector_chase(&texts[4]) {
        panic!("{}: {why}\n{}", names[4], texts[4]);
    }
    assert!(vector_chase(&texts[5]).is_err(), "{}", texts[5]);
}
