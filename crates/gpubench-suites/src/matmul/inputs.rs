//! A product's inputs and CPU reference, made once per shape, precision and seed and shared by
//! every candidate the tuner measures and by the chosen kernel.
//!
//! Autotuning measures tens to hundreds of candidates of one product. Before this was shared,
//! each candidate generated the same seeded A and B again, copied them three times on the host
//! (padding, conversion, upload) and recomputed the f64 reference: at 8 x 4096 x 4096 that is
//! 134 million multiply-adds walking B by columns, about a second per candidate on a 2-core host,
//! and over a hundred such candidates on a GPU. Now A and B are generated and uploaded once (per device),
//! the reference is computed once, row by row when every element is checked (B read in order,
//! the same summation order as element by element, so the same values), and a candidate's
//! check reads back the checked elements of C (see [`super::readback`]) and compares.
//!
//! Sharing the device buffers is safe because every kernel binds A and B read-only; each
//! candidate gets its own C, filled with NaN on the GPU from a small NaN block uploaded once
//! per device (not a host array of C's size per candidate: 64 MiB at 4096 x 4096 f32), so an
//! element a kernel did not write cannot pass.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use gpubench_harness::{BenchError, GpuContext};
use gpubench_results::rng::SplitMix64;
use half::f16;

use super::readback::ReadPlan;
use super::reference::{MatrixRef, elements_to_check, reference_element};
use super::shape::Shape;
use gpubench_harness::kit::gpu::{Precision, ShaderChecks, SpecialisedShader, filled_buffer};

/// The largest NaN block C is filled from: 16 copies fill a 4096 x 4096 f32 C.
const NAN_BLOCK_BYTES: u64 = 4 << 20;

/// A and B on the host, rounded to the product's precision and held as f32 (exactly).
pub struct HostInputs {
    /// A, M rows of `lda` elements (the columns past K zero).
    pub a: Vec<f32>,
    /// B, K rows of `ldb` elements (the columns past N zero).
    pub b: Vec<f32>,
}

/// The elements a check compares and their f64 reference values.
pub struct Reference {
    /// (row, column) of each checked element of C.
    pub picks: Vec<(usize, usize)>,
    /// For each pick, the exact (f64) value and the sum of the magnitudes of its terms.
    pub wants: Vec<(f64, f64)>,
    /// Root mean square of the wanted values (the scale of the tolerance's floor).
    pub rms: f64,
}

/// A and B uploaded to one device, with the product's dimensions as a uniform.
#[derive(Clone)]
pub struct DeviceInputs {
    /// The uniform: M, N, K and the leading dimensions.
    pub params: wgpu::Buffer,
    /// A in the product's precision.
    pub a: wgpu::Buffer,
    /// B in the product's precision, with zero rows up to `lda` (the vec4 kernels read them).
    pub b: wgpu::Buffer,
    /// NaN in the product's precision, at most [`NAN_BLOCK_BYTES`] and a whole number of
    /// elements: each candidate's C is filled with copies of it on the GPU.
    pub nan_block: wgpu::Buffer,
}

/// One product's inputs and reference, each made on first use.
pub struct ProductInputs {
    shape: Shape,
    precision: Precision,
    seed: u64,
    host: OnceLock<HostInputs>,
    reference: OnceLock<Reference>,
    read_plan: OnceLock<ReadPlan>,
    device: Mutex<Option<(wgpu::Device, DeviceInputs)>>,
    pipelines: Mutex<Vec<CachedPipeline>>,
}

/// A pipeline built for one of the product's kernels, kept for the final rounds and the chosen
/// kernel's own run (the same shader, constants, device and runtime checks).
struct CachedPipeline {
    shader: SpecialisedShader,
    checks: ShaderChecks,
    device: wgpu::Device,
    pipeline: wgpu::ComputePipeline,
}

/// The uniform every matmul kernel reads, laid out as `Params` in `params.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    m: u32,
    n: u32,
    k: u32,
    lda: u32,
    ldb: u32,
    ldc: u32,
    _pad: [u32; 2],
}

impl ProductInputs {
    /// The inputs of `shape` in `precision` from `seed`, shared through the `Arc`.
    pub fn new(shape: Shape, precision: Precision, seed: u64) -> Arc<Self> {
        Arc::new(Self {
            shape,
            precision,
            seed,
            host: OnceLock::new(),
            reference: OnceLock::new(),
            read_plan: OnceLock::new(),
            device: Mutex::new(None),
            pipelines: Mutex::new(Vec::new()),
        })
    }

    /// The shape these inputs are for.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The precision of A, B and C.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The seed A and B (and the sampled elements) come from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A and B on the host, generated on first use.
    pub fn host(&self) -> &HostInputs {
        self.host.get_or_init(|| {
            let s = self.shape;
            let mut rng = SplitMix64::new(self.seed);
            let a = random_matrix(&mut rng, s.m, s.lda(), s.k, self.precision);
            let b = random_matrix(&mut rng, s.k, s.ldb(), s.n, self.precision);
            HostInputs { a, b }
        })
    }

