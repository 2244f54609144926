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
    /// Whether a shell command of this call ([`Action::Shell`]) will run under the kernel write
    /// sandbox whatever the hook answers: Claude Code's shell prefix is code-intel's launcher and
    /// the kernel enforces its Landlock ruleset fully (the adapter checks both). Then a write the
    /// static analysis cannot resolve ([`code_intel_bash::BashTarget::Dynamic`], a script it cannot
    /// vouch for) is left to the kernel while the session may write no source, instead of denied.
    pub shell_confined: bool,
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
