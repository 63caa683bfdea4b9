// C = A x B, row-major, the classic workgroup-tiled kernel: a TILE x TILE workgroup stages one
// TILE x TILE block of A and of B in workgroup memory per step along K, then every invocation
// computes one element of C from the staged blocks. The simplest kernel that reuses data
// through shared memory; the reference every tuned choice must beat.
//
// Rows of A, B and C are `lda`, `ldb`, `ldc` elements apart (the host pads them to a multiple
// of 4 so the vectorised kernels can share the layout). Loads past M, N or K read zero and
// stores past M or N are dropped, so any shape works.
//
// The f16 form is made by rewriting the aliases (see gpu::specialise); ACC is the accumulator.
// The tile edge is a pipeline constant; the staged blocks are 1-D arrays of TILE * TILE elements
// (row-major), because an override-sized array cannot be the element of another array.

alias T = f32;
alias ACC = f32;

override TILE: u32 = 16u;

// Params (m, n, k and the row lengths lda, ldb, ldc) and its binding 0 are params.wgsl's, which
// the suite puts ahead of this file (mod.rs), as every matmul kernel shares them.
@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read> b: array<T>;
@group(0) @binding(3) var<storage, read_write> c: array<T>;

var<workgroup> tile_a: array<T, TILE * TILE>;
var<workgroup> tile_b: array<T, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn matmul_tiled(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let row = wid.y * TILE + lid.y;
    let col = wid.x * TILE + lid.x;
    var acc = ACC(0.0);
    let steps = (params.k + TILE - 1u) / TILE;
    for (var t = 0u; t < steps; t++) {
        let ka = t * TILE + lid.x;
        var va = T(0.0);
        if (row < params.m && ka < params.k) {
            va = a[row * params.lda + ka];
        }
        tile_a[lid.y * TILE + lid.x] = va;
        let kb = t * TILE + lid.y;
        var vb = T(0.0);
        if (kb < params.k && col < params.n) {
            vb = b[kb * params.ldb + col];
        }
        tile_b[lid.y * TILE + lid.x] = vb;
        workgroupBarrier();
        for (var i = 0u; i < TILE; i++) {
            acc = fma(ACC(tile_a[lid.y * TILE + i]), ACC(tile_b[i * TILE + lid.x]), acc);
        }
        workgroupBarrier();
    }
    if (row < params.m && col < params.n) {
        c[row * params.ldc + col] = T(acc);
    }
}
