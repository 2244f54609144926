//! `code-intel doctor`: checks that code-intel is installed and working in a project, each check
//! PASS, WARN or FAIL with the command that fixes it. Exit code 0 iff nothing FAILs.
//!
//! Checks, in order: the three binaries on PATH; the configuration; the MCP server entry
//! (`.mcp.json` or the plugin) and the permission rule; the hook configuration (project, local and
//! user settings, or the plugin's `hooks/hooks.json` when the plugin is enabled) pointing at the
//! hook binaries with matchers that cover the write tools, and fail-closed (`"onFailure":
//! "block"`: a hook that cannot start, dies or times out blocks the call); a synthetic Write run through the
//! configured PreToolUse hook exactly as Claude Code runs it (stdin JSON, cwd = the repository),
//! which must be denied outside READY; the embedding model and runtime (verified and loaded; a
//! missing model only WARNs: lexical search works without it); every grammar and chunk query
//! loads; the index's freshness against the working tree. Reads PATH, HOME, CLAUDE_CONFIG_DIR and the model variables: this is an adapter.

use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::install::{
    self, ALLOW_RULE, CommandHook, MatcherKind, POST_TOOL_USE_BIN, PRE_TOOL_USE_BIN, SERVER_BIN,
    SERVER_NAME, write_tools,
};
use clap::Args;
use code_intel_core::index::CodeIndex;
use code_intel_core::index::sync::PendingChanges;
use code_intel_core::index::vector::VectorIndex;
use code_intel_session::config::{Config, GateMode};
use code_intel_session::repo_path::RepoRoot;
use code_intel_session::session::store::{SessionError, SessionStore};
use code_intel_session::vocab::SessionId;
use serde::Serialize;
use serde_json::{Value, json};

/// The plugin's hooks (`hooks/hooks.json` at the repository root), compiled in: what Claude Code
/// runs when the plugin is enabled.
const PLUGIN_HOOKS: &str = include_str!("../../../hooks/hooks.json");
/// The permission rule allowing the plugin's server (scoped name, CLAUDE_CODE.md §5).
const PLUGIN_ALLOW_RULE: &str = "mcp__plugin_code-intel_code-intel";
/// Environment variable that turns the embedding model off (read the same way by the server,
/// `server/embedder.rs`).
const EMBEDDINGS_ENV: &str = "CODE_INTEL_EMBEDDINGS";
/// Tools the PostToolUse hook must see: reads (explored files) and the MCP tools (session binding).
const POST_TOOLS: [&str; 5] = [
    "Read",
    "Grep",
    "Glob",
    "mcp__code-intel__start_session",
    "mcp__plugin_code-intel_code-intel__start_session",
];
/// Wait for a hook without a `timeout`: Claude Code's default for command hooks (§2.1).
const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(600);
/// The Claude Code session id of the synthetic Write (bound to no code-intel session).
const PROBE_SESSION: &str = "code-intel-doctor";

/// `code-intel doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Only verify the model files against their manifest; do not load the model (saves a few
    /// seconds and several hundred MB).
    #[arg(long)]
    pub no_model_load: bool,
}

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Pass,
    Warn,
    Fail,
}

/// One check.
#[derive(Debug, Serialize)]
struct Check {
    name: &'static str,
    status: Status,
    /// What was found.
    detail: String,
    /// What to run or change, when not PASS.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

impl Check {
    fn pass(name: &'static str, detail: impl Into<String>) -> Self {
        Self {
            name,
            status: Status::Pass,
            detail: detail.into(),
            fix: None,
        }
    }

    fn warn(name: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            name,
            status: Status::Warn,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }

