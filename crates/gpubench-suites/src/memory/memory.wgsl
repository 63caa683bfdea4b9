// The memory hierarchy: read bandwidth and dependent-load latency against the working set.
//
// read_window: every workgroup reads one contiguous window of the working set (a circle of
// params.n vec4 elements), WINDOW_TRIPS x 4 x 256 elements long, starting at
// workgroup x window modulo n, each chunk of CHUNK invocations streaming a run of it. A working set smaller than the window is walked several times by
// every workgroup, so each core (or SM) keeps the whole set in its own caches; a larger one is
// shared out, window by window, and the union of the windows is the whole set, which is then
// what the shared caches see. Either way the footprint is the working set. Each trip issues its
// four loads before it adds any (four vec4s in flight per invocation), and the index wraps with a compare and a subtract (no division), so sizes need not
// be powers of two.
//
// chase: one invocation follows a cycle of indices through the working set, one dependent load
// at a time, STEPS loads per dispatch, and leaves its position for the next dispatch, so that
// successive dispatches continue round the cycle instead of repeating its first STEPS nodes.

struct ReadParams {
    // Elements (vec4<f32>) in the working set; at least WORKGROUP.
    n: u32,
    // Elements in one workgroup's window: WINDOW_TRIPS x 4 x WORKGROUP.
    window: u32,
    // Workgroups in one row of the grid (the grid may take rows past the dimension limit).
    row: u32,
    _pad: u32,
}

const WORKGROUP: u32 = 256u;
// Loop trips of four loads each per invocation.
override WINDOW_TRIPS: u32 = 64u;

@group(0) @binding(0) var<uniform> read_params: ReadParams;
@group(0) @binding(1) var<storage, read> data: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> sums: array<vec4<f32>>;

// Consecutive invocations reading adjacent elements: the adapter's subgroup width where it
// says, else 32. Each chunk of them streams its own contiguous run of the window, CHUNK x 4 x
// WINDOW_TRIPS elements, one CHUNK-wide row per load: a whole row per load instruction on a GPU
// (coalesced), and a sequential stream per SIMD register on a CPU, which its prefetchers follow.
override CHUNK: u32 = 32u;

// i + CHUNK on the circle of n elements (i < n, CHUNK <= n).
fn step_on(i: u32) -> u32 {
    let w = i + CHUNK;
    return select(w, w - read_params.n, w >= read_params.n);
}

@compute @workgroup_size(256)
fn read_window(
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let group = wid.x + wid.y * read_params.row;
    let run = (lane / CHUNK) * (CHUNK * 4u * WINDOW_TRIPS) + lane % CHUNK;
    var i = (group * read_params.window + run) % read_params.n;
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    var s2 = vec4<f32>(0.0);
    var s3 = vec4<f32>(0.0);
    for (var t = 0u; t < WINDOW_TRIPS; t++) {
        let i1 = step_on(i);
        let i2 = step_on(i1);
        let i3 = step_on(i2);
        let x0 = data[i];
        let x1 = data[i1];
        let x2 = data[i2];
        let x3 = data[i3];
        s0 += x0;
        s1 += x1;
        s2 += x2;
        s3 += x3;
        i = step_on(i3);
    }
    sums[group * WORKGROUP + lane] = (s0 + s1) + (s2 + s3);
}

// Dependent loads per dispatch, written out in groups of 8 per loop trip.
override STEPS: u32 = 65536u;

// Bindings of their own: no two resources of one module share a binding.
@group(0) @binding(3) var<storage, read> next: array<u32>;
@group(0) @binding(4) var<storage, read_write> position: array<u32>;

@compute @workgroup_size(1)
fn chase() {
    var p = position[0];
    for (var k = 0u; k < STEPS / 8u; k++) {
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
        p = next[p];
    }
    position[0] = p;
}
