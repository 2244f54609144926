//! The kernel sandbox through Claude Code's shell prefix, in `default` permission mode: real
//! Claude Code (pinned 2.1.328, offline, scripted by the fake Messages API), real hooks, MCP
//! server and `code-intel-sandbox`, installed by the real `code-intel init`. Ground truth = the
//! files on disk.
//!
//! A script of the repository (which the static analysis trusts) appends to a source file, before
//! and after `start_session` and once in the background: in the control run (the same install
//! without `CLAUDE_CODE_SHELL_PREFIX`) it writes each time; with the prefix the kernel refuses it. `ls` runs without an allow rule (Claude Code's auto-approval of
//! read-only commands survives the prefix), and the hooks and the MCP server, which Claude Code
//! also starts through the prefix, still write the session state (`start_session` works, the
//! PostToolUse hook records the read).
//!
//! [`claude_code_hands_the_prefix_what_the_launcher_expects`] pins, with a logging prefix, what
//! the launcher relies on in the pinned Claude Code (one argument; the Bash line's shape and
//! environment; hook and server lines as configured; exec-form hooks not prefixed).
//!
//! Needs `scripts/install-claude-code.sh` and `cargo build --workspace --bins` first.

use anyhow::{Context, Result, ensure};
use code_intel_e2e::claude_config::{POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN};
use code_intel_e2e::learning::init_project;
use code_intel_e2e::locate::workspace_binary;
use code_intel_e2e::{ClaudeCase, ClaudeRun, Step, locate_claude, mcp_tool, require_binaries};
use serde_json::{Value, json};

/// The script the parser trusts (a file of the repository) and the file it appends to.
const SCRIPT: &str = "scripts/build.sh";
const TARGET: &str = "src/billing/report.py";

fn bash(command: &str) -> Step {
    Step::tool(
        "Bash",
        json!({ "command": command, "description": "shell prefix e2e" }),
    )
}

/// A project installed by `code-intel init`, the script in place, `default` permission mode,
/// and allow rules for the script and `sleep` (so Claude Code's own check lets them run; `ls`
/// gets none).
/// Without `prefix`, `CLAUDE_CODE_SHELL_PREFIX` is removed from what init wrote.
fn installed_case(prefix: bool) -> Result<ClaudeCase> {
    require_binaries(&[
        PRE_TOOL_USE_BIN,
        POST_TOOL_USE_BIN,
        SERVER_BIN,
        "code-intel-sandbox",
    ])?;
    let mut case = ClaudeCase::new()?;
    case.write(SCRIPT, &format!("echo '# pwned' >> {TARGET}\n"))?;
    init_project(&workspace_binary(SERVER_BIN)?, case.project_dir()).map_err(anyhow::Error::msg)?;
    let settings_path = case.path(".claude/settings.json");
    let mut settings: Value = serde_json::from_str(&std::fs::read_to_string(&settings_path)?)?;
    let allow = settings
        .pointer_mut("/permissions/allow")
        .and_then(Value::as_array_mut)
        .context("init wrote no permissions.allow")?;
    allow.push(json!(format!("Bash(bash {SCRIPT})")));
    allow.push(json!("Bash(sleep 1)"));
    std::fs::write(&settings_path, serde_json::to_string_pretty(&settings)?)?;
    let local_path = case.path(".claude/settings.local.json");
    let mut local: Value = serde_json::from_str(
        &std::fs::read_to_string(&local_path).context("init wrote no settings.local.json")?,
    )?;
    let written = local
        .pointer("/env/CLAUDE_CODE_SHELL_PREFIX")
        .and_then(Value::as_str)
        .context("init set no CLAUDE_CODE_SHELL_PREFIX")?;
    ensure!(
        written == workspace_binary("code-intel-sandbox")?.to_string_lossy(),
        "init set CLAUDE_CODE_SHELL_PREFIX to {written}"
    );
    if !prefix {
        if let Some(env) = local.get_mut("env").and_then(Value::as_object_mut) {
            env.remove("CLAUDE_CODE_SHELL_PREFIX");
        }
        std::fs::write(&local_path, serde_json::to_string_pretty(&local)?)?;
    }
    case.permission_mode("default");
    case.script(vec![
        bash("ls src"),
        bash(&format!("bash {SCRIPT}")),
        Step::tool(
            mcp_tool("start_session"),
            json!({ "intent": "MODIFY", "query": "Fix the rounding of the report totals" }),
        ),
        Step::tool("Read", json!({ "file_path": case.path_str(TARGET) })),
        bash("ls src/billing"),
        bash(&format!("bash {SCRIPT}")),
        // A background command goes through the prefix as well.
        Step::tool(
            "Bash",
            json!({ "command": format!("bash {SCRIPT}"), "description": "background", "run_in_background": true }),
        ),
        bash("sleep 1"),
        Step::text("Done."),
    ]);
    Ok(case)
}

fn result_text(run: &ClaudeRun, step: usize) -> Result<String> {
    run.tool_result(step, 0)
        .map(|r| r.content)
        .with_context(|| format!("no result for step {step}\n{}", run.describe()))
}

