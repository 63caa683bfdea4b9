//! The compute peak of the integer types, the packed 8-bit dot products, and the rows for the
//! types WGSL cannot express.
//!
//! The integer kernels are the FMA peak's shape (8 independent chains per invocation, 16 steps
//! per loop iteration, one grid for every type) with `x = x * a + b` in the type's wrapping
//! arithmetic, so a user reads i32 beside f32 on one footing. The figure counts a multiply-add as
//! two operations and a 4-lane dot product with its accumulate as eight (four products, four
//! additions), the convention vkpeak's GIOPS figures use, in GIOP/s.
//!
//! Why the answers are exact and cheap to predict: an affine map composed with itself is affine,
//! so `STEPS` multiply-adds of a chain are one multiply-add with `(a^n, b (1 + a + ... +
//! a^(n-1)))`, computed by squaring in the type's width ([`affine_power`]). Every invocation is
//! checked. The multiplier is odd with bits in every byte, so a step skipped or a product's high
//! half lost changes every later value. A loop a compiler folded by composing its steps (legal
//! in wrapping arithmetic) keeps every value, as this prediction does: the compiled code rules
//! that out (`gpubench-isa/tests/compiled_forms.rs`, RADV's disassembly), not the check.
//!
//! The dot-product chain `x = x + dot4(x, w)` feeds each step's result back into the next
//! step's operand: a dot product of loop-invariant operands would be hoisted out of the loop by
//! any compiler, which would leave additions to measure. That recurrence has no closed form, so
//! the CPU replays it; it checks every invocation of a grid up to [`DOT_CHECK_ALL`] and a sample
//! spread over a larger one (about 0.03 s of CPU per thousand invocations).
//!
//! i16 needs wgpu's SHADER_I16 (`enable wgpu_int16;`); a 16-bit float other than f16 (bf16) has
//! no WGSL type at all, so its row is skipped on every adapter and says so.

use gpubench_harness::{
    BenchmarkInfo, GpuContext, Kernel, MetricKind, Outcome, SampleClock, Verification, Work,
};

use gpubench_harness::kit::fma::grid::PeakGrid;
use gpubench_harness::kit::fma::{FmaDispatch, STEPS, chain_params, chain_shader};
use gpubench_harness::kit::gpu::SpecialisedShader;
use gpubench_harness::kit::verify::{Checker, Tolerance};

/// Independent chains per invocation in every integer and dot-product form.
pub const CHAINS: u32 = 8;
/// The integer chains' multiplier: odd, with bits in every byte. Its top bit is clear, like
/// the addend's and every start value's, so the shader's `T(u32)` gives the same value whether a
/// compiler zero- or sign-extends it to 64 bits (naga 30 sign-extends u32 to i64).
pub const MAD_A: u32 = 0x5e37_79b1;
/// The integer chains' addend.
pub const MAD_B: u32 = 0x7f4a_7c15;
/// The dot products' second operand: four 8-bit lanes, negative ones among them as i8
/// (3, -3, 5, 127 as i8; 3, 253, 5, 127 as u8).
pub const DOT_W: u32 = 0x7f05_fd03;
/// Grids up to this many invocations have every dot-product invocation replayed on the CPU.
pub const DOT_CHECK_ALL: u32 = 16_384;
/// Invocations replayed, spread evenly, on a larger grid (the last one always among them).
pub const DOT_SAMPLE: u32 = 4_096;

/// An integer type of the multiply-add peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntType {
    /// 32-bit signed.
    I32,
    /// 32-bit unsigned.
    U32,
    /// 64-bit signed (SHADER_INT64).
    I64,
    /// 16-bit signed (SHADER_I16).
    I16,
}

impl IntType {
    /// Every type, in report order.
    pub const ALL: [IntType; 4] = [IntType::I32, IntType::U32, IntType::I64, IntType::I16];

