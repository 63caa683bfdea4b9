//! The workgroup-tiled GEMM family: one generator, many parameter sets.
//!
//! A workgroup computes a BM x BN block of C. Per step along K it stages a BM x BK block of A
//! (transposed, so that the TM values of A an invocation needs are contiguous and load as
//! vec4) and a BK x BN block of B in workgroup memory; every invocation then computes a TM x TN
//! sub-block from the staged blocks in registers. While it does, the next K-step's blocks are
//! already being loaded from global memory into registers (register prefetch, a form of double
//! buffering that needs one copy of the staged blocks, not two), so the loads overlap the
//! multiply-adds and each K-step needs two barriers: one before the multiply-adds read the
//! staged blocks, one before the next step overwrites them.
//!
//! Double-buffered staging (`stages = 2`, labels ending `-db`) keeps two copies of the staged
//! blocks: step t reads copy t mod 2 while the next step's registers are stored into the other,
//! so one barrier per K-step suffices (it both publishes the next copy and retires the current
//! one), for twice the workgroup memory. Which wins depends on the adapter's barrier cost
//! against its occupancy, so the tuner measures both.
//!
//! Why each parameter exists:
//! - BM x BN (the workgroup tile): every element of A is read from global memory N / BN times
//!   and every element of B M / BM times; larger tiles cut that traffic but need more
//!   workgroup memory and leave fewer workgroups for a small product.
//! - BK (the K-step): more multiply-adds per barrier, against more workgroup memory and more
//!   prefetch registers.
//! - TM x TN (outputs per invocation): each staged value feeds TN (from A) or TM (from B)
//!   multiply-adds; the accumulators live in registers, so the product TM x TN is bounded by the
//!   register file (beyond it the compiler spills, which the pruning rules avoid).
//! - Invocations per workgroup (BM / TM x BN / TN): the parallelism a workgroup offers to hide
//!   latency, bounded by the adapter's limit and a multiple of its subgroup size.
//!
//! Global loads are vec4 (rows are padded to 4 elements); loads past M, N or K read zero and
//! stores past M or N are dropped, so any shape works. The source is generated in Rust with
//! every accumulator a plain `var` (no private arrays, which some compilers keep in memory).

use super::wgsl::{self, emit};
use gpubench_harness::kit::gpu::Precision;

/// One parameter set of the tiled family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileParams {
    /// Rows of C per workgroup.
    pub bm: u32,
    /// Columns of C per workgroup.
    pub bn: u32,
    /// K-step: columns of A and rows of B staged per step.
    pub bk: u32,
    /// Rows of C per invocation (a multiple of 4).
    pub tm: u32,
    /// Columns of C per invocation (a multiple of 4).
    pub tn: u32,
    /// Copies of the staged blocks: 1 (two barriers per K-step) or 2 (double-buffered, one).
    pub stages: u32,
}

/// Workgroup tiles the family tries (BM x BN).
pub const TILES: [(u32, u32); 3] = [(64, 64), (128, 64), (128, 128)];
/// K-steps the family tries.
pub const K_STEPS: [u32; 3] = [8, 16, 32];
/// Outputs per invocation the family tries (TM x TN).
pub const BLOCKS: [(u32, u32); 3] = [(4, 4), (8, 4), (8, 8)];
/// Registers double-buffered staging adds to a form: the read addresses of this step's copy and
/// the store addresses of the next one are live together. RADV 22.3 gives the double-buffered
/// forms 8 to 12 more VGPRs than their one-copy twins (the median: 12 on gfx1100, 8 on gfx1030;
/// docs/kernels). The estimate takes 8: with 12, forms that compile to 108 VGPRs at 14 waves on
/// gfx1100 would be pruned for registers they do not run short of.
pub const DOUBLE_BUFFER_REGISTERS: u32 = 8;
/// Fewest and most invocations per workgroup the family uses.
pub const INVOCATIONS: (u32, u32) = (64, 256);

impl TileParams {
    /// A parameter set (not checked: see [`TileParams::is_well_formed`]).
    pub const fn new(bm: u32, bn: u32, bk: u32, tm: u32, tn: u32) -> Self {
        Self {
            bm,
            bn,
            bk,
            tm,
            tn,
            stages: 1,
        }
    }

