//! Facts about the host: OS, CPU model, the clock time for file names and timestamps.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};

/// A small system file's text, through the bounded reader.
fn system_file(path: &str) -> std::io::Result<String> {
    read_text_bounded(std::path::Path::new(path), SYSTEM_FILE_BYTES)
}

/// The CPU model, from /proc/cpuinfo on Linux; "unknown" elsewhere.
pub fn cpu_model() -> String {
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

/// OS family plus its pretty name where /etc/os-release has one.
pub fn os_description() -> String {
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
pub fn hostname() -> Option<String> {
    let name = gethostname::gethostname();
    Some(name.to_string_lossy().trim().to_string()).filter(|name| !name.is_empty())
}

/// Logical CPUs available to this process.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// UTC time now as RFC 3339 (`2026-11-29T16:21:00Z`).
pub fn now_rfc3339() -> String {
    let (date, time) = utc_parts(SystemTime::now());
    format!("{date}T{time}Z")
}

/// UTC time now for file names (`20261129-162100`).
pub fn now_compact() -> String {
    let (date, time) = utc_parts(SystemTime::now());
    format!("{}-{}", date.replace('-', ""), time.replace(':', ""))
}

fn utc_parts(at: SystemTime) -> (String, String) {
    let secs = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60),
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Nanoseconds since 1970-01-01 UTC of an RFC 3339 time (`2026-11-29T16:21:00Z`,
/// `2026-11-29T17:21:00.25+01:00`), the form `started_at` is written in; `None` for anything
/// else. Runs are ordered by this, not by their text (offsets and fractions sort wrongly).
pub fn parse_rfc3339(text: &str) -> Option<i128> {
    let bytes = text.as_bytes();
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    let date_time = bytes.len() >= 20
        && separators.iter().all(|&(i, c)| bytes[i] == c)
        && matches!(bytes[10], b'T' | b't' | b' ');
    if !date_time {
        return None;
    }
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    let valid = (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60
        && second <= 60;
    if !valid {
        return None;
    }
    let mut rest = &text[19..];
    let mut nanos: i128 = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded = format!("{:0<9}", &fraction[..digits.min(9)]);
        nanos = padded.parse().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes: i64 = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && rest.as_bytes()[3] == b':' => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hours: i64 = rest[1..3].parse().ok()?;
            let minutes: i64 = rest[4..6].parse().ok()?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            sign * (hours * 60 + minutes)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month as u32, day as u32);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(i128::from(seconds) * 1_000_000_000 + nanos)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A proleptic Gregorian date to days since 1970-01-01 (Howard Hinnant's algorithm, the
/// inverse of [`civil_from_days`]).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
        assert_eq!(days_from_civil(2026, 11, 29), 20_786);
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
    }

    #[test]
    fn civil_dates_match_known_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
    }
}
