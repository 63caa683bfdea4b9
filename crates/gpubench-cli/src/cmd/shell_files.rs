//! `gpubench completions SHELL` and `gpubench man --dir DIR`: generated from the command
//! definition itself, so they always list the options this binary has.

use std::path::Path;

use anyhow::Context;
use clap::CommandFactory;
use gpubench_results::results_file::write_atomic;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::exit::Exit;
use crate::paths::Files;
use crate::stdout::print_then;

/// Prints the completion script for the shell.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<Exit> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "gpubench", &mut script);
    let text = String::from_utf8(script).context("the completion script is not UTF-8")?;
    print_then(&text, Exit::Success)
}

/// Writes gpubench.1 and gpubench-SUBCOMMAND.1 for every subcommand into the directory; every
/// page's path is checked as an output before any is written.
pub fn man_pages(args: &ManArgs) -> anyhow::Result<Exit> {
    crate::paths::check_output_dir("--dir", &args.dir, "the directory for the man pages")?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating --dir {}", args.dir.display()))?;
    let mut command = Cli::command();
    command.build();
    let mut pages = vec![("gpubench".to_string(), command.clone())];
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("gpubench-{}", sub.get_name());
        let page = sub
            .clone()
            .display_name(name.clone())
            .bin_name(format!("gpubench {}", sub.get_name()))
            .version(crate::build_info::short());
        pages.push((name, page));
    }
    let mut files = Files::new();
    for (name, _) in &pages {
        files.output("--dir", &args.dir.join(format!("{name}.1")))?;
    }
    let mut written = Vec::new();
    for (name, page) in pages {
        written.push(write_page(&args.dir, &name, page)?);
    }
    note!(
        "{} man pages written to {} ({})",
        written.len(),
        args.dir.display(),
        written.join(", ")
    );
    Ok(Exit::Success)
}

/// Renders one page and writes it atomically as `NAME.1`; returns the file name.
fn write_page(dir: &Path, name: &str, command: clap::Command) -> anyhow::Result<String> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .with_context(|| format!("rendering the man page {name}"))?;
    let file = format!("{name}.1");
    let path = dir.join(&file);
    write_atomic(&path, &page).with_context(|| format!("writing {}", path.display()))?;
    Ok(file)
}
