//! The learning loop's tools (docs/DESIGN.md#learning-loop, docs/DESIGN.md#map-forest):
//! `record_outcome`, `add_agreement`, `list_agreements`, `search_map`, `get_session_analysis`,
//! `get_improvement_insights`, and the `map_hints` of `start_session`. All are allowed in every
//! phase (the phase matrix does not list them). Thin adapters over `code_intel_session::outcome`,
//! `code_intel_session::learned` and `code_intel_core::index::map`; writing the map invalidates the
//! server's cached map, so the next search sees it at once.

use std::sync::Arc;

use code_intel_core::index::map::curate::{self, AgreementError, AgreementInput, MapListing};
use code_intel_core::index::map::{self, MapSearchHit, MapSearchResult};
use code_intel_session::learned::{DEFAULT_EMBEDDING_MODEL, Expiry, LearnError};
use code_intel_session::outcome::{self, LearnSettings, OutcomeError, OutcomeInput};
use code_intel_session::vocab::Outcome;
use code_intel_session::vocab::SessionId;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{CodeIntel, Refusal, blocking, structured};

/// Map hints `start_session` returns at most.
pub const MAP_HINTS: usize = 3;
/// Default and ceiling of `get_improvement_insights(limit)`.
const INSIGHTS_LIMIT: (usize, usize) = (100, 10_000);

/// `record_outcome` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct RecordOutcomeParams {
    /// Session id (default: this server's session, else the most recently changed one).
    #[serde(default)]
    pub session_id: Option<String>,
    /// `success`, `failure` or `partial`.
    pub outcome: String,
    /// What went right or wrong, in a sentence or two.
    #[serde(default)]
    pub analysis: Option<String>,
    /// The user's message that showed the outcome ("that broke the login"), verbatim.
    #[serde(default)]
    pub trigger_message: Option<String>,
    /// Where it went wrong (failure/partial); derived from the phase and the last denial or tool
    /// when absent.
    #[serde(default)]
    pub failure_point: Option<String>,
}

/// `add_agreement` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct AddAgreementParams {
    /// The natural-language term as users say it (`ログイン機能`, `password reset`).
    pub nl_term: String,
    /// The symbol it means (`AuthService`, `PasswordBroker.reset`).
    pub symbol: String,
    /// Where the code shows the relation (method names, comments, naming).
    pub code_evidence: String,
    /// Files that matter for it (repository-relative, optionally `path:line`).
    #[serde(default)]
    pub related_files: Option<Vec<String>>,
    /// Session whose intent and query frame to record (default: this server's session, if any).
    #[serde(default)]
    pub session_id: Option<String>,
}

/// `list_agreements` parameters.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct ListAgreementsParams {
    /// Also list stale entries (symbol no longer in the code) and expired ones (older than
    /// auto_purge_days). Default false.
    #[serde(default)]
    pub include_stale: Option<bool>,
}

/// `search_map` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SearchMapParams {
    /// Session to record the call on (default: this server's session).
    #[serde(default)]
    pub session_id: Option<String>,
    /// The request or a term, any language (`ログイン機能のバグ`, `password hashing`).
    pub query: String,
    /// Hits wanted (default 5).
    #[serde(default)]
    pub n_results: Option<usize>,
}

/// `get_session_analysis` parameters.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct SessionAnalysisParams {
    /// Session id (default: this server's session, else the most recently changed one).
    #[serde(default)]
    pub session_id: Option<String>,
}

/// `get_improvement_insights` parameters.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct InsightsParams {
    /// The most recent sessions with an outcome to analyse (default 100).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A map hint of `start_session`: a strong, non-stale map entry for the request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapHint {
    /// The learned term.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nl_term: Option<String>,
    /// The symbol it meant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The evidence recorded with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_evidence: Option<String>,
    /// Its agreement under `.code-intel/agreements/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreement_file: Option<String>,
    /// Files related to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related_files: Vec<String>,
    /// Why it matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl From<MapSearchHit> for MapHint {
    fn from(h: MapSearchHit) -> Self {
        let item = h.entry.item;
        Self {
            nl_term: item.nl_term,
            symbol: item.symbol,
            code_evidence: item.code_evidence,
            agreement_file: item.agreement_file,
            related_files: item.related_files,
            why: h.why,
        }
    }
}

/// `list_agreements` result: core's listing plus where the map lives.
#[derive(Debug, Serialize)]
struct ListAgreementsResult {
    #[serde(flatten)]
    listing: MapListing,
    /// `auto_purge_days` (0 = never).
    auto_purge_days: u32,
    /// Where the map lives (both human-editable).
    files: serde_json::Value,
}

fn outcome_refusal(e: OutcomeError) -> Refusal {
    match e {
        OutcomeError::Session(e) => Refusal::Session(e),
        e => Refusal::Internal(e.to_string()),
    }
}

