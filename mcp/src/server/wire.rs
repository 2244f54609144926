//! MCP wire types: tool parameters with their JSON Schema (field doc comments become the
//! descriptions the model reads) and their conversion into core inputs.
//!
//! Core types carry no schema (STYLE.md: wire types live in their adapter), so each parameter
//! type here mirrors a core input and converts with a plain field mapping.

use std::collections::BTreeMap;

use code_intel_core::explore::{
    AnalyzeStructureParams, FindDefinitionsParams, FindReferencesParams, FunctionAtLineParams,
    SearchTextParams,
};
use code_intel_core::query_frame::{QueryFrameInput, Slot, SlotEvidence, SlotInput};
use code_intel_core::session::requirements::SemanticReason;
use code_intel_core::session::{
    HypothesisInput, Understanding, VerdictStatus, VerificationEvidence, VerificationInput,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `start_session` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct StartSessionParams {
    /// IMPLEMENT (build something new), MODIFY (change/fix/delete existing code), INVESTIGATE
    /// (understand code, no edits) or QUESTION (answer, no edits).
    pub intent: String,
    /// The user's request, verbatim (slot quotes are checked against it).
    pub query: String,
}

/// Only a session id.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct SessionParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
}

/// A slot as the model fills it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct SlotParam {
    /// Your reading of the slot.
    pub value: String,
    /// Words copied verbatim from the request that support the value.
    pub quote: String,
}

impl From<SlotParam> for SlotInput {
    fn from(p: SlotParam) -> Self {
        SlotInput {
            value: p.value,
            quote: p.quote,
        }
    }
}

/// `set_query_frame` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SetQueryFrameParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// What the request is about (feature, screen, component).
    #[serde(default)]
    pub target_feature: Option<SlotParam>,
    /// When the problem occurs.
    #[serde(default)]
    pub trigger_condition: Option<SlotParam>,
    /// What goes wrong.
    #[serde(default)]
    pub observed_issue: Option<SlotParam>,
    /// What should be done.
    #[serde(default)]
    pub desired_action: Option<SlotParam>,
}

impl SetQueryFrameParams {
    /// The core input (without the session id).
    pub fn frame(&self) -> QueryFrameInput {
        QueryFrameInput {
            target_feature: self.target_feature.clone().map(Into::into),
            trigger_condition: self.trigger_condition.clone().map(Into::into),
            observed_issue: self.observed_issue.clone().map(Into::into),
            desired_action: self.desired_action.clone().map(Into::into),
        }
    }
}

/// A QueryFrame slot name.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SlotName {
    /// target_feature
    TargetFeature,
    /// trigger_condition
    TriggerCondition,
    /// observed_issue
    ObservedIssue,
    /// desired_action
    DesiredAction,
}

impl From<SlotName> for Slot {
    fn from(s: SlotName) -> Self {
        match s {
            SlotName::TargetFeature => Slot::TargetFeature,
            SlotName::TriggerCondition => Slot::TriggerCondition,
            SlotName::ObservedIssue => Slot::ObservedIssue,
            SlotName::DesiredAction => Slot::DesiredAction,
        }
    }
}

/// The exploration-tool call that grounds a slot.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct SlotEvidenceParam {
    /// Tool called in this session (find_definitions, search_text, ...).
    pub tool: String,
    /// Its parameters.
    #[serde(default)]
    pub params: serde_json::Value,
    /// What it showed.
    pub result_summary: String,
}

impl From<SlotEvidenceParam> for SlotEvidence {
    fn from(p: SlotEvidenceParam) -> Self {
        SlotEvidence {
            tool: p.tool,
            params: p.params,
            result_summary: p.result_summary,
            timestamp: String::new(),
        }
    }
}

/// `submit_understanding` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SubmitUnderstandingParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Code symbols the exploration identified as relevant.
    pub symbols_identified: Vec<String>,
    /// Entry points (each containing one of symbols_identified, e.g. `LoginService.authenticate`).
    pub entry_points: Vec<String>,
    /// Files you read and understood (repository-relative).
    pub files_analyzed: Vec<String>,
    /// Existing patterns the change should follow.
    pub existing_patterns: Vec<String>,
    /// Free-form notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Per slot, the tool call that grounded it (required at HIGH risk).
    #[serde(default)]
    pub slot_evidence: Option<SlotEvidenceParams>,
}

