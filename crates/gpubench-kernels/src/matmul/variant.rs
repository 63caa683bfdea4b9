//! The matmul kernel variants: which shader, which constants, which workgroup grid.
//!
//! Every variant computes the same C = A x B over the same buffer layout (rows padded to a
//! multiple of 4 elements, zero-filled), so autotuning compares kernels, never layouts.

use gpubench_harness::GpuContext;

use super::unrolled;
use crate::gpu::{Precision, SpecialisedShader, specialise};
use crate::shaders;

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

/// Workgroup edge of the register-blocked kernels: the `WX` and `WY` overrides of matmul_reg.wgsl
/// and the workgroup size the unrolled kernels are generated with.
pub(super) const REG_WG: u32 = 8;

/// Every variant, simplest first: the first is the tiled reference every choice must beat. The
/// unrolled blocks named here are the ones generated ([`super::unrolled`]).
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

/// The names `--matmul-variant` accepts.
pub fn variant_names() -> Vec<&'static str> {
    VARIANTS.iter().map(|v| v.name).collect()
}

/// The variant called `name`.
pub fn find_variant(name: &str) -> Option<Variant> {
    VARIANTS.iter().copied().find(|v| v.name == name)
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

    /// The shader for `precision`: a file of shaders/ with its aliases rewritten, or a generated
    /// module, and the constants its pipeline sets.
    pub fn shader(&self, precision: Precision) -> Result<SpecialisedShader, String> {
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
            Kind::Tiled { tile } => (
                shaders::MATMUL_TILED,
                "matmul_tiled",
                vec![],
                vec![("TILE", f64::from(tile))],
            ),
            Kind::Reg { tm, tn } => (
                shaders::MATMUL_REG,
                "matmul_reg",
                vec![("TM", tm), ("TN", tn)],
                workgroup,
            ),
            Kind::RegCols { tm, tn } => (
                shaders::MATMUL_REG,
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
        };
        Ok(SpecialisedShader {
            source: specialise(file, precision, keep, &consts)?,
            entry: entry.to_string(),
            constants,
        })
    }

    /// Invocations per workgroup and bytes of workgroup memory.
    pub fn workgroup(&self, precision: Precision) -> (u32, u32, u64) {
        match self.kind {
            Kind::Tiled { tile } => (tile, tile, 2 * u64::from(tile * tile) * precision.bytes()),
            Kind::Reg { .. } | Kind::Unrolled { .. } => (REG_WG, REG_WG, 0),
            Kind::RegCols { .. } => (REG_WG * REG_WG, 1, 0),
        }
    }

    /// Workgroups to dispatch for an `m` x `n` result (`n4` vec4 columns).
    pub fn grid(&self, m: u32, n: u32) -> (u32, u32) {
        let n4 = n.div_ceil(4);
        match self.kind {
            Kind::Tiled { tile } => (n.div_ceil(tile), m.div_ceil(tile)),
            Kind::RegCols { tm, tn } => (n4.div_ceil(tn).div_ceil(REG_WG * REG_WG), m.div_ceil(tm)),
            Kind::Reg { tm, tn } | Kind::Unrolled { tm, tn } => (
                n4.div_ceil(tn).div_ceil(REG_WG),
                m.div_ceil(tm).div_ceil(REG_WG),
            ),
        }
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
        let (x, y, shared) = self.workgroup(precision);
        if x * y > limits.max_compute_invocations_per_workgroup
            || x > limits.max_compute_workgroup_size_x
            || y > limits.max_compute_workgroup_size_y
        {
            return Some(format!("workgroup {x}x{y} exceeds the adapter's limits"));
        }
        if shared > u64::from(limits.max_compute_workgroup_storage_size) {
            return Some(format!(
                "{shared} bytes of workgroup memory exceed the adapter's limit"
            ));
        }
        let (gx, gy) = self.grid(m, n);
        let max = limits.max_compute_workgroups_per_dimension;
        if gx > max || gy > max {
            return Some(format!(
                "grid {gx}x{gy} exceeds max_compute_workgroups_per_dimension {max}"
            ));
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
        assert_eq!(reg.grid(127, 255), (4, 4));
        let cols = find_variant("cols8x8").expect("exists");
        // 256 columns = 64 vec4 = 32 blocks of 2 -> 1 workgroup of 64 lanes; 1 row.
        assert_eq!(cols.grid(1, 256), (1, 1));
        let big = find_variant("unrolled32x32").expect("exists");
        assert_eq!(big.grid(1000, 1000), (4, 4));
        let tiled = find_variant("tiled16").expect("exists");
        assert_eq!(tiled.grid(17, 33), (3, 2));
        assert!(find_variant("nope").is_none());
        assert_eq!(
            VARIANTS[0].name, "tiled16",
            "the simplest variant comes first"
        );
    }
}
