//! `semantic_search` (map first, then the forest) and the server's vector side: the vector index
//! opened once the model is loaded, kept consistent with the lexical index, and filled in the
//! background (docs/DESIGN.md#sync-ux: lexical search never waits for embeddings).
//!
//! The background task waits for the model ([`SharedEmbedder`](super::embedder::SharedEmbedder)) and a synced index, then every
//! [`POLL`] checks whether the lexical index committed since the vectors last looked
//! (`sync_state.json`'s mtime, then its commit id); if so it refreshes the rows, and it embeds
//! whatever is pending in groups of [`BACKGROUND_GROUP`] texts with the server's one-thread
//! model, inserting each group under a short write lock. It runs on a thread of its own at a
//! lower priority ([`BACKGROUND_NICE`]) and waits between groups while any tool call is being
//! answered ([`SemanticState::answering`]), so a call waits for at most the one group in flight.
//! Queries meanwhile search what is embedded and report the coverage. A `semantic_search` that
//! reaches the forest first refreshes the vectors if they are behind the index, then embeds its
//! best keyword candidates that have no vector yet ([`query_embed`], within
//! `query_embed_max_chunks` / `query_embed_max_ms`), so a just-indexed repository or a
//! just-edited file gets semantic scores where the query needs them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime};

use code_intel_core::embed::{EmbedError, Embedder};
use code_intel_core::index::CodeIndex;
use code_intel_core::index::hybrid::{self, SearchMode, SearchOptions};
use code_intel_core::index::map::{self, MapError, MapIndex, MapSearchResult, QueryVector};
use code_intel_core::index::query_embed::{
    self, QueryEmbedBudget, QueryEmbedError, QueryEmbedReport,
};
use code_intel_core::index::rank::RankParams;
use code_intel_core::index::semantic::{self, Collection, SemanticSearchResult, Sources};
use code_intel_core::index::sync::SyncState;
use code_intel_core::index::vector::{VectorError, VectorIndex};
use code_intel_session::config::Config;
use code_intel_session::learned::Expiry;
use code_intel_session::repo_path::RepoRoot;
use code_intel_session::session::{self, ToolCallRecord};
use code_intel_session::vocab::Phase;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::embedder::NotReady;
use super::{CodeIntel, Refusal, blocking};

/// What the semantic state's blocking work (opening, refreshing and embedding the vector index,
/// loading the map, query-time embedding) can fail with. Tools turn it into an internal error at
/// the MCP boundary; the background run logs it and retries.
#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    /// The vector index (open, refresh, insert, save, the embedding lock).
    #[error(transparent)]
    Vectors(#[from] VectorError),
    /// The embedding model.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The learned map's files.
    #[error(transparent)]
    Map(#[from] MapError),
    /// Query-time candidate embedding.
    #[error(transparent)]
    QueryEmbed(#[from] QueryEmbedError),
}

impl From<SemanticError> for Refusal {
    /// Reported to the model as an internal error with the cause's message (which names the
    /// file and the fix where the cause has one).
    fn from(e: SemanticError) -> Self {
        Refusal::Internal(e.to_string())
    }
}

/// How often the background task looks for a new lexical commit.
pub const POLL: Duration = Duration::from_secs(5);
/// Texts the background task embeds per call of the model: one batch of the embedder (8), so
/// a tool call that pauses it waits for at most one batch (about 0.3–0.5 s of one core for 8
/// summary texts, docs/MODEL.md).
pub const BACKGROUND_GROUP: usize = 8;
/// The nice value of the background embedding thread (0 normal, 19 lowest): other work of the
/// machine, and the server's own tool calls, get the cores first.
pub const BACKGROUND_NICE: i32 = 10;
/// How often a paused background task looks whether the tool calls are done.
const PAUSE_POLL: Duration = Duration::from_millis(10);
/// Seconds between state saves caused by query-time embedding (its vectors are flushed to the
/// embedding cache at once; the state only catches `status` up).
const QUERY_SAVE_EVERY: Duration = Duration::from_secs(10);
/// Query vectors remembered (a model retrying a query, or the same query in map and forest,
/// costs no second embedding: about 6–8 ms on one thread, most of a query's latency).
const QUERY_CACHE: usize = 256;

/// The server's model with a small memory of query vectors ([`QUERY_CACHE`] entries, cleared
/// when full); passages go straight to the model.
struct CachedQueries<'a> {
    inner: &'a dyn Embedder,
    cache: &'a Mutex<HashMap<String, Vec<f32>>>,
}

impl Embedder for CachedQueries<'_> {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dims(&self) -> usize {
        self.inner.dims()
    }

    fn embed_queries(
        &self,
        texts: &[&str],
    ) -> Result<Vec<Vec<f32>>, code_intel_core::embed::EmbedError> {
        let key = |t: &str| format!("{}\0{t}", self.inner.model_id());
        {
            let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            let hits: Option<Vec<Vec<f32>>> =
                texts.iter().map(|t| cache.get(&key(t)).cloned()).collect();
            if let Some(hits) = hits {
                return Ok(hits);
            }
        }
        let vectors = self.inner.embed_queries(texts)?;
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() + texts.len() > QUERY_CACHE {
            cache.clear();
        }
        for (t, v) in texts.iter().zip(&vectors) {
            cache.insert(key(t), v.clone());
        }
        Ok(vectors)
    }

    fn embed_passages(
        &self,
        texts: &[&str],
    ) -> Result<Vec<Vec<f32>>, code_intel_core::embed::EmbedError> {
        self.inner.embed_passages(texts)
    }
}

