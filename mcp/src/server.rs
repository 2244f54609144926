//! The rmcp stdio MCP server (`code-intel serve`): server state, the tool router and the
//! `ServerHandler`. Tools are thin adapters over `code_intel_core` (parse the wire input, one core
//! call on a blocking thread, convert the result).

mod budget;
mod catalog;
mod embedder;
mod learning;
mod limits;
mod relevance;
mod semantic;
mod shared_index;
mod transport;
mod wire;

use std::sync::{Arc, Mutex, PoisonError};

use code_intel_core::explore::recorded::{
    self, ExploreTool, RecordSummary, RecordedError, run_recorded,
};
use code_intel_core::explore::{
    AnalyzeStructureParams, ExploreContext, ExploreError, FindDefinitionsParams,
    FindReferencesParams, FunctionAtLineParams, SearchTextParams, TouchedFiles,
};
use code_intel_core::index::source::SourceError;
use code_intel_session::config::Config;
use code_intel_session::query_frame::QueryFrameInput;
use code_intel_session::repo_path::{RepoPathError, RepoRoot};
use code_intel_session::session::store::{SessionError, SessionStore, StartResponse};
use code_intel_session::session::{
    AddExploredResult, PhaseViolation, RevertResult, SemanticResult, SessionStatus,
    SetQueryFrameResult, VerificationResult, WriteCheck,
};
use code_intel_session::vocab::Intent;
use code_intel_session::vocab::SessionId;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt as _, tool, tool_handler, tool_router};
use serde::Serialize;
use serde_json::json;

use code_intel_session::session::ScoredUnderstandingResult;
use embedder::SharedEmbedder;
use relevance::RelevanceCache;
use shared_index::{SharedIndex, SyncStatus};
use wire::{
    AddExploredFilesParams, CheckWriteTargetParams, RevertParams, SessionParams,
    StartSessionParams, SubmitSemanticParams, SubmitUnderstandingParams, SubmitVerificationParams,
    WithSession,
};

/// What the model reads first (CLAUDE_CODE.md §6: Claude Code cuts server instructions at 2 KB).
pub const INSTRUCTIONS: &str = "\
code-intel gates edits: Edit/Write/Bash writes into this repository are denied until a code-intel \
session is READY and the target file was explored. Workflow:
1. start_session(intent, query): intent IMPLEMENT | MODIFY | INVESTIGATE | QUESTION, query = the user's \
request verbatim. Read extraction_prompt, plan, map_hints and leads (ranked files): verify leads first.
2. set_query_frame: fill the slots you can, each {value, quote}; quote copied from the request.
3. Explore (EXPLORATION phase): find_definitions, find_references, search_text (both rank files \
by the request), analyze_structure, get_function_at_line, plus Read/Grep. \
IMPLEMENT/MODIFY need find_definitions and find_references.
Map the feature to symbols: validate_symbol_relevance(target_feature, symbols) gives a prompt and \
ranked candidates; confirm_symbol_relevance(relevant_symbols, code_evidence per symbol) records FACT \
ones, raises risk for weak ones, rejects unrelated ones.
4. submit_understanding(symbols_identified, entry_points, files_analyzed, existing_patterns). The \
answer is READY, or SEMANTIC with missing_requirements.
5. In SEMANTIC: semantic_search(query) finds code by meaning (the map of past successes is \
searchable in every phase), then submit_semantic(hypotheses, semantic_reason); in VERIFICATION: \
verify each hypothesis with the exploration tools, then submit_verification(results).
6. READY: call check_write_target(path) before every edit. If denied, follow recovery_options: \
add_explored_files(files) after reading them, or revert_to_exploration.
7. When done: record_outcome(success|failure|partial) ends the session; success teaches the map.
session_id is optional (never empty): it defaults to the session this server started last. \
get_session_status shows the phase and what is missing.
Limits: text arguments <= 8 KB (paths, patterns, symbols 4 KB), lists <= 1000 items; files over \
max_file_bytes (1 MiB), FIFOs and devices are not read; answers <= 40,000 chars, with \
truncated/output_truncated saying what was cut.";

