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
    let docs = inputs
        .into_iter()
        .map(|input| {
            let (path, doc) = input.load()?;
            Ok((label(&path), doc))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
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

/// Renders `docs` and writes the page atomically to `path`.
pub fn write_html(path: &Path, docs: &[(String, RunDocument)]) -> anyhow::Result<()> {
    let page = gpubench_report::html::render(docs)?;
    write_atomic(path, page.as_bytes())
        .with_context(|| format!("writing --html {}", path.display()))?;
    Ok(())
}
