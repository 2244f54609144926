//! Thin adapters from Claude Code's hook JSON to `code_intel_session::gate`: [`read_input`] types
//! the JSON once into a [`HookInput`] (its tool classified by the gate's table), [`tools`] turns
//! it into the gate's `ToolCall` (the gate never reads Claude Code's or MCP's wire format).
//!
//! The binaries are `main → run`: `code-intel-pre-tool-use` runs [`pre::run`],
//! `code-intel-post-tool-use` [`post::run`]. Each reads one JSON object on stdin (the hook input
//! of `shared/docs/CLAUDE_CODE.md` §2.3), makes one call into the gate, and answers in the hook
//! output contract (§2.4): a PreToolUse denial is JSON on stdout with `hookEventName`, the reason
//! on stderr, and exit code 2 — which blocks even if the JSON were unreadable. Allow is silence
//! and exit 0, never `"allow"` (that would skip the user's permission prompt), or, for a shell
//! call put under the kernel sandbox, the rewritten input.
//!
//! The adapters read the environment the gate may not ([`pre::HookEnv`]): `CLAUDE_PROJECT_DIR`,
//! and for [`config_locations`] `HOME`, `CLAUDE_CONFIG_DIR`, `CLAUDE_PLUGIN_ROOT`, `PATH` and the
//! executable's own path, `CLAUDE_CODE_SHELL_PREFIX` ([`shell_prefix`]). [`Watchdog`] makes sure
//! a hook decides within [`WATCHDOG_AFTER`] even if something blocks.

use std::io::Read;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

pub mod post;
pub mod pre;
pub mod shell_prefix;
pub mod tools;
#[cfg(target_os = "linux")]
pub mod witness;

use code_intel_session::gate::protect::ConfigLocations;
use code_intel_session::gate::tools::ToolClass;
use code_intel_session::gate::{Kernel, ToolCall};
use serde::Deserialize;
use serde_json::Value;

/// Hook stdin larger than this is refused (Write inputs carry whole files; 64 MiB is generous).
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Claude Code's hook input (`shared/docs/CLAUDE_CODE.md` §2.3), typed once when it is read:
/// the fields the gate uses, and the tool's class in the gate's tool table.
#[derive(Debug, Deserialize)]
#[serde(from = "RawHookInput")]
pub struct HookInput {
    /// Claude Code session id.
    pub session_id: Option<String>,
    /// Working directory of the session.
    pub cwd: Option<PathBuf>,
    /// Event name (`PreToolUse`, `PostToolUse`).
    pub hook_event_name: Option<String>,
    /// Tool name.
    pub tool_name: String,
    /// What the tool does, by the gate's table ([`classify`](code_intel_session::gate::tools::classify) of `tool_name`).
    pub class: ToolClass,
    /// Tool input.
    pub tool_input: Value,
    /// Claude Code's permission mode (`default`, `acceptEdits`, `bypassPermissions`, …).
    pub permission_mode: Option<String>,
    /// Tool response (PostToolUse only).
    pub tool_response: Value,
}

/// The hook input as Claude Code sends it.
#[derive(Deserialize)]
struct RawHookInput {
    session_id: Option<String>,
    cwd: Option<PathBuf>,
    hook_event_name: Option<String>,
    tool_name: String,
    #[serde(default)]
    tool_input: Value,
    #[serde(default)]
    permission_mode: Option<String>,
    #[serde(default)]
    tool_response: Value,
}

impl From<RawHookInput> for HookInput {
    fn from(raw: RawHookInput) -> Self {
        Self {
            class: code_intel_session::gate::tools::classify(&raw.tool_name),
            session_id: raw.session_id,
            cwd: raw.cwd,
            hook_event_name: raw.hook_event_name,
            tool_name: raw.tool_name,
            tool_input: raw.tool_input,
            permission_mode: raw.permission_mode,
            tool_response: raw.tool_response,
        }
    }
}

