//! Sessions: intent, phase, the structured request, what was explored, and the transitions
//! between phases (docs/DESIGN.md#phases, docs/DESIGN.md#recovery).
//!
//! A [`SessionState`] is a plain value; every transition is a method that returns an expected
//! outcome (accepted, rejected with reasons, moved to another phase) as data. Persistence,
//! locking and the Claude Code ↔ session binding live in [`store`].
//!
//! ```text
//! start_session ─► EXPLORATION ──submit_understanding──► READY
//!                      │  (requirements short)              ▲
//!                      ▼                                     │
//!                   SEMANTIC ──submit_semantic──► VERIFICATION ──submit_verification (no HYPOTHESIS left)
//! revert_to_exploration: any phase ─► EXPLORATION
//! ```
//!
//! This file holds [`SessionState`] (its fields, constructor, tool call record and small
//! accessors); the transitions live one phase per submodule, each an `impl SessionState` block,
//! and everything public is re-exported here (`session::check_tool`, `session::WriteCheck`, ...):
//!
//! | submodule | owns |
//! |---|---|
//! | `matrix.rs` | [`check_tool`], the phase/tool matrix, [`PhaseViolation`] |
//! | `results.rs` | the wire-shaped inputs and results of the session tools ([`Understanding`], [`UnderstandingResult`], [`WriteCheck`], [`SessionStatus`], ...) |
//! | `understanding.rs` | EXPLORATION: `set_query_frame`, `submit_understanding` and its evaluation |
//! | `semantic.rs` | SEMANTIC: `submit_semantic` |
//! | `verification.rs` | VERIFICATION: `submit_verification` |
//! | `ready.rs` | READY: `write_permission`, `check_write_target`, `add_explored_files`, `revert_to_exploration` |
//! | [`requirements`] | the requirement table by intent × risk, markup relaxation, semantic reasons |
//! | `confirm.rs` | where relevance verdicts change a session (`confirm_symbol_relevance`) |
//! | [`store`] | persistence, locking, the Claude Code ↔ session binding |

mod confirm;
mod matrix;
mod ready;
pub mod requirements;
mod results;
mod semantic;
pub mod store;
mod understanding;
mod verification;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::query_frame::QueryFrame;
use crate::repo_path::RepoPath;
use crate::router::{self, Plan};
use crate::vocab::RiskLevel;
use requirements::Requirement;
use requirements::SemanticReason;

use crate::vocab::{Intent, Phase, SessionId};
use crate::vocab::{Timestamp, now};
pub use confirm::{
    ScoredUnderstandingResult, confirm_symbol_relevance, nl_symbol_mapping_requirement,
};
pub use matrix::{PhaseViolation, check_tool};
pub use ready::{NewFiles, WriteDenial, recovery_options};
pub use results::{
    AddExploredResult, Confidence, Hypothesis, HypothesisInput, HypothesisStatus,
    MissingRequirement, RecoveryOption, RevertResult, SemanticResult, SessionStatus,
    SetQueryFrameResult, ToolCallRecord, Understanding, UnderstandingResult, VerdictStatus,
    VerificationEvidence, VerificationInput, VerificationResult, WriteCheck,
};

/// Version of the persisted session format.
pub const SESSION_VERSION: u32 = 1;

/// A phase change, for the journal and analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseChange {
    /// From.
    pub from: Phase,
    /// To.
    pub to: Phase,
    /// What caused it.
    pub by: String,
    /// RFC 3339 timestamp.
    pub at: Timestamp,
}

/// The whole persisted state of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    /// Format version ([`SESSION_VERSION`]).
    pub version: u32,
    /// Session id.
    pub session_id: SessionId,
    /// Intent.
    pub intent: Intent,
    /// The request.
    pub query: String,
    /// Current phase.
    pub phase: Phase,
    /// RFC 3339.
    pub created_at: Timestamp,
    /// RFC 3339, last change.
    pub updated_at: Timestamp,
    /// The Claude Code session that started it, if known.
    #[serde(default)]
    pub claude_session_id: Option<String>,
    /// The structured request.
    pub query_frame: QueryFrame,
    /// Whether `set_query_frame` was called.
    #[serde(default)]
    pub frame_set: bool,
    /// The current plan.
    pub plan: Plan,
    /// Raised risk floor (relevance verdicts may raise risk; nothing lowers it below the plan's).
    #[serde(default)]
    pub risk_floor: RiskLevel,
    /// The last accepted understanding.
    #[serde(default)]
    pub understanding: Option<Understanding>,
    /// What the last evaluation found missing.
    #[serde(default)]
    pub missing_requirements: Vec<MissingRequirement>,
    /// Semantic reason given.
    #[serde(default)]
    pub semantic_reason: Option<SemanticReason>,
    /// Hypotheses of the SEMANTIC phase.
    #[serde(default)]
    pub hypotheses: Vec<Hypothesis>,
    /// Tool calls in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCallRecord>,
    /// Explored files and directories (a directory explores its contents).
    #[serde(default)]
    pub explored: BTreeSet<RepoPath>,
    /// New files approved by `check_write_target(allow_new_files=true)`.
    #[serde(default)]
    pub approved_new_files: BTreeSet<RepoPath>,
    /// Phase history.
    #[serde(default)]
    pub phase_history: Vec<PhaseChange>,
    /// Set by `record_outcome`: the session is over and writes through it are denied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<SessionEnd>,
    /// SHA-256 of the repository's ignore rules (`.gitignore`, `.git/info/exclude`) when the
    /// session started. Once they differ, the gate stops treating pattern-ignored paths as
    /// writable build output for this session: an ignore rule added mid-session must not unlock
    /// files. `None` for sessions from before this field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_digest: Option<String>,
}