    /// The same tiles with double-buffered staging: two copies, one barrier per K-step.
    pub const fn double_buffered(mut self) -> Self {
        self.stages = 2;
        self
    }

    /// Every well-formed parameter set of the family, before any adapter's limits prune it.
    pub fn space() -> Vec<TileParams> {
        let mut out = Vec::new();
        for (bm, bn) in TILES {
            for bk in K_STEPS {
                for (tm, tn) in BLOCKS {
                    let p = TileParams::new(bm, bn, bk, tm, tn);
                    if p.is_well_formed() {
                        out.push(p);
                        out.push(p.double_buffered());
                    }
                }
            }
        }
        out
    }

    /// Invocations per workgroup.
    pub fn invocations(&self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// vec4 loads of A and of B each invocation makes per K-step.
    pub fn loads(&self) -> (u32, u32) {
        let wg = self.invocations();
        (self.bm * self.bk / 4 / wg, self.bk * self.bn / 4 / wg)
    }

    /// Whether the tiles divide evenly: TM and TN multiples of 4 dividing BM and BN, the
    /// invocation count in [`INVOCATIONS`], and every invocation loading a whole number (at
    /// least one) of vec4 of each staged block.
    pub fn is_well_formed(&self) -> bool {
        let (lo, hi) = INVOCATIONS;
        let wg = self.invocations();
        self.tm.is_multiple_of(4)
            && self.tn.is_multiple_of(4)
            && self.bk.is_multiple_of(4)
            && self.bm.is_multiple_of(self.tm)
            && self.bn.is_multiple_of(self.tn)
            && (lo..=hi).contains(&wg)
            && (self.bm * self.bk / 4).is_multiple_of(wg)
            && (self.bk * self.bn / 4).is_multiple_of(wg)
            && self.loads().0 >= 1
            && self.loads().1 >= 1
            && (1..=2).contains(&self.stages)
    }

    /// Bytes of workgroup memory for data in `precision`: every copy of both staged blocks.
    pub fn workgroup_bytes(&self, precision: Precision) -> u64 {
        u64::from(self.stages * self.bk * (self.bm + self.bn)) * precision.bytes()
    }

    /// vec4s in one copy of the staged A block and of the staged B block.
    pub fn staged_vec4(&self) -> (u32, u32) {
        (self.bk * self.bm / 4, self.bk * self.bn / 4)
    }

    /// An estimate of the 32-bit registers an invocation holds live: accumulators, one
    /// K-step's operands and the prefetched vec4s (halves pack two to a register), and with
    /// double-buffered staging [`DOUBLE_BUFFER_REGISTERS`] more.
    pub fn registers(&self, data: Precision, accumulation: Precision) -> u32 {
        let per = |p: Precision| if p == Precision::F16 { 1 } else { 2 };
        let acc = (self.tm * self.tn + self.tm + self.tn) * per(accumulation) / 2;
        let (la, lb) = self.loads();
        let staging = if self.stages == 2 {
            DOUBLE_BUFFER_REGISTERS
        } else {
            0
        };
        acc + 4 * (la + lb) * per(data) / 2 + staging
    }

    /// Where an invocation's `j`-th vec4 column of the staged B block lies in a row of it, as
    /// `(stride, offset)`: vec4 `tx * stride + offset`. The invocations of one row of the
    /// workgroup take neighbouring vec4 for each `j` (stride 1, offset `j` times the invocations
    /// per row), so a subgroup's 16-byte reads of one `j` cover consecutive banks: no
    /// shared-memory bank conflict. Giving each invocation `TN / 4` adjacent vec4 instead (stride
    /// `TN / 4`) reads at a 32-byte stride for TN = 8, a two-way conflict on 32 banks of 4
    /// bytes. The stores write C's columns in the same order.
    pub fn b_fragment(&self, j: u32) -> (u32, u32) {
        (1, j * (self.bn / self.tn))
    }

    /// Where an invocation's `v`-th vec4 of the staged (transposed) A block lies in a row of it,
    /// as `(stride, offset)`: vec4 `ty * stride + offset`. The invocations of one row of the
    /// workgroup share `ty`, so a subgroup reads one address (a broadcast) or a few.
    pub fn a_fragment(&self, v: u32) -> (u32, u32) {
        (self.tm / 4, v)
    }

    /// The parameter part of the variant name, e.g. `bm128-bn64-bk16-t8x4-wg128`, with `-db`
    /// for double-buffered staging.
    pub fn label(&self) -> String {
        format!(
            "bm{}-bn{}-bk{}-t{}x{}-wg{}{}",
            self.bm,
            self.bn,
            self.bk,
            self.tm,
            self.tn,
            self.invocations(),
            if self.stages == 2 { "-db" } else { "" }
        )
    }

    /// The entry point of the generated kernel.
    pub fn entry_point(&self) -> String {
        format!("matmul_{}", self.label().replace('-', "_"))
    }

    /// Workgroups for an `m` x `n` product.
    pub fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        (n.div_ceil(4).div_ceil(self.bn / 4), m.div_ceil(self.bm))
    }
}

