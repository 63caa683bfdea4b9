//! `gpubench`: a cross-vendor GPU compute benchmark. This file only wires the subcommands
//! together and turns errors into exit codes.

/// `eprintln!` that ignores a closed stderr (`2>&1 | head`): a message nobody can read must not
/// stop the work after it, as `eprintln!`'s panic on a broken pipe would. It is the terminal's
/// one escaping rule for stderr: control characters and bidirectional overrides in what it
/// says (adapter and device names, telemetry sources, paths) are written as visible escapes.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = gpubench_report::numbers::printable(&format!($($arg)*));
        let _ = writeln!(std::io::stderr(), "{line}");
    }};
}

mod baseline_dir;
mod build_info;
mod cli;
mod cmd;
mod exit;
mod logging;
mod mesa_env;
mod paths;
mod progress;
mod signals;
mod stdout;
mod suite_flags;
mod values;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    mesa_env::silence_device_select_layer();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(error) => return parse_refused(error),
    };
    logging::init(logging::filter(args.log.as_deref()));
    // A run (one adapter or all) and an A/B comparison stop between samples and keep what they
    // measured (`signals::StopSignal`); every other command ends at once, its writes whole.
    if !matches!(args.command, cli::Command::Run(_) | cli::Command::Ab(_)) {
        signals::end_cleanly_on_signal();
    }
    let outcome = match args.command {
        cli::Command::List(list) => cmd::list::run(&list),
        cli::Command::Run(run) if run.adapter.adapter == Some(cli::AdapterChoice::All) => {
            cmd::fleet::run_all(&run)
        }
        cli::Command::Run(run) => cmd::run::run(&run),
        cli::Command::Report(report) => cmd::report::run(&report),
        cli::Command::Compare(compare) => cmd::compare::run(&compare),
        cli::Command::Ab(ab) => cmd::ab::run(&ab),
        cli::Command::Doctor(doctor) => cmd::doctor::run(&doctor),
        cli::Command::Kernels(kernels) => cmd::kernels::run(&kernels),
        cli::Command::Show(show) => cmd::show::run(&show),
        cli::Command::Completions(shell) => cmd::shell_files::completions(&shell),
        cli::Command::Man(man) => cmd::shell_files::man_pages(&man),
        cli::Command::Baseline(cli::BaselineCommand::Save(save)) => cmd::baseline::save(&save),
        cli::Command::Sizing(sizing) => cmd::sizing::run(&sizing),
    };
    match outcome {
        Ok(code) => code.into(),
        Err(error) => {
            note!("error: {}", exit::error_line(&error));
            exit::exit_for(&error).into()
        }
    }
}

/// `plain` (clap's message) with the value or argument it echoes made one line, so a line
/// break inside what was given cannot start a line of the message.
fn echoed_on_one_line(error: &clap::Error, mut plain: String) -> String {
    use clap::error::{ContextKind, ContextValue};
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg] {
        if let Some(ContextValue::String(given)) = error.get(kind) {
            // As clap shows it: its plain rendering drops escape sequences.
            let given = clap::builder::StyledStr::from(given.clone()).to_string();
            let shown = gpubench_report::numbers::printable_line(&given);
            plain = plain.replace(&given, &shown);
        }
    }
    plain
}

/// What clap stops at: a usage error (its message on stderr, exit 2), or `--help`/`--version`,
/// whose text goes to stdout like every command's output, so a reader that has gone is exit 141
/// as for any other command, not a silent 0. On a terminal clap prints it as it always does.
/// A usage error that echoes a value with control or invisible characters (`--profile` given
/// a bidirectional override) is printed through the terminal's one rule, without colour.
fn parse_refused(error: clap::Error) -> ExitCode {
    use std::io::IsTerminal as _;
    let shown = matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    if !shown {
        let plain = error.render().to_string();
        if gpubench_report::numbers::printable(&plain) != plain {
            note!("{}", echoed_on_one_line(&error, plain).trim_end());
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    }
    if !shown || std::io::stdout().is_terminal() {
        error.exit()
    }
    match stdout::print_then(&error.render().to_string(), exit::Exit::Success) {
        Ok(code) => code.into(),
        Err(error) => {
            note!("error: {error:#}");
            exit::Exit::Error.into()
        }
    }
}
