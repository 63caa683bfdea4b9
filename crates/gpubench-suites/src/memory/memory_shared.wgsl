// Workgroup (shared) memory and atomics.
//
// workgroup_vec4, workgroup_stride: every workgroup fills a 16 KiB tile of workgroup memory
// from storage once, then reads it TRIPS x 4 times per invocation and sums what it read. The
// vec4 form reads 16 bytes a lane, consecutive lanes consecutive vec4s (no bank conflict: a
// subgroup's load covers every bank the same number of times). The stride form reads one
// 4-byte word a lane, lane k at word k x STRIDE: with 32 banks of 4 bytes a subgroup of 32
// lanes meets gcd(STRIDE, 32) lanes in one bank, so strides 1, 2, 4 ... 32 serialise each load
// 1, 2, 4 ... 32 ways and stride 33 (odd) is conflict-free again. Every trip moves all lanes by
// the same offset, which keeps the bank pattern. The four loads of a trip are a quarter of the
// tile apart and independent, so four are in flight per invocation.
//
// atomic_*: every invocation makes ADDS atomicAdds of its own value (1 to 7, from its global
// index), four per loop trip, to one word that every invocation shares (`one`: contended) or to
// a word of its own (`each`), in storage or in workgroup memory. The old values are not used.
// The workgroup forms zero their words first (the pipelines skip wgpu's zeroing of workgroup
// memory, which the tile reads do not need) and write them out at the end of every dispatch;
// the storage words keep counting across dispatches.
//
// A compiler that can prove an atomic's address the same in every lane folds the subgroup's adds
// into one atomic (a subgroup reduction, then one lane's atomic: RADV does for `one`), so the
// `one` forms measure aggregated atomics. The `_lanes` forms add to the same single word, but
// address it per lane as `lane & zero_mask` with zero_mask 0 from a uniform: no compiler can
// prove that uniform, so none folds them as it compiles them (NVIDIA's Vulkan driver still
// aggregates equal addresses at run time: see atomics.rs).

const WORKGROUP: u32 = 256u;
// vec4 elements in the tile (16 KiB), and the same bytes as 4-byte words.
const TILE_VEC4: u32 = 1024u;
const TILE_WORDS: u32 = 4096u;

// Loop trips of four workgroup-memory loads each, per invocation.
override TRIPS: u32 = 256u;
// Words between adjacent lanes' loads in workgroup_stride.
override STRIDE: u32 = 1u;
// atomicAdds per invocation (a multiple of 4).
override ADDS: u32 = 64u;

// The tile's contents, 1024 vec4s, copied in by every workgroup.
@group(0) @binding(0) var<storage, read> fill: array<vec4<f32>>;
// One vec4 sum per invocation (workgroup_vec4).
@group(0) @binding(1) var<storage, read_write> vec4_sums: array<vec4<f32>>;
// One f32 sum per invocation (workgroup_stride).
@group(0) @binding(2) var<storage, read_write> word_sums: array<f32>;
// The storage atomics' words: one in all (`one`), one per invocation (`each`).
@group(0) @binding(3) var<storage, read_write> counters: array<atomic<u32>>;
// The workgroup atomics' words, written out at the end of the dispatch.
@group(0) @binding(4) var<storage, read_write> totals: array<u32>;

// zero_mask is 0 at run time: the lane-indexed atomics' word is `lane & zero_mask`.
struct Masks { zero_mask: u32, _pad0: u32, _pad1: u32, _pad2: u32 }
@group(0) @binding(5) var<uniform> masks: Masks;

var<workgroup> tile: array<vec4<f32>, TILE_VEC4>;
var<workgroup> words: array<f32, TILE_WORDS>;
var<workgroup> shared_one: atomic<u32>;
var<workgroup> shared_each: array<atomic<u32>, WORKGROUP>;

@compute @workgroup_size(256)
fn workgroup_vec4(
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    for (var k = 0u; k < TILE_VEC4 / WORKGROUP; k++) {
        tile[lane + k * WORKGROUP] = fill[lane + k * WORKGROUP];
    }
    workgroupBarrier();
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    var s2 = vec4<f32>(0.0);
    var s3 = vec4<f32>(0.0);
    var j = lane;
    for (var t = 0u; t < TRIPS; t++) {
        let x0 = tile[j];
        let x1 = tile[(j + TILE_VEC4 / 4u) & (TILE_VEC4 - 1u)];
        let x2 = tile[(j + TILE_VEC4 / 2u) & (TILE_VEC4 - 1u)];
        let x3 = tile[(j + 3u * TILE_VEC4 / 4u) & (TILE_VEC4 - 1u)];
        s0 += x0;
        s1 += x1;
        s2 += x2;
        s3 += x3;
        // One vec4 on: over its TRIPS trips (a quarter of the tile) a lane loads every vec4 of
        // the tile once, so no load repeats an earlier one that a compiler could reuse.
        j = (j + 1u) & (TILE_VEC4 - 1u);
    }
    // Each quarter weighted by its place: every lane's plain total is the tile's, the weighted
    // one is the lane's own, so a lane that read another lane's addresses is caught.
    vec4_sums[wid.x * WORKGROUP + lane] = (s0 + 2.0 * s1) + (3.0 * s2 + 4.0 * s3);
}

