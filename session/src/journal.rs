//! The decision journal: one JSON line per plan the router makes (the DecisionLog,
//! docs/DESIGN.md#journals), in `.code-intel/journal/decisions.jsonl`, append-only and safe under
//! concurrent writers.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::persist::{self, PersistError};
use crate::query_frame::QueryFrame;
use crate::router::Plan;
use crate::vocab::{RiskLevel, SessionId, Slot, Timestamp};

/// Version of the decision record format.
pub const DECISION_VERSION: u32 = 1;

/// One router decision: the DecisionLog fields plus the `query_frame` (docs/DESIGN.md#journals).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// Record format version.
    pub version: u32,
    /// The code-intel session.
    pub session_id: SessionId,
    /// The request.
    pub query: String,
    /// RFC 3339 timestamp.
    pub timestamp: Timestamp,
    /// IMPLEMENT / MODIFY / INVESTIGATE / QUESTION.
    pub intent: String,
    /// What made this decision: `start_session` or `set_query_frame`.
    pub trigger: String,
    /// Phases the plan expects.
    pub required_phases: Vec<String>,
    /// Slots left open.
    pub missing_slots: Vec<Slot>,
    /// Risk level.
    pub risk_level: RiskLevel,
    /// Tools planned.
    pub tools_planned: Vec<String>,
    /// Whether exploration starts from scratch.
    pub needs_bootstrap: bool,
    /// Why.
    pub bootstrap_reason: Option<String>,
    /// The frame the plan was made from.
    pub query_frame: Option<QueryFrame>,
}

impl DecisionRecord {
    /// A record of `plan` for a session.
    pub fn new(
        session_id: &SessionId,
        intent: &str,
        trigger: &str,
        frame: &QueryFrame,
        plan: &Plan,
        timestamp: Timestamp,
    ) -> Self {
        Self {
            version: DECISION_VERSION,
            session_id: session_id.clone(),
            query: frame.raw_query.clone(),
            timestamp,
            intent: intent.into(),
            trigger: trigger.into(),
            required_phases: plan.required_phases.clone(),
            missing_slots: plan.missing_slots.clone(),
            risk_level: plan.risk_level,
            tools_planned: plan.tools.iter().map(|t| t.name().to_string()).collect(),
            needs_bootstrap: plan.needs_bootstrap,
            bootstrap_reason: plan.bootstrap_reason.clone(),
            query_frame: Some(frame.clone()),
        }
    }
}

/// Path of the decision journal under a state dir (`<repo>/.code-intel`).
pub fn decisions_path(state_dir: &Path) -> PathBuf {
    crate::state_dir::StateDir::at(state_dir).decisions_journal()
}

/// Appends a decision.
///
/// # Errors
/// [`PersistError`] if the journal cannot be written.
pub fn record_decision(state_dir: &Path, record: &DecisionRecord) -> Result<(), PersistError> {
    persist::append_jsonl(&decisions_path(state_dir), record)
}

/// Reads all decisions; lines that do not parse are skipped and counted (a torn or hand-edited line
/// never hides the rest).
///
/// # Errors
/// I/O errors other than a missing file.
pub fn read_decisions(state_dir: &Path) -> std::io::Result<(Vec<DecisionRecord>, usize)> {
    persist::read_jsonl(&decisions_path(state_dir))
}