    fn fail(name: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            name,
            status: Status::Fail,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// `doctor --json`.
#[derive(Debug, Serialize)]
struct Report {
    root: String,
    /// No check failed.
    ok: bool,
    checks: Vec<Check>,
}

/// Runs every check on `root` and prints the report; exit code 1 when a check FAILs.
///
/// # Errors
/// Only when the report cannot be written; every problem found is a check result.
pub fn run(
    root: &RepoRoot,
    args: &DoctorArgs,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let env = Env::from_process();
    let claude = ClaudeConfig::read(root, &env);
    let mut checks = vec![check_binaries(&env, &claude)];
    let config = match Config::load(root.path()) {
        Ok(c) => {
            checks.push(Check::pass(
                "config",
                if Config::path(root.path()).is_file() {
                    format!(
                        ".code-intel/config.json is valid; gate_mode {}",
                        gate_mode_name(c.gate_mode)
                    )
                } else {
                    "no .code-intel/config.json: defaults (gate_mode strict)".to_owned()
                },
            ));
            Some(c)
        }
        Err(e) => {
            checks.push(Check::fail(
                "config",
                e.to_string(),
                "fix the JSON of .code-intel/config.json, or delete it and run `code-intel init`",
            ));
            None
        }
    };
    checks.extend(claude.problems.iter().map(|(path, why)| {
        Check::fail(
            "settings",
            format!("{path}: {why}; Claude Code cannot use this file"),
            format!("fix the JSON of {path}"),
        )
    }));
    checks.push(check_server(&claude, &env));
    checks.push(check_permission(&claude));
    let (hooks_check, pre_hook) = check_hooks(&claude, &env, root);
    checks.push(hooks_check);
    checks.push(check_fail_closed(pre_hook.as_ref()));
    checks.push(check_gate(root, config.as_ref(), pre_hook.as_ref(), &env));
    checks.push(check_sandbox(&env, &claude));
    checks.push(check_grammars());
    checks.push(check_model(!args.no_model_load, &env));
    checks.push(check_state_files(root));
    checks.push(check_learned_map(root));
    checks.push(match &config {
        Some(c) => check_index(root, c),
        None => Check::fail(
            "index",
            "not checked: the configuration does not load",
            "fix .code-intel/config.json first",
        ),
    });

    let ok = checks.iter().all(|c| c.status != Status::Fail);
    if json {
        let report = Report {
            root: root.path().display().to_string(),
            ok,
            checks,
        };
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(out, "code-intel doctor: {}", root.path().display())?;
        for c in &checks {
            let word = match c.status {
                Status::Pass => "PASS",
                Status::Warn => "WARN",
                Status::Fail => "FAIL",
            };
            writeln!(out, "{word}  {:<11} {}", c.name, c.detail)?;
            if let Some(fix) = &c.fix {
                writeln!(out, "      {:<11} fix: {fix}", "")?;
            }
        }
        let count = |s| checks.iter().filter(|c| c.status == s).count();
        writeln!(
            out,
            "{} passed, {} warnings, {} failed",
            count(Status::Pass),
            count(Status::Warn),
            count(Status::Fail)
        )?;
    }
    out.flush()?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn gate_mode_name(m: GateMode) -> &'static str {
    match m {
        GateMode::Strict => "strict",
        GateMode::Session => "session",
        GateMode::Off => "off",
    }
}

/// The process environment doctor looks at, read once.
struct Env {
    path: Option<std::ffi::OsString>,
    /// `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
    claude_config_dir: Option<PathBuf>,
    embeddings_off: bool,
}

impl Env {
    fn from_process() -> Self {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        Self {
            path: var("PATH"),
            claude_config_dir: var("CLAUDE_CONFIG_DIR")
                .map(PathBuf::from)
                .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".claude"))),
            embeddings_off: std::env::var(EMBEDDINGS_ENV).is_ok_and(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "off" | "0" | "false"
                )
            }),
        }
    }

    /// Resolves a program the way a `command` is run: a path containing `/` as it is, otherwise
    /// looked up on PATH. Only executable files count.
    fn which(&self, program: &str) -> Option<PathBuf> {
        if program.contains('/') {
            let p = PathBuf::from(program);
            return is_executable(&p).then_some(p);
        }
        std::env::split_paths(self.path.as_deref()?)
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    }
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// The three programs, each where Claude Code runs it from: the command configured for it (an
/// absolute path when `init --bin-dir` or the npm package installed it: `.mcp.json`'s server,
/// the settings' hooks), else by name on PATH.
fn check_binaries(env: &Env, claude: &ClaudeConfig) -> Check {
    let configured = |bin: &str| -> Option<String> {
        if bin == SERVER_BIN {
            return claude
                .mcp_json
                .as_ref()?
                .pointer(&format!("/mcpServers/{SERVER_NAME}/command"))?
                .as_str()
                .filter(|c| Path::new(c).is_absolute())
                .map(str::to_owned);
        }
        claude.settings.iter().find_map(|s| {
            install::command_hooks(&s.doc)
                .into_iter()
                .find(|h| h.args.is_some() && h.runs(bin) && Path::new(&h.command).is_absolute())
                .map(|h| h.command)
        })
    };
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for bin in [SERVER_BIN, PRE_TOOL_USE_BIN, POST_TOOL_USE_BIN] {
        let program = configured(bin).unwrap_or_else(|| bin.to_owned());
        match env.which(&program) {
            Some(p) => found.push(p.display().to_string()),
            None => missing.push(program),
        }
    }
    if missing.is_empty() {
        return Check::pass("binaries", found.join(", "));
    }
    Check::fail(
        "binaries",
        format!(
            "not found (on PATH or where configured): {}",
            missing.join(", ")
        ),
        "install them (`npx @code-intel/cli init`, or from the checkout `cargo install --path mcp` and \
         `cargo install --path hooks`), or add the directory holding them (e.g. target/release) to PATH",
    )
}

/// Whether the PreToolUse hook that gates fails closed: `"onFailure": "block"`, so that a hook
/// that cannot start, dies or runs past its timeout blocks the call (without it Claude Code runs
/// the tool; CLAUDE_CODE.md §2.5). The earlier shell form `code-intel-pre-tool-use || exit 2`
/// blocks a missing or killed binary but not a timeout.
fn check_fail_closed(pre_hook: Option<&FoundHook>) -> Check {
    const NAME: &str = "fail-closed";
    let Some(f) = pre_hook else {
        return Check::fail(
            NAME,
            "no usable PreToolUse hook (see the hooks check)",
            "run `code-intel init`",
        );
    };
    if f.hook.fails_closed() {
        return Check::pass(
            NAME,
            format!(
                "the PreToolUse hook of {} has \"onFailure\": \"block\": a hook that cannot start, dies or times out ({} s) blocks the call",
                f.source,
                f.hook
                    .timeout_secs
                    .unwrap_or(DEFAULT_HOOK_TIMEOUT.as_secs())
            ),
        );
    }
    let how = if f.hook.args.is_none() && f.hook.command.contains("|| exit 2") {
        "a missing or crashed binary blocks, but a hook that runs past its timeout lets the call through"
    } else {
        "a missing binary, a crash or a timeout lets the call through"
    };
    Check::fail(
        NAME,
        format!(
            "the PreToolUse hook of {} has no \"onFailure\": \"block\": {how}",
            f.source
        ),
        "run `code-intel init` (it rewrites the hook to the exec form with \"onFailure\": \"block\")",
    )
}

/// Where Claude Code's shell prefix comes from: the `env` of the local, project or user settings
/// (in Claude Code's order of precedence), else doctor's own environment.
fn shell_prefix(claude: &ClaudeConfig) -> Option<(String, String)> {
    let precedence = |label: &str| match label {
        install::SETTINGS_LOCAL_JSON => 0,
        install::SETTINGS_JSON => 1,
        _ => 2,
    };
    claude
        .settings
        .iter()
        .filter_map(|s| {
            let value = s
                .doc
                .pointer(&format!("/env/{}", install::SHELL_PREFIX_ENV))?
                .as_str()
                .filter(|v| !v.trim().is_empty())?;
            Some((precedence(&s.label), value.to_owned(), s.label.clone()))
        })
        .min_by_key(|(rank, _, _)| *rank)
        .map(|(_, value, label)| (value, label))
        .or_else(|| {
            std::env::var(install::SHELL_PREFIX_ENV)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .map(|v| (v, "the environment".to_owned()))
        })
}

