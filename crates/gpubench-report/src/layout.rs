//! How wide the terminal tables may be. Piped output keeps its full width (a file or a script
//! reads every cell on one line); a terminal's width is fitted by wrapping inside cells, so an
//! 80-column terminal never wraps a line mid-cell.

use comfy_table::{ContentArrangement, Table};

/// Fits `table` to `width` columns when given, else leaves every cell on one line.
pub fn arrange(table: &mut Table, width: Option<u16>) {
    match width {
        Some(width) => {
            table
                .set_content_arrangement(ContentArrangement::DynamicFullWidth)
                .set_width(width);
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
