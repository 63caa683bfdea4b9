// Deliberately wrong kernels. They exist so that tests (and `--inject-fault wrong-output`) can
// prove that a wrong answer is reported as a failure, never as a throughput. Same bindings as
// stream.wgsl.

struct Params { n: u32, scalar: f32, threads: u32, _pad: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> c: array<vec4<f32>>;

// A copy with an off-by-one bound: the last element is never written, and every 1000th element
// is perturbed, the kind of bug a bounds or indexing mistake makes.
@compute @workgroup_size(256)
fn broken_copy(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i + 1u < params.n; i += params.threads) {
        var v = a[i];
        if (i % 1000u == 7u) {
            v.x = v.x * 1.5;
        }
        c[i] = v;
    }
}

// A correct copy: the paced copy of `--inject-fault pace` and `half-pace` (the latter walks
// the arrays twice per counted walk), the regression gate's known slowdown.
@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += params.threads) {
        c[i] = a[i];
    }
}

// A kernel that keeps the device busy for a long time in one dispatch (`params.n` dependent
// steps per invocation): `--inject-fault stall-gpu` proves that a stop request does not wait
// for work in flight.
@compute @workgroup_size(64)
fn spin(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = c[gid.x];
    for (var i = 0u; i < params.n; i++) {
        x = fma(x, vec4<f32>(0.999999), vec4<f32>(1e-6));
    }
    c[gid.x] = x;
}