/// The kernel sandbox for Bash (`code-intel-sandbox`, `--probe`), and how Bash commands reach
/// it: as Claude Code's shell prefix (`CLAUDE_CODE_SHELL_PREFIX`, every permission mode), or
/// through the PreToolUse hook's rewrite (the launcher next to the hook, `bypassPermissions`
/// only). A prefix that does not exist FAILs: Claude Code then runs no Bash command, and the
/// PreToolUse hook, started through the prefix, fails open. A missing launcher or a kernel
/// without Landlock only warns, since the static analysis of Bash still gates (docs/GATE.md,
/// "Kernel enforcement").
fn check_sandbox(env: &Env, claude: &ClaudeConfig) -> Check {
    let prefix = shell_prefix(claude);
    let launcher = match &prefix {
        Some((value, from)) => {
            if Path::new(value).file_name() != Some(install::SANDBOX_BIN.as_ref()) {
                return Check::warn(
                    "sandbox",
                    format!(
                        "{} is {value} (in {from}), not {}: code-intel's hooks and server run through it too, and Bash commands reach the kernel sandbox only in bypassPermissions",
                        install::SHELL_PREFIX_ENV,
                        install::SANDBOX_BIN
                    ),
                    "remove that setting or run `code-intel init` after removing it",
                );
            }
            match env.which(value) {
                Some(p) => p,
                None => {
                    return Check::fail(
                        "sandbox",
                        format!(
                            "{} is {value} (in {from}), which is not an executable file: Claude Code cannot run any Bash command, and the PreToolUse hook, started through it, does not block",
                            install::SHELL_PREFIX_ENV
                        ),
                        "run `code-intel init` again (it writes the launcher's current path), or remove the setting",
                    );
                }
            }
        }
        None => match env
            .which(PRE_TOOL_USE_BIN)
            .and_then(|hook| hook.parent().map(|d| d.join(install::SANDBOX_BIN)))
            .filter(|p| is_executable(p))
        {
            Some(p) => p,
            None => {
                return Check::warn(
                    "sandbox",
                    format!(
                        "{} is not next to {PRE_TOOL_USE_BIN}: kernel enforcement unavailable, Bash writes are checked by static analysis only",
                        install::SANDBOX_BIN
                    ),
                    "install it with the hooks (`cargo install --path hooks`), then run `code-intel init`",
                );
            }
        },
    };
    let mut cmd = Command::new(&launcher);
    cmd.arg("--probe");
    match run_with_input(cmd, b"", Duration::from_secs(5)) {
        Ok(ran) if ran.code == Some(0) => match &prefix {
            Some((_, from)) => Check::pass(
                "sandbox",
                format!(
                    "{}; Bash commands run under it in every permission mode ({} in {from})",
                    ran.stdout.trim(),
                    install::SHELL_PREFIX_ENV
                ),
            ),
            None if claude.plugin_enabled && plugin_confines_bash() => Check::pass(
                "sandbox",
                format!(
                    "{}; Bash commands run under it in every permission mode (the code-intel plugin's SessionStart hook hands them to the launcher)",
                    ran.stdout.trim()
                ),
            ),
            None => Check::warn(
                "sandbox",
                format!(
                    "{}, but Bash commands run under it only in bypassPermissions: {} is not set",
                    ran.stdout.trim(),
                    install::SHELL_PREFIX_ENV
                ),
                "run `code-intel init` (it sets the launcher as Claude Code's shell prefix in .claude/settings.local.json)",
            ),
        },
        Ok(ran) => Check::warn(
            "sandbox",
            if ran.stdout.trim().is_empty() {
                "kernel enforcement unavailable: Bash writes are checked by static analysis only"
                    .to_owned()
            } else {
                ran.stdout.trim().to_owned()
            },
            "a Linux kernel with Landlock (5.13+, enabled in the LSM list) enforces Bash writes",
        ),
        Err(e) => Check::warn(
            "sandbox",
            format!(
                "cannot run {}: {e}; kernel enforcement unavailable, Bash writes are checked by static analysis only",
                launcher.display()
            ),
            "reinstall the hooks (`cargo install --path hooks`)",
        ),
    }
}

/// Whether the plugin's hooks (compiled in) include the SessionStart hook that puts Bash under the
/// launcher (`code-intel-sandbox --session-start`; docs/GATE.md, "The plugin's sandbox").
fn plugin_confines_bash() -> bool {
    serde_json::from_str::<Value>(PLUGIN_HOOKS).is_ok_and(|doc| {
        install::command_hooks(&doc).iter().any(|h| {
            h.event == "SessionStart"
                && h.runs(install::SANDBOX_BIN)
                && h.args.as_deref() == Some(&["--session-start".to_owned()][..])
        })
    })
}

/// One settings file Claude Code reads.
struct SettingsFile {
    /// As shown to the user (`.claude/settings.json`, `~/.claude/settings.json`).
    label: String,
    doc: Value,
}

/// Claude Code's configuration as it applies to the project.
struct ClaudeConfig {
    /// Project, local and user settings that exist and parse, in that order.
    settings: Vec<SettingsFile>,
    /// `.mcp.json`, when it exists and parses.
    mcp_json: Option<Value>,
    /// Whether some settings file enables the code-intel plugin (`enabledPlugins`).
    plugin_enabled: bool,
    /// Files that exist but cannot be used: (label, why).
    problems: Vec<(String, String)>,
}

