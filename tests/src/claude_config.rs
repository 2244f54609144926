//! Builders for the Claude Code project configuration a case writes: `.claude/settings.json` hook
//! entries and `.mcp.json` servers (shapes from shared/docs/CLAUDE_CODE.md §2.1 and §6).

use serde_json::{Map, Value, json};

/// Hook timeout used by the builders, in seconds (Claude Code's unit for `timeout`). Well above a
/// hook's ~1 ms start so a slow CI machine never turns a deny into a fail-open timeout.
pub const HOOK_TIMEOUT_SECS: u32 = 20;

/// The PreToolUse matcher the real gate is configured with: every tool (`code-intel init` and the
/// plugin install the same; the gate's tool table classifies them).
pub const WRITE_TOOLS_MATCHER: &str = "*";

/// Name of the PreToolUse hook binary built by `code-intel-hooks`.
pub const PRE_TOOL_USE_BIN: &str = "code-intel-pre-tool-use";
/// The PreToolUse command earlier versions of `code-intel init` and the plugin installed (shell
/// form: a missing or killed binary still exits 2, which blocks; a timeout does not). Today both
/// install the exec form with `"onFailure": "block"` ([`Hook::fail_closed`]).
pub const PRE_TOOL_USE_COMMAND: &str = "code-intel-pre-tool-use || exit 2";

/// Name of the PostToolUse hook binary built by `code-intel-hooks`.
pub const POST_TOOL_USE_BIN: &str = "code-intel-post-tool-use";

/// Name of the MCP server / CLI binary built by `code-intel-mcp`.
pub const SERVER_BIN: &str = "code-intel";

/// One command hook handler under one event and matcher.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    /// Hook event, e.g. `PreToolUse`.
    pub event: String,
    /// Matcher (`*` for every tool; exact names separated by `|`; anything else is a JS regex).
    pub matcher: String,
    /// Program (exec form, looked up on PATH) or shell command line (shell form).
    pub command: String,
    /// `Some` selects the exec form (no shell); `None` the `sh -c` form.
    pub args: Option<Vec<String>>,
    /// Timeout in seconds.
    pub timeout_secs: u32,
    /// `onFailure`: `Some("block")` makes Claude Code block the call when the hook cannot start,
    /// dies or times out.
    pub on_failure: Option<String>,
}

impl Hook {
    /// An exec-form handler: `command` is run directly with `args`, no shell.
    pub fn exec(event: &str, matcher: &str, command: &str, args: &[&str]) -> Self {
        Self {
            event: event.to_owned(),
            matcher: matcher.to_owned(),
            command: command.to_owned(),
            args: Some(args.iter().map(|a| (*a).to_owned()).collect()),
            timeout_secs: HOOK_TIMEOUT_SECS,
            on_failure: None,
        }
    }

    /// A shell-form handler: `command_line` is run with `sh -c`.
    pub fn shell(event: &str, matcher: &str, command_line: &str) -> Self {
        Self {
            event: event.to_owned(),
            matcher: matcher.to_owned(),
            command: command_line.to_owned(),
            args: None,
            timeout_secs: HOOK_TIMEOUT_SECS,
            on_failure: None,
        }
    }

    /// The same handler with `"onFailure": "block"` (what `code-intel init` and the plugin
    /// install on the PreToolUse hook).
    #[must_use]
    pub fn fail_closed(mut self) -> Self {
        self.on_failure = Some("block".to_owned());
        self
    }

    /// The same handler with another timeout, in seconds.
    #[must_use]
    pub fn timeout(mut self, secs: u32) -> Self {
        self.timeout_secs = secs;
        self
    }

    fn handler(&self) -> Value {
        let mut handler = json!({
            "type": "command",
            "command": self.command,
            "timeout": self.timeout_secs,
        });
        if let (Some(args), Some(obj)) = (&self.args, handler.as_object_mut()) {
            obj.insert("args".into(), json!(args));
        }
        if let (Some(on_failure), Some(obj)) = (&self.on_failure, handler.as_object_mut()) {
            obj.insert("onFailure".into(), json!(on_failure));
        }
        handler
    }
}

/// The `.claude/settings.json` document for `hooks` (one matcher group per (event, matcher) pair,
/// in first-seen order) and the permission rules `allow`.
///
/// Under `-p` every MCP tool needs an allow rule: without one the call is a permission denial
/// ("Claude requested permissions to use mcp__…, but you haven't granted it yet"), even in
/// `acceptEdits` mode (observed with 2.1.328). `mcp__<server>` allows all tools of a server.
pub fn settings_json(hooks: &[Hook], allow: &[&str]) -> Value {
    let mut events: Map<String, Value> = Map::new();
    for hook in hooks {
        let groups = events
            .entry(hook.event.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            continue;
        };
        let existing = groups
            .iter_mut()
            .find(|g| g.get("matcher").and_then(Value::as_str) == Some(hook.matcher.as_str()));
        match existing {
            Some(group) => {
                if let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                    handlers.push(hook.handler());
                }
            }
            None => groups.push(json!({ "matcher": hook.matcher, "hooks": [hook.handler()] })),
        }
    }
    json!({ "hooks": events, "permissions": { "allow": allow } })
}

/// The real code-intel gate as `code-intel init` installs it: the PreToolUse binary on every
/// tool (fail closed), the PostToolUse binary on every tool, both in exec form found on PATH.
pub fn code_intel_hooks() -> Vec<Hook> {
    vec![
        Hook::exec("PreToolUse", WRITE_TOOLS_MATCHER, PRE_TOOL_USE_BIN, &[]).fail_closed(),
        Hook::exec("PostToolUse", "*", POST_TOOL_USE_BIN, &[]),
    ]
}

/// The `.mcp.json` registering `code-intel serve` as server `code-intel` (tools are then named
/// `mcp__code-intel__<tool>`). `alwaysLoad` keeps its tools out of the deferred ToolSearch list
/// (§6), so the main-loop request lists them.
pub fn code_intel_mcp_json() -> Value {
    json!({
        "mcpServers": {
            "code-intel": {
                "type": "stdio",
                "command": SERVER_BIN,
                "args": ["serve"],
                "alwaysLoad": true,
            }
        }
    })
}

/// The permission rule allowing every tool of the `code-intel` MCP server.
pub const CODE_INTEL_ALLOW: &str = "mcp__code-intel";

/// The full Claude Code tool name of code-intel MCP tool `tool` (server `code-intel`, §2.2).
pub fn mcp_tool(tool: &str) -> String {
    format!("mcp__code-intel__{tool}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_handlers_by_event_and_matcher() {
        let settings = settings_json(
            &[
                Hook::exec("PreToolUse", "Write", "/bin/a", &[]).fail_closed(),
                Hook::shell("PreToolUse", "Write", "b --x"),
                Hook::exec("PostToolUse", "*", "c", &["post"]),
            ],
            &["mcp__x"],
        );
        assert_eq!(
            settings,
            json!({ "hooks": {
                "PreToolUse": [{ "matcher": "Write", "hooks": [
                    { "type": "command", "command": "/bin/a", "args": [], "timeout": HOOK_TIMEOUT_SECS, "onFailure": "block" },
                    { "type": "command", "command": "b --x", "timeout": HOOK_TIMEOUT_SECS },
                ]}],
                "PostToolUse": [{ "matcher": "*", "hooks": [
                    { "type": "command", "command": "c", "args": ["post"], "timeout": HOOK_TIMEOUT_SECS },
                ]}],
            }, "permissions": { "allow": ["mcp__x"] } })
        );
    }
}
