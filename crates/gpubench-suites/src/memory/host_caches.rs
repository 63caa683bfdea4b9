//! The host CPU's data caches, as Linux reports them in sysfs (what `lscpu -C` reads).
//!
//! A software adapter runs its kernels on the host CPU, so its memory hierarchy is the host's:
//! the memory suite sizes its sweep from the largest of these caches, and on such an adapter
//! pairs each level it detects with a host cache. Elsewhere (another OS, a GPU) nothing is
//! assumed from them.

use std::path::Path;

use gpubench_results::bounded::{SYSTEM_FILE_BYTES, read_text_bounded};

/// One level of the host's data (or unified) caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostCache {
    /// Level: 1 for L1d, 2 for L2, 3 for L3.
    pub level: u8,
    /// Capacity of one instance in bytes (one core's L1d, one complex's L3).
    pub bytes: u64,
}

impl HostCache {
    /// Its usual name: `L1d`, `L2`, `L3`.
    pub fn name(&self) -> String {
        if self.level == 1 {
            "L1d".to_string()
        } else {
            format!("L{}", self.level)
        }
    }
}

/// The data and unified caches of CPU 0, one per level, smallest level first; empty where the
/// system does not say (not Linux, or sysfs hidden).
pub fn host_data_caches() -> Vec<HostCache> {
    read_caches(Path::new("/sys/devices/system/cpu/cpu0/cache"))
}

/// The caches described under `dir` (sysfs's `index*/{level,type,size}` layout).
pub fn read_caches(dir: &Path) -> Vec<HostCache> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    // Through the one bounded reader, like every file gpubench reads: a FIFO or an endless
    // file planted in a fake sysfs tree is refused, never read until memory runs out.
    let read = |path: &Path, name: &str| {
        read_text_bounded(&path.join(name), SYSTEM_FILE_BYTES)
            .ok()
            .map(|s| s.trim().to_string())
    };
    let mut caches: Vec<HostCache> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
        })
        .filter_map(|path| {
            let kind = read(&path, "type")?;
            if kind == "Instruction" {
                return None;
            }
            Some(HostCache {
                level: read(&path, "level")?.parse().ok()?,
                bytes: parse_sysfs_size(&read(&path, "size")?)?,
            })
        })
        .collect();
    caches.sort_by_key(|c| c.level);
    caches.dedup_by_key(|c| c.level);
    caches
}

/// A sysfs cache size: `32K`, `1024K`, `32M`, or plain bytes.
pub fn parse_sysfs_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let value: u64 = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    value.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_parse_and_nonsense_does_not() {
        assert_eq!(parse_sysfs_size("32K"), Some(32 << 10));
        assert_eq!(parse_sysfs_size("1024K\n"), Some(1 << 20));
        assert_eq!(parse_sysfs_size("32M"), Some(32 << 20));
        assert_eq!(parse_sysfs_size("4096"), Some(4096));
        assert_eq!(parse_sysfs_size("12x"), None);
        assert_eq!(parse_sysfs_size("K"), None);
    }

    #[test]
    fn instruction_caches_are_left_out_and_levels_come_in_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        for (index, level, kind, size) in [
            (0, "1", "Data", "48K"),
            (1, "1", "Instruction", "32K"),
            (2, "3", "Unified", "32768K"),
            (3, "2", "Unified", "2048K"),
        ] {
            let path = dir.path().join(format!("index{index}"));
            std::fs::create_dir(&path).expect("index dir");
            for (name, text) in [("level", level), ("type", kind), ("size", size)] {
                std::fs::write(path.join(name), format!("{text}\n")).expect("file");
            }
        }
        let caches = read_caches(dir.path());
        let found: Vec<(String, u64)> = caches.iter().map(|c| (c.name(), c.bytes)).collect();
        assert_eq!(
            found,
            [
                ("L1d".to_string(), 48 << 10),
                ("L2".to_string(), 2 << 20),
                ("L3".to_string(), 32 << 20)
            ]
        );
        assert!(read_caches(&dir.path().join("absent")).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_the_cache_tree_is_passed_over_without_hanging() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("index0");
        std::fs::create_dir(&path).expect("index dir");
        std::fs::write(path.join("level"), "1\n").expect("file");
        std::fs::write(path.join("type"), "Data\n").expect("file");
        let status = std::process::Command::new("mkfifo")
            .arg(path.join("size"))
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
        let started = std::time::Instant::now();
        assert!(read_caches(dir.path()).is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
