//! The write gate: the policy behind the PreToolUse and PostToolUse hooks.
//!
//! [`pre_tool_use`] decides whether Claude Code may run a tool: every tool reaches it (matcher
//! `*`), typed by the adapter into a [`ToolCall`] whose [`Action`] says what the tool can write (a
//! file, a shell command analysed by [`code_intel_bash`], Claude Code's configuration, nothing, or the
//! path-like strings of a tool the adapter's table does not know). It fails closed: every internal
//! error (unreadable config, corrupt session state, a tool input missing its field, a FIFO where a
//! file should be) becomes a [`Verdict::Deny`] whose reason says how to recover.
//! [`post_tool_use`] binds Claude Code sessions to code-intel sessions and records what was read
//! or edited.
//!
//! Rules, in order:
//! 1. Claude Code's configuration and code-intel's own state and binaries ([`protect`]) are never
//!    writable by the agent, in any phase and any `gate_mode`, wherever they are; the check runs on
//!    the real location of the target (symlinks, `/proc/<pid>/cwd`, `~`). `EnterWorktree` and
//!    `CronCreate` write there by design.
//! 2. Other targets outside the repository are not gated; `/dev/null` and friends never count.
//! 3. Paths ignored by the root `.gitignore` (or under `node_modules/`, `target/`, `__pycache__/`,
//!    `.venv/`, `venv/`) pass: build output and dependencies are not source.
//! 4. `gate_mode` `off` passes everything else; `session` gates only while a session is bound;
//!    `strict` (default) denies without a session.
//! 5. With a session: [`SessionState::write_permission`] (not ended by `record_outcome`, READY,
//!    IMPLEMENT/MODIFY, explored file or approved new file, no HYPOTHESIS left); an ended session
//!    counts as none in `session` mode. A Bash target that cannot be resolved statically (`$VAR`,
//!    globs, `xargs`, a script run from a file, a pipe into a shell) is denied — unless the
//!    command runs under the kernel sandbox whatever the hook answers
//!    ([`Kernel::confines`]) and the session may write no source (no session, or a phase
//!    before READY): then the kernel refuses its writes into the repository. A tool the table
//!    does not know has every path-like string of its input that lands in the project gated as a
//!    write.

mod call;
mod git_index;
mod loaded;
pub mod protect;
pub mod sandbox;
pub mod tools;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, GateMode};
use crate::persist;
use crate::repo_path::{RepoPath, RepoPathError, RepoRoot, real_location};
use crate::session::store::{SessionError, SessionStore};
use crate::session::{NewFiles, SessionState, ToolCallRecord};
use crate::vocab::{SessionId, Timestamp};
pub use call::{Action, Kernel, ToolCall};
use code_intel_bash as bash;
use code_intel_bash::BashTarget;
use loaded::Loaded;
use protect::ConfigLocations;
use protect::Protected;
use sandbox::SandboxPlan;

/// The gate's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Let the tool run (the hook prints nothing, so Claude Code's own permission flow applies).
    Allow,
    /// Block it; `reason` goes to the model and names the next tool to call.
    Deny {
        /// Why, and what to do.
        reason: String,
    },
}

/// The gate's answer to one PreToolUse call ([`pre_tool_use`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Whether the tool may run.
    pub verdict: Verdict,
    /// For an allowed shell call the adapter rewrites under the launcher
    /// ([`Kernel::Rewrites`]): what the command may write. `None` for every other call, and when
    /// the gate is not active for this one (`gate_mode: off`, or `session` mode without a live
    /// session): then the command runs as it is.
    pub sandbox: Option<SandboxPlan>,
}

impl Decision {
    fn deny(reason: String) -> Self {
        Self {
            verdict: Verdict::Deny { reason },
            sandbox: None,
        }
    }
}

/// Errors the gate turns into denials (pre) or reports (post).
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// The project directory is unusable.
    #[error(transparent)]
    Root(RepoPathError),
    /// `.code-intel/config.json` is unreadable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Session state is unreadable.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The tool input lacks what the tool always has ([`Action::MissingField`]).
    #[error("tool input of {tool} has no {field}")]
    BadInput {
        /// The tool.
        tool: String,
        /// The missing field.
        field: &'static str,
    },
    /// A path in the tool input is unusable.
    #[error("unusable path in tool input: {0}")]
    BadPath(RepoPathError),
}