impl ClaudeConfig {
    fn read(root: &RepoRoot, env: &Env) -> Self {
        let mut cfg = Self {
            settings: Vec::new(),
            mcp_json: None,
            plugin_enabled: false,
            problems: Vec::new(),
        };
        let mut candidates = vec![
            (
                install::SETTINGS_JSON.to_owned(),
                root.path().join(install::SETTINGS_JSON),
            ),
            (
                ".claude/settings.local.json".to_owned(),
                root.path().join(".claude/settings.local.json"),
            ),
        ];
        if let Some(dir) = &env.claude_config_dir {
            let user = dir.join("settings.json");
            candidates.push((user.display().to_string(), user));
        }
        for (label, path) in candidates {
            match read_json(&path) {
                Ok(Some(doc)) => cfg.settings.push(SettingsFile { label, doc }),
                Ok(None) => {}
                Err(why) => cfg.problems.push((label, why)),
            }
        }
        match read_json(&root.path().join(install::MCP_JSON)) {
            Ok(doc) => cfg.mcp_json = doc,
            Err(why) => cfg.problems.push((install::MCP_JSON.to_owned(), why)),
        }
        cfg.plugin_enabled = cfg.settings.iter().any(|s| {
            s.doc
                .get("enabledPlugins")
                .and_then(Value::as_object)
                .is_some_and(|m| {
                    m.iter().any(|(k, v)| {
                        k.split('@').next() == Some(SERVER_NAME) && v == &Value::Bool(true)
                    })
                })
        });
        cfg
    }
}

/// A JSON file: `Ok(None)` when missing, `Err(why)` when unreadable or not JSON.
fn read_json(path: &Path) -> Result<Option<Value>, String> {
    // Never blocks on a FIFO planted in place of a settings file.
    match code_intel_session::persist::read_regular(
        path,
        code_intel_session::persist::MAX_STATE_FILE_BYTES,
    ) {
        Ok(Some(t)) if t.trim_ascii().is_empty() => Ok(Some(json!({}))),
        Ok(Some(t)) => serde_json::from_slice(&t)
            .map(Some)
            .map_err(|e| format!("not valid JSON ({e})")),
        Ok(None) => Ok(None),
        Err(e) => Err(format!("cannot be read ({e})")),
    }
}

fn check_server(claude: &ClaudeConfig, env: &Env) -> Check {
    let entry = claude
        .mcp_json
        .as_ref()
        .and_then(|m| m.get("mcpServers"))
        .and_then(|s| s.get(SERVER_NAME));
    let Some(entry) = entry else {
        if claude.plugin_enabled {
            return Check::pass(
                "server",
                "the code-intel plugin is enabled (its server runs `code-intel serve`)",
            );
        }
        return Check::fail(
            "server",
            "no `code-intel` server in .mcp.json and the code-intel plugin is not enabled",
            "run `code-intel init` (or install the plugin: claude --plugin-dir <code-intel checkout>)",
        );
    };
    let command = entry.get("command").and_then(Value::as_str).unwrap_or("");
    let first_arg = entry
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str);
    if first_arg != Some("serve") {
        return Check::fail(
            "server",
            format!(".mcp.json runs `{command}` without the `serve` argument"),
            "run `code-intel init` to repair the entry",
        );
    }
    match env.which(command) {
        Some(p) => Check::pass(
            "server",
            format!(".mcp.json: code-intel → {} serve", p.display()),
        ),
        None => Check::fail(
            "server",
            format!(".mcp.json runs `{command}`, which is not an executable on PATH"),
            "put code-intel on PATH, or run `code-intel init` to repair the entry",
        ),
    }
}

fn check_permission(claude: &ClaudeConfig) -> Check {
    let wanted: &[&str] = &[
        ALLOW_RULE,
        "mcp__code-intel__*",
        PLUGIN_ALLOW_RULE,
        "mcp__plugin_code-intel_code-intel__*",
    ];
    let found = claude.settings.iter().find_map(|s| {
        let allow = s.doc.get("permissions")?.get("allow")?.as_array()?;
        allow
            .iter()
            .filter_map(Value::as_str)
            .find(|r| wanted.contains(r))
            .map(|r| format!("{}: allows {r}", s.label))
    });
    match found {
        Some(detail) => Check::pass("permission", detail),
        None => Check::warn(
            "permission",
            "no permissions.allow rule for the code-intel tools: Claude Code asks before each one, \
             and `claude -p` and the SDK refuse them",
            format!(
                "run `code-intel init`, or add \"{ALLOW_RULE}\" (plugin: \"{PLUGIN_ALLOW_RULE}\") to permissions.allow in .claude/settings.json"
            ),
        ),
    }
}

/// A hook handler together with where it is configured.
#[derive(Debug, Clone)]
struct FoundHook {
    hook: CommandHook,
    source: String,
}

/// Whether `matcher` selects `tool`: exact names, or an unanchored regular expression (Claude Code
/// uses JavaScript's; the regex crate agrees on the patterns matchers use).
fn selects(matcher: &MatcherKind, tool: &str) -> bool {
    match matcher {
        MatcherKind::Regex(re) => regex::Regex::new(re).is_ok_and(|r| r.is_match(tool)),
        other => other.selects(tool) == Some(true),
    }
}

