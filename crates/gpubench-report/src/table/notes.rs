//! The warnings under the terminal table, grouped: one line per kind with its count and the
//! worst cases, since a quick run on a software adapter gives a hundred of them (variation above
//! target, outliers, a slow first run) and a list that long hides the one that matters. Every
//! warning stays in the results file; `--verbose` lists them all here.
//!
//! Warnings are stored typed (`{kind, message, figure}`), so grouping is a group-by on the kind
//! and the worst cases are the extreme figures. Warnings of old files (plain text) are kind
//! `other`, grouped together; a kind this gpubench does not know (a newer one wrote it) is
//! grouped by its name and shown with its messages.

use std::collections::BTreeMap;

use gpubench_results::RunDocument;
use gpubench_results::warnings::{Presentation, WarningKind, WarningRecord};

/// Worst cases named per kind.
const WORST: usize = 3;

/// The warning lines: the run's own, then the results' (grouped unless `verbose`).
pub fn warning_lines(doc: &RunDocument, verbose: bool) -> Vec<String> {
    let mut lines: Vec<String> = doc
        .warnings
        .iter()
        .map(|w| format!("warning: {w}"))
        .collect();
    let per_result: Vec<(&str, &WarningRecord)> = doc
        .results
        .iter()
        .flat_map(|r| r.warnings.iter().map(move |w| (r.id.as_str(), w)))
        .collect();
    if per_result.is_empty() {
        return lines;
    }
    if verbose {
        lines.extend(
            per_result
                .iter()
                .map(|(id, w)| format!("warning: {id}: {w}")),
        );
        return lines;
    }
    let mut kinds: BTreeMap<WarningKind, Vec<(&str, &WarningRecord)>> = BTreeMap::new();
    for &(id, warning) in &per_result {
        kinds.entry(warning.kind).or_default().push((id, warning));
    }
    let results = {
        let mut ids: Vec<&str> = per_result.iter().map(|(id, _)| *id).collect();
        ids.dedup();
        ids.len()
    };
    lines.push(format!(
        "warnings: {} on {results} results, by kind (all in the results file; the verbose table lists each):",
        per_result.len()
    ));
    let mut grouped: Vec<(WarningKind, Vec<(&str, &WarningRecord)>)> = kinds.into_iter().collect();
    grouped.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    for (kind, mut cases) in grouped {
        // The records of one kind share its presentation (the suite that owns it wrote them).
        let shown = cases.first().and_then(|(_, w)| w.presentation());
        let worst_is_lowest = shown.as_ref().is_some_and(|p| p.worst_is_lowest);
        cases.sort_by(|a, b| {
            let (x, y) = (a.1.figure.unwrap_or(0.0), b.1.figure.unwrap_or(0.0));
            if worst_is_lowest {
                x.total_cmp(&y)
            } else {
                y.total_cmp(&x)
            }
        });
        let worst: Vec<String> = cases
            .iter()
            .take(WORST)
            .map(|(id, warning)| case(shown.as_ref(), id, warning))
            .collect();
        lines.push(format!(
            "  {:>3} x {}: {}{}",
            cases.len(),
            label(kind, shown.as_ref()),
            worst.join(", "),
            if cases.len() > WORST { ", ..." } else { "" }
        ));
    }
    lines
}

/// A kind's label in the grouped notes; a kind nothing here can present (a newer gpubench's)
/// says so.
fn label(kind: WarningKind, shown: Option<&Presentation>) -> String {
    match shown {
        Some(shown) => shown.label.clone(),
        None => format!("{} (a kind unknown to this gpubench)", kind.name()),
    }
}

/// One case of a group: the result and its figure. A kind nothing here can present has no
/// label to explain it and no known unit for its figure, so its own message goes instead.
fn case(shown: Option<&Presentation>, id: &str, warning: &WarningRecord) -> String {
    match (shown, warning.figure) {
        (None, _) => format!("{id} ({})", warning.message),
        (Some(shown), Some(figure)) => format!("{id} ({})", shown.unit.show(figure)),
        (Some(_), None) => id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::doc_with;
    use gpubench_results::warnings::{FigureUnit, OwnedKind, Warning};

    fn doc(warnings: &[(&str, WarningRecord)]) -> RunDocument {
        let mut doc = doc_with("Card", false);
        let template = doc.results[0].clone();
        doc.results.clear();
        for (id, warning) in warnings {
            let mut r = template.clone();
            r.id = id.to_string();
            r.warnings = vec![warning.clone()];
            doc.results.push(r);
        }
        doc
    }

    const SLOWDOWN: OwnedKind =
        OwnedKind::new("slowdown", "the run slowed down", FigureUnit::Percent).worst_at_lowest();

    fn variation(cv: f64) -> WarningRecord {
        Warning::HighVariation { cv, target: 0.05 }.record()
    }

    #[test]
    fn warnings_of_one_kind_are_one_line_with_the_worst_first() {
        let d = doc(&[
            ("a", variation(0.09)),
            ("b", variation(0.312)),
            ("c", variation(0.12)),
            ("d", variation(0.055)),
            ("e", Warning::Outliers { count: 3, of: 12 }.record()),
            ("f", Warning::ShortSamples { median_us: 80.0 }.record()),
            ("g", Warning::ShortSamples { median_us: 20.0 }.record()),
            (
                "h",
                WarningRecord::new(WarningKind::Other, "a warning from an old file", None),
            ),
            (
                "i",
                WarningRecord::new(
                    WarningKind::from_name("power-capped").expect("a name"),
                    "the board hit its power cap",
                    Some(40.0),
                ),
            ),
            ("j", SLOWDOWN.record("slower by the end", Some(12.34))),
            ("k", SLOWDOWN.record("slower by the end", Some(3.0))),
        ]);
        let lines = warning_lines(&d, false);
        assert_eq!(lines.len(), 7, "{lines:?}");
        assert!(
            lines[0].starts_with("warnings: 11 on 11 results"),
            "{}",
            lines[0]
        );
        assert_eq!(
            lines[1],
            "    4 x high variation: b (31.2%), c (12.0%), a (9.0%), ..."
        );
        assert_eq!(
            lines[2],
            "    2 x samples are short: g (20.0 us), f (80.0 us)"
        );
        assert_eq!(
            lines[3], "    2 x the run slowed down: k (3.0%), j (12.3%)",
            "a suite's own kind, shown as its records say, lowest worst"
        );
        assert_eq!(lines[4], "    1 x samples are outliers: e (3)");
        assert_eq!(lines[5], "    1 x other: h");
        assert_eq!(
            lines[6],
            "    1 x power-capped (a kind unknown to this gpubench): i (the board hit its power cap)"
        );
        let all = warning_lines(&d, true);
        assert_eq!(all.len(), 11);
        assert!(all[1].starts_with("warning: b: high variation (cv 31.2%"));
        assert_eq!(
            all[8],
            "warning: i: power-capped: the board hit its power cap"
        );
    }
}
