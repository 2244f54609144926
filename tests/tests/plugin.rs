//! The repository root as a Claude Code plugin (`.claude-plugin/plugin.json`, `hooks/hooks.json`,
//! `skills/`): `claude plugin validate --strict` accepts it; every tool the skills name exists on
//! the real server (listed over MCP stdio), so a renamed tool breaks this test; and in real Claude
//! Code with `--plugin-dir`, bare `/code` expands the skill, the plugin's hook denies a Write and the
//! plugin's server answers under its scoped tool names.
//!
//! Needs `scripts/install-claude-code.sh` (or `CODE_INTEL_CLAUDE`) for the Claude Code parts and
//! `cargo build --workspace` first.

use std::collections::BTreeSet;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context as _, Result, bail, ensure};
use code_intel_e2e::claude_config::{POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN};
use code_intel_e2e::locate::workspace_root;
use code_intel_e2e::{
    ClaudeCase, ClaudeRun, Step, locate_claude, require_binaries, tool_use_id, workspace_binary,
};
use serde_json::{Value, json};

/// Tool name prefix of the plugin's server (`mcp__plugin_<plugin>_<server>__`, CLAUDE_CODE.md §5).
const PLUGIN_PREFIX: &str = "mcp__plugin_code-intel_code-intel__";
const SKILLS: [&str; 2] = ["code", "outcome"];

fn read(rel: &str) -> Result<String> {
    let path = workspace_root().join(rel);
    std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
}

/// Runs `claude` with a fresh HOME and config directory, offline.
fn claude_command(claude: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(claude);
    cmd.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", home.join("config"))
        .env("TERM", "dumb")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1");
    cmd
}

#[test]
fn claude_plugin_validate_strict_accepts_the_repository() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    let home = tempfile::tempdir()?;
    let out = claude_command(&claude, home.path())
        .args(["plugin", "validate", "--strict", "--json"])
        .arg(workspace_root())
        .output()
        .context("running claude plugin validate")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&stdout).with_context(|| {
        format!(
            "no JSON report: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    ensure!(
        out.status.success() && report["success"] == true,
        "validation failed: {report:#}"
    );
    let provides = &report["provides"];
    let skills: BTreeSet<&str> = provides["skills"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    ensure!(
        skills == BTreeSet::from(["code-intel:code", "code-intel:outcome"]),
        "{provides:#}"
    );
    let hooks: BTreeSet<(String, String, String)> = provides["hooks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            (
                h["event"].to_string(),
                h["command"].to_string(),
                h["args"].to_string(),
            )
        })
        .collect();
    let hook = |event: &str, bin: &str, args: Value| {
        (
            json!(event).to_string(),
            json!(bin).to_string(),
            args.to_string(),
        )
    };
    ensure!(
        hooks
            == BTreeSet::from([
                hook(
                    "SessionStart",
                    "code-intel-sandbox",
                    json!(["--session-start"])
                ),
                hook("PreToolUse", PRE_TOOL_USE_BIN, json!([])),
                hook("PostToolUse", POST_TOOL_USE_BIN, json!([])),
            ]),
        "{provides:#}"
    );
    ensure!(
        provides["mcpServers"]
            == json!([{ "name": "code-intel", "type": "stdio", "target": SERVER_BIN, "args": ["serve"] }]),
        "{provides:#}"
    );
    Ok(())
}

#[test]
fn manifest_version_and_hooks_match_the_workspace() -> Result<()> {
    let manifest: Value = serde_json::from_str(&read(".claude-plugin/plugin.json")?)?;
    ensure!(manifest["name"] == "code-intel", "{manifest}");
    ensure!(
        manifest["version"] == env!("CARGO_PKG_VERSION"),
        "plugin.json version {} != workspace version {}",
        manifest["version"],
        env!("CARGO_PKG_VERSION")
    );
    let server = &manifest["mcpServers"]["code-intel"];
    ensure!(
        server["command"] == SERVER_BIN && server["args"] == json!(["serve"]),
        "{server}"
    );
    ensure!(
        server["env"]["CODE_INTEL_PROJECT"] == "${CLAUDE_PROJECT_DIR}",
        "{server}"
    );
    // The plugin's hooks are the project install's (`code-intel init` writes the same handlers:
    // exec form, the PreToolUse one fail-closed), plus the SessionStart line for the sandbox.
    let hooks: Value = serde_json::from_str(&read("hooks/hooks.json")?)?;
    let pre = &hooks["hooks"]["PreToolUse"][0];
    ensure!(
        pre["matcher"] == "*"
            && pre["hooks"][0]["command"] == PRE_TOOL_USE_BIN
            && pre["hooks"][0]["args"] == json!([])
            && pre["hooks"][0]["onFailure"] == "block",
        "{hooks:#}"
    );
    let post = &hooks["hooks"]["PostToolUse"][0];
    ensure!(
        post["matcher"] == "*" && post["hooks"][0]["command"] == POST_TOOL_USE_BIN,
        "{hooks:#}"
    );
    // The marketplace lists this plugin from the repository root, at the workspace version.
    let market: Value = serde_json::from_str(&read(".claude-plugin/marketplace.json")?)?;
    let listed = &market["plugins"][0];
    ensure!(
        market["name"] == "code-intel"
            && listed["name"] == "code-intel"
            && listed["source"] == "./"
            && listed["version"] == env!("CARGO_PKG_VERSION"),
        "{market:#}"
    );
    Ok(())
}

