//! `cargo xtask tint`: every kernel variant the suites declare, compiled by a second WGSL
//! compiler, Dawn's Tint (Chromium's), through Dawn's Node bindings (npm `webgpu`).
//!
//! 1. The variants come from the registry (`webgpu_variants`, an example of gpubench-suites):
//!    every suite's WGSL files and every pipeline each declares, on a GPU's, a CPU adapter's
//!    and WebGPU's default limits, each in its WebGPU form (`kit::webgpu`, which adds the
//!    `enable` directives a WebGPU compiler needs and naga refuses). No list is kept here.
//! 2. The pinned package (xtask/tint/package.json and package-lock.json, with its integrity
//!    hashes) is installed with `npm ci` into target/xtask/tint, never globally.
//! 3. xtask/tint/check.mjs compiles each variant's module, and builds the pipelines declared
//!    for WebGPU's default limits, on SwiftShader (the driver is set for that process alone)
//!    and, for what SwiftShader lacks (f16), on Dawn's null backend.
//! 4. Each rejection must be one xtask/tint/expected-failures.txt explains (a kernel that uses
//!    what WebGPU does not have); any other fails the check, with Tint's message, and so does
//!    an expected failure that no longer happens (the list must stay true).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::workspace_root;

/// The committed list of rejections that are expected, and why.
const EXPECTED: &str = "xtask/tint/expected-failures.txt";

/// One line of the expectation list: variants named like `pattern` are rejected with a
/// message that contains `message`, for `why`.
#[derive(Debug, Clone, PartialEq)]
struct Expected {
    pattern: String,
    message: String,
    why: String,
}

/// Reads the list: `PATTERN | MESSAGE | WHY` per line (`*` in PATTERN matches any run of
/// characters), `#` comments and blank lines ignored.
fn parse_expected(text: &str) -> Result<Vec<Expected>, String> {
    let mut list = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.splitn(3, " | ").map(str::trim).collect();
        match fields.as_slice() {
            [pattern, message, why]
                if !pattern.is_empty() && !message.is_empty() && !why.is_empty() =>
            {
                list.push(Expected {
                    pattern: pattern.to_string(),
                    message: message.to_string(),
                    why: why.to_string(),
                });
            }
            _ => {
                return Err(format!(
                    "{EXPECTED} line {}: want `PATTERN | MESSAGE | WHY`, got `{line}`",
                    n + 1
                ));
            }
        }
    }
    Ok(list)
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == name;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// What Tint did with one variant.
#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    name: String,
    device: String,
    /// `module` or `pipeline` where it was rejected; `None` where it compiled.
    stage: Option<String>,
    message: String,
}

impl Outcome {
    fn read(v: &Value) -> Self {
        Self {
            name: v["name"].as_str().unwrap_or("?").to_string(),
            device: v["device"].as_str().unwrap_or("?").to_string(),
            stage: v["stage"].as_str().map(str::to_string),
            message: v["message"].as_str().unwrap_or_default().to_string(),
        }
    }
}

/// The judgement of a run against the list.
#[derive(Debug, Default)]
struct Verdict {
    /// Rejections the list explains, by the list's line.
    expected: Vec<(Expected, usize)>,
    /// Rejections it does not.
    unexpected: Vec<Outcome>,
    /// Variants the list says are rejected that compiled.
    now_passing: Vec<(Outcome, Expected)>,
    /// Lines of the list that matched no variant at all.
    unused: Vec<Expected>,
}

impl Verdict {
    fn ok(&self) -> bool {
        self.unexpected.is_empty() && self.now_passing.is_empty() && self.unused.is_empty()
    }
}

fn judge(outcomes: &[Outcome], list: &[Expected]) -> Verdict {
    let mut verdict = Verdict {
        expected: list.iter().map(|e| (e.clone(), 0)).collect(),
        ..Verdict::default()
    };
    let mut named = vec![false; list.len()];
    for outcome in outcomes {
        let by_name: Vec<usize> = (0..list.len())
            .filter(|&i| matches(&list[i].pattern, &outcome.name))
            .collect();
        for &i in &by_name {
            named[i] = true;
        }
        if outcome.stage.is_none() {
            if let Some(&i) = by_name.first() {
                verdict.now_passing.push((outcome.clone(), list[i].clone()));
            }
            continue;
        }
        match by_name
            .iter()
            .find(|&&i| outcome.message.contains(&list[i].message))
        {
            Some(&i) => verdict.expected[i].1 += 1,
            None => verdict.unexpected.push(outcome.clone()),
        }
    }
    verdict.unused = list
        .iter()
        .zip(named)
        .filter(|(_, named)| !named)
        .map(|(e, _)| e.clone())
        .collect();
    verdict
}

