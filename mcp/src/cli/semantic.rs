//! The semantic side of the command line: the vector refresh and `--embed` step of `index`, the
//! `--mode`/`--fusion`/`--collection` search of `search` (hybrid by default once embeddings
//! exist), and vector coverage for `status`.
//!
//! The model is found like the server finds it ([`crate::model::resolve_cache_dir`]); reading its
//! manifest is enough to refresh the vectors, loading it (1–3 s) happens only when a query or a
//! text must be embedded.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::AtomicBool;

use super::render::esc;
use anyhow::Context as _;
use clap::{Args, ValueEnum};
use code_intel_core::embed::{Embedder, FastEmbedOptions, FastEmbedder, ModelManifest, ModelPaths};
use code_intel_core::index::CodeIndex;
use code_intel_core::index::hybrid::{self, Fusion, HybridResults, SearchMode, SearchOptions};
use code_intel_core::index::map::MapIndex;
use code_intel_core::index::query_embed::{self, QueryEmbedBudget, QueryEmbedReport};
use code_intel_core::index::rank::RankParams;
use code_intel_core::index::semantic::{self, Collection, Sources};
use code_intel_core::index::vector::{
    Coverage, EmbedReport, RefreshReport, RowHandoff, VectorIndex, VectorState, configured_recipe,
};
use code_intel_session::config::{Config, SearchWeights};
use code_intel_session::repo_path::RepoRoot;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

/// Pending texts a search embeds itself before answering (an edited file becomes searchable at
/// once); more are left to `code-intel index --embed` or the server's background task.
pub const INLINE_EMBED_MAX: usize = 64;

/// `code-intel index` options.
#[derive(Debug, Args, Default)]
pub struct IndexArgs {
    /// Also embed every chunk that has no vector yet (resumable; progress on stderr).
    #[arg(long)]
    pub embed: bool,
    /// ONNX Runtime threads for --embed (1 leaves the other cores to everything else).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Texts per model call for --embed (docs/BENCHMARKS.md compares 4, 8 and 16).
    #[arg(long, default_value_t = 8)]
    pub batch_size: usize,
    /// Padded tokens per model call at most for --embed (rows × longest text): long texts batch
    /// fewer at a time, which bounds peak memory.
    #[arg(long, default_value_t = code_intel_core::embed::DEFAULT_BATCH_TOKENS)]
    pub batch_tokens: usize,
}

/// `--mode` of `code-intel search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// BM25 only.
    Lexical,
    /// Vector similarity only.
    Vector,
    /// BM25, vectors, definitions and references, fused.
    Hybrid,
    /// Lexical, and hybrid for a request written in a script code identifiers are not (Japanese,
    /// Chinese, Korean).
    Auto,
}

/// `--fusion` of `code-intel search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FusionArg {
    /// Weighted mean of normalised scores.
    Weighted,
    /// Reciprocal rank fusion (k = 60).
    Rrf,
}

/// `--collection` of `code-intel search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CollectionArg {
    /// Learned pairs and agreements (the map) only.
    Map,
    /// The code only (the default).
    Forest,
    /// The map first; the code unless a map hit is confident (semantic_search).
    Auto,
}

/// Ranking options of `code-intel search`.
#[derive(Debug, Args, Default)]
pub struct SearchModeArgs {
    /// Ranking: lexical, vector, hybrid or auto (default: `search_mode` in
    /// .code-intel/config.json, `auto` unless set, once the model is installed; else lexical).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Fusion of hybrid mode (default: `search_fusion` in .code-intel/config.json, else weighted).
    #[arg(long, value_enum)]
    pub fusion: Option<FusionArg>,
    /// What to search (default: forest, the code).
    #[arg(long, value_enum)]
    pub collection: Option<CollectionArg>,
}

impl ModeArg {
    fn core(self) -> SearchMode {
        match self {
            ModeArg::Lexical => SearchMode::Lexical,
            ModeArg::Vector => SearchMode::Vector,
            ModeArg::Hybrid => SearchMode::Hybrid,
            ModeArg::Auto => SearchMode::Auto,
        }
    }
}

