//! What `run` and `compare` share about baselines and verdicts: comparing, printing the
//! verdicts, deciding the exit code, recording a baseline. Kept out of `run.rs` so the run loop stays about running.

use gpubench_report::Format;
use gpubench_report::numbers::plus_minus_percent;
use gpubench_report::table::TableStyle;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gpubench_baseline::{
    BaselineStore, CompareOptions, Comparison, GateOutcome, Mode, ReportOnly, Verdict, compare,
};
use gpubench_harness::{RunDocument, Status};
use gpubench_results::results_file::load_document;

use crate::cli::{BaselineArgs, GateArgs};
use crate::exit::Exit;
use crate::paths::{Files, check_baseline_dir};

/// How verdicts are reached and whether they fail the command.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gate {
    /// The noise band for every metric, a fraction (`None`: each metric's own band).
    pub noise: Option<f64>,
    /// Software adapters' timing verdicts get full weight.
    pub strict: bool,
    /// Regressions are reported without failing the command.
    pub no_fail: bool,
}

impl From<GateArgs> for Gate {
    fn from(args: GateArgs) -> Self {
        Self {
            noise: args.noise,
            strict: args.strict,
            no_fail: args.no_fail,
        }
    }
}

/// The baseline side of `run`, checked before any adapter opens: where the store is, the
/// `--baseline FILE` loaded, whether the run is recorded, and the gate.
#[derive(Debug, Clone)]
pub struct BaselineSettings {
    /// The baseline directory in force.
    pub dir: PathBuf,
    /// The file the run is compared with instead of the stored baseline, loaded.
    pub explicit: Option<(String, RunDocument)>,
    /// Record the run as the adapter's baseline.
    pub save: bool,
    /// Record it even when its own noise was over the band.
    pub force: bool,
    /// How verdicts are reached and whether they fail the run.
    pub gate: Gate,
}

impl BaselineArgs {
    /// The settings these flags make: the `--baseline FILE` read now (a bad file fails before
    /// any work) and added to the command's inputs, the directory checked.
    pub fn checked(&self, files: &mut Files) -> anyhow::Result<BaselineSettings> {
        let explicit = match &self.baseline {
            None => None,
            Some(path) => {
                files.input("--baseline", path)?;
                Some((path.display().to_string(), load(path)?))
            }
        };
        let dir = self.dir();
        check_baseline_dir(&dir, self.save_baseline)?;
        Ok(BaselineSettings {
            dir: dir.path,
            explicit,
            save: self.save_baseline,
            force: self.force,
            gate: self.gate.into(),
        })
    }
}

/// The comparison options the flags ask for.
pub fn options(gate: &Gate) -> CompareOptions {
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

/// The exit the comparison's outcome calls for, whatever `--no-fail` says: what decides
/// whether a run may replace the baseline it was judged against.
pub fn outcome_exit(cmp: &Comparison) -> Exit {
    match cmp.outcome() {
        GateOutcome::Pass => Exit::Success,
        GateOutcome::Regressed => Exit::Regression,
        GateOutcome::TooNoisy { .. } => Exit::TooNoisy,
    }
}

/// Exit 3 when the comparison fails the gate and the flags allow failing; the failing ids (and
/// only those: never a report-only one) are said on stderr.
pub fn gate_exit(cmp: &Comparison, gate: &Gate) -> Exit {
    if gate.no_fail {
        let failed = failed_in_new(cmp);
        if failed.is_empty() {
            return Exit::Success;
        }
        note!(
            "failed in {}: {} (--no-fail reports regressions without failing, never a failure)",
            cmp.new.label,
            failed.join(", ")
        );
        return Exit::Regression;
    }
    let ids: Vec<&str> = cmp.gating().map(|p| p.id.as_str()).collect();
    match cmp.outcome() {
        GateOutcome::Pass => Exit::Success,
        GateOutcome::Regressed => {
            note!(
                "regression against {}: {} (use --no-fail to report without failing)",
                cmp.base.label,
                ids.join(", ")
            );
            Exit::Regression
        }
        GateOutcome::TooNoisy { level, band } => {
            note!(
                "too noisy to judge against {}: run noise {} (over the {} band) as large as the change of {}; {}",
                cmp.base.label,
                plus_minus_percent(level),
                plus_minus_percent(band),
                ids.join(", "),
                whose_noise(cmp)
            );
            Exit::TooNoisy
        }
    }
}

/// Whose noise made a comparison too noisy to judge, and what helps: a noisy baseline is
/// re-recorded (rerunning on a quiet machine cannot help while it stands), a noisy run rerun.
fn whose_noise(cmp: &Comparison) -> &'static str {
    let levels = &cmp.run_noise;
    if levels.base > levels.new {
        "the baseline's own noise is the larger: record it again on a quiet machine"
    } else {
        "this run's own noise is the larger: rerun on a quieter machine, or use gpubench ab"
    }
}