/// The hooks check, and the PreToolUse handler the gate check should run.
fn check_hooks(claude: &ClaudeConfig, env: &Env, root: &RepoRoot) -> (Check, Option<FoundHook>) {
    if let Some(s) = claude
        .settings
        .iter()
        .find(|s| s.doc.get("disableAllHooks") == Some(&Value::Bool(true)))
    {
        return (
            Check::fail(
                "hooks",
                format!(
                    "{} sets disableAllHooks: no hook runs, writes are not gated",
                    s.label
                ),
                format!("remove \"disableAllHooks\" from {}", s.label),
            ),
            None,
        );
    }
    let mut all: Vec<FoundHook> = Vec::new();
    for s in &claude.settings {
        all.extend(
            install::command_hooks(&s.doc)
                .into_iter()
                .map(|hook| FoundHook {
                    hook,
                    source: s.label.clone(),
                }),
        );
    }
    if claude.plugin_enabled
        && let Ok(doc) = serde_json::from_str::<Value>(PLUGIN_HOOKS)
    {
        all.extend(
            install::command_hooks(&doc)
                .into_iter()
                .map(|hook| FoundHook {
                    hook,
                    source: "the code-intel plugin".to_owned(),
                }),
        );
    }
    let fix_init = "run `code-intel init` (it merges the hooks into .claude/settings.json)";
    let ours = |event: &str, bin: &str| -> Vec<&FoundHook> {
        all.iter()
            .filter(|f| f.hook.event == event && f.hook.runs(bin))
            .collect()
    };
    let pre = ours("PreToolUse", PRE_TOOL_USE_BIN);
    let post = ours("PostToolUse", POST_TOOL_USE_BIN);
    let mut problems = Vec::new();
    let mut chosen = None;

    if pre.is_empty() {
        problems.push(format!("no PreToolUse hook runs {PRE_TOOL_USE_BIN}"));
    }
    for f in &pre {
        let uncovered: Vec<&str> = write_tools()
            // MultiEdit is legacy (not offered by 2.1.328): missing it is not a hole.
            .filter(|t| *t != "MultiEdit" && !selects(&f.hook.matcher_kind(), t))
            .collect();
        let resolves = resolve_command(&f.hook, env, root).is_some();
        if !resolves {
            let effect = if f.hook.fails_closed()
                || (f.hook.args.is_none() && f.hook.command.contains("|| exit 2"))
            {
                "Claude Code then blocks every tool"
            } else {
                "Claude Code then lets every write through"
            };
            problems.push(format!(
                "the PreToolUse hook in {} runs `{}`, which is not an executable ({effect})",
                f.source, f.hook.command
            ));
        } else if !uncovered.is_empty() {
            problems.push(format!(
                "the PreToolUse hook in {} has matcher {:?}, which misses {}",
                f.source,
                f.hook.matcher.as_deref().unwrap_or(""),
                uncovered.join(", ")
            ));
        } else if chosen.is_none() {
            chosen = Some((*f).clone());
        }
    }
    if chosen.is_some() {
        // One good handler gates every write tool; other findings about PreToolUse are moot.
        problems.retain(|p| !p.contains("PreToolUse"));
    }
    if post.is_empty() {
        problems.push(format!("no PostToolUse hook runs {POST_TOOL_USE_BIN}"));
    } else if !post.iter().any(|f| {
        resolve_command(&f.hook, env, root).is_some()
            && POST_TOOLS
                .iter()
                .all(|t| selects(&f.hook.matcher_kind(), t))
    }) {
        problems.push(format!(
            "the PostToolUse hook running {POST_TOOL_USE_BIN} is not an executable or does not match every tool (use matcher \"*\")"
        ));
    }
    let check = if problems.is_empty() {
        let describe = |f: &FoundHook| {
            format!(
                "{} ({}) → {} [{}]",
                f.hook.event,
                f.hook.matcher.as_deref().unwrap_or("*"),
                f.hook.command,
                f.source
            )
        };
        let mut parts: Vec<String> = chosen.iter().map(describe).collect();
        parts.extend(post.first().map(|f| describe(f)));
        Check::pass("hooks", parts.join("; "))
    } else {
        Check::fail("hooks", problems.join("; "), fix_init)
    };
    // Without a usable configured handler the gate check still runs the binary from PATH.
    (check, chosen)
}

/// The program a hook runs, resolved as Claude Code would: exec form `command` with
/// `${CLAUDE_PROJECT_DIR}` substituted, shell form its first word.
fn resolve_command(hook: &CommandHook, env: &Env, root: &RepoRoot) -> Option<PathBuf> {
    let command = substitute(&hook.command, root);
    let program = if hook.args.is_some() {
        command
    } else {
        command
            .split_whitespace()
            .next()
            .unwrap_or("")
            .replace(['"', '\''], "")
            .replace("$CLAUDE_PROJECT_DIR", &root.path().display().to_string())
    };
    env.which(&program)
}

fn substitute(s: &str, root: &RepoRoot) -> String {
    s.replace("${CLAUDE_PROJECT_DIR}", &root.path().display().to_string())
}