impl FusionArg {
    fn core(self) -> Fusion {
        match self {
            FusionArg::Weighted => Fusion::Weighted,
            FusionArg::Rrf => Fusion::Rrf,
        }
    }
}

impl CollectionArg {
    fn core(self) -> Collection {
        match self {
            CollectionArg::Map => Collection::Map,
            CollectionArg::Forest => Collection::Forest,
            CollectionArg::Auto => Collection::Auto,
        }
    }
}

/// The provisioned model's files and manifest, without loading it.
struct Install {
    paths: ModelPaths,
    manifest: ModelManifest,
}

fn install() -> Result<Install, String> {
    let dir = crate::model::resolve_cache_dir(None).map_err(|e| format!("{e:#}"))?;
    let paths = ModelPaths::in_cache(&dir, ModelPaths::DEFAULT_MODEL);
    let manifest = paths.read_manifest().map_err(|e| e.to_string())?;
    Ok(Install { paths, manifest })
}

/// Loads the model with `threads` ONNX threads; `queries`: with the query-only session (searches),
/// or without it (bulk indexing, which embeds no queries and keeps its peak memory lower, and for a
/// model that embeds one text per call runs `threads` one-thread sessions side by side,
/// [`FastEmbedOptions::parallel_sessions`]).
fn load_model(
    install: &Install,
    threads: usize,
    queries: bool,
    (batch_size, batch_tokens): (usize, usize),
) -> anyhow::Result<FastEmbedder> {
    let options = FastEmbedOptions {
        intra_threads: Some(threads.max(1)),
        query_session: queries,
        parallel_sessions: !queries,
        batch_size: batch_size.max(1),
        batch_tokens: batch_tokens.max(1),
        ..FastEmbedOptions::default()
    };
    FastEmbedder::load(&install.paths, &options).context("cannot load the embedding model")
}

/// The search fusion a config asks for (`search_fusion`, default [`Fusion::DEFAULT`]).
///
/// # Errors
/// An unknown name.
pub fn configured_fusion(config: &Config) -> anyhow::Result<Fusion> {
    Ok(code_intel_core::index::hybrid::SearchOptions::configured(config)?.fusion)
}

/// What `index` did on the vector side.
#[derive(Debug, Serialize)]
pub struct VectorsReport {
    /// The model the vectors belong to.
    pub model_id: String,
    /// The embedding-text recipe.
    pub embedding_text: &'static str,
    /// The refresh after the sync.
    pub refresh: RefreshReport,
    /// The embedding run, with `--embed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed: Option<EmbedReport>,
    /// Coverage after both.
    pub coverage: Coverage,
}

/// A [`RowHandoff`] for the sync before [`index_vectors`], when that will refresh vectors (the
/// model is installed and `lightweight_mode` is off); `None` otherwise, so a sync without
/// vectors makes no rows.
pub fn row_handoff(config: &Config) -> Option<RowHandoff> {
    if config.lightweight_mode || install().is_err() {
        return None;
    }
    RowHandoff::new(config).ok()
}

