//! The `WGPU_*` selection variables behave as wgpu defines them. Needs a Vulkan adapter.

mod common;
use common::{adapters, gpubench_command, require_vulkan};

/// `run` up to the adapter check: `--expect-vendor` with a vendor no adapter has makes it stop
/// right after selection (exit 1), naming the adapter that was selected.
fn select(env: &[(&str, &str)]) -> (Option<i32>, String) {
    let out = gpubench_command()
        .args(["run", "--suite", "launch", "--profile", "quick"])
        .args(["--expect-vendor", "0xfffe"])
        .envs(env.iter().copied())
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_number_in_wgpu_adapter_name_is_a_name_substring() {
    if !require_vulkan() {
        return;
    }
    let names: Vec<String> = adapters()
        .iter()
        .filter_map(|a| a["name"].as_str().map(str::to_string))
        .collect();
    // A run of digits from an adapter's name ("15" of "LLVM 15.0.6"), which as an index would
    // name no adapter.
    let digits = names
        .iter()
        .find_map(|n| {
            n.split(|c: char| !c.is_ascii_digit())
                .find(|d| !d.is_empty() && d.parse::<usize>().is_ok_and(|i| i >= names.len()))
                .map(str::to_string)
        })
        .expect("an adapter name with a number in it (llvmpipe's LLVM version)");
    let (code, stderr) = select(&[("WGPU_ADAPTER_NAME", &digits), ("WGPU_BACKEND", "vulkan")]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("is not what was expected"),
        "selected: {stderr}"
    );
    assert!(stderr.contains(&digits), "{stderr}");
}

#[test]
fn backend_and_power_values_wgpu_accepts_or_ignores_are_not_errors() {
    if !require_vulkan() {
        return;
    }
    let (code, stderr) = select(&[
        ("WGPU_BACKEND", "vulkan,webgpu"),
        ("WGPU_POWER_PREF", "none"),
    ]);
    assert_eq!(code, Some(1), "selection succeeded: {stderr}");
    assert!(stderr.contains("is not what was expected"), "{stderr}");
    assert!(
        stderr.contains("WGPU_BACKEND: 'webgpu' ignored"),
        "{stderr}"
    );
    let (_, stderr) = select(&[("WGPU_BACKEND", "vulkan"), ("WGPU_POWER_PREF", "fastest")]);
    assert!(
        stderr.contains("WGPU_POWER_PREF: 'fastest' ignored"),
        "{stderr}"
    );
    assert!(stderr.contains("is not what was expected"), "{stderr}");
}