/// `semantic_search` parameters.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct SemanticSearchParams {
    /// Session to record the call on (default: the session this server started last).
    #[serde(default)]
    pub session_id: Option<String>,
    /// What to look for: a description of the behaviour (any language) or identifiers.
    pub query: String,
    /// `map` (learned pairs and agreements; every phase), `forest` (the code; SEMANTIC and
    /// READY), or `auto` (default: the map first, the forest unless a map hit is confident; in
    /// phases without the forest, the map only).
    #[serde(default)]
    pub collection: Option<String>,
    /// Forest hits wanted (default 10).
    #[serde(default)]
    pub n_results: Option<usize>,
    /// English identifiers/terms for the keyword side (not embedded); fill it for non-English
    /// requests.
    #[serde(default)]
    pub keywords: Option<String>,
}

/// The server's vector side.
pub struct SemanticState {
    root: RepoRoot,
    config: Arc<Config>,
    /// Open once the model is known (its id and dimensions name the vectors).
    vectors: RwLock<Option<VectorIndex>>,
    /// Serialises refreshes and embedding runs (the background task and inline catch-ups).
    work: Mutex<()>,
    /// The map and the stamp of the files it was read from.
    map: Mutex<Option<(MapStamp, Arc<MapIndex>)>>,
    /// mtime of `sync_state.json` when the vectors last checked it.
    seen_sync: Mutex<Option<SystemTime>>,
    /// Recent query vectors ([`CachedQueries`]).
    queries: Mutex<HashMap<String, Vec<f32>>>,
    started: AtomicBool,
    stop: AtomicBool,
    /// Tool calls being answered right now; the background task waits while this is not zero.
    answering: AtomicUsize,
    /// When query-time embedding last saved the state.
    query_saved: Mutex<Option<Instant>>,
}

/// Marks a tool call as being answered for its lifetime ([`SemanticState::answering`]).
pub struct Answering<'a>(&'a AtomicUsize);

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Modification times and sizes of the map's files, and the index's last commit (a change
/// reloads the map: new entries, and staleness checked against the new code).
type MapStamp = Vec<(String, Option<(SystemTime, u64)>)>;

fn map_stamp(root: &RepoRoot) -> MapStamp {
    let state = root.state();
    let mtime = |p: &std::path::Path| {
        std::fs::metadata(p)
            .and_then(|m| Ok((m.modified()?, m.len())))
            .ok()
    };
    let mut stamp = vec![
        (
            "learned_pairs.json".to_string(),
            mtime(&state.learned_pairs()),
        ),
        ("sync_state.json".to_string(), mtime(&SyncState::path(root))),
    ];
    let agreements = state.agreements();
    stamp.push(("agreements/".into(), mtime(&agreements)));
    if let Ok(entries) = std::fs::read_dir(&agreements) {
        let mut files: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    mtime(&e.path()),
                )
            })
            .collect();
        files.sort();
        stamp.extend(files);
    }
    stamp
}