/// The server: shared state plus the tool router. rmcp clones it per request; every field is shared.
#[derive(Clone)]
pub struct CodeIntel {
    root: RepoRoot,
    config: Arc<Config>,
    store: SessionStore,
    index: Arc<SharedIndex>,
    /// `CLAUDE_CODE_SESSION_ID` at spawn (CLAUDE_CODE.md §3), recorded on sessions this server starts.
    claude_session_id: Option<String>,
    /// The session most recently started by this process: the default `session_id`. Locked only
    /// briefly, never across an `.await`.
    current_session: Arc<Mutex<Option<SessionId>>>,
    /// The embedding model, loaded by the first call that needs it (see [`embedder`]).
    embedder: Arc<SharedEmbedder>,
    /// Backgrounds of the relevance calibration, built once (see [`relevance`]).
    relevance: Arc<RelevanceCache>,
    /// The vector index and its background embedding (see [`semantic`]).
    semantic: Arc<semantic::SemanticState>,
    /// The memory budget every tool call takes its share from (see [`budget`]).
    budget: budget::Budget,
    tool_router: ToolRouter<Self>,
}

/// `start_session` result: core's answer plus the index sync status.
#[derive(Debug, Serialize)]
struct StartSessionResult {
    #[serde(flatten)]
    start: StartResponse,
    /// `fresh` | `synced` | `running` | `disabled` | `failed: <why>`.
    sync_status: SyncStatus,
    /// Strong, non-stale entries of the map (past successes) for the request: verify them first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    map_hints: Vec<learning::MapHint>,
    /// The ranked search's best files for the request (lexical BM25F ranking), each with its
    /// best symbols and why it ranks: verify them first, after any map hint. Empty before the
    /// first index sync or for a request without searchable words.
    leads: Vec<code_intel_core::explore::leads::Lead>,
    /// Whether the embedding model is loaded (the relevance and semantic tools need it).
    model: embedder::ModelStatus,
}

/// `get_session_status` result: core's status plus the embedding model's availability.
#[derive(Debug, Serialize)]
struct SessionStatusResult {
    #[serde(flatten)]
    status: SessionStatus,
    /// Whether the embedding model is loaded (the relevance and semantic tools need it).
    model: embedder::ModelStatus,
}

/// Why a tool call did not produce its result: each becomes an `isError` result with a
/// structured body `{error, message, ...}` the model can act on.
#[derive(Debug)]
enum Refusal {
    /// No `session_id` given and this server has started none.
    NoSession,
    /// The tool is not allowed in the session's phase (core's matrix).
    Phase(PhaseViolation),
    /// Unknown session, corrupt state, I/O (core's message carries the recovery hint).
    Session(SessionError),
    /// An exploration tool refused its input (path outside the repository, bad regex, ...).
    Explore(ExploreError),
    /// The core call panicked or could not be scheduled.
    Internal(String),
}

impl From<SessionError> for Refusal {
    /// A phase violation is the model's refusal (`Refusal::Phase`); every other session error is
    /// reported with its recovery hint.
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Phase(v) => Refusal::Phase(v),
            e => Refusal::Session(e),
        }
    }
}

impl Refusal {
    fn into_result(self) -> CallToolResult {
        let body = match self {
            Refusal::NoSession => json!({
                "error": "no_active_session",
                "message": "no code-intel session: call start_session(intent, query) first, or pass session_id",
            }),
            Refusal::Phase(v) => json!({
                "error": "phase_violation",
                "tool": v.tool,
                "phase": v.phase,
                "message": v.message,
            }),
            Refusal::Session(e) => {
                json!({ "error": session_error_code(&e), "message": e.to_string() })
            }
            Refusal::Explore(e) => {
                json!({ "error": explore_error_code(&e), "message": e.to_string() })
            }
            Refusal::Internal(msg) => json!({ "error": "internal", "message": msg }),
        };
        CallToolResult::structured_error(body)
    }
}