/// Slot evidence per slot.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlotEvidenceParams {
    /// Evidence for target_feature.
    #[serde(default)]
    pub target_feature: Option<SlotEvidenceParam>,
    /// Evidence for trigger_condition.
    #[serde(default)]
    pub trigger_condition: Option<SlotEvidenceParam>,
    /// Evidence for observed_issue.
    #[serde(default)]
    pub observed_issue: Option<SlotEvidenceParam>,
    /// Evidence for desired_action.
    #[serde(default)]
    pub desired_action: Option<SlotEvidenceParam>,
}

impl SlotEvidenceParams {
    fn into_map(self) -> BTreeMap<Slot, SlotEvidence> {
        [
            (Slot::TargetFeature, self.target_feature),
            (Slot::TriggerCondition, self.trigger_condition),
            (Slot::ObservedIssue, self.observed_issue),
            (Slot::DesiredAction, self.desired_action),
        ]
        .into_iter()
        .filter_map(|(slot, ev)| ev.map(|ev| (slot, ev.into())))
        .collect()
    }
}

impl SubmitUnderstandingParams {
    /// The core input (without the session id).
    pub fn understanding(self) -> Understanding {
        Understanding {
            symbols_identified: self.symbols_identified,
            entry_points: self.entry_points,
            files_analyzed: self.files_analyzed,
            existing_patterns: self.existing_patterns,
            notes: self.notes,
            slot_evidence: self.slot_evidence.unwrap_or_default().into_map(),
        }
    }
}

/// Why exploration alone did not suffice (must match what submit_understanding found missing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SemanticReasonParam {
    /// No definition of the concept was found.
    NoDefinitionFound,
    /// No reference to the entry point was found.
    NoReferenceFound,
    /// No similar implementation to follow.
    NoSimilarImplementation,
    /// The architecture is not understood.
    ArchitectureUnknown,
    /// The relevant code is spread over many places.
    ContextFragmented,
}

impl From<SemanticReasonParam> for SemanticReason {
    fn from(r: SemanticReasonParam) -> Self {
        match r {
            SemanticReasonParam::NoDefinitionFound => SemanticReason::NoDefinitionFound,
            SemanticReasonParam::NoReferenceFound => SemanticReason::NoReferenceFound,
            SemanticReasonParam::NoSimilarImplementation => SemanticReason::NoSimilarImplementation,
            SemanticReasonParam::ArchitectureUnknown => SemanticReason::ArchitectureUnknown,
            SemanticReasonParam::ContextFragmented => SemanticReason::ContextFragmented,
        }
    }
}

/// A hypothesis formed in SEMANTIC.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct HypothesisParam {
    /// The claim, e.g. "login is validated in LoginRequest.rules".
    pub text: String,
    /// The slot it fills, if any.
    #[serde(default)]
    pub slot: Option<SlotName>,
    /// The slot value it proposes (with slot).
    #[serde(default)]
    pub value: Option<String>,
    /// The code symbol it proposes, if any.
    #[serde(default)]
    pub symbol: Option<String>,
}

impl From<HypothesisParam> for HypothesisInput {
    fn from(h: HypothesisParam) -> Self {
        HypothesisInput {
            text: h.text,
            slot: h.slot.map(Into::into),
            value: h.value,
            symbol: h.symbol,
        }
    }
}

/// `submit_semantic` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SubmitSemanticParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Hypotheses to verify next (at least one).
    pub hypotheses: Vec<HypothesisParam>,
    /// Why exploration fell short.
    pub semantic_reason: SemanticReasonParam,
}

/// A verification verdict: the hypothesis holds (confirmed) or not (rejected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum VerdictParam {
    Confirmed,
    Rejected,
}

/// Evidence from an exploration tool called in VERIFICATION.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct EvidenceParam {
    /// Exploration tool (find_definitions, find_references, search_text, ...).
    pub tool: String,
    /// What it was run on (symbol, pattern or file).
    pub target: String,
    /// What it showed.
    pub result: String,
}

/// One verified hypothesis.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct VerificationParam {
    /// Hypothesis id from submit_semantic (h1, h2, ...).
    pub hypothesis_id: String,
    /// confirmed or rejected.
    pub status: VerdictParam,
    /// The evidence.
    pub evidence: EvidenceParam,
}

impl From<VerificationParam> for VerificationInput {
    fn from(v: VerificationParam) -> Self {
        VerificationInput {
            hypothesis_id: v.hypothesis_id,
            status: match v.status {
                VerdictParam::Confirmed => VerdictStatus::Confirmed,
                VerdictParam::Rejected => VerdictStatus::Rejected,
            },
            evidence: VerificationEvidence {
                tool: v.evidence.tool,
                target: v.evidence.target,
                result: v.evidence.result,
            },
        }
    }
}

