//! The gate's tool table against the tools the pinned Claude Code really offers the model.
//!
//! The PreToolUse hook runs for every tool (matcher `*`) and classifies it
//! (`gate/src/gate/tools.rs`). A tool missing from that table is gated conservatively, but a new
//! Claude Code version that adds a tool must not go unnoticed: this test runs real Claude Code
//! against the fake Messages API, collects the names in every request's `tools` array and the
//! deferred tools announced in the prompt ("The following deferred tools are now available via
//! ToolSearch…"), and fails when the gate's table (`code_intel_session::gate::tools::classify`, linked
//! here as a dev-dependency: the shipped hook has no test-only option) does not know one.
//!
//! Needs `scripts/install-claude-code.sh` and `cargo build --workspace --bins` first.

use std::collections::BTreeSet;

use anyhow::{Result, ensure};
use code_intel_e2e::claude_config::{
    CODE_INTEL_ALLOW, POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN,
};
use code_intel_e2e::{
    ClaudeCase, LoggedRequest, Step, code_intel_hooks, code_intel_mcp_json, locate_claude,
    require_binaries, settings_json,
};
use code_intel_session::gate::tools::{ToolClass, classify};
use serde_json::Value;

/// The sentence that introduces the deferred tool names, one per line, ended by a blank line
/// (observed with 2.1.328, in a `system` message of the main-loop request).
const DEFERRED_MARKER: &str = "The following deferred tools are now available via ToolSearch";

/// The deferred tool names announced in `text`: the lines after the marker's first `:\n` up to
/// the next blank line.
fn deferred_tools(text: &str) -> Vec<String> {
    let Some(start) = text.find(DEFERRED_MARKER) else {
        return Vec::new();
    };
    let rest = &text[start..];
    let Some(colon) = rest.find(":\n") else {
        return Vec::new();
    };
    rest[colon + 2..]
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_owned())
        .collect()
}

/// Every string in a JSON value, so the marker is found wherever the prompt carries it
/// (`system`, a `system` message, a user message).
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Value::Object(m) => m.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Offered (`tools` arrays) and deferred tool names over all Messages requests.
fn tool_names(requests: &[LoggedRequest]) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut offered = BTreeSet::new();
    let mut deferred = BTreeSet::new();
    for request in requests.iter().filter(|r| r.is_messages()) {
        offered.extend(request.tool_names());
        let mut texts = Vec::new();
        strings(&request.body, &mut texts);
        for text in &texts {
            deferred.extend(deferred_tools(text));
        }
    }
    (offered, deferred)
}

/// The names among `names` the gate's tool table does not know ([`ToolClass::Unknown`]).
fn unknown_tools<'a>(names: &[&'a str]) -> Vec<&'a str> {
    names
        .iter()
        .copied()
        .filter(|n| classify(n) == ToolClass::Unknown)
        .collect()
}

#[test]
fn deferred_tool_parsing_reads_the_observed_prompt() {
    let prompt = "Knowledge cutoff.\n\nThe following deferred tools are now available via \
        ToolSearch. Their schemas are NOT loaded — use ToolSearch with query \
        \"select:<name>[,<name>...]\" to load tool schemas before calling them:\nCronCreate\n\
        EnterWorktree\nMonitor\n\nAvailable agent types for the Agent tool:\n- claude: x\n";
    assert_eq!(
        deferred_tools(prompt),
        ["CronCreate", "EnterWorktree", "Monitor"]
    );
    assert!(deferred_tools("no such list").is_empty());
}

#[test]
fn an_unknown_tool_is_reported() {
    // The check of `tool_table_covers_claude_code` can fail: a name the table lacks is listed.
    assert_eq!(
        unknown_tools(&["Bash", "SomeToolClaudeCodeMightAddTomorrow"]),
        ["SomeToolClaudeCodeMightAddTomorrow"]
    );
}

#[test]
fn tool_table_covers_claude_code() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN])?;
    let mut offered = BTreeSet::new();
    let mut deferred = BTreeSet::new();
    // The permission mode changes what Claude Code offers (plan mode adds its exit tool); the
    // code-intel hooks and MCP server are installed as `code-intel init` does.
    for mode in ["acceptEdits", "default", "plan"] {
        let mut case = ClaudeCase::new()?;
        case.write_settings(&settings_json(&code_intel_hooks(), &[CODE_INTEL_ALLOW]))?;
        case.write_mcp_json(&code_intel_mcp_json())?;
        case.permission_mode(mode);
        case.script(vec![Step::text("Nothing to do.")]);
        let run = case.run(&claude)?;
        let (o, d) = tool_names(&run.requests);
        ensure!(
            o.contains("Bash") && o.contains("Read"),
            "{mode}: no tool list captured: {o:?}\n{}",
            run.describe()
        );
        ensure!(
            !d.is_empty(),
            "{mode}: no deferred tools found in the prompt (the marker `{DEFERRED_MARKER}` changed?)\n{}",
            run.describe()
        );
        offered.extend(o);
        deferred.extend(d);
    }
    let all: Vec<&str> = offered
        .iter()
        .chain(deferred.iter())
        .map(String::as_str)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let unknown = unknown_tools(&all);
    ensure!(
        unknown.is_empty(),
        "tools the pinned Claude Code offers that gate/src/gate/tools.rs does not classify: \
         {unknown:?}\noffered: {offered:?}\ndeferred: {deferred:?}"
    );
    // Everything the gate must stop a write through is seen, so the list is the real one.
    for tool in [
        "Edit",
        "Write",
        "Bash",
        "NotebookEdit",
        "EnterWorktree",
        "CronCreate",
    ] {
        ensure!(
            all.contains(&tool),
            "{tool} not offered or deferred: {all:?}"
        );
    }
    Ok(())
}
