//! The programs the checks after the workspace tests run (the rehearsal, the validation layer,
//! Tint's variants, SwiftShader, the gate rates), taken from the workspace tests' own build.
//!
//! `cargo build -p gpubench-cli` or `cargo run -p gpubench-suites --example …` resolve one
//! package's features alone, without the dev-dependencies the tests unify in, so after the
//! tests each rebuilt wgpu, naga and their neighbours once more: 27 crates (110 s here) for the
//! CLI and 19 (93 s) for the example. The tests' build holds both programs already; its only
//! difference for these checks is the example suite compiled in, which is offered only when
//! named (and `--suite all` then checks it too, as the validation run always did).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::workspace_root;

/// The two programs, as the workspace tests built them.
#[derive(Clone)]
pub struct Programs {
    /// The gpubench binary.
    pub gpubench: PathBuf,
    /// The suites crate's `webgpu_variants` example.
    pub webgpu_variants: PathBuf,
}

/// Where the two programs are: asked of cargo once per xtask (every check after the tests
/// runs them), building the workspace tests where they are not built yet (nothing to do right
/// after them).
pub fn programs() -> Result<Programs, String> {
    static FOUND: OnceLock<Programs> = OnceLock::new();
    if let Some(found) = FOUND.get() {
        return Ok(found.clone());
    }
    let found = locate()?;
    Ok(FOUND.get_or_init(|| found).clone())
}

/// Builds the workspace tests where needed and reads the two programs' paths from cargo's
/// messages.
fn locate() -> Result<Programs, String> {
    let args = [
        "test",
        "--workspace",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ];
    eprintln!("$ cargo {}", args.join(" "));
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(workspace_root())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo {}` failed ({})",
            args.join(" "),
            out.status
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let find = |name: &str, kind: &str| {
        executable(&stdout, name, kind)
            .ok_or_else(|| format!("`cargo {}` built no {kind} named {name}", args.join(" ")))
    };
    Ok(Programs {
        gpubench: find("gpubench", "bin")?,
        webgpu_variants: find("webgpu_variants", "example")?,
    })
}

/// The executable cargo's JSON messages name for the target `name` of `kind` (the program
/// itself, not its unit-test harness).
fn executable(messages: &str, name: &str, kind: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        // Not the target's own unit tests (a test harness built from the same source).
        .filter(|m| m["profile"]["test"] == false)
        .filter(|m| {
            m["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == kind))
        })
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

/// Runs `program` with `args` and extra environment variables from the repository root; its
/// exit code (`None`: ended by a signal).
pub fn run_status(
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Result<Option<i32>, String> {
    crate::program_status(program, &program.display().to_string(), args, env)
}

/// Runs `program` like [`run_status`]; an error unless it exits 0.
pub fn run(program: &Path, args: &[&str]) -> Result<(), String> {
    let shown = program.display().to_string();
    crate::succeeded(&shown, run_status(program, args, &[])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_executable_is_found_by_name_and_kind() {
        let messages = [
            r#"{"reason":"compiler-artifact","target":{"name":"gpubench","kind":["lib"]},"profile":{"test":false},"executable":null}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"gpubench","kind":["bin"]},"profile":{"test":true},"executable":"/t/deps/gpubench-1"}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"gpubench","kind":["bin"]},"profile":{"test":false},"executable":"/t/gpubench"}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"webgpu_variants","kind":["example"]},"profile":{"test":false},"executable":"/t/ex/webgpu_variants-1"}"#,
            "not json",
        ]
        .join("\n");
        assert_eq!(
            executable(&messages, "gpubench", "bin"),
            Some(PathBuf::from("/t/gpubench"))
        );
        assert_eq!(
            executable(&messages, "webgpu_variants", "example"),
            Some(PathBuf::from("/t/ex/webgpu_variants-1"))
        );
        assert_eq!(executable(&messages, "webgpu_variants", "bin"), None);
    }
}
