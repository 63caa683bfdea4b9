// Device-memory bandwidth kernels over array<vec4<f32>>, after STREAM and BabelStream.
// Every kernel walks the arrays with a grid-stride loop, so any array length works with a
// dispatch capped at the adapter's workgroup-count limit. Outputs never alias inputs, so each
// kernel can run any number of times and still verify.
//
// Each dispatch walks the arrays params.repeats times: a kernel over a cache-sized array lasts
// a microsecond or two, less than the barrier between dispatches, so small arrays are walked
// many times per dispatch. Each walk hands every workgroup the elements of the next one
// (next_first()), so no invocation reads in one walk what it read in the walk before (its
// core's own cache and registers do not serve the repeats) and no load can be hoisted out of
// them. Each kernel is one walk (a function of its first element) and two entry points: NAME
// walks once, NAME_repeated walks params.repeats times. A single walk keeps its own entry point
// because the loop around the walks, even when it runs no trip, cost lavapipe about a quarter
// of its bandwidth.
//
// This file is what the kernels share (the uniform block, the bindings, next_first, PER_TRIP)
// and the walks of a shape of their own (the reduction, the fill). The four array kernels
// (copy: c = a, scale: c = scalar * a, add: c = a + b, triad: c = a + scalar * b) are one
// template: each has a one-element walk, NAME_walk, and a PER_TRIP walk, NAME_x_walk, both
// written from its element operation, and every walk but the reduction's gets its two entry
// points from one template too. The stream suite appends them to this file when it builds a
// pipeline (source.rs, `stream::source()`), and that whole text is what every pipeline compiles
// and what the shader tests validate.

struct Params {
    // Number of vec4 elements in each array.
    n: u32,
    // The scalar of scale and triad (0.4, as in BabelStream).
    scalar: f32,
    // Invocations in the whole dispatch (workgroups x workgroup size).
    threads: u32,
    // Walks of the arrays per dispatch (at least 1).
    repeats: u32,
}

const WORKGROUP: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> c: array<vec4<f32>>;
// The walks each invocation of a repeating array kernel made (NAME_repeated): one word each.
@group(0) @binding(4) var<storage, read_write> walks: array<u32>;

// The first element an invocation handles in the walk after one that started at v: that of the
// invocation WORKGROUP further on, modulo the grid. In walk r invocation t starts at
// (t + r x WORKGROUP) mod threads; threads is a multiple of WORKGROUP, so lanes stay contiguous
// and aligned. An add and a select, no division (which a CPU's vector units do lane by lane).
fn next_first(v: u32) -> u32 {
    let w = v + WORKGROUP;
    return select(w, w - params.threads, w >= params.threads);
}

// The *_x kernels: the same four array kernels with PER_TRIP vec4 elements per invocation per loop
// trip (2 or 4, a pipeline constant the host sets; the grid is sized for PER_TRIP elements per
// invocation). A trip issues all its loads before any store, so PER_TRIP loads are in flight
// per invocation rather than one: Little's law at HBM latency asks for more bytes in flight
// than 256-wide workgroups of one vec4 each keep. The elements of a trip are a stride of the
// grid apart, so each load is as coalesced as the one-element walk's. The remainder, under a
// trip's worth, is taken one element at a time. The one-element walks stay as they are (a loop
// inside the trip cost lavapipe bandwidth); which form runs is chosen per adapter by measuring
// (the stream suite's tuning table).
override PER_TRIP: u32 = 2u;
const MAX_PER_TRIP: u32 = 4u;

// Read-only reduction: invocation t sums, in each walk r, the elements a[v], a[v + threads], ...
// with v = (t + r x WORKGROUP) mod threads, and writes its partial sum over all walks to c[t]
// once. No workgroup memory (slow on software adapters); the partials are few next to n. The
// loop takes four strided elements per trip into four accumulators: fewer loop trips and
// independent additions (a single chain serialises on the add latency). The inputs are
// multiples of 2^-8 and the repeat count is capped so that every sum stays exact in f32,
// whatever the order.
fn read_walk(first: u32) -> vec4<f32> {
    let stride = params.threads;
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    var s2 = vec4<f32>(0.0);
    var s3 = vec4<f32>(0.0);
    var i = first;
    for (; i + 3u * stride < params.n; i += 4u * stride) {
        s0 += a[i];
        s1 += a[i + stride];
        s2 += a[i + 2u * stride];
        s3 += a[i + 3u * stride];
    }
    for (; i < params.n; i += stride) {
        s0 += a[i];
    }
    return (s0 + s1) + (s2 + s3);
}

@compute @workgroup_size(256)
fn read_sum(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.threads) {
        return;
    }
    c[gid.x] = read_walk(gid.x);
}

@compute @workgroup_size(256)
fn read_sum_repeated(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.threads) {
        return;
    }
    var v = gid.x;
    var sum = read_walk(v);
    for (var r = 1u; r < params.repeats; r++) {
        v = next_first(v);
        sum += read_walk(v);
    }
    c[gid.x] = sum;
}

// Write-only fill with a value that depends on the index (never a constant, which some
// hardware could compress).
fn fill_walk(first: u32) {
    for (var i = first; i < params.n; i += params.threads) {
        let k = f32(i & 0xffffu);
        c[i] = vec4<f32>(k, k + 1.0, k + 2.0, k + 3.0) * params.scalar;
    }
}
