//! Reports: one [`Format`] enum, one module per format. Rendering returns text; the CLI decides
//! where it goes.
//!
//! A format renders ([`Format::render`]) a run document, a comparison of two runs with verdicts
//! and the cross-card table of several (each a [`Rendered`]). The text formats share one
//! [`grid::Grid`] of cells and differ only in how they draw it, as hyperfine's markup exporters
//! do. Skipped and failed results never show a number: their cells carry the status and reason.

pub mod bmf;
pub mod comparison;
pub mod csv;
pub mod gab;
pub mod grid;
pub mod html;
pub mod json;
pub mod layout;
pub mod link;
pub mod markdown;
pub mod measured;
pub mod numbers;
pub mod paired;
pub mod run_text;
pub mod table;

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::RunDocument;

/// Errors from rendering a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Serialising to JSON failed.
    #[error("could not serialise the report: {0}")]
    Json(#[from] serde_json::Error),
    /// Drawing a chart failed.
    #[error("could not draw a chart: {0}")]
    Chart(String),
    /// The format cannot express this report.
    #[error("{0}")]
    Unsupported(String),
}

/// A report's format: the one enum behind `--format`, rendering runs, comparisons and
/// cross-card tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// The terminal table.
    Table,
    /// JSON: the results document, or a comparison's full structure.
    Json,
    /// CSV, one row per result or pair.
    Csv,
    /// GitHub-flavoured Markdown, for pull-request comments and job summaries.
    Markdown,
    /// Bencher Metric Format.
    Bmf,
}

/// A document the formats render: a run, a comparison of two runs, or runs side by side.
pub trait Rendered {
    /// This document in `format`; `style` shapes the terminal table.
    fn render_in(&self, format: Format, style: &table::TableStyle) -> Result<String, ReportError>;
}

/// Implements [`Rendered`] for each document type by its format modules' function of the given
/// name: the one place a [`Format`] picks its module. Every format module names its renderers
/// alike (`render_run`, `render_comparison`, `render_cross`); the terminal table's alone take
/// the style too.
macro_rules! rendered_by {
    ($($document:ty => $function:ident),* $(,)?) => {$(
        impl Rendered for $document {
            fn render_in(
                &self,
                format: Format,
                style: &table::TableStyle,
            ) -> Result<String, ReportError> {
                match format {
                    Format::Table => table::$function(style, self),
                    Format::Json => json::$function(self),
                    Format::Csv => csv::$function(self),
                    Format::Markdown => markdown::$function(self),
                    Format::Bmf => bmf::$function(self),
                }
            }
        }
    )*};
}

rendered_by!(
    RunDocument => render_run,
    Comparison => render_comparison,
    CrossTable => render_cross,
);

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 5] = [
        Format::Table,
        Format::Json,
        Format::Csv,
        Format::Markdown,
        Format::Bmf,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Bmf => "bmf",
        }
    }

    /// The format called `name` (as [`Format::name`] writes it).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// A document (a run, a comparison, runs side by side) in this format; `style` shapes the
    /// terminal table.
    pub fn render<D: Rendered>(
        self,
        document: &D,
        style: &table::TableStyle,
    ) -> Result<String, ReportError> {
        document.render_in(self, style)
    }
}

/// The prefix that tells one machine's exported benchmarks from another's: the adapter's name
/// as a slug, with the host's when the file records one (`gpu-node-3/nvidia-h200`): a fleet of
/// identical cards is told apart by host, one machine's several cards by adapter.
pub fn adapter_prefix(doc: &RunDocument) -> String {
    let adapter = gpubench_results::schema::slug(&doc.machine.adapter.name);
    match doc.machine.hostname.as_deref() {
        Some(host) => format!("{}/{adapter}", gpubench_results::schema::slug(host)),
        None => adapter,
    }
}

/// The prefixes that tell several runs' exported benchmarks apart: each run's
/// [`adapter_prefix`], with its backend added where two runs share it (Vulkan and GL on one
/// card: `node/llvmpipe-vulkan`) and then the adapter's index where they still do (identical
/// cards in one host: `node/nvidia-h200-vulkan-3`). A prefix no other run shares stays as it
/// was, so existing series keep their names and history. Runs that still share one (one adapter
/// run twice) keep sharing it: the caller refuses that.
pub fn adapter_prefixes(docs: &[&RunDocument]) -> Vec<String> {
    let mut names: Vec<String> = docs.iter().map(|doc| adapter_prefix(doc)).collect();
    let discriminators: [&dyn Fn(&RunDocument) -> String; 2] = [
        &|doc| gpubench_results::schema::slug(&doc.machine.adapter.backend),
        &|doc| doc.machine.adapter.index.to_string(),
    ];
    for discriminator in discriminators {
        let shared: Vec<bool> = (0..names.len())
            .map(|i| names.iter().filter(|n| **n == names[i]).count() > 1)
            .collect();
        for (i, doc) in docs.iter().enumerate() {
            if shared[i] {
                names[i] = format!("{}-{}", names[i], discriminator(doc));
            }
        }
    }
    names
}

/// `name`, under `prefix` when there is one.
fn prefixed(prefix: Option<&str>, name: &str) -> String {
    match prefix {
        Some(prefix) => format!("{prefix}/{name}"),
        None => name.to_string(),
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::doc_with;

    #[test]
    fn prefixes_grow_only_where_runs_would_share_one() {
        let mut card = doc_with("NVIDIA H200", false);
        card.machine.hostname = Some("node".to_string());
        let other = doc_with("AMD Radeon RX 7900 XTX", false);
        let mut gl = card.clone();
        gl.machine.adapter.backend = "gl".to_string();
        let mut twin = card.clone();
        twin.machine.adapter.index = 1;
        assert_eq!(
            adapter_prefixes(&[&card, &other]),
            ["node/nvidia-h200", "amd-radeon-rx-7900-xtx"],
            "distinct runs keep the names their series have always had"
        );
        assert_eq!(
            adapter_prefixes(&[&card, &gl, &twin]),
            [
                "node/nvidia-h200-vulkan-0",
                "node/nvidia-h200-gl",
                "node/nvidia-h200-vulkan-1"
            ]
        );
        assert_eq!(
            adapter_prefixes(&[&card, &card]),
            ["node/nvidia-h200-vulkan-0", "node/nvidia-h200-vulkan-0"],
            "the same run twice cannot be told apart: the caller refuses it"
        );
    }
}
