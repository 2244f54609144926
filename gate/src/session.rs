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

mod confirm;
pub mod requirements;
pub mod store;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::query_frame::{
    self, FrameView, MappedSymbol, QueryFrame, QueryFrameInput, QuoteChecker, Slot, SlotEvidence,
    SlotSource, SlotValidationError,
};
use crate::repo_path::{RepoPath, RepoRoot};
use crate::router::{self, Plan, RiskLevel};
pub use requirements::Requirement;
use requirements::{SemanticReason, Shortfall};

pub use crate::vocab::{Intent, Phase, SessionId, Tool, UnknownIntent};
use crate::vocab::{Timestamp, now};
pub use confirm::{
    ScoredUnderstandingResult, confirm_symbol_relevance, nl_symbol_mapping_requirement,
};

/// Version of the persisted session format.
pub const SESSION_VERSION: u32 = 1;

/// A tool called in a phase that does not allow it (docs/DESIGN.md#phase-tool-matrix).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseViolation {
    /// The tool.
    pub tool: String,
    /// The current phase.
    pub phase: Phase,
    /// The message for the model: the phase and what to do next.
    pub message: String,
}

/// The phase/tool matrix (docs/DESIGN.md#phase-tool-matrix):
///
/// | phase | semantic_search map | semantic_search forest | exploration tools | edits |
/// |---|---|---|---|---|
/// | EXPLORATION | yes | no | yes | no |
/// | SEMANTIC | yes | yes | no | no |
/// | VERIFICATION | yes | no | yes | no |
/// | READY | yes | yes | yes | yes |
///
/// Session tools: `submit_understanding`/`set_query_frame` in EXPLORATION, `submit_semantic` in
/// SEMANTIC, `submit_verification` in VERIFICATION, `add_explored_files` in READY,
/// `confirm_symbol_relevance` in EXPLORATION and VERIFICATION (while symbols are being mapped and
/// verified; it can raise the risk, which READY must not see change); status, write checks and
/// `revert_to_exploration` in every phase. `validate_symbol_relevance` needs no session. Unknown tools are not this matrix's business.
///
/// # Errors
/// A [`PhaseViolation`] naming the phase and the next step.
pub fn check_tool(
    phase: Phase,
    tool: &str,
    collection: Option<&str>,
) -> Result<(), PhaseViolation> {
    use Phase::*;
    let Some(known) = Tool::from_name(tool) else {
        return Ok(());
    };
    let allowed: &[Phase] = match known {
        t if t.is_exploration() => &[Exploration, Verification, Ready],
        Tool::SemanticSearch => match collection.unwrap_or("auto") {
            "map" => &[Exploration, Semantic, Verification, Ready],
            _ => &[Semantic, Ready],
        },
        Tool::SetQueryFrame | Tool::SubmitUnderstanding => &[Exploration],
        Tool::SubmitSemantic => &[Semantic],
        Tool::SubmitVerification => &[Verification],
        Tool::AddExploredFiles => &[Ready],
        Tool::ConfirmSymbolRelevance => &[Exploration, Verification],
        _ => return Ok(()),
    };
    if allowed.contains(&phase) {
        return Ok(());
    }
    let shown = match (known, collection) {
        (Tool::SemanticSearch, Some(c)) => format!("semantic_search(collection={c})"),
        _ => tool.to_string(),
    };
    let allowed_names: Vec<&str> = allowed.iter().map(|p| p.name()).collect();
    Err(PhaseViolation {
        tool: tool.into(),
        phase,
        message: format!(
            "{shown} is not available in phase {phase} (allowed in {}). Next: {}.",
            allowed_names.join(", "),
            phase.next_step()
        ),
    })
}

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
    fn count(s: Shortfall, required: usize, provided: usize) -> Self {
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

/// Why a write is refused, with the recovery the model should take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteDenial {
    /// Message naming the next tool to call.
    pub reason: String,
    /// Whether `add_explored_files` / `revert_to_exploration` can fix it.
    pub recoverable_in_ready: bool,
}

