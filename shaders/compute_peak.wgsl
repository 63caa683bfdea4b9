// Peak FMA throughput: every invocation runs 8 independent multiply-add chains (8 scalars, 4
// vec2 or 2 vec4), so the arithmetic units never wait on a previous result, and each loop
// iteration advances every chain by UNROLL = 16 steps, so the loop's own work (counter, exit
// test, and on a SIMD CPU the lane mask) is paid once per 128 FMAs.
//
// Each chain is x = fma(x, a, b) with a and b from a uniform buffer (the compiler cannot fold
// them). The host sets a = 1 and b = 2^-10 and starts every chain at -1.5 + j / 1024 for a small
// integer j, so every intermediate value is a multiple of 2^-10 in [-1.5, 0.5): exactly
// representable in f32 and f16 alike. After STEPS steps a chain holds exactly x0 + STEPS * b,
// which the CPU predicts exactly, so a skipped step, a wrong driver or a folded loop cannot
// pass. Each invocation writes the f32 sum of its chains (exact too: all terms are multiples
// of 2^-10 with small magnitude).
//
// The steps are written out chain by chain within each step (chain 0, chain 1, ..., then the
// next step), so neighbouring instructions are independent: what a GPU's dual issue (RDNA's
// VOPD) and an in-order scheduler need. The chains are one struct per form, stepped by one
// function, so the step is written once.
//
// The accumulate forms (peak_*_acc) run acc = fma(p, q, acc) instead: the chain is the addend.
// That is the shape RDNA 3 dual-issues (v_fmac_f32: the accumulator as addend, one operand per
// lane); the forms above compile there to VOP3 v_fma_f32 (two uniform operands), which it
// cannot. p is per lane at run time (b scaled by 1 + (local index & zero_mask), where the host
// sets zero_mask to 0, so p = b in every lane but the compiler cannot know it) and q uniform.
// The steps use two such pairs in turn, (p0, q0) and (p1, q1), equal at run time but not to
// the compiler: with one pair, fma(p, q, fma(p, q, acc)) shares its operands, and Mesa's NIR
// folds it to fma(p, q + q, acc), so RADV ran one FMA for every 16 written (seen in its
// disassembly). Consecutive steps that share no operand cannot be folded that way. The values
// are the same as above (acc moves by b = 2^-10 a step), so they stay exact; a folded, split or
// hoisted loop would run fewer FMAs or adds, which the tests that read the compiled code rule
// out (one v_fmac_f32 per step in the loop).
//
// The f16 form is made by rewriting the alias below (see gpu::specialise); STEPS is a pipeline
// constant, set by the host when it creates the pipeline. The grid may be two-dimensional (a
// large device needs more workgroups than one dimension allows): invocations are numbered row
// by row.

alias T = f32;

// Steps per chain: a multiple of 16 (the steps one loop iteration takes). STEPS * b must keep
// chains inside [-1.5, 0.5).
override STEPS: u32 = 1024u;

struct Params {
    a: f32,
    b: f32,
    // 0 at run time: the accumulate forms' per-lane multiplier is 1 + (local index & zero_mask).
    zero_mask: u32,
    // The accumulate forms' second uniform multiplier: equal to a at run time.
    a2: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

// Start value of chain c (counted in scalars) of invocation id: -1.5 + j / 1024, j in [0, 512).
fn start(id: u32, c: u32) -> T {
    return T(-1.5 + f32((id * 7u + c * 13u) & 511u) / 1024.0);
}

// The invocation's number in a grid of nwg workgroups of 64, row by row.
fn invocation(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * 64u;
}

struct Scalar8 {
    c0: T, c1: T, c2: T, c3: T, c4: T, c5: T, c6: T, c7: T,
}

fn step_scalar(x: Scalar8, a: T, b: T) -> Scalar8 {
    return Scalar8(
        fma(x.c0, a, b), fma(x.c1, a, b), fma(x.c2, a, b), fma(x.c3, a, b),
        fma(x.c4, a, b), fma(x.c5, a, b), fma(x.c6, a, b), fma(x.c7, a, b),
    );
}

// 8 scalar chains per invocation.
@compute @workgroup_size(64)
fn peak_scalar(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = invocation(gid, nwg);
    let a = T(params.a);
    let b = T(params.b);
    var x = Scalar8(
        start(id, 0u), start(id, 1u), start(id, 2u), start(id, 3u),
        start(id, 4u), start(id, 5u), start(id, 6u), start(id, 7u),
    );
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
        x = step_scalar(x, a, b);
    }
    let low = f32(x.c0) + f32(x.c1) + f32(x.c2) + f32(x.c3);
    let high = f32(x.c4) + f32(x.c5) + f32(x.c6) + f32(x.c7);
    out[id] = low + high;
}

struct Vec2x4 {
    c0: vec2<T>, c1: vec2<T>, c2: vec2<T>, c3: vec2<T>,
}

fn step_vec2(x: Vec2x4, a: vec2<T>, b: vec2<T>) -> Vec2x4 {
    return Vec2x4(fma(x.c0, a, b), fma(x.c1, a, b), fma(x.c2, a, b), fma(x.c3, a, b));
}

fn start2(id: u32, c: u32) -> vec2<T> {
    return vec2<T>(start(id, c), start(id, c + 1u));
}

