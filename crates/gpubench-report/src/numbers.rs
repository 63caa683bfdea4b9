//! Number formatting shared by the text formats.

/// Magnitudes from which [`sig3`] and [`raw`] switch to exponent form: no benchmark gives
/// such values, but a file can hold them, and 1.7e308 is not to print as 309 digits.
const EXPONENT_ABOVE: f64 = 1e15;
/// Magnitudes below which they switch to exponent form (zero excepted).
const EXPONENT_BELOW: f64 = 1e-6;

/// A value with three significant digits, never in exponent form for ordinary magnitudes:
/// `1234`, `123`, `12.3`, `1.23`, `0.123`, `0.0123`; beyond them (at or above 1e15, below
/// 1e-6) in exponent form, `1.70e308`.
pub fn sig3(value: f64) -> String {
    if !value.is_finite() {
        return "n/a".to_string();
    }
    let magnitude = value.abs();
    if magnitude >= EXPONENT_ABOVE || (magnitude < EXPONENT_BELOW && magnitude != 0.0) {
        format!("{value:.2e}")
    } else if magnitude >= 100.0 || magnitude == 0.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        let decimals = (2.0 - magnitude.log10().floor()) as usize;
        format!("{value:.decimals$}", decimals = decimals.min(12))
    }
}

/// A byte count on a log axis in binary units: `4KiB`, `1MiB`, `1.5GiB`.
pub fn bytes_label(bytes: f64) -> String {
    if !bytes.is_finite() || bytes < 1.0 {
        return String::new();
    }
    gpubench_results::units::format_size(bytes.round() as u64)
}

/// Half-width of the confidence interval as a percentage of the median: `±1.2%`.
pub fn ci_percent(median: f64, low: f64, high: f64) -> String {
    if median == 0.0 || !median.is_finite() {
        return "n/a".to_string();
    }
    let half = (high - low).abs() / 2.0;
    format!("±{:.1}%", half / median.abs() * 100.0)
}

/// A value at full precision (the shortest text that reads back to the same f64), for the
/// machine-readable formats, in exponent form where [`sig3`] uses it; empty for a missing or
/// non-finite value.
pub fn raw(value: Option<f64>) -> String {
    match value {
        Some(v) if v.is_finite() => {
            let magnitude = v.abs();
            if magnitude >= EXPONENT_ABOVE || (magnitude < EXPONENT_BELOW && magnitude != 0.0) {
                format!("{v:e}")
            } else {
                format!("{v}")
            }
        }
        _ => String::new(),
    }
}

/// `text` safe to put on a terminal: every control character but the line break (ESC, CR,
/// NUL, tab, DEL, C1 controls), every bidirectional override and every invisible format
/// character ([`invisible`]) is written as its Rust escape (`\u{1b}`, `\r`, `\u{200b}`), so an
/// id or adapter name from a file cannot clear the screen, set the window title, hide text or
/// look like another name.
pub fn printable(text: &str) -> String {
    let unsafe_char = |c: char| (c.is_control() && c != '\n') || invisible(c);
    if !text.contains(unsafe_char) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// One line of text safe to put on a terminal: [`printable`], with a line break inside it
/// written as `\n` too, so a name or message from a file cannot start a line of its own.
pub fn printable_line(text: &str) -> String {
    let out = printable(text);
    if out.contains('\n') {
        out.replace('\n', "\\n")
    } else {
        out
    }
}

/// Whether `c` draws nothing yet changes what a reader sees: Unicode's format characters
/// (category Cf: zero-width spaces and joiners, bidirectional marks, overrides and isolates,
/// the byte-order mark, tags, invisible operators, the soft hyphen) and the line and paragraph
/// separators (Zl, Zp), which some terminals and editors break lines at.
pub fn invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}'
        | '\u{600}'..='\u{605}'
        | '\u{61c}'
        | '\u{6dd}'
        | '\u{70f}'
        | '\u{890}'..='\u{891}'
        | '\u{8e2}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0001}'
        | '\u{e0020}'..='\u{e007f}')
}

