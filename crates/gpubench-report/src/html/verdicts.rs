//! The verdict tables of a several-file page: each later file against the first, computed by
//! the comparison itself (`gpubench_baseline::compare`, the same call `gpubench compare` makes),
//! so that the page shows the very ratio, 95% interval, band and verdict the command line does.
//! Across adapters the comparison gives ratios only; the page says so on every such row.

use gpubench_baseline::compare::{CompareOptions, Mode, compare};
use gpubench_baseline::{Comparison, Verdict};
use gpubench_results::RunDocument;

use super::escape;
use crate::comparison::comparison_text;

/// What a cross-machine row says instead of a verdict.
pub const NO_VERDICT: &str = "no verdict (different adapters)";

/// One verdict table per later file, against the first.
pub fn section(labelled: &[(String, RunDocument)]) -> String {
    let Some((base_label, base)) = labelled.first() else {
        return String::new();
    };
    let mut html =
        String::from("<section class=\"verdicts\">\n<h2>Verdicts against the first file</h2>\n");
    for (label, doc) in &labelled[1..] {
        let cmp = compare(base_label, base, label, doc, &CompareOptions::default());
        html.push_str(&table(&cmp));
    }
    html.push_str("</section>\n");
    html
}

/// The table of one comparison, under its heading lines and over its notes.
fn table(cmp: &Comparison) -> String {
    let text = comparison_text(cmp);
    let mut html = format!(
        "<h3>{} against {}</h3>\n",
        escape(&cmp.new.label),
        escape(&cmp.base.label)
    );
    for line in text.heading.iter().chain(&text.notes) {
        html.push_str(&format!("<p class=\"note\">{}</p>\n", escape(line)));
    }
    html.push_str(&format!(
        "<details><summary>{} results: ratio, its 95% interval, band and verdict</summary>\n<table class=\"results verdict\">\n<tr>",
        cmp.pairs.len()
    ));
    for h in &text.grid.header {
        html.push_str(&format!("<th>{}</th>", escape(h)));
    }
    html.push_str("</tr>\n");
    // The grid has one row per pair, in order: its cells are the comparison's own numbers.
    for (pair, row) in cmp.pairs.iter().zip(&text.grid.rows) {
        html.push_str(&format!("<tr class=\"{}\">", pair.verdict.as_str()));
        for (i, cell) in row.iter().enumerate() {
            let cell = if i + 1 == row.len()
                && cmp.mode == Mode::CrossMachine
                && pair.verdict == Verdict::RatioOnly
            {
                NO_VERDICT
            } else {
                cell
            };
            let class = if text.grid.numeric.contains(&i) {
                " class=\"num\""
            } else {
                ""
            };
            html.push_str(&format!("<td{class}>{}</td>", escape(cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</table>\n</details>\n");
    html
}
