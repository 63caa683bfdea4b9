//! The `--export-*` files of `run`, `compare` and `show`: every file checked as an output
//! before any work, each written atomically with what `--format` of its name would print, and
//! several runs rendered into one document where the format can hold them.

use std::path::{Path, PathBuf};

use anyhow::Context;
use gpubench_harness::RunDocument;
use gpubench_report::Format;
use gpubench_report::gab::{companion_path, gab_export_named};
use gpubench_report::grid::markdown_text;
use gpubench_report::numbers::{printable, printable_line};
use gpubench_report::table::TableStyle;
use gpubench_results::results_file::write_atomic;

use crate::cli::ExportArgs;
use crate::exit::UsageError;
use crate::paths::Files;

/// The `--export-*` files of one command, checked as outputs: each path with the format it
/// holds. A fleet adapter's run has none (the fleet writes its exports after every adapter).
#[derive(Debug, Clone, Default)]
pub struct ExportPlan {
    /// Every text export, with its format.
    formatted: Vec<(Format, PathBuf)>,
    /// Every github-action-benchmark file (its smaller-is-better companion goes beside it).
    gab: Vec<PathBuf>,
    /// BMF and github-action-benchmark names carry the adapter.
    adapter_names: bool,
}

impl ExportArgs {
    /// The exports asked for, each added to the command's outputs (a github-action-benchmark
    /// file with its companion) so a clash or an unwritable path is refused before any work.
    pub fn checked(&self, files: &mut Files) -> anyhow::Result<ExportPlan> {
        let formatted: Vec<(Format, PathBuf)> = [
            (Format::Json, &self.export_json),
            (Format::Csv, &self.export_csv),
            (Format::Markdown, &self.export_md),
            (Format::Bmf, &self.export_bmf),
        ]
        .into_iter()
        .flat_map(|(format, paths)| paths.iter().map(move |path| (format, path.clone())))
        .collect();
        for (format, path) in &formatted {
            files.output(&format!("--export-{}", format.name()), path)?;
        }
        for path in &self.export_gab {
            files.output("--export-gab", path)?;
            files.output("--export-gab's companion", &companion_path(path))?;
        }
        Ok(ExportPlan {
            formatted,
            gab: self.export_gab.clone(),
            adapter_names: self.export_adapter_names,
        })
    }
}

impl ExportPlan {
    /// Every text export, with its format.
    fn formatted(&self) -> impl Iterator<Item = (Format, &PathBuf)> {
        self.formatted.iter().map(|(format, path)| (*format, path))
    }

    /// Whether any export was asked for.
    pub fn any(&self) -> bool {
        !self.formatted.is_empty() || !self.gab.is_empty()
    }

    /// Whether a file of `format` is among the exports.
    pub fn holds(&self, format: Format) -> bool {
        self.formatted.iter().any(|(f, _)| *f == format)
    }

    /// Whether a github-action-benchmark file is asked for (the one export that reads the
    /// results documents themselves rather than what was rendered).
    pub fn writes_gab(&self) -> bool {
        !self.gab.is_empty()
    }

    /// Whether an export or stdout in `format` names entries by adapter: BMF, asked for
    /// anywhere, with `--export-adapter-names` (which needs the run it names).
    pub fn names_bmf(&self, format: Format) -> bool {
        self.adapter_names && (format == Format::Bmf || self.holds(Format::Bmf))
    }

    /// The BMF and github-action-benchmark prefix of each of `docs`' names, when asked for
    /// ([`gpubench_report::adapter_prefixes`]: the backend and then the adapter's index added
    /// only where runs would share one). Runs that would still share one are refused (exit
    /// 2): those formats keep one value per name, so one run's results would be lost.
    pub fn prefixes(&self, docs: &[&RunDocument]) -> anyhow::Result<Vec<Option<String>>> {
        if !self.adapter_names {
            return Ok(vec![None; docs.len()]);
        }
        let names = gpubench_report::adapter_prefixes(docs);
        if let Some(shared) = names
            .iter()
            .find(|name| names.iter().filter(|n| n == name).count() > 1)
        {
            return Err(UsageError(format!(
                "two runs would export their results under the same name {shared}/...: BMF and github-action-benchmark keep one value per name, so one run's results would be lost; export one run per adapter (a directory gives the newest of each unless --all-runs)"
            ))
            .into());
        }
        Ok(names.into_iter().map(Some).collect())
    }

    /// Writes every text export, `render` giving each format's text.
    pub fn write_rendered(
        &self,
        render: impl Fn(Format) -> anyhow::Result<String>,
    ) -> anyhow::Result<()> {
        for (format, path) in self.formatted() {
            write_export(
                &format!("--export-{}", format.name()),
                path,
                &render(format)?,
            )?;
            note!("{} export written to {}", format.name(), path.display());
        }
        Ok(())
    }

