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

use code_intel_core::gate::{self, HookCall};
use code_intel_hooks::{project_dir, read_input};

fn run() -> Result<(), String> {
    let input = read_input(std::io::stdin().lock()).map_err(|e| e.to_string())?;
    let project = project_dir(
        &input,
        std::env::var_os("CLAUDE_PROJECT_DIR").map(Into::into),
    )
    .map_err(|e| e.to_string())?;
    let cwd = input.cwd.clone().unwrap_or_else(|| project.clone());
    let call = HookCall {
        claude_session_id: input.session_id.as_deref(),
        cwd: &cwd,
        tool_name: &input.tool_name,
        tool_input: &input.tool_input,
    };
    gate::post_tool_use(&project, &call, &input.tool_response)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    match std::panic::catch_unwind(run) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("code-intel post-tool-use: {e}"),
        Err(_) => eprintln!("code-intel post-tool-use crashed; nothing was recorded for this call"),
    }
    ExitCode::SUCCESS
}