fn session_error_code(e: &SessionError) -> &'static str {
    match e {
        SessionError::Unknown { .. } => "unknown_session",
        SessionError::InvalidId { .. } => "invalid_session_id",
        SessionError::Corrupt { .. } => "corrupt_session",
        SessionError::Version { .. } => "session_version",
        SessionError::Read { .. } | SessionError::Persist(_) => "session_io",
        SessionError::Phase(_) => "phase_violation",
    }
}

fn explore_error_code(e: &ExploreError) -> &'static str {
    match e {
        ExploreError::BadRegex { .. } => "bad_regex",
        ExploreError::Path(RepoPathError::OutsideRoot { .. }) => "outside_repository",
        ExploreError::Path(_) => "bad_path",
        ExploreError::NotFound { .. } => "not_found",
        ExploreError::NotAFile { .. } => "not_a_file",
        ExploreError::LineOutOfRange { .. } => "line_out_of_range",
        ExploreError::EmptySymbol => "empty_symbol",
        ExploreError::UnknownFileType { .. } => "unknown_file_type",
        ExploreError::Source(e) => match e {
            SourceError::TooLarge { .. } => "file_too_large",
            SourceError::NotRegular { .. } => "not_a_regular_file",
            SourceError::OutsideRoot { .. } => "outside_repository",
            SourceError::NotFound { .. } => "not_found",
            SourceError::Directory { .. } => "not_a_file",
            SourceError::Io { .. } => "read_failed",
        },
        ExploreError::Unparsable { .. } => "unparsable",
        ExploreError::Index(_) => "index_error",
    }
}

/// A core result as a tool result: `structuredContent` plus the same JSON as text; `isError` when
/// core reports the submission as not successful (the body still says why).
fn structured<T: Serialize>(value: &T, is_error: bool) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(v) if is_error => CallToolResult::structured_error(v),
        Ok(v) => CallToolResult::structured(v),
        Err(e) => Refusal::Internal(format!("cannot serialise the result: {e}")).into_result(),
    }
}

/// [`structured`] for an index-backed answer: with `stale` (the sync did not finish in the
/// freshness budget), the object gains `stale_files` (changed paths, at most 200),
/// `stale_files_total` and `stale_reason`, so the answer never hides that it may be behind.
fn structured_fresh<T: Serialize>(
    value: &T,
    stale: Option<&shared_index::Stale>,
) -> CallToolResult {
    let Some(stale) = stale else {
        return structured(value, false);
    };
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.insert("stale_files".into(), json!(stale.files));
            map.insert("stale_files_total".into(), json!(stale.total));
            map.insert("stale_reason".into(), json!(stale.reason));
            structured(&map, false)
        }
        Ok(other) => structured(&other, false),
        Err(e) => Refusal::Internal(format!("cannot serialise the result: {e}")).into_result(),
    }
}

/// Runs synchronous core code on the blocking pool.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, Refusal> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Refusal::Internal(format!("core call failed: {e}")))
}

impl CodeIntel {
    /// Creates the server for `root` with its loaded `config` and the (loading) embedding model.
    pub fn new(
        root: RepoRoot,
        config: Config,
        claude_session_id: Option<String>,
        embedder: Arc<SharedEmbedder>,
    ) -> Self {
        let config = Arc::new(config);
        let semantic = Arc::new(semantic::SemanticState::new(
            root.clone(),
            Arc::clone(&config),
        ));
        Self {
            store: SessionStore::new(root.clone()),
            index: Arc::new(SharedIndex::new(root.clone(), Arc::clone(&config))),
            root,
            config,
            claude_session_id,
            current_session: Arc::new(Mutex::new(None)),
            embedder,
            relevance: Arc::new(RelevanceCache::default()),
            semantic,
            budget: budget::Budget::default(),
            tool_router: catalog::compact(
                Self::tool_router()
                    + Self::relevance_router()
                    + Self::semantic_router()
                    + Self::learning_router(),
            ),
        }
    }

