//! The relevance tools (`validate_symbol_relevance`, `confirm_symbol_relevance`) and the model-backed
//! pieces the session tools use: the repository's background sample (built once from the index's
//! definitions and cached), the request-phrase background, the scorer for `submit_understanding`
//! and the lazy semantic quote checker for `set_query_frame`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use code_intel_core::embed::{EmbedError, Embedder};
use code_intel_core::index::CodeIndex;
use code_intel_core::relevance::{
    Background, CalibratedScorer, PhraseBackground, SemanticQuoteChecker,
};
use code_intel_session::query_frame::QuoteChecker;
use code_intel_session::relevance::{
    self, ConfirmInput, ConfirmResult, RelevanceScorer, SymbolClaim, Thresholds,
};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::embedder::{NotReady, SharedEmbedder};
use super::{CodeIntel, blocking, structured};

/// How long a session tool (`submit_understanding`, `set_query_frame`) waits for a model that is
/// still loading before it proceeds without one. Loading takes seconds (docs/MODEL.md), so by the
/// time a model submits its understanding the wait is normally zero.
pub(super) const MODEL_WAIT: Duration = Duration::from_secs(20);

/// The embedded backgrounds, built on first use and kept for the server's lifetime.
#[derive(Default)]
pub struct RelevanceCache {
    /// Built from the repository's definitions (once the index has synced).
    repository: Mutex<Option<Arc<Background>>>,
    /// Generic symbols, used while the index has not synced yet.
    builtin: Mutex<Option<Arc<Background>>>,
    phrases: Mutex<Option<Arc<PhraseBackground>>>,
}

/// The cached value in `slot` if it was embedded by `model_id`, else `build()`'s, stored. The lock
/// is held while building, so concurrent callers wait for one build instead of repeating it.
fn cached<T>(
    slot: &Mutex<Option<Arc<T>>>,
    model_id: &str,
    id_of: fn(&T) -> &str,
    build: impl FnOnce() -> Result<T, EmbedError>,
) -> Result<Arc<T>, EmbedError> {
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(v) = slot.as_ref().filter(|v| id_of(v) == model_id) {
        return Ok(Arc::clone(v));
    }
    let v = Arc::new(build()?);
    *slot = Some(Arc::clone(&v));
    Ok(v)
}

impl RelevanceCache {
    /// The background symbols: the repository's (a sample of the index's definitions) when the
    /// index is synced, else the generic ones until it is. Blocking (embeds ~200 short texts on
    /// first use).
    ///
    /// # Errors
    /// The embedding error.
    pub fn background(
        &self,
        embedder: &dyn Embedder,
        index: Option<&CodeIndex>,
    ) -> Result<Arc<Background>, EmbedError> {
        let model = embedder.model_id().to_string();
        if let Some(index) = index {
            match index.defined_symbols() {
                Ok(names) => {
                    return cached(&self.repository, &model, Background::model_id, || {
                        let bg = Background::from_symbols(
                            embedder,
                            names.iter().map(String::as_str),
                            Background::DEFAULT_SIZE,
                        )?;
                        tracing::info!(symbols = bg.len(), source = ?bg.source(), "relevance background built");
                        Ok(bg)
                    });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot list the repository's symbols; using generic background symbols");
                }
            }
        }
        cached(&self.builtin, &model, Background::model_id, || {
            Background::builtin(embedder)
        })
    }

    /// The request phrases of the quote check. Blocking on first use.
    ///
    /// # Errors
    /// The embedding error.
    pub fn phrases(&self, embedder: &dyn Embedder) -> Result<Arc<PhraseBackground>, EmbedError> {
        cached(
            &self.phrases,
            embedder.model_id(),
            PhraseBackground::model_id,
            || PhraseBackground::builtin(embedder),
        )
    }
}

/// Why the relevance background could not be built.
#[derive(Debug, thiserror::Error)]
pub(super) enum BackgroundError {
    /// Embedding the background symbols failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The blocking task building it panicked or could not be scheduled.
    #[error("building the relevance background failed (its task panicked or was cancelled)")]
    Task,
}

/// `confirm_symbol_relevance` got one evidence text for several symbols.
#[derive(Debug, thiserror::Error)]
#[error(
    "code_evidence must be an object {{\"<symbol>\": \"<evidence>\"}} when several symbols are confirmed: give evidence per symbol"
)]
pub(super) struct EvidenceShape;

/// A model and the background it is calibrated on: what a [`CalibratedScorer`] borrows.
pub(super) struct ScorerParts {
    embedder: Arc<dyn Embedder>,
    background: Arc<Background>,
}

impl ScorerParts {
    pub(super) fn scorer(&self) -> CalibratedScorer<'_> {
        CalibratedScorer::new(&*self.embedder, &self.background)
    }
}

/// The quote checker of `set_query_frame`: consulted only for quotes that are not in the request,
/// it then waits (at most [`MODEL_WAIT`]) for the model and checks semantically; without a model it
/// accepts nothing, like `LiteralOnly`.
pub(super) struct LazyQuoteChecker {
    embedder: Arc<SharedEmbedder>,
    cache: Arc<RelevanceCache>,
}

