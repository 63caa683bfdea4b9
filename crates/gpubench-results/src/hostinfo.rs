//! Facts about the host: OS, CPU model, the clock time for file names and timestamps.

// web-time's clock is std's own natively; std's panics on wasm32-unknown-unknown.
use web_time::{SystemTime, UNIX_EPOCH};

use jiff::SignedDuration;
use jiff::civil::DateTime;
use jiff::fmt::temporal::Pieces;

use crate::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};

/// A small system file's text, through the bounded reader.
fn system_file(path: &str) -> std::io::Result<String> {
    read_text_bounded(std::path::Path::new(path), SYSTEM_FILE_BYTES)
}

/// What a browser build (`wasm32`) writes for a host fact a page cannot know.
pub const UNKNOWN_IN_BROWSER: &str = "unknown (browser)";

/// The CPU model, from /proc/cpuinfo on Linux; "unknown" elsewhere, and
/// [`UNKNOWN_IN_BROWSER`] in a browser, which does not expose it.
pub fn cpu_model() -> String {
    if cfg!(target_arch = "wasm32") {
        return UNKNOWN_IN_BROWSER.to_string();
    }
    system_file("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// OS family plus its pretty name where /etc/os-release has one; [`UNKNOWN_IN_BROWSER`] in a
/// browser (what its user agent says is the page's to record).
pub fn os_description() -> String {
    if cfg!(target_arch = "wasm32") {
        return UNKNOWN_IN_BROWSER.to_string();
    }
    let pretty = system_file("/etc/os-release").ok().and_then(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim_matches('"').to_string())
    });
    match pretty {
        Some(name) => format!("{} ({name})", std::env::consts::OS),
        None => std::env::consts::OS.to_string(),
    }
}

/// The host's name, from the operating system (gethostname(2), GetComputerNameExW on Windows),
/// so it is found on every platform whatever the shell exports; `None` when unknown. It tells
/// apart machines of one model in a fleet (eight identical nodes are eight machines).
#[cfg(not(target_arch = "wasm32"))]
pub fn hostname() -> Option<String> {
    let name = gethostname::gethostname();
    Some(name.to_string_lossy().trim().to_string()).filter(|name| !name.is_empty())
}

/// The host's name: a browser does not expose one, so always `None` (the results say unknown).
#[cfg(target_arch = "wasm32")]
pub fn hostname() -> Option<String> {
    None
}

/// Logical CPUs available to this process.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// UTC time now as RFC 3339 (`2026-11-29T16:21:00Z`).
pub fn now_rfc3339() -> String {
    rfc3339_at(SystemTime::now())
}

/// UTC time now for file names (`20261129-162100`).
pub fn now_compact() -> String {
    compact_at(SystemTime::now())
}

