//! The `code-intel` binary: `code-intel serve` (the MCP stdio server) and the human command line.
//!
//! Exit codes (ripgrep's convention): 0 success, 1 error (the message and its fix on stderr),
//! 2 usage error. Logs go to stderr through `tracing`, filtered by `CODE_INTEL_LOG` (default `info`);
//! stdout carries only the protocol (`serve`) or the command's output.

mod cli;
mod install;
mod malloc;
mod model;
mod root;
mod server;

use std::process::ExitCode;

use clap::Parser as _;

/// Environment variable holding the `tracing` filter (`EnvFilter` syntax, e.g. `debug` or
/// `code_intel=trace`).
const LOG_ENV: &str = "CODE_INTEL_LOG";
/// The filter without `CODE_INTEL_LOG`: `info`, except tantivy, which logs every commit and
/// meta-file change at info.
const DEFAULT_LOG: &str = "info,tantivy=warn";

/// The Rust heap: mimalloc. Indexing allocates and frees many small strings and vectors per
/// chunk on several threads; glibc's malloc was 9 % of the CPU of a first index
/// (docs/log/2026-11-28-first-index-speed.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Before anything makes a tree-sitter object (the function's contract).
    code_intel_grammars::tree_sitter_uses_mimalloc();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => {
            // `--help`/`--version` print to stdout and exit 0; usage errors print to stderr and exit 2.
            let code = u8::try_from(e.exit_code()).unwrap_or(2);
            if let Err(io) = e.print() {
                report(&format!("cannot print usage: {io}"));
            }
            return ExitCode::from(code);
        }
    };
    init_tracing();
    if args.command.holds_model() {
        malloc::reexec_with_tunables();
    }
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            report(&format!("error: {}", cli::error_chain(&e)));
            ExitCode::from(1)
        }
    }
}

/// Writes a final message to stderr (the only direct stderr write; everything else is `tracing`).
#[allow(clippy::print_stderr)]
fn report(msg: &str) {
    eprintln!("{msg}");
}

fn init_tracing() {
    use std::io::IsTerminal as _;
    let filter = tracing_subscriber::EnvFilter::try_from_env(LOG_ENV)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
}