/// The tool names (`<tool>`) a skill text uses with the plugin prefix, and every `mcp__` name in it.
fn named_tools(text: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
            .collect()
    };
    let scoped = text.split(PLUGIN_PREFIX).skip(1).map(ident).collect();
    let all = text
        .split("mcp__")
        .skip(1)
        .map(|s| format!("mcp__{}", ident(s)))
        .collect();
    (scoped, all)
}

/// The `allowed-tools` entries of a skill's frontmatter (a YAML list, one `- name` per line).
fn allowed_tools(text: &str) -> Result<BTreeSet<String>> {
    let front = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(f, _)| f)
        .context("no frontmatter")?;
    let mut lines = front
        .lines()
        .skip_while(|l| !l.starts_with("allowed-tools:"));
    ensure!(lines.next().is_some(), "no allowed-tools in {front}");
    Ok(lines
        .map_while(|l| l.trim_start().strip_prefix("- "))
        .map(|s| s.trim().to_owned())
        .collect())
}

/// The server's tool names, listed over MCP stdio from the built binary (no model: the tool list
/// does not depend on it).
fn server_tools() -> Result<BTreeSet<String>> {
    let bin = workspace_binary(SERVER_BIN)?;
    let repo = tempfile::tempdir()?;
    std::fs::create_dir_all(repo.path().join(".git"))?;
    let mut child = Command::new(&bin)
        .arg("serve")
        .current_dir(repo.path())
        .env("CODE_INTEL_PROJECT", repo.path())
        .env("CODE_INTEL_EMBEDDINGS", "off")
        .env("CODE_INTEL_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("spawning {}", bin.display()))?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let stdout = child.stdout.take().context("stdout")?;
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let mut send = |msg: Value| -> Result<()> {
        writeln!(stdin, "{msg}")?;
        stdin.flush()?;
        Ok(())
    };
    let answer = |id: i64| -> Result<Value> {
        loop {
            let msg = rx
                .recv_timeout(Duration::from_secs(60))
                .context("the server did not answer within 60 s")?;
            if msg["id"] == id {
                if let Some(err) = msg.get("error") {
                    bail!("JSON-RPC error: {err}");
                }
                return Ok(msg["result"].clone());
            }
        }
    };
    send(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "code-intel-plugin-test", "version": "0" } } }),
    )?;
    answer(1)?;
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))?;
    let mut names = BTreeSet::new();
    let mut cursor: Option<Value> = None;
    for id in 2.. {
        let params = cursor
            .take()
            .map_or_else(|| json!({}), |c| json!({ "cursor": c }));
        send(json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params }))?;
        let page = answer(id)?;
        names.extend(
            page["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["name"].as_str().map(str::to_owned)),
        );
        match page.get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => break,
        }
    }
    drop(stdin);
    child.kill().ok();
    child.wait().ok();
    ensure!(
        names.contains("start_session"),
        "implausible tool list {names:?}"
    );
    Ok(names)
}

#[test]
fn every_tool_the_skills_name_exists_on_the_server() -> Result<()> {
    require_binaries(&[SERVER_BIN])?;
    let tools = server_tools()?;
    for skill in SKILLS {
        let text = read(&format!("skills/{skill}/SKILL.md"))?;
        ensure!(
            text.contains(&format!("\nname: {skill}\n")),
            "skills/{skill}/SKILL.md needs `name: {skill}` for a bare /{skill}"
        );
        let (scoped, all) = named_tools(&text);
        let wrong_prefix: Vec<&String> = all
            .iter()
            .filter(|n| !n.starts_with(PLUGIN_PREFIX))
            .collect();
        ensure!(
            wrong_prefix.is_empty(),
            "skills/{skill}/SKILL.md names tools without the plugin prefix {PLUGIN_PREFIX}: {wrong_prefix:?}"
        );
        let unknown: Vec<&String> = scoped.iter().filter(|n| !tools.contains(*n)).collect();
        ensure!(
            unknown.is_empty(),
            "skills/{skill}/SKILL.md names tools the server does not have: {unknown:?} (server: {tools:?})"
        );
        let allowed = allowed_tools(&text)?;
        let not_allowed: Vec<&String> = scoped
            .iter()
            .filter(|n| !allowed.contains(&format!("{PLUGIN_PREFIX}{n}")))
            .collect();
        ensure!(
            not_allowed.is_empty(),
            "skills/{skill}/SKILL.md uses tools its allowed-tools does not pre-approve: {not_allowed:?}"
        );
    }
    Ok(())
}

