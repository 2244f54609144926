//! `Repo`: one repository's index, exploration tools, sessions and learned map. Every method that
//! touches the disk returns a `Promise` and runs on libuv's pool ([`crate::task`]).

use std::sync::{Arc, Mutex, PoisonError};

use code_intel_core::embed::{Embedder, FastEmbedOptions, FastEmbedder, ModelPaths};
use code_intel_core::explore::recorded::{
    self, ExploreTool, RecordSummary, RecordedError, run_recorded,
};
use code_intel_core::explore::{
    AnalyzeStructureParams, ExploreContext, FindDefinitionsParams, FindReferencesParams,
    FunctionAtLineParams, SearchTextParams, TouchedFiles,
};
use code_intel_core::index::hybrid::{self, SearchMode};
use code_intel_core::index::map::curate::{self, AgreementError};
use code_intel_core::index::map::{self, MapIndex};
use code_intel_core::index::rank::RankParams;
use code_intel_core::index::semantic::with_keywords;
use code_intel_core::index::vector::{self, VectorIndex};
use code_intel_core::index::{CodeIndex, SyncProgress};
use code_intel_core::relevance::Background;
use code_intel_session::config::Config;
use code_intel_session::learned::Expiry;
use code_intel_session::outcome;
use code_intel_session::repo_path::RepoRoot;
use code_intel_session::session::store::SessionStore;
use code_intel_session::vocab::Intent;
use code_intel_session::vocab::SessionId;
use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::Failure;
use crate::session::Session;
use crate::task::{Job, Json, json_job};

/// Default and ceiling of `insights({ limit })` (as the MCP tool `get_improvement_insights`).
const INSIGHTS_LIMIT: (u32, u32) = (100, 10_000);
/// Default `top` of `search`.
const DEFAULT_TOP: u32 = 10;

/// What every handle of one repository shares.
pub(crate) struct RepoInner {
    pub(crate) root: RepoRoot,
    pub(crate) config: Config,
    pub(crate) store: SessionStore,
    /// `claudeSessionId` of `openRepo`, recorded on sessions started here.
    pub(crate) claude_session_id: Option<String>,
    /// The opened code index, once opened (tantivy readers are shared by all calls).
    index: Mutex<Option<Arc<CodeIndex>>>,
    /// The embedding model, once a vector or hybrid search loaded it (seconds to load).
    model: Mutex<Option<Arc<FastEmbedder>>>,
    /// The relevance calibration's background symbols, once built (embeds about 200 names).
    background: Mutex<Option<Arc<Background>>>,
}