/// `at` in UTC as RFC 3339, to the whole second (`2026-11-29T16:21:00Z`). Neither format
/// names an offset or a zone, so formatting a civil time by it cannot fail.
fn rfc3339_at(at: SystemTime) -> String {
    utc_civil(at).strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `at` in UTC for file names, to the whole second (`20261129-162100`).
fn compact_at(at: SystemTime) -> String {
    utc_civil(at).strftime("%Y%m%d-%H%M%S").to_string()
}

/// The civil UTC date and time of `at`, truncated to the whole second. A clock before 1970 is
/// wrong, and these stamps have always written the epoch for it; one past the end of year 9999
/// (the last time jiff's calendar holds) writes that last second, where the hand-written
/// calendar this replaces wrote a five-digit year that no reader of these files parsed.
fn utc_civil(at: SystemTime) -> DateTime {
    let seconds = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let seconds = i64::try_from(seconds).unwrap_or(i64::MAX);
    EPOCH
        .checked_add(SignedDuration::from_secs(seconds))
        .unwrap_or(LAST_SECOND)
}

/// 1970-01-01T00:00:00, UTC's civil time at the Unix epoch.
const EPOCH: DateTime = DateTime::constant(1970, 1, 1, 0, 0, 0, 0);

/// The last whole second jiff's civil calendar holds.
const LAST_SECOND: DateTime = DateTime::constant(9999, 12, 31, 23, 59, 59, 0);

/// Nanoseconds since 1970-01-01 UTC of an RFC 3339 time (`2026-11-29T16:21:00Z`,
/// `2026-11-29T17:21:00.25+01:00`), the form `started_at` is written in; `None` for a text
/// that is no date and time with an offset. Read by jiff, which also takes the ISO 8601 forms
/// close to it (seconds left out, a time zone annotation after the offset). Runs are ordered by
/// this, not by their text (offsets and fractions sort wrongly).
pub fn parse_rfc3339(text: &str) -> Option<i128> {
    // Pieces rather than a jiff `Timestamp`: a timestamp ends some hours before the year 9999
    // does, and every second these stamps write (through 9999-12-31T23:59:59Z) reads back.
    let pieces = Pieces::parse(text).ok()?;
    let offset = pieces.to_numeric_offset()?;
    let local = pieces.date().to_datetime(pieces.time()?);
    let since_epoch = local.duration_since(EPOCH).as_nanos();
    Some(since_epoch - i128::from(offset.seconds()) * 1_000_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_order_by_instant_not_by_text() {
        let at = |t: &str| parse_rfc3339(t).unwrap_or_else(|| panic!("{t}"));
        assert_eq!(at("1970-01-01T00:00:00Z"), 0);
        assert_eq!(at("2026-11-29T16:21:00Z"), at("2026-11-29T17:21:00+01:00"));
        assert_eq!(
            at("2026-11-29T16:21:00.25Z") - at("2026-11-29T16:21:00Z"),
            250_000_000
        );
        // As text, the later instant sorts first.
        assert!("2026-12-02T01:30:00+02:00" > "2026-12-02T00:00:00Z");
        assert!(at("2026-12-02T01:30:00+02:00") < at("2026-12-02T00:00:00Z"));
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-11-29T16:21:00",
            "2026-11-29T16:21:00+1:00",
            "2026-11-29T16:21:00.",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
        let now = now_rfc3339();
        assert!(parse_rfc3339(&now).is_some(), "{now}");
    }

    /// The instant `seconds` (and `nanos`) after 1970-01-01 UTC, or before it when negative.
    fn instant(seconds: i64, nanos: u32) -> SystemTime {
        let after = std::time::Duration::new(seconds.unsigned_abs(), nanos);
        if seconds < 0 {
            UNIX_EPOCH - after
        } else {
            UNIX_EPOCH + after
        }
    }

    /// The formats as results files and file names hold them, pinned byte for byte: written by
    /// the hand-made calendar code first, they hold for any replacement of it.
    #[test]
    fn timestamps_and_file_name_stamps_are_pinned() {
        let cases = [
            // The epoch.
            (0, 0, "1970-01-01T00:00:00Z", "19700101-000000"),
            // Leap days, one in a year divisible by 400.
            (951_827_696, 0, "2000-02-29T12:34:56Z", "20000229-123456"),
            (1_709_251_199, 0, "2024-02-29T23:59:59Z", "20240229-235959"),
            // The end of a year and the second after it.
            (1_798_761_599, 0, "2026-12-31T23:59:59Z", "20261231-235959"),
            (1_798_761_600, 0, "2027-01-01T00:00:00Z", "20270101-000000"),
            // Sub-second: truncated to the second, never rounded up.
            (
                1_795_969_260,
                999_999_999,
                "2026-11-29T16:21:00Z",
                "20261129-162100",
            ),
            (1_795_969_260, 1, "2026-11-29T16:21:00Z", "20261129-162100"),
            // 2100 is no leap year.
            (4_107_542_400, 0, "2100-03-01T00:00:00Z", "21000301-000000"),
            // The far future: the last second of year 9999.
            (
                253_402_300_799,
                0,
                "9999-12-31T23:59:59Z",
                "99991231-235959",
            ),
            // A clock before 1970 is wrong: the epoch is written.
            (-1, 0, "1970-01-01T00:00:00Z", "19700101-000000"),
        ];
        for (seconds, nanos, rfc3339, compact) in cases {
            let at = instant(seconds, nanos);
            assert_eq!(rfc3339_at(at), rfc3339, "{seconds}.{nanos:09}");
            assert_eq!(compact_at(at), compact, "{seconds}.{nanos:09}");
            if seconds >= 0 {
                // What is written reads back as the same second.
                let read = parse_rfc3339(rfc3339).expect("reads back");
                assert_eq!(read, i128::from(seconds) * 1_000_000_000, "{rfc3339}");
            }
        }
    }

    /// Past the calendar's end the stamp stays a valid, readable time: its last second (the
    /// hand-written calendar wrote `10000-01-01T00:00:00Z`, which no reader parsed).
    #[test]
    fn a_clock_past_the_year_9999_writes_the_last_second() {
        let past = instant(253_402_300_800, 0);
        assert_eq!(rfc3339_at(past), "9999-12-31T23:59:59Z");
        assert_eq!(compact_at(past), "99991231-235959");
        let end_of_time = UNIX_EPOCH + std::time::Duration::from_secs(u64::MAX / 2);
        assert_eq!(rfc3339_at(end_of_time), "9999-12-31T23:59:59Z");
    }

    /// Parsed instants, pinned in nanoseconds since the epoch.
    #[test]
    fn parsed_instants_are_pinned() {
        let cases: [(&str, i128); 7] = [
            ("1970-01-01T00:00:00Z", 0),
            ("2000-02-29T12:34:56Z", 951_827_696_000_000_000),
            ("2026-11-29T17:21:00.25+01:00", 1_795_969_260_250_000_000),
            ("2026-11-29t16:21:00z", 1_795_969_260_000_000_000),
            ("2026-11-29 16:21:00.123456789Z", 1_795_969_260_123_456_789),
            ("2027-01-01T01:00:00-01:00", 1_798_768_800_000_000_000),
            ("1969-12-31T23:59:59Z", -1_000_000_000),
        ];
        for (text, nanos) in cases {
            assert_eq!(parse_rfc3339(text), Some(nanos), "{text}");
        }
    }
}