/// Directory names whose contents are never source, whatever `.gitignore` says.
const ALWAYS_IGNORED_DIRS: [&str; 5] = ["node_modules", "target", "__pycache__", ".venv", "venv"];

/// Whether `p` lies in one of [`ALWAYS_IGNORED_DIRS`].
fn in_always_ignored_dir(p: &RepoPath) -> bool {
    p.as_str()
        .split('/')
        .any(|seg| ALWAYS_IGNORED_DIRS.contains(&seg))
}

/// Whether the agent may never write `p` (the gate's and Claude Code's own configuration inside
/// the repository; [`protect`] has the full rule).
fn is_protected(p: &RepoPath) -> bool {
    p.as_str()
        .split('/')
        .any(|seg| seg == crate::state_dir::STATE_DIR || seg == ".claude")
        || p.as_str() == ".mcp.json"
}

use crate::session::store::{IGNORE_FILES, ignore_digest};

struct Ignores {
    gitignore: ignore::gitignore::Gitignore,
    /// What git tracks, read on the first pattern match only (most calls never need it).
    tracked: std::cell::OnceCell<git_index::Tracked>,
}

impl Ignores {
    fn load(root: &RepoRoot) -> Self {
        let mut b = ignore::gitignore::GitignoreBuilder::new(root.path());
        for rel in IGNORE_FILES {
            let path = root.path().join(rel);
            // Read without blocking (a FIFO planted here must not hang the hook) and bounded.
            // Missing, unreadable or not a regular file: skipped, so the gate gates more, not
            // less. A malformed line is skipped by the builder for the same reason.
            if let Ok(Some(bytes)) = persist::read_regular(&path, persist::MAX_STATE_FILE_BYTES) {
                for line in String::from_utf8_lossy(&bytes).lines() {
                    b.add_line(Some(path.clone()), line).ok();
                }
            }
        }
        Self {
            gitignore: b
                .build()
                .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty()),
            tracked: std::cell::OnceCell::new(),
        }
    }

    fn ignored(&self, root: &RepoRoot, p: &RepoPath) -> bool {
        let tracked = || {
            self.tracked
                .get_or_init(|| git_index::Tracked::load(root.path()))
                .holds(p.as_str())
        };
        if in_always_ignored_dir(p) {
            // A source directory may be called `target/` or `venv/`: tracked files are source.
            return !tracked();
        }
        let abs = root.absolute(p);
        // As in git, a tracked file (or a directory holding one) is not ignored, whatever the
        // patterns say: a `.gitignore` rewritten to `*` does not make source writable.
        !p.is_root()
            && self
                .gitignore
                .matched_path_or_any_parents(&abs, abs.is_dir())
                .is_ignore()
            && !tracked()
    }
}

/// A gated write target.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A repository path (file or directory).
    Path(RepoPath),
    /// A repository path the ignore rules make build output: writable, unless the session's
    /// ignore rules changed since it started ([`SessionState::ignore_digest`]).
    Ignored(RepoPath),
    /// A Bash target the gate cannot resolve.
    Dynamic { word: String, via: String },
    /// Claude Code's or code-intel's configuration: denied in every phase.
    Protected { path: String, what: &'static str },
}

