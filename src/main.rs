//! The `tablebase` command (docs/CLI.md, "Commands"): parses the command line, runs it, and maps errors
//! to exit codes. The library does the work.

mod cli;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use cli::error::{self, Error, complain, one_line};
use cli::{Cli, run};
use std::io::ErrorKind as IoErrorKind;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // clap would print the whole help here; a usage error is one line, like the others.
            complain!("tablebase: {}", missing_subcommand());
            std::process::exit(2);
        }
        Err(e) => {
            // One line, as for every other usage error; --help has the details.
            // clap's message runs to the first blank line (a list of missing arguments follows
            // its first line); the usage after it is what --help is for.
            let rendered = e.render().to_string();
            let message: Vec<&str> =
                rendered.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            let message = message.join(" ");
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            complain!("tablebase: {message} (see 'tablebase --help')");
            std::process::exit(2);
        }
    };
    match run(cli) {
        Ok(()) => {}
        // A reader that stopped early (`| head`): nothing to say to it, but the work was not
        // all done, so not success either.
        Err(Error::Output(e)) if e.kind() == IoErrorKind::BrokenPipe => std::process::exit(error::CUT_SHORT),
        Err(Error::Reported(code)) => std::process::exit(code),
        Err(error) => {
            complain!("tablebase: {}", one_line(&error));
            std::process::exit(error.exit_code());
        }
    }
}

/// What to name after `tablebase [COMMAND ...]` when nothing more is given: the subcommands of
/// the deepest command the arguments name.
fn missing_subcommand() -> String {
    let mut command = Cli::command();
    let mut path = vec!["tablebase".to_string()];
    for arg in std::env::args().skip(1) {
        let Some(next) = command.find_subcommand(&arg).cloned() else { break };
        path.push(arg);
        command = next;
    }
    let names: Vec<&str> =
        command.get_subcommands().map(|c| c.get_name()).filter(|name| *name != "help").collect();
    let (path, names) = (path.join(" "), names.join(", "));
    match path.split_once(' ') {
        None => format!("missing a command: {names} (see '{path} --help')"),
        Some((_, given)) => format!("missing a command after '{given}': {names} (see '{path} --help')"),
    }
}
