//! A table of text cells that the text formats draw in their own way: comfy-table for the
//! terminal, pipes for Markdown, commas for CSV. Builders decide the cells once.

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};

use crate::layout::{text_width, wrap_words};
use crate::numbers::printable;

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

    /// A terminal table, fitted to `width` columns when given: the first column and numeric
    /// columns are kept whole, the other columns wrap at word boundaries.
    pub fn to_table(&self, width: Option<u16>) -> String {
        let wrap = (1..self.header.len())
            .filter(|i| !self.numeric.contains(i))
            .collect();
        TerminalGrid::new(self.clone(), wrap).render(width)
    }

    /// A GitHub-flavoured Markdown table.
    pub fn to_markdown(&self) -> String {
        let line = |cells: &[String]| {
            let escaped: Vec<String> = cells.iter().map(|c| markdown_text(c)).collect();
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

/// A grid as the terminal draws it: which columns hold free text (the only ones that may wrap,
/// at word boundaries) and which cells are coloured. Columns can be dropped or shortened to fit a
/// narrow terminal before it is drawn.
#[derive(Debug, Clone)]
pub struct TerminalGrid {
    /// The cells.
    pub grid: Grid,
    /// Columns (by index) of free text, which wrap when the table is wider than its width.
    pub wrap: Vec<usize>,
    /// Coloured cells: row, column, colour (drawn as ANSI styling by comfy-table).
    pub colors: Vec<(usize, usize, Color)>,
}

impl TerminalGrid {
    /// `grid`, with free text in the `wrap` columns and no colour.
    pub fn new(grid: Grid, wrap: Vec<usize>) -> Self {
        Self {
            grid,
            wrap,
            colors: Vec::new(),
        }
    }

    /// The index of the column named `name`, the first (the ids) excepted.
    pub fn column(&self, name: &str) -> Option<usize> {
        (1..self.grid.header.len()).find(|&i| self.grid.header[i] == name)
    }

    /// Removes column `column`, keeping the other columns' marks.
    pub fn drop_column(&mut self, column: usize) {
        if column >= self.grid.header.len() {
            return;
        }
        self.grid.header.remove(column);
        for row in &mut self.grid.rows {
            if column < row.len() {
                row.remove(column);
            }
        }
        let shift = |marks: &mut Vec<usize>| {
            marks.retain(|&c| c != column);
            for c in marks.iter_mut() {
                if *c > column {
                    *c -= 1;
                }
            }
        };
        shift(&mut self.grid.numeric);
        shift(&mut self.wrap);
        self.colors.retain(|&(_, c, _)| c != column);
        for (_, c, _) in &mut self.colors {
            if *c > column {
                *c -= 1;
            }
        }
    }

    /// Rewrites every cell of column `column` (not its header) with `short`.
    pub fn shorten_column(&mut self, column: usize, short: impl Fn(&str) -> String) {
        for row in &mut self.grid.rows {
            if let Some(cell) = row.get_mut(column) {
                *cell = short(cell);
            }
        }
    }

    /// How wide the table is drawn with every cell on one line.
    pub fn natural_width(&self) -> usize {
        crate::layout::widest_line(&self.draw(&self.escaped()))
    }

    /// How wide the table is drawn with its free-text columns wrapped at every space (their
    /// longest word), the narrowest wrapping can make it.
    pub fn narrowest_width(&self) -> usize {
        let cells = self.escaped();
        let columns = cells.header.len();
        (0..columns)
            .map(|c| {
                let texts = std::iter::once(&cells.header[c])
                    .chain(cells.rows.iter().filter_map(|r| r.get(c)));
                let widest = if self.wrap.contains(&c) {
                    texts
                        .flat_map(|t| t.split_whitespace())
                        .map(text_width)
                        .max()
                } else {
                    texts.flat_map(|t| t.lines()).map(text_width).max()
                };
                widest.unwrap_or(0) + 3
            })
            .sum::<usize>()
            + 1
    }

    /// The table, fitted to `width` columns when given by wrapping the free-text columns at
    /// word boundaries (ids and numbers never wrap), else with every cell on one line. Cells are
    /// made [`printable`] before they are laid out, so escapes count in the width and colour
    /// (added after) is never escaped.
    pub fn render(&self, width: Option<u16>) -> String {
        let mut cells = self.escaped();
        if let Some(width) = width {
            self.wrap_to(&mut cells, usize::from(width));
        }
        self.draw(&cells)
    }

    /// Header and rows, escaped, each cell at most [`MAX_CELL_CHARS`] characters: the table
    /// library lays a cell out in time that grows with the square of its length, and no
    /// terminal shows more (a 100 MB id from a hostile file is cut, with how much was cut; the
    /// file and the machine-readable formats keep it whole).
    fn escaped(&self) -> Grid {
        let mut grid = self.grid.clone();
        for cell in grid.header.iter_mut().chain(grid.rows.iter_mut().flatten()) {
            *cell = printable(&bounded_cell(cell));
        }
        grid
    }

    /// Wraps the free-text columns of `cells` so the table fits `width`, where it can.
    fn wrap_to(&self, cells: &mut Grid, width: usize) {
        let columns = cells.header.len();
        let column_width = |grid: &Grid, c: usize| {
            std::iter::once(&grid.header[c])
                .chain(grid.rows.iter().filter_map(|r| r.get(c)))
                .flat_map(|cell| cell.lines())
                .map(text_width)
                .max()
                .unwrap_or(0)
        };
        // Each column takes its text, a space either side and one border; one border closes.
        let frame = 3 * columns + 1;
        let fixed: usize = (0..columns)
            .filter(|c| !self.wrap.contains(c))
            .map(|c| column_width(cells, c))
            .sum();
        let free: Vec<usize> = self.wrap.iter().copied().filter(|&c| c < columns).collect();
        let wanted: usize = free.iter().map(|&c| column_width(cells, c)).sum();
        // Wrapping that cannot make the table fit (ids too long) would only add lines.
        if frame + fixed + wanted <= width || free.is_empty() || self.narrowest_width() > width {
            return;
        }
        let room = width.saturating_sub(frame + fixed);
        for &c in &free {
            let natural = column_width(cells, c);
            // Shares of the room in proportion to each column's natural width.
            let share = (room * natural).checked_div(wanted).unwrap_or(0).max(1);
            if share >= natural {
                continue;
            }
            let wrap_cell = |cell: &mut String| {
                let lines: Vec<String> = cell
                    .lines()
                    .flat_map(|line| wrap_words(line, share))
                    .map(|line| line.trim_start().to_string())
                    .collect();
                *cell = lines.join("\n");
            };
            wrap_cell(&mut cells.header[c]);
            for row in &mut cells.rows {
                if let Some(cell) = row.get_mut(c) {
                    wrap_cell(cell);
                }
            }
        }
    }

    /// Draws `cells` (already escaped and wrapped) with every line as given.
    fn draw(&self, cells: &Grid) -> String {
        let mut table = Table::new();
        table
            .load_style(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(cells.header.clone());
        if self.colors.is_empty() {
            table.force_no_tty();
        } else {
            table.enforce_styling();
        }
        for (r, row) in cells.rows.iter().enumerate() {
            table.add_row(row.iter().enumerate().map(|(i, text)| {
                let mut cell = Cell::new(text);
                if cells.numeric.contains(&i) {
                    cell = cell.set_alignment(CellAlignment::Right);
                }
                if let Some(&(_, _, color)) =
                    self.colors.iter().find(|&&(cr, cc, _)| cr == r && cc == i)
                {
                    cell = cell.fg(color);
                }
                cell
            }));
        }
        table.to_string()
    }
}

/// The most characters of one cell the terminal table shows.
pub const MAX_CELL_CHARS: usize = 2000;

/// `text`, or its first [`MAX_CELL_CHARS`] characters and how many more there were.
fn bounded_cell(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_CELL_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => {
            let more = text[cut..].chars().count();
            std::borrow::Cow::Owned(format!("{}... ({more} more characters)", &text[..cut]))
        }
    }
}

/// Text as Markdown shows it literally, the one rule for every line gpubench writes there: `<`
/// becomes an entity (no `<img onerror=...>`, no autolink), and the characters that open links, code
/// spans and table cells (`[ ] | \\` and the backtick) are backslash-escaped, and a line break
/// is folded into a space, so a name from a file cannot become markup, a `javascript:` link,
/// a broken table or a line (a heading, a list item) of its own.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
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
    fn a_huge_cell_is_cut_for_the_terminal_saying_how_much() {
        let mut grid = Grid::new(&["id", "value"]);
        grid.push(vec!["x".repeat(MAX_CELL_CHARS + 5), "1".into()]);
        let text = grid.to_table(None);
        assert!(text.contains("... (5 more characters)"), "cut");
        assert!(!text.contains(&"x".repeat(MAX_CELL_CHARS + 1)));
        let mut small = Grid::new(&["id"]);
        small.push(vec!["y".repeat(MAX_CELL_CHARS)]);
        assert!(small.to_table(None).contains(&"y".repeat(MAX_CELL_CHARS)));
    }

    #[test]
    fn escaping() {
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(markdown_text("a|b\nc"), "a\\|b c");
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
