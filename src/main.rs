//! The `tablebase` command (SPEC section 1): parses the command line, runs it, and maps errors
//! to exit codes. The library does the work.

mod cli;

use clap::Parser;
use clap::error::ErrorKind;
use cli::error::{Error, one_line};
use cli::{Cli, run};
use std::io::ErrorKind as IoErrorKind;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            e.exit()
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
            eprintln!("tablebase: {message} (see 'tablebase --help')");
            std::process::exit(2);
        }
    };
    match run(cli) {
        Ok(()) => {}
        // A reader that stops early (`| head`) is not a failure of ours.
        Err(Error::Output(e)) if e.kind() == IoErrorKind::BrokenPipe => {}
        Err(Error::Reported(code)) => std::process::exit(code),
        Err(error) => {
            eprintln!("tablebase: {}", one_line(&error));
            std::process::exit(error.exit_code());
        }
    }
}
