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
    let mut fleet = Plan::for_fleet(args)?;
    refuse_html(args)?;
    let adapters = chosen_adapters(args.adapter.backend.as_deref())?;
    fleet.exports.check_several(adapters.len(), args.format)?;
    let (dir, created) = claim_results_dir(args.out.as_deref(), "fleet")?;
    // Every adapter's results file is named and checked, against each other and every file
    // the fleet writes or reads, before any adapter runs.
    let plans = adapters
        .iter()
        .map(|adapter| {
            let out = dir.join(format!(
                "{}-{}-{}.json",
                adapter.index,
                slug(&adapter.name),
                adapter.backend
            ));
            fleet.for_fleet_adapter(adapter.index, &adapter.backend, out)
        })
        .collect::<anyhow::Result<Vec<Plan>>>();
    let plans = match plans {
        Ok(plans) => plans,
        Err(error) => {
            if created {
                let _ = std::fs::remove_dir(&dir);
            }
            return Err(error);
        }
    };
    let signals = StopSignal::install();
    let mut outcomes = Vec::new();
    for (i, (adapter, plan)) in adapters.iter().zip(plans).enumerate() {
        let out = plan.out.clone().unwrap_or_default();
        note!(
            "== adapter {}/{}: [{}] {} ({})",
            i + 1,
            adapters.len(),
            adapter.index,
            adapter.name,
            adapter.backend
        );
        let outcome = crate::cmd::run::run_one(plan, &signals);
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
    say_outcomes(&outcomes);
    let closed = if crate::cmd::baseline_gate::is_text(args.format) {
        print_cross_table(args, &outcomes)?
    } else {
        print_runs(&fleet, &outcomes)?
    };
    match fleet_exit(&outcomes) {
        Exit::Success if closed => Ok(Exit::StdoutClosed),
        exit => Ok(exit),
    }
}

/// Every adapter `gpubench list` shows, on the backends of `--backend` (all when not given).
pub fn chosen_adapters(backend: Option<&str>) -> anyhow::Result<Vec<AdapterSummary>> {
    // `--backend`, else WGPU_BACKEND, as for one adapter.
    let backends = Selection::resolve(None, backend.map(str::to_string))
        .backends()
        .map_err(|e| UsageError(format!("--backend: {e}")))?;
    let adapters: Vec<AdapterSummary> = list_adapters()
        .into_iter()
        .filter(|a| parse_backends(&a.backend).is_ok_and(|mine| backends.contains(mine)))
        .collect();
    if adapters.is_empty() {
        anyhow::bail!(
            "--adapter all found no adapter{}: `gpubench list` shows what wgpu finds",
            backend.map_or(String::new(), |b| format!(" on backend {b}"))
        );
    }
    Ok(adapters)
}

/// A fleet writes its page afterwards, of every adapter's file.
fn refuse_html(args: &RunArgs) -> anyhow::Result<()> {
    match args.html {
        Some(_) => Err(UsageError(
            "--html with --adapter all: write the fleet's page afterwards with `gpubench report DIR --html FILE`"
                .to_string(),
        )
        .into()),
        None => Ok(()),
    }
}

/// A command's results directory (a fleet's, `ab`'s), claimed before anything runs, and
/// whether this call created it: `--out DIR` when it is new or empty (a file, or a directory
/// that holds anything, is refused: another run's files would be replaced), else
/// `results/<kind>-<time>/`, created with `mkdir` so that two runs started in the same second
/// get a directory each (`<kind>-<time>-2`).
pub fn claim_results_dir(out: Option<&Path>, kind: &str) -> anyhow::Result<(PathBuf, bool)> {
    let Some(dir) = out else {
        let base = Path::new(crate::cmd::run::RESULTS_DIR).join(format!(
            "{kind}-{}",
            gpubench_results::hostinfo::now_compact()
        ));
        return claim_new_dir(&base).map(|dir| (dir, true));
    };
    let refuse = |why: &str| Err(UsageError(format!("--out {}: {why}", dir.display())).into());
    if dir.exists() && !dir.is_dir() {
        return refuse("is a file; here it names the results directory");
    }
    // Where it was asked, a directory that cannot be made or read is a usage error (exit 2),
    // as every other output that cannot be written where it was asked.
    let asked = |e: std::io::Error| -> anyhow::Error {
        UsageError(format!(
            "--out {}: cannot be created or read: {e}",
            dir.display()
        ))
        .into()
    };
    let created = !dir.exists() && create_dir(dir).map_err(asked)?;
    let empty = std::fs::read_dir(dir).map_err(asked)?.next().is_none();
    if !empty {
        return refuse(
            "holds files already; this command writes one file per run there and never replaces another run's: give a new or empty directory",
        );
    }
    Ok((dir.to_path_buf(), created))
}

