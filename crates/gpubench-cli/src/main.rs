//! `gpubench`: a cross-vendor GPU compute benchmark. This file only wires the subcommands
//! together and turns errors into exit codes.

mod cli;
mod cmd;
mod exit;
mod paths;
mod progress;
mod signals;
mod stdout;
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
    };
    match outcome {
        Ok(code) => code.into(),
        Err(error) => {
            eprintln!("error: {}", exit::one_line(&error));
            exit::code_for(&error)
        }
    }
}
