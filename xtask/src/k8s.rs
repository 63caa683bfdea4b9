//! The Kubernetes manifests of deploy/k8s validated against the Kubernetes schemas with the
//! `kubernetes-validate` package (installed from PyPI into target/, strict mode: an unknown field
//! is an error), and a deliberately misspelt copy checked to be refused, so a validator that
//! passes everything cannot pass this check.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workspace_root;

/// The validator's version: pinned, so a schema update does not change CI's verdict unseen.
const VALIDATOR: &str = "kubernetes-validate==1.37.0";

/// Validates every manifest; an error names the file and the validator's words.
pub fn check() -> Result<(), String> {
    let root = workspace_root();
    let site = root.join("target/xtask/kubernetes-validate");
    if !site.join("kubernetes_validate").exists() {
        install(&site)?;
    }
    let manifests = manifests(&root.join("deploy/k8s"))?;
    validate(&site, &manifests, true)?;
    let broken = root.join("target/xtask/misspelt-job.yaml");
    let job = std::fs::read_to_string(root.join("deploy/k8s/gpubench-job.yaml"))
        .map_err(|e| format!("reading gpubench-job.yaml: {e}"))?;
    std::fs::write(&broken, job.replace("completionMode:", "completionMod:"))
        .map_err(|e| format!("writing {}: {e}", broken.display()))?;
    if validate(&site, &[broken], false).is_ok() {
        return Err(
            "kubernetes-validate accepted a misspelt field: the check proves nothing".into(),
        );
    }
    eprintln!(
        "k8s manifests: {} valid against the Kubernetes schemas (strict)",
        manifests.len()
    );
    Ok(())
}

fn install(site: &Path) -> Result<(), String> {
    crate::setup::ensure_python(crate::setup::PythonPart::Pip)?;
    eprintln!("k8s check: installing {VALIDATOR} into {}", site.display());
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--target",
        ])
        .arg(site)
        .arg(VALIDATOR)
        .status()
        .map_err(|e| format!("could not start python3 -m pip: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("pip install {VALIDATOR} failed ({status})"))
    }
}

fn manifests(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no manifests in {}", dir.display()));
    }
    Ok(files)
}

fn validate(site: &Path, files: &[PathBuf], show: bool) -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-m", "kubernetes_validate", "--strict", "--quiet"])
        .args(files)
        .env("PYTHONPATH", site)
        .output()
        .map_err(|e| format!("could not start kubernetes_validate: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if show {
        eprintln!("{text}");
    }
    Err(format!("kubernetes-validate refused the manifests: {text}"))
}
