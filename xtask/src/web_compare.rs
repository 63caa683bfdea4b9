//! The page's results file beside a native one of the same host: `gpubench compare native.json
//! web.json` must read both, see two different adapters (so no verdicts, ratios only, and say
//! so), name the backends that differ, and give a finite ratio for every result both files
//! measured.
//!
//! The native file is the rehearsal's (every suite on this adapter, made earlier in `cargo
//! xtask test`) where this build wrote it; otherwise a quick native run of the launch suite is made for
//! the purpose.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::workspace_root;

/// Compares the native results with `web` and checks what the comparison says.
pub fn check(web: &Path) -> Result<(), String> {
    let root = workspace_root();
    let bin = crate::test_build::programs()?.gpubench;
    let native = native_results(&root, &bin, web)?;
    let output = Command::new(&bin)
        .arg("compare")
        .arg(&native)
        .arg(web)
        .args(["--format", "json"])
        .output()
        .map_err(|e| format!("could not start {}: {e}", bin.display()))?;
    if output.status.code() != Some(0) {
        return Err(format!(
            "gpubench compare {} {} exited with {} (a cross-machine comparison never gates): {}",
            native.display(),
            web.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let comparison: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("gpubench compare's JSON: {e}"))?;
    let ratios = judge(&comparison)?;
    eprintln!(
        "web-test: `gpubench compare` of {} against the page's file: cross-machine, backend vulkan -> webgpu, {ratios} ratios, no verdicts",
        native.display()
    );
    Ok(())
}

/// The rehearsal's native file where this build of gpubench wrote it (a file older than the
/// binary is an earlier build's, maybe another adapter's), else a quick native launch run
/// written beside `web`.
fn native_results(root: &Path, bin: &Path, web: &Path) -> Result<PathBuf, String> {
    let rehearsal = root.join("target/xtask/rehearsal/gpubench.json");
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if let (Some(written), Some(built)) = (modified(&rehearsal), modified(bin))
        && written >= built
    {
        return Ok(rehearsal);
    }
    let native = web.with_file_name("native-results.json");
    // No noise check or telemetry: the file is only compared, never judged.
    let flags =
        "run --suite launch --profile quick --backend vulkan --noise-check off --telemetry off";
    let status = Command::new(bin)
        .args(flags.split(' '))
        .arg("--out")
        .arg(&native)
        .status()
        .map_err(|e| format!("could not start {}: {e}", bin.display()))?;
    if !status.success() {
        return Err(format!("the native launch run exited with {status}"));
    }
    Ok(native)
}

/// Checks a comparison's JSON: cross-machine, the backends named among the differences, and for
/// every pair both sides measured the verdict "ratio-only" with a finite positive ratio.
/// Returns how many ratios there are.
fn judge(comparison: &Value) -> Result<usize, String> {
    if comparison["mode"] != "cross-machine" {
        return Err(format!(
            "native against web compared as {}, not cross-machine",
            comparison["mode"]
        ));
    }
    let differences = comparison["differences"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let backend = differences.iter().find(|d| d["field"] == "backend");
    if !backend.is_some_and(|d| d["new"] == "webgpu" && d["base"] != "webgpu") {
        return Err(format!(
            "the comparison does not name the backends that differ: {differences:?}"
        ));
    }
    let pairs = comparison["pairs"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let mut ratios = 0;
    for pair in pairs {
        let measured = |side: &str| pair[side]["status"] == "ok";
        if !(measured("base") && measured("new")) {
            continue;
        }
        let ratio = pair["ratio"]["ratio"].as_f64();
        if !ratio.is_some_and(|r| r.is_finite() && r > 0.0) {
            return Err(format!("{} has no finite ratio: {pair}", pair["id"]));
        }
        if pair["verdict"] != "ratio-only" || pair["regression"] == true {
            return Err(format!(
                "{} judged across machines ({}), not a ratio only",
                pair["id"], pair["verdict"]
            ));
        }
        ratios += 1;
    }
    if ratios == 0 {
        return Err("native and web files share no measured result".to_string());
    }
    Ok(ratios)
}

#[cfg(test)]
mod tests {
    use super::judge;
    use serde_json::{Value, json};

    fn comparison(mode: &str, ratio: Value) -> Value {
        json!({
            "mode": mode,
            "differences": [{"field": "backend", "base": "vulkan", "new": "webgpu"}],
            "pairs": [
                {"id": "launch/submit/per-submit", "base": {"status": "ok"},
                 "new": {"status": "ok"}, "ratio": ratio, "verdict": "ratio-only",
                 "regression": false},
                {"id": "compute/fma-peak/scalar-f64", "base": {"status": "ok"},
                 "new": {"status": "skipped"}, "ratio": null, "verdict": "missing",
                 "regression": false}
            ]
        })
    }

    #[test]
    fn a_cross_machine_comparison_with_ratios_passes_and_anything_else_fails() {
        let ratio = json!({"ratio": 0.5, "ci_low": 0.4, "ci_high": 0.6});
        assert_eq!(judge(&comparison("cross-machine", ratio.clone())), Ok(1));
        assert!(judge(&comparison("same-machine", ratio.clone())).is_err());
        assert!(judge(&comparison("cross-machine", Value::Null)).is_err());
        assert!(judge(&comparison("cross-machine", json!({"ratio": null}))).is_err());
        let mut no_backend = comparison("cross-machine", ratio.clone());
        no_backend["differences"] = json!([]);
        assert!(judge(&no_backend).is_err());
        let mut judged = comparison("cross-machine", ratio.clone());
        judged["pairs"][0]["verdict"] = json!("regressed");
        assert!(judge(&judged).is_err());
        let mut nothing_shared = comparison("cross-machine", ratio);
        nothing_shared["pairs"][0]["new"]["status"] = json!("failed");
        assert!(judge(&nothing_shared).is_err());
    }
}
