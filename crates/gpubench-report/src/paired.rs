//! A paired comparison (`gpubench ab`) in each format: one row per benchmark with its rounds,
//! the median ratio of the best samples, the order-statistic interval and its coverage, the
//! band, and the verdict, "too noisy to judge" spelled out.

use gpubench_baseline::verdict::Verdict;
use gpubench_baseline::{PairedComparison, PairedRow};

use crate::grid::Grid;
use crate::numbers::{plus_minus_percent, ratio, ratio_interval};
use crate::{Format, ReportError};

/// What a verdict reads in a paired table.
pub fn verdict_text(row: &PairedRow) -> &'static str {
    match row.verdict {
        Verdict::Inconclusive => "too noisy to judge",
        Verdict::StatusChanged => "lost",
        other => other.as_str(),
    }
}

/// The rows as a grid: id, rounds, median ratio, interval (and coverage), band, verdict, note.
pub fn paired_grid(cmp: &PairedComparison) -> Grid {
    let mut grid = Grid::new(&[
        "benchmark",
        "rounds",
        "ratio",
        "interval",
        "band",
        "verdict",
        "note",
    ])
    .numeric(&[1, 2]);
    for row in &cmp.rows {
        let (median, interval) = match (&row.estimate, row.coverage) {
            (Some(e), Some(c)) => (
                ratio(e.ratio),
                format!(
                    "{} ({:.0}%)",
                    ratio_interval(e.ci_low, e.ci_high),
                    c * 100.0
                ),
            ),
            _ => ("-".to_string(), "-".to_string()),
        };
        grid.push(vec![
            row.id.clone(),
            row.ratios.len().to_string(),
            median,
            interval,
            plus_minus_percent(row.band),
            verdict_text(row).to_string(),
            row.note.clone().unwrap_or_default(),
        ]);
    }
    grid
}

/// One line that counts the verdicts, e.g. `6 rounds: 10 unchanged, 1 too noisy to judge`.
pub fn summary_line(cmp: &PairedComparison) -> String {
    let mut parts: Vec<(&str, usize)> = Vec::new();
    for row in &cmp.rows {
        let text = verdict_text(row);
        match parts.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => parts.push((text, 1)),
        }
    }
    let counts: Vec<String> = parts.iter().map(|(t, n)| format!("{n} {t}")).collect();
    format!(
        "{} rounds, base and head in turn: {}",
        cmp.rounds,
        counts.join(", ")
    )
}

/// The comparison in `format` (BMF holds one run's values and has no place for it).
pub fn render(
    cmp: &PairedComparison,
    format: Format,
    width: Option<u16>,
) -> Result<String, ReportError> {
    let legend = "ratio: head against base of each round's best sample, oriented so that > 1 is \
                  faster, the median over the rounds; interval: the sign test's interval of that \
                  median, with its coverage; a verdict needs the whole interval beyond (or inside) \
                  the band";
    match format {
        Format::Json => Ok(serde_json::to_string_pretty(cmp)? + "\n"),
        Format::Csv => Ok(crate::numbers::printable(&paired_grid(cmp).to_csv())),
        Format::Markdown => Ok(crate::numbers::printable(&format!(
            "{}\n\n{}\n{}\n",
            crate::grid::markdown_text(&summary_line(cmp)),
            paired_grid(cmp).to_markdown(),
            crate::grid::markdown_text(legend)
        ))),
        Format::Table => Ok(format!(
            "{}\n{}\n{}\n",
            crate::numbers::printable_line(&summary_line(cmp)),
            paired_grid(cmp).to_table(width),
            crate::layout::prose(&[legend.to_string()], width).trim_end()
        )),
        Format::Bmf => Err(ReportError::Unsupported(
            "BMF holds one run's values, not a paired comparison; use table, json, csv or md"
                .to_string(),
        )),
    }
}