// 4 vec2 chains per invocation (8 scalar lanes): packed f16 and dual-issue units take pairs.
@compute @workgroup_size(64)
fn peak_vec2(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = invocation(gid, nwg);
    let a = vec2<T>(T(params.a));
    let b = vec2<T>(T(params.b));
    var x = Vec2x4(start2(id, 0u), start2(id, 2u), start2(id, 4u), start2(id, 6u));
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
        x = step_vec2(x, a, b);
    }
    let sum = vec2<f32>(x.c0) + vec2<f32>(x.c1) + vec2<f32>(x.c2) + vec2<f32>(x.c3);
    out[id] = sum.x + sum.y;
}

struct Vec4x2 {
    c0: vec4<T>, c1: vec4<T>,
}

fn step_vec4(x: Vec4x2, a: vec4<T>, b: vec4<T>) -> Vec4x2 {
    return Vec4x2(fma(x.c0, a, b), fma(x.c1, a, b));
}

fn start4(id: u32, c: u32) -> vec4<T> {
    return vec4<T>(start(id, c), start(id, c + 1u), start(id, c + 2u), start(id, c + 3u));
}

// 2 vec4 chains per invocation (8 scalar lanes).
@compute @workgroup_size(64)
fn peak_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = invocation(gid, nwg);
    let a = vec4<T>(T(params.a));
    let b = vec4<T>(T(params.b));
    var x = Vec4x2(start4(id, 0u), start4(id, 4u));
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
        x = step_vec4(x, a, b);
    }
    let sum = vec4<f32>(x.c0) + vec4<f32>(x.c1);
    out[id] = (sum.x + sum.y) + (sum.z + sum.w);
}

// The accumulate forms: the same chains, each step acc = fma(p, q, acc).

// 1 + ((lid >> shift) & zero_mask): 1 at run time, per lane as far as the compiler knows, and
// a different value for each shift as far as it knows.
fn lane_scale(lid: u32, shift: u32) -> T {
    return T(1u + ((lid >> shift) & params.zero_mask));
}

fn acc_scalar(x: Scalar8, p: T, q: T) -> Scalar8 {
    return Scalar8(
        fma(p, q, x.c0), fma(p, q, x.c1), fma(p, q, x.c2), fma(p, q, x.c3),
        fma(p, q, x.c4), fma(p, q, x.c5), fma(p, q, x.c6), fma(p, q, x.c7),
    );
}

// 8 scalar accumulators per invocation.
@compute @workgroup_size(64)
fn peak_scalar_acc(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let id = invocation(gid, nwg);
    let p0 = T(params.b) * lane_scale(lid, 0u);
    let p1 = T(params.b) * lane_scale(lid, 1u);
    let q0 = T(params.a);
    let q1 = T(params.a2);
    var x = Scalar8(
        start(id, 0u), start(id, 1u), start(id, 2u), start(id, 3u),
        start(id, 4u), start(id, 5u), start(id, 6u), start(id, 7u),
    );
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
        x = acc_scalar(x, p0, q0);
        x = acc_scalar(x, p1, q1);
    }
    let low = f32(x.c0) + f32(x.c1) + f32(x.c2) + f32(x.c3);
    let high = f32(x.c4) + f32(x.c5) + f32(x.c6) + f32(x.c7);
    out[id] = low + high;
}

fn acc_vec2(x: Vec2x4, p: vec2<T>, q: vec2<T>) -> Vec2x4 {
    return Vec2x4(fma(p, q, x.c0), fma(p, q, x.c1), fma(p, q, x.c2), fma(p, q, x.c3));
}

// 4 vec2 accumulators per invocation.
@compute @workgroup_size(64)
fn peak_vec2_acc(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let id = invocation(gid, nwg);
    let p0 = vec2<T>(T(params.b) * lane_scale(lid, 0u));
    let p1 = vec2<T>(T(params.b) * lane_scale(lid, 1u));
    let q0 = vec2<T>(T(params.a));
    let q1 = vec2<T>(T(params.a2));
    var x = Vec2x4(start2(id, 0u), start2(id, 2u), start2(id, 4u), start2(id, 6u));
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
        x = acc_vec2(x, p0, q0);
        x = acc_vec2(x, p1, q1);
    }
    let sum = vec2<f32>(x.c0) + vec2<f32>(x.c1) + vec2<f32>(x.c2) + vec2<f32>(x.c3);
    out[id] = sum.x + sum.y;
}

fn acc_vec4(x: Vec4x2, p: vec4<T>, q: vec4<T>) -> Vec4x2 {
    return Vec4x2(fma(p, q, x.c0), fma(p, q, x.c1));
}

// 2 vec4 accumulators per invocation.
@compute @workgroup_size(64)
fn peak_vec4_acc(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let id = invocation(gid, nwg);
    let p0 = vec4<T>(T(params.b) * lane_scale(lid, 0u));
    let p1 = vec4<T>(T(params.b) * lane_scale(lid, 1u));
    let q0 = vec4<T>(T(params.a));
    let q1 = vec4<T>(T(params.a2));
    var x = Vec4x2(start4(id, 0u), start4(id, 4u));
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
        x = acc_vec4(x, p0, q0);
        x = acc_vec4(x, p1, q1);
    }
    let sum = vec4<f32>(x.c0) + vec4<f32>(x.c1);
    out[id] = (sum.x + sum.y) + (sum.z + sum.w);
}
