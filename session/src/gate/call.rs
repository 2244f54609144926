//! The gate's input: a tool call, typed. The adapters (the hook binaries and the Node binding,
//! both through `code_intel_hooks::HookInput::call`) read Claude Code's hook JSON — its tool
//! table, the `tool_input` fields, MCP result shapes — and hand the gate only what it judges: the
//! file a tool writes, the command it runs, the files it read. The policy never sees JSON
//! (ARCHITECTURE.md, "Invariants").

use std::path::Path;

use super::ConfigLocations;

/// A tool call as the gate judges it.
#[derive(Debug, Clone)]
pub struct ToolCall<'a> {
    /// Claude Code's `session_id` (binds the call to a code-intel session).
    pub claude_session_id: Option<&'a str>,
    /// The hook's `cwd` (absolute); relative paths and Bash commands resolve against it.
    pub cwd: &'a Path,
    /// The tool's name as Claude Code reports it (`Edit`, `Bash`, `mcp__code-intel__x`): recorded
    /// in journals and named in messages, never matched by the policy.
    pub tool: &'a str,
    /// What the tool does to files.
    pub action: Action<'a>,
    /// Where Claude Code's configuration and code-intel's binaries are (from the hook's
    /// environment), protected in every phase.
    pub locations: &'a ConfigLocations,
    /// How the kernel write sandbox meets this call's shell command ([`Action::Shell`]): the
    /// adapter knows (Claude Code's shell prefix, the session environment line, its own rewrite);
    /// the gate leaves writes the static analysis cannot resolve to the kernel only when it
    /// [`confines`](Kernel::confines) the command, and plans the sandbox for a rewrite.
    pub kernel: Kernel,
}

/// How the kernel write sandbox (Landlock, through the `code-intel-sandbox` launcher) meets a shell
/// command, as the adapter found it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Kernel {
    /// Not at all, as far as the adapter knows (not a shell tool, no launcher, another adapter
    /// than Claude Code's hook): the static analysis decides alone.
    #[default]
    Absent,
    /// The command runs under the launcher whatever the hook answers — Claude Code's shell prefix
    /// or the session environment line hands it over — and the kernel enforces the launcher's
    /// ruleset fully (the adapter checks both).
    Confines,
    /// The adapter runs the command, if allowed, under the launcher with the plan of
    /// [`Decision::sandbox`](super::Decision::sandbox), which the gate then computes.
    /// `enforced`: the launcher lies outside the project and the kernel enforces its ruleset
    /// fully, so the rewrite confines the command as [`Kernel::Confines`] does.
    Rewrites {
        /// The rewritten command is confined (else the sandbox is best effort).
        enforced: bool,
    },
}

impl Kernel {
    /// Whether the command runs confined whatever the gate answers, so that a write the static
    /// analysis cannot resolve ([`code_intel_bash::BashTarget::Dynamic`], a script it cannot
    /// vouch for) may be left to the kernel while the session may write no source.
    pub fn confines(self) -> bool {
        matches!(self, Kernel::Confines | Kernel::Rewrites { enforced: true })
    }
}

/// What a tool call does, as far as the gate is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action<'a> {
    /// Reads the files it names and writes nothing (Read: its `file_path`; Grep, Glob: the files
    /// of their result). PostToolUse records them as explored.
    ReadFiles(Vec<&'a str>),
    /// Never writes project files (other searches, the web, plans, questions).
    ReadOnly,
    /// Writes this one file (Write, Edit, MultiEdit, NotebookEdit), as written in the input.
    WriteFile(&'a str),
    /// Runs this shell command line (Bash, Monitor): analysed statically for writes and reads.
    Shell(&'a str),
    /// Runs a command the Bash analyser cannot read (PowerShell): denied while the gate is active.
    OpaqueShell,
    /// Writes Claude Code's configuration by design (`EnterWorktree`, `CronCreate`); names where.
    ConfigWrite(&'static str),
    /// code-intel's `start_session` MCP tool, with the session id of its result (PostToolUse;
    /// `None` before it ran or when the result holds none).
    StartSession(Option<String>),
    /// Drives Claude Code itself (agents, skills, tasks) or is another code-intel MCP tool (the
    /// server checks its phase): whatever it then does goes through the hooks again.
    Other,
    /// A tool the adapter does not know (a new Claude Code tool, a foreign MCP server's tool):
    /// every path-like string of its input, gated as a write; `None` when the input was too large
    /// or too deep to list every one (the gate then denies).
    Unknown(Option<Vec<String>>),
    /// A writing or command-running tool whose input lacks the field it always has (named here,
    /// `file_path`): denied, since the gate cannot see what it would do.
    MissingField(&'static str),
}