/// `base`, or the first of `base-2`, `base-3`, ... that no other run has claimed, created.
fn claim_new_dir(base: &Path) -> anyhow::Result<PathBuf> {
    const TRIES: u32 = 1000;
    for k in 1..=TRIES {
        let dir = match k {
            1 => base.to_path_buf(),
            k => PathBuf::from(format!("{}-{k}", base.display())),
        };
        if create_dir(&dir).map_err(|e| creating(&dir, &e))? {
            return Ok(dir);
        }
    }
    anyhow::bail!(
        "no free results directory beside {}: {TRIES} names are taken; give one with --out",
        base.display()
    )
}

/// Creates `dir` (and its parents): true when this call created it, false when it was there.
fn create_dir(dir: &Path) -> std::io::Result<bool> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// The error of a results directory that could not be created or read.
fn creating(dir: &Path, error: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("creating the results directory {}: {error}", dir.display())
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
    let runs = finished_runs(outcomes, by_file);
    if runs.is_empty() {
        note!("no adapter left results: no export written");
        return Ok(());
    }
    exports.write_rendered(|format| render_runs(format, &runs, &fleet.table, exports))?;
    let docs: Vec<&RunDocument> = runs.iter().map(|(_, doc)| *doc).collect();
    exports.write_gab(&docs)
}

/// Says on stderr how each adapter's run ended and where its results are.
fn say_outcomes(outcomes: &[(&AdapterSummary, PathBuf, AdapterRun)]) {
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
}

/// The runs that left a document, each labelled by `label` of its adapter and results file.
fn finished_runs<'a>(
    outcomes: &'a [(&AdapterSummary, PathBuf, AdapterRun)],
    label: impl Fn(&AdapterSummary, &Path) -> String,
) -> Vec<(String, &'a RunDocument)> {
    outcomes
        .iter()
        .filter_map(|(adapter, path, outcome)| match outcome {
            AdapterRun::Finished(_, Some(doc)) => Some((label(adapter, path), &**doc)),
            _ => None,
        })
        .collect()
}

/// A run labelled by its results file.
fn by_file(_: &AdapterSummary, path: &Path) -> String {
    path.display().to_string()
}

/// Prints every adapter's run as one machine-readable document (a JSON array, one CSV table,
/// BMF merged under adapter names), as the exports hold them: the adapters' own runs printed
/// nothing, so stdout parses as one document. True when stdout was closed.
fn print_runs(
    fleet: &Plan,
    outcomes: &[(&AdapterSummary, PathBuf, AdapterRun)],
) -> anyhow::Result<bool> {
    let runs = finished_runs(outcomes, by_file);
    if runs.is_empty() {
        return Ok(false);
    }
    let text = render_runs(fleet.format, &runs, &fleet.table, &fleet.exports)?;
    Ok(crate::stdout::print(&text)? == crate::stdout::Printed::Closed)
}

/// Prints the cross-card table of the runs that left a results file; true when stdout was closed.
fn print_cross_table(
    args: &RunArgs,
    outcomes: &[(&AdapterSummary, PathBuf, AdapterRun)],
) -> anyhow::Result<bool> {
    let docs = finished_runs(outcomes, |adapter, _| {
        format!("[{}] {}", adapter.index, adapter.backend)
    });
    if docs.len() < 2 {
        return Ok(false);
    }
    let style = TableStyle::for_stdout(args.verbose);
    let runs: Vec<(&str, &RunDocument)> = docs.iter().map(|(l, d)| (l.as_str(), *d)).collect();
    if crate::stdout::print(&args.format.render(&cross_table(&runs), &style)?)?
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
    if exits().any(|e| e == Exit::TooNoisy) {
        return Exit::TooNoisy;
    }
    // An adapter's own print found stdout closed (a reader such as `head` gone).
    if exits().any(|e| e == Exit::StdoutClosed) {
        return Exit::StdoutClosed;
    }
    Exit::Success
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_claims_a_directory_of_its_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().join("results").join("fleet-20261205-044500");
        assert_eq!(claim_new_dir(&base).expect("claimed"), base);
        // A second fleet in the same second: the next free name, never the first's.
        let second = claim_new_dir(&base).expect("claimed");
        assert_eq!(second, dir.path().join("results/fleet-20261205-044500-2"));
        assert!(second.is_dir());

        // --out: a new directory is created, an empty one taken, a non-empty one refused.
        let new = dir.path().join("new");
        assert_eq!(
            claim_results_dir(Some(&new), "fleet").expect("new"),
            (new.clone(), true)
        );
        assert_eq!(
            claim_results_dir(Some(&new), "fleet").expect("empty"),
            (new.clone(), false)
        );
        std::fs::write(new.join("0-llvmpipe-vulkan.json"), b"{}").expect("write");
        let error = claim_results_dir(Some(&new), "fleet").expect_err("not empty");
        assert!(error.to_string().contains("holds files already"), "{error}");
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").expect("write");
        assert!(claim_results_dir(Some(&file), "fleet").is_err());
    }
}
