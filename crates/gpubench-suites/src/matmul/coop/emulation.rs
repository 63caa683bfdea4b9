//! The emulated twin's pieces: plain WGSL for the three matrix operations, so the kernel runs
//! (and is verified) on adapters without cooperative matrices.

use super::CoopParams;
use crate::matmul::wgsl::emit;
use gpubench_harness::kit::gpu::Precision;

/// Elements of an S x S tile each lane of the emulation holds.
fn emulated_elements(p: CoopParams) -> u32 {
    p.size * p.size / p.sg
}

/// The emulation's three operations: lane `lane` of a subgroup holds elements `lane + e * sg`
/// (row-major) of each S x S accumulator; a product reads its A and B fragments straight from
/// the staged memory, in K order.
pub(super) fn emulation_helpers(out: &mut String, p: CoopParams, precision: Precision) {
    let (s, sg) = (p.size, p.sg);
    let e = emulated_elements(p);
    let (stride_a, stride_b) = p.strides(precision);
    // Element (kk, q) of the B fragment: row-major, or K-contiguous (column-major).
    let b_at = if p.b_kcontig {
        format!("q * {stride_b}u + kk")
    } else {
        format!("kk * {stride_b}u + q")
    };
    emit!(out, "alias Tile = array<ACC, {e}>;\n");
    emit!(
        out,
        "fn mma(ao: u32, bo: u32, acc_in: Tile, lane: u32) -> Tile {{
    var acc = acc_in;
    for (var e = 0u; e < {e}u; e++) {{
        let idx = lane + e * {sg}u;
        let r = idx / {s}u;
        let q = idx % {s}u;
        var sum = acc[e];
        for (var kk = 0u; kk < {s}u; kk++) {{
            sum = fma(ACC(sa[ao + r * {stride_a}u + kk]), ACC(sb[bo + {b_at}]), sum);
        }}
        acc[e] = sum;
    }}
    return acc;
}}

fn store_tile(acc: Tile, at: u32, stride: u32, lane: u32) {{
    for (var e = 0u; e < {e}u; e++) {{
        let idx = lane + e * {sg}u;
        sc[at + (idx / {s}u) * stride + idx % {s}u] = acc[e];
    }}
}}
"
    );
}

/// [`products`] emulated: the same fragment addresses (first tile's, and the step from one tile
/// to the next, from [`CoopParams::a_fragment`] and [`CoopParams::b_fragment`]), the tiles in
/// loops rather than written out, which keeps the twin quick to compile on a CPU adapter.
pub(super) fn emulated_products(
    out: &mut String,
    p: CoopParams,
    precision: Precision,
    (base_a, base_b): (&str, &str),
) {
    let n = p.tiles();
    for kk in 0..p.bk / p.size {
        let (stride_a, a0) = p.a_fragment(precision, 0, kk);
        let (stride_b, b0) = p.b_fragment(precision, 0, kk);
        let a_step = p.a_fragment(precision, 1, kk).1 - a0;
        let b_step = p.b_fragment(precision, 1, kk).1 - b0;
        emit!(out, "        for (var i = 0u; i < {n}u; i++) {{");
        emit!(
            out,
            "            let ao = {base_a} + wr * {stride_a}u + {a0}u + i * {a_step}u;"
        );
        emit!(out, "            for (var j = 0u; j < {n}u; j++) {{");
        emit!(out, "                let t = i * {n}u + j;");
        emit!(
            out,
            "                acc[t] = mma(ao, {base_b} + wc * {stride_b}u + {b0}u + j * {b_step}u, acc[t], lane);"
        );
        out.push_str("            }\n        }\n");
    }
}
