//! A table of text cells that the text formats draw in their own way: comfy-table for the
//! terminal, pipes for Markdown, commas for CSV. Builders decide the cells once.

use comfy_table::{Cell, CellAlignment, Table, presets};

/// Header and rows of text cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grid {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
    /// Columns (by index) whose cells are numbers, right-aligned where the format can.
    pub numeric: Vec<usize>,
}

impl Grid {
    /// A grid with this header.
    pub fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(ToString::to_string).collect(),
            rows: Vec::new(),
            numeric: Vec::new(),
        }
    }

    /// Marks columns as numeric.
    pub fn numeric(mut self, columns: &[usize]) -> Self {
        self.numeric = columns.to_vec();
        self
    }

    /// Adds a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// A terminal table, fitted to `width` columns when given.
    pub fn to_table(&self, width: Option<u16>) -> String {
        let mut table = Table::new();
        table
            .load_style(presets::UTF8_FULL_CONDENSED)
            .set_header(self.header.clone());
        crate::layout::arrange(&mut table, width);
        for row in &self.rows {
            table.add_row(row.iter().enumerate().map(|(i, text)| {
                let cell = Cell::new(text);
                if self.numeric.contains(&i) {
                    cell.set_alignment(CellAlignment::Right)
                } else {
                    cell
                }
            }));
        }
        table.to_string()
    }

    /// A GitHub-flavoured Markdown table.
    pub fn to_markdown(&self) -> String {
        let line = |cells: &[String]| {
            let escaped: Vec<String> = cells.iter().map(|c| markdown_cell(c)).collect();
            format!("| {} |\n", escaped.join(" | "))
        };
        let mut out = line(&self.header);
        let rule: Vec<String> = (0..self.header.len())
            .map(|i| {
                if self.numeric.contains(&i) {
                    "---:".to_string()
                } else {
                    "---".to_string()
                }
            })
            .collect();
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }

    /// RFC 4180 CSV with a header line.
    pub fn to_csv(&self) -> String {
        let line = |cells: &[String]| {
            let escaped: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
            escaped.join(",") + "\n"
        };
        let mut out = line(&self.header);
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// A Markdown cell: [`markdown_text`], line breaks folded.
pub fn markdown_cell(text: &str) -> String {
    markdown_text(text).replace(['\n', '\r'], " ")
}

/// Text as Markdown shows it literally, the one rule for every line gpubench writes there: `<`
/// becomes an entity (no `<img onerror=...>`, no autolink), and the characters that open links, code
/// spans and table cells (`[ ] | \\` and the backtick) are backslash-escaped, so a name from a
/// file cannot become markup, a `javascript:` link or a broken table.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            // `<` alone opens a tag or an autolink; `>` and `&` cannot make markup mid-line.
            '<' => out.push_str("&lt;"),
            '[' | ']' | '`' | '|' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A CSV field, quoted when it holds a comma, quote, line break or edge space.
pub fn csv_cell(text: &str) -> String {
    let needs_quotes =
        text.contains([',', '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ');
    if needs_quotes {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(markdown_cell("a|b\nc"), "a\\|b c");
        // Markup from a file stays text: no HTML, no link, no code span.
        assert_eq!(
            markdown_text("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)>"
        );
        assert_eq!(
            markdown_text("[x](javascript:alert(1)) `c` \\"),
            "\\[x\\](javascript:alert(1)) \\`c\\` \\\\"
        );
        assert_eq!(
            markdown_text("llvmpipe (LLVM 15.0.6) ±5%"),
            "llvmpipe (LLVM 15.0.6) ±5%"
        );
    }
}
