//! Library crates never name a CLI flag in a message: only the CLI (crates/gpubench-cli) knows
//! the flags. A library names an option in its own words or by its `config.options` key, and the
//! CLI adds the flag where it shows the message. This test reads the library crates' non-test
//! source and fails on any string literal holding `--` followed by a letter.
//!
//! Comment lines (`//`, `///`, `//!`) may mention flags; so may everything from a line
//! `#[cfg(test)]` to the end of its file.

use std::fs;
use std::path::{Path, PathBuf};

/// The library crates, relative to this crate's manifest folder.
const LIBRARY_CRATES: &[&str] = &[
    "../gpubench-results",
    "../gpubench-harness",
    "../gpubench-engine",
    "../gpubench-suites",
    "../gpubench-baseline",
    "../gpubench-report",
    "../gpubench-telemetry",
    "../gpubench-isa",
];

/// Every `.rs` file under `dir`, sorted so failures list in a stable order.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The part of a file that the rule covers: up to (not including) the first line that is
/// `#[cfg(test)]`, with `//` comment lines blanked (kept as empty lines so line numbers hold).
fn non_test_source(text: &str) -> String {
    let mut kept = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.trim_end() == "#[cfg(test)]" {
            break;
        }
        if !trimmed.starts_with("//") {
            kept.push_str(line);
        }
        kept.push('\n');
    }
    kept
}

/// One string literal: the line it starts on (1-based) and its text between the quotes.
struct Literal {
    line: usize,
    text: String,
}

/// Walks Rust source, stepping over comments and char literals, collecting string literals.
struct Scanner {
    chars: Vec<char>,
    i: usize,
    line: usize,
    literals: Vec<Literal>,
}

impl Scanner {
    fn at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    /// Moves one character on, counting lines.
    fn advance(&mut self) {
        if self.at(0) == Some('\n') {
            self.line += 1;
        }
        self.i += 1;
    }

    fn skip_line_comment(&mut self) {
        while self.at(0).is_some_and(|c| c != '\n') {
            self.i += 1;
        }
    }

    fn skip_block_comment(&mut self) {
        self.i += 2;
        while self.at(0).is_some() && !(self.at(0) == Some('*') && self.at(1) == Some('/')) {
            self.advance();
        }
        self.i += 2;
    }

    /// A char literal: 'x', '\n', '\'', '\u{..}'; otherwise a lifetime or label.
    fn skip_char_or_lifetime(&mut self) {
        if self.at(1) == Some('\\') {
            self.i += 2;
            while self.at(0).is_some_and(|c| c != '\'') {
                self.i += 1;
            }
            self.i += 1;
        } else if self.at(2) == Some('\'') {
            self.i += 3;
        } else {
            self.i += 1;
        }
    }

    /// `r"..."` or `r#"..."#` at the cursor (on the `r`); a plain `r` otherwise.
    fn raw_string(&mut self) {
        let mut hashes = 0;
        while self.at(1 + hashes) == Some('#') {
            hashes += 1;
        }
        if self.at(1 + hashes) != Some('"') {
            self.i += 1;
            return;
        }
        let start_line = self.line;
        self.i += 2 + hashes;
        let mut text = String::new();
        while let Some(c) = self.at(0) {
            if c == '"' && (1..=hashes).all(|k| self.at(k) == Some('#')) {
                self.i += 1 + hashes;
                break;
            }
            text.push(c);
            self.advance();
        }
        self.literals.push(Literal {
            line: start_line,
            text,
        });
    }

    /// `"..."` at the cursor; escapes are kept as written and an escaped quote ends nothing.
    fn plain_string(&mut self) {
        let start_line = self.line;
        self.i += 1;
        let mut text = String::new();
        while let Some(c) = self.at(0) {
            if c == '"' {
                break;
            }
            if c == '\\' {
                text.push(c);
                self.i += 1;
            }
            if let Some(escaped) = self.at(0) {
                text.push(escaped);
                self.advance();
            }
        }
        self.i += 1;
        self.literals.push(Literal {
            line: start_line,
            text,
        });
    }

    /// Whether an `r` at the cursor starts a raw string (not the end of an identifier).
    fn raw_starts(&self) -> bool {
        matches!(self.at(1), Some('"') | Some('#'))
            && (self.i == 0 || {
                let before = self.chars[self.i - 1];
                !(before.is_alphanumeric() || before == '_')
            })
    }
}

/// The string literals in `source` ("...", b"...", r"...", r#"..."#), which may span lines.
/// Trailing `//` comments, block comments and char literals (`'"'`) are stepped over so their
/// quotes do not open a string; a `'` that starts no char literal is a lifetime.
fn string_literals(source: &str) -> Vec<Literal> {
    let mut scan = Scanner {
        chars: source.chars().collect(),
        i: 0,
        line: 1,
        literals: Vec::new(),
    };
    while let Some(c) = scan.at(0) {
        match (c, scan.at(1)) {
            ('/', Some('/')) => scan.skip_line_comment(),
            ('/', Some('*')) => scan.skip_block_comment(),
            ('\'', _) => scan.skip_char_or_lifetime(),
            ('r', _) if scan.raw_starts() => scan.raw_string(),
            ('"', _) => scan.plain_string(),
            _ => scan.advance(),
        }
    }
    scan.literals
}

/// Whether `text` holds `--` followed by a letter, as a CLI flag does.
fn names_a_flag(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .windows(3)
        .any(|w| w[0] == b'-' && w[1] == b'-' && w[2].is_ascii_alphabetic())
}

#[test]
fn scanner_finds_flags_in_literals_only() {
    let source = non_test_source(concat!(
        "// a comment naming --adapter\n",
        "/// a doc comment naming --adapter\n",
        "let a = \"plain\"; // trailing --comment\n",
        "let q = '\"'; let l: &'static str = \"x \\\" use --stream-size\";\n",
        "let m = \"first line\n  then --capacity-cap\";\n",
        "let r = r#\"raw \"--format\" here\"#;\n",
        "let ok = \"a -- b, |---|, -1--2\";\n",
        "#[cfg(test)]\n",
        "mod tests { const T: &str = \"--samples\"; }\n",
    ));
    let flagged: Vec<(usize, String)> = string_literals(&source)
        .into_iter()
        .filter(|lit| names_a_flag(&lit.text))
        .map(|lit| (lit.line, lit.text))
        .collect();
    let lines: Vec<usize> = flagged.iter().map(|(line, _)| *line).collect();
    assert_eq!(lines, vec![4, 5, 7], "{flagged:?}");
}

#[test]
fn library_crates_name_no_cli_flag_in_strings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut offenders = Vec::new();
    let mut files_read = 0;
    for krate in LIBRARY_CRATES {
        let src = root.join(krate).join("src");
        assert!(src.is_dir(), "no source folder at {}", src.display());
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files
            .into_iter()
            .filter(|f| !gpubench_harness::testing::test_only_source(f))
        {
            let text = fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            files_read += 1;
            for literal in string_literals(&non_test_source(&text)) {
                if names_a_flag(&literal.text) {
                    let shown = file.strip_prefix(root).unwrap_or(&file).display();
                    offenders.push(format!("{shown}:{}: \"{}\"", literal.line, literal.text));
                }
            }
        }
    }
    assert!(files_read > 50, "read only {files_read} source files");
    assert!(
        offenders.is_empty(),
        "library crates name CLI flags in strings (only the CLI knows flags; name the option \
         in the library's words or by its `config.options` key):\n{}",
        offenders.join("\n")
    );
}