impl CodeIntel {
    /// The session a learning tool applies to: as [`Self::session_for`], else the most recently
    /// changed session of the repository (the `/outcome` skill may run in a new server).
    async fn session_or_latest(&self, explicit: Option<String>) -> Result<SessionId, Refusal> {
        if let Some(id) = self.session_for(explicit).await? {
            return Ok(id);
        }
        let store = self.store.clone();
        match blocking(move || store.list()).await? {
            Ok(list) => list
                .into_iter()
                .next()
                .map(|s| s.session_id)
                .ok_or(Refusal::NoSession),
            Err(e) => Err(Refusal::Session(e)),
        }
    }

    fn purge_days(&self) -> u32 {
        self.config.auto_purge_days
    }

    /// The map searched for `query` (lexical without the model, hybrid with it; staleness checked
    /// when the index is synced). A model still loading is not waited for; an empty map does
    /// not load it.
    async fn map_search(&self, query: String, n: usize) -> Result<MapSearchResult, Refusal> {
        let index = self.index.for_tools().await;
        let wanted = match &index {
            _ if self.embedder.loaded().is_some() => true,
            Some(index) => self.map_has_entries(index).await,
            None => false,
        };
        let (embedder, model_note) = if wanted {
            match self.embedder.get() {
                Ok(e) => (Some(e), None),
                Err(nr) => (None, Some(nr.message())),
            }
        } else {
            (None, None)
        };
        let state = Arc::clone(&self.semantic);
        let mut result =
            blocking(move || state.search_map(index.as_deref(), embedder.as_deref(), &query, n))
                .await??;
        result.notes.extend(model_note);
        Ok(result)
    }

    /// `start_session`'s `map_hints`: strong, non-stale map entries for the request. Empty when
    /// the map is empty, the index has not synced (staleness unknown) or anything fails.
    pub(super) async fn map_hints(&self, query: &str) -> Vec<MapHint> {
        if self.index.for_tools_unchecked().await.is_none() {
            return Vec::new();
        }
        match self.map_search(query.to_string(), MAP_HINTS).await {
            Ok(r) => r
                .hits
                .into_iter()
                .filter(|h| h.strong)
                .map(MapHint::from)
                .collect(),
            Err(r) => {
                tracing::warn!(refusal = ?r, "no map hints");
                Vec::new()
            }
        }
    }
}

