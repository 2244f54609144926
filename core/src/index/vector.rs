//! The vector side of the index: one unit vector per distinct embedding text of the chunks the
//! lexical index holds, kept consistent with it after every sync, filled in progressively, and
//! searched exactly (brute-force dot products) or through an HNSW graph (hnsw_rs).
//!
//! # Rows, keys and slots
//! - A **row** is one chunk of the lexical index as the vector side sees it: location, names,
//!   snippet, the chunk's content SHA-256 and its **key** ([`embedding_key`] of the configured
//!   [`EmbeddingText`]). Rows are grouped by file together with the file's SHA-256 from
//!   `sync_state.json`, so [`VectorIndex::refresh`] re-chunks exactly the files whose SHA-256
//!   changed since it last ran (chunking is deterministic, so the rows equal the lexical index's
//!   documents for the same file version).
//! - A **slot** is a key with a vector: row `i` of the in-memory matrix and data id `i` of the
//!   HNSW graph. Slots are appended as vectors arrive; a slot whose key no row references any
//!   more is a **tombstone** (skipped by searches). When tombstones exceed
//!   [`REBUILD_TOMBSTONE_FRACTION`] of the slots (and at least [`REBUILD_TOMBSTONE_MIN`]), the
//!   slots are compacted and the graph rebuilt; the embedding cache is pruned to the live keys at
//!   the same time.
//! - Vectors live in the [`EmbeddingCache`] keyed by embedding key, so a chunk whose text did not
//!   change is never embedded twice: not across re-syncs, not across renames (the default recipe
//!   does not include the path), not across processes.
//!
//! Coverage (rows whose key has a vector / rows) is what [`VectorIndex::coverage`] reports;
//! search works at any coverage, over what is embedded.
//!
//! # On disk, under `<repo>/.code-intel/index/`
//! - `vectors/state.json`: [`VectorState`] (rows per file, slot keys, the lexical commit the rows
//!   describe, the current graph dump), written atomically after the cache is flushed, so every
//!   slot it names has its vector on disk.
//! - `vectors/graph-<id>.hnsw.{graph,data}`: hnsw_rs's dump of the graph over the first
//!   `graph_points` slots. Derived data: a missing or unreadable dump is rebuilt from the vectors.
//! - `embeddings/<model>.emb`: the [`EmbeddingCache`].
//!
//! # Several processes
//! An MCP server and a CLI run may share a repository. One embedding run at a time holds
//! `vectors/embed.lock` ([`VectorIndex::try_embed_lock`]); others skip embedding. Writes of
//! `state.json` take turns under its lock, and the last writer's view wins. That view may lack
//! vectors another process added meanwhile, but those vectors are in the embedding cache (appended
//! under its own lock), and every open gives cached vectors of referenced keys their slots again
//! without embedding, so nothing is lost or embedded twice.
//!
//! # Exact or approximate
//! Below [`EXACT_SEARCH_MAX`] live vectors a query is a brute-force scan (every dot product, then
//! a partial sort): exact, needing no build, and within half a millisecond of the graph at those
//! sizes (the constant's docs have the measurements). At and above it, searches go through the
//! HNSW graph (Malkov & Yashunin 2018,
//! "Efficient and robust approximate nearest neighbor search using Hierarchical Navigable Small
//! World graphs"), built with [`HNSW_M`] links per node and [`HNSW_EF_CONSTRUCTION`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use hnsw_rs::anndists::dist::distances::Distance;
use hnsw_rs::hnsw::Hnsw;
use hnsw_rs::hnswio::HnswIo;
use hnsw_rs::prelude::AnnT as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::chunk::{Chunk, chunk_source};
use super::embedding_text::{EmbeddingText, embedding_key};
use super::lexical::snippet_of;
use super::sync::{self, SyncState};
use crate::config::Config;
use crate::embed::{CacheError, EmbedError, Embedder, EmbeddingCache};
use crate::persist::{self, PersistError};
use crate::repo_path::RepoRoot;

/// File name of [`VectorState`] inside the vectors directory ([`crate::state_dir::StateDir::vectors`]).
pub const STATE_FILE: &str = "state.json";
/// Version of [`VectorState`]; another version is ignored (the rows are rebuilt, the vectors come
/// back from the cache).
pub const STATE_VERSION: u32 = 1;

/// Below this many live vectors searches scan every vector; at or above it they use the HNSW
/// graph. Measured with `cargo bench -p code-intel-core --bench vector` on multilingual-e5
/// vectors of Laravel (docs/BENCHMARKS.md, "Semantic"): the scan takes 0.16 ms at 5k vectors,
/// 0.35 ms at 10k, 1.06 ms at 20k and 2.1 ms at 37k, growing linearly; a graph query takes 0.12,
/// 0.28, 0.50 and 0.57 ms. The graph wins from about 5k, but below 20k it saves at most half a
/// millisecond of a query that spends 6–8 ms embedding its text, while it costs a build of 1–13 s
/// of one core, a second copy of the vectors in memory, a dump on disk and exactness. From 20k
/// the scan passes a millisecond and keeps growing, so the graph takes over there.
pub const EXACT_SEARCH_MAX: usize = 20_000;
/// Links per node of the HNSW graph (the paper's `M`; hnsw_rs's `max_nb_connection`). 16 is the
/// paper's recommended range (5–48) for mid-dimensional data and hnswlib's default.
pub const HNSW_M: usize = 16;
/// Candidate list size while inserting (`efConstruction`); 200 is hnswlib's default.
pub const HNSW_EF_CONSTRUCTION: usize = 200;
/// Smallest candidate list while searching (`ef`); a search for `k` uses `max(k, this)`.
pub const HNSW_EF_SEARCH: usize = 64;
/// Layers of the graph (hnsw_rs's maximum is 16).
const HNSW_MAX_LAYER: usize = 16;
/// Compact the slots when tombstones exceed this fraction of them ...
pub const REBUILD_TOMBSTONE_FRACTION: f64 = 0.25;
/// ... and number at least this many.
pub const REBUILD_TOMBSTONE_MIN: usize = 64;
/// Background sample size for a query's similarity profile when the index is too large to scan.
const PROFILE_SAMPLE: usize = 2048;
/// Texts handed to the embedder per call by [`VectorIndex::embed_pending`]: large enough for the
/// embedder's length-sorted batches of 8, small enough that progress and the write lock move often.
pub const EMBED_GROUP: usize = 64;
/// Seconds between intermediate saves of a long [`VectorIndex::embed_pending`] run.
const SAVE_EVERY_SECS: u64 = 30;

