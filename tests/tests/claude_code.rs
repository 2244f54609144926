//! Real Claude Code (pinned 2.1.328) against the fake Messages API: first the harness self-tests
//! with inline shell hooks, then the code-intel gate scenarios with the real hook binaries and MCP
//! server.
//!
//! Needs `scripts/install-claude-code.sh` (or `CODE_INTEL_CLAUDE`) and `cargo build --workspace`
//! first; a missing piece fails the test with a message saying what to run.

use anyhow::{Context, Result, ensure};
use code_intel_e2e::claude_config::{
    CODE_INTEL_ALLOW, POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, PRE_TOOL_USE_COMMAND, SERVER_BIN,
};
use code_intel_e2e::{
    ClaudeCase, ClaudeRun, Hook, Step, ToolResult, code_intel_hooks, code_intel_mcp_json,
    locate_claude, mcp_tool, require_binaries, settings_json, tool_use_id,
};
use serde_json::{Value, json};

/// A PreToolUse hook that records its stdin, then denies the way the real gate does: JSON deny on
/// stdout, the reason on stderr, exit 2 (CLAUDE_CODE.md §2.5).
const DENY_HOOK: &str = r#"#!/bin/sh
cat >> "$(dirname "$0")/../hook-stdin.jsonl"
echo >> "$(dirname "$0")/../hook-stdin.jsonl"
printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"e2e: writes are blocked"}}'
echo "e2e: writes are blocked" >&2
exit 2
"#;

#[test]
fn harness_write_lands_without_a_gate() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = ClaudeCase::new()?;
    let target = case.path_str("notes/hello.txt");
    case.script(vec![
        Step::tool(
            "Write",
            json!({ "file_path": target, "content": "hello\n" }),
        ),
        Step::text("Wrote the file."),
    ]);
    let run = case.run(&claude)?;

    assert_eq!(
        case.read("notes/hello.txt")?.as_deref(),
        Some("hello\n"),
        "{}",
        run.describe()
    );
    assert_eq!(run.is_error(), Some(false), "{}", run.describe());
    assert_eq!(
        run.result_text(),
        Some("Wrote the file."),
        "{}",
        run.describe()
    );
    assert!(run.permission_denials().is_empty(), "{}", run.describe());
    let result = run
        .tool_result(0, 0)
        .with_context(|| format!("no tool_result for the Write\n{}", run.describe()))?;
    assert!(!result.is_error, "{result:?}");
    Ok(())
}

#[test]
fn harness_mcp_tool_call_round_trips() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    for always_load in [false, true] {
        let mut case = ClaudeCase::new()?;
        let mcp_log = case.case_dir().join("mcp.jsonl");
        let mut server = json!({
            "command": env!("CARGO_BIN_EXE_e2e_fake_mcp"),
            "args": [],
            "env": { "E2E_FAKE_MCP_LOG": mcp_log.to_string_lossy() },
        });
        if always_load {
            server["alwaysLoad"] = json!(true);
        }
        case.write_mcp_json(&json!({ "mcpServers": { "fake": server } }))?;
        case.write_settings(&settings_json(&[], &["mcp__fake"]))?;
        case.script(vec![
            Step::tool("mcp__fake__echo", json!({ "text": "hi" })),
            Step::text("Echoed."),
        ]);
        let run = case.run(&claude)?;

        let result = assert_tool_ok(&run, 0, 0)?;
        assert_eq!(result.content, "echo: hi", "alwaysLoad {always_load}");
        // Deferred tools (behind ToolSearch) are not offered, yet a call by full name still runs.
        let offered = run
            .main_loop_requests()
            .first()
            .map(|r| r.tool_names())
            .unwrap_or_default();
        assert_eq!(
            offered.iter().any(|t| t == "mcp__fake__echo"),
            always_load,
            "alwaysLoad {always_load}: first request offers {offered:?}"
        );
        // The server saw the call, linked to the model's tool_use id (CLAUDE_CODE.md §3).
        let log = std::fs::read_to_string(&mcp_log)?;
        let calls: Vec<Value> = log
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["method"] == "tools/call")
            .collect();
        ensure!(calls.len() == 1, "tools/call messages: {calls:?}");
        assert_eq!(calls[0]["params"]["name"], "echo");
        assert_eq!(calls[0]["params"]["arguments"]["text"], "hi");
        assert_eq!(
            calls[0]["params"]["_meta"]["claudecode/toolUseId"],
            tool_use_id(0, 0).as_str()
        );
    }
    Ok(())
}

#[test]
fn harness_edit_after_read_lands_without_a_gate() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = ClaudeCase::new()?;
    let target = case.path_str("src/billing/tax.py");
    case.script(vec![
        Step::tool("Read", json!({ "file_path": target })),
        Step::tool("Edit", edit_us_rate(&target)),
        Step::text("Edited."),
    ]);
    let run = case.run(&claude)?;

    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(TAX_PY_EDITED.as_str()),
        "{}",
        run.describe()
    );
    assert!(run.permission_denials().is_empty(), "{}", run.describe());
    assert_tool_ok(&run, 1, 0)?;
    Ok(())
}