/// The vector step of `code-intel index`: refresh the vectors after the sync (no model load) and,
/// with `--embed`, embed what is missing. `Ok(Err(reason))` when there is no vector side
/// (lightweight mode, no model installed).
///
/// # Errors
/// Vector index, cache or model failures.
pub fn index_vectors(
    root: &RepoRoot,
    config: &Config,
    args: &IndexArgs,
    handoff: Option<&RowHandoff>,
) -> anyhow::Result<Result<VectorsReport, String>> {
    if config.lightweight_mode {
        return Ok(Err("lightweight_mode is on: no embeddings".into()));
    }
    let install = match install() {
        Ok(i) => i,
        Err(e) if args.embed => anyhow::bail!("{e}"),
        Err(e) => return Ok(Err(format!("no embeddings: {e}"))),
    };
    // Nothing to refresh and nothing to embed: report from the summary, without parsing the
    // state (tens of milliseconds for a large repository).
    if !args.embed
        && let Some(summary) = VectorIndex::current_summary(
            root,
            config,
            &install.manifest.model_id(),
            install.manifest.dims,
        )
    {
        return Ok(Ok(VectorsReport {
            model_id: summary.model_id,
            embedding_text: configured_recipe(config)?.name(),
            refresh: RefreshReport {
                up_to_date: true,
                ..RefreshReport::default()
            },
            embed: None,
            coverage: summary.coverage,
        }));
    }
    let (mut vectors, refresh) = VectorIndex::open_refreshed(
        root,
        config,
        &install.manifest.model_id(),
        install.manifest.dims,
        handoff,
    )?;
    let embed = if args.embed && vectors.coverage().pending_texts > 0 {
        let model = load_model(
            &install,
            args.threads,
            false,
            (args.batch_size, args.batch_tokens),
        )?;
        let mut progress = Progress::new(vectors.coverage().pending_texts);
        let stop = AtomicBool::new(false);
        let report = vectors.embed_pending(
            &model,
            &mut |done, total| progress.update(done, total),
            &stop,
        );
        progress.finish();
        Some(report?)
    } else {
        None
    };
    Ok(Ok(VectorsReport {
        model_id: vectors.model_id().to_string(),
        embedding_text: vectors.recipe().name(),
        refresh,
        embed,
        coverage: vectors.coverage(),
    }))
}

/// Progress of `index --embed`: an indicatif bar when stderr is a terminal, else one JSON line
/// on stderr at most every [`JSON_PROGRESS_EVERY`] (and at the end), for logs and wrappers:
/// `{"event":"embed_progress","done":N,"total":M,"texts_per_s":R,"elapsed_s":S}`.
enum Progress {
    Bar(ProgressBar),
    Json {
        started: std::time::Instant,
        last: std::time::Instant,
        done: usize,
        total: usize,
    },
}

/// Seconds between JSON progress lines.
const JSON_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

impl Progress {
    fn new(total: usize) -> Self {
        use std::io::IsTerminal as _;
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "embedding [{bar:30}] {pos}/{len} texts ({per_sec}, eta {eta})",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            Progress::Bar(bar)
        } else {
            let now = std::time::Instant::now();
            Progress::Json {
                started: now,
                last: now,
                done: 0,
                total,
            }
        }
    }

    fn update(&mut self, done: usize, total: usize) {
        match self {
            Progress::Bar(bar) => bar.set_position(done as u64),
            Progress::Json {
                last,
                done: d,
                total: t,
                ..
            } => {
                (*d, *t) = (done, total);
                if last.elapsed() >= JSON_PROGRESS_EVERY {
                    *last = std::time::Instant::now();
                    self.emit();
                }
            }
        }
    }

    fn emit(&self) {
        if let Progress::Json {
            started,
            done,
            total,
            ..
        } = self
        {
            let secs = started.elapsed().as_secs_f64();
            let line = serde_json::json!({
                "event": "embed_progress",
                "done": done,
                "total": total,
                "texts_per_s": if secs > 0.0 { (*done as f64 / secs * 10.0).round() / 10.0 } else { 0.0 },
                "elapsed_s": (secs * 10.0).round() / 10.0,
            });
            // Progress is best effort: a closed stderr must not fail the run.
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    }

    fn finish(self) {
        match &self {
            Progress::Bar(bar) => bar.finish_and_clear(),
            Progress::Json { .. } => self.emit(),
        }
    }
}

/// Text form of [`index_vectors`]'s outcome.
///
/// # Errors
/// Writing fails.
pub fn render_vectors(
    out: &mut dyn Write,
    r: &Result<VectorsReport, String>,
) -> anyhow::Result<()> {
    match r {
        Err(why) => writeln!(out, "vectors: {why}")?,
        Ok(r) => {
            if r.embed.as_ref().is_some_and(|e| e.busy) {
                writeln!(
                    out,
                    "another process (an MCP server?) is embedding this repository; not embedding here"
                )?;
            } else if let Some(e) = &r.embed {
                writeln!(
                    out,
                    "embedded {} texts in {:.1} s",
                    e.embedded,
                    e.duration_ms as f64 / 1000.0
                )?;
            }
            writeln!(out, "vectors: {}", coverage_line(&r.coverage))?;
            if r.coverage.pending_texts > 0 && r.embed.is_none() {
                writeln!(out, "run `code-intel index --embed` to embed the rest")?;
            }
        }
    }
    Ok(())
}

