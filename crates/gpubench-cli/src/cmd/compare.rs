//! `gpubench compare BASE NEW [MORE...]`: two files give verdicts (or, across machines, ratios);
//! three or more, or `--cross`, give the cross-card table; directories give the newest run of
//! each machine and adapter below them. Every input is read and checked, and every output path
//! checked, before anything is written, so a bad file leaves the disk as it was.

use gpubench_baseline::{compare, cross_table};
use gpubench_report::Format;
use gpubench_report::table::TableStyle;

use crate::cli::CompareArgs;
use crate::cmd::baseline_gate::{add_export_outputs, gate_exit, options, write_gab};
use crate::exit::{Exit, UsageError};
use crate::paths::Files;
use crate::stdout::print_then;

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
    if (inputs.len() > 2 || args.cross) && args.format == Format::Bmf {
        return Err(UsageError(
            "--format bmf holds one run's values; use table, json, csv or md for three or more files"
                .to_string(),
        )
        .into());
    }
    let mut files = Files::new();
    for input in &inputs {
        files.input("input", &input.path)?;
    }
    add_export_outputs(&mut files, args.export_gab.as_ref())?;
    let (labels, docs): (Vec<String>, Vec<_>) = inputs
        .into_iter()
        .map(|input| {
            input
                .load()
                .map(|(path, doc)| (path.display().to_string(), doc))
        })
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter()
        .unzip();

    let (text, exit) = if let ([base, new], false) = (docs.as_slice(), args.cross) {
        let cmp = compare(&labels[0], base, &labels[1], new, &options(&args.gate));
        (
            args.format.render_comparison(&cmp, &style)?,
            gate_exit(&cmp, &args.gate),
        )
    } else {
        let runs: Vec<(&str, &gpubench_harness::RunDocument)> =
            labels.iter().map(String::as_str).zip(docs.iter()).collect();
        (
            args.format.render_cross(&cross_table(&runs), &style)?,
            Exit::Success,
        )
    };
    if let (Some(path), Some(last)) = (&args.export_gab, docs.last()) {
        write_gab(path, last)?;
    }
    print_then(&text, exit)
}