/// The WGSL module of the tiled kernel for `p`, with data in `precision` and running sums in
/// `accumulation`.
pub fn source(p: TileParams, precision: Precision, accumulation: Precision) -> String {
    let mut out = header(p, precision, accumulation);
    prologue(&mut out, p);
    main_loop(&mut out, p);
    stores(&mut out, p);
    out.push_str("}\n");
    out
}

/// The `enable` line, aliases, parameters, bindings and the staged blocks.
fn header(p: TileParams, precision: Precision, accumulation: Precision) -> String {
    let (t, acc) = (precision.name(), accumulation.name());
    let enable = wgsl::enable_f16(precision, accumulation);
    let staging = if p.stages == 2 {
        "\n// Staging double-buffered: step t reads copy t % 2 (at t % 2 times one copy's vec4s), one\n// barrier per K-step."
    } else {
        ""
    };
    format!(
        "{enable}// C = A x B, row-major, workgroup-tiled: a {bm} x {bn} block of C per workgroup, K in steps
// of {bk}, {tm} x {tn} outputs per invocation, {wg} invocations, A staged transposed, the next
// K-step prefetched into registers. Generated by gpubench-suites (matmul::tiled).{staging}

alias V = vec4<{t}>;
alias VA = vec4<{acc}>;

{bindings}// A transposed: element (row r, k) at sa[k * {bm4} + r / 4][r % 4].
var<workgroup> sa: array<V, {sa}>;
// B as staged: element (k, column 4 q + e) at sb[k * {bn4} + q][e].
var<workgroup> sb: array<V, {sb}>;

",
        bm = p.bm,
        bn = p.bn,
        bk = p.bk,
        tm = p.tm,
        tn = p.tn,
        wg = p.invocations(),
        bm4 = p.bm / 4,
        bn4 = p.bn / 4,
        sa = p.stages * p.staged_vec4().0,
        sb = p.stages * p.staged_vec4().1,
        bindings = wgsl::product_bindings("V"),
    )
}

/// The signature, the invocation's place, the first K-step's loads and the accumulators.
fn prologue(out: &mut String, p: TileParams) {
    emit!(out, "@compute @workgroup_size({})", p.invocations());
    emit!(
        out,
        "fn {}(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {{",
        p.entry_point()
    );
    out.push_str("    let k4 = params.lda / 4u;\n    let n4 = params.ldb / 4u;\n");
    emit!(out, "    let tx = lid % {}u;", p.bn / p.tn);
    emit!(out, "    let ty = lid / {}u;", p.bn / p.tn);
    emit!(out, "    let row_base = wid.y * {}u;", p.bm);
    emit!(out, "    let col_base = wid.x * {}u;", p.bn / 4);
    emit!(
        out,
        "    let steps = (params.k + {}u) / {}u;",
        p.bk - 1,
        p.bk
    );
    let (la, lb) = p.loads();
    for s in 0..la {
        emit!(out, "    var pa{s} = V(0.0);");
    }
    for s in 0..lb {
        emit!(out, "    var pb{s} = V(0.0);");
    }
    load_step(out, p, "0u", "    ");
    for i in 0..p.tm {
        for j in 0..p.tn / 4 {
            emit!(out, "    var c{i}_{j} = VA(0.0);");
        }
    }
}

