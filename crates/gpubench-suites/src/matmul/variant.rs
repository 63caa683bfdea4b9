//! The matmul kernel variants: which shader, which constants, which workgroup grid.
//!
//! Every variant computes the same C = A x B over the same buffer layout (rows padded to a
//! multiple of 4 elements, zero-filled), so autotuning compares kernels, never layouts.

use std::sync::LazyLock;

use gpubench_harness::GpuContext;

use super::coop::{self, CoopParams};
use super::gemv::{self, GemvParams};
use super::tiled::{self, TileParams};
use super::unrolled::{self, REG_WG};
use gpubench_harness::kit::gpu::{Precision, SpecialisedShader, specialise};

/// The shape of the work each invocation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// TILE x TILE workgroup staging blocks of A and B in workgroup memory; one output each.
    Tiled {
        /// Tile edge (workgroup is TILE x TILE invocations).
        tile: u32,
    },
    /// Register-blocked, vec4, no workgroup memory, 2-D grid of 8 x 8 workgroups.
    Reg {
        /// Rows of C per invocation.
        tm: u32,
        /// vec4 columns of C per invocation.
        tn: u32,
    },
    /// `Reg` written out for a fixed block by [`super::unrolled`] (no arrays, no inner loops).
    Unrolled {
        /// Rows of C per invocation.
        tm: u32,
        /// vec4 columns of C per invocation.
        tn: u32,
    },
    /// As `Reg`, but 64 lanes along N share one row block: uniform (broadcast) A loads.
    RegCols {
        /// Rows of C per invocation.
        tm: u32,
        /// vec4 columns of C per invocation.
        tn: u32,
    },
    /// A member of the workgroup-tiled family ([`super::tiled`]).
    Family(TileParams),
    /// The small-M kernel ([`super::gemv`]).
    Gemv(GemvParams),
    /// The cooperative-matrix kernel ([`super::coop`]).
    Coop(CoopParams),
}

/// One kernel variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Name as used in params and by `--matmul-variant`.
    pub name: &'static str,
    /// Work per invocation and the grid.
    pub kind: Kind,
    /// Accumulate in f32 even for f16 data.
    pub f32_accumulate: bool,
}

/// The fixed variants, simplest first: the first is the tiled reference every choice must beat.
/// The unrolled blocks named here are the ones generated ([`super::unrolled`]).
pub const VARIANTS: &[Variant] = &[
    Variant::new("tiled16", Kind::Tiled { tile: 16 }),
    Variant::new("reg4x8", Kind::Reg { tm: 4, tn: 2 }),
    Variant::new("reg8x8", Kind::Reg { tm: 8, tn: 2 }),
    Variant::new("unrolled8x8", Kind::Unrolled { tm: 8, tn: 2 }),
    Variant::new("unrolled16x16", Kind::Unrolled { tm: 16, tn: 4 }),
    Variant::new("unrolled32x16", Kind::Unrolled { tm: 32, tn: 4 }),
    Variant::new("unrolled32x32", Kind::Unrolled { tm: 32, tn: 8 }),
    Variant::new("unrolled16x16-acc32", Kind::Unrolled { tm: 16, tn: 4 }).acc32(),
    Variant::new("unrolled32x32-acc32", Kind::Unrolled { tm: 32, tn: 8 }).acc32(),
    Variant::new("cols8x8", Kind::RegCols { tm: 8, tn: 2 }),
];

/// Every variant there is: the fixed table ([`VARIANTS`]), then every member of the tiled
/// family, of the small-M kernel and of the cooperative-matrix kernel, in each accumulation it
/// runs in. Which of them a product tunes over is [`super::select::candidates`]' choice.
pub fn catalogue() -> &'static [Variant] {
    static ALL: LazyLock<Vec<Variant>> = LazyLock::new(|| {
        let mut all = VARIANTS.to_vec();
        let generated = TileParams::space()
            .into_iter()
            .map(Kind::Family)
            .chain(gemv_space().into_iter().map(Kind::Gemv))
            .chain(coop_space().into_iter().map(Kind::Coop));
        for kind in generated {
            for acc32 in [false, true] {
                let variant = Variant::generated(kind, acc32);
                all.push(variant);
            }
        }
        all
    });
    &ALL
}