/// Errors of the vector index.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// The embedding cache could not be read or written.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// Writing the state file or taking a lock failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
    /// A file of the vector index could not be read or written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The embedder failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The embedder's vectors do not have the index's dimensions.
    #[error("the embedder returned {got}-dimensional vectors, the vector index holds {expected}")]
    Dims {
        /// The index's dimensions.
        expected: usize,
        /// The vector's length.
        got: usize,
    },
    /// The configured `embedding_text` names no recipe.
    #[error(
        "unknown embedding_text {name:?} in .code-intel/config.json; use body, summary or summary_path"
    )]
    UnknownRecipe {
        /// The configured name.
        name: String,
    },
    /// The HNSW graph could not be written.
    #[error("cannot write the vector graph in {dir}: {reason}")]
    Graph {
        /// The vectors directory.
        dir: PathBuf,
        /// hnsw_rs's message.
        reason: String,
    },
}

/// One chunk as the vector side keeps it: enough to answer a search without the lexical index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Hex SHA-256 of the chunk content (as the lexical index stores it).
    pub sha256: String,
    /// The embedding key ([`embedding_key`] of the chunk's embedding text).
    pub key: String,
    /// First line, 1-based.
    pub start_line: u32,
    /// Last line, 1-based inclusive.
    pub end_line: u32,
    /// Symbol name.
    pub symbol: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Chunk kind, snake_case.
    pub kind: String,
    /// Language id.
    pub language: String,
    /// Signature (may be empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// The first lines of the chunk ([`snippet_of`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
}

/// The rows of one file and the file version they were made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRows {
    /// Hex SHA-256 of the file bytes (as in `sync_state.json`).
    pub sha256: String,
    /// The file's chunks, in chunker order.
    pub rows: Vec<Row>,
}

/// The row of chunk `c` under `recipe`.
fn make_row(recipe: EmbeddingText, c: &Chunk) -> Row {
    let text = recipe.text(c);
    Row {
        sha256: c.sha256.clone(),
        key: embedding_key(recipe, &text),
        start_line: c.start_line,
        end_line: c.end_line,
        symbol: c.symbol.clone(),
        qualified_name: c.qualified_name.clone(),
        kind: c.kind.name().to_string(),
        language: c.language.clone(),
        signature: c.signature.clone(),
        snippet: snippet_of(&c.content),
    }
}

/// Rows made from the chunks a lexical sync already has in hand, so that the
/// [`VectorIndex::refresh_with`] after it does not read and chunk every changed file a second
/// time (on a full index of Laravel's framework sources that second pass was about 40 % of the
/// CPU time of `code-intel index`; `docs/BENCHMARKS.md`).
///
/// Fill it through [`Self::offer`] (thread-safe: the sync's chunking workers call it, see
/// [`super::CodeIndex::sync_observed`]), then hand it to [`VectorIndex::refresh_with`], which takes
/// the rows of a file only when their file SHA-256 is the one `sync_state.json` records, and
/// chunks the file itself otherwise. Memory: the rows the vector state will hold anyway
/// (a few hundred bytes per chunk), moved into it by the refresh.
#[derive(Debug)]
pub struct RowHandoff {
    recipe: EmbeddingText,
    files: std::sync::Mutex<HashMap<String, FileRows>>,
}

impl RowHandoff {
    /// An empty handoff for the config's embedding-text recipe.
    ///
    /// # Errors
    /// [`VectorError::UnknownRecipe`] for an `embedding_text` that names no recipe.
    pub fn new(config: &Config) -> Result<Self, VectorError> {
        Ok(Self {
            recipe: configured_recipe(config)?,
            files: std::sync::Mutex::new(HashMap::new()),
        })
    }

    /// Records the rows of `chunks`, the chunks of the file at repository-relative `path` whose
    /// bytes hash to `sha256` (hex SHA-256).
    pub fn offer(&self, path: &str, sha256: &str, chunks: &[Chunk]) {
        let rows = chunks.iter().map(|c| make_row(self.recipe, c)).collect();
        let entry = FileRows {
            sha256: sha256.to_string(),
            rows,
        };
        // A poisoned lock means a chunking worker panicked; the refresh then chunks the file.
        if let Ok(mut files) = self.files.lock() {
            files.insert(path.to_string(), entry);
        }
    }

    /// Files offered so far.
    pub fn len(&self) -> usize {
        self.files.lock().map_or(0, |f| f.len())
    }

    /// Whether nothing was offered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows offered for `path` at version `sha256`, removed from the handoff.
    fn take(&self, recipe: EmbeddingText, path: &str, sha256: &str) -> Option<Vec<Row>> {
        if recipe != self.recipe {
            return None;
        }
        let mut files = self.files.lock().ok()?;
        match files.remove(path) {
            Some(f) if f.sha256 == sha256 => Some(f.rows),
            _ => None,
        }
    }
}

/// `vectors/state.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorState {
    /// [`STATE_VERSION`].
    pub version: u32,
    /// Model id of the vectors ([`Embedder::model_id`]).
    pub model_id: String,
    /// Components per vector.
    pub dims: usize,
    /// [`EmbeddingText::id`] of the recipe the keys were made with.
    pub recipe: String,
    /// [`sync::options_fingerprint`] of the chunker options the rows were made with.
    pub options: String,
    /// The lexical commit (`sync_state.json` `commit`) the rows describe; empty before the first
    /// refresh.
    pub lexical_commit: String,
    /// Rows per repository-relative path.
    pub files: BTreeMap<String, FileRows>,
    /// Files of the lexical index whose current bytes did not match `sync_state.json` at the last
    /// refresh (edited after the sync): they have no rows until the next sync and refresh.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_files: Vec<String>,
    /// Key of each slot, in slot order.
    pub slots: Vec<String>,
    /// Basename of the HNSW dump in the vectors directory, when one is current.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<String>,
    /// Slots `0..graph_points` are in the dump.
    #[serde(default)]
    pub graph_points: usize,
    /// Sizes in bytes of the dump's `.hnsw.graph` and `.hnsw.data` files as written. A dump
    /// whose files differ (truncated, replaced) or that has no recorded sizes is rebuilt instead
    /// of handed to hnsw_rs, which prints to stdout and panics on damaged files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_bytes: Option<[u64; 2]>,
}

impl VectorState {
    fn empty(model_id: &str, dims: usize, recipe: EmbeddingText, options: String) -> Self {
        Self {
            version: STATE_VERSION,
            model_id: model_id.to_string(),
            dims,
            recipe: recipe.id(),
            options,
            lexical_commit: String::new(),
            files: BTreeMap::new(),
            stale_files: Vec::new(),
            slots: Vec::new(),
            graph: None,
            graph_points: 0,
            graph_bytes: None,
        }
    }
}

/// Embedded chunks against all chunks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Chunks (rows) whose embedding text has a vector.
    pub embedded: usize,
    /// Chunks (rows) in the vector side, i.e. in the lexical index as of the last refresh.
    pub total: usize,
    /// Distinct embedding texts still to embed.
    pub pending_texts: usize,
    /// `embedded / total` in [0, 1] (1 for an empty index).
    pub ratio: f64,
}