impl RepoInner {
    /// The index if one was built and synced; `None` means the exploration tools parse files
    /// from disk (as the MCP server does before its first sync).
    pub(crate) fn existing_index(&self) -> Result<Option<Arc<CodeIndex>>, Failure> {
        if let Some(ix) = self
            .index
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            return Ok(Some(ix));
        }
        if !CodeIndex::lexical_dir(&self.root).exists() {
            return Ok(None);
        }
        let ix = CodeIndex::open(&self.root, &self.config)?;
        if ix.stats().last_sync.is_none() {
            return Ok(None);
        }
        let ix = Arc::new(ix);
        *self.index.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&ix));
        Ok(Some(ix))
    }

    /// The index, created when missing and synced when out of date.
    fn synced_index(
        &self,
        progress: &mut dyn FnMut(SyncProgress),
    ) -> Result<(Arc<CodeIndex>, Option<Value>), Failure> {
        let cached = self
            .index
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let ix = match cached {
            Some(ix) => ix,
            None => {
                let ix = Arc::new(CodeIndex::open(&self.root, &self.config)?);
                *self.index.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&ix));
                ix
            }
        };
        let report = if ix.needs_sync() {
            Some(serde_json::to_value(ix.sync(progress)?).unwrap_or(Value::Null))
        } else {
            None
        };
        Ok((ix, report))
    }

    /// Runs an exploration tool as the MCP server does, through core's [`run_recorded`]: with a
    /// session, the phase matrix is checked first and the call recorded after, under the
    /// session's lock.
    pub(crate) fn explore<P, R>(
        &self,
        tool: ExploreTool<P, R>,
        session: Option<&str>,
        params: &P,
    ) -> Result<R, Failure>
    where
        P: Serialize,
        R: TouchedFiles + RecordSummary,
    {
        let index = self.existing_index()?;
        let cx = ExploreContext {
            root: &self.root,
            config: &self.config,
            index: index.as_deref(),
            request: None,
        };
        // Checked here, where the store would refuse it: an index error still comes first.
        let session = session.map(SessionId::try_from).transpose()?;
        run_recorded(&cx, &self.store, session.as_ref(), tool, params).map_err(|e| match e {
            RecordedError::Session(e) => Failure::from(e),
            RecordedError::Explore(e) => Failure::from(e),
        })
    }

    /// The embedding model, loaded once (one ONNX thread for queries).
    fn model(&self) -> Result<Arc<FastEmbedder>, Failure> {
        let mut slot = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(m) = slot.as_ref() {
            return Ok(Arc::clone(m));
        }
        let unavailable = |why: String| {
            Failure::new(
                "MODEL_UNAVAILABLE",
                why,
                "run `code-intel model fetch` (or set CODE_INTEL_MODEL_DIR), or search with mode \"lexical\"",
            )
        };
        let dir = ModelPaths::default_cache_dir(|k| std::env::var_os(k)).ok_or_else(|| {
            unavailable("no model cache: HOME and CODE_INTEL_MODEL_DIR are unset".into())
        })?;
        let paths = ModelPaths::in_cache(&dir, ModelPaths::DEFAULT_MODEL);
        let options = FastEmbedOptions {
            intra_threads: Some(1),
            query_session: true,
            ..FastEmbedOptions::default()
        };
        let model =
            Arc::new(FastEmbedder::load(&paths, &options).map_err(|e| unavailable(e.to_string()))?);
        *slot = Some(Arc::clone(&model));
        Ok(model)
    }

    /// The vector index with the model that embedded it, when `code-intel index --embed` made
    /// one; brought in line with the code index first, as `code-intel search` does.
    fn vectors(&self) -> Result<Option<(VectorIndex, Arc<FastEmbedder>)>, Failure> {
        if !VectorIndex::has_saved_state(&self.root) {
            return Ok(None);
        }
        let model = self.model()?;
        let failed = |e: vector::VectorError| {
            Failure::new(
                "INDEX_ERROR",
                e.to_string(),
                "run `code-intel index --embed` again (or `code-intel repair`)",
            )
        };
        let v = VectorIndex::open_current(&self.root, &self.config, model.model_id(), model.dims())
            .map_err(failed)?;
        Ok(Some((v, model)))
    }

    /// Embeds every chunk text without a vector (after a sync), under the vector store's embedding
    /// lock as `code-intel index --embed` does: a concurrent embedder makes this return at once
    /// with `busy` set. The model is the one loaded for queries (one ONNX thread).
    fn embed_pending(
        &self,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<vector::EmbedReport, Failure> {
        let model = self.model()?;
        let failed = |e: vector::VectorError| {
            Failure::new(
                "INDEX_ERROR",
                e.to_string(),
                "run `code-intel index --embed` (or `code-intel repair`)",
            )
        };
        let (mut v, _) = VectorIndex::open_refreshed(
            &self.root,
            &self.config,
            model.model_id(),
            model.dims(),
            None,
        )
        .map_err(failed)?;
        let stop = std::sync::atomic::AtomicBool::new(false);
        v.embed_pending(&*model, progress, &stop).map_err(failed)
    }

    /// The model and the background symbols `confirmSymbolRelevance` scores against, as the MCP
    /// server builds them (`mcp/src/server/relevance.rs`): a sample of the repository's defined
    /// symbols when the index is synced, else the generic built-in ones. Built once per `Repo`.
    pub(crate) fn relevance(&self) -> Result<(Arc<FastEmbedder>, Arc<Background>), Failure> {
        let model = self.model()?;
        let mut slot = self
            .background
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(bg) = slot.as_ref() {
            return Ok((model, Arc::clone(bg)));
        }
        let failed = |e: code_intel_core::embed::EmbedError| {
            Failure::new(
                "MODEL_UNAVAILABLE",
                e.to_string(),
                "check the model with `code-intel model status`",
            )
        };
        let bg = match self.existing_index()? {
            Some(ix) => {
                let names = ix.defined_symbols().map_err(Failure::from)?;
                Background::from_symbols(
                    &*model,
                    names.iter().map(String::as_str),
                    Background::DEFAULT_SIZE,
                )
                .map_err(failed)?
            }
            None => Background::builtin(&*model).map_err(failed)?,
        };
        let bg = Arc::new(bg);
        *slot = Some(Arc::clone(&bg));
        Ok((model, bg))
    }

    fn purge(&self) -> Expiry {
        Expiry::after_days(self.config.auto_purge_days)
    }
}