impl HookInput {
    /// The session's working directory, or `project` when the input names none.
    pub fn cwd_or(&self, project: &std::path::Path) -> PathBuf {
        self.cwd.clone().unwrap_or_else(|| project.to_path_buf())
    }

    /// The gate's view of this call, typed by [`tools::action`], with `cwd` from
    /// [`cwd_or`](Self::cwd_or) and `kernel` as the adapter found it ([`pre::kernel`];
    /// [`Kernel::Absent`] after the tool ran).
    pub fn call<'a>(
        &'a self,
        cwd: &'a std::path::Path,
        locations: &'a ConfigLocations,
        kernel: Kernel,
    ) -> ToolCall<'a> {
        ToolCall {
            claude_session_id: self.session_id.as_deref(),
            cwd,
            tool: &self.tool_name,
            action: tools::action(
                &self.tool_name,
                self.class,
                &self.tool_input,
                &self.tool_response,
            ),
            locations,
            kernel,
        }
    }
}

/// Errors reading the hook input.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// stdin could not be read.
    #[error("cannot read hook input from stdin: {0}")]
    Read(#[from] std::io::Error),
    /// Too large.
    #[error("hook input exceeds {MAX_INPUT_BYTES} bytes")]
    TooLarge,
    /// Not the JSON Claude Code sends.
    #[error(
        "hook input is not the JSON Claude Code sends ({0}); check the hook command in .claude/settings.json"
    )]
    Parse(#[from] serde_json::Error),
    /// No project directory.
    #[error("hook input has no cwd and CLAUDE_PROJECT_DIR is unset")]
    NoProject,
}

/// Reads and parses hook JSON from `reader`.
///
/// # Errors
/// [`InputError`] for unreadable, oversized or malformed input.
pub fn read_input(reader: impl Read) -> Result<HookInput, InputError> {
    let mut buf = Vec::new();
    reader.take(MAX_INPUT_BYTES + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge);
    }
    Ok(serde_json::from_slice(&buf)?)
}

/// The project directory: `CLAUDE_PROJECT_DIR` (where the session started; it does not follow
/// `cd`), else the input's `cwd`.
///
/// # Errors
/// [`InputError::NoProject`] when neither is known.
pub fn project_dir(
    input: &HookInput,
    env_project_dir: Option<PathBuf>,
) -> Result<PathBuf, InputError> {
    env_project_dir
        .filter(|p| !p.as_os_str().is_empty())
        .or_else(|| input.cwd.clone())
        .ok_or(InputError::NoProject)
}

/// Where Claude Code's configuration and code-intel's binaries are, from this process's
/// environment: `HOME`, `CLAUDE_CONFIG_DIR`, `CLAUDE_PLUGIN_ROOT` (hooks inherit Claude Code's
/// environment) and the running executable. Relative or empty values are dropped.
pub fn config_locations() -> ConfigLocations {
    let abs = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    ConfigLocations {
        home: abs("HOME"),
        claude_config_dir: abs("CLAUDE_CONFIG_DIR"),
        plugin_root: abs("CLAUDE_PLUGIN_ROOT"),
        binaries: std::env::current_exe().ok().into_iter().collect(),
        path_dirs: std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default(),
    }
}

/// The variable the launcher sets for the shell it hands a command line to (confined or, with the
/// gate off, not): the line has been through the launcher. The session environment line
/// ([`session_env_line`]), which Claude Code runs again inside that shell, then does not hand it
/// over a second time.
pub const LAUNCHED_ENV: &str = "CODE_INTEL_LAUNCHED";

/// The launcher's option for a command line handed over by the session environment line.
pub const SESSION_ENV_FLAG: &str = "--session-env";