/// What a denied call writes, for the reason that denies it without a session: up to three of
/// its non-ignored targets (`this call writes package.json, package-lock.json and
/// npm-shrinkwrap.json`), so an agent
/// that ran `npm install` or `jest -u` to look around learns which files it would have changed.
fn what_is_written(targets: &[Target]) -> String {
    let named: Vec<String> = targets
        .iter()
        .filter_map(|t| match t {
            Target::Path(p) if p.as_str().is_empty() || p.as_str() == "." => {
                Some("files anywhere in the repository".to_string())
            }
            Target::Path(p) => Some(p.as_str().to_string()),
            Target::Dynamic { word, .. } => Some(format!("`{word}` (known only when it runs)")),
            Target::Protected { path, .. } => Some(path.clone()),
            Target::Ignored(_) => None,
        })
        .collect();
    let shown = named.iter().take(3).cloned().collect::<Vec<_>>();
    match (shown.len(), named.len()) {
        (0, _) => "this call writes into the repository".to_string(),
        (1, _) => format!("this call writes {}", shown[0]),
        (n, total) if total > n => format!(
            "this call writes {} and {} more",
            shown.join(", "),
            total - n
        ),
        _ => {
            let (last, rest) = shown.split_last().expect("two or more");
            format!("this call writes {} and {last}", rest.join(", "))
        }
    }
}

/// The directory part of `word` before its first shell expansion (`target/debug/*.o` →
/// `target/debug`), if the expansion comes after a `/`. `~`-prefixed words have no literal prefix.
fn literal_dir_prefix(word: &str) -> Option<&str> {
    let first_dynamic = word.find(['*', '?', '[', '{', '$', '`', '~'])?;
    let slash = word[..first_dynamic].rfind('/')?;
    let prefix = &word[..slash];
    (!prefix.is_empty() || word.starts_with('/')).then_some(if prefix.is_empty() {
        "/"
    } else {
        prefix
    })
}

/// The targets a call writes, or `None` when the tool does not write.
fn write_targets(
    root: &RepoRoot,
    call: &ToolCall<'_>,
    loaded: &Loaded<'_>,
) -> Result<Option<Vec<Target>>, GateError> {
    let protect = Protected::new(call.locations);
    let mut raw: Vec<(BashTarget, String)> = Vec::new();
    match &call.action {
        Action::ReadFiles(_) | Action::ReadOnly | Action::StartSession(_) | Action::Other => {
            return Ok(None);
        }
        Action::MissingField(field) => {
            return Err(GateError::BadInput {
                tool: call.tool.into(),
                field,
            });
        }
        // Claude Code expands a leading `~` of a file tool's path before the hook sees it
        // (observed); should one arrive unexpanded, it names the home directory, not `./~`.
        Action::WriteFile(path) if *path == "~" || path.starts_with("~/") => {
            let target = match protect.home() {
                Some(home) => BashTarget::Path(
                    home.join(path.trim_start_matches('~').trim_start_matches('/'))
                        .to_string_lossy()
                        .into_owned(),
                ),
                None => BashTarget::Dynamic((*path).into()),
            };
            raw.push((target, call.tool.into()));
        }
        Action::WriteFile(path) => raw.push((BashTarget::Path((*path).into()), call.tool.into())),
        Action::Shell(command) => raw.extend(
            bash::analyze(command)
                .writes
                .into_iter()
                .map(|w| (w.target, w.via)),
        ),
        Action::OpaqueShell => {
            return Ok(Some(vec![Target::Dynamic {
                word: "<command>".into(),
                via: format!("{}, which the gate cannot analyse", call.tool),
            }]));
        }
        Action::ConfigWrite(what) => {
            return Ok(Some(vec![Target::Protected {
                path: (*what).into(),
                what: "Claude Code's configuration (.claude/), where this tool writes",
            }]));
        }
        Action::Unknown(Some(paths)) => raw.extend(paths.iter().map(|p| {
            (
                BashTarget::Path(p.clone()),
                format!("{} (a tool the gate does not know)", call.tool),
            )
        })),
        Action::Unknown(None) => {
            return Ok(Some(vec![Target::Dynamic {
                word: "<tool input>".into(),
                via: format!(
                    "{}, a tool the gate does not know, whose input is too large or too deep \
                     to check every path in it",
                    call.tool
                ),
            }]));
        }
    }
    let mut targets = Vec::new();
    for (t, via) in raw {
        let word = match t {
            BashTarget::Script(w) => {
                if !script_is_known(root, call.cwd, &protect, &w) {
                    targets.push(Target::Dynamic { word: w, via });
                }
                continue;
            }
            BashTarget::Path(w) | BashTarget::Tree(w) => w,
            BashTarget::Dynamic(word) => {
                if let Some(p) = protect::expand_home(&word, protect.home()) {
                    // `~/x`, `$HOME/x`: a literal path once the home directory is known.
                    p.to_string_lossy().into_owned()
                } else {
                    if protect.dynamic_may_hit(&word) {
                        targets.push(Target::Protected {
                            path: word,
                            what: "possibly Claude Code's or code-intel's configuration (the path is only known at run time)",
                        });
                        continue;
                    }
                    if !dynamic_is_harmless(root, call.cwd, &protect, loaded.ignores(), &word) {
                        targets.push(Target::Dynamic { word, via });
                    }
                    continue;
                }
            }
        };
        let joined = call.cwd.join(&word);
        let Some(plain) = protect::unproc(&joined, call.cwd) else {
            targets.push(Target::Dynamic {
                word,
                via: format!("{via} (through /proc/self)"),
            });
            continue;
        };
        let real = real_location(&plain);
        if let Some(what) = protect.what(&real) {
            targets.push(Target::Protected {
                path: real.display().to_string(),
                what,
            });
            continue;
        }
        let Some(plain) = plain.to_str() else {
            return Err(GateError::BadPath(RepoPathError::Invalid { input: word }));
        };
        match root.resolve_from(call.cwd, plain) {
            Ok(p) if is_protected(&p) => targets.push(Target::Protected {
                path: p.to_string(),
                what: "code-intel's or Claude Code's own configuration",
            }),
            Ok(p) if loaded.ignores().ignored(root, &p) => targets.push(Target::Ignored(p)),
            Ok(p) => targets.push(Target::Path(p)),
            Err(RepoPathError::OutsideRoot { .. }) => {}
            Err(e) => return Err(GateError::BadPath(e)),
        }
    }
    Ok(Some(targets))
}