    /// The session a call applies to: the explicit id, else the one this server started last,
    /// else the one bound to this server's Claude Code session (a restarted server), else none.
    ///
    /// An explicit id that is no [`SessionId`] is refused here with the store's
    /// `invalid_session_id` error, before any session file is touched.
    async fn session_for(&self, explicit: Option<String>) -> Result<Option<SessionId>, Refusal> {
        // An empty id never gets here: `limits::check_arguments` refuses it.
        if let Some(id) = explicit {
            return SessionId::try_from(id)
                .map(Some)
                .map_err(|e| Refusal::Session(e.into()));
        }
        if let Some(id) = self
            .current_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            return Ok(Some(id));
        }
        let Some(claude) = self.claude_session_id.clone() else {
            return Ok(None);
        };
        let store = self.store.clone();
        match blocking(move || store.bound(&claude)).await? {
            Ok(bound) => Ok(bound),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the session binding");
                Ok(None)
            }
        }
    }

    /// A session tool: resolve the session and run `f` (a core call that checks the phase
    /// matrix under the session lock) on a blocking thread. `failed` says whether core's result
    /// reports a refused submission.
    async fn session_tool<T: Serialize + Send + 'static>(
        &self,
        explicit: Option<String>,
        failed: fn(&T) -> bool,
        f: impl FnOnce(&SessionStore, &SessionId) -> Result<T, SessionError> + Send + 'static,
    ) -> CallToolResult {
        let id = match self.session_for(explicit).await {
            Ok(Some(id)) => id,
            Ok(None) => return Refusal::NoSession.into_result(),
            Err(r) => return r.into_result(),
        };
        let store = self.store.clone();
        let outcome = blocking(move || f(&store, &id).map_err(Refusal::from)).await;
        match outcome.and_then(|r| r) {
            Ok(value) => structured(&value, failed(&value)),
            Err(r) => r.into_result(),
        }
    }
}

impl CodeIntel {
    /// `start_session`'s leads for `request` ([`code_intel_core::explore::leads::leads()`]); empty when
    /// the index never synced or the search fails (logged).
    async fn leads(&self, request: String) -> Vec<code_intel_core::explore::leads::Lead> {
        let Some(index) = self.index.for_tools_unchecked().await else {
            return Vec::new();
        };
        let found = blocking(move || {
            code_intel_core::explore::leads::leads(
                &index,
                &request,
                code_intel_core::explore::leads::DEFAULT_LEADS,
            )
        })
        .await;
        match found {
            Ok(Ok(leads)) => leads,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot rank leads for the request");
                Vec::new()
            }
            Err(_) => Vec::new(),
        }
    }

    /// An exploration tool through core's [`run_recorded`]: with a session, the phase matrix is
    /// checked first and the call recorded after; without one, it just runs. One blocking thread.
    async fn explore_tool<P, R>(
        &self,
        tool: ExploreTool<P, R>,
        explicit: Option<String>,
        params: P,
    ) -> CallToolResult
    where
        P: Serialize + Send + 'static,
        R: Serialize + TouchedFiles + RecordSummary + Send + 'static,
    {
        let id = match self.session_for(explicit).await {
            Ok(id) => id,
            Err(r) => return r.into_result(),
        };
        let fresh = self.index.fresh_for_tools().await;
        let (index, stale) = (fresh.index, fresh.stale);
        let (store, root, config) = (
            self.store.clone(),
            self.root.clone(),
            Arc::clone(&self.config),
        );
        let outcome = blocking(move || {
            let cx = ExploreContext {
                root: &root,
                config: &config,
                index: index.as_deref(),
                request: None,
            };
            run_recorded(&cx, &store, id.as_ref(), tool, &params).map_err(|e| match e {
                RecordedError::Session(e) => Refusal::from(e),
                RecordedError::Explore(e) => Refusal::Explore(e),
            })
        })
        .await;
        match outcome.and_then(|r| r) {
            Ok(value) => structured_fresh(&value, stale.as_ref()),
            Err(r) => r.into_result(),
        }
    }
}