/// One line, printed before anything else of a comparison: how many pairs got each verdict,
/// and why the exit code is what it is.
pub fn verdict_summary(cmp: &Comparison, gate: &Gate) -> String {
    summary_with(cmp, exit_reason(cmp, gate))
}

/// [`verdict_summary`] for a run judged against its baseline: a run with a failed result exits
/// 4 whatever its comparison says (a wrong answer comes first), and the line says so.
pub fn run_verdict_summary(cmp: &Comparison, gate: &Gate, doc: &RunDocument) -> String {
    let failed = doc
        .results
        .iter()
        .filter(|r| r.status == Status::Failed)
        .count();
    let reason = match failed {
        0 => exit_reason(cmp, gate),
        n => format!(
            "exit 4: {n} {} of this run failed, which comes before the comparison ({})",
            if n == 1 { "result" } else { "results" },
            exit_reason(cmp, gate)
        ),
    };
    summary_with(cmp, reason)
}

/// The verdicts' counts, then `reason`.
fn summary_with(cmp: &Comparison, reason: String) -> String {
    let counts = cmp.counts();
    let mut parts: Vec<String> = ALWAYS_COUNTED
        .iter()
        .map(|verdict| format!("{} {verdict}", counts.get(verdict).copied().unwrap_or(0)))
        .collect();
    parts.extend(
        counts
            .iter()
            .filter(|(verdict, _)| !ALWAYS_COUNTED.contains(verdict))
            .map(|(verdict, n)| format!("{n} {verdict}")),
    );
    format!("verdicts: {}; {reason}", parts.join(", "))
}

/// The verdicts the summary counts even at zero; the others appear only when they occur.
const ALWAYS_COUNTED: [&str; 4] = ["regressed", "improved", "unchanged", "inconclusive"];

/// `body` in a text format headed by the summary line (bold in Markdown); the machine-readable
/// formats are left as they are, one document.
pub fn headed(format: Format, summary: &str, body: &str) -> String {
    match format {
        // Wrapped at words to the terminal, like every line of prose there.
        Format::Table => {
            let width = gpubench_report::layout::terminal_width();
            let summary = gpubench_report::layout::prose(&[summary.to_string()], width);
            format!("{summary}\n{body}")
        }
        Format::Markdown => format!("**{summary}**\n\n{body}"),
        _ => body.to_string(),
    }
}

/// The gating ids whose new result failed (a wrong answer, an error): `--no-fail` reports
/// regressions without failing, and never hides these.
fn failed_in_new(cmp: &Comparison) -> Vec<&str> {
    cmp.gating()
        .filter(|p| p.new.as_ref().is_some_and(|n| n.status == Status::Failed))
        .map(|p| p.id.as_str())
        .collect()
}