/// Options of [`open_repo`].
#[napi(object)]
#[derive(Debug, Default)]
pub struct OpenRepoOptions {
    /// A Claude Code session id to record on sessions started through this handle and to bind
    /// them to (what the MCP server takes from `CLAUDE_CODE_SESSION_ID`), so the gate of that
    /// Claude Code session finds them.
    pub claude_session_id: Option<String>,
}

/// Opens the repository at `path` (its root: where `.code-intel/` lives or will be created) and
/// loads `.code-intel/config.json`. Cheap: nothing is indexed or written.
///
/// Throws `Error` with `code` `BAD_REPOSITORY` (not a directory) or `BAD_CONFIG`.
#[napi]
pub fn open_repo(env: Env, path: String, options: Option<OpenRepoOptions>) -> napi::Result<Repo> {
    let opened = || -> Result<Repo, Failure> {
        let root = RepoRoot::new(std::path::Path::new(&path)).map_err(|e| {
            Failure::new(
                "BAD_REPOSITORY",
                e.to_string(),
                "pass the path of an existing directory (the repository root)",
            )
        })?;
        let config = Config::load(root.path()).map_err(|e| {
            Failure::new(
                "BAD_CONFIG",
                e.to_string(),
                "fix or remove .code-intel/config.json (`code-intel doctor` checks it)",
            )
        })?;
        Ok(Repo {
            inner: Arc::new(RepoInner {
                store: SessionStore::new(root.clone()),
                root,
                config,
                claude_session_id: options.unwrap_or_default().claude_session_id,
                index: Mutex::new(None),
                model: Mutex::new(None),
                background: Mutex::new(None),
            }),
        })
    };
    opened().map_err(|f| f.into_js(&env))
}

/// One step of `repo.index()`'s progress.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct IndexProgress {
    /// `walked` (files listed), `read` (files parsed so far), `committing`, `waiting_for_lock`
    /// (another process is indexing this repository).
    pub stage: String,
    /// Files done (`read`), or files to read (`walked`).
    pub done: u32,
    /// Files to read in this sync (0 when unknown).
    pub total: u32,
}

/// Options of `repo.index()`.
#[napi(object, object_to_js = false)]
pub struct IndexOptions {
    /// Also embed the chunks that have no vector yet (the model of `code-intel model fetch`), so
    /// `search` can run in `hybrid` and `vector` mode; progress steps are `embedding`. Without the
    /// model the call fails with `MODEL_UNAVAILABLE`.
    pub embed: Option<bool>,
    /// Called on the JavaScript thread with each progress step (never blocks the indexer).
    #[napi(ts_type = "(progress: IndexProgress) => void")]
    pub on_progress:
        Option<ThreadsafeFunction<IndexProgress, (), IndexProgress, napi::Status, false>>,
}