#[tool_router]
impl CodeIntel {
    #[tool(
        description = "Start a code-intel session (required before any edit). Returns session_id, plan, leads."
    )]
    async fn start_session(&self, Parameters(p): Parameters<StartSessionParams>) -> CallToolResult {
        let intent = match p.intent.parse::<Intent>() {
            Ok(i) => i,
            Err(e) => {
                return CallToolResult::structured_error(
                    json!({ "error": "unknown_intent", "message": e.to_string() }),
                );
            }
        };
        let (store, claude) = (self.store.clone(), self.claude_session_id.clone());
        let query = p.query.clone();
        let started = blocking(move || store.start(intent, &p.query, claude.as_deref())).await;
        let start = match started {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => return Refusal::Session(e).into_result(),
            Err(r) => return r.into_result(),
        };
        *self
            .current_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(start.session_id.clone());
        tracing::info!(session = %start.session_id, intent = %start.intent, "session started");
        let sync_status = self.index.sync_on_start().await;
        let map_hints = self.map_hints(&query).await;
        let leads = self.leads(query).await;
        structured(
            &StartSessionResult {
                start,
                sync_status,
                map_hints,
                leads,
                model: self.embedder.status(),
            },
            false,
        )
    }

    #[tool(
        description = "Set QueryFrame slots from the request, each {value, quote}; the quote must be copied from the request. EXPLORATION phase."
    )]
    async fn set_query_frame(
        &self,
        Parameters(p): Parameters<WithSession<QueryFrameInput>>,
    ) -> CallToolResult {
        let frame = p.input;
        let checker = self.quote_checker();
        self.session_tool(
            p.session_id,
            |r: &SetQueryFrameResult| !r.success,
            move |store, id| store.set_query_frame(id, &frame, &checker),
        )
        .await
    }

    #[tool(
        description = "Show the session's phase, query frame, explored files and what is missing.",
        annotations(read_only_hint = true)
    )]
    async fn get_session_status(&self, Parameters(p): Parameters<SessionParams>) -> CallToolResult {
        let model = self.embedder.status();
        self.session_tool(
            p.session_id,
            |_: &SessionStatusResult| false,
            move |store, id| {
                store
                    .status(id)
                    .map(|status| SessionStatusResult { status, model })
            },
        )
        .await
    }

    #[tool(
        description = "Finish EXPLORATION: report symbols, entry points, files and patterns found. Answer: READY, or SEMANTIC with missing_requirements."
    )]
    async fn submit_understanding(
        &self,
        Parameters(p): Parameters<SubmitUnderstandingParams>,
    ) -> CallToolResult {
        let session_id = p.session_id.clone();
        let input = p.understanding();
        let scorer = self.understanding_scorer().await;
        self.session_tool(
            session_id,
            |r: &ScoredUnderstandingResult| !r.result.success,
            move |store, id| match &scorer {
                Some(parts) => store.submit_understanding_scored(id, input, &parts.scorer()),
                None => {
                    store
                        .submit_understanding(id, input)
                        .map(|result| ScoredUnderstandingResult {
                            result,
                            relevance: None,
                        })
                }
            },
        )
        .await
    }

    #[tool(
        description = "SEMANTIC phase: submit hypotheses and why exploration fell short; moves to VERIFICATION."
    )]
    async fn submit_semantic(
        &self,
        Parameters(p): Parameters<SubmitSemanticParams>,
    ) -> CallToolResult {
        let (hypotheses, reason) = (p.hypotheses, p.semantic_reason);
        self.session_tool(
            p.session_id,
            |r: &SemanticResult| !r.success,
            move |store, id| store.submit_semantic(id, hypotheses, reason),
        )
        .await
    }

    #[tool(
        description = "VERIFICATION phase: confirm or reject each hypothesis with evidence from an exploration tool; READY when none is left."
    )]
    async fn submit_verification(
        &self,
        Parameters(p): Parameters<SubmitVerificationParams>,
    ) -> CallToolResult {
        let results = p.results;
        self.session_tool(
            p.session_id,
            |r: &VerificationResult| !r.success,
            move |store, id| store.submit_verification(id, results),
        )
        .await
    }

    #[tool(
        description = "Call before every edit: may this file be written now? Allowed only in READY for explored files; a denial lists recovery_options."
    )]
    async fn check_write_target(
        &self,
        Parameters(p): Parameters<CheckWriteTargetParams>,
    ) -> CallToolResult {
        let (path, allow) = (p.path, p.allow_new_files);
        self.session_tool(
            p.session_id,
            |_: &WriteCheck| false,
            move |store, id| store.check_write_target(id, &path, allow),
        )
        .await
    }

    #[tool(
        description = "READY: make files read in this session (Read or an exploration tool), or new files in an explored directory, editable. Directories, globs and unread files are refused."
    )]
    async fn add_explored_files(
        &self,
        Parameters(p): Parameters<AddExploredFilesParams>,
    ) -> CallToolResult {
        let files = p.files;
        self.session_tool(
            p.session_id,
            |r: &AddExploredResult| !r.success,
            move |store, id| store.add_explored_files(id, &files),
        )
        .await
    }

    #[tool(
        description = "Go back to EXPLORATION from any phase (keep_results keeps explored files and tool calls)."
    )]
    async fn revert_to_exploration(
        &self,
        Parameters(p): Parameters<RevertParams>,
    ) -> CallToolResult {
        let keep = p.keep_results;
        self.session_tool(
            p.session_id,
            |_: &RevertResult| false,
            move |store, id| store.revert_to_exploration(id, keep),
        )
        .await
    }

    #[tool(
        description = "Regex or literal search over the repository's files (gitignore-aware), with context lines; files over max_file_bytes are listed as skipped. EXPLORATION, VERIFICATION, READY.",
        annotations(read_only_hint = true)
    )]
    async fn search_text(
        &self,
        Parameters(p): Parameters<WithSession<SearchTextParams>>,
    ) -> CallToolResult {
        self.explore_tool(recorded::SEARCH_TEXT, p.session_id, p.input)
            .await
    }

    #[tool(
        description = "Where a symbol is defined: file, line, kind, scope, signature. EXPLORATION, VERIFICATION, READY.",
        annotations(read_only_hint = true)
    )]
    async fn find_definitions(
        &self,
        Parameters(p): Parameters<WithSession<FindDefinitionsParams>>,
    ) -> CallToolResult {
        self.explore_tool(recorded::FIND_DEFINITIONS, p.session_id, p.input)
            .await
    }

    #[tool(
        description = "Where a symbol is used (definitions excluded), each with its enclosing symbol, plus framework links (renders, routes, components, relations). EXPLORATION, VERIFICATION, READY.",
        annotations(read_only_hint = true)
    )]
    async fn find_references(
        &self,
        Parameters(p): Parameters<WithSession<FindReferencesParams>>,
    ) -> CallToolResult {
        self.explore_tool(recorded::FIND_REFERENCES, p.session_id, p.input)
            .await
    }

    #[tool(
        description = "Symbol tree (classes, functions, methods, lines) of a file or directory (oversized files marked skipped); one file also gets its framework view (route, views, model). EXPLORATION, VERIFICATION, READY.",
        annotations(read_only_hint = true)
    )]
    async fn analyze_structure(
        &self,
        Parameters(p): Parameters<WithSession<AnalyzeStructureParams>>,
    ) -> CallToolResult {
        self.explore_tool(recorded::ANALYZE_STRUCTURE, p.session_id, p.input)
            .await
    }

    #[tool(
        description = "The function or method enclosing a line, with its source (a file over max_file_bytes is refused). EXPLORATION, VERIFICATION, READY.",
        annotations(read_only_hint = true)
    )]
    async fn get_function_at_line(
        &self,
        Parameters(p): Parameters<WithSession<FunctionAtLineParams>>,
    ) -> CallToolResult {
        self.explore_tool(recorded::GET_FUNCTION_AT_LINE, p.session_id, p.input)
            .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CodeIntel {
    /// Every call: arguments checked against [`limits`] before the tool runs, the answer cut to
    /// `max_output_chars` after (the exploration tools bound their own answers).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        // The background embedding waits while a call is answered (docs/BENCHMARKS.md has the
        // tool latency with and without it).
        let _answering = self.semantic.answering();
        if let Some(refusal) = limits::check_arguments(request.arguments.as_ref()) {
            return Ok(rmcp::model::CallToolResponse::Complete(refusal));
        }
        // Held until the answer is made: concurrent calls share one memory budget.
        let _share = match self.budget.admit(&request.name).await {
            Ok(share) => share,
            Err(busy) => return Ok(rmcp::model::CallToolResponse::Complete(busy)),
        };
        let self_bounded = limits::self_bounded(&request.name);
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let mut response = self.tool_router.call(tcc).await?;
        if let rmcp::model::CallToolResponse::Complete(result) = &mut response
            && !self_bounded
        {
            limits::fit_output(result, self.config.limits.max_output_chars);
        }
        Ok(response)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new(
                "code-intel",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS.to_string())
    }
}