/// Where programs run by path are trusted outside the repository: the system's own directories,
/// which the agent cannot write.
const SYSTEM_DIRS: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/nix", "/snap",
];

/// Whether a file run as code (`bash x.sh`, `./x`, `source x`) is one the gate can vouch for: a
/// file of the project (which the gate keeps from being written outside READY) or a system
/// program. A script in `/tmp` or the home directory may hold any write.
fn script_is_known(root: &RepoRoot, cwd: &Path, protect: &Protected, word: &str) -> bool {
    let path = match protect::expand_home(word, protect.home()) {
        Some(p) => p,
        // Run-time words, and process substitutions (`source <(cat /tmp/x.sh)`).
        None if word.contains(['*', '?', '[', '{', '$', '`', '~', '<', '>', '(']) => return false,
        None => cwd.join(word),
    };
    let Some(plain) = protect::unproc(&path, cwd) else {
        return false;
    };
    let real = real_location(&plain);
    real.starts_with(root.path()) || SYSTEM_DIRS.iter().any(|d| real.starts_with(d))
}

/// Whether a run-time target (`rm -rf target/*`) cannot reach source or configuration: its literal
/// directory prefix lies in an ignored directory of the repository, or outside the repository
/// in a directory that holds neither the repository nor a protected location (`/proc` and `/dev`
/// never count: `/proc/$$/cwd` is the shell's working directory).
fn dynamic_is_harmless(
    root: &RepoRoot,
    cwd: &Path,
    protect: &Protected,
    ignores: &Ignores,
    word: &str,
) -> bool {
    let Some(prefix) = literal_dir_prefix(word) else {
        return false;
    };
    let real = real_location(&cwd.join(prefix));
    if real.starts_with("/proc")
        || real.starts_with("/dev")
        || protect.what(&real).is_some()
        || protect.holds_protected(&real)
        || root.path().starts_with(&real)
    {
        return false;
    }
    match root.resolve_from(cwd, prefix) {
        Ok(p) => !p.is_root() && !is_protected(&p) && ignores.ignored(root, &p),
        Err(RepoPathError::OutsideRoot { .. }) => true,
        Err(_) => false,
    }
}