/// Installs the pinned package into `dir` (target/xtask/tint) unless the installed tree was
/// made from the same lock file.
fn install(dir: &Path) -> Result<(), String> {
    crate::setup::ensure_node()?;
    let source = workspace_root().join("xtask/tint");
    let lock = std::fs::read(source.join("package-lock.json"))
        .map_err(|e| format!("reading xtask/tint/package-lock.json: {e}"))?;
    let installed = dir.join("node_modules/.xtask-lock");
    if std::fs::read(&installed).is_ok_and(|l| l == lock)
        && dir.join("node_modules/webgpu/package.json").is_file()
    {
        return Ok(());
    }
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(source.join(file), dir.join(file))
            .map_err(|e| format!("copying xtask/tint/{file}: {e}"))?;
    }
    eprintln!(
        "$ npm ci (xtask/tint's pinned webgpu, into {})",
        dir.display()
    );
    // `npm ci` installs exactly the lock file's versions and checks each integrity hash. The
    // package's install script only clears a macOS quarantine flag: not run.
    let status = Command::new("npm")
        .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .status()
        .map_err(|e| format!("could not start npm: {e}"))?;
    if !status.success() {
        return Err(format!(
            "npm ci in {} failed ({status}): the registry must be reachable for the first install",
            dir.display()
        ));
    }
    std::fs::write(&installed, lock).map_err(|e| format!("writing {}: {e}", installed.display()))
}

/// Writes every variant's WebGPU form to `file`.
fn write_variants(file: &Path) -> Result<(), String> {
    let file = file.display().to_string();
    crate::test_build::run(&crate::test_build::programs()?.webgpu_variants, &[&file])
}