impl SemanticState {
    /// The state for `root`; nothing is opened yet.
    pub fn new(root: RepoRoot, config: Arc<Config>) -> Self {
        Self {
            root,
            config,
            vectors: RwLock::new(None),
            work: Mutex::new(()),
            map: Mutex::new(None),
            seen_sync: Mutex::new(None),
            queries: Mutex::new(HashMap::new()),
            started: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            answering: AtomicUsize::new(0),
            query_saved: Mutex::new(None),
        }
    }

    /// Marks a tool call as being answered until the guard drops: the background embedding
    /// waits (between groups) meanwhile.
    pub fn answering(&self) -> Answering<'_> {
        self.answering.fetch_add(1, Ordering::AcqRel);
        Answering(&self.answering)
    }

    /// Waits while tool calls are being answered (or until the server stops).
    fn yield_to_calls(&self) {
        while self.answering.load(Ordering::Acquire) > 0 && !self.stop.load(Ordering::Relaxed) {
            std::thread::sleep(PAUSE_POLL);
        }
    }

    /// Opens the vector index for `embedder`'s model if it is not open (blocking).
    fn ensure_open(&self, embedder: &dyn Embedder) -> Result<(), SemanticError> {
        let mut slot = self.vectors.write().unwrap_or_else(PoisonError::into_inner);
        if slot
            .as_ref()
            .is_some_and(|v| v.model_id() == embedder.model_id())
        {
            return Ok(());
        }
        let v = VectorIndex::open(
            &self.root,
            &self.config,
            embedder.model_id(),
            embedder.dims(),
        )?;
        *slot = Some(v);
        Ok(())
    }

    /// Refreshes the rows when the lexical index committed since the last look (blocking): a
    /// `stat` of `sync_state.json` when its mtime is unchanged, else its commit id is compared.
    fn refresh_if_behind(&self) -> Result<(), SemanticError> {
        let path = SyncState::path(&self.root);
        let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        {
            let seen = self
                .seen_sync
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if mtime.is_some() && *seen == mtime {
                return Ok(());
            }
        }
        self.refresh_now()?;
        // Only after a successful refresh: a failed one is retried at the next look.
        *self
            .seen_sync
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = mtime;
        Ok(())
    }

    /// Refreshes the rows if they do not describe the lexical index's commit (blocking).
    fn refresh_now(&self) -> Result<(), SemanticError> {
        let current = self
            .vectors
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_none_or(VectorIndex::is_current);
        if current {
            return Ok(());
        }
        let mut slot = self.vectors.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = slot.as_mut() {
            // Refreshed again when another call refreshed between the two locks (a refresh of
            // the same commit finds nothing to do).
            let report = v.refresh_and_save(None)?;
            tracing::info!(
                rechunked = report.files_rechunked,
                removed = report.files_removed,
                reused = report.reused_vectors,
                "vectors refreshed"
            );
        }
        Ok(())
    }

    /// Embeds every pending text, a group at a time, as one of core's
    /// [`EmbedRun`](code_intel_core::index::vector::EmbedRun)s (blocking): the model runs without
    /// a lock on the vectors, each group is inserted under a short write lock, and nothing is
    /// flushed per group (the run's saves every 30 s and at the end flush). Returns how many
    /// were embedded.
    fn embed_pending(&self, embedder: &dyn Embedder) -> Result<usize, SemanticError> {
        // One embedding run per repository across processes (a CLI `index --embed` may run).
        let run = match self
            .vectors
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            Some(v) => v.begin_embedding()?,
            None => return Ok(0),
        };
        let Some(mut run) = run else { return Ok(0) };
        while run.remaining() > 0 {
            self.yield_to_calls();
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let Some(group) = run.embed_next(embedder, BACKGROUND_GROUP) else {
                break;
            };
            let group = group?;
            let mut slot = self.vectors.write().unwrap_or_else(PoisonError::into_inner);
            let Some(v) = slot.as_mut() else { break };
            run.insert(v, &group)?;
            run.save_if_due(v)?;
        }
        if run.embedded() > 0
            && let Some(v) = self
                .vectors
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .as_mut()
        {
            v.save()?;
        }
        Ok(run.embedded())
    }

    /// One background round: open, refresh if behind, embed everything pending (blocking).
    fn catch_up(&self, embedder: &dyn Embedder) -> Result<usize, SemanticError> {
        let _work = self.work.lock().unwrap_or_else(PoisonError::into_inner);
        self.ensure_open(embedder)?;
        self.refresh_if_behind()?;
        self.embed_pending(embedder)
    }

    /// Before a query: open, refresh if behind, and with `forest` (the lexical index and the
    /// keyword query) embed the query's best keyword candidates that have no vector yet
    /// ([`query_embed::embed_candidates`]) (blocking).
    fn before_query(
        &self,
        embedder: &dyn Embedder,
        forest: Option<(&CodeIndex, &str)>,
    ) -> Result<Option<QueryEmbedReport>, SemanticError> {
        self.ensure_open(embedder)?;
        // Cheap when nothing changed; safe while a background run embeds (it inserts under the
        // same write lock, and its texts of changed files are skipped by the insert).
        self.refresh_if_behind()?;
        let budget = QueryEmbedBudget::configured(&self.config);
        let Some((index, query)) = forest.filter(|_| budget.enabled()) else {
            return Ok(None);
        };
        let mut slot = self.vectors.write().unwrap_or_else(PoisonError::into_inner);
        let Some(v) = slot.as_mut() else {
            return Ok(None);
        };
        let report = query_embed::embed_candidates(
            index,
            v,
            embedder,
            query,
            &RankParams::default(),
            &budget,
        )?;
        if report.embedded > 0 {
            let mut saved = self
                .query_saved
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if saved.is_none_or(|t| t.elapsed() >= QUERY_SAVE_EVERY) {
                v.save()?;
                *saved = Some(Instant::now());
            }
        }
        Ok(Some(report))
    }

    /// The map, reloaded when its files or the index changed (blocking). With `embedder` its
    /// entries are embedded (new ones only); with `index` stale entries are marked. Expiry
    /// follows `auto_purge_days`.
    fn map(
        &self,
        embedder: Option<&dyn Embedder>,
        index: Option<&CodeIndex>,
    ) -> Result<Arc<MapIndex>, SemanticError> {
        let stamp = map_stamp(&self.root);
        let mut slot = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((s, m)) = slot.as_ref()
            && *s == stamp
            && embedder.is_none_or(|e| m.model_id() == Some(e.model_id()))
            && (index.is_none() || m.stale_checked())
        {
            return Ok(Arc::clone(m));
        }
        let expiry = Expiry::after_days(self.config.auto_purge_days);
        let mut map = MapIndex::load_with(&self.root, &expiry, embedder)?;
        if let Some(index) = index {
            map.mark_stale(index);
        }
        let map = Arc::new(map);
        *slot = Some((stamp, Arc::clone(&map)));
        Ok(map)
    }

    /// Forgets the cached map (after `record_outcome` / `add_agreement` wrote its files), so the
    /// next search reads them even within the file system's timestamp granularity.
    pub fn invalidate_map(&self) {
        *self.map.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// `search_map` (blocking): lexical without `embedder`, hybrid with it (the query's cosines
    /// to the embedded code calibrate the vector side when the vector index is there).
    pub fn search_map(
        &self,
        index: Option<&CodeIndex>,
        embedder: Option<&dyn Embedder>,
        query: &str,
        n_results: usize,
    ) -> Result<MapSearchResult, SemanticError> {
        let embedder = embedder.filter(|_| !self.config.lightweight_mode);
        let map = self.map(embedder, index)?;
        let Some(embedder) = embedder else {
            return Ok(map::search_map(&map, query, None, n_results));
        };
        // Open the vectors if they are on disk (no embedding here: the background does that).
        if let Err(e) = self.ensure_open(embedder) {
            tracing::warn!(error = %e, "vector index unavailable for the map's calibration");
        }
        let cached = CachedQueries {
            inner: embedder,
            cache: &self.queries,
        };
        let q = cached.embed_queries(&[query])?.pop().unwrap_or_default();
        let background = self
            .vectors
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|v| v.dims() == q.len())
            .map(|v| v.profile(&q))
            .unwrap_or_default();
        Ok(map::search_map(
            &map,
            query,
            Some(QueryVector {
                vector: &q,
                background,
            }),
            n_results,
        ))
    }
}

