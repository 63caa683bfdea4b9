//! What `run` and `compare` share about baselines and verdicts: comparing, printing the
//! verdicts, deciding the exit code, recording a baseline, and the github-action-benchmark
//! export. Kept out of `run.rs` so the run loop stays about running.

use std::path::{Path, PathBuf};

use gpubench_baseline::{BaselineStore, CompareOptions, Comparison, compare};
use gpubench_harness::RunDocument;
use gpubench_harness::results_file::{load_document, write_atomic};
use gpubench_report::gab::{companion_path, gab_export};

use crate::cli::{BaselineArgs, GateArgs};
use crate::exit::{Exit, UsageError};

/// The comparison options the flags ask for.
pub fn options(gate: &GateArgs) -> CompareOptions {
    CompareOptions {
        noise: gate.noise,
        strict: gate.strict,
    }
}

/// Loads a result file; the error is one line naming the file and what is wrong with it.
pub fn load(path: &Path) -> anyhow::Result<RunDocument> {
    // The harness's message already names the file and the cause; flatten it to one line so the
    // cause is not repeated by the error chain.
    load_document(path).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Exit 3 when the comparison fails the gate and the flags allow failing.
pub fn gate_exit(cmp: &Comparison, gate: &GateArgs) -> Exit {
    if gate.no_fail || !cmp.fails_gate() {
        return Exit::Success;
    }
    let ids: Vec<&str> = cmp.regressions().map(|p| p.id.as_str()).collect();
    eprintln!(
        "regression against {}: {} (use --no-fail to report without failing)",
        cmp.base.label,
        ids.join(", ")
    );
    Exit::Regression
}

/// Writes the github-action-benchmark export of `doc` to `path` and its smaller-is-better
/// companion beside it: both always, neither empty.
pub fn write_gab(path: &Path, doc: &RunDocument) -> anyhow::Result<()> {
    let export = gab_export(doc)?;
    let companion = companion_path(path);
    write_atomic(path, export.bigger_is_better.as_bytes())?;
    write_atomic(&companion, export.smaller_is_better.as_bytes())?;
    eprintln!(
        "github-action-benchmark export written to {} and {}",
        path.display(),
        companion.display()
    );
    Ok(())
}

/// The `--baseline FILE` of `run`, loaded before anything runs so a bad file fails fast.
pub fn load_explicit_baseline(
    args: &BaselineArgs,
) -> anyhow::Result<Option<(String, RunDocument)>> {
    match &args.baseline {
        None => Ok(None),
        Some(path) => Ok(Some((path.display().to_string(), load(path)?))),
    }
}

/// After a completed run: compare with the baseline (the explicit one, else the adapter's),
/// print the verdicts, record the run when asked, write the export, and say how `run` exits
/// on the verdicts (3 only with --strict, unless --no-fail).
pub fn after_run(
    args: &BaselineArgs,
    doc: &RunDocument,
    doc_path: &Path,
    format: &str,
    explicit: Option<(String, RunDocument)>,
) -> anyhow::Result<Exit> {
    let store = BaselineStore::new(&args.baseline_dir);
    let stored_path = store.path_for(&doc.machine.fingerprint)?;
    let baseline = match explicit {
        Some(found) => Some(found),
        None => stored_baseline(&stored_path, args.save_baseline)?,
    };
    let mut exit = Exit::Success;
    match &baseline {
        Some((label, base)) => {
            let new_label = format!("this run ({})", doc_path.display());
            // A run of some suites is compared with those suites of the baseline only: the
            // others were not run, they did not go missing.
            let mut base = base.clone();
            base.results
                .retain(|r| doc.config.suites.contains(&r.suite));
            let cmp = compare(label, &base, &new_label, doc, &options(&args.gate));
            print_comparison(&cmp, format)?;
            // The same gate as `compare`: regressions fail (exit 3) unless --no-fail; on a
            // software adapter only status changes do, unless --strict.
            exit = gate_exit(&cmp, &args.gate);
        }
        None if !args.save_baseline => eprintln!(
            "no baseline for this adapter yet ({}); record this kind of run as one with --save-baseline",
            stored_path.display()
        ),
        None => {}
    }
    if args.save_baseline {
        save_baseline(&store, doc)?;
    }
    if let Some(path) = &args.export_gab {
        write_gab(path, doc)?;
    }
    Ok(exit)
}

/// The adapter's stored baseline, `None` when there is none. An unreadable one is an error,
/// unless this run is about to replace it (--save-baseline): then it is reported and skipped.
fn stored_baseline(path: &Path, replacing: bool) -> anyhow::Result<Option<(String, RunDocument)>> {
    if !path.exists() {
        return Ok(None);
    }
    match load(path) {
        Ok(doc) => Ok(Some((path.display().to_string(), doc))),
        Err(error) if replacing => {
            eprintln!(
                "warning: not comparing with the stored baseline, it will be replaced: {error}"
            );
            Ok(None)
        }
        Err(error) => Err(error.context(
            "reading the stored baseline (move it away, or replace it with --save-baseline)",
        )),
    }
}

/// Says why an interrupted run is not recorded, when --save-baseline asked for it.
pub fn refuse_interrupted(args: &BaselineArgs) {
    if args.save_baseline {
        eprintln!("not recording a baseline: the run was interrupted");
    }
}

/// Records the run; a refusal (failed results, incomplete run) is reported, not an error: the
/// run's own exit code already says it failed.
fn save_baseline(store: &BaselineStore, doc: &RunDocument) -> anyhow::Result<()> {
    match store.save(doc) {
        Ok(path) => {
            eprintln!("baseline recorded: {}", path.display());
            Ok(())
        }
        Err(
            refusal @ (gpubench_baseline::BaselineError::FailedResults { .. }
            | gpubench_baseline::BaselineError::Incomplete),
        ) => {
            eprintln!("{refusal}");
            Ok(())
        }
        Err(other) => Err(other.into()),
    }
}

/// Prints the verdicts of `run`: in the run's own format when it is a text format on stdout,
/// else as a table on stderr so machine-readable stdout stays one document.
fn print_comparison(cmp: &Comparison, format: &str) -> anyhow::Result<()> {
    let text_format = matches!(format, "table" | "md");
    let exporter = gpubench_report::comparison_exporter(if text_format { format } else { "table" })
        .ok_or_else(|| UsageError(format!("unknown --format {format}")))?;
    let text = exporter.render_comparison(cmp)?;
    if text_format {
        println!("\n{text}");
    } else {
        eprintln!("\n{text}");
    }
    Ok(())
}

/// Paths given as `--export-gab` must not be one of the inputs (it would be overwritten).
pub fn check_export_target(export: Option<&PathBuf>, inputs: &[PathBuf]) -> anyhow::Result<()> {
    match export.filter(|path| inputs.contains(path)) {
        Some(path) => Err(UsageError(format!(
            "--export-gab {}: is one of the input files; choose another path",
            path.display()
        ))
        .into()),
        None => Ok(()),
    }
}
