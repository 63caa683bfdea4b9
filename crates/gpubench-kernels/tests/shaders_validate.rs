//! Every WGSL file in shaders/ parses and validates with naga, on the CPU, without an adapter.
//! Walking the directory (not only the embedded list) catches a shader that was added but never
//! registered in shaders.rs. The matmul shaders are also checked as their pipelines get them:
//! every variant specialised to each precision it runs in, and every generated unrolled kernel.

use std::collections::BTreeSet;
use std::path::Path;

use gpubench_kernels::gpu::Precision;
use gpubench_kernels::matmul::{Kind, VARIANTS, unrolled};

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

#[test]
fn every_shader_file_parses_and_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders");
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .to_string();
            let source = std::fs::read_to_string(&path).expect("readable shader");
            validate(&name, &source);
            on_disk.insert(name);
        }
    }
    assert!(!on_disk.is_empty(), "no shaders found in {}", dir.display());
    let embedded: BTreeSet<String> = gpubench_kernels::shaders::ALL
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    assert_eq!(
        on_disk, embedded,
        "shaders.rs must list exactly the files in shaders/"
    );
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

/// Every matmul variant's shader, in each precision it runs in, with its entry point and an
/// `override` for every pipeline constant it is given (wgpu refuses unknown names).
#[test]
fn every_matmul_variant_validates() {
    for variant in VARIANTS {
        for precision in [Precision::F32, Precision::F16] {
            if !variant.applies_to(precision) {
                continue;
            }
            let name = format!("{} {}", variant.name, precision.name());
            let shader = variant.shader(precision).expect("specialises");
            let module = validate(&name, &shader.wgsl);
            assert!(
                has_entry(&module, &shader.entry),
                "{name}: no {}",
                shader.entry
            );
            for (constant, _) in &shader.constants {
                assert!(
                    module
                        .overrides
                        .iter()
                        .any(|(_, o)| o.name.as_deref() == Some(*constant)),
                    "{name}: no override {constant}"
                );
            }
        }
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
