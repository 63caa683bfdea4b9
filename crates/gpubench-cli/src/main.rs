//! `gpubench`: a cross-vendor GPU compute benchmark. This file only wires the subcommands
//! together and turns errors into exit codes.

mod cli;
mod cmd;
mod exit;
mod progress;
mod signals;
mod values;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let outcome = match args.command {
        cli::Command::List(list) => cmd::list::run(&list),
        cli::Command::Run(run) => cmd::run::run(&run),
        cli::Command::Report(report) => cmd::report::run(&report),
        cli::Command::Compare(compare) => cmd::compare::run(&compare),
        cli::Command::Doctor(doctor) => cmd::doctor::run(&doctor),
    };
    match outcome {
        Ok(code) => code.into(),
        Err(error) => {
            eprintln!("error: {error:#}");
            exit::code_for(&error)
        }
    }
}