    /// Writes every `--export-gab` pair for `docs` (one run, or several merged under
    /// adapter names).
    pub fn write_gab(&self, docs: &[&RunDocument]) -> anyhow::Result<()> {
        if self.gab.is_empty() {
            return Ok(());
        }
        let (mut bigger, mut smaller) = (Vec::new(), Vec::new());
        for (doc, prefix) in docs.iter().zip(self.prefixes(docs)?) {
            let export = gab_export_named(doc, prefix.as_deref())?;
            bigger.extend(json_array(&export.bigger_is_better)?);
            smaller.extend(json_array(&export.smaller_is_better)?);
        }
        let bigger = serde_json::to_string_pretty(&bigger)? + "\n";
        let smaller = serde_json::to_string_pretty(&smaller)? + "\n";
        for path in &self.gab {
            let companion = companion_path(path);
            write_export("--export-gab", path, &bigger)?;
            write_export("--export-gab's companion", &companion, &smaller)?;
            note!(
                "github-action-benchmark export written to {} and {}",
                path.display(),
                companion.display()
            );
        }
        Ok(())
    }

    /// Refuses exports that cannot hold several runs without their names colliding: BMF and
    /// github-action-benchmark name entries by benchmark id, so several runs need
    /// `--export-adapter-names` (or distinct ids).
    pub fn check_several(&self, docs: usize, format: Format) -> anyhow::Result<()> {
        let keyed = format == Format::Bmf || self.holds(Format::Bmf) || !self.gab.is_empty();
        if docs > 1 && keyed && !self.adapter_names {
            return Err(UsageError(format!(
                "BMF and github-action-benchmark name entries by benchmark id, so {docs} runs would collide: add --export-adapter-names to name them by adapter and host"
            ))
            .into());
        }
        Ok(())
    }
}

/// Several runs in one text: the table and Markdown one after another under each run's label,
/// CSV as one table (each row carries its adapter, host and time), JSON as an array, BMF
/// merged (names prefixed when asked).
pub fn render_runs(
    format: Format,
    runs: &[(String, &RunDocument)],
    style: &TableStyle,
    exports: &ExportPlan,
) -> anyhow::Result<String> {
    let docs: Vec<&RunDocument> = runs.iter().map(|(_, doc)| *doc).collect();
    let prefixes = exports.prefixes(&docs)?;
    if let ([(_, doc)], [prefix]) = (runs, prefixes.as_slice()) {
        return render_one(format, doc, style, prefix.as_deref());
    }
    Ok(match format {
        Format::Table | Format::Markdown => {
            let mut out = String::new();
            for ((label, doc), prefix) in runs.iter().zip(&prefixes) {
                // A label is a path a user or a directory listing gave: on one line, and shown
                // literally (no escape sequence reaches the terminal, no markup the page).
                let heading = match format {
                    Format::Markdown => format!("## {}\n\n", printable(&markdown_text(label))),
                    _ => format!("== {} ==\n", printable_line(label)),
                };
                out.push_str(&heading);
                out.push_str(&render_one(format, doc, style, prefix.as_deref())?);
                out.push('\n');
            }
            out
        }
        Format::Csv => {
            let mut out = String::new();
            for (i, (_, doc)) in runs.iter().enumerate() {
                let text = format.render(*doc, style)?;
                // The header is the first line (no header cell holds a line break).
                let body = if i == 0 {
                    text.as_str()
                } else {
                    text.split_once('\n').map_or("", |(_, rest)| rest)
                };
                out.push_str(body);
            }
            out
        }
        Format::Json => {
            gpubench_report::numbers::json_text(serde_json::to_string_pretty(&docs)? + "\n")
        }
        Format::Bmf => {
            let mut merged = serde_json::Map::new();
            for ((_, doc), prefix) in runs.iter().zip(&prefixes) {
                let text = render_one(format, doc, style, prefix.as_deref())?;
                let serde_json::Value::Object(entries) = serde_json::from_str(&text)? else {
                    anyhow::bail!("the BMF export is not a JSON object");
                };
                merged.extend(entries);
            }
            gpubench_report::numbers::json_text(
                serde_json::to_string_pretty(&serde_json::Value::Object(merged))? + "\n",
            )
        }
    })
}

/// One run in `format`; BMF names under `prefix` when there is one.
pub fn render_one(
    format: Format,
    doc: &RunDocument,
    style: &TableStyle,
    prefix: Option<&str>,
) -> anyhow::Result<String> {
    Ok(match format {
        Format::Bmf => gpubench_report::bmf::render_run_named(doc, prefix)?,
        other => other.render(doc, style)?,
    })
}

/// The entries of a JSON array the export wrote.
fn json_array(text: &str) -> anyhow::Result<Vec<serde_json::Value>> {
    serde_json::from_str(text).context("the github-action-benchmark export is not a JSON array")
}

/// Writes one export atomically, the flag named on failure.
fn write_export(flag: &str, path: &Path, text: &str) -> anyhow::Result<()> {
    write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {flag} {}", path.display()))
}