fn check_gate(
    root: &RepoRoot,
    config: Option<&Config>,
    configured: Option<&FoundHook>,
    env: &Env,
) -> Check {
    const NAME: &str = "gate";
    let fallback;
    let (hook, via) = match configured {
        Some(f) => (&f.hook, format!("the PreToolUse hook of {}", f.source)),
        None => {
            fallback = CommandHook {
                event: "PreToolUse".into(),
                matcher: None,
                command: PRE_TOOL_USE_BIN.into(),
                args: Some(Vec::new()),
                timeout_secs: None,
                on_failure: None,
            };
            (
                &fallback,
                format!("{PRE_TOOL_USE_BIN} from PATH (no usable hook is configured)"),
            )
        }
    };
    let Some(program) = resolve_command(hook, env, root) else {
        return Check::fail(
            NAME,
            format!("cannot run {via}: `{}` is not an executable", hook.command),
            "put code-intel-pre-tool-use on PATH (see the binaries check)",
        );
    };
    let mode = config.map_or(GateMode::Strict, |c| c.gate_mode);
    // In strict mode any write without a session is denied; in the other modes only code-intel's
    // and Claude Code's own configuration is, in every phase.
    let probe = match mode {
        GateMode::Strict => root.path().join("code-intel-doctor-probe.txt"),
        GateMode::Session | GateMode::Off => root.path().join(install::SETTINGS_JSON),
    };
    let input = json!({
        "session_id": PROBE_SESSION,
        "transcript_path": "",
        "cwd": root.path(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": { "file_path": probe, "content": "code-intel doctor probe\n" },
        "tool_use_id": "toolu_code_intel_doctor",
    });
    let mut cmd = if hook.args.is_some() {
        let mut c = Command::new(&program);
        c.args(hook.args.iter().flatten().map(|a| substitute(a, root)));
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c").arg(substitute(&hook.command, root));
        c
    };
    cmd.current_dir(root.path())
        .env("CLAUDE_PROJECT_DIR", root.path());
    let timeout = hook
        .timeout_secs
        .map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_secs);
    let ran = match run_with_input(cmd, input.to_string().as_bytes(), timeout) {
        Ok(r) => r,
        Err(e) => {
            return Check::fail(
                NAME,
                format!("{via} ({}) could not run: {e}", program.display()),
                "check the hook command; `code-intel-pre-tool-use --self-check` tests the binary alone",
            );
        }
    };
    let Some(code) = ran.code else {
        return Check::fail(
            NAME,
            format!(
                "{via} did not answer within {} s: Claude Code lets a write through when a hook times out",
                timeout.as_secs()
            ),
            "raise the hook's timeout, or find out why the hook hangs (CODE_INTEL_LOG=debug)",
        );
    };
    let decision: Option<Value> = serde_json::from_str(ran.stdout.trim()).ok();
    let output = decision.as_ref().and_then(|d| d.get("hookSpecificOutput"));
    let denied = code == 2
        && output.and_then(|o| o.get("hookEventName")) == Some(&json!("PreToolUse"))
        && output.and_then(|o| o.get("permissionDecision")) == Some(&json!("deny"));
    if !denied {
        let what = if code == 0 && ran.stdout.trim().is_empty() {
            "allowed it".to_owned()
        } else {
            format!(
                "answered with exit code {code}, stdout {:?}, stderr {:?}",
                cut(&ran.stdout, 200),
                cut(&ran.stderr, 200)
            )
        };
        let fix = if mode == GateMode::Strict && code == 0 {
            "the hook binary may be outdated or not code-intel's: reinstall code-intel-pre-tool-use"
        } else {
            "run `code-intel-pre-tool-use --self-check`; reinstall the hooks if it fails"
        };
        return Check::fail(
            NAME,
            format!(
                "a synthetic Write of {} without a session was not denied: {via} {what}",
                probe.display()
            ),
            fix,
        );
    }
    let reason = output
        .and_then(|o| o.get("permissionDecisionReason"))
        .and_then(Value::as_str)
        .unwrap_or("");
    match mode {
        GateMode::Strict if configured.is_none() => Check::warn(
            NAME,
            format!(
                "{via} denies a synthetic Write outside READY, but Claude Code does not run it (see the hooks check)"
            ),
            "run `code-intel init`",
        ),
        GateMode::Strict => Check::pass(
            NAME,
            format!(
                "a synthetic Write outside READY is denied by {via}: {:?}",
                cut(reason, 100)
            ),
        ),
        GateMode::Session | GateMode::Off => Check::warn(
            NAME,
            format!(
                "the hook runs and denies writes to .claude/settings.json, but gate_mode is {}: {}",
                gate_mode_name(mode),
                if mode == GateMode::Off {
                    "every other write passes"
                } else {
                    "writes pass while no code-intel session is bound to the conversation"
                }
            ),
            "set \"gate_mode\": \"strict\" in .code-intel/config.json to gate every write",
        ),
    }
}