/// The collection to search in `phase` for the requested one: `Ok(collection, note)`, or the
/// phase violation of an explicit request. `auto` narrows to the map where the forest is not
/// allowed (docs/DESIGN.md#phase-tool-matrix: the map is always readable, the forest only in
/// SEMANTIC and READY).
fn effective_collection(
    phase: Option<Phase>,
    requested: Collection,
) -> Result<(Collection, Option<String>), session::PhaseViolation> {
    let Some(phase) = phase else {
        return Ok((requested, None));
    };
    match requested {
        Collection::Auto => match session::check_tool(phase, "semantic_search", Some("forest")) {
            Ok(()) => Ok((Collection::Auto, None)),
            Err(_) => Ok((
                Collection::Map,
                Some(format!(
                    "the forest (code) is not searchable in phase {phase}: searched the map only"
                )),
            )),
        },
        c => session::check_tool(phase, "semantic_search", Some(c.name())).map(|()| (c, None)),
    }
}

fn summary(r: &SemanticSearchResult) -> String {
    let status = serde_json::to_value(r.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let top = r
        .map_hits
        .iter()
        .filter(|h| h.confident)
        .filter_map(|h| h.entry.item.symbol.clone())
        .next()
        .or_else(|| {
            r.forest_hits
                .first()
                .map(|h| format!("{}:{}", h.hit.file, h.hit.start_line))
        })
        .unwrap_or_else(|| "-".into());
    format!(
        "semantic_search({}) {status}: {} map hits, {} forest hits (top {top})",
        r.collection.name(),
        r.map_hits.len(),
        r.forest_hits.len()
    )
}

impl CodeIntel {
    /// Whether the server embeds the repository in the background once a call has loaded the
    /// model: not with `search_mode: lexical` nor `lightweight_mode` (the one place that decides
    /// it). With the default `auto` the vectors serve the requests it searches in hybrid
    /// (questions, CJK requests) and the map's calibration (docs/DESIGN.md#search-mode).
    pub(super) fn embeds_in_background(&self) -> bool {
        !self.config.lightweight_mode
            && SearchMode::from_name(&self.config.search_mode) != Some(SearchMode::Lexical)
    }

    /// Starts the background embedding task (once per server, when [`Self::embeds_in_background`]):
    /// it waits for the model without loading it, so it embeds only in a server where a call
    /// needed the model.
    pub(super) fn start_semantic_background(&self) {
        if !self.embeds_in_background() || self.semantic.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let (state, index, embedder) = (
            Arc::clone(&self.semantic),
            Arc::clone(&self.index),
            Arc::clone(&self.embedder),
        );
        let runtime = tokio::runtime::Handle::current();
        tokio::spawn(async move {
            let Some(model) = embedder.until_loaded().await else {
                tracing::info!("no background embedding: the model is unavailable");
                return;
            };
            // A thread of its own, so its lower priority stays with it (a nice value is per
            // thread on Linux; the blocking pool's threads are shared with the tool calls).
            let spawned = std::thread::Builder::new()
                .name("code-intel-embed".into())
                .spawn(move || background_loop(&state, &index, model.as_ref(), &runtime));
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "cannot start the background embedding thread");
            }
        });
    }

    /// Whether `semantic_search` of `query` over `collection` needs the model: its forest is
    /// ranked with the vectors (the configured mode resolved for the request: a question or a CJK
    /// request under `auto`), or the map is searched and has entries (their calibration needs
    /// the query's vector). Otherwise the search is lexical and a model not loaded yet stays so.
    async fn search_needs_model(
        &self,
        index: &Arc<CodeIndex>,
        query: &str,
        collection: Collection,
    ) -> bool {
        if self.config.lightweight_mode {
            return false;
        }
        let forest_mode = SearchOptions::configured(&self.config)
            .map(|o| o.mode.resolve(query))
            .unwrap_or(SearchMode::Hybrid);
        if collection != Collection::Map && forest_mode != SearchMode::Lexical {
            return true;
        }
        collection != Collection::Forest && self.map_has_entries(index).await
    }

    /// Whether the map (learned pairs and agreements, expired ones left out) has an entry.
    pub(super) async fn map_has_entries(&self, index: &Arc<CodeIndex>) -> bool {
        let (state, index) = (Arc::clone(&self.semantic), Arc::clone(index));
        blocking(move || state.map(None, Some(&index)).is_ok_and(|m| !m.is_empty()))
            .await
            .unwrap_or(false)
    }

    /// Answers `semantic_search`.
    async fn semantic_search_impl(&self, p: SemanticSearchParams) -> CallToolResult {
        let requested = match p.collection.as_deref() {
            None => Collection::Auto,
            Some(c) => match Collection::from_name(c) {
                Some(c) => c,
                None => {
                    return CallToolResult::structured_error(json!({
                        "error": "validation_failed",
                        "message": format!("unknown collection {c:?}: use map, forest or auto"),
                    }));
                }
            },
        };
        if p.query.trim().is_empty() {
            return CallToolResult::structured_error(
                json!({ "error": "validation_failed", "message": "query must not be empty" }),
            );
        }
        let id = match self.session_for(p.session_id.clone()).await {
            Ok(id) => id,
            Err(r) => return r.into_result(),
        };
        let phase = match &id {
            Some(id) => {
                let (store, id) = (self.store.clone(), id.clone());
                match blocking(move || store.load(&id)).await {
                    Ok(Ok(s)) => Some(s.phase),
                    Ok(Err(e)) => return Refusal::Session(e).into_result(),
                    Err(r) => return r.into_result(),
                }
            }
            None => None,
        };
        let (collection, phase_note) = match effective_collection(phase, requested) {
            Ok(c) => c,
            Err(v) => return Refusal::Phase(v).into_result(),
        };
        let fresh = self.index.fresh_for_tools().await;
        let stale = fresh.stale;
        let Some(index) = fresh.index else {
            return CallToolResult::structured_error(json!({
                "error": "index_not_ready",
                "message": "the code index has not been built yet: start_session syncs it (or run `code-intel index`); retry after it",
            }));
        };
        // The model only where it helps (docs/DESIGN.md#search-mode); once loaded it serves
        // every search.
        let needs_model = self.search_needs_model(&index, &p.query, collection).await;
        let (embedder, model_note) = match self.embedder.loaded() {
            Some(e) => (Some(e), None),
            None if !needs_model => (None, None),
            // The first call that needs the model loads it and waits for it.
            None => match self.embedder.wait_async(super::relevance::MODEL_WAIT).await {
                Ok(e) => (Some(e), None),
                Err(nr @ NotReady::Loading { .. }) => return nr.into_result(),
                Err(nr) => (None, Some(nr.message())),
            },
        };
        let model_unused = embedder.is_none() && model_note.is_none();
        let n_results = p
            .n_results
            .unwrap_or(10)
            .clamp(1, self.config.limits.max_results_ceiling.max(1));
        let (state, config, store) = (
            Arc::clone(&self.semantic),
            Arc::clone(&self.config),
            self.store.clone(),
        );
        let query = p.query.clone();
        let keywords = p.keywords.clone();
        let outcome = blocking(move || {
            let mut result = match &embedder {
                Some(e) => search_with_model(
                    &state,
                    &index,
                    e.as_ref(),
                    &config,
                    (&query, keywords.as_deref()),
                    collection,
                    n_results,
                )?,
                None => {
                    let lexical_query = semantic::with_keywords(&query, keywords.as_deref());
                    let mut r = lexical_only(
                        &index,
                        &config,
                        &lexical_query,
                        collection,
                        n_results,
                        model_unused,
                    )?;
                    r.query.clone_from(&query);
                    r
                }
            };
            result.notes.extend(phase_note);
            result.notes.extend(model_note);
            if let Some(id) = &id {
                let mut files: Vec<String> = Vec::new();
                for h in &result.forest_hits {
                    if !files.contains(&h.hit.file) {
                        files.push(h.hit.file.clone());
                    }
                }
                let record = ToolCallRecord {
                    tool: "semantic_search".into(),
                    params: json!({ "query": query, "collection": collection.name(), "n_results": n_results }),
                    files,
                    result_summary: summary(&result),
                    phase: Phase::Exploration,
                    timestamp: Default::default(),
                };
                store.update_in_phase(id, "semantic_search", Some(collection.name()), |s| {
                    s.record_tool_call(record)
                })
                .map_err(Refusal::from)?;
            }
            Ok(result)
        })
        .await;
        match outcome.and_then(|r| r) {
            Ok(v) => super::structured_fresh(&v, stale.as_ref()),
            Err(r) => r.into_result(),
        }
    }
}

