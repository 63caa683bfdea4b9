// The example suite's kernel: z = a * x + y over f32 arrays, one element per invocation per
// trip of a grid-stride loop. It exists to show (and test) that a suite is one folder and one
// registry line; see mod.rs.

struct Params { n: u32, a: f32, threads: u32, _pad: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read_write> z: array<f32>;

@compute @workgroup_size(64)
fn scale_add(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = gid.x; i < params.n; i += params.threads) {
        z[i] = params.a * x[i] + y[i];
    }
}
