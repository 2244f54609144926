//! The PreToolUse hook: one decision per call. [`run`] is the whole of the
//! `code-intel-pre-tool-use` binary: read the input ([`read_input`], typed once), find how the
//! kernel sandbox meets a shell command ([`kernel`]), make one call into the gate
//! ([`code_intel_session::gate::pre_tool_use`], which reads the project's root, ignore rules,
//! config, binding and session once and returns the verdict with the sandbox plan), and answer.
//!
//! Every path ends in a deliberate decision: a panic, unreadable stdin, malformed JSON or an
//! internal error all deny (JSON on stdout + reason on stderr + exit 2), and so does the watchdog
//! when the decision takes longer than [`WATCHDOG_AFTER`] (something blocked: Claude Code would
//! run the tool once its hook timeout passed). Allow prints nothing and exits 0, or, for a shell
//! call this hook puts under the launcher, the rewritten input. `--self-check` runs a synthetic
//! Write through the gate in a temporary directory and exits 0 only if it is denied (for
//! `code-intel doctor`).
#![allow(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "stdout/stderr are the hook output contract"
)]

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use code_intel_session::gate::protect::ConfigLocations;
use code_intel_session::gate::sandbox::SandboxPlan;
use code_intel_session::gate::{self, Kernel, Verdict};
use serde_json::Value;

use crate::{
    HookInput, SANDBOX_BIN, SANDBOX_CONTEXT, SANDBOXED_MODES, WATCHDOG, WATCHDOG_AFTER,
    claude_config_dir, config_locations, deny_json, landlock_fully_enforced, project_dir,
    read_input, session_env_installed, shell_prefix,
};
use code_intel_session::gate::tools::ToolClass;

/// What a hook reads of its process besides stdin.
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// `CLAUDE_PROJECT_DIR` (where the session started); the input's `cwd` when unset.
    pub project_dir: Option<PathBuf>,
    /// Where Claude Code's configuration and code-intel's binaries are ([`config_locations`]).
    pub locations: ConfigLocations,
    /// The running hook executable, whose sibling [`SANDBOX_BIN`] is the launcher; `None`: no
    /// launcher (another adapter than the hook binary, such as the Node binding), so no shell
    /// command is known to run confined and none is rewritten.
    pub hook_exe: Option<PathBuf>,
    /// `CLAUDE_CODE_SHELL_PREFIX`, which Claude Code reads from the same environment.
    pub shell_prefix: Option<OsString>,
}

impl HookEnv {
    /// This process's environment.
    pub fn from_process() -> Self {
        Self {
            project_dir: std::env::var_os("CLAUDE_PROJECT_DIR").map(Into::into),
            locations: config_locations(),
            hook_exe: std::env::current_exe().ok(),
            shell_prefix: std::env::var_os(shell_prefix::PREFIX_ENV),
        }
    }
}

/// The hook's answer to one PreToolUse call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreAnswer {
    /// The gate's verdict.
    pub verdict: Verdict,
    /// For an allowed shell call this hook puts under the launcher: the hook output to print
    /// (`updatedInput` with the wrapped command, `additionalContext`), instead of silence.
    pub output: Option<String>,
}

impl PreAnswer {
    fn deny(reason: String) -> Self {
        Self {
            verdict: Verdict::Deny { reason },
            output: None,
        }
    }
}

/// Decides a PreToolUse call from its typed input: one call into the gate, whose plan (if any)
/// becomes the rewrite. Fails closed: no project directory denies.
pub fn pre_tool_use(input: &HookInput, env: &HookEnv) -> PreAnswer {
    let project = match project_dir(input, env.project_dir.clone()) {
        Ok(p) => p,
        Err(e) => return PreAnswer::deny(format!("code-intel gate blocked this call: {e}")),
    };
    let cwd = input.cwd_or(&project);
    let (kernel, launcher) = kernel(input, &project, env);
    let call = input.call(&cwd, &env.locations, kernel);
    let decision = gate::pre_tool_use(&project, &call);
    let output = match (&decision.verdict, &decision.sandbox, launcher, &call.action) {
        (Verdict::Allow, Some(plan), Some((field, launcher)), gate::Action::Shell(command)) => {
            Some(rewrite_output(input, field, &launcher, plan, command))
        }
        _ => None,
    };
    PreAnswer {
        verdict: decision.verdict,
        output,
    }
}

