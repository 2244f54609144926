//! `code-intel-sandbox` as Claude Code's shell prefix (`CLAUDE_CODE_SHELL_PREFIX`): what the
//! launcher needs to decide, from the one argument Claude Code hands it, whether to run it under
//! the write sandbox or as code-intel's own process.
//!
//! Observed with Claude Code 2.1.328 (docs/GATE.md, "The shell prefix"): with the variable set
//! (process environment, or `env` in `.claude/settings.json` / `.claude/settings.local.json`),
//! Claude Code runs, in every permission mode, `<prefix> '<string>'` — one argument — for
//! - every Bash and Monitor command: its whole wrapped command line (`source <snapshot> … && eval
//!   '<command>' < /dev/null && pwd -P >| /tmp/claude-…-cwd`), never the bare command, with
//!   `CLAUDE_CODE_SESSION_ID` and `CLAUDE_PID` but no `CLAUDE_PROJECT_DIR` in the environment;
//! - every shell-form hook (`"command"` without `"args"`): the command line as configured, with
//!   `CLAUDE_PROJECT_DIR`;
//! - every stdio MCP server: `command` and `args` as one shell-quoted line (`code-intel serve`),
//!   with `CLAUDE_PROJECT_DIR`.
//!
//! Exec-form hooks (`"args"` present) are not prefixed. Permission checks see the command as the
//! model wrote it, so read-only commands keep their auto-approval.
//!
//! The launcher confines everything except [`own_process`]: the exact command lines of
//! code-intel's hooks and server (which must write `.code-intel/`), and only when Claude Code
//! started them (`CLAUDE_PROJECT_DIR` set). A Bash command cannot pass for one: Claude Code wraps
//! it, so its line never equals a bare hook command, and a launcher started from inside a
//! confined command can only add restrictions (Landlock domains are inherited and never lifted).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::SANDBOX_BIN;

/// The variable Claude Code reads its shell prefix from.
pub const PREFIX_ENV: &str = "CLAUDE_CODE_SHELL_PREFIX";

/// The Claude Code session id Claude Code gives every command, hook and server it starts
/// (the hook input's `session_id`).
pub const SESSION_ENV: &str = "CLAUDE_CODE_SESSION_ID";

/// The pid of the Claude Code process (set for Bash commands and hooks).
pub const CLAUDE_PID_ENV: &str = "CLAUDE_PID";

/// code-intel's hook and server programs (the names `code-intel init` and the plugin install).
const PRE_TOOL_USE_BIN: &str = "code-intel-pre-tool-use";
const POST_TOOL_USE_BIN: &str = "code-intel-post-tool-use";
const SERVER_BIN: &str = "code-intel";

/// How far up the process tree the Claude Code process is looked for (Bash: the parent; a
/// shell-form hook: the grandparent, through `sh -c`).
const ANCESTORS_MAX: usize = 16;

/// Whether `value` (the variable's value) names this launcher: the file name is
/// [`SANDBOX_BIN`]. The PreToolUse hook then leaves Bash commands as they are, since the prefix
/// already runs them under the sandbox.
pub fn is_launcher(value: &OsStr) -> bool {
    Path::new(value).file_name() == Some(OsStr::new(SANDBOX_BIN))
}

/// code-intel's own processes, which Claude Code also starts through the prefix and which must
/// run unconfined (they write `.code-intel/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnProcess {
    /// `code-intel-pre-tool-use || exit 2`: the program, and every outcome but exit 0 becomes
    /// exit 2 (a blocking PreToolUse answer), as the shell form's `|| exit 2` does.
    PreToolUse(String),
    /// A program and its arguments, run as they are (`code-intel-post-tool-use`,
    /// `code-intel serve …`, a plain `code-intel-pre-tool-use`).
    Exec(Vec<String>),
}

