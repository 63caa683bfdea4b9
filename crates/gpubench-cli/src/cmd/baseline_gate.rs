//! What `run` and `compare` share about baselines and verdicts: comparing, printing the
//! verdicts, deciding the exit code, recording a baseline, and the github-action-benchmark
//! export. Kept out of `run.rs` so the run loop stays about running.

use gpubench_report::Format;
use gpubench_report::table::TableStyle;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gpubench_baseline::{BaselineStore, CompareOptions, Comparison, compare};
use gpubench_harness::RunDocument;
use gpubench_report::gab::{companion_path, gab_export};
use gpubench_results::results_file::{load_document, write_atomic};

use crate::cli::{BaselineArgs, GateArgs};
use crate::exit::Exit;
use crate::paths::Files;

/// The comparison options the flags ask for.
pub fn options(gate: &GateArgs) -> CompareOptions {
    CompareOptions {
        noise: gate.noise,
        strict: gate.strict,
    }
}

/// Loads a result file; the error is one line naming the file and what is wrong with it.
/// A file that holds one id twice is refused: which copy a verdict used would be a guess.
pub fn load(path: &Path) -> anyhow::Result<RunDocument> {
    // The harness's message already names the file and the cause; flatten it to one line so the
    // cause is not repeated by the error chain.
    let doc = load_document(path).map_err(|e| anyhow::anyhow!("{e}"))?;
    check_unique_ids(path, doc)
}

/// `doc`, read from `path`, when each result id appears once in it.
fn check_unique_ids(path: &Path, doc: RunDocument) -> anyhow::Result<RunDocument> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for result in &doc.results {
        *seen.entry(result.id.as_str()).or_default() += 1;
    }
    if let Some(id) = doc
        .results
        .iter()
        .map(|r| r.id.as_str())
        .find(|id| seen[id] > 1)
    {
        anyhow::bail!(
            "{}: result id {id} appears {} times; each id must appear once (was the file edited or joined from two runs?)",
            path.display(),
            seen[id]
        );
    }
    Ok(doc)
}

/// Adds `--export-gab`'s file and its smaller-is-better companion to a command's outputs.
pub fn add_export_outputs(files: &mut Files, export: Option<&PathBuf>) -> anyhow::Result<()> {
    if let Some(path) = export {
        files.output("--export-gab", path)?;
        files.output("--export-gab's companion", &companion_path(path))?;
    }
    Ok(())
}

/// Exit 3 when the comparison fails the gate and the flags allow failing.
pub fn gate_exit(cmp: &Comparison, gate: &GateArgs) -> Exit {
    if gate.no_fail || !cmp.fails_gate() {
        return Exit::Success;
    }
    let ids: Vec<&str> = cmp.regressions().map(|p| p.id.as_str()).collect();
    note!(
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
    note!(
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

/// The baseline side of a run, settled once the adapter is known and before anything runs: the
/// store, the adapter's baseline file, and what the run is compared with.
pub struct BaselinePlan {
    store: BaselineStore,
    stored_path: PathBuf,
    baseline: Option<(String, RunDocument)>,
}

impl BaselinePlan {
    /// Finds the adapter's stored baseline, refuses an output that is that file (it would
    /// replace the baseline behind `--save-baseline`'s back and compare the run with itself),
    /// and loads what the run is compared with, so a corrupt stored baseline fails before the
    /// run, not after it.
    pub fn prepare(
        args: &BaselineArgs,
        explicit: Option<(String, RunDocument)>,
        key: &str,
        files: &mut Files,
    ) -> anyhow::Result<Self> {
        let store = BaselineStore::new(args.dir());
        let stored_path = store.path_for(key)?;
        files.input("the stored baseline", &stored_path)?;
        let baseline = match explicit {
            Some(found) => Some(found),
            None => stored_baseline(&stored_path, args.save_baseline)?,
        };
        Ok(Self {
            store,
            stored_path,
            baseline,
        })
    }
}

/// After a completed run: compare with the baseline and say how `run` exits on the verdicts
/// (3 only with --strict on a software adapter, unless --no-fail). The verdicts go to `stdout`
/// in a text format, else to stderr so machine-readable stdout stays one document.
pub fn after_run(
    plan: &BaselinePlan,
    args: &BaselineArgs,
    doc: &RunDocument,
    doc_path: &Path,
    format: Format,
    stdout: &mut String,
) -> anyhow::Result<Exit> {
    let Some((label, base)) = &plan.baseline else {
        if !args.save_baseline {
            note!(
                "no baseline for this adapter and profile yet (looked for {}); record this kind of run as one with --save-baseline",
                plan.stored_path.display()
            );
        }
        return Ok(Exit::Success);
    };
    let new_label = format!("this run ({})", doc_path.display());
    // A run of some suites is compared with those suites of the baseline only: the others were
    // not run, they did not go missing.
    let mut base = base.clone();
    base.results
        .retain(|r| doc.config.suites.contains(&r.suite));
    let cmp = compare(label, &base, &new_label, doc, &options(&args.gate));
    let text_format = matches!(format, Format::Table | Format::Markdown);
    let shown = if text_format { format } else { Format::Table };
    let text = shown.render_comparison(&cmp, &TableStyle::for_stdout(false))?;
    if text_format {
        stdout.push_str(&format!("\n{text}\n"));
    } else {
        note!("\n{text}");
    }
    // The same gate as `compare`: regressions fail (exit 3) unless --no-fail; on a software
    // adapter only status changes do, unless --strict.
    Ok(gate_exit(&cmp, &args.gate))
}

/// Records the run as the adapter's baseline when `--save-baseline` asked for it.
pub fn record(plan: &BaselinePlan, args: &BaselineArgs, doc: &RunDocument) -> anyhow::Result<()> {
    if args.save_baseline {
        save_baseline(&plan.store, doc)?;
    }
    Ok(())
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
            note!("warning: not comparing with the stored baseline, it will be replaced: {error}");
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
        note!("not recording a baseline: the run was interrupted");
    }
}

/// Records the run; a refusal (failed results, incomplete run) is reported, not an error: the
/// run's own exit code already says it failed.
fn save_baseline(store: &BaselineStore, doc: &RunDocument) -> anyhow::Result<()> {
    match store.save(doc) {
        Ok(saved) if saved.kept_suites.is_empty() => {
            note!("baseline recorded: {}", saved.path.display());
            Ok(())
        }
        Ok(saved) => {
            note!(
                "baseline recorded: {} (this run's suites replaced; {} kept from the baseline there)",
                saved.path.display(),
                saved.kept_suites.join(", ")
            );
            Ok(())
        }
        Err(
            refusal @ (gpubench_baseline::BaselineError::FailedResults { .. }
            | gpubench_baseline::BaselineError::Incomplete),
        ) => {
            note!("{refusal}");
            Ok(())
        }
        Err(other) => Err(other.into()),
    }
}