    /// Name as used in ids and params.
    pub fn name(self) -> &'static str {
        match self {
            IntType::I32 => "i32",
            IntType::U32 => "u32",
            IntType::I64 => "i64",
            IntType::I16 => "i16",
        }
    }

    /// Bits of the type: the width its arithmetic wraps at.
    pub fn bits(self) -> u32 {
        match self {
            IntType::I32 | IntType::U32 => 32,
            IntType::I64 => 64,
            IntType::I16 => 16,
        }
    }

    /// Device features the type needs.
    pub fn features(self) -> wgpu::Features {
        match self {
            IntType::I32 | IntType::U32 => wgpu::Features::empty(),
            IntType::I64 => wgpu::Features::SHADER_INT64,
            IntType::I16 => wgpu::Features::SHADER_I16,
        }
    }

    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    /// The WGSL lines that make compute_int.wgsl this type: its `T`, and `low_bits`, which
    /// turns a chain sum into the u32 the invocation writes.
    fn declarations(self) -> (&'static str, &'static str) {
        match self {
            IntType::I32 => (
                "alias T = i32;",
                "fn low_bits(x: T) -> u32 { return bitcast<u32>(x); }",
            ),
            IntType::U32 => ("alias T = u32;", "fn low_bits(x: T) -> u32 { return x; }"),
            IntType::I64 => (
                "alias T = i64;",
                "fn low_bits(x: T) -> u32 { return u32(x & 0xffffffffli) ^ u32((x >> 32u) & 0xffffffffli); }",
            ),
            IntType::I16 => (
                "alias T = i16;",
                "fn low_bits(x: T) -> u32 { return bitcast<u32>(i32(x)) & 0xffffu; }",
            ),
        }
    }

    /// compute_int.wgsl made this type.
    pub fn source(self) -> Result<String, String> {
        let (alias, low_bits) = self.declarations();
        let (alias_i32, low_bits_i32) = IntType::I32.declarations();
        let mut found = (false, false);
        let mut out = String::new();
        if self == IntType::I16 {
            out.push_str("enable wgpu_int16;\n");
        }
        for line in crate::compute::INT_WGSL.lines() {
            if line == alias_i32 {
                found.0 = true;
                out.push_str(alias);
            } else if line == low_bits_i32 {
                found.1 = true;
                out.push_str(low_bits);
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        match found {
            (true, true) => Ok(out),
            _ => Err(format!(
                "compute_int.wgsl lacks the line '{alias_i32}' or '{low_bits_i32}' that make its type"
            )),
        }
    }

    /// The start value of scalar chain `c` of invocation `id`, as the shader's `T(u32)` makes it
    /// (truncated to 16 bits; below 2^31 for any grid under 2^28 invocations, so widening it to
    /// 64 bits is the same value however it is done).
    fn start(self, id: u32, c: u32) -> u64 {
        u64::from(id.wrapping_mul(7).wrapping_add(c.wrapping_mul(13))) & self.mask()
    }

    /// What invocation `id` writes after `steps` steps of every chain.
    pub fn expected_output(self, id: u32, steps: u32) -> u32 {
        let mask = self.mask();
        let (a, b) = (u64::from(MAD_A) & mask, u64::from(MAD_B) & mask);
        let (an, bn) = affine_power(a, b, steps, mask);
        let sum = (0..CHAINS).fold(0u64, |sum, c| {
            let x = an.wrapping_mul(self.start(id, c)).wrapping_add(bn) & mask;
            sum.wrapping_add(x) & mask
        });
        low_bits(sum)
    }
}

/// What the shader's `low_bits` makes of a chain sum: its two 32-bit halves XORed (an i32, u32
/// or i16 sum has no high half), so a 64-bit chain computed in 32 bits cannot pass.
fn low_bits(sum: u64) -> u32 {
    (sum as u32) ^ ((sum >> 32) as u32)
}

/// `x -> a x + b` composed `n` times, as its own `(multiplier, addend)`, in the arithmetic that
/// wraps at `mask + 1` (by squaring: about 2 log2(n) multiply-adds).
pub fn affine_power(a: u64, b: u64, n: u32, mask: u64) -> (u64, u64) {
    // f after g, both affine: a_f (a_g x + b_g) + b_f.
    let compose = |f: (u64, u64), g: (u64, u64)| {
        (
            f.0.wrapping_mul(g.0) & mask,
            f.0.wrapping_mul(g.1).wrapping_add(f.1) & mask,
        )
    };
    let (mut result, mut power, mut n) = ((1, 0), (a & mask, b & mask), n);
    while n > 0 {
        if n & 1 == 1 {
            result = compose(power, result);
        }
        power = compose(power, power);
        n >>= 1;
    }
    result
}

/// Scalar or vec4 chains of the integer peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntForm {
    /// 8 scalar chains.
    Scalar,
    /// 2 vec4 chains.
    Vec4,
}

