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

/// How much wider one side of an interval may be than the other and still be shown as one
/// `±` half-width: beyond it the half-width would understate the long side by over a fifth
/// and overstate the short one, so both sides are shown.
const LOPSIDED: f64 = 1.5;

/// The confidence interval as a percentage of the median: `±1.2%` (half its width) where its
/// two sides are alike, and both sides, `-39.6%/+2.0%`, where one is more than [`LOPSIDED`]
/// times the other, so an interval lying mostly below or above the median shows it.
pub fn ci_percent(median: f64, low: f64, high: f64) -> String {
    if median == 0.0 || ![median, low, high].iter().all(|v| v.is_finite()) {
        return "n/a".to_string();
    }
    let scale = 100.0 / median.abs();
    let (below, above) = ((median - low) * scale, (high - median) * scale);
    let as_percent = |v: f64| percent(v, 1);
    if lopsided(below, above) {
        format!(
            "{}/{}",
            side(below, '-', '+', as_percent),
            side(above, '+', '-', as_percent)
        )
    } else {
        format!("±{}", as_percent((high - low).abs() / 2.0 * scale))
    }
}

/// The confidence interval in the value's own unit, by the rule of [`ci_percent`]: `±1.23`
/// (half its width), or `-39.6/+2.00` where one side is more than [`LOPSIDED`] times the
/// other; empty where an end is not finite.
pub fn ci_range(median: f64, low: f64, high: f64) -> String {
    if ![median, low, high].iter().all(|v| v.is_finite()) {
        return String::new();
    }
    let (below, above) = (median - low, high - median);
    if lopsided(below, above) {
        format!(
            "{}/{}",
            side(below, '-', '+', sig3),
            side(above, '+', '-', sig3)
        )
    } else {
        format!("±{}", sig3((high - low).abs() / 2.0))
    }
}

/// Whether an interval reaching `below` under its median and `above` over it is to be shown
/// by both sides: one is more than [`LOPSIDED`] times the other, or the interval does not
/// hold the median.
fn lopsided(below: f64, above: f64) -> bool {
    let (short, long) = (below.min(above), below.max(above));
    short < 0.0 || long > LOPSIDED * short
}

/// A noise band or level, a fraction, as a percentage either way: whole percents as they are
/// (`±5%`), others to three figures (`±2.50%`, `±0.400%`), so a band of 2.5% never reads 2%
/// and one of 0.4% never reads 0%.
pub fn plus_minus_percent(fraction: f64) -> String {
    let value = fraction * 100.0;
    if value.is_finite() && (value - value.round()).abs() < 1e-9 {
        format!("±{value:.0}%")
    } else {
        format!("±{}%", sig3(value))
    }
}

/// A percentage with `decimals` decimals and its `%`: `2.0%`. A value that is not zero but
/// would round to zero keeps three significant digits instead (`0.00150%`), so a small
/// spread or share never reads as none.
pub fn percent(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return "n/a".to_string();
    }
    let rounded = format!("{value:.decimals$}");
    let rounds_to_zero = rounded
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.');
    if value != 0.0 && rounds_to_zero {
        format!("{}%", sig3(value))
    } else {
        format!("{rounded}%")
    }
}

/// One side of an interval, `distance` from the median in its own direction, written by
/// `text`: `outward` before it (`-` below, `+` above), `inward` where the interval does not
/// reach the median on that side (a bootstrap interval may lie wholly on one side of it).
fn side(distance: f64, outward: char, inward: char, text: impl Fn(f64) -> String) -> String {
    if distance < 0.0 {
        format!("{inward}{}", text(-distance))
    } else {
        format!("{outward}{}", text(distance))
    }
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
    escaped(text, unsafe_char, |c, out| out.extend(c.escape_default()))
}