#[test]
fn harness_bash_sed_lands_without_a_gate() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = ClaudeCase::new()?;
    case.script(vec![
        Step::tool("Bash", sed_us_rate()),
        Step::text("Edited."),
    ]);
    let run = case.run(&claude)?;

    // acceptEdits auto-approves `sed -i` (observed with 2.1.328), so only a hook can stop it.
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(TAX_PY_EDITED.as_str()),
        "{}",
        run.describe()
    );
    assert!(run.permission_denials().is_empty(), "{}", run.describe());
    Ok(())
}

#[test]
fn harness_pre_tool_use_deny_blocks_write_and_reaches_the_model() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    // Hooks gate an untrusted project too (only its permission rules are ignored under -p).
    for trusted in [true, false] {
        deny_hook_case(&claude, trusted).with_context(|| format!("trusted: {trusted}"))?;
    }
    Ok(())
}

fn deny_hook_case(claude: &std::path::Path, trusted: bool) -> Result<()> {
    let mut case = ClaudeCase::new()?;
    case.trusted(trusted);
    let hook = case.write_script("deny-hook", DENY_HOOK)?;
    let hook = hook.to_string_lossy();
    case.write_settings(&settings_json(
        &[Hook::exec("PreToolUse", "Write", &hook, &[])],
        &[],
    ))?;
    let target = case.path_str("notes/hello.txt");
    case.script(vec![
        Step::tool(
            "Write",
            json!({ "file_path": target, "content": "hello\n" }),
        ),
        Step::text("The write was blocked."),
    ]);
    let run = case.run(claude)?;

    assert_eq!(case.read("notes/hello.txt")?, None, "{}", run.describe());
    let denials = run.permission_denials();
    assert_eq!(denials.len(), 1, "{}", run.describe());
    assert_eq!(denials[0].tool_name, "Write");
    assert_eq!(denials[0].tool_use_id, tool_use_id(0, 0));
    assert_eq!(denials[0].tool_input["file_path"], target.as_str());

    let result = run
        .tool_result(0, 0)
        .with_context(|| format!("no tool_result for the Write\n{}", run.describe()))?;
    assert!(result.is_error, "{result:?}");
    assert_eq!(
        result.content, "PreToolUse:Write hook error: e2e: writes are blocked",
        "{result:?}"
    );

    // The hook saw the documented stdin shape.
    let stdin_log = std::fs::read_to_string(case.case_dir().join("hook-stdin.jsonl"))?;
    let inputs: Vec<Value> = stdin_log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    ensure!(
        inputs.len() == 1,
        "hook ran {} times: {stdin_log}",
        inputs.len()
    );
    assert_eq!(inputs[0]["hook_event_name"], "PreToolUse");
    assert_eq!(inputs[0]["tool_name"], "Write");
    assert_eq!(inputs[0]["tool_use_id"], tool_use_id(0, 0).as_str());
    assert_eq!(inputs[0]["tool_input"]["file_path"], target.as_str());
    assert_eq!(inputs[0]["permission_mode"], "acceptEdits");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the scenarios.
// ---------------------------------------------------------------------------------------------

/// The fixture's `src/billing/tax.py` after [`edit_us_rate`] or [`sed_us_rate`].
static TAX_PY_EDITED: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| tax_py_original().replace(r#""US": 0.07"#, r#""US": 0.08"#));

fn tax_py_original() -> &'static str {
    code_intel_e2e::fixture::FILES
        .iter()
        .find(|(path, _)| *path == "src/billing/tax.py")
        .map_or("", |(_, text)| text)
}

/// Edit input changing the US rate in `src/billing/tax.py` (absolute `path`).
fn edit_us_rate(path: &str) -> Value {
    json!({
        "file_path": path,
        "old_string": r#""US": 0.07"#,
        "new_string": r#""US": 0.08"#,
        "replace_all": false,
    })
}

/// Bash input making the same change with `sed -i` (cwd is the project).
fn sed_us_rate() -> Value {
    json!({
        "command": "sed -i 's/\"US\": 0.07/\"US\": 0.08/' src/billing/tax.py",
        "description": "Bump the US tax rate",
    })
}

/// The tool result of step `step`, block `block`, asserted to be a success.
fn assert_tool_ok(run: &ClaudeRun, step: usize, block: usize) -> Result<ToolResult> {
    let result = run.tool_result(step, block).with_context(|| {
        format!(
            "no tool_result for step {step} block {block}\n{}",
            run.describe()
        )
    })?;
    ensure!(
        !result.is_error,
        "step {step} block {block} failed: {}\n{}",
        result.content,
        run.describe()
    );
    Ok(result)
}

/// Asserts that the PreToolUse hook denied call (`step`, 0) to `tool`: it is in
/// `permission_denials`, and the model got `PreToolUse:<tool> hook error: <reason>` with a
/// non-empty reason. Returns the reason.
fn assert_hook_denied(run: &ClaudeRun, step: usize, tool: &str) -> Result<String> {
    let id = tool_use_id(step, 0);
    let denials = run.permission_denials();
    ensure!(
        denials
            .iter()
            .any(|d| d.tool_use_id == id && d.tool_name == tool),
        "{tool} call {id} not in permission_denials {denials:?}\n{}",
        run.describe()
    );
    let result = run
        .tool_result(step, 0)
        .with_context(|| format!("no tool_result for {id}\n{}", run.describe()))?;
    ensure!(result.is_error, "{result:?}");
    let prefix = format!("PreToolUse:{tool} hook error: ");
    let reason = result
        .content
        .strip_prefix(&prefix)
        .with_context(|| format!("expected `{prefix}…`, got {:?}", result.content))?;
    ensure!(!reason.trim().is_empty(), "empty deny reason: {result:?}");
    Ok(reason.to_owned())
}

/// A case gated by the real code-intel hooks (exec form, found on PATH in the workspace target
/// directory) with the real MCP server registered in `.mcp.json`.
fn gated_case() -> Result<ClaudeCase> {
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN])?;
    let case = ClaudeCase::new()?;
    case.write_settings(&settings_json(&code_intel_hooks(), &[CODE_INTEL_ALLOW]))?;
    case.write_mcp_json(&code_intel_mcp_json())?;
    Ok(case)
}