    /// The spans of C a check reads back (the words holding the checked elements), planned on
    /// first use.
    pub fn read_plan(&self) -> &ReadPlan {
        self.read_plan.get_or_init(|| {
            let picks = &self.reference().picks;
            ReadPlan::new(picks, self.shape.ldb() as usize, self.precision)
        })
    }

    /// The checked elements and their reference values, computed on first use.
    pub fn reference(&self) -> &Reference {
        self.reference.get_or_init(|| {
            let s = self.shape;
            let host = self.host();
            compute_reference(
                matrix(&host.a, s.m, s.k, s.lda()),
                matrix(&host.b, s.k, s.n, s.ldb()),
                elements_to_check(s.m as usize, s.n as usize, self.seed),
            )
        })
    }

    /// A and B on `ctx`'s device, uploaded on first use there (again only for another device).
    pub fn device(&self, ctx: &GpuContext) -> Result<DeviceInputs, BenchError> {
        let mut held = self.device.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((device, inputs)) = held.as_ref()
            && *device == ctx.device
        {
            return Ok(inputs.clone());
        }
        let inputs = self.upload(ctx)?;
        *held = Some((ctx.device.clone(), inputs.clone()));
        Ok(inputs)
    }

    /// The pipeline of `shader` on `ctx`, built on first use: a finalist measured again, and the
    /// chosen kernel's own run, reuse what tuning compiled (on a CPU adapter a compile is most
    /// of a candidate's cost).
    pub fn pipeline(
        &self,
        ctx: &GpuContext,
        shader: &SpecialisedShader,
        label: &str,
    ) -> wgpu::ComputePipeline {
        let checks = ctx.shader_checks();
        let mut cache = self
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let hit = cache
            .iter()
            .find(|c| c.checks == checks && c.device == ctx.device && c.shader == *shader);
        if let Some(cached) = hit {
            ctx.count_pipeline_built();
            return cached.pipeline.clone();
        }
        // Every matmul kernel writes each workgroup element it reads within the same K-step
        // or reduction (staged blocks zero past the edges are written, not assumed), so
        // wgpu's zeroing would only add stores and a barrier to every workgroup.
        let pipeline = shader.pipeline_unzeroed(ctx, label);
        cache.push(CachedPipeline {
            shader: shader.clone(),
            checks,
            device: ctx.device.clone(),
            pipeline: pipeline.clone(),
        });
        pipeline
    }

    fn upload(&self, ctx: &GpuContext) -> Result<DeviceInputs, BenchError> {
        let s = self.shape;
        let params = Params {
            m: s.m,
            n: s.n,
            k: s.k,
            lda: s.lda(),
            ldb: s.ldb(),
            ldc: s.ldb(),
            _pad: [0; 2],
        };
        let host = self.host();
        // B has lda rows on the device: the rows past K are the zero padding the vec4 kernels
        // read.
        let mut b_bytes = to_bytes(&host.b, self.precision);
        let padding = (s.lda() - s.k) as usize * s.ldb() as usize;
        b_bytes.resize(b_bytes.len() + padding * self.precision.bytes() as usize, 0);
        let storage = wgpu::BufferUsages::STORAGE;
        // C's size in bytes is a multiple of 8 (rows of a multiple of 4 elements), so the block
        // is a whole number of NaNs and of 4-byte words, as copies need.
        let nan_bytes = NAN_BLOCK_BYTES.min(s.c_len() * self.precision.bytes());
        let nan = to_bytes(&[f32::NAN, f32::NAN], self.precision);
        Ok(DeviceInputs {
            params: ctx.buffer_with_data(
                "matmul params",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::UNIFORM,
            ),
            a: ctx.buffer_with_data("matmul a", &to_bytes(&host.a, self.precision), storage),
            b: ctx.buffer_with_data("matmul b", &b_bytes, storage),
            nan_block: filled_buffer(
                ctx,
                "matmul nan block",
                nan_bytes,
                &nan,
                wgpu::BufferUsages::COPY_SRC,
            )?,
        })
    }
}

fn matrix(data: &[f32], rows: u32, cols: u32, ld: u32) -> MatrixRef<'_> {
    MatrixRef {
        data,
        rows: rows as usize,
        cols: cols as usize,
        ld: ld as usize,
    }
}