/// The small-M parameter sets: lanes along N, columns per lane, workgroup size, K splits, with
/// and without subgroups. More columns per lane mean fewer loads per multiply-add (8 rows and CV
/// columns: each step's 8 + 4 CV vec4 loads feed 32 CV vec4 multiply-adds), which is what bounds
/// CPU adapters, whose per-lane loads are lane-by-lane loops; GPUs prune the widest by their
/// register budget. Eight invocations (one or two lanes along K) are for CPU adapters, where a
/// workgroup is one SIMD register of lanes and the in-workgroup reduction is overhead.
pub fn gemv_space() -> Vec<GemvParams> {
    // Four vec4 columns per lane only with eight lanes along N: 32 columns a workgroup row.
    const LANES_COLUMNS: [(u32, u32); 5] = [(4, 1), (4, 2), (8, 1), (8, 2), (8, 4)];
    let mut out = Vec::new();
    for (x, cv) in LANES_COLUMNS {
        for wg in [8, 64, 256] {
            for ks in [1, 8] {
                for subgroups in [false, true] {
                    out.push(GemvParams {
                        x,
                        cv,
                        wg,
                        ks,
                        subgroups,
                    });
                }
            }
        }
    }
    out
}

/// The cooperative-matrix parameter sets: both sizes WGSL names, on subgroups of 32 and 64,
/// 2 x 2, 2 x 4 and 4 x 2 subgroups of 64 x 64 each, K-steps of S and 2S, one or two staged
/// copies; then the forms for one kind of adapter each: 16 x 16 with B staged K-contiguous on
/// subgroups of 64 (`-bcol`, RDNA 3, whose matrix loads cannot transpose), and 8 x 8 with
/// 32 x 32 of C per subgroup on subgroups of 32 (`-c32`, Apple). Those whose f16 form (f32
/// sums) needs more than 48 KiB of workgroup memory (the NVIDIA figure; RDNA3 has 64, Apple
/// 32, and the adapter's own limit prunes the rest) are left out.
pub fn coop_space() -> Vec<CoopParams> {
    let base = |size, sg| CoopParams {
        size,
        sg,
        warps: (2, 2),
        bk: size,
        stages: 1,
        emulated: false,
        edge: coop::SUBGROUP_EDGE,
        b_kcontig: false,
    };
    let mut forms: Vec<CoopParams> = [8, 16]
        .into_iter()
        .flat_map(|size| [32, 64].map(|sg| base(size, sg)))
        .collect();
    forms.push(CoopParams {
        b_kcontig: true,
        ..base(16, 64)
    });
    forms.push(CoopParams {
        edge: 32,
        ..base(8, 32)
    });
    let mut out = Vec::new();
    for form in forms {
        for warps in [(2, 2), (2, 4), (4, 2)] {
            for bk in [form.size, 2 * form.size] {
                for stages in [1, 2] {
                    let p = CoopParams {
                        warps,
                        bk,
                        stages,
                        ..form
                    };
                    if p.workgroup_bytes(Precision::F16, Precision::F32) <= 48 * 1024 {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

/// The emulated twin of the cooperative-matrix variant `p` (f16 data accumulated in f32 with
/// `acc32`): the same kernel with the matrix operations in plain WGSL, which any adapter runs.
/// It is not in the catalogue: it exists to verify the generator where no adapter has the
/// feature.
pub fn emulated_coop(p: CoopParams, acc32: bool) -> Variant {
    Variant::generated(Kind::Coop(p.emulated()), acc32)
}

/// The names `--matmul-variant` accepts.
pub fn variant_names() -> Vec<&'static str> {
    catalogue().iter().map(|v| v.name).collect()
}

/// The variant called `name`.
pub fn find_variant(name: &str) -> Option<Variant> {
    catalogue().iter().copied().find(|v| v.name == name)
}

impl Variant {
    /// A variant that accumulates in the data's precision.
    const fn new(name: &'static str, kind: Kind) -> Self {
        Self {
            name,
            kind,
            f32_accumulate: false,
        }
    }

    /// The same variant, accumulating f16 data in f32.
    const fn acc32(mut self) -> Self {
        self.f32_accumulate = true;
        self
    }

    /// A generated kernel's variant, named after its parameters. The name is made once per
    /// process, by [`catalogue`], which keeps it for the life of the program.
    fn generated(kind: Kind, acc32: bool) -> Self {
        let label = match kind {
            Kind::Family(p) => format!("tiled-{}", p.label()),
            Kind::Gemv(p) => p.label(),
            Kind::Coop(p) => p.label(),
            _ => String::new(),
        };
        let name = if acc32 {
            format!("{label}-acc32")
        } else {
            label
        };
        Self {
            name: Box::leak(name.into_boxed_str()),
            kind,
            f32_accumulate: acc32,
        }
    }

    /// Whether this variant makes sense for `precision` (f32 accumulation is an f16 option).
    pub fn applies_to(&self, precision: Precision) -> bool {
        !self.f32_accumulate || precision == Precision::F16
    }

    /// The precision the running sums use.
    pub fn accumulation(&self, precision: Precision) -> Precision {
        if self.f32_accumulate {
            Precision::F32
        } else {
            precision
        }
    }

    /// The shaders of an `m`-row product in `precision`, in dispatch order: the product, then
    /// (split-K only) the reduction of its partial sums.
    pub fn shaders(&self, precision: Precision, m: u32) -> Result<Vec<SpecialisedShader>, String> {
        let acc = self.accumulation(precision);
        let generated = |source: String, entry: String| SpecialisedShader {
            source,
            entry,
            constants: Vec::new(),
        };
        Ok(match self.kind {
            Kind::Family(p) => vec![generated(tiled::source(p, precision, acc), p.entry_point())],
            Kind::Coop(p) => vec![generated(coop::source(p, precision, acc), p.entry_point())],
            Kind::Gemv(p) => {
                let mb = GemvParams::rows_for(m);
                let mut passes = vec![generated(
                    gemv::source(p, mb, precision, acc),
                    p.entry_point(),
                )];
                if p.ks > 1 {
                    let reduce = gemv::reduce_source(p.ks, precision, acc);
                    passes.push(generated(reduce, gemv::REDUCE_ENTRY.to_string()));
                }
                passes
            }
            _ => vec![self.fixed_shader(precision)?],
        })
    }

    /// The shader of a variant of the fixed table: a WGSL file of this folder with its aliases
    /// rewritten, or a generated unrolled module, and the constants its pipeline sets.
    fn fixed_shader(&self, precision: Precision) -> Result<SpecialisedShader, String> {
        let keep: &[&str] = if self.f32_accumulate {
            &["ACC", "VA"]
        } else {
            &[]
        };
        let workgroup = vec![("WX", f64::from(REG_WG)), ("WY", f64::from(REG_WG))];
        // TM and TN of matmul_reg size private arrays, which WGSL allows only with const sizes
        // (an override-sized array must live in workgroup memory), so they are specialised in
        // the source; the workgroup shape and the tile edge are pipeline constants.
        let (file, entry, consts, constants) = match self.kind {
            Kind::Reg { tm, tn } => (
                crate::matmul::REG_WGSL,
                "matmul_reg",
                vec![("TM", tm), ("TN", tn)],
                workgroup,
            ),
            Kind::RegCols { tm, tn } => (
                crate::matmul::REG_WGSL,
                "matmul_reg_cols",
                vec![("TM", tm), ("TN", tn)],
                workgroup,
            ),
            Kind::Unrolled { tm, tn } => {
                return Ok(SpecialisedShader {
                    source: unrolled::source(tm, tn, precision, self.accumulation(precision)),
                    entry: unrolled::entry_point(tm, tn),
                    constants: Vec::new(),
                });
            }
            Kind::Tiled { tile } => (
                crate::matmul::TILED_WGSL,
                "matmul_tiled",
                vec![],
                vec![("TILE", f64::from(tile))],
            ),
            Kind::Family(_) | Kind::Gemv(_) | Kind::Coop(_) => {
                return Err(format!("{} is generated, not a shader file", self.name));
            }
        };
        Ok(SpecialisedShader {
            source: specialise(file, precision, keep, &consts)?,
            entry: entry.to_string(),
            constants,
        })
    }

    /// Invocations per workgroup and bytes of workgroup memory, for an `m`-row product.
    pub fn workgroup(&self, precision: Precision, m: u32) -> (u32, u32, u64) {
        let acc = self.accumulation(precision);
        match self.kind {
            Kind::Tiled { tile } => (tile, tile, 2 * u64::from(tile * tile) * precision.bytes()),
            Kind::Reg { .. } | Kind::Unrolled { .. } => (REG_WG, REG_WG, 0),
            Kind::RegCols { .. } => (REG_WG * REG_WG, 1, 0),
            Kind::Family(p) => (p.invocations(), 1, p.workgroup_bytes(precision)),
            Kind::Gemv(p) => (p.wg, 1, p.workgroup_bytes(GemvParams::rows_for(m), acc)),
            Kind::Coop(p) => (p.invocations(), 1, p.workgroup_bytes(precision, acc)),
        }
    }

    /// Workgroups to dispatch for an `m` x `n` result, one grid per dispatch (split-K: the
    /// product, then its reduction).
    pub fn grids(&self, m: u32, n: u32) -> Vec<(u32, u32)> {
        let n4 = n.div_ceil(4);
        let one = match self.kind {
            Kind::Tiled { tile } => (n.div_ceil(tile), m.div_ceil(tile)),
            Kind::RegCols { tm, tn } => (n4.div_ceil(tn).div_ceil(REG_WG * REG_WG), m.div_ceil(tm)),
            Kind::Reg { tm, tn } | Kind::Unrolled { tm, tn } => (
                n4.div_ceil(tn).div_ceil(REG_WG),
                m.div_ceil(tm).div_ceil(REG_WG),
            ),
            Kind::Family(p) => p.grid(m, n),
            Kind::Coop(p) => p.grid(m, n),
            Kind::Gemv(p) => {
                return [Some(p.grid(m, n)), p.reduce_grid(m, n)]
                    .into_iter()
                    .flatten()
                    .collect();
            }
        };
        vec![one]
    }

    /// Parameters worth recording in results.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Tiled { tile } => format!(
                "workgroup-tiled, {tile}x{tile} tile in workgroup memory, 1 output per invocation"
            ),
            Kind::Reg { tm, tn } => format!(
                "register-blocked vec4, {tm}x{} outputs per invocation, 8x8 workgroup, no workgroup memory",
                4 * tn
            ),
            Kind::Unrolled { tm, tn } => format!(
                "register-blocked vec4, {tm}x{} outputs per invocation written out (no arrays or inner loops), 8x8 workgroup, no workgroup memory",
                4 * tn
            ),
            Kind::RegCols { tm, tn } => format!(
                "register-blocked vec4, {tm}x{} outputs per invocation, 64 lanes along N sharing A loads, no workgroup memory",
                4 * tn
            ),
            Kind::Family(p) => format!(
                "workgroup-tiled family: {}x{} block per workgroup, K-step {}, {}x{} outputs per invocation, {} invocations, A transposed in workgroup memory, next K-step prefetched into registers{}",
                p.bm,
                p.bn,
                p.bk,
                p.tm,
                p.tn,
                p.invocations(),
                if p.stages == 2 {
                    ", staging double-buffered (one barrier per K-step)"
                } else {
                    ""
                }
            ),
            Kind::Gemv(p) => format!(
                "small-M GEMV: {} lanes along N ({} vec4 columns each) x {} along K per workgroup, K split across {} workgroups, {} reduction",
                p.x,
                p.cv,
                p.y(),
                p.ks,
                if p.subgroups {
                    "subgroup-shuffle then workgroup-memory"
                } else {
                    "workgroup-memory"
                }
            ),
            Kind::Coop(p) => format!(
                "cooperative matrix{0}: {1}x{1} products, {2}x{3} subgroups of {4} invocations, {7}x{7} of C per subgroup, K-steps of {5}, {6}{8}",
                if p.emulated {
                    " (emulated in plain WGSL)"
                } else {
                    ""
                },
                p.size,
                p.warps.0,
                p.warps.1,
                p.sg,
                p.bk,
                if p.stages == 2 {
                    "double-buffered staging"
                } else {
                    "one staged copy"
                },
                p.edge,
                if p.b_kcontig {
                    ", B staged K-contiguous"
                } else {
                    ""
                }
            ),
        }
    }

    /// Whether it runs on matrix units: a cooperative-matrix variant, not its emulated twin.
    pub fn on_matrix_units(&self) -> bool {
        matches!(self.kind, Kind::Coop(p) if !p.emulated)
    }

    /// Device features this variant needs beyond those of its precision.
    pub fn features(&self) -> wgpu::Features {
        match self.kind {
            Kind::Gemv(p) if p.subgroups => wgpu::Features::SUBGROUP,
            // The native kernel places its tiles by the real subgroups' ids.
            Kind::Coop(p) if !p.emulated => wgpu::Features::SUBGROUP,
            _ => wgpu::Features::empty(),
        }
    }

    /// Why this variant cannot run on `ctx` for an `m` x `n` result, if it cannot.
    pub fn unsupported(
        &self,
        ctx: &GpuContext,
        precision: Precision,
        m: u32,
        n: u32,
    ) -> Option<String> {
        let limits = &ctx.limits;
        let (x, y, shared) = self.workgroup(precision, m);
        if x * y > limits.max_compute_invocations_per_workgroup
            || x > limits.max_compute_workgroup_size_x
            || y > limits.max_compute_workgroup_size_y
        {
            return Some(format!("workgroup {x}x{y} exceeds the adapter's limits"));
        }
        if shared > u64::from(limits.max_compute_workgroup_storage_size) {
            return Some(format!(
                "{shared} bytes of workgroup memory exceed the adapter's limit of {}",
                limits.max_compute_workgroup_storage_size
            ));
        }
        let max = limits.max_compute_workgroups_per_dimension;
        for (gx, gy) in self.grids(m, n) {
            if gx > max || gy > max {
                return Some(format!(
                    "grid {gx}x{gy} exceeds max_compute_workgroups_per_dimension {max}"
                ));
            }
        }
        if let Kind::Coop(p) = self.kind
            && !p.emulated
        {
            let acc = self.accumulation(precision);
            if !coop::offered(ctx, precision).contains(&(p.size, acc)) {
                return Some(format!(
                    "the adapter offers no {0}x{0}x{0} {1} x {1} -> {2} cooperative-matrix configuration (wgpu's EXPERIMENTAL_COOPERATIVE_MATRIX{3})",
                    p.size,
                    precision.name(),
                    acc.name(),
                    if ctx
                        .features
                        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
                    {
                        " is enabled, without this size"
                    } else {
                        " is not offered"
                    }
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_ragged_shapes() {
        let reg = find_variant("reg4x8").expect("exists");
        // 127 rows / 4 = 32 blocks -> 4 workgroups; 255 cols -> 64 vec4 -> 32 blocks -> 4.
        assert_eq!(reg.grids(127, 255), [(4, 4)]);
        let cols = find_variant("cols8x8").expect("exists");
        // 256 columns = 64 vec4 = 32 blocks of 2 -> 1 workgroup of 64 lanes; 1 row.
        assert_eq!(cols.grids(1, 256), [(1, 1)]);
        let big = find_variant("unrolled32x32").expect("exists");
        assert_eq!(big.grids(1000, 1000), [(4, 4)]);
        let tiled = find_variant("tiled16").expect("exists");
        assert_eq!(tiled.grids(17, 33), [(3, 2)]);
        assert!(find_variant("nope").is_none());
        assert_eq!(
            VARIANTS[0].name, "tiled16",
            "the simplest variant comes first"
        );
    }
}