/// The background embedding loop (its own thread): lowers the thread's priority, then every
/// [`POLL`] catches the vectors up with the index once it is synced.
fn background_loop(
    state: &SemanticState,
    index: &super::shared_index::SharedIndex,
    model: &dyn Embedder,
    runtime: &tokio::runtime::Handle,
) {
    let tid = rustix::thread::gettid();
    if let Err(e) = rustix::process::setpriority_process(Some(tid), BACKGROUND_NICE) {
        tracing::info!(error = %e, "background embedding runs at normal priority");
    }
    loop {
        if state.stop.load(Ordering::Relaxed) {
            return;
        }
        if runtime.block_on(index.for_tools_unchecked()).is_some() {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| state.catch_up(model))) {
                Ok(Ok(0)) => {}
                Ok(Ok(n)) => tracing::info!(embedded = n, "background embedding round done"),
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "background embedding failed; retrying later")
                }
                Err(_) => tracing::warn!("background embedding panicked; retrying later"),
            }
        }
        std::thread::sleep(POLL);
    }
}

/// The search with the model (blocking).
fn search_with_model(
    state: &SemanticState,
    index: &CodeIndex,
    embedder: &dyn Embedder,
    config: &Config,
    (query, keywords): (&str, Option<&str>),
    collection: Collection,
    n_results: usize,
) -> Result<SemanticSearchResult, Refusal> {
    let internal = |e: String| Refusal::Internal(e);
    let lexical_query = semantic::with_keywords(query, keywords);
    let opts = SearchOptions::configured(config).map_err(|e| internal(e.to_string()))?;
    let query_embedding = if config.lightweight_mode {
        None
    } else {
        // Candidates embed on the spot only for a search that ranks with the vectors.
        let forest = (collection != Collection::Map
            && opts.mode.resolve(query) != SearchMode::Lexical)
            .then_some((index, lexical_query.as_str()));
        state.before_query(embedder, forest)?
    };
    let map = state.map(Some(embedder), Some(index))?;
    let vectors = state.vectors.read().unwrap_or_else(PoisonError::into_inner);
    let embedder = CachedQueries {
        inner: embedder,
        cache: &state.queries,
    };
    semantic::semantic_search_with_keywords(
        Sources {
            index,
            vectors: vectors.as_ref(),
            map: &map,
            embedder: &embedder,
        },
        query,
        keywords,
        collection,
        n_results,
        &opts,
    )
    .map(|mut r| {
        r.notes.extend(query_embedding.and_then(|q| q.note()));
        r
    })
    .map_err(|e| internal(e.to_string()))
}

