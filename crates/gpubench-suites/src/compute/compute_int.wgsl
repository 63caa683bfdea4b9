// Peak integer multiply-add throughput: the FMA peak's shape (compute_peak.wgsl) for integers.
// Every invocation runs 8 independent chains (8 scalars or 2 vec4), and each loop iteration
// advances every chain by UNROLL = 16 steps, chain by chain within a step, so neighbouring
// instructions are independent and the loop's own work is paid once per 128 multiply-adds.
//
// Each chain is x = x * a + b with a and b from a uniform buffer, in the wrapping arithmetic of
// its type (WGSL integer arithmetic wraps). The host picks an odd multiplier with bits set in
// every byte, so every bit of x depends on every step: a skipped step or a lost high half changes
// the result. The map x -> a x + b composed STEPS times is again affine, so the CPU predicts
// every invocation's output exactly, in a few multiplications per chain; a compiler that composed
// the steps the same way would pass that check, so the compiled code is read for it instead.
//
// T is rewritten per type by the host (i32, u32, i64, i16), and so is low_bits, which turns the
// sum of an invocation's chains into the u32 it writes: the sum's bits (the low 16 of an i16;
// an i64's two halves XORed, so its high half counts). Start values, a and b are u32 here with
// their top bit clear, so T(u32) is the same value whether it zero- or sign-extends to i64.

alias T = i32;

fn low_bits(x: T) -> u32 { return bitcast<u32>(x); }

// Steps per chain: a multiple of 16 (the steps one loop iteration takes).
override STEPS: u32 = 1024u;

struct Params { a: u32, b: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// Start value of chain c (counted in scalars) of invocation id.
fn start(id: u32, c: u32) -> T {
    return T(id * 7u + c * 13u);
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
        x.c0 * a + b, x.c1 * a + b, x.c2 * a + b, x.c3 * a + b,
        x.c4 * a + b, x.c5 * a + b, x.c6 * a + b, x.c7 * a + b,
    );
}

// 8 scalar chains per invocation.
@compute @workgroup_size(64)
fn mad_scalar(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = invocation(gid, nwg);
    let a = T(params.a);
    let b = T(params.b);
    var x = Scalar8(
        start(id, 0u), start(id, 1u), start(id, 2u), start(id, 3u),
        start(id, 4u), start(id, 5u), start(id, 6u), start(id, 7u),
    );
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b);
        x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b);
        x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b);
        x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b); x = step_scalar(x, a, b);
    }
    let low = (x.c0 + x.c1) + (x.c2 + x.c3);
    let high = (x.c4 + x.c5) + (x.c6 + x.c7);
    out[id] = low_bits(low + high);
}

struct Vec4x2 {
    c0: vec4<T>, c1: vec4<T>,
}

fn step_vec4(x: Vec4x2, a: vec4<T>, b: vec4<T>) -> Vec4x2 {
    return Vec4x2(x.c0 * a + b, x.c1 * a + b);
}

fn start4(id: u32, c: u32) -> vec4<T> {
    return vec4<T>(start(id, c), start(id, c + 1u), start(id, c + 2u), start(id, c + 3u));
}

// 2 vec4 chains per invocation (8 scalar lanes).
@compute @workgroup_size(64)
fn mad_vec4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = invocation(gid, nwg);
    let a = vec4<T>(T(params.a));
    let b = vec4<T>(T(params.b));
    var x = Vec4x2(start4(id, 0u), start4(id, 4u));
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b);
        x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b);
        x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b);
        x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b); x = step_vec4(x, a, b);
    }
    let sum = x.c0 + x.c1;
    out[id] = low_bits((sum.x + sum.y) + (sum.z + sum.w));
}
