//! The phase/tool matrix: which tool each phase allows (docs/DESIGN.md#phase-tool-matrix), and
//! the [`PhaseViolation`] a tool called out of phase gets.

use serde::{Deserialize, Serialize};

use crate::vocab::{Phase, Tool};

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