/// Why a comparison exits as it does, in words.
fn exit_reason(cmp: &Comparison, gate: &Gate) -> String {
    let failed = failed_in_new(cmp);
    if gate.no_fail && !failed.is_empty() {
        return format!(
            "exit 3: {} failed (--no-fail never hides a failure)",
            listed_ids(&failed)
        );
    }
    let gating: Vec<&str> = cmp.gating().map(|p| p.id.as_str()).collect();
    let timing = cmp
        .regressions()
        .filter(|p| p.verdict == Verdict::Regressed)
        .count();
    if !gating.is_empty() {
        let listed = listed_ids(&gating);
        return match (gate.no_fail, cmp.outcome()) {
            (true, GateOutcome::TooNoisy { .. }) => {
                format!("exit 0 because of --no-fail (else 6, too noisy to judge: {listed})")
            }
            (true, _) => format!("exit 0 because of --no-fail (else 3: {listed})"),
            (false, GateOutcome::TooNoisy { level, band }) => format!(
                "exit 6, too noisy to judge: run noise {} (over the {} band) as large as {listed}",
                plus_minus_percent(level),
                plus_minus_percent(band)
            ),
            (false, _) => format!("exit 3: {listed}"),
        };
    }
    if timing > 0 && cmp.report_only {
        let why = match cmp.report_only_reason() {
            Some(ReportOnly::Build(_)) => "the two runs are builds of different profiles",
            Some(ReportOnly::Profile(_)) => {
                "the two runs used different profiles, which time samples differently"
            }
            Some(ReportOnly::Logging(_)) => {
                "one run logged above warn and the other did not (logging slows short kernels)"
            }
            _ => "timings on a software adapter only report (--strict gives them full weight)",
        };
        return format!("exit 0: {timing} timing regressions do not fail the gate: {why}");
    }
    if cmp.mode == Mode::CrossMachine {
        return "exit 0: different adapters, so timings are ratios only (a new failure, or a lost result on the same kind of device, would exit 3)".to_string();
    }
    "exit 0: nothing regressed".to_string()
}

/// The first few ids, and how many more.
fn listed_ids(ids: &[&str]) -> String {
    const SHOWN: usize = 3;
    let mut text = ids[..ids.len().min(SHOWN)].join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    let what = if ids.len() == 1 {
        "regression"
    } else {
        "regressions"
    };
    format!("{} {what} ({text})", ids.len())
}

/// The baseline side of a run, settled once the adapter is known and before anything runs: the
/// store, the adapter's baseline file, and what the run is compared with.
pub struct BaselinePlan {
    store: BaselineStore,
    stored_path: PathBuf,
    baseline: Option<(String, RunDocument)>,
    /// With `--save-baseline` and `--baseline FILE`: the stored baseline the run would
    /// replace, which the save is judged against (FILE may be another card's).
    replaced: Option<(String, RunDocument)>,
    /// Whether `baseline` is a file named on the command line, not the stored baseline.
    explicit: bool,
}

impl BaselinePlan {
    /// Finds the adapter's stored baseline, refuses an output that is that file (it would
    /// replace the baseline behind `--save-baseline`'s back and compare the run with itself),
    /// and loads what the run is compared with, and what a save would replace, so a corrupt
    /// stored baseline fails before the run, not after it.
    pub fn prepare(
        settings: &mut BaselineSettings,
        key: &str,
        files: &mut Files,
    ) -> anyhow::Result<Self> {
        let store = BaselineStore::new(settings.dir.clone());
        let stored_path = store.path_for(key)?;
        files.input("the stored baseline", &stored_path)?;
        if settings.save {
            // Said before the run, not after it: a link there would only be replaced.
            gpubench_baseline::store::check_replaceable(&stored_path)?;
        }
        let explicit = settings.explicit.is_some();
        let (baseline, replaced) = match settings.explicit.take() {
            Some(found) if settings.save => (Some(found), stored_baseline(&stored_path, true)?),
            Some(found) => (Some(found), None),
            None => (stored_baseline(&stored_path, settings.save)?, None),
        };
        Ok(Self {
            store,
            stored_path,
            baseline,
            replaced,
            explicit,
        })
    }

