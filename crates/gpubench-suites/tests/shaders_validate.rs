//! Every WGSL shader a suite declares (a file of the kit's shaders/ or of its folder, or files
//! composed: matmul's params.wgsl ahead of each of its kernels) parses and validates with naga,
//! on the CPU, without an adapter. Walking the folders (not only the declared list) catches a
//! shader that was added but never declared by its suite. The forms the suites compile (f16 by alias rewriting, `override`
//! constants set per pipeline, the generated unrolled matmul kernels) are validated as well,
//! each as its pipeline sees it.

use std::collections::BTreeSet;
use std::path::Path;

use gpubench_harness::Kernel;
use gpubench_harness::kit::fma::grid::PeakGrid;
use gpubench_harness::kit::gpu::{Precision, SpecialisedShader};
use gpubench_suites::compute::PeakKernels;
use gpubench_suites::matmul::{Kind, VARIANTS, catalogue, coop_space, gemv, tiled, unrolled};
use gpubench_suites::roofline::{FMAS_SWEEP, RooflinePoint};
use gpubench_suites::stream::KERNELS;

fn validate(name: &str, source: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    if let Err(e) = validator.validate(&module) {
        panic!("{name} does not validate:\n{}", e.emit_to_string(source));
    }
    module
}

/// Whether `module` has a compute entry point called `entry`.
fn has_entry(module: &naga::Module, entry: &str) -> bool {
    module.entry_points.iter().any(|e| e.name == entry)
}

/// Every `.wgsl` file under `dir`, recursively: (file name, source).
fn wgsl_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            // The example suite's folder is compiled in with its feature only.
            if !cfg!(feature = "example-suite") && path.ends_with("example") {
                continue;
            }
            wgsl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .to_string();
            let source = std::fs::read_to_string(&path).expect("readable shader");
            out.push((name, source));
        }
    }
}

/// Every WGSL file of the kit (`shaders/`) and of every suite's folder is one a suite declares
/// through its `shaders`, or a part every declared shader that uses it is composed with (a
/// shared prelude such as matmul's params.wgsl, whose name no suite declares), and every declared
/// shader validates as declared: a file added to a folder but never declared fails here, and so
/// does a declared one that is not on disk or whose declared source is not built from it.
#[test]
fn every_shader_file_is_declared_and_validates_as_declared() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    wgsl_files(&root.join("../../shaders"), &mut files);
    wgsl_files(&root.join("src"), &mut files);
    assert!(!files.is_empty(), "no shaders found");
    let declared = gpubench_suites::REGISTRY.shaders();
    for (_, name, source) in &declared {
        validate(name, source);
    }
    let names: BTreeSet<&str> = declared.iter().map(|&(_, name, _)| name).collect();
    for (name, text) in &files {
        let built_from = |source: &str| source.contains(text.as_str());
        let used = if names.contains(name.as_str()) {
            declared
                .iter()
                .any(|&(_, n, source)| n == name && built_from(source))
        } else {
            declared.iter().any(|&(_, _, source)| built_from(source))
        };
        assert!(
            used,
            "{name}: every suite's shaders() must list exactly the WGSL files in its folder, \
             each declared source built from its file (a shared part within them)"
        );
    }
    for name in names {
        assert!(
            files.iter().any(|(file, _)| file == name),
            "{name} is declared but not on disk"
        );
    }
}

/// Every pipeline every suite declares, on a GPU's facts and a CPU's, and on the facts of GPUs
/// with cooperative matrices (RDNA 3's 16 x 16, an Apple GPU's 8 x 8 on Metal), validates as
/// its pipeline compiles it.
#[test]
fn every_declared_pipeline_validates_as_compiled() {
    use gpubench_harness::kit::facts::{AdapterFacts, CoopMatrices, VENDOR_AMD, VENDOR_APPLE};
    let gpu = AdapterFacts::vulkan_gpu(64, 1024, 65536);
    let cpu = AdapterFacts {
        cpu: true,
        subgroup_max: 8,
        ..gpu
    };
    let rdna3 = AdapterFacts {
        vendor: VENDOR_AMD,
        coop: CoopMatrices::NONE
            .with(16, Precision::F16, Precision::F16)
            .with(16, Precision::F16, Precision::F32),
        ..gpu
    };
    let apple = AdapterFacts {
        vendor: VENDOR_APPLE,
        backend: wgpu::Backend::Metal,
        max_workgroup_bytes: 32768,
        coop: CoopMatrices::NONE
            .with(8, Precision::F16, Precision::F32)
            .with(8, Precision::F32, Precision::F32),
        ..gpu
    };
    for facts in [gpu, cpu, rdna3, apple] {
        let forms = gpubench_suites::REGISTRY
            .pipelines(facts, gpubench_harness::Profile::Default)
            .expect("forms");
        let suites: BTreeSet<&str> = forms.iter().map(|f| f.suite).collect();
        assert!(suites.len() >= 7, "{suites:?}");
        let coop = forms
            .iter()
            .filter(|f| f.shader.source.contains("wgpu_cooperative_matrix"))
            .count();
        assert_eq!(
            coop > 0,
            !facts.coop.is_empty(),
            "{facts:?}: {coop} coop forms"
        );
        for form in &forms {
            validate_specialised(&form.pipeline, &form.shader);
        }
    }
}