/// How the kernel sandbox meets this call's shell command, and for [`Kernel::Rewrites`] the
/// input field holding the command and the launcher to rewrite it into. In order:
/// - not a shell tool (Bash, Monitor: [`ToolClass::Shell`]), or no hook executable: absent;
/// - the session environment line hands the command to the launcher ([`session_env_confined`])
///   or Claude Code's shell prefix is the launcher ([`prefix_confined`]): it confines, and the
///   hook does not rewrite;
/// - the hook rewrites it (`rewrite_launcher`), confined when the launcher lies outside the
///   project and the kernel enforces its ruleset fully.
pub fn kernel(
    input: &HookInput,
    project: &Path,
    env: &HookEnv,
) -> (Kernel, Option<(&'static str, PathBuf)>) {
    let ToolClass::Shell(field) = input.class else {
        return (Kernel::Absent, None);
    };
    let Some(exe) = env.hook_exe.as_deref() else {
        return (Kernel::Absent, None);
    };
    let prefix = env.shell_prefix.as_deref();
    if session_env_confined(
        input,
        project,
        claude_config_dir(&env.locations).as_deref(),
        exe,
    ) || prefix_confined(project, prefix, exe)
    {
        return (Kernel::Confines, None);
    }
    match rewrite_launcher(input, exe, prefix) {
        Some(launcher) => {
            let enforced =
                launcher_outside(&launcher, project).is_some() && landlock_fully_enforced();
            (Kernel::Rewrites { enforced }, Some((field, launcher)))
        }
        None => (Kernel::Absent, None),
    }
}

/// Whether a shell command will run under the kernel write sandbox whatever the hook answers
/// through Claude Code's shell prefix. All of:
/// - the prefix (`prefix`, the hook's `CLAUDE_CODE_SHELL_PREFIX`, which Claude Code reads from
///   the same environment) is an absolute path to the launcher next to this hook (`hook_exe`'s
///   sibling [`SANDBOX_BIN`], same real file): the launcher every Bash command is then handed
///   to, and one no sandboxed command can replace (the plan protects the hook's `code-intel*`
///   siblings). A prefix elsewhere, or found by PATH, does not count;
/// - the launcher lies outside `project`: Claude Code leaves the prefix out of a command's
///   environment when its file lies under a root its own sandbox makes writable (docs/GATE.md,
///   "Limits of the sandbox as built"), and the project is one;
/// - the kernel enforces the launcher's ruleset fully ([`landlock_fully_enforced`]).
///
/// Cost: three `realpath` and two Landlock system calls, only for shell tools.
pub fn prefix_confined(project: &Path, prefix: Option<&OsStr>, hook_exe: &Path) -> bool {
    let Some(prefix) = prefix
        .map(Path::new)
        .filter(|p| p.is_absolute() && shell_prefix::is_launcher(p.as_os_str()))
    else {
        return false;
    };
    hook_exe
        .parent()
        .and_then(|d| launcher_outside(&d.join(SANDBOX_BIN), project))
        .is_some_and(|l| std::fs::canonicalize(prefix).is_ok_and(|p| p == l))
        && landlock_fully_enforced()
}

/// Whether this shell call runs under the launcher through the session environment line
/// ([`session_env_installed`]), so that, as under the shell prefix ([`prefix_confined`]), the
/// gate may leave the writes it cannot resolve to the kernel and the hook need not rewrite the
/// call: the launcher next to the hook (`hook_exe`'s sibling [`SANDBOX_BIN`]) and outside
/// `project`, the line for it in the session's scripts, and the kernel enforcing the ruleset
/// fully. `config_dir`: `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn session_env_confined(
    input: &HookInput,
    project: &Path,
    config_dir: Option<&Path>,
    hook_exe: &Path,
) -> bool {
    let (Some(config_dir), Some(session)) = (config_dir, input.session_id.as_deref()) else {
        return false;
    };
    hook_exe
        .parent()
        .and_then(|d| launcher_outside(&d.join(SANDBOX_BIN), project))
        .is_some_and(|l| session_env_installed(config_dir, session, &l))
        && landlock_fully_enforced()
}

/// The real path of `launcher` when it is a file outside `project` (both resolved); `None`
/// otherwise. A launcher inside the project is not trusted to confine anything (docs/GATE.md,
/// "Run-time targets under the shell prefix").
fn launcher_outside(launcher: &Path, project: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(launcher).ok()?;
    let project = std::fs::canonicalize(project).ok()?;
    (real.is_file() && !real.starts_with(project)).then_some(real)
}

/// The launcher this hook rewrites a shell call into (`hook_exe`'s sibling [`SANDBOX_BIN`], a
/// file), in a permission mode of [`SANDBOXED_MODES`] and when Claude Code's shell prefix is not
/// the launcher already (which then confines the command itself). Without a confining rewrite,
/// `t=$(mktemp); echo x > $t` would be denied in `bypassPermissions` (its target is only known
/// at run time) though the kernel would refuse any write it made into the repository.
fn rewrite_launcher(input: &HookInput, hook_exe: &Path, prefix: Option<&OsStr>) -> Option<PathBuf> {
    if prefix.is_some_and(shell_prefix::is_launcher) {
        return None;
    }
    if !input
        .permission_mode
        .as_deref()
        .is_some_and(|m| SANDBOXED_MODES.contains(&m))
    {
        return None;
    }
    hook_exe
        .parent()
        .map(|d| d.join(SANDBOX_BIN))
        .filter(|p| p.is_file())
}