/// Options of `repo.search()`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct SearchOptions {
    /// Hits wanted (default 10, at most `limits.max_results_ceiling`).
    pub top: Option<u32>,
    /// `lexical` (BM25, the default), `vector`, `hybrid` (BM25 and vectors fused) or `auto`
    /// (hybrid for a question or a request in CJK, kana or Hangul, else lexical). The vector
    /// modes use the vectors `code-intel index --embed` wrote and load the embedding model from
    /// the cache of `code-intel model fetch` (once per `Repo`, seconds); without vectors the answer
    /// is lexical with a note.
    pub mode: Option<String>,
    /// Extra keywords added to the BM25 query (identifiers the request implies).
    pub keywords: Option<String>,
    /// `forest` (the code; default). The map is searched with `repo.searchMap()`.
    pub collection: Option<String>,
}

/// Options of the exploration calls that accept a session.
#[napi(object)]
#[derive(Debug, Default)]
pub struct SessionRef {
    /// Record the call on this session (phase-checked as the MCP tools are).
    pub session_id: Option<String>,
}

/// Options of `findDefinitions`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct FindDefinitionsOptions {
    /// Only under this repository-relative path.
    pub path: Option<String>,
    /// Only this language (`python`, `php`, `javascript`, `typescript`, ...).
    pub language: Option<String>,
    /// Exact name match only (default: also qualified names ending in the symbol).
    pub exact_match: Option<bool>,
    /// At most this many definitions.
    pub max_results: Option<u32>,
    /// Record the call on this session.
    pub session_id: Option<String>,
}

/// Options of `findReferences`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct FindReferencesOptions {
    /// Only under this repository-relative path.
    pub path: Option<String>,
    /// At most this many references.
    pub max_results: Option<u32>,
    /// Record the call on this session.
    pub session_id: Option<String>,
}

/// Options of `searchText`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct SearchTextOptions {
    /// Only under this repository-relative path.
    pub path: Option<String>,
    /// Only files of this type (`py`, `php`, `js`, `ts`, ...).
    pub file_type: Option<String>,
    /// Lines of context around each match.
    pub context_lines: Option<u32>,
    /// At most this many matches.
    pub max_results: Option<u32>,
    /// The pattern is literal text, not a regular expression.
    pub literal: Option<bool>,
    /// Record the call on this session.
    pub session_id: Option<String>,
}

/// Options of `startSession`.
#[napi(object)]
#[derive(Debug)]
pub struct StartSessionOptions {
    /// `IMPLEMENT`, `MODIFY`, `INVESTIGATE` or `QUESTION`.
    pub intent: String,
    /// The user's request, verbatim.
    pub query: String,
}

/// Options of `searchMap`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct SearchMapOptions {
    /// Hits wanted (default 5).
    pub n_results: Option<u32>,
    /// Record the call on this session.
    pub session_id: Option<String>,
}

/// Options of `listAgreements`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct ListAgreementsOptions {
    /// Also list stale entries (symbol gone from the code) and expired ones.
    pub include_stale: Option<bool>,
}

/// `addAgreement` input.
#[napi(object)]
#[derive(Debug)]
pub struct AgreementInput {
    /// The term as users say it (`password reset`).
    pub nl_term: String,
    /// The symbol it means (`PasswordBroker.reset`).
    pub symbol: String,
    /// Where the code shows the relation.
    pub code_evidence: String,
    /// Files that matter for it (repository-relative).
    pub related_files: Option<Vec<String>>,
    /// Session whose intent and query frame to record with it.
    pub session_id: Option<String>,
}

/// Options of `insights`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct InsightsOptions {
    /// The most recent sessions with an outcome to analyse (default 100, at most 10,000).
    pub limit: Option<u32>,
}

/// A repository opened with [`open_repo`].
#[napi]
pub struct Repo {
    inner: Arc<RepoInner>,
}

