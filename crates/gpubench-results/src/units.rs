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

/// `text` trimmed and split where its leading number (digits and points) ends: the number, and
/// what follows it (untrimmed).
fn number_and_unit(text: &str) -> (&str, &str) {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    trimmed.split_at(split)
}

/// Parses a size such as `64MiB`, `4 KiB`, `1GiB`, `512` (bytes). Decimal units (KB, MB, GB)
/// are refused so nobody confuses 10^6 and 2^20.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let (number, unit) = number_and_unit(text);
    let not_a_size = || format!("'{text}' is not a size: write e.g. 64MiB, 4KiB or 1GiB");
    let too_large = || {
        format!(
            "size '{text}' is larger than any memory (at most {} bytes)",
            u64::MAX
        )
    };
    let value: f64 = number.parse().map_err(|_| not_a_size())?;
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
    if !number.contains('.') {
        // A whole number is taken exactly (an f64 holds integers exactly only up to 2^53).
        let whole: u64 = number
            .parse()
            .map_err(|e: std::num::ParseIntError| match e.kind() {
                std::num::IntErrorKind::PosOverflow => too_large(),
                _ => not_a_size(),
            })?;
        if whole == 0 {
            return Err(format!("size '{text}' must be at least 1 byte"));
        }
        return whole.checked_mul(multiplier).ok_or_else(too_large);
    }
    let bytes = value * multiplier as f64;
    if bytes.is_nan() || bytes < 1.0 {
        return Err(format!("size '{text}' must be at least 1 byte"));
    }
    if bytes >= u64::MAX as f64 {
        return Err(too_large());
    }
    if bytes.fract() != 0.0 {
        return Err(format!(
            "size '{text}' is {bytes} bytes, not a whole number of bytes: give whole bytes (e.g. 1.5MiB, 4096)"
        ));
    }
    Ok(bytes as u64)
}

/// Parses a count with an optional SI multiplier (`k` 10^3, `M` 10^6, `G` 10^9, `T` 10^12) and
/// an optional unit word after it: `20G`, `1.5 TFLOP`, `500k`, `64`. `unit` is the one word
/// accepted (`FLOP`) and names the quantity in messages. Binary prefixes are refused: a count
/// of operations is decimal.
pub fn parse_si_count(text: &str, unit: &str) -> Result<u64, String> {
    let (number, rest) = number_and_unit(text);
    let value: f64 = number.parse().map_err(|_| {
        format!("'{text}' is not a number of {unit}: write e.g. 20G, 1.5T or 500M (SI)")
    })?;
    let rest = rest.trim();
    let rest = rest.strip_suffix(unit).unwrap_or(rest).trim();
    let multiplier = match rest {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        other => {
            return Err(format!(
                "unknown multiplier '{other}' in '{text}': use k, M, G or T (10^3 .. 10^12)"
            ));
        }
    };
    let count = value * multiplier;
    if !count.is_finite() || count >= u64::MAX as f64 {
        return Err(format!("'{text}' is too large a number of {unit}"));
    }
    Ok(count.round() as u64)
}

/// Parses a rate in events per second: `90/s`, `2.5/s`, `1200/min` is refused (seconds only).
pub fn parse_rate_per_s(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let number = trimmed
        .strip_suffix("/s")
        .ok_or_else(|| format!("'{text}' is not a rate: write it per second, e.g. 90/s"))?;
    match number.trim().parse::<f64>() {
        Ok(rate) if rate > 0.0 && rate.is_finite() => Ok(rate),
        _ => Err(format!("'{text}' is not a positive rate: write e.g. 90/s")),
    }
}

/// Parses a positive time with its unit (`us`, `ms` or `s`): `50ms`, `1.5 s`, `250us`; in
/// seconds.
pub fn parse_duration_s(text: &str) -> Result<f64, String> {
    let (number, unit) = number_and_unit(text);
    let scale = match unit.trim() {
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "" => {
            return Err(format!(
                "'{text}' has no unit: write e.g. 50ms, 250us or 2s"
            ));
        }
        other => {
            return Err(format!(
                "unknown time unit '{other}' in '{text}': use us, ms or s"
            ));
        }
    };
    match number.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v * scale),
        _ => Err(format!("'{text}' is not a positive time: write e.g. 50ms")),
    }
}

/// A count in SI units, as compact as is exact: `20G`, `1.5T`, `500k`, `64`. Used in result
/// ids, so it must be stable.
pub fn format_si_count(count: u64) -> String {
    for (unit, name) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        let value = count as f64 / unit;
        if value >= 1.0 {
            return format!("{}{name}", trim_float(value));
        }
    }
    count.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_rates_and_times_parse_in_their_own_grammar() {
        assert_eq!(parse_si_count("20G", "FLOP"), Ok(20_000_000_000));
        assert_eq!(parse_si_count("1.5 TFLOP", "FLOP"), Ok(1_500_000_000_000));
        assert_eq!(parse_si_count("500k", "FLOP"), Ok(500_000));
        assert_eq!(parse_si_count("64", "FLOP"), Ok(64));
        assert!(parse_si_count("20Gi", "FLOP").is_err_and(|e| e.contains("'Gi'")));
        assert!(parse_si_count("lots", "FLOP").is_err());
        assert_eq!(format_si_count(20_000_000_000), "20G");
        assert_eq!(format_si_count(1_500_000_000_000), "1.5T");
        assert_eq!(format_si_count(512), "512");
        assert_eq!(parse_rate_per_s("90/s"), Ok(90.0));
        assert!(parse_rate_per_s("90").is_err_and(|e| e.contains("per second")));
        assert!(parse_rate_per_s("0/s").is_err());
        assert_eq!(parse_duration_s("50ms"), Ok(0.05));
        assert_eq!(parse_duration_s("250us"), Ok(0.000_25));
        assert_eq!(parse_duration_s("2s"), Ok(2.0));
        assert!(parse_duration_s("50").is_err_and(|e| e.contains("no unit")));
        assert!(parse_duration_s("5min").is_err_and(|e| e.contains("'min'")));
        assert!(parse_duration_s("-1ms").is_err());
    }

    #[test]
    fn a_size_beyond_u64_is_too_large_not_too_small() {
        let err = parse_size("99999999999999999999").expect_err("too large");
        assert!(err.contains("larger than any memory"), "{err}");
        let err = parse_size("0.1").expect_err("too small");
        assert!(err.contains("at least 1 byte"), "{err}");
        // A fraction of a byte is refused, not rounded into a size nobody asked for.
        let err = parse_size("4096.5").expect_err("half a byte");
        assert!(err.contains("not a whole number of bytes"), "{err}");
        assert_eq!(parse_size("1.5MiB"), Ok(3 * MIB / 2));
        // Whole numbers are exact past 2^53, up to the largest u64, and no further.
        assert_eq!(parse_size("9007199254740993B"), Ok(9_007_199_254_740_993));
        assert_eq!(parse_size("18446744073709551615B"), Ok(u64::MAX));
        let err = parse_size("18446744073709551616B").expect_err("one past");
        assert!(err.contains("larger than any memory"), "{err}");
        let err = parse_size("17179869184GiB").expect_err("2^64 bytes");
        assert!(err.contains("larger than any memory"), "{err}");
        assert!(
            parse_size("0MiB")
                .expect_err("zero")
                .contains("at least 1 byte")
        );
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
