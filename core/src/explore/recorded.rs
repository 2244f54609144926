//! An exploration tool call as a session sees it — the use case both adapters (the MCP server and
//! the Node binding) serve: with a session, the phase matrix is checked first
//! (docs/DESIGN.md#phase-tool-matrix), the tool runs, and the call (parameters, touched files, a
//! one-line summary) is recorded on the session after, under its lock; without one, the tool just
//! runs.

use serde::Serialize;

use super::{
    AnalyzeStructureParams, ExploreContext, ExploreError, FindDefinitionsParams,
    FindDefinitionsResult, FindReferencesParams, FindReferencesResult, FunctionAtLineParams,
    FunctionAtLineResult, ResultOrder, SearchTextParams, SearchTextResult, StructureResult,
    TouchedFiles,
};
use code_intel_session::session::ToolCallRecord;
use code_intel_session::session::store::{SessionError, SessionStore};
use code_intel_session::vocab::{Phase, SessionId, Tool};

/// The one-line `result_summary` a session records for an exploration call.
pub trait RecordSummary {
    /// E.g. `"3 definitions of login (first: auth.login at src/auth.py:12)"`.
    fn summary(&self) -> String;
}

/// An exploration tool: the name the phase matrix and the session record know it by, and its
/// function.
pub struct ExploreTool<P, R> {
    /// The tool (its name, without any MCP prefix, is `find_definitions`).
    pub tool: Tool,
    /// The tool itself.
    pub run: fn(&ExploreContext<'_>, &P) -> Result<R, ExploreError>,
}

// Manual impls: the derives would require `P: Clone` and `R: Clone`.
impl<P, R> Clone for ExploreTool<P, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P, R> Copy for ExploreTool<P, R> {}

/// `search_text`.
pub const SEARCH_TEXT: ExploreTool<SearchTextParams, SearchTextResult> = ExploreTool {
    tool: Tool::SearchText,
    run: super::search_text,
};
/// `find_definitions`.
pub const FIND_DEFINITIONS: ExploreTool<FindDefinitionsParams, FindDefinitionsResult> =
    ExploreTool {
        tool: Tool::FindDefinitions,
        run: super::find_definitions,
    };
/// `find_references`.
pub const FIND_REFERENCES: ExploreTool<FindReferencesParams, FindReferencesResult> = ExploreTool {
    tool: Tool::FindReferences,
    run: super::find_references,
};
/// `analyze_structure`.
pub const ANALYZE_STRUCTURE: ExploreTool<AnalyzeStructureParams, StructureResult> = ExploreTool {
    tool: Tool::AnalyzeStructure,
    run: super::analyze_structure,
};
/// `get_function_at_line`.
pub const GET_FUNCTION_AT_LINE: ExploreTool<FunctionAtLineParams, FunctionAtLineResult> =
    ExploreTool {
        tool: Tool::GetFunctionAtLine,
        run: super::get_function_at_line,
    };

/// Why a recorded exploration call failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordedError {
    /// The session refused the call (wrong phase: [`SessionError::Phase`]), or its state could not
    /// be read or written.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The tool itself failed.
    #[error(transparent)]
    Explore(#[from] ExploreError),
}

/// Runs `tool` with `params`; with `session`, checks the phase first, gives the tool the
/// session's request ([`ExploreContext::request`]: relevance-ordered results) and records the
/// call after. Blocking (file reads, index lookups, the session's lock).
///
/// # Errors
/// [`RecordedError::Session`] when the session refuses the tool or cannot be updated (the result
/// is then not returned: an unrecorded exploration would not count towards READY);
/// [`RecordedError::Explore`] when the tool fails.
pub fn run_recorded<P, R>(
    cx: &ExploreContext<'_>,
    store: &SessionStore,
    session: Option<&SessionId>,
    tool: ExploreTool<P, R>,
    params: &P,
) -> Result<R, RecordedError>
where
    P: Serialize,
    R: TouchedFiles + RecordSummary,
{
    let request = match session {
        Some(id) => {
            let state = store.load(id)?;
            code_intel_session::session::check_tool(state.phase, tool.tool.name(), None)
                .map_err(SessionError::Phase)?;
            Some(state.query)
        }
        None => None,
    };
    let cx = ExploreContext {
        request: request.as_deref().or(cx.request),
        ..*cx
    };
    let result = (tool.run)(&cx, params)?;
    if let Some(id) = session {
        let record = ToolCallRecord {
            tool: tool.tool.name().to_string(),
            params: serde_json::to_value(params).unwrap_or_default(),
            files: result.files(),
            result_summary: result.summary(),
            phase: Phase::Exploration,
            timestamp: Default::default(),
        };
        store.record_tool_call_in_phase(id, record)?;
    }
    Ok(result)
}

impl RecordSummary for SearchTextResult {
    fn summary(&self) -> String {
        format!(
            "{} matches of {:?} in {} files ({} order)",
            self.total,
            self.pattern,
            self.files().len(),
            order_name(self.order)
        )
    }
}

fn order_name(order: ResultOrder) -> &'static str {
    match order {
        ResultOrder::Relevance => "relevance",
        ResultOrder::Path => "path",
    }
}

impl RecordSummary for FindDefinitionsResult {
    fn summary(&self) -> String {
        let first = self
            .definitions
            .first()
            .map(|d| format!(" (first: {} at {}:{})", d.qualified_name, d.file, d.line));
        format!(
            "{} definitions of {}{}",
            self.total,
            self.symbol,
            first.unwrap_or_default()
        )
    }
}

impl RecordSummary for FindReferencesResult {
    fn summary(&self) -> String {
        format!(
            "{} references to {} in {} files ({} order)",
            self.total,
            self.symbol,
            self.files().len(),
            order_name(self.order)
        )
    }
}

impl RecordSummary for StructureResult {
    fn summary(&self) -> String {
        format!("structure of {}: {} files", self.path, self.files_total)
    }
}

impl RecordSummary for FunctionAtLineResult {
    fn summary(&self) -> String {
        match &self.function {
            Some(f) => format!(
                "{}:{} is in {} (lines {}-{})",
                self.file, self.line, f.qualified_name, f.start_line, f.end_line
            ),
            None => format!("{}:{} is outside any function", self.file, self.line),
        }
    }
}
