// Device-memory bandwidth kernels over array<vec4<f32>>, after STREAM and BabelStream.
// Every kernel walks the arrays with a grid-stride loop, so any array length works with a
// dispatch capped at the adapter's workgroup-count limit. Outputs never alias inputs, so each
// kernel can run any number of times and still verify.

struct Params {
    // Number of vec4 elements in each array.
    n: u32,
    // The scalar of scale and triad (0.4, as in BabelStream).
    scalar: f32,
    // Invocations in the whole dispatch (workgroups x workgroup size).
    threads: u32,
    _pad: u32,
}

const WORKGROUP: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> c: array<vec4<f32>>;

// c = a
@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += params.threads) {
        c[i] = a[i];
    }
}

// c = scalar * a
@compute @workgroup_size(256)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += params.threads) {
        c[i] = params.scalar * a[i];
    }
}

// c = a + b
@compute @workgroup_size(256)
fn add(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += params.threads) {
        c[i] = a[i] + b[i];
    }
}

// c = a + scalar * b
@compute @workgroup_size(256)
fn triad(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += params.threads) {
        c[i] = a[i] + params.scalar * b[i];
    }
}

// Read-only reduction: invocation t sums a[t], a[t + threads], ... and writes its partial sum to
// c[t]. No workgroup memory (slow on software adapters); the partials are few next to n. The
// loop takes four strided elements per trip into four accumulators: fewer loop trips and
// independent additions (a single chain serialises on the add latency).
@compute @workgroup_size(256)
fn read_sum(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.threads) {
        return;
    }
    let stride = params.threads;
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    var s2 = vec4<f32>(0.0);
    var s3 = vec4<f32>(0.0);
    var i = gid.x;
    for (; i + 3u * stride < params.n; i += 4u * stride) {
        s0 += a[i];
        s1 += a[i + stride];
        s2 += a[i + 2u * stride];
        s3 += a[i + 3u * stride];
    }
    for (; i < params.n; i += stride) {
        s0 += a[i];
    }
    c[gid.x] = (s0 + s1) + (s2 + s3);
}

// Write-only fill with a value that depends on the index (never a constant, which some
// hardware could compress).
@compute @workgroup_size(256)
fn fill(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += params.threads) {
        let k = f32(i & 0xffffu);
        c[i] = vec4<f32>(k, k + 1.0, k + 2.0, k + 3.0) * params.scalar;
    }
}
