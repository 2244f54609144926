//! One Claude Code conversation over several `claude -p` runs: the first run starts it, every
//! later one continues it (`--continue`), as a user who types `/code …`, checks the change, then
//! types `/outcome success …` in the same session.
//!
//! Continuing keeps Claude Code's `session_id` (observed with 2.1.328), so the hooks and the new
//! MCP server process see the same Claude Code session, bound to the same code-intel session; and
//! the history of the earlier runs is sent again. The fake API picks a scripted step by the number
//! of assistant messages already in a request ([`crate::fake_api`]), so a continuing run's script
//! is padded with the turns the conversation already has, and its tool-use ids are numbered from
//! there: [`Turn`] maps a run's own step numbers to them.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::case::{CaseError, ClaudeCase, ClaudeRun};
use crate::fake_api::{LoggedRequest, Step, ToolResult, tool_use_id};

/// The text of the padding steps standing for turns an earlier run played (never answered: a run
/// that gets one shows the padding went wrong).
pub const PADDING_TEXT: &str = "(a turn of an earlier run; seeing this means the padding is off)";

/// A conversation: a [`ClaudeCase`] and the number of assistant turns so far.
#[derive(Debug)]
pub struct Conversation {
    case: ClaudeCase,
    claude: PathBuf,
    turns: usize,
    runs: usize,
}

/// One run of a conversation: the run and where its own steps start.
#[derive(Debug)]
pub struct Turn {
    /// The run.
    pub run: ClaudeRun,
    /// Assistant turns of the conversation before this run (this run's step `i` is the
    /// conversation's step `offset + i`).
    pub offset: usize,
}

impl Conversation {
    /// A conversation in `case` run with `claude`; nothing runs yet.
    pub fn new(case: ClaudeCase, claude: &Path) -> Self {
        Self {
            case,
            claude: claude.to_owned(),
            turns: 0,
            runs: 0,
        }
    }

    /// The case (its project, files, environment).
    pub fn case(&self) -> &ClaudeCase {
        &self.case
    }

    /// The case, to change its environment or timeout between runs.
    pub fn case_mut(&mut self) -> &mut ClaudeCase {
        &mut self.case
    }

    /// The case, given back (to keep its directory, [`ClaudeCase::keep`]).
    pub fn into_case(self) -> ClaudeCase {
        self.case
    }

    /// Assistant turns so far: the step number the next run's step 0 gets.
    pub fn turns(&self) -> usize {
        self.turns
    }

    /// Runs `claude -p <prompt>` continuing the conversation, playing `steps` and then
    /// `closing` as the final text turn.
    ///
    /// # Errors
    /// As [`ClaudeCase::run`].
    pub fn say(
        &mut self,
        prompt: &str,
        steps: Vec<Step>,
        closing: &str,
    ) -> Result<Turn, CaseError> {
        if self.runs == 1 {
            // `arg` accumulates: added once, every later run continues.
            self.case.arg("--continue");
        }
        let offset = self.turns;
        let mut script = vec![Step::text(PADDING_TEXT); offset];
        script.extend(steps);
        script.push(Step::text(closing));
        self.case.prompt(prompt).script(script);
        let run = self.case.run(&self.claude)?;
        self.runs += 1;
        // Every main-loop request is answered by one assistant message: the last one carries all
        // earlier turns, and its answer is one more.
        self.turns = run
            .main_loop_requests()
            .last()
            .map_or(offset, |r| assistant_messages(r) + 1);
        Ok(Turn { run, offset })
    }
}

/// The number of assistant messages in a request's history.
pub fn assistant_messages(request: &LoggedRequest) -> usize {
    request
        .body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(0, |m| {
            m.iter()
                .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
                .count()
        })
}

impl Turn {
    /// The tool-use id of this run's step `step` (block 0).
    pub fn id(&self, step: usize) -> String {
        tool_use_id(self.offset + step, 0)
    }

    /// The `tool_result` of this run's step `step` (block 0).
    pub fn result(&self, step: usize) -> Option<ToolResult> {
        self.run.tool_result(self.offset + step, 0)
    }

    /// Whether this run's step `step` is in the result's `permission_denials`.
    pub fn denied(&self, step: usize) -> bool {
        self.run.denied(self.offset + step, 0)
    }

    /// The first main-loop request of this run: the one carrying the prompt (a skill's expansion).
    pub fn first_request(&self) -> Option<&LoggedRequest> {
        self.run.main_loop_requests().into_iter().next()
    }

    /// The text of the user messages this run added to the conversation (the prompt, or the
    /// expansion of a skill it invoked), joined with `\n`: the messages of the first request after
    /// the history of the earlier runs.
    pub fn prompt_text(&self) -> String {
        let Some(first) = self.first_request() else {
            return String::new();
        };
        let messages = first
            .body
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut seen = 0;
        let start = messages
            .iter()
            .position(|m| {
                if seen == self.offset {
                    return true;
                }
                if m.get("role").and_then(Value::as_str) == Some("assistant") {
                    seen += 1;
                }
                false
            })
            .unwrap_or(messages.len());
        messages[start..]
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .flat_map(message_texts)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The texts of a message: its string content, or the `text` of its text blocks.
fn message_texts(message: &Value) -> Vec<String> {
    match message.get("content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}
