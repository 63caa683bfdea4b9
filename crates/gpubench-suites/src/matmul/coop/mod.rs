//! The cooperative-matrix GEMM: tensor cores (or the adapter's matrix units) through wgpu's
//! experimental `wgpu_cooperative_matrix` WGSL extension.
//!
//! A subgroup multiplies S x S matrices (S = 8 or 16, the sizes WGSL spells `coop_mat8x8` and
//! `coop_mat16x16`) in one `coopMultiplyAdd`; which element types and sizes an adapter runs is
//! listed by `adapter.cooperative_matrix_properties()`, and only square configurations can be
//! written in WGSL.
//!
//! The kernel is laid out the way fast GEMMs on matrix units are:
//! - A workgroup holds a grid of subgroups (2 x 2, 2 x 4 or 4 x 2), each owning a 64 x 64
//!   piece of C, so a workgroup computes a 128 x 128, 128 x 256 or 256 x 128 block: per K-step
//!   every staged A fragment feeds 64 / S products and every B fragment as many, where a single
//!   32 x 32 subgroup fed two.
//! - K advances in steps of BK (S or 2S). Each step's A block (BM x BK) and B block (BK x BN)
//!   are loaded from global memory as vec4 into registers one step ahead, then stored in
//!   workgroup memory, zero past the edges of the product, so the matrix loads never leave the
//!   data and any shape works. Double-buffered staging (`stages = 2`, labels ending `-db`)
//!   keeps two copies and needs one barrier per K-step; one copy needs two.
//! - Staged rows are padded to an odd number of 16-byte units: a matrix load reads S rows of
//!   16-32 bytes, and with an even stride (a power of two, unpadded) rows fall on the same
//!   banks; an odd one puts 8 consecutive rows' 16 bytes on all 32 four-byte banks once.
//! - Accumulators leave through a small per-subgroup staging area (2 KiB: two 16 x 16 f32
//!   tiles, or up to a row of smaller ones at a time), where the edges are dropped and f32
//!   sums are rounded to the output type; `coopStoreT` has no bounds.
//!
//! Subgroup size. wgpu's Vulkan backend lets the driver pick any subgroup size between the
//! adapter's minimum and maximum, so the kernel cannot count on one. It is written for `sg`
//! invocations per subgroup (a workgroup of `W x sg`), and the real subgroups own the W tiles
//! by `subgroup_id`. With `sg` at least the widest subgroup the adapter runs, there are at
//! least W real subgroups: where they are narrower, the surplus repeat the last one's products
//! and stores (the same values: naga wants matrix operations in uniform control flow) and copy
//! nothing out, so the cost is speed, never the answer. Were they wider, tiles would go unowned
//! and C would fail verification. The suite picks `sg` by [`subgroup_for`].
//!
//! An emulated twin of every configuration ([`CoopParams::emulated`]) replaces the three
//! matrix operations with plain WGSL over the same staged memory, lane by lane, and changes
//! nothing else but the subgroups (the twin's are runs of `sg` invocations); it runs on any
//! adapter, so the staging, the double buffering, the edges and the tiling are verified
//! against the CPU reference where no adapter has the feature. What it cannot check is the
//! native matrix layouts and how a driver groups invocations into subgroups.

use gpubench_harness::GpuContext;

use gpubench_harness::kit::gpu::Precision;

mod choice;
mod emulation;
mod shortlist;
mod source;

pub use choice::{candidates, transposing_load};
pub use shortlist::{COOP_MIN_M, too_few_rows, tuned_for_vendor};

pub use source::source;

/// One cooperative-matrix configuration the kernel is generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoopParams {
    /// Matrix edge S (8 or 16).
    pub size: u32,
    /// The subgroup size the kernel is written for (32 or 64; see the module docs).
    pub sg: u32,
    /// Subgroups along M and along N.
    pub warps: (u32, u32),
    /// K per staged step: S or 2S.
    pub bk: u32,
    /// Copies of the staged blocks: 1, or 2 (double-buffered).
    pub stages: u32,
    /// Plain WGSL in place of the matrix operations, for verification without the feature.
    pub emulated: bool,
    /// Rows and columns of C each subgroup computes: [`SUBGROUP_EDGE`], or 32 for 8 x 8
    /// matrices (label `-c32`: 16 accumulators where 64 x 64 would hold 64).
    pub edge: u32,
    /// B staged K-contiguous (each column of the block a row of workgroup memory, loaded as a
    /// column-major matrix; label `-bcol`), for adapters whose matrix loads cannot transpose:
    /// RDNA 3 reads row-major B one 16-bit element at a time.
    pub b_kcontig: bool,
}