/// What a [`VectorIndex::refresh`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefreshReport {
    /// Files re-chunked because their SHA-256 changed (or are new).
    pub files_rechunked: usize,
    /// Files dropped (gone from the lexical index).
    pub files_removed: usize,
    /// Files whose bytes changed again since the sync: left without rows until the next sync.
    pub files_stale: usize,
    /// Keys that got a slot from the embedding cache without embedding (unchanged text).
    pub reused_vectors: usize,
    /// Whether the slots were compacted (tombstones over the threshold).
    pub compacted: bool,
    /// Whether nothing was to be done (the rows already described the lexical commit).
    pub up_to_date: bool,
}

/// One text waiting for its vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingText {
    /// Its embedding key.
    pub key: String,
    /// The text (without the model's passage prefix).
    pub text: String,
}

/// What [`VectorIndex::embed_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbedReport {
    /// Texts embedded by this run.
    pub embedded: usize,
    /// Texts still pending (the run was stopped, or files changed under it).
    pub remaining: usize,
    /// Wall-clock duration, milliseconds.
    pub duration_ms: u64,
    /// Coverage after the run.
    pub coverage: Coverage,
    /// Another process was embedding this repository; this run did nothing.
    #[serde(default)]
    pub busy: bool,
}

/// The held embedding lock of a repository ([`VectorIndex::try_embed_lock`]); released on drop.
#[derive(Debug)]
pub struct EmbedLock {
    _lock: crate::persist::FileLock,
}

/// One vector hit: a row and the cosine of its vector to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    /// Repository-relative path.
    pub file: String,
    /// The row.
    pub row: Row,
    /// Cosine similarity to the query, in [-1, 1].
    pub cosine: f32,
}

/// How similar a query is to the indexed vectors in general: the background a single cosine is
/// judged against (multilingual-e5 puts every pair at 0.76–0.92, so only relative scores mean
/// anything; shared/docs/EMBEDDINGS.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SimilarityProfile {
    /// Mean cosine of the query to the background vectors.
    pub mean: f32,
    /// Standard deviation of those cosines (population).
    pub sd: f32,
    /// Vectors in the background (all live vectors, or a fixed sample of large indexes).
    pub n: usize,
}

impl SimilarityProfile {
    /// The z-score of `cosine` against this background (0 when the background is empty or flat).
    pub fn z(&self, cosine: f32) -> f32 {
        if self.n == 0 || self.sd <= f32::EPSILON {
            0.0
        } else {
            (cosine - self.mean) / self.sd
        }
    }
}

/// The result of [`VectorIndex::search`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VectorSearch {
    /// Hits, best first (rows sharing a vector share its cosine).
    pub hits: Vec<VectorHit>,
    /// The query's similarity profile over the index.
    pub profile: SimilarityProfile,
    /// Whether the HNSW graph answered (else an exact scan).
    pub approximate: bool,
}

/// Cosine distance for unit vectors, `max(0, 1 - a·b)`: hnsw_rs's own `DistDot` asserts
/// `1 - a·b >= 0`, which rounding breaks for a vector and itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct UnitDot;

impl Distance<f32> for UnitDot {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - dot(va, vb)).max(0.0)
    }
}

