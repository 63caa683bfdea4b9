// One request's device work: every invocation t < n_out folds its share of the input (the
// 16-byte groups t, t + n_out, t + 2 n_out, ...: every input word is read exactly once, and
// neighbouring invocations read neighbouring groups) into one word h by xor, then advances
// four independent FMA chains by `steps` steps each and writes h ^ bits(sum of the chains) to
// out[t].
//
// Why the answer is exact: each chain is x = fma(x, a, b) with a = 1 and b = 2^-10 from the
// uniform block (the compiler cannot fold them), started at -1.5 + k / 1024 for a byte k of h,
// so every value is a multiple of 2^-10 of magnitude below 2^13: exactly representable in f32.
// After `steps` steps a chain holds exactly its start + steps * b, and the sum of the four is
// exact too, so the CPU predicts every output word bit for bit from the input alone. A word
// not read, a step skipped or a loop folded cannot pass. Each loop iteration takes four steps
// of every chain (16 FMAs, four independent at each step), so the loop's own work is small beside them; `steps`
// is a multiple of 4.
//
// The grid may be two-dimensional (more workgroups than one dimension allows): invocations are
// numbered row by row.

// n_in: input groups of four words; n_out: invocations that write a word.
struct Params { n_in: u32, n_out: u32, steps: u32, _pad: u32, a: f32, b: f32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

fn start(h: u32, c: u32) -> f32 {
    return -1.5 + f32((h >> (8u * c)) & 255u) * params.b;
}

@compute @workgroup_size(64)
fn request(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * 64u;
    if (t >= params.n_out) {
        return;
    }
    // Four groups per loop trip, into four independent folds: fewer trips, and no chain of
    // dependent xors on the load latency.
    let stride = params.n_out;
    var f0 = vec4<u32>(0u);
    var f1 = vec4<u32>(0u);
    var f2 = vec4<u32>(0u);
    var f3 = vec4<u32>(0u);
    var j = t;
    for (; j + 3u * stride < params.n_in; j = j + 4u * stride) {
        f0 = f0 ^ input[j];
        f1 = f1 ^ input[j + stride];
        f2 = f2 ^ input[j + 2u * stride];
        f3 = f3 ^ input[j + 3u * stride];
    }
    for (; j < params.n_in; j = j + stride) {
        f0 = f0 ^ input[j];
    }
    let fold = (f0 ^ f1) ^ (f2 ^ f3);
    let h = (fold.x ^ fold.y) ^ (fold.z ^ fold.w);
    let a = vec4<f32>(params.a);
    let b = vec4<f32>(params.b);
    // The four chains are the lanes of one vector: four independent FMAs a step.
    var x = vec4<f32>(start(h, 0u), start(h, 1u), start(h, 2u), start(h, 3u));
    for (var i = 0u; i < params.steps; i = i + 4u) {
        x = fma(x, a, b);
        x = fma(x, a, b);
        x = fma(x, a, b);
        x = fma(x, a, b);
    }
    out[t] = h ^ bitcast<u32>((x.x + x.y) + (x.z + x.w));
}