/// Rows and columns of C each subgroup computes, unless a form says otherwise.
pub const SUBGROUP_EDGE: u32 = 64;

/// Bytes of workgroup memory each subgroup has for taking its sums out.
pub const OUT_STAGING_BYTES: u32 = 2048;

/// The alignment every matrix load and store address and stride keeps, and the unit staged
/// rows are padded in.
const ALIGN_BYTES: u32 = 16;

impl CoopParams {
    /// The parameter part of the variant name, e.g. `coop16x16-sg32-w2x2-bk32-db` (the forms
    /// added later end in `-bcol` or `-c32`, so every earlier name keeps its kernel).
    pub fn label(&self) -> String {
        format!(
            "coop{0}x{0}-sg{1}-w{2}x{3}-bk{4}{5}{6}{7}{8}",
            self.size,
            self.sg,
            self.warps.0,
            self.warps.1,
            self.bk,
            if self.stages == 2 { "-db" } else { "" },
            if self.b_kcontig { "-bcol" } else { "" },
            if self.edge == SUBGROUP_EDGE {
                String::new()
            } else {
                format!("-c{}", self.edge)
            },
            if self.emulated { "-emulated" } else { "" }
        )
    }

    /// The same configuration with the matrix operations written in plain WGSL.
    pub fn emulated(mut self) -> Self {
        self.emulated = true;
        self
    }

    /// The entry point.
    pub fn entry_point(&self) -> String {
        format!("matmul_{}", self.label().replace('-', "_"))
    }

    /// S x S tiles per subgroup along each edge.
    pub fn tiles(&self) -> u32 {
        self.edge / self.size
    }

    /// Subgroups per workgroup.
    pub fn subgroups(&self) -> u32 {
        self.warps.0 * self.warps.1
    }

    /// Invocations per workgroup.
    pub fn invocations(&self) -> u32 {
        self.subgroups() * self.sg
    }

    /// Rows and columns of C per workgroup.
    pub fn block(&self) -> (u32, u32) {
        (self.warps.0 * self.edge, self.warps.1 * self.edge)
    }

    /// Workgroups for an `m` x `n` product.
    pub fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        let (bm, bn) = self.block();
        (n.div_ceil(bn), m.div_ceil(bm))
    }

    /// Whether the parameters make a kernel: S of WGSL's two sizes, BK a multiple of S (and so
    /// of 4, the vec4 loads), one or two copies.
    pub fn is_valid(&self) -> bool {
        matches!(self.size, 8 | 16)
            && matches!(self.sg, 32 | 64)
            && self.bk.is_multiple_of(self.size)
            && self.bk <= 2 * self.size
            && (1..=2).contains(&self.stages)
            && self.subgroups() > 0
            && matches!(self.edge, 32 | 64)
            && self.edge.is_multiple_of(self.size)
    }

    /// The stride, in elements, of a staged row of `len` elements: the row rounded up to
    /// 16-byte units, plus one unit where that count is even.
    fn padded(len: u32, precision: Precision) -> u32 {
        let unit = ALIGN_BYTES / precision.bytes() as u32;
        let units = len.div_ceil(unit);
        unit * (units + (units + 1) % 2)
    }

    /// Row strides, in elements, of the staged A block (BM rows of BK) and B block (BK rows of
    /// BN, or with `b_kcontig` BN rows of BK).
    pub fn strides(&self, precision: Precision) -> (u32, u32) {
        let b_row = if self.b_kcontig {
            self.bk
        } else {
            self.block().1
        };
        (
            Self::padded(self.bk, precision),
            Self::padded(b_row, precision),
        )
    }

    /// Elements in one copy of the staged A block and of the staged B block.
    pub fn staged_len(&self, precision: Precision) -> (u32, u32) {
        let (sa, sb) = self.strides(precision);
        let b_rows = if self.b_kcontig {
            self.block().1
        } else {
            self.bk
        };
        (self.block().0 * sa, b_rows * sb)
    }

    /// Tiles a subgroup takes out per pass through its output staging: as many as 2 KiB holds,
    /// at most one row of its tiles.
    pub fn out_tiles(&self, accumulation: Precision) -> u32 {
        let tile = self.size * self.size * accumulation.bytes() as u32;
        (OUT_STAGING_BYTES / tile).clamp(1, self.tiles())
    }

    /// Elements of output staging per subgroup.
    fn out_len(&self, accumulation: Precision) -> u32 {
        self.size * self.size * self.out_tiles(accumulation)
    }

    /// Bytes of workgroup memory: the staged copies and the output staging.
    pub fn workgroup_bytes(&self, data: Precision, accumulation: Precision) -> u64 {
        let (sa, sb) = self.staged_len(data);
        u64::from(self.stages * (sa + sb)) * data.bytes()
            + u64::from(self.subgroups() * self.out_len(accumulation)) * accumulation.bytes()
    }

    /// An estimate of the 32-bit registers an invocation holds live, where the subgroup really
    /// is `sg` wide: its share of the (64/S)^2 accumulators and of one sub-step's 2 x 64/S
    /// fragments (halves pack two to a register), and the prefetched vec4s.
    pub fn registers(&self, data: Precision, accumulation: Precision) -> u32 {
        let per = |p: Precision| if p == Precision::F16 { 1 } else { 2 };
        let tile = self.size * self.size / self.sg;
        let n = self.tiles();
        let (la, lb) = loads(*self);
        (n * n * tile * per(accumulation) + 2 * n * tile * per(data) + 4 * (la + lb) * per(data))
            / 2
    }

    /// Where the A fragment of tile row `i` at sub-step `kk` (K offset `kk * S` within the
    /// step) starts in a staged copy, as `(stride, offset)`: element `wr * stride + offset`
    /// for the subgroup in row `wr` of the grid.
    pub fn a_fragment(&self, precision: Precision, i: u32, kk: u32) -> (u32, u32) {
        let (sa, _) = self.strides(precision);
        (self.edge * sa, i * self.size * sa + kk * self.size)
    }

    /// Where the B fragment of tile column `j` at sub-step `kk` starts in a staged copy, as
    /// `(stride, offset)`: element `wc * stride + offset` for the subgroup in column `wc`.
    pub fn b_fragment(&self, precision: Precision, j: u32, kk: u32) -> (u32, u32) {
        let (_, sb) = self.strides(precision);
        if self.b_kcontig {
            (self.edge * sb, j * self.size * sb + kk * self.size)
        } else {
            (self.edge, kk * self.size * sb + j * self.size)
        }
    }
}