#[test]
fn bash_runs_under_the_kernel_sandbox_in_default_mode() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };

    // Control: the same install without the prefix. The script's write lands (the static
    // analysis does not see it), so the refusal below is the kernel's.
    let control = installed_case(false)?;
    let run = control.run(&claude)?;
    ensure!(
        control
            .read(TARGET)?
            .is_some_and(|t| t.matches("pwned").count() == 3),
        "control: the script did not write {TARGET} three times\n{}",
        run.describe()
    );

    let case = installed_case(true)?;
    let run = case.run(&claude)?;
    let original = ClaudeCase::new()?.read(TARGET)?;
    ensure!(
        case.read(TARGET)? == original,
        "{TARGET} changed under the sandbox\n{}",
        run.describe()
    );
    ensure!(run.permission_denials().is_empty(), "{}", run.describe());
    // `ls` ran, without an allow rule and without a prompt, before and after the session, and
    // succeeded (Claude Code's working-directory file in /tmp, which holds this repository,
    // was written).
    for (step, listed) in [(0, "billing"), (4, "report.py")] {
        let ls = run
            .tool_result(step, 0)
            .with_context(|| format!("no result for step {step}\n{}", run.describe()))?;
        ensure!(
            !ls.is_error && ls.content.contains(listed),
            "step {step}: {ls:?}\n{}",
            run.describe()
        );
    }
    for step in [1, 5] {
        let text = result_text(&run, step)?;
        ensure!(
            text.contains("Permission denied"),
            "step {step}: {text}\n{}",
            run.describe()
        );
    }
    // The server wrote its session and the PostToolUse hook its record of the Read: both run
    // through the prefix too, unconfined.
    let started = result_text(&run, 2)?;
    ensure!(
        started.contains("session_id"),
        "{started}\n{}",
        run.describe()
    );
    let sessions: Vec<_> = std::fs::read_dir(case.path(".code-intel/sessions"))?
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()))
        .collect::<Result<_, _>>()?;
    ensure!(
        sessions.iter().any(|s| s.contains(TARGET)),
        "no session recorded the Read of {TARGET}: {sessions:?}\n{}",
        run.describe()
    );
    Ok(())
}

/// A prefix that records each invocation in `$LOG/<pid>.{args,env,parent,cwd}` (the arguments
/// NUL-separated, the environment, the parent's pid and name, its own and the parent's working
/// directory), then runs its one argument as Claude Code would have (`bash -c`).
const LOGGING_PREFIX: &str = r#"#!/bin/bash
printf '%s\0' "$@" > "$LOG/$$.args"
env > "$LOG/$$.env"
printf '%s %s' "$PPID" "$(cat /proc/$PPID/comm)" > "$LOG/$$.parent"
printf '%s\0%s' "$(pwd -P)" "$(readlink /proc/$PPID/cwd)" > "$LOG/$$.cwd"
exec bash -c "$1"
"#;

/// One recorded invocation of [`LOGGING_PREFIX`].
#[derive(Debug)]
struct Invocation {
    args: Vec<String>,
    env: Vec<(String, String)>,
    parent_pid: String,
    parent_name: String,
    cwd: String,
    parent_cwd: String,
}

impl Invocation {
    fn var(&self, key: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn invocations(log: &std::path::Path) -> Result<Vec<Invocation>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(log)? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "args") {
            continue;
        }
        let args = std::fs::read_to_string(&path)?;
        let env = std::fs::read_to_string(path.with_extension("env"))?;
        let parent = std::fs::read_to_string(path.with_extension("parent"))?;
        let (parent_pid, parent_name) = parent.split_once(' ').unwrap_or((&parent, ""));
        let cwds = std::fs::read_to_string(path.with_extension("cwd"))?;
        let (cwd, parent_cwd) = cwds.split_once('\0').unwrap_or((&cwds, ""));
        out.push(Invocation {
            args: args
                .strip_suffix('\0')
                .unwrap_or(&args)
                .split('\0')
                .map(str::to_owned)
                .collect(),
            env: env
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            parent_pid: parent_pid.to_owned(),
            parent_name: parent_name.to_owned(),
            cwd: cwd.to_owned(),
            parent_cwd: parent_cwd.to_owned(),
        });
    }
    Ok(out)
}

