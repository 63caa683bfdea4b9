//! Records the wgpu version the workspace locked, so results say which wgpu measured them.

fn main() {
    let lock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let version = std::fs::read_to_string(&lock)
        .ok()
        .and_then(|text| {
            let start = text.find("\nname = \"wgpu\"\n")?;
            let rest = &text[start..];
            let line = rest.lines().find(|l| l.starts_with("version = "))?;
            Some(
                line.trim_start_matches("version = ")
                    .trim_matches('"')
                    .to_string(),
            )
        })
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=GPUBENCH_WGPU_VERSION={version}");
}