/// Loads K-step `step` of A and B into the prefetch registers (zero past the edges).
fn load_step(out: &mut String, p: TileParams, step: &str, indent: &str) {
    let (la, lb) = p.loads();
    let wg = p.invocations();
    let (bk4, bn4) = (p.bk / 4, p.bn / 4);
    for s in 0..la {
        let e = format!("(lid + {}u)", s * wg);
        let at = (
            format!("row_base + {e} / {bk4}u"),
            format!("{step} * {bk4}u + {e} % {bk4}u"),
        );
        let load = format!("pa{s}");
        prefetch(
            out,
            indent,
            &load,
            at,
            "r < params.m && q < k4",
            "a[r * k4 + q]",
        );
    }
    for s in 0..lb {
        let e = format!("(lid + {}u)", s * wg);
        let at = (
            format!("{step} * {}u + {e} / {bn4}u", p.bk),
            format!("col_base + {e} % {bn4}u"),
        );
        let load = format!("pb{s}");
        prefetch(
            out,
            indent,
            &load,
            at,
            "r < params.lda && q < n4",
            "b[r * n4 + q]",
        );
    }
}

/// One prefetch register `load` from row and column `at`: `source` where `inside` holds, zero
/// past the edges.
fn prefetch(
    out: &mut String,
    indent: &str,
    load: &str,
    (row, col): (String, String),
    inside: &str,
    source: &str,
) {
    emit!(out, "{indent}{{");
    emit!(out, "{indent}    let r = {row};");
    emit!(out, "{indent}    let q = {col};");
    emit!(out, "{indent}    {load} = V(0.0);");
    emit!(out, "{indent}    if ({inside}) {{ {load} = {source}; }}");
    emit!(out, "{indent}}}");
}

/// The loop over K-steps. One copy: store the prefetched registers, barrier, prefetch the next
/// step, multiply-add from workgroup memory, barrier. Two copies: the first step is stored
/// before the loop; then prefetch the next step, multiply-add from this step's copy, store the
/// next step into the other copy, barrier.
fn main_loop(out: &mut String, p: TileParams) {
    if p.stages == 2 {
        return double_buffered_loop(out, p);
    }
    out.push_str("    for (var t = 0u; t < steps; t++) {\n");
    store_staged(out, p, ("", ""), "        ");
    out.push_str("        workgroupBarrier();\n        if (t + 1u < steps) {\n");
    load_step(out, p, "(t + 1u)", "            ");
    out.push_str("        }\n");
    multiply_adds(out, p, ("", ""));
    out.push_str("        workgroupBarrier();\n    }\n");
}

/// [`main_loop`] with two copies of the staged blocks and one barrier per K-step.
fn double_buffered_loop(out: &mut String, p: TileParams) {
    let (sa, sb) = p.staged_vec4();
    store_staged(out, p, ("", ""), "    ");
    out.push_str("    workgroupBarrier();\n");
    out.push_str("    for (var t = 0u; t < steps; t++) {\n");
    wgsl::current_copy(out, (sa, sb));
    out.push_str("        if (t + 1u < steps) {\n");
    load_step(out, p, "(t + 1u)", "            ");
    out.push_str("        }\n");
    multiply_adds(out, p, ("cur_a + ", "cur_b + "));
    out.push_str("        if (t + 1u < steps) {\n");
    emit!(out, "            let next_a = {sa}u - cur_a;");
    emit!(out, "            let next_b = {sb}u - cur_b;");
    store_staged(out, p, ("next_a + ", "next_b + "), "            ");
    out.push_str("        }\n        workgroupBarrier();\n    }\n");
}

/// Stores the prefetch registers into the staged blocks, at the copies `base` starts (a WGSL
/// prefix such as `"next_a + "`, empty for the first copy).
fn store_staged(out: &mut String, p: TileParams, (base_a, base_b): (&str, &str), indent: &str) {
    let (la, lb) = p.loads();
    let wg = p.invocations();
    let (bk4, bm4) = (p.bk / 4, p.bm / 4);
    for s in 0..la {
        let e = format!("(lid + {}u)", s * wg);
        emit!(out, "{indent}{{");
        emit!(out, "{indent}    let r = {e} / {bk4}u;");
        emit!(out, "{indent}    let k0 = 4u * ({e} % {bk4}u);");
        for (comp, name) in ["x", "y", "z", "w"].iter().enumerate() {
            emit!(
                out,
                "{indent}    sa[{base_a}(k0 + {comp}u) * {bm4}u + r / 4u][r % 4u] = pa{s}.{name};"
            );
        }
        emit!(out, "{indent}}}");
    }
    for s in 0..lb {
        emit!(out, "{indent}sb[{base_b}lid + {}u] = pb{s};", s * wg);
    }
}