/// The hook output that reruns `command` (the input's `field`) under `launcher` with `plan`:
/// `updatedInput` with the wrapped command and [`SANDBOX_CONTEXT`] for the model.
fn rewrite_output(
    input: &HookInput,
    field: &str,
    launcher: &Path,
    plan: &SandboxPlan,
    command: &str,
) -> String {
    let mut updated = input.tool_input.clone();
    if let Some(obj) = updated.as_object_mut() {
        obj.insert(
            field.into(),
            Value::String(gate::sandbox::wrap_command(launcher, plan, command)),
        );
    }
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": updated,
            "additionalContext": SANDBOX_CONTEXT,
        }
    })
    .to_string()
}

const TIMEOUT_REASON: &str = "code-intel gate could not decide within 2 s (something blocked: a FIFO or device where a file should be, a held lock, a stuck disk), so it blocked this call to be safe; run `code-intel doctor`";

const CRASH_REASON: &str = "code-intel gate crashed while checking this call, so it was blocked to be safe; run `code-intel doctor` and report the stderr above";

fn print_deny(reason: &str) {
    let mut out = std::io::stdout().lock();
    // Exit 2 blocks even if stdout is gone, so a failed write changes nothing.
    writeln!(out, "{}", deny_json(reason)).ok();
    out.flush().ok();
    eprintln!("{reason}");
}

/// The decision for the input on stdin, in this process's environment.
fn decide() -> PreAnswer {
    injected_fault();
    match read_input(std::io::stdin().lock()) {
        Ok(input) => pre_tool_use(&input, &HookEnv::from_process()),
        Err(e) => PreAnswer::deny(format!("code-intel gate blocked this call: {e}")),
    }
}

/// Fault injection for the tests of the fail-closed paths (hooks/tests/processes.rs and the
/// Claude Code e2e tests run the debug binaries): `CODE_INTEL_HOOK_FAULT=panic` or `hang`.
/// Compiled out of release builds, which are what `cargo install` and scripts/main.sh install:
/// a shipped hook reads no such variable.
fn injected_fault() {
    #[cfg(debug_assertions)]
    match std::env::var("CODE_INTEL_HOOK_FAULT").as_deref() {
        Ok("panic") => panic!("injected fault (CODE_INTEL_HOOK_FAULT=panic)"),
        Ok("hang") => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        _ => {}
    }
}

/// `code-intel-pre-tool-use --self-check`: a Write without a session, in a temporary directory,
/// must be denied (for `code-intel doctor`).
fn self_check() -> ExitCode {
    let dir = std::env::temp_dir().join(format!("code-intel-self-check-{}", std::process::id()));
    let result = (|| -> Result<Verdict, String> {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let input = format!(
            r#"{{"session_id":"self-check","cwd":{cwd},"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":{file},"content":"x"}}}}"#,
            cwd = Value::String(dir.display().to_string()),
            file = Value::String(dir.join("probe.txt").display().to_string()),
        );
        let parsed = read_input(input.as_bytes()).map_err(|e| e.to_string())?;
        let env = HookEnv {
            project_dir: Some(dir.clone()),
            ..HookEnv::default()
        };
        Ok(pre_tool_use(&parsed, &env).verdict)
    })();
    std::fs::remove_dir_all(&dir).ok();
    match result {
        Ok(Verdict::Deny { .. }) => {
            eprintln!("ok: a Write without a code-intel session is denied");
            ExitCode::SUCCESS
        }
        Ok(Verdict::Allow) => {
            eprintln!("FAILED: a Write without a session was allowed (gate_mode off?)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The `code-intel-pre-tool-use` binary: `--self-check`, or decide the call on stdin under the
/// watchdog and answer in the hook output contract.
pub fn run() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("--self-check") {
        return self_check();
    }
    WATCHDOG.arm(WATCHDOG_AFTER, || print_deny(TIMEOUT_REASON), 2);
    // The default panic message goes to stderr, which is fine; stdout stays ours.
    let answer =
        std::panic::catch_unwind(decide).unwrap_or_else(|_| PreAnswer::deny(CRASH_REASON.into()));
    let code = match &answer.verdict {
        Verdict::Allow => ExitCode::SUCCESS,
        Verdict::Deny { .. } => ExitCode::from(2),
    };
    // If the watchdog printed first it also exits the process; this never returns then.
    if WATCHDOG.decide(|| match (&answer.verdict, &answer.output) {
        (Verdict::Deny { reason }, _) => print_deny(reason),
        // Allowed, run under the kernel sandbox: updatedInput without a permission decision
        // (Claude Code's own permission flow still applies; observed with 2.1.328).
        (Verdict::Allow, Some(json)) => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{json}").ok();
            out.flush().ok();
        }
        (Verdict::Allow, None) => {}
    }) {
        code
    } else {
        ExitCode::from(2)
    }
}
