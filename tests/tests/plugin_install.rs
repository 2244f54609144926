//! The plugin install path gated like `code-intel init`'s: real Claude Code (pinned 2.1.328,
//! offline, the fake Messages API), the real hooks, server and `code-intel-sandbox`.
//!
//! - Kernel sandbox under the plugin, in `default` permission mode: the plugin's SessionStart hook
//!   (`code-intel-sandbox --session-start`) puts its line into Claude Code's session environment
//!   script, which hands every Bash command line to the launcher. A repository script (which the
//!   static analysis trusts) that appends to a source file, and a write whose target is only known
//!   at run time (`t=$(…); echo … >> "$t"`, which the gate leaves to the kernel when Bash is
//!   confined), both fail with "Permission denied"; the control (the same plugin without the
//!   SessionStart hook) lets the script write and denies the run-time write statically.
//! - The marketplace: `claude plugin marketplace add <dir>` + `claude plugin install
//!   code-intel@code-intel` from a clean copy of the plugin's files (what a git clone holds), then
//!   a session without `--plugin-dir` has the gate, the server and the sandbox line.
//!
//! Needs `scripts/install-claude-code.sh` and `cargo build --workspace --bins` first.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, ensure};
use code_intel_e2e::claude_config::{POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN};
use code_intel_e2e::locate::workspace_root;
use code_intel_e2e::{ClaudeCase, ClaudeRun, Step, locate_claude, require_binaries};
use serde_json::{Value, json};

const SANDBOX_BIN: &str = "code-intel-sandbox";
const PLUGIN_PREFIX: &str = "mcp__plugin_code-intel_code-intel__";
/// A script of the repository (the static analysis trusts it) and the file it appends to.
const SCRIPT: &str = "scripts/build.sh";
const TARGET: &str = "src/billing/invoice.py";

/// The plugin's files, as a clone of the repository holds them (no `target/`: a local
/// marketplace is copied whole into Claude Code's plugin cache).
fn copy_plugin(to: &Path, with_session_start: bool) -> Result<()> {
    let root = workspace_root();
    for rel in [
        ".claude-plugin/plugin.json",
        ".claude-plugin/marketplace.json",
        "hooks/hooks.json",
        "skills/code/SKILL.md",
        "skills/outcome/SKILL.md",
        "README.md",
    ] {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().context("no parent")?)?;
        std::fs::copy(root.join(rel), &dest).with_context(|| format!("copying {rel}"))?;
    }
    if !with_session_start {
        let path = to.join("hooks/hooks.json");
        let mut hooks: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        hooks["hooks"]
            .as_object_mut()
            .context("hooks.json has no hooks")?
            .remove("SessionStart")
            .context("hooks.json has no SessionStart hook")?;
        std::fs::write(&path, serde_json::to_string_pretty(&hooks)?)?;
    }
    Ok(())
}

fn bash(command: &str) -> Step {
    Step::tool(
        "Bash",
        json!({ "command": command, "description": "plugin sandbox e2e" }),
    )
}

/// A case with the plugin from `plugin_dir`, `default` mode, Bash and the plugin's tools allowed
/// (so Claude Code's own check lets every command run; the gate and the kernel decide).
fn plugin_case(plugin_dir: &Path) -> Result<ClaudeCase> {
    let mut case = ClaudeCase::new()?;
    case.write(SCRIPT, &format!("echo '# pwned' >> {TARGET}\n"))?;
    case.write(
        ".claude/settings.json",
        &json!({ "permissions": { "allow": ["Bash", "mcp__plugin_code-intel_code-intel"] } })
            .to_string(),
    )?;
    case.permission_mode("default")
        .arg("--plugin-dir")
        .arg(&plugin_dir.display().to_string());
    case.script(vec![
        bash("ls src"),
        bash(&format!("bash {SCRIPT}")),
        bash(&format!("t=$(echo {TARGET}); echo '# late' >> \"$t\"")),
        Step::text("Done."),
    ]);
    Ok(case)
}

fn result(run: &ClaudeRun, step: usize) -> Result<(bool, String)> {
    run.tool_result(step, 0)
        .map(|r| (r.is_error, r.content))
        .with_context(|| format!("no result for step {step}\n{}", run.describe()))
}