#[test]
fn bare_code_runs_the_plugin_skill_hook_and_server() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN])?;
    let request = "add a farewell function next to the greeting";
    let mut case = ClaudeCase::new()?;
    case.prompt(&format!("/code {request}"))
        .arg("--plugin-dir")
        .arg(&workspace_root().display().to_string());
    case.script(write_then_start(
        &case,
        &format!("{PLUGIN_PREFIX}start_session"),
        request,
    ));
    let run = case.run(&claude)?;

    // `/code <request>` reached the model as the plugin skill, with $ARGUMENTS substituted, and
    // `alwaysLoad` put the plugin's tools in the first request (not behind ToolSearch).
    let first_request = run
        .main_loop_requests()
        .first()
        .copied()
        .with_context(|| format!("no main-loop request\n{}", run.describe()))?;
    ensure!(
        first_request
            .tool_names()
            .contains(&format!("{PLUGIN_PREFIX}start_session")),
        "the plugin's tools are not offered: {:?}",
        first_request.tool_names()
    );
    let first = first_request.body.to_string();
    ensure!(
        first.contains("/code: explore first, then edit")
            && first.contains(&format!("Request: {request}")),
        "the skill body was not expanded\n{}",
        run.describe()
    );

    // The plugin's PreToolUse hook denied the Write; the plugin's server answered under its scoped
    // name, pre-approved by the skill's allowed-tools (no permission rule in the settings).
    write_denied_then_session_started(&case, &run)
}

#[test]
fn code_intel_init_installs_a_working_project_setup() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN])?;
    let request = "add a farewell function next to the greeting";
    let mut case = ClaudeCase::new()?;
    let init = Command::new(workspace_binary(SERVER_BIN)?)
        .args(["init", "--repo"])
        .arg(case.project_dir())
        .env("CODE_INTEL_LOG", "warn")
        .output()?;
    ensure!(
        init.status.success(),
        "code-intel init failed: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    case.prompt(&format!("/code {request}"));
    case.script(write_then_start(
        &case,
        "mcp__code-intel__start_session",
        request,
    ));
    let run = case.run(&claude)?;

    let first = run
        .main_loop_requests()
        .first()
        .map(|r| r.body.to_string())
        .with_context(|| format!("no main-loop request\n{}", run.describe()))?;
    ensure!(
        first.contains("/code: explore first, then edit")
            && first.contains("mcp__code-intel__start_session")
            && !first.contains(PLUGIN_PREFIX),
        "the project skill was not expanded with project tool names\n{}",
        run.describe()
    );
    write_denied_then_session_started(&case, &run)
}

/// The script of the install tests: a Write of a new file before any session, then
/// `start_session` under `start_tool` (the install mode's name).
fn write_then_start(case: &ClaudeCase, start_tool: &str, request: &str) -> Vec<Step> {
    let target = case.path_str("src/farewell.py");
    vec![
        Step::tool(
            "Write",
            json!({ "file_path": target, "content": "def farewell():\n    return 'bye'\n" }),
        ),
        Step::tool(
            start_tool,
            json!({ "intent": "IMPLEMENT", "query": request }),
        ),
        Step::text("Started."),
    ]
}

/// Checks a run of [`write_then_start`]: the installed PreToolUse hook denied the Write (nothing
/// landed) and the installed server started a session.
fn write_denied_then_session_started(case: &ClaudeCase, run: &ClaudeRun) -> Result<()> {
    let denied = run.tool_result(0, 0).context("no result for the Write")?;
    ensure!(
        denied.is_error && denied.content.starts_with("PreToolUse:Write hook error: "),
        "{denied:?}\n{}",
        run.describe()
    );
    ensure!(case.read("src/farewell.py")?.is_none(), "the Write landed");
    let started = run
        .tool_result(1, 0)
        .with_context(|| format!("no result for {}\n{}", tool_use_id(1, 0), run.describe()))?;
    ensure!(
        !started.is_error && started.content.contains("session_id"),
        "{started:?}\n{}",
        run.describe()
    );
    Ok(())
}

#[test]
fn outcome_substitutes_its_named_arguments() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN])?;
    let mut case = ClaudeCase::new()?;
    case.prompt("/outcome failure \"the farewell still prints hello\"")
        .arg("--plugin-dir")
        .arg(&workspace_root().display().to_string());
    case.script(vec![Step::text("Noted.")]);
    let run = case.run(&claude)?;
    let first = run
        .main_loop_requests()
        .first()
        .map(|r| r.body.to_string())
        .with_context(|| format!("no main-loop request\n{}", run.describe()))?;
    // `arguments: [result, notes]`: $result is the first argument, $notes the quoted second one
    // (CLAUDE_CODE.md §4).
    ensure!(
        first.contains("Result: failure")
            && first.contains("Notes: the farewell still prints hello")
            && first.contains("outcome: \\\"failure\\\""),
        "the /outcome skill was not expanded with its arguments\n{}",
        run.describe()
    );
    Ok(())
}