impl QuoteChecker for LazyQuoteChecker {
    fn semantically_consistent(&self, value: &str, quote: &str, query: &str) -> bool {
        let embedder = match self.embedder.wait(MODEL_WAIT) {
            Ok(e) => e,
            Err(nr) => {
                tracing::info!(reason = %nr.message(), "quote checked literally only");
                return false;
            }
        };
        match self.cache.phrases(&*embedder) {
            Ok(phrases) => SemanticQuoteChecker::new(&*embedder, &phrases)
                .semantically_consistent(value, quote, query),
            Err(e) => {
                tracing::warn!(error = %e, "semantic quote check failed; quote checked literally only");
                false
            }
        }
    }
}

impl CodeIntel {
    /// The background for `embedder`, built on a blocking thread on first use.
    async fn relevance_background(
        &self,
        embedder: &Arc<dyn Embedder>,
    ) -> Result<Arc<Background>, BackgroundError> {
        let index = self.index.for_tools().await;
        let (cache, embedder) = (Arc::clone(&self.relevance), Arc::clone(embedder));
        match blocking(move || cache.background(&*embedder, index.as_deref())).await {
            Ok(built) => Ok(built?),
            Err(_) => Err(BackgroundError::Task),
        }
    }

    /// The scorer for `submit_understanding`: the model (waiting at most [`MODEL_WAIT`] for a load
    /// in progress) and the background; `None` without a usable model (the tool then behaves as
    /// without the semantic layer).
    pub(super) async fn understanding_scorer(&self) -> Option<ScorerParts> {
        let embedder = match self.embedder.wait_async(MODEL_WAIT).await {
            Ok(e) => e,
            Err(nr) => {
                tracing::info!(reason = %nr.message(), "submit_understanding without relevance scores");
                return None;
            }
        };
        match self.relevance_background(&embedder).await {
            Ok(background) => Some(ScorerParts {
                embedder,
                background,
            }),
            Err(e) => {
                tracing::warn!(error = %e, "submit_understanding without relevance scores");
                None
            }
        }
    }

    /// The quote checker for `set_query_frame`.
    pub(super) fn quote_checker(&self) -> LazyQuoteChecker {
        LazyQuoteChecker {
            embedder: Arc::clone(&self.embedder),
            cache: Arc::clone(&self.relevance),
        }
    }

    /// Builds the phrase background and, when the index has synced already, the repository
    /// background once a call has loaded the model (this never loads it), so later relevance
    /// calls do not pay for them (otherwise the first call after the sync builds it).
    pub(super) fn prewarm_relevance(&self) {
        let server = self.clone();
        tokio::spawn(async move {
            let Some(embedder) = server.embedder.until_loaded().await else {
                return;
            };
            let cache = Arc::clone(&server.relevance);
            let e = Arc::clone(&embedder);
            let phrases = blocking(move || cache.phrases(&*e).map(|_| ())).await;
            if let Ok(Err(err)) = phrases {
                tracing::warn!(error = %err, "cannot embed the quote-check phrases");
            }
            if server.index.for_tools_unchecked().await.is_none() {
                return;
            }
            if let Err(err) = server.relevance_background(&embedder).await {
                tracing::warn!(error = %err, "cannot build the relevance background");
            }
        });
    }
}

/// `validate_symbol_relevance` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct ValidateSymbolRelevanceParams {
    /// The feature the request is about, as in the query frame's target_feature (e.g. "ログイン機能").
    pub target_feature: String,
    /// Candidate symbols found while exploring (e.g. "AuthService", "LoginController.store").
    #[serde(alias = "symbols_identified")]
    pub symbols: Vec<String>,
}

/// Evidence in the code for the confirmed symbols.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum CodeEvidenceParam {
    /// Per symbol: `{"AuthService": "AuthService.login() checks the password"}`.
    PerSymbol(BTreeMap<String, String>),
    /// One text, allowed when exactly one symbol is confirmed.
    Text(String),
}

/// `confirm_symbol_relevance` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct ConfirmSymbolRelevanceParams {
    /// Session id (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// The symbols you judged relevant to the target feature.
    pub relevant_symbols: Vec<String>,
    /// Mandatory: for every symbol, where the code shows it implements the feature (method names,
    /// comments, naming), as {"symbol": "evidence"}; a single string when there is one symbol.
    pub code_evidence: CodeEvidenceParam,
    /// The request term to check against (default: the query frame's target_feature value).
    #[serde(default)]
    pub nl_term: Option<String>,
}

