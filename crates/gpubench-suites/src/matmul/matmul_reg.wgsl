// C = A x B, row-major, register-blocked and vectorised, without workgroup memory: every
// invocation computes a TM x (4 * TN) block of C in registers, reading A four K-steps at a time
// as vec4 and B as vec4 rows. Each loaded value feeds TM or 4 * TN multiply-adds, and nothing
// waits on a barrier, which is what software adapters (lavapipe: barriers are coroutine
// switches) and many GPUs reward.
//
// Layout: A has M rows of lda elements (K rounded up to 4, zero-padded); B has lda rows (zero
// rows past K) of ldb elements (N rounded up to 4, zero columns past N); C has M rows of
// ldc = ldb elements. Rows and vec4 columns past the edge are
// clamped on load (the duplicates are computed and never stored), so the inner loop has no
// branches and any M, N, K works.
//
// Two mappings of invocations onto C:
// - matmul_reg: a WX x WY workgroup over a 2-D grid of blocks (neighbouring lanes take
//   neighbouring columns: coalesced B loads on GPUs).
// - matmul_reg_cols: a 1-D workgroup whose lanes take neighbouring vec4 column blocks (B loads
//   contiguous across lanes) while the row block comes from the workgroup id, so every A load
//   is uniform across the workgroup (a broadcast on GPUs).
//
// The f16 form is made by rewriting the aliases (see gpu::specialise); VA is the accumulator.

alias T = f32;
alias V = vec4<f32>;
alias VA = vec4<f32>;

// Rows of C per invocation. TM and TN size private arrays, so they are constants (rewritten by
// gpu::specialise): WGSL allows override-sized arrays only in workgroup memory.
const TM: u32 = 4u;
// vec4 columns of C per invocation.
const TN: u32 = 2u;
// Workgroup shape, set as pipeline constants (matmul_reg_cols uses WX * WY lanes in one
// dimension).
override WX: u32 = 8u;
override WY: u32 = 8u;

// Params (m, n, k and the row lengths lda, ldb, ldc) and its binding 0 are params.wgsl's, which
// the suite puts ahead of this file (mod.rs), as every matmul kernel shares them.
@group(0) @binding(1) var<storage, read> a: array<V>;
@group(0) @binding(2) var<storage, read> b: array<V>;
@group(0) @binding(3) var<storage, read_write> c: array<V>;

// The block of C whose top-left element is (row0, 4 * col0).
fn block(row0: u32, col0: u32) {
    let k4 = params.lda / 4u;
    let n4 = params.ldb / 4u;
    var acc: array<VA, TM * TN>;
    for (var i = 0u; i < TM * TN; i++) {
        acc[i] = VA(0.0);
    }
    var rows: array<u32, TM>;
    for (var i = 0u; i < TM; i++) {
        rows[i] = min(row0 + i, params.m - 1u) * k4;
    }
    var cols: array<u32, TN>;
    for (var j = 0u; j < TN; j++) {
        cols[j] = min(col0 + j, n4 - 1u);
    }
    for (var kk = 0u; kk < k4; kk++) {
        var av: array<VA, TM>;
        for (var i = 0u; i < TM; i++) {
            av[i] = VA(a[rows[i] + kk]);
        }
        let brow = 4u * kk * n4;
        for (var j = 0u; j < TN; j++) {
            let b0 = VA(b[brow + cols[j]]);
            let b1 = VA(b[brow + n4 + cols[j]]);
            let b2 = VA(b[brow + 2u * n4 + cols[j]]);
            let b3 = VA(b[brow + 3u * n4 + cols[j]]);
            for (var i = 0u; i < TM; i++) {
                var s = acc[i * TN + j];
                s = fma(VA(av[i].x), b0, s);
                s = fma(VA(av[i].y), b1, s);
                s = fma(VA(av[i].z), b2, s);
                s = fma(VA(av[i].w), b3, s);
                acc[i * TN + j] = s;
            }
        }
    }
    for (var i = 0u; i < TM; i++) {
        let row = row0 + i;
        for (var j = 0u; j < TN; j++) {
            if (row < params.m && col0 + j < n4) {
                c[row * (params.ldc / 4u) + col0 + j] = V(acc[i * TN + j]);
            }
        }
    }
}

@compute @workgroup_size(WX, WY)
fn matmul_reg(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row0 = gid.y * TM;
    let col0 = gid.x * TN;
    if (row0 >= params.m || col0 >= params.ldb / 4u) {
        return;
    }
    block(row0, col0);
}


@compute @workgroup_size(WX * WY)
fn matmul_reg_cols(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let row0 = wid.y * TM;
    let col0 = gid.x * TN;
    if (row0 >= params.m || col0 >= params.ldb / 4u) {
        return;
    }
    block(row0, col0);
}