/// Runs check.mjs over `variants`, writing `results`, with SwiftShader as its Vulkan driver.
fn compile(dir: &Path, variants: &Path, results: &Path) -> Result<(), String> {
    let script = dir.join("check.mjs");
    std::fs::copy(workspace_root().join("xtask/tint/check.mjs"), &script)
        .map_err(|e| format!("copying xtask/tint/check.mjs: {e}"))?;
    let icd = crate::swiftshader::icd()?;
    eprintln!(
        "$ node {} {} {}",
        script.display(),
        variants.display(),
        results.display()
    );
    let status = Command::new("node")
        .arg(&script)
        .arg(variants)
        .arg(results)
        .envs(crate::swiftshader::environment(&icd))
        .current_dir(dir)
        .status()
        .map_err(|e| format!("could not start node: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("node check.mjs failed ({status})"))
    }
}

/// The check's folder under target/xtask, created.
fn folder() -> Result<PathBuf, String> {
    let dir: PathBuf = workspace_root().join("target/xtask/tint");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Installs the pinned package ahead of the check.
pub fn fetch() -> Result<(), String> {
    install(&folder()?)
}

/// The check (see the module docs).
pub fn check() -> Result<(), String> {
    let started = std::time::Instant::now();
    let dir = folder()?;
    let list_text = std::fs::read_to_string(workspace_root().join(EXPECTED))
        .map_err(|e| format!("reading {EXPECTED}: {e}"))?;
    let list = parse_expected(&list_text)?;
    install(&dir)?;
    let variants = dir.join("variants.json");
    let results = dir.join("results.json");
    let _ = std::fs::remove_file(&results);
    write_variants(&variants)?;
    compile(&dir, &variants, &results)?;
    let text = std::fs::read_to_string(&results)
        .map_err(|e| format!("reading {}: {e}", results.display()))?;
    let report: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not JSON: {e}", results.display()))?;
    let outcomes: Vec<Outcome> = report["outcomes"]
        .as_array()
        .ok_or_else(|| format!("{} has no outcomes", results.display()))?
        .iter()
        .map(Outcome::read)
        .collect();
    if outcomes.is_empty() {
        return Err("no variants were compiled".to_string());
    }
    let built = report["outcomes"].as_array().map_or(0, |o| {
        o.iter().filter(|v| v["built"] == Value::Bool(true)).count()
    });
    let verdict = judge(&outcomes, &list);
    let rejected = outcomes.iter().filter(|o| o.stage.is_some()).count();
    eprintln!(
        "xtask: Tint ({} and {}) compiled {} variants ({built} built as pipelines): {} \
         accepted, {rejected} rejected",
        report["adapters"]["vulkan"].as_str().unwrap_or("?"),
        report["adapters"]["null"].as_str().unwrap_or("?"),
        outcomes.len(),
        outcomes.len() - rejected,
    );
    for (entry, count) in &verdict.expected {
        eprintln!("  expected: {count} x {} ({})", entry.pattern, entry.why);
    }
    for o in &verdict.unexpected {
        eprintln!(
            "  REJECTED {} ({} device, {}): {}",
            o.name,
            o.device,
            o.stage.as_deref().unwrap_or("?"),
            o.message.lines().next().unwrap_or_default()
        );
    }
    for (o, entry) in &verdict.now_passing {
        eprintln!(
            "  NOW ACCEPTED {} (listed as rejected: {}): remove or narrow the line `{}`",
            o.name, entry.why, entry.pattern
        );
    }
    for entry in &verdict.unused {
        eprintln!(
            "  UNUSED line `{}`: no variant is named so any more",
            entry.pattern
        );
    }
    eprintln!(
        "xtask: the Tint check took {:.0} s; full messages in {}",
        started.elapsed().as_secs_f64(),
        results.display()
    );
    if verdict.ok() {
        Ok(())
    } else {
        Err(format!(
            "Tint: {} unexpected rejections, {} listed rejections that no longer happen, {} \
             unused lines in {EXPECTED}",
            verdict.unexpected.len(),
            verdict.now_passing.len(),
            verdict.unused.len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(name: &str, message: Option<&str>) -> Outcome {
        Outcome {
            name: name.to_string(),
            device: "vulkan".to_string(),
            stage: message.map(|_| "module".to_string()),
            message: message.unwrap_or_default().to_string(),
        }
    }

    #[test]
    fn patterns_match_runs_of_characters() {
        assert!(matches("compute/fma-f64*", "compute/fma-f64-vec4"));
        assert!(matches("*-f64", "compute/fma-f64"));
        assert!(matches("a*b*c", "a-x-b-y-c"));
        assert!(matches("exact", "exact"));
        assert!(!matches("exact", "exact-not"));
        assert!(!matches("a*b*c", "a-c-b"));
        assert!(!matches("ab*ba", "aba"));
    }

    #[test]
    fn the_list_reads_three_fields_and_refuses_fewer() {
        let list =
            parse_expected("# a comment\n\ncompute/*-f64* | 'f64' | WebGPU has no 64-bit floats\n")
                .expect("parses");
        assert_eq!(
            list,
            [Expected {
                pattern: "compute/*-f64*".to_string(),
                message: "'f64'".to_string(),
                why: "WebGPU has no 64-bit floats".to_string(),
            }]
        );
        assert!(parse_expected("compute/* | 'f64'").is_err());
    }

    #[test]
    fn listed_rejections_pass_and_others_fail() {
        let list = parse_expected("x/f64* | 'f64' | no f64").expect("parses");
        let outcomes = [
            outcome("x/f64-a", Some("1:5: unresolved type 'f64'")),
            outcome("x/f32", None),
        ];
        let verdict = judge(&outcomes, &list);
        assert!(verdict.ok(), "{verdict:?}");
        assert_eq!(verdict.expected[0].1, 1);

        // A new rejection fails, and so does a listed variant rejected for another reason.
        let outcomes = [
            outcome("x/f64-a", Some("uniformity error")),
            outcome("x/f32", Some("cannot call subgroupAdd")),
        ];
        let verdict = judge(&outcomes, &list);
        assert!(!verdict.ok());
        assert_eq!(verdict.unexpected.len(), 2);
    }

    #[test]
    fn a_listed_rejection_that_compiles_or_names_nothing_fails() {
        let list = parse_expected("x/f64* | 'f64' | no f64\ny/gone | 'x' | gone").expect("ok");
        let verdict = judge(&[outcome("x/f64-a", None)], &list);
        assert!(!verdict.ok());
        assert_eq!(verdict.now_passing.len(), 1);
        assert_eq!(verdict.unused.len(), 1);
        assert_eq!(verdict.unused[0].pattern, "y/gone");
    }
}