impl IntForm {
    /// Both forms, in report order.
    pub const ALL: [IntForm; 2] = [IntForm::Scalar, IntForm::Vec4];

    /// Name as used in ids.
    pub fn name(self) -> &'static str {
        match self {
            IntForm::Scalar => "scalar",
            IntForm::Vec4 => "vec4",
        }
    }

    fn entry(self) -> &'static str {
        match self {
            IntForm::Scalar => "mad_scalar",
            IntForm::Vec4 => "mad_vec4",
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    first: u32,
    second: u32,
    _pad: [u32; 2],
}

/// The grid's invocations, which the output (one u32 each) must hold in one binding.
fn invocations(grid: &PeakGrid) -> u32 {
    u32::try_from(grid.invocations()).unwrap_or(u32::MAX)
}

/// What one dispatch over `grid` does: [`STEPS`] steps of each of the [`CHAINS`] chains of every
/// invocation, `ops_per_step` integer operations each, and one word written per invocation.
fn chain_work(grid: &PeakGrid, ops_per_step: u64) -> Work {
    let invocations = u64::from(invocations(grid));
    let steps = invocations * u64::from(CHAINS) * u64::from(STEPS);
    Work::int_ops(ops_per_step * steps).with_bytes(0, invocations * 4)
}

fn grid_support(ctx: &GpuContext, grid: &PeakGrid) -> Result<(), String> {
    let (x, y) = grid.workgroups;
    if x.max(y) > ctx.limits.max_compute_workgroups_per_dimension {
        return Err(format!(
            "a grid of {x} x {y} workgroups exceeds max_compute_workgroups_per_dimension"
        ));
    }
    gpubench_harness::kit::gpu::check_binding_fits(ctx, grid.invocations() * 4, "grid output")
}

/// An output that starts as the complement of every expected word, so an invocation that wrote
/// nothing cannot pass by chance; `expected` is `None` for invocations not checked.
fn complement_init(expected: &[Option<u32>]) -> Vec<u8> {
    expected
        .iter()
        .flat_map(|w| (!w.unwrap_or(0)).to_le_bytes())
        .collect()
}

/// Compares the words read back with the expected ones, exactly.
async fn verify_words(state: &IntState, ctx: &GpuContext) -> Outcome<Verification> {
    let got = state.dispatch.read_words(ctx).await?;
    let mut checker = Checker::new();
    for (id, (&g, want)) in got.iter().zip(&state.expected).enumerate() {
        if let Some(w) = *want {
            let (g, w) = (f64::from(g), f64::from(w));
            checker.check(g, w, w, Tolerance::EXACT, || format!("invocation {id}"));
        }
    }
    Ok(checker.finish())
}

/// What an integer or dot-product kernel's set-up made: its dispatch and the word each checked
/// invocation must write.
pub struct IntState {
    dispatch: FmaDispatch,
    expected: Vec<Option<u32>>,
}

impl IntState {
    /// `shader` over `grid`, its uniform block the two words `first, second` (the integer
    /// chains' multiplier and addend, the dot products' second operand), its output words
    /// starting as the complements of `expected` (see [`complement_init`]).
    fn new(
        ctx: &GpuContext,
        label: &str,
        shader: &SpecialisedShader,
        (first, second): (u32, u32),
        grid: &PeakGrid,
        expected: Vec<Option<u32>>,
    ) -> Self {
        let params = Params {
            first,
            second,
            _pad: [0; 2],
        };
        let dispatch = FmaDispatch::with_output(
            ctx,
            label,
            shader,
            bytemuck::bytes_of(&params),
            &[],
            &complement_init(&expected),
            grid.workgroups,
        );
        Self { dispatch, expected }
    }
}

/// Peak integer multiply-add throughput of one type and form.
pub struct IntPeak {
    ty: IntType,
    form: IntForm,
    grid: PeakGrid,
}

impl IntPeak {
    /// `form` chains of `ty` over `grid` (workgroups of 64 invocations).
    pub fn new(ty: IntType, form: IntForm, grid: PeakGrid) -> Self {
        Self { ty, form, grid }
    }

    fn id(&self) -> String {
        format!("compute/int-peak/{}-{}", self.form.name(), self.ty.name())
    }

    /// The shader its pipeline compiles.
    pub fn shader(&self) -> Result<SpecialisedShader, String> {
        Ok(chain_shader(self.ty.source()?, self.form.entry()))
    }
}