// ---------------------------------------------------------------------------------------------
// Scenarios with the real gate.
// ---------------------------------------------------------------------------------------------

#[test]
fn write_is_denied_before_any_session() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    let target = case.path_str("src/billing/discount.py");
    case.script(vec![
        Step::tool(
            "Write",
            json!({ "file_path": target, "content": "DISCOUNT = 0.1\n" }),
        ),
        Step::text("Blocked."),
    ]);
    let run = case.run(&claude)?;

    assert_eq!(
        case.read("src/billing/discount.py")?,
        None,
        "{}",
        run.describe()
    );
    assert_hook_denied(&run, 0, "Write")?;
    Ok(())
}

#[test]
fn bash_sed_on_a_repo_file_is_denied() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    case.script(vec![
        Step::tool("Bash", sed_us_rate()),
        Step::text("Blocked."),
    ]);
    let run = case.run(&claude)?;

    // Without the gate the same call lands: harness_bash_sed_lands_without_a_gate.
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(tax_py_original()),
        "{}",
        run.describe()
    );
    let reason = assert_hook_denied(&run, 0, "Bash")?;
    assert!(
        reason.contains("start_session"),
        "reason names no next step: {reason}"
    );
    Ok(())
}

/// The request the session scenarios run under; `set_query_frame` quotes must be copied from it.
/// It fills all four QueryFrame slots, so a MODIFY session is LOW risk (core `router::assess_risk`)
/// and READY needs 3 symbols, 1 entry point, 2 files, 1 pattern, find_definitions and
/// find_references (core `session::requirements`).
const MODIFY_PROMPT: &str = "When an invoice is for a US customer, the total uses the outdated \
US tax rate of 0.07; change the US tax rate to 0.08.";

/// Steps 0–5 of a session that reaches READY for [`MODIFY_PROMPT`] through the real tools:
/// start_session → set_query_frame → find_definitions → find_references → search_text →
/// submit_understanding (explores `src/billing/tax.py` and `src/billing/invoice.py`).
fn ready_session_steps() -> Vec<Step> {
    vec![
        Step::tool(
            mcp_tool("start_session"),
            json!({ "intent": "MODIFY", "query": MODIFY_PROMPT }),
        ),
        Step::tool(
            mcp_tool("set_query_frame"),
            json!({
                "target_feature": { "value": "US tax rate", "quote": "US tax rate" },
                "trigger_condition": {
                    "value": "invoice for a US customer",
                    "quote": "When an invoice is for a US customer",
                },
                "observed_issue": {
                    "value": "the total uses the outdated rate 0.07",
                    "quote": "the total uses the outdated US tax rate of 0.07",
                },
                "desired_action": {
                    "value": "set the US rate to 0.08",
                    "quote": "change the US tax rate to 0.08",
                },
            }),
        ),
        Step::tool(
            mcp_tool("find_definitions"),
            json!({ "symbol": "tax_rate" }),
        ),
        Step::tool(mcp_tool("find_references"), json!({ "symbol": "tax_rate" })),
        Step::tool(mcp_tool("search_text"), json!({ "pattern": "RATES" })),
        Step::tool(
            mcp_tool("submit_understanding"),
            json!({
                "symbols_identified": ["tax_rate", "RATES", "Invoice"],
                "entry_points": ["Invoice.total"],
                "files_analyzed": ["src/billing/tax.py", "src/billing/invoice.py"],
                "existing_patterns": ["module-level RATES dict read through tax_rate(region)"],
            }),
        ),
    ]
}