/// `command` when it is exactly one of code-intel's hook or server command lines, as
/// `code-intel init`, the plugin or a user writes them: `code-intel-pre-tool-use || exit 2`,
/// `code-intel-pre-tool-use`, `code-intel-post-tool-use`, `code-intel serve [ARG…]`, each
/// program by name (found on PATH) or by absolute path, separated by single spaces, no quoting
/// and nothing a shell would interpret. Anything else is `None` (confined).
pub fn own_process(command: &str) -> Option<OwnProcess> {
    let words: Vec<&str> = command.split(' ').collect();
    if !words.iter().all(|w| plain(w) || *w == "||") {
        return None;
    }
    let names = |w: &str, bin: &str| {
        w == bin || (w.starts_with('/') && w.ends_with(&format!("/{bin}")) && !w.contains("/../"))
    };
    let owned = |ws: &[&str]| ws.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
    match words.as_slice() {
        [p, "||", "exit", "2"] if names(p, PRE_TOOL_USE_BIN) => {
            Some(OwnProcess::PreToolUse((*p).to_owned()))
        }
        [p] if names(p, PRE_TOOL_USE_BIN) || names(p, POST_TOOL_USE_BIN) => {
            Some(OwnProcess::Exec(owned(&words)))
        }
        [p, "serve", rest @ ..] if names(p, SERVER_BIN) && !rest.contains(&"||") => {
            Some(OwnProcess::Exec(owned(&words)))
        }
        _ => None,
    }
}

/// The program to start for one of code-intel's own command lines ([`own_process`]): a bare
/// name (`code-intel-pre-tool-use`) is taken from `launcher_dir`, the launcher's own directory,
/// when a file of that name is there, and looked up on PATH only otherwise. The launcher's
/// siblings named `code-intel*` are protected from every sandboxed write, while a directory
/// earlier on PATH (`~/.local/bin`) may not be: a program of the hook's name planted there by a
/// command the sandbox allowed (a script of the repository run in READY) must not stand in for
/// the hook. A path with a `/` is used as it is.
pub fn own_program(program: &str, launcher_dir: Option<&Path>) -> PathBuf {
    if !program.contains('/')
        && let Some(sibling) = launcher_dir
            .map(|d| d.join(program))
            .filter(|p| p.is_file())
    {
        return sibling;
    }
    PathBuf::from(program)
}

/// The file a Bash command line of Claude Code ends by writing its working directory to
/// (`… && pwd -P >| /tmp/claude-<hex>-cwd`, observed with 2.1.328), when `command` ends so.
/// Claude Code does not create it beforehand; when its directory holds a protected path (a
/// repository under `/tmp`) the sandboxed command could not create it, so the launcher creates
/// it, empty, before the ruleset (an existing entry stays writable). The tail is Claude Code's,
/// after the model's command, which is quoted inside `eval '…'`.
pub fn cwd_file(command: &str) -> Option<PathBuf> {
    let (_, tail) = command.rsplit_once(" && pwd -P >| ")?;
    let path = Path::new(tail);
    let name = path.file_name()?.to_str()?;
    let id = name.strip_prefix("claude-")?.strip_suffix("-cwd")?;
    (plain(tail)
        && path.is_absolute()
        && !tail.contains("/../")
        && !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_hexdigit()))
    .then(|| path.to_path_buf())
}

/// The shell that runs a command line handed to the prefix: Claude Code's (`SHELL`, which it
/// sets for the commands it starts) when it is bash or zsh given by absolute path, the shells
/// Claude Code writes its lines for (with a prefix set it writes them to work in both), else
/// `bash` from PATH.
pub fn shell(env_shell: Option<&OsStr>) -> PathBuf {
    env_shell
        .map(Path::new)
        .filter(|p| {
            p.is_absolute()
                && p.file_name()
                    .is_some_and(|n| n == OsStr::new("bash") || n == OsStr::new("zsh"))
        })
        .map_or_else(|| PathBuf::from("bash"), Path::to_path_buf)
}

/// A word no shell would change: letters, digits and `_ . / : = @ + , -`.
fn plain(w: &str) -> bool {
    !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=@+,-".contains(&b))
}

