//! `code-intel init`: installing code-intel into a project by merging into the files there.
//!
//! What an install consists of (the shapes are Claude Code's, shared/docs/CLAUDE_CODE.md §2.1 hooks
//! in exec form with `timeout` in seconds, §2.2 matchers, §4 skills, §6 `.mcp.json`):
//! - `.code-intel/config.json`: every key of docs/DESIGN.md#configuration with its default
//!   ([`Config::default`]); an existing valid file is kept as it is (every key is optional);
//! - `.code-intel/.gitignore`: ignores the local state (index, sync state, sessions, bindings,
//!   journal) and keeps `config.json`, `learned_pairs.json` and `agreements/` shareable;
//! - `.mcp.json`: the `code-intel` server (`code-intel serve`, `alwaysLoad`);
//!
//! Programs are named as [`Programs`] says: bare names found on PATH (a `cargo install`), or
//! absolute paths into one directory (`init --bin-dir`, what the npm package's `init` passes);
//! - `.claude/settings.json`: the PreToolUse hook on every tool (exec form, `"onFailure":
//!   "block"`: a hook that cannot start, dies or times out blocks the call), the PostToolUse hook
//!   on every tool, and the permission rule `mcp__code-intel`;
//! - `.claude/skills/{code,outcome}/SKILL.md`: the plugin's skills with the tool names of a project
//!   server ([`project_skill_text`]);
//! - `.claude/settings.local.json`: `env.CLAUDE_CODE_SHELL_PREFIX`, the absolute path of
//!   `code-intel-sandbox` ([`find_launcher`]), so that Claude Code runs every Bash command under
//!   the kernel sandbox in every permission mode (docs/GATE.md, "The shell prefix"). Local, not
//!   the shared settings: the path is this machine's; absolute, so that no file put earlier on
//!   PATH can stand in for the launcher.
//!
//! [`plan`] only reads; [`apply`] writes the files that change, each atomically; [`install`] does
//! both under the lock `.code-intel/install.lock`. Merging never drops what it does not own: other
//! servers, hooks, permission rules and unknown keys stay, in their order; an existing code-intel
//! entry is completed, not duplicated. A file that is not JSON, or whose shape is not Claude Code's
//! (e.g. `hooks` is not an object), stops the plan before anything is written.

mod ordered_json;

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Serialize;

use code_intel_session::config::Config;
use code_intel_session::gate::tools::{TOOLS, ToolClass};
use code_intel_session::persist::{self, FileLock, PersistError};
use code_intel_session::repo_path::RepoRoot;

pub use ordered_json::Json;

