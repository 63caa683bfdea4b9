//! `gpubench baseline save FILE`: a finished run's results file recorded as its adapter's
//! baseline, so a ten-minute run need not be repeated with `--save-baseline`. The same gates as
//! a run's: a failed or interrupted run is refused by the store; a run noisier than the band,
//! one without its own noise check, one that logged above warn, one that does not pass against
//! the stored baseline it would replace (a slowdown, a lost result) and one of another build
//! profile than it are refused unless `--force`; an unreadable stored baseline is never
//! replaced; the file and the baseline are checked as one command's input and output before
//! anything is written.

use gpubench_baseline::baseline_key;

use crate::cli::BaselineSaveArgs;
use crate::cmd::baseline_gate::{
    BaselinePlan, BaselineSettings, Gate, Saving, after_run, load, outcome_exit, record_judged,
    recordable, run_verdict_summary,
};
use crate::exit::Exit;
use crate::paths::{Files, check_baseline_dir};

/// Records `args.file` as the baseline of its adapter and profile.
pub fn save(args: &BaselineSaveArgs) -> anyhow::Result<Exit> {
    let mut files = Files::new();
    files.input("FILE", &args.file)?;
    let doc = load(&args.file)?;
    let dir = crate::baseline_dir::resolve(args.baseline_dir.as_deref(), |name| {
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    });
    check_baseline_dir(&dir, true)?;
    // A failed, interrupted or empty run is refused by the store whatever --force says: no
    // condition --force would excuse is named for it.
    let recordable = recordable(&doc);
    match hidden_conditions(&doc).filter(|_| recordable) {
        Some(problem) if !args.force => anyhow::bail!(
            "not recording a baseline: {problem}; record it anyway with --force (said as a warning)"
        ),
        Some(problem) => note!("warning: recording the baseline anyway (--force): {problem}"),
        None => {}
    }
    let mut settings = BaselineSettings {
        dir: dir.path,
        explicit: None,
        save: true,
        force: args.force,
        gate: Gate {
            noise: args.noise,
            ..Gate::default()
        },
    };
    let key = baseline_key(&doc.machine, &doc.config.profile);
    // FILE is read and the baseline written: one file cannot be both.
    let stored = gpubench_baseline::BaselineStore::new(settings.dir.clone()).path_for(&key)?;
    files.planned_output("the baseline it records", &stored)?;
    let plan = BaselinePlan::prepare(&mut settings, &key, &mut Files::new())?;
    // Judged against the stored baseline it replaces, as a run's save is; a run the store
    // refuses anyway is refused for what it is, not for its verdict.
    let cmp = after_run(&plan, &settings, &doc, &args.file).filter(|_| recordable);
    let verdict = cmp.as_ref().map_or(Exit::Success, outcome_exit);
    if let Some(cmp) = cmp.as_ref().filter(|_| verdict != Exit::Success) {
        note!("{}", run_verdict_summary(cmp, &settings.gate, &doc));
    }
    let saving = (verdict, Saving::File);
    if let Some(refused) = record_judged(&plan, &settings, &doc, saving)? {
        return Ok(refused);
    }
    // Where the store refused it, it said why; the run it records was not a clean one.
    Ok(if recordable {
        Exit::Success
    } else {
        Exit::Error
    })
}

/// What about the run would hide in its numbers as a baseline: no noise check of its own (the
/// gate that keeps a noisy run out could not look), or logging above warn (it slows short
/// kernels' timings). `None` when neither.
fn hidden_conditions(doc: &gpubench_harness::RunDocument) -> Option<String> {
    if let Some(filter) = doc.config.verbose_logging() {
        return Some(format!(
            "the run logged at '{filter}', above warn, which slows short kernels' timings"
        ));
    }
    if doc.noise.is_none() {
        return Some(
            "the run has no noise check of its own (run with --noise-check off), so whether it was quiet enough to judge later runs by is not known"
                .to_string(),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpubench_baseline::testing::doc_with;
    use gpubench_results::run_noise::RunNoise;

    #[test]
    fn a_run_that_hides_its_conditions_is_named_for_them() {
        let mut doc = doc_with("Card", false);
        let problem = hidden_conditions(&doc).expect("no noise check");
        assert!(problem.contains("no noise check"), "{problem}");
        doc.noise = Some(RunNoise::new("compute/fma-peak/vec4-f32", "GFLOP/s"));
        assert_eq!(hidden_conditions(&doc), None);
        doc.config.log_filter = Some("debug".to_string());
        let problem = hidden_conditions(&doc).expect("logged");
        assert!(problem.contains("'debug'"), "{problem}");
    }
}