/// Errors finding the project a command belongs to.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// Neither the Claude Code process nor `CLAUDE_PROJECT_DIR` says which project it is.
    #[error(
        "cannot tell which project this command belongs to: no Claude Code process ({CLAUDE_PID_ENV}) among the launcher's ancestors and CLAUDE_PROJECT_DIR unset"
    )]
    Unknown,
}

/// The project directory, as the hooks see it (`CLAUDE_PROJECT_DIR`: where the session
/// started): the working directory of the Claude Code process `claude_pid` when it is an
/// ancestor of this process (Claude Code never changes its own; a Bash command's `cd` is tracked
/// apart), else `env_project_dir` (set for hooks and MCP servers, absolute only).
///
/// Never a directory found from the command's working directory: a `.code-intel/` the command
/// could create in a writable directory (`node_modules/`) must not choose the project.
///
/// # Errors
/// [`ProjectError::Unknown`] when neither is known.
pub fn project_dir(
    claude_pid: Option<&OsStr>,
    env_project_dir: Option<&OsStr>,
) -> Result<PathBuf, ProjectError> {
    let from_claude = claude_pid
        .and_then(|p| p.to_str()?.parse::<u32>().ok())
        .filter(|pid| is_ancestor(*pid))
        .and_then(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).ok())
        .filter(|p| p.is_absolute());
    from_claude
        .or_else(|| {
            env_project_dir
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        })
        .ok_or(ProjectError::Unknown)
}

/// Whether `pid` is this process's parent or a further ancestor (within [`ANCESTORS_MAX`]).
fn is_ancestor(pid: u32) -> bool {
    let mut current = std::os::unix::process::parent_id();
    for _ in 0..ANCESTORS_MAX {
        if current == pid {
            return true;
        }
        if current <= 1 {
            return false;
        }
        match parent_of(current) {
            Some(p) => current = p,
            None => return false,
        }
    }
    false
}

