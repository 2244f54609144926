//! The PostToolUse hook: [`run`] is the whole of the `code-intel-post-tool-use` binary. It binds
//! Claude Code sessions to code-intel sessions after `start_session` and records files read or
//! edited on the bound session ([`code_intel_session::gate::post_tool_use`]).
//!
//! It never blocks (the tool already ran): errors go to stderr and the exit code is 0 — a non-zero
//! code other than 2 is non-blocking anyway, and 0 keeps Claude Code's transcript clean.
#![allow(
    clippy::print_stderr,
    reason = "stderr is the hook's only diagnostic channel"
)]

use std::process::ExitCode;

use code_intel_session::gate::{self, Kernel};

use crate::pre::HookEnv;
use crate::{WATCHDOG, WATCHDOG_AFTER, project_dir, read_input};

fn record() -> Result<(), String> {
    let input = read_input(std::io::stdin().lock()).map_err(|e| e.to_string())?;
    let env = HookEnv::from_process();
    let project = project_dir(&input, env.project_dir).map_err(|e| e.to_string())?;
    let cwd = input.cwd_or(&project);
    // The tool ran already: how a shell command was confined no longer matters.
    let call = input.call(&cwd, &env.locations, Kernel::Absent);
    gate::post_tool_use(&project, &call)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The `code-intel-post-tool-use` binary: record the call on stdin under the watchdog; always
/// exits 0.
pub fn run() -> ExitCode {
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
    match std::panic::catch_unwind(record) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("code-intel post-tool-use: {e}"),
        Err(_) => eprintln!("code-intel post-tool-use crashed; nothing was recorded for this call"),
    }
    ExitCode::SUCCESS
}
