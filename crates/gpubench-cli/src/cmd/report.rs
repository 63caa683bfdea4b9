//! `gpubench report FILES... --html out.html`: one self-contained page for one or more runs.

use std::path::Path;

use anyhow::Context;
use gpubench_harness::RunDocument;
use gpubench_results::results_file::write_atomic;

use crate::cli::ReportArgs;
use crate::exit::Exit;
use crate::paths::Files;

pub fn run(args: &ReportArgs) -> anyhow::Result<Exit> {
    let inputs = crate::cmd::inputs::expand(&args.files, args.all_runs)?;
    let mut files = Files::new();
    for input in &inputs {
        files.input("input", &input.path)?;
    }
    files.output("--html", &args.html)?;
    let loaded = inputs
        .into_iter()
        .map(|input| input.load())
        .collect::<anyhow::Result<Vec<_>>>()?;
    let paths: Vec<&Path> = loaded.iter().map(|(path, _)| path.as_path()).collect();
    let docs: Vec<(String, RunDocument)> = labels(&paths)
        .into_iter()
        .zip(loaded.into_iter().map(|(_, doc)| doc))
        .collect();
    write_html(&args.html, &docs)?;
    note!("report written to {}", args.html.display());
    Ok(Exit::Success)
}

/// A file's label in the report: its name without the extension.
pub fn label(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().to_string(),
    )
}

/// The labels of several files on one page: short, and never two alike. One file is its name
/// without the extension; several are `[1] node1/results`, `[2] node2/results`: a number each
/// (the machines table is the key), then the fewest trailing path parts that tell the files
/// apart, cut to [`LABEL_CHARS`] characters from the front.
pub fn labels(paths: &[&Path]) -> Vec<String> {
    if let [one] = paths {
        return vec![label(one)];
    }
    let parts: Vec<Vec<String>> = paths.iter().map(|p| path_parts(p)).collect();
    let deepest = parts.iter().map(Vec::len).max().unwrap_or(1);
    let suffix = |p: &[String], depth: usize| p[p.len().saturating_sub(depth)..].join("/");
    let depth = (1..=deepest)
        .find(|&depth| {
            let mut seen: Vec<String> = parts.iter().map(|p| suffix(p, depth)).collect();
            seen.sort_unstable();
            seen.windows(2).all(|w| w[0] != w[1])
        })
        .unwrap_or(deepest);
    parts
        .iter()
        .enumerate()
        .map(|(k, p)| format!("[{}] {}", k + 1, tail(&suffix(p, depth), LABEL_CHARS)))
        .collect()
}

/// The most characters of a path shown in a label.
const LABEL_CHARS: usize = 32;

/// `path`'s components, the last without its extension.
fn path_parts(path: &Path) -> Vec<String> {
    let mut parts: Vec<String> = path
        .parent()
        .into_iter()
        .flat_map(|dir| dir.components())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|c| c != "." && c != "/")
        .collect();
    parts.push(label(path));
    parts
}

/// The last `max` characters of `text`, with `...` in front when cut.
fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let kept: String = text.chars().skip(count - (max - 3)).collect();
    format!("...{kept}")
}

/// Renders `docs` and writes the page atomically to `path`.
pub fn write_html(path: &Path, docs: &[(String, RunDocument)]) -> anyhow::Result<()> {
    let page = gpubench_report::html::render(docs)?;
    write_atomic(path, page.as_bytes())
        .with_context(|| format!("writing --html {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_files_get_short_labels_that_never_collide() {
        let one = [Path::new("results/run.json")];
        assert_eq!(labels(&one), ["run"]);
        let nodes = [
            Path::new("fleet/node1/results.json"),
            Path::new("fleet/node2/results.json"),
        ];
        assert_eq!(labels(&nodes), ["[1] node1/results", "[2] node2/results"]);
        let distinct = [Path::new("a/h200.json"), Path::new("b/rx7900.json")];
        assert_eq!(labels(&distinct), ["[1] h200", "[2] rx7900"]);
        let long = format!("{}.json", "n".repeat(50));
        let long = [Path::new(&long), Path::new("short.json")];
        let got = labels(&long);
        assert!(
            got[0].starts_with("[1] ...") && got[0].chars().count() <= 4 + 32,
            "{got:?}"
        );
    }
}
