// C = A x B, row-major: the register-blocked vec4 kernel of matmul_reg.wgsl with TM = 8 rows
// and TN = 2 vec4 columns written out by hand (no private arrays, no inner loops), so a compiler
// that does not unroll loops or promote arrays to registers (software adapters) still keeps all
// 64 accumulators in registers. Same layout, bounds handling and 8 x 8 workgroup grid as
// matmul_reg (see there). The f16 form is made by rewriting the aliases (gpu::specialise).

alias T = f32;
alias V = vec4<f32>;
alias VA = vec4<f32>;

struct Params {
    m: u32,
    n: u32,
    k: u32,
    lda: u32,
    ldb: u32,
    ldc: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<V>;
@group(0) @binding(2) var<storage, read> b: array<V>;
@group(0) @binding(3) var<storage, read_write> c: array<V>;

@compute @workgroup_size(8, 8)
fn matmul_reg8x8_unrolled(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k4 = params.lda / 4u;
    let n4 = params.ldb / 4u;
    let row0 = gid.y * 8u;
    let col0 = gid.x * 2u;
    if (row0 >= params.m || col0 >= n4) {
        return;
    }
    let last = params.m - 1u;
    let ra0 = min(row0 + 0u, last) * k4;
    let ra1 = min(row0 + 1u, last) * k4;
    let ra2 = min(row0 + 2u, last) * k4;
    let ra3 = min(row0 + 3u, last) * k4;
    let ra4 = min(row0 + 4u, last) * k4;
    let ra5 = min(row0 + 5u, last) * k4;
    let ra6 = min(row0 + 6u, last) * k4;
    let ra7 = min(row0 + 7u, last) * k4;
    let cb0 = min(col0 + 0u, n4 - 1u);
    let cb1 = min(col0 + 1u, n4 - 1u);
    var c00 = VA(0.0);
    var c01 = VA(0.0);
    var c10 = VA(0.0);
    var c11 = VA(0.0);
    var c20 = VA(0.0);
    var c21 = VA(0.0);
    var c30 = VA(0.0);
    var c31 = VA(0.0);
    var c40 = VA(0.0);
    var c41 = VA(0.0);
    var c50 = VA(0.0);
    var c51 = VA(0.0);
    var c60 = VA(0.0);
    var c61 = VA(0.0);
    var c70 = VA(0.0);
    var c71 = VA(0.0);
    for (var kk = 0u; kk < k4; kk++) {
        let brow = 4u * kk * n4;
        let b00 = VA(b[brow + cb0]);
        let b10 = VA(b[brow + 1u * n4 + cb0]);
        let b20 = VA(b[brow + 2u * n4 + cb0]);
        let b30 = VA(b[brow + 3u * n4 + cb0]);
        let b01 = VA(b[brow + cb1]);
        let b11 = VA(b[brow + 1u * n4 + cb1]);
        let b21 = VA(b[brow + 2u * n4 + cb1]);
        let b31 = VA(b[brow + 3u * n4 + cb1]);
        let a0 = VA(a[ra0 + kk]);
        c00 = fma(VA(a0.x), b00, fma(VA(a0.y), b10, fma(VA(a0.z), b20, fma(VA(a0.w), b30, c00))));
        c01 = fma(VA(a0.x), b01, fma(VA(a0.y), b11, fma(VA(a0.z), b21, fma(VA(a0.w), b31, c01))));
        let a1 = VA(a[ra1 + kk]);
        c10 = fma(VA(a1.x), b00, fma(VA(a1.y), b10, fma(VA(a1.z), b20, fma(VA(a1.w), b30, c10))));
        c11 = fma(VA(a1.x), b01, fma(VA(a1.y), b11, fma(VA(a1.z), b21, fma(VA(a1.w), b31, c11))));
        let a2 = VA(a[ra2 + kk]);
        c20 = fma(VA(a2.x), b00, fma(VA(a2.y), b10, fma(VA(a2.z), b20, fma(VA(a2.w), b30, c20))));
        c21 = fma(VA(a2.x), b01, fma(VA(a2.y), b11, fma(VA(a2.z), b21, fma(VA(a2.w), b31, c21))));
        let a3 = VA(a[ra3 + kk]);
        c30 = fma(VA(a3.x), b00, fma(VA(a3.y), b10, fma(VA(a3.z), b20, fma(VA(a3.w), b30, c30))));
        c31 = fma(VA(a3.x), b01, fma(VA(a3.y), b11, fma(VA(a3.z), b21, fma(VA(a3.w), b31, c31))));
        let a4 = VA(a[ra4 + kk]);
        c40 = fma(VA(a4.x), b00, fma(VA(a4.y), b10, fma(VA(a4.z), b20, fma(VA(a4.w), b30, c40))));
        c41 = fma(VA(a4.x), b01, fma(VA(a4.y), b11, fma(VA(a4.z), b21, fma(VA(a4.w), b31, c41))));
        let a5 = VA(a[ra5 + kk]);
        c50 = fma(VA(a5.x), b00, fma(VA(a5.y), b10, fma(VA(a5.z), b20, fma(VA(a5.w), b30, c50))));
        c51 = fma(VA(a5.x), b01, fma(VA(a5.y), b11, fma(VA(a5.z), b21, fma(VA(a5.w), b31, c51))));
        let a6 = VA(a[ra6 + kk]);
        c60 = fma(VA(a6.x), b00, fma(VA(a6.y), b10, fma(VA(a6.z), b20, fma(VA(a6.w), b30, c60))));
        c61 = fma(VA(a6.x), b01, fma(VA(a6.y), b11, fma(VA(a6.z), b21, fma(VA(a6.w), b31, c61))));
        let a7 = VA(a[ra7 + kk]);
        c70 = fma(VA(a7.x), b00, fma(VA(a7.y), b10, fma(VA(a7.z), b20, fma(VA(a7.w), b30, c70))));
        c71 = fma(VA(a7.x), b01, fma(VA(a7.y), b11, fma(VA(a7.z), b21, fma(VA(a7.w), b31, c71))));
    }
    let ldc4 = params.ldc / 4u;
    if (row0 + 0u < params.m) {
        c[(row0 + 0u) * ldc4 + col0] = V(c00);
        if (col0 + 1u < n4) {
            c[(row0 + 0u) * ldc4 + col0 + 1u] = V(c01);
        }
    }
    if (row0 + 1u < params.m) {
        c[(row0 + 1u) * ldc4 + col0] = V(c10);
        if (col0 + 1u < n4) {
            c[(row0 + 1u) * ldc4 + col0 + 1u] = V(c11);
        }
    }
    if (row0 + 2u < params.m) {
        c[(row0 + 2u) * ldc4 + col0] = V(c20);
        if (col0 + 1u < n4) {
            c[(row0 + 2u) * ldc4 + col0 + 1u] = V(c21);
        }
    }
    if (row0 + 3u < params.m) {
        c[(row0 + 3u) * ldc4 + col0] = V(c30);
        if (col0 + 1u < n4) {
            c[(row0 + 3u) * ldc4 + col0 + 1u] = V(c31);
        }
    }
    if (row0 + 4u < params.m) {
        c[(row0 + 4u) * ldc4 + col0] = V(c40);
        if (col0 + 1u < n4) {
            c[(row0 + 4u) * ldc4 + col0 + 1u] = V(c41);
        }
    }
    if (row0 + 5u < params.m) {
        c[(row0 + 5u) * ldc4 + col0] = V(c50);
        if (col0 + 1u < n4) {
            c[(row0 + 5u) * ldc4 + col0 + 1u] = V(c51);
        }
    }
    if (row0 + 6u < params.m) {
        c[(row0 + 6u) * ldc4 + col0] = V(c60);
        if (col0 + 1u < n4) {
            c[(row0 + 6u) * ldc4 + col0 + 1u] = V(c61);
        }
    }
    if (row0 + 7u < params.m) {
        c[(row0 + 7u) * ldc4 + col0] = V(c70);
        if (col0 + 1u < n4) {
            c[(row0 + 7u) * ldc4 + col0 + 1u] = V(c71);
        }
    }
}