#[tool_router(router = learning_router, vis = "pub(super)")]
impl CodeIntel {
    #[tool(
        description = "Record how the session went (success|failure|partial); ends the session. Success teaches the map the confirmed symbols (learned_pairs.json + agreements). Any phase."
    )]
    async fn record_outcome(
        &self,
        Parameters(p): Parameters<RecordOutcomeParams>,
    ) -> CallToolResult {
        let outcome = match p.outcome.parse::<Outcome>() {
            Ok(o) => o,
            Err(e) => {
                return CallToolResult::structured_error(
                    json!({ "error": "validation_failed", "message": e.to_string() }),
                );
            }
        };
        let id = match self.session_or_latest(p.session_id).await {
            Ok(id) => id,
            Err(r) => return r.into_result(),
        };
        let input = OutcomeInput {
            outcome,
            analysis: p.analysis,
            trigger_message: p.trigger_message,
            failure_point: p.failure_point,
        };
        let (store, days) = (self.store.clone(), self.purge_days());
        let recorded = blocking(move || {
            let settings = LearnSettings {
                expiry: Expiry::after_days(days),
                embedding_model: Some(DEFAULT_EMBEDDING_MODEL),
            };
            outcome::record_outcome(&store, &id, input, &settings)
        })
        .await;
        match recorded {
            Ok(Ok(r)) => {
                if r.map_updated {
                    self.semantic.invalidate_map();
                }
                tracing::info!(session = %r.session_id, outcome = %r.outcome, learned = r.record.learned.len(), "outcome recorded");
                structured(&r, r.learn_error.is_some())
            }
            Ok(Err(e)) => outcome_refusal(e).into_result(),
            Err(r) => r.into_result(),
        }
    }

    #[tool(
        description = "Add a learned pair by hand: nl_term means symbol, with code_evidence; writes learned_pairs.json and an agreement. Any phase."
    )]
    async fn add_agreement(&self, Parameters(p): Parameters<AddAgreementParams>) -> CallToolResult {
        let session = match self.session_for(p.session_id.clone()).await {
            Ok(s) => s,
            Err(r) => return r.into_result(),
        };
        let index = self.index.for_tools().await;
        let (store, days) = (self.store.clone(), self.purge_days());
        let explicit = p.session_id.is_some();
        let input = AgreementInput {
            nl_term: p.nl_term,
            symbol: p.symbol,
            code_evidence: p.code_evidence,
            related_files: p.related_files.unwrap_or_default(),
        };
        let done = blocking(move || {
            let state = match session.as_ref().map(|id| store.load(id)) {
                Some(Ok(s)) => Some(s),
                Some(Err(e)) if explicit => return Err(Refusal::Session(e)),
                _ => None,
            };
            Ok(curate::add_agreement(
                &store.root().state_dir(),
                &input,
                state.as_ref(),
                index.as_deref(),
                &Expiry::after_days(days),
            ))
        })
        .await;
        match done.and_then(|r| r) {
            Ok(Ok(added)) => {
                self.semantic.invalidate_map();
                let mut body = serde_json::to_value(&added).unwrap_or_default();
                if let Some(obj) = body.as_object_mut() {
                    obj.insert("success".into(), true.into());
                    obj.insert(
                        "message".into(),
                        "Saved to .code-intel/learned_pairs.json and .code-intel/agreements/; search_map finds it now.".into(),
                    );
                }
                structured(&body, false)
            }
            Ok(Err(
                e
                @ (AgreementError::Empty { .. } | AgreementError::Learn(LearnError::Empty { .. })),
            )) => CallToolResult::structured_error(
                json!({ "error": "validation_failed", "message": e.to_string() }),
            ),
            Ok(Err(e @ AgreementError::Learn(LearnError::Existing(_)))) => {
                CallToolResult::structured_error(
                    json!({ "error": "learned_pairs_unreadable", "message": e.to_string() }),
                )
            }
            Ok(Err(e)) => Refusal::Internal(e.to_string()).into_result(),
            Err(r) => r.into_result(),
        }
    }

    #[tool(
        description = "List the map: learned pairs and agreements, with stale (symbol gone from the code) and expired ones only if include_stale. Any phase.",
        annotations(read_only_hint = true)
    )]
    async fn list_agreements(
        &self,
        Parameters(p): Parameters<ListAgreementsParams>,
    ) -> CallToolResult {
        let include = p.include_stale.unwrap_or(false);
        let index = self.index.for_tools().await;
        let (root, days) = (self.root.clone(), self.purge_days());
        let listed = blocking(move || {
            let listing = curate::list(
                &root.state_dir(),
                &Expiry::after_days(days),
                index.as_deref(),
                include,
            )
            .map_err(|e| {
                CallToolResult::structured_error(
                    json!({ "error": "learned_map_unreadable", "message": e.to_string() }),
                )
            })?;
            Ok(ListAgreementsResult {
                listing,
                auto_purge_days: days,
                files: json!({
                    "learned_pairs": root.state().learned_pairs(),
                    "agreements": root.state().agreements(),
                }),
            })
        })
        .await;
        match listed {
            Ok(Ok(v)) => structured(&v, false),
            Ok(Err(unreadable)) => unreadable,
            Err(r) => r.into_result(),
        }
    }

    #[tool(
        description = "Search the map (past successes: learned pairs, agreements) for a request or term, any language. Works without the model (by words); hybrid with it. Any phase.",
        annotations(read_only_hint = true)
    )]
    async fn search_map(&self, Parameters(p): Parameters<SearchMapParams>) -> CallToolResult {
        if p.query.trim().is_empty() {
            return CallToolResult::structured_error(
                json!({ "error": "validation_failed", "message": "query must not be empty" }),
            );
        }
        let id = match self.session_for(p.session_id.clone()).await {
            Ok(id) => id,
            Err(r) => return r.into_result(),
        };
        let n = p
            .n_results
            .unwrap_or(map::DEFAULT_MAP_RESULTS)
            .clamp(1, self.config.limits.max_results_ceiling.max(1));
        let result = match self.map_search(p.query.clone(), n).await {
            Ok(r) => r,
            Err(r) => return r.into_result(),
        };
        if let Some(id) = id {
            let record = curate::search_map_record(&p.query, n, &result);
            let store = self.store.clone();
            match blocking(move || store.record_tool_call(&id, record)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Refusal::Session(e).into_result(),
                Err(r) => return r.into_result(),
            }
        }
        structured(&result, false)
    }

    #[tool(
        description = "One session's decision, outcomes and analysis (tools planned and used, files read/edited, gate denials, failure point). Any phase.",
        annotations(read_only_hint = true)
    )]
    async fn get_session_analysis(
        &self,
        Parameters(p): Parameters<SessionAnalysisParams>,
    ) -> CallToolResult {
        let id = match self.session_or_latest(p.session_id).await {
            Ok(id) => id,
            Err(r) => return r.into_result(),
        };
        let store = self.store.clone();
        match blocking(move || outcome::session_analysis(&store, &id)).await {
            Ok(Ok(a)) => structured(&a, false),
            Ok(Err(e)) => outcome_refusal(e).into_result(),
            Err(r) => r.into_result(),
        }
    }

    #[tool(
        description = "Failure patterns over recent sessions with outcomes: outcome counts, tool and risk-level correlations, common failure points. Any phase.",
        annotations(read_only_hint = true)
    )]
    async fn get_improvement_insights(
        &self,
        Parameters(p): Parameters<InsightsParams>,
    ) -> CallToolResult {
        let limit = p
            .limit
            .unwrap_or(INSIGHTS_LIMIT.0)
            .clamp(1, INSIGHTS_LIMIT.1);
        let root = self.root.clone();
        match blocking(move || outcome::improvement_insights(&root.state_dir(), limit)).await {
            Ok(Ok(i)) => structured(&i, false),
            Ok(Err(e)) => outcome_refusal(e).into_result(),
            Err(r) => r.into_result(),
        }
    }
}
