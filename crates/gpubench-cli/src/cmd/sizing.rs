//! `gpubench sizing FILE --rate N/s --p95 TIME [--spare N] [--workload NAME] [--sustained TIME]`:
//! the number of cards a target needs, from a saved run's datapath rows (the arithmetic is the
//! suite's `sizing` module; this renders it). Exit 7 when no measured arrangement meets the
//! target, so a script can tell "no" from an error.

use gpubench_suites::datapath::sizing::{Sizing, SizingError, Target, size};

use crate::cli::SizingArgs;
use crate::exit::{Exit, UsageError};
use crate::stdout::print_then;

/// Sizes the target on the file and prints the answer with what it rests on.
pub fn run(args: &SizingArgs) -> anyhow::Result<Exit> {
    // The tool's one bounded reader: a hostile or huge file is refused, not read whole.
    let doc = gpubench_results::results_file::load_document(&args.file)?;
    let target = Target {
        rate_per_s: args.rate,
        p95_s: args.p95,
        spare: args.spare,
        workload: args.workload.clone(),
        sustained_s: args.sustained,
    };
    let sized = size(&doc, &target).map_err(|error| match error {
        SizingError::NoRows => anyhow::anyhow!("{}: {error}", args.file.display()),
        SizingError::Ambiguous { .. } => UsageError(format!("{error} (--workload NAME)")).into(),
        other => UsageError(other.to_string()).into(),
    })?;
    let request = doc
        .results
        .iter()
        .find(|r| r.params.get("workload").and_then(|w| w.as_str()) == Some(&sized.workload))
        .and_then(|r| r.params.get("request"))
        .and_then(|r| r.as_str())
        .unwrap_or("?");
    let text = render(&sized, &target, request, &doc.machine.adapter.name);
    let exit = if sized.cards.is_some() {
        Exit::Success
    } else {
        Exit::TargetNotMet
    };
    print_then(&text, exit)
}

/// The answer as text: the target, every arrangement with its verdict, the cards, the
/// assumptions.
fn render(sized: &Sizing, target: &Target, request: &str, adapter: &str) -> String {
    let printable = gpubench_report::numbers::printable_line;
    let mut out = String::new();
    out.push_str(&format!(
        "sizing {} ({}) on {}: {} requests/s at p95 <= {}\n\n",
        printable(&sized.workload),
        printable(request),
        printable(adapter),
        figure(target.rate_per_s),
        millis(target.p95_s)
    ));
    out.push_str(&format!(
        "{:<12} {:>12} {:>11} {:>10}  {}\n",
        "arrangement", "requests/s", "p95", "measured", "verdict"
    ));
    for (i, c) in sized.candidates.iter().enumerate() {
        let name = c.id.rsplit('/').next().unwrap_or(&c.id);
        let verdict = match (&c.refused, sized.chosen == Some(i)) {
            (_, true) => "chosen: meets the target, the most requests/s".to_string(),
            (None, false) => "meets the target".to_string(),
            (Some(why), false) => printable(why),
        };
        out.push_str(&format!(
            "{:<12} {:>12} {:>11} {:>9.1}s  {verdict}\n",
            printable(name),
            figure(c.per_card_per_s),
            c.p95_s.map_or_else(|| "n/a".to_string(), millis),
            c.measured_s,
        ));
    }
    if sized.candidates.iter().any(|c| c.id.contains("/batch-")) {
        out.push_str(
            "(a batch's p95 includes the time its batch takes to fill at the target's rate per card)\n",
        );
    }
    out.push('\n');
    match (sized.chosen, sized.cards) {
        (Some(i), Some(cards)) => {
            let per_card = sized.candidates[i].per_card_per_s;
            let spare = if target.spare > 0 {
                format!(" + {} spare", target.spare)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "cards: ceil({} / {}){spare} = {cards}\n",
                figure(target.rate_per_s),
                figure(per_card)
            ));
        }
        _ if !sized.candidates.iter().any(|c| c.judged) => out.push_str(
            "no measured arrangement could be held to the target: each was refused for its measurement (above), so this run cannot say whether a card meets it (exit 7)\n",
        ),
        _ => out.push_str(&format!(
            "no measured arrangement meets p95 <= {}: a faster card, a smaller request or a looser target (exit 7)\n",
            millis(target.p95_s)
        )),
    }
    out.push_str("an arithmetic starting point, assuming:\n");
    for line in &sized.assumptions {
        out.push_str(&format!("  - {}\n", printable(line)));
    }
    out
}

/// A rate with three significant figures.
fn figure(v: f64) -> String {
    gpubench_report::numbers::sig3(v)
}

/// Seconds as milliseconds, three significant figures.
fn millis(s: f64) -> String {
    format!("{} ms", figure(s * 1e3))
}
