//! The wire-shaped values the session tools take and return: tool call records, the
//! `submit_understanding`/`submit_semantic`/`submit_verification` inputs and results, write
//! checks, `add_explored_files`, `revert_to_exploration` and `get_session_status`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::SessionEnd;
use super::requirements::{Requirement, SemanticReason, Shortfall};
use crate::query_frame::{FrameView, SlotEvidence, SlotValidationError};
use crate::router::Plan;
use crate::vocab::RiskLevel;
use crate::vocab::Slot;
use crate::vocab::{Intent, Phase, SessionId, Timestamp};

/// One tool call made during the session (MCP exploration tools and, via PostToolUse, Claude
/// Code's own Read/Grep/Glob/Edit/Write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// Tool name without the MCP prefix (`find_definitions`, `Read`).
    pub tool: String,
    /// Parameters (large values may be cut).
    #[serde(default)]
    pub params: serde_json::Value,
    /// Repository-relative files it touched.
    #[serde(default)]
    pub files: Vec<String>,
    /// One-line summary of the result.
    #[serde(default)]
    pub result_summary: String,
    /// Phase at the time of the call (filled in when recorded).
    #[serde(default = "default_phase")]
    pub phase: Phase,
    /// RFC 3339 timestamp (filled in when recorded: empty until then).
    #[serde(default)]
    pub timestamp: Timestamp,
}

fn default_phase() -> Phase {
    Phase::Exploration
}

/// `submit_understanding` input (docs/DESIGN.md#submit-understanding).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Understanding {
    /// Symbols the exploration identified.
    pub symbols_identified: Vec<String>,
    /// Entry points (each linked to a symbol).
    pub entry_points: Vec<String>,
    /// Files read and understood (repo-relative or absolute inside the repo).
    pub files_analyzed: Vec<String>,
    /// Existing patterns to follow.
    pub existing_patterns: Vec<String>,
    /// Free-form notes.
    pub notes: Option<String>,
    /// Evidence per slot: which recorded tool call grounded it.
    pub slot_evidence: BTreeMap<Slot, SlotEvidence>,
}

/// One unmet requirement, machine-readable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MissingRequirement {
    /// What falls short: `symbols_identified`, `entry_points`, `files_analyzed`,
    /// `existing_patterns`, `required_tool`, `slot_evidence`, `hypothesis`.
    pub requirement: Requirement,
    /// Required count (for counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<usize>,
    /// Provided count (for counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provided: Option<usize>,
    /// What exactly is missing (tool or slot name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// Human-readable explanation.
    pub message: String,
}

impl MissingRequirement {
    pub(super) fn count(s: Shortfall, required: usize, provided: usize) -> Self {
        Self {
            message: format!(
                "{}: {provided} given, at least {required} required",
                s.name()
            ),
            requirement: s.into(),
            required: Some(required),
            provided: Some(provided),
            item: None,
        }
    }
}

/// How confident `submit_understanding` judged the exploration: `high` when it reached READY.
/// Serialised lower-case (`"high"`, `"low"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Requirements met: READY.
    High,
    /// Something falls short or the input was invalid.
    Low,
}

impl Confidence {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Low => "low",
        }
    }
}

/// Result of `set_query_frame` (with `error: validation_failed` and `validation_errors` when a
/// slot is rejected, docs/DESIGN.md#slots).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetQueryFrameResult {
    /// Whether every submitted slot was accepted.
    pub success: bool,
    /// `validation_failed` when some slot was rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Rejected slots.
    pub validation_errors: Vec<SlotValidationError>,
    /// Slots accepted by this call.
    pub accepted_slots: Vec<Slot>,
    /// Slots still open.
    pub missing_slots: Vec<Slot>,
    /// Risk level after this call.
    pub risk_level: RiskLevel,
    /// The new plan (investigation guidance).
    pub plan: Plan,
    /// Explanation.
    pub message: String,
}

/// Result of `submit_understanding`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnderstandingResult {
    /// False when the submission was rejected as invalid (phase unchanged).
    pub success: bool,
    /// The phase after the call.
    pub next_phase: Phase,
    /// `high` (READY) or `low`.
    pub evaluated_confidence: Confidence,
    /// Invalid input (nothing changed): fix and resubmit.
    pub validation_errors: Vec<String>,
    /// What falls short.
    pub missing_requirements: Vec<MissingRequirement>,
    /// Reasons `submit_semantic` will accept, when sent to SEMANTIC.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_semantic_reasons: Vec<SemanticReason>,
    /// Risk level used.
    pub risk_level: RiskLevel,
    /// Whether the markup relaxation applied.
    pub markup_context: bool,
    /// What to do next.
    pub next_action: String,
}