/// What to allow for a path that does not exist yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewFiles {
    /// Only files approved earlier by `check_write_target(allow_new_files=true)` (the hook's rule).
    ApprovedOnly,
    /// Any file whose parent directory is explored (`check_write_target(allow_new_files=true)`).
    InExploredDir,
    /// None (`check_write_target(allow_new_files=false)`).
    Never,
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

    /// Applies `set_query_frame`: validates each submitted slot's quote against the request,
    /// stores the accepted ones as FACT, and re-plans (the decision journal entry is the store's).
    pub fn set_query_frame(
        &mut self,
        input: &QueryFrameInput,
        checker: &dyn QuoteChecker,
    ) -> SetQueryFrameResult {
        let mut errors = Vec::new();
        let mut accepted = Vec::new();
        for (slot, slot_input) in input.slots() {
            match query_frame::validate_slot(slot, slot_input, &self.query, checker) {
                Ok(v) => {
                    self.query_frame.slots.insert(slot, v);
                    accepted.push(slot);
                }
                Err(e) => errors.push(e),
            }
        }
        self.frame_set = true;
        self.plan = router::plan(self.intent, &self.query_frame);
        let success = errors.is_empty();
        SetQueryFrameResult {
            success,
            error: (!success).then(|| "validation_failed".into()),
            message: if success {
                format!("Query frame set. Next: {}", Phase::Exploration.next_step())
            } else {
                "Some slot validations failed. Check quotes match original query.".into()
            },
            validation_errors: errors,
            accepted_slots: accepted,
            missing_slots: self.query_frame.missing_slots(),
            risk_level: self.risk_level(),
            plan: self.plan.clone(),
        }
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

    /// Evaluates `submit_understanding` (docs/DESIGN.md#submit-understanding): consistency,
    /// requirement table by intent × risk with markup relaxation, required tools from the
    /// session's own record, slot evidence at HIGH risk. Invalid input or missing tools/evidence
    /// keep the phase (fix and resubmit); count shortfalls move to SEMANTIC; otherwise READY.
    pub fn submit_understanding(
        &mut self,
        root: &RepoRoot,
        input: Understanding,
    ) -> UnderstandingResult {
        self.evaluate_understanding(root, input, None)
    }

    /// [`Self::submit_understanding`] with the relevance check of `symbols_identified` against the
    /// `target_feature` slot (docs/DESIGN.md#understanding-check, decided by calibrated verdicts,
    /// see [`crate::relevance`]). When no symbol is at least FACT the risk is raised to HIGH before
    /// the requirements are evaluated; when none is even FACT + HIGH, a missing requirement
    /// `nl_symbol_mapping` keeps the session from READY (it goes to SEMANTIC).
    /// Without a target feature or symbols nothing is scored; a scoring failure is reported and
    /// the evaluation proceeds as without a model. Invalid input changes nothing (risk included).
    pub fn submit_understanding_scored(
        &mut self,
        root: &RepoRoot,
        input: Understanding,
        scorer: &dyn crate::relevance::RelevanceScorer,
    ) -> ScoredUnderstandingResult {
        let term = self
            .query_frame
            .slots
            .get(&Slot::TargetFeature)
            .map(|v| v.value.clone());
        let mut check = term
            .filter(|_| !input.symbols_identified.is_empty())
            .map(|t| crate::relevance::RelevanceCheck::run(&t, &input.symbols_identified, scorer));
        let result = self.evaluate_understanding(root, input, check.as_ref());
        if let Some(c) = check.as_mut() {
            c.risk_raised = result.success && c.raises_risk();
        }
        ScoredUnderstandingResult {
            result,
            relevance: check,
        }
    }

    fn evaluate_understanding(
        &mut self,
        root: &RepoRoot,
        input: Understanding,
        relevance: Option<&crate::relevance::RelevanceCheck>,
    ) -> UnderstandingResult {
        let mut validation_errors = requirements::consistency_errors(
            &input.symbols_identified,
            &input.entry_points,
            &input.files_analyzed,
            &input.existing_patterns,
        );
        let mut files = Vec::new();
        for f in &input.files_analyzed {
            match root.resolve(f) {
                Ok(p) if root.absolute(&p).exists() => files.push(p),
                Ok(p) => validation_errors.push(format!("files_analyzed: '{p}' does not exist")),
                Err(e) => validation_errors.push(format!("files_analyzed: {e}")),
            }
        }
        let used = self.tools_used();
        for (slot, ev) in &input.slot_evidence {
            if !used.contains(ev.tool.as_str()) {
                validation_errors.push(format!(
                    "slot_evidence for {} names tool '{}', which this session never called",
                    slot.name(),
                    ev.tool
                ));
            }
        }
        let risk = self.risk_level();
        let file_names: Vec<String> = files.iter().map(|p| p.as_str().to_string()).collect();
        let markup = requirements::is_markup_context(&file_names);
        if !validation_errors.is_empty() {
            return UnderstandingResult {
                success: false,
                next_phase: self.phase,
                evaluated_confidence: Confidence::Low,
                validation_errors,
                missing_requirements: Vec::new(),
                allowed_semantic_reasons: Vec::new(),
                risk_level: risk,
                markup_context: markup,
                next_action: "fix the validation errors and call submit_understanding again".into(),
            };
        }
        // Relevance raises the risk before the requirements are chosen (the grey zone raises the
        // exploration quota, docs/DESIGN.md#tiers); the floor itself is stored with the accepted
        // input below.
        let raise_risk = relevance.is_some_and(|r| r.raises_risk());
        let risk = if raise_risk {
            risk.max(RiskLevel::High)
        } else {
            risk
        };
        let mapping = relevance.and_then(nl_symbol_mapping_requirement);
        let req = requirements::requirements(self.intent, risk, markup);
        // Blocking gaps: more exploration fixes them, SEMANTIC does not.
        let mut blocking = Vec::new();
        for tool in &req.tools {
            if !used.contains(tool.name()) {
                blocking.push(MissingRequirement {
                    requirement: Requirement::RequiredTool,
                    required: None,
                    provided: None,
                    item: Some(tool.name().to_string()),
                    message: format!("{tool} was not called in this session; call it on the symbols you identified"),
                });
            }
        }
        if req.slot_evidence {
            for slot in [Slot::TargetFeature, Slot::ObservedIssue] {
                if self.query_frame.slots.contains_key(&slot)
                    && !input.slot_evidence.contains_key(&slot)
                {
                    blocking.push(MissingRequirement {
                        requirement: Requirement::SlotEvidence,
                        required: None,
                        provided: None,
                        item: Some(slot.name().into()),
                        message: format!(
                            "risk is HIGH: give slot_evidence.{} = {{tool, params, result_summary}} naming the tool call that grounded it",
                            slot.name()
                        ),
                    });
                }
            }
        }
        // Accepted input: record it.
        if raise_risk {
            self.risk_floor = self.risk_floor.max(RiskLevel::High);
        }
        self.explored.extend(files.iter().cloned());
        for s in &input.symbols_identified {
            if !self
                .query_frame
                .mapped_symbols
                .iter()
                .any(|m| &m.symbol == s)
            {
                let nl_term = self
                    .query_frame
                    .slots
                    .get(&Slot::TargetFeature)
                    .map(|v| v.value.clone());
                self.query_frame.mapped_symbols.push(MappedSymbol {
                    symbol: s.clone(),
                    source: SlotSource::Fact,
                    nl_term,
                    confirmation: None,
                });
            }
        }
        let t = now();
        for (slot, ev) in &input.slot_evidence {
            let mut ev = ev.clone();
            ev.timestamp = t.to_string();
            self.query_frame.slot_evidence.insert(*slot, ev);
        }
        let counts = [
            (
                Shortfall::SymbolsIdentified,
                req.symbols,
                input.symbols_identified.len(),
            ),
            (
                Shortfall::EntryPoints,
                req.entry_points,
                input.entry_points.len(),
            ),
            (Shortfall::FilesAnalyzed, req.files, files.len()),
            (
                Shortfall::ExistingPatterns,
                req.patterns,
                input.existing_patterns.len(),
            ),
        ];
        let shortfalls: Vec<(Shortfall, usize, usize)> =
            counts.into_iter().filter(|(_, r, p)| p < r).collect();
        self.understanding = Some(input);
        if !blocking.is_empty() {
            let next = blocking
                .iter()
                .map(|m| m.message.clone())
                .collect::<Vec<_>>()
                .join("; ");
            blocking.extend(mapping);
            self.missing_requirements = blocking.clone();
            return UnderstandingResult {
                success: true,
                next_phase: self.phase,
                evaluated_confidence: Confidence::Low,
                validation_errors: Vec::new(),
                missing_requirements: blocking,
                allowed_semantic_reasons: Vec::new(),
                risk_level: risk,
                markup_context: markup,
                next_action: format!("{next}; then call submit_understanding again"),
            };
        }
        if shortfalls.is_empty() && mapping.is_none() {
            self.missing_requirements.clear();
            self.set_phase(Phase::Ready, "submit_understanding");
            let next_action = if self.intent.may_write() {
                Phase::Ready.next_step().to_string()
            } else {
                format!(
                    "{} sessions never write: answer from what you explored",
                    self.intent
                )
            };
            return UnderstandingResult {
                success: true,
                next_phase: Phase::Ready,
                evaluated_confidence: Confidence::High,
                validation_errors: Vec::new(),
                missing_requirements: Vec::new(),
                allowed_semantic_reasons: Vec::new(),
                risk_level: risk,
                markup_context: markup,
                next_action,
            };
        }
        let mut missing: Vec<MissingRequirement> = shortfalls
            .iter()
            .map(|(s, r, p)| MissingRequirement::count(*s, *r, *p))
            .collect();
        let mut reasons: Vec<SemanticReason> = Vec::new();
        if let Some(m) = mapping {
            missing.push(m);
            // The reasons for missing symbols: the term's symbols were not found
            // (docs/DESIGN.md#semantic-reasons).
            reasons.extend(SemanticReason::allowed_for(Shortfall::SymbolsIdentified));
        }
        for (s, _, _) in &shortfalls {
            for r in SemanticReason::allowed_for(*s) {
                if !reasons.contains(r) {
                    reasons.push(*r);
                }
            }
        }
        self.missing_requirements = missing.clone();
        self.set_phase(Phase::Semantic, "submit_understanding");
        UnderstandingResult {
            success: true,
            next_phase: Phase::Semantic,
            evaluated_confidence: Confidence::Low,
            validation_errors: Vec::new(),
            missing_requirements: missing,
            allowed_semantic_reasons: reasons,
            risk_level: risk,
            markup_context: markup,
            next_action: Phase::Semantic.next_step().into(),
        }
    }

    fn shortfalls(&self) -> Vec<Shortfall> {
        let mut out: Vec<Shortfall> = Vec::new();
        for s in self
            .missing_requirements
            .iter()
            .filter_map(|m| m.requirement.shortfall())
        {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// Applies `submit_semantic` (docs/DESIGN.md#semantic-phase): the reason must be one allowed
    /// for what is missing; the hypotheses are recorded as HYPOTHESIS and the session moves to
    /// VERIFICATION.
    pub fn submit_semantic(
        &mut self,
        hypotheses: Vec<HypothesisInput>,
        reason: SemanticReason,
    ) -> SemanticResult {
        let reject = |this: &Self, error: String| SemanticResult {
            success: false,
            next_phase: this.phase,
            error: Some(error),
            hypotheses: this.hypotheses.clone(),
            next_action: "fix the submission and call submit_semantic again".into(),
        };
        if hypotheses.is_empty() || hypotheses.iter().any(|h| h.text.trim().is_empty()) {
            return reject(
                self,
                "give at least one hypothesis, each with a non-empty text".into(),
            );
        }
        let shortfalls = self.shortfalls();
        if !shortfalls.is_empty()
            && !shortfalls
                .iter()
                .any(|s| SemanticReason::allowed_for(*s).contains(&reason))
        {
            let mut allowed: Vec<&str> = Vec::new();
            for r in shortfalls
                .iter()
                .flat_map(|s| SemanticReason::allowed_for(*s).iter())
            {
                if !allowed.contains(&r.name()) {
                    allowed.push(r.name());
                }
            }
            return reject(
                self,
                format!(
                    "semantic_reason does not match what is missing; allowed: {}",
                    allowed.join(", ")
                ),
            );
        }
        let start = self.hypotheses.len();
        for (i, h) in hypotheses.into_iter().enumerate() {
            if let (Some(slot), Some(value)) = (h.slot, h.value.as_ref()) {
                self.query_frame.slots.insert(
                    slot,
                    query_frame::SlotValue {
                        value: value.clone(),
                        quote: String::new(),
                        source: SlotSource::Hypothesis,
                        matched: query_frame::QuoteMatch::Semantic,
                    },
                );
            }
            if let Some(sym) = &h.symbol {
                self.query_frame.mapped_symbols.retain(|m| &m.symbol != sym);
                self.query_frame.mapped_symbols.push(MappedSymbol {
                    symbol: sym.clone(),
                    source: SlotSource::Hypothesis,
                    nl_term: h.slot.map(|s| s.name().to_string()),
                    confirmation: None,
                });
            }
            self.hypotheses.push(Hypothesis {
                id: format!("h{}", start + i + 1),
                input: h,
                status: HypothesisStatus::Hypothesis,
                evidence: None,
            });
        }
        self.semantic_reason = Some(reason);
        self.set_phase(Phase::Verification, "submit_semantic");
        SemanticResult {
            success: true,
            next_phase: Phase::Verification,
            error: None,
            hypotheses: self.hypotheses.clone(),
            next_action: Phase::Verification.next_step().into(),
        }
    }

    /// Applies `submit_verification`: each result needs evidence from an exploration tool called
    /// in this VERIFICATION phase; confirmed → FACT, rejected → dropped from the frame. READY only
    /// when no HYPOTHESIS remains.
    pub fn submit_verification(&mut self, results: Vec<VerificationInput>) -> VerificationResult {
        let verified_with: BTreeSet<&str> = self
            .tool_calls
            .iter()
            .filter(|c| c.phase == Phase::Verification)
            .map(|c| c.tool.as_str())
            .collect();
        let mut errors = Vec::new();
        let mut updates = Vec::new();
        for r in results {
            let Some(idx) = self.hypotheses.iter().position(|h| h.id == r.hypothesis_id) else {
                errors.push(format!("unknown hypothesis '{}'", r.hypothesis_id));
                continue;
            };
            if !Tool::from_name(&r.evidence.tool).is_some_and(Tool::is_exploration) {
                let names: Vec<&str> = Tool::EXPLORATION.iter().map(|t| t.name()).collect();
                errors.push(format!(
                    "{}: evidence tool '{}' is not an exploration tool ({})",
                    r.hypothesis_id,
                    r.evidence.tool,
                    names.join(", ")
                ));
                continue;
            }
            if !verified_with.contains(r.evidence.tool.as_str()) {
                errors.push(format!(
                    "{}: '{}' was not called in the VERIFICATION phase; run it, then resubmit",
                    r.hypothesis_id, r.evidence.tool
                ));
                continue;
            }
            updates.push((idx, r));
        }
        for (idx, r) in updates {
            let confirmed = r.status == VerdictStatus::Confirmed;
            let h = &mut self.hypotheses[idx];
            h.status = if confirmed {
                HypothesisStatus::Confirmed
            } else {
                HypothesisStatus::Rejected
            };
            h.evidence = Some(r.evidence);
            let (slot, symbol) = (h.input.slot, h.input.symbol.clone());
            if let Some(slot) = slot {
                if confirmed {
                    if let Some(v) = self.query_frame.slots.get_mut(&slot) {
                        v.source = SlotSource::Fact;
                    }
                } else if self
                    .query_frame
                    .slots
                    .get(&slot)
                    .is_some_and(|v| v.source == SlotSource::Hypothesis)
                {
                    self.query_frame.slots.remove(&slot);
                }
            }
            if let Some(sym) = symbol {
                if confirmed {
                    for m in self
                        .query_frame
                        .mapped_symbols
                        .iter_mut()
                        .filter(|m| m.symbol == sym)
                    {
                        m.source = SlotSource::Fact;
                    }
                } else {
                    self.query_frame.mapped_symbols.retain(|m| m.symbol != sym);
                }
            }
        }
        let mut remaining: Vec<String> = self
            .hypotheses
            .iter()
            .filter(|h| h.status == HypothesisStatus::Hypothesis)
            .map(|h| format!("{}: {}", h.id, h.input.text))
            .collect();
        if remaining.is_empty() {
            // Slots or symbols still HYPOTHESIS without an open hypothesis record (e.g. edited state).
            remaining = self.query_frame.hypotheses();
        }
        let ready = remaining.is_empty();
        if ready {
            self.set_phase(Phase::Ready, "submit_verification");
        }
        VerificationResult {
            success: errors.is_empty(),
            next_phase: self.phase,
            errors,
            remaining_hypotheses: remaining,
            hypotheses: self.hypotheses.clone(),
            next_action: if ready {
                Phase::Ready.next_step().into()
            } else {
                Phase::Verification.next_step().into()
            },
        }
    }

    /// Whether the session lets `path` be written (the gate's rule, shared by the hook and
    /// `check_write_target`). `exists` says whether the path exists on disk.
    ///
    /// # Errors
    /// A [`WriteDenial`] whose reason names the next tool to call.
    pub fn write_permission(
        &self,
        path: &RepoPath,
        exists: bool,
        new_files: NewFiles,
    ) -> Result<(), WriteDenial> {
        let deny = |reason: String, recoverable_in_ready| {
            Err(WriteDenial {
                reason,
                recoverable_in_ready,
            })
        };
        if let Some(end) = &self.ended {
            return deny(
                format!(
                    "code-intel session {} has ended (outcome {} recorded at {}): start a new session with start_session for further changes",
                    self.session_id,
                    end.outcome.name(),
                    end.at
                ),
                false,
            );
        }
        if !self.intent.may_write() {
            return deny(
                format!(
                    "session {} is {}: such sessions never write. Start an IMPLEMENT or MODIFY session with start_session to change code",
                    self.session_id, self.intent
                ),
                false,
            );
        }
        if self.phase != Phase::Ready {
            return deny(
                format!(
                    "code-intel session {} is in phase {}, writes are allowed only in READY. Next: {}",
                    self.session_id,
                    self.phase,
                    self.phase.next_step()
                ),
                false,
            );
        }
        let open = self.query_frame.hypotheses();
        if !open.is_empty() {
            return deny(
                format!(
                    "unverified HYPOTHESIS left ({}): call revert_to_exploration and verify them first",
                    open.join(", ")
                ),
                false,
            );
        }
        if exists {
            if self.is_explored(path) {
                return Ok(());
            }
            return deny(
                format!(
                    "{path} was not explored in session {}. Read or explore it, then call add_explored_files([\"{path}\"]), or revert_to_exploration to explore more",
                    self.session_id
                ),
                true,
            );
        }
        let parent = path.parent().unwrap_or_default();
        match new_files {
            NewFiles::ApprovedOnly
                if self.approved_new_files.contains(path) || self.is_explored(path) =>
            {
                Ok(())
            }
            NewFiles::InExploredDir if self.is_dir_explored(&parent) || self.is_explored(path) => {
                Ok(())
            }
            NewFiles::Never => deny(
                format!(
                    "{path} does not exist: call check_write_target(\"{path}\", allow_new_files=true) to create it"
                ),
                true,
            ),
            NewFiles::ApprovedOnly if self.is_dir_explored(&parent) => deny(
                format!(
                    "{path} is a new file: call check_write_target(\"{path}\", allow_new_files=true) first"
                ),
                true,
            ),
            _ => deny(
                format!(
                    "{path} is a new file in the unexplored directory {parent}: explore it (read a file in it), then call check_write_target(\"{path}\", allow_new_files=true)"
                ),
                true,
            ),
        }
    }

    /// `check_write_target` (docs/DESIGN.md#write-rule, docs/DESIGN.md#new-files, with the
    /// recovery options of docs/DESIGN.md#recovery).
    /// An allowed new file is remembered, so the hook lets its Write through.
    pub fn check_write_target(
        &mut self,
        root: &RepoRoot,
        path: &str,
        allow_new_files: bool,
    ) -> WriteCheck {
        let rp = match root.resolve(path) {
            Ok(p) => p,
            Err(e) => {
                return WriteCheck {
                    allowed: false,
                    path: path.into(),
                    error: Some(e.to_string()),
                    recovery_options: BTreeMap::new(),
                };
            }
        };
        let exists = root.absolute(&rp).exists();
        let policy = if allow_new_files {
            NewFiles::InExploredDir
        } else {
            NewFiles::Never
        };
        match self.write_permission(&rp, exists, policy) {
            Ok(()) => {
                if !exists {
                    self.approved_new_files.insert(rp.clone());
                }
                WriteCheck {
                    allowed: true,
                    path: rp.as_str().into(),
                    error: None,
                    recovery_options: BTreeMap::new(),
                }
            }
            Err(d) => WriteCheck {
                allowed: false,
                path: rp.as_str().into(),
                error: Some(d.reason),
                recovery_options: recovery_options(&rp),
            },
        }
    }

    /// `add_explored_files` (READY only; the phase is checked by [`check_tool`]): adds files that
    /// were read in this session (a Read recorded by the PostToolUse hook, or an exploration tool
    /// that returned them), and new files whose parent directory is explored. Everything else is
    /// refused with the reason: directories (the repository root included), globs, empty paths,
    /// files never read, non-regular files, new files in unexplored directories.
    pub fn add_explored_files(&mut self, root: &RepoRoot, files: &[String]) -> AddExploredResult {
        let mut added = Vec::new();
        let mut rejected = Vec::new();
        for f in files {
            match self.explorable(root, f) {
                Ok(p) => {
                    added.push(p.as_str().to_string());
                    self.explored.insert(p);
                }
                Err(reason) => rejected.push(format!("{f:?}: {reason}")),
            }
        }
        AddExploredResult {
            success: rejected.is_empty(),
            added,
            rejected,
            explored_count: self.explored.len(),
        }
    }

    /// Whether a tool call of this session named `p` among its files.
    fn was_read(&self, p: &RepoPath) -> bool {
        self.tool_calls.iter().any(|c| {
            c.files
                .iter()
                .any(|f| RepoPath::parse_relative(f).is_ok_and(|r| &r == p))
        })
    }

    fn explorable(&self, root: &RepoRoot, f: &str) -> Result<RepoPath, String> {
        if f.trim().is_empty() {
            return Err("an empty path names no file".into());
        }
        if f.contains(['*', '?', '[']) {
            return Err("globs are not accepted: name each file you read".into());
        }
        let p = root.resolve(f).map_err(|e| e.to_string())?;
        if p.is_root() {
            return Err("the repository root is a directory: name the files you read".into());
        }
        if p.is_git_internal() {
            return Err(format!(
                "{p} is git's own state (its configuration and hooks run programs): it is never an explored file"
            ));
        }
        match std::fs::metadata(root.absolute(&p)) {
            Ok(m) if m.is_dir() => Err(format!(
                "{p} is a directory: name the files in it that you read"
            )),
            Ok(m) if !m.is_file() => Err(format!("{p} is not a regular file")),
            Ok(_) if self.was_read(&p) => Ok(p),
            Ok(_) => Err(format!(
                "{p} was not read in this session: Read it (or find it with an exploration tool) first, then add it"
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let parent = p.parent().unwrap_or_default();
                if self.is_dir_explored(&parent) {
                    Ok(p)
                } else {
                    Err(format!(
                        "{p} does not exist and its directory {} was not explored: explore the directory first",
                        if parent.is_root() {
                            "(the root)".to_string()
                        } else {
                            parent.to_string()
                        }
                    ))
                }
            }
            Err(e) => Err(format!("{p} cannot be checked: {e}")),
        }
    }

    /// `revert_to_exploration`: back to EXPLORATION from any phase. Unverified hypotheses are
    /// dropped either way; `keep_results = false` also forgets tool calls, explored files, mapped
    /// symbols and approvals (the quoted slots stay: the request did not change).
    pub fn revert_to_exploration(&mut self, keep_results: bool) -> RevertResult {
        let previous = self.phase;
        self.hypotheses
            .retain(|h| h.status != HypothesisStatus::Hypothesis);
        self.query_frame
            .slots
            .retain(|_, v| v.source == SlotSource::Fact);
        self.query_frame
            .mapped_symbols
            .retain(|m| m.source == SlotSource::Fact);
        if !keep_results {
            self.tool_calls.clear();
            self.explored.clear();
            self.approved_new_files.clear();
            self.query_frame.mapped_symbols.clear();
            self.query_frame.slot_evidence.clear();
            self.hypotheses.clear();
            self.understanding = None;
        }
        self.missing_requirements.clear();
        self.set_phase(Phase::Exploration, "revert_to_exploration");
        RevertResult {
            success: true,
            previous_phase: previous,
            phase: self.phase,
            kept_results: keep_results,
            explored_count: self.explored.len(),
        }
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

/// The recovery options of a denied write (docs/DESIGN.md#recovery).
pub fn recovery_options(path: &RepoPath) -> BTreeMap<String, RecoveryOption> {
    BTreeMap::from([
        (
            "add_explored_files".to_string(),
            RecoveryOption {
                description: "Add files you have read (or new files in an explored directory) to the explored list without leaving READY phase"
                    .into(),
                example: format!("add_explored_files(files=[\"{path}\"])"),
            },
        ),
        (
            "revert_to_exploration".to_string(),
            RecoveryOption {
                description: "Go back to EXPLORATION phase for thorough re-exploration".into(),
                example: "revert_to_exploration(keep_results=true)".into(),
            },
        ),
    ])
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

#[cfg(test)]
mod tests;
