//! Fitting the terminal tables to a narrow terminal, and keeping long text out of their cells:
//!
//! - a table too wide for the terminal drops or shortens its less important columns first, in a
//!   fixed order ([`Step`]), and only then wraps its free-text cells at word boundaries (a
//!   last-resort step only where wrapping would not be enough); ids
//!   are never broken, and a legend line says what was left out;
//! - a long reason (a skip, a failure, a verdict's explanation) goes under the table as a
//!   marked note (`skipped [1]`, then `[1] reason`), identical reasons sharing one, so the
//!   table stays narrow piped or not; short ones stay in the cell.

use std::collections::BTreeSet;

use crate::grid::TerminalGrid;

/// Reasons up to this many characters stay in their cell.
pub const INLINE_REASON: usize = 24;

/// The notes under one table.
#[derive(Debug, Clone, Default)]
pub struct Footnotes {
    reasons: Vec<String>,
    lettered: bool,
}

impl Footnotes {
    /// Notes marked `[1]`, `[2]`, ...
    pub fn numbered() -> Self {
        Self::default()
    }

    /// Notes marked `[a]`, `[b]`, ... (for tables whose columns are already numbered).
    pub fn lettered() -> Self {
        Self {
            reasons: Vec::new(),
            lettered: true,
        }
    }

    fn label(&self, index: usize) -> String {
        if !self.lettered {
            return format!("[{}]", index + 1);
        }
        let mut n = index;
        let mut letters = Vec::new();
        loop {
            letters.push(char::from(b'a' + (n % 26) as u8));
            if n < 26 {
                break;
            }
            n = n / 26 - 1;
        }
        letters.reverse();
        format!("[{}]", letters.into_iter().collect::<String>())
    }

    /// The marker of `reason`, one per distinct reason.
    pub fn mark(&mut self, reason: &str) -> String {
        let index = match self.reasons.iter().position(|r| r == reason) {
            Some(index) => index,
            None => {
                self.reasons.push(reason.to_string());
                self.reasons.len() - 1
            }
        };
        self.label(index)
    }

    /// `skipped: short reason`, or `skipped [1]` with the reason noted under the table.
    pub fn status(&mut self, status: &str, reason: Option<&str>) -> String {
        let reason = reason.unwrap_or("no reason recorded");
        if reason.chars().count() <= INLINE_REASON {
            format!("{status}: {reason}")
        } else {
            format!("{status} {}", self.mark(reason))
        }
    }

    /// The lines under the table: `[1] reason`.
    pub fn lines(&self) -> Vec<String> {
        self.reasons
            .iter()
            .enumerate()
            .map(|(i, reason)| format!("{} {reason}", self.label(i)))
            .collect()
    }
}

/// One way a table narrows, applied in order until it fits.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// The column of this name, its cells shortened.
    Shorten(&'static str, fn(&str) -> String),
    /// The column of this name, left out.
    Drop(&'static str),
    /// The column of this name, left out only if the table would not fit even with its free
    /// text wrapped at every space.
    LastResort(&'static str),
}

/// What narrowing did, over every table of a report.
#[derive(Debug, Clone, Default)]
pub struct Narrowed {
    /// Columns shortened somewhere.
    pub shortened: BTreeSet<&'static str>,
    /// Columns left out somewhere.
    pub dropped: BTreeSet<&'static str>,
}

impl Narrowed {
    /// The legend line on what narrowing did, if anything; `explain` says how a column was
    /// shortened.
    pub fn legend(&self, width: Option<u16>, explain: fn(&str) -> String) -> Option<String> {
        let width = width?;
        let dropped: Vec<&str> = self.dropped.iter().copied().collect();
        let shortened: Vec<String> = self
            .shortened
            .iter()
            .filter(|c| !self.dropped.contains(*c))
            .map(|c| explain(c))
            .collect();
        let mut parts = Vec::new();
        if !dropped.is_empty() {
            let names = match dropped.split_last() {
                Some((last, [])) => last.to_string(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            };
            let noun = if dropped.len() == 1 {
                "column"
            } else {
                "columns"
            };
            parts.push(format!("{names} {noun} left out where they did not fit"));
        }
        parts.extend(shortened);
        if parts.is_empty() {
            return None;
        }
        Some(format!(
            "narrow terminal ({width} columns): {}; every value is in the results file",
            parts.join("; ")
        ))
    }
}

/// Narrows `table` by `steps`, in order, until it fits `width`; nothing when piped (`None`).
pub fn fit(table: &mut TerminalGrid, steps: &[Step], width: Option<u16>, narrowed: &mut Narrowed) {
    let Some(width) = width else { return };
    for step in steps {
        if table.natural_width() <= usize::from(width) {
            return;
        }
        if matches!(step, Step::LastResort(_)) && table.narrowest_width() <= usize::from(width) {
            return;
        }
        match *step {
            Step::Shorten(name, short) => {
                if let Some(column) = table.column(name) {
                    table.shorten_column(column, short);
                    narrowed.shortened.insert(name);
                }
            }
            Step::Drop(name) | Step::LastResort(name) => {
                if let Some(column) = table.column(name) {
                    table.drop_column(column);
                    narrowed.dropped.insert(name);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_reasons_share_a_note_and_short_ones_stay_inline() {
        let mut notes = Footnotes::numbered();
        assert_eq!(
            notes.status("skipped", Some("adapter lacks SHADER_F16")),
            "skipped: adapter lacks SHADER_F16"
        );
        let long = "the adapter offers no cooperative-matrix configuration";
        assert_eq!(notes.status("skipped", Some(long)), "skipped [1]");
        assert_eq!(
            notes.status("failed", Some("another long reason, not short")),
            "failed [2]"
        );
        assert_eq!(notes.status("skipped", Some(long)), "skipped [1]");
        assert_eq!(notes.lines().len(), 2);
        assert_eq!(notes.lines()[0], format!("[1] {long}"));
        let mut letters = Footnotes::lettered();
        assert_eq!(letters.mark("x"), "[a]");
        assert_eq!(letters.label(25), "[z]");
        assert_eq!(letters.label(26), "[aa]");
    }
}