/// What the launcher relies on, observed with the pinned Claude Code (docs/GATE.md, "The shell
/// prefix"), so that an update that changes it fails here rather than in the field: one argument
/// each time; a Bash command as Claude Code's wrapped line ending in `pwd -P >|
/// /tmp/claude-<hex>-cwd`, with the session id and Claude Code's pid (its parent) but no
/// `CLAUDE_PROJECT_DIR`, and after a `cd` the command's directory moves while Claude Code's stays
/// the project (the launcher's project); a shell-form hook and the MCP server as their configured
/// lines, with `CLAUDE_PROJECT_DIR`; exec-form hooks not prefixed; all this in `default` mode,
/// from the `env` of `.claude/settings.json`, with `ls` needing no rule.
#[test]
fn claude_code_hands_the_prefix_what_the_launcher_expects() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[SERVER_BIN])?;
    let mut case = ClaudeCase::new()?;
    let log = case.case_dir().join("prefix-log");
    std::fs::create_dir_all(&log)?;
    let prefix = case.write_script("logging-prefix", LOGGING_PREFIX)?;
    let hook = case.write_script(
        "logging-hook",
        "#!/bin/sh\ncat > /dev/null\necho \"$1 $CLAUDE_CODE_SESSION_ID\" >> \"$LOG/hooks.txt\"\n",
    )?;
    let hook = hook.to_string_lossy().into_owned();
    let pre_line = format!("{hook} pre");
    let settings = json!({
        "env": { "CLAUDE_CODE_SHELL_PREFIX": prefix, "LOG": log },
        "permissions": { "allow": [code_intel_e2e::claude_config::CODE_INTEL_ALLOW] },
        "hooks": {
            "PreToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": pre_line }] }],
            "PostToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": hook, "args": ["post"] }] }],
        },
    });
    case.write_settings(&settings)?;
    case.write_mcp_json(&code_intel_e2e::code_intel_mcp_json())?;
    case.permission_mode("default");
    case.script(vec![
        bash("ls src"),
        bash("cd src"),
        bash("ls"),
        Step::text("Done."),
    ]);
    let run = case.run(&claude)?;

    let ls = run
        .tool_result(0, 0)
        .with_context(|| format!("no result for ls\n{}", run.describe()))?;
    ensure!(
        !ls.is_error && ls.content.contains("billing"),
        "{ls:?}\n{}",
        run.describe()
    );
    let hooks = std::fs::read_to_string(log.join("hooks.txt"))?;
    let session = hooks
        .lines()
        .find_map(|l| l.strip_prefix("pre "))
        .context("the PreToolUse hook did not run")?;
    ensure!(
        hooks.lines().any(|l| l.starts_with("post ")),
        "the exec-form PostToolUse hook did not run: {hooks}"
    );
    let calls = invocations(&log)?;
    ensure!(
        calls.iter().all(|c| c.args.len() == 1),
        "not one argument each: {calls:#?}"
    );
    let line = |c: &Invocation| c.args[0].clone();

    let bash_call = calls
        .iter()
        .find(|c| line(c).contains("eval 'ls src'"))
        .with_context(|| format!("no prefixed Bash command: {calls:#?}"))?;
    let bash_line = line(bash_call);
    let tail = bash_line
        .rsplit_once(" && pwd -P >| ")
        .map(|(_, t)| t)
        .with_context(|| format!("Bash line without the cwd tail: {bash_line}"))?;
    let name = std::path::Path::new(tail)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    ensure!(
        tail.starts_with('/')
            && name.starts_with("claude-")
            && name.ends_with("-cwd")
            && name[7..name.len() - 4]
                .bytes()
                .all(|b| b.is_ascii_hexdigit()),
        "cwd file {tail}"
    );
    ensure!(
        bash_call.var("CLAUDE_PROJECT_DIR").is_none(),
        "a Bash command got CLAUDE_PROJECT_DIR: {bash_call:#?}"
    );
    ensure!(
        bash_call.var("CLAUDE_CODE_SESSION_ID") == Some(session),
        "session id {:?} vs the hook's {session}",
        bash_call.var("CLAUDE_CODE_SESSION_ID")
    );
    ensure!(
        bash_call.var("CLAUDE_PID") == Some(bash_call.parent_pid.as_str())
            && bash_call.parent_name == "claude",
        "CLAUDE_PID {:?}, parent {} {}",
        bash_call.var("CLAUDE_PID"),
        bash_call.parent_pid,
        bash_call.parent_name
    );

    let hook_call = calls
        .iter()
        .find(|c| line(c) == pre_line)
        .with_context(|| {
            format!("the shell-form hook was not prefixed as configured: {calls:#?}")
        })?;
    ensure!(hook_call.var("CLAUDE_PROJECT_DIR").is_some());
    ensure!(
        !calls.iter().any(|c| line(c).contains(" post")),
        "an exec-form hook was prefixed: {calls:#?}"
    );
    let project = std::fs::canonicalize(case.project_dir())?;
    let project = project.to_string_lossy();
    ensure!(
        bash_call.cwd == project && bash_call.parent_cwd == project,
        "{bash_call:#?}"
    );
    let after_cd = calls
        .iter()
        // Quoted only when needed: `eval ls < /dev/null && …` (observed).
        .find(|c| line(c).contains("eval ls <"))
        .with_context(|| {
            let lines: Vec<String> = calls.iter().map(line).collect();
            format!("no prefixed `ls` after `cd src`: {lines:#?}")
        })?;
    ensure!(
        after_cd.cwd == format!("{project}/src") && after_cd.parent_cwd == project,
        "after `cd src` the command should run in src and Claude Code stay in the project: {after_cd:#?}"
    );
    let server = calls
        .iter()
        .find(|c| line(c) == "code-intel serve")
        .with_context(|| format!("the MCP server was not prefixed as one line: {calls:#?}"))?;
    ensure!(server.var("CLAUDE_PROJECT_DIR").is_some());
    Ok(())
}