/// Without a model: the forest lexically (the map needs the model). `by_mode`: the model is
/// there but this search does not need it (a lexical request under `search_mode`, an empty
/// map), so the message says so instead of "no embedding model".
fn lexical_only(
    index: &CodeIndex,
    config: &Config,
    query: &str,
    collection: Collection,
    n_results: usize,
    by_mode: bool,
) -> Result<SemanticSearchResult, Refusal> {
    let opts = SearchOptions {
        mode: SearchMode::Lexical,
        ..SearchOptions::hybrid(&config.search_weights)
    };
    let searched_forest = collection != Collection::Map;
    let forest = if searched_forest {
        Some(
            hybrid::search(index, None, None, query, n_results, &opts)
                .map_err(|e| Refusal::Internal(e.to_string()))?,
        )
    } else {
        None
    };
    let hits = forest.as_ref().map(|f| f.hits.clone()).unwrap_or_default();
    let status = if hits.is_empty() {
        semantic::Status::NoMatch
    } else {
        semantic::Status::Hypothesis
    };
    Ok(SemanticSearchResult {
        query: query.to_string(),
        collection,
        // With `by_mode` the map was looked at (it is empty).
        searched: match (by_mode && collection != Collection::Forest, searched_forest) {
            (true, true) => vec![Collection::Map, Collection::Forest],
            (true, false) => vec![Collection::Map],
            (false, true) => vec![Collection::Forest],
            (false, false) => Vec::new(),
        },
        source: (!hits.is_empty()).then_some(Collection::Forest),
        status,
        short_circuit: false,
        map_hits: Vec::new(),
        forest_hits: hits,
        forest_mode: forest.as_ref().map(|f| f.mode),
        coverage: None,
        calibration: semantic::Calibration {
            background: Default::default(),
            confident_z: semantic::MAP_CONFIDENT_Z,
        },
        message: if by_mode && searched_forest {
            "Keyword results (search_mode: this request is ranked lexically; the map is empty): verify them before relying on them.".into()
        } else if by_mode {
            "The map is empty: nothing learned yet for this repository.".into()
        } else if searched_forest {
            "Keyword results only (no embedding model): verify them before relying on them.".into()
        } else {
            "semantic_search needs the embedding model for the map, which is unavailable: search_map(query) searches the map by words.".into()
        },
        notes: Vec::new(),
    })
}

