//! `gpubench compare BASE NEW [MORE...]`: two files give verdicts (or, across machines, ratios);
//! three or more give the cross-card table. Every input is read and checked, and every output
//! path checked, before anything is written, so a bad file leaves the disk as it was.

use gpubench_baseline::{compare, cross_table};

use crate::cli::CompareArgs;
use crate::cmd::verdicts::{add_export_outputs, gate_exit, load, options, write_gab};
use crate::exit::{Exit, UsageError};
use crate::paths::Files;
use crate::stdout::{Printed, print};

/// Compares the files; exit 3 when two runs of one adapter show a regression (see `GateArgs`).
pub fn run(args: &CompareArgs) -> anyhow::Result<Exit> {
    let exporter = gpubench_report::comparison_exporter(&args.format)
        .ok_or_else(|| UsageError(format!("unknown --format {}", args.format)))?;
    if args.files.len() > 2 && args.format == "bmf" {
        return Err(UsageError(
            "--format bmf holds one run's values; use table, json, csv or md for three or more files"
                .to_string(),
        )
        .into());
    }
    let mut files = Files::new();
    for path in &args.files {
        files.input("input", path)?;
    }
    add_export_outputs(&mut files, args.export_gab.as_ref())?;
    let docs = args
        .files
        .iter()
        .map(|path| load(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let labels: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();

    let (text, exit) = if let [base, new] = docs.as_slice() {
        let cmp = compare(&labels[0], base, &labels[1], new, &options(&args.gate));
        (
            exporter.render_comparison(&cmp)?,
            gate_exit(&cmp, &args.gate),
        )
    } else {
        let runs: Vec<(&str, &gpubench_harness::RunDocument)> =
            labels.iter().map(String::as_str).zip(docs.iter()).collect();
        (exporter.render_cross(&cross_table(&runs))?, Exit::Success)
    };
    if let (Some(path), Some(last)) = (&args.export_gab, docs.last()) {
        write_gab(path, last)?;
    }
    if print(&text)? == Printed::Closed {
        return Ok(Exit::StdoutClosed);
    }
    Ok(exit)
}