/// The first `n` characters of `s`.
fn cut(s: &str, n: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// What a hook process did.
struct Ran {
    /// Exit code; `None` when it was killed after the timeout (or by a signal).
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `cmd` with `input` on stdin, waiting at most `timeout` (then kills it).
fn run_with_input(mut cmd: Command, input: &[u8], timeout: Duration) -> std::io::Result<Ran> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let reader = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                // A read error leaves what was read; the exit code still decides.
                p.read_to_end(&mut buf).ok();
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(child.stdout.take().map(|p| Box::new(p) as _));
    let err = reader(child.stderr.take().map(|p| Box::new(p) as _));
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that exits without reading its input closes the pipe: not an error here.
        stdin.write_all(input).ok();
    }
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait()? {
            break status.code();
        }
        if started.elapsed() > timeout {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ok(Ran {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

fn check_model(load: bool, env: &Env) -> Check {
    const NAME: &str = "model";
    if env.embeddings_off {
        return Check::warn(
            NAME,
            format!(
                "the embedding model is turned off ({EMBEDDINGS_ENV}=off): semantic_search and relevance verdicts are unavailable"
            ),
            format!("unset {EMBEDDINGS_ENV}"),
        );
    }
    let dir = match crate::model::resolve_cache_dir(None) {
        Ok(d) => d,
        Err(e) => {
            return Check::warn(
                NAME,
                format!("{e:#}"),
                "set CODE_INTEL_MODEL_DIR, then run `code-intel model fetch`",
            );
        }
    };
    let cache = crate::model::CacheArgs {
        cache_dir: Some(dir.clone()),
        threads: Some(1),
    };
    // A panic inside the ONNX runtime must end in a FAIL line, not a crashed doctor.
    let inspected = std::panic::catch_unwind(|| crate::model::inspect(&dir, &cache, load))
        .unwrap_or_else(|_| Err(anyhow::anyhow!("loading the model panicked")));
    let report = match inspected {
        Ok(r) => r,
        Err(e) => {
            return Check::fail(
                NAME,
                format!(
                    "the model in {} verifies but does not load: {e:#}",
                    dir.display()
                ),
                "run `code-intel model fetch --force`",
            );
        }
    };
    match report.state {
        "installed" => {}
        "not installed" => {
            return Check::warn(
                NAME,
                format!(
                    "no embedding model in {}: lexical search and the gate work; semantic_search and relevance verdicts need it",
                    dir.display()
                ),
                "run `code-intel model fetch`",
            );
        }
        _ => {
            return Check::fail(
                NAME,
                report
                    .problem
                    .unwrap_or_else(|| format!("the model in {} is damaged", dir.display())),
                "run `code-intel model fetch --force`",
            );
        }
    }
    let name = report.manifest.as_ref().map_or_else(
        || "the model".to_owned(),
        |m| {
            format!(
                "{} ({}, ONNX Runtime {})",
                m.upstream_id, m.format, m.runtime_version
            )
        },
    );
    match report.load {
        None => Check::pass(NAME, format!("{name} installed and verified (not loaded)")),
        Some(l) if l.probe_related > l.probe_unrelated => Check::pass(
            NAME,
            format!(
                "{name} loads in {:.1} s ({} dims); the probe ranks the related passage first",
                l.total_s, l.dims
            ),
        ),
        Some(l) => Check::fail(
            NAME,
            format!(
                "{name} loads but ranks an unrelated passage first ({:.3} ≤ {:.3}): the model or runtime is broken",
                l.probe_related, l.probe_unrelated
            ),
            "run `code-intel model fetch --force`",
        ),
    }
}

/// Every session and binding file, read the way the PreToolUse hook reads them
/// (`SessionStore::bound` then `SessionStore::load`): a file the hook cannot read makes it deny
/// every write of that conversation, so doctor fails on it too.
/// Every parsed language's grammar and chunk query load (in the dist build: from the shared
/// libraries of `bin/grammars`). A grammar that does not load leaves its files as line windows
/// (found by text search, not by symbol): a FAIL with the reinstall that fixes it; the index
/// chunks those files again by themselves once the libraries are back.
fn check_grammars() -> Check {
    const NAME: &str = "grammars";
    let results = code_intel_core::index::lang::check_grammars();
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(_, r)| r.as_ref().err().cloned())
        .collect();
    if failed.is_empty() {
        return Check::pass(
            NAME,
            format!(
                "{} parsed languages load their grammar and chunk query",
                results.len()
            ),
        );
    }
    Check::fail(
        NAME,
        format!(
            "{} of {} parsed languages do not load (their files are indexed as line windows): {}",
            failed.len(),
            results.len(),
            failed.join("; ")
        ),
        "reinstall code-intel so that bin/grammars/ is beside the executable (npm: `npm install \
         @code-intel/cli`; from source: `scripts/dist.sh`), or set CODE_INTEL_GRAMMARS to that \
         directory",
    )
}

fn check_state_files(root: &RepoRoot) -> Check {
    const NAME: &str = "sessions";
    let store = SessionStore::new(root.clone());
    let state = root.state_dir();
    let mut problems: Vec<String> = Vec::new();
    let mut counts = (0usize, 0usize);
    for (dir, is_binding) in [("sessions", false), ("bindings", true)] {
        let path = state.join(dir);
        let entries = match std::fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                problems.push(format!(".code-intel/{dir}/ cannot be listed: {e}"));
                continue;
            }
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|n| n.strip_suffix(".json").map(str::to_owned))
            .collect();
        names.sort();
        for id in names {
            let shown = format!(".code-intel/{dir}/{id}.json");
            if is_binding {
                counts.1 += 1;
                match store.bound(&id) {
                    Ok(Some(session)) => {
                        if let Err(e) = store.load(&session) {
                            problems.push(format!(
                                "{shown} names session {session}, which does not load: {e}"
                            ));
                        }
                    }
                    Ok(None) => {}
                    Err(e) => problems.push(format!("{shown}: {e}")),
                }
            } else {
                counts.0 += 1;
                // A file name that is no session id fails as the store would refuse it.
                if let Err(e) = SessionId::try_from(id.as_str())
                    .map_err(SessionError::from)
                    .and_then(|sid| store.load(&sid))
                {
                    problems.push(format!("{shown}: {e}"));
                }
            }
        }
    }
    if problems.is_empty() {
        return Check::pass(
            NAME,
            format!(
                "{} session and {} binding files read as the hook reads them",
                counts.0, counts.1
            ),
        );
    }
    Check::fail(
        NAME,
        format!(
            "{} state file(s) the PreToolUse hook cannot read, so it denies every write of the conversations they belong to: {}",
            problems.len(),
            problems.join("; ")
        ),
        "remove the damaged files listed (a session file ends that session; a binding file unbinds the conversation, which then starts a new session with /code)",
    )
}

/// The learned map's files (`learned_pairs.json`, `agreements/*.md`) read as `search_map`,
/// `list_agreements` and `add_agreement` read them (never blocking on a FIFO): a damaged file
/// makes the map unreadable or silently drops an agreement.
fn check_learned_map(root: &RepoRoot) -> Check {
    const NAME: &str = "learned map";
    let state = root.state_dir();
    let health = code_intel_session::learned::health::check(&state);
    let shown = |p: &Path| {
        p.strip_prefix(root.path())
            .map_or_else(|_| p.display().to_string(), |r| r.display().to_string())
    };
    if !health.damage.is_empty() {
        let list: Vec<String> = health
            .damage
            .iter()
            .map(|d| format!("{} {}", shown(&d.path), d.problem))
            .collect();
        return Check::fail(
            NAME,
            format!("{} damaged file(s): {}", list.len(), list.join("; ")),
            "run `code-intel repair` (moves each damaged file aside as <name>.damaged-<time>, never deletes, and rebuilds learned_pairs.json from what it and the agreements still hold)",
        );
    }
    if let Some(v) = health.newer_version {
        return Check::warn(NAME, v, "upgrade code-intel to use this map");
    }
    Check::pass(
        NAME,
        format!(
            "{} learned pairs and {} agreements read",
            health.pairs, health.agreements
        ),
    )
}

fn check_index(root: &RepoRoot, config: &Config) -> Check {
    const NAME: &str = "index";
    if !CodeIndex::lexical_dir(root).exists() {
        return Check::warn(
            NAME,
            "no code index yet (start_session builds it, but the first session then waits for it)",
            "run `code-intel index`",
        );
    }
    let index = match CodeIndex::open(root, config) {
        Ok(i) => i,
        Err(e) => {
            return Check::fail(
                NAME,
                format!("the index does not open: {e}"),
                "delete .code-intel/index and .code-intel/sync_state.json, then run `code-intel index`",
            );
        }
    };
    if let Some(why) = index.repaired() {
        return Check::warn(
            NAME,
            format!("the index was damaged and has been rebuilt empty ({why})"),
            "run `code-intel index` to fill it from the sources",
        );
    }
    if let Err(e) = index.verify() {
        return Check::fail(
            NAME,
            format!("the index is damaged: {e}"),
            "run `code-intel repair` (rebuilds it from the sources)",
        );
    }
    if let Err(e) = index.search("index probe", 1) {
        return Check::fail(
            NAME,
            format!("a probe search fails: {e}"),
            "run `code-intel repair` (rebuilds it from the sources)",
        );
    }
    let vector_state = VectorIndex::dir(root).join(code_intel_core::index::vector::STATE_FILE);
    if vector_state.exists() && VectorIndex::peek_state(root).is_none() {
        return Check::fail(
            NAME,
            format!(
                "the vector store's {} does not parse or has an unknown version",
                vector_state.display()
            ),
            "run `code-intel repair`, then `code-intel index --embed` (the embedding cache keeps computed vectors)",
        );
    }
    let stats = index.stats();
    let vectors = super::semantic::vector_status(root).map_or_else(
        || "no vectors".to_owned(),
        |v| {
            format!(
                "vectors {}/{} chunks ({})",
                v.coverage.embedded, v.coverage.total, v.model_id
            )
        },
    );
    let pending = match code_intel_core::index::sync::pending_changes(root, config) {
        Ok(p) => p,
        Err(e) => {
            return Check::fail(
                NAME,
                format!("cannot walk the repository: {e:#}"),
                "fix exclude_patterns in .code-intel/config.json",
            );
        }
    };
    let summary = format!("{} files, {} chunks, {vectors}", stats.files, stats.chunks);
    match pending {
        None => Check::warn(
            NAME,
            format!("the index has never been synced ({summary})"),
            "run `code-intel index`",
        ),
        Some(p) if p.is_empty() && !index.needs_sync() => {
            Check::pass(NAME, format!("up to date with the working tree: {summary}"))
        }
        Some(p) if p.is_empty() => Check::pass(
            NAME,
            format!(
                "matches the working tree ({summary}); the next start_session rebuilds it (the configuration changed)"
            ),
        ),
        Some(PendingChanges {
            added: a,
            modified: m,
            deleted: d,
        }) => Check::warn(
            NAME,
            format!(
                "{} files changed since the last sync ({a} added, {m} modified, {d} deleted); {summary}",
                a + m + d
            ),
            "run `code-intel index` (start_session also syncs when sync_on_start is true)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn which_in(path: &OsStr, program: &str) -> Option<PathBuf> {
        Env {
            path: Some(path.to_os_string()),
            claude_config_dir: None,
            embeddings_off: false,
        }
        .which(program)
    }

    #[test]
    fn only_a_gating_hook_with_on_failure_block_is_fail_closed() {
        let found =
            |command: &str, args: Option<Vec<String>>, on_failure: Option<&str>| FoundHook {
                hook: CommandHook {
                    event: "PreToolUse".into(),
                    matcher: Some("*".into()),
                    command: command.into(),
                    args,
                    timeout_secs: Some(30),
                    on_failure: on_failure.map(str::to_owned),
                },
                source: ".claude/settings.json".into(),
            };
        let ok = check_fail_closed(Some(&found(PRE_TOOL_USE_BIN, Some(vec![]), Some("block"))));
        assert_eq!(ok.status, Status::Pass, "{}", ok.detail);
        let legacy = check_fail_closed(Some(&found(
            install::LEGACY_PRE_TOOL_USE_COMMAND,
            None,
            None,
        )));
        assert_eq!(legacy.status, Status::Fail);
        assert!(legacy.detail.contains("timeout"), "{}", legacy.detail);
        let cont = check_fail_closed(Some(&found(
            PRE_TOOL_USE_BIN,
            Some(vec![]),
            Some("continue"),
        )));
        assert_eq!(cont.status, Status::Fail);
        assert_eq!(check_fail_closed(None).status, Status::Fail);
        // The plugin as shipped: its SessionStart hook confines Bash, its PreToolUse hook blocks.
        assert!(plugin_confines_bash());
        let plugin: Value = serde_json::from_str(PLUGIN_HOOKS).unwrap();
        assert!(
            install::command_hooks(&plugin)
                .iter()
                .any(|h| h.event == "PreToolUse" && h.runs(PRE_TOOL_USE_BIN) && h.fails_closed())
        );
    }

    #[test]
    fn regex_and_name_matchers_select_like_claude_code() {
        let m = |s: &str| MatcherKind::of(Some(s));
        assert!(selects(
            &m("Edit|Write|MultiEdit|NotebookEdit|Bash"),
            "Bash"
        ));
        assert!(!selects(&m("Edit|Write"), "NotebookEdit"));
        // Unanchored regex: `Edit.*` also matches NotebookEdit (CLAUDE_CODE.md §2.2).
        assert!(selects(&m("Edit.*"), "NotebookEdit"));
        assert!(selects(&m("^(Edit|Write|NotebookEdit|Bash)$"), "Write"));
        assert!(!selects(&m("^Edit$"), "NotebookEdit"));
        assert!(selects(&m("*"), "mcp__code-intel__start_session"));
    }

    #[test]
    fn lookup_needs_an_executable_file() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tool");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        assert_eq!(which_in(dir.path().as_os_str(), "tool"), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(which_in(dir.path().as_os_str(), "tool"), Some(bin.clone()));
            assert_eq!(
                which_in(OsStr::new("/nonexistent"), bin.to_str().unwrap()),
                Some(bin)
            );
        }
    }
}