#[test]
fn a_broken_shader_is_caught() {
    let result = std::panic::catch_unwind(|| {
        validate(
            "bad.wgsl",
            "@compute @workgroup_size(1) fn main() { let x: f32 = 1u; }",
        )
    });
    assert!(result.is_err(), "a type error must fail validation");
}

/// Validates `shader` as the pipeline compiles it: the source as given, then with its pipeline
/// constants substituted for the `override` declarations (naga's own override processing, which
/// also rejects a constant the shader does not declare) for its entry point, and checks that
/// every constant took its value and no override is left in the entry point.
fn validate_specialised(name: &str, shader: &SpecialisedShader) {
    let source = &shader.source;
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    let info = validator
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name} does not validate:\n{}", e.emit_to_string(source)));
    let constants: naga::back::PipelineConstants = shader
        .constants
        .iter()
        .map(|&(key, value)| (key.to_string(), value))
        .collect();
    let entry = Some((naga::ShaderStage::Compute, shader.entry.as_str()));
    let (specialised, _) =
        naga::back::pipeline_constants::process_overrides(&module, &info, entry, &constants)
            .unwrap_or_else(|e| panic!("{name} with {:?}: {e}", shader.constants));
    for &(key, value) in &shader.constants {
        let set = specialised.constants.iter().any(|(_, c)| {
            c.name.as_deref() == Some(key)
                && match specialised.global_expressions[c.init] {
                    naga::Expression::Literal(naga::Literal::U32(v)) => f64::from(v) == value,
                    naga::Expression::Literal(naga::Literal::Bool(b)) => b == (value != 0.0),
                    _ => false,
                }
        });
        assert!(set, "{name}: {key} did not become {value}");
    }
    for entry in &specialised.entry_points {
        let left = entry.function.expressions.iter();
        assert!(
            !left
                .into_iter()
                .any(|(_, e)| matches!(e, naga::Expression::Override(_))),
            "{name}: {} still reads an override",
            entry.name
        );
    }
    assert!(
        specialised
            .entry_points
            .iter()
            .any(|e| e.name == shader.entry),
        "{name}: no entry point {}",
        shader.entry
    );
}

#[test]
fn every_specialised_fma_shader_validates() {
    // Every number type of the compute suite: f32, f16, f64, the integers, the dot products.
    let shaders = PeakKernels::new(&PeakGrid::fixed(1))
        .shaders()
        .expect("the peak shaders specialise");
    assert!(shaders.len() >= 18, "{} compute pipelines", shaders.len());
    for (id, shader) in &shaders {
        validate_specialised(id, shader);
    }
    for fmas in FMAS_SWEEP {
        let point = RooflinePoint::new(fmas, 1 << 20, 1);
        validate_specialised(&point.info().id, &point.shader());
    }
}

/// Every stream kernel's entry points (one walk, and `repeats` walks per dispatch), in the
/// shader its pipeline compiles as written, with the walks per dispatch in its uniform (`repeats`, the fourth u32 of `Params`, as the kernels'
/// own `Params` lays it out).
#[test]
fn every_stream_entry_point_validates_and_reads_its_repeats() {
    let module = validate("stream.wgsl", gpubench_suites::stream::source());
    for spec in &KERNELS {
        for entry in [spec.entry, spec.repeated_entry] {
            assert!(has_entry(&module, entry), "stream.wgsl: no {entry}");
        }
    }
    let params = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("Params"))
        .expect("stream.wgsl declares Params");
    let naga::TypeInner::Struct { members, span } = &params.1.inner else {
        panic!("Params is a struct");
    };
    let names: Vec<_> = members.iter().filter_map(|m| m.name.as_deref()).collect();
    assert_eq!(names, ["n", "scalar", "threads", "repeats"]);
    assert_eq!(*span, 16);
}

#[test]
fn a_constant_the_shader_does_not_declare_is_caught() {
    let mut shader = RooflinePoint::new(4, 1 << 20, 1).shader();
    shader.constants.push(("NOT_DECLARED", 1.0));
    let result = std::panic::catch_unwind(|| validate_specialised("roofline.wgsl", &shader));
    assert!(result.is_err(), "an unknown pipeline constant must fail");
}

