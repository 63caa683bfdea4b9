//! `gpubench run --adapter all`: every adapter of this machine in turn (those of `--backend`
//! when given), one results file each in a results directory, then the cross-card table of them
//! all.
//!
//! Each adapter is a run of its own, with its own device and its own baseline: an adapter that
//! fails to open, loses its device or fails a benchmark is recorded and the next one runs. A
//! signal stops the whole fleet after the adapter in progress has kept its finished results.
//!
//! Exit: 130/143 when interrupted; else 4 when a benchmark failed on any adapter; else 1 when an
//! adapter could not be run at all; else 3 when one regressed against its baseline; else 0.

use gpubench_report::Format;
use gpubench_report::table::TableStyle;
use std::path::{Path, PathBuf};

use gpubench_baseline::cross_table;
use gpubench_harness::RunDocument;
use gpubench_harness::device::{AdapterSummary, list_adapters, parse_backends};
use gpubench_results::schema::slug;

use gpubench_harness::device::Selection;

use crate::cli::RunArgs;
use crate::cmd::exports::render_runs;
use crate::cmd::run::Plan;
use crate::exit::{Exit, UsageError};
use crate::signals::StopSignal;

/// What became of one adapter's run.
enum AdapterRun {
    /// It ran (or stopped) with this status; its document, when one was written.
    Finished(Exit, Option<Box<RunDocument>>),
    /// It could not be run.
    Error(String),
}

/// Runs every adapter in turn and prints the cross-card table of their results, from the
/// documents the runs returned.
pub fn run_all(args: &RunArgs) -> anyhow::Result<Exit> {
    let fleet = Plan::for_fleet(args)?;
    let dir = results_dir(args)?;
    let adapters = chosen_adapters(args)?;
    fleet.exports.check_several(adapters.len(), Format::Table)?;
    let created = !dir.exists();
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("creating the results directory {}: {e}", dir.display()))?;
    let signals = StopSignal::install();
    let mut outcomes = Vec::new();
    for (i, adapter) in adapters.iter().enumerate() {
        let out = dir.join(format!(
            "{}-{}-{}.json",
            adapter.index,
            slug(&adapter.name),
            adapter.backend
        ));
        note!(
            "== adapter {}/{}: [{}] {} ({})",
            i + 1,
            adapters.len(),
            adapter.index,
            adapter.name,
            adapter.backend
        );
        let outcome = fleet
            .for_fleet_adapter(adapter.index, &adapter.backend, out.clone())
            .and_then(|plan| crate::cmd::run::run_one(plan, &signals));
        let outcome = match outcome {
            Ok((exit, doc)) => AdapterRun::Finished(exit, doc.map(Box::new)),
            Err(error) => {
                note!(
                    "error: adapter [{}] {}: {error:#}",
                    adapter.index,
                    adapter.name
                );
                AdapterRun::Error(format!("{error:#}"))
            }
        };
        let interrupted = matches!(&outcome, AdapterRun::Finished(e, _) if e.interrupted());
        outcomes.push((adapter, out, outcome));
        if interrupted {
            break;
        }
    }
    // A fleet that measured nothing (every adapter refused, say by --expect-vendor) leaves no
    // empty directory of its own behind; remove_dir takes only an empty one.
    if created && std::fs::remove_dir(&dir).is_ok() {
        note!(
            "nothing was measured: removed the empty results directory {}",
            dir.display()
        );
    }
    write_exports(&fleet, &outcomes)?;
    let closed = print_cross_table(args, &outcomes)?;
    match fleet_exit(&outcomes) {
        Exit::Success if closed => Ok(Exit::StdoutClosed),
        exit => Ok(exit),
    }
}

/// Every adapter `gpubench list` shows, on the backends of `--backend` (all when not given).
fn chosen_adapters(args: &RunArgs) -> anyhow::Result<Vec<AdapterSummary>> {
    // `--backend`, else WGPU_BACKEND, as for one adapter.
    let backends = Selection::resolve(None, args.adapter.backend.clone())
        .backends()
        .map_err(|e| UsageError(format!("--backend: {e}")))?;
    let adapters: Vec<AdapterSummary> = list_adapters()
        .into_iter()
        .filter(|a| parse_backends(&a.backend).is_ok_and(|mine| backends.contains(mine)))
        .collect();
    if adapters.is_empty() {
        anyhow::bail!(
            "--adapter all found no adapter{}: `gpubench list` shows what wgpu finds",
            args.adapter
                .backend
                .as_deref()
                .map_or(String::new(), |b| format!(" on backend {b}"))
        );
    }
    Ok(adapters)
}