/// Decides a PreToolUse call: the verdict and, for an allowed shell call the adapter rewrites
/// under the launcher ([`Kernel::Rewrites`]), the sandbox plan, from one reading of the project
/// (repository root, ignore rules, config, binding, session; each only when a rule needs it).
/// Never panics by design and never fails open: an error denies, saying how to recover.
pub fn pre_tool_use(project_dir: &Path, call: &ToolCall<'_>) -> Decision {
    let root = match RepoRoot::new(project_dir) {
        Ok(root) => root,
        Err(e) => return Decision::deny(could_not_check(&GateError::Root(e))),
    };
    let loaded = Loaded::new(&root, call.claude_session_id);
    let verdict = match decide(&root, call, &loaded) {
        Ok(v) => v,
        Err(e) => return Decision::deny(could_not_check(&e)),
    };
    let rewritten =
        matches!(call.kernel, Kernel::Rewrites { .. }) && matches!(call.action, Action::Shell(_));
    if verdict != Verdict::Allow || !rewritten {
        return Decision {
            verdict,
            sandbox: None,
        };
    }
    match sandbox::plan(&root, call.claude_session_id, call.locations, &loaded) {
        Ok(sandbox) => Decision { verdict, sandbox },
        Err(e) => Decision::deny(format!(
            "code-intel gate could not prepare the write sandbox for this command ({e}), so it was blocked to be safe; run `code-intel doctor`"
        )),
    }
}

/// The reason of a denial for an internal error.
fn could_not_check(e: &GateError) -> String {
    format!(
        "code-intel gate could not check this write ({e}), so it was blocked to be safe. Fix the cause, or run `code-intel doctor`."
    )
}

fn decide(root: &RepoRoot, call: &ToolCall<'_>, loaded: &Loaded<'_>) -> Result<Verdict, GateError> {
    // The ignore rules are read only once a target needs them (never for a read-only call).
    let Some(targets) = write_targets(root, call, loaded)? else {
        return Ok(Verdict::Allow);
    };
    if let Some(Target::Protected { path, what }) = targets
        .iter()
        .find(|t| matches!(t, Target::Protected { .. }))
    {
        return Ok(Verdict::Deny {
            reason: format!(
                "{path} is {what}; the agent may not change it in any phase (code-intel's gate protects it). Ask the user to edit it."
            ),
        });
    }
    if targets.iter().all(|t| matches!(t, Target::Ignored(_))) && call.claude_session_id.is_none() {
        return Ok(Verdict::Allow);
    }
    if targets.is_empty() {
        return Ok(Verdict::Allow);
    }
    // A shell command that runs under the kernel sandbox whatever this hook answers: a write the
    // analysis cannot resolve is the kernel's to refuse, as long as the session may write no
    // source (no session, or a phase before READY), since then the sandbox lets the command
    // write nothing of the repository but ignored directories. In READY the kernel's unit is the
    // directory, wider than the session's files, so the analysis keeps denying there.
    let kernel_decides = call.kernel.confines() && matches!(call.action, Action::Shell(_));
    let mode = loaded.config()?.gate_mode;
    // The binding is read in every mode: an unreadable one denies even with the gate off.
    let bound = loaded.bound()?.cloned();
    let state = match mode {
        GateMode::Off => None,
        _ => loaded.session()?,
    };
    let verdict = match (state, mode) {
        (_, GateMode::Off) => Verdict::Allow,
        (None, GateMode::Session) => Verdict::Allow,
        // Ignored build output needs no session.
        (None, GateMode::Strict)
            if targets.iter().all(|t| {
                matches!(t, Target::Ignored(_)) || (kernel_decides && kernel_can_refuse(t))
            }) =>
        {
            Verdict::Allow
        }
        (None, GateMode::Strict) => Verdict::Deny {
            reason: format!(
                "code-intel: {}; no code-intel session is active for this conversation, and writes need one. Start one with the /code skill \
                 (or call the code-intel MCP tool start_session(intent, query)), explore until READY, then edit explored files.",
                what_is_written(&targets)
            ),
        },
        // An ended session (record_outcome) is no active session: `session` mode lets the
        // write through, `strict` denies it (write_permission says to start a new one).
        (Some(state), GateMode::Session) if state.ended.is_some() => Verdict::Allow,
        (Some(state), _) => judge(root, state, &targets, kernel_decides),
    };
    if let Verdict::Deny { reason } = &verdict {
        journal_denial(root, call, bound, reason);
    }
    Ok(verdict)
}