/// The K-step's multiply-adds from the staged copies at `base` (as in [`store_staged`]).
fn multiply_adds(out: &mut String, p: TileParams, (base_a, base_b): (&str, &str)) {
    let (bm4, bn4) = (p.bm / 4, p.bn / 4);
    emit!(out, "        for (var kk = 0u; kk < {}u; kk++) {{", p.bk);
    for v in 0..p.tm / 4 {
        let (stride, offset) = p.a_fragment(v);
        emit!(
            out,
            "            let a{v} = VA(sa[{base_a}kk * {bm4}u + ty * {stride}u + {offset}u]);"
        );
    }
    for j in 0..p.tn / 4 {
        let (stride, offset) = p.b_fragment(j);
        emit!(
            out,
            "            let b{j} = VA(sb[{base_b}kk * {bn4}u + tx * {stride}u + {offset}u]);"
        );
    }
    let comps = ["x", "y", "z", "w"];
    for i in 0..p.tm {
        let a = format!("a{}.{}", i / 4, comps[(i % 4) as usize]);
        for j in 0..p.tn / 4 {
            emit!(out, "            c{i}_{j} = fma(VA({a}), b{j}, c{i}_{j});");
        }
    }
    out.push_str("        }\n");
}

/// The stores, dropping rows past M and vec4 columns past the padded width.
fn stores(out: &mut String, p: TileParams) {
    out.push_str("    let ldc4 = params.ldc / 4u;\n");
    emit!(out, "    let row0 = row_base + ty * {}u;", p.tm);
    emit!(
        out,
        "    let col0 = col_base + tx * {}u;",
        p.b_fragment(0).0
    );
    for i in 0..p.tm {
        emit!(out, "    if (row0 + {i}u < params.m) {{");
        for j in 0..p.tn / 4 {
            let col = format!("col0 + {}u", p.b_fragment(j).1);
            emit!(
                out,
                "        if ({col} < n4) {{ c[(row0 + {i}u) * ldc4 + {col}] = V(c{i}_{j}); }}"
            );
        }
        out.push_str("    }\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest f32 kernel as it is generated, for a reader to see (and to notice a change).
    #[test]
    fn the_64x64_f32_kernel() {
        insta::assert_snapshot!(source(
            TileParams::new(64, 64, 16, 4, 4),
            Precision::F32,
            Precision::F32
        ));
    }

    /// The most distinct addresses any bank serves at once when `lanes` consecutive invocations
    /// (a subgroup, from `first`) read the vec4 at `vec4_of(lid)` of one staged row: 32 banks of
    /// 4 bytes, served 128 bytes at a time (as shared memory on NVIDIA and LDS on AMD do), lanes
    /// reading one address sharing one read (a broadcast). 1 means no conflict.
    fn worst_bank_conflict(
        first: u32,
        lanes: u32,
        words_per_vec4: u32,
        vec4_of: impl Fn(u32) -> u32,
    ) -> usize {
        let per_phase = 32 / words_per_vec4;
        let mut worst = 1;
        for phase in 0..lanes / per_phase {
            let mut banks: Vec<std::collections::BTreeSet<u32>> = vec![Default::default(); 32];
            for lane in 0..per_phase {
                let vec4 = vec4_of(first + phase * per_phase + lane);
                for w in 0..words_per_vec4 {
                    let word = vec4 * words_per_vec4 + w;
                    banks[(word % 32) as usize].insert(word);
                }
            }
            worst = worst.max(banks.iter().map(|b| b.len()).max().unwrap_or(0));
        }
        worst
    }

    /// The inner loop's reads of every generated form, simulated per subgroup of 32 (NVIDIA,
    /// RDNA in wave32) and 64 (AMD wave64), f32 and f16: no bank conflict anywhere. The old
    /// B layout (each invocation's vec4 adjacent) is checked to conflict, so the simulation can
    /// tell.
    #[test]
    fn no_form_has_a_shared_memory_bank_conflict_in_its_inner_loop() {
        for p in TileParams::space() {
            let per_row = p.bn / p.tn;
            for words in [4, 2] {
                for subgroup in [32, 64] {
                    for first in (0..p.invocations()).step_by(subgroup as usize) {
                        let lanes = subgroup.min(p.invocations() - first);
                        for j in 0..p.tn / 4 {
                            let (stride, offset) = p.b_fragment(j);
                            let b = |lid: u32| (lid % per_row) * stride + offset;
                            let worst = worst_bank_conflict(first, lanes, words, b);
                            assert_eq!(
                                worst,
                                1,
                                "{} b{j}, {words} words, wave{subgroup}",
                                p.label()
                            );
                        }
                        for v in 0..p.tm / 4 {
                            let (stride, offset) = p.a_fragment(v);
                            let a = |lid: u32| (lid / per_row) * stride + offset;
                            let worst = worst_bank_conflict(first, lanes, words, a);
                            assert_eq!(
                                worst,
                                1,
                                "{} a{v}, {words} words, wave{subgroup}",
                                p.label()
                            );
                        }
                    }
                }
            }
        }
        let p = TileParams::new(128, 128, 16, 8, 8);
        let old_b = |lid: u32| (lid % (p.bn / p.tn)) * (p.tn / 4);
        assert_eq!(
            worst_bank_conflict(0, 32, 4, old_b),
            2,
            "the old layout conflicts"
        );
    }

    /// The double-buffered kernel as it is generated: one barrier in the loop, the copies
    /// swapped by offset.
    #[test]
    fn the_64x64_double_buffered_f32_kernel() {
        let p = TileParams::new(64, 64, 16, 4, 4).double_buffered();
        let source = source(p, Precision::F32, Precision::F32);
        let in_loop = &source[source.find("for (var t").unwrap_or(0)..];
        assert_eq!(in_loop.matches("workgroupBarrier()").count(), 1);
        assert_eq!(
            source.matches("workgroupBarrier()").count(),
            2,
            "one more before the loop"
        );
        insta::assert_snapshot!(source);
    }

    /// A second copy starts on a 128-byte boundary (a whole number of 32-bank rows, in f16 as
    /// in f32), so its reads meet the banks as the first copy's do.
    #[test]
    fn the_second_copy_keeps_the_bank_pattern() {
        for p in TileParams::space().into_iter().filter(|p| p.stages == 2) {
            let (sa, sb) = p.staged_vec4();
            for words in [4, 2] {
                assert_eq!((sa * words) % 32, 0, "{}", p.label());
                assert_eq!((sb * words) % 32, 0, "{}", p.label());
            }
            assert_eq!(
                p.workgroup_bytes(Precision::F32),
                2 * TileParams { stages: 1, ..p }.workgroup_bytes(Precision::F32)
            );
            assert!(p.label().ends_with("-db"), "{}", p.label());
        }
    }

    /// Every column of C is written by exactly one invocation of a workgroup row, once.
    #[test]
    fn the_b_fragments_cover_each_column_once() {
        for p in TileParams::space() {
            let mut seen = vec![0u32; (p.bn / 4) as usize];
            for tx in 0..p.bn / p.tn {
                for j in 0..p.tn / 4 {
                    let (stride, offset) = p.b_fragment(j);
                    seen[(tx * stride + offset) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{}: {seen:?}", p.label());
        }
    }

    #[test]
    fn the_space_is_well_formed_and_names_its_parameters() {
        let space = TileParams::space();
        assert!(space.len() >= 10, "{} parameter sets", space.len());
        for p in &space {
            let (la, lb) = p.loads();
            assert!(la >= 1 && lb >= 1, "{p:?}");
            assert_eq!(la * p.invocations() * 4, p.bm * p.bk, "{p:?}");
            assert_eq!(lb * p.invocations() * 4, p.bn * p.bk, "{p:?}");
        }
        // 4x4 outputs on a 128x128 tile is 1024 invocations: not in the family.
        assert!(!TileParams::new(128, 128, 16, 4, 4).is_well_formed());
        let p = TileParams::new(128, 64, 16, 8, 4);
        assert_eq!(p.label(), "bm128-bn64-bk16-t8x4-wg256");
        assert_eq!(p.grid(1000, 1000), (16, 8));
        assert_eq!(p.workgroup_bytes(Precision::F32), 16 * 192 * 4);
    }
}