/// The WGSL scalar type of a cooperative-matrix element type, when it is one the kernel uses.
fn scalar(ty: wgpu::CooperativeScalarType) -> Option<Precision> {
    match ty {
        wgpu::CooperativeScalarType::F32 => Some(Precision::F32),
        wgpu::CooperativeScalarType::F16 => Some(Precision::F16),
        _ => None,
    }
}

/// The accumulation precisions the adapter runs square S x S products of `data` in, with S,
/// from the adapter's configurations (empty where the device was not given the feature).
pub fn offered(ctx: &GpuContext, data: Precision) -> Vec<(u32, Precision)> {
    if !ctx
        .features
        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
    {
        return Vec::new();
    }
    let mut out: Vec<(u32, Precision)> = ctx
        .adapter
        .cooperative_matrix_properties()
        .iter()
        .filter(|p| p.m_size == p.n_size && p.n_size == p.k_size)
        .filter(|p| scalar(p.ab_type) == Some(data))
        .filter_map(|p| Some((p.m_size, scalar(p.cr_type)?)))
        .collect();
    out.sort_by_key(|&(s, acc)| (s, acc.bytes()));
    out.dedup();
    out
}

/// The subgroup size the kernels for an adapter are written for: at least the largest
/// subgroup it runs (`max`, as [`AdapterFacts::subgroup_max`] gives it: 32 on an Apple GPU),
/// 32 up to 32, 64 at 64, none above.
pub fn subgroup_for(max: u32) -> Option<u32> {
    match max {
        0..=32 => Some(32),
        33..=64 => Some(64),
        _ => None,
    }
}