/// An oriented ratio as `1.23x`.
pub fn ratio(value: f64) -> String {
    // A ratio far from one (a collapse, a broken base) keeps its digits: 0.00x would hide it.
    if value == 0.0 {
        "0x".to_string()
    } else if value.is_finite() && !(0.01..1e6).contains(&value.abs()) {
        format!("{value:.2e}x")
    } else if value.is_finite() {
        format!("{value:.2}x")
    } else {
        "n/a".to_string()
    }
}

/// A ratio interval as `[0.951, 1.020]`; an end far from one keeps its digits in exponent form
/// (`[1.00e-250, 1.00e-250]`), so a collapse never reads as `[0.000, 0.000]`.
pub fn ratio_interval(low: f64, high: f64) -> String {
    let end = |v: f64| {
        if v == 0.0 {
            "0".to_string()
        } else if v.is_finite() && !(0.001..1e6).contains(&v.abs()) {
            format!("{v:.2e}")
        } else {
            format!("{v:.3}")
        }
    };
    format!("[{}, {}]", end(low), end(high))
}

/// A status with its reason, for cells where a skipped or failed result would have its number:
/// `failed: verification failed ...`, shortened to `max` characters.
pub fn status_cell(status: gpubench_results::Status, reason: Option<&str>, max: usize) -> String {
    let reason = reason.unwrap_or("no reason recorded");
    format!("{}: {}", status.as_str(), truncate(reason, max))
}

/// `text` cut to `max` characters, with `...` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        // Not 1234.5: Rust formats exact ties to even ("1234").
        assert_eq!(sig3(1234.6), "1235");
        assert_eq!(sig3(123.45), "123");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(1.2345), "1.23");
        assert_eq!(sig3(0.12345), "0.123");
        assert_eq!(sig3(0.0012345), "0.00123");
        assert_eq!(sig3(f64::NAN), "n/a");
        assert_eq!(sig3(1.7e308), "1.70e308");
        assert_eq!(sig3(-2.5e-9), "-2.50e-9");
        assert_eq!(sig3(0.0), "0");
    }

    #[test]
    fn huge_and_tiny_raw_values_read_back_in_exponent_form() {
        for v in [1.7e308, f64::MAX, 5e-324, 1e15, 0.1, 123.25] {
            let text = raw(Some(v));
            assert!(text.len() < 30, "{text}");
            assert_eq!(text.parse::<f64>().expect("a number"), v);
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("a\x1b[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(printable("x\ry\0\u{9b}"), "x\\ry\\u{0}\\u{9b}");
        assert_eq!(printable("\u{202e}cba"), "\\u{202e}cba");
        assert_eq!(
            printable("a\u{200b}b\u{feff}\u{2028}"),
            "a\\u{200b}b\\u{feff}\\u{2028}"
        );
        assert_eq!(printable("two\nlines ±5%"), "two\nlines ±5%");
        assert_eq!(printable_line("two\nlines\r"), "two\\nlines\\r");
    }

    #[test]
    fn ci_as_percent_of_median() {
        assert_eq!(ci_percent(100.0, 98.0, 102.0), "±2.0%");
        assert_eq!(ci_percent(0.0, 0.0, 0.0), "n/a");
    }

    #[test]
    fn raw_and_ratio() {
        assert_eq!(raw(Some(0.1)), "0.1");
        assert_eq!(raw(None), "");
        assert_eq!(raw(Some(f64::NAN)), "");
        assert_eq!(ratio(0.7692), "0.77x");
        assert_eq!(ratio(0.0), "0x");
        assert_eq!(ratio(2.5e-9), "2.50e-9x");
        assert_eq!(ratio(f64::NAN), "n/a");
        assert_eq!(ratio_interval(0.9512, 1.0204), "[0.951, 1.020]");
        assert_eq!(ratio_interval(1e-250, 0.0), "[1.00e-250, 0]");
        assert_eq!(truncate("abcdef", 3), "abc...");
    }
}
