//! Every WGSL file in shaders/ parses and validates with naga, on the CPU, without an adapter.
//! Walking the directory (not only the embedded list) catches a shader that was added but never
//! registered in shaders.rs.

use std::collections::BTreeSet;
use std::path::Path;

fn validate(name: &str, source: &str) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    if let Err(e) = validator.validate(&module) {
        panic!("{name} does not validate:\n{}", e.emit_to_string(source));
    }
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