/// Environment variable Claude Code sets to its session id for the MCP server (CLAUDE_CODE.md §3).
const CLAUDE_SESSION_ENV: &str = "CLAUDE_CODE_SESSION_ID";

/// Serves MCP on stdin/stdout until the client disconnects.
///
/// # Errors
/// When the configuration cannot be loaded or the transport fails to start.
pub async fn serve(root: RepoRoot) -> anyhow::Result<()> {
    let config = Config::load(root.path())?;
    let claude_session_id = std::env::var(CLAUDE_SESSION_ENV)
        .ok()
        .filter(|s| !s.is_empty());
    tracing::info!(root = %root.path().display(), claude_session = ?claude_session_id, "code-intel MCP server starting");
    // The embedding model loads when a call first needs it (docs/DESIGN.md#sync-ux); tools that
    // need it answer "initializing" until it is ready (docs/DESIGN.md#initializing).
    let embedder = SharedEmbedder::lazy_from_env();
    let server = CodeIntel::new(root, config, claude_session_id, embedder);
    server.prewarm_relevance();
    // Embeds the repository once a call has loaded the model (never loads it itself; not with
    // `search_mode: lexical`, docs/DESIGN.md#search-mode).
    server.start_semantic_background();
    // Open the index in the background so the first tool call does not pay for it.
    let warm = Arc::clone(&server.index);
    tokio::spawn(async move {
        if let Err(e) = warm.get().await {
            tracing::warn!(error = %e, "code index unavailable; exploration tools parse files from disk");
        }
    });
    // Every request line answered, malformed ones with JSON-RPC errors (see [`transport`]).
    let stdio = transport::GuardedStdio::new(tokio::io::stdin(), tokio::io::stdout());
    let running = server.serve(stdio).await?;
    let reason = running.waiting().await?;
    tracing::info!(?reason, "code-intel MCP server stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_fit_the_two_kilobyte_cut() {
        assert!(INSTRUCTIONS.len() <= 2048, "{} bytes", INSTRUCTIONS.len());
    }
}
