use clap::Parser;
use tablebase::cli::{Cli, run};

fn main() {
    let cli = Cli::parse();
    if let Err(error) = run(cli) {
        eprintln!("tablebase: {error}");
        std::process::exit(error.exit_code());
    }
}