/// How a session ended: the latest outcome recorded for it (see [`crate::outcome`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEnd {
    /// success, failure or partial.
    pub outcome: crate::vocab::Outcome,
    /// RFC 3339.
    pub at: Timestamp,
}

/// Cap on the serialised size of recorded tool parameters, bytes.
const MAX_PARAMS_BYTES: usize = 2_000;

impl SessionState {
    /// A new session in EXPLORATION with the plan for an empty frame.
    pub fn new(
        session_id: SessionId,
        intent: Intent,
        query: String,
        claude_session_id: Option<String>,
    ) -> Self {
        let frame = QueryFrame::new(query.clone());
        let plan = router::plan(intent, &frame);
        let t = now();
        Self {
            version: SESSION_VERSION,
            session_id,
            intent,
            query,
            phase: Phase::Exploration,
            created_at: t.clone(),
            updated_at: t,
            claude_session_id,
            query_frame: frame,
            frame_set: false,
            plan,
            risk_floor: RiskLevel::Low,
            understanding: None,
            missing_requirements: Vec::new(),
            semantic_reason: None,
            hypotheses: Vec::new(),
            tool_calls: Vec::new(),
            explored: BTreeSet::new(),
            approved_new_files: BTreeSet::new(),
            phase_history: Vec::new(),
            ended: None,
            ignore_digest: None,
        }
    }

    /// The effective risk level: the plan's, raised by the floor.
    pub fn risk_level(&self) -> RiskLevel {
        self.plan.risk_level.max(self.risk_floor)
    }

    fn set_phase(&mut self, to: Phase, by: &str) {
        if self.phase != to {
            self.phase_history.push(PhaseChange {
                from: self.phase,
                to,
                by: by.into(),
                at: now(),
            });
            self.phase = to;
        }
    }

    /// Distinct tool names used so far.
    pub fn tools_used(&self) -> BTreeSet<&str> {
        self.tool_calls.iter().map(|c| c.tool.as_str()).collect()
    }

    /// Whether `path` is explored: listed itself, or inside an explored directory.
    pub fn is_explored(&self, path: &RepoPath) -> bool {
        self.explored.iter().any(|e| path.is_within(e))
    }

    /// Whether a directory counts as explored for new files: explored itself (or inside an
    /// explored directory), or holding an explored file.
    pub fn is_dir_explored(&self, dir: &RepoPath) -> bool {
        self.is_explored(dir)
            || self
                .explored
                .iter()
                .any(|e| e.parent().as_ref() == Some(dir))
    }

    /// Records a tool call; its files join the explored set. Parameters over 2 KB are cut.
    pub fn record_tool_call(&mut self, mut call: ToolCallRecord) {
        call.phase = self.phase;
        if call.timestamp.is_empty() {
            call.timestamp = now();
        }
        if serde_json::to_string(&call.params)
            .map(|s| s.len() > MAX_PARAMS_BYTES)
            .unwrap_or(false)
        {
            call.params = serde_json::json!({"truncated": true});
        }
        for f in &call.files {
            if let Ok(p) = RepoPath::parse_relative(f) {
                self.explored.insert(p);
            }
        }
        self.tool_calls.push(call);
    }

    /// A compact view for `get_session_status`.
    pub fn status(&self) -> SessionStatus {
        const MAX_LISTED: usize = 200;
        SessionStatus {
            session_id: self.session_id.clone(),
            intent: self.intent,
            phase: self.phase,
            risk_level: self.risk_level(),
            query: self.query.clone(),
            query_frame: (&self.query_frame).into(),
            missing_slots: self.query_frame.missing_slots(),
            plan: self.plan.clone(),
            tools_used: self.tools_used().into_iter().map(String::from).collect(),
            explored_count: self.explored.len(),
            explored_files: self
                .explored
                .iter()
                .take(MAX_LISTED)
                .map(|p| p.as_str().to_string())
                .collect(),
            hypotheses: self.hypotheses.clone(),
            missing_requirements: self.missing_requirements.clone(),
            next_action: match &self.ended {
                Some(_) => {
                    "this session has ended (record_outcome): start_session for new work".into()
                }
                None => self.phase.next_step().into(),
            },
            ended: self.ended.clone(),
        }
    }
}

#[cfg(test)]
mod tests;