/// vec4 loads of A and of B each invocation makes per K-step (the last may be partial).
pub(super) fn loads(p: CoopParams) -> (u32, u32) {
    let (bm, bn) = p.block();
    let wg = p.invocations();
    ((bm * p.bk / 4).div_ceil(wg), (p.bk * bn / 4).div_ceil(wg))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms() -> Vec<(CoopParams, Precision, Precision)> {
        let mut out = Vec::new();
        for p in crate::matmul::coop_space() {
            for (data, acc) in [
                (Precision::F16, Precision::F32),
                (Precision::F16, Precision::F16),
                (Precision::F32, Precision::F32),
            ] {
                out.push((p, data, acc));
            }
        }
        out
    }

    #[test]
    fn the_space_is_valid_and_every_subgroup_computes_at_least_64_by_64() {
        let space = crate::matmul::coop_space();
        assert!(!space.is_empty());
        for p in &space {
            assert!(p.is_valid(), "{p:?}");
            assert!(!p.emulated);
            assert!((4..=8).contains(&p.subgroups()), "{}", p.label());
            assert_eq!(p.tiles() * p.size, p.edge);
            assert!(p.edge == SUBGROUP_EDGE || p.size == 8, "{}", p.label());
        }
        assert!(space.iter().any(|p| p.stages == 2) && space.iter().any(|p| p.stages == 1));
    }

    /// A double-buffered 16 x 16 form on 32-wide subgroups.
    fn form16(warps: (u32, u32), bk: u32) -> CoopParams {
        CoopParams {
            size: 16,
            sg: 32,
            warps,
            bk,
            stages: 2,
            emulated: false,
            edge: SUBGROUP_EDGE,
            b_kcontig: false,
        }
    }

    #[test]
    fn blocks_cover_the_product() {
        let p = form16((2, 4), 32);
        assert_eq!(p.label(), "coop16x16-sg32-w2x4-bk32-db");
        assert_eq!(p.emulated().label(), "coop16x16-sg32-w2x4-bk32-db-emulated");
        assert_eq!(p.block(), (128, 256));
        assert_eq!(p.invocations(), 256);
        assert_eq!(p.grid(1000, 1000), (4, 8));
        assert_eq!(p.grid(1, 257), (2, 1));
    }

    /// Every tile of every subgroup, from the offsets the generator writes, reads S rows of A
    /// and S columns of B inside the staged copy, the sub-steps cover the K-step exactly once,
    /// and the subgroups' tiles cover the block exactly once.
    #[test]
    fn the_fragments_partition_the_block_and_the_k_step() {
        for (p, data, _) in forms() {
            let (bm, bn) = p.block();
            let (stride_a, stride_b) = p.strides(data);
            let (len_a, len_b) = p.staged_len(data);
            let mut c_cover = vec![0u32; (bm * bn) as usize];
            for vs in 0..p.subgroups() {
                let (wr, wc) = (vs / p.warps.1, vs % p.warps.1);
                for i in 0..p.tiles() {
                    for j in 0..p.tiles() {
                        let mut k_cover = vec![0u32; p.bk as usize];
                        let mut rows = None;
                        let mut cols = None;
                        for kk in 0..p.bk / p.size {
                            let (sa, oa) = p.a_fragment(data, i, kk);
                            let (sb, ob) = p.b_fragment(data, j, kk);
                            let (a, b) = (wr * sa + oa, wc * sb + ob);
                            let (row, k) = (a / stride_a, a % stride_a);
                            let (kb, col) = if p.b_kcontig {
                                (b % stride_b, b / stride_b)
                            } else {
                                (b / stride_b, b % stride_b)
                            };
                            assert_eq!(k, kb, "A and B agree on K, {}", p.label());
                            assert!(k + p.size <= p.bk && row + p.size <= bm);
                            assert!(col + p.size <= bn, "{}", p.label());
                            assert!(kb + p.size <= p.bk, "{}", p.label());
                            assert!(a + (p.size - 1) * stride_a + p.size <= len_a);
                            assert!(b + (p.size - 1) * stride_b + p.size <= len_b);
                            assert_eq!(*rows.get_or_insert(row), row);
                            assert_eq!(*cols.get_or_insert(col), col);
                            for x in k..k + p.size {
                                k_cover[x as usize] += 1;
                            }
                        }
                        assert!(k_cover.iter().all(|&x| x == 1), "{}", p.label());
                        let (row, col) = (rows.unwrap_or(0), cols.unwrap_or(0));
                        let e = p.edge;
                        assert_eq!((row, col), (wr * e + i * p.size, wc * e + j * p.size));
                        for r in row..row + p.size {
                            for q in col..col + p.size {
                                c_cover[(r * bn + q) as usize] += 1;
                            }
                        }
                    }
                }
            }
            assert!(c_cover.iter().all(|&x| x == 1), "{}", p.label());
        }
    }

    /// The emulated twin walks the tiles in loops from the first tile's address and a fixed
    /// step: the addresses the generator writes out for the native kernel are exactly that.
    #[test]
    fn fragment_addresses_step_evenly_from_tile_to_tile() {
        for (p, data, _) in forms() {
            for kk in 0..p.bk / p.size {
                let a = |i| p.a_fragment(data, i, kk).1;
                let b = |j| p.b_fragment(data, j, kk).1;
                for t in 0..p.tiles() {
                    assert_eq!(a(t), a(0) + t * (a(1) - a(0)), "{}", p.label());
                    assert_eq!(b(t), b(0) + t * (b(1) - b(0)), "{}", p.label());
                }
            }
        }
    }

    /// Matrix loads and stores want 16-byte aligned addresses and strides: every fragment, both
    /// copies, and the output staging keep them.
    #[test]
    fn every_matrix_address_and_stride_is_16_byte_aligned() {
        for (p, data, acc) in forms() {
            let b = data.bytes() as u32;
            let (stride_a, stride_b) = p.strides(data);
            let (len_a, len_b) = p.staged_len(data);
            assert_eq!((stride_a * b) % 16, 0, "{}", p.label());
            assert_eq!((stride_b * b) % 16, 0);
            // An odd count of 16-byte units: 8 rows' 16 bytes fall on 32 distinct banks.
            assert_eq!((stride_a * b / 16) % 2, 1, "{}", p.label());
            assert_eq!((stride_b * b / 16) % 2, 1, "{}", p.label());
            let b_row = if p.b_kcontig { p.bk } else { p.block().1 };
            assert!(stride_a >= p.bk && stride_b >= b_row);
            assert_eq!((len_a * b) % 16, 0, "the second copy stays aligned");
            assert_eq!((len_b * b) % 16, 0);
            for kk in 0..p.bk / p.size {
                for t in 0..p.tiles() {
                    for w in 0..2 {
                        let (sa, oa) = p.a_fragment(data, t, kk);
                        let (sb, ob) = p.b_fragment(data, t, kk);
                        assert_eq!(((w * sa + oa) * b) % 16, 0, "{}", p.label());
                        assert_eq!(((w * sb + ob) * b) % 16, 0, "{}", p.label());
                    }
                }
            }
            let ab = acc.bytes() as u32;
            assert_eq!((p.out_tiles(acc) * p.size * ab) % 16, 0);
            assert_eq!((p.out_len(acc) * ab) % 16, 0);
        }
    }

    /// The f16 forms fit 48 KiB (NVIDIA's Vulkan figure; RDNA3 has 64), and each subgroup
    /// size and matrix size has double-buffered forms for 32 KiB (Apple). f32 data, twice the
    /// bytes, is left to the adapter's own limit.
    #[test]
    fn workgroup_memory_fits_the_adapters_it_is_for() {
        for (p, data, acc) in forms() {
            if data == Precision::F16 {
                assert!(p.workgroup_bytes(data, acc) <= 48 * 1024, "{}", p.label());
            }
        }
        for size in [8, 16] {
            for sg in [32, 64] {
                let fits = crate::matmul::coop_space().into_iter().any(|p| {
                    p.size == size
                        && p.sg == sg
                        && p.stages == 2
                        && p.workgroup_bytes(Precision::F16, Precision::F32) <= 32 * 1024
                });
                assert!(fits, "S = {size}, sg = {sg}");
            }
        }
        let p = form16((2, 2), 16);
        // Two copies of 128 x (16 + 8) and 16 x (128 + 8) halves, plus 4 x 2 KiB of sums.
        assert_eq!(
            p.workgroup_bytes(Precision::F16, Precision::F32),
            2 * (128 * 24 + 16 * 136) * 2 + 4 * 2048
        );
    }

    /// The register estimate, worked by hand for the largest f16 form on 32-wide subgroups:
    /// 16 accumulators of 8 f32 a lane, 8 fragments of 8 halves, 8 prefetched vec4 of halves.
    #[test]
    fn the_register_estimate_counts_accumulators_fragments_and_prefetch() {
        let p = form16((2, 2), 32);
        assert_eq!(loads(p), (8, 8));
        assert_eq!(p.registers(Precision::F16, Precision::F32), 128 + 32 + 32);
        let wide = CoopParams { sg: 64, ..p };
        assert!(wide.registers(Precision::F16, Precision::F32) < 128);
    }

    #[test]
    fn the_subgroup_size_is_the_adapters_largest() {
        assert_eq!(subgroup_for(4), Some(32));
        assert_eq!(subgroup_for(32), Some(32));
        assert_eq!(subgroup_for(64), Some(64));
        assert_eq!(subgroup_for(128), None);
    }
}