fn coverage_line(c: &Coverage) -> String {
    format!(
        "{} of {} chunks embedded ({:.1} %), {} texts pending",
        c.embedded,
        c.total,
        c.ratio * 100.0,
        c.pending_texts
    )
}

/// `status`: the vector side as saved, without loading anything heavy.
#[derive(Debug, Serialize)]
pub struct VectorStatus {
    /// Model id of the vectors.
    pub model_id: String,
    /// [`code_intel_core::index::embedding_text::EmbeddingText::id`] of the keys.
    pub embedding_text: String,
    /// Embedded chunks / chunks, as of the last save.
    pub coverage: Coverage,
    /// Whether the vectors describe the lexical index's current commit.
    pub current: bool,
    /// Whether searches use the HNSW graph (a dump exists).
    pub graph: bool,
}

/// The vector status of `root` from its saved state; `None` when there is none.
pub fn vector_status(root: &RepoRoot) -> Option<VectorStatus> {
    let state: VectorState = VectorIndex::peek_state(root)?;
    Some(VectorStatus {
        coverage: state.coverage(),
        current: state.is_current(root),
        graph: state.graph.is_some(),
        model_id: state.model_id,
        embedding_text: state.recipe,
    })
}

/// Text form of [`vector_status`].
///
/// # Errors
/// Writing fails.
pub fn render_status(out: &mut dyn Write, s: Option<&VectorStatus>) -> anyhow::Result<()> {
    match s {
        None => writeln!(out, "vectors: none (run `code-intel index --embed`)")?,
        Some(s) => writeln!(
            out,
            "vectors: {}{} ({}, {})",
            coverage_line(&s.coverage),
            if s.current { "" } else { ", behind the index" },
            s.model_id,
            s.embedding_text
        )?,
    }
    Ok(())
}

/// One query of `search --batch`: the query and optional per-query overrides.
#[derive(Debug, Deserialize)]
pub struct BatchQuery {
    /// The query.
    pub query: String,
    /// Hits wanted.
    #[serde(default)]
    pub top: Option<usize>,
    /// Echoed back.
    #[serde(default)]
    pub id: Option<serde_json::Value>,
    /// `lexical`, `vector` or `hybrid`.
    #[serde(default)]
    pub mode: Option<String>,
    /// `weighted` or `rrf`.
    #[serde(default)]
    pub fusion: Option<String>,
    /// `map`, `forest` or `auto`.
    #[serde(default)]
    pub collection: Option<String>,
    /// Weights (missing ones take their defaults).
    #[serde(default)]
    pub weights: Option<SearchWeights>,
    /// English identifiers and terms added to the query's keyword side (not to its embedding),
    /// e.g. by the calling model for a request written in another language.
    #[serde(default)]
    pub keywords: Option<String>,
    /// Lexical ranking parameters (missing ones take their defaults); for evaluation.
    #[serde(default)]
    pub rank: Option<RankParams>,
    /// Whether the search may embed its best keyword candidates that have no vector yet
    /// (default: as `query_embed_max_chunks` / `query_embed_max_ms` allow); `false` for
    /// evaluations of a fixed vector state.
    #[serde(default)]
    pub query_embed: Option<bool>,
}

/// One answer of a forest search (`--json` and `--batch`).
#[derive(Debug, Serialize)]
struct SearchAnswer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<serde_json::Value>,
    query: &'a str,
    #[serde(flatten)]
    results: HybridResults,
    /// What query-time candidate embedding did, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    query_embedding: Option<QueryEmbedReport>,
}

/// One answer of a map/auto search.
#[derive(Debug, Serialize)]
struct SemanticAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<serde_json::Value>,
    #[serde(flatten)]
    result: semantic::SemanticSearchResult,
}