#[test]
fn edit_is_denied_during_exploration() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    case.prompt(MODIFY_PROMPT);
    let target = case.path_str("src/billing/tax.py");
    case.script(vec![
        Step::tool(
            mcp_tool("start_session"),
            json!({ "intent": "MODIFY", "query": MODIFY_PROMPT }),
        ),
        // Read first, so that only the gate can stop the Edit (not the read-before-edit check).
        Step::tool("Read", json!({ "file_path": target })),
        Step::tool("Edit", edit_us_rate(&target)),
        Step::text("Blocked."),
    ]);
    let run = case.run(&claude)?;

    assert_tool_ok(&run, 0, 0)?;
    assert_tool_ok(&run, 1, 0)?;
    let reason = assert_hook_denied(&run, 2, "Edit")?;
    assert!(reason.contains("EXPLORATION"), "{reason}");
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(tax_py_original()),
        "{}",
        run.describe()
    );
    Ok(())
}

#[test]
fn ready_session_allows_explored_file_and_denies_unexplored_file() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    case.prompt(MODIFY_PROMPT);
    let tax = case.path_str("src/billing/tax.py");
    let cart = case.path_str("web/cart.js");
    let mut script = ready_session_steps();
    script.extend([
        Step::tool("Read", json!({ "file_path": tax })),
        Step::tool("Edit", edit_us_rate(&tax)),
        // Not read and not explored: the gate must deny it before the read-before-edit check.
        Step::tool(
            "Edit",
            json!({
                "file_path": cart,
                "old_string": "toFixed(2)",
                "new_string": "toFixed(3)",
                "replace_all": false,
            }),
        ),
        Step::text("Done."),
    ]);
    case.script(script);
    let run = case.run(&claude)?;

    for step in 0..=6 {
        assert_tool_ok(&run, step, 0)?;
    }
    let submitted = assert_tool_ok(&run, 5, 0)?;
    assert!(
        submitted.content.contains("READY"),
        "submit_understanding did not reach READY: {}",
        submitted.content
    );
    assert_tool_ok(&run, 7, 0)?;
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(TAX_PY_EDITED.as_str()),
        "{}",
        run.describe()
    );
    let reason = assert_hook_denied(&run, 8, "Edit")?;
    assert!(reason.contains("web/cart.js"), "{reason}");
    assert!(
        case.read("web/cart.js")?
            .is_some_and(|js| js.contains("toFixed(2)")),
        "{}",
        run.describe()
    );
    Ok(())
}

/// The structured JSON of a successful MCP tool result at (`step`, 0).
fn tool_json(run: &ClaudeRun, step: usize) -> Result<Value> {
    let result = assert_tool_ok(run, step, 0)?;
    serde_json::from_str(&result.content)
        .with_context(|| format!("step {step}: not JSON: {}", result.content))
}

#[test]
fn exploration_starts_from_leads_in_relevance_order_and_sees_a_write() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    case.prompt(MODIFY_PROMPT);
    let tax = case.path_str("src/billing/tax.py");
    let mut script = ready_session_steps();
    // A first look right after start_session (step 1): several files match, and their order is
    // the leads' order, not path order.
    script.insert(
        1,
        Step::tool(mcp_tool("search_text"), json!({ "pattern": "rate|total" })),
    );
    let written = format!(
        "{}\n\ndef vat_threshold(region):\n    return 0\n",
        tax_py_original()
    );
    script.extend([
        Step::tool("Read", json!({ "file_path": tax })),
        Step::tool("Write", json!({ "file_path": tax, "content": written })),
        Step::tool(
            mcp_tool("find_definitions"),
            json!({ "symbol": "vat_threshold" }),
        ),
        Step::text("Done."),
    ]);
    case.script(script);
    let run = case.run(&claude)?;

    let start = tool_json(&run, 0)?;
    let leads: Vec<&str> = start["leads"]
        .as_array()
        .context("no leads")?
        .iter()
        .filter_map(|l| l["file"].as_str())
        .collect();
    assert!(
        leads.iter().take(2).any(|f| *f == "src/billing/tax.py"),
        "{start:#}"
    );
    assert!(
        start["leads"][0]["why"]
            .as_str()
            .is_some_and(|w| !w.is_empty()),
        "{start:#}"
    );
    // The agent's first exploration call: files in the leads' order, then the rest by path.
    let first = tool_json(&run, 1)?;
    assert_eq!(first["order"], "relevance", "{first:#}");
    let mut shown: Vec<&str> = Vec::new();
    for m in first["matches"].as_array().context("no matches")? {
        let f = m["file"].as_str().unwrap_or_default();
        if !shown.contains(&f) {
            shown.push(f);
        }
    }
    let mut expected: Vec<&str> = leads
        .iter()
        .copied()
        .filter(|f| shown.contains(f))
        .collect();
    let mut rest: Vec<&str> = shown
        .iter()
        .copied()
        .filter(|f| !leads.contains(f))
        .collect();
    rest.sort_unstable();
    expected.extend(rest);
    assert_eq!(shown, expected, "{first:#}");
    let mut by_path = shown.clone();
    by_path.sort_unstable();
    assert_ne!(
        shown, by_path,
        "relevance order equals path order here: {first:#}"
    );
    let submitted = assert_tool_ok(&run, 6, 0)?;
    ensure!(
        submitted.content.contains("READY"),
        "not READY: {}",
        submitted.content
    );
    assert_tool_ok(&run, 8, 0)?;
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(written.as_str())
    );
    // The next index-backed call sees the file as written.
    let found = tool_json(&run, 9)?;
    assert_eq!(
        found["definitions"][0]["qualified_name"], "vat_threshold",
        "{found:#}"
    );
    assert_eq!(found["definitions"][0]["file"], "src/billing/tax.py");
    Ok(())
}