    /// The stored baseline a save would replace, where there is one.
    fn stored(&self) -> Option<&RunDocument> {
        let stored = if self.explicit {
            &self.replaced
        } else {
            &self.baseline
        };
        stored.as_ref().map(|(_, doc)| doc)
    }
}

/// After a completed run: the comparison with the baseline (`None` when there is none, said
/// on stderr), to be printed with the run and gated by [`gate_exit`] (3 only with --strict on a
/// software adapter, unless --no-fail).
pub fn after_run(
    plan: &BaselinePlan,
    settings: &BaselineSettings,
    doc: &RunDocument,
    doc_path: &Path,
) -> Option<Comparison> {
    let Some((label, base)) = &plan.baseline else {
        if !settings.save {
            note!(
                "no baseline for this adapter and profile yet (looked for {}); record this kind of run as one with --save-baseline",
                plan.stored_path.display()
            );
        }
        return None;
    };
    let new_label = format!("this run ({})", doc_path.display());
    Some(compare(
        label,
        &base_for(base, doc),
        &new_label,
        doc,
        &options(&settings.gate),
    ))
}

/// What `doc` is compared with: the baseline's results of the suites `doc` ran. A run of some
/// suites is compared with those suites of the baseline only: the others were not run, they
/// did not go missing.
fn base_for(base: &RunDocument, doc: &RunDocument) -> RunDocument {
    let mut base = base.clone();
    base.results
        .retain(|r| doc.config.suites.contains(&r.suite));
    base
}

impl BaselinePlan {
    /// The baseline `doc` is compared with, labelled as the comparison labels it, where there
    /// is one: what the HTML page draws beside the run, so the page holds the verdicts too.
    pub fn compared_with(&self, doc: &RunDocument) -> Option<(String, RunDocument)> {
        let (label, base) = self.baseline.as_ref()?;
        Some((label.clone(), base_for(base, doc)))
    }
}

/// The run in `format` (BMF names under `bmf_prefix` when there is one); in the text formats
/// (table, Markdown) headed by the verdict summary line and followed by the verdicts. The
/// machine-readable formats hold the run alone, one document.
pub fn run_with_verdicts(
    format: Format,
    doc: &RunDocument,
    verdicts: Option<(&Comparison, &str)>,
    style: &TableStyle,
    bmf_prefix: Option<&str>,
) -> anyhow::Result<String> {
    let run = crate::cmd::exports::render_one(format, doc, style, bmf_prefix)?;
    let Some((cmp, summary)) = verdicts.filter(|_| is_text(format)) else {
        return Ok(run);
    };
    let comparison = format.render(cmp, style)?;
    Ok(headed(format, summary, &format!("{run}\n{comparison}\n")))
}

/// Whether `format` is read by people (verdicts go with the run there).
pub fn is_text(format: Format) -> bool {
    matches!(format, Format::Table | Format::Markdown)
}

/// Records the run as the adapter's baseline when `--save-baseline` asked for it.
pub fn record(
    plan: &BaselinePlan,
    settings: &BaselineSettings,
    doc: &RunDocument,
) -> anyhow::Result<()> {
    if !settings.save {
        return Ok(());
    }
    // A failed, interrupted or empty run is refused by the store, whatever its noise.
    if let Some(problem) = too_noisy(doc, settings.gate.noise).filter(|_| recordable(doc)) {
        if !settings.force {
            anyhow::bail!(
                "not recording a baseline: {problem}; rerun when the machine is quiet, or record it anyway with --force"
            );
        }
        note!("warning: recording the baseline anyway (--force): {problem}");
    }
    save_baseline(&plan.store, doc)
}

/// Whether the store would take `doc` at all (no failed result, complete, not empty): a run it
/// refuses is refused for that, whatever else a save would check.
pub fn recordable(doc: &RunDocument) -> bool {
    gpubench_baseline::check_recordable(doc).is_ok()
}