@compute @workgroup_size(256)
fn workgroup_stride(
    @builtin(local_invocation_index) lane: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    for (var k = 0u; k < TILE_VEC4 / WORKGROUP; k++) {
        let e = lane + k * WORKGROUP;
        let v = fill[e];
        words[4u * e] = v.x;
        words[4u * e + 1u] = v.y;
        words[4u * e + 2u] = v.z;
        words[4u * e + 3u] = v.w;
    }
    workgroupBarrier();
    var s0 = 0.0;
    var s1 = 0.0;
    var s2 = 0.0;
    var s3 = 0.0;
    var j = lane * STRIDE;
    for (var t = 0u; t < TRIPS; t++) {
        s0 += words[j & (TILE_WORDS - 1u)];
        s1 += words[(j + TILE_WORDS / 4u) & (TILE_WORDS - 1u)];
        s2 += words[(j + TILE_WORDS / 2u) & (TILE_WORDS - 1u)];
        s3 += words[(j + 3u * TILE_WORDS / 4u) & (TILE_WORDS - 1u)];
        j += 1u;
    }
    word_sums[wid.x * WORKGROUP + lane] = (s0 + s1) + (s2 + s3);
}

// What invocation `g` (global index) adds each time.
fn add_value(g: u32) -> u32 {
    return 1u + g % 7u;
}

// The timed loop of the atomic forms: ADDS atomicAdds of v, four per trip, to storage word i,
// or to workgroup word i of shared_each. Each is one function for every form that adds there (a
// helper function is inlined by every compiler, so the address it sees is the caller's, folded
// or not as before).
fn add_storage(i: u32, v: u32) {
    for (var t = 0u; t < ADDS / 4u; t++) {
        atomicAdd(&counters[i], v);
        atomicAdd(&counters[i], v);
        atomicAdd(&counters[i], v);
        atomicAdd(&counters[i], v);
    }
}

fn add_shared_each(i: u32, v: u32) {
    for (var t = 0u; t < ADDS / 4u; t++) {
        atomicAdd(&shared_each[i], v);
        atomicAdd(&shared_each[i], v);
        atomicAdd(&shared_each[i], v);
        atomicAdd(&shared_each[i], v);
    }
}

@compute @workgroup_size(256)
fn atomic_storage_one(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let v = add_value(wid.x * WORKGROUP + lane);
    add_storage(0u, v);
}

@compute @workgroup_size(256)
fn atomic_storage_each(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let g = wid.x * WORKGROUP + lane;
    let v = add_value(g);
    add_storage(g, v);
}

@compute @workgroup_size(256)
fn atomic_workgroup_one(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let v = add_value(wid.x * WORKGROUP + lane);
    if lane == 0u {
        atomicStore(&shared_one, 0u);
    }
    workgroupBarrier();
    for (var t = 0u; t < ADDS / 4u; t++) {
        atomicAdd(&shared_one, v);
        atomicAdd(&shared_one, v);
        atomicAdd(&shared_one, v);
        atomicAdd(&shared_one, v);
    }
    workgroupBarrier();
    if lane == 0u {
        totals[wid.x] = atomicLoad(&shared_one);
    }
}

@compute @workgroup_size(256)
fn atomic_workgroup_each(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let g = wid.x * WORKGROUP + lane;
    let v = add_value(g);
    atomicStore(&shared_each[lane], 0u);
    add_shared_each(lane, v);
    totals[g] = atomicLoad(&shared_each[lane]);
}

// One storage word for the whole grid, addressed per lane (`lane & zero_mask`, 0 at run time).
@compute @workgroup_size(256)
fn atomic_storage_one_lanes(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let v = add_value(wid.x * WORKGROUP + lane);
    let k = lane & masks.zero_mask;
    add_storage(k, v);
}

// One workgroup-memory word per workgroup, addressed per lane the same way. Every lane zeroes
// its own word first (the word a lane adds to is one of them, whatever zero_mask is), and lane 0
// writes word 0 out.
@compute @workgroup_size(256)
fn atomic_workgroup_one_lanes(@builtin(local_invocation_index) lane: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let v = add_value(wid.x * WORKGROUP + lane);
    let k = lane & masks.zero_mask;
    atomicStore(&shared_each[lane], 0u);
    workgroupBarrier();
    add_shared_each(k, v);
    workgroupBarrier();
    if lane == 0u {
        totals[wid.x] = atomicLoad(&shared_each[0]);
    }
}