/// Dot product of two equally long slices with eight independent accumulators, so the compiler
/// vectorises it (a single running sum must be added in order and does not vectorise).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 8];
    let chunks = n / 8;
    for i in 0..chunks {
        let (x, y) = (&a[i * 8..i * 8 + 8], &b[i * 8..i * 8 + 8]);
        for j in 0..8 {
            acc[j] += x[j] * y[j];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for i in chunks * 8..n {
        sum += a[i] * b[i];
    }
    sum
}

type Graph = Hnsw<'static, f32, UnitDot>;

/// The vector index of one repository (see the module docs).
pub struct VectorIndex {
    root: RepoRoot,
    dir: PathBuf,
    recipe: EmbeddingText,
    chunk_options: super::chunk::ChunkOptions,
    state: VectorState,
    cache: EmbeddingCache,
    /// Key → slot.
    slot_of: HashMap<String, usize>,
    /// Slot vectors, `slots × dims`.
    matrix: Vec<f32>,
    /// Whether a slot has a vector and a row references its key.
    live: Vec<bool>,
    live_count: usize,
    /// Key → (file, row index) of every row with that key.
    refs: HashMap<String, Vec<(String, usize)>>,
    /// Coverage counts, kept up to date by every change (searches report them).
    counts: Coverage,
    /// The graph over slots `0..graph_points`, when the index is large enough to use one.
    graph: Option<Graph>,
    graph_points: usize,
    /// The graph changed since it was dumped.
    graph_dirty: bool,
    /// The state changed since it was saved.
    dirty: bool,
    /// Live vectors from which the graph is used ([`EXACT_SEARCH_MAX`] unless overridden).
    exact_max: usize,
    /// The chunks of the files query-time embedding read last ([`Self::pending_for`]), newest
    /// last, keyed by path and file SHA-256: a session's searches keep landing in the same
    /// files, and chunking a large one costs tens of milliseconds each time.
    recent_chunks: std::sync::Mutex<std::collections::VecDeque<RecentChunks>>,
}

/// One entry of [`VectorIndex`]'s recently chunked files.
type RecentChunks = (String, String, std::sync::Arc<Vec<Chunk>>);

/// Files whose chunks [`VectorIndex::pending_for`] keeps: about the size of those files, so a few
/// MiB for ordinary source and at most about 32 × `max_file_bytes` (32 MiB by default).
const RECENT_CHUNKED_FILES: usize = 32;

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("root", &self.root.path())
            .field("model", &self.state.model_id)
            .field("slots", &self.state.slots.len())
            .field("live", &self.live_count)
            .finish_non_exhaustive()
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> VectorError + '_ {
    move |source| VectorError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The embedding-text recipe a config asks for (`embedding_text`, default
/// [`EmbeddingText::DEFAULT`]).
///
/// # Errors
/// [`VectorError::UnknownRecipe`] for a name that is no recipe.
pub fn configured_recipe(config: &Config) -> Result<EmbeddingText, VectorError> {
    EmbeddingText::from_name(&config.embedding_text).ok_or_else(|| VectorError::UnknownRecipe {
        name: config.embedding_text.clone(),
    })
}

impl VectorIndex {
    /// `<root>/.code-intel/index/vectors`.
    pub fn dir(root: &RepoRoot) -> PathBuf {
        root.state().vectors()
    }

    /// `<root>/.code-intel/index/embeddings`.
    pub fn embeddings_dir(root: &RepoRoot) -> PathBuf {
        root.state().embeddings()
    }

    /// Reads the saved state without opening the index (for `status`): `None` when there is none
    /// or it is unreadable.
    pub fn peek_state(root: &RepoRoot) -> Option<VectorState> {
        let bytes = std::fs::read(Self::dir(root).join(STATE_FILE)).ok()?;
        serde_json::from_slice::<VectorState>(&bytes)
            .ok()
            .filter(|s| s.version == STATE_VERSION)
    }

    /// Opens the vector index of `root` for vectors of `model_id` with `dims` components and the
    /// config's `embedding_text` recipe. A saved state of another model, recipe, chunker or
    /// version is dropped (its vectors stay in the cache for a later switch back). Creates
    /// nothing on disk until [`Self::save`].
    ///
    /// # Errors
    /// [`VectorError::UnknownRecipe`], [`VectorError::Cache`] (unreadable cache file).
    pub fn open(
        root: &RepoRoot,
        config: &Config,
        model_id: &str,
        dims: usize,
    ) -> Result<Self, VectorError> {
        let recipe = configured_recipe(config)?;
        let dir = Self::dir(root);
        let options = sync::options_fingerprint(config);
        let cache = EmbeddingCache::open(&Self::embeddings_dir(root), model_id, dims)?;
        let state = Self::peek_state(root)
            .filter(|s| {
                s.model_id == model_id
                    && s.dims == dims
                    && s.recipe == recipe.id()
                    && s.options == options
            })
            .unwrap_or_else(|| VectorState::empty(model_id, dims, recipe, options));
        let mut index = Self {
            root: root.clone(),
            dir,
            recipe,
            chunk_options: sync::chunk_options(config),
            state,
            cache,
            slot_of: HashMap::new(),
            matrix: Vec::new(),
            live: Vec::new(),
            live_count: 0,
            refs: HashMap::new(),
            counts: Coverage::default(),
            graph: None,
            graph_points: 0,
            graph_dirty: false,
            dirty: false,
            exact_max: EXACT_SEARCH_MAX,
            recent_chunks: std::sync::Mutex::default(),
        };
        index.load_slots();
        index.adopt_cached();
        index.load_graph();
        Ok(index)
    }

    /// Rebuilds the in-memory slot structures from the state and the cache.
    fn load_slots(&mut self) {
        let dims = self.state.dims;
        self.slot_of.clear();
        self.matrix = Vec::with_capacity(self.state.slots.len() * dims);
        self.live = Vec::with_capacity(self.state.slots.len());
        for (i, key) in self.state.slots.iter().enumerate() {
            match self.cache.get(key) {
                Some(v) => self.matrix.extend_from_slice(v),
                // The vector was lost (cache damaged or pruned): the slot is dead and its key
                // pending again.
                None => self.matrix.extend(std::iter::repeat_n(0.0, dims)),
            }
            self.slot_of.entry(key.clone()).or_insert(i);
            self.live.push(false);
        }
        // Slots without a vector must not be found as slots of their key.
        let lost: Vec<String> = self
            .state
            .slots
            .iter()
            .filter(|k| !self.cache.contains(k))
            .cloned()
            .collect();
        for k in lost {
            self.slot_of.remove(&k);
        }
        self.rebuild_refs();
    }

    /// Recomputes `refs` and `live` from the rows.
    fn rebuild_refs(&mut self) {
        self.refs.clear();
        for (file, fr) in &self.state.files {
            for (i, row) in fr.rows.iter().enumerate() {
                self.refs
                    .entry(row.key.clone())
                    .or_default()
                    .push((file.clone(), i));
            }
        }
        self.live.iter_mut().for_each(|l| *l = false);
        for (key, &slot) in &self.slot_of {
            if self.refs.contains_key(key) {
                self.live[slot] = true;
            }
        }
        self.live_count = self.live.iter().filter(|l| **l).count();
        self.recount();
    }

    /// Recomputes the coverage counts from `refs` and `slot_of`.
    fn recount(&mut self) {
        let mut c = Coverage::default();
        for (key, rows) in &self.refs {
            c.total += rows.len();
            if self.slot_of.contains_key(key) {
                c.embedded += rows.len();
            } else {
                c.pending_texts += 1;
            }
        }
        self.counts = c;
    }

    fn load_graph(&mut self) {
        self.graph = None;
        self.graph_points = 0;
        if self.live_count < self.exact_max {
            return;
        }
        if let Some(base) = self.state.graph.clone()
            && self.state.graph_points <= self.state.slots.len()
            && let Some(bytes) = self.state.graph_bytes
            && let Some(graph) = load_dump(&self.dir, &base, bytes)
            && graph.get_nb_point() == self.state.graph_points
        {
            self.graph = Some(graph);
            self.graph_points = self.state.graph_points;
            self.extend_graph();
            return;
        }
        self.build_graph();
    }

    /// A fresh graph over all slots with a vector.
    fn build_graph(&mut self) {
        let mut graph: Graph = Hnsw::new(
            HNSW_M,
            self.state.slots.len().max(1),
            HNSW_MAX_LAYER,
            HNSW_EF_CONSTRUCTION,
            UnitDot,
        );
        // Extend the candidates with their neighbours while choosing a new point's links (the
        // paper's `extendCandidates`). Without it, clustered vectors inserted cluster by cluster
        // (slots arrive sorted by text length) left some points without in-links: unreachable,
        // never found (a regression test in tests/vector_index.rs). hnsw_rs's reload turns it on.
        graph.set_extend_candidates(true);
        self.graph = Some(graph);
        self.graph_points = 0;
        self.extend_graph();
    }

    /// Inserts slots `graph_points..` into the graph.
    fn extend_graph(&mut self) {
        let dims = self.state.dims;
        let Some(graph) = &self.graph else { return };
        for slot in self.graph_points..self.state.slots.len() {
            if self.slot_of.get(&self.state.slots[slot]) == Some(&slot) {
                graph.insert_slice((&self.matrix[slot * dims..(slot + 1) * dims], slot));
            }
        }
        if self.graph_points != self.state.slots.len() {
            self.graph_points = self.state.slots.len();
            self.graph_dirty = true;
        }
    }

    /// Sets the number of live vectors from which searches use the HNSW graph (default
    /// [`EXACT_SEARCH_MAX`]), building or dropping the graph to match. For benchmarks and tests of
    /// the graph path on small indexes.
    pub fn set_exact_search_max(&mut self, n: usize) {
        self.exact_max = n.max(1);
        if self.live_count >= self.exact_max {
            if self.graph.is_none() {
                self.build_graph();
            }
        } else if self.graph.is_some() {
            self.graph = None;
            self.graph_points = 0;
            self.graph_dirty = true;
        }
    }

    /// The repository root.
    pub fn root(&self) -> &RepoRoot {
        &self.root
    }

    /// The embedding-text recipe of the keys.
    pub fn recipe(&self) -> EmbeddingText {
        self.recipe
    }

    /// Model id of the vectors.
    pub fn model_id(&self) -> &str {
        &self.state.model_id
    }

    /// Components per vector.
    pub fn dims(&self) -> usize {
        self.state.dims
    }

    /// The lexical commit the rows describe (empty before the first refresh).
    pub fn lexical_commit(&self) -> &str {
        &self.state.lexical_commit
    }

    /// Live vectors (distinct embedded texts of current chunks).
    pub fn live_vectors(&self) -> usize {
        self.live_count
    }

    /// Whether searches use the HNSW graph.
    pub fn uses_graph(&self) -> bool {
        self.graph.is_some()
    }

    /// The rows of one file, if it has any.
    pub fn rows_of(&self, file: &str) -> Option<&[Row]> {
        self.state.files.get(file).map(|f| f.rows.as_slice())
    }

    /// The vector of a key, if embedded.
    pub fn vector(&self, key: &str) -> Option<&[f32]> {
        let slot = *self.slot_of.get(key)?;
        let dims = self.state.dims;
        Some(&self.matrix[slot * dims..(slot + 1) * dims])
    }

    /// Coverage of the current rows.
    pub fn coverage(&self) -> Coverage {
        let c = self.counts;
        Coverage {
            ratio: if c.total == 0 {
                1.0
            } else {
                c.embedded as f64 / c.total as f64
            },
            ..c
        }
    }

    /// Whether the rows describe the lexical index's current commit (cheap: reads
    /// `sync_state.json`). False when the lexical index was never synced.
    pub fn is_current(&self) -> bool {
        SyncState::load(&SyncState::path(&self.root))
            .is_some_and(|s| s.commit == self.state.lexical_commit)
    }

    /// Brings the rows up to date with the lexical index as `sync_state.json` describes it:
    /// re-chunks new and changed files (by file SHA-256), drops removed ones, gives every key
    /// already in the embedding cache its slot without embedding, and compacts when tombstones
    /// exceed the threshold. Embeds nothing (see [`Self::pending`] / [`Self::embed_pending`]).
    /// Call after every [`super::CodeIndex::sync`]; cheap when nothing changed.
    ///
    /// A file whose bytes no longer match the sync state (edited after the sync) gets no rows
    /// (`files_stale`) until the next sync and refresh, so rows never describe another version
    /// of a file than the lexical index.
    ///
    /// # Errors
    /// [`VectorError::Cache`] when compaction cannot rewrite the cache file.
    pub fn refresh(&mut self) -> Result<RefreshReport, VectorError> {
        self.refresh_with(None)
    }

    /// [`Self::refresh`], taking the rows of a file from `handoff` when it holds them for the
    /// version `sync_state.json` records (see [`RowHandoff`]); other files are read and chunked.
    /// `report.files_rechunked` counts both.
    ///
    /// # Errors
    /// As [`Self::refresh`].
    pub fn refresh_with(
        &mut self,
        handoff: Option<&RowHandoff>,
    ) -> Result<RefreshReport, VectorError> {
        let mut report = RefreshReport::default();
        let Some(sync_state) = SyncState::load(&SyncState::path(&self.root)) else {
            // Never synced (or the state is unreadable): nothing is indexed.
            report.files_removed = self.state.files.len();
            if !self.state.files.is_empty() || !self.state.lexical_commit.is_empty() {
                self.state.files.clear();
                self.state.lexical_commit.clear();
                self.after_rows_changed(&mut report)?;
            } else {
                report.up_to_date = true;
            }
            return Ok(report);
        };
        if sync_state.commit == self.state.lexical_commit && self.state.stale_files.is_empty() {
            report.up_to_date = true;
            return Ok(report);
        }
        let before = self.state.files.len();
        self.state
            .files
            .retain(|path, _| sync_state.files.get(path).is_some_and(|f| f.chunks > 0));
        report.files_removed = before - self.state.files.len();
        self.state.stale_files.clear();
        for (path, fs) in &sync_state.files {
            if fs.chunks == 0 || fs.skipped.is_some() {
                continue;
            }
            if self
                .state
                .files
                .get(path)
                .is_some_and(|f| f.sha256 == fs.sha256)
            {
                continue;
            }
            let handed = handoff.and_then(|h| h.take(self.recipe, path, &fs.sha256));
            let rows = handed.or_else(|| {
                self.chunk_file(path, &fs.sha256)
                    .map(|chunks| chunks.iter().map(|c| self.row(c)).collect())
            });
            match rows {
                Some(rows) => {
                    self.state.files.insert(
                        path.clone(),
                        FileRows {
                            sha256: fs.sha256.clone(),
                            rows,
                        },
                    );
                    report.files_rechunked += 1;
                }
                None => {
                    self.state.files.remove(path);
                    self.state.stale_files.push(path.clone());
                    report.files_stale += 1;
                }
            }
        }
        self.state.lexical_commit = sync_state.commit;
        self.after_rows_changed(&mut report)?;
        Ok(report)
    }

    /// After rows changed: refs, reuse of cached vectors, compaction.
    fn after_rows_changed(&mut self, report: &mut RefreshReport) -> Result<(), VectorError> {
        self.rebuild_refs();
        report.reused_vectors += self.adopt_cached();
        let dead = self.state.slots.len() - self.live_count;
        if dead >= REBUILD_TOMBSTONE_MIN
            && dead as f64 > REBUILD_TOMBSTONE_FRACTION * self.state.slots.len() as f64
        {
            self.compact()?;
            report.compacted = true;
        } else if self.graph.is_none() && self.live_count >= self.exact_max {
            self.build_graph();
        }
        self.dirty = true;
        Ok(())
    }

    /// Gives every referenced key that has no slot but a cached vector its slot (no embedding).
    /// Returns how many. This also repairs a state saved by a process that had not seen another
    /// process's vectors yet: they are in the cache, so they come back here.
    fn adopt_cached(&mut self) -> usize {
        let mut missing: Vec<String> = self
            .refs
            .keys()
            .filter(|k| !self.slot_of.contains_key(*k) && self.cache.contains(k))
            .cloned()
            .collect();
        missing.sort();
        let n = missing.len();
        for key in missing {
            let v = self
                .cache
                .get(&key)
                .map(<[f32]>::to_vec)
                .unwrap_or_default();
            self.add_slot(key, &v);
        }
        if n > 0 {
            self.dirty = true;
        }
        n
    }

    /// Appends a slot for `key` (which a row references) with vector `v`.
    fn add_slot(&mut self, key: String, v: &[f32]) {
        let slot = self.state.slots.len();
        if let Some(rows) = self.refs.get(&key) {
            self.counts.embedded += rows.len();
            self.counts.pending_texts = self.counts.pending_texts.saturating_sub(1);
        }
        self.matrix.extend_from_slice(v);
        self.live.push(true);
        self.live_count += 1;
        self.slot_of.insert(key.clone(), slot);
        self.state.slots.push(key);
        if let Some(graph) = &self.graph {
            graph.insert_slice((v, slot));
            self.graph_points = self.state.slots.len();
            self.graph_dirty = true;
        }
    }

    /// Drops tombstones: slots become the live keys, the graph is rebuilt (or dropped below the
    /// exact-search size) and the cache is pruned to the live keys.
    fn compact(&mut self) -> Result<(), VectorError> {
        let dims = self.state.dims;
        let mut slots = Vec::with_capacity(self.live_count);
        let mut matrix = Vec::with_capacity(self.live_count * dims);
        for (slot, key) in self.state.slots.iter().enumerate() {
            if self.live[slot] {
                slots.push(key.clone());
                matrix.extend_from_slice(&self.matrix[slot * dims..(slot + 1) * dims]);
            }
        }
        self.state.slots = slots;
        self.matrix = matrix;
        self.slot_of = self
            .state
            .slots
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), i))
            .collect();
        self.live = vec![true; self.state.slots.len()];
        self.live_count = self.state.slots.len();
        self.cache
            .retain(self.state.slots.iter().map(String::as_str))?;
        self.graph = None;
        self.graph_points = 0;
        self.graph_dirty = true;
        if self.live_count >= self.exact_max {
            self.build_graph();
        }
        Ok(())
    }

    /// Reads and chunks one file, if its bytes still have `sha256`.
    fn chunk_file(&self, path: &str, sha256: &str) -> Option<Vec<Chunk>> {
        let bytes = std::fs::read(self.root.path().join(path)).ok()?;
        if hex::encode(Sha256::digest(&bytes)) != sha256 {
            return None;
        }
        chunk_source(path, &bytes, &self.chunk_options).ok()
    }

    /// [`Self::chunk_file`] through the recently chunked files: a hit when the file's SHA-256 is
    /// the one remembered, else read, chunked and remembered (the oldest entry goes).
    fn chunk_file_recent(&self, path: &str, sha256: &str) -> Option<std::sync::Arc<Vec<Chunk>>> {
        use std::sync::{Arc, PoisonError};
        {
            let mut recent = self
                .recent_chunks
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(i) = recent.iter().position(|(p, h, _)| p == path && h == sha256)
                && let Some(entry) = recent.remove(i)
            {
                let chunks = Arc::clone(&entry.2);
                recent.push_back(entry);
                return Some(chunks);
            }
        }
        // Chunked outside the lock; two threads chunking the same file get equal chunks.
        let chunks = Arc::new(self.chunk_file(path, sha256)?);
        let mut recent = self
            .recent_chunks
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        recent.retain(|(p, _, _)| p != path);
        while recent.len() >= RECENT_CHUNKED_FILES {
            recent.pop_front();
        }
        recent.push_back((path.to_string(), sha256.to_string(), Arc::clone(&chunks)));
        Some(chunks)
    }

    fn row(&self, c: &Chunk) -> Row {
        make_row(self.recipe, c)
    }

    /// The texts still to embed, one per distinct key, shortest first (so batches pad little).
    /// Reads and chunks the files that have them; a file changed since the refresh is skipped
    /// (the next sync and refresh pick it up).
    pub fn pending(&self) -> Vec<PendingText> {
        let mut files: Vec<(&String, &FileRows)> = self
            .state
            .files
            .iter()
            .filter(|(_, f)| f.rows.iter().any(|r| !self.slot_of.contains_key(&r.key)))
            .collect();
        files.sort_by_key(|(p, _)| *p);
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for (path, fr) in files {
            let Some(chunks) = self.chunk_file(path, &fr.sha256) else {
                continue;
            };
            for c in &chunks {
                let text = self.recipe.text(c);
                let key = embedding_key(self.recipe, &text);
                if !self.slot_of.contains_key(&key)
                    && self.refs.contains_key(&key)
                    && seen.insert(key.clone())
                {
                    out.push(PendingText { key, text });
                }
            }
        }
        out.sort_by_key(|p| p.text.chars().count());
        out
    }

    /// The row of `file` that starts at `start_line` with chunk SHA-256 `sha256` (as a lexical hit
    /// names a chunk), and its file's rows; `None` when the rows do not know it.
    fn row_at(&self, file: &str, start_line: u32, sha256: &str) -> Option<(&FileRows, &Row)> {
        let fr = self.state.files.get(file)?;
        let row = fr
            .rows
            .iter()
            .find(|r| r.start_line == start_line && r.sha256 == sha256)?;
        Some((fr, row))
    }

    /// How many distinct texts of `chunks` (named as in [`Self::pending_for`]) have no vector, at
    /// most `limit`: from the rows alone, no file is read. Chunks the rows do not know are not
    /// counted.
    pub fn missing_for(&self, chunks: &[(&str, u32, &str)], limit: usize) -> usize {
        let mut seen = HashSet::new();
        for &(file, start_line, sha256) in chunks {
            if seen.len() >= limit {
                break;
            }
            let Some((_, row)) = self.row_at(file, start_line, sha256) else {
                continue;
            };
            if !self.slot_of.contains_key(&row.key) {
                seen.insert(row.key.as_str());
            }
        }
        seen.len()
    }

    /// The texts still to embed for the given chunks, each named by (file, start line, chunk
    /// SHA-256) as a lexical hit names it: one per distinct key without a vector, in the order
    /// of `chunks` (a query's candidates, best first). Chunks the rows do not know (the vectors
    /// are behind the index) and files changed since the refresh are skipped. Each file is read
    /// and chunked once per call, and no file is read once `limit` texts are found; the chunks of
    /// the last 32 files read are kept for the next calls (keyed by the file's SHA-256), so
    /// repeated and overlapping queries do not chunk them again.
    pub fn pending_for(&self, chunks: &[(&str, u32, &str)], limit: usize) -> Vec<PendingText> {
        let mut chunked: HashMap<&str, Option<std::sync::Arc<Vec<Chunk>>>> = HashMap::new();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for &(file, start_line, sha256) in chunks {
            if out.len() >= limit {
                break;
            }
            let Some((fr, row)) = self.row_at(file, start_line, sha256) else {
                continue;
            };
            if self.slot_of.contains_key(&row.key) || !seen.insert(row.key.clone()) {
                continue;
            }
            let file_chunks = chunked
                .entry(file)
                .or_insert_with(|| self.chunk_file_recent(file, &fr.sha256));
            let Some(c) = file_chunks.as_ref().and_then(|cs| {
                cs.iter()
                    .find(|c| c.start_line == start_line && c.sha256 == sha256)
            }) else {
                continue;
            };
            let text = self.recipe.text(c);
            if embedding_key(self.recipe, &text) == row.key {
                out.push(PendingText {
                    key: row.key.clone(),
                    text,
                });
            }
        }
        out
    }

    /// Makes the vectors inserted so far durable (flushes the embedding cache) without writing
    /// the state: cheap enough for every query. The state may then lag behind the cache, which
    /// is safe (every open gives cached vectors of referenced keys their slots again); the next
    /// [`Self::save`] catches it up.
    ///
    /// # Errors
    /// [`VectorError::Cache`] when the cache file cannot be written.
    pub fn flush_vectors(&mut self) -> Result<(), VectorError> {
        self.cache.flush()?;
        Ok(())
    }

    /// Adds embedded vectors (pending until [`Self::save`] flushes them). Keys no row references
    /// (any more) are cached but get no slot. Returns how many got a slot.
    ///
    /// # Errors
    /// [`VectorError::Dims`] for a vector of the wrong size (nothing is inserted).
    pub fn insert(&mut self, vectors: &[(String, Vec<f32>)]) -> Result<usize, VectorError> {
        if let Some((_, v)) = vectors.iter().find(|(_, v)| v.len() != self.state.dims) {
            return Err(VectorError::Dims {
                expected: self.state.dims,
                got: v.len(),
            });
        }
        self.cache
            .insert_many(vectors.iter().map(|(k, v)| (k.as_str(), v)))?;
        let mut added = 0;
        for (key, v) in vectors {
            if !self.slot_of.contains_key(key) && self.refs.contains_key(key) {
                self.add_slot(key.clone(), v);
                added += 1;
            }
        }
        if added > 0 {
            self.dirty = true;
            if self.graph.is_none() && self.live_count >= self.exact_max {
                self.build_graph();
            }
        }
        Ok(added)
    }

    /// Writes what changed: flushes the embedding cache, dumps the graph if it changed, then
    /// writes the state atomically (so every slot it names has its vector on disk) and removes
    /// the previous graph dump.
    ///
    /// # Errors
    /// [`VectorError::Cache`], [`VectorError::Persist`], [`VectorError::Io`], [`VectorError::Graph`].
    pub fn save(&mut self) -> Result<(), VectorError> {
        self.cache.flush()?;
        if !self.dirty && !self.graph_dirty {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(io_err(&self.dir))?;
        // Writers of the state (an MCP server, a CLI run) take turns; see the module docs for
        // why the last writer's view is safe.
        let _lock = persist::FileLock::acquire(&self.dir.join(STATE_FILE))?;
        let old_graph = self.state.graph.clone();
        if self.graph_dirty {
            match &self.graph {
                Some(graph) => {
                    let base =
                        format!("graph-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
                    let bytes = dump_graph(graph, &self.dir, &base)?;
                    self.state.graph = Some(base);
                    self.state.graph_points = self.graph_points;
                    self.state.graph_bytes = Some(bytes);
                }
                None => {
                    self.state.graph = None;
                    self.state.graph_points = 0;
                    self.state.graph_bytes = None;
                }
            }
        }
        let bytes = serde_json::to_vec(&self.state).map_err(|e| VectorError::Io {
            path: self.dir.join(STATE_FILE),
            source: e.into(),
        })?;
        persist::write_atomic(&self.dir.join(STATE_FILE), &bytes)?;
        if self.graph_dirty
            && let Some(old) = old_graph
            && self.state.graph.as_deref() != Some(old.as_str())
        {
            for ext in ["hnsw.graph", "hnsw.data"] {
                // A leftover dump is harmless garbage; the next dump's cleanup does not see it,
                // so log-free removal is best effort by design.
                std::fs::remove_file(self.dir.join(format!("{old}.{ext}"))).ok();
            }
        }
        self.dirty = false;
        self.graph_dirty = false;
        Ok(())
    }

    /// Takes the embedding lock of this repository (`vectors/embed.lock`) if no other process or
    /// thread holds it: one embedding run at a time, so two processes never embed the same texts.
    /// `Ok(None)` when it is taken.
    ///
    /// # Errors
    /// [`VectorError::Persist`] when the lock file cannot be created or locked.
    pub fn try_embed_lock(&self) -> Result<Option<EmbedLock>, VectorError> {
        // Locks `embed.lock` (persist::FileLock appends `.lock`).
        let lock = crate::persist::FileLock::try_acquire(&self.dir.join("embed"))?;
        Ok(lock.map(|l| EmbedLock { _lock: l }))
    }

    /// Embeds every pending text with `embedder`, [`EMBED_GROUP`] texts per call, inserting as it
    /// goes, flushing each group's vectors to the embedding cache, and saving the state every
    /// 30 s and at the end. `progress(done, total)` is called after each
    /// group; `stop` is checked between groups. Holds the embedding lock ([`Self::try_embed_lock`]);
    /// when another process holds it, returns at once with `busy` set and nothing embedded.
    ///
    /// # Errors
    /// [`VectorError::Embed`] (what was embedded before the failure is saved first), or the
    /// errors of [`Self::insert`] and [`Self::save`].
    pub fn embed_pending(
        &mut self,
        embedder: &dyn Embedder,
        progress: &mut dyn FnMut(usize, usize),
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<EmbedReport, VectorError> {
        let started = std::time::Instant::now();
        let Some(_lock) = self.try_embed_lock()? else {
            return Ok(EmbedReport {
                remaining: self.coverage().pending_texts,
                busy: true,
                coverage: self.coverage(),
                ..EmbedReport::default()
            });
        };
        let pending = self.pending();
        let total = pending.len();
        let mut done = 0;
        let mut last_save = std::time::Instant::now();
        for group in pending.chunks(EMBED_GROUP) {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let texts: Vec<&str> = group.iter().map(|p| p.text.as_str()).collect();
            let vectors = match embedder.embed_passages(&texts) {
                Ok(v) => v,
                Err(e) => {
                    self.save()?;
                    return Err(e.into());
                }
            };
            let items: Vec<(String, Vec<f32>)> =
                group.iter().map(|p| p.key.clone()).zip(vectors).collect();
            self.insert(&items)?;
            // Durable at once (an append to the cache file): a run killed later loses at most
            // the group in flight, and the next run embeds only what is missing.
            self.cache.flush()?;
            done += group.len();
            progress(done, total);
            if last_save.elapsed().as_secs() >= SAVE_EVERY_SECS {
                self.save()?;
                last_save = std::time::Instant::now();
            }
        }
        self.save()?;
        Ok(EmbedReport {
            busy: false,
            embedded: done,
            remaining: total - done,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            coverage: self.coverage(),
        })
    }

    /// The `k` rows nearest to `query` (a unit vector of [`Self::dims`] components), best first,
    /// with the query's [`SimilarityProfile`]. Rows sharing a vector count once towards `k` and
    /// are all returned. Exact below [`EXACT_SEARCH_MAX`] live vectors, HNSW above.
    pub fn search(&self, query: &[f32], k: usize) -> VectorSearch {
        if k == 0 || self.live_count == 0 || query.len() != self.state.dims {
            return VectorSearch {
                profile: self.profile(query),
                ..VectorSearch::default()
            };
        }
        let (slots, profile, approximate) = match &self.graph {
            Some(graph) if self.graph_points == self.state.slots.len() => {
                let live = |id: &usize| self.live.get(*id).copied().unwrap_or(false);
                let ef = HNSW_EF_SEARCH.max(k);
                let found = graph.search_filter(query, k, ef, Some(&live));
                let slots: Vec<(usize, f32)> =
                    found.iter().map(|n| (n.d_id, 1.0 - n.distance)).collect();
                (slots, self.profile(query), true)
            }
            _ => {
                let (slots, profile) = self.scan(query, k);
                (slots, profile, false)
            }
        };
        let mut hits = Vec::new();
        for (slot, cosine) in slots {
            let key = &self.state.slots[slot];
            for (file, i) in self.refs.get(key).into_iter().flatten() {
                if let Some(row) = self.state.files.get(file).and_then(|f| f.rows.get(*i)) {
                    hits.push(VectorHit {
                        file: file.clone(),
                        row: row.clone(),
                        cosine,
                    });
                }
            }
        }
        VectorSearch {
            hits,
            profile,
            approximate,
        }
    }

    /// Exact top-`k` live slots by dot product, and the profile over all live slots.
    fn scan(&self, query: &[f32], k: usize) -> (Vec<(usize, f32)>, SimilarityProfile) {
        let dims = self.state.dims;
        let mut scored: Vec<(usize, f32)> = Vec::with_capacity(self.live_count);
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        for (slot, v) in self.matrix.chunks_exact(dims).enumerate() {
            if !self.live[slot] {
                continue;
            }
            let c = dot(query, v);
            sum += f64::from(c);
            sum_sq += f64::from(c) * f64::from(c);
            scored.push((slot, c));
        }
        let n = scored.len();
        let profile = profile_of(sum, sum_sq, n);
        let k = k.min(n);
        if k > 0 && k < n {
            scored.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
            scored.truncate(k);
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        (scored, profile)
    }

    /// The query's similarity profile: over every live vector when the index is below
    /// [`EXACT_SEARCH_MAX`], else over a fixed stride sample of 2,048 (`PROFILE_SAMPLE`) live vectors.
    pub fn profile(&self, query: &[f32]) -> SimilarityProfile {
        if self.live_count == 0 || query.len() != self.state.dims {
            return SimilarityProfile::default();
        }
        let dims = self.state.dims;
        let stride = if self.live_count < self.exact_max {
            1
        } else {
            (self.live_count / PROFILE_SAMPLE).max(1)
        };
        let (mut sum, mut sum_sq, mut n) = (0.0f64, 0.0f64, 0usize);
        let mut seen = 0usize;
        for (slot, v) in self.matrix.chunks_exact(dims).enumerate() {
            if !self.live[slot] {
                continue;
            }
            seen += 1;
            if !seen.is_multiple_of(stride) {
                continue;
            }
            let c = f64::from(dot(query, v));
            sum += c;
            sum_sq += c * c;
            n += 1;
        }
        profile_of(sum, sum_sq, n)
    }
}

fn profile_of(sum: f64, sum_sq: f64, n: usize) -> SimilarityProfile {
    if n == 0 {
        return SimilarityProfile::default();
    }
    let mean = sum / n as f64;
    let var = (sum_sq / n as f64 - mean * mean).max(0.0);
    SimilarityProfile {
        mean: mean as f32,
        sd: var.sqrt() as f32,
        n,
    }
}

/// Loads an hnsw_rs dump; `None` when it is missing, unreadable or not the size it was written
/// with (`bytes`: graph file, data file). hnsw_rs prints to stdout before it fails on a file it
/// cannot open or parse, and stdout is the MCP protocol stream, so only files that open and match
/// their recorded sizes reach it; a panic on what is left is caught and means unreadable.
fn load_dump(dir: &Path, base: &str, bytes: [u64; 2]) -> Option<Graph> {
    let [graph_file, data_file] = dump_paths(dir, base);
    for (path, expected) in [(&graph_file, bytes[0]), (&data_file, bytes[1])] {
        let file = std::fs::File::open(path).ok()?;
        if file.metadata().ok()?.len() != expected {
            return None;
        }
    }
    let dir = dir.to_path_buf();
    let base = base.to_string();
    std::panic::catch_unwind(move || {
        // hnsw_rs ties the graph's lifetime to the loader (for memory-mapped data, which is off
        // here: the points own their vectors). The loader is a few hundred bytes, leaked once per
        // load (one per process open, or after a damaged dump), to get a `'static` graph.
        let io: &'static mut HnswIo = Box::leak(Box::new(HnswIo::new(&dir, &base)));
        io.load_hnsw::<f32, UnitDot>().ok()
    })
    .ok()
    .flatten()
}

/// The `.hnsw.graph` and `.hnsw.data` files of dump `base`.
fn dump_paths(dir: &Path, base: &str) -> [PathBuf; 2] {
    [
        dir.join(format!("{base}.hnsw.graph")),
        dir.join(format!("{base}.hnsw.data")),
    ]
}

/// Dumps the graph as `<base>.hnsw.{graph,data}` in `dir` (which exists); returns the two files'
/// sizes in bytes.
fn dump_graph(graph: &Graph, dir: &Path, base: &str) -> Result<[u64; 2], VectorError> {
    let err = |reason: String| VectorError::Graph {
        dir: dir.to_path_buf(),
        reason,
    };
    // hnsw_rs prints to stdout (the MCP stream) and panics when it cannot create its files, so
    // create them first: a read-only or full directory is an error here, before hnsw_rs runs.
    let paths = dump_paths(dir, base);
    for path in &paths {
        std::fs::File::create(path)
            .map_err(|e| err(format!("cannot create {}: {e}", path.display())))?;
    }
    let dumped =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| graph.file_dump(dir, base)))
            .map_err(|_| err("hnsw_rs panicked while dumping".into()))?
            .map_err(|e| err(e.to_string()))?;
    if dumped != base {
        return Err(err(format!("dumped as {dumped}, expected {base}")));
    }
    let size = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(|e| err(format!("cannot stat {}: {e}", p.display())))
    };
    Ok([size(&paths[0])?, size(&paths[1])?])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_graph() -> Graph {
        let graph: Graph = Hnsw::new(HNSW_M, 4, HNSW_MAX_LAYER, HNSW_EF_CONSTRUCTION, UnitDot);
        for (i, v) in [[1.0f32, 0.0], [0.0, 1.0], [0.6, 0.8]].iter().enumerate() {
            graph.insert((v.as_slice(), i));
        }
        graph
    }

    #[test]
    fn an_uncreatable_dump_is_an_error_before_hnsw_rs_runs() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the graph file should go: creating the file fails even as root.
        std::fs::create_dir(dir.path().join("g.hnsw.graph")).unwrap();
        let err = dump_graph(&small_graph(), dir.path(), "g").unwrap_err();
        assert!(err.to_string().contains("cannot create"), "{err}");
        assert!(
            !dir.path().join("g.hnsw.data").exists() || dir.path().join("g.hnsw.graph").is_dir()
        );
    }

    #[test]
    fn only_a_dump_of_the_recorded_sizes_is_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = dump_graph(&small_graph(), dir.path(), "g").unwrap();
        let loaded = load_dump(dir.path(), "g", bytes).expect("intact dump loads");
        assert_eq!(loaded.get_nb_point(), 3);
        assert!(load_dump(dir.path(), "g", [bytes[0], bytes[1] + 1]).is_none());
        // Truncated: never handed to hnsw_rs.
        let data = dir.path().join("g.hnsw.data");
        let full = std::fs::read(&data).unwrap();
        std::fs::write(&data, &full[..full.len() / 2]).unwrap();
        assert!(load_dump(dir.path(), "g", bytes).is_none());
        assert!(load_dump(dir.path(), "missing", bytes).is_none());
    }
}
