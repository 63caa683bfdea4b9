// One kernel for the roofline, swept over arithmetic intensity: every vec4<f32> read from
// memory gets FMAS multiply-adds (8 * FMAS FLOP per 16 bytes, FMAS / 2 FLOP per byte). Low
// FMAS is bound by memory bandwidth, high FMAS by arithmetic; the ridge lies between.
//
// Each loop iteration reads four elements (i, i + groups, i + 2 groups, i + 3 groups: coalesced
// across lanes) and runs four independent chains, so even high FMAS is not latency-bound.
// With a = 1 and b = 2^-10 (from the uniform buffer) and inputs that are multiples of 2^-10 in
// [-1, 1), every value stays a small multiple of 2^-10: each chain ends exactly at
// x + FMAS / 1024, and each invocation's sum of its elements is exact, so the CPU checks it bit
// for bit. FMAS is a pipeline constant set per point, so the driver sees a fixed trip count
// and can unroll the chain.

// groups: vec4 groups of four (the array holds 4 * groups vec4 elements); threads:
// invocations in the whole dispatch.
struct Params { groups: u32, threads: u32, a: f32, b: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

// Multiply-adds per element read: set per point.
override FMAS: u32 = 1u;

@compute @workgroup_size(256)
fn roofline(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.threads) {
        return;
    }
    let a = vec4<f32>(params.a);
    let b = vec4<f32>(params.b);
    let g = params.groups;
    var acc = vec4<f32>(0.0);
    for (var i = gid.x; i < g; i += params.threads) {
        var x0 = input[i];
        var x1 = input[i + g];
        var x2 = input[i + 2u * g];
        var x3 = input[i + 3u * g];
        for (var j = 0u; j < FMAS; j++) {
            x0 = fma(x0, a, b);
            x1 = fma(x1, a, b);
            x2 = fma(x2, a, b);
            x3 = fma(x3, a, b);
        }
        acc += (x0 + x1) + (x2 + x3);
    }
    out[gid.x] = acc;
}