/// `submit_verification` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SubmitVerificationParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// One result per hypothesis.
    pub results: Vec<VerificationParam>,
}

/// `check_write_target` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct CheckWriteTargetParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// File to edit or create (repository-relative or absolute inside the repository).
    pub path: String,
    /// Allow a file that does not exist yet, in an explored directory (default false).
    #[serde(default)]
    pub allow_new_files: bool,
}

/// `add_explored_files` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct AddExploredFilesParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Files or directories you have read (a directory covers its contents).
    pub files: Vec<String>,
}

/// `revert_to_exploration` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct RevertParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Keep explored files and tool calls (default true).
    #[serde(default = "yes")]
    pub keep_results: bool,
}

fn yes() -> bool {
    true
}

/// `search_text` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SearchTextToolParams {
    /// Session to record the call on (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Regular expression (Rust regex syntax), or literal text with literal=true.
    pub pattern: String,
    /// File or directory to search (repository-relative); default the whole repository.
    #[serde(default)]
    pub path: Option<String>,
    /// Language id (python, php, javascript, typescript, blade, html, css, scss) or ripgrep type (py, js, ...).
    #[serde(default)]
    pub file_type: Option<String>,
    /// Lines of context before and after each match (default 0).
    #[serde(default)]
    pub context_lines: Option<usize>,
    /// Maximum matches returned.
    #[serde(default)]
    pub max_results: Option<usize>,
    /// Treat pattern as literal text (default false).
    #[serde(default)]
    pub literal: bool,
}

impl SearchTextToolParams {
    /// The core parameters.
    pub fn core(self) -> SearchTextParams {
        SearchTextParams {
            pattern: self.pattern,
            path: self.path,
            file_type: self.file_type,
            context_lines: self.context_lines,
            max_results: self.max_results,
            literal: self.literal,
        }
    }
}

/// `find_definitions` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct FindDefinitionsToolParams {
    /// Session to record the call on (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Name or qualified name (`authenticate`, `LoginService.authenticate`, `App\Cart\Cart::addItem`).
    pub symbol: String,
    /// File or directory to search in (repository-relative); default everywhere.
    #[serde(default)]
    pub path: Option<String>,
    /// Language id (python, php, javascript, typescript, ...).
    #[serde(default)]
    pub language: Option<String>,
    /// Only exact (case-insensitive) name or qualified-name-suffix matches; default also substrings.
    #[serde(default)]
    pub exact_match: bool,
    /// Maximum definitions returned.
    #[serde(default)]
    pub max_results: Option<usize>,
}

impl FindDefinitionsToolParams {
    /// The core parameters.
    pub fn core(self) -> FindDefinitionsParams {
        FindDefinitionsParams {
            symbol: self.symbol,
            path: self.path,
            language: self.language,
            exact_match: self.exact_match,
            max_results: self.max_results,
        }
    }
}

/// `find_references` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct FindReferencesToolParams {
    /// Session to record the call on (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Name or qualified name whose uses to find (definitions are excluded).
    pub symbol: String,
    /// File or directory to search in (repository-relative); default everywhere.
    #[serde(default)]
    pub path: Option<String>,
    /// Maximum references returned.
    #[serde(default)]
    pub max_results: Option<usize>,
}

impl FindReferencesToolParams {
    /// The core parameters.
    pub fn core(self) -> FindReferencesParams {
        FindReferencesParams {
            symbol: self.symbol,
            path: self.path,
            max_results: self.max_results,
        }
    }
}

/// `analyze_structure` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct AnalyzeStructureToolParams {
    /// Session to record the call on (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// File or directory (repository-relative); empty for the repository root.
    pub path: String,
}

impl AnalyzeStructureToolParams {
    /// The core parameters.
    pub fn core(self) -> AnalyzeStructureParams {
        AnalyzeStructureParams { path: self.path }
    }
}

/// `get_function_at_line` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct FunctionAtLineToolParams {
    /// Session to record the call on (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// File (repository-relative).
    pub file: String,
    /// Line number, 1-based.
    pub line: u32,
}

impl FunctionAtLineToolParams {
    /// The core parameters.
    pub fn core(self) -> FunctionAtLineParams {
        FunctionAtLineParams {
            file: self.file,
            line: self.line,
        }
    }
}
