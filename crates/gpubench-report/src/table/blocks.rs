//! Extra blocks under a suite's table, for results a flat list reads badly:
//!
//! - a size sweep (results with `path` and `bytes` parameters, such as the transfer suite) as a
//!   pivot, one row per size and one column per path, so bandwidth against size reads down a
//!   column and paths compare across a row;
//! - latency percentiles (p50/p95/p99/max) for results that carry an HDR latency summary.

use std::collections::BTreeMap;

use comfy_table::{Cell, CellAlignment, Table};
use gpubench_results::units::format_size;
use gpubench_results::{BenchResult, MetricKind, Status};

use crate::layout::framed_table;
use crate::numbers::sig3;

/// The pivot of a size sweep: per size, per path, the median bandwidth, the latency it implies
/// (bytes / bandwidth) and, where timestamps bracketed the copy, the GPU-side bandwidth.
/// Rendered with a line explaining the cells; `None` when the suite has no swept results.
pub fn sweep_table(suite: &str, rows: &[&BenchResult], width: Option<u16>) -> Option<String> {
    let mut paths: Vec<&str> = Vec::new();
    let mut cells: BTreeMap<(u64, &str), String> = BTreeMap::new();
    for r in rows {
        let (Some(path), Some(bytes)) = (
            r.params.get("path").and_then(|p| p.as_str()),
            r.params.get("bytes").and_then(|b| b.as_u64()),
        ) else {
            continue;
        };
        if r.metric != MetricKind::Bandwidth {
            continue;
        }
        if !paths.contains(&path) {
            paths.push(path);
        }
        let text = match (r.status, &r.summary) {
            (Status::Ok, Some(s)) if s.median > 0.0 => {
                let us = r.work.total_bytes() as f64 / (s.median * 1e9) * 1e6;
                let mut text = format!("{} GB/s  {} us", sig3(s.median), sig3(us));
                if let Some(gpu) = &r.gpu_summary {
                    text.push_str(&format!("  (copy {})", sig3(gpu.median)));
                }
                text
            }
            (status, _) => status.as_str().to_string(),
        };
        cells.insert((bytes, path), text);
    }
    if cells.is_empty() {
        return None;
    }
    let mut header = vec![format!("{suite} by size")];
    // On a narrow terminal, long path names in the header split after their hyphens, never
    // inside a word.
    header.extend(paths.iter().map(|p| match width {
        Some(_) if paths.len() > 2 => crate::layout::split_at_hyphens(p, 12),
        _ => p.to_string(),
    }));
    let mut table = framed_table(header, width);
    let mut sizes: Vec<u64> = cells.keys().map(|(bytes, _)| *bytes).collect();
    sizes.dedup();
    for bytes in sizes {
        let mut row = vec![Cell::new(format_size(bytes))];
        for path in &paths {
            let text = cells.get(&(bytes, *path)).map_or("-", String::as_str);
            row.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    let explained = "per cell: median GB/s by the row's headline clock (host, end to end; GPU timestamps per copy \
         for copy-engine paths; host per memcpy for host-write), us per transfer (bytes / bandwidth), \
         and (copy GB/s) by GPU timestamps around the copy or kernel inside an end-to-end transfer";
    Some(format!(
        "{table}\n{}",
        crate::layout::prose(&[explained.to_string()], width)
    ))
}

/// p50/p95/p99/max of every result with a latency summary, and the median device time of the
/// same work where GPU timestamps recorded it. `None` when there is none.
pub fn latency_table(suite: &str, rows: &[&BenchResult], width: Option<u16>) -> Option<Table> {
    let with_latency: Vec<&BenchResult> = rows
        .iter()
        .copied()
        .filter(|r| r.status == Status::Ok && r.latency.is_some())
        .collect();
    if with_latency.is_empty() {
        return None;
    }
    let mut table = framed_table(
        vec![
            format!("{suite} latency"),
            "p50 us".to_string(),
            "p95 us".to_string(),
            "p99 us".to_string(),
            "max us".to_string(),
            "n".to_string(),
            "gpu median us".to_string(),
        ],
        width,
    );
    for r in with_latency {
        let Some(l) = &r.latency else { continue };
        let id = r.id.strip_prefix(&format!("{}/", r.suite)).unwrap_or(&r.id);
        let right = |v: f64| Cell::new(sig3(v)).set_alignment(CellAlignment::Right);
        table.add_row(vec![
            Cell::new(id),
            right(l.p50_us),
            // A percentile of too few latencies is not stated (see `stats::MIN_N_P95`).
            l.p95().map_or_else(|| Cell::new("n/a"), right),
            l.p99().map_or_else(|| Cell::new("n/a"), right),
            right(l.max_us),
            Cell::new(l.n).set_alignment(CellAlignment::Right),
            // Device time of the same work, when timestamps bracketed it: the rest of the round
            // trip is submit, scheduling and wake-up on the host.
            match &r.gpu_summary {
                Some(gpu) if r.metric == MetricKind::TimePerOp => right(gpu.median),
                _ => Cell::new("-"),
            },
        ]);
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::stats::{latency_summary, summarize};
    use gpubench_results::{BenchmarkInfo, MetricKind, Work};

    fn transfer(path: &str, bytes: u64, gbs: f64) -> BenchResult {
        let info = BenchmarkInfo::new(
            format!("transfer/{path}/bytes/{}", format_size(bytes)),
            "transfer",
            MetricKind::Bandwidth,
            "bytes moved once",
        )
        .param("path", path)
        .param("bytes", bytes);
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        r.work = Work {
            bytes_written: bytes,
            ops: 1,
            ..Work::default()
        };
        r.summary = summarize(&[gbs]);
        r
    }

    #[test]
    fn sweep_pivots_sizes_against_paths() {
        let mut d2h = transfer("d2h", 4096, 0.4096);
        d2h.gpu_summary = summarize(&[2.0]).map(Box::new);
        let rows = [
            transfer("h2d", 4096, 0.4096),
            transfer("h2d", 16384, 1.0),
            d2h,
        ];
        let refs: Vec<&BenchResult> = rows.iter().collect();
        let text = sweep_table("transfer", &refs, None).expect("table");
        assert!(text.contains("transfer by size"));
        // 4096 B at 0.4096 GB/s is 10 us.
        assert!(text.contains("0.410 GB/s  10.0 us"), "{text}");
        assert!(text.contains("(copy 2.00)"), "{text}");
        assert!(text.contains("16KiB"));
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("KiB")).collect();
        assert_eq!(lines.len(), 2, "one row per size:\n{text}");
    }

    #[test]
    fn latency_block_lists_percentiles() {
        let info = BenchmarkInfo::new(
            "launch/round-trip/one-dispatch",
            "launch",
            MetricKind::TimePerOp,
            "us",
        );
        let mut r = BenchResult::empty(&info, Status::Ok, None);
        let ns: Vec<u64> = (1..=100u64).map(|us| us * 1000).collect();
        r.latency = latency_summary(&ns).map(Box::new);
        r.gpu_summary = summarize(&[12.5]).map(Box::new);
        let text = latency_table("launch", &[&r], None)
            .expect("table")
            .to_string();
        assert!(text.contains("round-trip/one-dispatch"));
        assert!(text.contains("p99 us"));
        assert!(text.contains("50.0"), "{text}");
        assert!(text.contains("12.5"), "{text}");
        let none = BenchResult::empty(&info, Status::Ok, None);
        assert!(latency_table("launch", &[&none], None).is_none());
        assert!(sweep_table("launch", &[&none], None).is_none());
    }
}