/// What is being recorded as the baseline: the run just made, or a results file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Saving {
    /// `run --save-baseline`.
    Run,
    /// `baseline save FILE`.
    File,
}

impl Saving {
    /// How messages name it.
    fn subject(self) -> &'static str {
        match self {
            Saving::Run => "this run",
            Saving::File => "this file",
        }
    }
}

/// Records the run as [`record`] does, after its comparison with a baseline: a run that did
/// not pass against it (`verdict`, [`outcome_exit`]: `--no-fail` changes the exit code, not
/// this) is recorded only with `--force`, which accepts its figures; else a slowdown, or a
/// lost result, would become the baseline the next run is judged by, and pass. Where the run
/// was compared with another file (`--baseline FILE`), the save is judged against the stored
/// baseline it replaces instead, and where there is none it replaces nothing and is not
/// judged. A run of another build profile than the stored baseline's (a debug build over a
/// release one) is refused unless `--force` (an error, exit 1): its comparison only reports
/// timings, so it passes whatever they are, and once recorded every later run of the stored
/// profile would be judged against it by report alone. A failed, interrupted or empty run
/// goes straight to the store, which refuses it for what it is. `Some(verdict)` where the save
/// was refused for its verdict.
pub fn record_judged(
    plan: &BaselinePlan,
    settings: &BaselineSettings,
    doc: &RunDocument,
    (verdict, saving): (Exit, Saving),
) -> anyhow::Result<Option<Exit>> {
    if !settings.save || !recordable(doc) {
        record(plan, settings, doc)?;
        return Ok(None);
    }
    if let Some(problem) = other_build(plan, doc, saving) {
        if !settings.force {
            anyhow::bail!(
                "not recording a baseline: {problem}; record it anyway with --force to replace it"
            );
        }
        note!("warning: recording the baseline anyway (--force): {problem}");
    }
    let judged = match (&plan.replaced, plan.explicit) {
        (Some((label, stored)), _) => {
            let cmp = compare(
                label,
                &base_for(stored, doc),
                saving.subject(),
                doc,
                &options(&settings.gate),
            );
            Some((outcome_exit(&cmp), "the stored baseline it would replace"))
        }
        // --baseline FILE and nothing stored: the save replaces nothing.
        (None, true) => None,
        (None, false) => Some((verdict, "the baseline it was compared with")),
    };
    if let Some((verdict, against)) = judged.filter(|(v, _)| *v != Exit::Success) {
        let subject = saving.subject();
        if !settings.force {
            let unless = if saving == Saving::Run {
                " without --no-fail"
            } else {
                ""
            };
            note!(
                "not recording a baseline: {subject} did not pass against {against} ({}: exit {}{unless}); record it anyway with --force to accept its figures",
                verdict.meaning(),
                verdict.code()
            );
            return Ok(Some(verdict));
        }
        note!(
            "warning: recording the baseline anyway (--force), though {subject} did not pass against {against}"
        );
    }
    record(plan, settings, doc)?;
    Ok(None)
}

/// Where the stored baseline `doc` would replace is of another build profile: how they differ.
fn other_build(plan: &BaselinePlan, doc: &RunDocument, saving: Saving) -> Option<String> {
    let stored = &plan.stored()?.machine.build_profile;
    let built = &doc.machine.build_profile;
    (stored != built).then(|| {
        format!(
            "the stored baseline is a {stored} build and {} a {built} build, whose timings a comparison with it would only report",
            saving.subject()
        )
    })
}