fn usize_opt(v: Option<u32>) -> Option<usize> {
    v.map(|n| n as usize)
}

#[napi]
impl Repo {
    /// The repository root (absolute, canonical).
    #[napi(getter)]
    pub fn root(&self) -> String {
        self.inner.root.path().display().to_string()
    }

    /// Creates or brings the code index up to date (incremental: only changed files are read).
    /// Resolves to `{ sync, stats, repaired }`: `sync` is the sync report (`files_added`,
    /// `files_modified`, `files_deleted`, `chunks`, `duration_ms`, ...), `null` when the index was
    /// already up to date; `repaired` says why a damaged index was rebuilt, if it was.
    #[napi(ts_return_type = "Promise<IndexReport>")]
    pub fn index(&self, options: Option<IndexOptions>) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        let (embed, progress) = match options {
            Some(o) => (o.embed.unwrap_or(false), o.on_progress),
            None => (false, None),
        };
        json_job(move || {
            let send = |stage: &str, done: usize, total: usize| {
                let Some(cb) = &progress else { return };
                let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                cb.call(
                    IndexProgress {
                        stage: stage.into(),
                        done: clamp(done),
                        total: clamp(total),
                    },
                    ThreadsafeFunctionCallMode::NonBlocking,
                );
            };
            let mut report = |p: SyncProgress| {
                let Some(cb) = &progress else { return };
                let ev = match p {
                    SyncProgress::Walked { to_read, .. } => ("walked", to_read, to_read),
                    SyncProgress::Read { done, total } => ("read", done, total),
                    SyncProgress::Committing => ("committing", 0, 0),
                    SyncProgress::WaitingForLock { .. } => ("waiting_for_lock", 0, 0),
                };
                let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                cb.call(
                    IndexProgress {
                        stage: ev.0.into(),
                        done: clamp(ev.1),
                        total: clamp(ev.2),
                    },
                    ThreadsafeFunctionCallMode::NonBlocking,
                );
            };
            let (ix, sync) = inner.synced_index(&mut report)?;
            let vectors = if embed {
                Some(inner.embed_pending(&mut |done, total| send("embedding", done, total))?)
            } else {
                None
            };
            Ok(json!({
                "sync": sync,
                "stats": ix.stats(),
                "repaired": ix.repaired(),
                "embed": vectors,
            }))
        })
    }

    /// The index statistics (`null` before the first `index()`), whether it needs a sync, and
    /// the sessions, most recently changed first.
    #[napi(ts_return_type = "Promise<RepoStatus>")]
    pub fn status(&self) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        json_job(move || {
            let (stats, needs_sync) = if CodeIndex::lexical_dir(&inner.root).exists() {
                let ix = CodeIndex::open(&inner.root, &inner.config)?;
                (Some(ix.stats()), ix.needs_sync())
            } else {
                (None, true)
            };
            Ok(json!({
                "root": inner.root.path().display().to_string(),
                "index": stats,
                "needs_sync": needs_sync,
                "sessions": inner.store.list()?,
            }))
        })
    }

    /// Ranked search of the code (BM25 over chunks grouped by file, with each hit's score
    /// explanation). Syncs the index first when it is out of date, as `code-intel search` does.
    #[napi(ts_return_type = "Promise<SearchResults>")]
    pub fn search(&self, query: String, options: Option<SearchOptions>) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        let o = options.unwrap_or_default();
        json_job(move || {
            if query.trim().is_empty() {
                return Err(Failure::invalid("query must not be empty"));
            }
            if let Some(c) = o.collection.as_deref()
                && c != "forest"
            {
                return Err(Failure::new(
                    "UNSUPPORTED_COLLECTION",
                    format!("collection {c:?} is not searched by repo.search()"),
                    "use collection \"forest\" (the code), or repo.searchMap() for the learned map",
                ));
            }
            let mode = match o.mode.as_deref() {
                None => SearchMode::Lexical,
                Some(m) => SearchMode::from_name(m).ok_or_else(|| {
                    Failure::invalid(format!(
                        "unknown mode {m:?}: use lexical, vector, hybrid or auto"
                    ))
                })?,
            };
            let mut opts = hybrid::SearchOptions::configured(&inner.config).map_err(|e| {
                Failure::new(
                    "BAD_CONFIG",
                    e.to_string(),
                    "fix search_fusion or search_mode in .code-intel/config.json",
                )
            })?;
            // `auto` resolves on the request, not on the keywords added to it.
            opts.mode = mode.resolve(&query);
            let ceiling = inner.config.limits.max_results_ceiling.max(1);
            let top = (o.top.unwrap_or(DEFAULT_TOP) as usize).clamp(1, ceiling);
            let (ix, _) = inner.synced_index(&mut |_| {})?;
            let q = with_keywords(&query, o.keywords.as_deref());
            // Vector and hybrid modes need the vectors `code-intel index --embed` wrote and the
            // model to embed the query; without vectors core answers lexically, with a note.
            let vectors = match opts.mode {
                SearchMode::Lexical => None,
                _ => inner.vectors()?,
            };
            let qv = match &vectors {
                Some((_, model)) => model
                    .embed_queries(&[query.as_str()])
                    .map_err(|e| {
                        Failure::new(
                            "MODEL_UNAVAILABLE",
                            e.to_string(),
                            "search with mode \"lexical\", or check the model with `code-intel model status`",
                        )
                    })?
                    .pop(),
                None => None,
            };
            let results = hybrid::search_ranked(
                &ix,
                vectors.as_ref().map(|(v, _)| v),
                qv.as_deref(),
                &q,
                top,
                &opts,
                &RankParams::default(),
            )?;
            Ok(json!({ "query": query, "results": results }))
        })
    }

    /// Where `symbol` is defined (file, line, kind, scope, signature).
    #[napi(ts_return_type = "Promise<FindDefinitionsResult>")]
    pub fn find_definitions(
        &self,
        symbol: String,
        options: Option<FindDefinitionsOptions>,
    ) -> AsyncTask<Job<Json>> {
        let o = options.unwrap_or_default();
        let params = FindDefinitionsParams {
            symbol,
            path: o.path,
            language: o.language,
            exact_match: o.exact_match.unwrap_or(false),
            max_results: usize_opt(o.max_results),
        };
        find_definitions_job(Arc::clone(&self.inner), o.session_id, params)
    }

    /// Where `symbol` is used (definitions excluded), each with its enclosing symbol.
    #[napi(ts_return_type = "Promise<FindReferencesResult>")]
    pub fn find_references(
        &self,
        symbol: String,
        options: Option<FindReferencesOptions>,
    ) -> AsyncTask<Job<Json>> {
        let o = options.unwrap_or_default();
        let params = FindReferencesParams {
            symbol,
            path: o.path,
            max_results: usize_opt(o.max_results),
            order: None,
        };
        find_references_job(Arc::clone(&self.inner), o.session_id, params)
    }

    /// Regex (or literal) search over the repository's files, gitignore-aware.
    #[napi(ts_return_type = "Promise<SearchTextResult>")]
    pub fn search_text(
        &self,
        pattern: String,
        options: Option<SearchTextOptions>,
    ) -> AsyncTask<Job<Json>> {
        let o = options.unwrap_or_default();
        let params = SearchTextParams {
            pattern,
            path: o.path,
            file_type: o.file_type,
            context_lines: usize_opt(o.context_lines),
            max_results: usize_opt(o.max_results),
            literal: o.literal.unwrap_or(false),
            order: None,
        };
        search_text_job(Arc::clone(&self.inner), o.session_id, params)
    }

    /// The nested symbol tree of a file or directory.
    #[napi(ts_return_type = "Promise<StructureResult>")]
    pub fn analyze_structure(
        &self,
        path: String,
        options: Option<SessionRef>,
    ) -> AsyncTask<Job<Json>> {
        let id = options.unwrap_or_default().session_id;
        analyze_structure_job(Arc::clone(&self.inner), id, AnalyzeStructureParams { path })
    }

    /// The function or method enclosing `line` (1-based) of `file`, with its source.
    #[napi(ts_return_type = "Promise<FunctionAtLineResult>")]
    pub fn function_at_line(
        &self,
        file: String,
        line: u32,
        options: Option<SessionRef>,
    ) -> AsyncTask<Job<Json>> {
        let id = options.unwrap_or_default().session_id;
        function_at_line_job(
            Arc::clone(&self.inner),
            id,
            FunctionAtLineParams { file, line },
        )
    }

    /// Starts a session in EXPLORATION (the MCP tool `start_session`).
    ///
    /// Throws `INVALID_ARGUMENT` for an unknown intent.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn start_session(&self, options: StartSessionOptions) -> AsyncTask<Job<Session>> {
        let inner = Arc::clone(&self.inner);
        Job::new(move || {
            let intent: Intent = options
                .intent
                .parse()
                .map_err(|e: <Intent as std::str::FromStr>::Err| Failure::invalid(e.to_string()))?;
            let start =
                inner
                    .store
                    .start(intent, &options.query, inner.claude_session_id.as_deref())?;
            Ok(Session::new(inner, start.session_id.into()))
        })
    }

    /// A handle on an existing session (no I/O; an unknown id fails on first use with
    /// `UNKNOWN_SESSION`).
    #[napi]
    pub fn session(&self, session_id: String) -> Session {
        Session::new(Arc::clone(&self.inner), session_id)
    }

    /// The sessions, most recently changed first.
    #[napi(ts_return_type = "Promise<SessionSummary[]>")]
    pub fn list_sessions(&self) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        json_job(move || Ok(inner.store.list()?))
    }

    /// Searches the learned map (past successes: learned pairs and agreements) by words.
    #[napi(ts_return_type = "Promise<MapSearchResult>")]
    pub fn search_map(
        &self,
        query: String,
        options: Option<SearchMapOptions>,
    ) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        let o = options.unwrap_or_default();
        json_job(move || {
            if query.trim().is_empty() {
                return Err(Failure::invalid("query must not be empty"));
            }
            let ceiling = inner.config.limits.max_results_ceiling.max(1);
            let n = o
                .n_results
                .map_or(map::DEFAULT_MAP_RESULTS, |n| n as usize)
                .clamp(1, ceiling);
            let index = inner.existing_index()?;
            let mut m = MapIndex::load_with(&inner.root, &inner.purge(), None).map_err(|e| {
                Failure::new(
                    "MAP_UNREADABLE",
                    e.to_string(),
                    "fix or move away .code-intel/learned_pairs.json",
                )
            })?;
            if let Some(ix) = index.as_deref() {
                m.mark_stale(ix);
            }
            let result = map::search_map(&m, &query, None, n);
            if let Some(id) = &o.session_id {
                let record = curate::search_map_record(&query, n, &result);
                inner
                    .store
                    .record_tool_call(&SessionId::try_from(id.as_str())?, record)?;
            }
            Ok(result)
        })
    }

    /// The map's entries: learned pairs (with their agreement files), then agreements
    /// restating no pair. Stale and expired entries only with `includeStale`.
    #[napi(ts_return_type = "Promise<AgreementList>")]
    pub fn list_agreements(&self, options: Option<ListAgreementsOptions>) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        let include = options.unwrap_or_default().include_stale.unwrap_or(false);
        json_job(move || {
            let index = inner.existing_index()?;
            let listing = curate::list(
                &inner.root.state_dir(),
                &inner.purge(),
                index.as_deref(),
                include,
            )
            .map_err(|e| {
                Failure::new(
                    "MAP_UNREADABLE",
                    e.to_string(),
                    "fix or move away the file the message names",
                )
            })?;
            Ok(serde_json::to_value(listing).unwrap_or_default())
        })
    }

    /// Adds a learned pair by hand (`nlTerm` means `symbol`): writes `learned_pairs.json` and an
    /// agreement under `.code-intel/agreements/`.
    #[napi(ts_return_type = "Promise<AddAgreementResult>")]
    pub fn add_agreement(&self, input: AgreementInput) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        json_job(move || {
            let state = match input.session_id.as_deref() {
                Some(id) => Some(inner.store.load(&SessionId::try_from(id)?)?),
                None => None,
            };
            let index = inner.existing_index()?;
            let core_input = curate::AgreementInput {
                nl_term: input.nl_term,
                symbol: input.symbol,
                code_evidence: input.code_evidence,
                related_files: input.related_files.unwrap_or_default(),
            };
            let added = curate::add_agreement(
                &inner.root.state_dir(),
                &core_input,
                state.as_ref(),
                index.as_deref(),
                &inner.purge(),
            )
            .map_err(|e| match e {
                // The binding's parameter names are camelCase.
                AgreementError::Empty { field } => Failure::invalid(format!(
                    "{} must not be empty",
                    match field {
                        "nl_term" => "nlTerm",
                        "code_evidence" => "codeEvidence",
                        other => other,
                    }
                )),
                e => Failure::new(
                    "LEARN_FAILED",
                    e.to_string(),
                    "fix the input or the file the message names, then retry",
                ),
            })?;
            let mut body = serde_json::to_value(&added).unwrap_or_default();
            if let Some(obj) = body.as_object_mut() {
                obj.insert("success".into(), true.into());
            }
            Ok(body)
        })
    }

    /// Failure patterns over recent sessions with outcomes (the MCP tool
    /// `get_improvement_insights`, the CLI's `code-intel insights`).
    #[napi(ts_return_type = "Promise<Insights>")]
    pub fn insights(&self, options: Option<InsightsOptions>) -> AsyncTask<Job<Json>> {
        let inner = Arc::clone(&self.inner);
        let limit = options
            .unwrap_or_default()
            .limit
            .unwrap_or(INSIGHTS_LIMIT.0)
            .clamp(1, INSIGHTS_LIMIT.1) as usize;
        json_job(move || {
            outcome::improvement_insights(&inner.root.state_dir(), limit).map_err(|e| {
                Failure::new(
                    "INSIGHTS_FAILED",
                    e.to_string(),
                    "fix or move away the journal file the message names",
                )
            })
        })
    }
}