/// The line `code-intel-sandbox --session-start` (the plugin's SessionStart hook) appends to
/// `CLAUDE_ENV_FILE`: the plugin's way to the kernel sandbox, since a plugin cannot set
/// `CLAUDE_CODE_SHELL_PREFIX` (plugin settings take only `agent` and `subagentStatusLine` in
/// Claude Code 2.1.328). Claude Code runs the session environment scripts inside the shell of
/// every Bash command, before the command: its whole line reads `source <snapshot> || true &&
/// <these scripts> … && eval '<command>' && pwd -P >| <cwd file>` (observed with 2.1.328,
/// docs/GATE.md "The plugin's sandbox"). The line hands that whole command line
/// (`$BASH_EXECUTION_STRING`, zsh's `$ZSH_EXECUTION_STRING`) to the launcher, which runs it
/// again under the sandbox with [`LAUNCHED_ENV`] set, so that the second pass goes on to the
/// command. Claude Code's permission checks still see the command as the model wrote it.
pub fn session_env_line(launcher: &std::path::Path) -> String {
    let quoted = launcher.to_string_lossy().replace('\'', r"'\''");
    format!(
        "[ \"${{{LAUNCHED_ENV}-}}\" = 1 ] || exec '{quoted}' {SESSION_ENV_FLAG} \"${{BASH_EXECUTION_STRING-${{ZSH_EXECUTION_STRING-}}}}\""
    )
}

/// Whether Claude Code's session environment scripts of session `session_id` (the files
/// `<config>/session-env/<session_id>/*.sh`, where Claude Code 2.1.328 keeps what SessionStart
/// hooks write to `CLAUDE_ENV_FILE`) hold [`session_env_line`] for `launcher`: then every Bash
/// command of the session runs under the launcher. `config_dir`: `CLAUDE_CONFIG_DIR`, else
/// `~/.claude`. An id that is not a valid Claude session id never names a path.
pub fn session_env_installed(
    config_dir: &std::path::Path,
    session_id: &str,
    launcher: &std::path::Path,
) -> bool {
    if session_id
        .parse::<code_intel_session::vocab::ClaudeSessionId>()
        .is_err()
    {
        return false;
    }
    let line = session_env_line(launcher);
    let Ok(entries) = std::fs::read_dir(config_dir.join("session-env").join(session_id)) else {
        return false;
    };
    entries.flatten().any(|e| {
        e.file_name().to_str().is_some_and(|n| n.ends_with(".sh"))
            && code_intel_session::persist::read_regular(&e.path(), 64 * 1024)
                .ok()
                .flatten()
                .is_some_and(|bytes| {
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .any(|l| l.trim() == line)
                })
    })
}

/// Claude Code's configuration directory as hooks see it: `CLAUDE_CONFIG_DIR`, else
/// `$HOME/.claude` (absolute only).
pub fn claude_config_dir(locations: &ConfigLocations) -> Option<PathBuf> {
    locations
        .claude_config_dir
        .clone()
        .or_else(|| locations.home.as_ref().map(|h| h.join(".claude")))
}

/// The newest Landlock ABI whose file-system write rights the launcher asks for (older kernels
/// get what they support, best effort; the ruleset is then only partly enforced).
#[cfg(target_os = "linux")]
pub const LANDLOCK_ABI: landlock::ABI = landlock::ABI::V5;

/// Whether the kernel enforces every write right of [`LANDLOCK_ABI`]: what the launcher's
/// `--probe` reports as `FullyEnforced`, without restricting this process. A ruleset handling
/// them is created with every right required (one `landlock_create_ruleset` for the ABI version,
/// one for the ruleset, whose descriptor is closed at once); it fails when Landlock is missing,
/// disabled, filtered out (seccomp) or older than that ABI.
#[cfg(target_os = "linux")]
pub fn landlock_fully_enforced() -> bool {
    use landlock::{AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr};
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_write(LANDLOCK_ABI))
        .and_then(|r| r.create())
        .is_ok()
}

/// Landlock is Linux-only: never enforced elsewhere.
#[cfg(not(target_os = "linux"))]
pub fn landlock_fully_enforced() -> bool {
    false
}

/// How long a hook may work before its watchdog decides for it: far below Claude Code's hook
/// timeout (30 s in the shipped configuration), after which Claude Code would run the tool.
pub const WATCHDOG_AFTER: Duration = Duration::from_secs(2);