/// Why `doc` would make a poor baseline: its own noise level (the reference kernel's drift and
/// spread, see `--noise-check`) is wider than the noise band of the rates it will judge, so
/// verdicts against it would mostly be noise; or its check measured no level at all (the
/// reference failed, the run lost its device), so how quiet it was is not known. `None` when
/// it is within the band, or when the run made no check (`--noise-check off`, said apart).
pub fn too_noisy(doc: &RunDocument, noise_override: Option<f64>) -> Option<String> {
    let noise = doc.noise.as_ref()?;
    let Some(level) = noise.level else {
        return Some(format!(
            "this run's noise check measured no level ({}), so whether it was quiet enough to judge later runs by is not known",
            noise.reason.as_deref().unwrap_or("no reason recorded")
        ));
    };
    let band = gpubench_baseline::noise::band_for(
        gpubench_results::MetricKind::Bandwidth,
        doc.machine.software_adapter,
        noise_override,
    );
    (level > band).then(|| {
        format!(
            "this run's own noise was ±{:.1}% (the reference kernel measured at its start and end), over the {} band later runs are judged by",
            level * 100.0,
            plus_minus_percent(band)
        )
    })
}

/// The adapter's stored baseline, `None` when there is none. An unreadable one is an error
/// before the run, said for what the run was to do: compared with it, or replacing it (the
/// store never replaces what it cannot read in full, since its other suites would be lost, so
/// a run recorded over it would be refused after all its work).
fn stored_baseline(path: &Path, replacing: bool) -> anyhow::Result<Option<(String, RunDocument)>> {
    if !path.exists() {
        return Ok(None);
    }
    match load(path) {
        Ok(doc) => Ok(Some((path.display().to_string(), doc))),
        Err(error) if replacing => Err(error.context(
            "the stored baseline cannot be read in full, so this run could not replace it: move it away to start a new baseline, or upgrade gpubench if a newer one wrote it",
        )),
        Err(error) => Err(error.context(
            "reading the stored baseline (move it away to start a new one; upgrade gpubench if a newer one wrote it)",
        )),
    }
}

/// Says why an interrupted run is not recorded, when --save-baseline asked for it.
pub fn refuse_interrupted(settings: &BaselineSettings) {
    if settings.save {
        note!("not recording a baseline: the run was interrupted");
    }
}

