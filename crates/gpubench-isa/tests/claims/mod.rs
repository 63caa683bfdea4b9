//! The claims the ISA tests hold kernels to, read from RADV's disassembly: shared by the
//! tests on Mesa 22.3 (`compiled_forms`) and Mesa 25.0.7 (`navi31`).

#![allow(dead_code)]

use gpubench_harness::kit::forms::KernelForm;
use gpubench_isa::asm::{Instruction, count, count_prefix, instructions, loops};
use gpubench_isa::{Compiler, PipelineSource};

/// What `form` declares, as the compiler takes it.
pub fn source_of(form: &KernelForm) -> PipelineSource<'_> {
    PipelineSource {
        name: &form.pipeline,
        wgsl: &form.shader.source,
        entry: &form.shader.entry,
        constants: &form.shader.constants,
        zero_init: form.zero_init_workgroup,
    }
}

/// `compiler`'s disassembly of each named pipeline among `forms` (the suites' declarations),
/// in order; a pipeline no suite declares, or one the compiler refuses, panics with why.
pub fn disassemble_each<S: AsRef<str>>(
    compiler: &Compiler,
    forms: &[KernelForm],
    pipelines: &[S],
) -> Vec<String> {
    pipelines
        .iter()
        .map(|name| {
            let name = name.as_ref();
            let form = forms
                .iter()
                .find(|f| f.pipeline == *name)
                .unwrap_or_else(|| panic!("no suite declares the pipeline {name}"));
            let reps = compiler
                .internal_representations(&source_of(form))
                .unwrap_or_else(|e| panic!("{e}"));
            reps.disassembly()
                .unwrap_or_else(|e| panic!("{e}"))
                .to_string()
        })
        .collect()
}

/// The loop with the most instructions (the kernel's main loop).
pub fn main_loop(text: &str) -> Result<Vec<Instruction<'_>>, String> {
    loops(text)
        .into_iter()
        .max_by_key(Vec::len)
        .ok_or_else(|| "no loop in the disassembly".to_string())
}

/// The accumulate form's claim on one pipeline: `fmacs` FMAs a loop trip, each `fmac` (the
/// accumulator as addend, VOP2; for f32 also its dual-issue half), none `vop3`, and no separate
/// multiply or add of the type.
pub fn accumulates(
    text: &str,
    (fmac, vop3, ty): (&str, &str, &str),
    fmacs: usize,
) -> Result<(), String> {
    let body = main_loop(text)?;
    let got = count(&body, fmac) + count(&body, &format!("v_dual_{}", &fmac[2..]));
    let three = count(&body, vop3);
    let split = count(&body, &format!("v_mul_{ty}")) + count(&body, &format!("v_add_{ty}"));
    if got == fmacs && three == 0 && split == 0 {
        Ok(())
    } else {
        Err(format!(
            "loop: {got} {fmac}, {three} {vop3}, {split} v_mul_{ty}/v_add_{ty} (want {fmacs}, 0, 0)"
        ))
    }
}

/// The instructions of each type: its VOP2 accumulate form, its VOP3 form, its name.
pub const F32: (&str, &str, &str) = ("v_fmac_f32", "v_fma_f32", "f32");
pub const F16: (&str, &str, &str) = ("v_fmac_f16", "v_fma_f16", "f16");

/// 8 lanes x 16 steps written out per loop trip.
pub const PER_TRIP: usize = 128;

/// The lane-indexed atomic claim: `adds` atomic instructions of `kind` (a mnemonic prefix) and
/// no instruction that moves data between lanes.
pub fn unfolded(text: &str, kind: &str, adds: usize) -> Result<(), String> {
    let all = instructions(text);
    let atomics = count_prefix(&all, kind);
    let crossing: Vec<&str> = all
        .iter()
        .filter(|i| i.crosses_lanes())
        .map(|i| i.mnemonic)
        .collect();
    if atomics == adds && crossing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{atomics} {kind}* (want {adds}); cross-lane instructions: {crossing:?}"
        ))
    }
}

/// The lanes chase's claim: its loop's 8 loads are vector memory loads, none scalar.
pub fn vector_chase(text: &str) -> Result<(), String> {
    let body = main_loop(text)?;
    let vector = count_prefix(&body, "buffer_load") + count_prefix(&body, "global_load");
    // Scalar data loads; the loop may reload the buffer's descriptor (`s_load_b128`), which is
    // no load of the chase's data.
    let scalar = count_prefix(&body, "s_buffer_load");
    if vector == 8 && scalar == 0 {
        Ok(())
    } else {
        Err(format!(
            "loop: {vector} vector loads, {scalar} scalar loads (want 8, 0)"
        ))
    }
}

/// Whether `text` has a loop (a rolled atomic loop holds 4 adds a trip, an unrolled one 64).
pub fn loops_in(text: &str) -> bool {
    !loops(text).is_empty()
}
