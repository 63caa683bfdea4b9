//! `gpubench show [FILE...] [--format X] [--export-* FILE]`: saved results rendered again, in
//! the terminal or in any export format, exactly as `run` would have printed them; with no
//! file, the latest run under `results/`. Every input is read and every output checked before
//! anything is written.

use gpubench_harness::RunDocument;
use gpubench_report::table::TableStyle;

use crate::cli::ShowArgs;
use crate::cmd::exports::render_runs;
use crate::cmd::run::RESULTS_DIR;
use crate::exit::Exit;
use crate::paths::Files;
use crate::stdout::print_then;

/// Renders the files on stdout and into every export.
pub fn run(args: &ShowArgs) -> anyhow::Result<Exit> {
    let inputs = if args.files.is_empty() {
        let latest = crate::cmd::inputs::latest_run(std::path::Path::new(RESULTS_DIR))?;
        note!("showing the latest run: {}", latest.path.display());
        vec![latest]
    } else {
        crate::cmd::inputs::expand(&args.files, args.all_runs)?
    };
    let mut files = Files::new();
    for input in &inputs {
        files.input("input", &input.path)?;
    }
    let exports = args.exports.checked(&mut files)?;
    exports.check_several(inputs.len(), args.format)?;
    let loaded = inputs
        .into_iter()
        .map(|input| {
            let (path, doc) = input.load()?;
            Ok((path.display().to_string(), doc))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let runs: Vec<(String, &RunDocument)> = loaded
        .iter()
        .map(|(label, doc)| (label.clone(), doc))
        .collect();
    let style = TableStyle::for_stdout(args.verbose);
    let text = render_runs(args.format, &runs, &style, &exports)?;
    exports.write_rendered(|format| render_runs(format, &runs, &style, &exports))?;
    let docs: Vec<&RunDocument> = runs.iter().map(|(_, doc)| *doc).collect();
    exports.write_gab(&docs)?;
    print_then(&text, Exit::Success)
}
