//! Claude Code's tools, classified: what each one can do to the project and which field of its
//! input names where. The PreToolUse hook runs for every tool (matcher `*`); the hooks adapter
//! (`code_intel_hooks::tools`) reads the named field of the hook JSON into the gate's
//! [`Action`](super::Action), and the outcome analysis (which recorded calls edited) and
//! `code-intel init`/`doctor` (which tools a hook matcher must cover) read the same table. No
//! JSON is read here.
//!
//! The names are Claude Code 2.1.328's built-in tool list (its `Rsn` name table; the e2e test
//! `tool_table_covers_claude_code` reads the tools the pinned Claude Code offers the model and fails
//! on a name missing here), plus older names still seen in the wild (`Task`, `MultiEdit`, `LS`,
//! `NotebookRead`, `BashOutput`, `KillShell`, `TaskOutput`, `SlashCommand`).
//!
//! A tool not in the table (a new Claude Code tool, a foreign MCP server's tool) is
//! [`ToolClass::Unknown`]: the adapter hands the gate every path-like string of its input, each
//! gated as a write target, so an unclassified tool cannot open the gate.

/// What a tool can do to the project's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    /// Reads, searches, the web, the conversation: never writes project files.
    ReadOnly,
    /// Writes the one file named by this field of its input (gated by the session).
    FileWrite(&'static str),
    /// Runs the shell command in this field of its input (analysed statically).
    Shell(&'static str),
    /// Runs a command the Bash analyser cannot read (PowerShell): denied while the gate is active.
    OpaqueShell,
    /// Writes Claude Code's configuration (`.claude/`) by design: denied in every phase.
    ConfigWrite(&'static str),
    /// Drives Claude Code itself (agents, skills, tasks, messages); whatever it then does goes
    /// through the hooks again.
    Other,
    /// Not in the table.
    Unknown,
}

/// The table: tool name → class.
pub const TOOLS: &[(&str, ToolClass)] = &[
    ("Read", ToolClass::ReadOnly),
    ("Glob", ToolClass::ReadOnly),
    ("Grep", ToolClass::ReadOnly),
    ("LS", ToolClass::ReadOnly),
    ("LSP", ToolClass::ReadOnly),
    ("NotebookRead", ToolClass::ReadOnly),
    ("WebFetch", ToolClass::ReadOnly),
    ("WebSearch", ToolClass::ReadOnly),
    ("ToolSearch", ToolClass::ReadOnly),
    ("ListAgents", ToolClass::ReadOnly),
    ("ListMcpResourcesTool", ToolClass::ReadOnly),
    ("ReadMcpResourceTool", ToolClass::ReadOnly),
    ("ReadMcpResourceDirTool", ToolClass::ReadOnly),
    ("ReadNotifications", ToolClass::ReadOnly),
    ("CronList", ToolClass::ReadOnly),
    ("TaskGet", ToolClass::ReadOnly),
    ("TaskList", ToolClass::ReadOnly),
    ("TaskOutput", ToolClass::ReadOnly),
    ("BashOutput", ToolClass::ReadOnly),
    ("AskUserQuestion", ToolClass::ReadOnly),
    ("EnterPlanMode", ToolClass::ReadOnly),
    ("ExitPlanMode", ToolClass::ReadOnly),
    ("ReportFindings", ToolClass::ReadOnly),
    ("WaitForMcpServers", ToolClass::ReadOnly),
    ("Edit", ToolClass::FileWrite("file_path")),
    ("Write", ToolClass::FileWrite("file_path")),
    ("MultiEdit", ToolClass::FileWrite("file_path")),
    ("NotebookEdit", ToolClass::FileWrite("notebook_path")),
    ("Bash", ToolClass::Shell("command")),
    // Monitor runs a shell command in the background and streams its output.
    ("Monitor", ToolClass::Shell("command")),
    ("PowerShell", ToolClass::OpaqueShell),
    // A full checkout under `.claude/worktrees/`.
    (
        "EnterWorktree",
        ToolClass::ConfigWrite(".claude/worktrees/"),
    ),
    // Durable tasks go to `.claude/scheduled_tasks.json`.
    (
        "CronCreate",
        ToolClass::ConfigWrite(".claude/scheduled_tasks.json"),
    ),
    ("CronDelete", ToolClass::Other),
    ("ExitWorktree", ToolClass::Other),
    ("Agent", ToolClass::Other),
    ("Task", ToolClass::Other),
    ("Workflow", ToolClass::Other),
    ("Skill", ToolClass::Other),
    ("SlashCommand", ToolClass::Other),
    ("TaskCreate", ToolClass::Other),
    ("TaskUpdate", ToolClass::Other),
    ("TaskStop", ToolClass::Other),
    ("KillShell", ToolClass::Other),
    ("TodoWrite", ToolClass::Other),
    ("SendMessage", ToolClass::Other),
    ("SendUserMessage", ToolClass::Other),
    ("SendUserFile", ToolClass::Other),
    ("SendFeedback", ToolClass::Other),
    ("PushNotification", ToolClass::Other),
    ("ScheduleWakeup", ToolClass::Other),
    ("RemoteTrigger", ToolClass::Other),
    ("SetGoal", ToolClass::Other),
    ("SubagentHandback", ToolClass::Other),
    ("EndConversation", ToolClass::Other),
    ("Artifact", ToolClass::Other),
    ("ArtifactComments", ToolClass::Other),
    ("ArtifactData", ToolClass::Other),
    ("ArtifactCheck", ToolClass::Other),
    ("ClaudeDesign", ToolClass::Other),
    ("Projects", ToolClass::Other),
    ("propose_skills", ToolClass::Other),
    ("OfferChromeSetup", ToolClass::Other),
    ("ShareOnboardingGuide", ToolClass::Other),
    ("ShowOnboardingRolePicker", ToolClass::Other),
    ("DeferredToolPlaceholder", ToolClass::Other),
];

/// The class of `tool_name`. code-intel's own MCP tools are [`ToolClass::Other`] (the server
/// checks their phase); other MCP tools and unlisted names are [`ToolClass::Unknown`].
pub fn classify(tool_name: &str) -> ToolClass {
    if let Some((_, c)) = TOOLS.iter().find(|(n, _)| *n == tool_name) {
        return *c;
    }
    if is_code_intel_mcp(tool_name) {
        return ToolClass::Other;
    }
    ToolClass::Unknown
}

/// Whether `tool_name` is one of code-intel's MCP tools, in project (`mcp__code-intel__x`) or
/// plugin (`mcp__plugin_code-intel_code-intel__x`) form.
pub fn is_code_intel_mcp(tool_name: &str) -> bool {
    tool_name.starts_with("mcp__code-intel__")
        || tool_name.starts_with("mcp__plugin_code-intel_code-intel__")
}

/// Whether a call of `tool_name` writes the one file its input names (Edit, Write, MultiEdit,
/// NotebookEdit): the calls a session's record counts as edits.
pub fn writes_a_file(tool_name: &str) -> bool {
    matches!(classify(tool_name), ToolClass::FileWrite(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(classify("Edit"), ToolClass::FileWrite("file_path"));
        assert_eq!(
            classify("NotebookEdit"),
            ToolClass::FileWrite("notebook_path")
        );
        assert_eq!(classify("Monitor"), ToolClass::Shell("command"));
        assert!(matches!(
            classify("EnterWorktree"),
            ToolClass::ConfigWrite(_)
        ));
        assert_eq!(classify("mcp__code-intel__start_session"), ToolClass::Other);
        assert_eq!(classify("mcp__fs__write_file"), ToolClass::Unknown);
        assert_eq!(classify("SomeFutureTool"), ToolClass::Unknown);
    }
}