/// A hypothesis formed in SEMANTIC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HypothesisInput {
    /// The claim, e.g. "login is validated in LoginRequest.rules".
    pub text: String,
    /// The slot it fills, if any.
    #[serde(default)]
    pub slot: Option<Slot>,
    /// The slot value it proposes (with slot).
    #[serde(default)]
    pub value: Option<String>,
    /// The code symbol it proposes, if any.
    #[serde(default)]
    pub symbol: Option<String>,
}

/// Verification state of a hypothesis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HypothesisStatus {
    /// Not yet verified (SlotSource::Hypothesis).
    Hypothesis,
    /// Verified: promoted to FACT.
    Confirmed,
    /// Refuted: must not be implemented on.
    Rejected,
}

/// Evidence from an exploration tool called in VERIFICATION.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VerificationEvidence {
    /// Exploration tool (find_definitions, find_references, search_text, ...).
    pub tool: String,
    /// What it was run on (symbol, pattern or file).
    pub target: String,
    /// What it showed.
    pub result: String,
}

/// A recorded hypothesis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hypothesis {
    /// `h1`, `h2`, ...
    pub id: String,
    /// As submitted.
    #[serde(flatten)]
    pub input: HypothesisInput,
    /// Current status.
    pub status: HypothesisStatus,
    /// Evidence once verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<VerificationEvidence>,
}

/// Result of `submit_semantic`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SemanticResult {
    /// Whether the submission was accepted.
    pub success: bool,
    /// Phase after the call.
    pub next_phase: Phase,
    /// Why it was rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The recorded hypotheses (ids for `submit_verification`).
    pub hypotheses: Vec<Hypothesis>,
    /// What to do next.
    pub next_action: String,
}

/// One verified hypothesis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VerificationInput {
    /// Hypothesis id from submit_semantic (h1, h2, ...).
    pub hypothesis_id: String,
    /// confirmed or rejected.
    pub status: VerdictStatus,
    /// The evidence.
    pub evidence: VerificationEvidence,
}

/// A verification verdict: the hypothesis holds (confirmed) or not (rejected).
// The variants carry no doc comments on purpose: with them the schema (feature `schema`) would
// turn the plain `enum` of two names into a `oneOf` of described constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum VerdictStatus {
    Confirmed,
    Rejected,
}

/// Result of `submit_verification`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerificationResult {
    /// Whether all results were accepted.
    pub success: bool,
    /// Phase after the call.
    pub next_phase: Phase,
    /// Results that were refused and why.
    pub errors: Vec<String>,
    /// Hypotheses still unverified.
    pub remaining_hypotheses: Vec<String>,
    /// All hypotheses with their status.
    pub hypotheses: Vec<Hypothesis>,
    /// What to do next.
    pub next_action: String,
}

/// A recovery tool offered when a write is denied (docs/DESIGN.md#recovery).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryOption {
    /// What it does.
    pub description: String,
    /// An example call.
    pub example: String,
}

/// Result of a write check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteCheck {
    /// Whether the write may go ahead.
    pub allowed: bool,
    /// The repository-relative path checked.
    pub path: String,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Recovery tools (docs/DESIGN.md#recovery), when denied.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub recovery_options: BTreeMap<String, RecoveryOption>,
}

/// Result of `add_explored_files`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddExploredResult {
    /// Whether every path was accepted.
    pub success: bool,
    /// Paths added (repository-relative).
    pub added: Vec<String>,
    /// Paths refused, with the reason.
    pub rejected: Vec<String>,
    /// Size of the explored set.
    pub explored_count: usize,
}

/// Result of `revert_to_exploration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevertResult {
    /// Always true.
    pub success: bool,
    /// Phase before.
    pub previous_phase: Phase,
    /// Now EXPLORATION.
    pub phase: Phase,
    /// Whether exploration results were kept.
    pub kept_results: bool,
    /// Size of the explored set.
    pub explored_count: usize,
}

/// `get_session_status` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionStatus {
    /// Session id.
    pub session_id: SessionId,
    /// Intent.
    pub intent: Intent,
    /// Phase.
    pub phase: Phase,
    /// Effective risk.
    pub risk_level: RiskLevel,
    /// The request.
    pub query: String,
    /// The frame, without the request (that is `query`).
    pub query_frame: FrameView,
    /// Open slots.
    pub missing_slots: Vec<Slot>,
    /// Current plan.
    pub plan: Plan,
    /// Distinct tools used.
    pub tools_used: Vec<String>,
    /// Number of explored paths.
    pub explored_count: usize,
    /// Explored paths (first 200).
    pub explored_files: Vec<String>,
    /// Hypotheses.
    pub hypotheses: Vec<Hypothesis>,
    /// Unmet requirements from the last evaluation.
    pub missing_requirements: Vec<MissingRequirement>,
    /// What to do next.
    pub next_action: String,
    /// Set when an outcome was recorded: the session is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<SessionEnd>,
}
