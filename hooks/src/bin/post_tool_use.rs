//! `code-intel-post-tool-use`: the PostToolUse hook. Binds Claude Code sessions to code-intel
//! sessions after `start_session` and records files read or edited on the bound session.
//!
//! It never blocks (the tool already ran): errors go to stderr and the exit code is 0 — a non-zero
//! code other than 2 is non-blocking anyway, and 0 keeps Claude Code's transcript clean.
#![allow(
    clippy::print_stderr,
    reason = "stderr is the hook's only diagnostic channel"
)]

use std::process::ExitCode;

use code_intel_gate::gate;
use code_intel_hooks::{WATCHDOG, WATCHDOG_AFTER, config_locations, project_dir, read_input};

fn run() -> Result<(), String> {
    let input = read_input(std::io::stdin().lock()).map_err(|e| e.to_string())?;
    let project = project_dir(
        &input,
        std::env::var_os("CLAUDE_PROJECT_DIR").map(Into::into),
    )
    .map_err(|e| e.to_string())?;
    let cwd = input.cwd_or(&project);
    let locations = config_locations();
    let call = input.call(&cwd, &locations);
    gate::post_tool_use(&project, &call)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    // Something blocked (a FIFO, a held lock): give up without recording; state is written
    // atomically, so nothing is torn.
    WATCHDOG.arm(
        WATCHDOG_AFTER,
        || {
            eprintln!(
                "code-intel post-tool-use: gave up after 2 s; nothing was recorded for this call"
            )
        },
        0,
    );
    match std::panic::catch_unwind(run) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("code-intel post-tool-use: {e}"),
        Err(_) => eprintln!("code-intel post-tool-use crashed; nothing was recorded for this call"),
    }
    ExitCode::SUCCESS
}
