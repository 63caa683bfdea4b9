//! The verdict tables of a several-file page: each later file against the first, computed by
//! the comparison itself (`gpubench_baseline::compare`, the same call `gpubench compare` makes),
//! so that the page shows the very ratio, 95% interval, band and verdict the command line does.
//! Across adapters the comparison gives ratios only; the page says so on every such row.

use gpubench_baseline::compare::{CompareOptions, Mode, compare};
use gpubench_baseline::{Comparison, PairComparison, Verdict};
use gpubench_results::RunDocument;
use maud::{Markup, html};

use super::{table_of, titled_section};
use crate::comparison::comparison_text;

/// What a cross-machine row says instead of a verdict.
pub const NO_VERDICT: &str = "no verdict (different adapters)";

/// One verdict table per later file, against the first.
pub fn section(labelled: &[(String, RunDocument)]) -> Markup {
    let Some((base_label, base)) = labelled.first() else {
        return html! {};
    };
    titled_section(
        "Verdicts against the first file",
        Some("verdicts"),
        html! {
            @for (label, doc) in &labelled[1..] {
                (table(&compare(base_label, base, label, doc, &CompareOptions::default())))
            }
        },
    )
}

/// The table of one comparison, under its heading lines and over its notes.
fn table(cmp: &Comparison) -> Markup {
    let text = comparison_text(cmp);
    let header: Vec<&str> = text.grid.header.iter().map(String::as_str).collect();
    // The grid has one row per pair, in order: its cells are the comparison's own numbers.
    let rows: Vec<Markup> = cmp
        .pairs
        .iter()
        .zip(&text.grid.rows)
        .map(|(pair, row)| {
            html! {
                tr class=(pair.verdict.as_str()) {
                    @for (i, cell) in row.iter().enumerate() {
                        td class=[text.grid.numeric.contains(&i).then_some("num")] {
                            (shown_cell(cmp, pair, (i, row.len()), cell))
                        }
                    }
                }
            }
        })
        .collect();
    html! {
        h3 { (cmp.new.label) " against " (cmp.base.label) }
        "\n"
        @for line in text.heading.iter().chain(&text.notes) {
            p class="note" { (line) }
            "\n"
        }
        details {
            summary { (cmp.pairs.len()) " results: ratio, its 95% interval, band and verdict" }
            "\n"
            (table_of(Some("results verdict"), &header, &rows))
        }
        "\n"
    }
}

/// What cell `i` of a row of `len` cells shows: the verdict cell of a cross-machine row that
/// has only a ratio says so.
fn shown_cell<'a>(
    cmp: &Comparison,
    pair: &PairComparison,
    (i, len): (usize, usize),
    cell: &'a str,
) -> &'a str {
    if i + 1 == len && cmp.mode == Mode::CrossMachine && pair.verdict == Verdict::RatioOnly {
        NO_VERDICT
    } else {
        cell
    }
}