/// Makes sure exactly one decision is printed: the main path's, or the watchdog's when the main
/// path is still working after the deadline (a blocking read, a held lock, a hang).
#[derive(Debug)]
pub struct Watchdog {
    decided: Mutex<bool>,
}

/// The one watchdog of a hook process.
pub static WATCHDOG: Watchdog = Watchdog {
    decided: Mutex::new(false),
};

impl Watchdog {
    /// Starts a thread that, `after` from now, runs `on_timeout` (which prints the fallback
    /// decision) and exits the process with `code` — unless [`Watchdog::decide`] ran first.
    pub fn arm(&'static self, after: Duration, on_timeout: fn(), code: i32) {
        std::thread::spawn(move || {
            std::thread::sleep(after);
            if self.decide(on_timeout) {
                std::process::exit(code);
            }
        });
    }

    /// Runs `print` if no decision was printed yet and returns whether it ran. Holding the lock
    /// while printing means the other side waits, then sees the decision taken.
    pub fn decide(&self, print: impl FnOnce()) -> bool {
        let mut decided = self.decided.lock().unwrap_or_else(PoisonError::into_inner);
        if *decided {
            return false;
        }
        print();
        *decided = true;
        true
    }
}

/// The PreToolUse denial JSON (`hookSpecificOutput` with the required `hookEventName`).
pub fn deny_json(reason: &str) -> String {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })
    .to_string()
}

/// Name of the launcher that runs Bash commands under the kernel sandbox; found next to the hook.
pub const SANDBOX_BIN: &str = "code-intel-sandbox";

/// What the model is told when its Bash command runs under the sandbox.
pub const SANDBOX_CONTEXT: &str = "code-intel runs this Bash command under a kernel write sandbox (Landlock): inside the repository it may write only ignored build/dependency directories and, in READY, the files this code-intel session may change; Claude Code's and code-intel's configuration is never writable. A write outside that fails with \"Permission denied\": use the code-intel session (start_session, explore, reach READY) and Edit/Write for source changes.";

/// The permission modes in which Bash commands are rewritten to run under the sandbox: those
/// where Claude Code's own permission check is off. In the others Claude Code checks the
/// rewritten command, which then loses the auto-approval read-only commands (and, in
/// `acceptEdits`, edit commands) get: every command would need approval (observed with 2.1.328:
/// "This command requires approval"). There the launcher as Claude Code's shell prefix
/// ([`shell_prefix`], installed by `code-intel init`) confines the commands instead; without it
/// the static analysis and Claude Code's permission prompts stay the checks.
pub const SANDBOXED_MODES: &[&str] = &["bypassPermissions"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_env_line_quotes_the_launcher_and_is_found_for_its_session_only() {
        let line = session_env_line(std::path::Path::new("/opt/it's/code-intel-sandbox"));
        assert_eq!(
            line,
            r#"[ "${CODE_INTEL_LAUNCHED-}" = 1 ] || exec '/opt/it'\''s/code-intel-sandbox' --session-env "${BASH_EXECUTION_STRING-${ZSH_EXECUTION_STRING-}}""#
        );
        // The line runs the launcher with the whole command line as bash hands it over.
        let config = tempfile::tempdir().unwrap();
        let launcher = std::path::Path::new("/opt/ci/code-intel-sandbox");
        let dir = config.path().join("session-env/abc-123");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("sessionstart-hook-0.sh"),
            format!("export A=1\n{}\n", session_env_line(launcher)),
        )
        .unwrap();
        assert!(session_env_installed(config.path(), "abc-123", launcher));
        // Another launcher, another session, an id that is no Claude session id: not found.
        assert!(!session_env_installed(
            config.path(),
            "abc-123",
            std::path::Path::new("/elsewhere/code-intel-sandbox")
        ));
        assert!(!session_env_installed(config.path(), "other", launcher));
        assert!(!session_env_installed(
            config.path(),
            "../session-env/abc-123",
            launcher
        ));
    }
}