impl Kernel for IntPeak {
    type State = IntState;

    fn info(&self) -> BenchmarkInfo {
        let info = BenchmarkInfo::new(
            self.id(),
            "compute",
            MetricKind::IntThroughput,
            "integer operations per second (a multiply-add counts as 2)",
        )
        .param("kernel", "int-peak")
        .param("type", self.ty.name())
        .param("form", self.form.name())
        .param("chains_lanes_per_invocation", CHAINS);
        chain_params(info, &self.grid)
    }

    fn work(&self, _state: &IntState) -> Work {
        // A multiply-add is two operations.
        chain_work(&self.grid, 2)
    }

    fn required_features(&self) -> wgpu::Features {
        self.ty.features()
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        grid_support(ctx, &self.grid)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<IntState> {
        let shader = self.shader().map_err(gpubench_harness::BenchError::Setup)?;
        let expected: Vec<Option<u32>> = (0..invocations(&self.grid))
            .map(|id| Some(self.ty.expected_output(id, STEPS)))
            .collect();
        let params = (MAD_A, MAD_B);
        let label = self.id();
        Ok(IntState::new(
            ctx, &label, &shader, params, &self.grid, expected,
        ))
    }

    async fn run(&self, state: &mut IntState, clock: &mut SampleClock<'_>) -> Outcome {
        state.dispatch.run(clock)
    }

    async fn verify(&self, state: &mut IntState, ctx: &GpuContext) -> Outcome<Verification> {
        verify_words(state, ctx).await
    }
}

/// The signedness of a packed 8-bit dot product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DotType {
    /// `dot4I8Packed`: four signed 8-bit lanes, an i32 result.
    I8,
    /// `dot4U8Packed`: four unsigned 8-bit lanes, a u32 result.
    U8,
}

impl DotType {
    /// Both, in report order.
    pub const ALL: [DotType; 2] = [DotType::I8, DotType::U8];

    /// Name as used in ids and params.
    pub fn name(self) -> &'static str {
        match self {
            DotType::I8 => "i8",
            DotType::U8 => "u8",
        }
    }

    /// The shader's `SIGNED` pipeline constant for this type.
    fn signed(self) -> f64 {
        match self {
            DotType::I8 => 1.0,
            DotType::U8 => 0.0,
        }
    }

    /// The dot product of the four 8-bit lanes of `x` and `w`, as the shader's built-in.
    pub fn dot(self, x: u32, w: u32) -> u32 {
        let (x, w) = (x.to_le_bytes(), w.to_le_bytes());
        match self {
            DotType::I8 => {
                let d: i32 = (0..4)
                    .map(|k| i32::from(x[k] as i8) * i32::from(w[k] as i8))
                    .sum();
                d as u32
            }
            DotType::U8 => (0..4).map(|k| u32::from(x[k]) * u32::from(w[k])).sum(),
        }
    }

    /// What invocation `id` writes after `steps` steps of every chain (replayed step by step).
    pub fn expected_output(self, id: u32, steps: u32) -> u32 {
        (0..CHAINS).fold(0u32, |sum, c| {
            let mut x = id
                .wrapping_mul(0x9e37_79b9)
                .wrapping_add(c.wrapping_mul(0x85eb_ca6b));
            for _ in 0..steps {
                x = x.wrapping_add(self.dot(x, DOT_W));
            }
            sum.wrapping_add(x)
        })
    }
}

/// The invocations a grid of `n` has replayed: all of a small grid, else [`DOT_SAMPLE`] spread
/// evenly with the last, each moved on within its stride by a lane offset that steps through
/// every lane of a 64-wide workgroup where the stride is 64 or more, as on every GPU's grid (29
/// is coprime with 64). Without it a stride that is a multiple of the workgroup (768 on an
/// H200's grid) samples lane 0 of every workgroup only, and one of 480 or 1520 (an M3's, an RX
/// 7900's) two or four lanes of 64: a fault in the other lanes of a subgroup would never be read.
pub fn dot_checked(n: u32) -> Vec<u32> {
    if n <= DOT_CHECK_ALL {
        return (0..n).collect();
    }
    let stride = n / DOT_SAMPLE;
    let lanes = stride.min(64);
    let mut ids: Vec<u32> = (0..DOT_SAMPLE)
        .map(|i| i * stride + (i * 29) % lanes)
        .collect();
    ids.push(n - 1);
    ids
}

