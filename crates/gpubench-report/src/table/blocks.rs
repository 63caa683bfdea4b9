//! Extra blocks under a suite's table, for results a flat list reads badly:
//!
//! - a size sweep (results with `path` and `bytes` parameters, such as the transfer suite) as a
//!   pivot, one row per size and one column per path, so bandwidth against size reads down a
//!   column and paths compare across a row;
//! - latency percentiles (p50/p95/p99/max) for results that carry an HDR latency summary, as
//!   cells ([`latency_grid`]) that Markdown draws too.

use std::collections::BTreeMap;

use comfy_table::{Cell, CellAlignment, Table};
use gpubench_results::units::format_size;
use gpubench_results::{BenchResult, MetricKind, Status};

use crate::grid::Grid;
use crate::layout::framed_table;
use crate::numbers::sig3;

/// The pivot of a size sweep: per size, per path, the median bandwidth, the latency it implies
/// (bytes / bandwidth) and, where timestamps bracketed the copy, the GPU-side bandwidth.
/// Sizes of a path whose bytes stayed on the device have a column of their own
/// ([`crate::link`]). Rendered with a line explaining the cells; `None` when the suite has no
/// swept results.
pub fn sweep_table(suite: &str, rows: &[&BenchResult], width: Option<u16>) -> Option<String> {
    let link = crate::link::any_crosses(rows.iter().copied());
    let mut paths: Vec<String> = Vec::new();
    let mut cells: BTreeMap<(u64, String), String> = BTreeMap::new();
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
        let path = crate::link::series_name(path, r, link);
        if !paths.contains(&path) {
            paths.push(path.clone());
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
        _ => p.clone(),
    }));
    let mut table = framed_table(header, width);
    let mut sizes: Vec<u64> = cells.keys().map(|(bytes, _)| *bytes).collect();
    sizes.dedup();
    for bytes in sizes {
        let mut row = vec![Cell::new(format_size(bytes))];
        for path in &paths {
            let text = cells
                .get(&(bytes, path.clone()))
                .map_or("-", String::as_str);
            row.push(Cell::new(text).set_alignment(CellAlignment::Right));
        }
        table.add_row(row);
    }
    let mut explained = "per cell: median GB/s by the row's headline clock (host, end to end; GPU timestamps per copy \
         for copy-engine paths; host per memcpy for host-write), us per transfer (bytes / bandwidth), \
         and (copy GB/s) by GPU timestamps around the copy or kernel inside an end-to-end transfer"
        .to_string();
    for apart in crate::link::notes_for(paths.iter().map(String::as_str)) {
        explained.push_str("; ");
        explained.push_str(apart);
    }
    Some(format!(
        "{table}\n{}",
        crate::layout::prose(&[explained], width)
    ))
}

/// p50/p95/p99/max of every result with a latency summary, and the median device time of the
/// same work where GPU timestamps recorded it, as a terminal table. `None` when there is none.
pub fn latency_table(suite: &str, rows: &[&BenchResult], width: Option<u16>) -> Option<Table> {
    let grid = latency_grid(suite, rows)?;
    let mut table = framed_table(grid.header.clone(), width);
    for row in grid.rows {
        table.add_row(row.into_iter().enumerate().map(|(i, text)| {
            // A number is right-aligned; a percentile not stated (`n/a`) and an absent device
            // time (`-`) stay where a word would.
            let number = grid.numeric.contains(&i) && text != "n/a" && text != "-";
            let cell = Cell::new(text);
            if number {
                cell.set_alignment(CellAlignment::Right)
            } else {
                cell
            }
        }));
    }
    Some(table)
}

/// The cells of [`latency_table`], which the terminal and Markdown both draw. `None` when no
/// result has a latency summary.
pub fn latency_grid(suite: &str, rows: &[&BenchResult]) -> Option<Grid> {
    let with_latency: Vec<&BenchResult> = rows
        .iter()
        .copied()
        .filter(|r| r.status == Status::Ok && r.latency.is_some())
        .collect();
    if with_latency.is_empty() {
        return None;
    }
    let title = format!("{suite} latency");
    let mut grid = Grid::new(&[
        &title,
        "p50 us",
        "p95 us",
        "p99 us",
        "max us",
        "n",
        "gpu median us",
    ])
    .numeric(&[1, 2, 3, 4, 5, 6]);
    for r in with_latency {
        let Some(l) = &r.latency else { continue };
        let id = r.id.strip_prefix(&format!("{}/", r.suite)).unwrap_or(&r.id);
        let stated = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), sig3);
        grid.push(vec![
            id.to_string(),
            sig3(l.p50_us),
            // A percentile of too few latencies is not stated (see `stats::MIN_N_P95`).
            stated(l.p95()),
            stated(l.p99()),
            sig3(l.max_us),
            l.n.to_string(),
            // Device time of the same work, when timestamps bracketed it: the rest of the round
            // trip is submit, scheduling and wake-up on the host.
            match &r.gpu_summary {
                Some(gpu) if r.metric == MetricKind::TimePerOp => sig3(gpu.median),
                _ => "-".to_string(),
            },
        ]);
    }
    Some(grid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_results::stats::{latency_summary, summarize};
    use gpubench_results::{BenchmarkInfo, MetricKind, Work};

    fn transfer(path: &str, bytes: u64, gbs: f64) -> BenchResult {
        let id = format!("transfer/{path}/bytes/{}", format_size(bytes));
        let info = BenchmarkInfo::new(id, "transfer", MetricKind::Bandwidth, "bytes moved once")
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
    fn sizes_that_stayed_on_the_device_have_a_column_of_their_own() {
        let crossing = |mut r: BenchResult, crosses: bool| {
            r.params.insert("crosses_link".into(), crosses.into());
            r
        };
        let rows = [
            crossing(transfer("h2d-host-write", 1 << 20, 25.0), true),
            crossing(transfer("h2d-staging-copy", 1 << 20, 424.0), false),
            crossing(transfer("h2d-staging-copy", 1 << 30, 24.0), true),
        ];
        let refs: Vec<&BenchResult> = rows.iter().collect();
        let text = sweep_table("transfer", &refs, None).expect("table");
        let cells = |first: &str| -> Vec<String> {
            let line = text.lines().find(|l| l.contains(first)).expect("a line");
            line.split(['│', '┆'])
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect()
        };
        let header = cells("by size");
        let column = |name: &str| header.iter().position(|h| h == name).expect("a column");
        let (on_device, over_link) = (
            column("h2d-staging-copy (on device)"),
            column("h2d-staging-copy"),
        );
        // 424 GB/s sits under the on-device column, never under the path's own.
        assert!(cells("1MiB")[on_device].starts_with("424 GB/s"), "{text}");
        assert_eq!(cells("1MiB")[over_link], "-", "{text}");
        assert!(cells("1GiB")[over_link].starts_with("24.0 GB/s"), "{text}");
        assert!(
            text.contains("did not cross the host-device link"),
            "{text}"
        );
        // Without a link (unified memory) no column is marked.
        let unified: Vec<BenchResult> = rows.iter().map(|r| crossing(r.clone(), false)).collect();
        let refs: Vec<&BenchResult> = unified.iter().collect();
        let text = sweep_table("transfer", &refs, None).expect("table");
        assert!(!text.contains("(on device)"), "{text}");
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