/// Everything a run of `search` shares between queries.
pub struct Searcher<'a> {
    root: &'a RepoRoot,
    index: &'a CodeIndex,
    install: Option<Install>,
    vectors: Option<VectorIndex>,
    model: Option<FastEmbedder>,
    map: Option<MapIndex>,
    defaults: (SearchMode, Fusion, Collection),
    weights: SearchWeights,
    /// `auto_purge_days` of the config: map entries older than this are not searched.
    purge_days: u32,
    query_vectors: HashMap<String, Vec<f32>>,
    notes: Vec<String>,
    /// Query-time candidate embedding's budget.
    budget: QueryEmbedBudget,
    /// Texts embedded by queries since the vector state was last saved.
    unsaved: usize,
}

impl<'a> Searcher<'a> {
    /// Prepares searching `index` (already synced): opens and refreshes the vectors, picks the
    /// defaults, embeds a few pending texts inline.
    ///
    /// # Errors
    /// Config, vector index or model failures.
    pub fn new(
        root: &'a RepoRoot,
        config: &Config,
        index: &'a CodeIndex,
        args: &SearchModeArgs,
    ) -> anyhow::Result<Self> {
        let fusion = args
            .fusion
            .map_or(configured_fusion(config)?, FusionArg::core);
        let mut notes = Vec::new();
        let install = if config.lightweight_mode {
            notes.push("lightweight_mode is on: lexical search only".to_string());
            None
        } else {
            match install() {
                Ok(i) => Some(i),
                Err(e) => {
                    notes.push(format!("no embeddings: {e}"));
                    None
                }
            }
        };
        configured_recipe(config)?;
        let vectors = match &install {
            Some(i) if VectorIndex::has_saved_state(root) || args.mode.is_some() => Some(
                VectorIndex::open_current(root, config, &i.manifest.model_id(), i.manifest.dims)?,
            ),
            _ => None,
        };
        let budget = QueryEmbedBudget::configured(config);
        // Hybrid as soon as a search can get vectors: some are embedded, or the search embeds
        // its best candidates itself (query-time embedding).
        let has_vectors = vectors
            .as_ref()
            .is_some_and(|v| v.live_vectors() > 0 || budget.enabled());
        let mode = match args.mode {
            Some(m) => m.core(),
            None if has_vectors => SearchOptions::configured(config)?.mode,
            None => SearchMode::Lexical,
        };
        let collection = args
            .collection
            .map_or(Collection::Forest, CollectionArg::core);
        let mut searcher = Self {
            root,
            index,
            install,
            vectors,
            model: None,
            map: None,
            defaults: (mode, fusion, collection),
            weights: config.search_weights.clone(),
            purge_days: config.auto_purge_days,
            query_vectors: HashMap::new(),
            notes,
            budget,
            unsaved: 0,
        };
        searcher.embed_inline()?;
        Ok(searcher)
    }

    /// Embeds up to [`INLINE_EMBED_MAX`] pending texts (a just-edited file) before searching.
    fn embed_inline(&mut self) -> anyhow::Result<()> {
        let pending = self
            .vectors
            .as_ref()
            .map_or(0, |v| v.coverage().pending_texts);
        // `auto` searches English requests lexically; its hybrid ones embed their candidates.
        if pending == 0
            || pending > INLINE_EMBED_MAX
            || matches!(self.defaults.0, SearchMode::Lexical | SearchMode::Auto)
        {
            return Ok(());
        }
        self.model()?;
        if let (Some(v), Some(m)) = (self.vectors.as_mut(), self.model.as_ref()) {
            v.embed_pending(m, &mut |_, _| {}, &AtomicBool::new(false))?;
        }
        Ok(())
    }

    /// Query-time candidate embedding for `q` ([`query_embed::embed_candidates`]), when the
    /// mode uses vectors, the budget allows it and `q` does not turn it off.
    fn embed_candidates(
        &mut self,
        q: &BatchQuery,
        mode: SearchMode,
    ) -> anyhow::Result<Option<QueryEmbedReport>> {
        if mode == SearchMode::Lexical
            || self.vectors.is_none()
            || !self.budget.enabled()
            || q.query_embed == Some(false)
        {
            return Ok(None);
        }
        self.model()?;
        let lexical_query = semantic::with_keywords(&q.query, q.keywords.as_deref());
        let (Some(v), Some(m)) = (self.vectors.as_mut(), self.model.as_ref()) else {
            return Ok(None);
        };
        let report = query_embed::embed_candidates(
            self.index,
            v,
            m,
            &lexical_query,
            &q.rank.unwrap_or_default(),
            &self.budget,
        )?;
        self.unsaved += report.embedded;
        Ok(Some(report))
    }

