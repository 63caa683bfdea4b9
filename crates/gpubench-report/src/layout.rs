//! How wide the terminal output may be. Piped output keeps its full width (a file or a script
//! reads every cell and every sentence on one line); a terminal's width is fitted: tables drop
//! their less important columns and wrap free text at word boundaries, and prose wraps at word
//! boundaries, so an 80-column terminal never breaks an id or a word.

use comfy_table::{ColumnConstraint, ContentArrangement, Row, Table, Width, presets};

/// The crate's terminal table: `header` over the rows still to be added, in the condensed
/// UTF-8 frame, fitted to `width` columns ([`arrange`]; `None` keeps every cell on one line).
pub(crate) fn framed_table(header: impl Into<Row>, width: Option<u16>) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_header(header);
    arrange(&mut table, width);
    table
}

/// Fits `table` (its header already set) to `width` columns when given, else leaves every cell
/// on one line. Fitted, the first column (the ids) is kept whole and no column is narrower than
/// its header's longest word, so names (paths, ids) in the header never break either.
pub fn arrange(table: &mut Table, width: Option<u16>) {
    match width {
        Some(width) => {
            let words: Vec<u16> = table
                .header()
                .map(|header| {
                    header
                        .cell_iter()
                        .map(|cell| {
                            let content = cell.content();
                            let longest = content.split_whitespace().map(text_width).max();
                            u16::try_from(longest.unwrap_or(0)).unwrap_or(u16::MAX)
                        })
                        .collect()
                })
                .unwrap_or_default();
            table
                .set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(width);
            for (i, column) in table.column_iter_mut().enumerate() {
                if i == 0 {
                    column.set_constraint(ColumnConstraint::ContentWidth);
                } else if let Some(&word) = words.get(i) {
                    // The boundary counts the padding, one space either side.
                    column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
                        word.saturating_add(2),
                    )));
                }
            }
        }
        None => {
            table.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
}

/// The terminal's width when stdout is a terminal (the width tables are fitted to), else `None`.
pub fn terminal_width() -> Option<u16> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .or_else(|| Table::new().width())
}

/// How many terminal columns `text` takes: one per character (the text gpubench writes is
/// narrow: ASCII, `±`, box drawing).
pub fn text_width(text: &str) -> usize {
    text.chars().count()
}

/// The widest line of `text`, in terminal columns.
pub fn widest_line(text: &str) -> usize {
    text.lines().map(text_width).max().unwrap_or(0)
}

/// `line` wrapped at spaces to `width` columns. A word is never broken: one longer than the
/// width stands alone on its line. Continuation lines keep the line's indentation and add two
/// spaces, so a wrapped list item still reads as one.
pub fn wrap_words(line: &str, width: usize) -> Vec<String> {
    if text_width(line) <= width {
        return vec![line.to_string()];
    }
    let indent_len = line.len() - line.trim_start_matches(' ').len();
    let indent = &line[..indent_len];
    let hanging = format!("{indent}  ");
    let mut lines = Vec::new();
    let mut current = indent.to_string();
    let mut current_has_word = false;
    for word in line[indent_len..].split(' ').filter(|w| !w.is_empty()) {
        if current_has_word && text_width(&current) + 1 + text_width(word) > width {
            lines.push(std::mem::replace(&mut current, hanging.clone()));
            current_has_word = false;
        }
        if current_has_word {
            current.push(' ');
        }
        current.push_str(word);
        current_has_word = true;
    }
    if current_has_word {
        lines.push(current);
    }
    lines
}

/// A name (a path in a pivot's header) split after its hyphens into lines of about `max`
/// columns, for a header too wide to keep on one line; the parts never break between hyphens.
pub fn split_at_hyphens(name: &str, max: usize) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    for part in name.split_inclusive('-') {
        let last = lines.len() - 1;
        if !lines[last].is_empty() && text_width(&lines[last]) + text_width(part) > max {
            lines.push(String::new());
        }
        let last = lines.len() - 1;
        lines[last].push_str(part);
    }
    lines.join("\n")
}

/// Prose lines as printed: each wrapped at word boundaries to `width` when there is one, left
/// whole on one line when piped (`None`). Every line ends with a line break.
pub fn prose(lines: &[String], width: Option<u16>) -> String {
    let mut out = String::new();
    for line in lines {
        for text_line in line.split('\n') {
            match width {
                Some(width) => {
                    for wrapped in wrap_words(text_line, usize::from(width)) {
                        out.push_str(&wrapped);
                        out.push('\n');
                    }
                }
                None => {
                    out.push_str(text_line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_spaces_and_never_inside_a_word() {
        let line = "value: median of the samples; host: the same work timed submit-to-completion";
        let wrapped = wrap_words(line, 30);
        assert!(wrapped.len() > 1, "{wrapped:?}");
        for l in &wrapped {
            assert!(text_width(l) <= 30, "{l:?}");
        }
        let words: Vec<&str> = wrapped.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words, line.split_whitespace().collect::<Vec<_>>());
        // A word longer than the width stays whole on its own line.
        let long = wrap_words("a reallyreallylongword b", 8);
        assert_eq!(long, ["a", "  reallyreallylongword", "  b"]);
        // Indented lines keep their indentation and hang under it.
        assert_eq!(
            wrap_words("  1 x kind: a, b", 10),
            ["  1 x", "    kind:", "    a, b"]
        );
        assert_eq!(prose(&[line.to_string()], None), format!("{line}\n"));
        assert_eq!(
            split_at_hyphens("h2d-mapped-at-creation", 12),
            "h2d-mapped-\nat-creation"
        );
        assert_eq!(split_at_hyphens("host", 2), "host");
        assert_eq!(prose(&["x".into(), "y".into()], Some(80)), "x\ny\n");
    }
}