/// Whether the kernel sandbox can refuse what run-time target `t` stands for: a [`Target::Dynamic`]
/// not made by a command that only changes metadata. Landlock governs creating, writing,
/// truncating, renaming and removing files, not `chmod` or `utime`, so a run-time `chmod`
/// (`find src | xargs chmod 000`, a mode git tracks) or `touch` of an existing file would pass
/// the sandbox: the analysis keeps denying those.
fn kernel_can_refuse(t: &Target) -> bool {
    match t {
        Target::Dynamic { via, .. } => !via
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(bash::changes_metadata_only),
        _ => false,
    }
}

/// The verdict for `targets` under session `state`; `kernel_decides`: run-time targets are left
/// to the kernel sandbox while the phase grants no write (see [`decide`]).
fn judge(
    root: &RepoRoot,
    state: &SessionState,
    targets: &[Target],
    kernel_decides: bool,
) -> Verdict {
    // Ignore rules changed since the session started (`.gitignore` edited in READY): no path
    // is build output by pattern any more; each is gated like source.
    let rules_changed = state
        .ignore_digest
        .as_deref()
        .is_some_and(|d| d != ignore_digest(root));
    for t in targets {
        match t {
            Target::Ignored(p) if !rules_changed || in_always_ignored_dir(p) => {}
            Target::Ignored(p) => {
                let exists = root.absolute(p).exists();
                if let Err(d) = state.write_permission(p, exists, NewFiles::ApprovedOnly) {
                    return Verdict::Deny {
                        reason: format!(
                            "{} (the ignore rules changed during this session, so ignored paths are gated like source)",
                            d.reason
                        ),
                    };
                }
            }
            Target::Dynamic { word, via } => {
                // Outside READY the phase message is the more useful one.
                let reason = match state.write_permission(&RepoPath::root(), true, NewFiles::Never)
                {
                    // The phase grants no write: the sandbox refuses every source write.
                    Err(d) if !d.recoverable_in_ready && kernel_decides && kernel_can_refuse(t) => {
                        continue;
                    }
                    Err(d) if !d.recoverable_in_ready => d.reason,
                    _ => format!(
                        "this command writes to `{word}` ({via}), which the gate cannot resolve to a file; use Edit/Write, or a literal path of an explored file"
                    ),
                };
                return Verdict::Deny { reason };
            }
            Target::Protected { path, what } => {
                return Verdict::Deny {
                    reason: format!("{path} is {what}; the agent may not change it"),
                };
            }
            Target::Path(p) => {
                let exists = root.absolute(p).exists();
                if let Err(d) = state.write_permission(p, exists, NewFiles::ApprovedOnly) {
                    return Verdict::Deny { reason: d.reason };
                }
            }
        }
    }
    Verdict::Allow
}

/// What a [`GateEvent`] records. Serialised snake_case (`"pre_tool_use_deny"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateEventKind {
    /// The PreToolUse hook denied a tool call.
    PreToolUseDeny,
}

impl GateEventKind {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            GateEventKind::PreToolUseDeny => "pre_tool_use_deny",
        }
    }
}

/// One line of `.code-intel/journal/gate.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GateEvent {
    /// RFC 3339.
    pub timestamp: Timestamp,
    /// What happened (`pre_tool_use_deny`).
    pub event: GateEventKind,
    /// Claude Code session.
    pub claude_session_id: Option<String>,
    /// code-intel session, when bound.
    pub session_id: Option<SessionId>,
    /// The tool.
    pub tool: String,
    /// Files concerned.
    pub files: Vec<String>,
    /// Denial reason.
    pub reason: Option<String>,
}