/// The parent pid of `pid`, from `/proc/<pid>/stat` (the field after the state, which follows
/// the command name in parentheses; the name may hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_programs_come_from_the_launchers_directory_before_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("code-intel-pre-tool-use"), "").unwrap();
        assert_eq!(
            own_program("code-intel-pre-tool-use", Some(dir.path())),
            dir.path().join("code-intel-pre-tool-use")
        );
        // Not beside the launcher: PATH, as configured; a path: as it is.
        assert_eq!(
            own_program("code-intel-post-tool-use", Some(dir.path())),
            PathBuf::from("code-intel-post-tool-use")
        );
        assert_eq!(
            own_program("/opt/ci/code-intel-pre-tool-use", Some(dir.path())),
            PathBuf::from("/opt/ci/code-intel-pre-tool-use")
        );
        assert_eq!(
            own_program("code-intel-pre-tool-use", None),
            PathBuf::from("code-intel-pre-tool-use")
        );
    }

    #[test]
    fn only_the_exact_hook_and_server_lines_are_own_processes() {
        let pre = |p: &str| Some(OwnProcess::PreToolUse(p.to_owned()));
        let exec = |ws: &[&str]| {
            Some(OwnProcess::Exec(
                ws.iter().map(|w| (*w).to_owned()).collect(),
            ))
        };
        assert_eq!(
            own_process("code-intel-pre-tool-use || exit 2"),
            pre("code-intel-pre-tool-use")
        );
        assert_eq!(
            own_process("/opt/bin/code-intel-pre-tool-use || exit 2"),
            pre("/opt/bin/code-intel-pre-tool-use")
        );
        assert_eq!(
            own_process("code-intel-post-tool-use"),
            exec(&["code-intel-post-tool-use"])
        );
        assert_eq!(
            own_process("code-intel serve"),
            exec(&["code-intel", "serve"])
        );
        assert_eq!(
            own_process("/home/u/.cargo/bin/code-intel serve --json"),
            exec(&["/home/u/.cargo/bin/code-intel", "serve", "--json"])
        );
        for confined in [
            // What Claude Code hands the prefix for a Bash command (shape observed with 2.1.328).
            "source /c/shell-snapshots/snapshot-bash-1.sh 2>/dev/null || true && eval 'code-intel-pre-tool-use || exit 2' < /dev/null && pwd -P >| /tmp/claude-1-cwd",
            "code-intel-pre-tool-use || exit 2; echo x > src/f",
            "code-intel-pre-tool-use || exit 3",
            "code-intel-pre-tool-use  || exit 2",
            "code-intel-pre-tool-use || exit 2 || true",
            "code-intel serve; echo x > src/f",
            "code-intel serve || touch f",
            "code-intel serve $(touch f)",
            "code-intel serve `touch f`",
            "code-intel index",
            "code-intel",
            "'code-intel' serve",
            "code-intel serve\necho x",
            "./code-intel serve",
            "/x/../code-intel serve",
            "bin/code-intel-post-tool-use",
            "/tmp/evil-code-intel-post-tool-use",
            "code-intel-post-tool-use > f",
            "code-intel-post-tool-use < /tmp/forged.json",
            "X=1 code-intel-post-tool-use",
            "",
        ] {
            assert_eq!(own_process(confined), None, "{confined}");
        }
    }

    #[test]
    fn the_cwd_file_is_the_tail_claude_code_appends() {
        let line = "source /c/s.sh 2>/dev/null || true && eval 'ls' < /dev/null && pwd -P >| /tmp/claude-e928-cwd";
        assert_eq!(cwd_file(line), Some(PathBuf::from("/tmp/claude-e928-cwd")));
        for other in [
            "eval 'ls' && pwd -P >| /tmp/x-cwd",
            "eval 'ls' && pwd -P >| claude-e928-cwd",
            "eval 'ls' && pwd -P >| /tmp/claude-e928-cwd; touch f",
            "eval 'ls' && pwd -P >| /tmp/../repo/claude-ab-cwd",
            "eval 'ls' && pwd -P >| /tmp/claude--cwd",
            "eval 'ls' && pwd -P >| /tmp/claude-xyz-cwd",
            "ls",
        ] {
            assert_eq!(cwd_file(other), None, "{other}");
        }
    }

    #[test]
    fn the_line_runs_in_claude_codes_shell_if_it_is_bash_or_zsh() {
        for (env, expected) in [
            (Some("/bin/zsh"), "/bin/zsh"),
            (Some("/usr/local/bin/bash"), "/usr/local/bin/bash"),
            (Some("/usr/bin/fish"), "bash"),
            (Some("zsh"), "bash"),
            (None, "bash"),
        ] {
            assert_eq!(
                shell(env.map(OsStr::new)),
                PathBuf::from(expected),
                "{env:?}"
            );
        }
    }

    #[test]
    fn the_launcher_is_named_by_its_file_name() {
        assert!(is_launcher(OsStr::new("/usr/local/bin/code-intel-sandbox")));
        assert!(is_launcher(OsStr::new("code-intel-sandbox")));
        assert!(!is_launcher(OsStr::new("/usr/bin/firejail")));
        assert!(!is_launcher(OsStr::new("/x/code-intel-sandbox/other")));
    }

    #[test]
    fn the_project_is_the_claude_code_process_working_directory() {
        // This test process stands in for the launcher; its parent (the test harness or cargo)
        // for Claude Code.
        let parent = std::os::unix::process::parent_id();
        let cwd = std::fs::read_link(format!("/proc/{parent}/cwd")).unwrap();
        let pid = parent.to_string();
        assert_eq!(
            project_dir(Some(OsStr::new(&pid)), Some(OsStr::new("/elsewhere"))).unwrap(),
            cwd
        );
        // Not an ancestor (pid 1 is never this test's parent here unless reparented; our own
        // pid is not an ancestor): the hooks' variable.
        let own = std::process::id().to_string();
        assert_eq!(
            project_dir(Some(OsStr::new(&own)), Some(OsStr::new("/proj"))).unwrap(),
            PathBuf::from("/proj")
        );
        assert!(project_dir(Some(OsStr::new(&own)), Some(OsStr::new("rel"))).is_err());
        assert!(project_dir(None, None).is_err());
        assert!(project_dir(Some(OsStr::new("x")), None).is_err());
    }
}