/// Records the run; a refusal (failed results, incomplete run) is reported, not an error: the
/// run's own exit code already says it failed.
fn save_baseline(store: &BaselineStore, doc: &RunDocument) -> anyhow::Result<()> {
    let saved = store.save(doc);
    if let Some(why) = saved.as_ref().ok().and_then(|s| s.replaced_whole.as_ref()) {
        note!("warning: {why}");
    }
    match saved {
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
            | gpubench_baseline::BaselineError::Incomplete
            | gpubench_baseline::BaselineError::NoResults),
        ) => {
            note!("{refusal}");
            Ok(())
        }
        Err(other) => Err(other.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::{doc_with, scaled};
    use gpubench_results::Status;
    use gpubench_results::run_noise::RunNoise;

    fn with_noise(software: bool, level: f64) -> RunDocument {
        let mut doc = doc_with("gpu", software);
        let mut noise = RunNoise::new("compute/fma-peak/vec4-f32", "GFLOP/s");
        noise.level = Some(level);
        doc.noise = Some(noise);
        doc
    }

    #[test]
    fn a_baseline_noisier_than_its_band_is_refused_and_a_quiet_one_is_not() {
        let problem = too_noisy(&with_noise(true, 0.759), None).expect("refused");
        assert!(
            problem.contains("±75.9%") && problem.contains("±25%"),
            "{problem}"
        );
        assert!(too_noisy(&with_noise(true, 0.034), None).is_none());
        assert!(
            too_noisy(&with_noise(false, 0.08), None).is_some(),
            "hardware band 5%"
        );
        assert!(
            too_noisy(&with_noise(false, 0.08), Some(0.10)).is_none(),
            "--noise 10"
        );
        assert!(
            too_noisy(&doc_with("gpu", false), None).is_none(),
            "no noise check"
        );
        // A check that measured no level is no evidence of a quiet run.
        let mut unmeasured = with_noise(false, 0.0);
        if let Some(noise) = unmeasured.noise.as_mut() {
            noise.level = None;
            noise.note("the reference failed".to_string());
        }
        let problem = too_noisy(&unmeasured, None).expect("refused");
        assert!(problem.contains("the reference failed"), "{problem}");
    }

    #[test]
    fn a_noisy_baseline_is_named_as_the_noise_to_fix() {
        let (noisy, quiet) = (with_noise(false, 0.9), with_noise(false, 0.01));
        let cmp = compare("b", &noisy, "n", &quiet, &CompareOptions::default());
        assert!(whose_noise(&cmp).starts_with("the baseline's"));
        let cmp = compare("b", &quiet, "n", &noisy, &CompareOptions::default());
        assert!(whose_noise(&cmp).starts_with("this run's"));
    }

    fn gate(no_fail: bool, strict: bool) -> Gate {
        Gate {
            noise: None,
            strict,
            no_fail,
        }
    }

    #[test]
    fn the_summary_counts_verdicts_and_says_why_the_exit_code_is_what_it_is() {
        let base = doc_with("gpu", false);
        let slow = scaled(&base, 2.2);
        let cmp = compare("base", &base, "new", &slow, &options(&gate(false, false)));
        let summary = verdict_summary(&cmp, &gate(false, false));
        assert!(
            summary.starts_with("verdicts: 2 regressed, 0 improved"),
            "{summary}"
        );
        assert!(summary.contains("exit 3: 2 regressions ("), "{summary}");
        let summary = verdict_summary(&cmp, &gate(true, false));
        assert!(
            summary.contains("exit 0 because of --no-fail (else 3"),
            "{summary}"
        );

        // On a software adapter the same slowdown only reports, and the line says so.
        let soft = doc_with("llvmpipe", true);
        let cmp = compare(
            "b",
            &soft,
            "n",
            &scaled(&soft, 2.2),
            &CompareOptions::default(),
        );
        let summary = verdict_summary(&cmp, &gate(false, false));
        assert!(
            summary.contains("exit 0: 2 timing regressions do not fail"),
            "{summary}"
        );
        assert!(summary.contains("--strict"), "{summary}");
        assert_eq!(gate_exit(&cmp, &gate(false, false)), Exit::Success);

        // A status change there fails, and the cause named is the status change alone.
        let mut broken = scaled(&soft, 2.2);
        broken.results[0].status = Status::Failed;
        let cmp = compare("b", &soft, "n", &broken, &CompareOptions::default());
        let gating: Vec<&str> = cmp.gating().map(|p| p.id.as_str()).collect();
        assert_eq!(
            gating,
            [soft.results[0].id.as_str()],
            "never a report-only id"
        );
        let summary = verdict_summary(&cmp, &gate(false, false));
        assert!(summary.contains("exit 3: 1 regression ("), "{summary}");
        assert_eq!(gate_exit(&cmp, &gate(false, false)), Exit::Regression);
        // --no-fail reports regressions without failing, but never hides a failure.
        assert_eq!(gate_exit(&cmp, &gate(true, false)), Exit::Regression);
        let summary = verdict_summary(&cmp, &gate(true, false));
        assert!(summary.contains("never hides a failure"), "{summary}");
        // A run that failed a result exits 4 (`run`), and its own summary line says so.
        let summary = run_verdict_summary(&cmp, &gate(false, false), &broken);
        assert!(
            summary.contains("exit 4: 1 result of this run failed, which comes before")
                && summary.contains("(exit 3: 1 regression ("),
            "{summary}"
        );
        let summary = run_verdict_summary(&cmp, &gate(true, false), &broken);
        assert!(summary.contains("exit 4:"), "--no-fail too: {summary}");
        assert_eq!(
            run_verdict_summary(&cmp, &gate(false, false), &soft),
            verdict_summary(&cmp, &gate(false, false))
        );
    }
}