fn journal_denial(
    root: &RepoRoot,
    call: &ToolCall<'_>,
    session_id: Option<SessionId>,
    reason: &str,
) {
    let event = GateEvent {
        timestamp: crate::vocab::now(),
        event: GateEventKind::PreToolUseDeny,
        claude_session_id: call.claude_session_id.map(String::from),
        session_id,
        tool: call.tool.into(),
        files: match call.action {
            Action::WriteFile(path) => vec![path.into()],
            _ => Vec::new(),
        },
        reason: Some(reason.into()),
    };
    // The denial stands whether or not the journal can be written.
    persist::append_jsonl(&root.state().gate_journal(), &event).ok();
}

/// What a PostToolUse call changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostOutcome {
    /// A Claude Code session bound to this code-intel session (after `start_session`).
    pub bound_session: Option<SessionId>,
    /// Files recorded on the bound session.
    pub recorded_files: Vec<String>,
}

/// Files a tool touched, as written in its input or result (unresolved): the files a read-like
/// tool names, the file a writing tool wrote, the files a shell command reads.
fn touched_files(action: &Action<'_>) -> Vec<String> {
    match action {
        Action::ReadFiles(files) => files.iter().map(|f| (*f).to_string()).collect(),
        Action::WriteFile(path) => vec![(*path).to_string()],
        Action::Shell(command) => bash::analyze(command)
            .reads
            .into_iter()
            .filter_map(|t| match t {
                BashTarget::Path(p) | BashTarget::Tree(p) => Some(p),
                BashTarget::Dynamic(_) | BashTarget::Script(_) => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Handles a PostToolUse call: binds the Claude Code session after `start_session`, and records
/// files read (Read, Grep, Glob, Bash reads) or edited on the bound session.
///
/// # Errors
/// [`GateError`] when state cannot be read or written; the hook reports it on stderr and the
/// tool's result stands (PostToolUse runs after the tool).
pub fn post_tool_use(project_dir: &Path, call: &ToolCall<'_>) -> Result<PostOutcome, GateError> {
    let root = RepoRoot::new(project_dir).map_err(GateError::Root)?;
    let store = SessionStore::new(root.clone());
    let Some(cs) = call.claude_session_id else {
        return Ok(PostOutcome::default());
    };
    if let Action::StartSession(started) = &call.action {
        let Some(id) = started.clone() else {
            return Ok(PostOutcome::default());
        };
        let id = SessionId::try_from(id).map_err(SessionError::from)?;
        store.bind(cs, &id)?;
        return Ok(PostOutcome {
            bound_session: Some(id),
            recorded_files: Vec::new(),
        });
    }
    let Some(id) = store.bound(cs)? else {
        return Ok(PostOutcome::default());
    };
    let ignores = Ignores::load(&root);
    let mut files: Vec<String> = touched_files(&call.action)
        .iter()
        .filter_map(|f| root.resolve_from(call.cwd, f).ok())
        .filter(|p| !p.is_root() && !is_protected(p) && !ignores.ignored(&root, p))
        // Only files that exist as regular files: `ls src` reads a directory, and an explored
        // directory would make everything under it writable in READY; a missing path (`ls
        // src/new`) or a symlink is no file the agent has read.
        .filter(|p| {
            root.absolute(p)
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_file())
        })
        // git's own files are never explored source: `.git/config` and `.git/hooks/*` make
        // later read-only git commands run programs.
        .filter(|p| !p.is_git_internal())
        .map(|p| p.as_str().to_string())
        .collect();
    files.sort();
    files.dedup();
    // Read-like and writing tools are recorded even when they named no file of the project.
    if files.is_empty() && !matches!(call.action, Action::ReadFiles(_) | Action::WriteFile(_)) {
        return Ok(PostOutcome::default());
    }
    let record = ToolCallRecord {
        tool: call.tool.into(),
        params: serde_json::json!({"via": "PostToolUse"}),
        files: files.clone(),
        result_summary: format!("{} file(s)", files.len()),
        phase: crate::vocab::Phase::Exploration,
        timestamp: Timestamp::default(),
    };
    store.record_tool_call(&id, record)?;
    Ok(PostOutcome {
        bound_session: None,
        recorded_files: files,
    })
}

#[cfg(test)]
mod tests;
