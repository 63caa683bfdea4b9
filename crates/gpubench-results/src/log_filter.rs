//! What a log filter lets through, read from its text (env_logger's syntax: comma-separated
//! directives, each `level`, `target` or `target=level`, then an optional `/regex`).

/// Whether `filter` lets through anything above `warn` (an `info`, `debug` or `trace` level,
/// or a bare target, which means every level of it).
pub fn is_verbose(filter: &str) -> bool {
    let directives = filter.split('/').next().unwrap_or_default();
    directives
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .any(|directive| {
            let level = directive
                .rsplit_once('=')
                .map_or(directive, |(_, level)| level);
            match level.trim().to_ascii_lowercase().as_str() {
                "info" | "debug" | "trace" => true,
                "off" | "error" | "warn" => false,
                // A bare target (`wgpu_hal`) turns on every level of it.
                _ => !directive.contains('='),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::is_verbose;

    #[test]
    fn levels_above_warn_anywhere_in_the_filter_are_verbose() {
        for quiet in [
            "warn",
            "error",
            "off",
            "wgpu_hal=warn,error",
            " warn ",
            "warn/regex",
        ] {
            assert!(!is_verbose(quiet), "{quiet}");
        }
        for verbose in [
            "debug",
            "trace",
            "INFO",
            "wgpu_hal=info,warn",
            "warn,wgpu=trace",
            "wgpu_core",
        ] {
            assert!(is_verbose(verbose), "{verbose}");
        }
    }
}