pub(crate) fn find_definitions_job(
    inner: Arc<RepoInner>,
    session: Option<String>,
    params: FindDefinitionsParams,
) -> AsyncTask<Job<Json>> {
    json_job(move || inner.explore(recorded::FIND_DEFINITIONS, session.as_deref(), &params))
}

pub(crate) fn find_references_job(
    inner: Arc<RepoInner>,
    session: Option<String>,
    params: FindReferencesParams,
) -> AsyncTask<Job<Json>> {
    json_job(move || inner.explore(recorded::FIND_REFERENCES, session.as_deref(), &params))
}

pub(crate) fn search_text_job(
    inner: Arc<RepoInner>,
    session: Option<String>,
    params: SearchTextParams,
) -> AsyncTask<Job<Json>> {
    json_job(move || inner.explore(recorded::SEARCH_TEXT, session.as_deref(), &params))
}

pub(crate) fn analyze_structure_job(
    inner: Arc<RepoInner>,
    session: Option<String>,
    params: AnalyzeStructureParams,
) -> AsyncTask<Job<Json>> {
    json_job(move || inner.explore(recorded::ANALYZE_STRUCTURE, session.as_deref(), &params))
}

pub(crate) fn function_at_line_job(
    inner: Arc<RepoInner>,
    session: Option<String>,
    params: FunctionAtLineParams,
) -> AsyncTask<Job<Json>> {
    json_job(move || inner.explore(recorded::GET_FUNCTION_AT_LINE, session.as_deref(), &params))
}
