//! The `ledger` binary: migrate, serve, admin and finance commands, one
//! module each under [`cli`]; this file parses, configures and dispatches.

mod cli;

use std::process::ExitCode;

use clap::Parser;
use ledger::config::Config;

use crate::cli::Cli;

/// mimalloc: glibc's malloc took a quarter of `serve`'s CPU in the
/// flash-sale benchmark (docs/benchmarks.md), its arenas contended by the
/// runtime's threads.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match ledger::config::LogFormat::from_env() {
        Ok(format) => ledger::logging::init(format),
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::FAILURE;
        }
    }
    let cli = Cli::parse();
    let verbose = cli.verbose;
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) if verbose => {
            eprintln!("Error: {}", scrub(&format!("{e:?}")));
            ExitCode::FAILURE
        }
        Err(e) => {
            let line = ledger::logging::one_line(&ledger::logging::chain(e.as_ref()));
            eprintln!("Error: {}", scrub(&line));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    let config = Config::from_env()?;
    let runtime = cli.command.runtime()?;
    runtime.block_on(cli.command.run(config))
}

/// `text` without the passwords of the connection URLs, whatever quoted them.
fn scrub(text: &str) -> String {
    let urls: Vec<String> = ["DATABASE_URL", "AMQP_URL", "REDIS_URL"]
        .iter()
        .filter_map(|var| std::env::var(var).ok())
        .collect();
    ledger::logging::redact::scrub(text, urls.iter().map(String::as_str))
}