#[test]
fn the_plugin_puts_bash_under_the_kernel_sandbox_in_default_mode() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN, SANDBOX_BIN])?;
    let original = ClaudeCase::new()?.read(TARGET)?.context("fixture")?;

    // Control: the plugin without its SessionStart hook. The script's write lands (the static
    // analysis trusts repository scripts) and the run-time write is denied by the hook.
    let control_plugin = tempfile::tempdir()?;
    copy_plugin(control_plugin.path(), false)?;
    let control = plugin_case(control_plugin.path())?;
    let run = control.run(&claude)?;
    ensure!(
        control.read(TARGET)? == Some(format!("{original}# pwned\n")),
        "control: the script did not write {TARGET}\n{}",
        run.describe()
    );
    let (denied, reason) = result(&run, 2)?;
    ensure!(
        denied && reason.starts_with("PreToolUse:Bash hook error"),
        "control: the run-time write was not denied by the gate: {reason}\n{}",
        run.describe()
    );

    // The plugin as shipped: both writes reach the kernel, which refuses them.
    let case = plugin_case(&workspace_root())?;
    let run = case.run(&claude)?;
    ensure!(
        case.read(TARGET)?.as_deref() == Some(original.as_str()),
        "{TARGET} changed under the plugin's sandbox\n{}",
        run.describe()
    );
    ensure!(
        run.permission_denials().is_empty(),
        "the gate denied a command the kernel should have refused\n{}",
        run.describe()
    );
    let (failed, listing) = result(&run, 0)?;
    ensure!(
        !failed && listing.contains("billing"),
        "ls: {listing}\n{}",
        run.describe()
    );
    for step in [1, 2] {
        let (failed, text) = result(&run, step)?;
        ensure!(
            failed && text.contains("Permission denied") && !text.contains("hook error"),
            "step {step}: {text}\n{}",
            run.describe()
        );
    }
    Ok(())
}

/// Runs `claude plugin …` with the case's HOME and config directory.
fn claude_plugin(claude: &Path, case: &ClaudeCase, args: &[&str]) -> Result<String> {
    let out = Command::new(claude)
        .arg("plugin")
        .args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", case.case_dir().join("home"))
        .env("CLAUDE_CONFIG_DIR", case.case_dir().join("config"))
        .env("TERM", "dumb")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .output()
        .context("running claude plugin")?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ensure!(
        out.status.success(),
        "claude plugin {args:?} failed: {text}"
    );
    Ok(text)
}

#[test]
fn the_marketplace_installs_a_gated_plugin() -> Result<()> {
    let Some(claude) = locate_claude()? else {
        return Ok(());
    };
    require_binaries(&[PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN, SERVER_BIN, SANDBOX_BIN])?;
    let checkout = tempfile::tempdir()?;
    copy_plugin(checkout.path(), true)?;
    let mut case = ClaudeCase::new()?;
    claude_plugin(
        &claude,
        &case,
        &["marketplace", "add", &checkout.path().display().to_string()],
    )?;
    claude_plugin(&claude, &case, &["install", "code-intel@code-intel"])?;
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(
        case.case_dir().join("config/settings.json"),
    )?)?;
    ensure!(
        settings["enabledPlugins"]["code-intel@code-intel"] == true,
        "{settings:#}"
    );

    case.write(
        ".claude/settings.json",
        &json!({ "permissions": { "allow": ["mcp__plugin_code-intel_code-intel"] } }).to_string(),
    )?;
    let target = case.path_str("src/farewell.py");
    case.script(vec![
        Step::tool(
            "Write",
            json!({ "file_path": target, "content": "def farewell():\n    return 'bye'\n" }),
        ),
        Step::tool(
            format!("{PLUGIN_PREFIX}start_session"),
            json!({ "intent": "IMPLEMENT", "query": "add a farewell function" }),
        ),
        Step::text("Started."),
    ]);
    let run = case.run(&claude)?;
    let denied = run.tool_result(0, 0).context("no result for the Write")?;
    ensure!(
        denied.is_error && denied.content.starts_with("PreToolUse:Write hook error: "),
        "{denied:?}\n{}",
        run.describe()
    );
    ensure!(case.read("src/farewell.py")?.is_none(), "the Write landed");
    let started = run
        .tool_result(1, 0)
        .context("no result for start_session")?;
    ensure!(
        !started.is_error && started.content.contains("session_id"),
        "{started:?}\n{}",
        run.describe()
    );
    // The installed plugin's SessionStart hook wrote the sandbox line for this session.
    let lines = session_env_scripts(&case.case_dir().join("config/session-env"))?;
    ensure!(
        lines
            .iter()
            .any(|l| l.contains(SANDBOX_BIN) && l.contains("--session-env")),
        "no sandbox line in the session environment: {lines:?}\n{}",
        run.describe()
    );
    Ok(())
}

/// Every line of every `session-env/<session>/*.sh` under `dir`.
fn session_env_scripts(dir: &Path) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    for session in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        for file in std::fs::read_dir(session?.path())? {
            let path: PathBuf = file?.path();
            lines.extend(std::fs::read_to_string(&path)?.lines().map(str::to_owned));
        }
    }
    Ok(lines)
}
