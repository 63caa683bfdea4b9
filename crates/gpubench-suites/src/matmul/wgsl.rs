//! Pieces every generated matmul module shares: the `enable` line, the parameter block and
//! bindings of the common buffer layout, and the line writer.

use gpubench_harness::kit::gpu::Precision;

/// Pushes one formatted line onto a `String` (formatting into a `String` cannot fail).
macro_rules! emit {
    ($out:expr, $($arg:tt)*) => {{
        use ::std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}
pub(super) use emit;

/// `enable f16;` and a newline when the data or the sums are f16, else nothing.
pub(super) fn enable_f16(precision: Precision, accumulation: Precision) -> &'static str {
    if precision == Precision::F16 || accumulation == Precision::F16 {
        "enable f16;\n"
    } else {
        ""
    }
}

/// The uniform every matmul kernel reads (the host's `Params`), bound at 0: `params.wgsl`, the
/// one declaration the generated kernels embed and the shader files are composed with.
pub(super) const PARAMS: &str = include_str!("params.wgsl");

/// [`PARAMS`], then A and B (read) and C (read-write) as arrays of `element`, then a blank
/// line.
pub(super) fn product_bindings(element: &str) -> String {
    format!(
        "{PARAMS}@group(0) @binding(1) var<storage, read> a: array<{element}>;
@group(0) @binding(2) var<storage, read> b: array<{element}>;
@group(0) @binding(3) var<storage, read_write> c: array<{element}>;

"
    )
}

/// The offsets of the copy of the staged blocks that K-step `t` reads, in a double-buffered
/// kernel whose copies of A and B are `sa` and `sb` elements long: `cur_a` and `cur_b`.
pub(super) fn current_copy(out: &mut String, (sa, sb): (u32, u32)) {
    emit!(out, "        let cur_a = (t % 2u) * {sa}u;");
    emit!(out, "        let cur_b = (t % 2u) * {sb}u;");
}

/// One step of four along K in the vec4 register-tiled kernels: the four B rows of each of
/// `cols` vec4 columns (`cb{j}` their offsets, `brow` the step's first row), then each of
/// `rows` A rows' vec4 (`ra{i}` their offsets, `kk` the step) and its multiply-adds into
/// `{acc}{i}_{j}`, x, y, z, w in order (as `matmul_reg.wgsl` sums them).
pub(super) fn vec4_k_step(out: &mut String, rows: u32, cols: u32, acc: &str) {
    for j in 0..cols {
        emit!(out, "        let b0_{j} = VA(b[brow + cb{j}]);");
        for r in 1..4 {
            emit!(
                out,
                "        let b{r}_{j} = VA(b[brow + {r}u * n4 + cb{j}]);"
            );
        }
    }
    for i in 0..rows {
        emit!(out, "        let a{i} = VA(a[ra{i} + kk]);");
        for j in 0..cols {
            emit!(
                out,
                "        {acc}{i}_{j} = fma(VA(a{i}.w), b3_{j}, fma(VA(a{i}.z), b2_{j}, \
                 fma(VA(a{i}.y), b1_{j}, fma(VA(a{i}.x), b0_{j}, {acc}{i}_{j}))));"
            );
        }
    }
}