    /// Saves the vector state when queries embedded texts (their vectors are in the embedding
    /// cache already; this brings `status`'s coverage up to date).
    ///
    /// # Errors
    /// The state cannot be written.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        if self.unsaved > 0
            && let Some(v) = self.vectors.as_mut()
        {
            v.save()?;
            self.unsaved = 0;
        }
        Ok(())
    }

    fn model(&mut self) -> anyhow::Result<&FastEmbedder> {
        if self.model.is_none() {
            let install = self
                .install
                .as_ref()
                .context("no embedding model installed: run `code-intel model fetch`")?;
            self.model = Some(load_model(
                install,
                1,
                true,
                (
                    FastEmbedOptions::default().batch_size,
                    FastEmbedOptions::default().batch_tokens,
                ),
            )?);
        }
        self.model
            .as_ref()
            .context("no embedding model installed: run `code-intel model fetch`")
    }

    /// Runs one query with the defaults overridden by `q`'s fields.
    ///
    /// # Errors
    /// Bad override names, index, model or map failures.
    pub fn run(&mut self, q: &BatchQuery, top: usize) -> anyhow::Result<serde_json::Value> {
        let mode = match &q.mode {
            Some(m) => SearchMode::from_name(m).with_context(|| format!("unknown mode {m:?}"))?,
            None => self.defaults.0,
        }
        .resolve(&q.query);
        let fusion = match &q.fusion {
            Some(f) => Fusion::from_name(f).with_context(|| format!("unknown fusion {f:?}"))?,
            None => self.defaults.1,
        };
        let collection = match &q.collection {
            Some(c) => {
                Collection::from_name(c).with_context(|| format!("unknown collection {c:?}"))?
            }
            None => self.defaults.2,
        };
        let opts = SearchOptions {
            mode,
            fusion,
            weights: q.weights.as_ref().unwrap_or(&self.weights).into(),
            candidates: hybrid::CANDIDATES,
        };
        let top = q.top.unwrap_or(top);
        let query_embedding = if collection == Collection::Map {
            None
        } else {
            self.embed_candidates(q, mode)?
        };
        let embed_note = query_embedding.and_then(|r| r.note());
        if collection != Collection::Forest {
            self.model()?;
            if self.map.is_none() {
                let model = self.model.as_ref().context("model")?;
                let expiry = code_intel_session::learned::Expiry::after_days(self.purge_days);
                let mut map = MapIndex::load_with(self.root, &expiry, Some(model))?;
                map.mark_stale(self.index);
                self.map = Some(map);
            }
            let (Some(model), Some(map)) = (self.model.as_ref(), self.map.as_ref()) else {
                anyhow::bail!("the model or the map is not loaded");
            };
            let mut result = semantic::semantic_search_with_keywords(
                Sources {
                    index: self.index,
                    vectors: self.vectors.as_ref(),
                    map,
                    embedder: model,
                },
                &q.query,
                q.keywords.as_deref(),
                collection,
                top,
                &opts,
            )?;
            result.notes.extend(self.notes.iter().cloned());
            result.notes.extend(embed_note);
            return Ok(serde_json::to_value(SemanticAnswer {
                id: q.id.clone(),
                result,
            })?);
        }
        let lexical_query = semantic::with_keywords(&q.query, q.keywords.as_deref());
        let rank = q.rank.unwrap_or_default();
        let wants_vector = mode != SearchMode::Lexical && self.vectors.is_some();
        let mut lexical = None;
        if wants_vector && !self.query_vectors.contains_key(&q.query) {
            // The query embeds on this thread (one ONNX Runtime thread) while its BM25
            // candidates are searched on another.
            self.model()?;
            let model = self.model.as_ref().context("model")?;
            let (embedded, searched) = hybrid::embed_while_searching(
                self.index,
                self.vectors.as_ref(),
                &lexical_query,
                top,
                &opts,
                &rank,
                true,
                || model.embed_queries(&[q.query.as_str()]),
            );
            lexical = searched.context("the keyword search thread panicked")??;
            self.query_vectors.insert(
                q.query.clone(),
                embedded?.into_iter().next().unwrap_or_default(),
            );
        }
        let qv = if wants_vector {
            self.query_vectors.get(&q.query).map(Vec::as_slice)
        } else {
            None
        };
        let mut results = hybrid::search_ranked_from(
            self.index,
            self.vectors.as_ref(),
            qv,
            lexical,
            &lexical_query,
            top,
            &opts,
            &rank,
        )?;
        results.notes.extend(self.notes.iter().cloned());
        results.notes.extend(embed_note);
        Ok(serde_json::to_value(SearchAnswer {
            id: q.id.clone(),
            query: &q.query,
            results,
            query_embedding,
        })?)
    }
}