/// `text` with every character `unsafe_char` picks written by `escape`.
fn escaped(
    text: &str,
    unsafe_char: impl Fn(char) -> bool,
    escape: impl Fn(char, &mut String),
) -> String {
    if !text.contains(&unsafe_char) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// JSON text (serde_json's, which escapes only the controls below U+0020) safe to put on a
/// terminal: DEL, the C1 controls and every [`invisible`] character, which stand only inside
/// strings there, are written as `\uXXXX` escapes, so the document reads back the same and a
/// name from a file cannot reorder or hide what a terminal shows.
pub fn json_text(text: String) -> String {
    let unsafe_char = |c: char| (c.is_control() && u32::from(c) >= 0x7f) || invisible(c);
    escaped(&text, unsafe_char, |c, out| {
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    })
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

/// Below this magnitude two decimals would keep fewer than two significant digits (`0.04x`
/// for 0.0385), so [`ratio`] and [`ratio_interval`] write three significant digits there.
const FEW_DECIMALS_BELOW: f64 = 0.1;

/// An oriented ratio as `1.23x`; under [`FEW_DECIMALS_BELOW`] with three significant digits
/// (`0.0385x`).
pub fn ratio(value: f64) -> String {
    // A ratio far from one (a collapse, a broken base) keeps its digits: 0.00x would hide it.
    if value == 0.0 {
        "0x".to_string()
    } else if value.is_finite() && !(0.01..1e6).contains(&value.abs()) {
        format!("{value:.2e}x")
    } else if value.abs() < FEW_DECIMALS_BELOW {
        format!("{}x", sig3(value))
    } else if value.is_finite() {
        format!("{value:.2}x")
    } else {
        "n/a".to_string()
    }
}

/// A ratio interval as `[0.951, 1.020]`; an end under [`FEW_DECIMALS_BELOW`] with three
/// significant digits (`[0.0385, 0.0412]`), and one far from one in exponent form
/// (`[1.00e-250, 1.00e-250]`), so a collapse never reads as `[0.000, 0.000]`.
pub fn ratio_interval(low: f64, high: f64) -> String {
    let end = |v: f64| {
        if v == 0.0 {
            "0".to_string()
        } else if v.is_finite() && !(0.001..1e6).contains(&v.abs()) {
            format!("{v:.2e}")
        } else if v.abs() < FEW_DECIMALS_BELOW {
            sig3(v)
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
        for (text, shown) in [
            ("a\x1b[2Jb", "a\\u{1b}[2Jb"),
            ("x\ry\0\u{9b}", "x\\ry\\u{0}\\u{9b}"),
            ("\u{202e}cba", "\\u{202e}cba"),
            (
                "a\u{200b}b\u{feff}\u{2028}",
                "a\\u{200b}b\\u{feff}\\u{2028}",
            ),
            ("two\nlines ±5%", "two\nlines ±5%"),
        ] {
            assert_eq!(printable(text), shown);
        }
        assert_eq!(printable_line("two\nlines\r"), "two\\nlines\\r");
    }

    /// Each `(median, low, high)` shows as its text by [`ci_percent`].
    fn ci_percents(cases: &[((f64, f64, f64), &str)]) {
        for &((median, low, high), text) in cases {
            assert_eq!(
                ci_percent(median, low, high),
                text,
                "{median} [{low}, {high}]"
            );
        }
    }

    #[test]
    fn json_keeps_its_value_and_shows_no_override() {
        let value = serde_json::json!({"name": "a\u{202e}b\u{9b}c\u{7f}\u{e0041}"});
        let text = json_text(serde_json::to_string_pretty(&value).expect("json"));
        assert!(!text.contains(|c: char| invisible(c) || (c.is_control() && c != '\n')));
        assert!(
            text.contains("\\u202e") && text.contains("\\udb40\\udc41"),
            "{text}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, value);
    }

    #[test]
    fn a_band_is_never_rounded_to_another() {
        let cases = [
            (0.05, "±5%"),
            (0.25, "±25%"),
            (0.025, "±2.50%"),
            (0.004, "±0.400%"),
        ];
        for (band, text) in cases {
            assert_eq!(plus_minus_percent(band), text);
        }
    }

    #[test]
    fn ci_as_percent_of_median() {
        ci_percents(&[
            ((100.0, 98.0, 102.0), "±2.0%"),
            ((0.0, 0.0, 0.0), "n/a"),
            ((100.0, f64::NAN, 102.0), "n/a"),
        ]);
    }

    #[test]
    fn a_lopsided_interval_shows_both_sides() {
        ci_percents(&[
            // The audit's packed-i8 row: [60.4, 102] around 100 is 39.6% below and 2% above.
            ((100.0, 60.4, 102.0), "-39.6%/+2.0%"),
            // Within 1.5x of each other the half-width stands for both.
            ((100.0, 97.0, 102.0), "±2.5%"),
            ((100.0, 96.9, 102.0), "-3.1%/+2.0%"),
            // An interval reaching the median on one side only, or not at all.
            ((100.0, 100.0, 102.0), "-0.0%/+2.0%"),
            ((100.0, 100.5, 102.0), "+0.5%/+2.0%"),
            ((-10.0, -12.0, -9.0), "-20.0%/+10.0%"),
        ]);
    }

    #[test]
    fn a_lopsided_range_in_the_unit_shows_both_sides() {
        for ((median, low, high), text) in [
            ((100.0, 60.4, 102.0), "-39.6/+2.00"),
            ((100.0, 98.0, 102.0), "±2.00"),
            ((100.0, f64::NAN, 102.0), ""),
        ] {
            assert_eq!(ci_range(median, low, high), text);
        }
    }

    #[test]
    fn a_small_nonzero_percentage_never_reads_as_zero() {
        ci_percents(&[
            ((1000.0, 999.97, 1000.03), "±0.00300%"),
            ((100.0, 99.954, 100.046), "±0.0460%"),
            ((100.0, 100.0, 100.0), "±0.0%"),
        ]);
        for ((value, decimals), text) in [
            ((0.04, 0), "0.0400%"),
            ((0.19, 0), "0.190%"),
            ((44.8, 0), "45%"),
            ((0.0, 1), "0.0%"),
            ((-0.001, 1), "-0.00100%"),
            ((f64::INFINITY, 1), "n/a"),
        ] {
            assert_eq!(percent(value, decimals), text);
        }
    }

    #[test]
    fn a_small_ratio_keeps_three_significant_digits() {
        assert_eq!(ratio(0.0385), "0.0385x");
        assert_eq!(ratio(0.0123), "0.0123x");
        assert_eq!(ratio(0.1), "0.10x");
        assert_eq!(ratio_interval(0.0385, 0.0412), "[0.0385, 0.0412]");
        assert_eq!(ratio_interval(0.0015, 0.1), "[0.00150, 0.100]");
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
