//! MCP wire types: the tool parameters, as core's input types plus what only the server adds.
//!
//! Core's inputs derive `JsonSchema` under their crates' `schema` feature, which this crate
//! enables: their field doc comments are the descriptions the model reads, so a tool takes the
//! core type itself (`submit_semantic`'s hypotheses, `submit_verification`'s results) or
//! [`WithSession`], the core input flattened next to the optional `session_id` (the query frame
//! and the five exploration tools). STYLE.md rule 4 keeps wire types in their adapter; the
//! re-layering issue asked for this exception, which leaves the serde shape where it already
//! was (in core) and adds only a schema, behind a feature the hooks do not build.
//!
//! The types left here add something core's input does not have: a session id, a string parsed
//! with a helpful error (`start_session`'s intent), or a stricter shape than core's persisted
//! record (`submit_understanding`, see [`SubmitUnderstandingParams`]).

use std::collections::BTreeMap;

use code_intel_session::query_frame::SlotEvidence;
use code_intel_session::session::requirements::SemanticReason;
use code_intel_session::session::{HypothesisInput, Understanding, VerificationInput};
use code_intel_session::vocab::Slot;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `start_session` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct StartSessionParams {
    /// IMPLEMENT (build something new), MODIFY (change/fix/delete existing code), INVESTIGATE
    /// (understand code, no edits) or QUESTION (answer, no edits).
    // A string, not core's `Intent`: it is parsed case-insensitively with the older names
    // (`ADD`, `DELETE`, `EXPLORE`) and a bad one answers `unknown_intent` with the accepted names.
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

/// A core input and the session it applies to: `set_query_frame` (`QueryFrameInput`) and the
/// exploration tools (`SearchTextParams`, ...; the call is recorded on the session). The input's
/// fields sit at the top level of the arguments, next to `session_id`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct WithSession<T> {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// The core input.
    #[serde(flatten)]
    pub input: T,
}

/// `submit_understanding` parameters.
///
/// Not core's [`Understanding`], which is also the record a session file keeps: there every field
/// defaults (older files), while the tool requires the four lists, and its slot evidence is a map
/// keyed by [`Slot`], while the tool names the four slots as properties (the model sees them in
/// the schema; any other key is refused as an unknown field).
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
    pub target_feature: Option<SlotEvidence>,
    /// Evidence for trigger_condition.
    #[serde(default)]
    pub trigger_condition: Option<SlotEvidence>,
    /// Evidence for observed_issue.
    #[serde(default)]
    pub observed_issue: Option<SlotEvidence>,
    /// Evidence for desired_action.
    #[serde(default)]
    pub desired_action: Option<SlotEvidence>,
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
        .filter_map(|(slot, ev)| ev.map(|ev| (slot, ev)))
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

/// `submit_semantic` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SubmitSemanticParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Hypotheses to verify next (at least one).
    pub hypotheses: Vec<HypothesisInput>,
    /// Why exploration fell short.
    pub semantic_reason: SemanticReason,
}

/// `submit_verification` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SubmitVerificationParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// One result per hypothesis.
    pub results: Vec<VerificationInput>,
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

#[cfg(test)]
mod tests {
    use code_intel_core::explore::{
        AnalyzeStructureParams, FindDefinitionsParams, FindReferencesParams, FunctionAtLineParams,
        SearchTextParams,
    };
    use code_intel_session::query_frame::QueryFrameInput;
    use serde_json::{Value, json};

    use super::*;

    /// The arguments a tool taking `T` requires, as its schema says.
    fn required<T: JsonSchema>() -> Vec<String> {
        let schema = schemars::schema_for!(T);
        let names = schema.get("required").and_then(Value::as_array);
        names
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn core_inputs_keep_the_tools_required_arguments() {
        // A container-level `#[serde(default)]` on a core input would make every field optional,
        // in the schema and when parsing.
        assert_eq!(required::<WithSession<SearchTextParams>>(), ["pattern"]);
        assert_eq!(required::<WithSession<FindDefinitionsParams>>(), ["symbol"]);
        assert_eq!(required::<WithSession<FindReferencesParams>>(), ["symbol"]);
        assert_eq!(required::<WithSession<AnalyzeStructureParams>>(), ["path"]);
        assert_eq!(
            required::<WithSession<FunctionAtLineParams>>(),
            ["file", "line"]
        );
        assert!(required::<WithSession<QueryFrameInput>>().is_empty());
        let err =
            serde_json::from_value::<WithSession<SearchTextParams>>(json!({ "session_id": "s" }))
                .unwrap_err();
        assert_eq!(err.to_string(), "missing field `pattern`");
    }

    #[test]
    fn session_id_sits_next_to_the_flattened_input() {
        let p: WithSession<FunctionAtLineParams> =
            serde_json::from_value(json!({ "session_id": "s1", "file": "a.py", "line": 3 }))
                .unwrap();
        assert_eq!(p.session_id.as_deref(), Some("s1"));
        assert_eq!(
            p.input,
            FunctionAtLineParams {
                file: "a.py".into(),
                line: 3
            }
        );
        let schema = schemars::schema_for!(WithSession<FunctionAtLineParams>);
        let mut names: Vec<&String> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        names.sort();
        assert_eq!(names, ["file", "line", "session_id"]);
    }
}