/// Text form of one answer of [`Searcher::run`].
///
/// # Errors
/// Writing fails.
pub fn render_answer(out: &mut dyn Write, answer: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(msg) = answer.get("message").and_then(|m| m.as_str()) {
        writeln!(out, "{}", esc(msg))?;
        for h in answer["map_hits"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "map  {:>6.3}  z {:>5.1}{}  {} → {}",
                h["cosine"].as_f64().unwrap_or_default(),
                h["z"].as_f64().unwrap_or(f64::NAN),
                if h["confident"].as_bool() == Some(true) {
                    " (confident)"
                } else {
                    ""
                },
                esc(h["nl_term"].as_str().unwrap_or("-")),
                esc(h["symbol"]
                    .as_str()
                    .or(h["agreement_file"].as_str())
                    .unwrap_or("-")),
            )?;
        }
    }
    let hits = answer
        .get("hits")
        .or_else(|| answer.get("forest_hits"))
        .and_then(|h| h.as_array());
    let Some(hits) = hits else { return Ok(()) };
    if hits.is_empty() && answer.get("message").is_none() {
        writeln!(out, "no hits")?;
    }
    for h in hits {
        let name = h["qualified_name"]
            .as_str()
            .filter(|s| !s.is_empty())
            .or(h["symbol"].as_str())
            .unwrap_or_default();
        let parts: Vec<String> = h["explanation"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["contribution"].as_f64().unwrap_or_default() > 0.0)
            .map(|p| {
                format!(
                    "{} {:.2}",
                    p["signal"].as_str().unwrap_or("?"),
                    p["contribution"].as_f64().unwrap_or_default()
                )
            })
            .collect();
        writeln!(
            out,
            "{:>7.3}  {}:{}-{}  {} {}  [{}]",
            h["score"].as_f64().unwrap_or_default(),
            esc(h["file"].as_str().unwrap_or_default()),
            h["start_line"],
            h["end_line"],
            h["kind"].as_str().unwrap_or_default(),
            esc(name),
            parts.join(", ")
        )?;
    }
    render_notes(out, answer)
}

/// The `notes` of an answer, one line each.
///
/// # Errors
/// Writing fails.
pub fn render_notes(out: &mut dyn Write, answer: &serde_json::Value) -> anyhow::Result<()> {
    for n in answer["notes"].as_array().into_iter().flatten() {
        writeln!(out, "note: {}", esc(n.as_str().unwrap_or_default()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_answer_escapes_control_characters_of_paths_names_and_notes() {
        let answer = serde_json::json!({
            "hits": [{
                "score": 0.5,
                "file": "src/b\nc.py",
                "start_line": 1,
                "end_line": 2,
                "kind": "function",
                "qualified_name": "f\u{1b}[31m",
                "explanation": {"parts": [{"signal": "keyword", "contribution": 0.5}]},
            }],
            "notes": ["see src/b\nc.py"],
        });
        let mut out = Vec::new();
        render_answer(&mut out, &answer).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "  0.500  src/b\\nc.py:1-2  function f\\u{1b}[31m  [keyword 0.50]\nnote: see src/b\\nc.py\n"
        );
    }
}