/// Every matmul variant's shaders (the fixed table and every generated member of the tiled,
/// small-M and cooperative-matrix families the tuner can pick), in each precision it runs in,
/// as its pipelines compile them (every pipeline constant an `override` of the shader that
/// takes its value). The small-M kernel is generated per row block, so each block size M can
/// give is validated.
#[test]
fn every_matmul_variant_validates() {
    let mut generated = 0;
    for variant in catalogue() {
        for precision in [Precision::F32, Precision::F16] {
            if !variant.applies_to(precision) {
                continue;
            }
            let rows: &[u32] = match variant.kind {
                Kind::Gemv(_) => &[1, 2, 3, 8, 63],
                _ => &[64],
            };
            for &m in rows {
                let shaders = variant.shaders(precision, m).expect("specialises");
                for (i, shader) in shaders.iter().enumerate() {
                    let name = format!("{} {} m={m} pass {i}", variant.name, precision.name());
                    validate_specialised(&name, shader);
                    generated += 1;
                }
            }
        }
    }
    let families = catalogue()
        .iter()
        .filter(|v| matches!(v.kind, Kind::Family(_) | Kind::Gemv(_) | Kind::Coop(_)))
        .count();
    assert_eq!(
        families,
        2 * (tiled::TileParams::space().len() + gemv_space_len() + coop_space().len()),
        "each generated kernel in both accumulations"
    );
    assert!(generated > families, "{generated} shaders validated");
}

/// The emulated twin of every cooperative-matrix configuration validates too, and uses no
/// matrix type.
#[test]
fn every_emulated_cooperative_matrix_twin_validates() {
    for p in coop_space() {
        for (data, sums) in [
            (Precision::F32, Precision::F32),
            (Precision::F16, Precision::F16),
            (Precision::F16, Precision::F32),
        ] {
            let source = gpubench_suites::matmul::coop::source(p.emulated(), data, sums);
            assert!(!source.contains("coop_mat"));
            validate(&format!("{} emulated", p.label()), &source);
        }
    }
}

fn gemv_space_len() -> usize {
    gpubench_suites::matmul::gemv_space().len()
}

/// The split-K reduction for each split count, and the small-M kernel's subgroup form really
/// uses subgroup operations (and the other form none).
#[test]
fn the_small_m_forms_validate_and_differ_in_their_reduction() {
    for ks in [2, 8] {
        for (data, sums) in [
            (Precision::F32, Precision::F32),
            (Precision::F16, Precision::F16),
            (Precision::F16, Precision::F32),
        ] {
            validate(
                &format!("reduce ks={ks}"),
                &gemv::reduce_source(ks, data, sums),
            );
        }
    }
    for subgroups in [false, true] {
        let p = gemv::GemvParams {
            x: 4,
            cv: 2,
            wg: 64,
            ks: 1,
            subgroups,
        };
        let source = gemv::source(p, 8, Precision::F16, Precision::F16);
        validate(&p.label(), &source);
        assert_eq!(
            source.contains("subgroupShuffleXor"),
            subgroups,
            "{}",
            p.label()
        );
    }
}

/// Every unrolled block the variant table names, generated in f32, in f16 and in f16 with f32
/// sums, whether or not the table runs that form.
#[test]
fn every_generated_unrolled_block_validates() {
    let blocks: BTreeSet<(u32, u32)> = VARIANTS
        .iter()
        .filter_map(|v| match v.kind {
            Kind::Unrolled { tm, tn } => Some((tm, tn)),
            _ => None,
        })
        .collect();
    assert!(!blocks.is_empty(), "the table names unrolled blocks");
    let forms = [
        (Precision::F32, Precision::F32),
        (Precision::F16, Precision::F16),
        (Precision::F16, Precision::F32),
    ];
    for (tm, tn) in blocks {
        for (data, sums) in forms {
            let name = format!("unrolled {tm}x{tn} {} {}", data.name(), sums.name());
            let module = validate(&name, &unrolled::source(tm, tn, data, sums));
            assert!(has_entry(&module, &unrolled::entry_point(tm, tn)), "{name}");
        }
    }
}

/// Every declared pipeline that calls a subgroup built-in reaches a WebGPU compiler with
/// `enable subgroups;` (Tint rejects it without), and its native form, which naga compiles,
/// never carries the line (naga 30 refuses it); the other pipelines reach it unchanged.
#[test]
fn the_webgpu_form_enables_subgroups_where_a_kernel_uses_them() {
    let gpu = gpubench_harness::kit::facts::AdapterFacts::vulkan_gpu(64, 1024, 65536);
    let forms = gpubench_suites::REGISTRY
        .pipelines(gpu, gpubench_harness::Profile::Default)
        .expect("forms");
    let mut with_subgroups = 0;
    for form in &forms {
        let native = &form.shader.source;
        let web = form.shader.for_webgpu();
        assert!(!native.contains("enable subgroups"), "{}", form.pipeline);
        if native.contains("subgroupShuffleXor") {
            with_subgroups += 1;
            assert_eq!(
                web.source,
                format!("enable subgroups;\n{native}"),
                "{}",
                form.pipeline
            );
            validate_specialised(&form.pipeline, &form.shader);
        } else {
            assert_eq!(&web.source, native, "{}", form.pipeline);
        }
    }
    assert!(with_subgroups > 0, "no declared pipeline uses subgroups");
}