/// Name of the MCP server in `.mcp.json` (tools are then `mcp__code-intel__<tool>`).
pub const SERVER_NAME: &str = "code-intel";
/// The server / CLI binary, looked up on PATH.
pub const SERVER_BIN: &str = "code-intel";
/// The PreToolUse hook binary.
pub const PRE_TOOL_USE_BIN: &str = "code-intel-pre-tool-use";
/// The PostToolUse hook binary.
pub const POST_TOOL_USE_BIN: &str = "code-intel-post-tool-use";
/// The PreToolUse command earlier versions installed, in shell form: a missing or killed binary
/// ends in exit 2 (blocked), but a hook that runs past its `timeout` still let the call through.
/// `init` replaces it with the exec form and [`ON_FAILURE_BLOCK`] ([`hook_handler`]).
pub const LEGACY_PRE_TOOL_USE_COMMAND: &str = "code-intel-pre-tool-use || exit 2";
/// The hook key that makes Claude Code treat a hook's failure as a block: it could not start (a
/// missing binary), timed out, exited with a code other than 0 or 2, or printed invalid JSON
/// (the schema of Claude Code 2.1.328; verified end to end in tests/tests/fail_closed.rs, and
/// without it each of these lets the call through, CLAUDE_CODE.md §2.5).
pub const ON_FAILURE: &str = "onFailure";
/// The [`ON_FAILURE`] value that blocks.
pub const ON_FAILURE_BLOCK: &str = "block";
/// Tools the PreToolUse hook must see at the very least (`doctor` names those a matcher misses):
/// in the gate's tool table, the file-writing tools, the shells the gate analyses, and the tools
/// that write Claude Code's configuration (Edit, Write, MultiEdit, NotebookEdit, Bash, Monitor,
/// EnterWorktree, CronCreate; `MultiEdit` is legacy in Claude Code 2.1.328 but kept,
/// CLAUDE_CODE.md §2.2). The installed matcher is [`PRE_TOOL_USE_MATCHER`]: every tool, so an
/// unclassified tool meets the gate too.
pub fn write_tools() -> impl Iterator<Item = &'static str> {
    TOOLS.iter().filter_map(|(name, class)| {
        matches!(
            class,
            ToolClass::FileWrite(_) | ToolClass::Shell(_) | ToolClass::ConfigWrite(_)
        )
        .then_some(*name)
    })
}
/// The PreToolUse matcher: every tool (`gate::tools` classifies them).
pub const PRE_TOOL_USE_MATCHER: &str = "*";
/// Hook timeout, seconds. A hook that times out lets the write through (CLAUDE_CODE.md §2.5), and
/// the hook itself takes about a millisecond, so the margin is wide on purpose.
pub const HOOK_TIMEOUT_SECS: u64 = 30;
/// The permission rule allowing every tool of the `code-intel` server. Under `claude -p` and the
/// SDK an MCP tool without an allow rule is refused (observed with 2.1.328; the e2e tests use it).
pub const ALLOW_RULE: &str = "mcp__code-intel";
/// Tool name prefix in the plugin (`mcp__plugin_<plugin>_<server>__`, CLAUDE_CODE.md §5).
pub const PLUGIN_TOOL_PREFIX: &str = "mcp__plugin_code-intel_code-intel__";
/// Tool name prefix of a project `.mcp.json` server (`mcp__<server>__`, CLAUDE_CODE.md §2.2).
pub const PROJECT_TOOL_PREFIX: &str = "mcp__code-intel__";
/// `.mcp.json`, relative to the root.
pub const MCP_JSON: &str = ".mcp.json";
/// The project settings, relative to the root.
pub const SETTINGS_JSON: &str = ".claude/settings.json";
/// Where project skills live, relative to the root.
pub const SKILLS_DIR: &str = ".claude/skills";
/// The machine's own project settings (not committed), relative to the root.
pub const SETTINGS_LOCAL_JSON: &str = ".claude/settings.local.json";
/// The variable Claude Code reads its shell prefix from.
pub const SHELL_PREFIX_ENV: &str = "CLAUDE_CODE_SHELL_PREFIX";
/// The kernel sandbox launcher, installed next to the hooks.
pub const SANDBOX_BIN: &str = "code-intel-sandbox";
/// `.code-intel/.gitignore`, relative to the root.
pub const STATE_GITIGNORE_PATH: &str = ".code-intel/.gitignore";
/// The content of `.code-intel/.gitignore`.
pub const STATE_GITIGNORE: &str = "\
# code-intel state. Local and rebuilt on demand: the index, sync state, sessions, bindings, journal.
# Shared with the team, commit them: config.json, learned_pairs.json, agreements/.
*
!.gitignore
!config.json
!learned_pairs.json
!agreements/
!agreements/**
";

/// What [`apply`] does to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// The file does not exist and is written.
    Create,
    /// The file exists and is rewritten with code-intel's entries merged in.
    Update,
    /// Nothing to do.
    Unchanged,
}

/// One file of an install.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedFile {
    /// Path relative to the root, `/`-separated (e.g. `.claude/settings.json`).
    pub path: String,
    /// What happens to it.
    pub change: Change,
    /// Its current text, `None` when it does not exist.
    pub before: Option<String>,
    /// Its text after the install (equal to `before` when [`Change::Unchanged`]).
    pub after: String,
    /// A remark, e.g. why an existing file is kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Where it is written: the path, or the target of a symbolic link inside the root.
    #[serde(skip)]
    target: PathBuf,
}

/// The files an install touches, in a fixed order, plus warnings about the project.
#[derive(Debug, Clone, Serialize)]
pub struct InstallPlan {
    /// The repository root.
    pub root: PathBuf,
    /// Every file code-intel installs, changed or not.
    pub files: Vec<PlannedFile>,
    /// Problems init does not fix (e.g. `disableAllHooks`), each with what to do.
    pub warnings: Vec<String>,
}

impl InstallPlan {
    /// Whether any file changes.
    pub fn changes_anything(&self) -> bool {
        self.files.iter().any(|f| f.change != Change::Unchanged)
    }
}

/// A skill to install: its directory name under `.claude/skills/` and its text as the plugin ships
/// it (tool names with [`PLUGIN_TOOL_PREFIX`]).
#[derive(Debug, Clone, Copy)]
pub struct Skill<'a> {
    /// Directory name, e.g. `code` (the skill is then `/code`).
    pub name: &'a str,
    /// The plugin's `SKILL.md`.
    pub plugin_text: &'a str,
}

/// Errors of an install. Nothing has been written when [`plan`] fails.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file is not valid JSON (or, for `config.json`, not a valid code-intel config).
    #[error(
        "{path} is not valid JSON ({source}); fix or remove it, then run `code-intel init` again (nothing was changed)"
    )]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// A file is JSON but not of the shape Claude Code reads.
    #[error(
        "{path}: {what}; fix it by hand, then run `code-intel init` again (nothing was changed)"
    )]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A file's new content could not be encoded (not expected).
    #[error("cannot encode the new content: {0}")]
    Encode(#[source] serde_json::Error),
    /// Writing or locking failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
}

/// A skill's text for a project install: the plugin's tool names rewritten to a project server's.
pub fn project_skill_text(plugin_text: &str) -> String {
    plugin_text.replace(PLUGIN_TOOL_PREFIX, PROJECT_TOOL_PREFIX)
}

/// The `.mcp.json` entry of the server (CLAUDE_CODE.md §6; `alwaysLoad` keeps the tools out of
/// Claude Code's deferred tool search, so the model sees them from the first request).
pub fn server_entry(programs: &Programs) -> Json {
    let mut e = IndexMap::new();
    e.insert("type".to_owned(), Json::String("stdio".into()));
    e.insert(
        "command".to_owned(),
        Json::String(programs.command(SERVER_BIN)),
    );
    e.insert(
        "args".to_owned(),
        Json::Array(vec![Json::String("serve".into())]),
    );
    e.insert("alwaysLoad".to_owned(), Json::Bool(true));
    Json::Object(e)
}

/// The hook handler `init` installs for the program `program` (a bare name looked up on PATH, or
/// an absolute path: [`Programs`]), in exec form (no shell). The PreToolUse handler carries
/// `"onFailure": "block"`, so that Claude Code blocks the call when the hook cannot start, dies or
/// runs past its timeout (it would run the tool otherwise). The PostToolUse handler does not: it
/// runs after the tool, so blocking undoes nothing, and a failure there only leaves a read or a
/// session binding unrecorded, which later denies a write (fails closed by itself).
pub fn hook_handler(program: &str, fail_closed: bool) -> Json {
    let mut h = IndexMap::new();
    h.insert("type".to_owned(), Json::String("command".into()));
    h.insert("command".to_owned(), Json::String(program.to_owned()));
    h.insert("args".to_owned(), Json::Array(Vec::new()));
    h.insert("timeout".to_owned(), Json::Number(HOOK_TIMEOUT_SECS.into()));
    if fail_closed {
        h.insert(ON_FAILURE.to_owned(), Json::String(ON_FAILURE_BLOCK.into()));
    }
    Json::Object(h)
}

/// Where the programs `init` configures come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Programs {
    /// Bare names, looked up on PATH by Claude Code (a `cargo install`).
    OnPath,
    /// Absolute paths in this directory (the npm package's platform binaries: no PATH lookup,
    /// so no program earlier on PATH can stand in for them).
    In(PathBuf),
}

impl Programs {
    /// The command that runs `bin` (one of [`SERVER_BIN`], [`PRE_TOOL_USE_BIN`],
    /// [`POST_TOOL_USE_BIN`], [`SANDBOX_BIN`]).
    pub fn command(&self, bin: &str) -> String {
        match self {
            Programs::OnPath => bin.to_owned(),
            Programs::In(dir) => dir.join(bin).to_string_lossy().into_owned(),
        }
    }
}

/// The launcher of an install whose programs are in `dir` ([`Programs::In`]): its real path, when
/// it is a file there.
pub fn launcher_in(dir: &Path) -> Option<PathBuf> {
    let p = dir.join(SANDBOX_BIN);
    p.is_file()
        .then(|| std::fs::canonicalize(&p).ok())
        .flatten()
}

/// The launcher to install as Claude Code's shell prefix: `code-intel-sandbox` next to the
/// PreToolUse hook Claude Code finds on `path` (the PATH it runs hooks with), else next to
/// `own_exe`; its real location (absolute, no symbolic link), when it is a file.
pub fn find_launcher(path: Option<&std::ffi::OsStr>, own_exe: Option<&Path>) -> Option<PathBuf> {
    let beside_hook = path
        .into_iter()
        .flat_map(std::env::split_paths)
        .find_map(|dir| {
            dir.join(PRE_TOOL_USE_BIN)
                .is_file()
                .then(|| dir.join(SANDBOX_BIN))
        });
    beside_hook
        .into_iter()
        .chain(own_exe.and_then(Path::parent).map(|d| d.join(SANDBOX_BIN)))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// Computes the install of code-intel into `root` with `skills`, the programs from `programs`
/// and, when given, `launcher` as Claude Code's shell prefix ([`find_launcher`]), reading only.
///
/// # Errors
/// [`InstallError::Read`] for an unreadable file, [`InstallError::Malformed`] for a file that is
/// not valid JSON, [`InstallError::Shape`] for JSON Claude Code would not read the same way (or a
/// symbolic link leading out of the root), [`InstallError::Encode`] (not expected).
pub fn plan(
    root: &RepoRoot,
    skills: &[Skill<'_>],
    programs: &Programs,
    launcher: Option<&Path>,
) -> Result<InstallPlan, InstallError> {
    let mut files = vec![
        plan_config(root)?,
        plan_text(
            root,
            STATE_GITIGNORE_PATH,
            STATE_GITIGNORE,
            KeepExisting::Yes,
        )?,
        plan_json(root, MCP_JSON, &|doc: &mut Json| {
            merge_mcp_json(doc, programs)
        })?,
        plan_json(root, SETTINGS_JSON, &|doc: &mut Json| {
            merge_settings(doc, programs)
        })?,
    ];
    let mut warnings = Vec::new();
    match launcher {
        Some(launcher) => {
            let local = plan_json(root, SETTINGS_LOCAL_JSON, &|doc: &mut Json| {
                merge_shell_prefix(doc, launcher)
            })?;
            let set = serde_json::from_str::<serde_json::Value>(&local.after)
                .ok()
                .and_then(|v| v.pointer(&format!("/env/{SHELL_PREFIX_ENV}"))?.as_str().map(str::to_owned));
            if set.as_deref() != launcher.to_str() {
                warnings.push(format!(
                    "{SETTINGS_LOCAL_JSON} sets {SHELL_PREFIX_ENV} to {}, which init leaves alone: Bash commands run under the kernel sandbox only in bypassPermissions; make it {} to confine them in every mode",
                    set.unwrap_or_default(),
                    launcher.display()
                ));
            }
            files.push(local);
        }
        None => warnings.push(format!(
            "{SANDBOX_BIN} not found next to {PRE_TOOL_USE_BIN} on PATH: Bash commands are not kernel-confined outside bypassPermissions (static analysis only); install it with the hooks (`cargo install --path hooks`) and run init again"
        )),
    }
    for skill in skills {
        let rel = format!("{SKILLS_DIR}/{}/SKILL.md", skill.name);
        files.push(plan_text(
            root,
            &rel,
            &project_skill_text(skill.plugin_text),
            KeepExisting::No,
        )?);
    }
    if let Some(settings) = files.iter().find(|f| f.path == SETTINGS_JSON)
        && serde_json::from_str::<serde_json::Value>(&settings.after)
            .is_ok_and(|v| v.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)))
    {
        warnings.push(format!(
            "{SETTINGS_JSON} sets \"disableAllHooks\": true, so no hook runs and writes are not gated; remove it"
        ));
    }
    if shared_state_ignored(root) {
        warnings.push(
            "the repository's .gitignore ignores .code-intel/, so config.json, learned_pairs.json and agreements/ \
             cannot be committed; remove that line (.code-intel/.gitignore already ignores the local state)"
                .to_owned(),
        );
    }
    Ok(InstallPlan {
        root: root.path().to_path_buf(),
        files,
        warnings,
    })
}

/// Writes the files of `plan` that change, each atomically. Run it under the install lock (see
/// [`install`]) and soon after [`plan`]: a file changed in between is overwritten.
///
/// # Errors
/// [`InstallError::Persist`] when a file cannot be written; files written before it stay written
/// (each is complete), the rest are untouched.
pub fn apply(plan: &InstallPlan) -> Result<(), InstallError> {
    for f in plan.files.iter().filter(|f| f.change != Change::Unchanged) {
        persist::write_atomic(&f.target, f.after.as_bytes())?;
    }
    Ok(())
}

/// [`plan`] then [`apply`], under the lock `<root>/.code-intel/install.lock` (so two concurrent
/// installs do not interleave; Claude Code itself does not take it). Returns the plan that was
/// applied.
///
/// # Errors
/// As [`plan`] (nothing written) and [`apply`].
pub fn install(
    root: &RepoRoot,
    skills: &[Skill<'_>],
    programs: &Programs,
    launcher: Option<&Path>,
) -> Result<InstallPlan, InstallError> {
    // Plan once before taking the lock, so that a refused install creates nothing, not even
    // the lock file; then again under the lock, against what is there now.
    plan(root, skills, programs, launcher)?;
    let _lock = FileLock::acquire(&root.state().install_lock())?;
    let plan = plan(root, skills, programs, launcher)?;
    apply(&plan)?;
    Ok(plan)
}

/// How a matcher selects tools (CLAUDE_CODE.md §2.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum MatcherKind {
    /// `"*"`, `""` or absent: every tool.
    All,
    /// Only letters, digits, `_ - , |` and spaces: exact tool names separated by `|` or `,`.
    Names(Vec<String>),
    /// Anything else: an unanchored JavaScript regular expression.
    Regex(String),
}

impl MatcherKind {
    /// Classifies a matcher value.
    pub fn of(matcher: Option<&str>) -> Self {
        let m = matcher.unwrap_or("");
        if m.trim().is_empty() || m.trim() == "*" {
            return MatcherKind::All;
        }
        if m.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ',' | '|' | ' '))
        {
            return MatcherKind::Names(
                m.split(['|', ','])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
        MatcherKind::Regex(m.to_owned())
    }

    /// Whether it selects `tool`; `None` for a regular expression (the caller evaluates it).
    pub fn selects(&self, tool: &str) -> Option<bool> {
        match self {
            MatcherKind::All => Some(true),
            MatcherKind::Names(names) => Some(names.iter().any(|n| n == tool)),
            MatcherKind::Regex(_) => None,
        }
    }
}

/// A command hook handler found in a settings or `hooks.json` document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandHook {
    /// Event, e.g. `PreToolUse`.
    pub event: String,
    /// The group's matcher as written (`None` when absent).
    pub matcher: Option<String>,
    /// `command`: a program (exec form) or a shell command line (shell form).
    pub command: String,
    /// `args`: present selects the exec form (no shell).
    pub args: Option<Vec<String>>,
    /// `timeout`, seconds, when given.
    pub timeout_secs: Option<u64>,
    /// `onFailure` (`block` or `continue`), when given.
    pub on_failure: Option<String>,
}

impl CommandHook {
    /// Whether the handler runs the program `bin` (compared by file name, so `/opt/bin/<bin>` and,
    /// in shell form, `"$DIR"/<bin> --flag` count).
    pub fn runs(&self, bin: &str) -> bool {
        runs_binary(&self.command, self.args.is_some(), bin)
    }

    /// The matcher, classified.
    pub fn matcher_kind(&self) -> MatcherKind {
        MatcherKind::of(self.matcher.as_deref())
    }

    /// Whether Claude Code blocks the call when this hook fails (cannot start, times out, dies):
    /// `"onFailure": "block"`.
    pub fn fails_closed(&self) -> bool {
        self.on_failure.as_deref() == Some(ON_FAILURE_BLOCK)
    }
}

/// Every `type: command` handler of the `hooks` object of a settings (or plugin `hooks.json`)
/// document, in document order. Parts of another shape are skipped.
pub fn command_hooks(doc: &serde_json::Value) -> Vec<CommandHook> {
    let mut out = Vec::new();
    let Some(events) = doc.get("hooks").and_then(serde_json::Value::as_object) else {
        return out;
    };
    for (event, groups) in events {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
            for h in group
                .get("hooks")
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
            {
                let is_command =
                    h.get("type").and_then(serde_json::Value::as_str) == Some("command");
                let Some(command) = h.get("command").and_then(serde_json::Value::as_str) else {
                    continue;
                };
                if !is_command {
                    continue;
                }
                let args = h
                    .get("args")
                    .and_then(serde_json::Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                            .collect()
                    });
                out.push(CommandHook {
                    event: event.clone(),
                    matcher: matcher.clone(),
                    command: command.to_owned(),
                    args,
                    timeout_secs: h.get("timeout").and_then(serde_json::Value::as_u64),
                    on_failure: h
                        .get(ON_FAILURE)
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_owned),
                });
            }
        }
    }
    out
}

/// Whether a hook `command` runs `bin`: in exec form the command's file name, in shell form the
/// file name of its first word (quotes removed).
pub fn runs_binary(command: &str, exec_form: bool, bin: &str) -> bool {
    let program = if exec_form {
        command.trim()
    } else {
        command.split_whitespace().next().unwrap_or("")
    };
    let program = program.replace(['"', '\''], "");
    Path::new(&program)
        .file_name()
        .is_some_and(|name| name == bin)
}

/// The text of the file at `path`, read without blocking (a FIFO or device is an error, not a
/// hang) and bounded like every state file; `Ok(None)` when there is none.
fn read_optional(path: &Path) -> Result<Option<String>, InstallError> {
    let read = code_intel_session::persist::read_regular(
        path,
        code_intel_session::persist::MAX_STATE_FILE_BYTES,
    )
    .and_then(|b| {
        b.map(|b| {
            String::from_utf8(b)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        })
        .transpose()
    });
    read.map_err(|source| InstallError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Where `rel` is written: `root/rel`, or the target of a symbolic link that stays inside the root
/// (a dotfiles setup); a link leading out of the root is refused (init writes only under the root).
fn write_target(root: &RepoRoot, rel: &str) -> Result<PathBuf, InstallError> {
    let path = root.path().join(rel);
    let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(path);
    }
    match std::fs::canonicalize(&path) {
        Ok(target) if target.starts_with(root.path()) => Ok(target),
        _ => Err(InstallError::Shape {
            path,
            what: "is a symbolic link to a file outside the repository (or a broken link); \
                   init writes only inside the repository"
                .to_owned(),
        }),
    }
}

fn planned(
    rel: &str,
    target: PathBuf,
    before: Option<String>,
    after: String,
    note: Option<String>,
) -> PlannedFile {
    let change = match &before {
        None => Change::Create,
        Some(b) if *b == after => Change::Unchanged,
        Some(_) => Change::Update,
    };
    PlannedFile {
        path: rel.to_owned(),
        change,
        before,
        after,
        note,
        target,
    }
}

fn plan_config(root: &RepoRoot) -> Result<PlannedFile, InstallError> {
    let rel = format!(
        "{}/{}",
        code_intel_session::state_dir::STATE_DIR,
        code_intel_session::state_dir::CONFIG_FILE
    );
    let target = write_target(root, &rel)?;
    let mut text =
        serde_json::to_string_pretty(&Config::default()).map_err(InstallError::Encode)?;
    text.push('\n');
    match read_optional(&target)? {
        None => Ok(planned(&rel, target, None, text, None)),
        Some(existing) if existing == text => Ok(planned(&rel, target, Some(existing), text, None)),
        Some(existing) => {
            serde_json::from_str::<Config>(&existing).map_err(|source| {
                InstallError::Malformed {
                    path: target.clone(),
                    source,
                }
            })?;
            Ok(planned(
                &rel,
                target,
                Some(existing.clone()),
                existing,
                Some("exists; kept as it is, keys it leaves out take their defaults".to_owned()),
            ))
        }
    }
}

/// Whether a file that exists but differs is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeepExisting {
    Yes,
    No,
}

fn plan_text(
    root: &RepoRoot,
    rel: &str,
    text: &str,
    keep: KeepExisting,
) -> Result<PlannedFile, InstallError> {
    let target = write_target(root, rel)?;
    let before = read_optional(&target)?;
    if keep == KeepExisting::Yes
        && let Some(existing) = before.as_ref().filter(|b| *b != text)
    {
        let existing = existing.clone();
        return Ok(planned(
            rel,
            target,
            Some(existing.clone()),
            existing,
            Some("exists with other content; kept as it is".to_owned()),
        ));
    }
    Ok(planned(rel, target, before, text.to_owned(), None))
}

fn plan_json(
    root: &RepoRoot,
    rel: &str,
    merge: &dyn Fn(&mut Json) -> Result<(), String>,
) -> Result<PlannedFile, InstallError> {
    let target = write_target(root, rel)?;
    let before = read_optional(&target)?;
    let mut doc = match before.as_deref() {
        // An empty file counts as an empty object: Claude Code has nothing in it either.
        None => Json::object(),
        Some(t) if t.trim().is_empty() => Json::object(),
        Some(t) => serde_json::from_str::<Json>(t).map_err(|source| InstallError::Malformed {
            path: target.clone(),
            source,
        })?,
    };
    let original = doc.clone();
    merge(&mut doc).map_err(|what| InstallError::Shape {
        path: target.clone(),
        what,
    })?;
    // Semantically unchanged: keep the bytes (formatting, key order) exactly as they are.
    let after = match &before {
        Some(b) if doc == original && !b.trim().is_empty() => b.clone(),
        _ => doc.to_pretty().map_err(InstallError::Encode)?,
    };
    Ok(planned(rel, target, before, after, None))
}

/// The top level of a JSON configuration file as an object, or why it is not one.
fn top_object(doc: &mut Json) -> Result<&mut IndexMap<String, Json>, String> {
    doc.as_object_mut()
        .ok_or_else(|| "the top level is not a JSON object".to_owned())
}

/// The object under `key` of `map`, created empty when missing, or why it is not an object.
fn object_under<'a>(
    map: &'a mut IndexMap<String, Json>,
    key: &str,
) -> Result<&'a mut IndexMap<String, Json>, String> {
    map.entry(key.to_owned())
        .or_insert_with(Json::object)
        .as_object_mut()
        .ok_or_else(|| format!("`{key}` is not an object"))
}

fn merge_mcp_json(doc: &mut Json, programs: &Programs) -> Result<(), String> {
    let top = top_object(doc)?;
    let servers = object_under(top, "mcpServers")?;
    let Some(entry) = servers.get_mut(SERVER_NAME) else {
        servers.insert(SERVER_NAME.to_owned(), server_entry(programs));
        return Ok(());
    };
    let entry = entry
        .as_object_mut()
        .ok_or("`mcpServers.code-intel` is not an object")?;
    // Keep what still starts the server the same way: a path to the binary, extra arguments after
    // `serve`, `env` and any other key.
    if entry.get("type").and_then(Json::as_str) != Some("stdio") {
        entry.insert("type".to_owned(), Json::String("stdio".into()));
    }
    // With absolute programs the command is this install's (an npm upgrade moves it); on PATH
    // any command naming the binary stays.
    let command = entry.get("command").and_then(Json::as_str);
    let command_ok = match programs {
        Programs::OnPath => command.is_some_and(|c| runs_binary(c, true, SERVER_BIN)),
        Programs::In(_) => command == Some(programs.command(SERVER_BIN).as_str()),
    };
    if !command_ok {
        entry.insert(
            "command".to_owned(),
            Json::String(programs.command(SERVER_BIN)),
        );
    }
    let args_ok = entry
        .get("args")
        .and_then(Json::as_array)
        .and_then(|a| a.first())
        .and_then(Json::as_str)
        == Some("serve");
    if !args_ok {
        entry.insert(
            "args".to_owned(),
            Json::Array(vec![Json::String("serve".into())]),
        );
    }
    if entry.get("alwaysLoad") != Some(&Json::Bool(true)) {
        entry.insert("alwaysLoad".to_owned(), Json::Bool(true));
    }
    Ok(())
}

fn merge_settings(doc: &mut Json, programs: &Programs) -> Result<(), String> {
    let top = top_object(doc)?;
    let hooks = object_under(top, "hooks")?;
    ensure_hook(
        hooks,
        "PreToolUse",
        PRE_TOOL_USE_MATCHER,
        programs,
        PRE_TOOL_USE_BIN,
    )?;
    ensure_hook(hooks, "PostToolUse", "*", programs, POST_TOOL_USE_BIN)?;
    let permissions = object_under(top, "permissions")?;
    let allow = permissions
        .entry("allow".to_owned())
        .or_insert_with(|| Json::Array(Vec::new()))
        .as_array_mut()
        .ok_or("`permissions.allow` is not an array")?;
    if !allow.iter().any(|r| r.as_str() == Some(ALLOW_RULE)) {
        allow.push(Json::String(ALLOW_RULE.into()));
    }
    Ok(())
}

/// Sets `env.CLAUDE_CODE_SHELL_PREFIX` to `launcher`, unless it names another program (a prefix
/// the user chose; [`plan`] warns).
fn merge_shell_prefix(doc: &mut Json, launcher: &Path) -> Result<(), String> {
    let top = top_object(doc)?;
    let env = object_under(top, "env")?;
    let ours = |v: &Json| {
        v.as_str().is_some_and(|s| {
            s.trim().is_empty() || Path::new(s).file_name() == Some(SANDBOX_BIN.as_ref())
        })
    };
    if env.get(SHELL_PREFIX_ENV).is_none_or(ours) {
        env.insert(
            SHELL_PREFIX_ENV.to_owned(),
            Json::String(launcher.to_string_lossy().into_owned()),
        );
    }
    Ok(())
}

/// Whether a matcher selects every tool in `required` (`None`: every tool at all). A regular
/// expression counts as not covering: init cannot evaluate JavaScript regexes.
fn covers(matcher: Option<&Json>, required: Option<&[&str]>) -> bool {
    let kind = match matcher {
        None => MatcherKind::All,
        Some(Json::String(s)) => MatcherKind::of(Some(s)),
        Some(_) => return false,
    };
    match (kind, required) {
        (MatcherKind::All, _) => true,
        (kind @ MatcherKind::Names(_), Some(tools)) => {
            tools.iter().all(|t| kind.selects(t) == Some(true))
        }
        _ => false,
    }
}

fn is_our_handler(h: &Json, bin: &str) -> bool {
    let Some(obj) = h.as_object() else {
        return false;
    };
    let exec_form = obj.contains_key("args");
    matches!(
        obj.get("type").and_then(Json::as_str),
        None | Some("command")
    ) && obj
        .get("command")
        .and_then(Json::as_str)
        .is_some_and(|c| runs_binary(c, exec_form, bin))
}

/// Makes `hooks[event]` hold exactly one handler running `bin`, in a group whose matcher selects
/// every tool: the first such existing handler is kept and completed (`type`, `timeout`; for
/// PreToolUse `"onFailure": "block"`; a form `init` installed earlier is rewritten to the exec
/// form of [`hook_handler`] with the program from `programs`), other handlers of `bin` are removed
/// (and groups they leave empty), and without one a new group `{matcher, hooks: [handler]}` is
/// appended.
fn ensure_hook(
    hooks: &mut IndexMap<String, Json>,
    event: &str,
    matcher: &str,
    programs: &Programs,
    bin: &str,
) -> Result<(), String> {
    let fail_closed = bin == PRE_TOOL_USE_BIN;
    let groups = hooks
        .entry(event.to_owned())
        .or_insert_with(|| Json::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| format!("`hooks.{event}` is not an array"))?;
    let mut kept = false;
    let mut emptied = Vec::new();
    for (gi, group) in groups.iter_mut().enumerate() {
        let Some(g) = group.as_object_mut() else {
            continue;
        };
        let covering = covers(g.get("matcher"), None);
        let Some(handlers) = g.get_mut("hooks").and_then(Json::as_array_mut) else {
            continue;
        };
        let had = handlers.len();
        let mut i = 0;
        while i < handlers.len() {
            if !is_our_handler(&handlers[i], bin) {
                i += 1;
                continue;
            }
            if covering && !kept {
                if let Some(h) = handlers[i].as_object_mut() {
                    complete_handler(h, programs, bin, fail_closed);
                }
                kept = true;
                i += 1;
            } else {
                handlers.remove(i);
            }
        }
        if had > 0 && handlers.is_empty() {
            emptied.push(gi);
        }
    }
    for gi in emptied.into_iter().rev() {
        groups.remove(gi);
    }
    if !kept {
        let mut group = IndexMap::new();
        group.insert("matcher".to_owned(), Json::String(matcher.to_owned()));
        group.insert(
            "hooks".to_owned(),
            Json::Array(vec![hook_handler(&programs.command(bin), fail_closed)]),
        );
        groups.push(Json::Object(group));
    }
    Ok(())
}

/// Completes an existing handler of ours (see [`ensure_hook`]).
fn complete_handler(
    h: &mut IndexMap<String, Json>,
    programs: &Programs,
    bin: &str,
    fail_closed: bool,
) {
    if h.get("type").and_then(Json::as_str) != Some("command") {
        h.insert("type".to_owned(), Json::String("command".into()));
    }
    h.entry("timeout".to_owned())
        .or_insert_with(|| Json::Number(HOOK_TIMEOUT_SECS.into()));
    if let Some(written) = installed_program(h, bin) {
        // A form init wrote: the exec form, with this install's program (absolute programs
        // follow an upgrade that moved them; a legacy `… || exit 2` loses its shell).
        let program = match programs {
            Programs::In(_) => programs.command(bin),
            Programs::OnPath => written,
        };
        h.insert("command".to_owned(), Json::String(program));
        if !h.contains_key("args") {
            // Keep the key order: args right after command.
            let at = h.get_index_of("command").map_or(h.len(), |c| c + 1);
            h.shift_insert(at, "args".to_owned(), Json::Array(Vec::new()));
        }
    }
    if fail_closed && h.get(ON_FAILURE).and_then(Json::as_str) != Some(ON_FAILURE_BLOCK) {
        h.insert(ON_FAILURE.to_owned(), Json::String(ON_FAILURE_BLOCK.into()));
    }
}

/// The program of a handler in a form `init` installs or installed (the exec form without
/// arguments, a bare command, or [`LEGACY_PRE_TOOL_USE_COMMAND`] with the binary by name or by
/// absolute path): `None` for a command the user wrote otherwise, which is kept as it is.
fn installed_program(h: &IndexMap<String, Json>, bin: &str) -> Option<String> {
    let command = h.get("command").and_then(Json::as_str)?.trim();
    let no_args = h
        .get("args")
        .is_none_or(|a| a.as_array().is_some_and(|a| a.is_empty()));
    let program = command
        .strip_suffix(&LEGACY_PRE_TOOL_USE_COMMAND[PRE_TOOL_USE_BIN.len()..])
        .unwrap_or(command);
    let names_bin = program == bin
        || (Path::new(program).is_absolute()
            && !program.contains(char::is_whitespace)
            && !program.contains(['"', '\'', '$', '`'])
            && Path::new(program).file_name() == Some(bin.as_ref()));
    (no_args && names_bin).then(|| program.to_owned())
}

/// Whether the root `.gitignore` (or `.git/info/exclude`) ignores `.code-intel/config.json`.
fn shared_state_ignored(root: &RepoRoot) -> bool {
    let mut b = ignore::gitignore::GitignoreBuilder::new(root.path());
    for file in [".gitignore", ".git/info/exclude"] {
        let path = root.path().join(file);
        if path.is_file() {
            // A malformed line is skipped by the builder; the rest still counts.
            b.add(path);
        }
    }
    let Ok(gitignore) = b.build() else {
        return false;
    };
    gitignore
        .matched_path_or_any_parents(
            root.path()
                .join(code_intel_session::state_dir::STATE_DIR)
                .join(code_intel_session::state_dir::CONFIG_FILE),
            false,
        )
        .is_ignore()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_tools_a_matcher_must_cover_come_from_the_gates_table() {
        assert_eq!(
            write_tools().collect::<Vec<_>>(),
            [
                "Edit",
                "Write",
                "MultiEdit",
                "NotebookEdit",
                "Bash",
                "Monitor",
                "EnterWorktree",
                "CronCreate"
            ]
        );
    }

    type Merge = fn(&mut Json, &Programs) -> Result<(), String>;

    fn merged(merge: Merge, input: serde_json::Value) -> serde_json::Value {
        merged_with(merge, &Programs::OnPath, input)
    }

    fn merged_with(
        merge: Merge,
        programs: &Programs,
        input: serde_json::Value,
    ) -> serde_json::Value {
        let mut doc = Json::from_value(input);
        merge(&mut doc, programs).unwrap();
        doc.to_value()
    }

    fn pre() -> serde_json::Value {
        json!({ "type": "command", "command": PRE_TOOL_USE_BIN, "args": [], "timeout": HOOK_TIMEOUT_SECS, "onFailure": "block" })
    }

    fn post() -> serde_json::Value {
        json!({ "type": "command", "command": POST_TOOL_USE_BIN, "args": [], "timeout": HOOK_TIMEOUT_SECS })
    }

    #[test]
    fn settings_from_nothing() {
        assert_eq!(
            merged(merge_settings, json!({})),
            json!({
                "hooks": {
                    "PreToolUse": [{ "matcher": PRE_TOOL_USE_MATCHER, "hooks": [pre()] }],
                    "PostToolUse": [{ "matcher": "*", "hooks": [post()] }],
                },
                "permissions": { "allow": [ALLOW_RULE] },
            })
        );
    }

    #[test]
    fn settings_keep_other_hooks_rules_and_keys_and_are_idempotent() {
        let input = json!({
            "model": "opus",
            "permissions": { "allow": ["Bash(ls:*)"], "deny": ["Read(.env)"] },
            "hooks": {
                "PreToolUse": [{ "matcher": "Write", "hooks": [{ "type": "command", "command": "lint.sh" }] }],
                "Stop": [{ "hooks": [{ "type": "command", "command": "notify" }] }],
            },
        });
        let once = merged(merge_settings, input);
        assert_eq!(
            once,
            json!({
                "model": "opus",
                "permissions": { "allow": ["Bash(ls:*)", ALLOW_RULE], "deny": ["Read(.env)"] },
                "hooks": {
                    "PreToolUse": [
                        { "matcher": "Write", "hooks": [{ "type": "command", "command": "lint.sh" }] },
                        { "matcher": PRE_TOOL_USE_MATCHER, "hooks": [pre()] },
                    ],
                    "Stop": [{ "hooks": [{ "type": "command", "command": "notify" }] }],
                    "PostToolUse": [{ "matcher": "*", "hooks": [post()] }],
                },
            })
        );
        assert_eq!(merged(merge_settings, once.clone()), once);
    }

    #[test]
    fn an_existing_handler_is_completed_moved_or_deduplicated() {
        // An absolute path under a covering matcher: kept, in exec form, completed with a
        // timeout and onFailure.
        let custom = json!({ "hooks": {
            "PreToolUse": [{ "matcher": "*", "hooks": [{ "type": "command", "command": "/opt/bin/code-intel-pre-tool-use" }] }],
        }});
        let out = merged(merge_settings, custom);
        assert_eq!(
            out["hooks"]["PreToolUse"],
            json!([{ "matcher": "*", "hooks": [{ "type": "command", "command": "/opt/bin/code-intel-pre-tool-use", "args": [], "timeout": HOOK_TIMEOUT_SECS, "onFailure": "block" }] }])
        );
        // An old matcher without Bash, shared with another handler, plus a duplicate: our handler
        // leaves the old group (the other handler stays), the duplicate's group disappears, one
        // canonical group is added.
        let old = json!({ "hooks": { "PreToolUse": [
            { "matcher": "Edit|Write", "hooks": [{ "type": "command", "command": "fmt" }, pre()] },
            { "matcher": "Edit|Write", "hooks": [pre()] },
        ]}});
        let out = merged(merge_settings, old);
        assert_eq!(
            out["hooks"]["PreToolUse"],
            json!([
                { "matcher": "Edit|Write", "hooks": [{ "type": "command", "command": "fmt" }] },
                { "matcher": PRE_TOOL_USE_MATCHER, "hooks": [pre()] },
            ])
        );
    }

    #[test]
    fn mcp_json_keeps_other_servers_and_updates_ours_in_place() {
        let input = json!({ "mcpServers": {
            "other": { "command": "npx", "args": ["x"] },
            "code-intel": { "command": "/home/u/.cargo/bin/code-intel", "args": ["serve", "--json"], "env": { "CODE_INTEL_LOG": "debug" } },
        }});
        let out = merged(merge_mcp_json, input);
        assert_eq!(
            out,
            json!({ "mcpServers": {
                "other": { "command": "npx", "args": ["x"] },
                "code-intel": { "type": "stdio", "command": "/home/u/.cargo/bin/code-intel", "args": ["serve", "--json"], "env": { "CODE_INTEL_LOG": "debug" }, "alwaysLoad": true },
            }})
        );
        let wrong =
            json!({ "mcpServers": { "code-intel": { "type": "http", "url": "http://x" } } });
        let out = merged(merge_mcp_json, wrong);
        assert_eq!(
            out["mcpServers"]["code-intel"]["command"],
            json!("code-intel")
        );
        assert_eq!(out["mcpServers"]["code-intel"]["args"], json!(["serve"]));
        assert_eq!(out["mcpServers"]["code-intel"]["type"], json!("stdio"));
    }

    #[test]
    fn wrong_shapes_are_refused() {
        for (merge, doc, what) in [
            (merge_settings as Merge, json!([]), "top level"),
            (merge_settings, json!({ "hooks": [] }), "`hooks`"),
            (
                merge_settings,
                json!({ "hooks": { "PreToolUse": {} } }),
                "`hooks.PreToolUse`",
            ),
            (
                merge_settings,
                json!({ "permissions": { "allow": "x" } }),
                "`permissions.allow`",
            ),
            (merge_mcp_json, json!({ "mcpServers": [] }), "`mcpServers`"),
            (
                merge_mcp_json,
                json!({ "mcpServers": { "code-intel": "x" } }),
                "code-intel",
            ),
        ] {
            let err = merge(&mut Json::from_value(doc), &Programs::OnPath).unwrap_err();
            assert!(err.contains(what), "{err}");
        }
    }

    #[test]
    fn earlier_pre_tool_use_forms_are_upgraded_to_fail_closed_exec_form() {
        // The shell form `… || exit 2` blocked a missing binary but not a timeout; the plain exec
        // form blocked neither. Both become the exec form with onFailure, once.
        for command in [LEGACY_PRE_TOOL_USE_COMMAND, PRE_TOOL_USE_BIN] {
            let old = json!({ "hooks": { "PreToolUse": [{ "matcher": "*", "hooks": [
                { "type": "command", "command": command, "timeout": 7 }
            ] }] } });
            let once = merged(merge_settings, old);
            assert_eq!(
                once["hooks"]["PreToolUse"][0]["hooks"],
                json!([{ "type": "command", "command": PRE_TOOL_USE_BIN, "args": [], "timeout": 7, "onFailure": "block" }]),
                "{command}"
            );
            assert_eq!(merged(merge_settings, once.clone()), once);
        }
        // A command the user wrote differently (extra arguments, a wrapper) keeps its command and
        // gets onFailure; a user's "continue" is overridden: the gate must not fail open.
        let custom = json!({ "hooks": { "PreToolUse": [{ "matcher": "*", "hooks": [
            { "type": "command", "command": "/opt/bin/code-intel-pre-tool-use", "args": ["--x"], "timeout": 7, "onFailure": "continue" }
        ] }] } });
        assert_eq!(
            merged(merge_settings, custom)["hooks"]["PreToolUse"][0]["hooks"],
            json!([{ "type": "command", "command": "/opt/bin/code-intel-pre-tool-use", "args": ["--x"], "timeout": 7, "onFailure": "block" }])
        );
    }

    #[test]
    fn absolute_programs_are_written_and_followed() {
        let dir = Programs::In(PathBuf::from("/opt/code-intel/bin"));
        let settings = merged_with(merge_settings, &dir, json!({}));
        assert_eq!(
            settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            json!("/opt/code-intel/bin/code-intel-pre-tool-use")
        );
        assert_eq!(
            settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
            json!("/opt/code-intel/bin/code-intel-post-tool-use")
        );
        let mcp = merged_with(merge_mcp_json, &dir, json!({}));
        assert_eq!(
            mcp["mcpServers"]["code-intel"]["command"],
            json!("/opt/code-intel/bin/code-intel")
        );
        // An upgrade that moved the binaries moves the configured paths, hooks and server.
        let moved = Programs::In(PathBuf::from("/srv/new/bin"));
        let settings = merged_with(merge_settings, &moved, settings);
        assert_eq!(
            settings["hooks"]["PreToolUse"][0]["hooks"],
            json!([{ "type": "command", "command": "/srv/new/bin/code-intel-pre-tool-use", "args": [], "timeout": HOOK_TIMEOUT_SECS, "onFailure": "block" }])
        );
        let mcp = merged_with(merge_mcp_json, &moved, mcp);
        assert_eq!(
            mcp["mcpServers"]["code-intel"]["command"],
            json!("/srv/new/bin/code-intel")
        );
        // Back on PATH, an absolute path the user kept stays.
        assert_eq!(
            merged(merge_settings, settings.clone()),
            settings,
            "OnPath keeps a configured absolute path"
        );
    }

    #[test]
    fn matchers_and_commands() {
        assert_eq!(MatcherKind::of(None), MatcherKind::All);
        assert_eq!(MatcherKind::of(Some(" * ")), MatcherKind::All);
        assert_eq!(
            MatcherKind::of(Some("Edit, Write|Bash")),
            MatcherKind::Names(vec!["Edit".into(), "Write".into(), "Bash".into()])
        );
        assert_eq!(
            MatcherKind::of(Some("Edit.*")),
            MatcherKind::Regex("Edit.*".into())
        );
        assert_eq!(MatcherKind::of(Some("Edit.*")).selects("Edit"), None);
        assert!(runs_binary(
            "code-intel-pre-tool-use",
            true,
            PRE_TOOL_USE_BIN
        ));
        assert!(runs_binary(
            "\"$D\"/bin/code-intel-pre-tool-use --x",
            false,
            PRE_TOOL_USE_BIN
        ));
        assert!(!runs_binary(
            "code-intel-pre-tool-use-wrapper",
            true,
            PRE_TOOL_USE_BIN
        ));
        assert!(!runs_binary(
            "echo code-intel-pre-tool-use",
            false,
            PRE_TOOL_USE_BIN
        ));
        let hooks = command_hooks(&json!({ "hooks": { "PreToolUse": [
            { "matcher": "Write", "hooks": [{ "type": "command", "command": "a", "args": ["x"], "timeout": 5 }, { "type": "prompt", "prompt": "p" }] }
        ]}}));
        assert_eq!(
            hooks,
            vec![CommandHook {
                event: "PreToolUse".into(),
                matcher: Some("Write".into()),
                command: "a".into(),
                args: Some(vec!["x".into()]),
                timeout_secs: Some(5),
                on_failure: None,
            }]
        );
    }

    #[test]
    fn skills_are_rewritten_to_project_names() {
        let text = "allowed-tools: mcp__plugin_code-intel_code-intel__start_session\nCall `mcp__plugin_code-intel_code-intel__record_outcome`.";
        assert_eq!(
            project_skill_text(text),
            "allowed-tools: mcp__code-intel__start_session\nCall `mcp__code-intel__record_outcome`."
        );
    }

    #[test]
    fn plan_apply_plan_is_unchanged_and_malformed_files_stop_everything() {
        let dir = tempfile::tempdir().unwrap();
        let root = RepoRoot::new(dir.path()).unwrap();
        let skills = [Skill {
            name: "code",
            plugin_text: "x mcp__plugin_code-intel_code-intel__start_session\n",
        }];
        std::fs::write(
            dir.path().join(".mcp.json"),
            "{\"mcpServers\": {\"z\": {\"command\": \"z\"}}}",
        )
        .unwrap();
        let first = install(&root, &skills, &Programs::OnPath, None).unwrap();
        let changes: Vec<_> = first
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.change))
            .collect();
        assert_eq!(
            changes,
            vec![
                (".code-intel/config.json", Change::Create),
                (".code-intel/.gitignore", Change::Create),
                (".mcp.json", Change::Update),
                (".claude/settings.json", Change::Create),
                (".claude/skills/code/SKILL.md", Change::Create),
            ]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".claude/skills/code/SKILL.md")).unwrap(),
            "x mcp__code-intel__start_session\n"
        );
        let mcp = std::fs::read_to_string(dir.path().join(".mcp.json")).unwrap();
        assert!(
            mcp.find("\"z\"").unwrap() < mcp.find("\"code-intel\"").unwrap(),
            "order kept: {mcp}"
        );
        let config: Config =
            serde_json::from_str(&std::fs::read_to_string(Config::path(dir.path())).unwrap())
                .unwrap();
        assert_eq!(config, Config::default());

        let second = install(&root, &skills, &Programs::OnPath, None).unwrap();
        assert!(!second.changes_anything(), "{second:#?}");

        std::fs::write(dir.path().join(".claude/settings.json"), "{\"hooks\": ").unwrap();
        std::fs::remove_file(dir.path().join(".mcp.json")).unwrap();
        let err = install(&root, &skills, &Programs::OnPath, None).unwrap_err();
        assert!(matches!(err, InstallError::Malformed { .. }), "{err}");
        assert!(err.to_string().contains("nothing was changed"), "{err}");
        assert!(
            !dir.path().join(".mcp.json").exists(),
            "a refused plan writes nothing"
        );
    }

    #[test]
    fn the_launcher_becomes_the_local_shell_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let root = RepoRoot::new(dir.path()).unwrap();
        let launcher = Path::new("/opt/ci/bin/code-intel-sandbox");
        let local = dir.path().join(SETTINGS_LOCAL_JSON);
        let prefix = |local: &Path| -> serde_json::Value {
            serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(local).unwrap())
                .unwrap()["env"][SHELL_PREFIX_ENV]
                .clone()
        };

        // Created, next to the user's own local settings, which stay.
        std::fs::create_dir_all(local.parent().unwrap()).unwrap();
        std::fs::write(
            &local,
            r#"{"permissions": {"allow": ["Bash(make:*)"]}, "env": {"FOO": "1"}}"#,
        )
        .unwrap();
        let first = install(&root, &[], &Programs::OnPath, Some(launcher)).unwrap();
        assert!(first.warnings.is_empty(), "{:?}", first.warnings);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
        assert_eq!(
            doc,
            json!({ "permissions": { "allow": ["Bash(make:*)"] },
                    "env": { "FOO": "1", SHELL_PREFIX_ENV: "/opt/ci/bin/code-intel-sandbox" } })
        );
        assert!(
            !install(&root, &[], &Programs::OnPath, Some(launcher))
                .unwrap()
                .changes_anything()
        );

        // A launcher that moved is followed.
        let moved = Path::new("/usr/local/bin/code-intel-sandbox");
        install(&root, &[], &Programs::OnPath, Some(moved)).unwrap();
        assert_eq!(prefix(&local), json!("/usr/local/bin/code-intel-sandbox"));

        // A prefix of the user's own is kept, with a warning saying what it costs.
        std::fs::write(
            &local,
            r#"{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/usr/bin/nice"}}"#,
        )
        .unwrap();
        let kept = install(&root, &[], &Programs::OnPath, Some(launcher)).unwrap();
        assert_eq!(prefix(&local), json!("/usr/bin/nice"));
        assert!(
            kept.warnings
                .iter()
                .any(|w| w.contains("/usr/bin/nice") && w.contains("bypassPermissions")),
            "{:?}",
            kept.warnings
        );

        // No launcher found: nothing written there, and a warning.
        std::fs::remove_file(&local).unwrap();
        let none = install(&root, &[], &Programs::OnPath, None).unwrap();
        assert!(!local.exists());
        assert!(
            none.warnings
                .iter()
                .any(|w| w.contains("code-intel-sandbox not found")),
            "{:?}",
            none.warnings
        );
    }

    #[test]
    fn warns_when_the_repository_ignores_the_state_dir() {
        let dir = tempfile::tempdir().unwrap();
        let root = RepoRoot::new(dir.path()).unwrap();
        let launcher = Some(Path::new("/bin/code-intel-sandbox"));
        assert!(
            plan(&root, &[], &Programs::OnPath, launcher)
                .unwrap()
                .warnings
                .is_empty()
        );
        std::fs::write(dir.path().join(".gitignore"), ".code-intel/\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(
            dir.path().join(".claude/settings.json"),
            "{\"disableAllHooks\": true}",
        )
        .unwrap();
        let warnings = plan(&root, &[], &Programs::OnPath, launcher)
            .unwrap()
            .warnings;
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("disableAllHooks"));
        assert!(warnings[1].contains(".gitignore ignores .code-intel/"));
    }
}