/// Peak packed 8-bit dot-product throughput of one signedness.
pub struct DotPeak {
    ty: DotType,
    grid: PeakGrid,
}

impl DotPeak {
    /// `ty` chains over `grid` (workgroups of 64 invocations).
    pub fn new(ty: DotType, grid: PeakGrid) -> Self {
        Self { ty, grid }
    }

    fn id(&self) -> String {
        format!("compute/dot-peak/packed-{}", self.ty.name())
    }

    /// The shader its pipeline compiles.
    pub fn shader(&self) -> SpecialisedShader {
        let mut shader = chain_shader(crate::compute::DOT_WGSL.to_string(), "dot_peak");
        shader.constants.push(("SIGNED", self.ty.signed()));
        shader
    }
}

impl Kernel for DotPeak {
    type State = IntState;

    fn info(&self) -> BenchmarkInfo {
        let n = invocations(&self.grid);
        let info = BenchmarkInfo::new(
            self.id(),
            "compute",
            MetricKind::IntThroughput,
            "integer operations per second (a 4-lane 8-bit dot product with its accumulate counts as 8)",
        )
        .param("kernel", "dot-peak")
        .param("type", self.ty.name())
        .param("form", "packed")
        .param("chains_per_invocation", CHAINS)
        .param("invocations_checked", dot_checked(n).len());
        chain_params(info, &self.grid)
    }

    fn work(&self, _state: &IntState) -> Work {
        // Four products and four additions per step.
        chain_work(&self.grid, 8)
    }

    fn check_support(&self, ctx: &GpuContext) -> Result<(), String> {
        grid_support(ctx, &self.grid)
    }

    async fn setup(&self, ctx: &GpuContext) -> Outcome<IntState> {
        let n = invocations(&self.grid);
        let mut expected = vec![None; n as usize];
        for id in dot_checked(n) {
            expected[id as usize] = Some(self.ty.expected_output(id, STEPS));
        }
        let (label, shader) = (self.id(), self.shader());
        Ok(IntState::new(
            ctx,
            &label,
            &shader,
            (DOT_W, 0),
            &self.grid,
            expected,
        ))
    }

    async fn run(&self, state: &mut IntState, clock: &mut SampleClock<'_>) -> Outcome {
        state.dispatch.run(clock)
    }

    async fn verify(&self, state: &mut IntState, ctx: &GpuContext) -> Outcome<Verification> {
        verify_words(state, ctx).await
    }
}

/// A number type no WGSL kernel can compute in: a row that is skipped on every adapter, with
/// the reason, so a user comparing with a peer that reports it sees why it is missing.
pub struct Inexpressible {
    /// The row's id.
    pub id: &'static str,
    /// The type's name (`bf16`).
    pub ty: &'static str,
    /// Why no kernel exists.
    pub reason: &'static str,
}

/// bf16: WGSL has no such type, and wgpu 30 no extension for one.
pub const BF16: Inexpressible = Inexpressible {
    id: "compute/fma-peak/vec4-bf16",
    ty: "bf16",
    reason: "WGSL has no bf16 type and wgpu 30 offers no extension for one (vkpeak reaches it through GL_EXT_bfloat16 in GLSL)",
};

impl Kernel for Inexpressible {
    type State = ();

    fn info(&self) -> BenchmarkInfo {
        BenchmarkInfo::new(
            self.id,
            "compute",
            MetricKind::Throughput,
            "floating-point operations per second (an FMA counts as 2)",
        )
        .param("kernel", "fma-peak")
        .param("precision", self.ty)
    }

    fn check_support(&self, _ctx: &GpuContext) -> Result<(), String> {
        Err(self.reason.to_string())
    }

    async fn setup(&self, _ctx: &GpuContext) -> Outcome<()> {
        Err(gpubench_harness::BenchError::Unsupported(
            self.reason.to_string(),
        ))
    }

    fn work(&self, _state: &()) -> Work {
        Work::flops(0)
    }

    async fn run(&self, _state: &mut (), _clock: &mut SampleClock<'_>) -> Outcome {
        Err(gpubench_harness::BenchError::Unsupported(
            self.reason.to_string(),
        ))
    }

