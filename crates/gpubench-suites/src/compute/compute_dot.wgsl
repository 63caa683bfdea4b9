// Peak packed 8-bit dot-product throughput: WGSL's dot4I8Packed and dot4U8Packed, which a GPU
// runs as one instruction with its accumulate (NVIDIA's IDP4A, AMD's V_DOT4_I32_IU8, Intel's
// DP4A). Every invocation runs 8 independent chains, each a u32 holding four 8-bit lanes, and
// each loop iteration advances every chain by UNROLL = 16 steps, chain by chain within a step.
//
// A step is x = x + dot4(x, w): the chain's own bytes are the dot product's first operand, so
// no step's dot product can be computed before the previous step is done, and none can be
// moved out of the loop (a dot product of loop-invariant operands would be, by any compiler).
// w, the second operand, comes from a uniform buffer. The recurrence has no closed form: the
// CPU replays it step by step, for every invocation of a small grid and for a sample of a
// large one.
//
// The signed and the unsigned forms are one entry point, told apart by the pipeline constant
// SIGNED.

// Steps per chain: a multiple of 16 (the steps one loop iteration takes).
override STEPS: u32 = 1024u;

// Whether the lanes are signed (dot4I8Packed) or unsigned (dot4U8Packed).
override SIGNED: bool = true;

struct Params { w: u32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// Start value of chain c of invocation id: the bytes of a multiplicative hash.
fn start(id: u32, c: u32) -> u32 {
    return id * 0x9e3779b9u + c * 0x85ebca6bu;
}

// The invocation's number in a grid of nwg workgroups of 64, row by row.
fn invocation(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * 64u;
}

struct Chains8 {
    c0: u32, c1: u32, c2: u32, c3: u32, c4: u32, c5: u32, c6: u32, c7: u32,
}

fn first(id: u32) -> Chains8 {
    return Chains8(
        start(id, 0u), start(id, 1u), start(id, 2u), start(id, 3u),
        start(id, 4u), start(id, 5u), start(id, 6u), start(id, 7u),
    );
}

fn sum(x: Chains8) -> u32 {
    return ((x.c0 + x.c1) + (x.c2 + x.c3)) + ((x.c4 + x.c5) + (x.c6 + x.c7));
}

// The packed dot product of the chain's bytes and w, as a u32: signed lanes when SIGNED (the
// i32 result's bits), else unsigned. SIGNED is a pipeline constant, so each pipeline compiles
// one built-in once the compiler folds the branch.
fn dot4(x: u32, w: u32) -> u32 {
    if SIGNED {
        return bitcast<u32>(dot4I8Packed(x, w));
    }
    return dot4U8Packed(x, w);
}

fn advance(x: Chains8, w: u32) -> Chains8 {
    return Chains8(
        x.c0 + dot4(x.c0, w), x.c1 + dot4(x.c1, w), x.c2 + dot4(x.c2, w), x.c3 + dot4(x.c3, w),
        x.c4 + dot4(x.c4, w), x.c5 + dot4(x.c5, w), x.c6 + dot4(x.c6, w), x.c7 + dot4(x.c7, w),
    );
}

// 8 chains of four 8-bit lanes per invocation.
@compute @workgroup_size(64)
fn dot_peak(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = invocation(gid, nwg);
    let w = params.w;
    var x = first(id);
    for (var i = 0u; i < STEPS / 16u; i++) {
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
        x = advance(x, w);
    }
    out[id] = sum(x);
}
