//! The real-GPU check script, exercised where there is no such GPU: on a software adapter it
//! must stop at the vendor check (exit 3) before measuring anything, the CUDA reference must plan
//! the sizes gpubench itself runs, and the scripts' pure parts pass their own unit tests.
//! Needs python3 and, for the dry run, a Vulkan adapter (lavapipe in CI).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpubench_engine::SuiteOptions;
use gpubench_harness::Profile;
use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_suites::datapath::request::builtins;
use gpubench_suites::matmul::profile_shapes;
use gpubench_suites::memory::{SweepPlan, llc, working_sets};
use gpubench_suites::transfer::sizes_up_to;
use serde_json::Value;

mod common;
use common::{assert_exit, assert_exit_saying, assert_has, gpubench_path, text, vulkan_temp_dir};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `scripts/gpu-check.sh DIR` with the gpubench built for these tests, ready to run.
fn gpu_check(dir: &Path) -> Command {
    let mut command = Command::new("bash");
    command
        .arg(repo_root().join("scripts/gpu-check.sh"))
        .arg(dir)
        .arg(gpubench_path());
    command
}

/// `python3 SCRIPT ARGS`, `script` relative to the repository root, run to its end; fails
/// the test unless the script succeeds.
fn python_ok(script: &str, args: &[&str]) -> Output {
    let run = Command::new("python3")
        .arg(repo_root().join(script))
        .args(args)
        .output()
        .expect("python3 runs");
    assert_exit(&run, 0);
    run
}

#[test]
fn dry_run_on_a_software_adapter_stops_at_the_vendor_check() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let out = dir.path().join("check");
    let run = gpu_check(&out)
        .env_remove("GPUBENCH_VULKAN_DEBS")
        .env_remove("VK_DRIVER_FILES")
        .env_remove("VK_ICD_FILENAMES")
        .output()
        .expect("bash runs");
    // The adapters found are listed: llvmpipe among them.
    assert_exit_saying(
        &run,
        3,
        &["no discrete Vulkan adapter of vendor 0x10de", "llvmpipe"],
    );
    for never in [
        "cuda.json",
        "gpubench.json",
        "gpubench.html",
        "side-by-side.md",
    ] {
        assert!(
            !out.join(never).exists(),
            "{never} written before the vendor check"
        );
    }
    let log = std::fs::read_to_string(out.join("check.log")).expect("check.log");
    assert_has(&log, "stopping before any measurement");
}

/// A second check into the same directory would build its table from the first one's files
/// and archive them: refused before anything starts, the earlier files untouched.
#[test]
fn a_check_into_a_directory_that_holds_files_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let earlier = dir.path().join("gpubench.json");
    std::fs::write(&earlier, b"{}").expect("write");
    let run = gpu_check(dir.path()).output().expect("bash runs");
    assert_exit_saying(&run, 2, &["not an empty directory"]);
    assert_eq!(std::fs::read(&earlier).expect("read"), b"{}");
    assert!(!dir.path().join("check.log").exists());
}

#[test]
fn run_refuses_an_adapter_that_is_not_the_expected_one_before_writing() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let results = dir.path().join("r.json");
    for flags in [
        &["--expect-vendor", "nvidia"][..],
        &["--expect-type", "discrete,integrated"][..],
        &["--require-gpu"][..],
    ] {
        let run = common::gpubench_command()
            .args([
                "run",
                "--backend",
                "vulkan",
                "--suite",
                "launch",
                "--profile",
                "quick",
            ])
            .args(flags)
            .arg("--out")
            .arg(&results)
            .output()
            .expect("runs");
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{flags:?}: {stderr}");
        assert_has(&stderr, "is not what was expected");
        assert!(!results.exists(), "{flags:?} wrote a results file");
    }
    let run = common::gpubench_command()
        .args(["run", "--expect-vendor", "nvidea"])
        .output()
        .expect("runs");
    assert_eq!(
        run.status.code(),
        Some(2),
        "a misspelt vendor is a usage error"
    );
}

#[test]
fn the_cuda_reference_plans_gpubench_default_sizes() {
    let run = python_ok("scripts/cuda_reference.py", &["--plan"]);
    let plan: Value = serde_json::from_slice(&run.stdout).expect("the plan is JSON");
    let shapes: Vec<String> = profile_shapes(Profile::Default, false)
        .iter()
        .map(|s| s.label())
        .collect();
    let planned: Vec<String> =
        serde_json::from_value(plan["matmul_shapes"].clone()).expect("shapes are strings");
    assert_eq!(planned, shapes, "cuda_reference.py's DEFAULT_MATMUL_SHAPES");
    let sizes: Vec<u64> =
        serde_json::from_value(plan["transfer_sizes"].clone()).expect("sizes are numbers");
    assert_eq!(sizes, sizes_up_to(256 << 20), "DEFAULT_TRANSFER_SIZES");
    assert_eq!(
        plan["stream_bytes"],
        1u64 << 30,
        "gpu-check.sh passes --stream-size 1GiB"
    );
    // The datapath twin's requests are the suite's built-ins, with the seed gpubench's run
    // uses, so both sides move the same bytes and check the same answers.
    let workloads: Vec<(String, u64, u64, u64)> = builtins(Profile::Default)
        .into_iter()
        .map(|r| (r.name, r.input_bytes, r.output_bytes, r.steps))
        .collect();
    let datapath = &plan["datapath"];
    let planned: Vec<(String, u64, u64, u64)> = datapath["workloads"]
        .as_array()
        .expect("workloads")
        .iter()
        .map(|w| {
            let n = |key: &str| w[key].as_u64().expect("a number");
            let name = w["name"].as_str().expect("a name").to_string();
            (name, n("input_bytes"), n("output_bytes"), n("steps"))
        })
        .collect();
    assert_eq!(planned, workloads, "cuda_reference.py's DATAPATH_WORKLOADS");
    assert_eq!(
        datapath["seed"],
        SuiteOptions::new(Profile::Default).seed,
        "DATAPATH_SEED"
    );
    // The memory twin's working sets are the memory suite's sweep on an NVIDIA card (an H200
    // behind wgpu's 4 GiB binding limit), the same in every profile on a GPU.
    let memory: Vec<u64> =
        serde_json::from_value(plan["memory_sizes"].clone()).expect("sizes are numbers");
    let class = AdapterClass::Discrete;
    let h200 = llc::gpu_llc(class, llc::NVIDIA, "NVIDIA H200");
    for profile in [Profile::Default, Profile::Quick] {
        let sweep = SweepPlan::new(class, h200.clone(), 4 << 30, &[], profile);
        assert_eq!(
            memory,
            working_sets(sweep.top),
            "cuda_reference.py's DEFAULT_MEMORY_SIZES ({profile:?})"
        );
    }
}

#[test]
fn the_scripts_unit_tests_pass() {
    // Split over four processes: the tests mostly wait on stubs and signals (80 s one after
    // the other, under 30 s side by side).
    let run = python_ok("scripts/tests/run_all.py", &["4"]);
    assert_has(&text(&run.stdout), " tests in ");
}