#[tool_router(router = semantic_router, vis = "pub(super)")]
impl CodeIntel {
    #[tool(
        description = "Search by meaning, any language. collection: map = learned pairs (any phase), forest = code (SEMANTIC, READY), auto = map, then forest unless a map hit is confident.",
        annotations(read_only_hint = true)
    )]
    async fn semantic_search(
        &self,
        Parameters(p): Parameters<SemanticSearchParams>,
    ) -> CallToolResult {
        self.semantic_search_impl(p).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use code_intel_core::embed::{EmbedError, FakeEmbedder};
    use std::sync::atomic::AtomicUsize;

    struct Counting(FakeEmbedder, AtomicUsize);

    impl Embedder for Counting {
        fn model_id(&self) -> &str {
            self.0.model_id()
        }
        fn dims(&self) -> usize {
            self.0.dims()
        }
        fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.1.fetch_add(texts.len(), Ordering::Relaxed);
            self.0.embed_queries(texts)
        }
        fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.embed_passages(texts)
        }
    }

    #[test]
    fn repeated_queries_are_embedded_once() {
        let inner = Counting(FakeEmbedder::new(8), AtomicUsize::new(0));
        let cache = Mutex::new(HashMap::new());
        let cached = CachedQueries {
            inner: &inner,
            cache: &cache,
        };
        let a = cached.embed_queries(&["send mail"]).unwrap();
        let b = cached.embed_queries(&["send mail"]).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, inner.0.embed_queries(&["send mail"]).unwrap());
        cached.embed_queries(&["other"]).unwrap();
        assert_eq!(inner.1.load(Ordering::Relaxed), 2);
        for i in 0..QUERY_CACHE + 1 {
            cached.embed_queries(&[&format!("q{i}")]).unwrap();
        }
        assert!(cache.lock().unwrap().len() <= QUERY_CACHE, "bounded");
    }

    #[test]
    fn auto_narrows_to_the_map_where_the_forest_is_not_allowed() {
        let (c, note) = effective_collection(Some(Phase::Exploration), Collection::Auto).unwrap();
        assert_eq!(c, Collection::Map);
        assert!(note.unwrap().contains("EXPLORATION"));
        assert_eq!(
            effective_collection(Some(Phase::Semantic), Collection::Auto).unwrap(),
            (Collection::Auto, None)
        );
        assert_eq!(
            effective_collection(Some(Phase::Verification), Collection::Map).unwrap(),
            (Collection::Map, None)
        );
        let v = effective_collection(Some(Phase::Exploration), Collection::Forest).unwrap_err();
        assert!(
            v.message.contains("semantic_search(collection=forest)"),
            "{}",
            v.message
        );
        assert_eq!(
            effective_collection(None, Collection::Forest).unwrap(),
            (Collection::Forest, None)
        );
    }
}
