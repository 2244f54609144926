//! The write gate as functions, for hooks written in Node: the same parsing
//! (`code_intel_hooks::read_input`) and decision (`code_intel_hooks::pre::pre_tool_use`) the
//! `code-intel-pre-tool-use` binary runs, without its stdout contract, so a script can add rules
//! of its own before it answers Claude Code.

use std::path::PathBuf;

use code_intel_hooks::pre::{HookEnv, pre_tool_use};
use code_intel_hooks::{HookInput, config_locations, project_dir, read_input};
use code_intel_session::gate::{self, Kernel, Verdict};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::error::{Failure, guarded};
use crate::task::{Job, Json, json_job};

/// Options of the hook functions.
#[napi(object)]
#[derive(Debug, Default)]
pub struct HookOptions {
    /// The project directory (the repository root). Default: `CLAUDE_PROJECT_DIR` of this
    /// process, else the hook input's `cwd` — what the Rust hooks use.
    pub project_dir: Option<String>,
}

/// The gate's answer.
#[napi(object)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateDecision {
    /// `allow`: let the tool run (a hook then prints nothing, so Claude Code's own permission
    /// flow applies); `deny`: block it.
    #[napi(ts_type = "'allow' | 'deny'")]
    pub decision: String,
    /// Why it was denied and what to do next (for the model); absent on `allow`.
    pub reason: Option<String>,
}

fn deny(reason: String) -> GateDecision {
    GateDecision {
        decision: "deny".into(),
        reason: Some(reason),
    }
}

fn parsed(json: &str, options: Option<HookOptions>) -> Result<(HookInput, PathBuf), String> {
    let input = read_input(json.as_bytes()).map_err(|e| e.to_string())?;
    let explicit = options
        .and_then(|o| o.project_dir)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    let env = std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from);
    let project = project_dir(&input, explicit.or(env)).map_err(|e| e.to_string())?;
    Ok((input, project))
}

/// Decides a PreToolUse call from the hook input JSON Claude Code sends on stdin. Never fails
/// open and never rejects: unreadable input, unreadable state or an internal error are denials
/// whose reason says so, exactly as in the Rust hook (which additionally rewrites Bash commands
/// to run under its kernel sandbox in `bypassPermissions` mode; this function does not).
#[napi(ts_return_type = "Promise<GateDecision>")]
pub fn decide_pre_tool_use(
    hook_input_json: String,
    options: Option<HookOptions>,
) -> AsyncTask<Job<GateDecision>> {
    Job::new(move || {
        let decided = guarded(|| {
            let (input, project) = match parsed(&hook_input_json, options) {
                Ok(v) => v,
                Err(e) => return Ok(deny(format!("code-intel gate blocked this call: {e}"))),
            };
            // Not a hook of Claude Code: no launcher, so nothing says a shell command runs
            // confined, and none is rewritten.
            let env = HookEnv {
                project_dir: Some(project),
                locations: config_locations(),
                hook_exe: None,
                shell_prefix: None,
            };
            Ok(match pre_tool_use(&input, &env).verdict {
                Verdict::Allow => GateDecision {
                    decision: "allow".into(),
                    reason: None,
                },
                Verdict::Deny { reason } => deny(reason),
            })
        });
        Ok(decided.unwrap_or_else(|f| {
            deny(format!(
                "code-intel gate could not check this call ({f}), so it was blocked to be safe"
            ))
        }))
    })
}

/// Handles a PostToolUse call: binds the Claude Code session after `start_session` and records
/// files read or edited on the bound session. Resolves to `{ bound_session, recorded_files }`.
///
/// Rejects with `BAD_HOOK_INPUT` (unparsable JSON) or `GATE_ERROR` (state unreadable).
#[napi(ts_return_type = "Promise<PostToolUseResult>")]
pub fn record_post_tool_use(
    hook_input_json: String,
    options: Option<HookOptions>,
) -> AsyncTask<Job<Json>> {
    json_job(move || {
        let (input, project) = parsed(&hook_input_json, options).map_err(|e| {
            Failure::new(
                "BAD_HOOK_INPUT",
                e,
                "pass the JSON Claude Code sends the hook on stdin, unchanged",
            )
        })?;
        let cwd = input.cwd_or(&project);
        let locations = config_locations();
        let call = input.call(&cwd, &locations, Kernel::Absent);
        gate::post_tool_use(&project, &call).map_err(|e| {
            Failure::new(
                "GATE_ERROR",
                e.to_string(),
                "run `code-intel doctor`; the tool's result stands (PostToolUse runs after it)",
            )
        })
    })
}