impl ConfirmSymbolRelevanceParams {
    /// The core input.
    ///
    /// # Errors
    /// A message when one evidence text is given for several symbols.
    fn input(&self) -> Result<ConfirmInput, EvidenceShape> {
        let evidence_for = |symbol: &str| -> Result<String, EvidenceShape> {
            match &self.code_evidence {
                CodeEvidenceParam::PerSymbol(map) => Ok(map
                    .get(symbol)
                    .or_else(|| map.get(symbol.trim()))
                    .cloned()
                    .unwrap_or_default()),
                CodeEvidenceParam::Text(text) if self.relevant_symbols.len() <= 1 => {
                    Ok(text.clone())
                }
                CodeEvidenceParam::Text(_) => Err(EvidenceShape),
            }
        };
        let claims = self
            .relevant_symbols
            .iter()
            .map(|s| {
                Ok(SymbolClaim {
                    symbol: s.clone(),
                    code_evidence: evidence_for(s)?,
                })
            })
            .collect::<Result<Vec<_>, EvidenceShape>>()?;
        Ok(ConfirmInput {
            nl_term: self.nl_term.clone(),
            claims,
        })
    }
}

#[tool_router(router = relevance_router, vis = "pub(super)")]
impl CodeIntel {
    #[tool(
        description = "Which symbols implement target_feature? Returns a prompt (code_evidence required), the symbols ranked by calibrated embedding score, and learned pairs. Then call confirm_symbol_relevance.",
        annotations(read_only_hint = true)
    )]
    async fn validate_symbol_relevance(
        &self,
        Parameters(p): Parameters<ValidateSymbolRelevanceParams>,
    ) -> CallToolResult {
        if p.target_feature.trim().is_empty() || p.symbols.iter().all(|s| s.trim().is_empty()) {
            return CallToolResult::structured_error(json!({
                "error": "validation_failed",
                "message": "give target_feature and at least one symbol",
            }));
        }
        // The first call that needs the model loads it and waits for it (docs/DESIGN.md#initializing).
        let (embedder, mut unavailable) = match self.embedder.wait_async(MODEL_WAIT).await {
            Ok(e) => (Some(e), None),
            Err(nr @ NotReady::Loading { .. }) => return nr.into_result(),
            Err(nr) => (None, Some(nr.message())),
        };
        let background = match &embedder {
            Some(e) => match self.relevance_background(e).await {
                Ok(bg) => Some(bg),
                Err(e) => {
                    unavailable = Some(e.to_string());
                    None
                }
            },
            None => None,
        };
        let state_dir = self.root.state_dir();
        let expiry = code_intel_session::learned::Expiry::after_days(self.config.auto_purge_days);
        let outcome = blocking(move || {
            let parts = embedder
                .zip(background)
                .map(|(embedder, background)| ScorerParts {
                    embedder,
                    background,
                });
            let scorer = parts.as_ref().map(ScorerParts::scorer);
            relevance::validate_symbol_relevance(
                &state_dir,
                &expiry,
                &p.target_feature,
                &p.symbols,
                scorer.as_ref().map(|s| s as &dyn RelevanceScorer),
                unavailable.as_deref(),
            )
        })
        .await;
        match outcome {
            Ok(v) => structured(&v, false),
            Err(r) => r.into_result(),
        }
    }

    #[tool(
        description = "Confirm symbols that implement the target feature, code_evidence per symbol required. Per symbol: FACT, FACT + risk HIGH, or REJECTED with guidance. EXPLORATION, VERIFICATION."
    )]
    async fn confirm_symbol_relevance(
        &self,
        Parameters(p): Parameters<ConfirmSymbolRelevanceParams>,
    ) -> CallToolResult {
        let input = match p.input() {
            Ok(i) => i,
            Err(message) => {
                return CallToolResult::structured_error(
                    json!({ "error": "validation_failed", "message": message.to_string() }),
                );
            }
        };
        let embedder = match self.embedder.wait_async(MODEL_WAIT).await {
            Ok(e) => e,
            Err(nr) => return nr.into_result(),
        };
        let background = match self.relevance_background(&embedder).await {
            Ok(bg) => bg,
            Err(e) => {
                return NotReady::Unavailable {
                    message: e.to_string(),
                }
                .into_result();
            }
        };
        let parts = ScorerParts {
            embedder,
            background,
        };
        self.session_tool(
            p.session_id,
            |r: &ConfirmResult| !r.success,
            move |store, id| {
                store.confirm_symbol_relevance(id, &input, &parts.scorer(), &Thresholds::SYMBOLS)
            },
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(symbols: &[&str], evidence: serde_json::Value) -> ConfirmSymbolRelevanceParams {
        serde_json::from_value(json!({
            "relevant_symbols": symbols,
            "code_evidence": evidence,
        }))
        .unwrap()
    }

    #[test]
    fn code_evidence_is_read_per_symbol_or_as_one_text_for_one_symbol() {
        let p = params(&["A", "B"], json!({"A": "a() does it", "C": "unused"}));
        let input = p.input().unwrap();
        assert_eq!(input.claims[0].code_evidence, "a() does it");
        assert_eq!(
            input.claims[1].code_evidence, "",
            "missing evidence reaches core's check"
        );

        let p = params(&["A"], json!("AuthService.login() handles authentication"));
        assert_eq!(
            p.input().unwrap().claims[0].code_evidence,
            "AuthService.login() handles authentication"
        );
        let p = params(&["A", "B"], json!("one text for two"));
        assert!(
            p.input()
                .unwrap_err()
                .to_string()
                .contains("evidence per symbol")
        );
    }
}
