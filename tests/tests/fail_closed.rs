//! The installed PreToolUse hook fails closed in real Claude Code (pinned 2.1.328, offline, the
//! fake Messages API): `"onFailure": "block"` makes a hook that runs past its timeout, or cannot
//! start, block the call, where without it Claude Code runs the tool (CLAUDE_CODE.md §2.5).
//!
//! The hook is the real debug binary as `code-intel init` installs it; `CODE_INTEL_HOOK_FAULT=hang`
//! (compiled into debug builds only) makes it hang until its own watchdog answers after 2 s, so a
//! hook timeout of 1 s is passed first. Each case has its control: the same configuration without
//! `onFailure`, where the Write lands. Ground truth = the file on disk.
//!
//! Needs `scripts/install-claude-code.sh` and `cargo build --workspace --bins` first.

use anyhow::{Context as _, Result, ensure};
use code_intel_e2e::claude_config::{POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN};
use code_intel_e2e::learning::init_project;
use code_intel_e2e::{
    ClaudeCase, ClaudeRun, Hook, Step, locate_claude, require_binaries, settings_json,
    workspace_binary,
};
use serde_json::{Value, json};

const TARGET: &str = "src/billing/discount.py";

fn write_script(case: &ClaudeCase) -> Vec<Step> {
    vec![
        Step::tool(
            "Write",
            json!({ "file_path": case.path_str(TARGET), "content": "DISCOUNT = 0.1\n" }),
        ),
        Step::text("Done."),
    ]
}

/// The PreToolUse handler `init` wrote into `.claude/settings.json`, for editing.
fn pre_tool_use_handler(settings: &mut Value) -> Result<&mut Value> {
    settings
        .pointer_mut("/hooks/PreToolUse")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .flat_map(|g| {
            g.get_mut("hooks")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
        })
        .find(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.ends_with(PRE_TOOL_USE_BIN))
        })
        .context("init wrote no PreToolUse handler")
}

/// A blocked Write: nothing on disk, an error tool result naming the failure and onFailure.
fn assert_blocked(case: &ClaudeCase, run: &ClaudeRun, failure: &str) -> Result<()> {
    ensure!(
        case.read(TARGET)?.is_none(),
        "the Write landed\n{}",
        run.describe()
    );
    let result = run
        .tool_result(0, 0)
        .with_context(|| format!("no result for the Write\n{}", run.describe()))?;
    ensure!(
        result.is_error
            && result.content.starts_with("PreToolUse:Write hook error")
            && result.content.contains(failure)
            && result.content.contains("onFailure"),
        "{result:?}\n{}",
        run.describe()
    );
    Ok(())
}

#[test]
fn a_pre_tool_use_hook_past_its_timeout_blocks_the_call_as_installed() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN])?;
    for fail_closed in [false, true] {
        let mut case = ClaudeCase::new()?;
        init_project(&workspace_binary(SERVER_BIN)?, case.project_dir())
            .map_err(anyhow::Error::msg)?;
        let path = case.path(".claude/settings.json");
        let mut settings: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let handler = pre_tool_use_handler(&mut settings)?;
        ensure!(
            handler["onFailure"] == "block" && handler["args"] == json!([]),
            "init did not install the fail-closed exec form: {handler}"
        );
        // Below the hook's own 2 s watchdog, so Claude Code's timeout comes first.
        handler["timeout"] = json!(1);
        if !fail_closed && let Some(h) = handler.as_object_mut() {
            h.remove("onFailure");
        }
        std::fs::write(&path, serde_json::to_string_pretty(&settings)?)?;
        case.env("CODE_INTEL_HOOK_FAULT", "hang");
        case.script(write_script(&case));
        let run = case.run(&claude)?;
        if fail_closed {
            assert_blocked(&case, &run, "timed out")?;
        } else {
            ensure!(
                case.read(TARGET)?.is_some(),
                "control: without onFailure a hook past its timeout should let the Write through\n{}",
                run.describe()
            );
        }
    }
    Ok(())
}

#[test]
fn a_missing_hook_binary_blocks_the_call_in_the_exec_form_with_on_failure() -> Result<()> {
    // The exec form has no shell to turn "not found" into exit 2; onFailure does that.
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    const ABSENT: &str = "code-intel-pre-tool-use-not-installed";
    for fail_closed in [false, true] {
        let hook = Hook::exec("PreToolUse", "*", ABSENT, &[]);
        let hook = if fail_closed {
            hook.fail_closed()
        } else {
            hook
        };
        let mut case = ClaudeCase::new()?;
        case.write_settings(&settings_json(&[hook], &[]))?;
        case.script(write_script(&case));
        let run = case.run(&claude)?;
        if fail_closed {
            assert_blocked(&case, &run, "failed")?;
        } else {
            ensure!(
                case.read(TARGET)?.is_some(),
                "control: the plain exec form with a missing binary should let the Write through\n{}",
                run.describe()
            );
        }
    }
    Ok(())
}