#[test]
fn write_passes_when_gate_mode_is_off() -> Result<()> {
    // The control for malformed_config_fails_closed and hook_panic_fails_closed: a valid config
    // really is read by the hook, and with the gate off this write lands.
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    case.write(".code-intel/config.json", r#"{ "gate_mode": "off" }"#)?;
    let target = case.path_str("src/billing/discount.py");
    case.script(vec![
        Step::tool(
            "Write",
            json!({ "file_path": target, "content": "DISCOUNT = 0.1\n" }),
        ),
        Step::text("Written."),
    ]);
    let run = case.run(&claude)?;

    assert_tool_ok(&run, 0, 0)?;
    assert_eq!(
        case.read("src/billing/discount.py")?.as_deref(),
        Some("DISCOUNT = 0.1\n"),
        "{}",
        run.describe()
    );
    Ok(())
}

#[test]
fn malformed_config_fails_closed() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    for (label, config) in [
        ("truncated json", r#"{ "gate_mode": "off","#),
        ("wrong type", r#"{ "gate_mode": 42 }"#),
    ] {
        let mut case = gated_case()?;
        case.write(".code-intel/config.json", config)?;
        let target = case.path_str("src/billing/discount.py");
        case.script(vec![
            Step::tool(
                "Write",
                json!({ "file_path": target, "content": "DISCOUNT = 0.1\n" }),
            ),
            Step::text("Blocked."),
        ]);
        let run = case.run(&claude)?;

        assert_eq!(
            case.read("src/billing/discount.py")?,
            None,
            "{label}: {}",
            run.describe()
        );
        let reason = assert_hook_denied(&run, 0, "Write").with_context(|| label.to_owned())?;
        // The config error itself, not a later rule, must be what blocked the write.
        assert!(reason.contains("config.json"), "{label}: {reason}");
    }
    Ok(())
}

/// A PreToolUse hook (on Read) that corrupts every code-intel session state file, simulating a
/// torn or hand-edited state between the session reaching READY and the next edit.
const CORRUPT_STATE_HOOK: &str = r#"#!/bin/sh
cat > /dev/null
for f in "$CLAUDE_PROJECT_DIR"/.code-intel/sessions/*.json; do
  [ -f "$f" ] && printf '{ "corrupt' > "$f"
done
exit 0
"#;

#[test]
fn corrupt_session_state_fails_closed() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    let corrupter = case.write_script("corrupt-state", CORRUPT_STATE_HOOK)?;
    let mut hooks = code_intel_hooks();
    hooks.push(Hook::exec(
        "PreToolUse",
        "Read",
        &corrupter.to_string_lossy(),
        &[],
    ));
    case.write_settings(&settings_json(&hooks, &[CODE_INTEL_ALLOW]))?;
    case.prompt(MODIFY_PROMPT);
    let tax = case.path_str("src/billing/tax.py");
    let mut script = ready_session_steps();
    script.extend([
        // The corrupting hook runs before this Read; the Read itself is not gated.
        Step::tool("Read", json!({ "file_path": tax })),
        // Explored and READY, so it would land (see the READY scenario) if state were intact.
        Step::tool("Edit", edit_us_rate(&tax)),
        Step::text("Blocked."),
    ]);
    case.script(script);
    let run = case.run(&claude)?;

    let submitted = assert_tool_ok(&run, 5, 0)?;
    assert!(
        submitted.content.contains("READY"),
        "submit_understanding did not reach READY: {}",
        submitted.content
    );
    let states = std::fs::read_dir(case.path(".code-intel/sessions"))?
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| std::fs::read_to_string(e.path()))
        .collect::<Result<Vec<_>, _>>()?;
    ensure!(
        !states.is_empty() && states.iter().all(|s| s == r#"{ "corrupt"#),
        "state was not corrupted as planned: {states:?}"
    );
    let reason = assert_hook_denied(&run, 7, "Edit")?;
    assert!(reason.contains("corrupt"), "{reason}");
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(tax_py_original()),
        "{}",
        run.describe()
    );
    Ok(())
}

#[test]
fn hook_panic_fails_closed() -> Result<()> {
    // A panicking hook exits 101, which Claude Code treats as non-blocking (the write would land,
    // CLAUDE_CODE.md §2.5); the hook must catch it and deny. `gate_mode: off` means that without
    // the fault this write lands (write_passes_when_gate_mode_is_off).
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    case.write(".code-intel/config.json", r#"{ "gate_mode": "off" }"#)?;
    case.env("CODE_INTEL_HOOK_FAULT", "panic");
    let target = case.path_str("src/billing/discount.py");
    case.script(vec![
        Step::tool(
            "Write",
            json!({ "file_path": target, "content": "DISCOUNT = 0.1\n" }),
        ),
        Step::text("Blocked."),
    ]);
    let run = case.run(&claude)?;

    assert_eq!(
        case.read("src/billing/discount.py")?,
        None,
        "{}",
        run.describe()
    );
    let reason = assert_hook_denied(&run, 0, "Write")?;
    assert!(reason.contains("crashed"), "{reason}");
    Ok(())
}

#[test]
fn missing_hook_binary_fails_closed_in_the_installed_form() -> Result<()> {
    // Claude Code runs the tool when a hook command cannot be found (CLAUDE_CODE.md §2.5). The
    // control: the plain exec form naming a binary that is not on PATH lets the Write land. The
    // form `code-intel init` and the plugin install (`<binary> || exit 2`, here with the same
    // absent binary) blocks it. No session and no gate_mode are involved: only the missing binary.
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    const ABSENT: &str = "code-intel-pre-tool-use-not-installed";
    for (hook, lands) in [
        (Hook::exec("PreToolUse", "*", ABSENT, &[]), true),
        (
            Hook::shell(
                "PreToolUse",
                "*",
                &PRE_TOOL_USE_COMMAND.replacen(PRE_TOOL_USE_BIN, ABSENT, 1),
            ),
            false,
        ),
    ] {
        let mut case = ClaudeCase::new()?;
        case.write_settings(&settings_json(&[hook], &[]))?;
        let target = case.path_str("src/billing/discount.py");
        case.script(vec![
            Step::tool(
                "Write",
                json!({ "file_path": target, "content": "DISCOUNT = 0.1\n" }),
            ),
            Step::text("Done."),
        ]);
        let run = case.run(&claude)?;
        let written = case.read("src/billing/discount.py")?;
        assert_eq!(
            written.is_some(),
            lands,
            "lands={lands}\n{}",
            run.describe()
        );
        if !lands {
            assert_hook_denied(&run, 0, "Write")?;
        }
    }
    Ok(())
}

/// How a Bash command reaches the kernel sandbox.
#[derive(Clone, Copy, Debug)]
enum SandboxedBy {
    /// `bypassPermissions`: the PreToolUse hook rewrites the command (`updatedInput`).
    HookRewrite,
    /// `default` mode: the launcher is Claude Code's shell prefix (`CLAUDE_CODE_SHELL_PREFIX`,
    /// as `code-intel init` sets it), with allow rules for the two commands.
    ShellPrefix,
}

fn ready_session_bash_under_the_kernel_sandbox(by: SandboxedBy) -> Result<()> {
    // In READY a Bash write of an explored file still lands although the command runs under
    // code-intel-sandbox, while a write the parser cannot see (a script of the repository,
    // which it trusts) to an unexplored file is refused by the kernel. Control for the script:
    // gate_attacks' control group runs the same kind of script unhooked.
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = gated_case()?;
    case.write(
        "scripts/touch_cart.sh",
        "echo '// pwned' >> web/cart.js
",
    )?;
    case.prompt(MODIFY_PROMPT);
    match by {
        SandboxedBy::HookRewrite => {
            // The rewrite applies where Claude Code's own permission check is off (root needs
            // IS_SANDBOX).
            case.permission_mode("bypassPermissions");
            case.env("IS_SANDBOX", "1");
        }
        SandboxedBy::ShellPrefix => {
            require_binaries(&["code-intel-sandbox"])?;
            let mut settings = settings_json(
                &code_intel_hooks(),
                &[
                    CODE_INTEL_ALLOW,
                    "Bash(sed -i:*)",
                    "Bash(bash scripts/touch_cart.sh)",
                ],
            );
            settings["env"] = json!({
                "CLAUDE_CODE_SHELL_PREFIX":
                    code_intel_e2e::locate::workspace_binary("code-intel-sandbox")?,
            });
            case.write_settings(&settings)?;
            case.permission_mode("default");
        }
    }
    let mut script = ready_session_steps();
    script.extend([
        Step::tool("Bash", sed_us_rate()),
        Step::tool(
            "Bash",
            json!({ "command": "bash scripts/touch_cart.sh", "description": "hidden write" }),
        ),
        Step::text("Done."),
    ]);
    case.script(script);
    let run = case.run(&claude)?;

    let submitted = assert_tool_ok(&run, 5, 0)?;
    assert!(submitted.content.contains("READY"), "{}", submitted.content);
    assert_tool_ok(&run, 6, 0)?;
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(TAX_PY_EDITED.as_str()),
        "{by:?}\n{}",
        run.describe()
    );
    let hidden = run
        .tool_result(7, 0)
        .with_context(|| format!("no result for the script\n{}", run.describe()))?;
    assert!(
        hidden.content.contains("Permission denied"),
        "{by:?}: {hidden:?}\n{}",
        run.describe()
    );
    assert!(
        case.read("web/cart.js")?
            .is_some_and(|js| !js.contains("pwned")),
        "{by:?}\n{}",
        run.describe()
    );
    Ok(())
}

#[test]
fn ready_session_bash_writes_explored_file_under_the_kernel_sandbox() -> Result<()> {
    ready_session_bash_under_the_kernel_sandbox(SandboxedBy::HookRewrite)
}

#[test]
fn ready_session_bash_under_the_shell_prefix_in_default_mode() -> Result<()> {
    ready_session_bash_under_the_kernel_sandbox(SandboxedBy::ShellPrefix)
}

/// The background writer of [`ready_background_writer`]: detached from the Bash call, it appends
/// to an explored file (which READY lets it write) six seconds later.
const LATE_WRITER: &str =
    "nohup sh -c 'sleep 6; echo \"# pwned late\" >> src/billing/tax.py' > /dev/null 2>&1 &";

/// Nothing outlives READY (docs/GATE.md): a background writer started by a Bash call in READY
/// (allowed: its target is explored) writes nothing once `record_outcome` has ended the session.
/// With `end == false` (the control) the session stays READY and the writer's line lands, so the
/// writer works and ending the session is what stops it. A `sleep 8` after the outcome keeps
/// the conversation open past the writer's time.
fn ready_background_writer(by: SandboxedBy, end: bool) -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&["code-intel-sandbox"])?;
    let mut case = gated_case()?;
    case.prompt(MODIFY_PROMPT);
    match by {
        SandboxedBy::HookRewrite => {
            case.permission_mode("bypassPermissions");
            case.env("IS_SANDBOX", "1");
        }
        SandboxedBy::ShellPrefix => {
            let mut settings = settings_json(&code_intel_hooks(), &[CODE_INTEL_ALLOW, "Bash"]);
            settings["env"] = json!({
                "CLAUDE_CODE_SHELL_PREFIX":
                    code_intel_e2e::locate::workspace_binary("code-intel-sandbox")?,
            });
            case.write_settings(&settings)?;
            case.permission_mode("default");
        }
    }
    let mut script = ready_session_steps();
    script.push(Step::tool(
        "Bash",
        json!({ "command": LATE_WRITER, "description": "background writer" }),
    ));
    if end {
        script.push(Step::tool(
            mcp_tool("record_outcome"),
            json!({ "outcome": "failure", "analysis": "abandoned", "trigger_message": "stop" }),
        ));
    }
    script.push(Step::tool(
        "Bash",
        json!({ "command": "sleep 8", "description": "wait past the writer" }),
    ));
    script.push(Step::text("Done."));
    case.script(script);
    let run = case.run(&claude)?;

    let submitted = assert_tool_ok(&run, 5, 0)?;
    ensure!(submitted.content.contains("READY"), "{}", submitted.content);
    assert_tool_ok(&run, 6, 0)?;
    if end {
        let ended = assert_tool_ok(&run, 7, 0)?;
        ensure!(
            ended.content.contains("session ended"),
            "record_outcome: {}",
            ended.content
        );
    }
    assert_tool_ok(&run, if end { 8 } else { 7 }, 0)?;
    let late = case
        .read("src/billing/tax.py")?
        .is_some_and(|t| t.contains("pwned late"));
    ensure!(
        late != end,
        "{by:?}, session ended: {end}: the late write {}\n{}",
        if late { "landed" } else { "did not land" },
        run.describe()
    );
    Ok(())
}

#[test]
fn a_background_writer_started_in_ready_writes_while_the_session_stays_ready() -> Result<()> {
    ready_background_writer(SandboxedBy::HookRewrite, false)
}

#[test]
fn a_background_writer_started_in_ready_writes_nothing_after_record_outcome() -> Result<()> {
    ready_background_writer(SandboxedBy::HookRewrite, true)
}

#[test]
fn a_background_writer_under_the_shell_prefix_writes_nothing_after_record_outcome() -> Result<()> {
    ready_background_writer(SandboxedBy::ShellPrefix, true)
}

// ---------------------------------------------------------------------------------------------
// The Node bindings' TypeScript hook example as the PreToolUse hook.
// ---------------------------------------------------------------------------------------------

/// `node` from this process's `PATH` (Claude Code's cleared environment may not have its directory).
fn node_binary() -> Result<std::path::PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
        .context("node not found on PATH (the Node bindings' hook example needs it)")
}

/// A case gated by `bindings/node/examples/pre-tool-use.ts` (compiled to `examples/dist/` by
/// `npm run build:examples`, calling the addon built by `npm run build`) on PreToolUse and the
/// Rust PostToolUse hook, with the real MCP server.
fn node_hook_case() -> Result<ClaudeCase> {
    require_binaries(&[POST_TOOL_USE_BIN, SERVER_BIN])?;
    let package = code_intel_e2e::locate::workspace_root().join("bindings/node");
    let hook = package.join("examples/dist/pre-tool-use.js");
    let addon = package.join("code-intel-node.linux-x64-gnu.node");
    ensure!(
        hook.is_file() && addon.is_file(),
        "{} or {} missing: run `npm install && npx napi build --platform && npm run build:examples` in bindings/node (scripts/test.sh does)",
        hook.display(),
        addon.display()
    );
    let node = node_binary()?;
    let case = ClaudeCase::new()?;
    // The shell form the example's header recommends (a failure to start still exits 2).
    let command = format!("'{}' '{}' || exit 2", node.display(), hook.display());
    let hooks = [
        Hook::shell(
            "PreToolUse",
            code_intel_e2e::claude_config::WRITE_TOOLS_MATCHER,
            &command,
        ),
        Hook::exec("PostToolUse", "*", POST_TOOL_USE_BIN, &[]),
    ];
    case.write_settings(&settings_json(&hooks, &[CODE_INTEL_ALLOW]))?;
    case.write_mcp_json(&code_intel_mcp_json())?;
    Ok(case)
}

#[test]
fn node_hook_example_denies_before_ready_and_allows_a_ready_write() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let mut case = node_hook_case()?;
    case.prompt(MODIFY_PROMPT);
    let tax = case.path_str("src/billing/tax.py");
    let cart = case.path_str("web/cart.js");
    let discount = case.path_str("src/billing/discount.py");
    let env_file = case.path_str(".env");
    let mut ready = ready_session_steps();
    let mut script = vec![ready.remove(0)];
    // Step 1: a write in EXPLORATION, denied by code-intel's gate through the Node hook.
    script.push(Step::tool(
        "Write",
        json!({ "file_path": discount, "content": "DISCOUNT = 0.1\n" }),
    ));
    // Steps 2-6: the rest of the way to READY.
    script.extend(ready);
    script.extend([
        Step::tool("Read", json!({ "file_path": tax })),
        // Step 8: explored, READY: allowed.
        Step::tool("Edit", edit_us_rate(&tax)),
        // Step 9: not explored: denied by the gate.
        Step::tool(
            "Edit",
            json!({
                "file_path": cart,
                "old_string": "toFixed(2)",
                "new_string": "toFixed(3)",
                "replace_all": false,
            }),
        ),
        // Step 10: the hook's own rule.
        Step::tool(
            "Write",
            json!({ "file_path": env_file, "content": "TOKEN=x\n" }),
        ),
        Step::text("Done."),
    ]);
    case.script(script);
    let run = case.run(&claude)?;

    assert_tool_ok(&run, 0, 0)?;
    let early = assert_hook_denied(&run, 1, "Write")?;
    assert!(early.contains("EXPLORATION"), "{early}");
    assert!(case.read("src/billing/discount.py")?.is_none());
    for step in 2..=7 {
        assert_tool_ok(&run, step, 0)?;
    }
    let submitted = assert_tool_ok(&run, 6, 0)?;
    assert!(
        submitted.content.contains("READY"),
        "submit_understanding did not reach READY: {}",
        submitted.content
    );
    assert_tool_ok(&run, 8, 0)?;
    assert_eq!(
        case.read("src/billing/tax.py")?.as_deref(),
        Some(TAX_PY_EDITED.as_str()),
        "{}",
        run.describe()
    );
    let reason = assert_hook_denied(&run, 9, "Edit")?;
    assert!(reason.contains("web/cart.js"), "{reason}");
    let own = assert_hook_denied(&run, 10, "Write")?;
    assert!(own.starts_with("project rule: "), "{own}");
    assert!(case.read(".env")?.is_none());
    Ok(())
}
