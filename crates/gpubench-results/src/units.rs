//! Units: binary sizes (KiB, MiB, GiB) and decimal rates (GB/s = 10^9 B/s).

/// Binary kibibyte.
pub const KIB: u64 = 1 << 10;
/// Binary mebibyte.
pub const MIB: u64 = 1 << 20;
/// Binary gibibyte.
pub const GIB: u64 = 1 << 30;

/// A buffer size in binary units, as compact as is exact when possible: `256MiB`, `4KiB`,
/// `1.5GiB`, `100B`. Used in result ids, so it must be stable.
pub fn format_size(bytes: u64) -> String {
    for (unit, name) in [(GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")] {
        if bytes >= unit {
            return if bytes.is_multiple_of(unit) {
                format!("{}{}", bytes / unit, name)
            } else {
                let value = bytes as f64 / unit as f64;
                format!("{}{}", trim_float(value), name)
            };
        }
    }
    format!("{bytes}B")
}

fn trim_float(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Parses a size such as `64MiB`, `4 KiB`, `1GiB`, `512` (bytes). Decimal units (KB, MB, GB)
/// are refused so nobody confuses 10^6 and 2^20.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size: write e.g. 64MiB, 4KiB or 1GiB"))?;
    let multiplier = match unit.trim() {
        "" | "B" => 1,
        "KiB" => KIB,
        "MiB" => MIB,
        "GiB" => GIB,
        other => {
            return Err(format!(
                "unknown size unit '{other}' in '{text}': use B, KiB, MiB or GiB"
            ));
        }
    };
    let bytes = value * multiplier as f64;
    if bytes.is_nan() || bytes < 1.0 {
        return Err(format!("size '{text}' must be at least 1 byte"));
    }
    if bytes >= u64::MAX as f64 {
        return Err(format!(
            "size '{text}' is larger than any memory (at most {} bytes)",
            u64::MAX
        ));
    }
    Ok(bytes.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_beyond_u64_is_too_large_not_too_small() {
        let err = parse_size("99999999999999999999").expect_err("too large");
        assert!(err.contains("larger than any memory"), "{err}");
        let err = parse_size("0.1").expect_err("too small");
        assert!(err.contains("at least 1 byte"), "{err}");
    }

    #[test]
    fn sizes_format_in_binary_units() {
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_size(256 * MIB), "256MiB");
        assert_eq!(format_size(3 * GIB / 2), "1.5GiB");
        assert_eq!(format_size(100), "100B");
    }

    #[test]
    fn sizes_parse_and_round_trip() {
        for bytes in [1, 4096, 64 * MIB, 2 * GIB, 3 * GIB / 2] {
            assert_eq!(parse_size(&format_size(bytes)), Ok(bytes));
        }
        assert_eq!(parse_size("4 KiB"), Ok(4096));
        assert!(parse_size("4MB").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("-4KiB").is_err());
        assert!(parse_size("KiB").is_err());
    }
}
