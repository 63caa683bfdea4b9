//! The Slurm deployment tested for real: a one-node cluster on this machine
//! (deploy/slurm/local-cluster.sh), the fleet array submitted over every adapter it has (the two
//! llvmpipe adapters, Vulkan and GL, on a CI machine), the dependent report job, and a check of
//! what they wrote. Needs root and apt-get to install Debian's slurm-wlm and munge; where either
//! is missing it says so and skips, never silently.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::workspace_root;

/// How long the jobs may take on a loaded 2-core machine before the check gives up.
const JOB_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs the check; `Ok(Some(why))` where it had to be skipped (it printed why too), so the
/// caller's summary can say the pass did not include it.
pub fn check() -> Result<Option<String>, String> {
    let skipped = if std::env::var_os("GPUBENCH_SKIP_SLURM").is_some_and(|v| v == "1") {
        Some("GPUBENCH_SKIP_SLURM=1".to_string())
    } else {
        cannot_run()
    };
    if let Some(why) = skipped {
        eprintln!("slurm check skipped: {why}");
        return Ok(Some(why));
    }
    if install()? {
        stop_package_services();
    }
    let root = workspace_root();
    let state = root.join("target/xtask/slurm");
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).map_err(|e| format!("creating {}: {e}", state.display()))?;
    let started = Instant::now();
    let cluster = root.join("deploy/slurm/local-cluster.sh");
    let conf = output(Command::new("bash").arg(&cluster).arg("start").arg(&state))?;
    let outcome = submit_and_check(&root, &state, conf.trim());
    let _ = Command::new("bash")
        .arg(&cluster)
        .arg("stop")
        .arg(&state)
        .status();
    outcome?;
    eprintln!(
        "slurm check: one-node cluster, fleet array and report job passed in {:.0} s; its daemons are stopped",
        started.elapsed().as_secs_f64()
    );
    Ok(None)
}

fn cannot_run() -> Option<String> {
    let uid = output(Command::new("id").arg("-u")).ok()?;
    if uid.trim() != "0" {
        return Some("not root (the local cluster's daemons and apt-get need root)".to_string());
    }
    if Command::new("apt-get").arg("--version").output().is_err() {
        return Some("no apt-get to install slurm-wlm and munge".to_string());
    }
    None
}

/// slurm-wlm and munge, and the GL driver so that both llvmpipe adapters exist; true when
/// they were installed now (and not already there).
fn install() -> Result<bool, String> {
    let have = ["slurmctld", "slurmd", "sbatch", "munged"]
        .iter()
        .all(|tool| which(tool));
    if have && Path::new("/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0").exists() {
        return Ok(false);
    }
    eprintln!(
        "slurm check: installing Debian's slurm-wlm and munge system-wide (and Mesa's GL driver) \
         with apt-get, to start a one-node cluster whose state stays under target/xtask/slurm. \
         Any services the packages start are stopped again, and the cluster's own daemons when \
         the check ends; GPUBENCH_SKIP_SLURM=1 skips this check"
    );
    // A stale package index (a fresh CI image) fails the first try: update, then try again.
    if apt_install()? || (apt(&["update", "-q"])? && apt_install()?) {
        return Ok(true);
    }
    Err("apt-get install slurm-wlm munge failed".to_string())
}

/// Stops the system services Debian's packages may have started when this check installed them
/// (where an init system ran their scripts; services that were there before are left alone): the check starts its own daemons on its own files, and a machine
/// running the tests should not be left with a cluster controller and munge running.
fn stop_package_services() {
    if !which("service") {
        return;
    }
    for name in ["slurmd", "slurmctld", "munge"] {
        let _ = Command::new("service")
            .args([name, "stop"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
}

fn apt_install() -> Result<bool, String> {
    apt(&[
        "install",
        "-y",
        "-q",
        "--no-install-recommends",
        "slurm-wlm",
        "munge",
        "libegl1",
        "libegl-mesa0",
        "libgl1-mesa-dri",
    ])
}

fn apt(args: &[&str]) -> Result<bool, String> {
    Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .map(|s| s.success())
        .map_err(|e| format!("could not start apt-get: {e}"))
}

fn submit_and_check(root: &Path, state: &Path, conf: &str) -> Result<(), String> {
    // The binary the workspace tests built, wherever the target folder is (built here first
    // when `slurm` runs alone on a fresh clone).
    let bin = crate::test_build::programs()?.gpubench;
    let adapters = adapter_count(&bin)?;
    let results = state.join("results");
    let submitted = output(
        Command::new("bash")
            .arg(root.join("deploy/slurm/submit.sh"))
            .arg(format!("--array=0-{}", adapters - 1))
            .env("SLURM_CONF", conf)
            .env("GPUBENCH_BIN", &bin)
            .env("GPUBENCH_RESULTS_DIR", &results)
            .env("GPUBENCH_PER", "adapter")
            .env("GPUBENCH_ARGS", "--profile quick --suite launch")
            .env("GPUBENCH_BASELINE_DIR", state.join("baselines")),
    )?;
    eprintln!("slurm check: {}", submitted.trim());
    wait_for_queue(conf)?;
    let runs = results_files(&results)?;
    if runs.len() != adapters {
        return Err(format!(
            "{} results files for {adapters} adapters in {}",
            runs.len(),
            results.display()
        ));
    }
    let table = std::fs::read_to_string(results.join("fleet.md"))
        .map_err(|e| format!("the report job wrote no fleet.md: {e}"))?;
    let html = std::fs::read_to_string(results.join("fleet.html"))
        .map_err(|e| format!("the report job wrote no fleet.html: {e}"))?;
    // Markdown escapes brackets (`\[1\]`, which renders as `[1]`) so no name becomes a link.
    let columns = (1..=adapters).all(|i| table.contains(&format!("\\[{i}\\]")));
    if !table.contains("launch/round-trip/one-dispatch") || !columns || !html.contains("<svg") {
        return Err(format!("the fleet report lacks the runs:\n{table}"));
    }
    Ok(())
}

fn adapter_count(bin: &Path) -> Result<usize, String> {
    let list = output(Command::new(bin).args(["list", "--json"]))?;
    let parsed: serde_json::Value =
        serde_json::from_str(&list).map_err(|e| format!("gpubench list --json: {e}"))?;
    match parsed.as_array().map_or(0, Vec::len) {
        0 => Err("gpubench list finds no adapter".to_string()),
        n => Ok(n),
    }
}

fn wait_for_queue(conf: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let queue = output(
            Command::new("squeue")
                .args(["-h", "-o", "%i %T"])
                .env("SLURM_CONF", conf),
        )?;
        if queue.trim().is_empty() {
            return Ok(());
        }
        if started.elapsed() > JOB_TIMEOUT {
            return Err(format!("jobs still queued after {JOB_TIMEOUT:?}:\n{queue}"));
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

fn results_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    Ok(entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("-task"))
        })
        .collect())
}

fn which(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

fn output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("could not start {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
