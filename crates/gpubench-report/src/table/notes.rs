//! The warnings under the terminal table, grouped: one line per kind with its count and the
//! worst cases, since a quick run on a software adapter gives a hundred of them (variation above
//! target, outliers, a slow first run) and a list that long hides the one that matters. Every
//! warning stays in the results file; `--verbose` lists them all here.
//!
//! A kind is a warning's text before its first `:` with the numbers taken out, so warnings that
//! differ only in their figures are one kind, whatever produced them.

use std::collections::BTreeMap;

use gpubench_results::RunDocument;

/// Worst cases named per kind.
const WORST: usize = 3;

/// The warning lines: the run's own, then the results' (grouped unless `verbose`).
pub fn warning_lines(doc: &RunDocument, verbose: bool) -> Vec<String> {
    let mut lines: Vec<String> = doc
        .warnings
        .iter()
        .map(|w| format!("warning: {w}"))
        .collect();
    let per_result: Vec<(&str, &str)> = doc
        .results
        .iter()
        .flat_map(|r| r.warnings.iter().map(move |w| (r.id.as_str(), w.as_str())))
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
    let mut kinds: BTreeMap<String, Vec<(&str, &str)>> = BTreeMap::new();
    for &(id, text) in &per_result {
        kinds.entry(kind(text)).or_default().push((id, text));
    }
    let results = {
        let mut ids: Vec<&str> = per_result.iter().map(|(id, _)| *id).collect();
        ids.dedup();
        ids.len()
    };
    lines.push(format!(
        "warnings: {} on {results} results, by kind (all in the results file; --verbose lists each):",
        per_result.len()
    ));
    let mut grouped: Vec<(String, Vec<(&str, &str)>)> = kinds.into_iter().collect();
    grouped.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    for (kind, mut cases) in grouped {
        let ascending = kind.contains("short");
        cases.sort_by(|a, b| {
            let (x, y) = (first_number(a.1), first_number(b.1));
            if ascending {
                x.total_cmp(&y)
            } else {
                y.total_cmp(&x)
            }
        });
        let worst: Vec<String> = cases
            .iter()
            .take(WORST)
            .map(|(id, text)| match first_figure(text) {
                Some(figure) => format!("{id} ({figure})"),
                None => id.to_string(),
            })
            .collect();
        lines.push(format!(
            "  {:>3} x {}: {}{}",
            cases.len(),
            label(&kind),
            worst.join(", "),
            if cases.len() > WORST { ", ..." } else { "" }
        ));
    }
    lines
}

/// The text before the first `:`, each number replaced by `#`.
fn kind(text: &str) -> String {
    let clause = text.split(':').next().unwrap_or(text);
    let mut out = String::new();
    let mut in_number = false;
    for c in clause.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

/// A kind in words: without its parenthesis and the words that held numbers
/// (`# of # samples are outliers` -> `samples are outliers`), at most 60 characters.
fn label(kind: &str) -> String {
    let head = kind.split(" (").next().unwrap_or(kind);
    let mut words = Vec::new();
    let mut after_number = false;
    for word in head.split_whitespace() {
        if word.contains('#') || (after_number && word == "of") {
            after_number = true;
            continue;
        }
        after_number = false;
        words.push(word);
    }
    let text = words.join(" ");
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(57).collect::<String>())
    } else {
        text
    }
}

/// The first number in a warning (its headline figure), for ordering.
fn first_number(text: &str) -> f64 {
    first_figure(text)
        .and_then(|f| f.trim_end_matches(['%', 'x']).parse().ok())
        .unwrap_or(0.0)
}

/// The first number in a warning with the unit sign right after it (`96.5%`, `12x`).
fn first_figure(text: &str) -> Option<String> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let rest = &text[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let number = rest[..end].trim_end_matches('.');
    let sign = rest[end..]
        .chars()
        .next()
        .filter(|c| *c == '%' || *c == 'x');
    Some(format!(
        "{number}{}",
        sign.map(String::from).unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::doc_with;

    fn doc(warnings: &[(&str, &str)]) -> RunDocument {
        let mut doc = doc_with("Card", false);
        let template = doc.results[0].clone();
        doc.results.clear();
        for (id, text) in warnings {
            let mut r = template.clone();
            r.id = id.to_string();
            r.warnings = vec![text.to_string()];
            doc.results.push(r);
        }
        doc
    }

    #[test]
    fn warnings_that_differ_in_figures_are_one_line_with_the_worst_first() {
        let d = doc(&[
            (
                "a",
                "high variation (cv 9.0% above the 5.0% target): close other GPU work",
            ),
            (
                "b",
                "high variation (cv 31.2% above the 5.0% target): close other GPU work",
            ),
            (
                "c",
                "high variation (cv 12.0% above the 5.0% target): close other GPU work",
            ),
            (
                "d",
                "high variation (cv 5.5% above the 5.0% target): close other GPU work",
            ),
            (
                "e",
                "3 of 12 samples are outliers (beyond 1.5 IQR): another process",
            ),
        ]);
        let lines = warning_lines(&d, false);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].starts_with("warnings: 5 on 5 results"),
            "{}",
            lines[0]
        );
        assert_eq!(
            lines[1],
            "    4 x high variation: b (31.2%), c (12.0%), a (9.0%), ..."
        );
        assert_eq!(lines[2], "    1 x samples are outliers: e (3)");
        let all = warning_lines(&d, true);
        assert_eq!(all.len(), 5);
        assert!(all[1].starts_with("warning: b: high variation (cv 31.2%"));
    }

    #[test]
    fn kinds_and_labels() {
        assert_eq!(
            kind("first run was 12x slower than the median"),
            "first run was #x slower than the median"
        );
        assert_eq!(
            label("first run was #x slower than the median"),
            "first run was slower than the median"
        );
        assert_eq!(
            first_figure("first run was 12x slower"),
            Some("12x".to_string())
        );
        assert_eq!(first_figure("no figure"), None);
    }
}