/// `--out DIR`, else `results/fleet-<time>/`. An existing file is refused: with
/// `--adapter all`, `--out` names a directory.
fn results_dir(args: &RunArgs) -> anyhow::Result<PathBuf> {
    if args.html.is_some() {
        return Err(UsageError(
            "--html with --adapter all: write the fleet's page afterwards with `gpubench report DIR --html FILE`"
                .to_string(),
        )
        .into());
    }
    let dir = match &args.out {
        Some(dir) if dir.exists() && !dir.is_dir() => {
            return Err(UsageError(format!(
                "--out {} is a file; with --adapter all it names the results directory",
                dir.display()
            ))
            .into());
        }
        Some(dir) => dir.clone(),
        None => Path::new("results").join(format!(
            "fleet-{}",
            gpubench_results::hostinfo::now_compact()
        )),
    };
    Ok(dir)
}

/// Writes the `--export-*` files of every adapter's run that left a document, as `show` would
/// of their files: one CSV table, one JSON array, BMF and github-action-benchmark names by
/// adapter.
fn write_exports(
    fleet: &Plan,
    outcomes: &[(&AdapterSummary, PathBuf, AdapterRun)],
) -> anyhow::Result<()> {
    let exports = &fleet.exports;
    if !exports.any() {
        return Ok(());
    }
    let runs: Vec<(String, &RunDocument)> = outcomes
        .iter()
        .filter_map(|(_, path, outcome)| match outcome {
            AdapterRun::Finished(_, Some(doc)) => Some((path.display().to_string(), &**doc)),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        note!("no adapter left results: no export written");
        return Ok(());
    }
    exports.write_rendered(|format| render_runs(format, &runs, &fleet.table, exports))?;
    let docs: Vec<&RunDocument> = runs.iter().map(|(_, doc)| *doc).collect();
    exports.write_gab(&docs)
}

/// Prints the cross-card table of the runs that left a results file; true when stdout was closed.
fn print_cross_table(
    args: &RunArgs,
    outcomes: &[(&AdapterSummary, PathBuf, AdapterRun)],
) -> anyhow::Result<bool> {
    let docs: Vec<(String, &RunDocument)> = outcomes
        .iter()
        .filter_map(|(adapter, _, outcome)| match outcome {
            AdapterRun::Finished(_, Some(doc)) => {
                Some((format!("[{}] {}", adapter.index, adapter.backend), &**doc))
            }
            _ => None,
        })
        .collect();
    note!("");
    for (adapter, path, outcome) in outcomes {
        let what = match outcome {
            AdapterRun::Finished(exit, _) => format!("exit {}", exit.code()),
            AdapterRun::Error(error) => format!("not run: {error}"),
        };
        note!(
            "[{}] {} ({}): {what}; {}",
            adapter.index,
            adapter.name,
            adapter.backend,
            path.display()
        );
    }
    if docs.len() < 2 {
        return Ok(false);
    }
    let format = if args.format == Format::Bmf {
        Format::Table
    } else {
        args.format
    };
    let style = TableStyle::for_stdout(args.verbose);
    let runs: Vec<(&str, &RunDocument)> = docs.iter().map(|(l, d)| (l.as_str(), *d)).collect();
    if crate::stdout::print(&format.render_cross(&cross_table(&runs), &style)?)?
        == crate::stdout::Printed::Closed
    {
        return Ok(true);
    }
    Ok(false)
}

fn fleet_exit(outcomes: &[(&AdapterSummary, PathBuf, AdapterRun)]) -> Exit {
    let exits = || {
        outcomes.iter().filter_map(|(_, _, o)| match o {
            AdapterRun::Finished(exit, _) => Some(*exit),
            AdapterRun::Error(_) => None,
        })
    };
    if let Some(signal) = exits().find(|e| e.interrupted()) {
        return signal;
    }
    if exits().any(|e| e == Exit::BenchmarkFailed) {
        return Exit::BenchmarkFailed;
    }
    if outcomes
        .iter()
        .any(|(_, _, o)| matches!(o, AdapterRun::Error(_)))
    {
        return Exit::Error;
    }
    if exits().any(|e| e == Exit::Regression) {
        return Exit::Regression;
    }
    Exit::Success
}