    async fn verify(&self, _state: &mut (), _ctx: &GpuContext) -> Outcome<Verification> {
        Err(gpubench_harness::BenchError::Unsupported(
            self.reason.to_string(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_harness::kit::fma::UNROLL;

    /// Steps every chain one multiply-add at a time, in `ty`'s width.
    fn replay_mad(ty: IntType, id: u32, steps: u32) -> u32 {
        let mask = ty.mask();
        let (a, b) = (u64::from(MAD_A) & mask, u64::from(MAD_B) & mask);
        let sum = (0..CHAINS).fold(0u64, |sum, c| {
            let mut x = ty.start(id, c);
            for _ in 0..steps {
                x = x.wrapping_mul(a).wrapping_add(b) & mask;
            }
            sum.wrapping_add(x) & mask
        });
        low_bits(sum)
    }

    #[test]
    fn the_closed_form_is_the_step_by_step_chain_in_every_width() {
        for ty in IntType::ALL {
            for id in [0, 1, 63, 64, 4095, 1 << 20, u32::MAX] {
                for steps in [0, 1, 2, 3, 16, 1000, STEPS] {
                    assert_eq!(
                        ty.expected_output(id, steps),
                        replay_mad(ty, id, steps),
                        "{} id {id} steps {steps}",
                        ty.name()
                    );
                }
            }
        }
    }

    #[test]
    fn a_skipped_step_or_a_lost_high_half_changes_the_answer() {
        for ty in IntType::ALL {
            let want = ty.expected_output(77, STEPS);
            assert_ne!(want, ty.expected_output(77, STEPS - 1), "{}", ty.name());
        }
        // 64-bit chains keep bits a 32-bit product would drop: the low 32 bits differ.
        assert_ne!(
            IntType::I64.expected_output(5, STEPS),
            IntType::U32.expected_output(5, STEPS)
        );
    }

    #[test]
    fn the_dot_products_match_their_definition() {
        // 3, -3, 5, 127 against bytes 1, 2, 255 (-1), 128 (-128).
        let x = u32::from_le_bytes([1, 2, 255, 128]);
        assert_eq!(DotType::I8.dot(x, DOT_W) as i32, 3 - 6 - 5 - 127 * 128);
        assert_eq!(DotType::U8.dot(x, DOT_W), 3 + 2 * 253 + 255 * 5 + 128 * 127);
        // A chain moves: no fixed point at the start of these invocations.
        for ty in DotType::ALL {
            assert_ne!(ty.expected_output(9, 1), ty.expected_output(9, 0));
        }
    }

    #[test]
    fn a_large_grid_is_sampled_from_end_to_end() {
        assert_eq!(dot_checked(100), (0..100).collect::<Vec<_>>());
        let ids = dot_checked(3_000_000);
        assert_eq!(ids.len() as u32, DOT_SAMPLE + 1);
        assert_eq!(ids.first(), Some(&0));
        assert_eq!(ids.last(), Some(&2_999_999));
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        // Every lane of a 64-wide workgroup is read, whatever the stride of 64 or more (an
        // H200's grid, an M3's, an RX 7900's, the smallest with that stride).
        for n in [3_145_728, 1_966_080, 6_225_920, 64 * DOT_SAMPLE] {
            let ids = dot_checked(n);
            let mut lanes: Vec<u32> = ids.iter().map(|id| id % 64).collect();
            lanes.sort_unstable();
            lanes.dedup();
            assert_eq!(lanes.len(), 64, "grid of {n}");
            assert!(ids.windows(2).all(|w| w[0] < w[1]) && ids.last() == Some(&(n - 1)));
        }
    }

    #[test]
    fn every_type_rewrites_the_shader_and_the_unroll_matches() {
        for ty in IntType::ALL {
            let source = ty.source().expect("source");
            let (alias, low_bits) = ty.declarations();
            assert!(source.contains(alias) && source.contains(low_bits));
            assert_eq!(source.contains("enable wgpu_int16;"), ty == IntType::I16);
        }
        let (int, dot) = (crate::compute::INT_WGSL, crate::compute::DOT_WGSL);
        for (source, call) in [
            (int, "x = step_scalar(x, a, b);"),
            (int, "x = step_vec4(x, a, b);"),
            (dot, "x = advance(x, w);"),
        ] {
            assert_eq!(source.matches(call).count(), UNROLL as usize, "{call}");
        }
        assert!(dot.contains("0x9e3779b9u") && dot.contains("0x85ebca6bu"));
    }
}