/// The reference values of `picks`, each an f64 dot product of K terms, computed on the host's
/// threads: a 4096 x 4096 x 4096 product's 65,536 checks walk B's columns, about 3.5 s on one
/// core. Where threads cannot be had (one core, the browser), on this one.
fn sampled_reference(
    a: MatrixRef<'_>,
    b: MatrixRef<'_>,
    picks: &[(usize, usize)],
) -> Vec<(f64, f64)> {
    let one = |part: &[(usize, usize)]| -> Vec<(f64, f64)> {
        part.iter()
            .map(|&(i, j)| reference_element(a, b, i, j))
            .collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads <= 1 || picks.len() < 1024 {
        return one(picks);
    }
    let chunk = picks.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = picks
            .chunks(chunk)
            .map(|part| scope.spawn(move || one(part)))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| {
                part.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The reference values of `picks` of A x B. Where the picks are every element (small
/// products), whole rows are accumulated at once, reading B row by row; the terms of each
/// element are still added in order of k, so the values are those [`reference_element`] gives.
pub fn compute_reference(
    a: MatrixRef<'_>,
    b: MatrixRef<'_>,
    picks: Vec<(usize, usize)>,
) -> Reference {
    let every = picks.len() == a.rows * b.cols;
    let wants: Vec<(f64, f64)> = if every {
        let mut wants = Vec::with_capacity(picks.len());
        let mut sums = vec![0.0f64; b.cols];
        let mut magnitudes = vec![0.0f64; b.cols];
        for i in 0..a.rows {
            sums.fill(0.0);
            magnitudes.fill(0.0);
            for k in 0..a.cols {
                let x = a.at(i, k);
                let row = &b.data[k * b.ld..k * b.ld + b.cols];
                for ((sum, magnitude), &y) in sums.iter_mut().zip(&mut magnitudes).zip(row) {
                    let term = x * f64::from(y);
                    *sum += term;
                    *magnitude += term.abs();
                }
            }
            wants.extend(sums.iter().copied().zip(magnitudes.iter().copied()));
        }
        wants
    } else {
        sampled_reference(a, b, &picks)
    };
    let rms = (wants.iter().map(|(w, _)| w * w).sum::<f64>() / wants.len().max(1) as f64).sqrt();
    Reference { picks, wants, rms }
}

/// `rows` x `ld` zero-mean random values in [-1, 1), rounded to `precision` (held as f32,
/// exactly), with the padding columns (index within a row >= `cols`) zero.
fn random_matrix(
    rng: &mut SplitMix64,
    rows: u32,
    ld: u32,
    cols: u32,
    precision: Precision,
) -> Vec<f32> {
    let mut out = vec![0.0f32; rows as usize * ld as usize];
    for r in 0..rows as usize {
        for c in 0..cols as usize {
            let v = rng.next_unit_f32() * 2.0 - 1.0;
            out[r * ld as usize + c] = match precision {
                Precision::F32 => v,
                Precision::F16 => f16::from_f32(v).to_f32(),
            };
        }
    }
    out
}

/// `values` in `precision`'s little-endian bytes.
pub fn to_bytes(values: &[f32], precision: Precision) -> Vec<u8> {
    match precision {
        Precision::F32 => bytemuck::cast_slice(values).to_vec(),
        Precision::F16 => {
            let halves: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
            bytemuck::cast_slice(&halves).to_vec()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_row_reference_equals_the_element_by_element_one_bit_for_bit() {
        // 5 x 7 times 7 x 6 with padded leading dimensions: every element is checked.
        let shape = Shape::new(5, 6, 7);
        let inputs = ProductInputs::new(shape, Precision::F16, 3);
        let host = inputs.host();
        let a = matrix(&host.a, 5, 7, shape.lda());
        let b = matrix(&host.b, 7, 6, shape.ldb());
        let reference = inputs.reference();
        assert_eq!(reference.picks.len(), 30);
        for (&(i, j), &want) in reference.picks.iter().zip(&reference.wants) {
            let one = reference_element(a, b, i, j);
            assert_eq!(want.0.to_bits(), one.0.to_bits(), "C[{i}][{j}]");
            assert_eq!(want.1.to_bits(), one.1.to_bits(), "C[{i}][{j}]");
        }
        assert!(reference.rms > 0.0);
        // Sampled products take the element-by-element path over the sampled picks.
        let picks = vec![(0, 0), (4, 5)];
        let sampled = compute_reference(a, b, picks.clone());
        assert_eq!(sampled.wants[1], reference_element(a, b, 4, 5));
        assert_eq!(sampled.picks, picks);
    }

    #[test]
    fn inputs_are_made_once_and_repeat_with_the_seed() {
        let shape = Shape::new(3, 5, 9);
        let one = ProductInputs::new(shape, Precision::F32, 11);
        let first = one.host().a.as_ptr();
        assert_eq!(one.host().a.as_ptr(), first, "generated once");
        let again = ProductInputs::new(shape, Precision::F32, 11);
        assert_eq!(one.host().a, again.host().a);
        assert_eq!(one.host().b, again.host().b);
        let other = ProductInputs::new(shape, Precision::F32, 12);
        assert_ne!(one.host().a, other.host().a);
        // Padding columns (K = 9 in rows of 12, N = 5 in rows of 8) are zero.
        let a = &one.host().a;
        assert_eq!(a.len(), 3 * 12);
        assert!((9..12).all(|c| a[c] == 0.0));
        assert!((5..8).all(|c| one.host().b[c] == 0.0));
    }
}
