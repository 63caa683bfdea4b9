// The memory hierarchy: read bandwidth and dependent-load latency against the working set.
//
// read_window: every workgroup reads one contiguous window of the working set (a circle of
// params.n vec4 elements), WINDOW_TRIPS x 4 x 256 elements long, starting at
// workgroup x window (plus its epoch's phase, below) modulo n, each chunk of CHUNK invocations
// streaming a run of it. A working set smaller than the window is walked several times by
// every workgroup, so it is read from the caches nearest the cores (a core's own first level
// where it fits, the L2 beyond); a larger one is shared out, window by window, and the union
// of the windows is the whole set, which is then what the shared caches see. Either way the footprint is the working set.
//
// Where the grid's windows cover the set more than once (a set under the grid's floor of
// windows), the workgroups of one cover (an epoch: epoch_groups of them) would read the same
// lines at the same moment as those of the next, all resident together, and all but the first
// reader would hit a cache nearer than the set's: on an H200 a 128 MiB set read at twice HBM's
// rate. So each epoch starts its windows `phase` elements on (a whole number of trips): a
// line one epoch reads, the next reads about a cover of the set later, and on one SM or core
// two readers of a line are rarely close in time. Each trip issues its
// four loads before it adds any (four vec4s in flight per invocation), CHUNK elements apart, and
// the index wraps once a trip with a compare and a subtract (no division), so sizes need not be
// powers of two: n is a multiple of 4 x CHUNK and every trip starts at an element that is its
// lane's place in its chunk past a multiple of 4 x CHUNK, so a trip's four elements never cross
// the end of the circle (the host checks n).
//
// chase: one invocation follows a cycle of indices through the working set, one dependent load
// at a time, STEPS loads per dispatch, and leaves its position for the next dispatch, so that
// successive dispatches continue round the cycle instead of repeating its first STEPS nodes.
//
// chase_lanes: the same walk by a workgroup of LANES invocations (the adapter's subgroup: 32 on
// NVIDIA, RDNA and Apple GPUs) that all follow it, each from position + (lane & zero_mask) with
// zero_mask 0 from a uniform. Every lane loads the same address, but no compiler can prove the
// index uniform, so the loads take the vector path: `chase`'s index is uniform and its buffer
// read-only, so AMD's compiler loads it through the scalar cache (s_buffer_load), which is not
// the hierarchy the read kernel sees.

struct ReadParams {
    // Elements (vec4<f32>) in the working set; at least WORKGROUP.
    n: u32,
    // Elements in one workgroup's window: WINDOW_TRIPS x 4 x WORKGROUP.
    window: u32,
    // Workgroups in one row of the grid (the grid may take rows past the dimension limit).
    row: u32,
    // Workgroups whose windows cover the set once (at least 1).
    epoch_groups: u32,
    // Elements each epoch's windows start past the one before: a multiple of 4 x CHUNK.
    phase: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
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

// i + 4 x CHUNK on the circle of n elements (i < n, 4 x CHUNK <= n).
fn next_trip(i: u32) -> u32 {
    let w = i + 4u * CHUNK;
    return select(w, w - read_params.n, w >= read_params.n);
}

@compute @workgroup_size(256)
fn read_window(
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let group = wid.x + wid.y * read_params.row;
    let run = (lane / CHUNK) * (CHUNK * 4u * WINDOW_TRIPS) + lane % CHUNK;
    let epoch = group / read_params.epoch_groups;
    var i = (group * read_params.window + epoch * read_params.phase + run) % read_params.n;
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    var s2 = vec4<f32>(0.0);
    var s3 = vec4<f32>(0.0);
    for (var t = 0u; t < WINDOW_TRIPS; t++) {
        let x0 = data[i];
        let x1 = data[i + CHUNK];
        let x2 = data[i + 2u * CHUNK];
        let x3 = data[i + 3u * CHUNK];
        s0 += x0;
        s1 += x1;
        s2 += x2;
        s3 += x3;
        i = next_trip(i);
    }
    sums[group * WORKGROUP + lane] = (s0 + s1) + (s2 + s3);
}

// Dependent loads per dispatch, written out in groups of 8 per loop trip.
override STEPS: u32 = 65536u;

// Bindings of their own: no two resources of one module share a binding.
@group(0) @binding(3) var<storage, read> next: array<u32>;
@group(0) @binding(4) var<storage, read_write> position: array<u32>;

// Eight dependent loads from start: one trip of chase's and chase_lanes' loops, written out (a
// helper function is inlined by every compiler, so the trip stays eight loads in a row).
fn follow8(start: u32) -> u32 {
    var p = start;
    p = next[p];
    p = next[p];
    p = next[p];
    p = next[p];
    p = next[p];
    p = next[p];
    p = next[p];
    p = next[p];
    return p;
}

@compute @workgroup_size(1)
fn chase() {
    var p = position[0];
    for (var k = 0u; k < STEPS / 8u; k++) {
        p = follow8(p);
    }
    position[0] = p;
}

// zero_mask is 0 at run time: chase_lanes' lanes start at position + (lane & zero_mask).
struct ChaseMasks {
    zero_mask: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}
@group(0) @binding(5) var<uniform> chase_masks: ChaseMasks;

// Invocations that follow the cycle together in chase_lanes.
override LANES: u32 = 32u;

@compute @workgroup_size(LANES)
fn chase_lanes(@builtin(local_invocation_index) lane: u32) {
    var p = position[0] + (lane & chase_masks.zero_mask);
    // Every lane has its start before lane 0 writes the end (a CPU adapter may run the lanes in
    // turns).
    storageBarrier();
    for (var k = 0u; k < STEPS / 8u; k++) {
        p = follow8(p);
    }
    if lane == 0u {
        position[0] = p;
    }
}
