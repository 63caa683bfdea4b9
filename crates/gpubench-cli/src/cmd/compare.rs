//! `gpubench compare BASE NEW [MORE...]`: two files give verdicts (or, across machines, ratios);
//! three or more, or `--cross`, give the cross-card table; directories give the newest run of
//! each machine and adapter below them. Every input is read and checked, and every output path
//! checked, before anything is written, so a bad file leaves the disk as it was.

use gpubench_baseline::{compare, cross_table};
use gpubench_report::Format;
use gpubench_report::table::TableStyle;

use crate::cli::CompareArgs;
use crate::cmd::baseline_gate::{Gate, gate_exit, headed, is_text, options, verdict_summary};
use crate::exit::{Exit, UsageError};
use crate::paths::Files;
use crate::stdout::print_then;

/// What the files gave.
enum Compared {
    /// Two runs: verdicts (or ratios across machines).
    Verdicts(Box<gpubench_baseline::Comparison>),
    /// Three or more, or `--cross`: the cross-card table.
    Cross(gpubench_baseline::CrossTable),
}

/// Compares the files; exit 3 when two runs of one adapter show a regression (see `GateArgs`).
pub fn run(args: &CompareArgs) -> anyhow::Result<Exit> {
    let inputs = crate::cmd::inputs::expand(&args.files, args.all_runs)?;
    if inputs.len() < 2 {
        return Err(UsageError(format!(
            "compare needs two or more result files; {} gave {}",
            args.files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            inputs.len()
        ))
        .into());
    }
    let style = TableStyle::for_stdout(false);
    let gate = Gate::from(args.gate);
    let mut files = Files::new();
    for input in &inputs {
        files.input("input", &input.path)?;
    }
    let exports = args.exports.checked(&mut files)?;
    // A folder of several machines' runs (a fleet's, or nodes with one kind of card) is set
    // side by side: which of two nodes would be the base is no choice a folder makes.
    let fleet = inputs.iter().find_map(|i| i.fleet_folder.clone());
    let cross = args.cross || fleet.is_some();
    if (inputs.len() > 2 || cross) && (args.format == Format::Bmf || exports.holds(Format::Bmf)) {
        return Err(UsageError(
            "BMF holds one run's values, so it cannot hold a cross-card table; use table, json, csv or md there (or `gpubench show FILES --export-bmf F --export-adapter-names` for every run's values)"
                .to_string(),
        )
        .into());
    }
    if let Some(folder) = fleet.as_ref().filter(|_| !args.cross && inputs.len() == 2) {
        note!(
            "{} holds the runs of several machines or adapters: set side by side (the cross-card table); name two files to judge one against the other",
            folder.display()
        );
    }
    let keep_last = exports.writes_gab() || exports.names_bmf(args.format);
    let (comparison, last) = read_and_compare(inputs, cross, &gate, keep_last)?;
    // --export-adapter-names names BMF entries by the new run's adapter, as `show` does.
    let bmf_prefix = match &last {
        Some(last) => exports.prefixes(&[last])?.pop().flatten(),
        None => None,
    };
    let summary = match &comparison {
        Compared::Verdicts(cmp) => Some(verdict_summary(cmp, &gate)),
        Compared::Cross(_) => None,
    };
    // The text formats open with the summary line; machine-readable ones stay one document.
    let render = |format: Format| -> anyhow::Result<String> {
        let body = match &comparison {
            Compared::Verdicts(cmp) if format == Format::Bmf => {
                gpubench_report::bmf::render_comparison_named(cmp, bmf_prefix.as_deref())?
            }
            Compared::Verdicts(cmp) => format.render(cmp.as_ref(), &style)?,
            Compared::Cross(cross) => format.render(cross, &style)?,
        };
        Ok(match &summary {
            Some(summary) => headed(format, summary, &body),
            None => body,
        })
    };
    let text = render(args.format)?;
    if let Some(summary) = summary.as_ref().filter(|_| !is_text(args.format)) {
        note!("{summary}");
    }
    exports.write_rendered(render)?;
    if let Some(last) = &last {
        exports.write_gab(&[last])?;
    }
    let exit = match &comparison {
        Compared::Verdicts(cmp) => gate_exit(cmp, &gate),
        Compared::Cross(_) => Exit::Success,
    };
    print_then(&text, exit)
}

/// Reads every input and compares them: verdicts for two runs (unless `cross`), a cross-card
/// table otherwise. What was read is dropped before anything is drawn, but for the last run
/// where `keep_last` (the github-action-benchmark export reads it): two large files are never
/// held beside their drawn comparison.
fn read_and_compare(
    inputs: Vec<crate::cmd::inputs::Input>,
    cross: bool,
    gate: &Gate,
    keep_last: bool,
) -> anyhow::Result<(Compared, Option<gpubench_harness::RunDocument>)> {
    let (labels, mut docs): (Vec<String>, Vec<_>) = inputs
        .into_iter()
        .map(|input| {
            input
                .load()
                .map(|(path, doc)| (path.display().to_string(), doc))
        })
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let comparison = if let ([base, new], false) = (docs.as_slice(), cross) {
        let cmp = compare(&labels[0], base, &labels[1], new, &options(gate));
        Compared::Verdicts(Box::new(cmp))
    } else {
        let runs: Vec<(&str, &gpubench_harness::RunDocument)> =
            labels.iter().map(String::as_str).zip(docs.iter()).collect();
        Compared::Cross(cross_table(&runs))
    };
    let last = if keep_last { docs.pop() } else { None };
    Ok((comparison, last))
}
