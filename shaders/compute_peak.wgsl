// Peak FMA throughput: every invocation runs many independent multiply-add chains, so the
// arithmetic units never wait on a previous result.
//
// Each chain is x = fma(x, a, b) with a and b from a uniform buffer (the compiler cannot fold
// them). The host sets a = 1 and b = 2^-10 and starts every chain at -1.5 + j / 1024 for a small
// integer j, so every intermediate value is a multiple of 2^-10 in [-1.5, 0.5): exactly
// representable in f32 and f16 alike. After STEPS steps a chain holds exactly x0 + STEPS * b,
// which the CPU predicts exactly, so a skipped step, a wrong driver or a folded loop cannot
// pass. Each invocation writes the f32 sum of its chains (exact too: all terms are multiples
// of 2^-10 with small magnitude).
//
// The f16 form is made by rewriting the alias below (see gpu::specialise); STEPS is a pipeline
// constant, set by the host when it creates the pipeline.

alias T = f32;

// Steps per chain. STEPS * b must keep chains inside [-1.5, 0.5).
override STEPS: u32 = 1024u;

struct Params {
    a: f32,
    b: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

// Start value of chain c (counted in scalars) of invocation id: -1.5 + j / 1024, j in [0, 512).
fn start(id: u32, c: u32) -> T {
    return T(-1.5 + f32((id * 7u + c * 13u) & 511u) / 1024.0);
}

// 16 scalar chains per invocation.
@compute @workgroup_size(64)
fn peak_scalar(@builtin(global_invocation_id) gid: vec3<u32>) {
    let a = T(params.a);
    let b = T(params.b);
    var x0 = start(gid.x, 0u);
    var x1 = start(gid.x, 1u);
    var x2 = start(gid.x, 2u);
    var x3 = start(gid.x, 3u);
    var x4 = start(gid.x, 4u);
    var x5 = start(gid.x, 5u);
    var x6 = start(gid.x, 6u);
    var x7 = start(gid.x, 7u);
    var x8 = start(gid.x, 8u);
    var x9 = start(gid.x, 9u);
    var x10 = start(gid.x, 10u);
    var x11 = start(gid.x, 11u);
    var x12 = start(gid.x, 12u);
    var x13 = start(gid.x, 13u);
    var x14 = start(gid.x, 14u);
    var x15 = start(gid.x, 15u);
    for (var i = 0u; i < STEPS; i++) {
        x0 = fma(x0, a, b);
        x1 = fma(x1, a, b);
        x2 = fma(x2, a, b);
        x3 = fma(x3, a, b);
        x4 = fma(x4, a, b);
        x5 = fma(x5, a, b);
        x6 = fma(x6, a, b);
        x7 = fma(x7, a, b);
        x8 = fma(x8, a, b);
        x9 = fma(x9, a, b);
        x10 = fma(x10, a, b);
        x11 = fma(x11, a, b);
        x12 = fma(x12, a, b);
        x13 = fma(x13, a, b);
        x14 = fma(x14, a, b);
        x15 = fma(x15, a, b);
    }
    var sum = 0.0;
    sum += f32(x0);
    sum += f32(x1);
    sum += f32(x2);
    sum += f32(x3);
    sum += f32(x4);
    sum += f32(x5);
    sum += f32(x6);
    sum += f32(x7);
    sum += f32(x8);
    sum += f32(x9);
    sum += f32(x10);
    sum += f32(x11);
    sum += f32(x12);
    sum += f32(x13);
    sum += f32(x14);
    sum += f32(x15);
    out[gid.x] = sum;
}

// 4 vec4 chains per invocation (16 scalar lanes).
@compute @workgroup_size(64)
fn peak_vec4(@builtin(global_invocation_id) gid: vec3<u32>) {
    let a = vec4<T>(T(params.a));
    let b = vec4<T>(T(params.b));
    var x0 = vec4<T>(start(gid.x, 0u), start(gid.x, 1u), start(gid.x, 2u), start(gid.x, 3u));
    var x1 = vec4<T>(start(gid.x, 4u), start(gid.x, 5u), start(gid.x, 6u), start(gid.x, 7u));
    var x2 = vec4<T>(start(gid.x, 8u), start(gid.x, 9u), start(gid.x, 10u), start(gid.x, 11u));
    var x3 = vec4<T>(start(gid.x, 12u), start(gid.x, 13u), start(gid.x, 14u), start(gid.x, 15u));
    for (var i = 0u; i < STEPS; i++) {
        x0 = fma(x0, a, b);
        x1 = fma(x1, a, b);
        x2 = fma(x2, a, b);
        x3 = fma(x3, a, b);
    }
    var sum = vec4<f32>(0.0);
    sum += vec4<f32>(x0);
    sum += vec4<f32>(x1);
    sum += vec4<f32>(x2);
    sum += vec4<f32>(x3);
    out[gid.x] = sum.x + sum.y + sum.z + sum.w;
}
