//! Markdown (GitHub-flavoured): for pull-request comments and job summaries. The same text as
//! the terminal table ([`crate::run_text`]), drawn with pipes.

use gpubench_baseline::{Comparison, CrossTable};
use gpubench_results::RunDocument;

use crate::ReportError;
use crate::comparison::{ComparisonText, cross_text};
use crate::grid::markdown_text;
use crate::numbers::printable;
use crate::run_text::run_text;

/// The run in this format: the same heading, grids, latency percentiles, notes and legend as
/// the terminal table.
pub fn render_run(doc: &RunDocument) -> Result<String, ReportError> {
    let text = run_text(doc, true);
    let md = markdown_text;
    let mut out = format!("## gpubench: {}\n\n", md(&doc.machine.adapter.name));
    for line in &text.heading {
        out.push_str(&format!("- {}\n", md(line)));
    }
    for suite in &text.suites {
        out.push_str(&format!("\n### {}\n\n", md(&suite.suite)));
        // Reasons too long for their cell whole under the table, as the terminal has them.
        let (grid, notes) = crate::table::footnoted_suite(suite, doc);
        out.push_str(&grid.to_markdown());
        let reasons = notes.lines();
        if !reasons.is_empty() {
            out.push('\n');
        }
        for reason in &reasons {
            out.push_str(&format!("{}\n\n", md(reason)));
        }
        if !suite.findings.is_empty() {
            out.push('\n');
        }
        for finding in &suite.findings {
            out.push_str(&format!("- {}\n", md(finding)));
        }
        // The tail the terminal shows under the suite (p95, p99), for a job summary too.
        let rows: Vec<_> = suite.rows.iter().map(|&i| &doc.results[i]).collect();
        if let Some(latency) = crate::table::blocks::latency_grid(&suite.suite, &rows) {
            out.push('\n');
            out.push_str(&latency.to_markdown());
        }
    }
    if !text.notes.is_empty() {
        out.push_str(&warnings_block(&text.notes));
    }
    out.push('\n');
    for line in &text.legend {
        out.push_str(&format!("{}\n", md(line)));
    }
    Ok(printable(&out))
}

/// The run's warnings, folded into one `<details>` block when there are more than a few, so a
/// pull-request comment shows the tables and the comparison first; a blank line after
/// `<summary>` lets GitHub render the list inside as Markdown.
fn warnings_block(notes: &[String]) -> String {
    let list: String = notes
        .iter()
        .map(|note| format!("- {}\n", markdown_text(note)))
        .collect();
    if notes.len() <= FOLDED_WARNINGS {
        return format!("\n{list}");
    }
    format!(
        "\n<details>\n<summary>{} warnings (every one is also in the results file)</summary>\n\n{list}\n</details>\n",
        notes.len()
    )
}

/// More warnings than this are folded away.
const FOLDED_WARNINGS: usize = 3;

/// A comparison in this format.
pub fn render_comparison(comparison: &Comparison) -> Result<String, ReportError> {
    // A reason too long for its cell is marked there and kept whole under the table, as the
    // terminal keeps it: a job summary is where a failure is read.
    let (mut text, notes) = crate::table::footnoted_comparison(comparison);
    text.notes.splice(0..0, notes.lines());
    Ok(render_text("gpubench comparison", &text))
}

/// A cross-card table in this format.
pub fn render_cross(table: &CrossTable) -> Result<String, ReportError> {
    Ok(render_text(
        "gpubench cross-card comparison",
        &cross_text(table),
    ))
}

fn render_text(title: &str, text: &ComparisonText) -> String {
    let mut out = format!("## {title}\n\n");
    for line in &text.heading {
        out.push_str(&format!("- {}\n", markdown_text(line)));
    }
    out.push('\n');
    out.push_str(&text.grid.to_markdown());
    out.push('\n');
    for note in &text.notes {
        out.push_str(&format!("{}\n\n", markdown_text(note)));
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    printable(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::sig3;

    #[test]
    fn a_suites_latency_percentiles_are_a_table_of_their_own() {
        use gpubench_results::stats::latency_summary;
        let mut doc = gpubench_baseline::testing::doc_with("Card", false);
        assert!(!render_run(&doc).expect("md").contains("p95 us"));
        let ns: Vec<u64> = (1..=100u64).map(|us| us * 1000).collect();
        let summary = latency_summary(&ns).expect("a summary");
        let (p95, p99) = (summary.p95().expect("p95"), summary.p99().expect("p99"));
        let id = doc.results[0].id.clone();
        doc.results[0].latency = Some(Box::new(summary));
        let md = render_run(&doc).expect("md");
        assert!(
            md.contains("latency | p50 us | p95 us | p99 us | max us |"),
            "{md}"
        );
        let short = id.split_once('/').map_or(id.as_str(), |(_, rest)| rest);
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {short} | ")) && l.contains(&sig3(p99)))
            .expect("the result's latency row");
        assert!(row.contains(&format!("| {} |", sig3(p95))), "{row}");
    }

    #[test]
    fn a_few_warnings_stay_a_list_and_many_fold_into_details() {
        let notes = |n: usize| (0..n).map(|i| format!("warning {i}")).collect::<Vec<_>>();
        let few = warnings_block(&notes(FOLDED_WARNINGS));
        assert!(
            !few.contains("<details>") && few.contains("- warning 0\n"),
            "{few}"
        );
        let many = warnings_block(&notes(22));
        assert!(many.contains("<details>\n<summary>22 warnings"), "{many}");
        assert!(many.contains("</summary>\n\n- warning 0\n"), "{many}");
        assert!(many.trim_end().ends_with("</details>"), "{many}");
    }
}
